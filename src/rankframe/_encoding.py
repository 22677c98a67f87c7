"""Encodings of id columns that the engine sorts and compares: 64-bit hashes and dense ranks.

The engine finds duplicate items by sorting packed (query code, item hash) keys; equal items
always get equal hashes, so no duplicate is ever missed, and the rare different items that
share a hash are told apart by comparing their ranks. polars hashes a column in parallel, far
faster than a hash table over millions of distinct ids (pandas ``factorize``); the hashes only
need to agree within one call, which they do.

Ties are broken by item id, so the few tied rows need the order of their ids: Arrow ranks
strings as strings and numbers as numbers, in C++. Query ids become integer codes numbered in
sorted order of the ids: Arrow's dictionary encoding, then a sort of the distinct ids only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["dense_ranks", "dictionary_codes", "hash_series"]

IntArray = npt.NDArray[np.int64]


def hash_series(values: pl.Series) -> npt.NDArray[np.uint64]:
    """Per value a 64-bit hash, equal for equal values (0.0 and -0.0 included)."""
    if values.dtype in (pl.Categorical, pl.Enum):
        values = values.cast(pl.String)
    return values.hash().to_numpy()


def dense_ranks(values: pa.Array | pa.ChunkedArray | npt.NDArray[Any]) -> IntArray:
    """Dense ranks (0-based) of the values in ascending order.

    Strings compare as strings and numbers as numbers. An object array mixing types, which
    has no order of its own, compares the values' text.
    """
    if isinstance(values, np.ndarray):
        try:
            values = pa.array(values, from_pandas=True)
        except (pa.ArrowException, TypeError, ValueError):  # mixed Python objects
            values = pa.array(values.astype(str))
    if pa.types.is_string_view(values.type) or pa.types.is_binary_view(values.type):
        values = values.cast(pa.large_string() if pa.types.is_string_view(values.type)
                             else pa.large_binary())
    ranks = pc.rank(values, sort_keys="ascending", tiebreaker="dense")
    return np.asarray(ranks, dtype=np.int64) - 1


def dictionary_codes(
    values: pa.Array | pa.ChunkedArray, *, sort: bool
) -> tuple[IntArray, pa.Array]:
    """Per value an integer code, and the distinct values they index.

    With ``sort=True`` the codes follow the ascending order of the distinct values (nulls
    last), so tables built from them come out sorted.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    encoded = pc.dictionary_encode(values, null_encoding="encode")
    codes = np.asarray(encoded.indices).astype(np.int64)
    dictionary = encoded.dictionary
    if sort:
        order = np.asarray(pc.sort_indices(dictionary))
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        codes = position[codes]
        dictionary = dictionary.take(pa.array(order))
    return codes, dictionary
