"""Two samples of independent queries: Welch's t-test and interval, the permutation test,
the bootstrap interval and test, and the Mann-Whitney U test, per column; and the t-test of
an estimate from its standard error (:func:`t_test_of`, with :func:`welch_error`).

The current and the reference side hold different queries (``compare(reference=...)`` with
other query ids, a window against the previous one): each column of ``x`` (the current
side's queries) is compared with the same column of ``y`` (the reference's). The quantity
is ``w1 * mean(x) - w2 * mean(y)``: the difference of the means (``totals`` False), or of
the sums (``totals`` True: ``w1 = n1``, ``w2 = n2``), column by column.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rankframe.stats._arrays import (
    FloatArray,
    Seed,
    as_two_columns,
    central_tails,
    midranks,
    scipy_special,
    side_weights,
)
from rankframe.stats.resampling import (
    BOOT_STEP,
    monte_carlo_hits,
    percentile_test,
    two_sample_resampled,
)

__all__ = [
    "ALTERNATIVES",
    "mann_whitney_test",
    "t_test_of",
    "two_sample_bootstrap_interval",
    "two_sample_bootstrap_test",
    "two_sample_permutation_test",
    "welch_error",
    "welch_interval",
    "welch_t_test",
]


def _welch(
    x: FloatArray, y: FloatArray, totals: npt.ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per column: the estimate ``w1 mean(x) - w2 mean(y)``, its standard error and the
    Welch-Satterthwaite degrees of freedom (NaN where a side has fewer than 2 queries)."""
    (n1, m), n2 = x.shape, y.shape[0]
    w1, w2 = side_weights(totals, m, n1, n2)
    if n1 < 2 or n2 < 2:
        nan = np.full(m, np.nan)
        with np.errstate(invalid="ignore"):
            mx = x.mean(axis=0) if n1 else nan
            my = y.mean(axis=0) if n2 else nan
        return w1 * mx - w2 * my, nan.copy(), nan.copy()
    mx, my = x.mean(axis=0), y.mean(axis=0)
    # as scipy's ttest_ind: ddof=1 variances
    vx = np.mean((x - mx) ** 2, axis=0) * (n1 / (n1 - 1))
    vy = np.mean((y - my) ** 2, axis=0) * (n2 / (n2 - 1))
    se, df = welch_error(n1, w1**2 * vx, n2, w2**2 * vy)
    return w1 * mx - w2 * my, se, df


