"""From per-query values to the tables users see: means, intervals, tidy rows, comparisons.

The engine computes one value per (query, system, metric) in one pass (:class:`PerQuery`);
everything here is computed from that table, with no loop over queries: means per segment,
bootstrap intervals (:mod:`rankframe._stats`), the wide and tidy layouts, and the paired
comparison of systems against a baseline. Each function returns the row of the input frame
that gives each output row its ``by`` values, and the output's other columns by name; the
adapter builds its own kind of frame from them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from rankframe import _stats
from rankframe._options import Correction, Test
from rankframe._registry import GEOMETRIC_FLOOR, Metric

__all__ = [
    "SYSTEM",
    "Correction",
    "PerQuery",
    "Test",
    "compare",
    "k_type",
    "per_query",
    "tidy",
    "wide",
]

SYSTEM = "system"  # the output column naming the score column of each row
TIDY = ("metric", "k", "value", "n_queries")


IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Columns = dict[str, Any]


@dataclass
class PerQuery:
    """Per-query values of every (system, metric), and how queries fall into segments.

    Attributes
    ----------
    values
        Shape (n_queries, n_systems, n_metrics), queries in sorted order of their ids.
    include
        Per query, whether it enters the means (the ``empty`` option; all of them until the
        finish step applies it).
    empty
        Per query, whether it has no relevant item.
    segment
        Per query, its segment code in ``0 .. n_segments - 1``.
    segment_rows
        Per segment, a row of the frame (for the ``by`` columns of the output).
    first_rows
        Per query, its first row (for the query and ``by`` columns), when asked for.
    systems, metrics
        Names of the score columns; the metrics.
    query_labels
        ``query_labels(codes)``: the query ids of those query positions, for messages.
    top
        The top-k items of every list, for the beyond-accuracy metrics
        (:class:`rankframe._items.TopK`); ``None`` when none is requested.
    sets
        The set-level metrics (:class:`rankframe._items.SetValues`): their columns of
        ``values`` hold no per-query value; means and intervals come from it.
    """

    values: FloatArray
    include: BoolArray
    empty: BoolArray
    segment: IntArray
    segment_rows: IntArray
    n_segments: int
    first_rows: IntArray | None
    systems: list[str]
    metrics: list[Metric]
    query_labels: Callable[[IntArray], list[object]]
    top: Any = None
    sets: Any = None

    @property
    def shape(self) -> tuple[int, int, int]:
        """(n_segments, n_systems, n_metrics)."""
        return self.n_segments, len(self.systems), len(self.metrics)

    def _flat(self) -> FloatArray:
        """The included queries' values, one column per (system, metric); a metric with a
        geometric mean gives ``log(max(value, GEOMETRIC_FLOOR))`` (see :meth:`_finish`)."""
        _, n_systems, n_metrics = self.shape
        # every query included (the usual case): the values themselves, not a masked copy
        values = self.values if self.include.all() else self.values[self.include]
        flat = values.reshape(-1, n_systems * n_metrics)
        geometric = np.tile(self._aggregates() == "geometric", n_systems)
        if geometric.any():
            flat = flat.copy()
            flat[:, geometric] = np.log(np.maximum(flat[:, geometric], GEOMETRIC_FLOOR))
        return flat

    def _aggregates(self) -> npt.NDArray[np.str_]:
        """Per metric, its aggregate (``MetricDef.aggregate``)."""
        return np.array([m.definition.aggregate for m in self.metrics] or [""])[
            : len(self.metrics)
        ]

    def _finish(self, means: FloatArray, counts: IntArray) -> FloatArray:
        """Means of :meth:`_flat`'s columns, shape (n_segments, n_systems, n_metrics), as
        each metric's aggregate: the mean; ``exp`` of the mean log (geometric); the mean
        times the number of queries (sum)."""
        aggregate = self._aggregates()
        out = means.reshape(self.shape).copy()
        geometric, total = aggregate == "geometric", aggregate == "sum"
        if geometric.any():
            out[:, :, geometric] = np.exp(out[:, :, geometric])
        if total.any():
            out[:, :, total] *= counts[:, None, None]
        return out

    def means(self) -> tuple[FloatArray, IntArray]:
        """Aggregates over the included queries of each segment (means, unless a metric
        declares a geometric mean or a sum), shape (n_segments, n_systems, n_metrics), and
        the number of those queries per segment (NaN for none).

        A NaN value (``empty_list="nan"``) is left out of its own mean only."""
        seg = self.segment[self.include]
        counts = np.bincount(seg, minlength=self.n_segments).astype(np.int64)
        flat = self._flat()
        # a NaN makes its column's sum NaN: only then is every value looked at
        missing = np.isnan(flat) if np.isnan(flat.sum()) else None
        if missing is not None:  # empty_list="nan": a NaN is left out of its own column's mean
            flat = np.where(missing, 0.0, flat)
            per_column = _segment_sums((~missing).astype(np.float64), seg, self.n_segments)
        else:
            per_column = np.broadcast_to(counts[:, None], (self.n_segments, flat.shape[1]))
        sums = _segment_sums(flat, seg, self.n_segments)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(per_column > 0, sums / np.maximum(per_column, 1), np.nan)
        means = self._finish(means, counts)
        if self.sets is not None:  # set-level metrics: over the included queries
            values = self.sets(self.include.astype(np.float64))
            means[:, :, self.sets.columns] = np.where(counts[:, None, None] > 0, values, np.nan)
        return means, counts

    def intervals(
        self, confidence: float, n_resamples: int, seed: int | None
    ) -> tuple[FloatArray, FloatArray]:
        """Percentile bootstrap intervals of the aggregates, resampling queries within each
        segment; each of shape (n_segments, n_systems, n_metrics)."""
        seg = self.segment[self.include]
        flat = self._flat()
        low, high = _stats.bootstrap_interval(
            flat, seg, self.n_segments, confidence, n_resamples, seed
        )
        counts = np.bincount(seg, minlength=self.n_segments).astype(np.int64)
        low, high = self._finish(low, counts), self._finish(high, counts)
        if self.sets is not None:  # the same resampled queries, as weights
            included = np.flatnonzero(self.include)
            weights = np.zeros(len(self.include))

            def statistic(multiplicity: FloatArray) -> FloatArray:
                weights[included] = multiplicity
                values: FloatArray = self.sets(weights)
                return values

            set_low, set_high = _stats.bootstrap_statistic(
                statistic, seg, self.n_segments, confidence, n_resamples, seed
            )
            low[:, :, self.sets.columns] = set_low
            high[:, :, self.sets.columns] = set_high
        return low, high


def _segment_sums(values: FloatArray, segment: IntArray, n_segments: int) -> FloatArray:
    """Column sums of ``values`` per segment, shape (n_segments, n_columns): one vectorised
    sum when there is one segment, else one ``bincount`` per column."""
    if n_segments == 1:
        total: FloatArray = values.sum(axis=0, keepdims=True)
        return total
    sums = np.zeros((n_segments, values.shape[1]))
    for j in range(values.shape[1]):  # a loop over (system, metric) columns
        sums[:, j] = np.bincount(segment, weights=values[:, j], minlength=n_segments)
    return sums


def _long_labels(pq: PerQuery) -> Columns:
    """The ``system``, ``metric`` and ``k`` columns of a long table: one row per (segment,
    system, metric), in that order; ``k`` is null for a metric without a cut-off."""
    n_segments, n_systems, n_metrics = pq.shape
    floats = k_type(pq.metrics) == "float?"
    return {
        SYSTEM: np.tile(np.repeat(_labels(pq.systems), n_metrics), n_segments),
        "metric": np.tile(_labels([m.tidy_name for m in pq.metrics]), n_segments * n_systems),
        "k": pa.array([m.k for m in pq.metrics] * (n_segments * n_systems),
                      type=pa.float64() if floats else pa.int64()),
    }


def k_type(metrics: Sequence[Metric]) -> str:
    """The type of the ``k`` column of long tables: ``"int?"`` (cut-offs, null for none), or
    ``"float?"`` when a metric's parameter is a number (``iprec@0.1``)."""
    return "float?" if any(not m.definition.param.integer for m in metrics) else "int?"


