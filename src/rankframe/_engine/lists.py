"""Per-query lists: the relevant retrieved rows in rank order and the per-query counts that
metrics read (:func:`lists`), and the segment (``by``) of each query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe._engine.frame import (
    BoolArray,
    FloatArray,
    FrameData,
    IntArray,
    _dense,
    _sort_order,
)
from rankframe._engine.ranking import Ranking
from rankframe._options import Options
from rankframe.exceptions import InvalidDataError, plain


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
        head = np.ones(len(self.rel_query), dtype=bool)  # each query's first entry
        np.not_equal(self.rel_query[1:], self.rel_query[:-1], out=head[1:])
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


def _ideal_order(query: IntArray, grade: FloatArray) -> IntArray:
    """The order that sorts entries by query, then by grade descending."""
    if len(query) == 0:
        return np.zeros(0, dtype=np.int64)
    top = float(grade.max())
    if top == float(grade.min()) and not (query[1:] < query[:-1]).any():
        # one grade (binary relevance) and entries already by query: their order is ideal
        return np.arange(len(query), dtype=np.int64)
    if top < 2**20 and bool((grade == np.floor(grade)).all()):  # whole grades: no ranking
        return _sort_order([query, (top - grade).astype(np.int64)])
    return _sort_order([query, _dense(-grade)])


def _binary(grade: npt.NDArray[Any]) -> bool:
    """Whether every positive grade is 1: bool grades, or integers of at most 1. Gathering
    the grades of the positive rows through the ranking (a random read per row, out of the
    CPU cache on millions of rows) is then unnecessary."""
    if grade.dtype.kind == "b":
        return True
    return grade.dtype.kind in "iu" and (len(grade) == 0 or int(grade.max()) <= 1)


def lists(data: FrameData, ranking: Ranking, options: Options) -> Lists:
    """Gather the relevant and positively graded rows of a ranking.

    Only those rows (a few percent, usually) are looked up in rank order. With the default
    ``min_relevance`` (or a positive one) they are the ranking's positively graded rows,
    which :func:`rank` located while sorting; a lower ``min_relevance`` also counts rows
    graded 0 or less, found by gathering a one-byte flag per row through the permutation.
    """
    grade = data.relevant
    level = options.min_relevance
    negative = options.negative_gains == "keep"  # negative grades give (negative) gain

    def is_relevant(g: npt.NDArray[Any]) -> BoolArray:
        return g > 0 if level is None else g >= level

    def gives_gain(g: npt.NDArray[Any]) -> BoolArray:
        return g != 0 if negative else g > 0

    if (level is None or level > 0) and not negative:  # every relevant row has gain
        pos, pos_query = ranking.positive, ranking.positive_query
        if _binary(grade):  # every positive grade is 1: nothing to look up, row by row
            pos_grade = np.ones(len(pos), dtype=np.float64)
        else:
            pos_grade = grade[ranking.positive_rows()].astype(np.float64, copy=False)
    else:
        wanted = gives_gain(grade) | is_relevant(grade)
        pos = np.flatnonzero(wanted.view(np.uint8)[ranking.order]).astype(np.int64)
        pos_query = ranking.query_at(pos)
        pos_grade = grade[ranking.order[pos]].astype(np.float64, copy=False)
    if ranking.shared is None:
        pos_rank = pos - ranking.starts[pos_query] + 1
    else:
        pos_rank = ranking.shared[pos]
    rel_keep = is_relevant(pos_grade)
    rel_query = pos_query[rel_keep]
    gain_keep = gives_gain(pos_grade)
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
        positive_rows = np.flatnonzero(gives_gain(grade))
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
        rel_hits=(
            _within_query_position(rel_query)
            if ranking.shared is None
            else _hits_through_rank(rel_query, pos_rank[rel_keep])
        ),
        gain_query=gain_query,
        gain_rank=pos_rank[gain_keep],
        gain_grade=gain_grade,
        ideal_query=ideal_query,
        ideal_rank=_within_query_position(ideal_query),
        ideal_grade=positive_grade[ideal],
    )


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
