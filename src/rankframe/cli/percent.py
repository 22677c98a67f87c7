"""What ``--percent`` shows as percentages: every column on the [0, 1] scale of a metric
declared bounded (``MetricDef.bounded``), and every relative change, row by row from the
row's metric.

A command's table says, per column, what it is of (:class:`Scaled`): a statistic of the
metric's values (a mean, a geometric mean: on the metric's scale when the metric is
bounded), a difference of that statistic (a delta, its interval, the smallest detectable
change: on the scale too, except for a geometric mean, whose differences are of logs), or a
fraction of a statistic (``delta_relative``: a percentage for every metric). Counts,
ratios, p-values and effect sizes are never percentages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankframe.metrics.registry import MetricDef

__all__ = [
    "COMPARE",
    "GAPS",
    "GAPS_AGAINST_BASELINE",
    "SAMPLE_SIZE",
    "SLICES",
    "Scaled",
    "bounded_labels",
]


def bounded_labels(columns: Sequence[str]) -> list[str]:
    """The metric columns (labels) of ``evaluate`` that --percent shows as percentages:
    those of the metrics declared bounded (values in [0, 1]); the others are plain
    numbers."""
    # the registry imports the frame libraries: only when a table is written
    from rankframe.metrics.registry import parse_metric

    return [label for label in columns if parse_metric(label).definition.bounded]


def _definition(row: Mapping[str, Any]) -> MetricDef:
    """The declaration of a row's metric: its ``metric`` column (a label, with its cut-off
    or without it) and its ``k`` column where the table has one."""
    # the registry imports the frame libraries: only when a table is written
    from rankframe.metrics.registry import parse_metric

    label, k = str(row["metric"]), row.get("k")
    if k is not None and k == k:  # not null, not NaN: name(options)@k parses back
        label += f"@{int(k) if float(k).is_integer() else k}"
    return parse_metric(label).definition


@dataclass(frozen=True)
class Scaled:
    """The columns of one command's table, by what they are of; called on a row (column ->
    value), the ones --percent shows as percentages there."""

    #: statistics of the metric's values: a percentage where the metric is bounded
    statistic: tuple[str, ...]
    #: differences of the statistic: a percentage where the metric is bounded, unless its
    #: statistic is a geometric mean (the differences are then of logs)
    difference: tuple[str, ...] = ()
    #: fractions of a statistic: a percentage for every metric
    relative: tuple[str, ...] = ()

    def __call__(self, row: Mapping[str, Any]) -> tuple[str, ...]:
        definition = _definition(row)
        if not definition.bounded:
            return self.relative
        if definition.aggregate == "geometric":
            return self.relative + self.statistic
        return self.relative + self.statistic + self.difference

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column the command may show as a percentage."""
        return self.statistic + self.difference + self.relative


#: compare(): the statistic of each side, the delta, its interval and the ``mde``, and the
#: relative change
COMPARE = Scaled(
    statistic=("mean", "reference_mean"),
    difference=("delta", "ci_low", "ci_high", "mde"),
    relative=("delta_relative",),
)
#: slices(): the means inside the slice and outside it (or the baseline's), the delta and
#: its interval (of mean logs for a geometric mean)
SLICES = Scaled(
    statistic=("mean", "mean_outside", "baseline_mean"), difference=("delta", "ci_low", "ci_high")
)
#: gaps(): the groups' statistics and the gap between them, a difference of statistics on
#: the metric's scale even for a geometric mean (the ratio is a plain number)
GAPS = Scaled(statistic=("gap", "ci_low", "ci_high", "worst_mean", "best_mean"))
#: gaps(baseline=): the groups' mean changes from the baseline and their spread, of logs
#: for a geometric mean
GAPS_AGAINST_BASELINE = Scaled(
    statistic=(), difference=("gap", "ci_low", "ci_high", "worst_delta", "best_delta")
)
#: sample_size(): the change to detect (absolute) and the per-query values' standard
#: deviation, both of the per-query values (the effect size is a plain number)
SAMPLE_SIZE = Scaled(statistic=("delta", "sd"))
