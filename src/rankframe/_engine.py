"""The engine: rank every query of a frame in one pass, then compute metrics per query.

Adapters (pandas, polars, ...) turn a frame into :class:`FrameData`: the query column as
integer codes numbered in sorted order of the query values, scores and grades as float64, and
ways to reach item values. Everything below works on NumPy arrays, with no Python loop over
rows or queries.

Ranking (:func:`rank`) is one ``np.sort`` of a packed 64-bit key per row,
``query code | score bucket (descending) | row position``: the row position in the low bits
makes every key unique, so the sorted keys *are* the permutation. Score buckets are an
order-preserving quantisation of the scores, so rows that share a bucket within a query are
adjacent after the sort; only those few runs are then re-ordered exactly, by the exact score
and the tie policy (item id descending for ``ties="trec"``). When the bits do not suffice
(a huge number of rows times queries), a lexsort does the same job.

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
from rankframe.exceptions import EmptyQueryError, InvalidDataError

__all__ = [
    "FrameData",
    "Lists",
    "Ranking",
    "aggregate",
    "lists",
    "rank",
    "unique_items_checked",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

_MIN_SCORE_BITS = 12
_THREAD_ROWS = 200_000  # from this many rows the duplicate check runs in a second thread


@dataclass
class FrameData:
    """A frame's columns as the engine needs them (built by an adapter).

    Attributes
    ----------
    query_codes
        Per row, the query's code in ``0 .. n_queries - 1``; codes follow the sorted order of
        the query values, so outputs come out sorted by query.
    n_queries
        Number of distinct queries.
    score
        Per row, the score as float64; NaN means judged but not retrieved.
    relevant
        Per row, the grade as float64.
    item_ranks
        ``item_ranks(rows)`` gives, for those row positions, the dense ranks of their items in
        ascending order of the ids (strings compare as strings, numbers as numbers).
    item_hash
        ``item_hash()`` gives per row a 64-bit hash of the item, equal for equal items; used
        to find duplicate items within a query.
    query_labels
        ``query_labels(codes)`` gives the query values of those codes, for messages.
    item_label
        ``item_label(row)`` gives the item value at a row position, for messages.
    segments
        For each ``by`` column: its name and per row an integer code of its value.
    systems
        With several score columns (systems judged on the same grades): each column's name
        and its scores; ``score`` is the first. Empty for one score column.
    """

    query_codes: IntArray
    n_queries: int
    score: FloatArray
    relevant: FloatArray
    item_ranks: Callable[[IntArray], IntArray]
    item_hash: Callable[[], npt.NDArray[np.uint64]]
    query_labels: Callable[[IntArray], list[object]]
    item_label: Callable[[int], object]
    segments: list[tuple[str, IntArray]] = field(default_factory=list)
    systems: list[tuple[str, FloatArray]] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return len(self.query_codes)

    def first_rows(self) -> IntArray:
        """Per query, the position of its first row."""
        first = np.empty(self.n_queries, dtype=np.int64)
        positions = np.arange(self.n_rows - 1, -1, -1, dtype=np.int64)
        first[self.query_codes[::-1]] = positions
        return first


@dataclass
class Ranking:
    """The result of :func:`rank`.

    Attributes
    ----------
    order
        Row positions of the retrieved rows (score not NaN), sorted by query code, then by
        rank.
    query
        The query code of each entry of ``order``.
    starts
        Per query, the position in ``order`` of its first entry (length ``n_queries + 1``:
        the last entry is the number of retrieved rows).
    """

    order: IntArray
    query: IntArray
    starts: IntArray

    @property
    def n_retrieved(self) -> IntArray:
        """Per query, the number of retrieved rows."""
        return np.diff(self.starts)

    def rank_at(self, positions: IntArray) -> IntArray:
        """The 1-based rank of the entries of ``order`` at ``positions``."""
        return positions - self.starts[self.query[positions]] + 1

    def rank_per_row(self, n_rows: int) -> IntArray:
        """Per row of the frame, its rank, or 0 where the row was not retrieved."""
        out = np.zeros(n_rows, dtype=np.int64)
        out[self.order] = self.rank_at(np.arange(len(self.order), dtype=np.int64))
        return out


def plain(value: object) -> object:
    """A NumPy scalar as the Python value it holds (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _bits(n: int) -> int:
    return max(int(n - 1).bit_length(), 1)


def _descending_buckets(score: FloatArray, bits: int) -> npt.NDArray[np.uint64]:
    """An order-reversing map of scores to ``0 .. 2**bits - 1``: a higher score never gets a
    higher bucket; +inf → 0, -inf → the last bucket."""
    top = (1 << bits) - 1
    lo, hi = float(score.min()), float(score.max())
    span = hi - lo
    scale = (top - 2) / span if span > 0 else 0.0
    if np.isfinite(lo) and np.isfinite(hi) and np.isfinite(span) and np.isfinite(scale):
        # the common case, in three passes: (hi - score) * scale, truncated, lies in
        # [0, top - 2] (rounding cannot reach top - 1 at these magnitudes)
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
    """
    n = len(keys[0])
    index_bits = _bits(n)
    widths = [_bits(int(key.max(initial=0)) + 1) for key in keys]
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
    grade = data.relevant[rows]
    return _sort_order([*keys, _dense(-grade if ties == "optimistic" else grade), item_desc])


def rank(data: FrameData, ties: str) -> Ranking:
    """Rank the retrieved rows of every query by score, descending, ties by ``ties``."""
    score = data.score
    retrieved = ~np.isnan(score)
    rows = np.flatnonzero(retrieved).astype(np.int64) if not retrieved.all() else None
    ret_score = score if rows is None else score[rows]
    ret_query = data.query_codes if rows is None else data.query_codes[rows]
    n = len(ret_score)

    index_bits, query_bits = _bits(n), _bits(data.n_queries)
    score_bits = min(64 - index_bits - query_bits, 52)
    if n == 0:
        local = np.zeros(0, dtype=np.int64)
        sorted_query = np.zeros(0, dtype=np.int64)
        same = np.zeros(0, dtype=bool)
    elif score_bits >= _MIN_SCORE_BITS:
        # one sort of `query | descending score bucket | row`; the row bits make keys unique,
        # so the sorted keys carry the permutation
        key = _descending_buckets(ret_score, score_bits)
        key <<= np.uint64(index_bits)
        key |= np.arange(n, dtype=np.uint64)
        key |= ret_query.view(np.uint64) << np.uint64(score_bits + index_bits)
        key.sort()
        local = (key & np.uint64((1 << index_bits) - 1)).view(np.int64)
        key >>= np.uint64(index_bits)  # query | bucket
        same = key[1:] == key[:-1]
        key >>= np.uint64(score_bits)
        sorted_query = key.view(np.int64)
    else:
        local = np.lexsort((-ret_score, ret_query)).astype(np.int64)
        sorted_query = ret_query[local]
        same = sorted_query[1:] == sorted_query[:-1]  # every query is one run

    # re-order runs of equal (query, bucket) exactly: by score, then by the tie policy
    if same.any():
        positions, run_id = _runs(same)
        members = local[positions]
        member_rows = members if rows is None else rows[members]
        within = _tie_order(data, member_rows, run_id, ret_score[members], ties)
        if within is not None:
            local[positions] = members[within]

    order = local if rows is None else rows[local]
    starts = np.searchsorted(sorted_query, np.arange(data.n_queries + 1, dtype=np.int64))
    return Ranking(order=order, query=sorted_query, starts=starts.astype(np.int64))


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


def _within_query_position(query: IntArray, n_queries: int) -> IntArray:
    """For entries grouped by query (contiguous), their 1-based position within the group."""
    counts = np.bincount(query, minlength=n_queries)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    return np.arange(1, len(query) + 1, dtype=np.int64) - starts[query]


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

    Only those rows (a few percent, usually) are looked up in rank order: a one-byte flag per
    row is gathered through the ranking's permutation, never the grades themselves.
    """
    grade = data.relevant
    level = options.min_relevance

    def is_relevant(g: FloatArray) -> BoolArray:
        return g > 0 if level is None else g >= level

    positive = grade > 0
    relevant = positive if level is None else is_relevant(grade)
    wanted = positive if level is None else positive | relevant
    pos = np.flatnonzero(wanted.view(np.uint8)[ranking.order]).astype(np.int64)
    pos_grade = grade[ranking.order[pos]]
    rel_pos = pos[is_relevant(pos_grade)]
    rel_query = ranking.query[rel_pos]
    gain_keep = pos_grade > 0
    gain_pos = pos[gain_keep]

    positive_rows = np.flatnonzero(positive)
    ideal = positive_rows[
        _ideal_order(data.query_codes[positive_rows], grade[positive_rows])
    ]
    ideal_query = data.query_codes[ideal]

    return Lists(
        n_queries=data.n_queries,
        n_retrieved=ranking.n_retrieved,
        n_relevant=np.bincount(
            data.query_codes[np.flatnonzero(relevant)], minlength=data.n_queries
        ).astype(np.int64),
        rel_query=rel_query,
        rel_rank=ranking.rank_at(rel_pos),
        rel_hits=_within_query_position(rel_query, data.n_queries),
        gain_query=ranking.query[gain_pos],
        gain_rank=ranking.rank_at(gain_pos),
        gain_grade=pos_grade[gain_keep],
        ideal_query=ideal_query,
        ideal_rank=_within_query_position(ideal_query, data.n_queries),
        ideal_grade=grade[ideal],
    )


def included_queries(
    data: FrameData, table: Lists, options: Options
) -> BoolArray:
    """Which queries enter the means, by the ``empty`` option; raises for ``"error"``."""
    empty = table.n_relevant == 0
    if options.empty == "error" and empty.any():
        codes = np.flatnonzero(empty)
        shown = ", ".join(repr(plain(q)) for q in data.query_labels(codes[:5]))
        more = f" and {len(codes) - 5} more" if len(codes) > 5 else ""
        queries = "query has" if len(codes) == 1 else "queries have"
        msg = (
            f"{len(codes)} {queries} no relevant item: {shown}{more}. Their metrics are "
            "undefined; pass empty='zero' (count 0, as trec_eval), 'skip' or 'nan' instead, "
            "or lower min_relevance."
        )
        raise EmptyQueryError(msg)
    if options.empty in ("skip", "nan"):
        return np.asarray(~empty, dtype=bool)
    return np.ones(table.n_queries, dtype=bool)


def check_unique_items(data: FrameData, query: str, item: str) -> None:
    """Raise if an item appears more than once in a query.

    One sort of packed (query code, item hash) keys finds every candidate; equal items
    always share a hash, so only the candidates' values are compared exactly.
    """
    query_bits = _bits(data.n_queries)
    key = data.item_hash() >> np.uint64(query_bits)
    key |= data.query_codes.view(np.uint64) << np.uint64(64 - query_bits)
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return
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
    query_value = plain(data.query_labels(data.query_codes[row : row + 1])[0])
    msg = (
        f"Item {plain(data.item_label(row))!r} appears {count} times in query {query_value!r} "
        f"(columns {item!r}, {query!r}); each item may appear once per query. "
        f"Drop the duplicates, e.g. df.drop_duplicates([{query!r}, {item!r}])."
    )
    raise InvalidDataError(msg)


@contextmanager
def unique_items_checked(data: FrameData, query: str, item: str) -> Iterator[None]:
    """Check that items are unique per query while the body of the ``with`` runs.

    On large frames the check (hashing and one sort) runs in a second thread, beside the
    ranking: NumPy's sorts and ufuncs and polars release the GIL, so two cores share the work.
    On leaving the block the check is awaited, and a duplicate raises
    :class:`InvalidDataError` in place of any result or other error of the body.
    """
    if data.n_rows < _THREAD_ROWS:
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
    combined = np.zeros(data.n_queries, dtype=np.int64)
    if not data.segments or first_rows is None:  # one segment, even for a frame without rows
        return combined, np.zeros(1, dtype=np.int64), 1
    for name, codes in data.segments:
        per_query = codes[first_rows]
        varies = codes != per_query[data.query_codes]
        if varies.any():
            row = int(np.flatnonzero(varies)[0])
            query_value = plain(data.query_labels(data.query_codes[row : row + 1])[0])
            msg = (
                f"Column {name!r} varies within query {query_value!r}; a `by` column must be "
                "constant within each query (a user, a theme, a cohort). Group by a column "
                "that is constant per query, or make the query column finer."
            )
            raise InvalidDataError(msg)
        _, dense = np.unique(per_query, return_inverse=True)
        combined = combined * (int(dense.max(initial=0)) + 1) + dense
    uniques, first_query, segment = np.unique(combined, return_index=True, return_inverse=True)
    return segment.astype(np.int64), first_rows[first_query], len(uniques)


def aggregate(
    values: Sequence[FloatArray],
    include: BoolArray,
    segment: IntArray,
    n_segments: int,
) -> tuple[list[FloatArray], IntArray]:
    """Means of per-query values per segment over the included queries, and their counts."""
    seg = segment[include]
    counts = np.bincount(seg, minlength=n_segments).astype(np.int64)
    means = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for v in values:
            sums = np.bincount(seg, weights=v[include], minlength=n_segments)
            means.append(np.where(counts > 0, sums / np.maximum(counts, 1), np.nan))
    return means, counts
