"""``agreement()``: a judge checked against people (``docs/judgments.md``), table by table.

Each table is a request's result, so that it comes in the frame's kind as every other:

- :class:`GradeTables`: per segment, the rows both graded (the judge's grade in
  ``relevant`` and people's in ``gold``, both not null): Cohen's kappa unweighted, linear
  and quadratic and Krippendorff's ordinal alpha (``grades``), or the confusion matrix as
  one row per (judge's grade, people's grade) (``confusion``). The finish step reads the
  pairs of grades of the frame's rows (:func:`grade_pairs`, read once for both tables);
  both tables share one per-query pass (``Request.shared_pass``): the metric tables' when
  metrics are asked for, else one that ranks nothing.
- :class:`JudgeBias`: per segment, system and metric, on the queries people judged
  (:func:`rankframe.pipeline.judgments.people_judged`), the mean of the metric under the
  judge minus under people, with its t interval and test.
- :class:`SystemOrders`: per segment and metric, Kendall's tau-b between the systems' means
  under the judge and under people on those queries (means equal to 12 decimals tied).
- :class:`Conclusions`: per segment, pair of systems and metric, the difference of their
  means under each set of grades on those queries, its paired t-test, and whether the judge
  reaches people's conclusion: the same significant direction, or no significant
  difference under either.

The metric tables compare both sets of grades on the same queries (those people judged):
what the judge would say there, against what people say. They share the judge's pass
(``Request.shared_pass``) and people's (``rankframe.api.judgments.gold_values``), each
computed once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from rankframe.exceptions import InvalidDataError
from rankframe.metrics.registry import Metric
from rankframe.pipeline import analysis
from rankframe.pipeline.judgments import GoldValues, refuse_unpaired, sides
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.steps import Backend, Kind, Request, ValueColumns
from rankframe.stats import agreement, ppi

__all__ = ["Conclusions", "GradeTables", "JudgeBias", "SystemOrders", "grade_pairs"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: Per ``by`` segment (a tuple of its values), the judge's and people's grades of the rows
#: both graded.
Pairs = dict[tuple[object, ...], tuple[FloatArray, FloatArray]]


def _segments(backend: Backend, pq: PerQuery, by: Sequence[str]) -> list[tuple[object, ...]]:
    """Each segment's ``by`` values, as a tuple."""
    columns = [backend.labels(b, pq.segment_rows) for b in by]
    return list(zip(*columns, strict=True)) if columns else [()] * pq.n_segments


def grade_pairs(rows: pl.DataFrame, by: Sequence[str], judge: str, gold: str) -> Pairs:
    """Per ``by`` segment (a tuple of its values), the judge's and people's grades of the
    rows both graded (``rows``: the ``by`` and both grade columns)."""
    grades = [pl.col(c).cast(pl.Float64).fill_nan(None) for c in (judge, gold)]
    both = rows.select(*by, *grades).drop_nulls([judge, gold])
    if not by:
        return {(): (both[judge].to_numpy(), both[gold].to_numpy())}
    out = {}
    for key, part in both.group_by(list(by), maintain_order=True):
        out[tuple(key)] = (part[judge].to_numpy(), part[gold].to_numpy())
    return out


def _check_scales(judge: str, gold: str, pairs: dict[Any, tuple[FloatArray, FloatArray]]) -> None:
    """Grades on different scales (none in common) and no row graded by both: errors."""
    a = np.concatenate([p[0] for p in pairs.values()]) if pairs else np.zeros(0)
    b = np.concatenate([p[1] for p in pairs.values()]) if pairs else np.zeros(0)
    if len(a) == 0:
        msg = (
            f"No row has both a judge's grade (column {judge!r}) and people's (column "
            f"{gold!r}), so there is no agreement to measure: check that {gold!r} holds "
            "people's grades of the same rows (null where no person judged)."
        )
        raise InvalidDataError(msg, column=gold, problem="no_gold", count=0)
    shared = np.intersect1d(a, b)
    if len(shared) == 0:
        msg = (
            f"The judge's grades (column {judge!r}: {_span(a)}) and people's (column "
            f"{gold!r}: {_span(b)}) share no value: they are on different scales. Map one "
            "onto the other's grades first (e.g. round a probability, or binarise both)."
        )
        raise InvalidDataError(msg, column=gold, problem="scales")


