"""Encodings of id columns that the engine sorts and compares: 64-bit hashes and dense ranks.

The engine finds duplicate items by sorting packed (query code, item hash) keys; equal items
always get equal hashes, so no duplicate is ever missed, and the rare different items that
share a hash are told apart by comparing their ranks. polars hashes a column in parallel, far
faster than a hash table over millions of distinct ids (pandas ``factorize``); the hashes only
need to agree within one call, which they do.

Ties are broken by item id, so the few tied rows need the order of their ids: Arrow ranks
strings as strings and numbers as numbers, in C++; ids of at most 8 bytes (most ids) are
ranked as the 64-bit numbers their bytes make, by NumPy. Query ids become integer codes
numbered in sorted order of the ids: Arrow's dictionary encoding, then a sort of the distinct
ids only. Ids of at most 7 bytes are first made into 64-bit keys (:func:`short_keys`), which
Arrow's hash table encodes several times faster than strings (the table of 100k ids no
longer fits the CPU cache as numbers do): 0.44 -> 0.19 s for 10M rows.

Columns arrive as chunked Arrow arrays (a parquet file read by pandas has one chunk per row
group): they are encoded, hashed and gathered chunk by chunk, never concatenated, because a
concatenation copies the whole column.
"""

from __future__ import annotations

import datetime
import decimal
import numbers
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar, overload

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "dense_ranks",
    "dictionary_codes",
    "hash_arrow",
    "hash_series",
    "object_ranks",
    "ranks_at",
    "without_half_floats",
]

_HASH_SLICE = 1 << 17  # values per slice in hash_arrow
_KEY_BLOCK = 1 << 15  # values per block in short_keys
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: multiplying by it maps keys one to one
#: From this many values ``dictionary_codes(threads=True)`` encodes in two threads. Measured
#: on the benchmark's workload (`make bench`), 2 cores: one thread is faster at 1M rows with
#: 10k distinct ids (43 against 48 ms for all of ``evaluate``), two at 2M rows with 20k
#: (90 against 99 ms) and at 10M with 100k (0.53 against 0.61 s).
THREAD_VALUES = 1_500_000

IntArray = npt.NDArray[np.int64]
_Column = TypeVar("_Column", pa.Array, pa.ChunkedArray)
CodeArray = npt.NDArray[np.int32] | npt.NDArray[np.int64]


def hash_series(values: pl.Series) -> npt.NDArray[np.uint64]:
    """Per value a 64-bit hash, equal for equal values (0.0 and -0.0 included)."""
    if values.dtype in (pl.Categorical, pl.Enum):
        values = values.cast(pl.String)
    return values.hash().to_numpy()


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
    masks = np.array([0] + [all_bits << np.uint64(8 * (8 - n)) for n in range(1, 9)],
                     dtype=np.uint64)
    keys &= masks[lengths]
    return keys


def dense_ranks(values: pa.Array | pa.ChunkedArray | npt.NDArray[Any]) -> IntArray:
    """Dense ranks (0-based) of the values in ascending order.

    Strings compare as strings and numbers as numbers; an object array as
    :func:`object_ranks` orders it (by type, then value).
    """
    if isinstance(values, np.ndarray):
        if values.dtype == object:
            return object_ranks(values)
        values = pa.array(values, from_pandas=True)
    values = _decoded(_without_views(values))
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    keys = _prefix_keys(values)
    if keys is not None:
        return np.unique(keys, return_inverse=True)[1].astype(np.int64).reshape(-1)
    ranks = pc.rank(values, sort_keys="ascending", tiebreaker="dense")
    return np.asarray(ranks, dtype=np.int64) - 1


def ranks_at(values: pa.Array | pa.ChunkedArray, rows: IntArray) -> IntArray:
    """:func:`dense_ranks` of the values at positions ``rows`` of a chunked column.

    Arrow's ``take`` on a chunked array concatenates the chunks first (a copy of the whole
    column, for a few rows); the rows are taken chunk by chunk here instead, in ascending
    order, and the ranks put back in the order of ``rows``.
    """
    if isinstance(values, pa.Array) or values.num_chunks <= 1:
        return dense_ranks(values.take(pa.array(rows)))
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
    ranks = np.empty(len(rows), dtype=np.int64)
    ranks[ascending] = dense_ranks(pa.chunked_array(pieces, type=values.type))
    return ranks


#: Strings of at most this many bytes become 64-bit keys (see :func:`short_keys`).
SHORT_BYTES = 7
_SHORT_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(SHORT_BYTES + 1)], dtype=np.uint64)


