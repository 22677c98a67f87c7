"""A slow, obviously correct reference of SPEC §2 (ranking) and §3 (metrics and options).

Written from the SPEC's formulas only, one query at a time with plain Python loops and
``sorted()``; it shares no code with the library. Tests compare the library against it.

Input is a list of rows ``(query, item, score, relevant)``. A score of ``None`` or NaN means
"judged but not retrieved": the row gets no rank but counts in R and in NDCG's ideal ranking.

Readings of the SPEC made here (trec_eval-like where the SPEC is silent):

* ``ties="optimistic"`` / ``"pessimistic"`` order equal scores by the raw grade (higher /
  lower first) and then, among equal scores *and* equal grades, as ``"trec"`` does (item id
  descending), so the result never depends on the row order (SPEC §2).
* ``min_relevance`` decides which items are relevant (R, hits, AP, ...) but not NDCG's gains,
  which are the grades themselves, negative grades giving 0 (SPEC §3, as trec_eval).
* ``empty="zero"`` keeps a query without relevant items in the mean with the value the
  formulas give it. That is 0 for every metric except NDCG when ``min_relevance`` is above
  some positive grades of the query: trec_eval (``-l``) still computes NDCG from the grades
  there, so a nonzero NDCG is kept.
* ``denominator="min_k"`` with ``k=None`` divides by R (k=None is a list without cut-off).
* A mean over no query (every query skipped) is NaN.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import NamedTuple

__all__ = [
    "METRIC_NAMES",
    "Row",
    "evaluate",
    "is_relevant",
    "metric_value",
    "per_query",
    "rank_query",
    "ranks",
]

METRIC_NAMES = ("mrr", "ndcg", "map", "acc", "precision", "recall", "r_precision")


class Row(NamedTuple):
    query: Hashable
    item: Hashable
    score: float | None
    relevant: float


class EmptyQueries(ValueError):  # noqa: N818  (mirrors rankframe.EmptyQueryError)
    """Raised for ``empty="error"``; ``queries`` lists the queries without relevant items."""

    def __init__(self, queries: list[Hashable]) -> None:
        super().__init__(f"queries without relevant items: {queries!r}")
        self.queries = queries


def _retrieved(row: Row) -> bool:
    return row.score is not None and not math.isnan(row.score)


def is_relevant(grade: float, min_relevance: float | None) -> bool:
    """SPEC §3: relevant when grade >= min_relevance; by default when grade > 0."""
    if min_relevance is None:
        return grade > 0
    return grade >= min_relevance


# -- §2 ranking ------------------------------------------------------------------------------


def rank_query(rows: Sequence[Row], ties: str = "trec") -> list[Row]:
    """The retrieved rows of ONE query, best first, equal scores ordered by ``ties``.

    Built from stable sorts, least significant key first:

    * ``trec``: item id descending, then score descending;
    * ``first``: rows as given (frame order), then score descending;
    * ``optimistic``: item descending, grade descending, score descending;
    * ``pessimistic``: item descending, grade ascending, score descending.

    Item ids compare with Python's own ``<``: strings as strings, numbers as numbers.
    """
    ranked = [row for row in rows if _retrieved(row)]
    if ties != "first":
        ranked = sorted(ranked, key=lambda row: row.item, reverse=True)
    if ties == "optimistic":
        ranked = sorted(ranked, key=lambda row: row.relevant, reverse=True)
    elif ties == "pessimistic":
        ranked = sorted(ranked, key=lambda row: row.relevant)
    elif ties not in ("trec", "first"):
        raise ValueError(ties)
    # The last sort is the most significant: score, descending. Python's sort is stable.
    return sorted(ranked, key=lambda row: row.score, reverse=True)  # type: ignore[arg-type, return-value]


def _by_query(rows: Iterable[Row]) -> dict[Hashable, list[Row]]:
    """Rows grouped by query, queries and rows in order of first appearance."""
    groups: dict[Hashable, list[Row]] = {}
    for row in rows:
        groups.setdefault(row.query, []).append(row)
    return groups


def ranks(rows: Sequence[Row], ties: str = "trec") -> list[int | None]:
    """The rank of every row (1 = top of its query), ``None`` for rows without a score."""
    rank_of: dict[tuple[Hashable, Hashable], int] = {}
    for query, group in _by_query(rows).items():
        for position, row in enumerate(rank_query(group, ties), start=1):
            rank_of[(query, row.item)] = position
    return [rank_of.get((row.query, row.item)) for row in rows]


# -- §3 metrics, one query -------------------------------------------------------------------


def _gain(grade: float, gain: str) -> float:
    if grade <= 0:  # negative grades (and 0) give no gain
        return 0.0
    if gain == "linear":
        return float(grade)
    if gain == "exponential":
        return 2.0**grade - 1.0
    raise ValueError(gain)


def _dcg(grades: Sequence[float], k: int | None, gain: str) -> float:
    total = 0.0
    for i, grade in enumerate(grades, start=1):
        if k is not None and i > k:
            break
        total += _gain(grade, gain) / math.log2(i + 1)
    return total


def metric_value(
    name: str,
    k: int | None,
    ranked: Sequence[float],
    judged: Sequence[float],
    *,
    min_relevance: float | None = None,
    gain: str = "linear",
    denominator: str = "relevant",
) -> float:
    """One metric of one query.

    ``ranked``: the grades of the retrieved items, rank 1 first. ``judged``: the grades of
    every item of the query, retrieved or not.
    """
    relevant = [is_relevant(g, min_relevance) for g in ranked]
    R = sum(1 for g in judged if is_relevant(g, min_relevance))

    def hits(at: int | None) -> int:
        """Relevant items with rank <= at (at=None: the whole list)."""
        return sum(1 for i, rel in enumerate(relevant, start=1) if rel and (at is None or i <= at))

    def within(i: int) -> bool:
        return k is None or i <= k

    if name == "mrr":
        for i, rel in enumerate(relevant, start=1):
            if rel and within(i):
                return 1.0 / i
        return 0.0

    if name == "ndcg":
        ideal = sorted(judged, reverse=True)
        idcg = _dcg(ideal, k, gain)
        if idcg == 0:
            return 0.0
        return _dcg(ranked, k, gain) / idcg

    if name == "map":
        divide_by = R if (denominator == "relevant" or k is None) else min(R, k)
        if denominator not in ("relevant", "min_k"):
            raise ValueError(denominator)
        if divide_by == 0:
            return 0.0
        total = 0.0
        for i, rel in enumerate(relevant, start=1):
            if rel and within(i):
                total += hits(i) / i
        return total / divide_by

    if name == "acc":
        return 1.0 if hits(k) > 0 else 0.0

    if name == "precision":
        # k larger than the list: the missing places count as non-relevant, so divide by k.
        divide_by = len(ranked) if k is None else k
        return hits(k) / divide_by if divide_by else 0.0

    if name == "recall":
        divide_by = R if (denominator == "relevant" or k is None) else min(R, k)
        if denominator not in ("relevant", "min_k"):
            raise ValueError(denominator)
        return hits(k) / divide_by if divide_by else 0.0

    if name == "r_precision":
        if k is not None:
            raise ValueError("r_precision takes no k")
        return hits(R) / R if R else 0.0

    raise ValueError(name)


def metric_column(name: str, k: int | None) -> str:
    """The library's canonical output column, e.g. ``mrr@5`` or ``map``."""
    return name if k is None else f"{name}@{k}"