def _span(x: FloatArray) -> str:
    return f"from {float(x.min()):g} to {float(x.max()):g}"


@dataclass(frozen=True)
class GradeTables:
    """Per segment, the agreement of the grades (``confusion=False``) or the confusion
    matrix (``True``), from ``pairs()``: the :func:`grade_pairs` of the frame's ``by`` and
    both grade columns."""

    pairs: Callable[[], Pairs] = field(compare=False)
    confusion: bool = False
    kind: Kind = "table"
    per_query_rows: bool = False

    def check(self, metric: Metric) -> None:
        """No metric is read."""

    def keys(self, request: Request) -> list[str]:
        return list(request.by)

    def value_columns(self, request: Request) -> ValueColumns:  # noqa: ARG002
        if self.confusion:
            return [("judge", "float"), ("gold", "float"), ("count", "int")]
        names = ["kappa", "kappa_linear", "kappa_quadratic", "krippendorff_alpha"]
        return [("n_pairs", "int"), *((n, "float") for n in names)]

    def finish(
        self, backend: Backend, pq: PerQuery, request: Request
    ) -> tuple[IntArray, dict[str, Any]]:
        names = request.names
        judge, gold = names.relevant, str(names.gold)
        pairs = self.pairs()
        _check_scales(judge, gold, pairs)
        empty = (np.zeros(0), np.zeros(0))
        found = [
            agreement.grade_agreement(*pairs.get(s, empty))
            for s in _segments(backend, pq, request.by)
        ]
        if self.confusion:
            return _confusion(pq.segment_rows, found)
        return pq.segment_rows, {
            "n_pairs": np.array([f.n_pairs for f in found], dtype=np.int64),
            "kappa": np.array([f.kappa for f in found]),
            "kappa_linear": np.array([f.kappa_linear for f in found]),
            "kappa_quadratic": np.array([f.kappa_quadratic for f in found]),
            "krippendorff_alpha": np.array([f.alpha for f in found]),
        }


def _confusion(
    segment_rows: IntArray, found: list[agreement.GradeAgreement]
) -> tuple[IntArray, dict[str, Any]]:
    """One row per (segment, judge's grade, people's grade) of each segment's categories."""
    rows, judge, gold, count = [], [], [], []
    for row, f in zip(segment_rows.tolist(), found, strict=True):
        k = len(f.categories)
        rows.append(np.full(k * k, row, dtype=np.int64))
        judge.append(np.repeat(f.categories, k))
        gold.append(np.tile(f.categories, k))
        count.append(np.asarray(f.confusion, dtype=np.int64).ravel())

    def joined(parts: list[Any], dtype: Any) -> Any:
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)

    return joined(rows, np.int64), {
        "judge": joined(judge, np.float64),
        "gold": joined(gold, np.float64),
        "count": joined(count, np.int64),
    }


# -- the metrics under both sets of grades, on the queries people judged ------------------------


@dataclass(frozen=True)
class _OnPeoples:
    """What the metric tables share: people's side, the refusal of a metric without a mean
    of per-query values, one row per segment's keys."""

    gold: Callable[[], GoldValues] = field(compare=False)
    alpha: float = 0.05
    confidence_level: float = 0.95
    kind: Kind = "table"
    per_query_rows: bool = False

    def check(self, metric: Metric) -> None:
        refuse_unpaired(
            metric,
            "agreement() compares under both sets of grades",
            "pick a metric averaged over queries",
        )

    def keys(self, request: Request) -> list[str]:
        return list(request.by)

    def both(
        self, pq: PerQuery, request: Request
    ) -> tuple[PerQuery, list[tuple[FloatArray, FloatArray]]]:
        """Per segment, the judge's and people's values (queries people judged, systems,
        metrics)."""
        values, gold, people = sides(pq, request, self.gold)
        out = []
        for s in range(values.n_segments):
            mine = people & (values.segment == s)
            out.append((values.values[mine], gold[mine]))
        return values, out

    def t_test(self, x: FloatArray) -> ppi.MeanEstimate:
        """The mean of each column of ``x`` with its t interval and test of 0."""
        return ppi.gold_mean(ppi.JudgedValues.of(x, x, x[:0]), self.confidence_level)


