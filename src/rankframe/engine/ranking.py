"""Ranking: every query of a frame in one in-place sort of packed 64-bit keys (:func:`rank`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe.engine import segments
from rankframe.engine.frame import (
    BLOCK,
    BoolArray,
    CodeArray,
    FloatArray,
    FrameData,
    IntArray,
    bits,
    blocks,
    dense,
    runs,
    sort_order,
)
from rankframe.engine.sorting import sort_keys

#: The fewest bits of score a packed key of (query, score, row) keeps; with fewer, the
#: ranking sorts the scores themselves.
MIN_SCORE_BITS = 12


def _group_lookup(
    members: IntArray, starts_group: BoolArray, positions: IntArray
) -> tuple[IntArray, IntArray]:
    """The first position and size of the group of each of ``positions`` (ascending).

    ``members`` (ascending) are positions that lie in groups, each group a range of
    consecutive members; ``starts_group`` marks the member that begins each group. A position
    that is not a member is a group of one.
    """
    first, size = positions.copy(), np.ones(len(positions), dtype=np.int64)
    if len(members) == 0 or len(positions) == 0:
        return first, size
    heads = np.flatnonzero(starts_group)
    group_size = np.diff(np.append(heads, len(members)))
    group = np.cumsum(starts_group) - 1
    at = np.minimum(np.searchsorted(members, positions), len(members) - 1)
    inside = members[at] == positions
    g = group[at[inside]]
    first[inside] = members[heads[g]]
    size[inside] = group_size[g]
    return first, size


class _Groups:
    """The tie groups of a ranking made with ``ties="average"``.

    Those of the positively graded positions are found while ranking, from the few runs of
    equal score buckets (``known``); any other positions read the scores of the full order.
    """

    def __init__(
        self, score: FloatArray, known: tuple[IntArray, IntArray, IntArray] | None = None
    ) -> None:
        self._score = score  # per row of the frame
        self._known = known  # (positive positions, their group's first position, its size)

    def of(self, ranking: Ranking, positions: IntArray) -> tuple[IntArray, IntArray]:
        known = self._known
        if known is not None and positions is known[0]:
            return known[1], known[2]
        order = ranking.order
        n = len(order)
        sorted_score = self._score[order]
        starts_group = segments.heads(sorted_score)
        query_first = ranking.starts[:-1]
        starts_group[query_first[query_first < n]] = True
        return _group_lookup(np.arange(n, dtype=np.int64), starts_group, positions)


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

    shared
        Under ``ties="truncated_average"`` only: per position in ``order``, its rank, the
        average rank of its run of tied rows truncated to an integer (tied rows share it);
        ``None`` otherwise (the rank is the position within the query).

    Runs of tied rows none of which has a positive grade do not change any metric of the
    default ``min_relevance``: their exact order is settled only when ``order`` is first
    read (:meth:`positive_rows` does not need it).

    A ranking made with ``ties="average"`` (``averaged``) orders tied rows as ``"first"``
    does and also knows its tie groups (:meth:`tie_groups`): the metrics then take the
    expected value over every order of each group.
    """

    shared: IntArray | None = None

    def __init__(
        self,
        order: IntArray,
        starts: IntArray,
        positive: IntArray,
        positive_query: IntArray,
        unsettled: Callable[[IntArray], None] | None = None,
        groups: _Groups | None = None,
    ) -> None:
        self._order = order
        self.starts = starts
        self.positive = positive
        self.positive_query = positive_query
        self._unsettled = unsettled  # re-orders the deferred tie runs of an order, in place
        self._groups = groups

    @property
    def averaged(self) -> bool:
        """Made with ``ties="average"``: :meth:`tie_groups` is available."""
        return self._groups is not None

    def tie_groups(self, positions: IntArray) -> tuple[IntArray, IntArray]:
        """For positions of ``order`` (ascending), the first position and the size of the
        group of rows of equal score in the same query that each belongs to (size 1 for a
        score of its own). Only for a ranking made with ``ties="average"``."""
        if self._groups is None:
            msg = "tie groups exist only for a ranking made with ties='average'"
            raise ValueError(msg)
        return self._groups.of(self, positions)

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
        if self.shared is not None:
            return self.shared[positions]
        return positions - self.starts[self.query_at(positions)] + 1

    def rank_per_row(self, n_rows: int) -> IntArray:
        """Per row of the frame, its rank, or 0 where the row was not retrieved."""
        out = np.zeros(n_rows, dtype=np.int64)
        out[self.order] = self.rank_at(np.arange(len(self.order), dtype=np.int64))
        return out


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
    query: CodeArray,
    score: FloatArray,
    grade: npt.NDArray[Any],
    score_bits: int,
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
    scaled = np.empty(min(n, BLOCK), dtype=np.float64)
    spare = np.empty(min(n, BLOCK), dtype=np.uint64)
    flag = np.empty(min(n, BLOCK), dtype=bool)
    position_bits = np.arange(min(n, BLOCK), dtype=np.uint64) << np.uint64(1)
    bucket_shift = np.uint64(index_bits + 1)
    query_shift = np.uint64(score_bits + index_bits + 1)
    for start, stop in blocks(n):
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


