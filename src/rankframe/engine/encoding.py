"""Encodings of id columns that the engine sorts and compares: 64-bit hashes and dense ranks.

The engine finds duplicate items by sorting packed (query code, item hash) keys; equal items
always get equal hashes, so no duplicate is ever missed, and the rare different items that
share a hash are told apart by comparing their ranks. polars hashes a column in parallel, far
faster than a hash table over millions of distinct ids (pandas ``factorize``); the hashes only
need to agree within one call, which they do.

Ties are broken by item id, so the few tied rows need the order of their ids: Arrow ranks
strings as strings and numbers as numbers, in C++; ids of at most 8 bytes (most ids) are
ranked as the 64-bit numbers their bytes make, by NumPy. Query ids become integer codes
numbered in sorted order of the ids. Ids of at most 15 bytes (strings without nulls) are made
into two 64-bit words (:func:`key_words`), packed into one 64-bit key that orders as the ids
do, then encoded as numbers: by Arrow's hash table when each id has many rows (faster than
one of strings, whose table of 100k ids no longer fits the CPU cache), by a sort when ids
have few rows each (many short lists, where a hash table of millions of ids is slower than a
sort); docs/performance.md ("How the engine gets there") has the measurements. Other columns
get Arrow's dictionary encoding, then a sort of the distinct ids only.

Composite ids (Arrow lists, fixed-size lists and structs; polars ``List``, ``Array`` and
``Struct``: a tuple column as parquet and pyarrow give it) are encoded, ranked and hashed by
polars, which compares them element by element (field by field), a shorter list before any
longer one it begins: the order of Python's tuples (:func:`composite_ranks`).

Columns arrive as chunked Arrow arrays (a parquet file read by pandas has one chunk per row
group): they are encoded, hashed and gathered chunk by chunk, never concatenated, because a
concatenation copies the whole column.
"""

from __future__ import annotations

import datetime
import decimal
import math
import numbers
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar, overload

import numpy as np
import numpy.typing as npt
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from rankframe.engine.sorting import sort_keys

__all__ = [
    "DistinctStrings",
    "as_tuple",
    "composite_codes",
    "composite_nulls",
    "composite_ranks",
    "dense_ranks",
    "dictionary_codes",
    "hash_arrow",
    "hash_series",
    "is_composite",
    "labelled_codes",
    "object_ranks",
    "ranks_at",
    "tuples_with_nulls",
    "without_half_floats",
]

_HASH_SLICE = 1 << 17  # values per slice in hash_arrow
_KEY_BLOCK = 1 << 15  # values per block in short_keys
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: multiplying by it maps keys one to one
#: From this many values ``dictionary_codes(threads=True)`` encodes in two threads; below
#: it one thread is faster (measured on the benchmark's workload: docs/performance.md).
THREAD_VALUES = 1_500_000

IntArray = npt.NDArray[np.int64]
_Column = TypeVar("_Column", pa.Array, pa.ChunkedArray)
CodeArray = npt.NDArray[np.int32] | npt.NDArray[np.int64]


def polars_numpy(values: pl.Series) -> npt.NDArray[Any]:
    """``values.to_numpy()``, with a series of several chunks (a frame read from parquet)
    joined by NumPy, chunk by chunk: ``Series.to_numpy`` first joins them in polars' own
    allocator, which keeps the freed pages (0.08 GiB for 10M floats) after the run."""
    if values.n_chunks() == 1 or values.null_count():
        return values.to_numpy()
    return np.concatenate([chunk.to_numpy() for chunk in values.get_chunks()])


def hash_series(values: pl.Series) -> npt.NDArray[np.uint64]:
    """Per value a 64-bit hash, equal for equal values (0.0 and -0.0 included)."""
    if values.dtype in (pl.Categorical, pl.Enum):
        values = values.cast(pl.String)
    return polars_numpy(values.hash())


def is_composite(kind: pa.DataType) -> bool:
    """Whether an Arrow type is a composite id: a list (of any layout) or a struct."""
    return bool(
        pa.types.is_list(kind)
        or pa.types.is_large_list(kind)
        or pa.types.is_fixed_size_list(kind)
        or pa.types.is_list_view(kind)
        or pa.types.is_large_list_view(kind)
        or pa.types.is_struct(kind)
    )


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


def hash_arrow(values: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.uint64]:
    """:func:`hash_series` of an Arrow column, a slice at a time.

    polars must convert Arrow strings to its own layout (a 16-byte view per value) before
    hashing them: converting the whole column at once would hold a copy several times the
    size of the hashes, which polars' allocator then keeps. Slices of ``_HASH_SLICE`` values
    convert in the CPU cache and leave nothing behind; polars' hashes do not depend on how
    the column is cut.

    Short strings (:func:`short_keys`) need no polars at all: their keys, multiplied by an
    odd constant (one product per key, and the low bytes reach the high bits), are the
    hashes. NumPy lets go of the GIL where polars' conversion holds it, so the main thread
    ranks undisturbed while another hashes.
    """
    keys = short_keys(values)
    if keys is not None:
        keys *= _MIX
        return keys
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    out = np.empty(len(values), dtype=np.uint64)
    start = 0
    for chunk in chunks:
        for offset in range(0, len(chunk), _HASH_SLICE):
            piece = chunk.slice(offset, _HASH_SLICE)
            out[start : start + len(piece)] = hash_series(pl.Series(piece))
            start += len(piece)
    return out