@dataclass(frozen=True)
class JudgeBias(_OnPeoples):
    """Per segment, system and metric: the judge's mean minus people's on the queries
    people judged, its interval and p-value."""

    def value_columns(self, request: Request) -> ValueColumns:
        metrics = request.metrics
        return [
            (analysis.SYSTEM, "str"),
            ("metric", "str"),
            ("k", analysis.k_type(metrics)),
            *analysis.group_column(metrics),
            ("judge_mean", "float"),
            ("gold_mean", "float"),
            ("bias", "float"),
            ("ci_low", "float"),
            ("ci_high", "float"),
            ("p_value", "float"),
            ("n_gold", "int"),
        ]

    def finish(
        self,
        backend: Backend,  # noqa: ARG002
        pq: PerQuery,
        request: Request,
    ) -> tuple[IntArray, dict[str, Any]]:
        values, per_segment = self.both(pq, request)
        n_segments, n_systems, n_metrics = values.shape
        parts: dict[str, list[Any]] = {k: [] for k in ("judge", "gold", "bias", "low", "high", "p")}
        for judge, gold in per_segment:
            found = self.t_test(judge - gold)
            parts["judge"].append(np.mean(judge, axis=0) if len(judge) else found.mean)
            parts["gold"].append(np.mean(gold, axis=0) if len(gold) else found.mean)
            for name, array in (
                ("bias", found.mean),
                ("low", found.low),
                ("high", found.high),
                ("p", found.p_value),
            ):
                parts[name].append(array)
        system = np.tile(np.repeat(np.arange(n_systems), n_metrics), n_segments)
        metric = np.tile(np.arange(n_metrics), n_segments * n_systems)
        per_row = n_systems * n_metrics
        n_gold = np.array([len(j) for j, _ in per_segment], dtype=np.int64)
        columns: dict[str, Any] = {
            **analysis.long_labels(values.systems, values.metrics, system, metric),
            "judge_mean": np.ravel(parts["judge"]),
            "gold_mean": np.ravel(parts["gold"]),
            "bias": np.ravel(parts["bias"]),
            "ci_low": np.ravel(parts["low"]),
            "ci_high": np.ravel(parts["high"]),
            "p_value": np.ravel(parts["p"]),
            "n_gold": np.repeat(n_gold, per_row),
        }
        return np.repeat(values.segment_rows, per_row), columns


@dataclass(frozen=True)
class SystemOrders(_OnPeoples):
    """Per segment and metric: Kendall's tau-b between the systems' means under the judge
    and under people, on the queries people judged."""

    def value_columns(self, request: Request) -> ValueColumns:
        metrics = request.metrics
        return [
            ("metric", "str"),
            ("k", analysis.k_type(metrics)),
            *analysis.group_column(metrics),
            ("kendall_tau", "float"),
            ("n_systems", "int"),
            ("n_gold", "int"),
        ]

    def finish(
        self,
        backend: Backend,  # noqa: ARG002
        pq: PerQuery,
        request: Request,
    ) -> tuple[IntArray, dict[str, Any]]:
        values, per_segment = self.both(pq, request)
        n_segments, n_systems, n_metrics = values.shape
        # means equal to 12 decimals are tied: two sums of the same values in another
        # order may differ in their last bit
        tau = [
            agreement.kendall_tau(
                np.round(np.mean(judge, axis=0), 12), np.round(np.mean(gold, axis=0), 12)
            )
            if len(judge)
            else np.full(n_metrics, np.nan)
            for judge, gold in per_segment
        ]
        metric = np.tile(np.arange(n_metrics), n_segments)
        labels = analysis.long_labels(values.systems, values.metrics, metric * 0, metric)
        del labels[analysis.SYSTEM]
        n_gold = np.array([len(j) for j, _ in per_segment], dtype=np.int64)
        columns: dict[str, Any] = {
            **labels,
            "kendall_tau": np.ravel(tau),
            "n_systems": np.full(n_segments * n_metrics, n_systems, dtype=np.int64),
            "n_gold": np.repeat(n_gold, n_metrics),
        }
        return np.repeat(values.segment_rows, n_metrics), columns


