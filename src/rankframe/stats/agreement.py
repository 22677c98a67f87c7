"""Agreement between two sets of grades (a judge's and people's) and between two orders of
systems: the confusion matrix, Cohen's kappa (unweighted, linear, quadratic), Krippendorff's
alpha (nominal, ordinal, interval) and Kendall's tau-b.

Grades arrive as float arrays with NaN where a grade is missing (a null). The two-coder
functions take the pairs where both grades exist (nulls excluded pairwise) and, as their
categories, the sorted union of the values both coders used on those pairs. Every statistic
is checked in ``tests/statistics/test_agreement.py`` against its reference:
scikit-learn's ``cohen_kappa_score`` and ``confusion_matrix``, the ``krippendorff``
package's ``alpha`` and ``scipy.stats.kendalltau``.

An undefined statistic is NaN, never an error: no pair to compare, a single category (the
agreement expected by chance is then total), a constant order. The frame layer computes
them per segment (``by=``), where one segment of that kind must not fail the others; it says
why a value is NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from rankframe.exceptions import InvalidOptionError
from rankframe.stats._arrays import FloatArray, as_columns

__all__ = [
    "LEVELS",
    "WEIGHTS",
    "GradeAgreement",
    "alpha_of_coincidences",
    "cohen_kappa",
    "confusion_matrix",
    "grade_agreement",
    "kappa_of_confusion",
    "kendall_tau",
    "krippendorff_alpha",
]

Weights = Literal["linear", "quadratic"] | None
Level = Literal["nominal", "ordinal", "interval"]
WEIGHTS: tuple[Weights, ...] = (None, "linear", "quadratic")
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval")
IntArray = npt.NDArray[np.int64]

_SMALL_SPAN = 1 << 8  # integer grades spanning at most this many values: counted by bincount
_SAMPLE = 1 << 16  # other grades: the distinct values of the first rows, looked up (_factorize)
_FEW = 8  # up to this many distinct values, looked up by comparisons


def _grades(x: npt.ArrayLike, name: str) -> FloatArray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1:
        msg = f"`{name}` must be one grade per row (1-D); got shape {a.shape}."
        raise InvalidOptionError(msg)
    return a


def _integer_span(values: FloatArray) -> tuple[float, int] | None:
    """``(lowest, number of integers from lowest to highest)`` when every value is an integer
    and they span few values (counted with ``np.bincount``, no sort); else None."""
    head = values[:_SAMPLE]
    if values.size == 0 or not np.array_equal(head, np.floor(head)):
        return None
    lo, hi = float(values.min()), float(values.max())
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi - lo >= _SMALL_SPAN:
        return None
    if not np.array_equal(values, np.floor(values)):
        return None
    return lo, int(hi - lo) + 1


def _factorize(values: FloatArray) -> tuple[FloatArray, npt.NDArray[np.intp]]:
    """The sorted distinct values and each value's position among them. Grades take few
    values: those of the first rows, looked up with ``np.searchsorted``, usually hold them
    all (a fraction of the time of ``np.unique``'s sort); else ``np.unique``."""
    seen = np.unique(values[:_SAMPLE])
    if 0 < seen.size <= _FEW:  # a few comparisons beat a binary search of every value
        index = np.zeros(values.size, dtype=np.intp)
        for bound in seen[:-1]:
            index += values > bound
    elif seen.size:
        index = np.minimum(np.searchsorted(seen, values), seen.size - 1)
    if seen.size and bool((seen[index] == values).all()):
        return seen, index
    categories, inverse = np.unique(values, return_inverse=True)
    return categories, inverse.reshape(-1)


def confusion_matrix(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[FloatArray, IntArray]:
    """The categories and the confusion matrix of two grade vectors.

    Parameters
    ----------
    a, b : array_like of float, shape (n,)
        The grades of the same ``n`` items by two coders (``a`` the first, e.g. a judge;
        ``b`` the second, e.g. people), NaN where a coder gave no grade.

    Returns
    -------
    categories : ndarray of float, shape (K,)
        The sorted union of the grades of both coders on the items both graded.
    matrix : ndarray of int64, shape (K, K)
        ``matrix[i, j]``: the number of items graded ``categories[i]`` by ``a`` and
        ``categories[j]`` by ``b`` (rows ``a``, columns ``b``: scikit-learn's
        ``confusion_matrix(a, b, labels=categories)``). Its sum is the number of items both
        graded; without such an item, ``K == 0``.

    Notes
    -----
    Items with a NaN in either vector are left out (pairwise deletion). Integer grades of a
    small span are counted with ``np.bincount`` (no sort), other grades looked up among the
    distinct values of the first rows (``np.unique`` when some value is not among them):
    10 million pairs of integer grades take a few tenths of a second.
    """
    x, y = _grades(a, "a"), _grades(b, "b")
    if x.shape != y.shape:
        msg = f"`a` and `b` must grade the same items; got {x.size} and {y.size} grades."
        raise InvalidOptionError(msg)
    both = ~(np.isnan(x) | np.isnan(y))
    if not both.all():
        x, y = x[both], y[both]
    span = _integer_span(np.concatenate([x, y]))
    if span is not None:
        lo, k = span
        codes = (x - lo).astype(np.intp) * k + (y - lo).astype(np.intp)
        full = np.bincount(codes, minlength=k * k).reshape(k, k)
        used = (full.sum(axis=0) + full.sum(axis=1)) > 0
        return lo + np.flatnonzero(used).astype(np.float64), full[np.ix_(used, used)].astype(
            np.int64
        )
    categories, inverse = _factorize(np.concatenate([x, y]))
    k, n = categories.size, x.size
    codes = inverse[:n] * k + inverse[n:]
    matrix = np.bincount(codes, minlength=k * k).reshape(k, k).astype(np.int64)
    return categories.astype(np.float64), matrix


def _weight_matrix(k: int, weights: Weights) -> FloatArray:
    if weights not in WEIGHTS:
        msg = (
            f"`weights` must be one of None, 'linear', 'quadratic'; got {weights!r}. "
            "None counts every disagreement alike; 'linear' and 'quadratic' weigh it by the "
            "distance between the two grades."
        )
        raise InvalidOptionError(msg)
    position = np.arange(k, dtype=np.float64)
    distance = np.abs(position[:, None] - position[None, :])
    if weights is None:
        return (distance > 0).astype(np.float64)
    return distance if weights == "linear" else distance**2


def kappa_of_confusion(matrix: npt.ArrayLike, weights: Weights = None) -> float:
    """Cohen's kappa of a confusion matrix (see :func:`cohen_kappa`)."""
    c = np.asarray(matrix, dtype=np.float64)
    w = _weight_matrix(c.shape[0], weights)
    n = c.sum()
    if n == 0:
        return float("nan")
    expected = np.outer(c.sum(axis=1), c.sum(axis=0)) / n
    chance = float((w * expected).sum())
    if chance == 0:  # a single category: the agreement expected by chance is total
        return float("nan")
    return 1.0 - float((w * c).sum()) / chance


def cohen_kappa(a: npt.ArrayLike, b: npt.ArrayLike, weights: Weights = None) -> float:
    """Cohen's kappa between two grade vectors.

    Parameters
    ----------
    a, b : array_like of float, shape (n,)
        The grades of the same items by two coders, NaN where a coder gave none (the item
        is left out: pairwise deletion).
    weights : {None, "linear", "quadratic"}, default None
        How a disagreement counts: None, 1 for any two different grades; "linear",
        ``|i - j|``; "quadratic", ``(i - j)**2``, where ``i`` and ``j`` are the positions of
        the two grades among the sorted categories (the union of the grades both coders gave
        on the items both graded), not the grades themselves: grades 0, 1 and 3 are 0, 1
        and 2 apart.

    Returns
    -------
    float
        ``kappa = 1 - sum(w * O) / sum(w * E)`` with ``O`` the confusion matrix
        (:func:`confusion_matrix`), ``E = outer(row sums, column sums) / n`` the matrix
        expected by chance from each coder's own grade frequencies, and ``w`` the weights.
        1 when the coders agree on every item (with at least two categories), 0 when they
        agree as often as chance, negative below. NaN without any item both graded, and
        with a single category (``sum(w * E) == 0``: kappa is 0 / 0).

    Notes
    -----
    Equal to scikit-learn's ``cohen_kappa_score(a, b, weights=weights)`` on the items both
    graded (its default ``replace_undefined_by=np.nan`` for the 0 / 0 cases).

    Examples
    --------
    The last item has one grade only and is left out. On the other four the coders agree
    3 times; the first gave 0 and 1 twice each, the second 0 three times and 1 once, so they
    agree by chance with probability 2/4 * 3/4 + 2/4 * 1/4 = 1/2, and kappa is
    (3/4 - 1/2) / (1 - 1/2) = 1/2:

    >>> cohen_kappa([0, 0, 1, 1, float("nan")], [0, 0, 1, 0, 1])
    0.5
    """
    _, matrix = confusion_matrix(a, b)
    return kappa_of_confusion(matrix, weights)


def _distances(categories: FloatArray, n_v: FloatArray, level: Level) -> FloatArray:
    """Krippendorff's squared distances ``delta**2`` between the categories."""
    if level == "nominal":
        differ: FloatArray = (categories[:, None] != categories[None, :]).astype(np.float64)
        return differ
    if level == "interval":
        squared: FloatArray = (categories[:, None] - categories[None, :]) ** 2
        return squared
    index = np.arange(categories.size)
    lo = np.minimum(index[:, None], index[None, :])
    hi = np.maximum(index[:, None], index[None, :])
    through = np.cumsum(n_v)
    between = through[hi] - through[lo] + n_v[lo]  # n_lo + ... + n_hi
    ordinal: FloatArray = (between - (n_v[:, None] + n_v[None, :]) / 2.0) ** 2
    return ordinal


def alpha_of_coincidences(
    coincidences: npt.ArrayLike, categories: npt.ArrayLike, level: Level = "ordinal"
) -> float:
    """Krippendorff's alpha of a coincidence matrix (see :func:`krippendorff_alpha`)."""
    if level not in LEVELS:
        msg = (
            f"`level` must be one of 'nominal', 'ordinal', 'interval'; got {level!r}. "
            "Grades of relevance are 'ordinal'."
        )
        raise InvalidOptionError(msg)
    o = np.asarray(coincidences, dtype=np.float64)
    n_v = o.sum(axis=0)
    n = n_v.sum()
    d = _distances(np.asarray(categories, dtype=np.float64), n_v, level)
    chance = float((np.outer(n_v, n_v) * d).sum())
    if n <= 1 or chance == 0:
        return float("nan")
    return 1.0 - (float(n) - 1.0) * float((o * d).sum()) / chance


def krippendorff_alpha(data: npt.ArrayLike, level: Level = "ordinal") -> float:
    """Krippendorff's alpha of grades by any number of coders, with missing grades.

    Parameters
    ----------
    data : array_like of float, shape (n_coders, n_units)
        ``data[c, u]``: the grade coder ``c`` gave unit ``u`` (a query-document pair), NaN
        where it gave none. Two coders: a judge's row and people's row.
    level : {"ordinal", "nominal", "interval"}, default "ordinal"
        The level of measurement, which sets the distance between two grades (below).

    Returns
    -------
    float
        ``alpha = 1 - (n - 1) * sum(o * d) / sum(outer(n_v, n_v) * d)`` where ``o`` is the
        coincidence matrix ``o[c, k] = sum over units u of (n_uc n_uk - [c == k] n_uc) /
        (m_u - 1)`` over the units with ``m_u >= 2`` grades (``n_uc`` of them equal to
        category ``c``), ``n_v`` its column sums and ``n`` their total (the pairable grades).
        The squared distance ``d`` between categories ``c <= k``: nominal, 1 when they
        differ; interval, ``(c - k)**2``; ordinal, ``(n_c + ... + n_k - (n_c + n_k) / 2)**2``
        (the categories' ranks among the pairable grades, so only their order matters).
        1 for perfect agreement, 0 for agreement at chance. NaN without any unit graded
        twice, and with a single pairable category (0 / 0).

    Notes
    -----
    Equal to the ``krippendorff`` package's ``alpha(data, level_of_measurement=level)``,
    which raises ``ValueError`` in the two NaN cases. With two coders ``o`` is the
    confusion matrix of the pairs plus its transpose (a unit graded twice adds 1 to
    ``o[a, b]`` and to ``o[b, a]``), computed as :func:`confusion_matrix` does; with more,
    from a units x categories table of counts.

    Examples
    --------
    Two coders, four units, ordinal grades 0-2: they differ only on the last unit (1 against
    2). The pairable grades are 0, 0, 1, 1, 2, 1, 2, 2, hence ``n_v = (2, 3, 3)``, ``n = 8``.
    The one disagreement gives ``o[1, 2] = o[2, 1] = 1`` with ``d(1, 2) = (3 + 3 - 3)**2 =
    9``, so ``sum(o * d) = 18``. The chance term ``sum(outer(n_v, n_v) * d)`` is
    ``2 * (2*3*d(0,1) + 2*3*d(0,2) + 3*3*d(1,2))`` with ``d(0, 1) = (2 + 3 - 2.5)**2 =
    6.25`` and ``d(0, 2) = (2 + 3 + 3 - 2.5)**2 = 30.25``: ``2 * (37.5 + 181.5 + 81) = 600``.
    Alpha is ``1 - 7 * 18 / 600 = 0.79``:

    >>> round(krippendorff_alpha([[0, 1, 2, 1], [0, 1, 2, 2]]), 12)
    0.79
    """
    x = np.asarray(data, dtype=np.float64)
    if x.ndim != 2:
        msg = f"`data` must be coders x units (2-D); got shape {x.shape}."
        raise InvalidOptionError(msg)
    if x.shape[0] == 2:
        categories, matrix = confusion_matrix(x[0], x[1])
        return alpha_of_coincidences(matrix + matrix.T, categories, level)
    graded = ~np.isnan(x)
    categories, codes = np.unique(x[graded], return_inverse=True)
    units = np.broadcast_to(np.arange(x.shape[1]), x.shape)[graded]
    k = categories.size
    counts = np.bincount(units * k + codes, minlength=x.shape[1] * k).reshape(x.shape[1], k)
    m_u = counts.sum(axis=1)
    w = np.where(m_u >= 2, 1.0 / np.maximum(m_u - 1, 1), 0.0)
    weighted = counts * w[:, None]
    o = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    return alpha_of_coincidences(o, categories, level)


@dataclass(frozen=True)
class GradeAgreement:
    """The agreement of two grade vectors, from one confusion matrix.

    Attributes
    ----------
    categories, confusion
        As :func:`confusion_matrix` returns them (rows the first coder, columns the second).
    n_pairs
        The number of items both coders graded.
    kappa, kappa_linear, kappa_quadratic
        Cohen's kappa unweighted, with linear and with quadratic weights.
    alpha
        Krippendorff's alpha, ordinal.
    """

    categories: FloatArray
    confusion: IntArray
    n_pairs: int
    kappa: float
    kappa_linear: float
    kappa_quadratic: float
    alpha: float


def grade_agreement(a: npt.ArrayLike, b: npt.ArrayLike) -> GradeAgreement:
    """Every agreement statistic of two grade vectors from one pass over the grades.

    Parameters
    ----------
    a, b : array_like of float, shape (n,)
        The grades of the same items by two coders (a judge first, people second), NaN where
        a coder gave none.

    Returns
    -------
    GradeAgreement
        The confusion matrix, the three kappas of :func:`cohen_kappa` and the ordinal alpha
        of :func:`krippendorff_alpha`, each equal to what those functions give on ``a`` and
        ``b``.
    """
    categories, matrix = confusion_matrix(a, b)
    return GradeAgreement(
        categories=categories,
        confusion=matrix,
        n_pairs=int(matrix.sum()),
        kappa=kappa_of_confusion(matrix, None),
        kappa_linear=kappa_of_confusion(matrix, "linear"),
        kappa_quadratic=kappa_of_confusion(matrix, "quadratic"),
        alpha=alpha_of_coincidences(matrix + matrix.T, categories, "ordinal"),
    )


def kendall_tau(x: npt.ArrayLike, y: npt.ArrayLike) -> FloatArray:
    """Kendall's tau-b between two orders of the same items, per column.

    Parameters
    ----------
    x, y : array_like, shape (n_items,) or (n_items, m)
        Two scores of the same items (systems: their mean metric under the judge's grades
        and under people's), column by column (metrics).

    Returns
    -------
    ndarray of float, shape ``x.shape[1:]``
        ``tau_b = sum_{i<j} s_x s_y / sqrt(sum_{i<j} |s_x| * sum_{i<j} |s_y|)`` with
        ``s_x = sign(x_i - x_j)``: (concordant - discordant pairs) over the geometric mean
        of the pairs untied in ``x`` and in ``y``. NaN with fewer than 2 items, when either
        order is constant (0 / 0) and for a column containing NaN.

    Notes
    -----
    Equal to ``scipy.stats.kendalltau(x, y).statistic`` (``variant="b"``) per column; no
    p-value (a handful of systems gives little of one). The pairs are formed at once:
    ``O(n_items**2 * m)`` memory, meant for systems, not queries.
    """
    a, shape = as_columns(x, "x")
    b, shape_y = as_columns(y, "y")
    if a.shape != b.shape or shape != shape_y:
        msg = f"`x` and `y` must score the same items; got shapes {a.shape} and {b.shape}."
        raise InvalidOptionError(msg)
    upper = np.triu(np.ones((a.shape[0], a.shape[0]), dtype=bool), k=1)
    sx = np.sign(a[:, None, :] - a[None, :, :])[upper]  # (pairs, m), NaN where a NaN is
    sy = np.sign(b[:, None, :] - b[None, :, :])[upper]
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (sx * sy).sum(axis=0) / np.sqrt(np.abs(sx).sum(axis=0) * np.abs(sy).sum(axis=0))
    tau = np.where(np.isfinite(tau), np.clip(tau, -1.0, 1.0), np.nan)
    return tau.reshape(shape)