def _prefix_keys(values: pa.Array) -> npt.NDArray[np.uint64] | None:
    """Per string, its bytes as a big-endian 64-bit number (zero-padded), or None.

    Those numbers order the strings as strings (byte-wise) when every string has at most 8
    bytes and none holds a NUL byte (a string would then equal itself plus trailing NULs):
    short ids, the usual kind, are then ranked by a NumPy sort of numbers instead of a sort
    of strings. None when that does not hold.
    """
    kind = values.type
    wide = pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)
    if not (wide or pa.types.is_string(kind) or pa.types.is_binary(kind)):
        return None
    if len(values) == 0 or values.null_count:
        return None
    _, offset_buffer, data_buffer = values.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int64 if wide else np.int32)
    offsets = offsets[values.offset : values.offset + len(values) + 1].astype(np.int64)
    lengths = np.diff(offsets)
    first, last = int(offsets[0]), int(offsets[-1])
    data = np.frombuffer(data_buffer, dtype=np.uint8)[first:last] if last > first else None
    if int(lengths.max()) > 8 or (data is not None and not data.all()):
        return None
    padded = np.zeros(last - first + 8, dtype=np.uint8)  # 8 bytes readable at every start
    if data is not None:
        padded[: last - first] = data
    windows = np.lib.stride_tricks.sliding_window_view(padded, 8)
    keys: npt.NDArray[np.uint64] = (
        windows[offsets[:-1] - first].view(">u8").reshape(-1).astype(np.uint64)
    )
    # keep each string's own bytes only: the window also covers the next strings
    all_bits = np.uint64(2**64 - 1)
    masks = np.array(
        [0] + [all_bits << np.uint64(8 * (8 - n)) for n in range(1, 9)], dtype=np.uint64
    )
    keys &= masks[lengths]
    return keys


def dense_ranks(values: pa.Array | pa.ChunkedArray | npt.NDArray[Any]) -> IntArray:
    """Dense ranks (0-based) of the values in ascending order.

    Strings compare as strings and numbers as numbers; composite ids (lists, structs) as
    tuples (:func:`composite_ranks`); an object array as :func:`object_ranks` orders it (by
    type, then value).
    """
    if isinstance(values, np.ndarray):
        if values.dtype == object:
            return object_ranks(values)
        values = pa.array(values, from_pandas=True)
    values = _decoded(_without_views(values))
    if is_composite(values.type):
        return composite_ranks(values)[0]
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    keys = _prefix_keys(values)
    if keys is not None:
        return np.unique(keys, return_inverse=True)[1].astype(np.int64).reshape(-1)
    ranks = pc.rank(values, sort_keys="ascending", tiebreaker="dense")
    return np.asarray(ranks, dtype=np.int64) - 1


def take_rows(
    values: pa.Array | pa.ChunkedArray, rows: IntArray
) -> tuple[pa.Array | pa.ChunkedArray, IntArray | None]:
    """The values at positions ``rows`` of a column, and the order they come in.

    Arrow's ``take`` on a chunked array concatenates the chunks first (a copy of the whole
    column, for a few rows); a chunked column's rows are taken chunk by chunk here instead,
    in ascending order: the values come in the order ``rows[ascending]``, and ``ascending``
    is returned (``None``: in the order of ``rows``).
    """
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


def ranks_at(values: pa.Array | pa.ChunkedArray, rows: IntArray) -> IntArray:
    """:func:`dense_ranks` of the values at positions ``rows`` of a column (taken chunk by
    chunk, :func:`take_rows`)."""
    taken, ascending = take_rows(values, rows)
    return in_row_order(dense_ranks(taken), ascending)


#: Strings of at most this many bytes become two 64-bit words (see :func:`key_words`).
KEY_BYTES = 15
#: Strings of at most this many bytes become one 64-bit key (see :func:`short_keys`).
SHORT_BYTES = 7
_VIEW_INLINE = 12  # a string view holds strings of at most 12 bytes in the view itself
#: Rows per data buffer of the string views that the distinct strings are made of.
VIEW_STRINGS = 1 << 27
# per length (0-15), the mask of the string's bytes in its first word and in its second
_FIRST_MASKS = np.array([(1 << (8 * min(n, 8))) - 1 for n in range(KEY_BYTES + 1)], dtype=np.uint64)
_SECOND_MASKS = np.array(
    [(1 << (8 * max(n - 8, 0))) - 1 for n in range(KEY_BYTES + 1)], dtype=np.uint64
)
_LENGTH_BITS = np.uint64(0xFF)

Words = tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]


def key_words(values: pa.Array | pa.ChunkedArray, out: Words | None = None) -> Words | None:
    """Per string of at most :data:`KEY_BYTES` bytes, two 64-bit words; None for other
    types, nulls, or a longer string.

    The first word holds bytes 0-7 of the string, big-endian and zero-padded; the second
    bytes 8-14 the same way, then the length in its lowest byte. The pairs order as the
    strings do byte-wise (first words first; a prefix first, NUL bytes included, because the
    length breaks the ties that the padding makes), and no two strings share a pair. Ids of
    up to 15 bytes, the usual kind, are then encoded and sorted as numbers
    (:func:`dictionary_codes`) instead of strings.

    Strings and large strings are read from their offsets and data, string views (polars'
    layout) from the views, where strings of up to 12 bytes are held inline (longer ones
    from a large-string copy); chunk by chunk, a block at a time, into two preallocated
    arrays (``out``, if given).
    """
    found = _read_words(values, KEY_BYTES, out)
    if found is None or found[1] is None:  # (the second word is read for 15 bytes)
        return None
    return found[0], found[1]


_Read = tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64] | None]


