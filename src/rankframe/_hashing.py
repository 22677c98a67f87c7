"""64-bit hashes of id columns, for finding duplicate items within a query.

The engine finds duplicate items by sorting packed (query code, item hash) keys; equal items
always get equal hashes, so no duplicate is ever missed, and the rare different items that
share a hash are told apart by comparing their values. polars hashes a column in parallel,
far faster than a hash table over millions of distinct ids (pandas ``factorize``); the hashes
only need to agree within one call, which they do.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import polars as pl

__all__ = ["hash_series"]


def hash_series(values: pl.Series) -> npt.NDArray[np.uint64]:
    """Per value a 64-bit hash, equal for equal values (0.0 and -0.0 included)."""
    if values.dtype in (pl.Categorical, pl.Enum):
        values = values.cast(pl.String)
    return values.hash().to_numpy()