def short_keys(values: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.uint64] | None:
    """Per string of at most :data:`SHORT_BYTES` bytes, a 64-bit key; None for other columns.

    The key is the string's bytes, big-endian and zero-padded to 7 bytes, then its length in
    the lowest byte: one key per string and no string shares another's, and the keys order
    as the strings do byte-wise (a prefix first). Short ids, the usual kind, are then
    encoded by a hash table of numbers, several times faster than one of strings, and their
    distinct values sorted by a sort of numbers. None for other types, nulls, or a longer
    string.

    Strings and large strings are read from their offsets and data, string views (polars'
    layout) from the views, where short strings are held inline; chunk by chunk, a block at
    a time, into one preallocated array.
    """
    kind = values.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
            or pa.types.is_string_view(kind)):
        return None
    if values.null_count:
        return None
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    out = np.empty(len(values), dtype=np.uint64)
    read = _view_keys if pa.types.is_string_view(kind) else _offset_keys
    start = 0
    for chunk in chunks:
        if not read(chunk, out[start : start + len(chunk)]):
            return None
        start += len(chunk)
    return out


def _finish_keys(key: npt.NDArray[np.uint64], length: IntArray) -> bool:
    """Keep the first ``length`` bytes of each little-endian ``key``, make them big-endian and
    put the length in the low byte, in place; False if a length exceeds SHORT_BYTES."""
    if len(length) and int(length.max()) > SHORT_BYTES:
        return False
    key &= _SHORT_MASKS[length]
    key.byteswap(inplace=True)
    key |= length.view(np.uint64)
    return True


def _offset_keys(chunk: pa.Array, out: npt.NDArray[np.uint64]) -> bool:
    """:func:`short_keys` of one string or large-string array, into ``out``."""
    wide = pa.types.is_large_string(chunk.type)
    _, offset_buffer, data_buffer = chunk.buffers()
    if len(chunk) == 0:
        return True
    offsets: npt.NDArray[Any] = np.frombuffer(
        offset_buffer, dtype=np.int64 if wide else np.int32
    )[chunk.offset : chunk.offset + len(chunk) + 1]
    size = 0 if data_buffer is None else data_buffer.size
    # every 8-byte word of the data, at every byte (a strided view, no copy); strings that
    # start in the last 7 bytes are read from a zero-padded copy of the data's end
    words: npt.NDArray[np.uint64] = (
        np.ndarray((size - 7,), dtype="<u8", buffer=data_buffer, strides=(1,))
        if size >= 8 else np.zeros(0, dtype=np.uint64)
    )
    base = max(size - 16, 0)
    tail = np.zeros(24, dtype=np.uint8)
    if size:
        tail[: size - base] = np.frombuffer(data_buffer, dtype=np.uint8)[base:size]
    tail_words = np.ndarray((17,), dtype="<u8", buffer=tail, strides=(1,))
    length = np.empty(min(len(chunk), _KEY_BLOCK), dtype=np.int64)
    for begin in range(0, len(chunk), _KEY_BLOCK):
        end = min(begin + _KEY_BLOCK, len(chunk))
        m, starts, key = end - begin, offsets[begin:end], out[begin:end]
        np.subtract(offsets[begin + 1 : end + 1], starts, out=length[:m])
        if int(starts[-1]) <= size - 8:  # offsets ascend: every read of the block fits
            key[...] = words[starts]
        else:
            near = starts > size - 8
            key[~near] = words[starts[~near]]
            key[near] = tail_words[starts[near] - base]
        if not _finish_keys(key, length[:m]):
            return False
    return True


def _view_keys(chunk: pa.Array, out: npt.NDArray[np.uint64]) -> bool:
    """:func:`short_keys` of one string-view array, into ``out``: a view of 16 bytes holds
    the length (4 bytes) and, for a string of up to 12 bytes, the string itself."""
    views = np.frombuffer(chunk.buffers()[1], dtype=np.uint64)
    views = views[2 * chunk.offset : 2 * (chunk.offset + len(chunk))]
    low, high = views[0::2], views[1::2]
    length = np.empty(min(len(chunk), _KEY_BLOCK), dtype=np.int64)
    spare = np.empty(min(len(chunk), _KEY_BLOCK), dtype=np.uint64)
    for begin in range(0, len(chunk), _KEY_BLOCK):
        end = min(begin + _KEY_BLOCK, len(chunk))
        m, key = end - begin, out[begin:end]
        np.bitwise_and(low[begin:end], np.uint64(0xFFFFFFFF), out=length[:m].view(np.uint64))
        # bytes 0-3 sit above the length in the first word, bytes 4-11 in the second
        np.right_shift(low[begin:end], np.uint64(32), out=key)
        np.left_shift(high[begin:end], np.uint64(32), out=spare[:m])
        key |= spare[:m]
        if not _finish_keys(key, length[:m]):
            return False
    return True


