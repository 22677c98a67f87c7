"""Null scores, counted: a null (or NaN) score is "judged but not retrieved" (trec_eval's
convention) and changes no rule of the metrics, but the reader of the numbers is told.

The per-query step counts, per query and system, the rows without a score (from the
ranking, which finds them anyway; :class:`NullScores`), and a part of a partitioned frame
hands those counts on in its per-query table (:data:`NULLS`, :data:`ROWS`). Once the counts
of the whole frame are known, :func:`check` raises
:class:`~rankframe.exceptions.InvalidDataError` (``problem="nothing_retrieved"``) when a
system retrieved nothing (every score of its column null: the contract's error, likely a join
that matched no row), naming every such column at once, and otherwise warns
(:class:`~rankframe.exceptions.RankEvalWarning`) for a system with some null scores, with
their share: once per call, on the caller's side (on a LazyFrame or a Dask frame, where the
result is collected). A query whose every score is null is no error: it retrieved nothing,
and every metric is 0 for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rankframe.exceptions import InvalidDataError, Keyword, RankEvalWarning, warn

__all__ = [
    "NULLS",
    "ROWS",
    "SILENCE",
    "NullScores",
    "check",
    "message",
    "nothing_retrieved",
    "share",
]

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
        return NullScores(
            per_query, np.bincount(of, weights=self.rows, minlength=n).astype(np.int64)
        )


def share(count: int, rows: int) -> str:
    """``count`` of ``rows`` as a percentage that is never 0% nor 100% when it is not."""
    percent = 100 * count / rows
    if count and percent < 0.05:
        return "less than 0.1%"
    if count < rows and percent >= 99.95:
        return "more than 99.9%"
    return f"{percent:.1f}%"


#: How the library's warning says to silence it (the command line says nothing of it).
SILENCE = (
    "silence this with warnings.filterwarnings('ignore', 'score column', rankframe.RankEvalWarning)"
)


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


def _listed(names: Sequence[str]) -> str:
    """``'a'``, ``'a' and 'b'``, ``'a', 'b' and 'c'``."""
    quoted = [repr(name) for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def nothing_retrieved(
    columns: Sequence[str], rows: int, systems: Sequence[str]
) -> InvalidDataError:
    """The error for the score ``columns`` (of ``systems``) whose every score is null, in a
    frame of ``rows`` rows: each named, with the likely cause and the fix (leave them out:
    the other systems, bound alone)."""
    one = len(columns) == 1
    others = [system for system in systems if system not in columns]
    fix: tuple[str | Keyword, ...] = (f"check the column{'' if one else 's'}.",)
    if others:
        kept = others[0] if len(others) == 1 else others
        fix = (
            f"check the column{'' if one else 's'}, or leave the system{'' if one else 's'} "
            "out, e.g. ",
            Keyword("score", kept, call="df.rank_eval"),
            ".",
        )
    each = "" if one else " of each"
    msg = (
        f"Score column{'' if one else 's'} {_listed(columns)} "
        f"{'has' if one else 'have'} no score at all (all {rows:,} rows{each} are null): "
        f"{'the system' if one else 'these systems'} retrieved nothing, and every metric "
        f"would be 0 for {'it' if one else 'them'}. Likely a join that matched no row (keys "
        "of another dtype or spelling) or scores that failed to compute; ",
        *fix,
    )
    return InvalidDataError(msg, column=columns[0], problem="nothing_retrieved", count=rows)


def check(systems: Sequence[str], counted: NullScores | None) -> None:
    """Raise :class:`~rankframe.exceptions.InvalidDataError` (``problem="nothing_retrieved"``)
    when some score columns have no score at all (naming each), before any warning; else warn
    once per system with null scores (:class:`~rankframe.exceptions.RankEvalWarning`, with
    their share)."""
    if counted is None:
        return
    rows = counted.n_rows
    counts = list(zip(systems, counted.counts.tolist(), strict=True))
    empty = [system for system, n in counts if rows and n == rows]
    if empty:
        raise nothing_retrieved(empty, rows, systems)
    for system, n in counts:
        if n:
            warn(
                RankEvalWarning(
                    message(system, n, rows),
                    column=system,
                    count=n,
                    rows=rows,
                    problem="null_scores",
                )
            )
