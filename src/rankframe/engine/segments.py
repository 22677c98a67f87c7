"""Scans over segments: entries grouped by an integer key (a query, a tie group, a set).

The engine, the metrics, the item metrics and the statistics all work on flat arrays whose
entries come grouped (each query's entries together, in key order) and ask the same few
things of them, answered here once, without a Python loop over segments:

* :func:`heads`: where each run of equal keys begins;
* :func:`starts`: where each key's entries begin, for keys ``0 .. n - 1`` in sorted order;
* :func:`offsets` and :func:`spread`: from the sizes of the segments, where each begins,
  and each entry's segment and place in it;
* :func:`sums`: per segment, the sum of its entries' weights;
* :func:`prefix_sums`: the running sum within each segment (:func:`running_sums` when each
  entry's segment and place are known and the segments are short).

It imports only NumPy, so any module (including :mod:`rankframe.stats`) can use it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["heads", "offsets", "prefix_sums", "running_sums", "spread", "starts", "sums"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Codes = npt.NDArray[np.integer[Any]]  # any integer dtype (query codes may be int32)


def heads(*keys: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """True at each entry that begins a run of equal keys (a change in any of ``keys``, all
    of one length); the first entry always does."""
    new = np.ones(len(keys[0]), dtype=bool)
    np.not_equal(keys[0][1:], keys[0][:-1], out=new[1:])
    for key in keys[1:]:
        new[1:] |= key[1:] != key[:-1]
    return new


def starts(key: Codes, n: int) -> IntArray:
    """For entries sorted by ``key`` (codes ``0 .. n - 1``), the position of each key's first
    entry, then the number of entries (length n + 1)."""
    return np.searchsorted(key, np.arange(n + 1, dtype=np.int64)).astype(np.int64, copy=False)


def offsets(count: Codes) -> IntArray:
    """For segments of ``count`` entries laid one after the other, where each one begins."""
    first: IntArray = np.cumsum(count) - count
    return first


def spread(count: Codes, base: int = 0) -> tuple[IntArray, IntArray, IntArray]:
    """For segments of ``count`` entries laid one after the other: each entry's segment, its
    place in it (counted from ``base``), and where each segment begins (:func:`offsets`)."""
    first = offsets(count)
    segment = np.repeat(np.arange(len(count), dtype=np.int64), count)
    place = np.arange(len(segment), dtype=np.int64) - first[segment]
    if base:
        place += base
    return segment, place, first


def sums(segment: Codes, weights: npt.ArrayLike, n: int) -> FloatArray:
    """Per segment ``0 .. n - 1``, the sum of the weights of its entries (in entry order)."""
    total: FloatArray = np.bincount(
        segment, weights=np.asarray(weights, dtype=np.float64), minlength=n
    ).astype(np.float64, copy=False)
    return total


def prefix_sums(key: Codes, values: FloatArray) -> FloatArray:
    """For entries grouped by ``key``, the running sum of ``values`` within each group.

    A scan by doubling steps (each entry adds the running sum ``d`` entries back, for d = 1,
    2, 4, ... within its group): each group's sums depend on its own entries only, whatever
    the other groups (a global cumulative sum would carry their rounding).
    """
    out = np.array(values, dtype=np.float64)
    if len(out) == 0:
        return out
    index = np.arange(len(key))
    position = index - np.maximum.accumulate(np.where(heads(key), index, 0))
    step, longest = 1, int(position.max()) + 1
    while step < longest:
        out[step:] += np.where(position[step:] >= step, out[:-step], 0.0)
        step *= 2
    return out


def running_sums(segment: Codes, place: Codes, values: FloatArray, n: int) -> FloatArray:
    """For entries in segment order, ``segment`` in ``0 .. n - 1`` and ``place`` each one's
    place in its segment (0, 1, ...), the running sum of ``values`` within each segment.

    Short segments (the top-k entries of every list) are laid out as the rows of an
    (n, longest) table, summed along the rows (each row's sums depend on its own entries
    only, left to right) and read back (when every segment is full, the entries are that
    table already), where :func:`prefix_sums` makes a pass per doubling step. Segments too
    ragged for the table (it would hold over four times the entries) take
    :func:`prefix_sums`.
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return values.copy()
    width = int(place.max()) + 1
    if n * width == len(values):  # every segment full (places < width): the table itself
        out: FloatArray = np.cumsum(values.reshape(n, width), axis=1).reshape(-1)
        return out
    if n * width > 4 * len(values) + 1024:
        return prefix_sums(segment, values)
    at = segment.astype(np.int64) * width + place
    table = np.zeros(n * width, dtype=np.float64)
    table[at] = values
    np.cumsum(table.reshape(n, width), axis=1, out=table.reshape(n, width))
    out = table[at]
    return out


def row_sums(table: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The sum along each row of a narrow table (lists x groups). Below 8 columns, column
    by column: the order in which ``table.sum(axis=1)`` adds them (one after the other),
    without its short inner loop per row; wider tables by ``sum(axis=1)`` itself."""
    width = table.shape[1]
    if width == 0 or width >= 8:
        return np.asarray(table.sum(axis=1))
    out = table[:, 0].copy()
    for column in range(1, width):
        out += table[:, column]
    return out