def _read_words(
    values: pa.Array | pa.ChunkedArray, longest: int, out: Words | None = None
) -> _Read | None:
    """:func:`key_words` of strings of at most ``longest`` bytes; for ``longest`` <=
    :data:`SHORT_BYTES`, the first word with the length in its (empty) low byte, and None
    for the second (:func:`short_keys`). ``out``: the two arrays to read the words into."""
    kind = values.type
    view = pa.types.is_string_view(kind)
    if not (view or pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return None
    if values.null_count:
        return None
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    first: npt.NDArray[np.uint64]
    second: npt.NDArray[np.uint64] | None
    if out is not None:
        first, second = out
    else:
        first = np.empty(len(values), dtype=np.uint64)
        second = np.empty(len(values), dtype=np.uint64) if longest > SHORT_BYTES else None
    start = 0
    for chunk in chunks:
        part = slice(start, start + len(chunk))
        start += len(chunk)
        into = None if second is None else second[part]
        if view:
            most = _view_longest(chunk)
            if most > longest:
                return None
            if most <= _VIEW_INLINE:
                _view_words(chunk, first[part], into)
                continue
            chunk = chunk.cast(pa.large_string())
        if not _offset_words(chunk, first[part], into, longest):
            return None
    return first, second


def short_keys(values: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.uint64] | None:
    """Per string of at most :data:`SHORT_BYTES` bytes, one 64-bit key; None for other
    columns.

    The key is the string's bytes, big-endian and zero-padded to 7 bytes, then its length in
    the lowest byte (the two :func:`key_words` in one): one key per string and no string
    shares another's, and the keys order as the strings do byte-wise.
    """
    found = _read_words(values, SHORT_BYTES)
    return None if found is None else found[0]


class ShortIds:
    """Ids that are all strings of at most :data:`SHORT_BYTES` bytes, as their sorted
    :func:`short_keys`: looked up by a binary search among numbers, exactly (one key per
    string), with no hash table of strings."""

    def __init__(self, keys: npt.NDArray[np.uint64]) -> None:
        self._order = np.argsort(keys, kind="stable")
        self._sorted = keys[self._order]

    @classmethod
    def of(cls, values: pa.Array | pa.ChunkedArray) -> ShortIds | None:
        """The ids of ``values``; None unless every one is a short string (no null)."""
        keys = short_keys(values)
        return None if keys is None else cls(keys)

    def unique(self) -> bool:
        """Whether no id is listed twice."""
        return not bool((self._sorted[1:] == self._sorted[:-1]).any())

    def positions(self, wanted: pa.Array | pa.ChunkedArray) -> IntArray | None:
        """Per id of ``wanted``, its position among these ids (the first, if listed twice;
        -1 where it is not one of them); None unless every one is a short string."""
        keys = short_keys(wanted)
        if keys is None:
            return None
        if not len(self._sorted):
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._sorted, keys), len(self._sorted) - 1)
        found: IntArray = np.where(self._sorted[at] == keys, self._order[at], -1)
        return found


def _finish_words(
    first: npt.NDArray[np.uint64], second: npt.NDArray[np.uint64] | None, length: IntArray
) -> None:
    """Keep the string's own bytes (its first ``length``) of the little-endian words read at
    its start and 8 bytes further, make them big-endian and put the length in the low byte
    of the second (of the first, without a second: strings of at most 7 bytes), in place."""
    first &= _FIRST_MASKS[length]
    first.byteswap(inplace=True)
    if second is None:
        first |= length.view(np.uint64)
        return
    second &= _SECOND_MASKS[length]
    second.byteswap(inplace=True)
    second |= length.view(np.uint64)


def _offset_words(
    chunk: pa.Array,
    first: npt.NDArray[np.uint64],
    second: npt.NDArray[np.uint64] | None,
    longest: int,
) -> bool:
    """:func:`key_words` of one string or large-string array, into ``first`` and ``second``;
    False if a string is longer than ``longest``."""
    if len(chunk) == 0:
        return True
    wide = pa.types.is_large_string(chunk.type)
    _, offset_buffer, data_buffer = chunk.buffers()
    offsets: npt.NDArray[Any] = np.frombuffer(offset_buffer, dtype=np.int64 if wide else np.int32)[
        chunk.offset : chunk.offset + len(chunk) + 1
    ]
    size = 0 if data_buffer is None else data_buffer.size
    # every 8-byte word of the data, at every byte (a strided view, no copy); words that
    # start in the last 7 bytes are read from a zero-padded copy of the data's end
    words: npt.NDArray[np.uint64] = (
        np.ndarray((size - 7,), dtype="<u8", buffer=data_buffer, strides=(1,))
        if size >= 8
        else np.zeros(0, dtype=np.uint64)
    )
    base = max(size - 16, 0)
    tail = np.zeros(24, dtype=np.uint8)
    if size:
        tail[: size - base] = np.frombuffer(data_buffer, dtype=np.uint8)[base:size]
    tail_words = np.ndarray((17,), dtype="<u8", buffer=tail, strides=(1,))

    def read(at: npt.NDArray[Any], out: npt.NDArray[np.uint64]) -> None:
        if int(at[-1]) <= size - 8:  # ascending: every read of the block fits
            out[...] = words[at]
        else:
            near = at > size - 8
            out[~near] = words[at[~near]]
            out[near] = tail_words[at[near] - base]

    block = min(len(chunk), _KEY_BLOCK)
    length = np.empty(block, dtype=np.int64)
    later = np.empty(block, dtype=np.int64)
    for begin in range(0, len(chunk), _KEY_BLOCK):
        end = min(begin + _KEY_BLOCK, len(chunk))
        m, starts = end - begin, offsets[begin:end]
        np.subtract(offsets[begin + 1 : end + 1], starts, out=length[:m])
        most = int(length[:m].max())
        if most > longest:
            return False
        read(starts, first[begin:end])
        rest = None if second is None else second[begin:end]
        if rest is not None and most > 8:  # bytes in the second word, before the data's end
            np.add(starts, 8, out=later[:m])
            np.minimum(later[:m], size, out=later[:m])
            read(later[:m], rest)
        elif rest is not None:
            rest[...] = 0
        _finish_words(first[begin:end], rest, length[:m])
    return True


def _view_longest(chunk: pa.Array) -> int:
    """The length of the longest string of a string-view array (0 if empty)."""
    views = np.frombuffer(chunk.buffers()[1], dtype=np.uint32)
    lengths = views[4 * chunk.offset : 4 * (chunk.offset + len(chunk)) : 4]
    return int(lengths.max()) if len(lengths) else 0