def _query_starts(key: npt.NDArray[np.uint64], n_queries: int, query_shift: int) -> IntArray:
    """Per query the position of its first entry among the sorted keys (``query`` from
    bit ``query_shift`` up), then ``len(key)``: the entries of each query counted block by
    block, in one sequential pass (a binary search per query reads all over the keys)."""
    counts = np.zeros(n_queries + 1, dtype=np.int64)
    spare = np.empty(min(len(key), BLOCK), dtype=np.uint64)
    shift = np.uint64(query_shift)
    for start, stop in blocks(len(key)):
        m = stop - start
        query = spare[:m]
        np.right_shift(key[start:stop], shift, out=query)
        lo = int(query[0])  # sorted: the block's queries are query[0] .. query[-1]
        query -= np.uint64(lo)
        counts[lo + 1 : lo + 1 + int(query[-1]) + 1] += np.bincount(query.view(np.int64))
    return np.cumsum(counts, out=counts)


def _same_as_next(key: npt.NDArray[np.uint64], shift: int) -> BoolArray:
    """Per entry but the last, whether ``key >> shift`` equals that of the next entry."""
    n = max(len(key) - 1, 0)
    same = np.empty(n, dtype=bool)
    spare = np.empty(min(n, BLOCK), dtype=np.uint64)
    limit = np.uint64(1 << shift)
    for start, stop in blocks(n):
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
    spare = np.empty(min(len(key), BLOCK), dtype=np.uint64)
    flag = np.empty(min(len(key), BLOCK), dtype=bool)
    flagged, queries = [], []
    for start, stop in blocks(len(key)):
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


