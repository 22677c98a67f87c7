"""rankframe: ranking metrics inside the DataFrames you already use.

``import rankframe`` registers ``rank_eval`` on pandas DataFrames, on polars DataFrames and
LazyFrames, and on Dask DataFrames when Dask is installed; ``rankframe.rank_eval(obj)`` gives
the accessor of any frame, Arrow frames too (a pyarrow Table, a DuckDB relation, an Ibis
table, anything with ``__arrow_c_stream__``), with pandas results::

    import rankframe
    df.rank_eval.mrr(k=5)
    df.rank_eval(query="user_id", item="movie_id", score="pred", relevant="clicked").ndcg(k=10)
    df.rank_eval.evaluate(["mrr@5", "ndcg@10", "map@100", "acc@1"], by="theme")

Settings, as pandas' options: ``rankframe.set_option("rows_per_part", n)``,
``get_option``, ``option_context`` and ``reset_option``.

The contract (input, ranking, metrics, options) is in the docs; defaults match trec_eval.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rankframe import adapters
from rankframe._version import __version__
from rankframe.api.attribute import rank_eval_attribute

if TYPE_CHECKING:
    from rankframe.adapters.lists import from_lists
    from rankframe.api.accessor import RankEval, rank_eval
    from rankframe.api.agreements import Agreement
    from rankframe.api.store import History
    from rankframe.exceptions import (
        ColumnNotFoundError,
        EmptyQueryError,
        InvalidDataError,
        InvalidOptionError,
        InvalidRuleError,
        RankEvalError,
        RankEvalWarning,
        StoreError,
        UnknownArgumentError,
        UnknownMetricError,
    )
    from rankframe.inputs.scores import from_scores
    from rankframe.inputs.trec_files import join_trec, read_trec_qrels, read_trec_run
    from rankframe.metrics.registry import (
        METRICS,
        Metric,
        MetricDef,
        parse_metric,
        parse_metrics,
        trec_label,
    )
    from rankframe.report import Report, to_latex, to_markdown
    from rankframe.schemas import pandas_schema, polars_schema
    from rankframe.settings.config import get_option, option_context, reset_option, set_option
    from rankframe.settings.options import Options

__all__ = [
    "METRICS",
    "Agreement",
    "ColumnNotFoundError",
    "EmptyQueryError",
    "History",
    "InvalidDataError",
    "InvalidOptionError",
    "InvalidRuleError",
    "Metric",
    "MetricDef",
    "Options",
    "RankEval",
    "RankEvalError",
    "RankEvalWarning",
    "Report",
    "StoreError",
    "UnknownArgumentError",
    "UnknownMetricError",
    "__version__",
    "from_lists",
    "from_scores",
    "get_option",
    "join_trec",
    "option_context",
    "pandas_schema",
    "parse_metric",
    "parse_metrics",
    "polars_schema",
    "rank_eval",
    "read_trec_qrels",
    "read_trec_run",
    "reset_option",
    "set_option",
    "to_latex",
    "to_markdown",
    "trec_label",
]

# `import rankframe` imports no frame library (pandas, polars, pyarrow, NumPy: 0.9 s), so
# that the command line starts at once: each public name loads its module when first read.
# The name and the module that defines it.
_ON_FIRST_USE = {
    "METRICS": "rankframe.metrics.registry",
    "Agreement": "rankframe.api.agreements",
    "ColumnNotFoundError": "rankframe.exceptions",
    "EmptyQueryError": "rankframe.exceptions",
    "History": "rankframe.api.store",
    "InvalidDataError": "rankframe.exceptions",
    "InvalidOptionError": "rankframe.exceptions",
    "InvalidRuleError": "rankframe.exceptions",
    "Metric": "rankframe.metrics.registry",
    "MetricDef": "rankframe.metrics.registry",
    "Options": "rankframe.settings.options",
    "RankEval": "rankframe.api.accessor",
    "RankEvalError": "rankframe.exceptions",
    "RankEvalWarning": "rankframe.exceptions",
    "Report": "rankframe.report",
    "StoreError": "rankframe.exceptions",
    "UnknownArgumentError": "rankframe.exceptions",
    "UnknownMetricError": "rankframe.exceptions",
    "from_lists": "rankframe.adapters.lists",
    "from_scores": "rankframe.inputs.scores",
    "get_option": "rankframe.settings.config",
    "join_trec": "rankframe.inputs.trec_files",
    "option_context": "rankframe.settings.config",
    "pandas_schema": "rankframe.schemas",
    "parse_metric": "rankframe.metrics.registry",
    "parse_metrics": "rankframe.metrics.registry",
    "polars_schema": "rankframe.schemas",
    "rank_eval": "rankframe.api.accessor",
    "read_trec_qrels": "rankframe.inputs.trec_files",
    "read_trec_run": "rankframe.inputs.trec_files",
    "reset_option": "rankframe.settings.config",
    "set_option": "rankframe.settings.config",
    "to_latex": "rankframe.report",
    "to_markdown": "rankframe.report",
    "trec_label": "rankframe.metrics.registry",
}


#: the packages that `import rankframe` loaded when it imported pandas and polars: still read
#: as its attributes (`rankframe.schemas`) without an import of their own
_PACKAGES = frozenset(
    {"api", "engine", "exceptions", "inputs", "metrics", "pipeline", "schemas", "settings", "stats"}
)


def __getattr__(name: str) -> Any:
    if name in _PACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name not in _ON_FIRST_USE:
        msg = f"module 'rankframe' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(_ON_FIRST_USE[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


# rank_eval on pandas and polars frames, Dask's and modin's: each once its library is imported
adapters.register(rank_eval_attribute)