def _view_words(
    chunk: pa.Array, first: npt.NDArray[np.uint64], second: npt.NDArray[np.uint64] | None
) -> None:
    """:func:`key_words` of one string-view array whose strings have at most 12 bytes, into
    ``first`` and ``second``: a view of 16 bytes holds the length (4 bytes), then the
    string."""
    views = np.frombuffer(chunk.buffers()[1], dtype=np.uint64)
    views = views[2 * chunk.offset : 2 * (chunk.offset + len(chunk))]
    low, high = views[0::2], views[1::2]
    block = min(len(chunk), _KEY_BLOCK)
    length = np.empty(block, dtype=np.int64)
    spare = np.empty(block, dtype=np.uint64)
    for begin in range(0, len(chunk), _KEY_BLOCK):
        end = min(begin + _KEY_BLOCK, len(chunk))
        m, word = end - begin, first[begin:end]
        np.bitwise_and(low[begin:end], np.uint64(0xFFFFFFFF), out=length[:m].view(np.uint64))
        # bytes 0-3 sit above the length in the view's first word, bytes 4-11 in its second
        np.right_shift(low[begin:end], np.uint64(32), out=word)
        np.left_shift(high[begin:end], np.uint64(32), out=spare[:m])
        word |= spare[:m]
        rest = None if second is None else second[begin:end]
        if rest is not None:
            np.right_shift(high[begin:end], np.uint64(32), out=rest)
        _finish_words(word, rest, length[:m])


def _strings_of_words(
    first: npt.NDArray[np.uint64], second: npt.NDArray[np.uint64], kind: pa.DataType
) -> pa.Array:
    """The strings that :func:`key_words` made the words of, as an Arrow array (strings for
    a string column, large strings for the others).

    The words become string views (16 bytes: the length, then the string itself up to 12
    bytes, or its first 4 bytes and where the string lies in a buffer that holds both words
    of every string), which Arrow then copies into a string array: a few passes over the
    distinct values, where picking each string's bytes out of its words is slow in NumPy.
    """
    length = second & _LENGTH_BITS
    head = first.byteswap()  # bytes 0-7 of the strings, in memory order
    tail = second & ~_LENGTH_BITS
    tail.byteswap(inplace=True)  # bytes 8-14, then a zero
    views = np.empty((len(first), 2), dtype=np.uint64)
    np.left_shift(head, np.uint64(32), out=views[:, 0])
    views[:, 0] |= length
    buffers = [None, pa.py_buffer(views)]
    outside = np.flatnonzero(length > np.uint64(_VIEW_INLINE)).astype(np.uint64)
    if len(outside):
        # strings of 13 bytes or more lie in buffers of VIEW_STRINGS rows of both words
        # (16 bytes a row; a view's offset has 31 bits)
        body = np.stack([head, tail], axis=1)
        buffers += [
            pa.py_buffer(body[i : i + VIEW_STRINGS]) for i in range(0, len(body), VIEW_STRINGS)
        ]
    np.right_shift(head, np.uint64(32), out=views[:, 1])  # bytes 4-7 ...
    tail <<= np.uint64(32)
    views[:, 1] |= tail  # ... then 8-11
    if len(outside):
        where = outside // np.uint64(VIEW_STRINGS)  # the buffer's index, then the offset
        where |= (outside % np.uint64(VIEW_STRINGS) * np.uint64(16)) << np.uint64(32)
        views[outside.astype(np.intp), 1] = where
    strings = pa.Array.from_buffers(pa.string_view(), len(first), buffers)
    return strings.cast(pa.string() if pa.types.is_string(kind) else pa.large_string())


_Part = TypeVar("_Part")
_Item = TypeVar("_Item")


def _each(encode: Callable[[_Item], _Part], items: list[_Item]) -> list[_Part]:
    """``encode`` of each of (at most two) items, the second in another thread at once."""
    if len(items) < 2:
        return [encode(item) for item in items]
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe") as pool:
        later = pool.submit(encode, items[1])
        return [encode(items[0]), later.result()]


def _by_halves(
    encode: Callable[..., _Part],
    values: pa.Array | pa.ChunkedArray,
    *,
    threads: bool,
    out: Words | None = None,
) -> list[_Part]:
    """``[encode(values)]``; with ``threads=True`` and :data:`THREAD_VALUES` values or more,
    ``encode`` of its two halves (zero-copy slices), in two threads at once. With ``out``
    (arrays of a value each), ``encode`` also gets the part's slices of them."""
    if not (threads and len(values) >= THREAD_VALUES):
        return [encode(values) if out is None else encode(values, out)]
    middle = len(values) // 2
    if out is None:
        return _each(encode, [values.slice(0, middle), values.slice(middle)])
    halves = [
        (values.slice(0, middle), (out[0][:middle], out[1][:middle])),
        (values.slice(middle), (out[0][middle:], out[1][middle:])),
    ]
    return _each(lambda half: encode(*half), halves)


class KeyPacking:
    """One 64-bit key per pair of :func:`key_words`, when the pairs' spread fits in 64 bits.

    The key is the first word minus the smallest first word, shifted left by the bits that
    the spread of the second words takes, then the second word minus the smallest second
    word in those bits: the keys order as the pairs do and no two pairs share one. Ids of a
    prefix and a number (``"q0000001"``, ``"doc-12345678"``) fit: only their varying bytes
    take bits.
    """

    def __init__(self, parts: list[Words]) -> None:
        self.first = min(int(first.min()) for first, _ in parts)
        self.second = min(int(second.min()) for _, second in parts)
        first_spread = max(int(first.max()) for first, _ in parts) - self.first
        self.shift = (max(int(second.max()) for _, second in parts) - self.second).bit_length()
        self.fits = self.shift + first_spread.bit_length() <= 64

    def pack(self, words: Words) -> npt.NDArray[np.uint64]:
        """The keys of the pairs, in the first word's array (the words are spent)."""
        first, second = words
        first -= np.uint64(self.first)
        if self.shift < 64:  # else the first words are all equal: zero
            first <<= np.uint64(self.shift)
        second -= np.uint64(self.second)
        first |= second
        return first

    def unpack(self, keys: npt.NDArray[np.uint64]) -> Words:
        """The pairs of words that :meth:`pack` made ``keys`` of."""
        if self.shift < 64:
            first = keys >> np.uint64(self.shift)
            second = keys & np.uint64((1 << self.shift) - 1)
        else:
            first, second = np.zeros_like(keys), keys.copy()
        first += np.uint64(self.first)
        second += np.uint64(self.second)
        return first, second