def welch_error(
    n1: npt.ArrayLike, var1: npt.ArrayLike, n2: npt.ArrayLike, var2: npt.ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """The standard error of a difference of two independent means and its
    Welch-Satterthwaite degrees of freedom, from each side's size and (ddof=1) variance:
    ``se = sqrt(var1 / n1 + var2 / n2)``, ``df = se**4 / (a1**2 / (n1 - 1) + a2**2 / (n2 -
    1))`` with ``a = var / n``. Elementwise (any shapes that broadcast); a side of fewer than
    2 values gives NaN."""
    n1, n2 = np.asarray(n1, dtype=np.float64), np.asarray(n2, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a1 = np.where(n1 >= 2, np.asarray(var1, dtype=np.float64) / n1, np.nan)
        a2 = np.where(n2 >= 2, np.asarray(var2, dtype=np.float64) / n2, np.nan)
        df = (a1 + a2) ** 2 / (a1**2 / (n1 - 1) + a2**2 / (n2 - 1))
    return np.sqrt(a1 + a2), np.asarray(df, dtype=np.float64)


#: The alternatives of a t-test (scipy's ``alternative=``): the estimate differs from 0,
#: is below it, or above it.
ALTERNATIVES = ("two-sided", "less", "greater")


def t_test_of(
    estimate: npt.ArrayLike,
    se: npt.ArrayLike,
    df: npt.ArrayLike,
    *,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """A t-test of "``estimate`` = 0" and its interval, from the estimate, its standard error
    and degrees of freedom (elementwise): the statistic ``estimate / se``, the p-value of
    ``alternative`` (``"two-sided"``: ``2 P(T_df >= |t|)``; ``"less"``: ``P(T_df <= t)``;
    ``"greater"``: ``P(T_df >= t)``) and the interval at ``confidence_level`` that goes with
    it, as scipy's ``TtestResult.confidence_interval``: central for two-sided, else
    one-sided (``(-inf, estimate + se t_df(level)]`` for ``"less"``). ``se == 0`` gives the
    zero-width interval at the estimate (and a p-value of 0, or NaN for an estimate of 0);
    NaN in, NaN out."""
    est = np.asarray(estimate, dtype=np.float64)
    se_ = np.asarray(se, dtype=np.float64)
    df_ = np.asarray(df, dtype=np.float64)
    special = scipy_special()
    with np.errstate(divide="ignore", invalid="ignore"):
        t = est / se_
        if alternative == "less":
            p = special.stdtr(df_, t)
        elif alternative == "greater":
            p = special.stdtr(df_, -t)
        else:
            p = 2.0 * special.stdtr(df_, -np.abs(t))
        if alternative == "two-sided":
            q_low, q_high = (special.stdtrit(df_, q) for q in central_tails(confidence_level))
        else:
            q = special.stdtrit(df_, confidence_level)
            q_low = -q if alternative == "greater" else np.full_like(t, -np.inf)
            q_high = q if alternative == "less" else np.full_like(t, np.inf)
        low = np.where(se_ == 0, est, est + se_ * q_low)
        high = np.where(se_ == 0, est, est + se_ * q_high)
    return t, np.asarray(p, dtype=np.float64), low, high


def welch_t_test(
    x: npt.ArrayLike, y: npt.ArrayLike, totals: npt.ArrayLike = False
) -> tuple[FloatArray, FloatArray]:
    """Two-sided Welch's t-test of "no difference" between two independent samples, per column.

    Parameters
    ----------
    x, y : array_like, shapes (n1,) / (n2,) or (n1, m) / (n2, m)
        Per-query values of the two sides; column ``j`` of ``x`` against column ``j`` of ``y``.
    totals : bool or array_like of bool, shape (m,)
        Columns whose quantity is the difference of the sums ``n1 mean(x) - n2 mean(y)``
        rather than of the means.

    Returns
    -------
    statistic, p_value : ndarray of float, shape ``x.shape[1:]``
        ``t = estimate / se`` with ``se**2 = w1**2 s1**2 / n1 + w2**2 s2**2 / n2`` (``w`` = 1,
        or n for a sum; ``s**2`` the ddof=1 variances), and ``p = 2 P(T_df >= |t|)`` with
        the Welch-Satterthwaite ``df = se**4 / (a1**2 / (n1 - 1) + a2**2 / (n2 - 1))``,
        ``a = w**2 s**2 / n``.

    Notes
    -----
    For means (and for sums when ``n1 == n2``, where the two are one test) equal to
    ``scipy.stats.ttest_ind(x, y, equal_var=False)``. Fewer than 2 values on a side, both
    variances 0, or a NaN in a column: NaN.
    """
    a, b, shape = as_two_columns(x, y)
    estimate, se, df = _welch(a, b, totals)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = estimate / se
    p = 2.0 * scipy_special().stdtr(df, -np.abs(t))
    return t.reshape(shape), np.asarray(p, dtype=np.float64).reshape(shape)


def welch_interval(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    confidence_level: float = 0.95,
    totals: npt.ArrayLike = False,
) -> tuple[FloatArray, FloatArray]:
    """Welch-Satterthwaite t interval of ``w1 mean(x) - w2 mean(y)``, per column.

    ``estimate + se * t_df((1 -+ confidence_level) / 2)`` with the ``se`` and ``df`` of
    :func:`welch_t_test`: ``scipy.stats.ttest_ind(x, y, equal_var=False)
    .confidence_interval(confidence_level)`` for means. Both variances 0 gives the zero-width
    interval at the estimate; fewer than 2 values on a side, or a NaN, gives NaN.
    """
    a, b, shape = as_two_columns(x, y)
    estimate, se, df = _welch(a, b, totals)
    with np.errstate(invalid="ignore"):
        tail_low, tail_high = central_tails(confidence_level)
        q_low = scipy_special().stdtrit(df, tail_low)
        q_high = scipy_special().stdtrit(df, tail_high)
    low = np.where(se == 0, estimate, estimate + se * q_low)
    high = np.where(se == 0, estimate, estimate + se * q_high)
    return low.reshape(shape), high.reshape(shape)


def two_sample_permutation_test(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    n_resamples: int = 10_000,
    seed: Seed = None,
    totals: npt.ArrayLike = False,
) -> FloatArray:
    """Two-sided two-sample permutation test of "no difference", per column.

    The ``n1 + n2`` values are pooled and shuffled ``n_resamples`` times; the first ``n1``
    of each shuffle play ``x``, the rest ``y``. Returns
    ``(1 + #{resamples: |D*| >= |D| - tol}) / (1 + n_resamples)`` with ``D = w1 mean(x) -
    w2 mean(y)`` (:func:`welch_t_test`'s quantity), ``D*`` the same of a shuffle, and
    ``tol = 1e-12 (w1 mean|x| + w2 mean|y|)`` for rounding. Never 0.

    The shuffles: tasks of about ``2**20 / (n1 + n2)`` resamples, each drawing from its own
    stream of ``numpy.random.default_rng(seed).spawn(n_tasks)`` one row of
    ``rng.permuted(np.tile(np.arange(n1 + n2), (size, 1)), axis=1)`` per resample; every
    column sees the same shuffles. An empty side, or a NaN (or infinite) value, gives NaN.
    """
    a, b, shape = as_two_columns(x, y)
    (n1, m), n2 = a.shape, b.shape[0]
    p_value = np.full(m, np.nan)
    if n1 == 0 or n2 == 0:
        return p_value.reshape(shape)
    w1, w2 = side_weights(totals, m, n1, n2)
    pooled = np.concatenate([a, b])
    finite = np.asarray(np.isfinite(pooled).all(axis=0))
    pooled = np.where(finite, pooled, 0.0)
    columns = np.ascontiguousarray(pooled.T)  # (m, n1 + n2)
    total = columns.sum(axis=1)
    observed = np.abs(w1 * a.sum(axis=0) / n1 - w2 * b.sum(axis=0) / n2)
    scale = w1 * np.abs(a).sum(axis=0) / n1 + w2 * np.abs(b).sum(axis=0) / n2
    threshold = np.where(finite, observed - 1e-12 * scale, np.inf)
    n = n1 + n2
    chunk = max(1, BOOT_STEP // n)
    starts = range(0, n_resamples, chunk)

    def count(task: tuple[int, np.random.Generator]) -> npt.NDArray[np.int64]:
        start, rng = task
        size = min(chunk, n_resamples - start)
        index = rng.permuted(np.tile(np.arange(n, dtype=np.intp), (size, 1)), axis=1)[:, :n1]
        hits = np.zeros(m, dtype=np.int64)
        for j in range(m):  # every column sees the same shuffles
            sx = columns[j].take(index).sum(axis=1)
            stat = w1[j] * sx / n1 - w2[j] * (total[j] - sx) / n2
            hits[j] = np.count_nonzero(np.abs(stat) >= threshold[j])
        return hits

    hits = monte_carlo_hits(count, starts, seed, m)
    p_value[finite] = (1.0 + hits[finite]) / (1.0 + n_resamples)
    return p_value.reshape(shape)


def two_sample_bootstrap_interval(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed: Seed = None,
    totals: npt.ArrayLike = False,
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval of ``w1 mean(x) - w2 mean(y)``, resampling each side
    independently, per column.

    Each resample draws ``n1`` values of ``x`` and ``n2`` of ``y`` uniformly with
    replacement; the interval is the ``(1 -+ confidence_level) / 2`` quantiles (``np.quantile``,
    ``method="linear"``) of the resampled quantities. The draws: tasks of about
    ``2**20 / (n1 + n2)`` resamples, each with its own stream ``rng`` of
    ``numpy.random.default_rng(seed).spawn(n_tasks)``, drawing
    ``rng.integers(0, n1, size=(size, n1))`` then ``rng.integers(0, n2, size=(size, n2))``;
    every column sees the same draws. An empty side, or a NaN (or infinite) value, gives NaN.
    """
    a, b, shape = as_two_columns(x, y)
    (n1, m), n2 = a.shape, b.shape[0]
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    if n1 == 0 or n2 == 0:
        return low.reshape(shape), high.reshape(shape)
    w1, w2 = side_weights(totals, m, n1, n2)
    finite = np.asarray(np.isfinite(a).all(axis=0) & np.isfinite(b).all(axis=0))
    xs = np.ascontiguousarray(np.where(finite, a, 0.0).T)
    ys = np.ascontiguousarray(np.where(finite, b, 0.0).T)
    values = two_sample_resampled(xs, ys, w1, w2, n_resamples, seed)
    q = np.quantile(values, central_tails(confidence_level), axis=1, method="linear")
    low[finite], high[finite] = q[0][finite], q[1][finite]
    return low.reshape(shape), high.reshape(shape)


def two_sample_bootstrap_test(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed: Seed = None,
    alternative: str = "two-sided",
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Percentile bootstrap test of "equal means" of two independent samples, per column:
    the p-value and the interval of :func:`percentile_test` over the resampled
    ``mean(x*) - mean(y*)`` of :func:`two_sample_bootstrap_interval` (the same draws, each
    side resampled on its own: its interval, two-sided, is that function's). Returns
    ``(p_value, low, high)``; an empty side, or a NaN (or infinite) value, gives NaN."""
    a, b, shape = as_two_columns(x, y)
    (n1, m), n2 = a.shape, b.shape[0]
    if n1 == 0 or n2 == 0:
        nan = np.full(shape, np.nan)
        return nan, nan.copy(), nan.copy()
    finite = np.isfinite(a).all(axis=0) & np.isfinite(b).all(axis=0)
    xs = np.ascontiguousarray(np.where(finite, a, 0.0).T)
    ys = np.ascontiguousarray(np.where(finite, b, 0.0).T)
    ones = np.ones(m)
    resampled = two_sample_resampled(xs, ys, ones, ones, n_resamples, seed)
    resampled[~finite] = np.nan
    scale = np.maximum(np.abs(xs).max(axis=1), np.abs(ys).max(axis=1))
    out = percentile_test(resampled, scale, confidence_level, alternative)
    return tuple(a.reshape(shape) for a in out)  # type: ignore[return-value]


def mann_whitney_test(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Two-sided Mann-Whitney U test of two independent samples, per column.

    Returns ``U1`` (the U of ``x``: its rank sum in the pooled sample, tied values given
    their average rank, minus ``n1 (n1 + 1) / 2``) and the p-value of the normal
    approximation with tie and continuity corrections: ``z = (max(U1, U2) - n1 n2 / 2 -
    0.5) / s``, ``s**2 = n1 n2 / 12 ((n + 1) - sum(t**3 - t) / (n (n - 1)))``,
    ``p = min(1, 2 (1 - Phi(z)))``: ``scipy.stats.mannwhitneyu(x, y,
    method="asymptotic")``, for every sample size (scipy's default switches to its exact
    distribution below 8 values per side without ties). An empty side or a NaN: NaN.
    """
    a, b, shape = as_two_columns(x, y)
    (n1, m), n2 = a.shape, b.shape[0]
    statistic, p_value = np.full(m, np.nan), np.full(m, np.nan)
    finite = np.asarray(~np.isnan(a).any(axis=0) & ~np.isnan(b).any(axis=0))
    if n1 == 0 or n2 == 0 or not finite.any():
        return statistic.reshape(shape), p_value.reshape(shape)
    n = n1 + n2
    pooled = np.concatenate([a, b])[:, finite].T  # (m', n): one row per column
    ranks, tie, _ = midranks(pooled)
    u1 = ranks[:, :n1].sum(axis=1) - n1 * (n1 + 1) / 2.0
    u = np.maximum(u1, n1 * n2 - u1)
    s = np.sqrt(n1 * n2 / 12.0 * ((n + 1.0) - tie / (n * (n - 1.0))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (u - n1 * n2 / 2.0 - 0.5) / s
    statistic[finite] = u1
    p_value[finite] = np.clip(2.0 * scipy_special().ndtr(-z), 0.0, 1.0)
    return statistic.reshape(shape), p_value.reshape(shape)
