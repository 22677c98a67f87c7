"""rankframe.stats.agreement against its references: scikit-learn's cohen_kappa_score and
confusion_matrix, the krippendorff package's alpha, scipy.stats.kendalltau; and the
documented values of the undefined cases (NaN) and the errors of bad arrays.

The krippendorff package is imported in a fixture, not at the top: `make test-floors` collects
this module in a venv without it (and deselects these tests, which take no frame).
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from sklearn.metrics import confusion_matrix as sk_confusion

from rankframe.exceptions import InvalidOptionError
from rankframe.stats import agreement

NAN = float("nan")


@pytest.fixture(scope="module")
def krippendorff() -> ModuleType:
    import krippendorff as module

    return module


def _graded_pairs(seed: int, n: int, grades: list[float], missing: float) -> tuple[Any, Any]:
    """A judge's grades close to people's (off by one a quarter of the time), NaN at random."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(grades, size=n)
    step = rng.choice([-1, 0, 0, 0, 1], size=n)
    index = np.clip(np.searchsorted(grades, gold) + step, 0, len(grades) - 1)
    judge = np.asarray(grades)[index]
    judge[rng.random(n) < missing] = NAN
    gold[rng.random(n) < missing] = NAN
    return judge, gold


def _for_scikit_learn(judge: Any, gold: Any) -> tuple[Any, Any]:
    """The pairs both graded, as integer codes in the order of the grades (scikit-learn
    refuses float grades that are not integers: "continuous is not supported")."""
    both = ~(np.isnan(judge) | np.isnan(gold))
    categories = np.union1d(judge[both], gold[both])
    return np.searchsorted(categories, judge[both]), np.searchsorted(categories, gold[both])


CASES = [
    (0, 50, [0.0, 1.0], 0.0),
    (1, 200, [0.0, 1.0, 2.0, 3.0], 0.2),
    (2, 300, [0.0, 1.0, 3.0, 7.0], 0.1),  # gaps between grades: positions, not values
    (3, 120, [-1.0, 0.5, 2.25], 0.3),  # not integers: looked up among the values
    (4, 80, [0.0, 2.0, 4000.0], 0.0),  # a wide span of integers: looked up
    (5, 400, [0.3 * i for i in range(10)], 0.1),  # many grades, not integers: looked up
]


@pytest.mark.parametrize(("seed", "n", "grades", "missing"), CASES)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_scikit_learn(
    seed: int, n: int, grades: list[float], missing: float, weights: Any
) -> None:
    judge, gold = _graded_pairs(seed, n, grades, missing)
    expected = cohen_kappa_score(*_for_scikit_learn(judge, gold), weights=weights)
    assert agreement.cohen_kappa(judge, gold, weights) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("seed", "n", "grades", "missing"), CASES)
def test_confusion_matrix_equals_scikit_learn(
    seed: int, n: int, grades: list[float], missing: float
) -> None:
    judge, gold = _graded_pairs(seed, n, grades, missing)
    both = ~(np.isnan(judge) | np.isnan(gold))
    categories, matrix = agreement.confusion_matrix(judge, gold)
    np.testing.assert_array_equal(categories, np.union1d(judge[both], gold[both]))
    codes = _for_scikit_learn(judge, gold)
    np.testing.assert_array_equal(matrix, sk_confusion(*codes, labels=range(categories.size)))
    assert matrix.dtype == np.int64
    assert matrix.sum() == both.sum()


@pytest.mark.parametrize("n_grades", [3, 12])
@pytest.mark.parametrize("scale", [1.0, 0.37])
def test_confusion_matrix_with_a_grade_seen_only_after_many_rows(
    n_grades: int, scale: float
) -> None:
    """A grade first seen after the rows whose grades rankframe looks up first (2**16):
    integers and other values, few grades and many, all counted."""
    rng = np.random.default_rng(n_grades)
    gold = rng.integers(0, n_grades, 70_000).astype(np.float64)
    judge = gold.copy()
    judge[rng.random(70_000) < 0.3] = 0.0
    judge[-3:], gold[-5] = n_grades + 2, -1.0  # late grades, outside the others
    judge, gold = judge * scale, gold * scale
    categories, matrix = agreement.confusion_matrix(judge, gold)
    np.testing.assert_array_equal(categories, np.union1d(judge, gold))
    codes = _for_scikit_learn(judge, gold)
    np.testing.assert_array_equal(matrix, sk_confusion(*codes, labels=range(categories.size)))


