"""Per value an integer code and the distinct values they index (:func:`dictionary_codes`):
through the values' 64-bit keys (strings of at most 15 bytes), polars' ranks (composite ids)
or Arrow's dictionary encoding (other columns, then a sort of the distinct values only)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from rankframe.engine.encoding.columns import CodeArray, IntArray, without_views
from rankframe.engine.encoding.composite import composite_ranks, is_composite
from rankframe.engine.encoding.halves import by_halves
from rankframe.engine.encoding.key_codes import DistinctStrings, key_codes

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = ["dictionary_codes", "labelled_codes"]


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
    import pyarrow as pa
    import pyarrow.compute as pc

    if values.null_count:
        # Arrow 26 encodes a null string view as "" (the null is lost): encode large strings
        values = without_views(values)
    encoded = pc.dictionary_encode(values, null_encoding="encode")
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    if not chunks:  # a chunked array without chunks: no values
        return [], pa.array([], type=values.type)
    dictionary = _shared_dictionary(chunks)
    if dictionary is None:
        # chunks with dictionaries of their own (a dictionary-typed column): one array
        combined = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        return _encoded(combined)
    return chunks, without_views(dictionary)


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

    Strings of at most ``KEY_BYTES`` bytes without nulls are encoded through their
    ``key_words`` (:func:`~rankframe.engine.encoding.key_codes.key_codes`); composite ids
    (lists, structs) by polars, in sorted order (:func:`.composite.composite_ranks`); other
    columns by Arrow's dictionary encoding of the values.

    A chunked column is encoded chunk by chunk against one dictionary, without first
    concatenating its chunks (a copy of the whole column). With ``threads=True``, a column of
    ``THREAD_VALUES`` values or more (:func:`.halves.in_two`) is encoded in two halves, in
    two threads at once: Arrow's hash table, bound by the memory's latency, takes most of the
    time on millions of rows. The two dictionaries are then merged; the codes are the same.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if is_composite(values.type):  # sorted either way: polars ranks them
        ranks, distinct = composite_ranks(values)
        return (
            ranks.astype(np.int32) if compact and len(distinct) < 2**31 else ranks,
            distinct.to_arrow(),
        )
    keyed = key_codes(values, compact=compact, threads=threads)
    if keyed is not None:
        return keyed
    halves = threads and not pa.types.is_dictionary(values.type)
    parts = by_halves(_encoded, values, threads=halves)
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


def labelled_codes(
    values: pa.Array | pa.ChunkedArray, *, threads: bool = False
) -> tuple[CodeArray, pa.Array | DistinctStrings]:
    """:func:`dictionary_codes` (sorted, compact) of a column whose distinct values are only
    labels: strings encoded through their keys get them as :class:`DistinctStrings`, made
    when first read."""
    keyed = key_codes(values, compact=True, threads=threads, lazy=True)
    if keyed is not None:
        return keyed
    return dictionary_codes(values, sort=True, compact=True, threads=threads)
