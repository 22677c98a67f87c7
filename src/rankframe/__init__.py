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
from rankframe.adapters.lists import from_lists
from rankframe.api.accessor import RankEval, rank_eval
from rankframe.api.agreements import Agreement
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
from rankframe.schemas import pandas_schema, polars_schema
from rankframe.settings.config import get_option, option_context, reset_option, set_option
from rankframe.settings.options import Options

if TYPE_CHECKING:
    from rankframe.api.store import History
    from rankframe.report import Report, to_latex, to_markdown

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

# The outputs load when first used, not with `import rankframe` (import time): the name
# and the module that defines it.
_ON_FIRST_USE = {
    "History": "rankframe.api.store",
    "Report": "rankframe.report",
    "to_latex": "rankframe.report",
    "to_markdown": "rankframe.report",
}


def __getattr__(name: str) -> Any:
    if name not in _ON_FIRST_USE:
        msg = f"module 'rankframe' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(_ON_FIRST_USE[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


# rank_eval on pandas and polars frames, and on Dask frames once dask.dataframe is imported
adapters.register(RankEval)
