"""Means and comparisons from a judge's grades corrected by people's: ``evaluate`` and
``compare`` with ``estimate=`` (``docs/judgments.md``).

The frame binds two grade columns: the judge's (``relevant``) on every row, and people's
(``gold``), null where no person judged the row. The request runs on the judge's grades as
any other; its finish step reads the per-query values under people's grades (the same
metrics and options, the gold column bound as the grade: :func:`gold_request`) and which
queries people judged (:func:`people_judged`), and hands both to
:mod:`rankframe.stats.ppi` per segment.

**A query is judged by people** when every one of its rows has a gold grade (not null, not
NaN): the metrics read more than the top k (recall, ndcg's ideal ranking, map and
R-precision count every relevant row of the query, retrieved or not), so a query with one
ungraded row has no value under people's grades. A partly judged query counts as judged by
the judge alone: its gold grades enter :func:`rankframe.stats.agreement`'s grade pairs
(``agreement()``), not the estimates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa

from rankframe.exceptions import InvalidDataError, InvalidOptionError, Keyword
from rankframe.metrics.registry import Metric
from rankframe.pipeline import analysis
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.reference import Side, joint_codes
from rankframe.pipeline.steps import (
    Backend,
    ColumnNames,
    Kind,
    PerQueryRows,
    Request,
    ValueColumns,
    completed,
)
from rankframe.settings.statistics import Tests
from rankframe.stats import ppi
from rankframe.stats.corrections import adjust

__all__ = [
    "GoldValues",
    "JudgedComparison",
    "JudgedMeans",
    "check_estimate",
    "check_paired_empty",
    "gold_names",
    "gold_request",
    "people_judged",
    "sides",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: The ``empty=`` values an estimate takes: a value for every query under both grades.
EMPTY_TAKEN = ("zero", "one")


def check_estimate(estimate: str, names: ColumnNames, empty: str) -> None:
    """The accessor binds a gold column, and ``empty=`` gives every query a value under
    both sets of grades (the estimate's name: ``settings.params.ESTIMATE``)."""
    if names.gold is None:
        msg = (
            f"estimate={estimate!r} corrects the judge's grades (relevant={names.relevant!r}) "
            "by people's, but no gold column is bound; name the column of people's grades, "
            f"e.g. df.rank_eval(relevant={names.relevant!r}, gold='human')."
        )
        raise InvalidOptionError(msg)
    check_paired_empty(empty, f"estimate={estimate!r}")


def check_paired_empty(empty: str, call: str) -> None:
    """``empty=`` gives every query a value under both sets of grades, which ``call``
    (``"estimate='ppi'"``, ``"agreement()"``) pairs."""
    if empty not in EMPTY_TAKEN:
        refusal = (
            Keyword("empty", empty),
            f" leaves out different queries under the judge's and people's grades, but "
            f"{call} pairs each query's values under both. Pass ",
            Keyword("empty", "zero"),
            " (or 'one').",
        )
        raise InvalidOptionError(refusal)


def refuse_unpaired(metric: Metric, call: str, fix: str) -> None:
    """A metric whose aggregate is no mean of per-query values has no estimate: ``call``
    (``"estimate='ppi' estimates"``) and ``fix`` (what to do) end the message."""
    d = metric.definition
    if d.aggregate == "mean":
        return
    what = {
        "set": "a set-level metric: it has no value per query",
        "geometric": "a geometric mean of its per-query values",
        "sum": "a sum over queries",
    }.get(d.aggregate, f"aggregated as {d.aggregate!r}")
    msg = f"{metric} is {what}, and {call} a mean of per-query values; {fix}."
    raise InvalidOptionError(msg)


# -- people's side ------------------------------------------------------------------------------


def gold_names(names: ColumnNames) -> ColumnNames:
    """The column names under which the per-query step reads people's grades: the gold
    column as the grade (its role still ``gold`` in messages), a null grade an unjudged row,
    and no ``judged`` column (people's nulls say what they judged)."""
    gold = names.gold
    if gold is None:  # checked by check_estimate
        msg = "no gold column is bound"
        raise InvalidOptionError(msg)
    return replace(names, relevant=gold, judged=None, null_grades=True)


def gold_request(request: Request) -> Request:
    """``request``'s metrics, ``by`` and options under people's grades, per query: on one
    pass over the whole frame, only the queries people judged are ranked
    (``Request.graded_only``), whose ``PerQuery.graded`` says which."""
    names = gold_names(request.names)
    people = PerQueryRows()
    return replace(request, names=names, result=people, graded_only=True, shared_pass=None)


def people_judged(
    frame: pl.DataFrame, key: Sequence[str], gold: str
) -> tuple[list[object], BoolArray]:
    """Every query of ``frame`` (the query key's columns and the gold column), in sorted
    order of its id (a tuple for a composite key), and whether every one of its rows has a
    gold grade (not null, not NaN)."""
    column = pl.col(gold)
    graded = column.is_not_null()
    if frame.schema[gold].is_float():
        graded = graded & ~column.is_nan()
    per_query = frame.group_by(list(key)).agg(graded.all().alias("__graded__")).sort(list(key))
    flags = per_query.get_column("__graded__").to_numpy().astype(bool)
    if len(key) == 1:
        return per_query.get_column(key[0]).to_list(), flags
    return list(per_query.select(list(key)).rows()), flags


@dataclass(frozen=True)
class GoldValues:
    """People's side: their per-query values (after ``empty=``) and, per query of those
    values, whether people judged it (every row graded); ``queries``: the ids of those
    queries, or ``None`` where they are numbered as the judge's (one pass over the same
    frame each: the same queries in the same order)."""

    values: PerQuery
    judged: BoolArray
    queries: list[object] | None = None

    @classmethod
    def of_side(cls, gold: Side, queries: list[object], judged: BoolArray) -> GoldValues:
        """People's side of a frame in parts (``gold``) and, per query of ``queries``,
        whether people judged it (:func:`people_judged`)."""
        position = _positions(gold.queries, queries)
        found = position >= 0
        flags = np.zeros(len(position), dtype=bool)
        flags[found] = judged[position[found]]
        return cls(gold.values, flags, gold.queries)


def _positions(mine: list[object], theirs: list[object]) -> IntArray:
    """Per item of ``mine``, its position in ``theirs`` (-1: absent); the same lists (the
    queries of one frame, both in sorted order) need no lookup."""
    if mine == theirs:
        return np.arange(len(mine), dtype=np.int64)
    a, b = joint_codes(mine, theirs)
    at = np.full(int(max(a.max(initial=-1), b.max(initial=-1))) + 1, -1, dtype=np.int64)
    at[b] = np.arange(len(b))
    return at[a]


def _aligned(judge: PerQuery, gold: GoldValues) -> tuple[FloatArray, BoolArray]:
    """People's values in the judge's query order (NaN where people did not judge the
    query) and, per query, whether people judged it."""
    values = judge.values
    if gold.queries is None and len(gold.judged) == len(values):  # numbered alike
        position = np.arange(len(values), dtype=np.int64)
        people = gold.judged.copy()
    else:
        queries = judge.query_labels(np.arange(len(values), dtype=np.int64))
        position = _positions(list(queries), gold.queries or [])
        people = np.zeros(len(position), dtype=bool)
        people[position >= 0] = gold.judged[position[position >= 0]]
    out = np.full(values.shape, np.nan)
    out[people] = gold.values.values[position[people]]
    return out, people


def no_query_judged(gold: str) -> InvalidDataError:
    """The error for a frame of which people judged no query (``problem="no_gold"``)."""
    msg = (
        f"No query is judged by people: every query has a row without a grade in the gold "
        f"column {gold!r} (a query counts as judged by people when every one of its rows has "
        "one). Grade whole queries, or check that the column holds people's grades."
    )
    return InvalidDataError(msg, column=gold, problem="no_gold", count=0)


@dataclass(frozen=True)
class Estimates:
    """Per (segment, system, metric): an estimate's mean, interval, test and weight; per
    segment, its queries and those people judged."""

    mean: FloatArray
    low: FloatArray
    high: FloatArray
    p_value: FloatArray
    n_queries: IntArray
    n_gold: IntArray


def estimates(
    pq: PerQuery,
    judge: FloatArray,
    gold: FloatArray,
    people: BoolArray,
    estimate: str,
    level: float,
) -> Estimates:
    """``estimate`` of each (segment, system, metric) from the per-query values under the
    judge's grades (``judge``) and people's (``gold``, read where ``people``), shape
    (n_queries, n_systems, n_metrics)."""
    n_segments, n_systems, n_metrics = pq.shape
    shape = (n_segments, n_systems, n_metrics)
    mean, low, high, p = (np.full(shape, np.nan) for _ in range(4))
    n_queries = np.bincount(pq.segment, minlength=n_segments).astype(np.int64)
    n_gold = np.bincount(pq.segment[people], minlength=n_segments).astype(np.int64)
    order = np.argsort(pq.segment, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(n_queries)])
    for s in range(n_segments):
        queries = order[bounds[s] : bounds[s + 1]]
        mine = people[queries]
        values = ppi.JudgedValues.of(
            gold[queries[mine]], judge[queries[mine]], judge[queries[~mine]]
        )
        found = ppi.estimate_mean(values, estimate, level)
        mean[s], low[s], high[s], p[s] = found.mean, found.low, found.high, found.p_value
    return Estimates(mean, low, high, p, n_queries, n_gold)


