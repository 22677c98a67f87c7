"""TREC files and trec_eval's output.

- ``read_trec_run``, ``read_trec_qrels`` and ``join_trec`` read TREC run and qrels
  files and join them into rankframe's long frame, with trec_eval's semantics (they live
  with the other inputs, ``rankframe.inputs.trec_files``);
- ``TREC_MEASURES`` and ``parse_trec_measures``: the trec_eval measures rankframe
  computes, taken from the metric registry, and trec_eval's ``-m`` syntax (``measures``);
  trec_eval's own tables (its measures, their default parameters, its nicknames) are data
  of the registry, ``rankframe.metrics.trec_tables``;
- ``trec_eval_report`` prints them in trec_eval's own output format
  (``measure<TAB>query<TAB>value``), line for line as trec_eval prints them; it is what
  ``rankframe trec`` runs (``report``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rankframe.trec.measures import TREC_MEASURES, TrecMeasure, parse_trec_measures
from rankframe.trec.report import trec_eval_report

if TYPE_CHECKING:
    from rankframe.inputs.trec_files import join_trec, read_trec_qrels, read_trec_run

__all__ = [
    "TREC_MEASURES",
    "TrecMeasure",
    "join_trec",
    "parse_trec_measures",
    "read_trec_qrels",
    "read_trec_run",
    "trec_eval_report",
]

#: the pandas readers, imported when first asked for: ``rankframe trec`` reads plain files
#: without pandas
_READERS = frozenset({"join_trec", "read_trec_qrels", "read_trec_run"})


def __getattr__(name: str) -> Any:
    if name in _READERS:
        from rankframe.inputs import trec_files

        return getattr(trec_files, name)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted({*globals(), *_READERS})
