"""``sample_size()``: how many queries a t-test needs to detect a change, from the per-query
values in hand (statsmodels' ``TTestPower`` / ``TTestIndPower`` ``solve_power``, with the
effect size from the observed standard deviation)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from rankframe.stats.inference import t_test_sample_size

__all__ = ["SAMPLE_SIZE_COLUMNS", "sample_sizes"]

#: The columns of ``sample_size()``'s table, the answer first
SAMPLE_SIZE_COLUMNS = ("system", "metric", "n_needed", "n_queries", "enough", "delta",
                       "effect_size", "sd", "test")


def _row(system: str, metric: str, values: pd.Series, reference_mean: float, *, paired: bool,
         delta: float, relative: bool, alpha: float, power: float,
         alternative: str) -> dict[str, object]:
    """One (system, metric): ``values`` are the paired differences or the system's values."""
    x = values.to_numpy(dtype=float)
    x = x[~np.isnan(x)]
    change = delta * abs(reference_mean) if relative else delta
    sd = float(np.std(x, ddof=1)) if len(x) > 1 else math.nan
    effect = change / sd if sd > 0 else math.nan
    n = (t_test_sample_size(effect, alpha, power, alternative, two_sample=not paired)
         if math.isfinite(effect) else math.nan)
    needed = float(math.ceil(n - 1e-9)) if math.isfinite(n) else n
    return {"system": system, "metric": metric, "n_needed": needed, "n_queries": len(x),
            "enough": bool(len(x) >= needed) if not math.isnan(needed) else False,
            "delta": change, "effect_size": effect, "sd": sd,
            "test": "paired t-test" if paired else "two-sample t-test"}


def sample_sizes(per_query: pd.DataFrame, metrics: Sequence[str], keys: Sequence[str],
                 systems: Sequence[str], baseline: str | None, *, delta: float,
                 relative: bool, alpha: float, power: float, alternative: str) -> pd.DataFrame:
    """The table of ``sample_size()`` from ``per_query()``'s rows (``keys``: the query key
    columns; a ``system`` column when there are several systems)."""
    if "system" in per_query.columns:
        # one value per cell: no aggregation (pivot_table would average)
        wide = per_query.pivot(  # noqa: PD010
            index=list(keys), columns="system", values=list(metrics))
    else:
        wide = per_query.set_index(list(keys))[list(metrics)]
        wide.columns = pd.MultiIndex.from_product([list(metrics), [systems[0]]])
    rows = []
    for system in systems:
        if system == baseline:
            continue
        for metric in metrics:
            values = wide[(metric, system)]
            if baseline is None:  # this frame against a sample like it: two samples
                rows.append(_row(system, metric, values, float(values.mean()), paired=False,
                                 delta=delta, relative=relative, alpha=alpha, power=power,
                                 alternative=alternative))
                continue
            base = wide[(metric, baseline)]
            both = values.notna() & base.notna()
            rows.append(_row(system, metric, (values - base)[both], float(base[both].mean()),
                             paired=True, delta=delta, relative=relative, alpha=alpha,
                             power=power, alternative=alternative))
    return pd.DataFrame(rows, columns=list(SAMPLE_SIZE_COLUMNS))
