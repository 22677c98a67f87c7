"""Intervals of the mean of per-query values (or paired differences): Student's t interval,
the percentile bootstrap per segment (of means, or of any statistic of weighted queries),
and the bootstrap test of "mean 0" that inverts that interval.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from rankframe.engine.segments import offsets
from rankframe.exceptions import InvalidOptionError
from rankframe.stats._arrays import (
    FloatArray,
    Seed,
    as_columns,
    central_tails,
    moments,
    scipy_special,
)
from rankframe.stats.resampling import (
    BOOT_STEP,
    draw_in_segments,
    percentile_test,
    resampled_means,
)

__all__ = ["bootstrap_interval", "bootstrap_statistic", "bootstrap_test", "t_interval"]


def t_interval(
    diff: npt.ArrayLike, confidence_level: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Student-t confidence interval of the mean difference, per column.

    Parameters
    ----------
    diff : array_like, shape (n_queries,) or (n_queries, m)
        Per-query differences (or any per-query values).
    confidence_level : float, default 0.95
        Confidence level, strictly between 0 and 1 (not checked here).

    Returns
    -------
    low, high : ndarray of float, shape ``diff.shape[1:]``
        ``mean + sem * t_{n-1}((1 -+ confidence_level) / 2)`` with ``sem = std(ddof=1) / sqrt(n)``.

    Notes
    -----
    Equal to ``scipy.stats.t.interval(confidence_level, n - 1, loc=mean, scale=sem)`` whenever
    ``sem > 0``. Edge cases: fewer than 2 queries gives NaN; ``sem == 0`` (all differences
    equal) gives the zero-width interval ``[mean, mean]`` (scipy returns NaN for a zero
    scale); a NaN in a column gives NaN.
    """
    d, shape = as_columns(diff, "diff")
    mean, sem, n = moments(d)
    if n < 2:
        nan = np.full(d.shape[1], np.nan)
        return nan.reshape(shape), nan.copy().reshape(shape)
    q_low, q_high = scipy_special().stdtrit(n - 1, np.array(central_tails(confidence_level)))
    low = np.where(sem == 0, mean, mean + sem * q_low)
    high = np.where(sem == 0, mean, mean + sem * q_high)
    return low.reshape(shape), high.reshape(shape)


