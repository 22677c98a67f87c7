"""Result tables of any frame kind, read back as eager pandas frames.

The plots, the report and the history store read what ``evaluate``, ``per_query`` and
``compare`` return on every frame kind: a polars LazyFrame is collected, a Dask result
computed, a modin one converted (modin's ``.modin.to_pandas()``), a Spark DataFrame
(``per_query`` on Spark) brought back with ``toArrow()``, an Arrow table converted; a Series
becomes columns. Anything else is ``None``: each caller says in its own words what it takes.
"""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa

__all__ = ["as_pandas", "eager_table", "is_dask", "table_rows"]


def is_dask(obj: Any) -> bool:
    return type(obj).__module__.startswith("dask") and hasattr(obj, "compute")


def _is_modin(obj: Any) -> bool:
    return type(obj).__module__.startswith("modin.") and hasattr(obj, "modin")


def _is_spark(obj: Any) -> bool:
    return type(obj).__module__.startswith("pyspark.sql") and hasattr(obj, "toArrow")


def as_pandas(result: Any) -> pd.DataFrame | None:
    """``result`` as an eager pandas frame, or ``None`` when it is no result table."""
    if isinstance(result, pl.LazyFrame):
        result = result.collect()
    elif is_dask(result):
        result = result.compute()
    elif _is_modin(result):  # modin's public conversion (its own .modin accessor)
        result = result.modin.to_pandas()
    elif _is_spark(result):
        with warnings.catch_warnings():  # pyspark's at its Arrow calls (pandas 3)
            warnings.filterwarnings("ignore", module=r"pyspark(\.|$)")
            result = result.toArrow()
    if isinstance(result, pl.DataFrame):
        return result.to_pandas()
    if isinstance(result, pa.Table | pa.RecordBatch):
        converted: pd.DataFrame = result.to_pandas()
        return converted
    if isinstance(result, pd.Series):
        return result.reset_index()
    if isinstance(result, pd.DataFrame):
        return result
    return None


def eager_table(result: Any) -> tuple[str, Any, pd.DataFrame] | None:
    """A pandas or polars result table: its library's name (``"pandas"`` or ``"polars"``),
    the eager frame (a LazyFrame collected) and that frame as pandas; ``None`` for anything
    else."""
    if isinstance(result, pd.DataFrame):
        return "pandas", result, result
    if isinstance(result, pl.LazyFrame):
        result = result.collect()
    if isinstance(result, pl.DataFrame):
        return "polars", result, result.to_pandas()
    return None


def _plain(value: Any) -> Any:
    """A Python scalar: NumPy scalars unwrapped; pandas' missing values as None."""
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    return value


def table_rows(result: Any) -> tuple[list[str], list[list[Any]]]:
    """Column names and rows (Python scalars) of a result table: a pandas or polars frame
    (a LazyFrame is collected), or a pandas Series (its index as columns)."""
    if hasattr(result, "collect"):
        result = result.collect()
    if isinstance(result, pd.Series):
        result = result.reset_index()
    if isinstance(result, pd.DataFrame):
        columns = [str(c) for c in result.columns]
        rows = [[_plain(v) for v in row] for row in result.itertuples(index=False, name=None)]
        return columns, rows
    columns = [str(c) for c in result.columns]
    return columns, [[_plain(v) for v in row] for row in result.rows()]