def _key_codes(
    values: pa.Array | pa.ChunkedArray, *, compact: bool, threads: bool, lazy: bool = False
) -> tuple[CodeArray, pa.Array | DistinctStrings] | None:
    """:func:`dictionary_codes` through :func:`key_words` packed into 64-bit keys (always
    sorted), or None when the column has no words or their spread does not fit 64 bits.

    The words are read in two halves, in two threads, as in :func:`dictionary_codes`. Keys
    that repeat only a few times (many short lists, :func:`few_repeats`) are then encoded
    by one sort of them all, not by halves (the merge of two sorted halves costs more than
    the second thread saves; docs/performance.md);
    the sort's gather and its slices are shared by two threads (:func:`_argsort`). Others
    are encoded by Arrow's hash table of numbers, in two halves, in two threads; the
    distinct keys of both halves, sorted, then number the codes.
    """
    if len(values) == 0:
        return None
    unpack: Callable[[npt.NDArray[np.uint64]], Words]
    shorts = _by_halves(_short_part, values, threads=threads)
    if all(part is not None for part in shorts):
        # ids of at most 7 bytes: one word is the key already (no second word to read, no
        # packing); each half's keys were read and hashed in its own thread
        found = [part for part in shorts if part is not None]
        if any(indices is None for _, indices in found):  # few repeats: one sort of all
            every = [k if i is None else k[i] for k, i in found]
            keys = every[0] if len(every) == 1 else np.concatenate(every)
            found = [_sorted_encoding(keys, threads=threads)]
            merge = False
        else:  # each part's dictionary in Arrow's order: numbered below, one gather each
            merge = True
        unpack = _words_of_short_keys
    else:
        # the halves read their words into halves of two arrays: the packed keys of both
        # are then one array, without a copy
        buffers: Words = (
            np.empty(len(values), dtype=np.uint64),
            np.empty(len(values), dtype=np.uint64),
        )
        parts = _by_halves(key_words, values, threads=threads, out=buffers)
        words = [part for part in parts if part is not None]
        if len(words) < len(parts):
            return None
        packing = KeyPacking(words)
        if not packing.fits:
            return None
        packed = [packing.pack(pair) for pair in words]
        unpack = packing.unpack
        merge = False
        del words, parts
        # few repeats: one sort of the packed keys of every half (buffers[0])
        found = (
            [_sorted_encoding(buffers[0], threads=threads)]
            if few_repeats(packed)
            else _each(_hashed, packed)
        )
        del packed, buffers
    del shorts
    if len(found) == 1 and not merge:
        distinct, codes = found[0]
    else:  # the distinct keys of every part, sorted (np.unique is slower on numbers)
        distinct = np.sort(np.concatenate([keys for keys, _ in found]))
        if len(distinct) > 1:
            distinct = distinct[np.append(True, distinct[1:] != distinct[:-1])]
        # int64 codes unless compact: written once, by the gather below, not widened after
        codes = np.empty(
            len(values), dtype=np.result_type(*(i.dtype for _, i in found)) if compact else np.int64
        )
        start = 0
        for keys, indices in found:
            # each key's position among the distinct ones; sorted needles search faster, and
            # only the short ids' dictionaries come in Arrow's order
            if merge:
                by_key = np.argsort(keys)
                lookup = np.empty(len(keys), dtype=codes.dtype)
                lookup[by_key] = np.searchsorted(distinct, keys[by_key])
            else:
                lookup = np.searchsorted(distinct, keys).astype(codes.dtype)
            # indices are in range: mode="clip" spares the bounds check's buffered copy
            np.take(lookup, indices, out=codes[start : start + len(indices)], mode="clip")
            start += len(indices)
    if not compact or len(distinct) >= 2**31:
        codes = codes.astype(np.int64, copy=False)
    if lazy:
        return codes, DistinctStrings(
            lambda: _strings_of_words(*unpack(distinct), values.type), len(distinct)
        )
    return codes, _strings_of_words(*unpack(distinct), values.type)


class DistinctStrings:
    """The distinct strings of a column that :func:`labelled_codes` encoded, made from their
    keys on first use.

    The query column's distinct values serve only as labels: of per-query tables and of
    messages. An evaluation of means never reads them, and on millions of queries making
    them is a few passes over every distinct key (and their fresh memory).
    """

    def __init__(self, build: Callable[[], pa.Array], length: int) -> None:
        self._build: Callable[[], pa.Array] | None = build
        self._length = length
        self._strings: pa.Array | None = None

    def __len__(self) -> int:
        return self._length

    @property
    def strings(self) -> pa.Array:
        """The strings, as an Arrow array (made on the first call)."""
        if self._strings is None:
            assert self._build is not None
            self._strings, self._build = self._build(), None
        return self._strings

    def take(self, indices: pa.Array) -> pa.Array:
        """The strings at ``indices``, as ``pa.Array.take``."""
        return self.strings.take(indices)


def labelled_codes(
    values: pa.Array | pa.ChunkedArray, *, threads: bool = False
) -> tuple[CodeArray, pa.Array | DistinctStrings]:
    """:func:`dictionary_codes` (sorted, compact) of a column whose distinct values are only
    labels: strings encoded through their keys get them as :class:`DistinctStrings`, made
    when first read."""
    keyed = _key_codes(values, compact=True, threads=threads, lazy=True)
    if keyed is not None:
        return keyed
    return dictionary_codes(values, sort=True, compact=True, threads=threads)


