"""The two-sample statistics of rankframe.stats.two_sample (issue 27): Welch's t-test and interval,
the two-sample permutation test, the independent bootstrap, Mann-Whitney U.

References: scipy.stats (``ttest_ind(equal_var=False)`` and its ``confidence_interval``,
``mannwhitneyu(method="asymptotic")``), an exact enumeration of every split of a tiny
pooled sample, a plain bootstrap written out here with the documented random stream, and
the Welch formulas written out for the difference of two sums.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import pytest
from scipy import stats

from rankframe.stats import two_sample


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _samples(seed: int, n1: int, n2: int, m: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.random((n1, m)), rng.random((n2, m)) * 1.5 + 0.1


@pytest.mark.parametrize(("n1", "n2"), [(2, 2), (3, 7), (12, 5), (200, 150)])
def test_welch_matches_scipy(n1: int, n2: int) -> None:
    x, y = _samples(n1 + n2, n1, n2)
    expected = stats.ttest_ind(x, y, equal_var=False)
    t, p = two_sample.welch_t_test(x, y)
    np.testing.assert_allclose(t, expected.statistic, rtol=1e-10)
    np.testing.assert_allclose(p, expected.pvalue, rtol=1e-10)
    for level in (0.9, 0.95):
        low, high = two_sample.welch_interval(x, y, level)
        interval = expected.confidence_interval(level)
        np.testing.assert_allclose(low, interval.low, rtol=1e-10)
        np.testing.assert_allclose(high, interval.high, rtol=1e-10)


def test_welch_of_sums_written_out() -> None:
    # the difference of two sums, n1 mean1 - n2 mean2, with se**2 = n1 s1**2 + n2 s2**2
    x = np.array([1.0, 3.0, 2.0, 6.0])
    y = np.array([2.0, 0.0, 1.0])
    s1, s2 = np.var(x, ddof=1), np.var(y, ddof=1)  # 14/3, 1
    a1, a2 = len(x) * s1, len(y) * s2  # 56/3, 3
    se = math.sqrt(a1 + a2)
    df = (a1 + a2) ** 2 / (a1**2 / 3 + a2**2 / 2)
    t = (12.0 - 3.0) / se
    t_got, p_got = two_sample.welch_t_test(x, y, totals=True)
    assert t_got == pytest.approx(t, rel=1e-12)
    assert p_got == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-10)
    low, high = two_sample.welch_interval(x, y, 0.95, totals=True)
    half = stats.t.ppf(0.975, df) * se
    assert (low, high) == pytest.approx((9.0 - half, 9.0 + half), rel=1e-10)
    # equal sizes: the test of the sums is the test of the means
    z = np.array([0.5, 4.0, 1.0, 2.0])
    assert two_sample.welch_t_test(x, z, totals=True)[1] == pytest.approx(
        stats.ttest_ind(x, z, equal_var=False).pvalue, rel=1e-10
    )


def test_welch_edge_cases() -> None:
    t, p = two_sample.welch_t_test(np.array([1.0]), np.array([1.0, 2.0]))
    assert math.isnan(t)
    assert math.isnan(p)
    low, high = two_sample.welch_interval(np.array([2.0, 2.0]), np.array([1.0, 1.0]))
    assert (low, high) == (1.0, 1.0)  # both variances 0: zero width at the estimate
    _, p = two_sample.welch_t_test(np.array([1.0, np.nan]), np.array([1.0, 2.0]))
    assert math.isnan(p)


def _exact_permutation_p(x: np.ndarray, y: np.ndarray) -> float:
    """Every split of the pooled values into n1 and n2: the share whose |mean difference|
    reaches the observed one."""
    pooled = np.concatenate([x, y])
    observed = abs(x.mean() - y.mean())
    n, n1 = len(pooled), len(x)
    hits = total = 0
    for chosen in itertools.combinations(range(n), n1):
        mask = np.zeros(n, dtype=bool)
        mask[list(chosen)] = True
        total += 1
        hits += abs(pooled[mask].mean() - pooled[~mask].mean()) >= observed - 1e-12
    return hits / total


@pytest.mark.parametrize(
    ("x", "y"),
    [
        ([0.9, 0.7, 1.0], [0.2, 0.5, 0.1, 0.4]),
        ([0.5, 1.0, 0.0, 1.0], [0.5, 0.25, 1.0]),  # ties across the sides
    ],
)
def test_two_sample_permutation_against_exact_enumeration(x: list[float], y: list[float]) -> None:
    a, b = np.array(x), np.array(y)
    exact = _exact_permutation_p(a, b)
    r = 20_000
    p = float(two_sample.two_sample_permutation_test(a, b, r, seed=7))
    # a Monte-Carlo estimate of the exact p-value: within 4 standard errors
    assert p == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / r) + 1 / r)


def test_two_sample_permutation_columns_and_seed() -> None:
    x, y = _samples(3, 6, 9)
    both = two_sample.two_sample_permutation_test(x, y, 500, seed=1)
    alone = two_sample.two_sample_permutation_test(x[:, 1], y[:, 1], 500, seed=1)
    assert both[1] == alone  # every column sees the same shuffles
    again = two_sample.two_sample_permutation_test(x, y, 500, seed=1)
    np.testing.assert_array_equal(both, again)
    assert (both >= 1 / 501).all()
    assert math.isnan(two_sample.two_sample_permutation_test(x[:0], y, 10, seed=0)[0])


def _plain_bootstrap(
    x: np.ndarray, y: np.ndarray, level: float, r: int, seed: int, totals: bool = False
) -> tuple[float, float]:
    """Resample each side with replacement, r times, from the documented stream (one task:
    the first stream spawned from the seed), and take the percentile interval."""
    rng = np.random.default_rng(seed).spawn(1)[0]
    ix = rng.integers(0, len(x), size=(r, len(x)))
    iy = rng.integers(0, len(y), size=(r, len(y)))
    w1, w2 = (len(x), len(y)) if totals else (1, 1)
    values = [w1 * x[ix[i]].mean() - w2 * y[iy[i]].mean() for i in range(r)]
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


@pytest.mark.parametrize("totals", [False, True])
def test_independent_bootstrap_reproduces_a_plain_one(totals: bool) -> None:
    x, y = _samples(11, 8, 13, m=1)
    got = two_sample.two_sample_bootstrap_interval(
        x[:, 0], y[:, 0], 0.9, 700, seed=5, totals=totals
    )
    want = _plain_bootstrap(x[:, 0], y[:, 0], 0.9, 700, 5, totals)
    assert (float(got[0]), float(got[1])) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(("n1", "n2"), [(3, 4), (9, 12), (60, 40)])
def test_mann_whitney_matches_scipy(n1: int, n2: int) -> None:
    x, y = _samples(n1 * n2, n1, n2)
    x, y = np.round(x * 4) / 4, np.round(y * 4) / 4  # ties within and across the sides
    expected = _quiet(stats.mannwhitneyu, x, y, method="asymptotic")
    u, p = two_sample.mann_whitney_test(x, y)
    np.testing.assert_allclose(u, expected.statistic, rtol=1e-12)
    np.testing.assert_allclose(p, expected.pvalue, rtol=1e-10)
