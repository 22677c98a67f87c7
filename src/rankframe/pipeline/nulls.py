"""Null scores, counted: a null (or NaN) score is "judged but not retrieved" (trec_eval's
convention) and changes no rule of the metrics, but the reader of the numbers is told.

The per-query step counts, per query and system, the rows without a score (from the
ranking, which finds them anyway; :class:`NullScores`), and a part of a partitioned frame
hands those counts on in its per-query table (:data:`NULLS`, :data:`ROWS`). Once the counts
of the whole frame are known, :func:`check` warns (:class:`~rankframe.exceptions.RankEvalWarning`)
for a system with some null scores, with their share, and at error level
(:class:`~rankframe.exceptions.NothingRetrievedWarning`) for a system that retrieved nothing
(every score null): once per call, on the caller's side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rankframe.exceptions import NothingRetrievedWarning, RankEvalWarning, warn

__all__ = ["NULLS", "ROWS", "SILENCE", "NullScores", "check", "message", "nothing_retrieved",
           "share"]

IntArray = npt.NDArray[np.int64]

# per-query tables of parts: the query's null scores under the row's system, and its rows
NULLS = "__rankframe_nulls__"
ROWS = "__rankframe_rows__"


@dataclass(frozen=True)
class NullScores:
    """Per query, how many of its rows have no score under each system, and its rows.

    Attributes
    ----------
    per_query
        Shape (n_queries, n_systems): the null scores of each query and system.
    rows
        Shape (n_queries,): each query's rows.
    """

    per_query: IntArray
    rows: IntArray

    @property
    def counts(self) -> IntArray:
        """Per system, its null scores over every query."""
        total: IntArray = self.per_query.sum(axis=0, dtype=np.int64)
        return total

    @property
    def n_rows(self) -> int:
        return int(self.rows.sum())

    def take(self, positions: IntArray) -> NullScores:
        """The counts of the queries at ``positions``."""
        return NullScores(self.per_query[positions], self.rows[positions])

    def folded(self, of: IntArray, n: int) -> NullScores:
        """The counts of groups of queries (``of``: each one's group, of ``n``): the sums."""
        per_query = np.zeros((n, self.per_query.shape[1]), dtype=np.int64)
        np.add.at(per_query, of, self.per_query)
        return NullScores(per_query, np.bincount(of, weights=self.rows, minlength=n)
                          .astype(np.int64))


def share(count: int, rows: int) -> str:
    """``count`` of ``rows`` as a percentage that is never 0% nor 100% when it is not."""
    percent = 100 * count / rows
    if count and percent < 0.05:
        return "less than 0.1%"
    if count < rows and percent >= 99.95:
        return "more than 99.9%"
    return f"{percent:.1f}%"


#: How the library's warning says to silence it (the command line says nothing of it).
SILENCE = ("silence this with warnings.filterwarnings('ignore', 'score column', "
           "rankframe.RankEvalWarning)")


def message(column: str, count: int, rows: int, silence: str | None = SILENCE) -> str:
    """The words of a score column's null scores (``silence``: how to silence them)."""
    meant = ": " + silence if silence else ""
    return (
        f"score column {column!r} has {count:,} null score{'s' if count != 1 else ''} "
        f"({share(count, rows)} of {rows:,} rows); they count as not retrieved "
        "(trec_eval's convention), which lowers recall, NDCG and AP if the system did score "
        "those items. Items outside its ranked list (a top-k list joined with the "
        f"judgments) are meant so{meant}."
    )


def nothing_retrieved(column: str, rows: int) -> str:
    """The words of a score column whose every score is null."""
    return (
        f"error: nothing retrieved: score column {column!r} has no score at all (all "
        f"{rows:,} rows are null), so every metric is 0 for it. Likely a join that matched no "
        "row (keys of another dtype or spelling) or scores that failed to compute; check the "
        "column, or leave the system out."
    )


def check(systems: Sequence[str], counted: NullScores | None) -> None:
    """Warn once per system with null scores (:class:`~rankframe.exceptions.RankEvalWarning`
    with their share; :class:`~rankframe.exceptions.NothingRetrievedWarning` when every score
    is null)."""
    if counted is None:
        return
    rows = counted.n_rows
    for system, n in zip(systems, counted.counts.tolist(), strict=True):
        if not n:
            continue
        if n == rows:
            warn(NothingRetrievedWarning(nothing_retrieved(system, rows), column=system,
                                         count=n, rows=rows, problem="nothing_retrieved"))
        else:
            warn(RankEvalWarning(message(system, n, rows), column=system, count=n, rows=rows,
                                 problem="null_scores"))