# -- per query and means ---------------------------------------------------------------------


def per_query(
    rows: Sequence[Row],
    metrics: Sequence[tuple[str, int | None]],
    *,
    min_relevance: float | None = None,
    gain: str = "linear",
    denominator: str = "relevant",
    empty: str = "zero",
    ties: str = "trec",
) -> dict[Hashable, dict[str, float]]:
    """{query: {column: value}}; ``empty`` as SPEC §3 (``skip`` leaves the query out)."""
    groups = _by_query(rows)
    no_relevant = [
        q
        for q, group in groups.items()
        if not any(is_relevant(row.relevant, min_relevance) for row in group)
    ]
    if empty == "error" and no_relevant:
        raise EmptyQueries(no_relevant)
    if empty not in ("zero", "skip", "nan", "error"):
        raise ValueError(empty)

    out: dict[Hashable, dict[str, float]] = {}
    for query, group in groups.items():
        if query in no_relevant and empty == "skip":
            continue
        ranked = [row.relevant for row in rank_query(group, ties)]
        judged = [row.relevant for row in group]
        values = {}
        for name, k in metrics:
            if query in no_relevant and empty == "nan":
                values[metric_column(name, k)] = math.nan
            else:
                values[metric_column(name, k)] = metric_value(
                    name,
                    k,
                    ranked,
                    judged,
                    min_relevance=min_relevance,
                    gain=gain,
                    denominator=denominator,
                )
        out[query] = values
    return out


def _mean(values: list[float]) -> float:
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else math.nan


def evaluate(
    rows: Sequence[Row],
    metrics: Sequence[tuple[str, int | None]],
    *,
    segment_of: Mapping[Hashable, Hashable] | None = None,
    **options: object,
) -> dict[Hashable, dict[str, float]]:
    """{segment: {column: mean over the segment's queries, "n_queries": count}}.

    ``segment_of`` maps each query to its segment; without it there is one segment, ``None``.
    NaN values (``empty="nan"``) are left out of the mean and of ``n_queries``; a segment
    whose queries ``empty="skip"`` all leaves out has no entry (and with none left at all,
    rankframe raises instead: ``{}``).
    """
    table = per_query(rows, metrics, **options)  # type: ignore[arg-type]
    segments: dict[Hashable, list[Hashable]] = {}
    for query in _by_query(rows):
        segments.setdefault(None if segment_of is None else segment_of[query], [])
    for query in table:
        segments[None if segment_of is None else segment_of[query]].append(query)
    out: dict[Hashable, dict[str, float]] = {}
    for segment, queries in segments.items():
        if not queries and options.get("empty") == "skip":
            continue
        columns = [metric_column(name, k) for name, k in metrics]
        means = {c: _mean([table[q][c] for q in queries]) for c in columns}
        counted = [q for q in queries if not any(math.isnan(table[q][c]) for c in columns)]
        out[segment] = {**means, "n_queries": float(len(counted))}
    return out
