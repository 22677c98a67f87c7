"""``sample_size()``: how many queries a t-test needs to detect a change, from the per-query
values in hand (statsmodels' ``TTestPower`` / ``TTestIndPower`` ``solve_power``, with the
effect size from the observed standard deviation: of the paired differences, of the values,
or pooled over this frame and a reference frame)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from rankframe.pipeline.analysis import pooled_sd
from rankframe.stats.power import t_test_sample_size

__all__ = [
    "REFERENCE_COLUMNS",
    "SAMPLE_SIZE_COLUMNS",
    "per_segment",
    "reference_sample_sizes",
    "sample_sizes",
]

#: The columns of ``sample_size()``'s table, the answer first
SAMPLE_SIZE_COLUMNS = (
    "system",
    "metric",
    "n_needed",
    "n_queries",
    "enough",
    "delta",
    "effect_size",
    "sd",
    "test",
)
#: ``sample_size(reference=)``'s: the reference's queries in hand after this frame's
REFERENCE_COLUMNS = (*SAMPLE_SIZE_COLUMNS[:4], "n_reference", *SAMPLE_SIZE_COLUMNS[4:])


def _present(values: pd.Series) -> npt.NDArray[np.float64]:
    x = np.asarray(values.to_numpy(dtype=float), dtype=np.float64)
    return np.asarray(x[~np.isnan(x)], dtype=np.float64)


def _sd(x: npt.NDArray[np.float64]) -> float:
    return float(np.std(x, ddof=1)) if len(x) > 1 else math.nan


def _row(
    system: str,
    metric: str,
    values: pd.Series,
    reference_mean: float,
    *,
    paired: bool,
    delta: float,
    relative: bool,
    alpha: float,
    power: float,
    alternative: str,
    sd: float | None = None,
) -> dict[str, object]:
    """One (system, metric): ``values`` are the paired differences or the system's values;
    ``sd`` the standard deviation of the effect size when it is not theirs (pooled)."""
    x = _present(values)
    change = delta * abs(reference_mean) if relative else delta
    sd = _sd(x) if sd is None else sd
    effect = change / sd if sd > 0 else math.nan
    n = (
        t_test_sample_size(effect, alpha, power, alternative, two_sample=not paired)
        if math.isfinite(effect)
        else math.nan
    )
    needed = float(math.ceil(n - 1e-9)) if math.isfinite(n) else n
    return {
        "system": system,
        "metric": metric,
        "n_needed": needed,
        "n_queries": len(x),
        "enough": bool(len(x) >= needed) if not math.isnan(needed) else False,
        "delta": change,
        "effect_size": effect,
        "sd": sd,
        "test": "paired t-test" if paired else "two-sample t-test",
    }


def _wide(
    per_query: pd.DataFrame, metrics: Sequence[str], keys: Sequence[str], systems: Sequence[str]
) -> pd.DataFrame:
    """``per_query()``'s rows with a column per (metric, system)."""
    if "system" in per_query.columns:
        # one value per cell: no aggregation (pivot_table would average)
        return per_query.pivot(  # noqa: PD010
            index=list(keys), columns="system", values=list(metrics)
        )
    wide = per_query.set_index(list(keys))[list(metrics)]
    wide.columns = pd.MultiIndex.from_product([list(metrics), [systems[0]]])
    return wide


