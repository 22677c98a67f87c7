"""Prediction-powered inference of a mean: a judge's per-query values on every query,
corrected by the queries people also judged (Angelopoulos et al. 2023a), with the
power-tuning of PPI++ (Angelopoulos, Duchi and Zrnic 2023b); and, for contrast, the mean
of people's values alone and of the judge's alone.

The queries fall in two disjoint sets: ``n`` queries people judged, with a metric's value
under people's grades (``gold``) and under the judge's (``judge_gold``), and ``N`` queries
only the judge judged (``judge_unlabelled``). :class:`JudgedValues` holds the three arrays,
each with the queries along axis 0 and any number of independent columns after it
(systems x metrics): every estimate is per column. Comparing two systems is the same
estimate on per-query differences, ``current - reference`` (:meth:`JudgedValues.__sub__`),
as ``compare()`` does with its paired tests.

The judge's mean is over the ``N`` queries people did not judge, not over all ``n + N``:
``ppi_py``'s ``Yhat_unlabeled`` is a sample apart from the labelled one, and its variance
``var(G) / N + var(Y - F) / n`` adds the two terms' variances as those of independent
samples; the judge's values on every query would count the ``n`` queries in both terms.

The estimates, per column (``Y`` people's values, ``F`` the judge's on the same queries,
``G`` the judge's on the others; ``var`` divides by the count, ``ddof=0``):

``"ppi"``
    ``mean(G) + mean(Y - F)``: the judge's mean, corrected by the rectifier (people minus
    judge where both judged). Standard error ``sqrt(var(G) / N + var(Y - F) / n)``; the
    interval is ``mean -+ z * se`` with ``z`` the normal quantile (a CLT interval).
``"ppi++"``
    ``lam * mean(G) + mean(Y - lam * F)`` with standard error
    ``sqrt(lam**2 var(G) / N + var(Y - lam F) / n)``, where
    ``lam = cov(Y, F) / ((1 + n / N) * var1(F and G))`` clipped to [0, 1] (``cov`` over the
    ``n`` queries with ``ddof=0``, ``var1`` over all ``n + N`` judge values with ``ddof=1``):
    the weight of the judge that minimises the variance. ``lam = 0`` is people alone (a
    z interval), ``lam = 1`` is ``"ppi"``; a judge no better than noise gets ``lam`` near 0,
    so the interval is never much wider than people's alone. Plain ``"ppi"`` can be: it
    pays the judge's noise in full, and is narrower than people's alone only when
    ``var(Y - F) + (n / N) var(F) < var(Y)`` (in the tests' simulation, a judge that adds
    a bias and normal noise to people's values, with n = 100 and N = 400: a correlation
    above 0.79).
``"gold"``
    ``mean(Y)``, with the Student t interval of the ``n`` values (``ddof=1``, ``n - 1``
    degrees of freedom): what ``evaluate`` gives on people's grades alone.
``"judge"``
    The mean of the judge's values on all ``n + N`` queries, with their t interval: it
    ignores the judge's bias, and is there to be contrasted with the others.

The PPI estimates equal ``ppi_py``'s (the ``ppi_python`` package): ``ppi_mean_ci(Y, F, G,
alpha=1 - confidence_level, lam=1)`` for ``"ppi"`` and ``lam=None`` with
``lam_optim_mode="element"`` (one ``lam`` per column) for ``"ppi++"``, with
``ppi_mean_pointestimate`` alike; checked in ``tests/statistics/test_ppi.py``, where a
simulation also measures the coverage of the intervals.

Where ``ppi_py`` gives NaN or fails, these give (and document) a value: a constant judge
(``var1 == 0``) gets ``lam = 0`` in ``"ppi++"`` (it carries no information), and with no
query judged by the judge alone (``N == 0``) both PPI estimates are people's (``lam = 0``),
since the judge has nothing to add. Fewer than 2 queries judged by people gives NaN (no
variance to estimate the rectifier's); a column containing NaN gives NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rankframe.exceptions import InvalidOptionError
from rankframe.stats._arrays import FloatArray, as_columns, central_tails, moments, scipy_special

__all__ = [
    "ESTIMATES",
    "JudgedValues",
    "MeanEstimate",
    "estimate_mean",
    "gold_mean",
    "judge_mean",
    "power_tuning",
    "ppi_mean",
]


@dataclass(frozen=True)
class JudgedValues:
    """Per-query values of some columns under people's and a judge's grades.

    Attributes
    ----------
    gold : ndarray of float, shape (n, m)
        People's values on the ``n`` queries people judged.
    judge_gold : ndarray of float, shape (n, m)
        The judge's values on the same queries, in the same order.
    judge_unlabelled : ndarray of float, shape (N, m)
        The judge's values on the ``N`` queries people did not judge.
    shape : tuple of int
        The shape of one result (the columns' shape as passed to :meth:`of`).
    """

    gold: FloatArray
    judge_gold: FloatArray
    judge_unlabelled: FloatArray
    shape: tuple[int, ...]

    @classmethod
    def of(
        cls, gold: npt.ArrayLike, judge_gold: npt.ArrayLike, judge_unlabelled: npt.ArrayLike
    ) -> JudgedValues:
        """The three arrays, each ``(queries,)`` or ``(queries, ...)`` with the same columns,
        ``gold`` and ``judge_gold`` on the same queries."""
        y, shape = as_columns(gold, "gold")
        f, shape_f = as_columns(judge_gold, "judge_gold")
        g, shape_g = as_columns(judge_unlabelled, "judge_unlabelled")
        if y.shape != f.shape:
            msg = (
                "`gold` and `judge_gold` must hold the same queries (people's and the judge's "
                f"values of each query people judged); got shapes {y.shape} and {f.shape}."
            )
            raise InvalidOptionError(msg)
        if shape_g != shape or shape_f != shape:
            msg = f"`judge_unlabelled` must have the columns of `gold`; got {shape_g} and {shape}."
            raise InvalidOptionError(msg)
        return cls(y, f, g, shape)

    @property
    def n_gold(self) -> int:
        """The number of queries people judged."""
        return int(self.gold.shape[0])

    @property
    def n_unlabelled(self) -> int:
        """The number of queries only the judge judged."""
        return int(self.judge_unlabelled.shape[0])

    def __sub__(self, other: JudgedValues) -> JudgedValues:
        """Per-query differences ``self - other`` (two systems on the same queries, people's
        and the judge's alike): the paired form, as ``compare()`` takes it."""
        if (self.n_gold, self.n_unlabelled, self.shape) != (
            other.n_gold,
            other.n_unlabelled,
            other.shape,
        ):
            msg = (
                "Paired differences need the same queries on both sides; got "
                f"{self.n_gold} + {self.n_unlabelled} and {other.n_gold} + "
                f"{other.n_unlabelled} queries (judged by people + by the judge alone)."
            )
            raise InvalidOptionError(msg)
        return JudgedValues(
            self.gold - other.gold,
            self.judge_gold - other.judge_gold,
            self.judge_unlabelled - other.judge_unlabelled,
            self.shape,
        )


@dataclass(frozen=True)
class MeanEstimate:
    """A mean per column with its interval and its test of "mean = 0".

    Attributes
    ----------
    estimate : str
        Which estimate (one of :data:`ESTIMATES`).
    mean, low, high, std_error : ndarray of float
        The estimate, the bounds of its interval and its standard error, each of the shape
        of one result.
    statistic, p_value : ndarray of float
        The test of "mean = 0" that inverts the interval: ``mean / std_error`` against the
        normal distribution (``"ppi"``, ``"ppi++"``) or Student's t (``"gold"``,
        ``"judge"``), two-sided. On per-query differences, the paired test of two systems.
    lam : ndarray of float
        The judge's weight: 1 for ``"ppi"``, the tuned one for ``"ppi++"``, 0 for ``"gold"``,
        NaN for ``"judge"``.
    n_gold, n_unlabelled : int
        The queries people judged, and those only the judge judged.
    """

    estimate: str
    mean: FloatArray
    low: FloatArray
    high: FloatArray
    std_error: FloatArray
    statistic: FloatArray
    p_value: FloatArray
    lam: FloatArray
    n_gold: int
    n_unlabelled: int


def _var0(x: FloatArray) -> FloatArray:
    """Column variances dividing by the count (``np.std``'s, which ``ppi_py`` uses)."""
    var: FloatArray = np.mean((x - x.mean(axis=0)) ** 2, axis=0)
    return var


def _result(
    estimate: str,
    values: JudgedValues,
    parts: tuple[FloatArray, FloatArray, FloatArray],
    confidence_level: float,
    df: int | None,
) -> MeanEstimate:
    """Interval and test of ``mean`` with standard error ``se`` (normal, or t with ``df``)."""
    mean, se, lam = parts
    special = scipy_special()
    tails = np.array(central_tails(confidence_level))
    if df is None:
        q_low, q_high = special.ndtri(tails)
    else:
        q_low, q_high = special.stdtrit(df, tails)
    low = np.where(se == 0, mean, mean + se * q_low)
    high = np.where(se == 0, mean, mean + se * q_high)
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = mean / se
    tail = special.ndtr(-np.abs(stat)) if df is None else special.stdtr(df, -np.abs(stat))
    s = values.shape
    return MeanEstimate(
        estimate=estimate,
        mean=mean.reshape(s),
        low=np.asarray(low, dtype=np.float64).reshape(s),
        high=np.asarray(high, dtype=np.float64).reshape(s),
        std_error=se.reshape(s),
        statistic=stat.reshape(s),
        p_value=np.asarray(2.0 * tail, dtype=np.float64).reshape(s),
        lam=lam.reshape(s),
        n_gold=values.n_gold,
        n_unlabelled=values.n_unlabelled,
    )


def power_tuning(values: JudgedValues) -> FloatArray:
    """The PPI++ weight of the judge, per column.

    Returns
    -------
    ndarray of float, shape (m,)
        ``clip(cov(Y, F) / ((1 + n / N) * var1(F and G)), 0, 1)``: ``cov`` over the ``n``
        queries people judged (``ddof=0``), ``var1`` over the judge's values on all
        ``n + N`` queries (``ddof=1``); the ``lam`` that minimises the variance of
        ``lam * mean(G) + mean(Y - lam * F)`` (``ppi_py``'s ``_calc_lam_glm`` for a mean,
        ``clip=True``, ``optim_mode="element"``). 0 when the judge is constant or ``N == 0``;
        NaN with fewer than 2 queries judged by people, or a NaN in the column.
    """
    y, f, g = values.gold, values.judge_gold, values.judge_unlabelled
    n, big_n = values.n_gold, values.n_unlabelled
    if n < 2:
        return np.full(y.shape[1], np.nan)
    if big_n == 0:
        return np.where(np.isnan(y + f).any(axis=0), np.nan, 0.0)
    cov = np.mean((y - y.mean(axis=0)) * (f - f.mean(axis=0)), axis=0)
    both = np.concatenate([f, g])
    var1 = np.sum((both - both.mean(axis=0)) ** 2, axis=0) / (n + big_n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(cov / ((1.0 + n / big_n) * var1), 0.0, 1.0)
    return np.where(var1 == 0, 0.0, lam)


def ppi_mean(
    values: JudgedValues, lam: float | None = 1.0, confidence_level: float = 0.95
) -> MeanEstimate:
    """The prediction-powered mean and its CLT interval, per column.

    Parameters
    ----------
    values : JudgedValues
        People's and the judge's per-query values.
    lam : float in [0, 1] or None, default 1.0
        The judge's weight: 1 is PPI, 0 people alone, None the tuned weight of
        :func:`power_tuning` (PPI++).
    confidence_level : float, default 0.95
        Strictly between 0 and 1 (not checked here).

    Returns
    -------
    MeanEstimate
        ``lam * mean(G) + mean(Y - lam * F)`` with standard error
        ``sqrt(lam**2 var(G) / N + var(Y - lam F) / n)`` (``ddof=0``) and the normal
        interval around it (see the module's notes for the edge cases).

    Examples
    --------
    Four queries judged by people and the judge, two by the judge alone. The judge gives
    0.1 more than people on three of the four, 0.1 less on the other: the rectifier
    ``Y - F`` is (-0.1, -0.1, -0.1, 0.1), of mean -0.05. The judge's mean on the other two
    queries is 0.6, so the estimate is 0.6 - 0.05 = 0.55:

    >>> v = JudgedValues.of([0.5, 0.2, 0.7, 0.6], [0.6, 0.3, 0.8, 0.5], [0.4, 0.8])
    >>> est = ppi_mean(v)
    >>> round(float(est.mean), 12)
    0.55

    ``var(G) = 0.04`` over ``N = 2`` and ``var(Y - F) = 0.0075`` over ``n = 4`` give
    ``se**2 = 0.02 + 0.001875 = 0.021875``:

    >>> round(float(est.std_error) ** 2, 12)
    0.021875
    """
    n, big_n = values.n_gold, values.n_unlabelled
    m = values.gold.shape[1]
    if lam is None:
        weight = power_tuning(values)
        name = "ppi++"
    else:
        weight = np.full(m, 0.0 if big_n == 0 else float(lam))
        name = "ppi" if lam == 1 else f"ppi(lam={lam:g})"
    if n < 2:
        nan = np.full(m, np.nan)
        return _result(name, values, (nan, nan.copy(), weight), confidence_level, None)
    rectifier = values.gold - weight * values.judge_gold
    se2 = _var0(rectifier) / n
    mean = rectifier.mean(axis=0)
    if big_n:
        g = values.judge_unlabelled
        mean = mean + weight * g.mean(axis=0)
        se2 = se2 + weight**2 * _var0(g) / big_n
    return _result(name, values, (mean, np.sqrt(se2), weight), confidence_level, None)


def _t_mean(
    name: str, x: FloatArray, values: JudgedValues, lam: float, confidence_level: float
) -> MeanEstimate:
    mean, sem, n = moments(x)
    weight = np.full(x.shape[1], lam)
    if n < 2:
        nan = np.full(x.shape[1], np.nan)
        return _result(name, values, (mean, nan, weight), confidence_level, 1)
    return _result(name, values, (mean, sem, weight), confidence_level, n - 1)


def gold_mean(values: JudgedValues, confidence_level: float = 0.95) -> MeanEstimate:
    """People's mean alone and its Student t interval (``ddof=1``), per column: equal to
    ``rankframe.stats.intervals.t_interval`` and ``paired.paired_t_test`` of ``gold``."""
    return _t_mean("gold", values.gold, values, 0.0, confidence_level)


def judge_mean(values: JudgedValues, confidence_level: float = 0.95) -> MeanEstimate:
    """The judge's mean alone over all ``n + N`` queries and its Student t interval."""
    both = np.concatenate([values.judge_gold, values.judge_unlabelled])
    return _t_mean("judge", both, values, np.nan, confidence_level)


def _ppi(values: JudgedValues, confidence_level: float) -> MeanEstimate:
    return ppi_mean(values, 1.0, confidence_level)


def _ppi_plus(values: JudgedValues, confidence_level: float) -> MeanEstimate:
    return ppi_mean(values, None, confidence_level)


ESTIMATES: dict[str, Callable[[JudgedValues, float], MeanEstimate]] = {
    "ppi": _ppi,
    "ppi++": _ppi_plus,
    "gold": gold_mean,
    "judge": judge_mean,
}


def estimate_mean(
    values: JudgedValues, estimate: str = "ppi", confidence_level: float = 0.95
) -> MeanEstimate:
    """The mean of each column by one of :data:`ESTIMATES` ("ppi", "ppi++", "gold",
    "judge"; see the module's notes), with its interval and test."""
    if estimate not in ESTIMATES:
        msg = (
            f"`estimate` must be one of {', '.join(map(repr, ESTIMATES))}; got {estimate!r}. "
            "'ppi' corrects the judge's mean with people's grades, 'ppi++' also tunes the "
            "judge's weight, 'gold' and 'judge' use one set of grades alone."
        )
        raise InvalidOptionError(msg)
    return ESTIMATES[estimate](values, confidence_level)
