"""Per value a 64-bit hash, equal for equal values: what the duplicate-item check sorts.

The engine finds duplicate items by sorting packed (query code, item hash) keys; equal items
always get equal hashes, so no duplicate is ever missed, and the rare different items that
share a hash are told apart by comparing their ranks. polars hashes a column in parallel, far
faster than a hash table over millions of distinct ids (pandas ``factorize``); the hashes only
need to agree within one call, which they do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import polars as pl

from rankframe.engine.encoding.columns import polars_numpy
from rankframe.engine.encoding.words import short_keys

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = ["hash_arrow", "hash_series"]

_HASH_SLICE = 1 << 17  # values per slice in hash_arrow
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: multiplying by it maps keys one to one


def hash_series(values: pl.Series) -> npt.NDArray[np.uint64]:
    """Per value a 64-bit hash, equal for equal values (0.0 and -0.0 included). A series of
    several chunks (a frame read from parquet) is hashed chunk by chunk into one NumPy
    array: hashing it whole gave polars' own copy of the hashes, which its allocator kept
    for the rest of the run (0.07 GiB for 10M items); polars' hashes do not depend on how
    the column is cut."""
    if values.dtype in (pl.Categorical, pl.Enum):
        values = values.cast(pl.String)
    if values.n_chunks() == 1:
        return polars_numpy(values.hash())
    out = np.empty(len(values), dtype=np.uint64)
    start = 0
    for chunk in values.get_chunks():
        out[start : start + len(chunk)] = chunk.hash().to_numpy()
        start += len(chunk)
    return out


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
    import pyarrow as pa

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