def _strings_of_keys(keys: npt.NDArray[np.uint64], kind: pa.DataType) -> pa.Array:
    """The strings that :func:`short_keys` made ``keys`` of, as an Arrow array (strings for a
    string column, large strings for the others)."""
    length = (keys & np.uint64(0xFF)).astype(np.int64)
    body = (keys & ~np.uint64(0xFF)).astype(">u8").view(np.uint8).reshape(-1, 8)
    data = body[:, :SHORT_BYTES][np.arange(SHORT_BYTES) < length[:, None]]
    wide = not pa.types.is_string(kind)
    offsets = np.zeros(len(keys) + 1, dtype=np.int64 if wide else np.int32)
    np.cumsum(length, out=offsets[1:])
    return pa.Array.from_buffers(
        pa.large_string() if wide else pa.string(), len(keys),
        [None, pa.py_buffer(offsets), pa.py_buffer(data.tobytes())],
    )


_Part = TypeVar("_Part")


def _by_halves(
    encode: Callable[[Any], _Part], values: pa.Array | pa.ChunkedArray, *, threads: bool
) -> list[_Part]:
    """``[encode(values)]``; with ``threads=True`` and :data:`THREAD_VALUES` values or more,
    ``encode`` of its two halves (zero-copy slices), in two threads at once."""
    if not (threads and len(values) >= THREAD_VALUES):
        return [encode(values)]
    middle = len(values) // 2
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe") as pool:
        later = pool.submit(encode, values.slice(middle))
        return [encode(values.slice(0, middle)), later.result()]


def _encoded_keys(values: pa.Array | pa.ChunkedArray) -> tuple[npt.NDArray[np.uint64], Any] | None:
    """Arrow's dictionary encoding of a column's :func:`short_keys`: the distinct keys and
    per value its index among them; None when the column has no short keys."""
    keys = short_keys(values)
    if keys is None:
        return None
    encoded = pc.dictionary_encode(pa.array(keys))
    return np.asarray(encoded.dictionary), np.asarray(encoded.indices)


def _short_codes(
    values: pa.Array | pa.ChunkedArray, *, compact: bool, threads: bool
) -> tuple[CodeArray, pa.Array] | None:
    """:func:`dictionary_codes` through :func:`short_keys` (always sorted), or None when the
    column has no short keys. The keys are made and encoded in two halves, in two threads,
    as in :func:`dictionary_codes`; the distinct keys, sorted, then number the codes."""
    parts = _by_halves(_encoded_keys, values, threads=threads)
    found = [part for part in parts if part is not None]
    if len(found) < len(parts):
        return None
    # the distinct keys in the strings' order (a sort: np.unique is slower on numbers)
    distinct = np.sort(np.concatenate([keys for keys, _ in found]))
    if len(distinct) > 1:
        distinct = distinct[np.append(True, distinct[1:] != distinct[:-1])]
    codes: CodeArray = (
        np.empty(len(values), dtype=np.int32)
        if compact and len(distinct) < 2**31
        else np.empty(len(values), dtype=np.int64)
    )
    start = 0
    for keys, indices in found:
        # each key's position among the distinct ones; sorted needles search faster
        by_key = np.argsort(keys)
        lookup = np.empty(len(keys), dtype=codes.dtype)
        lookup[by_key] = np.searchsorted(distinct, keys[by_key])
        # indices are in range: mode="clip" spares the bounds check's buffered copy
        np.take(lookup, indices, out=codes[start : start + len(indices)], mode="clip")
        start += len(indices)
    return codes, _strings_of_keys(distinct, values.type)


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
    values: pa.Array | pa.ChunkedArray, *, sort: bool, compact: Literal[False] = False,
    threads: bool = False,
) -> tuple[IntArray, pa.Array]: ...


@overload
def dictionary_codes(
    values: pa.Array | pa.ChunkedArray, *, sort: bool, compact: bool, threads: bool = False
) -> tuple[CodeArray, pa.Array]: ...


def dictionary_codes(
    values: pa.Array | pa.ChunkedArray, *, sort: bool, compact: bool = False,
    threads: bool = False,
) -> tuple[CodeArray, pa.Array]:
    """Per value an integer code, and the distinct values they index.

    With ``sort=True`` the codes follow the ascending order of the distinct values (nulls
    last), so tables built from them come out sorted. The codes are int64, or int32 with
    ``compact=True`` (half the memory; Arrow's dictionaries have fewer than 2**31 values).

    Strings of at most :data:`SHORT_BYTES` bytes without nulls are encoded through their
    :func:`short_keys`; other columns by Arrow's dictionary encoding of the values.

    A chunked column is encoded chunk by chunk against one dictionary, without first
    concatenating its chunks (a copy of the whole column). With ``threads=True``, a column of
    :data:`THREAD_VALUES` values or more is encoded in two halves, in two threads at once:
    Arrow's hash table, bound by the memory's latency, takes most of the time on millions of
    rows. The two dictionaries are then merged; the codes are the same.
    """
    short = _short_codes(values, compact=compact, threads=threads)
    if short is not None:
        return short
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
    import pandas as pd

    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64, copy=False), np.asarray(uniques)
