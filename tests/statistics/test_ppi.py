"""rankframe.stats.ppi against ppi_py (the ppi_python package): the prediction-powered mean and
interval (PPI, and PPI++ with its tuned weight), per column, on per-query values and on
paired differences; the people-only and judge-only estimates against rankframe's own t
interval and t-test; the documented edge cases; and a simulation of many collections judged
by a biased, noisy judge that measures the intervals' coverage and width.

ppi_py is imported in a fixture, not at the top: `make test-floors` collects this module in a
venv without it (and deselects these tests, which take no frame); and importing ppi_py calls
``warnings.simplefilter("ignore")``, which the fixture undoes at once.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from rankframe.exceptions import InvalidOptionError
from rankframe.stats import intervals, paired, ppi
from rankframe.stats.ppi import JudgedValues


@pytest.fixture(scope="module")
def ppi_py() -> ModuleType:
    with warnings.catch_warnings():  # ppi_py's import silences every warning: undone here
        import ppi_py as module

    return module


def _close(actual: Any, expected: Any) -> None:
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-14, equal_nan=True)


def _values(seed: int, n: int, big_n: int, m: int, bias: float = 0.1) -> tuple[Any, Any, Any]:
    """People's per-query values, and a judge's: biased, noisy, on n + big_n queries."""
    rng = np.random.default_rng(seed)
    gold = rng.beta(2.0, 3.0, (n + big_n, m))
    judge = gold + bias + rng.normal(0.0, 0.15, gold.shape) * rng.random(m)  # noise per column
    return gold[:n], judge[:n], judge[n:]


SIZES = [(10, 40, 1), (60, 500, 3), (200, 200, 2)]


@pytest.mark.parametrize(("n", "big_n", "m"), SIZES)
@pytest.mark.parametrize("confidence_level", [0.9, 0.95])
def test_ppi_equals_ppi_py(
    ppi_py: ModuleType, n: int, big_n: int, m: int, confidence_level: float
) -> None:
    y, f, g = _values(n, n, big_n, m)
    est = ppi.estimate_mean(JudgedValues.of(y, f, g), "ppi", confidence_level)
    low, high = ppi_py.ppi_mean_ci(y, f, g, alpha=1 - confidence_level, lam=1)
    _close(est.low, low)
    _close(est.high, high)
    _close(est.mean, ppi_py.ppi_mean_pointestimate(y, f, g, lam=1))
    assert est.estimate == "ppi"
    _close(est.lam, np.ones(m))
    assert (est.n_gold, est.n_unlabelled) == (n, big_n)


@pytest.mark.parametrize(("n", "big_n", "m"), SIZES)
def test_ppi_plus_plus_equals_ppi_py_with_one_weight_per_column(
    ppi_py: ModuleType, n: int, big_n: int, m: int
) -> None:
    y, f, g = _values(n + 1, n, big_n, m)
    est = ppi.estimate_mean(JudgedValues.of(y, f, g), "ppi++")
    low, high = ppi_py.ppi_mean_ci(y, f, g, alpha=0.05, lam=None, lam_optim_mode="element")
    _close(est.low, low)
    _close(est.high, high)
    point = ppi_py.ppi_mean_pointestimate(y, f, g, lam=None, lam_optim_mode="element")
    _close(est.mean, point)
    assert ((est.lam >= 0) & (est.lam <= 1)).all()
    for j in range(m):  # column by column, ppi_py's one-dimensional form
        low_j, high_j = ppi_py.ppi_mean_ci(y[:, j], f[:, j], g[:, j], alpha=0.05, lam=None)
        _close([est.low[j], est.high[j]], np.concatenate([low_j, high_j]))
        # the tuned weight is ppi_py's: given as lam=, it gives the same interval
        fixed = ppi_py.ppi_mean_ci(y[:, j], f[:, j], g[:, j], alpha=0.05, lam=est.lam[j])
        _close(np.concatenate(fixed), [est.low[j], est.high[j]])


def test_the_tuned_weight_is_clipped_to_zero_and_one(ppi_py: ModuleType) -> None:
    """A judge that runs against people (negative covariance) gets 0; one that understates
    people's spread (a covariance above its variance) gets 1, as ppi_py's clip."""
    rng = np.random.default_rng(7)
    y = rng.random((50, 2))
    f = np.column_stack([1 - y[:, 0], 0.5 + 0.3 * (y[:, 1] - 0.5)])
    g = np.column_stack([rng.random(200), 0.5 + 0.3 * (rng.random(200) - 0.5)])
    values = JudgedValues.of(y, f, g)
    _close(ppi.power_tuning(values), [0.0, 1.0])
    est = ppi.ppi_mean(values, lam=None)
    low, high = ppi_py.ppi_mean_ci(y, f, g, alpha=0.05, lam=None, lam_optim_mode="element")
    _close([est.low, est.high], [low, high])


@pytest.mark.parametrize("estimate", ["ppi", "ppi++"])
def test_p_value_equals_ppi_py(ppi_py: ModuleType, estimate: str) -> None:
    """The z-test of "mean = 0" that inverts the interval: ppi_py's ppi_mean_pval at the same
    weight (ppi_py's lam=None leaves the weight of its p-value unclipped; rankframe's test
    uses the weight of its interval, so that p < 1 - confidence level exactly when the
    interval leaves 0 out)."""
    y, f, g = _values(3, 40, 300, 3, bias=0.0)
    y, f, g = y - 0.42, f - 0.42, g - 0.42  # means near 0: p-values of every size
    est = ppi.estimate_mean(JudgedValues.of(y, f, g), estimate)
    for j in range(3):
        p = ppi_py.ppi_mean_pval(y[:, j], f[:, j], g[:, j], lam=float(est.lam[j]))
        _close(est.p_value[j], p[0])
    outside = (est.low > 0) | (est.high < 0)
    np.testing.assert_array_equal(outside, est.p_value < 0.05)


@pytest.mark.parametrize("estimate", ["ppi", "ppi++"])
def test_paired_differences_are_ppi_on_the_per_query_differences(
    ppi_py: ModuleType, estimate: str
) -> None:
    """Two systems on the same queries: the estimate of their difference is PPI on the
    per-query differences of people's values and of the judge's."""
    ya, fa, ga = _values(4, 80, 400, 2)
    yb, fb, gb = _values(5, 80, 400, 2, bias=0.0)  # the judge favours system a
    current, reference = JudgedValues.of(ya, fa, ga), JudgedValues.of(yb, fb, gb)
    est = ppi.estimate_mean(current - reference, estimate)
    lam = 1 if estimate == "ppi" else None
    low, high = ppi_py.ppi_mean_ci(
        ya - yb, fa - fb, ga - gb, alpha=0.05, lam=lam, lam_optim_mode="element"
    )
    _close([est.low, est.high], [low, high])
    gold = ppi.estimate_mean(current - reference, "gold")
    _close(gold.p_value, paired.paired_t_test(ya - yb)[1])


def test_gold_and_judge_are_t_intervals_of_one_set_of_values() -> None:
    y, f, g = _values(6, 30, 90, 2)
    values = JudgedValues.of(y, f, g)
    gold = ppi.estimate_mean(values, "gold", 0.9)
    _close(gold.mean, y.mean(axis=0))
    _close([gold.low, gold.high], intervals.t_interval(y, 0.9))
    _close([gold.statistic, gold.p_value], paired.paired_t_test(y))
    _close(gold.lam, [0.0, 0.0])
    both = np.concatenate([f, g])
    judge = ppi.estimate_mean(values, "judge", 0.9)
    _close(judge.mean, both.mean(axis=0))
    _close([judge.low, judge.high], intervals.t_interval(both, 0.9))
    assert np.isnan(judge.lam).all()


def test_shapes_follow_the_columns() -> None:
    y, f, g = _values(8, 20, 50, 6)
    one = ppi.estimate_mean(JudgedValues.of(y[:, 0], f[:, 0], g[:, 0]), "ppi++")
    assert one.mean.shape == one.low.shape == one.lam.shape == ()
    many = ppi.estimate_mean(
        JudgedValues.of(y.reshape(20, 2, 3), f.reshape(20, 2, 3), g.reshape(50, 2, 3)), "ppi++"
    )
    assert many.high.shape == many.p_value.shape == (2, 3)
    flat = ppi.estimate_mean(JudgedValues.of(y, f, g), "ppi++")
    _close(many.high.ravel(), flat.high)


# --- edge cases and errors -------------------------------------------------------------------


def test_fewer_than_two_people_judged_queries_is_nan() -> None:
    for estimate in ["ppi", "ppi++", "gold"]:
        est = ppi.estimate_mean(JudgedValues.of([0.5], [0.6], [0.4, 0.7, 0.1]), estimate)
        assert np.isnan([est.low, est.high, est.std_error]).all()
    assert np.isnan(ppi.estimate_mean(JudgedValues.of([], [], [0.4, 0.7]), "ppi").mean)


def test_every_query_judged_by_people_gives_people_mean(ppi_py: ModuleType) -> None:
    """N == 0: the judge has nothing to add; both PPI estimates are people's (lam = 0), the
    interval ppi_py gives with lam=0 (ppi_py itself fails on an empty unlabelled set)."""
    y, f, _ = _values(9, 25, 0, 2)
    values = JudgedValues.of(y, f, np.empty((0, 2)))
    low, high = ppi_py.ppi_mean_ci(y, f, f, alpha=0.05, lam=0)  # f unused at lam=0
    for estimate in ["ppi", "ppi++"]:
        est = ppi.estimate_mean(values, estimate)
        _close([est.low, est.high], [low, high])
        _close(est.mean, y.mean(axis=0))
        _close(est.lam, [0.0, 0.0])


def test_a_constant_judge_gets_no_weight() -> None:
    """ppi_py gives NaN (0 / 0); the judge carries no information, so lam = 0."""
    y = np.array([0.2, 0.5, 0.9, 0.4])
    values = JudgedValues.of(y, np.full(4, 0.3), np.full(10, 0.3))
    est = ppi.estimate_mean(values, "ppi++")
    assert float(est.lam) == 0.0
    assert float(est.mean) == pytest.approx(y.mean(), rel=1e-12)
    plain = ppi.estimate_mean(values, "ppi")  # lam = 1: a shift of people's mean by 0
    assert float(plain.mean) == pytest.approx(y.mean(), rel=1e-12)


def test_a_nan_makes_its_column_nan() -> None:
    y, f, g = _values(10, 20, 40, 2)
    g[3, 1] = np.nan
    for estimate in ["ppi", "ppi++", "judge"]:
        est = ppi.estimate_mean(JudgedValues.of(y, f, g), estimate)
        assert np.isfinite([est.mean[0], est.low[0]]).all()
        assert np.isnan([est.mean[1], est.low[1], est.high[1]]).all()


def test_bad_arrays_and_estimates_raise_clear_errors() -> None:
    with pytest.raises(InvalidOptionError, match=r"`gold` and `judge_gold` must hold the same"):
        JudgedValues.of([0.1, 0.2], [0.1], [0.3])
    with pytest.raises(InvalidOptionError, match=r"`judge_unlabelled` must have the columns"):
        JudgedValues.of([[0.1, 0.2]], [[0.1, 0.2]], [0.3])
    values = JudgedValues.of([0.1, 0.2], [0.1, 0.3], [0.3])
    with pytest.raises(InvalidOptionError, match=r"`estimate` must be one of 'ppi', 'ppi\+\+'"):
        ppi.estimate_mean(values, "ppi+")
    other = JudgedValues.of([0.1, 0.2, 0.4], [0.1, 0.3, 0.5], [])
    with pytest.raises(InvalidOptionError, match=r"same queries on both sides; got 2 \+ 1 and 3"):
        _ = values - other


# --- coverage and width, measured ------------------------------------------------------------

COLLECTIONS = 4000  # each 500 queries, 100 judged by people: about 2 s in all
QUERIES, PEOPLE = 500, 100
BETA = (2.0, 3.0)  # people's per-query values: mean 0.4, standard deviation 0.2
MU = BETA[0] / sum(BETA)
SD = float(np.sqrt(BETA[0] * BETA[1] / (sum(BETA) ** 2 * (sum(BETA) + 1))))
BIAS = 0.1


@pytest.fixture(scope="module")
def simulated() -> tuple[Any, Any]:
    """People's per-query values of every collection (queries x collections), and a standard
    normal noise of the same shape that the judge adds, scaled to each correlation."""
    rng = np.random.default_rng(20231101)
    return rng.beta(*BETA, (QUERIES, COLLECTIONS)), rng.standard_normal((QUERIES, COLLECTIONS))


def _judged(simulated: tuple[Any, Any], rho: float) -> JudgedValues:
    """A judge with bias BIAS and noise whose per-query values correlate with people's at
    rho: ``F = Y + BIAS + sigma * e`` with ``sigma = SD * sqrt(1 / rho**2 - 1)``. People
    judged the first PEOPLE queries of each collection (the queries are independent, so
    these are a random sample of them)."""
    y, noise = simulated
    f = y + BIAS + SD * np.sqrt(1.0 / rho**2 - 1.0) * noise
    return JudgedValues.of(y[:PEOPLE], f[:PEOPLE], f[PEOPLE:])


def _coverage(est: ppi.MeanEstimate, target: Any) -> float:
    return float(np.mean((est.low <= target) & (target <= est.high)))


@pytest.mark.parametrize("rho", [0.3, 0.5, 0.7, 0.9])
def test_ppi_intervals_cover_people_mean(simulated: tuple[Any, Any], rho: float) -> None:
    """At least 93% of the 95% intervals cover people's mean (the mean of the distribution
    the queries come from, and each collection's own mean over all its queries); the judge
    alone, biased by 0.1, covers it in at most a fifth of them (the noisier the judge, the
    wider its interval: about 9% at rho = 0.3, none from rho = 0.5)."""
    values = _judged(simulated, rho)
    own_mean = simulated[0].mean(axis=0)
    for estimate in ["ppi", "ppi++", "gold"]:
        est = ppi.estimate_mean(values, estimate)
        assert _coverage(est, MU) >= 0.93, estimate
        assert _coverage(est, own_mean) >= 0.93, estimate
    assert _coverage(ppi.estimate_mean(values, "judge"), MU) < 0.2


@pytest.mark.parametrize("rho", [0.5, 0.7, 0.9])
def test_ppi_plus_plus_is_narrower_than_people_alone(
    simulated: tuple[Any, Any], rho: float
) -> None:
    """From a correlation of 0.5, PPI++'s interval is narrower than people's t interval in
    every collection, and narrower on average than people's z interval (lam = 0) by about
    ``sqrt(1 - rho**2 * N / (N + n))``, the variance PPI++ saves."""
    values = _judged(simulated, rho)
    tuned = ppi.estimate_mean(values, "ppi++")
    gold = ppi.estimate_mean(values, "gold")
    assert np.all(tuned.high - tuned.low < gold.high - gold.low)
    people_z = ppi.ppi_mean(values, lam=0.0)
    ratio = np.mean(tuned.high - tuned.low) / np.mean(people_z.high - people_z.low)
    big_n = QUERIES - PEOPLE
    assert ratio == pytest.approx(np.sqrt(1 - rho**2 * big_n / QUERIES), rel=0.02)


@pytest.mark.parametrize(("rho", "wider"), [(0.5, True), (0.7, True), (0.9, False)])
def test_plain_ppi_is_narrower_only_when_the_judge_errs_less_than_people_vary(
    simulated: tuple[Any, Any], rho: float, wider: bool
) -> None:
    """PPI with lam = 1 pays the judge's noise in full: with ``F = Y + bias + noise`` its
    variance is ``sigma**2 / n + var(F) / N`` against people's ``var(Y) / n``, so it is
    narrower only when ``sigma**2 (1/n + 1/N) < var(Y) (1/n - 1/N)``: here (n = 100,
    N = 400) a correlation above 0.79."""
    values = _judged(simulated, rho)
    plain = ppi.estimate_mean(values, "ppi")
    gold = ppi.estimate_mean(values, "gold")
    assert bool(np.mean(plain.high - plain.low) > np.mean(gold.high - gold.low)) == wider
    sigma2 = SD**2 * (1.0 / rho**2 - 1.0)
    se = np.sqrt(sigma2 / PEOPLE + (SD**2 + sigma2) / (QUERIES - PEOPLE))
    assert np.mean(plain.std_error) == pytest.approx(se, rel=0.02)


def test_ppi_on_differences_covers_the_difference_a_biased_judge_gets_wrong(
    simulated: tuple[Any, Any],
) -> None:
    """Two systems; the judge adds 0.1 to system a's values only, so its difference between
    the systems is off by 0.1. PPI on the paired differences covers the true difference."""
    y, noise = simulated
    y_b = 0.8 * y + 0.1 + 0.05 * noise[::-1]  # a second system, correlated with the first
    truth = 0.2 * MU - 0.1  # E[Y - Y_b]
    f_a = y + 0.1 + 0.1 * noise
    f_b = y_b + 0.1 * noise[:, ::-1]
    a = JudgedValues.of(y[:PEOPLE], f_a[:PEOPLE], f_a[PEOPLE:])
    b = JudgedValues.of(y_b[:PEOPLE], f_b[:PEOPLE], f_b[PEOPLE:])
    for estimate in ["ppi", "ppi++"]:
        assert _coverage(ppi.estimate_mean(a - b, estimate), truth) >= 0.93, estimate
    assert _coverage(ppi.estimate_mean(a - b, "judge"), truth) < 0.01
