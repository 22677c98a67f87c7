"""Per-query lists: the relevant retrieved rows in rank order and the per-query counts that
metrics read (:func:`lists`), and the segment (``by``) of each query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe.engine import segments
from rankframe.engine.frame import (
    BLOCK,
    BoolArray,
    FloatArray,
    FrameData,
    IntArray,
    blocks,
    dense,
    sort_order,
)
from rankframe.engine.ranking import Ranking
from rankframe.exceptions import InvalidDataError, plain
from rankframe.settings.options import Options


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
        The retrieved rows with a positive grade (a nonzero one with
        ``negative_gains="keep"``): query code, rank, grade.
    ideal_query, ideal_rank, ideal_grade
        Every row with a positive (nonzero) grade, retrieved or not, in the ideal order
        (grade descending within each query), with its ideal rank.
    rel_tie_start, rel_tie_size, gain_tie_start, gain_tie_size
        With ``ties="average"`` only (else None): for each relevant (``rel_``) and each
        positively graded (``gain_``) retrieved row, the group of rows tied with it (equal
        score, same query): the number of rows ranked above the group and its size. The
        group's rows are ranked ``start + 1 .. start + size`` in some order; the metrics
        take the expectation over every order (:mod:`rankframe.engine.ties`).
    source
        The frame, its ranking and the options these lists come from: what the measures
        that also read unjudged or non-relevant rows (bpref, infAP, unj, ...) compute their
        extra facts from, on first use (so the other metrics pay nothing for them).

    Unjudged rows, as trec_eval reads them: a row of ``FrameData.judged`` False (a document
    outside the qrels, trec_eval's "not in the pool") or a judged row of a negative grade
    (trec_eval's "in the pool but unjudged", grade -1 in qrels); a relevant row never is
    (with a ``min_relevance`` of 0 or below, which trec_eval does not take).
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
    rel_tie_start: IntArray | None = None
    rel_tie_size: IntArray | None = None
    gain_tie_start: IntArray | None = None
    gain_tie_size: IntArray | None = None
    source: tuple[FrameData, Ranking, Options] | None = field(default=None, repr=False)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def first_relevant_rank(self) -> FloatArray:
        """Per query, the rank of the first relevant retrieved row (inf if none)."""
        first = np.full(self.n_queries, np.inf)
        head = segments.heads(self.rel_query)  # each query's first entry
        first[self.rel_query[head]] = self.rel_rank[head]
        return first

    def hits_at(self, k: int | None) -> FloatArray:
        """Per query, the number of relevant rows ranked at or above k (with
        ``ties="average"``, its expected value over the orders of tied rows). Computed once
        per k (``memo``; read-only: precision, recall, F1 ... at one k share it)."""
        key = ("hits_at", k)
        if key not in self.memo:
            if self.rel_tie_start is not None:
                hits = self.expected_hits(k)
            else:
                query = self.rel_query if k is None else self.rel_query[self.rel_rank <= k]
                hits = np.bincount(query, minlength=self.n_queries).astype(np.float64)
            hits.flags.writeable = False
            self.memo[key] = hits
        value: FloatArray = self.memo[key]
        return value

    def expected_hits(self, k: int | IntArray | None) -> FloatArray:
        """With tie groups (``ties="average"``): per query, the expected number of relevant
        rows at or above k (``k`` one cut-off, or one per query; ``None``: every retrieved
        relevant row). Over the orders of a group of ``n`` rows after ``s``, each of its
        relevant rows lies at or above k with chance ``clip(k - s, 0, n) / n``
        (:mod:`rankframe.engine.ties`)."""
        start, size = self.rel_tie_start, self.rel_tie_size
        if start is None or size is None:
            msg = "the lists carry no tie groups (ranked without ties='average')"
            raise ValueError(msg)
        if k is None:
            weights = np.ones(len(start))
        else:
            cut = k if isinstance(k, int) else k[self.rel_query]
            weights = np.clip(cut - start, 0, size) / size
        return segments.sums(self.rel_query, weights, self.n_queries)

    def unshared(self) -> Lists:
        """Under ``ties="truncated_average"`` (shared ranks): these lists as
        ``ties="average"`` reads them, each relevant entry with its tie group (the rows of
        one query sharing its rank: ``rel_tie_start`` rows above it, ``rel_tie_size`` rows)
        and ``rel_hits`` its group's relevant rows above plus one, so that the expected
        value over every order of the tied rows can be taken (:mod:`rankframe.engine.ties`).
        A shared rank ``r`` of a group of ``n`` rows after ``s`` is ``s + (n + 1) // 2``:
        the rank alone does not give ``s`` and ``n``, so they are read from the ranking."""
        _, ranking, _ = self._source()
        shared = ranking.shared
        if shared is None:  # pragma: no cover (callers check the ties option)
            msg = "these lists have no shared ranks (ranked without ties='truncated_average')"
            raise ValueError(msg)
        n = len(shared)
        query = ranking.query_at(np.arange(n, dtype=np.int64))
        run_first = np.flatnonzero(segments.heads(query, shared))
        run_size = np.diff(np.append(run_first, n))
        run_query = query[run_first]
        # one key per (query, shared rank), increasing: the query's first position in the
        # ranking plus the rank (a rank never exceeds the query's number of retrieved rows)
        starts = ranking.starts
        run_key = starts[run_query] + shared[run_first] - 1
        run = np.searchsorted(run_key, starts[self.rel_query] + self.rel_rank - 1)
        tie_start = run_first[run] - starts[self.rel_query]
        tie_size = run_size[run]
        # entries of one group run together; rel_hits counts every relevant row of the group
        heads = np.flatnonzero(segments.heads(run))
        relevant_in_group = np.diff(np.append(heads, len(run)))
        above = np.repeat(self.rel_hits[heads] - relevant_in_group, relevant_in_group)
        return replace(
            self,
            rel_hits=above + 1,
            rel_tie_start=tie_start.astype(np.int64),
            rel_tie_size=tie_size.astype(np.int64),
            gain_tie_start=None,
            gain_tie_size=None,
            memo={},
        )

    # -- facts of unjudged and non-relevant rows, computed on first use --------------------

    def _source(self) -> tuple[FrameData, Ranking, Options]:
        if self.source is None:  # pragma: no cover (lists() always sets it)
            msg = "These lists do not know their frame."
            raise RuntimeError(msg)
        return self.source

    @cached_property
    def _unjudged_kind(self) -> npt.NDArray[np.uint8] | None:
        """Per entry of the ranking (rank order): 0 judged, 1 unjudged (not judged), 2 judged
        with a negative grade (trec_eval: in the pool, unjudged); ``None`` when every entry
        is 0, which needs no pass through the ranking."""
        data, ranking, options = self._source()
        grade = data.relevant
        negative = grade.dtype.kind != "b" and len(grade) > 0 and bool(grade.min() < 0)
        if data.judged is None and not negative:
            return None
        kind = np.zeros(data.n_rows, dtype=np.uint8)
        if data.judged is not None:
            kind[~data.judged] = 1
        if negative:
            kind[grade < 0] = 2
        level = options.min_relevance
        if level is not None and level <= 0:  # a relevant row is judged, whatever its grade
            kind[grade >= level] = 0
        in_order = kind[ranking.order]
        return in_order if in_order.any() else None

    @cached_property
    def _unjudged_before(
        self,
    ) -> tuple[npt.NDArray[np.integer[Any]], npt.NDArray[np.integer[Any]] | None] | None:
        """Exclusive prefix counts over the ranking's entries (length n + 1): of unjudged
        entries (kinds 1 and 2), and of negative-grade ones (kind 2; ``None`` for none)."""
        kind = self._unjudged_kind
        if kind is None:
            return None
        small = len(kind) < 2**31 - 1

        def before(flags: BoolArray) -> npt.NDArray[np.integer[Any]]:
            out: npt.NDArray[np.integer[Any]] = np.zeros(
                len(kind) + 1, dtype=np.int32 if small else np.int64
            )
            np.cumsum(flags, out=out[1:])
            return out

        negative = kind == 2
        return before(kind != 0), before(negative) if negative.any() else None

    @cached_property
    def _unjudged_above(self) -> tuple[IntArray, IntArray]:
        return self.unjudged_above_each()

    def unjudged_above(self) -> tuple[IntArray, IntArray]:
        """:meth:`unjudged_above_each`, computed once (bpref, gm_bpref and infAP read it)."""
        return self._unjudged_above

    def unjudged_above_each(self) -> tuple[IntArray, IntArray]:
        """Per relevant retrieved row (``rel_query``, ``rel_rank``): the unjudged rows and,
        of them, the rows of a negative grade, ranked above it in its query."""
        before = self._unjudged_before
        if before is None:
            zeros = np.zeros(len(self.rel_query), dtype=np.int64)
            return zeros, zeros
        _, ranking, _ = self._source()
        start = ranking.starts[self.rel_query]
        position = start + self.rel_rank - 1
        unjudged, negative = before
        above = (unjudged[position] - unjudged[start]).astype(np.int64)
        if negative is None:
            return above, np.zeros(len(position), dtype=np.int64)
        return above, (negative[position] - negative[start]).astype(np.int64)

    def unjudged_at(self, k: int | None) -> FloatArray:
        """Per query, the unjudged rows (both kinds) ranked at or above k."""
        before = self._unjudged_before
        if before is None:
            return np.zeros(self.n_queries)
        _, ranking, _ = self._source()
        start, stop = ranking.starts[:-1], ranking.starts[1:]
        if k is not None:
            stop = np.minimum(stop, start + k)
        return (before[0][stop] - before[0][start]).astype(np.float64)

    def unjudged_ranks(self, judged: bool = False) -> tuple[IntArray, IntArray]:
        """The unjudged retrieved rows (both kinds; with ``judged``, the other retrieved
        rows): query code and rank, in rank order."""
        kind = self._unjudged_kind
        _, ranking, _ = self._source()
        if kind is None:
            if not judged:
                empty = np.zeros(0, dtype=np.int64)
                return empty, empty
            positions = np.arange(int(ranking.starts[-1]), dtype=np.int64)
        else:
            positions = np.flatnonzero(kind == 0 if judged else kind).astype(np.int64, copy=False)
        query = ranking.query_at(positions)
        return query, positions - ranking.starts[query] + 1

    def n_unjudged(self) -> int:
        """The number of unjudged retrieved rows, over every query."""
        before = self._unjudged_before
        return 0 if before is None else int(before[0][-1])

    @cached_property
    def n_judged_nonrelevant(self) -> IntArray:
        """Per query, its judged rows of grade ≥ 0 that are not relevant, retrieved or not
        (trec_eval's judged non-relevant documents)."""
        data, _, options = self._source()
        grade = data.relevant
        level = options.min_relevance
        keep = (grade >= 0) & ~(grade > 0 if level is None else grade >= level)
        if data.judged is not None:
            keep &= data.judged
        counts = np.bincount(data.query_codes[keep], minlength=data.n_queries)
        return counts.astype(np.int64, copy=False)


def _within_query_position(query: IntArray) -> IntArray:
    """For entries grouped by query (contiguous), their 1-based position within the group.

    Works on the entries alone (where each group starts), not on per-query arrays: there
    may be far more queries than entries.
    """
    n = len(query)
    position = np.empty(n, dtype=np.int64)
    # block by block into the result (no full-size temporaries): each entry's group start
    # is the running maximum of the starts seen, carried from block to block
    first = np.empty(min(n, BLOCK), dtype=bool)
    start = np.empty(min(n, BLOCK), dtype=np.int64)
    index = np.arange(min(n, BLOCK), dtype=np.int64)
    carried = 0
    for begin, end in blocks(n):
        m = end - begin
        if begin == 0:
            first[0] = True
            np.not_equal(query[1:m], query[: m - 1], out=first[1:m])
        else:
            np.not_equal(query[begin:end], query[begin - 1 : end - 1], out=first[:m])
        np.add(index[:m], begin, out=position[begin:end])
        np.copyto(start[:m], carried)
        np.copyto(start[:m], position[begin:end], where=first[:m])
        np.maximum.accumulate(start[:m], out=start[:m])
        carried = int(start[m - 1])
        position[begin:end] -= start[:m]
        position[begin:end] += 1
    return position


def _hits_through_rank(query: IntArray, rank: IntArray) -> IntArray:
    """For the relevant entries of :func:`lists` (by query, then rank), hits@rank: the
    number of relevant entries of the query ranked at or above each. Entries that share a
    rank (``ties="truncated_average"``) all count each other."""
    position = _within_query_position(query)
    n = len(query)
    if n == 0:
        return position
    last = np.ones(n, dtype=bool)  # the last entry of each (query, rank)
    last[:-1] = (query[1:] != query[:-1]) | (rank[1:] != rank[:-1])
    ends = np.flatnonzero(last)
    return position[ends[np.searchsorted(ends, np.arange(n, dtype=np.int64))]]


def _ideal(query: IntArray, grade: FloatArray) -> tuple[IntArray, FloatArray]:
    """The entries in the ideal ranking (by query, then by grade descending): their
    queries and grades. Entries of equal query and grade are interchangeable: which comes
    first does not matter.

    Entries that already run by query (the ranked ones) keep their places but in the
    queries where a grade rises: only those queries' entries are sorted, and the queries
    are the same arrays, uncopied.
    """
    n = len(query)
    if n > 1 and (query[1:] < query[:-1]).any():  # not by query: every entry is sorted
        order = _ideal_order(query, grade)
        return query[order], grade[order]
    rising = query[1:] == query[:-1]
    rising &= grade[1:] > grade[:-1]
    if not rising.any():
        return query, grade
    unsorted = np.zeros(int(query[-1]) + 1, dtype=bool)
    unsorted[query[1:][rising]] = True
    at = np.flatnonzero(unsorted[query])
    ideal_grade = grade.copy()
    ideal_grade[at] = grade[at][_ideal_order(query[at], grade[at])]
    return query, ideal_grade


def _ideal_order(query: IntArray, grade: FloatArray) -> IntArray:
    """The order that sorts entries by query, then by grade descending."""
    if len(query) == 0:
        return np.zeros(0, dtype=np.int64)
    top = float(grade.max())
    if top == float(grade.min()) and not (query[1:] < query[:-1]).any():
        # one grade (binary relevance) and entries already by query: their order is ideal
        return np.arange(len(query), dtype=np.int64)
    if top < 2**20 and bool((grade == np.floor(grade)).all()):  # whole grades: no ranking
        return sort_order([query, (top - grade).astype(np.int64)])
    return sort_order([query, dense(-grade)])


def _binary(grade: npt.NDArray[Any]) -> bool:
    """Whether every positive grade is 1: bool grades, or integers of at most 1. Gathering
    the grades of the positive rows through the ranking (a random read per row, out of the
    CPU cache on millions of rows) is then unnecessary."""
    if grade.dtype.kind == "b":
        return True
    return grade.dtype.kind in "iu" and (len(grade) == 0 or int(grade.max()) <= 1)


@dataclass(frozen=True)
class _Relevance:
    """Which grades are relevant (above ``min_relevance``) and which give gain (positive
    ones; nonzero ones with ``negative_gains="keep"``)."""

    level: float | None
    negative: bool

    def relevant(self, grade: npt.NDArray[Any]) -> BoolArray:
        return grade > 0 if self.level is None else grade >= self.level

    def gain(self, grade: npt.NDArray[Any]) -> BoolArray:
        return grade != 0 if self.negative else grade > 0

    @property
    def found_while_ranking(self) -> bool:
        """Whether every relevant row or row of gain has a positive grade: the ranking's
        positively graded rows, located while sorting, are then all of them."""
        return (self.level is None or self.level > 0) and not self.negative


def lists(data: FrameData, ranking: Ranking, options: Options) -> Lists:
    """Gather the relevant and positively graded rows of a ranking.

    Only those rows (a few percent, usually) are looked up in rank order. With the default
    ``min_relevance`` (or a positive one) they are the ranking's positively graded rows,
    which :func:`rank` located while sorting; a lower ``min_relevance`` also counts rows
    graded 0 or less, found by gathering a one-byte flag per row through the permutation.
    """
    # negative grades give (negative) gain with negative_gains="keep"
    rule = _Relevance(options.min_relevance, options.negative_gains == "keep")
    pos, pos_query, pos_grade = _entries(data, ranking, rule)
    if ranking.shared is None:
        pos_rank = pos - ranking.starts[pos_query] + 1
    else:
        pos_rank = ranking.shared[pos]
    tie_start = tie_size = None
    if ranking.averaged:
        tie_first, tie_size = ranking.tie_groups(pos)
        tie_start = tie_first - ranking.starts[pos_query]
    # usually every entry found is both relevant and of gain (grade > 0 for both): the
    # entries then serve as they are, shared by both lists (never written to), not copied
    rel_keep = _kept(rule.relevant(pos_grade))
    gain_keep = _kept(rule.gain(pos_grade))
    rel_query = _select(pos_query, rel_keep)
    gain_query = _select(pos_query, gain_keep)
    gain_grade = _select(pos_grade, gain_keep)
    n_relevant, ideal_query, ideal_grade = _every_positive(
        data, ranking, rule, (rel_query, gain_query, gain_grade)
    )
    rel_rank = _select(pos_rank, rel_keep)
    rel_hits = (
        _within_query_position(rel_query)
        if ranking.shared is None
        else _hits_through_rank(rel_query, rel_rank)
    )

    def tie(values: IntArray | None, keep: BoolArray | None) -> IntArray | None:
        return None if values is None else _select(values, keep)

    return Lists(
        n_queries=data.n_queries,
        n_retrieved=ranking.n_retrieved,
        n_relevant=n_relevant,
        rel_query=rel_query,
        rel_rank=rel_rank,
        rel_hits=rel_hits,
        gain_query=gain_query,
        gain_rank=_select(pos_rank, gain_keep),
        gain_grade=gain_grade,
        ideal_query=ideal_query,
        # the same entries by query: the same positions as the relevant ones' hits
        ideal_rank=(
            rel_hits
            if ideal_query is rel_query and ranking.shared is None
            else _within_query_position(ideal_query)
        ),
        ideal_grade=ideal_grade,
        rel_tie_start=tie(tie_start, rel_keep),
        rel_tie_size=tie(tie_size, rel_keep),
        gain_tie_start=tie(tie_start, gain_keep),
        gain_tie_size=tie(tie_size, gain_keep),
        source=(data, ranking, options),
    )


def _entries(
    data: FrameData, ranking: Ranking, rule: _Relevance
) -> tuple[IntArray, IntArray, FloatArray]:
    """The ranking's entries that are relevant or give gain, in rank order: their positions
    in the ranking, their queries and their grades (as floats)."""
    grade = data.relevant
    if rule.found_while_ranking:  # every relevant row has gain
        pos, pos_query = ranking.positive, ranking.positive_query
        if _binary(grade):  # every positive grade is 1: nothing to look up, row by row
            pos_grade = np.ones(len(pos), dtype=np.float64)
        else:
            pos_grade = grade[ranking.positive_rows()].astype(np.float64, copy=False)
        return pos, pos_query, pos_grade
    wanted = rule.gain(grade) | rule.relevant(grade)
    pos = np.flatnonzero(wanted.view(np.uint8)[ranking.order]).astype(np.int64, copy=False)
    return pos, ranking.query_at(pos), grade[ranking.order[pos]].astype(np.float64, copy=False)


def _every_positive(
    data: FrameData,
    ranking: Ranking,
    rule: _Relevance,
    retrieved: tuple[IntArray, IntArray, FloatArray],
) -> tuple[IntArray, IntArray, FloatArray]:
    """Per query R (its relevant rows, retrieved or not), and every row of gain, retrieved
    or not, in the ideal order: queries and grades. ``retrieved``: the relevant entries'
    queries, the entries of gain's queries and grades, which are all of them when the
    ranking retrieved every row."""
    rel_query, gain_query, gain_grade = retrieved
    if int(ranking.starts[-1]) == data.n_rows:
        # every row retrieved: the rows above are every relevant and every positive row
        n_relevant = np.bincount(rel_query, minlength=data.n_queries)
        positive_query, positive_grade = gain_query, gain_grade
    else:
        grade = data.relevant
        n_relevant = np.bincount(
            data.query_codes[np.flatnonzero(rule.relevant(grade))], minlength=data.n_queries
        )
        positive_rows = np.flatnonzero(rule.gain(grade))
        positive_query = data.query_codes[positive_rows].astype(np.int64)
        positive_grade = grade[positive_rows].astype(np.float64, copy=False)
    ideal_query, ideal_grade = _ideal(positive_query, positive_grade)
    return n_relevant.astype(np.int64, copy=False), ideal_query, ideal_grade


def _kept(keep: BoolArray) -> BoolArray | None:
    """``keep``, or None when it keeps every entry."""
    return None if keep.all() else keep


def _select(values: npt.NDArray[Any], keep: BoolArray | None) -> npt.NDArray[Any]:
    """The entries of ``values`` that ``keep`` keeps (all of them, uncopied, for None)."""
    return values if keep is None else values[keep]


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
            raise InvalidDataError(msg, column=name, problem="varying", query=query_value)
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
