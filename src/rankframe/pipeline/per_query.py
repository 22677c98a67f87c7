"""The per-query table: the seam every frame kind produces and the finish step reads.

The per-query step (``steps.per_query``, or the parts' tables read back by
``steps.from_parts``) gives one :class:`PerQuery`: one value per query, system and metric,
whether each query has a relevant item and enters the aggregates, its segment. Means and
bootstrap intervals per segment are computed from it here, whichever backend produced it;
the tables users see are made of them in :mod:`rankframe.pipeline.analysis`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe.engine import segments
from rankframe.metrics.registry import GEOMETRIC_FLOOR, Metric
from rankframe.stats.intervals import bootstrap_interval, bootstrap_statistic

__all__ = ["PerQuery"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass
class PerQuery:
    """Per-query values of every (system, metric), and how queries fall into segments.

    Attributes
    ----------
    values
        Shape (n_queries, n_systems, n_metrics), queries in sorted order of their ids.
    include
        Per query, whether it enters the aggregates of the metrics that depend on relevant
        items (the ``empty`` option, :meth:`applies`; all of them until the finish step
        applies it). The other metrics use every query.
    empty
        Per query, whether ``empty=`` applies to it: it has no relevant item (and, with a
        metric requested that counts a query of a negative grade, ``MetricDef.counts_rated``:
        ndcg or dcg under ``empty_ndcg="no_relevant_or_negative"``, no negative grade: the
        other metrics then hold NaN for such a query).
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
        (:class:`rankframe.metrics.item_codes.TopK`); ``None`` when none is requested.
    sets
        The set-level metrics (:class:`rankframe.metrics.item_values.SetValues`): their columns of
        ``values`` hold no per-query value; means and intervals come from it.
    time
        Per query, its earliest time (:class:`rankframe.pipeline.windows.Times`), for ``every=``;
        ``None`` otherwise.
    by_codes
        Per ``by`` column, per query, the code of its value (numbered in sorted order of the
        column's values, as ``Backend.codes``), which the pass read for the segments;
        ``None`` where the table was made otherwise (``slices()`` then reads the column).
    nulls
        Per query, the null scores of each system and its rows
        (:class:`rankframe.pipeline.nulls.NullScores`), as the per-query step counted them
        in the frame as given; ``None`` where the table was made otherwise.
    graded
        Per query, whether every one of its rows has a grade, where the pass ranked only
        those (people's pass of a judged estimate, ``Request.graded_only``); else ``None``.
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
    time: Any = None
    by_codes: Sequence[npt.NDArray[np.integer[Any]]] | None = None
    nulls: Any = None
    graded: BoolArray | None = None

    @property
    def shape(self) -> tuple[int, int, int]:
        """(n_segments, n_systems, n_metrics)."""
        return self.n_segments, len(self.systems), len(self.metrics)

    def flat_values(self) -> FloatArray:
        """The included queries' values, one column per (system, metric); a metric with a
        geometric mean gives ``log(max(value, GEOMETRIC_FLOOR))`` (see
        :meth:`finish_aggregates`)."""
        _, n_systems, n_metrics = self.shape
        # every query included (the usual case): the values themselves, not a masked copy
        values = self.values if self.include.all() else self.values[self.include]
        flat = values.reshape(-1, n_systems * n_metrics)
        geometric = np.tile(self.aggregates() == "geometric", n_systems)
        if geometric.any():
            flat = flat.copy()
            flat[:, geometric] = np.log(np.maximum(flat[:, geometric], GEOMETRIC_FLOOR))
        return flat

    def aggregates(self) -> npt.NDArray[np.str_]:
        """Per metric, its aggregate (``MetricDef.aggregate``)."""
        return np.array([m.definition.aggregate for m in self.metrics] or [""])[: len(self.metrics)]

    def finish_aggregates(self, means: FloatArray, counts: IntArray) -> FloatArray:
        """Means of :meth:`flat_values`'s columns, shape (n_segments, n_systems, n_metrics), as
        each metric's aggregate: the mean; ``exp`` of the mean log (geometric); the mean
        times the number of queries (sum)."""
        aggregate = self.aggregates()
        out = means.reshape(self.shape).copy()
        geometric, total = aggregate == "geometric", aggregate == "sum"
        if geometric.any():
            out[:, :, geometric] = np.exp(out[:, :, geometric])
        if total.any():
            out[:, :, total] *= counts[:, None, None]
        return out

    def applies(self) -> BoolArray:
        """Per metric, whether ``include`` applies to it: the metrics whose value depends on
        relevant items (``MetricDef.depends_on_relevant``, the scope of ``empty=``); the
        others enter their aggregates with every query."""
        return np.array([m.definition.depends_on_relevant for m in self.metrics], dtype=bool)

    def without_empty_segments(self) -> PerQuery:
        """The table without the segments that no query of any metric enters (every metric
        depends on relevant items, and ``empty="skip"`` left each of their queries out):
        a segment (or window) without queries has no row, rather than a NaN."""
        if self.top is not None or self.sets is not None or not self.applies().all():
            return self
        alive = np.bincount(self.segment[self.include], minlength=self.n_segments) > 0
        if alive.all():
            return self
        keep = alive[self.segment]
        positions = np.flatnonzero(keep).astype(np.int64)
        renumbered = (np.cumsum(alive) - 1).astype(np.int64)
        labels = self.query_labels
        return replace(
            self,
            values=self.values[keep],
            include=self.include[keep],
            empty=self.empty[keep],
            segment=renumbered[self.segment[keep]],
            segment_rows=self.segment_rows[alive],
            n_segments=int(alive.sum()),
            first_rows=None if self.first_rows is None else self.first_rows[keep],
            query_labels=lambda codes: labels(positions[codes]),
            time=None if self.time is None else self.time.take(positions),
            by_codes=None if self.by_codes is None else [c[keep] for c in self.by_codes],
            nulls=None if self.nulls is None else self.nulls.take(positions),
        )

    def parts(self) -> list[tuple[IntArray, PerQuery]]:
        """The metrics in groups that share their included queries, each group as a
        :class:`PerQuery` of its own metrics (positions among ``metrics``, then the table):
        one group unless some queries are left out (``empty="skip"``, ``"nan"``) and some
        metrics are not about relevant items (counts, item metrics), which keep every query."""
        everything = np.arange(len(self.metrics), dtype=np.int64)
        applies = self.applies()
        if self.include.all() or applies.all():
            return [(everything, self)]
        every_query = np.ones_like(self.include)
        if not applies.any():
            return [(everything, replace(self, include=every_query))]
        return [
            (np.flatnonzero(mask).astype(np.int64), self._subset(mask, include))
            for mask, include in ((applies, self.include), (~applies, every_query))
        ]

    def _subset(self, mask: BoolArray, include: BoolArray) -> PerQuery:
        """The table of the metrics in ``mask`` only, with ``include`` as its queries."""
        positions = np.flatnonzero(mask)
        sets = self.sets
        if sets is not None:
            kept = [c for c in sets.columns if mask[c]]
            sets = (
                None
                if not kept
                else replace(
                    sets,
                    columns=[int(np.searchsorted(positions, c)) for c in kept],
                    metrics=[sets.metrics[sets.columns.index(c)] for c in kept],
                )
            )
        return replace(
            self,
            values=self.values[:, :, positions],
            include=include,
            metrics=[self.metrics[j] for j in positions],
            sets=sets,
        )

    def means(self) -> tuple[FloatArray, IntArray]:
        """Aggregates over the included queries of each segment (means, unless a metric
        declares a geometric mean or a sum), shape (n_segments, n_systems, n_metrics), and
        the number of those queries per segment and metric, shape (n_segments, n_metrics)
        (NaN for none).

        A NaN value (``empty_list="nan"``) is left out of its own mean only."""
        out = np.empty(self.shape)
        counts = np.empty((self.n_segments, len(self.metrics)), dtype=np.int64)
        for positions, part in self.parts():
            out[:, :, positions], counts[:, positions] = part._means()
        return out, counts

    def _means(self) -> tuple[FloatArray, IntArray]:
        """:meth:`means` of a table whose metrics share their included queries; the count
        per segment broadcast to every metric."""
        seg = self.segment[self.include]
        counts = np.bincount(seg, minlength=self.n_segments).astype(np.int64)
        flat = self.flat_values()
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
        means = self.finish_aggregates(means, counts)
        if self.sets is not None:  # set-level metrics: over the included queries
            values = self.sets(self.include.astype(np.float64))
            means[:, :, self.sets.columns] = np.where(counts[:, None, None] > 0, values, np.nan)
        return means, np.repeat(counts[:, None], len(self.metrics), axis=1)

    def intervals(
        self, confidence_level: float, n_resamples: int, seed: int | None
    ) -> tuple[FloatArray, FloatArray]:
        """Percentile bootstrap intervals of the aggregates, resampling queries within each
        segment; each of shape (n_segments, n_systems, n_metrics)."""
        low, high = np.empty(self.shape), np.empty(self.shape)
        for positions, part in self.parts():
            low[:, :, positions], high[:, :, positions] = part._intervals(
                confidence_level, n_resamples, seed
            )
        return low, high

    def _intervals(
        self, confidence_level: float, n_resamples: int, seed: int | None
    ) -> tuple[FloatArray, FloatArray]:
        seg = self.segment[self.include]
        flat = self.flat_values()
        low, high = bootstrap_interval(
            flat, seg, self.n_segments, confidence_level, n_resamples, seed
        )
        counts = np.bincount(seg, minlength=self.n_segments).astype(np.int64)
        low, high = self.finish_aggregates(low, counts), self.finish_aggregates(high, counts)
        if self.sets is not None:  # the same resampled queries, as weights
            included = np.flatnonzero(self.include)
            weights = np.zeros(len(self.include))

            def statistic(multiplicity: FloatArray) -> FloatArray:
                weights[included] = multiplicity
                values: FloatArray = self.sets(weights)
                return values

            set_low, set_high = bootstrap_statistic(
                statistic, seg, self.n_segments, confidence_level, n_resamples, seed
            )
            low[:, :, self.sets.columns] = set_low
            high[:, :, self.sets.columns] = set_high
        return low, high


def _segment_sums(values: FloatArray, segment: IntArray, n_segments: int) -> FloatArray:
    """Column sums of ``values`` per segment, shape (n_segments, n_columns), each adding the
    queries one by one in their order, as trec_eval does (its printed mean can depend on the
    order): one running sum when there is one segment (``sum`` would add a lone or
    column-major column pairwise, so a metric's mean would change with the metrics asked
    beside it), else one ``bincount`` per column."""
    if n_segments == 1:
        if len(values) == 0:
            return np.zeros((1, values.shape[1]))
        total: FloatArray = np.cumsum(values, axis=0)[-1:]
        return total
    sums = np.zeros((n_segments, values.shape[1]))
    for j in range(values.shape[1]):  # a loop over (system, metric) columns
        sums[:, j] = segments.sums(segment, values[:, j], n_segments)
    return sums
