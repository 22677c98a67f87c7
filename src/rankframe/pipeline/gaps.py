"""Gaps between user groups (``gaps()``): per system and metric, the spread of the group
means, a test that every group is served alike, and the interval of the gap.

The groups are the segments of the per-query table
(:class:`~rankframe.pipeline.per_query.PerQuery`) of the one per-query pass, every
combination of the request's ``by`` values, as ``by=`` makes segments everywhere. Per
(system, metric), over the queries each metric includes (``empty=``): each group's mean of
the per-query values (the mean of ``log(max(value, 1e-5))``, its ``exp`` shown, for a
metric with a geometric mean; the mean count per query for a count, whose sum would grow
with the group's size), the gap ``max - min`` and the ratio ``max / min`` of those means,
the lowest and highest groups. With a baseline, each other system's per-query difference
from it takes the values' place (the difference of logs for a geometric mean): is the
change the same for every group (the group x system interaction)? The tests and the
interval are :mod:`rankframe.stats.groups`' (:func:`~rankframe.stats.groups.
group_permutation_test`, :func:`~rankframe.stats.groups.kruskal_test`,
:func:`~rankframe.stats.groups.one_way_anova`,
:func:`~rankframe.stats.groups.group_gap_interval`), their p-values corrected over every
(system, metric) of the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from rankframe.exceptions import InvalidDataError
from rankframe.metrics.registry import Metric
from rankframe.pipeline import analysis
from rankframe.pipeline.analysis import SYSTEM
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.steps import (
    Backend,
    Compared,
    Kind,
    Request,
    ValueColumns,
    completed,
)
from rankframe.settings.statistics import Tests
from rankframe.stats.corrections import adjust
from rankframe.stats.groups import (
    group_gap,
    group_gap_interval,
    group_means,
    group_permutation_test,
    kruskal_test,
    one_way_anova,
)

__all__ = ["GAP_TESTS", "GapTest", "Gaps", "gap_columns"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

GapTest = Literal["permutation", "rank", "anova"]
#: ``test=`` of ``gaps()``: the permutation test of the gap, Kruskal-Wallis, one-way ANOVA
GAP_TESTS: tuple[str, ...] = ("permutation", "rank", "anova")


def gap_columns(metrics: tuple[Metric, ...], *, paired: bool) -> ValueColumns:
    """The output's columns, in their order, the keys and the answer first: ``system``,
    ``metric``, ``k``, ``gap``, ``ci_low``, ``ci_high``, ``p_value``, ``significant``,
    then ``ratio``, ``worst_group`` and its mean (``worst_mean``; with a baseline, its mean
    change ``worst_delta``), ``best_group`` and its own, ``p_adjusted``, ``n_groups``,
    ``n_queries`` and ``n_tested``."""
    value = "delta" if paired else "mean"
    return [
        (SYSTEM, "str"),
        ("metric", "str"),
        ("k", analysis.k_type(metrics)),
        *analysis.group_column(metrics),
        ("gap", "float"),
        ("ci_low", "float"),
        ("ci_high", "float"),
        ("p_value", "float"),
        ("significant", "bool"),
        ("ratio", "float"),
        ("worst_group", "str"),
        (f"worst_{value}", "float"),
        ("best_group", "str"),
        (f"best_{value}", "float"),
        ("p_adjusted", "float"),
        ("n_groups", "int"),
        ("n_queries", "int"),
        ("n_tested", "int"),
    ]


@dataclass(frozen=True)
class Gaps(Compared):
    """``gaps()``: the gaps between the groups of the request's ``by`` columns."""

    baseline: int | None
    test: GapTest
    tests: Tests  # correction, confidence_level, n_permutations, n_resamples, seed
    kind: Kind = "table"
    per_query_rows: bool = False
    refuses: ClassVar[str] = "gaps() compares groups of per-query values"

    def keys(self, request: Request) -> list[str]:  # noqa: ARG002
        return []

    def value_columns(self, request: Request) -> ValueColumns:
        return gap_columns(request.metrics, paired=self.baseline is not None)

    def finish(
        self, backend: Backend, pq: PerQuery, request: Request
    ) -> tuple[IntArray, dict[str, Any]]:
        pq = completed(pq, request.options)
        labels = _group_labels(backend, pq, request.by)
        if pq.n_segments < 2:
            shown = ", ".join(repr(b) for b in request.by)
            msg = (
                f"gaps() needs two groups or more; by={list(request.by)!r} has one value "
                f"({labels[0]}) over the queries. Pass a column ({shown} does not split "
                "the queries) whose values name the user groups, e.g. by='age_band'."
            )
            raise InvalidDataError(msg, column=request.by[0] if len(request.by) == 1 else None)
        return np.zeros(0, dtype=np.int64), _table(pq, labels, request, self)


def _group_labels(backend: Backend, pq: PerQuery, by: tuple[str, ...]) -> list[str]:
    """Each group's name: its value as text for one ``by`` column, ``a=x & b=y`` for
    several."""
    values = [backend.labels(name, pq.segment_rows) for name in by]
    if len(by) == 1:
        return [_text(v) for v in values[0]]
    return [
        " & ".join(f"{name}={_text(v[g])}" for name, v in zip(by, values, strict=True))
        for g in range(pq.n_segments)
    ]


def _text(value: object) -> str:
    return analysis.segment_text(value)