def _short_part(
    values: pa.Array | pa.ChunkedArray,
) -> tuple[npt.NDArray[np.uint64], Any] | None:
    """The :func:`short_keys` of a part of a column, encoded by Arrow's hash table (the
    distinct keys in order of appearance, and per key its index among them) unless they
    repeat only a few times (then the keys, and None: :func:`_key_codes` sorts the keys of
    every part at once); None without short keys."""
    keys = short_keys(values)
    if keys is None:
        return None
    if few_repeats([keys]):
        return keys, None
    encoded = pc.dictionary_encode(pa.array(keys))
    return np.asarray(encoded.dictionary), np.asarray(encoded.indices)


def _words_of_short_keys(keys: npt.NDArray[np.uint64]) -> Words:
    """The :func:`key_words` of the strings whose :func:`short_keys` are ``keys``: the
    string's bytes with the low byte cleared, and its length."""
    length = keys & _LENGTH_BITS
    return keys & ~_LENGTH_BITS, length


#: Below this many rows per distinct key (on average), a sort encodes keys faster than
#: Arrow's hash table, whose table of millions of keys no longer fits the CPU cache
#: (docs/performance.md has the measurements).
SORT_BELOW = 8
#: Keys sampled to estimate how often they repeat (:func:`few_repeats`).
REPEAT_SAMPLE = 1 << 14


def _hashed(keys: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[np.uint64], Any]:
    """The distinct keys in ascending order, and per key its index among them: Arrow's hash
    table, then a sort of the distinct keys only."""
    encoded = pc.dictionary_encode(pa.array(keys))
    return _sorted_dictionary(np.asarray(encoded.dictionary), np.asarray(encoded.indices))