def bootstrap_statistic(
    statistic: Callable[[FloatArray], FloatArray],
    segment: npt.ArrayLike,
    n_segments: int,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed: Seed = None,
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap intervals of a statistic of weighted queries, per segment.

    ``statistic(weights)`` gives, for per-query weights (how many times each query was
    drawn), an array of shape (n_segments, ...). The resamples are those of
    :func:`bootstrap_interval` for the same ``segment``, ``n_resamples`` and ``seed``: the
    same queries drawn, so the intervals of means and of set-level metrics of one table
    come from one set of resamples. A segment without queries, or whose statistic is NaN
    in some resample, gets NaN.
    """
    seg = np.asarray(segment).astype(np.intp)
    n = len(seg)
    shape = np.shape(statistic(np.ones(n)))
    if n == 0:
        return np.full(shape, np.nan), np.full(shape, np.nan)
    order = np.argsort(seg, kind="stable")
    size = np.bincount(seg, minlength=n_segments)
    first = offsets(size)
    seg_sorted = seg[order]
    query_size, query_first = size[seg_sorted], first[seg_sorted]
    scale = query_size.astype(np.float64)
    chunk = max(1, BOOT_STEP // n)
    starts = range(0, n_resamples, chunk)
    values = np.empty((n_resamples, *shape))
    streams = np.random.default_rng(seed).spawn(len(starts))
    for start, rng in zip(starts, streams, strict=True):
        stop = min(start + chunk, n_resamples)
        index = draw_in_segments(rng, stop - start, scale, query_size, query_first)
        for r in range(stop - start):  # a loop over resamples; queries stay vectorised
            weights = np.bincount(order[index[r]], minlength=n).astype(np.float64)
            values[start + r] = statistic(weights)
    q = np.quantile(values, central_tails(confidence_level), axis=0, method="linear")
    empty = (size == 0).reshape((n_segments,) + (1,) * (len(shape) - 1))
    return np.where(empty, np.nan, q[0]), np.where(empty, np.nan, q[1])


def bootstrap_interval(
    values: npt.ArrayLike,
    segment: npt.ArrayLike,
    n_segments: int,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed: Seed = None,
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap intervals of the mean over the queries of each segment.

    Parameters
    ----------
    values : array_like, shape (n_queries,) or (n_queries, m)
        Per-query values (metric values, or differences between two systems).
    segment : array_like of int, shape (n_queries,)
        The segment of each query, a code in ``0 .. n_segments - 1``.
    n_segments : int
        Number of segments; a segment without queries gets NaN.
    confidence_level : float, default 0.95
        Confidence level, strictly between 0 and 1 (not checked here).
    n_resamples : int, default 1000
        Number of bootstrap resamples, a positive integer (not checked here).
    seed : int, numpy Generator or None
        Passed to :func:`numpy.random.default_rng`; the same seed gives the same intervals.

    Returns
    -------
    low, high : ndarray of float, shape ``(n_segments,) + values.shape[1:]``
        The ``(1 - confidence_level) / 2`` and ``(1 + confidence_level) / 2`` quantiles
        (``np.quantile``, ``method="linear"``) of the resampled means.

    Notes
    -----
    Each resample draws, within every segment independently, as many queries as the segment
    has, uniformly with replacement (an exact multinomial bootstrap per segment), and takes
    the mean of each column over them; every column sees the same resampled queries. The
    draws: ``first[s] + floor(u * size[s])`` for uniform ``u`` in [0, 1) over the queries
    sorted by segment, then one ``np.add.reduceat`` per column. Resamples go by tasks of
    about ``2**20 / n_queries``, each with its own random stream (``Generator.spawn``), on up
    to 4 threads; for an int ``seed`` the result depends only on ``seed``, the data and
    ``n_resamples`` (not on the number of columns or threads).

    A segment of one query, or of equal values, gives a zero-width interval at its mean; a
    NaN (or infinite) value gives NaN for its segment and column.
    """
    v, shape = as_columns(values, "values")
    n, m = v.shape
    seg = np.asarray(segment)
    if seg.shape != (n,):
        msg = f"`segment` must have shape ({n},), one code per query; got {seg.shape}."
        raise InvalidOptionError(msg)
    if n and (not np.issubdtype(seg.dtype, np.integer) or seg.min() < 0 or seg.max() >= n_segments):
        raise InvalidOptionError(f"`segment` must hold integer codes in 0 .. {n_segments - 1}.")
    out_shape = (n_segments, *shape)
    low = np.full((n_segments, m), np.nan)
    high = np.full((n_segments, m), np.nan)
    if n == 0:
        return low.reshape(out_shape), high.reshape(out_shape)
    means, present, has_nan = resampled_means(v, seg, n_segments, n_resamples, seed)
    q = np.quantile(means, central_tails(confidence_level), axis=1, method="linear")
    low[present] = np.where(has_nan, np.nan, q[0].T)  # q: (2, m, segments)
    high[present] = np.where(has_nan, np.nan, q[1].T)
    return low.reshape(out_shape), high.reshape(out_shape)


def bootstrap_test(
    values: npt.ArrayLike,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed: Seed = None,
    alternative: str = "two-sided",
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Percentile bootstrap test of "mean 0" of per-query values (paired differences), per
    column: the p-value and the interval of :func:`percentile_test` over the resampled
    means of :func:`bootstrap_interval` with one segment (the same draws: its interval,
    two-sided, is that function's). Returns ``(p_value, low, high)``; no value, or a NaN
    (or infinite) one, gives NaN."""
    v, shape = as_columns(values, "values")
    n = v.shape[0]
    if n == 0:
        nan = np.full(shape, np.nan)
        return nan, nan.copy(), nan.copy()
    means, _, has_nan = resampled_means(v, np.zeros(n, dtype=np.intp), 1, n_resamples, seed)
    resampled = np.where(has_nan[0][:, None], np.nan, means[:, :, 0])
    scale = np.max(np.abs(np.where(np.isfinite(v), v, 0.0)), axis=0)
    out = percentile_test(resampled, scale, confidence_level, alternative)
    return tuple(a.reshape(shape) for a in out)  # type: ignore[return-value]