def test_confusion_matrix_rows_are_the_first_coder() -> None:
    categories, matrix = agreement.confusion_matrix([0, 0, 2, NAN], [2, 2, 2, 0])
    np.testing.assert_array_equal(categories, [0.0, 2.0])
    np.testing.assert_array_equal(matrix, [[0, 2], [0, 1]])


@pytest.mark.parametrize(("seed", "n", "grades", "missing"), CASES)
@pytest.mark.parametrize("level", ["ordinal", "nominal", "interval"])
def test_alpha_of_two_coders_equals_krippendorff(
    krippendorff: ModuleType, seed: int, n: int, grades: list[float], missing: float, level: Any
) -> None:
    judge, gold = _graded_pairs(seed, n, grades, missing)
    expected = krippendorff.alpha(np.vstack([judge, gold]), level_of_measurement=level)
    actual = agreement.krippendorff_alpha(np.vstack([judge, gold]), level)
    assert actual == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("level", ["ordinal", "nominal", "interval"])
def test_alpha_of_many_coders_with_missing_grades_equals_krippendorff(
    krippendorff: ModuleType, level: Any
) -> None:
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 5, size=60).astype(np.float64)
    data = np.clip(truth + rng.choice([-1, 0, 0, 1], size=(4, 60)), 0, 4)
    data[rng.random((4, 60)) < 0.35] = NAN  # units graded by 0 to 4 coders
    expected = krippendorff.alpha(data, level_of_measurement=level)
    assert agreement.krippendorff_alpha(data, level) == pytest.approx(expected, rel=1e-12)


def test_the_reference_example_of_the_krippendorff_package(krippendorff: ModuleType) -> None:
    """Krippendorff's own example (4 coders, 12 units), whose ordinal alpha is 0.815."""
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
    alpha = agreement.krippendorff_alpha(data)
    assert round(alpha, 3) == 0.815
    assert alpha == pytest.approx(krippendorff.alpha(data, level_of_measurement="ordinal"))


def test_grade_agreement_gathers_every_statistic(krippendorff: ModuleType) -> None:
    judge, gold = _graded_pairs(1, 200, [0.0, 1.0, 2.0, 3.0], 0.2)
    both = ~(np.isnan(judge) | np.isnan(gold))
    result = agreement.grade_agreement(judge, gold)
    assert result.n_pairs == both.sum()
    np.testing.assert_array_equal(result.confusion, agreement.confusion_matrix(judge, gold)[1])
    for got, weights in [
        (result.kappa, None),
        (result.kappa_linear, "linear"),
        (result.kappa_quadratic, "quadratic"),
    ]:
        expected = cohen_kappa_score(judge[both], gold[both], weights=weights)
        assert got == pytest.approx(expected, rel=1e-12)
    expected_alpha = krippendorff.alpha(np.vstack([judge, gold]), level_of_measurement="ordinal")
    assert result.alpha == pytest.approx(expected_alpha, rel=1e-12)


# --- the edge cases --------------------------------------------------------------------------


def test_full_agreement_is_one() -> None:
    grades = [0, 1, 2, 2, 1, NAN]
    result = agreement.grade_agreement(grades, [0, 1, 2, 2, 1, 0])
    assert (result.kappa, result.kappa_linear, result.kappa_quadratic) == (1.0, 1.0, 1.0)
    assert result.alpha == 1.0