def _labels(values: list[str]) -> npt.NDArray[np.object_]:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def per_query(pq: PerQuery, *, skip_empty: bool, multi: bool) -> tuple[IntArray, Columns]:
    """One row per query (per (query, system) with ``multi``): rows and metric columns.

    Queries left out of the means get NaN; with ``skip_empty`` they are left out.
    """
    assert pq.first_rows is not None  # the caller asks for first rows
    keep = pq.include if skip_empty else np.ones_like(pq.include)
    values = np.where(pq.include[:, None, None], pq.values, np.nan)[keep]
    n_keep, n_systems, _ = values.shape
    rows = pq.first_rows[keep]
    columns: Columns = {}
    if multi:
        rows = np.repeat(rows, n_systems)
        columns[SYSTEM] = np.tile(_labels(pq.systems), n_keep)
    for j, metric in enumerate(pq.metrics):
        columns[str(metric)] = values[:, :, j].ravel()
    return rows, columns


def wide(
    pq: PerQuery, *, multi: bool, ci: float | None, n_resamples: int, seed: int | None
) -> tuple[IntArray, Columns]:
    """One row per segment (per (segment, system) with ``multi``): a column per metric (and
    its interval), and ``n_queries``."""
    means, counts = pq.means()
    n_segments, n_systems, _ = pq.shape
    rows = pq.segment_rows
    columns: Columns = {}
    if multi:
        rows = np.repeat(rows, n_systems)
        columns[SYSTEM] = np.tile(_labels(pq.systems), n_segments)
    bounds = pq.intervals(ci, n_resamples, seed) if ci is not None else None
    for j, metric in enumerate(pq.metrics):
        columns[str(metric)] = means[:, :, j].ravel()
        if bounds is not None:
            columns[f"{metric}_ci_low"] = bounds[0][:, :, j].ravel()
            columns[f"{metric}_ci_high"] = bounds[1][:, :, j].ravel()
    columns["n_queries"] = np.repeat(counts, n_systems)
    return rows, columns