def few_repeats(parts: list[npt.NDArray[np.uint64]]) -> bool:
    """Whether the keys of the parts repeat fewer than :data:`SORT_BELOW` times on average,
    estimated from a sample of about ``REPEAT_SAMPLE`` of them (at random, seeded, from each
    part in proportion: sampled rows of a query stored side by side are as likely to meet as
    anywhere).

    With ``d`` distinct keys of ``c = n / d`` rows each, the sample meets a key with
    probability ``1 - exp(-c m / n)``: a sample that shows more distinct keys than
    ``n / SORT_BELOW`` keys would has keys repeating fewer times than that. False for
    fewer than ``16 * REPEAT_SAMPLE`` keys, too few for the choice to matter (docs/performance.md,
    step 1).
    """
    n = sum(len(keys) for keys in parts)
    if n < 16 * REPEAT_SAMPLE:
        return False
    rng = np.random.default_rng(0)
    picked = [
        keys[rng.integers(0, len(keys), size=REPEAT_SAMPLE * len(keys) // n)] for keys in parts
    ]
    sample = np.sort(np.concatenate(picked))
    m = len(sample)
    seen = 1 + int(np.count_nonzero(sample[1:] != sample[:-1]))
    expected = n / SORT_BELOW * -math.expm1(-m * SORT_BELOW / n)
    return seen > expected


def _sorted_encoding(
    keys: npt.NDArray[np.uint64], *, threads: bool = False
) -> tuple[npt.NDArray[np.uint64], Any]:
    """The distinct keys in ascending order, and per key its index among them: a sort of the
    keys (NumPy's sort of numbers, vectorised), no hash table; in two threads with
    ``threads=True`` (:func:`_argsort`)."""
    order, ordered = _argsort(keys, threads=threads)
    new = np.empty(len(keys), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    dtype = np.int32 if len(keys) < 2**31 else np.int64
    indices = np.empty(len(keys), dtype=dtype)
    # each key's index: the number of distinct keys up to its sorted position, less one;
    # block by block (a full-size array of them would be a fresh allocation to fault in)
    ranks: npt.NDArray[np.signedinteger[Any]] = np.empty(min(len(keys), _KEY_BLOCK), dtype=dtype)
    before = -1
    for start in range(0, len(keys), _KEY_BLOCK):
        stop = min(start + _KEY_BLOCK, len(keys))
        np.cumsum(new[start:stop], dtype=dtype, out=ranks[: stop - start])
        ranks[: stop - start] += before
        indices[order[start:stop]] = ranks[: stop - start]
        before = int(ranks[stop - start - 1])
    return ordered[new], indices


#: Keys per slice of the sort by buckets: a slice's sort works in the CPU cache.
SORT_BUCKET = 1 << 16


def _argsort(
    keys: npt.NDArray[np.uint64], *, threads: bool = False
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint64]]:
    """``np.argsort(keys)`` and the keys in that order, slice by slice: a sort of the keys'
    top 16 bits into buckets (stable: one sort of the buckets packed above the positions),
    then a sort of each slice of about ``SORT_BUCKET`` keys, cut between buckets. A sort of
    millions of keys at once works out of the CPU cache; each slice fits in it
    (docs/performance.md).

    Slices gather whole buckets, and the buckets of ids that use few values per byte (the
    digits of ``q1234567``) are uneven: a slice is cut wherever the keys' running count
    crosses a multiple of ``SORT_BUCKET``, not at a fixed number of buckets.

    With ``threads=True`` and :data:`THREAD_VALUES` keys or more, the gather of the keys
    and the sorts of the slices are shared by two threads (NumPy's gathers and sorts of
    numbers release the GIL): each takes the slices of one half of the keys.
    """
    n = len(keys)
    top = int(keys.max()).bit_length() if n else 0
    if n < 2 * SORT_BUCKET or top <= 16:
        order = np.argsort(keys)
        return order, keys[order]
    shift = np.uint64(top - 16)
    # each key's bucket above its position, block by block, then one sort of those numbers
    # (in place, vectorised; the position makes it stable): the positions in bucket order
    index_bits = np.uint64(max(int(n - 1).bit_length(), 1))
    packed = np.empty(n, dtype=np.uint64)
    position = np.arange(min(n, _KEY_BLOCK), dtype=np.uint64)
    for start in range(0, n, _KEY_BLOCK):
        block = packed[start : start + _KEY_BLOCK]
        np.right_shift(keys[start : start + _KEY_BLOCK], shift, out=block)
        block <<= index_bits
        block |= position[: len(block)]
        block += np.uint64(start)
    sort_keys(packed)
    packed &= np.uint64((1 << int(index_bits)) - 1)
    order = packed.view(np.intp)
    ordered = np.empty(n, dtype=np.uint64)
    two = threads and n >= THREAD_VALUES
    halves = [(0, n // 2), (n // 2, n)] if two else [(0, n)]

    def gather(half: tuple[int, int]) -> None:
        np.take(keys, order[half[0] : half[1]], out=ordered[half[0] : half[1]])

    _each(gather, halves)
    # where each bucket ends among the keys ordered by bucket (a bincount of the buckets
    # would first copy them into a full-size array of int64): a key is below the next
    # bucket's first key exactly when its bucket is at most this one
    bounds = np.arange(1, 1 << 16, dtype=np.uint64) << shift
    ends = np.append(np.searchsorted(ordered, bounds), n)
    cuts = np.unique(
        ends[
            np.searchsorted(ends, np.arange(SORT_BUCKET, n + SORT_BUCKET, SORT_BUCKET)).clip(
                max=len(ends) - 1
            )
        ]
    )
    stops = cuts.tolist()
    starts = [0, *stops[:-1]]

    def sort_slices(slices: list[tuple[int, int]]) -> None:
        for start, stop in slices:  # a loop over slices (about n / SORT_BUCKET), not over keys
            if stop - start > 1:
                within = np.argsort(ordered[start:stop])
                order[start:stop] = order[start:stop][within]
                ordered[start:stop] = ordered[start:stop][within]

    slices = list(zip(starts, stops, strict=True))
    middle = int(np.searchsorted(stops, n // 2)) + 1  # the slices of each half of the keys
    _each(sort_slices, [slices[:middle], slices[middle:]] if two else [slices])
    return order, ordered


def _sorted_dictionary(
    dictionary: npt.NDArray[np.uint64], indices: Any
) -> tuple[npt.NDArray[np.uint64], Any]:
    """A dictionary and its indices, renumbered in the ascending order of the dictionary."""
    order = np.argsort(dictionary)
    rank = np.empty(len(order), dtype=indices.dtype)
    rank[order] = np.arange(len(order), dtype=indices.dtype)
    # indices are in range: mode="clip" spares the bounds check's buffered copy
    return dictionary[order], np.take(rank, indices, mode="clip")


def _shared_dictionary(chunks: list[pa.DictionaryArray]) -> pa.Array | None:
    """The dictionary of every chunk, if all of them hold the very same one (Arrow's
    ``dictionary_encode`` of a chunked array gives each chunk the final dictionary), else
    None."""

    def buffers(chunk: pa.DictionaryArray) -> list[int | None]:
        return [None if b is None else b.address for b in chunk.dictionary.buffers()]

    first = buffers(chunks[0])
    if all(buffers(chunk) == first for chunk in chunks[1:]):
        return chunks[0].dictionary
    return None


def _encoded(values: pa.Array | pa.ChunkedArray) -> tuple[list[pa.DictionaryArray], pa.Array]:
    """Arrow's dictionary encoding of a column: its chunks and their one dictionary."""
    if values.null_count:
        # Arrow 26 encodes a null string view as "" (the null is lost): encode large strings
        values = _without_views(values)
    encoded = pc.dictionary_encode(values, null_encoding="encode")
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    if not chunks:  # a chunked array without chunks: no values
        return [], pa.array([], type=values.type)
    dictionary = _shared_dictionary(chunks)
    if dictionary is None:
        # chunks with dictionaries of their own (a dictionary-typed column): one array
        combined = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        return _encoded(combined)
    return chunks, _without_views(dictionary)


def _without_views(values: _Column) -> _Column:
    """Arrow's string and binary views (polars' own layout, which Arrow cannot sort) as
    large strings and binaries; other columns as they are."""
    if pa.types.is_string_view(values.type):
        return values.cast(pa.large_string())
    if pa.types.is_binary_view(values.type):
        return values.cast(pa.large_binary())
    return values


@overload
def dictionary_codes(
    values: pa.Array | pa.ChunkedArray,
    *,
    sort: bool,
    compact: Literal[False] = False,
    threads: bool = False,
) -> tuple[IntArray, pa.Array]: ...


@overload
def dictionary_codes(
    values: pa.Array | pa.ChunkedArray, *, sort: bool, compact: bool, threads: bool = False
) -> tuple[CodeArray, pa.Array]: ...


def dictionary_codes(
    values: pa.Array | pa.ChunkedArray,
    *,
    sort: bool,
    compact: bool = False,
    threads: bool = False,
) -> tuple[CodeArray, pa.Array]:
    """Per value an integer code, and the distinct values they index.

    With ``sort=True`` the codes follow the ascending order of the distinct values (nulls
    last), so tables built from them come out sorted. The codes are int64, or int32 with
    ``compact=True`` (half the memory; Arrow's dictionaries have fewer than 2**31 values).

    Strings of at most :data:`KEY_BYTES` bytes without nulls are encoded through their
    :func:`key_words` (:func:`_key_codes`); composite ids (lists, structs) by polars, in
    sorted order (:func:`composite_ranks`); other columns by Arrow's dictionary encoding of
    the values.

    A chunked column is encoded chunk by chunk against one dictionary, without first
    concatenating its chunks (a copy of the whole column). With ``threads=True``, a column of
    :data:`THREAD_VALUES` values or more is encoded in two halves, in two threads at once:
    Arrow's hash table, bound by the memory's latency, takes most of the time on millions of
    rows. The two dictionaries are then merged; the codes are the same.
    """
    if is_composite(values.type):  # sorted either way: polars ranks them
        ranks, distinct = composite_ranks(values)
        return (
            ranks.astype(np.int32) if compact and len(distinct) < 2**31 else ranks,
            distinct.to_arrow(),
        )
    keyed = _key_codes(values, compact=compact, threads=threads)
    if keyed is not None:
        return keyed
    halves = threads and not pa.types.is_dictionary(values.type)
    parts = _by_halves(_encoded, values, threads=halves)
    parts = [part for part in parts if part[0]]
    if not parts:
        return np.zeros(0, dtype=np.int64), pa.array([], type=values.type)
    if len(parts) == 1:
        dictionary = parts[0][1]
        lookups = [np.arange(len(dictionary), dtype=np.int64)]
    else:  # one dictionary for both: the distinct values of the two dictionaries
        merged = pc.dictionary_encode(
            pa.concat_arrays([d for _, d in parts]), null_encoding="encode"
        )
        dictionary = merged.dictionary
        indices = np.asarray(merged.indices, dtype=np.int64)
        lookups = np.split(indices, [len(parts[0][1])])
    codes: CodeArray = (
        np.empty(len(values), dtype=np.int32)
        if compact and len(dictionary) < 2**31
        else np.empty(len(values), dtype=np.int64)
    )
    if sort:
        order = np.asarray(pc.sort_indices(dictionary))
        position = np.empty(len(order), dtype=codes.dtype)
        position[order] = np.arange(len(order))
        dictionary = dictionary.take(pa.array(order))
    else:
        position = np.arange(len(dictionary), dtype=codes.dtype)
    # per chunk, one gather renumbers (and widens, if need be) Arrow's indices
    start = 0
    for (chunks, _), lookup in zip(parts, lookups, strict=True):
        renumber = position[lookup]
        for chunk in chunks:
            indices = np.asarray(chunk.indices)
            np.take(renumber, indices, out=codes[start : start + len(indices)], mode="clip")
            start += len(indices)
    return codes, dictionary


def _decoded(values: _Column) -> _Column:
    """A dictionary-typed column as its plain values (Arrow cannot rank dictionaries), and
    half floats widened (:func:`without_half_floats`)."""
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    return without_half_floats(values)


def without_half_floats(values: _Column) -> _Column:
    """Half floats as float32 (exact: same equality and order), which Arrow can sort; other
    columns as they are."""
    if pa.types.is_float16(values.type):
        return values.cast(pa.float32())
    return values


#: Families of Python types whose values compare with each other (checked in this order);
#: values of any other type form a family of their own type.
_FAMILIES: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("number", (numbers.Real, decimal.Decimal)),
    ("str", (str,)),
    ("bytes", (bytes,)),
    ("datetime", (datetime.datetime,)),
    ("date", (datetime.date,)),
    ("timedelta", (datetime.timedelta,)),
    ("tuple", (tuple,)),
)


def _family(kind: type) -> tuple[str, str]:
    """The family of a Python type (see :func:`object_ranks`): its name, then a module."""
    for name, members in _FAMILIES:
        if issubclass(kind, members):
            return name, ""
    return kind.__name__, kind.__module__


class UnorderedIdsError(TypeError):
    """Ids of one family that neither compare nor have distinct texts (see object_ranks)."""


def object_ranks(values: npt.NDArray[np.object_]) -> IntArray:
    """Dense ranks (0-based) of Python objects, in a total order that never depends on the
    order of the values: by family of type, then by value.

    Numbers (int, float, bool, Decimal, NumPy numbers) are one family and compare as
    numbers, exactly (no float64 conversion); strings, bytes, datetimes, dates, timedeltas
    and tuples are one family each; any other type is its own family. Families follow the
    order of their names (``"number"`` < ``"str"`` < ``"tuple"``; a type's own name, e.g.
    ``"Interval"``, then its module); values within one family compare with Python's ``<``
    (a pandas ``Interval`` by its bounds). A family whose values do not compare (or only
    partly, as sets) is ordered by the values' text, when distinct values have distinct
    texts; otherwise :class:`UnorderedIdsError` names the type.

    One pass of ``type`` over the values (a NumPy ufunc, in C), then one sort per family.
    """
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    kinds = np.asarray(np.frompyfunc(type, 1, 1)(values), dtype=object)
    codes, distinct_kinds = _factorize(kinds)
    families = [_family(kind) for kind in distinct_kinds]
    names = sorted(set(families))
    if names == [("str", "")]:  # the usual case: Arrow ranks strings
        return dense_ranks(pa.array(values, type=pa.large_string()))
    family_of_code = np.array([names.index(f) for f in families], dtype=np.int64)
    family = family_of_code[codes]
    out = np.empty(len(values), dtype=np.int64)
    offset = 0
    for number in range(len(names)):
        rows = np.flatnonzero(family == number)
        ranks = _family_ranks(values[rows], names[number][0])
        out[rows] = ranks + offset
        offset += int(ranks.max()) + 1
    return out


def _family_ranks(values: npt.NDArray[np.object_], name: str) -> IntArray:
    """Dense ranks of values of one family: by ``<``, or by text (see object_ranks).

    ``<`` orders the family when the sorted distinct values each compare below the next;
    a partial order (sets: ``<`` is "subset of") or none at all falls back to the text.
    """
    try:
        distinct, ranks = np.unique(values, return_inverse=True)
        if bool(np.less(distinct[:-1], distinct[1:]).all()):
            return ranks.astype(np.int64).reshape(-1)
    except TypeError:
        pass
    text = values.astype(str)
    n_values = len(_factorize(values)[1])
    if len(np.unique(text)) != n_values:
        msg = f"ids of type {name!r} neither compare with '<' nor have distinct texts"
        raise UnorderedIdsError(msg)
    return np.unique(text, return_inverse=True)[1].astype(np.int64).reshape(-1)


def _factorize(values: npt.NDArray[Any]) -> tuple[IntArray, npt.NDArray[Any]]:
    """pandas' ``factorize`` (by hash and equality) of a NumPy array: codes and uniques."""
    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64, copy=False), np.asarray(uniques)