def sides(
    pq: PerQuery, request: Request, gold: Callable[[], GoldValues]
) -> tuple[PerQuery, FloatArray, BoolArray]:
    """The judge's values of ``pq`` (after ``empty=``), people's in its order and the
    queries they judged; raises when people judged none."""
    judge = completed(pq, request.options)
    values, people = _aligned(judge, gold())
    if not people.any():
        raise no_query_judged(str(request.names.gold))
    return judge, values, people


class _Refuses:
    """The refusal of a metric without a mean of per-query values."""

    estimate: str

    def check(self, metric: Metric) -> None:
        refuse_unpaired(
            metric,
            f"estimate={self.estimate!r} estimates",
            "evaluate it without estimate=, or pick a metric averaged over queries",
        )

    def keys(self, request: Request) -> list[str]:
        return list(request.by)


@dataclass(frozen=True)
class JudgedMeans(_Refuses):
    """``evaluate(estimate=...)``: per segment (and system), each metric's estimated mean
    and interval, the estimate's name, the queries and those people judged."""

    estimate: str
    confidence_level: float
    gold: Callable[[], GoldValues] = field(compare=False)
    kind: Kind = "table"
    per_query_rows: bool = False

    def value_columns(self, request: Request) -> ValueColumns:
        system = [(analysis.SYSTEM, "str")] if request.multi else []
        bounds = ["", "_ci_low", "_ci_high"]
        floats = [(f"{m}{e}", "float") for m in request.metrics for e in bounds]
        return [*system, ("estimate", "str"), *floats, ("n_queries", "int"), ("n_gold", "int")]

    def finish(
        self,
        backend: Backend,  # noqa: ARG002
        pq: PerQuery,
        request: Request,
    ) -> tuple[IntArray, dict[str, Any]]:
        values, gold, people = sides(pq, request, self.gold)
        found = estimates(values, values.values, gold, people, self.estimate, self.confidence_level)
        n_segments, n_systems, _ = values.shape
        rows = np.repeat(values.segment_rows, n_systems)
        columns: dict[str, Any] = {}
        if request.multi:
            columns[analysis.SYSTEM] = np.tile(np.array(values.systems, dtype=object), n_segments)
        columns["estimate"] = np.full(len(rows), self.estimate, dtype=object)
        for j, metric in enumerate(values.metrics):
            columns[str(metric)] = found.mean[:, :, j].ravel()
            columns[f"{metric}_ci_low"] = found.low[:, :, j].ravel()
            columns[f"{metric}_ci_high"] = found.high[:, :, j].ravel()
        columns["n_queries"] = np.repeat(found.n_queries, n_systems)
        columns["n_gold"] = np.repeat(found.n_gold, n_systems)
        return rows, columns