def _tie_order(
    data: FrameData, rows: IntArray, run_id: IntArray, score: FloatArray, ties: str
) -> IntArray | None:
    """The order of the members of tie runs: by run, score descending, then ``ties``.

    ``rows`` (the members' row positions, ascending within each run), ``run_id`` and
    ``score`` are per member. ``None`` means the members are already in order.
    """
    same_run = run_id[1:] == run_id[:-1]
    exact = bool((score[1:][same_run] == score[:-1][same_run]).all())
    keys = [run_id] if exact else [run_id, dense(-score)]
    if ties == "first":
        if exact:
            return None  # the packed sort key already ordered each run by row position
        return sort_order([*keys, rows])
    items = data.item.ranks(rows)
    if ties == "item_ascending":
        return sort_order([*keys, items])
    # the ranks are this call's own: turned around in place where they can be (a copy less)
    out = items if items.flags.writeable else None
    item_desc = np.subtract(items.max(initial=0), items, out=out)
    if ties in ("trec", "truncated_average"):  # tied rows share a rank: any defined order
        return sort_order([*keys, item_desc])
    # optimistic: higher grade first; pessimistic: lower grade first; then trec's order
    grade = data.relevant[rows].astype(np.float64)
    return sort_order([*keys, dense(-grade if ties == "optimistic" else grade), item_desc])


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
    average: bool = False,
) -> Ranking:
    """:func:`rank` by one sort of packed keys, over the retrieved entries (``retrieved``:
    their query codes, scores, grades; ``bits``: score and index bits of the key).
    ``average``: also find the tie groups of the positively graded entries."""
    query, score, grade = retrieved
    score_bits, index_bits = bits
    # one sort of `query | descending score bucket | row | grade > 0`; the row bits make the
    # keys unique, so the sorted keys carry the permutation
    key = _packed_keys(query, score, grade, score_bits, index_bits)
    sort_keys(key)
    starts = _query_starts(key, data.n_queries, score_bits + index_bits + 1)
    # runs of equal (query, bucket) are re-ordered exactly, by score then the tie policy:
    # those that hold a positively graded row now, the others only when the full order is
    # asked for (see Ranking)
    same = _same_as_next(key, index_bits + 1)
    tie_runs = runs(same) if same.any() else None
    del same
    deferred = None
    tied: tuple[IntArray, BoolArray] | None = None  # ties="average": see _group_lookup
    if tie_runs is not None:
        # each array freed, or cut to the runs ranked now, as soon as it can be: this is
        # the peak of a ranking's memory
        positions, run_id = tie_runs
        del tie_runs
        members = key[positions]
        now = np.zeros(int(run_id[-1]) + 1, dtype=bool)
        now[run_id[(members & np.uint64(1)).astype(bool)]] = True
        now = now[run_id]  # per member: its run holds a flagged row
        if not now.all():
            deferred = (positions[~now], run_id[~now])
            positions, run_id, members = positions[now], run_id[now], members[now]
        if len(positions):
            shifted = members >> np.uint64(1)
            del members  # the keys are read again from `key` when they move
            shifted &= np.uint64((1 << index_bits) - 1)
            entry: IntArray = shifted.view(np.int64)
            member_rows = entry if rows is None else rows[entry]
            within = _tie_order(data, member_rows, run_id, score[entry], ties)
            del member_rows
            if within is not None:
                key[positions] = key[positions][within]  # whole keys move, flags with them
            if average:  # groups: runs of one bucket, split where the exact score changes
                ordered = score[entry if within is None else entry[within]]
                starts_group = segments.heads(run_id, ordered)
                tied = (positions, starts_group)
        del positions, run_id
    local, positive, positive_query = _unpack_positions(
        key, index_bits, score_bits + index_bits + 1
    )
    order = local if rows is None else rows[local]
    groups = None
    if average:
        in_runs, starts_group = tied or (np.zeros(0, np.int64), np.zeros(0, bool))
        groups = _Groups(data.score, (positive, *_group_lookup(in_runs, starts_group, positive)))
    if deferred is None:
        return Ranking(order, starts, positive, positive_query, groups=groups)
    late_positions, late_runs = deferred
    return Ranking(
        order,
        starts,
        positive,
        positive_query,
        unsettled=lambda o: _settle_runs(data, o, late_positions, late_runs, ties),
        groups=groups,
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
    order = np.lexsort((-score, query)).astype(np.int64, copy=False)
    sorted_query = query[order]
    starts = segments.starts(sorted_query, data.n_queries)
    same = sorted_query[1:] == sorted_query[:-1]  # every query is one run
    if same.any():
        positions, run_id = runs(same)
        members = order[positions]
        member_rows = members if rows is None else rows[members]
        within = _tie_order(data, member_rows, run_id, score[members], ties)
        if within is not None:
            order[positions] = members[within]
    positive = np.flatnonzero(grade[order] > 0).astype(np.int64, copy=False)
    return Ranking(
        order if rows is None else rows[order],
        starts.astype(np.int64),
        positive,
        sorted_query[positive].astype(np.int64),
    )


def _shared_ranks(data: FrameData, ranking: Ranking) -> IntArray:
    """Per position of ``ranking.order``, the average rank of its run of equal scores in its
    query, truncated to an integer (Evidently's ``rank(method="average").astype(int)``)."""
    order = ranking.order
    n = len(order)
    score, query = data.score[order], data.query_codes[order]
    run_start = np.flatnonzero(segments.heads(score, query))
    run_stop = np.append(run_start[1:], n)  # one past each run's last position
    query_start = ranking.starts[query[run_start]]
    # 1-based ranks of a run's first and last rows: (first + last) // 2 is the truncated mean
    average = (run_start - query_start + 1 + run_stop - query_start) // 2
    return np.repeat(average, run_stop - run_start).astype(np.int64)


def rank(data: FrameData, ties: str) -> Ranking:
    """Rank the retrieved rows of every query by score, descending, ties by ``ties``.

    ``ties="average"`` orders tied rows as ``"first"`` and records the tie groups
    (:meth:`Ranking.tie_groups`), which the metrics average over; ``"truncated_average"``
    gives tied rows a shared rank (``Ranking.shared``).
    """
    ranking = _rank(data, ties)
    if ties == "truncated_average":
        ranking.shared = _shared_ranks(data, ranking)
    return ranking


def _rank(data: FrameData, ties: str) -> Ranking:
    """:func:`rank`, every position its own rank."""
    average = ties == "average"
    if average:
        ties = "first"
    score = data.score
    # NaN (not retrieved) propagates through min: one pass and no mask in the usual case
    rows = None
    if data.n_rows and np.isnan(score.min()):
        rows = np.flatnonzero(~np.isnan(score)).astype(np.int64, copy=False)
    retrieved = (
        (data.query_codes, score, data.relevant)
        if rows is None
        else (data.query_codes[rows], score[rows], data.relevant[rows])
    )
    n = len(retrieved[1])
    index_bits, query_bits = bits(n), bits(data.n_queries)
    score_bits = min(64 - index_bits - query_bits - 1, 52)  # 1 bit: the grade > 0 flag
    if score_bits >= MIN_SCORE_BITS:
        return _rank_packed(data, rows, retrieved, (score_bits, index_bits), ties, average)
    ranking = _rank_lexsort(data, rows, retrieved, ties)
    if average:
        ranking._groups = _Groups(data.score)
    return ranking