@dataclass
class _Spread:
    """Per (tested system, metric), shape (n_systems_tested, n_metrics): the gap, its
    interval and test, the ratio, the lowest and highest groups (-1: none) and their means,
    the groups with a value and their queries."""

    gap: FloatArray
    low: FloatArray
    high: FloatArray
    p_value: FloatArray
    ratio: FloatArray
    worst: IntArray
    worst_mean: FloatArray
    best: IntArray
    best_mean: FloatArray
    n_groups: IntArray
    n_queries: IntArray

    @classmethod
    def empty(cls, shape: tuple[int, int]) -> _Spread:
        def nan() -> FloatArray:
            return np.full(shape, np.nan)

        def none() -> IntArray:
            return np.full(shape, -1, dtype=np.int64)

        return cls(
            nan(),
            nan(),
            nan(),
            nan(),
            nan(),
            none(),
            nan(),
            none(),
            nan(),
            np.zeros(shape, np.int64),
            np.zeros(shape, np.int64),
        )


def _systems(n_systems: int, baseline: int | None) -> list[int]:
    """The systems with rows: every one, or every one but the baseline."""
    return [s for s in range(n_systems) if s != baseline]


def _spreads(pq: PerQuery, gaps: Gaps) -> _Spread:
    """The spread of every (tested system, metric), one group of metrics that share
    their included queries (:meth:`PerQuery.parts`) at a time."""
    _, n_systems, n_metrics = pq.shape
    systems = _systems(n_systems, gaps.baseline)
    out = _Spread.empty((len(systems), n_metrics))
    tests = gaps.tests
    for positions, part in pq.parts():
        values = analysis.tested_values(part)[part.include]  # logs for a geometric mean
        tested = values[:, systems, :]
        if gaps.baseline is not None:
            tested = tested - values[:, gaps.baseline : gaps.baseline + 1, :]
        flat = tested.reshape(len(tested), -1)
        group = part.segment[part.include]
        geometric = np.tile(part.aggregates() == "geometric", len(systems))
        exponentiate = geometric & (gaps.baseline is None)
        means, counts = group_means(flat, group, pq.n_segments)
        shown = np.where(exponentiate, np.exp(means), means)
        gap = group_gap(means, exponentiate)
        known = ~np.isnan(gap)
        worst = np.where(known, np.argmin(np.where(np.isnan(shown), np.inf, shown), axis=0), -1)
        best = np.where(known, np.argmax(np.where(np.isnan(shown), -np.inf, shown), axis=0), -1)
        at = np.arange(flat.shape[1])
        worst_mean = np.where(known, shown[np.maximum(worst, 0), at], np.nan)
        best_mean = np.where(known, shown[np.maximum(best, 0), at], np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = best_mean / worst_mean if gaps.baseline is None else np.full_like(gap, np.nan)
        if gaps.test == "permutation":
            p = group_permutation_test(
                flat, group, pq.n_segments, tests.n_permutations, tests.seed, exponentiate
            )
        elif gaps.test == "rank":
            _, p = kruskal_test(flat, group, pq.n_segments)
        else:
            _, p = one_way_anova(flat, group, pq.n_segments)
        low, high = group_gap_interval(
            flat,
            group,
            pq.n_segments,
            tests.confidence_level,
            tests.n_resamples,
            tests.seed,
            exponentiate,
        )
        shape = (len(systems), len(positions))
        for name, value in (
            ("gap", gap),
            ("low", low),
            ("high", high),
            ("p_value", p),
            ("ratio", ratio),
            ("worst", worst),
            ("worst_mean", worst_mean),
            ("best", best),
            ("best_mean", best_mean),
            ("n_groups", (counts > 0).sum(axis=0)),
            ("n_queries", counts.sum(axis=0)),
        ):
            getattr(out, name)[:, positions] = np.reshape(value, shape)
    return out


def _table(pq: PerQuery, labels: list[str], request: Request, gaps: Gaps) -> dict[str, Any]:
    """The output's columns, one row per (tested system, metric), systems first."""
    _, n_systems, n_metrics = pq.shape
    systems = _systems(n_systems, gaps.baseline)
    spread = _spreads(pq, gaps)
    system = np.repeat(np.array(systems, dtype=np.int64), n_metrics)
    metric = np.tile(np.arange(n_metrics, dtype=np.int64), len(systems))
    p_value = spread.p_value.ravel()
    p_adjusted = adjust(p_value, gaps.tests.correction)
    names = np.array([*labels, None], dtype=object)
    value = "delta" if gaps.baseline is not None else "mean"
    out: dict[str, Any] = {
        **analysis.long_labels(pq.systems, pq.metrics, system, metric),
        "gap": spread.gap.ravel(),
        "ci_low": spread.low.ravel(),
        "ci_high": spread.high.ravel(),
        "p_value": p_value,
        "significant": p_adjusted < 1.0 - gaps.tests.confidence_level,
        "ratio": spread.ratio.ravel(),
        "worst_group": pa.array(names[spread.worst.ravel()].tolist(), type=pa.string()),
        f"worst_{value}": spread.worst_mean.ravel(),
        "best_group": pa.array(names[spread.best.ravel()].tolist(), type=pa.string()),
        f"best_{value}": spread.best_mean.ravel(),
        "p_adjusted": p_adjusted,
        "n_groups": spread.n_groups.ravel(),
        "n_queries": spread.n_queries.ravel(),
        "n_tested": np.full(
            len(p_value), int(np.count_nonzero(~np.isnan(p_value))), dtype=np.int64
        ),
    }
    return {
        name: out[name]
        for name, _ in gap_columns(request.metrics, paired=gaps.baseline is not None)
    }