def test_a_single_category_is_nan_as_scikit_learn_says(krippendorff: ModuleType) -> None:
    """One category: chance agreement is total, kappa and alpha are 0 / 0. scikit-learn
    warns and gives NaN; the krippendorff package refuses; rankframe gives NaN silently."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert np.isnan(cohen_kappa_score([1, 1, 1], [1, 1, 1]))
    assert any("undefined" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match="more than one value"):
        krippendorff.alpha([[1, 1, 1], [1, 1, 1]], level_of_measurement="ordinal")
    result = agreement.grade_agreement([1, 1, 1, 0], [1, 1, 1, NAN])
    assert result.n_pairs == 3
    assert np.isnan([result.kappa, result.kappa_linear, result.kappa_quadratic, result.alpha]).all()


def test_no_pair_graded_by_both_is_nan(krippendorff: ModuleType) -> None:
    with pytest.raises(ValueError, match="at least two coders"):
        krippendorff.alpha([[1, NAN, 2], [NAN, 0, NAN]], level_of_measurement="ordinal")
    result = agreement.grade_agreement([1, NAN, 2], [NAN, 0, NAN])
    assert result.n_pairs == 0
    assert result.confusion.shape == (0, 0)
    assert result.categories.size == 0
    assert np.isnan([result.kappa, result.kappa_linear, result.kappa_quadratic, result.alpha]).all()
    assert np.isnan(agreement.krippendorff_alpha(np.full((3, 4), NAN)))


def test_systematic_disagreement_is_negative() -> None:
    """Two coders who always disagree on two balanced categories: kappa -1."""
    assert agreement.cohen_kappa([0, 1, 0, 1], [1, 0, 1, 0]) == -1.0
    assert agreement.krippendorff_alpha([[0, 1, 0, 1], [1, 0, 1, 0]], "nominal") < 0


def test_bad_arrays_and_options_raise_clear_errors() -> None:
    with pytest.raises(InvalidOptionError, match=r"`a` and `b` must grade the same items"):
        agreement.cohen_kappa([0, 1, 1], [0, 1])
    with pytest.raises(InvalidOptionError, match=r"`a` must be one grade per row"):
        agreement.confusion_matrix([[0, 1]], [[0, 1]])
    with pytest.raises(InvalidOptionError, match=r"`weights` must be one of None, 'linear'"):
        agreement.cohen_kappa([0, 1], [0, 1], weights="squared")  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match=r"`level` must be one of 'nominal'"):
        agreement.krippendorff_alpha([[0, 1], [0, 1]], level="ratio")  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match=r"`data` must be coders x units"):
        agreement.krippendorff_alpha([0, 1, 2])
    with pytest.raises(InvalidOptionError, match=r"`x` and `y` must score the same items"):
        agreement.kendall_tau([1, 2, 3], [1, 2])
    assert issubclass(InvalidOptionError, ValueError)


# --- Kendall's tau ---------------------------------------------------------------------------


def _scipy_tau(x: Any, y: Any) -> float:
    with warnings.catch_warnings():  # scipy warns on a constant input
        warnings.simplefilter("ignore")
        return float(stats.kendalltau(x, y).statistic)


@pytest.mark.parametrize("n", [2, 3, 7, 40])
def test_tau_equals_scipy_per_column_with_ties(n: int) -> None:
    rng = np.random.default_rng(n)
    x = np.round(rng.random((n, 5)), 1)  # ties within columns
    y = np.round(x + rng.normal(0, 0.2, (n, 5)), 1)
    y[:, 4] = 0.5  # a constant order: NaN
    tau = agreement.kendall_tau(x, y)
    assert tau.shape == (5,)
    expected = [_scipy_tau(x[:, j], y[:, j]) for j in range(5)]
    np.testing.assert_allclose(tau, expected, rtol=1e-12, atol=1e-15, equal_nan=True)
    assert np.isnan(tau[4])


def test_tau_of_one_column_and_edge_cases() -> None:
    assert agreement.kendall_tau([1, 2, 3], [3, 2, 1]).shape == ()
    assert float(agreement.kendall_tau([1, 2, 3], [3, 2, 1])) == -1.0
    assert float(agreement.kendall_tau([1, 2, 3], [10, 20, 30])) == 1.0
    assert np.isnan(agreement.kendall_tau([1.0], [2.0]))
    assert np.isnan(agreement.kendall_tau([1, NAN, 3], [1, 2, 3]))
    assert np.isnan(_scipy_tau([1, NAN, 3], [1, 2, 3]))
