"""From per-query values to the tables users see: means, intervals, tidy rows, comparisons.

The engine computes one value per (query, system, metric) in one pass (:class:`PerQuery`);
everything here is computed from that table, with no loop over queries: means per segment,
bootstrap intervals (:mod:`rankframe.stats.intervals`), the wide and tidy layouts, and the paired
comparison of systems against a baseline. Each function returns the row of the input frame
that gives each output row its ``by`` values, and the output's other columns by name; the
adapter builds its own kind of frame from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rankframe.engine import segments
from rankframe.metrics.registry import GEOMETRIC_FLOOR, Metric
from rankframe.pipeline.per_query import PerQuery
from rankframe.settings.options import GROUP, Correction, Family, Test
from rankframe.settings.statistics import Intervals, Tests
from rankframe.stats import power
from rankframe.stats.corrections import adjust
from rankframe.stats.intervals import bootstrap_interval, t_interval
from rankframe.stats.paired import paired_t_test, permutation_test, wilcoxon_test
from rankframe.stats.two_sample import (
    mann_whitney_test,
    two_sample_bootstrap_interval,
    two_sample_permutation_test,
    welch_interval,
    welch_t_test,
)

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    pass

__all__ = [
    "MISSING",
    "STATISTIC",
    "SYSTEM",
    "Correction",
    "Family",
    "Test",
    "compare",
    "compare_samples",
    "comparison_columns",
    "k_type",
    "long_labels",
    "per_query",
    "pooled_sd",
    "relative_change",
    "row_segments",
    "segment_text",
    "system_major",
    "tested_values",
    "tidy",
    "wide",
]

SYSTEM = "system"  # the output column naming the score column of each row
#: A missing segment value (null, NaN) in the labels people read: ``device=(missing)``
MISSING = "(missing)"


def segment_text(value: object) -> str:
    """A segment's value as its label shows it: the value as text, :data:`MISSING` for a
    missing one (None, NaN, NaT, pandas' NA)."""
    if value is None:
        return MISSING
    try:
        missing = bool(value != value)  # NaN, NaT
    except TypeError:  # pandas' NA, whose truth is ambiguous
        missing = True
    return MISSING if missing else str(value)


IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Columns = dict[str, Any]


def _long_labels(pq: PerQuery) -> Columns:
    """The ``system``, ``metric`` and ``k`` columns of a long table: one row per (segment,
    system, metric), in that order; ``k`` is null for a metric without a cut-off; and
    ``group`` (:func:`group_column`) when a metric has a value per group."""
    n_segments, n_systems, n_metrics = pq.shape
    system = np.tile(np.repeat(np.arange(n_systems), n_metrics), n_segments)
    metric = np.tile(np.arange(n_metrics), n_segments * n_systems)
    return long_labels(pq.systems, pq.metrics, system, metric)


def long_labels(
    systems: Sequence[str], metrics: Sequence[Metric], system: IntArray, metric: IntArray
) -> Columns:
    """The ``system``, ``metric`` and ``k`` columns of rows of a long table, from each row's
    system and metric positions; ``k`` is null for a metric without a cut-off; and
    ``group`` (:func:`group_column`) when a metric has a value per group."""
    import pyarrow as pa

    floats = k_type(metrics) == "float?"
    ks = [m.k for m in metrics]
    columns = {
        SYSTEM: _labels(list(systems))[system] if len(systems) else _labels([])[system],
        "metric": _labels([m.tidy_name for m in metrics])[metric],
        "k": pa.array(
            [ks[j] for j in metric.tolist()], type=pa.float64() if floats else pa.int64()
        ),
    }
    if group_column(metrics):
        groups = [dict(m.options).get(GROUP.name) for m in metrics]
        columns[GROUP.name] = pa.array([groups[j] for j in metric.tolist()], type=pa.string())
    return columns


def group_column(metrics: Sequence[Metric]) -> list[tuple[str, str]]:
    """The ``group`` column of long tables (after ``k``) when a metric of the table has a
    value per group (its ``group`` option: ``exposure@10(group=small)``): the group, null
    for the other metrics; the ``metric`` column keeps the whole label."""
    if any(dict(m.options).get(GROUP.name) is not None for m in metrics):
        return [(GROUP.name, "str")]
    return []


def k_type(metrics: Sequence[Metric]) -> str:
    """The type of the ``k`` column of long tables: ``"int?"`` (cut-offs, null for none), or
    ``"float?"`` when a metric's parameter is a number (``iprec@0.1``)."""
    return "float?" if any(not m.definition.param.integer for m in metrics) else "int?"


def _labels(values: Sequence[object]) -> npt.NDArray[np.object_]:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def per_query(pq: PerQuery, *, skip_empty: bool, multi: bool) -> tuple[IntArray, Columns]:
    """One row per query (per (query, system) with ``multi``): rows and metric columns.

    Queries left out of the means get NaN for the metrics ``include`` applies to (the others
    keep their values); with ``skip_empty`` and such a metric requested, they are left out.
    """
    assert pq.first_rows is not None  # the caller asks for first rows
    applies = pq.applies()
    keep = pq.include if skip_empty and applies.any() else np.ones_like(pq.include)
    left_out = ~pq.include[:, None, None] & applies[None, None, :]
    values = np.where(left_out, np.nan, pq.values)[keep]
    n_keep, n_systems, _ = values.shape
    rows = pq.first_rows[keep]
    columns: Columns = {}
    if multi:
        rows = np.repeat(rows, n_systems)
        columns[SYSTEM] = np.tile(_labels(pq.systems), n_keep)
    for j, metric in enumerate(pq.metrics):
        columns[str(metric)] = values[:, :, j].ravel()
    return rows, columns


def _row_counts(pq: PerQuery, counts: IntArray) -> IntArray:
    """The ``n_queries`` of a wide row: the queries of the metrics that ``empty=`` applies to
    (the first of them), else of the first metric (every query)."""
    applies = pq.applies()
    column = int(np.argmax(applies)) if applies.any() else 0
    return counts[:, column] if counts.shape[1] else np.zeros(pq.n_segments, dtype=np.int64)


def wide(pq: PerQuery, *, multi: bool, intervals: Intervals) -> tuple[IntArray, Columns]:
    """One row per segment (per (segment, system) with ``multi``): a column per metric (and
    its interval, with ``intervals.confidence_level``), and ``n_queries``."""
    means, counts = pq.means()
    n_segments, n_systems, _ = pq.shape
    rows = pq.segment_rows
    columns: Columns = {}
    if multi:
        rows = np.repeat(rows, n_systems)
        columns[SYSTEM] = np.tile(_labels(pq.systems), n_segments)
    level = intervals.confidence_level
    bounds = (
        pq.intervals(level, intervals.n_resamples, intervals.seed) if level is not None else None
    )
    for j, metric in enumerate(pq.metrics):
        columns[str(metric)] = means[:, :, j].ravel()
        if bounds is not None:
            columns[f"{metric}_ci_low"] = bounds[0][:, :, j].ravel()
            columns[f"{metric}_ci_high"] = bounds[1][:, :, j].ravel()
    columns["n_queries"] = np.repeat(_row_counts(pq, counts), n_systems)
    return rows, columns


def _per_row(counts: IntArray, n_systems: int) -> IntArray:
    """Counts per (segment, metric) as one per (segment, system, metric) row."""
    n_segments, n_metrics = counts.shape
    return np.broadcast_to(counts[:, None, :], (n_segments, n_systems, n_metrics)).ravel()


def tidy(pq: PerQuery, *, intervals: Intervals) -> tuple[IntArray, Columns]:
    """One row per (segment, system, metric): ``system``, ``metric``, ``k``, ``value``
    (and ``ci_low``, ``ci_high``, with ``intervals.confidence_level``), ``n_queries``."""
    means, counts = pq.means()
    _, n_systems, n_metrics = pq.shape
    per_segment = n_systems * n_metrics
    columns: Columns = {**_long_labels(pq), "value": means.ravel()}
    level = intervals.confidence_level
    if level is not None:  # the answer first: the interval before the bookkeeping
        low, high = pq.intervals(level, intervals.n_resamples, intervals.seed)
        columns["ci_low"], columns["ci_high"] = low.ravel(), high.ravel()
    columns["n_queries"] = _per_row(counts, n_systems)
    return np.repeat(pq.segment_rows, per_segment), columns


#: What ``compare``'s ``mean``, ``delta`` and interval are of, per ``MetricDef.aggregate``
#: (the ``statistic`` column): ``delta`` is the difference of the statistic, for a geometric
#: mean the difference of its logs (the log of the ratio of the geometric means).
STATISTIC = {"mean": "mean", "geometric": "geometric mean", "sum": "sum"}


def compare(
    pq: PerQuery, *, baseline: int, tests: Tests, baseline_rows: bool = True
) -> tuple[IntArray, Columns]:
    """Each system against the baseline, per segment and metric, on paired per-query values.

    Rows in the order of :func:`system_major`: per system, per metric, the segments;
    ``baseline_rows=False`` leaves out the baseline's own rows (delta 0, no test).

    Columns (:func:`comparison_columns`), the answer first: ``system``, ``metric``, ``k``,
    ``mean`` (the system's statistic), ``delta`` (the change, absolute), ``delta_relative``
    (the change relative to the baseline's statistic, :func:`relative_change`), ``ci_low``
    and ``ci_high`` (the interval of ``delta``), ``p_adjusted`` (corrected within
    ``family``), ``significant`` (``p_adjusted < alpha``); then ``p_value``, ``mde``
    (:meth:`_Tested.mde`), ``statistic`` (what ``mean``, ``delta`` and the interval are
    of: ``"mean"``, ``"geometric mean"`` or ``"sum"``, the metric's aggregate),
    ``paired``, ``wins``, ``ties``, ``losses`` and ``n_queries``.

    The test, the interval and ``delta`` are of one quantity, the per-query paired
    difference of the values the statistic averages:

    - a mean: the values; ``delta`` is the mean difference (the difference of the means);
    - a geometric mean (``gm_map``): ``log(max(value, 1e-5))``, trec_eval's floor; ``delta``
      and the interval are of the mean log difference, the log of the ratio of the
      geometric means (``delta_relative`` is that ratio minus 1);
    - a sum (``num_rel_ret``): the values; ``delta`` is the difference of the sums, the
      interval the mean difference's times the number of queries (the p-value is the
      mean's).

    The intervals are t intervals for the t-test, percentile bootstraps otherwise.
    ``family``: ``p_adjusted`` corrects over the systems compared on one metric in one
    segment (``"systems"``) or over every test of the table (``"table"``). The baseline's
    own rows have delta 0 and NaN tests.
    """
    means, counts = pq.means()
    n_systems = pq.shape[1]
    others = [s for s in range(n_systems) if s != baseline]
    tested = _Tested.nan(pq.shape, paired=True)
    for positions, part in pq.parts():
        _compare_part(part, positions, others, baseline, tested, tests)
    base = means[:, baseline : baseline + 1, :]
    columns = _columns(pq, tested, tests, means, base, counts, baseline=baseline)
    rows = np.repeat(pq.segment_rows, n_systems * len(pq.metrics))
    return _taken(
        rows, columns, system_major(pq.shape, without=None if baseline_rows else baseline)
    )


#: compare()'s columns counting the queries where a system's per-query value is above,
#: equal to, and below its baseline's (or reference's): null where nothing is paired
OUTCOMES = ("wins", "ties", "losses")


#: The power at which ``compare()``'s ``mde`` is detectable
MDE_POWER = 0.8


@dataclass(frozen=True)
class _Tested:
    """The tests of every (segment, system, metric) of a comparison, shape (n_segments,
    n_systems, n_metrics), filled segment by segment: p-values, estimates of the delta,
    interval bounds (NaN where untested), the standard deviation the ``mde`` reads (of the
    paired differences, or pooled; a sum's times its number of queries) and the sample
    sizes (``size2`` NaN where paired), whether paired, and the outcomes' counts (shape
    (3, ...): wins, ties, losses; -1 for null)."""

    p_value: FloatArray
    estimate: FloatArray
    low: FloatArray
    high: FloatArray
    spread: FloatArray
    size: FloatArray
    size2: FloatArray
    paired: BoolArray
    outcomes: IntArray

    @classmethod
    def nan(cls, shape: tuple[int, int, int], *, paired: bool) -> _Tested:
        def nan() -> FloatArray:
            return np.full(shape, np.nan)

        return cls(
            nan(),
            nan(),
            nan(),
            nan(),
            nan(),
            nan(),
            nan(),
            np.full(shape, paired, dtype=bool),
            np.full((3, *shape), -1, dtype=np.int64),
        )

    def put(self, index: tuple[Any, ...], tested: tuple[FloatArray, ...]) -> None:
        """The p-values, estimates, bounds, spreads and sizes (flat, one per system and
        metric of ``index``) at ``index``."""
        shaped = self.p_value[index].shape
        outs = (
            self.p_value,
            self.estimate,
            self.low,
            self.high,
            self.spread,
            self.size,
            self.size2,
        )
        for out, values in zip(outs, tested, strict=True):
            out[index] = np.reshape(values, shaped)

    def mde(self, confidence_level: float) -> FloatArray:
        """``compare()``'s ``mde``: the smallest change the t-test at ``1 -
        confidence_level`` (two-sided) detects with :data:`MDE_POWER`, from the sizes and
        the spread (:func:`minimum_detectable`)."""
        paired = np.isnan(self.size2)
        level = 1.0 - confidence_level
        effect = np.full(self.size.shape, np.nan)
        if paired.any():
            effect[paired] = power.t_test_detectable_effect(self.size[paired], level, MDE_POWER)
        if not paired.all():
            effect[~paired] = power.t_test_detectable_effect(
                self.size[~paired], level, MDE_POWER, n2=self.size2[~paired]
            )
        return np.asarray(np.where(self.spread > 0, effect * self.spread, np.nan), dtype=np.float64)


def _spread(x: FloatArray) -> FloatArray:
    """Per column, the standard deviation (``ddof=1``, as the t-tests read it); NaN below
    two values, or for a column with a NaN (whose tests are NaN)."""
    if len(x) < 2:
        return np.full(x.shape[1], np.nan)
    return np.asarray(np.std(x, axis=0, ddof=1), dtype=np.float64)


def _paired_tests(diff: FloatArray, totals: BoolArray, tests: Tests) -> tuple[FloatArray, ...]:
    """The test of "mean difference 0" on paired differences (a column per system and
    metric): p-values, the estimate of the delta and its interval (t for the t-test, else a
    percentile bootstrap), the differences' standard deviation and number (the ``mde``'s);
    a sum's (``totals``) estimate, interval and standard deviation are the mean
    difference's times the number of queries."""
    p = _p_values(diff, tests.test, tests.n_permutations, tests.seed)
    if tests.test == "t-test":
        lo, hi = t_interval(diff, tests.confidence_level)
    else:
        lo, hi = bootstrap_interval(
            diff,
            np.zeros(len(diff), dtype=np.int64),
            1,
            tests.confidence_level,
            tests.n_resamples,
            tests.seed,
        )
    with np.errstate(invalid="ignore"):
        mean = diff.mean(axis=0) if len(diff) else np.full(diff.shape[1], np.nan)
    factor = np.where(totals, float(len(diff)), 1.0)
    return (
        p,
        mean * factor,
        np.ravel(lo) * factor,
        np.ravel(hi) * factor,
        _spread(diff) * factor,
        np.full(diff.shape[1], float(len(diff))),
        np.full(diff.shape[1], np.nan),
    )


def comparison_columns(metrics: Sequence[Metric], *, reference: bool) -> list[tuple[str, str]]:
    """A comparison's columns after its ``by`` keys, with their types, in their order: the
    keys and the answer first (``system``, ``metric``, ``k``, ``mean``, ``delta``,
    ``delta_relative``, the interval, ``p_adjusted``, ``significant``), then the rest
    (``p_value``, ``mde``, ``statistic``, ...); ``reference``: against another table of
    per-query values (``reference_mean``, ``n_reference``)."""
    return [
        (SYSTEM, "str"),
        ("metric", "str"),
        ("k", k_type(metrics)),
        *group_column(metrics),
        ("mean", "float"),
        ("delta", "float"),
        ("delta_relative", "float"),
        ("ci_low", "float"),
        ("ci_high", "float"),
        ("p_adjusted", "float"),
        ("significant", "bool"),
        ("p_value", "float"),
        ("mde", "float"),
        ("statistic", "str"),
        *([("reference_mean", "float")] if reference else []),
        ("paired", "bool"),
        *((name, "int?") for name in OUTCOMES),
        ("n_queries", "int"),
        *([("n_reference", "int")] if reference else []),
    ]


def system_major(shape: tuple[int, int, int], *, without: int | None = None) -> IntArray:
    """The order of a comparison's rows: per system (in the order of the score columns),
    per metric, the segments in their order, so that a system's change on one metric reads
    down one block of rows; from the positions of the (segment, system, metric) rows the
    tests fill. ``without``: a system whose rows are left out (``compare(baseline_rows=
    False)``: the baseline's own)."""
    n_segments, n_systems, n_metrics = shape
    index = np.arange(n_segments * n_systems * n_metrics, dtype=np.int64).reshape(shape)
    order = index.transpose(1, 2, 0)
    if without is not None:
        order = np.delete(order, without, axis=0)
    return np.ascontiguousarray(order).ravel()


def row_segments(shape: tuple[int, int, int]) -> IntArray:
    """The segment of each row of a comparison of ``shape`` (n_segments, n_systems,
    n_metrics), in the order of :func:`system_major`."""
    n_segments, n_systems, n_metrics = shape
    return np.tile(np.arange(n_segments, dtype=np.int64), n_systems * n_metrics)


def _taken(rows: IntArray, columns: Columns, order: IntArray) -> tuple[IntArray, Columns]:
    """``rows`` and every column in ``order`` (numpy and Arrow columns alike)."""
    import pyarrow as pa

    indices = pa.array(order, type=pa.int64())
    return rows[order], {
        name: column.take(indices)
        if isinstance(column, pa.Array | pa.ChunkedArray)
        else np.asarray(column)[order]
        for name, column in columns.items()
    }


def relative_change(delta: FloatArray, base: FloatArray, geometric: npt.ArrayLike) -> FloatArray:
    """A change relative to the baseline's statistic (``delta_relative``): ``delta /
    |base|``; for a geometric mean, whose ``delta`` is the log of the ratio of the
    statistics, ``exp(delta) - 1``. Where the baseline's statistic is 0: 0 for no change,
    ±inf otherwise (any change from 0 is beyond every relative tolerance)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        scale = np.abs(base)
        out = np.asarray(delta / scale, dtype=np.float64)
        out[(scale == 0) & (delta == 0)] = 0.0
        return np.asarray(np.where(geometric, np.expm1(delta), out), dtype=np.float64)


def _columns(
    pq: PerQuery,
    tested: _Tested,
    tests: Tests,
    means: FloatArray,
    base: FloatArray,
    counts: IntArray,
    *,
    baseline: int | None = None,
    reference_counts: IntArray | None = None,
) -> Columns:
    """A comparison's columns from its tests and the statistics of both sides: ``base``
    is the baseline's (``baseline``, whose own rows get delta 0) or the reference's
    (``reference_counts`` given: the ``reference_mean`` and ``n_reference`` columns), in
    the order of :func:`comparison_columns`."""
    n_segments, n_systems, _ = shape = pq.shape
    aggregate = pq.aggregates()
    geometric = aggregate == "geometric"
    with np.errstate(divide="ignore", invalid="ignore"):
        # the delta of the statistics where the paired values have a NaN (empty_list="nan":
        # a NaN is left out of its own system's mean; its tests are NaN)
        fallback = np.where(
            geometric,
            np.log(np.maximum(means, 0.0)) - np.log(np.maximum(base, 0.0)),
            means - base,
        )
        delta = np.where(np.isnan(tested.estimate), fallback, tested.estimate)
    if baseline is not None:
        delta[:, baseline, :] = 0.0
    relative = relative_change(delta, np.broadcast_to(base, delta.shape), geometric)
    p_value = tested.p_value
    if tests.family == "table":
        p_adjusted = adjust(p_value.ravel(), tests.correction).reshape(shape)
    else:  # the systems compared on one metric in one segment
        p_adjusted = adjust(p_value.transpose(0, 2, 1), tests.correction).transpose(0, 2, 1)
    statistic = _labels([STATISTIC[a] for a in aggregate])
    reference = reference_counts is not None
    columns: Columns = {
        **_long_labels(pq),
        "statistic": np.tile(statistic, n_segments * n_systems),
        "mean": means.ravel(),
        "delta": delta.ravel(),
        "delta_relative": relative.ravel(),
        "p_value": p_value.ravel(),
        "p_adjusted": p_adjusted.ravel(),
        "ci_low": tested.low.ravel(),
        "ci_high": tested.high.ravel(),
        "mde": tested.mde(tests.confidence_level).ravel(),
        "significant": p_adjusted.ravel() < tests.alpha,  # False where NaN
        "paired": tested.paired.ravel(),
        **_outcome_columns(tested.outcomes),
        "n_queries": _per_row(counts, n_systems),
    }
    if reference_counts is not None:
        columns["reference_mean"] = base.ravel()
        columns["n_reference"] = _per_row(reference_counts, n_systems)
    return {name: columns[name] for name, _ in comparison_columns(pq.metrics, reference=reference)}


def _outcomes(diff: FloatArray) -> IntArray:
    """Per column of per-query differences (raw values: system minus baseline), the number
    of queries above 0, equal to 0 and below 0, shape (3, n_columns); NaN counts nowhere."""
    return np.stack(
        [
            np.count_nonzero(diff > 0, axis=0),
            np.count_nonzero(diff == 0, axis=0),
            np.count_nonzero(diff < 0, axis=0),
        ]
    ).astype(np.int64)


def _outcome_columns(outcomes: IntArray) -> Columns:
    """``wins``, ``ties`` and ``losses`` as integer columns, null where -1."""
    import pyarrow as pa

    return {
        name: pa.array(outcomes[i].ravel(), mask=outcomes[i].ravel() < 0, type=pa.int64())
        for i, name in enumerate(OUTCOMES)
    }


def _compare_part(
    part: PerQuery,
    positions: IntArray,
    others: list[int],
    baseline: int,
    out: _Tested,
    tests: Tests,
) -> None:
    """:func:`compare`'s tests for the metrics of one group that shares its queries, into
    ``out`` at ``positions``."""
    n_metrics = len(positions)
    aggregate = part.aggregates()
    values = raw = part.values[part.include]
    if (aggregate == "geometric").any():
        values = values.copy()
        geometric = aggregate == "geometric"
        values[:, :, geometric] = np.log(np.maximum(values[:, :, geometric], GEOMETRIC_FLOOR))
    scaled = np.tile(aggregate == "sum", len(others))
    segment = part.segment[part.include]
    order = np.argsort(segment, kind="stable")
    bounds = segments.starts(segment[order], part.n_segments)
    for g in range(part.n_segments):  # a loop over segments; queries stay vectorised
        chosen = order[bounds[g] : bounds[g + 1]]
        rows = values[chosen]
        diff = (rows[:, others, :] - rows[:, baseline : baseline + 1, :]).reshape(len(rows), -1)
        raw_rows = raw[chosen]
        out.outcomes[(slice(None), g, np.array(others)[:, None], positions[None, :])] = _outcomes(
            (raw_rows[:, others, :] - raw_rows[:, baseline : baseline + 1, :]).reshape(
                len(rows), -1
            )
        ).reshape(3, len(others), n_metrics)
        # a sum's delta and interval: the mean difference's times the number of queries
        out.put(
            (g, np.array(others)[:, None], positions[None, :]), _paired_tests(diff, scaled, tests)
        )


def _p_values(diff: FloatArray, test: Test, n_permutations: int, seed: int | None) -> FloatArray:
    """Two-sided p-values of "mean difference 0", one per column of ``diff``."""
    if test == "t-test":
        return np.asarray(paired_t_test(diff)[1], dtype=np.float64)
    if test == "wilcoxon":
        return np.asarray(wilcoxon_test(diff)[1], dtype=np.float64)
    return np.asarray(permutation_test(diff, n_permutations, seed), dtype=np.float64)


# -- against a reference: the same systems on another table of per-query values -------------


def _groups(pq: PerQuery) -> list[tuple[IntArray, BoolArray]]:
    """The metrics in groups that share their included queries (as :meth:`PerQuery.parts`,
    but always split the same way for two tables of the same metrics): positions, and the
    queries they include."""
    applies = pq.applies()
    every = np.ones_like(pq.include)
    if applies.all() or not applies.any():
        include = pq.include if applies.any() else every
        return [(np.arange(len(pq.metrics), dtype=np.int64), include)]
    return [
        (np.flatnonzero(applies).astype(np.int64), pq.include),
        (np.flatnonzero(~applies).astype(np.int64), every),
    ]


def tested_values(pq: PerQuery) -> FloatArray:
    """The values the tests read: ``log(max(value, 1e-5))`` for a geometric mean."""
    geometric = pq.aggregates() == "geometric"
    if not geometric.any():
        return pq.values
    values = pq.values.copy()
    values[:, :, geometric] = np.log(np.maximum(values[:, :, geometric], GEOMETRIC_FLOOR))
    return values


def compare_samples(
    current: PerQuery,
    reference: PerQuery,
    *,
    current_ids: IntArray,
    reference_ids: IntArray,
    tests: Tests,
) -> tuple[IntArray, Columns]:
    """Each (segment, system, metric) of ``current`` against the same of ``reference``.

    Both tables hold the same systems and metrics, and their ``segment`` codes are the same
    segments (``reference``'s queries in segments of ``current`` only: ``n_segments`` and
    ``segment_rows`` are ``current``'s). ``current_ids`` and ``reference_ids`` are integer
    codes of the query ids, per query, one numbering for both tables: a query of both sides
    has the same code. ``compare(reference=...)`` passes two frames' tables; a comparison
    of consecutive time windows passes two windows of one table (the query codes of that
    table).

    Per segment and group of metrics that share their included queries: where both sides
    include the same set of query ids, the comparison is **paired**, exactly as
    :func:`compare` (the same tests, on the per-query differences in ``current``'s order of
    queries, and ``wins``/``ties``/``losses``); otherwise it is a **two-sample** comparison
    of the two sets of values (:mod:`rankframe.stats.two_sample`): Welch's t-test and its
    Welch-Satterthwaite interval (``test="t-test"``), a two-sample permutation test
    (``"permutation"``) or the Mann-Whitney U test (``"wilcoxon"``), the latter two with a
    bootstrap interval resampling each side independently; ``wins``, ``ties`` and
    ``losses`` are null. The quantity is the one :func:`compare` tests: the difference of
    the means; of the mean logs for a geometric mean; of the sums for a sum (two samples of
    ``n1`` and ``n2`` queries: ``n1 mean1 - n2 mean2``, with its own Welch standard error
    ``sqrt(n1 s1**2 + n2 s2**2)``; paired, ``n`` times the mean difference, the same number).

    Rows in the order of :func:`system_major` (:func:`row_segments` gives each row's
    segment). Columns: :func:`compare`'s, with ``reference_mean`` (the reference's statistic) after
    ``statistic``, and ``n_reference`` (the reference's queries) after ``n_queries``.
    A segment without queries on one side gets NaN tests and a NaN delta.
    """
    means, counts = current.means()
    ref_means, ref_counts = reference.means()
    n_segments, n_systems, n_metrics = current.shape
    tested = _Tested.nan(current.shape, paired=False)
    aggregate = current.aggregates()
    values, ref_values = tested_values(current), tested_values(reference)
    for (positions, include), (_, ref_include) in zip(
        _groups(current), _groups(reference), strict=True
    ):
        totals = np.tile(aggregate[positions] == "sum", n_systems)
        width = len(positions)
        for g in range(n_segments):  # a loop over segments; queries stay vectorised
            mine = np.flatnonzero(include & (current.segment == g))
            theirs = np.flatnonzero(ref_include & (reference.segment == g))
            ids, ref_ids = current_ids[mine], reference_ids[theirs]
            index = (g, np.arange(n_systems)[:, None], positions[None, :])
            same = len(mine) == len(theirs) and np.array_equal(np.sort(ids), np.sort(ref_ids))
            if same:  # the reference's queries in the current's order
                found = np.argsort(ref_ids, kind="stable")
                theirs = theirs[found[np.searchsorted(ref_ids[found], ids)]]
            x = values[mine][:, :, positions].reshape(len(mine), n_systems * width)
            y = ref_values[theirs][:, :, positions].reshape(len(theirs), n_systems * width)
            if same:
                tested.put(index, _paired_tests(x - y, totals, tests))
                raw = (
                    current.values[mine][:, :, positions]
                    - reference.values[theirs][:, :, positions]
                ).reshape(len(mine), -1)
                tested.outcomes[(slice(None), *index)] = _outcomes(raw).reshape(3, n_systems, width)
            else:
                tested.put(index, _two_sample_tests(x, y, totals, tests))
            tested.paired[index] = same
    columns = _columns(
        current, tested, tests, means, ref_means, counts, reference_counts=ref_counts
    )
    rows = np.repeat(current.segment_rows, n_systems * n_metrics)
    return _taken(rows, columns, system_major(current.shape))


def _two_sample_tests(
    x: FloatArray, y: FloatArray, totals: BoolArray, tests: Tests
) -> tuple[FloatArray, ...]:
    """The two-sample test of two independent samples (a column per system and metric):
    p-values, the estimate of the delta and its interval (Welch's for the t-test, else a
    bootstrap resampling each side), and the ``mde``'s pooled standard deviation
    (:func:`pooled_sd`) and sizes; a sum's (``totals``) are of ``n1 mean1 - n2 mean2``, its
    standard deviation ``n1`` times the pooled one."""
    test, seed, level = tests.test, tests.seed, tests.confidence_level
    p = _two_sample_p_values(x, y, test, tests.n_permutations, seed, totals)
    if test == "t-test":
        lo, hi = welch_interval(x, y, level, totals)
    else:
        lo, hi = two_sample_bootstrap_interval(x, y, level, tests.n_resamples, seed, totals)
    n1, n2 = float(len(x)), float(len(y))
    with np.errstate(invalid="ignore"):
        m1 = x.mean(axis=0) if len(x) else np.full(x.shape[1], np.nan)
        m2 = y.mean(axis=0) if len(y) else np.full(y.shape[1], np.nan)
    est = np.where(totals, n1 * m1 - n2 * m2, m1 - m2)
    sizes = np.full(x.shape[1], n1), np.full(x.shape[1], n2)
    spread = pooled_sd(_spread(x), _spread(y), n1, n2) * np.where(totals, n1, 1.0)
    return p, est, lo, hi, spread, *sizes


def pooled_sd(
    sd1: npt.ArrayLike, sd2: npt.ArrayLike, n1: npt.ArrayLike, n2: npt.ArrayLike
) -> FloatArray:
    """The pooled standard deviation of two samples, ``sqrt(((n1 - 1) sd1**2 + (n2 - 1)
    sd2**2) / (n1 + n2 - 2))`` (each ``sd`` with ``ddof=1``): the one a two-sample t-test
    with equal variances reads, and the unit of the two-sample effect sizes of
    ``sample_size()`` and ``compare()``'s ``mde``. A side of one query adds nothing; NaN
    without degrees of freedom."""
    sd1, sd2 = np.asarray(sd1, dtype=np.float64), np.asarray(sd2, dtype=np.float64)
    n1, n2 = np.asarray(n1, dtype=np.float64), np.asarray(n2, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        squares = np.where(n1 > 1, (n1 - 1) * sd1**2, 0.0) + np.where(
            n2 > 1, (n2 - 1) * sd2**2, 0.0
        )
        return np.asarray(
            np.where(n1 + n2 > 2, np.sqrt(squares / (n1 + n2 - 2)), np.nan), dtype=np.float64
        )


def _two_sample_p_values(
    x: FloatArray,
    y: FloatArray,
    test: Test,
    n_permutations: int,
    seed: int | None,
    totals: BoolArray,
) -> FloatArray:
    """Two-sided p-values of "no difference" between two independent samples, per column."""
    if test == "t-test":
        return np.asarray(welch_t_test(x, y, totals)[1], dtype=np.float64)
    if test == "wilcoxon":
        return np.asarray(mann_whitney_test(x, y)[1], dtype=np.float64)
    return np.asarray(
        two_sample_permutation_test(x, y, n_permutations, seed, totals),
        dtype=np.float64,
    )
