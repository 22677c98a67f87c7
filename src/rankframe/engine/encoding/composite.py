"""Composite ids and composite keys.

Composite ids (Arrow lists, fixed-size lists and structs; polars ``List``, ``Array`` and
``Struct``: a tuple column as parquet and pyarrow give it) are encoded and ranked by polars,
which compares them element by element (field by field), a shorter list before any longer one
it begins: the order of Python's tuples (:func:`composite_ranks`). A composite key (several
columns, as a ``query`` of two columns) is numbered from its columns' codes
(:func:`composite_codes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import polars as pl

from rankframe.engine.encoding.columns import IntArray

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = ["as_tuple", "composite_codes", "composite_ranks", "is_composite"]


def is_composite(kind: pa.DataType) -> bool:
    """Whether an Arrow type is a composite id: a list (of any layout) or a struct."""
    import pyarrow as pa

    return bool(
        pa.types.is_list(kind)
        or pa.types.is_large_list(kind)
        or pa.types.is_fixed_size_list(kind)
        or pa.types.is_list_view(kind)
        or pa.types.is_large_list_view(kind)
        or pa.types.is_struct(kind)
    )


def composite_ranks(values: pl.Series | pa.Array | pa.ChunkedArray) -> tuple[IntArray, pl.Series]:
    """Dense ranks (0-based) of composite ids, and the distinct ids in ascending order.

    polars orders lists element by element, a list before any longer one it begins, and
    structs field by field in the order of their fields: the order of Python's tuples
    (``(1, 2) < (1, 2, 0) < (1, 3) < (2,)``). Ids holding a null or NaN element have no
    such order; the adapters refuse them first (:func:`composite_nulls`).
    """
    series = values if isinstance(values, pl.Series) else pl.Series(values)
    ranks = (series.rank("dense") - 1).cast(pl.Int64).to_numpy()
    return ranks, series.unique().sort()


def composite_codes(codes: Sequence[npt.NDArray[np.integer[Any]]]) -> tuple[IntArray, IntArray]:
    """The codes of a composite key from its columns' codes (each numbered in sorted order
    of its column's values): per row the code of its tuple of codes, numbered in the order
    of the tuples (the first column first, as Python orders tuples), and the first row of
    each code.

    >>> composite_codes([np.array([1, 0, 1, 1]), np.array([0, 5, 0, 2])])
    (array([1, 0, 1, 2]), array([1, 0, 3]))
    """
    combined = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
    first = np.zeros(0, dtype=np.int64)
    for column in codes:
        width = int(column.max()) + 1 if len(column) else 1
        # dense after each column: the products stay below rows x (distinct values)
        combined = combined * width + column.astype(np.int64, copy=False)
        _, first, combined = np.unique(combined, return_index=True, return_inverse=True)
    return combined.astype(np.int64, copy=False).reshape(-1), first.astype(np.int64)


def as_tuple(value: object) -> object:
    """A composite id as Python's tuple (a list, NumPy array or polars Series, at any depth),
    for messages: every frame kind then shows ``(1, 2)``; other values as they are."""
    if isinstance(value, pl.Series):
        value = value.to_list()
    if isinstance(value, list | tuple | np.ndarray):
        return tuple(as_tuple(v) for v in value)
    return value