def tidy(
    pq: PerQuery, *, ci: float | None, n_resamples: int, seed: int | None
) -> tuple[IntArray, Columns]:
    """One row per (segment, system, metric): ``system``, ``metric``, ``k``, ``value``,
    ``n_queries`` (and ``ci_low``, ``ci_high``)."""
    means, counts = pq.means()
    _, n_systems, n_metrics = pq.shape
    per_segment = n_systems * n_metrics
    columns: Columns = {
        **_long_labels(pq),
        "value": means.ravel(),
        "n_queries": np.repeat(counts, per_segment),
    }
    if ci is not None:
        low, high = pq.intervals(ci, n_resamples, seed)
        columns["ci_low"], columns["ci_high"] = low.ravel(), high.ravel()
    return np.repeat(pq.segment_rows, per_segment), columns


def compare(
    pq: PerQuery,
    *,
    baseline: int,
    test: Test,
    correction: Correction,
    alpha: float,
    confidence: float,
    n_resamples: int,
    n_bootstrap: int,
    seed: int | None,
) -> tuple[IntArray, Columns]:
    """Each system against the baseline, per segment and metric, on paired per-query values.

    Columns: ``system``, ``metric``, ``k``, ``mean``, ``delta`` (mean minus the baseline's),
    ``p_value``, ``p_adjusted`` (corrected over the systems compared for one metric in one
    segment), ``ci_low``/``ci_high`` (interval of the delta: t for the t-test, percentile
    bootstrap otherwise), ``significant`` (``p_adjusted < alpha``) and ``n_queries``. The
    baseline's own rows have delta 0 and NaN tests.
    """
    means, counts = pq.means()
    n_segments, n_systems, n_metrics = pq.shape
    others = [s for s in range(n_systems) if s != baseline]
    shape = (n_segments, n_systems, n_metrics)
    p_value, p_adjusted = np.full(shape, np.nan), np.full(shape, np.nan)
    low, high = np.full(shape, np.nan), np.full(shape, np.nan)
    included = pq.values[pq.include]
    segment = pq.segment[pq.include]
    order = np.argsort(segment, kind="stable")
    bounds = np.searchsorted(segment[order], np.arange(n_segments + 1))
    for g in range(n_segments):  # a loop over segments; queries stay vectorised
        values = included[order[bounds[g] : bounds[g + 1]]]
        diff = (values[:, others, :] - values[:, baseline : baseline + 1, :]).reshape(
            len(values), -1
        )
        p = _p_values(diff, test, n_resamples, seed)
        if test == "t-test":
            lo, hi = _stats.t_interval(diff, confidence)
        else:
            lo, hi = _stats.bootstrap_interval(
                diff, np.zeros(len(diff), dtype=np.int64), 1, confidence, n_bootstrap, seed
            )
        p_value[g, others, :] = p.reshape(len(others), n_metrics)
        # the family of a correction: the systems compared on one metric in one segment
        p_adjusted[g, others, :] = _stats.adjust(
            p.reshape(len(others), n_metrics).T, correction
        ).T
        low[g, others, :] = np.reshape(lo, (len(others), n_metrics))
        high[g, others, :] = np.reshape(hi, (len(others), n_metrics))
    delta = means - means[:, baseline : baseline + 1, :]
    per_segment = n_systems * n_metrics
    columns: Columns = {
        **_long_labels(pq),
        "mean": means.ravel(),
        "delta": delta.ravel(),
        "p_value": p_value.ravel(),
        "p_adjusted": p_adjusted.ravel(),
        "ci_low": low.ravel(),
        "ci_high": high.ravel(),
        "significant": p_adjusted.ravel() < alpha,  # False where NaN
        "n_queries": np.repeat(counts, per_segment),
    }
    return np.repeat(pq.segment_rows, per_segment), columns


def _p_values(diff: FloatArray, test: Test, n_resamples: int, seed: int | None) -> FloatArray:
    """Two-sided p-values of "mean difference 0", one per column of ``diff``."""
    if test == "t-test":
        return np.asarray(_stats.paired_t_test(diff)[1], dtype=np.float64)
    if test == "wilcoxon":
        return np.asarray(_stats.wilcoxon_test(diff)[1], dtype=np.float64)
    return np.asarray(_stats.permutation_test(diff, n_resamples, seed), dtype=np.float64)
