"""Composite ids that hold a null or NaN element, at any depth: such ids have no order
(Python's ``None < 1`` fails), so the adapters refuse them."""

from __future__ import annotations

import decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import polars as pl

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = ["composite_nulls", "tuples_with_nulls"]


def composite_nulls(values: pl.Series | pa.Array | pa.ChunkedArray) -> bool:
    """Whether composite ids (a nested column) hold a null or NaN element at any depth:
    such ids have no order (Python's ``None < 1`` fails), so the adapters refuse them."""
    series = values if isinstance(values, pl.Series) else pl.Series(values)
    if series.dtype == pl.Struct:
        return any(
            composite_nulls(series.struct.field(field.name))
            for field in series.dtype.fields  # type: ignore[attr-defined]
        )
    if isinstance(series.dtype, pl.Array):
        series = series.arr.explode()
    elif isinstance(series.dtype, pl.List):
        series = series.list.explode(empty_as_null=False)
    else:
        return bool(series.null_count()) or bool(series.dtype.is_float() and series.is_nan().any())
    return composite_nulls(series)  # the elements: nulls, NaN, or composites again


def _holds_null(value: object) -> bool:
    """Whether a tuple holds None, NaN or pandas' NA at any depth (other values: False)."""
    if not isinstance(value, tuple):
        return False
    return any(
        v is None
        or type(v).__name__ == "NAType"
        or (isinstance(v, float | np.floating | decimal.Decimal) and v != v)
        or _holds_null(v)
        for v in value
    )


def tuples_with_nulls(distinct: npt.NDArray[Any]) -> bool:
    """Whether distinct Python ids (an object array) include a tuple holding a null or NaN
    element (:func:`composite_nulls` of an object column); one call per distinct id."""
    if distinct.dtype != object or len(distinct) == 0:
        return False
    return bool(np.frompyfunc(_holds_null, 1, 1)(distinct).astype(bool).any())
