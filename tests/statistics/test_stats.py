"""rankframe.stats (paired, intervals, corrections) against scipy.stats and hand-computed examples.

Exact statistics (t-test, t interval, Wilcoxon, corrections) are compared with scipy.stats
or worked examples to 1e-12; the resampling ones (sign-flip test, bootstrap) with exact
enumerations or closed forms within a few Monte-Carlo standard errors. scipy emits
RuntimeWarnings on its own edge cases (tiny samples, zero variance), so it is called with
warnings ignored; rankframe's functions must not warn (``filterwarnings = error``).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy import stats

from rankframe.settings import statistics as settings
from rankframe.stats import corrections, intervals, paired, resampling


def _quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call scipy with its own warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _close(actual: Any, expected: Any, rtol: float = 1e-12) -> None:
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0, equal_nan=True)


# --- paired t-test and t interval ----------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 10, 500])
def test_paired_t_test_matches_scipy(n: int) -> None:
    rng = np.random.default_rng(n)
    a = rng.random((n, 4))
    b = a - rng.normal([0.0, 0.05, -0.2, 0.5], 0.3, size=(n, 4))
    t, p = paired.paired_t_test(a - b)
    rel = stats.ttest_rel(a, b, axis=0)
    _close(t, rel.statistic)
    _close(p, rel.pvalue)
    one = stats.ttest_1samp(a - b, 0.0, axis=0)
    _close(p, one.pvalue)


def test_paired_t_test_one_dimensional_gives_scalars() -> None:
    d = np.array([0.1, -0.3, 0.25, 0.4, 0.0, 0.2])
    t, p = paired.paired_t_test(d)
    assert t.shape == ()
    assert p.shape == ()
    _close(p, stats.ttest_1samp(d, 0.0).pvalue)


def test_paired_t_test_edge_cases_match_scipy() -> None:
    # all zero: 0 / 0, NaN as scipy; constant 0.5: std exactly 0, t = inf and p = 0 as scipy
    d = np.column_stack([np.zeros(6), np.full(6, 0.5), [0.1, 0.2, np.nan, 0.0, 0.3, 0.1]])
    t, p = paired.paired_t_test(d)
    ref = _quiet(stats.ttest_1samp, d, 0.0, axis=0)
    np.testing.assert_array_equal(t, ref.statistic)
    np.testing.assert_array_equal(p, ref.pvalue)
    assert np.isnan(p[0])
    assert p[1] == 0.0
    assert np.isnan(p[2])


@pytest.mark.parametrize("n", [0, 1])
def test_paired_t_test_fewer_than_two_queries_is_nan(n: int) -> None:
    t, p = paired.paired_t_test(np.ones((n, 3)))
    assert t.shape == (3,)
    assert np.isnan(t).all()
    assert np.isnan(p).all()
    assert np.isnan(_quiet(stats.ttest_1samp, np.ones(n), 0.0).pvalue)


@pytest.mark.parametrize(("n", "confidence"), [(2, 0.95), (7, 0.9), (40, 0.99), (1000, 0.5)])
def test_t_interval_matches_scipy(n: int, confidence: float) -> None:
    rng = np.random.default_rng(n)
    d = rng.normal([0.0, 0.3, -1.0], [1.0, 0.1, 2.0], size=(n, 3))
    low, high = intervals.t_interval(d, confidence)
    ref_low, ref_high = stats.t.interval(
        confidence, n - 1, loc=d.mean(axis=0), scale=stats.sem(d, axis=0)
    )
    scale = np.abs(d).max()  # endpoints near 0: compare relative to the data's scale
    np.testing.assert_allclose(low, ref_low, rtol=1e-12, atol=1e-13 * scale)
    np.testing.assert_allclose(high, ref_high, rtol=1e-12, atol=1e-13 * scale)


def test_t_interval_edge_cases() -> None:
    d = np.column_stack([np.zeros(5), np.full(5, 0.25), [1.0, 2.0, 3.0, np.nan, 5.0]])
    low, high = intervals.t_interval(d, 0.95)
    # no spread: the zero-width interval at the mean (scipy's t.interval gives NaN for scale 0)
    np.testing.assert_array_equal(low[:2], [0.0, 0.25])
    np.testing.assert_array_equal(high[:2], [0.0, 0.25])
    assert np.isnan(low[2])
    assert np.isnan(high[2])
    low, high = intervals.t_interval(np.ones((1, 2)), 0.95)
    assert np.isnan(low).all()
    assert np.isnan(high).all()


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 95])
def test_settings_reject_bad_confidence(confidence: float) -> None:
    # checked once, in the settings objects; the statistics read a good level
    with pytest.raises(ValueError, match="confidence"):
        settings.Intervals(confidence_level=confidence)
    with pytest.raises(ValueError, match="confidence"):
        settings.Tests("t-test", "holm", "systems", 0.05, confidence, 10_000, 1000, 0)


# --- Wilcoxon signed-rank -------------------------------------------------------------------


def _wilcoxon_case(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        return rng.normal(0.2, 1.0, size=(n, 3))
    if kind == "ties":  # few distinct absolute values, no zero
        return rng.choice([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 0.5], size=(n, 3))
    if kind == "zeros":  # zeros, otherwise untied
        d = rng.normal(0.3, 1.0, size=(n, 3))
        d[rng.random((n, 3)) < 0.25] = 0.0
        d[0] = 0.0
        return d
    # metric-like differences: ties and zeros together
    return rng.integers(-4, 5, size=(n, 3)) / 4.0


@pytest.mark.parametrize("kind", ["continuous", "ties", "zeros", "ties+zeros"])
@pytest.mark.parametrize("n", [1, 2, 5, 8, 10, 14, 20, 50, 51, 300])
def test_wilcoxon_matches_scipy_column_by_column(kind: str, n: int) -> None:
    d = _wilcoxon_case(kind, n, seed=n)
    statistic, p = paired.wilcoxon_test(d)
    for j in range(d.shape[1]):
        if not d[:, j].any() and n == 1:
            continue  # scipy raises for a single zero; see the edge-case test
        ref = _quiet(stats.wilcoxon, d[:, j])
        assert statistic[j] == ref.statistic
        _close(p[j], ref.pvalue)


def test_wilcoxon_matches_scipy_at_the_enumeration_boundary() -> None:
    # 13 queries with ties and zeros: scipy enumerates the 2**13 sign vectors; 14: normal
    for n in (13, 14):
        d = _wilcoxon_case("ties+zeros", n, seed=n)[:, 0]
        statistic, p = paired.wilcoxon_test(d)
        ref = stats.wilcoxon(d)
        assert statistic == ref.statistic
        _close(p, ref.pvalue)


@pytest.mark.parametrize("n", [5, 20, 51])
def test_wilcoxon_matches_scipy_axis0_when_columns_agree(n: int) -> None:
    # scipy picks one method for the whole 2-D array; with untied, zero-free columns the
    # per-column choice is the same
    d = _wilcoxon_case("continuous", n, seed=100 + n)
    statistic, p = paired.wilcoxon_test(d)
    ref = stats.wilcoxon(d, axis=0)
    np.testing.assert_array_equal(statistic, ref.statistic)
    _close(p, ref.pvalue)


def test_wilcoxon_column_does_not_depend_on_other_columns() -> None:
    rng = np.random.default_rng(3)
    untied = rng.normal(size=20)
    tied = np.round(rng.normal(size=20)) + 0.5
    _, p_alone = paired.wilcoxon_test(untied)
    _, p_both = paired.wilcoxon_test(np.column_stack([untied, tied]))
    assert p_both[0] == p_alone
    _close(p_alone, stats.wilcoxon(untied).pvalue)  # the exact distribution


def test_wilcoxon_hand_example() -> None:
    # five positive differences: W+ = 15, W- = 0; P(W+ >= 15) = 1 / 2**5, two-sided 1 / 16
    statistic, p = paired.wilcoxon_test([0.1, 0.2, 0.3, 0.4, 0.5])
    assert statistic == 0.0
    _close(p, 1 / 16)
    # ranks of |d| = 1, 2, 3, 4: W+ = 1 + 2 + 4 = 7, W- = 3; the exact P(W+ >= 7) = 5 / 16
    statistic, p = paired.wilcoxon_test([1.0, 2.0, -3.0, 4.0])
    assert statistic == 3.0
    _close(p, 10 / 16)


@pytest.mark.parametrize("n", [1, 2, 13, 14, 60])
def test_wilcoxon_all_zero_column(n: int) -> None:
    rng = np.random.default_rng(n)
    d = np.column_stack([np.zeros(n), rng.normal(size=n)])
    statistic, p = paired.wilcoxon_test(d)
    assert statistic[0] == 0.0
    if n == 1:
        assert p[0] == 1.0  # scipy raises here; 1 as for 2 to 13 zeros
        return
    ref = _quiet(stats.wilcoxon, np.zeros(n))
    _close(p[0], ref.pvalue)  # 1 up to 13 queries (exact), NaN from 14 (0 / 0 in z)
    assert (p[0] == 1.0) if n <= 13 else np.isnan(p[0])


def test_wilcoxon_empty_and_nan() -> None:
    statistic, p = paired.wilcoxon_test(np.empty((0, 2)))
    assert statistic.shape == (2,)
    assert np.isnan(statistic).all()
    assert np.isnan(p).all()
    d = np.column_stack([[1.0, np.nan, 2.0, -0.5], [1.0, 3.0, 2.0, -0.5]])
    statistic, p = paired.wilcoxon_test(d)
    assert np.isnan(statistic[0])
    assert np.isnan(p[0])
    _close(p[1], stats.wilcoxon(d[:, 1]).pvalue)


# --- sign-flip permutation test -------------------------------------------------------------


def _exact_sign_flip_p(d: np.ndarray) -> float:
    """P(|sum of randomly signed d| >= |sum d|) over all 2**n sign vectors; exact for the
    integer-valued data used here."""
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=len(d))))
    return float(np.mean(np.abs(signs @ d) >= abs(d.sum())))


@pytest.mark.parametrize("n", [1, 3, 8, 9, 12, 16])
def test_permutation_matches_exact_enumeration(n: int) -> None:
    rng = np.random.default_rng(n)
    # integer-valued differences (exact sums), one null-like and two shifted columns
    d = np.column_stack(
        [rng.integers(-5, 6, size=n), rng.integers(-3, 8, size=n), rng.integers(-1, 4, size=n)]
    ).astype(np.float64)
    n_resamples = 20_000
    p = paired.permutation_test(d / 8.0, n_resamples, seed=11)
    for j in range(3):
        exact = _exact_sign_flip_p(d[:, j])
        if 2 <= n <= 12:  # scipy agrees with the enumeration (exact null for 2**n <= 9999)
            ref = stats.permutation_test(
                (d[:, j],), np.sum, permutation_type="samples", n_resamples=9999
            ).pvalue
            assert ref == pytest.approx(min(1.0, exact), abs=1e-12)
        expected = (1 + n_resamples * exact) / (1 + n_resamples)
        se = math.sqrt(exact * (1 - exact) / n_resamples)
        assert abs(p[j] - expected) <= 4 * se + 1e-12, (j, p[j], exact)


def test_permutation_large_sample_matches_normal_approximation() -> None:
    # many queries: sum(s_i d_i) is close to N(0, sum d_i**2) under random signs
    rng = np.random.default_rng(5)
    d = rng.normal([0.0, 0.04, 0.08], 1.0, size=(3001, 3))
    n_resamples = 20_000
    p = paired.permutation_test(d, n_resamples, seed=1)
    z = np.abs(d.sum(axis=0)) / np.sqrt((d**2).sum(axis=0))
    approx = 2 * stats.norm.sf(z)
    se = np.sqrt(approx * (1 - approx) / n_resamples)
    np.testing.assert_array_less(np.abs(p - approx), 4 * se + 0.005)


def test_permutation_reproducible_and_shared_signs() -> None:
    rng = np.random.default_rng(8)
    d = rng.normal(0.05, 1.0, size=(203, 2))
    p = paired.permutation_test(d, 2000, seed=42)
    np.testing.assert_array_equal(p, paired.permutation_test(d, 2000, seed=42))
    # one column at a time, negated or scaled by 2: the same signs, the same counts
    for j in range(2):
        assert paired.permutation_test(d[:, j], 2000, seed=42) == p[j]
    q = paired.permutation_test(np.column_stack([-d[:, 0], 2 * d[:, 1], d[:, 0]]), 2000, 42)
    np.testing.assert_array_equal(q, [p[0], p[1], p[0]])
    assert not np.array_equal(p, paired.permutation_test(d, 2000, seed=43))


def test_permutation_same_result_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    d = np.random.default_rng(2).normal(0.03, 1.0, size=(5000, 2))
    p = paired.permutation_test(d, 3000, seed=7)
    monkeypatch.setattr(resampling, "MAX_THREADS", 1)
    np.testing.assert_array_equal(p, paired.permutation_test(d, 3000, seed=7))


def test_permutation_edge_cases() -> None:
    n_resamples = 999
    d = np.column_stack([np.zeros(30), np.full(30, 0.1), np.r_[np.nan, np.ones(29)]])
    p = paired.permutation_test(d, n_resamples, seed=0)
    assert p[0] == 1.0  # every resampled sum is 0
    # all positive: only the all-plus and all-minus signs reach |sum|, P = 2**-29
    assert p[1] == 1 / (1 + n_resamples)
    assert np.isnan(p[2])
    assert np.isnan(paired.permutation_test(np.empty((0, 2)), 10, seed=0)).all()
    assert paired.permutation_test([0.3], 10, seed=0) == 1.0  # one query: |+-d| = |d|
    with pytest.raises(ValueError, match="n_permutations"):  # checked in the settings
        settings.Tests("permutation", "holm", "systems", 0.05, 0.95, 0, 1000, 0)


# --- corrections ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "holm", "bonferroni"),
    [
        # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 -> max 0.06
        ([0.01, 0.04, 0.03, 0.005], [0.03, 0.06, 0.06, 0.02], [0.04, 0.16, 0.12, 0.02]),
        # a NaN is left out of the family: k = 3
        ([0.01, np.nan, 0.04, 0.03], [0.03, np.nan, 0.06, 0.06], [0.03, np.nan, 0.12, 0.09]),
        ([0.5, 0.6], [1.0, 1.0], [1.0, 1.0]),  # capped at 1
        ([0.02, 0.02, 0.5], [0.06, 0.06, 0.5], [0.06, 0.06, 1.0]),  # ties
        ([0.2], [0.2], [0.2]),
        ([np.nan, np.nan], [np.nan, np.nan], [np.nan, np.nan]),
    ],
)
def test_adjust_hand_examples(p: list[float], holm: list[float], bonferroni: list[float]) -> None:
    _close(corrections.adjust(p), holm)
    _close(corrections.adjust(p, "holm"), holm)
    _close(corrections.adjust(p, "bonferroni"), bonferroni)
    _close(corrections.adjust(p, "none"), p)


def test_adjust_families_along_last_axis() -> None:
    p = np.array([[0.01, 0.04, 0.03, 0.005], [0.01, np.nan, 0.04, 0.03]])
    _close(corrections.adjust(p), [[0.03, 0.06, 0.06, 0.02], [0.03, np.nan, 0.06, 0.06]])
    _close(
        corrections.adjust(np.stack([p, p[::-1]])),
        np.stack([corrections.adjust(p), corrections.adjust(p[::-1])]),
    )
    assert corrections.adjust(np.empty((3, 0))).shape == (3, 0)
    none = corrections.adjust(p, "none")
    none[0, 0] = 1.0
    assert p[0, 0] == 0.01  # a copy


def test_adjust_rejects_unknown_method() -> None:
    with pytest.raises(ValueError, match="method"):
        corrections.adjust([0.1], "fdr_by")  # type: ignore[arg-type]


def test_adjust_fdr_bh_equals_scipy() -> None:
    p = np.array([[0.01, 0.04, 0.03, 0.2, np.nan, 0.005], [0.5, 0.5, 0.01, 0.02, 0.9, 0.04]])
    out = corrections.adjust(p, "fdr_bh")
    np.testing.assert_allclose(
        out[0, [0, 1, 2, 3, 5]], stats.false_discovery_control(p[0, [0, 1, 2, 3, 5]]), rtol=1e-12
    )
    assert np.isnan(out[0, 4])
    np.testing.assert_allclose(out[1], stats.false_discovery_control(p[1]), rtol=1e-12)


# --- bootstrap ------------------------------------------------------------------------------


def test_bootstrap_reproducible_and_shapes() -> None:
    rng = np.random.default_rng(1)
    values = rng.random((500, 3))
    segment = rng.integers(0, 4, size=500)
    low, high = intervals.bootstrap_interval(values, segment, 4, 0.9, 300, seed=5)
    assert low.shape == high.shape == (4, 3)
    again = intervals.bootstrap_interval(values, segment, 4, 0.9, 300, seed=5)
    np.testing.assert_array_equal(low, again[0])
    np.testing.assert_array_equal(high, again[1])
    other = intervals.bootstrap_interval(values, segment, 4, 0.9, 300, seed=6)
    assert not np.array_equal(low, other[0])
    low1, high1 = intervals.bootstrap_interval(values[:, 0], segment, 4, 0.9, 300, seed=5)
    assert low1.shape == (4,)
    np.testing.assert_array_equal(low1, low[:, 0])  # every column sees the same resamples
    np.testing.assert_array_equal(high1, high[:, 0])


def test_bootstrap_same_result_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    values, segment = rng.random((30_000, 2)), rng.integers(0, 3, size=30_000)
    expected = intervals.bootstrap_interval(values, segment, 3, 0.95, 200, seed=9)
    monkeypatch.setattr(resampling, "MAX_THREADS", 1)
    got = intervals.bootstrap_interval(values, segment, 3, 0.95, 200, seed=9)
    np.testing.assert_array_equal(got, expected)


def test_bootstrap_degenerate_segments() -> None:
    values = np.array([[0.3, 1.0], [0.3, 2.0], [0.3, np.nan], [0.7, 4.0], [0.1, 5.0]])
    segment = np.array([0, 0, 0, 2, 3])  # segment 1 is empty
    low, high = intervals.bootstrap_interval(values, segment, 4, 0.95, 200, seed=0)
    assert low[0, 0] == high[0, 0] == pytest.approx(0.3)  # equal values: zero width
    assert np.isnan(low[0, 1])
    assert np.isnan(high[0, 1])
    assert np.isnan(low[1]).all()
    assert np.isnan(high[1]).all()
    np.testing.assert_array_equal(low[2:], values[3:])  # one query: its value
    np.testing.assert_array_equal(high[2:], values[3:])
    low, high = intervals.bootstrap_interval(np.empty((0, 2)), np.empty(0, int), 1, 0.9, 10, 0)
    assert np.isnan(low).all()
    assert np.isnan(high).all()


def test_bootstrap_two_values_exact_distribution() -> None:
    # a segment {0, 1}: the resampled mean is 0, 0.5, 1 with probability 1/4, 1/2, 1/4,
    # so the 30% and 70% quantiles are 0.5 and the 2% and 98% quantiles are 0 and 1
    values, segment = np.array([0.0, 1.0]), np.array([0, 0])
    low, high = intervals.bootstrap_interval(values, segment, 1, 0.4, 4000, seed=3)
    np.testing.assert_array_equal([low[0], high[0]], [0.5, 0.5])
    low, high = intervals.bootstrap_interval(values, segment, 1, 0.96, 4000, seed=3)
    np.testing.assert_array_equal([low[0], high[0]], [0.0, 1.0])


def test_bootstrap_resamples_within_segments() -> None:
    rng = np.random.default_rng(2)
    segment = rng.permutation(np.repeat([0, 1, 2], [50, 300, 7]))
    values = np.array([0.0, 10.0, 20.0])[segment] + rng.random(len(segment))
    low, high = intervals.bootstrap_interval(values, segment, 3, 0.999, 500, seed=1)
    for s in range(3):  # intervals stay inside their segment's range of values
        in_segment = values[segment == s]
        assert in_segment.min() <= low[s] < in_segment.mean() < high[s] <= in_segment.max()


def test_bootstrap_agrees_with_normal_theory_on_a_large_sample() -> None:
    rng = np.random.default_rng(7)
    n = 20_000
    values = rng.exponential(size=(n, 2)) * [1.0, 3.0]
    low, high = intervals.bootstrap_interval(values, np.zeros(n, int), 1, 0.95, 1000, seed=2)
    mean, sem = values.mean(axis=0), values.std(axis=0, ddof=1) / math.sqrt(n)
    half = stats.norm.ppf(0.975) * sem
    np.testing.assert_array_less(np.abs(low[0] - (mean - half)), 0.15 * half)
    np.testing.assert_array_less(np.abs(high[0] - (mean + half)), 0.15 * half)


def test_bootstrap_agrees_with_scipy_percentile_bootstrap() -> None:
    rng = np.random.default_rng(9)
    values = rng.exponential(size=150) ** 2  # skewed: the percentile interval is asymmetric
    low, high = intervals.bootstrap_interval(values, np.zeros(150, int), 1, 0.9, 4000, seed=4)
    ref = stats.bootstrap(
        (values,), np.mean, confidence_level=0.9, n_resamples=4000, method="percentile", rng=5
    ).confidence_interval
    sem = values.std(ddof=1) / math.sqrt(len(values))
    # two Monte-Carlo estimates of the same quantiles: a few tenths of a standard error apart
    assert abs(low[0] - ref.low) < 0.3 * sem
    assert abs(high[0] - ref.high) < 0.3 * sem


def test_bootstrap_rejects_bad_input() -> None:
    values = np.ones((4, 1))
    with pytest.raises(ValueError, match="segment"):
        intervals.bootstrap_interval(values, [0, 1, 2, 3], 3, 0.95, 10, 0)
    with pytest.raises(ValueError, match="segment"):
        intervals.bootstrap_interval(values, [0, 0, 0], 1, 0.95, 10, 0)
    with pytest.raises(ValueError, match="segment"):
        intervals.bootstrap_interval(values, [0.0, 0.0, 0.0, 0.0], 1, 0.95, 10, 0)
    # the level and the resamples are checked in the settings, not again here
    with pytest.raises(ValueError, match="confidence"):
        settings.Intervals(confidence_level=1.5, n_resamples=10)
    with pytest.raises(ValueError, match="n_resamples"):
        settings.Intervals(confidence_level=0.95, n_resamples=0)


# --- the rooms and the path of earlier releases ----------------------------------------------

_ROOMS = ("paired", "intervals", "two_sample", "subsets", "groups", "corrections", "power")


def test_inference_re_exports_every_room() -> None:
    """``rankframe.stats.inference`` (the path earlier releases documented) holds every name
    of the rooms by job, the very same objects, and nothing else."""
    import importlib

    from rankframe.stats import inference

    exported: dict[str, object] = {}
    for room in _ROOMS:
        module = importlib.import_module(f"rankframe.stats.{room}")
        for name in module.__all__:
            assert name not in exported, f"{name} is exported by two rooms"
            exported[name] = getattr(module, name)
    assert sorted(inference.__all__) == sorted(exported)
    for name, obj in exported.items():
        assert getattr(inference, name) is obj, name