@dataclass(frozen=True)
class JudgedComparison(_Refuses):
    """``compare(estimate=...)``: each system's estimated mean and its estimated difference
    from the baseline on the paired per-query differences, with the interval and test of
    the difference, corrected as ``compare``'s."""

    estimate: str
    baseline: int
    tests: Tests
    gold: Callable[[], GoldValues] = field(compare=False)
    baseline_rows: bool = True
    kind: Kind = "table"
    per_query_rows: bool = False

    def value_columns(self, request: Request) -> ValueColumns:
        metrics = request.metrics
        return [
            (analysis.SYSTEM, "str"),
            ("metric", "str"),
            ("k", analysis.k_type(metrics)),
            *analysis.group_column(metrics),
            ("estimate", "str"),
            ("mean", "float"),
            ("delta", "float"),
            ("ci_low", "float"),
            ("ci_high", "float"),
            ("p_adjusted", "float"),
            ("significant", "bool"),
            ("p_value", "float"),
            ("n_queries", "int"),
            ("n_gold", "int"),
        ]

    def finish(
        self,
        backend: Backend,  # noqa: ARG002
        pq: PerQuery,
        request: Request,
    ) -> tuple[IntArray, dict[str, Any]]:
        values, gold, people = sides(pq, request, self.gold)
        level, base = self.tests.confidence_level, self.baseline
        means = estimates(values, values.values, gold, people, self.estimate, level)
        judge_diff = values.values - values.values[:, [base], :]
        gold_diff = gold - gold[:, [base], :]
        diff = estimates(values, judge_diff, gold_diff, people, self.estimate, level)
        shape = values.shape
        delta, low, high, p_value = diff.mean, diff.low, diff.high, diff.p_value
        delta[:, base, :] = 0.0
        for column in (low, high, p_value):
            column[:, base, :] = np.nan
        if self.tests.family == "table":
            p_adjusted = adjust(p_value.ravel(), self.tests.correction).reshape(shape)
        else:  # the systems compared on one metric in one segment
            p_adjusted = adjust(p_value.transpose(0, 2, 1), self.tests.correction)
            p_adjusted = p_adjusted.transpose(0, 2, 1)
        n_segments, n_systems, n_metrics = shape
        system = np.tile(np.repeat(np.arange(n_systems), n_metrics), n_segments)
        metric = np.tile(np.arange(n_metrics), n_segments * n_systems)
        per_row = n_systems * n_metrics
        columns: dict[str, Any] = {
            **analysis.long_labels(values.systems, values.metrics, system, metric),
            "estimate": np.full(n_segments * per_row, self.estimate, dtype=object),
            "mean": means.mean.ravel(),
            "delta": delta.ravel(),
            "ci_low": low.ravel(),
            "ci_high": high.ravel(),
            "p_adjusted": p_adjusted.ravel(),
            "significant": p_adjusted.ravel() < self.tests.alpha,  # False where NaN
            "p_value": p_value.ravel(),
            "n_queries": np.repeat(diff.n_queries, per_row),
            "n_gold": np.repeat(diff.n_gold, per_row),
        }
        rows = np.repeat(values.segment_rows, per_row)
        without = None if self.baseline_rows else base
        order = analysis.system_major(shape, without=without)
        return rows[order], {name: _take(column, order) for name, column in columns.items()}


def _take(column: Any, order: IntArray) -> Any:
    """A column (NumPy or Arrow) at ``order``."""
    if isinstance(column, pa.Array | pa.ChunkedArray):
        return column.take(pa.array(order, type=pa.int64()))
    return np.asarray(column)[order]