def reference_sample_sizes(
    per_query: pd.DataFrame,
    reference: pd.DataFrame,
    metrics: Sequence[str],
    keys: Sequence[str],
    systems: Sequence[str],
    *,
    delta: float,
    relative: bool,
    alpha: float,
    power: float,
    alternative: str,
) -> pd.DataFrame:
    """The table of ``sample_size(reference=)``: each system of this frame's per-query
    values against the same system of the reference's, two samples of equal size
    (``TTestIndPower``, ``ratio=1``) with the pooled standard deviation
    (:func:`rankframe.pipeline.analysis.pooled_sd`); ``delta`` relative to the reference's
    mean with ``relative``. ``n_needed`` is per side; ``enough`` when both sides hold it."""
    mine = _wide(per_query, metrics, keys, systems)
    theirs = _wide(reference, metrics, keys, systems)
    rows = []
    for system in systems:
        for metric in metrics:
            x = _present(mine[(metric, system)])
            y = (
                _present(theirs[(metric, system)])
                if (metric, system) in theirs.columns
                else np.empty(0)
            )  # a segment the reference has no query of
            sd = float(pooled_sd(_sd(x), _sd(y), len(x), len(y)))
            row = _row(
                system,
                metric,
                mine[(metric, system)],
                float(np.mean(y)) if len(y) else math.nan,
                paired=False,
                delta=delta,
                relative=relative,
                alpha=alpha,
                power=power,
                alternative=alternative,
                sd=sd,
            )
            row["n_reference"] = len(y)
            needed = float(row["n_needed"])  # type: ignore[arg-type]
            row["enough"] = bool(not math.isnan(needed) and min(len(x), len(y)) >= needed)
            rows.append(row)
    return pd.DataFrame(rows, columns=list(REFERENCE_COLUMNS))


def sample_sizes(
    per_query: pd.DataFrame,
    metrics: Sequence[str],
    keys: Sequence[str],
    systems: Sequence[str],
    baseline: str | None,
    *,
    delta: float,
    relative: bool,
    alpha: float,
    power: float,
    alternative: str,
) -> pd.DataFrame:
    """The table of ``sample_size()`` from ``per_query()``'s rows (``keys``: the query key
    columns; a ``system`` column when there are several systems)."""
    wide = _wide(per_query, metrics, keys, systems)
    rows = []
    for system in systems:
        if system == baseline:
            continue
        for metric in metrics:
            values = wide[(metric, system)]
            if baseline is None:  # this frame against a sample like it: two samples
                rows.append(
                    _row(
                        system,
                        metric,
                        values,
                        float(values.mean()),
                        paired=False,
                        delta=delta,
                        relative=relative,
                        alpha=alpha,
                        power=power,
                        alternative=alternative,
                    )
                )
                continue
            base = wide[(metric, baseline)]
            both = values.notna() & base.notna()
            rows.append(
                _row(
                    system,
                    metric,
                    (values - base)[both],
                    float(base[both].mean()),
                    paired=True,
                    delta=delta,
                    relative=relative,
                    alpha=alpha,
                    power=power,
                    alternative=alternative,
                )
            )
    return pd.DataFrame(rows, columns=list(SAMPLE_SIZE_COLUMNS))


#: The column that tells this frame's per-query rows from the reference's in
#: :func:`per_segment` (dropped before the tables are computed)
_SIDE = "__rankframe_side__"


def per_segment(
    table: Callable[[pd.DataFrame, pd.DataFrame | None], pd.DataFrame],
    per_query: pd.DataFrame,
    by: Sequence[str],
    reference: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``table(per_query, reference)`` once per segment of the ``by`` columns (each
    constant within a query), the segment's values leading its rows in their own dtypes:
    each segment's sizes from its own queries (and the reference's queries of the same
    segment). Segments are this frame's, in sorted order (a missing value last); without
    ``by``, the one table."""
    if not by:
        return table(per_query, reference)
    sides = [per_query.assign(**{_SIDE: 0})]
    if reference is not None:
        sides.append(reference.assign(**{_SIDE: 1}))
    both = pd.concat(sides, ignore_index=True)
    parts = []
    for _, rows in both.groupby(list(by), dropna=False, sort=True, observed=True):
        mine = rows[rows[_SIDE] == 0].drop(columns=_SIDE)
        if mine.empty:  # a segment of the reference alone
            continue
        theirs = None if reference is None else rows[rows[_SIDE] == 1].drop(columns=_SIDE)
        out = table(mine, theirs)
        keys = mine[list(by)].iloc[np.zeros(len(out), dtype=np.int64)].reset_index(drop=True)
        parts.append(pd.concat([keys, out.reset_index(drop=True)], axis=1))
    if not parts:
        empty = table(per_query.iloc[:0], None if reference is None else reference.iloc[:0])
        return pd.concat([per_query[list(by)].iloc[:0], empty], axis=1)
    return pd.concat(parts, ignore_index=True)
