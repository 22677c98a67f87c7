"""Sample size and power of t-tests: the power at an effect, the smallest detectable effect
for a table of sizes, and the sample size that reaches a power (statsmodels' ``TTestPower``
and ``TTestIndPower``).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from rankframe.stats._arrays import FloatArray, scipy_special

__all__ = ["t_test_detectable_effect", "t_test_power", "t_test_sample_size"]


#: ``alternative`` of the tests (scipy's names) -> the tail(s) a power calculation reads
_POWER_TAILS = {"two-sided": (True, True), "greater": (True, False), "less": (False, True)}


def t_test_power(
    effect: float,
    n: float,
    alpha: float,
    alternative: str = "two-sided",
    *,
    two_sample: bool = False,
    ratio: float = 1.0,
) -> float:
    """The power of a t-test at ``alpha`` against a standardized effect ``effect``: one
    sample (or paired differences) of ``n``, or (``two_sample``) two samples of ``n`` and
    ``ratio * n`` with a common standard deviation. The probability that the noncentral t
    statistic (``df`` ``n - 1``, or ``n + ratio n - 2``; noncentrality ``effect * sqrt(n)``,
    or ``effect / sqrt(1 / n + 1 / (ratio n))``) falls beyond the test's critical value(s),
    as statsmodels' ``TTestPower.power`` and ``TTestIndPower.power`` compute it."""
    return float(
        _t_power(
            np.float64(effect),
            np.float64(n),
            np.float64(ratio * n) if two_sample else None,
            alpha,
            alternative,
        )
    )


def _t_power(
    effect: FloatArray | np.float64,
    n: FloatArray | np.float64,
    n2: FloatArray | np.float64 | None,
    alpha: float,
    alternative: str,
) -> FloatArray:
    """:func:`t_test_power`, elementwise over arrays (``n2`` None: one sample)."""
    special = scipy_special()
    if n2 is None:
        df, nobs = n - 1.0, n
    else:
        df, nobs = n + n2 - 2.0, 1.0 / (1.0 / n + 1.0 / n2)
    nc = effect * np.sqrt(nobs)
    upper, lower = _POWER_TAILS[alternative]
    level = alpha / 2.0 if upper and lower else alpha
    crit = special.stdtrit(df, 1.0 - level)
    power = np.zeros(np.broadcast(effect, n).shape)
    # a tail far from the noncentrality can come out NaN at few degrees of freedom (scipy's
    # nctdtr): its probability is then negligible
    if upper:
        power = power + np.nan_to_num(1.0 - special.nctdtr(df, nc, crit), nan=0.0)
    if lower:
        power = power + np.nan_to_num(special.nctdtr(df, nc, -crit), nan=0.0)
    return np.asarray(np.where(df >= 1.0, power, np.nan), dtype=np.float64)


def t_test_detectable_effect(
    n: npt.ArrayLike,
    alpha: float,
    power: float,
    alternative: str = "two-sided",
    *,
    n2: npt.ArrayLike | None = None,
) -> FloatArray:
    """The smallest standardized effect a t-test at ``alpha`` detects with ``power``, per
    element of ``n`` (one sample, or paired differences, of ``n``; two samples of ``n`` and
    ``n2``): statsmodels' ``TTestPower`` / ``TTestIndPower`` ``solve_power(effect_size=None,
    nobs1=n, ratio=n2 / n)``, as a magnitude (for ``"less"``, the effect is ``-`` it). NaN
    where the test has no degrees of freedom (``n < 2``; ``n + n2 < 3``). Solved by
    bisection on all elements at once (the power rises with the effect)."""
    n_ = np.asarray(n, dtype=np.float64)
    n2_ = None if n2 is None else np.broadcast_to(np.asarray(n2, dtype=np.float64), n_.shape)
    with np.errstate(invalid="ignore"):
        df = n_ - 1.0 if n2_ is None else n_ + n2_ - 2.0
        valid = (df >= 1.0) & (n_ > 0) & (n2_ > 0 if n2_ is not None else True)
    # solved once per distinct size (a table's rows share few sizes)
    pairs = np.stack(
        [
            np.where(valid, n_, 2.0).ravel(),
            np.where(valid, n2_, 2.0).ravel() if n2_ is not None else np.zeros(n_.size),
        ]
    )
    distinct, back = np.unique(pairs, axis=1, return_inverse=True)
    size = distinct[0]
    size2 = None if n2_ is None else distinct[1]
    sign = -1.0 if alternative == "less" else 1.0

    def short(effect: FloatArray) -> FloatArray:
        return _t_power(sign * effect, size, size2, alpha, alternative) - power

    low, high = np.zeros(size.shape), np.ones(size.shape)
    for _ in range(64):  # a standardized effect beyond 2**64 is no effect anyone asks for
        grow = short(high) < 0
        if not grow.any():
            break
        high = np.where(grow, high * 2.0, high)
    for _ in range(200):
        middle = (low + high) / 2.0
        below = short(middle) < 0
        low, high = np.where(below, middle, low), np.where(below, high, middle)
        if np.all(high - low <= 1e-14 * high):
            break
    effect = ((low + high) / 2.0)[np.ravel(back)].reshape(n_.shape)
    return np.asarray(np.where(valid, effect, np.nan), dtype=np.float64)


def t_test_sample_size(
    effect: float,
    alpha: float,
    power: float,
    alternative: str = "two-sided",
    *,
    two_sample: bool = False,
) -> float:
    """The (fractional) ``n`` at which :func:`t_test_power` reaches ``power``: statsmodels'
    ``solve_power(nobs=None)`` (per sample, ``ratio=1``, for ``two_sample``); ``inf`` for a
    zero effect, or an effect in the direction a one-sided test does not look."""
    upper, lower = _POWER_TAILS[alternative]
    if (
        effect == 0
        or not math.isfinite(effect)
        or (effect < 0 and not lower)
        or (effect > 0 and not upper)
    ):
        return math.inf

    def short(n: float) -> float:
        return t_test_power(effect, n, alpha, alternative, two_sample=two_sample) - power

    low = 2.0 if not two_sample else 1.5  # the smallest n with a positive df
    if short(low) >= 0:
        return low
    high = 4.0
    while short(high) < 0:
        high *= 2.0
    from scipy.optimize import brentq  # heavy: imported when a sample size is asked for

    return float(brentq(short, low, high, xtol=1e-10, rtol=1e-12))
