"""The engine: rank every query of a frame in one pass, then compute metrics per query.

Adapters (pandas, polars, ...) turn a frame into :class:`FrameData`: the query column as
integer codes numbered in sorted order of the query values, scores as float64, grades as the
numbers they are (float, integer or bool: no float64 copy of an integer column), and ways to
reach item values. Everything below works on NumPy arrays, with no Python loop over
rows or queries.

Ranking (:func:`rank`) is one in-place ``np.sort`` of a packed 64-bit key per row,
``query code | score bucket (descending) | row position | grade > 0``: the row position makes
every key unique, so the sorted keys *are* the permutation, and the flag in the lowest bit
marks the positively graded rows without a lookup through the permutation. Score buckets are
an order-preserving quantisation of the scores, so rows that share a bucket within a query
are adjacent after the sort; only those few runs are then re-ordered exactly, by the exact
score and the tie policy (item id descending for ``ties="trec"``), and of those only the runs
that hold a positively graded row at once (the others matter only to the full order, see
:class:`Ranking`). When the bits do not suffice (a huge number of rows times queries), a
lexsort does the same job.

Passes over every row go block by block through small reused buffers (:func:`_blocks`) and
work in place where they can: on millions of rows, memory (allocations, page faults, traffic)
costs more than the arithmetic.

Metrics (:mod:`rankframe._metrics`) then need only the relevant retrieved rows, in rank
order, and per-query counts: :class:`Lists` holds them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe._options import Options
from rankframe.exceptions import InvalidDataError

__all__ = [
    "EXACT_DIGITS",
    "EXACT_INTEGER",
    "FrameData",
    "Lists",
    "Ranking",
    "lists",
    "rank",
    "scores_in_order",
    "unique_items_checked",
]

IntArray = npt.NDArray[np.int64]
# codes of a column (queries, `by` values): int32 when an adapter can (half the memory)
CodeArray = npt.NDArray[np.int32] | npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

_MIN_SCORE_BITS = 12
THREAD_ROWS = 200_000  # from this many rows the duplicate check runs in a second thread
_BLOCK = 1 << 15  # entries per block of the passes over all rows (see _blocks)


@dataclass
class FrameData:
    """A frame's columns as the engine needs them (built by an adapter).

    Attributes
    ----------
    query_codes
        Per row, the query's code in ``0 .. n_queries - 1`` (int32 or int64); codes follow
        the sorted order of the query values, so outputs come out sorted by query.
    n_queries
        Number of distinct queries.
    score
        Per row, the score as float64, in the order of the scores (:func:`scores_in_order`);
        NaN means judged but not retrieved.
    relevant
        Per row, the grade: float, integer or bool (never null). Only the few rows that a
        metric reads are converted to float64.
    item_ranks
        ``item_ranks(rows)`` gives, for those row positions, the dense ranks of their items in
        ascending order of the ids (strings compare as strings, numbers as numbers, Python
        objects by type, then value: :func:`rankframe._encoding.object_ranks`).
    item_hash
        ``item_hash()`` gives per row a 64-bit hash of the item, equal for equal items; used
        to find duplicate items within a query.
    query_labels
        ``query_labels(codes)`` gives the query values of those codes, for messages.
    item_label
        ``item_label(row)`` gives the item value at a row position, for messages.
    segments
        For each ``by`` column: its name and per row an integer code of its value (int32 or
        int64).
    flavour
        ``"pandas"`` or ``"polars"``: the library whose spelling the fixes in messages use.
    systems
        With several score columns (systems judged on the same grades): each column's name
        and its scores; ``score`` is the first. Empty for one score column.
    """

    query_codes: CodeArray
    n_queries: int
    score: FloatArray
    relevant: npt.NDArray[Any]
    item_ranks: Callable[[IntArray], IntArray]
    item_hash: Callable[[], npt.NDArray[np.uint64]]
    query_labels: Callable[[IntArray], list[object]]
    item_label: Callable[[int], object]
    segments: list[tuple[str, CodeArray]] = field(default_factory=list)
    systems: list[tuple[str, FloatArray]] = field(default_factory=list)
    flavour: str = "pandas"

    @property
    def n_rows(self) -> int:
        return len(self.query_codes)

    def first_rows(self) -> IntArray:
        """Per query, the position of its first row."""
        first = np.empty(self.n_queries, dtype=np.int64)
        positions = np.arange(self.n_rows - 1, -1, -1, dtype=np.int64)
        first[self.query_codes[::-1]] = positions
        return first


class Ranking:
    """The result of :func:`rank`.

    Attributes
    ----------
    order
        Row positions of the retrieved rows (score not NaN), sorted by query code, then by
        rank.
    starts
        Per query, the position in ``order`` of its first entry (length ``n_queries + 1``:
        the last entry is the number of retrieved rows).
    positive
        The positions in ``order`` (ascending) of the rows with a positive grade: found while
        ranking, so that :func:`lists` need not look every row up through ``order``.
    positive_query
        The query code of each of those positions.

    Runs of tied rows none of which has a positive grade do not change any metric of the
    default ``min_relevance``: their exact order is settled only when ``order`` is first
    read (:meth:`positive_rows` does not need it).
    """

    def __init__(
        self,
        order: IntArray,
        starts: IntArray,
        positive: IntArray,
        positive_query: IntArray,
        unsettled: Callable[[IntArray], None] | None = None,
    ) -> None:
        self._order = order
        self.starts = starts
        self.positive = positive
        self.positive_query = positive_query
        self._unsettled = unsettled  # re-orders the deferred tie runs of an order, in place

    @property
    def order(self) -> IntArray:
        """The full order (deferred tie runs settled on first use)."""
        if self._unsettled is not None:
            self._unsettled(self._order)
            self._unsettled = None
        return self._order

    def positive_rows(self) -> IntArray:
        """The rows at the positions ``positive``: their tie runs are always settled."""
        return self._order[self.positive]

    @property
    def n_retrieved(self) -> IntArray:
        """Per query, the number of retrieved rows."""
        return np.diff(self.starts)

    def query_at(self, positions: IntArray) -> IntArray:
        """The query codes of the entries of ``order`` at ``positions`` (ascending).

        Counting the positions that fall in each query's range costs one binary search per
        query, instead of one per position.
        """
        counts = np.diff(np.searchsorted(positions, self.starts))
        return np.repeat(np.arange(len(counts), dtype=np.int64), counts)

    def rank_at(self, positions: IntArray) -> IntArray:
        """The 1-based rank of the entries of ``order`` at ``positions`` (ascending)."""
        return positions - self.starts[self.query_at(positions)] + 1

    def rank_per_row(self, n_rows: int) -> IntArray:
        """Per row of the frame, its rank, or 0 where the row was not retrieved."""
        out = np.zeros(n_rows, dtype=np.int64)
        out[self.order] = self.rank_at(np.arange(len(self.order), dtype=np.int64))
        return out


def plain(value: object) -> object:
    """A NumPy scalar as the Python value it holds (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value


#: Integers up to this magnitude are exact in float64; beyond it, neighbours share a float.
EXACT_INTEGER = 2**53
#: Decimals of at most this many digits stay distinct and in order as float64 numbers.
EXACT_DIGITS = 15


def scores_in_order(values: npt.NDArray[Any]) -> FloatArray:
    """Integer scores (without nulls) as float64 numbers that order exactly as they do.

    Every metric depends on the scores through their order only. Integers within
    :data:`EXACT_INTEGER` are their own float64 values; a column beyond it (int64 nanosecond
    timestamps, uint64 hashes) would see distinct scores rounded to one float and tied, so
    it becomes its dense ranks instead (equal scores equal, the order kept).
    """
    if len(values) == 0:
        return values.astype(np.float64)
    if values.dtype != object and values.min() >= -EXACT_INTEGER and values.max() <= EXACT_INTEGER:
        return values.astype(np.float64)
    return _dense(values).astype(np.float64)


def _bits(n: int) -> int:
    return max(int(n - 1).bit_length(), 1)


def _blocks(n: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive blocks of ``_BLOCK`` entries covering ``0 .. n``.

    Passes over millions of rows go block by block, into preallocated buffers: the
    temporaries then stay in the CPU cache and no full-size temporary is allocated (a fresh
    80 MB array costs as much in page faults as the arithmetic done in it).
    """
    for start in range(0, n, _BLOCK):
        yield start, min(start + _BLOCK, n)


def _bucket_scale(lo: float, hi: float, top: int) -> float | None:
    """The factor that maps ``hi - score`` into ``0 .. top - 2`` for scores within
    ``[lo, hi]``, or None when the range is not finite (see :func:`_descending_buckets`)."""
    span = hi - lo
    scale = (top - 2) / span if span > 0 else 0.0
    if np.isfinite(lo) and np.isfinite(hi) and np.isfinite(span) and np.isfinite(scale):
        return scale
    return None


def _descending_buckets(score: FloatArray, bits: int) -> npt.NDArray[np.uint64]:
    """An order-reversing map of scores to ``0 .. 2**bits - 1``: a higher score never gets a
    higher bucket; +inf → 0, -inf → the last bucket.

    :func:`_packed_keys` computes the common case (finite scores) block by block itself;
    this whole-array version handles the rest.
    """
    top = (1 << bits) - 1
    lo, hi = float(score.min()), float(score.max())
    scale = _bucket_scale(lo, hi, top)
    if scale is not None:
        # (hi - score) * scale, truncated, lies in [0, top - 2] (rounding cannot reach
        # top - 1 at these magnitudes)
        scaled = np.subtract(hi, score)
        scaled *= scale
        return scaled.astype(np.uint64)
    # infinities, or spans near the float limits: halves keep the span finite, and a span so
    # narrow that the scale overflows puts every finite score in one bucket (`rank` then
    # re-orders the run exactly)
    finite = np.isfinite(score)
    buckets = np.empty(len(score), dtype=np.uint64)
    if finite.any():
        fin = score[finite]
        lo, hi = float(fin.min()), float(fin.max())
        half_span = hi / 2 - lo / 2
        scale = (top - 2) / half_span if half_span > 0 else 0.0
        scale = scale if np.isfinite(scale) else 0.0
        scaled = np.floor((hi / 2 - fin / 2) * scale)
        buckets[finite] = np.clip(scaled, 0, top - 2).astype(np.uint64) + np.uint64(1)
    buckets[~finite & (score > 0)] = 0
    buckets[~finite & (score < 0)] = top
    return buckets


def _packed_keys(
    query: CodeArray, score: FloatArray, grade: npt.NDArray[Any], score_bits: int,
    index_bits: int,
) -> npt.NDArray[np.uint64]:
    """Per entry the 64-bit key ``query | score bucket (descending) | position | flag``.

    The flag (lowest bit) is ``grade > 0``: it travels with its row through the sort, so the
    positively graded rows can be read off the sorted keys in one sequential pass instead of
    a random gather through the permutation. It does not take part in the order, because the
    position above it already makes every key unique.
    """
    n = len(score)
    key = np.empty(n, dtype=np.uint64)
    if n == 0:
        return key
    lo, hi = float(score.min()), float(score.max())
    scale = _bucket_scale(lo, hi, (1 << score_bits) - 1)
    buckets = None if scale is not None else _descending_buckets(score, score_bits)
    scaled = np.empty(min(n, _BLOCK), dtype=np.float64)
    spare = np.empty(min(n, _BLOCK), dtype=np.uint64)
    flag = np.empty(min(n, _BLOCK), dtype=bool)
    position_bits = np.arange(min(n, _BLOCK), dtype=np.uint64) << np.uint64(1)
    bucket_shift = np.uint64(index_bits + 1)
    query_shift = np.uint64(score_bits + index_bits + 1)
    for start, stop in _blocks(n):
        k, m = key[start:stop], stop - start
        if scale is not None:
            np.subtract(hi, score[start:stop], out=scaled[:m])
            scaled[:m] *= scale
            # truncation, as astype; via int64 (same bits here), which converts faster
            np.copyto(k.view(np.int64), scaled[:m], casting="unsafe")
        elif buckets is not None:
            k[...] = buckets[start:stop]
        k <<= bucket_shift
        np.copyto(spare[:m], query[start:stop], casting="unsafe")
        spare[:m] <<= query_shift
        k |= spare[:m]
        np.add(position_bits[:m], np.uint64(2 * start), out=spare[:m])
        k |= spare[:m]
        np.greater(grade[start:stop], 0, out=flag[:m])
        k |= flag[:m]
    return key


def _same_as_next(key: npt.NDArray[np.uint64], shift: int) -> BoolArray:
    """Per entry but the last, whether ``key >> shift`` equals that of the next entry."""
    n = max(len(key) - 1, 0)
    same = np.empty(n, dtype=bool)
    spare = np.empty(min(n, _BLOCK), dtype=np.uint64)
    limit = np.uint64(1 << shift)
    for start, stop in _blocks(n):
        m = stop - start
        # equal above `shift` <=> the xor has no bit set from `shift` up
        np.bitwise_xor(key[start + 1 : stop + 1], key[start:stop], out=spare[:m])
        np.less(spare[:m], limit, out=same[start:stop])
    return same


def _unpack_positions(
    key: npt.NDArray[np.uint64], index_bits: int, query_shift: int
) -> tuple[IntArray, IntArray, IntArray]:
    """Turn sorted packed keys into row positions, in place; also read the flagged entries.

    Returns the positions (``key``'s memory, viewed as int64), the entries whose flag bit
    (see :func:`_packed_keys`) was set, ascending, and their query codes (the key's bits
    from ``query_shift`` up).
    """
    mask = np.uint64((1 << index_bits) - 1)
    one = np.uint64(1)
    spare = np.empty(min(len(key), _BLOCK), dtype=np.uint64)
    flag = np.empty(min(len(key), _BLOCK), dtype=bool)
    flagged, queries = [], []
    for start, stop in _blocks(len(key)):
        k, m = key[start:stop], stop - start
        np.bitwise_and(k, one, out=spare[:m])
        np.not_equal(spare[:m], 0, out=flag[:m])  # NumPy finds nonzero bools fastest
        hits = np.flatnonzero(flag[:m])
        if len(hits):
            flagged.append(hits + start)
            queries.append((k[hits] >> np.uint64(query_shift)).view(np.int64))
        k >>= one
        k &= mask
    if not flagged:
        return key.view(np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    positive = np.concatenate(flagged).astype(np.int64, copy=False)
    return key.view(np.int64), positive, np.concatenate(queries)


def _runs(same_as_next: BoolArray) -> tuple[IntArray, IntArray]:
    """Positions that belong to runs of equal neighbours, and a run id for each."""
    n = len(same_as_next) + 1
    member = np.zeros(n, dtype=bool)
    member[:-1] |= same_as_next
    member[1:] |= same_as_next
    positions = np.flatnonzero(member).astype(np.int64)
    # a run starts where a member does not continue the previous position's run
    starts = np.ones(len(positions), dtype=bool)
    if len(positions) > 1:
        starts[1:] = ~same_as_next[positions[1:] - 1]
    return positions, np.cumsum(starts) - 1


def _sort_order(keys: Sequence[IntArray]) -> IntArray:
    """The stable order that sorts entries by ``keys`` (most significant first).

    Keys are non-negative integers. When their bits and a position fit in 64 bits they are
    packed into one key for a single ``np.sort``, several times faster than ``np.lexsort``.
    When they do not, the two leading keys give way to the dense rank of their pair, which
    sorts the same and needs no more bits than a position (there are at most ``n`` pairs).
    """
    n = len(keys[0])
    index_bits = _bits(n)
    keys = list(keys)
    widths = [_bits(int(key.max(initial=0)) + 1) for key in keys]
    while (
        index_bits + sum(widths) > 64
        and len(keys) > 1
        and index_bits < widths[0] + widths[1] <= 64
    ):
        pair = keys[0].astype(np.uint64) << np.uint64(widths[1])
        pair |= keys[1].astype(np.uint64, copy=False)
        merged = _dense(pair)
        keys[:2] = [merged]
        widths[:2] = [_bits(int(merged.max(initial=0)) + 1)]
    if index_bits + sum(widths) > 64:
        return np.lexsort(list(reversed(keys))).astype(np.int64)
    packed = np.zeros(n, dtype=np.uint64)
    for key, width in zip(keys, widths, strict=True):
        packed <<= np.uint64(width)
        packed |= key.astype(np.uint64, copy=False)
    packed <<= np.uint64(index_bits)
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort()
    return (packed & np.uint64((1 << index_bits) - 1)).view(np.int64)


def _dense(values: npt.NDArray[Any]) -> IntArray:
    """Dense ranks (0-based) of numbers in ascending order."""
    return np.unique(values, return_inverse=True)[1].astype(np.int64).reshape(-1)


def _tie_order(
    data: FrameData, rows: IntArray, run_id: IntArray, score: FloatArray, ties: str
) -> IntArray | None:
    """The order of the members of tie runs: by run, score descending, then ``ties``.

    ``rows`` (the members' row positions, ascending within each run), ``run_id`` and
    ``score`` are per member. ``None`` means the members are already in order.
    """
    same_run = run_id[1:] == run_id[:-1]
    exact = bool((score[1:][same_run] == score[:-1][same_run]).all())
    keys = [run_id] if exact else [run_id, _dense(-score)]
    if ties == "first":
        if exact:
            return None  # the packed sort key already ordered each run by row position
        return _sort_order([*keys, rows])
    items = data.item_ranks(rows)
    item_desc = items.max(initial=0) - items
    if ties == "trec":
        return _sort_order([*keys, item_desc])
    # optimistic: higher grade first; pessimistic: lower grade first; then trec's order
    grade = data.relevant[rows].astype(np.float64)
    return _sort_order([*keys, _dense(-grade if ties == "optimistic" else grade), item_desc])


def _settle_runs(
    data: FrameData, order: IntArray, positions: IntArray, run_id: IntArray, ties: str
) -> None:
    """Re-order, in place, the tie runs of ``order`` at ``positions`` (each run's rows in
    ascending order, as the packed sort leaves them): by score, then the tie policy."""
    rows = order[positions]
    within = _tie_order(data, rows, run_id, data.score[rows], ties)
    if within is not None:
        order[positions] = rows[within]


def _rank_packed(
    data: FrameData,
    rows: IntArray | None,
    retrieved: tuple[CodeArray, FloatArray, npt.NDArray[Any]],
    bits: tuple[int, int],
    ties: str,
) -> Ranking:
    """:func:`rank` by one sort of packed keys, over the retrieved entries (``retrieved``:
    their query codes, scores, grades; ``bits``: score and index bits of the key)."""
    query, score, grade = retrieved
    score_bits, index_bits = bits
    # one sort of `query | descending score bucket | row | grade > 0`; the row bits make the
    # keys unique, so the sorted keys carry the permutation
    key = _packed_keys(query, score, grade, score_bits, index_bits)
    key.sort()
    query_shift = np.uint64(score_bits + index_bits + 1)
    firsts = np.arange(data.n_queries, dtype=np.uint64) << query_shift
    starts = np.append(np.searchsorted(key, firsts), len(key)).astype(np.int64)
    # runs of equal (query, bucket) are re-ordered exactly, by score then the tie policy:
    # those that hold a positively graded row now, the others only when the full order is
    # asked for (see Ranking)
    same = _same_as_next(key, index_bits + 1)
    deferred = None
    if same.any():
        positions, run_id = _runs(same)
        members = key[positions]
        flagged = (members & np.uint64(1)).astype(bool)
        now = np.zeros(int(run_id[-1]) + 1, dtype=bool)
        now[run_id[flagged]] = True
        now = now[run_id]  # per member: its run holds a flagged row
        if now.any():
            members = members[now]
            entry = ((members >> np.uint64(1)) & np.uint64((1 << index_bits) - 1)).view(np.int64)
            member_rows = entry if rows is None else rows[entry]
            within = _tie_order(data, member_rows, run_id[now], score[entry], ties)
            if within is not None:
                key[positions[now]] = members[within]  # whole keys move, flags with them
        if not now.all():
            deferred = (positions[~now], run_id[~now])
    del same
    local, positive, positive_query = _unpack_positions(
        key, index_bits, score_bits + index_bits + 1
    )
    order = local if rows is None else rows[local]
    if deferred is None:
        return Ranking(order, starts, positive, positive_query)
    late_positions, late_runs = deferred
    return Ranking(
        order,
        starts,
        positive,
        positive_query,
        unsettled=lambda o: _settle_runs(data, o, late_positions, late_runs, ties),
    )


def _rank_lexsort(
    data: FrameData,
    rows: IntArray | None,
    retrieved: tuple[CodeArray, FloatArray, npt.NDArray[Any]],
    ties: str,
) -> Ranking:
    """:func:`rank` by a lexsort, when the bits do not fit one key (a huge number of rows
    times queries); same arguments and result as :func:`_rank_packed`."""
    query, score, grade = retrieved
    order = np.lexsort((-score, query)).astype(np.int64)
    sorted_query = query[order]
    starts = np.searchsorted(sorted_query, np.arange(data.n_queries + 1, dtype=np.int64))
    same = sorted_query[1:] == sorted_query[:-1]  # every query is one run
    if same.any():
        positions, run_id = _runs(same)
        members = order[positions]
        member_rows = members if rows is None else rows[members]
        within = _tie_order(data, member_rows, run_id, score[members], ties)
        if within is not None:
            order[positions] = members[within]
    positive = np.flatnonzero(grade[order] > 0).astype(np.int64)
    return Ranking(
        order if rows is None else rows[order],
        starts.astype(np.int64),
        positive,
        sorted_query[positive].astype(np.int64),
    )


def rank(data: FrameData, ties: str) -> Ranking:
    """Rank the retrieved rows of every query by score, descending, ties by ``ties``."""
    score = data.score
    # NaN (not retrieved) propagates through min: one pass and no mask in the usual case
    rows = None
    if data.n_rows and np.isnan(score.min()):
        rows = np.flatnonzero(~np.isnan(score)).astype(np.int64)
    retrieved = (
        (data.query_codes, score, data.relevant)
        if rows is None
        else (data.query_codes[rows], score[rows], data.relevant[rows])
    )
    n = len(retrieved[1])
    index_bits, query_bits = _bits(n), _bits(data.n_queries)
    score_bits = min(64 - index_bits - query_bits - 1, 52)  # 1 bit: the grade > 0 flag
    if score_bits >= _MIN_SCORE_BITS:
        return _rank_packed(data, rows, retrieved, (score_bits, index_bits), ties)
    return _rank_lexsort(data, rows, retrieved, ties)


@dataclass
class Lists:
    """What the metrics need of one ranking, for one ``min_relevance``.

    Attributes
    ----------
    n_queries
        Number of queries.
    n_retrieved
        Per query, the number of retrieved rows.
    n_relevant
        Per query, R: relevant rows, retrieved or not.
    rel_query, rel_rank, rel_hits
        The relevant retrieved rows in rank order: query code, rank, and the number of
        relevant rows at or above that rank (hits@rank).
    gain_query, gain_rank, gain_grade
        The retrieved rows with a positive grade: query code, rank, grade.
    ideal_query, ideal_rank, ideal_grade
        Every row with a positive grade, retrieved or not, in the ideal order (grade
        descending within each query), with its ideal rank.
    """

    n_queries: int
    n_retrieved: IntArray
    n_relevant: IntArray
    rel_query: IntArray
    rel_rank: IntArray
    rel_hits: IntArray
    gain_query: IntArray
    gain_rank: IntArray
    gain_grade: FloatArray
    ideal_query: IntArray
    ideal_rank: IntArray
    ideal_grade: FloatArray

    def first_relevant_rank(self) -> FloatArray:
        """Per query, the rank of the first relevant retrieved row (inf if none)."""
        first = np.full(self.n_queries, np.inf)
        head = self.rel_hits == 1
        first[self.rel_query[head]] = self.rel_rank[head]
        return first

    def hits_at(self, k: int | None) -> FloatArray:
        """Per query, the number of relevant rows ranked at or above k."""
        query = self.rel_query if k is None else self.rel_query[self.rel_rank <= k]
        return np.bincount(query, minlength=self.n_queries).astype(np.float64)


def _within_query_position(query: IntArray) -> IntArray:
    """For entries grouped by query (contiguous), their 1-based position within the group.

    Works on the entries alone (where each group starts), not on per-query arrays: there
    may be far more queries than entries.
    """
    n = len(query)
    first = np.ones(n, dtype=bool)
    np.not_equal(query[1:], query[:-1], out=first[1:])
    index = np.arange(n, dtype=np.int64)
    group_start = np.where(first, index, 0)
    np.maximum.accumulate(group_start, out=group_start)  # each entry's group start
    index -= group_start
    index += 1
    return index


def _ideal_order(query: IntArray, grade: FloatArray) -> IntArray:
    """The order that sorts entries by query, then by grade descending."""
    if len(query) == 0:
        return np.zeros(0, dtype=np.int64)
    top = float(grade.max())
    if top < 2**20 and bool((grade == np.floor(grade)).all()):  # whole grades: no ranking
        return _sort_order([query, (top - grade).astype(np.int64)])
    return _sort_order([query, _dense(-grade)])


def lists(data: FrameData, ranking: Ranking, options: Options) -> Lists:
    """Gather the relevant and positively graded rows of a ranking.

    Only those rows (a few percent, usually) are looked up in rank order. With the default
    ``min_relevance`` (or a positive one) they are the ranking's positively graded rows,
    which :func:`rank` located while sorting; a lower ``min_relevance`` also counts rows
    graded 0 or less, found by gathering a one-byte flag per row through the permutation.
    """
    grade = data.relevant
    level = options.min_relevance

    def is_relevant(g: npt.NDArray[Any]) -> BoolArray:
        return g > 0 if level is None else g >= level

    if level is None or level > 0:  # every relevant row has a positive grade
        pos, pos_query = ranking.positive, ranking.positive_query
        pos_rows = ranking.positive_rows()
    else:
        wanted = (grade > 0) | is_relevant(grade)
        pos = np.flatnonzero(wanted.view(np.uint8)[ranking.order]).astype(np.int64)
        pos_rows = ranking.order[pos]
        pos_query = ranking.query_at(pos)
    pos_rank = pos - ranking.starts[pos_query] + 1
    pos_grade = grade[pos_rows].astype(np.float64, copy=False)
    rel_keep = is_relevant(pos_grade)
    rel_query = pos_query[rel_keep]
    gain_keep = pos_grade > 0
    gain_query = pos_query[gain_keep]
    gain_grade = pos_grade[gain_keep]

    if int(ranking.starts[-1]) == data.n_rows:
        # every row retrieved: the rows above are every relevant and every positive row
        n_relevant = np.bincount(rel_query, minlength=data.n_queries)
        positive_query, positive_grade = gain_query, gain_grade
    else:
        n_relevant = np.bincount(
            data.query_codes[np.flatnonzero(is_relevant(grade))], minlength=data.n_queries
        )
        positive_rows = np.flatnonzero(grade > 0)
        positive_query = data.query_codes[positive_rows].astype(np.int64)
        positive_grade = grade[positive_rows].astype(np.float64, copy=False)
    # entries of equal query and grade are interchangeable: which row comes first in the
    # ideal ranking does not matter
    ideal = _ideal_order(positive_query, positive_grade)
    ideal_query = positive_query[ideal]

    return Lists(
        n_queries=data.n_queries,
        n_retrieved=ranking.n_retrieved,
        n_relevant=n_relevant.astype(np.int64),
        rel_query=rel_query,
        rel_rank=pos_rank[rel_keep],
        rel_hits=_within_query_position(rel_query),
        gain_query=gain_query,
        gain_rank=pos_rank[gain_keep],
        gain_grade=gain_grade,
        ideal_query=ideal_query,
        ideal_rank=_within_query_position(ideal_query),
        ideal_grade=positive_grade[ideal],
    )


def _item_keys(data: FrameData, query_bits: int) -> npt.NDArray[np.uint64]:
    """Per row the key ``query code | item hash`` (the hash's top bits give way)."""
    hashes = data.item_hash()
    # shifted in place when the hashes are ours to modify (a polars view is read-only)
    key = np.right_shift(
        hashes, np.uint64(query_bits), out=hashes if hashes.flags.writeable else None
    )
    del hashes
    spare = np.empty(min(len(key), _BLOCK), dtype=np.uint64)
    query_shift = np.uint64(64 - query_bits)
    for start, stop in _blocks(len(key)):
        m = stop - start
        np.copyto(spare[:m], data.query_codes[start:stop], casting="unsafe")
        spare[:m] <<= query_shift
        key[start:stop] |= spare[:m]
    return key


def _has_equal_neighbours(values: npt.NDArray[np.uint64]) -> bool:
    """Whether two consecutive entries are equal (block by block: no full-size mask)."""
    for start, stop in _blocks(len(values) - 1):
        if (values[start + 1 : stop + 1] == values[start:stop]).any():
            return True
    return False


def check_unique_items(data: FrameData, query: str, item: str) -> None:
    """Raise if an item appears more than once in a query.

    One in-place sort of packed (query code, item hash) keys finds every candidate; equal
    items always share a hash, so only the candidates' values are compared exactly. The usual
    outcome, no candidate, needs no more memory than the keys.
    """
    query_bits = _bits(data.n_queries)
    key = _item_keys(data, query_bits)
    key.sort()
    if not _has_equal_neighbours(key):
        return
    # candidates (duplicates, or different items that share a hash): the keys again, this
    # time with the rows they come from
    key = _item_keys(data, query_bits)
    order = np.argsort(key, kind="stable")
    positions, run_id = _runs(key[order][1:] == key[order][:-1])
    rows = order[positions]
    value = data.item_ranks(rows)
    by_value = np.lexsort((value, run_id))
    same = (run_id[by_value][1:] == run_id[by_value][:-1]) & (
        value[by_value][1:] == value[by_value][:-1]
    )
    if not same.any():
        return  # different items that share a hash
    at = int(np.flatnonzero(same)[0])
    first = by_value[at]
    count = int(((run_id == run_id[first]) & (value == value[first])).sum())
    row = int(rows[first])
    code = data.query_codes[row : row + 1].astype(np.int64)
    query_value = plain(data.query_labels(code)[0])
    msg = (
        f"Item {plain(data.item_label(row))!r} appears {count} times in query {query_value!r} "
        f"(columns {item!r}, {query!r}); each item may appear once per query. "
        f"Drop the duplicates, e.g. {_drop_duplicates(data.flavour, query, item)}."
    )
    raise InvalidDataError(msg)


def _drop_duplicates(flavour: str, query: str, item: str) -> str:
    """The call that keeps one row per (query, item), in the user's library."""
    if flavour == "polars":
        return f"df.unique(subset=[{query!r}, {item!r}], keep='first')"
    return f"df.drop_duplicates([{query!r}, {item!r}])"


@contextmanager
def unique_items_checked(data: FrameData, query: str, item: str) -> Iterator[None]:
    """Check that items are unique per query while the body of the ``with`` runs.

    On large frames the check (hashing and one sort) runs in a second thread, beside the
    ranking: NumPy's sorts and ufuncs and polars release the GIL, so two cores share the work.
    On leaving the block the check is awaited, and a duplicate raises
    :class:`InvalidDataError` in place of any result or other error of the body.
    """
    if data.n_rows < THREAD_ROWS:
        check_unique_items(data, query, item)
        yield
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe") as pool:
        check = pool.submit(check_unique_items, data, query, item)
        try:
            yield
        finally:
            check.result()


def segment_of_queries(
    data: FrameData, first_rows: IntArray | None
) -> tuple[IntArray, IntArray, int]:
    """Per query, its segment code; also the first row of each segment and their number.

    ``first_rows`` (:meth:`FrameData.first_rows`) is needed when there are segments. Raises
    if a ``by`` column varies within a query.
    """
    if not data.segments or first_rows is None:  # one segment, even for a frame without rows
        return np.zeros(data.n_queries, dtype=np.int64), np.zeros(1, dtype=np.int64), 1
    per_query_codes = []
    for name, codes in data.segments:
        per_query = codes[first_rows]
        varies = codes != per_query[data.query_codes]
        if varies.any():
            row = int(np.flatnonzero(varies)[0])
            code = data.query_codes[row : row + 1].astype(np.int64)
            query_value = plain(data.query_labels(code)[0])
            msg = (
                f"Column {name!r} varies within query {query_value!r}; a `by` column must be "
                "constant within each query (a user, a theme, a cohort). Group by a column "
                "that is constant per query, or make the query column finer."
            )
            raise InvalidDataError(msg)
        per_query_codes.append(per_query)
    return combine_segments(per_query_codes, first_rows)


def combine_segments(
    per_query: Sequence[npt.NDArray[np.integer[Any]]], first_rows: IntArray
) -> tuple[IntArray, IntArray, int]:
    """Per query its segment code (segments numbered in sorted order of the ``by`` values),
    the first row of each segment, and their number, from each ``by`` column's per-query
    codes (numbered in sorted order of its values)."""
    combined = np.zeros(len(first_rows), dtype=np.int64)
    if not per_query:
        return combined, np.zeros(1, dtype=np.int64), 1
    for codes in per_query:
        _, dense = np.unique(codes, return_inverse=True)
        combined = combined * (int(dense.max(initial=0)) + 1) + dense
    uniques, first_query, segment = np.unique(combined, return_index=True, return_inverse=True)
    return segment.astype(np.int64), first_rows[first_query], len(uniques)
