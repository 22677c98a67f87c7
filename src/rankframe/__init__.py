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

from rankframe.adapters import pandas as _pandas_adapter
from rankframe.adapters import polars as _polars_adapter
from rankframe.adapters.arrow import rank_eval
from rankframe.api.accessor import RankEval
from rankframe.exceptions import (
    ColumnNotFoundError,
    EmptyQueryError,
    InvalidDataError,
    InvalidOptionError,
    InvalidRuleError,
    RankEvalError,
    StoreError,
    UnknownArgumentError,
    UnknownMetricError,
)
from rankframe.history import History
from rankframe.inputs.lists import from_lists
from rankframe.inputs.scores import from_scores
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
from rankframe.trec import join_trec, read_trec_qrels, read_trec_run

__version__ = "0.1.0"

__all__ = [
    "METRICS",
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
    "Report",
    "StoreError",
    "UnknownArgumentError",
    "UnknownMetricError",
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

_pandas_adapter.register()
_polars_adapter.register()

# -- Dask (optional extra: pip install 'rankframe[dask]') ------------------------------------
try:
    import dask.dataframe as _dask_dataframe  # noqa: F401  (only: is Dask installed?)
except ImportError:
    pass
else:
    from rankframe.adapters import dask as _dask_adapter

    _dask_adapter.register()
