"""Distinct keys and, per key, its index among them: by a sort when keys repeat only a few
times (many short lists), by Arrow's hash table otherwise (:func:`few_repeats` tells which).

A sort of millions of 64-bit keys at once works out of the CPU cache: :func:`sorted_encoding`
sorts them by their top 16 bits into buckets first, then each slice of about
:data:`SORT_BUCKET` keys in the cache (docs/performance.md).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rankframe.engine.encoding.columns import BLOCK
from rankframe.engine.encoding.halves import each, in_two
from rankframe.engine.sorting import sort_keys

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    pass

__all__ = [
    "REPEAT_SAMPLE",
    "SORT_BELOW",
    "SORT_BUCKET",
    "few_repeats",
    "hashed",
    "sorted_encoding",
]

#: Below this many rows per distinct key (on average), a sort encodes keys faster than
#: Arrow's hash table, whose table of millions of keys no longer fits the CPU cache
#: (docs/performance.md has the measurements).
SORT_BELOW = 8
#: Keys sampled to estimate how often they repeat (:func:`few_repeats`).
REPEAT_SAMPLE = 1 << 14


def hashed(keys: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[np.uint64], Any]:
    """The distinct keys in ascending order, and per key its index among them: Arrow's hash
    table, then a sort of the distinct keys only."""
    import pyarrow as pa
    import pyarrow.compute as pc

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


def sorted_encoding(
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
    ranks: npt.NDArray[np.signedinteger[Any]] = np.empty(min(len(keys), BLOCK), dtype=dtype)
    before = -1
    for start in range(0, len(keys), BLOCK):
        stop = min(start + BLOCK, len(keys))
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

    With ``threads=True`` and ``THREAD_VALUES`` keys or more (:func:`.halves.in_two`), the
    gather of the keys and the sorts of the slices are shared by two threads (NumPy's
    gathers and sorts of numbers release the GIL): each takes the slices of one half of the
    keys.
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
    position = np.arange(min(n, BLOCK), dtype=np.uint64)
    for start in range(0, n, BLOCK):
        block = packed[start : start + BLOCK]
        np.right_shift(keys[start : start + BLOCK], shift, out=block)
        block <<= index_bits
        block |= position[: len(block)]
        block += np.uint64(start)
    sort_keys(packed)
    packed &= np.uint64((1 << int(index_bits)) - 1)
    order = packed.view(np.intp)
    ordered = np.empty(n, dtype=np.uint64)
    two = in_two(n, threads)
    halves = [(0, n // 2), (n // 2, n)] if two else [(0, n)]

    def gather(half: tuple[int, int]) -> None:
        np.take(keys, order[half[0] : half[1]], out=ordered[half[0] : half[1]])

    each(gather, halves)
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
    each(sort_slices, [slices[:middle], slices[middle:]] if two else [slices])
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
