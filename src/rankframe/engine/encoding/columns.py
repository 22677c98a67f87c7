"""Columns as the encodings read them: views and dictionaries undone, half floats widened,
rows taken chunk by chunk, polars series as NumPy arrays; the array types they share.

Columns arrive as chunked Arrow arrays (a parquet file read by pandas has one chunk per row
group): they are encoded, hashed and gathered chunk by chunk, never concatenated, because a
concatenation copies the whole column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
import polars as pl

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = [
    "BLOCK",
    "CodeArray",
    "Column",
    "IntArray",
    "Words",
    "decoded",
    "in_row_order",
    "polars_floats",
    "polars_integers",
    "polars_numpy",
    "take_rows",
    "without_half_floats",
    "without_views",
]

#: Values per block of the passes that work through small reused buffers.
BLOCK = 1 << 15

IntArray = npt.NDArray[np.int64]
CodeArray = npt.NDArray[np.int32] | npt.NDArray[np.int64]
#: Two 64-bit words per string (:func:`rankframe.engine.encoding.words.key_words`).
Words = tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]
Column = TypeVar("Column", "pa.Array", "pa.ChunkedArray")


def polars_numpy(values: pl.Series) -> npt.NDArray[Any]:
    """``values.to_numpy()``, with a series of several chunks (a frame read from parquet)
    joined by NumPy, chunk by chunk: ``Series.to_numpy`` first joins them in polars' own
    allocator, which keeps the freed pages (0.08 GiB for 10M floats) after the run."""
    if values.n_chunks() == 1 or values.null_count():
        return values.to_numpy()
    return np.concatenate([chunk.to_numpy() for chunk in values.get_chunks()])


def polars_floats(values: pl.Series) -> npt.NDArray[np.float64]:
    """A series as float64 (NaN for nulls). A float or integer series that is not one chunk
    of float64 (a frame read from parquet, float32 scores) is cast chunk by chunk into one
    NumPy array: ``Series.cast`` would first make polars' own float64 copy of the whole
    column, which its allocator keeps after the run (0.08 GiB for 10M scores)."""
    dtype = values.dtype
    numeric = dtype.is_float() or (dtype.is_integer() and dtype not in (pl.Int128, pl.UInt128))
    if not numeric or (dtype == pl.Float64 and values.n_chunks() == 1):
        return polars_numpy(values.cast(pl.Float64))
    out = np.empty(len(values), dtype=np.float64)
    start = 0
    for chunk in values.get_chunks():  # nulls: NaN (integers with nulls come as floats)
        np.copyto(out[start : start + len(chunk)], chunk.to_numpy(), casting="unsafe")
        start += len(chunk)
    return out


#: The types a joined integer column is written into, narrowest first (see
#: :func:`polars_integers`).
_NARROW = (np.int8, np.int16, np.int32)


def polars_integers(values: pl.Series) -> npt.NDArray[np.integer[Any]]:
    """An integer series without nulls as NumPy integers: one chunk as :func:`polars_numpy`
    gives it (a view of polars' buffer); several chunks (a frame read from parquet) are
    joined into one array anyway, so they are written into the narrowest signed type that
    holds every value and its negation (grades 0 to 4 as int8: an eighth of an int64 copy,
    and an eighth of the pages to fault in). The values are the same numbers."""
    if values.n_chunks() == 1 or values.null_count() or len(values) == 0:
        return polars_numpy(values)
    low, high = cast("int", values.min()), cast("int", values.max())
    narrow = [t for t in _NARROW if -np.iinfo(t).max <= low and high <= np.iinfo(t).max]
    if not narrow:
        return polars_numpy(values)
    out: npt.NDArray[np.integer[Any]] = np.empty(len(values), dtype=narrow[0])
    start = 0
    for chunk in values.get_chunks():
        np.copyto(out[start : start + len(chunk)], chunk.to_numpy(), casting="unsafe")
        start += len(chunk)
    return out


def take_rows(
    values: pa.Array | pa.ChunkedArray, rows: IntArray
) -> tuple[pa.Array | pa.ChunkedArray, IntArray | None]:
    """The values at positions ``rows`` of a column, and the order they come in.

    Arrow's ``take`` on a chunked array concatenates the chunks first (a copy of the whole
    column, for a few rows); a chunked column's rows are taken chunk by chunk here instead,
    in ascending order: the values come in the order ``rows[ascending]``, and ``ascending``
    is returned (``None``: in the order of ``rows``).
    """
    import pyarrow as pa

    if isinstance(values, pa.Array) or values.num_chunks <= 1:
        return values.take(pa.array(rows)), None
    ascending = np.argsort(rows)
    sorted_rows = rows[ascending]
    ends = np.cumsum([len(chunk) for chunk in values.chunks])
    bounds = np.searchsorted(sorted_rows, ends)  # the rows of chunk c: bounds[c-1]:bounds[c]
    pieces, start, chunk_start = [], 0, 0
    for c, stop in enumerate(bounds.tolist()):
        if stop > start:
            taken = sorted_rows[start:stop] - chunk_start
            pieces.append(values.chunk(c).take(pa.array(taken)))
        start, chunk_start = stop, int(ends[c])
    return pa.chunked_array(pieces, type=values.type), ascending.astype(np.int64)


def in_row_order(per_value: IntArray, ascending: IntArray | None) -> IntArray:
    """Values computed on :func:`take_rows`' values, put back in the order of its rows."""
    if ascending is None:
        return per_value
    out = np.empty(len(per_value), dtype=per_value.dtype)
    out[ascending] = per_value
    return out


def without_views(values: Column) -> Column:
    """Arrow's string and binary views (polars' own layout, which Arrow cannot sort) as
    large strings and binaries; other columns as they are."""
    import pyarrow as pa

    if pa.types.is_string_view(values.type):
        return values.cast(pa.large_string())
    if pa.types.is_binary_view(values.type):
        return values.cast(pa.large_binary())
    return values


def decoded(values: Column) -> Column:
    """A dictionary-typed column as its plain values (Arrow cannot rank dictionaries), and
    half floats widened (:func:`without_half_floats`)."""
    import pyarrow as pa

    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    return without_half_floats(values)


def without_half_floats(values: Column) -> Column:
    """Half floats as float32 (exact: same equality and order), which Arrow can sort; other
    columns as they are."""
    import pyarrow as pa

    if pa.types.is_float16(values.type):
        return values.cast(pa.float32())
    return values
