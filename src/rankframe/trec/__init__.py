"""TREC files and trec_eval's output.

- ``read_trec_run``, ``read_trec_qrels`` and ``join_trec`` read TREC run and qrels
  files and join them into rankframe's long frame, with trec_eval's semantics (``files``);
- ``TREC_MEASURES`` and ``parse_trec_measures``: the trec_eval measures rankframe
  computes, taken from the metric registry, and trec_eval's ``-m`` syntax (``measures``);
  trec_eval's own tables (its measures, their default parameters, its nicknames) are in
  ``tables``, which the metric registry reads too;
- ``trec_eval_report`` prints them in trec_eval's own output format
  (``measure<TAB>query<TAB>value``), line for line as trec_eval prints them; it is what
  ``rankframe trec`` runs (``report``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rankframe.trec.files import join_trec, read_trec_qrels, read_trec_run
    from rankframe.trec.measures import TREC_MEASURES, TrecMeasure, parse_trec_measures
    from rankframe.trec.report import trec_eval_report

__all__ = [
    "TREC_MEASURES",
    "TrecMeasure",
    "join_trec",
    "parse_trec_measures",
    "read_trec_qrels",
    "read_trec_run",
    "trec_eval_report",
]

# Each name is imported from its module when first used. The registry reads ``tables`` while
# it is being filled, and ``measures`` reads the filled registry: importing this package (as
# importing ``tables`` does) must not import ``measures``.
_MODULE_OF = {
    "join_trec": "files", "read_trec_qrels": "files", "read_trec_run": "files",
    "TREC_MEASURES": "measures", "TrecMeasure": "measures", "parse_trec_measures": "measures",
    "trec_eval_report": "report",
}


def __getattr__(name: str) -> object:
    if name not in _MODULE_OF:
        msg = f"module 'rankframe.trec' has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(f"rankframe.trec.{_MODULE_OF[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