#: A conclusion about two systems: the second's mean significantly higher, lower, or neither.
HIGHER, LOWER, NEITHER = "higher", "lower", "no difference"


@dataclass(frozen=True)
class Conclusions(_OnPeoples):
    """Per segment, pair of systems (``system`` against ``other``, an earlier score column)
    and metric: the difference of their means under each set of grades on the queries
    people judged, its paired t-test, and whether the judge's conclusion is people's."""

    def value_columns(self, request: Request) -> ValueColumns:
        metrics = request.metrics
        return [
            (analysis.SYSTEM, "str"),
            ("other", "str"),
            ("metric", "str"),
            ("k", analysis.k_type(metrics)),
            *analysis.group_column(metrics),
            ("judge_delta", "float"),
            ("gold_delta", "float"),
            ("judge_p_value", "float"),
            ("gold_p_value", "float"),
            ("judge_conclusion", "str"),
            ("gold_conclusion", "str"),
            ("same_conclusion", "bool"),
            ("n_gold", "int"),
        ]

    def finish(
        self,
        backend: Backend,  # noqa: ARG002
        pq: PerQuery,
        request: Request,
    ) -> tuple[IntArray, dict[str, Any]]:
        values, per_segment = self.both(pq, request)
        n_metrics = len(values.metrics)
        pairs = [(j, i) for i, j in combinations(range(len(values.systems)), 2)]
        rows, systems, others, metric = [], [], [], []
        found: dict[str, list[FloatArray]] = {"jd": [], "gd": [], "jp": [], "gp": []}
        for s, (judge, gold) in enumerate(per_segment):
            for system, other in pairs:
                j = self.t_test(judge[:, system] - judge[:, other])
                g = self.t_test(gold[:, system] - gold[:, other])
                for key, array in (("jd", j.mean), ("gd", g.mean), ("jp", j.p_value)):
                    found[key].append(array)
                found["gp"].append(g.p_value)
                rows.append(np.full(n_metrics, values.segment_rows[s], dtype=np.int64))
                systems.append(np.full(n_metrics, system))
                others.append(np.full(n_metrics, other))
                metric.append(np.arange(n_metrics))
        if not rows:  # one system: no pair
            empty = np.zeros(0, dtype=np.int64)
            rows, systems, others, metric = [empty], [empty], [empty], [empty]
            found = {k: [np.zeros(0)] for k in found}
        system_at, other_at = np.concatenate(systems), np.concatenate(others)
        labels = analysis.long_labels(
            values.systems, values.metrics, system_at, np.concatenate(metric)
        )
        other_labels = analysis.long_labels(values.systems, values.metrics, other_at, system_at * 0)
        jd, gd = np.concatenate(found["jd"]), np.concatenate(found["gd"])
        jp, gp = np.concatenate(found["jp"]), np.concatenate(found["gp"])
        judge_says, gold_says = self._said(jd, jp), self._said(gd, gp)
        n_gold = np.array([len(j) for j, _ in per_segment], dtype=np.int64)
        row_segments = np.repeat(np.arange(values.n_segments), len(pairs) * n_metrics)
        columns: dict[str, Any] = {
            analysis.SYSTEM: labels.pop(analysis.SYSTEM),
            "other": other_labels[analysis.SYSTEM],
            **labels,
            "judge_delta": jd,
            "gold_delta": gd,
            "judge_p_value": jp,
            "gold_p_value": gp,
            "judge_conclusion": judge_says,
            "gold_conclusion": gold_says,
            "same_conclusion": judge_says == gold_says,
            "n_gold": n_gold[row_segments] if len(row_segments) else row_segments,
        }
        return np.concatenate(rows), columns

    def _said(self, delta: FloatArray, p_value: FloatArray) -> npt.NDArray[np.object_]:
        """Per row, the conclusion: higher or lower where ``p_value < alpha``, else none."""
        significant = p_value < self.alpha  # False where NaN
        out = np.full(len(delta), NEITHER, dtype=object)
        out[significant & (delta > 0)] = HIGHER
        out[significant & (delta < 0)] = LOWER
        return out
