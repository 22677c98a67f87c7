"""Ids looked up by their short keys: a binary search among numbers, no hash table."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from rankframe.engine.encoding.columns import IntArray
from rankframe.engine.encoding.words import SHORT_BYTES, short_keys

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = ["SHORT_BYTES", "ShortIds"]


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
