"""Vectorised statistics over per-query metric values: paired and two-sample tests,
intervals, corrections.

The tests and intervals take the per-query values (or paired differences) with the queries
along axis 0 and any number of independent columns after it (systems x metrics, ...): a
``(n_queries, m)`` array gives ``m`` results, a 1-D array a 0-d result. Nothing loops over
queries or resamples in Python (only over chunks of them, to bound memory). The tests
are implemented here and checked in ``tests/statistics/test_stats.py`` against
:mod:`scipy.stats`; scipy only supplies the t and normal distribution functions.

A column containing NaN gives NaN results (scipy's ``nan_policy="propagate"``). The settings
(``confidence_level``, ``n_resamples``, the correction) arrive checked: the public API builds
them once, as :mod:`rankframe.settings.statistics` objects, and they are not checked again
here. A bad array (no query axis, segment codes out of range, two samples of different
columns) raises :class:`~rankframe.exceptions.InvalidOptionError` (a ``ValueError``).
"""

from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from types import ModuleType
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from rankframe.engine.segments import offsets
from rankframe.exceptions import InvalidOptionError
from rankframe.settings.options import CORRECTION, Correction, check_choice

__all__ = [
    "ALTERNATIVES",
    "adjust",
    "bootstrap_interval",
    "bootstrap_test",
    "group_gap",
    "group_gap_interval",
    "group_means",
    "group_permutation_test",
    "kruskal_test",
    "mann_whitney_test",
    "one_way_anova",
    "paired_t_test",
    "permutation_test",
    "subset_permutation_test",
    "subset_sign_flip_test",
    "t_interval",
    "t_test_detectable_effect",
    "t_test_of",
    "t_test_power",
    "t_test_sample_size",
    "two_sample_bootstrap_interval",
    "two_sample_bootstrap_test",
    "two_sample_permutation_test",
    "welch_error",
    "welch_interval",
    "welch_t_test",
    "wilcoxon_test",
]

FloatArray = npt.NDArray[np.float64]
Seed = int | np.random.Generator | None
Adjustment = Correction  # the corrections of ``compare``, declared in rankframe.settings.options
_A = TypeVar("_A")
_R = TypeVar("_R")

_BLOCK = 8  # queries per lookup table in the sign-flip test: 2**8 signed sums per block
_PERM_TASK = 1024  # resamples per task of the sign-flip test (one random stream each)
_PERM_STEP = 1 << 18  # table lookups per step of a task: 256 blocks x 1024 resamples (2 MB)
_BOOT_STEP = 1 << 20  # resampled queries per task of the bootstrap (8 MB of indices)
_MAX_THREADS = 4  # chunks of resamples run on a few threads (NumPy releases the GIL)
_WILCOXON_EXACT_MAX = 50  # scipy's method="auto": exact distribution up to 50 queries
_WILCOXON_ENUM_MAX = 13  # ... and full sign enumeration (2**13 <= 9999) with ties/zeros



def _special() -> ModuleType:
    """``scipy.special``, imported when first needed: it takes about 0.4 s to import, which
    ``import rankframe`` should not pay (a heavy library, imported in this function alone)."""
    import scipy.special

    special: ModuleType = scipy.special
    return special

def _columns(x: npt.ArrayLike, name: str) -> tuple[FloatArray, tuple[int, ...]]:
    """``x`` as a float (n, m) array, and the shape of one result (``x.shape[1:]``)."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        msg = f"`{name}` must have at least one dimension (queries along axis 0)."
        raise InvalidOptionError(msg)
    return a.reshape(a.shape[0], math.prod(a.shape[1:])), a.shape[1:]


def _tails(confidence_level: float) -> list[float]:
    """The probabilities of the bounds of a central interval: ``(1 -+ confidence_level) / 2``."""
    return [(1.0 - confidence_level) / 2.0, (1.0 + confidence_level) / 2.0]


def _moments(d: FloatArray) -> tuple[FloatArray, FloatArray, int]:
    """Column means, standard errors of the mean (ddof=1, NaN for n < 2) and n."""
    n = d.shape[0]
    if n < 2:
        nan = np.full(d.shape[1], np.nan)
        return (d.mean(axis=0) if n else nan.copy()), nan, n
    mean = d.mean(axis=0)
    # as scipy's ttest_1samp: the mean of squared deviations, times n / (n - 1)
    var = np.mean((d - mean) ** 2, axis=0) * (n / (n - 1))
    return mean, np.sqrt(var / n), n


def _threads() -> int:
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        available = os.cpu_count() or 1
    return max(1, min(_MAX_THREADS, available))


def _map_chunks(work: Callable[[_A], _R], chunks: Iterable[_A]) -> Iterator[_R]:
    """``map(work, chunks)`` on a few threads, in order, with few chunks in flight.

    Each chunk of resamples draws from its own random stream (``Generator.spawn``), so the
    results do not depend on the number of threads or on their scheduling.
    """
    threads = _threads()
    if threads == 1:
        yield from map(work, chunks)
        return
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="rankframe-stats") as pool:
        pending: deque[Future[_R]] = deque()
        for chunk in chunks:
            pending.append(pool.submit(work, chunk))
            if len(pending) >= 2 * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _tasks(
    work: Callable[[tuple[int, np.random.Generator]], _R], starts: range, seed: Seed
) -> Iterator[_R]:
    """``work((start, rng))`` for each task of resamples (its first resample), each with its
    own stream of ``default_rng(seed).spawn(len(starts))``, in order (:func:`_map_chunks`)."""
    streams = np.random.default_rng(seed).spawn(len(starts))
    yield from _map_chunks(work, zip(starts, streams, strict=True))


def _monte_carlo_hits(
    count: Callable[[tuple[int, np.random.Generator]], npt.NDArray[np.int64]], starts: range,
    seed: Seed, m: int,
) -> npt.NDArray[np.int64]:
    """Per column (``m``), the resampled statistics at least as extreme as the observed one,
    summed over the tasks (``count``: one task's counts); a permutation test's p-value is
    ``(1 + hits) / (1 + resamples)``."""
    hits = np.zeros(m, dtype=np.int64)
    for task_hits in _tasks(count, starts, seed):
        hits += task_hits
    return hits


def paired_t_test(diff: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Two-sided paired t-test of "mean difference = 0", per column.

    Parameters
    ----------
    diff : array_like, shape (n_queries,) or (n_queries, m)
        Per-query differences between two systems; each column is tested on its own.

    Returns
    -------
    statistic : ndarray of float, shape ``diff.shape[1:]``
        ``mean / (std(ddof=1) / sqrt(n))``.
    p_value : ndarray of float, shape ``diff.shape[1:]``
        ``2 * P(T_{n-1} >= |statistic|)``.

    Notes
    -----
    Equal to ``scipy.stats.ttest_1samp(diff, 0, axis=0)`` (and so to ``ttest_rel(a, b)`` for
    ``diff = a - b``), edge cases included:

    - fewer than 2 queries: statistic and p-value NaN;
    - every difference equal to 0 (standard deviation 0, mean 0): 0 / 0, statistic and
      p-value NaN -- no evidence either way, and nothing to test;
    - a constant non-zero difference: the standard deviation is 0 (or rounding noise), the
      statistic +-inf (or huge) and the p-value 0 (or tiny);
    - a NaN in a column: NaN for that column.
    """
    d, shape = _columns(diff, "diff")
    mean, sem, n = _moments(d)
    if n < 2:
        nan = np.full(d.shape[1], np.nan)
        return nan.reshape(shape), nan.copy().reshape(shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / sem
    p = 2.0 * _special().stdtr(n - 1, -np.abs(t))
    return t.reshape(shape), np.asarray(p, dtype=np.float64).reshape(shape)


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
    d, shape = _columns(diff, "diff")
    mean, sem, n = _moments(d)
    if n < 2:
        nan = np.full(d.shape[1], np.nan)
        return nan.reshape(shape), nan.copy().reshape(shape)
    q_low, q_high = _special().stdtrit(n - 1, np.array(_tails(confidence_level)))
    low = np.where(sem == 0, mean, mean + sem * q_low)
    high = np.where(sem == 0, mean, mean + sem * q_high)
    return low.reshape(shape), high.reshape(shape)


# --- Wilcoxon signed-rank --------------------------------------------------------------------


@lru_cache(maxsize=64)
def _wilcoxon_tails(n: int) -> tuple[FloatArray, FloatArray]:
    """Exact null distribution of W+ for n untied non-zero differences, as scipy builds it:
    ``cdf[k] = P(W+ <= k)`` and ``sf[k] = P(W+ >= k)`` (``sf`` has a trailing 0)."""
    pmf = np.ones(1)
    for k in range(1, n + 1):  # convolution with {0, k}, k <= 50
        nxt = np.zeros(k * (k + 1) // 2 + 1)
        nxt[: len(pmf)] = pmf * 0.5
        nxt[-len(pmf) :] += pmf * 0.5
        pmf = nxt
    sf = np.append(np.cumsum(pmf[::-1])[::-1], 0.0)
    return np.cumsum(pmf), sf


def _midranks(a: FloatArray) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """Average ranks of each row of ``a`` (NaNs rank last, each NaN on its own), with the tie
    correction ``sum(t**3 - t)`` over the groups of tied values and whether a row has ties."""
    m, n = a.shape
    order = np.argsort(a, axis=1, kind="stable")
    y = np.take_along_axis(a, order, axis=1)
    new = np.ones((m, n), dtype=bool)
    new[:, 1:] = y[:, 1:] != y[:, :-1]  # NaN != NaN: every NaN starts a group
    starts = np.flatnonzero(new)
    counts = np.diff(starts, append=m * n).astype(np.float64)
    first_rank = (starts % n + 1).astype(np.float64)
    ranks = np.empty((m, n))
    np.put_along_axis(
        ranks,
        order,
        np.repeat(first_rank + (counts - 1.0) / 2.0, counts.astype(np.intp)).reshape(m, n),
        axis=1,
    )
    row = starts // n
    tie = np.bincount(row, weights=counts**3 - counts, minlength=m).astype(np.float64)
    has_ties = np.bincount(row, weights=counts > 1, minlength=m) > 0
    return ranks, tie, has_ties


def wilcoxon_test(diff: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Two-sided Wilcoxon signed-rank test of "differences symmetric about 0", per column.

    Parameters
    ----------
    diff : array_like, shape (n_queries,) or (n_queries, m)
        Per-query differences between two systems; each column is tested on its own.

    Returns
    -------
    statistic : ndarray of float, shape ``diff.shape[1:]``
        ``min(W+, W-)``, the smaller of the rank sums of the positive and of the negative
        differences (zeros dropped, tied absolute differences given their average rank).
    p_value : ndarray of float, shape ``diff.shape[1:]``

    Notes
    -----
    Reproduces ``scipy.stats.wilcoxon(diff[:, j])`` with scipy's defaults
    (``zero_method="wilcox"``, ``correction=False``, ``method="auto"``), column by column.
    Zero differences are dropped before ranking (``n`` below still counts them). The method
    is chosen as scipy 1.17 does:

    - more than 50 queries: normal approximation, ``z = (W+ - n'(n'+1)/4) / se`` with
      ``se**2 = (n'(n'+1)(2n'+1) - sum(t**3 - t) / 2) / 24`` over the ``n'`` non-zero
      differences and the groups of ``t`` tied absolute values; ``p = 2 * Phi(-|z|)``;
    - at most 50 queries, no zero and no tie: the exact distribution of ``W+``,
      ``p = min(1, 2 * min(P(W+ <= w), P(W+ >= w)))``;
    - at most 13 queries with a zero or a tie: the exact sign-flip distribution of ``W+``
      (all ``2**n`` sign vectors; scipy's ``PermutationMethod``, deterministic there);
    - 14 to 50 queries with a zero or a tie: the normal approximation above.

    scipy decides between these on the whole array at once (a tie in one column sends every
    column of a 2-D call to the normal approximation); here each column is decided on its
    own data, so a column's p-value does not depend on the other columns. The two agree
    whenever all columns share the same "has a zero or a tie" status.

    Edge cases: no query gives NaN; a column of only zeros gives statistic 0 and p-value 1
    with at most 13 queries, and NaN (0 / 0 in ``z``) with more, as scipy (scipy raises for
    a single zero; 1 here, as for 2 to 13 zeros); a NaN in a column gives NaN.
    """
    d, shape = _columns(diff, "diff")
    n, m = d.shape
    statistic = np.full(m, np.nan)
    p_value = np.full(m, np.nan)
    finite = np.asarray(~np.isnan(d).any(axis=0))
    if n == 0 or not finite.any():
        return statistic.reshape(shape), p_value.reshape(shape)
    x = d[:, finite].T  # (m', n): one row per column, for row-wise sorting
    nonzero = x != 0
    ranks, tie, has_ties = _midranks(np.where(nonzero, np.abs(x), np.nan))
    ranks = np.where(nonzero, ranks, 0.0)
    r_plus = np.sum(np.where(x > 0, ranks, 0.0), axis=1)
    r_minus = np.sum(np.where(x < 0, ranks, 0.0), axis=1)
    count = nonzero.sum(axis=1).astype(np.float64)
    untied = ~(has_ties | (count < n))  # no tie and no zero

    if n > _WILCOXON_EXACT_MAX:
        normal = np.ones(len(x), dtype=bool)
    elif n <= _WILCOXON_ENUM_MAX:
        normal = np.zeros(len(x), dtype=bool)
    else:
        normal = ~untied
    exact = ~normal & untied
    enumerate_ = ~normal & ~untied

    p = np.full(len(x), np.nan)
    if normal.any():
        c = count[normal]
        mn = c * (c + 1.0) * 0.25
        se = np.sqrt((c * (c + 1.0) * (2.0 * c + 1.0) - tie[normal] / 2.0) / 24.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (r_plus[normal] - mn) / se
        p[normal] = 2.0 * _special().ndtr(-np.abs(z))
    if exact.any():
        cdf, sf = _wilcoxon_tails(n)
        w = r_plus[exact].astype(np.intp)  # integral without ties
        mean = n * (n + 1) / 4
        w_cdf = np.where(w <= mean, cdf[w], 1.0 - sf[np.minimum(w + 1, len(sf) - 1)])
        w_sf = np.where(w <= mean, sf[w], 1.0 - cdf[np.maximum(w - 1, 0)])
        p[exact] = np.clip(2.0 * np.minimum(w_sf, w_cdf), 0.0, 1.0)
    if enumerate_.any():
        # every sign vector: bit j of row k says whether query j is positive
        signs = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        null = signs.astype(np.float64) @ ranks[enumerate_].T  # (2**n, m'')
        observed = r_plus[enumerate_]
        gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)  # scipy's tolerance
        less = np.count_nonzero(null <= observed + gamma, axis=0) / 2.0**n
        greater = np.count_nonzero(null >= observed - gamma, axis=0) / 2.0**n
        p[enumerate_] = np.clip(2.0 * np.minimum(less, greater), 0.0, 1.0)

    statistic[finite] = np.minimum(r_plus, r_minus)
    p_value[finite] = p
    return statistic.reshape(shape), p_value.reshape(shape)


# --- sign-flip permutation test --------------------------------------------------------------


def permutation_test(
    diff: npt.ArrayLike, n_resamples: int = 10_000, seed: Seed = None
) -> FloatArray:
    """Two-sided paired randomization (sign-flip) test of "mean difference = 0", per column.

    Parameters
    ----------
    diff : array_like, shape (n_queries,) or (n_queries, m)
        Per-query differences between two systems.
    n_resamples : int, default 10 000
        Number of random sign vectors, a positive integer (not checked here).
    seed : int, numpy Generator or None
        Passed to :func:`numpy.random.default_rng`; the same seed gives the same p-values.

    Returns
    -------
    p_value : ndarray of float, shape ``diff.shape[1:]``
        ``(1 + #{resamples: |S*| >= |S| - tol}) / (1 + n_resamples)``, where ``S`` is the sum
        of the differences, ``S*`` the sum after flipping each query's sign at random, and
        ``tol = 1e-12 * sum(|diff|)`` absorbs rounding (theoretically equal sums computed in
        another order). Never 0; at least ``1 / (1 + n_resamples)``.

    Notes
    -----
    One random sign matrix (n_resamples x n_queries) is drawn and shared by every column, so
    the columns (metrics, systems) are tested on the same resamples; for an int ``seed`` it
    depends only on ``seed``, ``n_queries`` and ``n_resamples``, not on the values, the
    number of columns or the number of threads.

    The queries are taken in blocks of 8; for each block the 256 signed sums are tabulated,
    and one random byte per (resample, block) picks a sum, so a resample costs
    ``n_queries / 8`` table lookups. Resamples go by tasks of 1024, each with its own random
    stream (``Generator.spawn``), run on up to 4 threads; within a task, blocks are visited
    256 at a time for all its resamples, so the tables being read stay in cache.

    Edge cases: no query gives NaN; a column of only zeros gives p = 1; a NaN (or infinite)
    difference in a column gives NaN.
    """
    d, shape = _columns(diff, "diff")
    n, m = d.shape
    p_value = np.full(m, np.nan)
    finite = np.asarray(np.isfinite(d).all(axis=0))
    if n == 0:
        return p_value.reshape(shape)
    n_blocks = -(-n // _BLOCK)
    padded = np.zeros((n_blocks * _BLOCK, m))
    padded[:n] = np.where(finite, d, 0.0)
    # tables[j, b * 256 + k]: sum over query i of block b of +-diff[i, j], + where bit i of k
    bits = (np.arange(256)[:, None] >> np.arange(_BLOCK)) & 1
    signs = np.where(bits == 1, 1.0, -1.0)  # (256, 8)
    blocks = padded.reshape(n_blocks, _BLOCK, m)
    tables = np.matmul(blocks.transpose(2, 0, 1), signs.T).reshape(m, -1)  # (m, n_blocks*256)
    observed = np.abs(padded.sum(axis=0))
    threshold = observed - 1e-12 * np.abs(padded).sum(axis=0)
    offsets = np.arange(n_blocks, dtype=np.intp)[:, None] * 256
    columns = np.flatnonzero(finite)
    starts = range(0, n_resamples, _PERM_TASK)
    step = max(1, _PERM_STEP // _PERM_TASK)  # blocks per step

    def count(task: tuple[int, np.random.Generator]) -> npt.NDArray[np.int64]:
        start, rng = task
        size = min(_PERM_TASK, n_resamples - start)
        sums = np.zeros((m, size))
        # block-major: the 256 sums of a block stay in cache while all resamples use them
        for first in range(0, n_blocks, step):
            last = min(first + step, n_blocks)
            chosen = np.frombuffer(rng.bytes((last - first) * size), dtype=np.uint8)
            index = chosen.reshape(last - first, size) + offsets[first:last]
            for j in columns:  # the same signs for every column
                sums[j] += tables[j].take(index).sum(axis=0)
        return np.asarray(np.count_nonzero(np.abs(sums) >= threshold[:, None], axis=1))

    hits = _monte_carlo_hits(count, starts, seed, m)
    p_value[finite] = (1.0 + hits[finite]) / (1.0 + n_resamples)
    return p_value.reshape(shape)


# --- multiple comparisons --------------------------------------------------------------------


def adjust(p_values: npt.ArrayLike, method: Adjustment = "holm") -> FloatArray:
    """Family-wise error corrections of p-values, along the last axis (the family).

    Parameters
    ----------
    p_values : array_like
        p-values; each slice along the last axis is one family. NaN entries stay NaN and are
        not counted in the family size.
    method : {"holm", "bonferroni", "fdr_bh", "none"}, default "holm"
        ``"bonferroni"``: ``min(1, k p)``; ``"holm"`` (step-down): with ``p_(1) <= ... <=
        p_(k)`` the sorted p-values of the family, ``p_(i)`` becomes
        ``max_{j <= i} min(1, (k - j + 1) p_(j))``; ``"fdr_bh"`` (Benjamini-Hochberg, a
        bound on the false discovery rate rather than the family-wise error): ``p_(i)``
        becomes ``min_{j >= i} min(1, k p_(j) / j)``, as
        ``scipy.stats.false_discovery_control(method="bh")``; ``"none"``: unchanged. ``k``
        is the number of non-NaN p-values in the family.

    Returns
    -------
    ndarray of float, same shape as ``p_values``
    """
    check_choice("method", method, CORRECTION.choices)
    p = np.array(p_values, dtype=np.float64)  # a copy
    if method == "none" or p.ndim == 0 or p.size == 0:
        return p
    k = np.sum(~np.isnan(p), axis=-1, keepdims=True).astype(np.float64)
    if method == "bonferroni":
        return np.asarray(np.minimum(p * k, 1.0), dtype=np.float64)
    order = np.argsort(p, axis=-1, kind="stable")  # NaN last
    ordered = np.take_along_axis(p, order, axis=-1)
    if method == "fdr_bh":  # step-up: the running minimum from the largest p-value down
        with np.errstate(invalid="ignore"):
            scaled = np.minimum(ordered * k / np.arange(1, p.shape[-1] + 1), 1.0)
        # NaN (the tail) become inf so that the running minimum passes over them
        flipped = np.flip(np.where(np.isnan(scaled), np.inf, scaled), axis=-1)
        stepped = np.flip(np.minimum.accumulate(flipped, axis=-1), axis=-1)
    else:
        factor = k - np.arange(p.shape[-1])  # k, k - 1, ..., (<= 0 only at the NaN tail)
        stepped = np.fmax.accumulate(np.minimum(ordered * factor, 1.0), axis=-1)
    stepped[np.isnan(ordered)] = np.nan
    out = np.empty_like(p)
    np.put_along_axis(out, order, stepped, axis=-1)
    return out


# --- bootstrap -------------------------------------------------------------------------------


def _draw(rng: np.random.Generator, count: int, scale: FloatArray,
          query_size: npt.NDArray[np.intp], query_first: npt.NDArray[np.intp]) -> npt.NDArray[
    np.intp
]:
    """``count`` resamples of the queries sorted by segment: for each position, a position
    of its segment drawn uniformly (``first + floor(u * size)``), shape (count, n)."""
    u = rng.random((count, len(scale)))
    u *= scale
    index = u.astype(np.intp)  # floor, u >= 0
    np.minimum(index, query_size - 1, out=index)  # guard u * size rounding up to size
    index += query_first
    return index


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
    chunk = max(1, _BOOT_STEP // n)
    starts = range(0, n_resamples, chunk)
    values = np.empty((n_resamples, *shape))
    streams = np.random.default_rng(seed).spawn(len(starts))
    for start, rng in zip(starts, streams, strict=True):
        stop = min(start + chunk, n_resamples)
        index = _draw(rng, stop - start, scale, query_size, query_first)
        for r in range(stop - start):  # a loop over resamples; queries stay vectorised
            weights = np.bincount(order[index[r]], minlength=n).astype(np.float64)
            values[start + r] = statistic(weights)
    q = np.quantile(values, _tails(confidence_level), axis=0, method="linear")
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
    v, shape = _columns(values, "values")
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
    means, present, has_nan = _resampled_means(v, seg, n_segments, n_resamples, seed)
    q = np.quantile(means, _tails(confidence_level), axis=1, method="linear")
    low[present] = np.where(has_nan, np.nan, q[0].T)  # q: (2, m, segments)
    high[present] = np.where(has_nan, np.nan, q[1].T)
    return low.reshape(out_shape), high.reshape(out_shape)


def _resampled_means(
    v: FloatArray, segment: npt.NDArray[np.integer], n_segments: int, n_resamples: int,
    seed: Seed,
) -> tuple[FloatArray, npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """The resamples of :func:`bootstrap_interval`: per column of ``v`` (n, m), resample
    and segment with queries, the resampled mean, shape (m, n_resamples, n_present); which
    segments have queries; and per present segment and column, whether it holds a NaN (or
    infinite) value (its resampled means are then meaningless)."""
    n, m = v.shape
    seg = segment.astype(np.intp)
    order = np.argsort(seg, kind="stable")
    seg_sorted = seg[order]
    sorted_values = v[order]
    size = np.bincount(seg, minlength=n_segments)
    first = offsets(size)
    present = size > 0
    query_size = size[seg_sorted]  # the size of each (sorted) query's segment
    query_first = first[seg_sorted]
    scale = query_size.astype(np.float64)
    starts_present = first[present]
    is_nan = ~np.isfinite(sorted_values)
    has_nan = np.add.reduceat(is_nan, starts_present, axis=0) > 0  # (segments, m)
    sorted_values = np.where(is_nan, 0.0, sorted_values)
    n_present = int(present.sum())
    columns = np.ascontiguousarray(sorted_values.T)  # (m, n): one contiguous row per column
    means = np.empty((m, n_resamples, n_present))
    chunk = max(1, _BOOT_STEP // n)  # resamples per task
    starts = range(0, n_resamples, chunk)

    def resample(task: tuple[int, np.random.Generator]) -> None:
        start, rng = task
        stop = min(start + chunk, n_resamples)
        index = _draw(rng, stop - start, scale, query_size, query_first)
        for j in range(m):  # every column sees the same resampled queries
            sums = np.add.reduceat(columns[j].take(index), starts_present, axis=1)
            means[j, start:stop] = sums / size[present]

    for _ in _tasks(resample, starts, seed):
        pass
    return means, present, has_nan


# --- two samples (independent queries) -------------------------------------------------------
#
# The current and the reference side hold different queries (``compare(reference=...)`` with
# other query ids, a window against the previous one): each column of ``x`` (the current
# side's queries) is compared with the same column of ``y`` (the reference's). The quantity
# is ``w1 * mean(x) - w2 * mean(y)``: the difference of the means (``totals`` False), or of
# the sums (``totals`` True: ``w1 = n1``, ``w2 = n2``), column by column.


def _two_columns(
    x: npt.ArrayLike, y: npt.ArrayLike
) -> tuple[FloatArray, FloatArray, tuple[int, ...]]:
    """``x`` and ``y`` as float (n1, m) and (n2, m) arrays with the same columns."""
    a, shape = _columns(x, "x")
    b, shape_y = _columns(y, "y")
    if shape != shape_y:
        msg = f"`x` and `y` must have the same columns; got shapes {shape} and {shape_y}."
        raise InvalidOptionError(msg)
    return a, b, shape


def _weights(totals: npt.ArrayLike, m: int, n1: int, n2: int) -> tuple[FloatArray, FloatArray]:
    """Per column, the factors of the two means: 1 (means), or n1 and n2 (sums)."""
    scaled = np.broadcast_to(np.asarray(totals, dtype=bool).ravel(), (m,))
    return np.where(scaled, float(n1), 1.0), np.where(scaled, float(n2), 1.0)


def _welch(
    x: FloatArray, y: FloatArray, totals: npt.ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per column: the estimate ``w1 mean(x) - w2 mean(y)``, its standard error and the
    Welch-Satterthwaite degrees of freedom (NaN where a side has fewer than 2 queries)."""
    (n1, m), n2 = x.shape, y.shape[0]
    w1, w2 = _weights(totals, m, n1, n2)
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
    estimate: npt.ArrayLike, se: npt.ArrayLike, df: npt.ArrayLike, *,
    alternative: str = "two-sided", confidence_level: float = 0.95,
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
    special = _special()
    with np.errstate(divide="ignore", invalid="ignore"):
        t = est / se_
        if alternative == "less":
            p = special.stdtr(df_, t)
        elif alternative == "greater":
            p = special.stdtr(df_, -t)
        else:
            p = 2.0 * special.stdtr(df_, -np.abs(t))
        if alternative == "two-sided":
            q_low, q_high = (special.stdtrit(df_, q) for q in _tails(confidence_level))
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
    a, b, shape = _two_columns(x, y)
    estimate, se, df = _welch(a, b, totals)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = estimate / se
    p = 2.0 * _special().stdtr(df, -np.abs(t))
    return t.reshape(shape), np.asarray(p, dtype=np.float64).reshape(shape)


def welch_interval(
    x: npt.ArrayLike, y: npt.ArrayLike, confidence_level: float = 0.95,
    totals: npt.ArrayLike = False,
) -> tuple[FloatArray, FloatArray]:
    """Welch-Satterthwaite t interval of ``w1 mean(x) - w2 mean(y)``, per column.

    ``estimate + se * t_df((1 -+ confidence_level) / 2)`` with the ``se`` and ``df`` of
    :func:`welch_t_test`: ``scipy.stats.ttest_ind(x, y, equal_var=False)
    .confidence_interval(confidence_level)`` for means. Both variances 0 gives the zero-width
    interval at the estimate; fewer than 2 values on a side, or a NaN, gives NaN.
    """
    a, b, shape = _two_columns(x, y)
    estimate, se, df = _welch(a, b, totals)
    with np.errstate(invalid="ignore"):
        tail_low, tail_high = _tails(confidence_level)
        q_low = _special().stdtrit(df, tail_low)
        q_high = _special().stdtrit(df, tail_high)
    low = np.where(se == 0, estimate, estimate + se * q_low)
    high = np.where(se == 0, estimate, estimate + se * q_high)
    return low.reshape(shape), high.reshape(shape)


def two_sample_permutation_test(
    x: npt.ArrayLike, y: npt.ArrayLike, n_resamples: int = 10_000, seed: Seed = None,
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
    a, b, shape = _two_columns(x, y)
    (n1, m), n2 = a.shape, b.shape[0]
    p_value = np.full(m, np.nan)
    if n1 == 0 or n2 == 0:
        return p_value.reshape(shape)
    w1, w2 = _weights(totals, m, n1, n2)
    pooled = np.concatenate([a, b])
    finite = np.asarray(np.isfinite(pooled).all(axis=0))
    pooled = np.where(finite, pooled, 0.0)
    columns = np.ascontiguousarray(pooled.T)  # (m, n1 + n2)
    total = columns.sum(axis=1)
    observed = np.abs(w1 * a.sum(axis=0) / n1 - w2 * b.sum(axis=0) / n2)
    scale = w1 * np.abs(a).sum(axis=0) / n1 + w2 * np.abs(b).sum(axis=0) / n2
    threshold = np.where(finite, observed - 1e-12 * scale, np.inf)
    n = n1 + n2
    chunk = max(1, _BOOT_STEP // n)
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

    hits = _monte_carlo_hits(count, starts, seed, m)
    p_value[finite] = (1.0 + hits[finite]) / (1.0 + n_resamples)
    return p_value.reshape(shape)


# --- many subsets of one pool at once (slices) -----------------------------------------------
#
# ``slices()`` tests thousands of candidate subsets of the same queries. Each function below
# takes the per-query values once, ``groups`` (n_queries, n_partitions): per query, the
# candidate it belongs to in each partition of the queries (-1 for none; a candidate lies in
# one partition), and the pairs ``(candidate[i], column[i])`` to test. The resamples are
# shared by every pair, so one resample of the queries serves every candidate.


def _members(groups: npt.NDArray[np.int64], n_candidates: int) -> Any:
    """The sparse (n_candidates, n_queries) 0/1 matrix of membership (CSR, each row's
    queries in order): its product with a column of per-query values sums each candidate's
    values in the order of the queries, as ``bincount`` does."""
    from scipy import sparse  # heavy (about 0.4 s): loaded when sign flips are drawn

    n = groups.shape[0]
    chosen = groups >= 0
    queries = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None], groups.shape)[chosen]
    return sparse.csr_matrix((np.ones(len(queries)), (groups[chosen], queries)),
                             shape=(n_candidates, n))


def _subset_sums(values: FloatArray, groups: npt.NDArray[np.int64],
                 n_candidates: int) -> FloatArray:
    """Per row of ``values`` (size, n) and candidate, the sum of the candidate's values:
    shape (size, n_candidates), one ``bincount`` per partition."""
    size = values.shape[0]
    out = np.zeros(size * n_candidates)
    rows = np.arange(size, dtype=np.int64)[:, None] * n_candidates
    for g in range(groups.shape[1]):
        ids = groups[:, g]
        chosen = ids >= 0
        flat = (rows + ids[chosen][None, :]).ravel()
        out += np.bincount(flat, weights=values[:, chosen].ravel(), minlength=len(out))
    return out.reshape(size, n_candidates)


def _subset_pairs(
    values: npt.ArrayLike, groups: npt.ArrayLike, candidate: npt.ArrayLike,
    column: npt.ArrayLike,
) -> tuple[FloatArray, npt.NDArray[np.bool_], npt.NDArray[np.int64], npt.NDArray[np.int64],
           npt.NDArray[np.int64], FloatArray, FloatArray, FloatArray]:
    """The checked arrays, and per pair: the candidate's present queries ``k``, the sum of
    its values and of their absolute values; per column, its present queries."""
    x, _ = _columns(values, "values")
    key = np.asarray(groups, dtype=np.int64).reshape(len(x), -1)
    cand = np.asarray(candidate, dtype=np.int64).ravel()
    col = np.asarray(column, dtype=np.int64).ravel()
    present = ~np.isnan(x)
    filled = np.where(present, x, 0.0)
    n_candidates = int(key.max(initial=-1)) + 1
    stacked = np.concatenate([present.astype(np.float64), filled, np.abs(filled)], axis=1)
    sums = _subset_sums(stacked.T.reshape(-1, len(x)), key, n_candidates)  # (3m, n_cand)
    m = x.shape[1]
    k = sums[:m][col, cand].astype(np.int64)
    return (filled, present, key, cand, col, k.astype(np.float64), sums[m : 2 * m][col, cand],
            sums[2 * m :][col, cand])


def _hits(null: FloatArray, observed: FloatArray, centre: FloatArray, tol: FloatArray,
          alternative: str) -> npt.NDArray[np.int64]:
    """Per column of ``null`` (size, pairs): the resampled sums at least as extreme as the
    observed one, about ``centre``, within ``tol``."""
    if alternative == "less":
        extreme = null <= observed + tol
    elif alternative == "greater":
        extreme = null >= observed - tol
    else:
        extreme = np.abs(null - centre) >= np.abs(observed - centre) - tol
    return np.asarray(np.count_nonzero(extreme, axis=0), dtype=np.int64)


def _subset_p_values(
    count: Callable[[tuple[int, np.random.Generator]], npt.NDArray[np.int64]], starts: range,
    seed: Seed, testable: npt.NDArray[np.bool_], n_resamples: int,
) -> FloatArray:
    """``(1 + hits) / (1 + n_resamples)`` of the testable pairs, NaN for the others."""
    hits = _monte_carlo_hits(count, starts, seed, len(testable))
    return np.where(testable, (1.0 + hits) / (1.0 + n_resamples), np.nan)


def subset_permutation_test(
    values: npt.ArrayLike, groups: npt.ArrayLike, candidate: npt.ArrayLike,
    column: npt.ArrayLike, n_resamples: int = 10_000, seed: Seed = None,
    alternative: str = "two-sided",
) -> FloatArray:
    """Two-sample permutation tests of many subsets of the queries against the other
    queries, one per pair ``(candidate[i], column[i])``, on shared shuffles.

    Parameters
    ----------
    values : array_like, shape (n_queries, m)
        Per-query values of each column; NaN: the query is not in the column's pool.
    groups : array_like of int, shape (n_queries, n_partitions)
        Per query, the candidate it belongs to in each partition (-1: none).
    candidate, column : array_like of int, shape (n_pairs,)
        The pairs tested.
    n_resamples, seed
        As :func:`two_sample_permutation_test`.
    alternative : {"two-sided", "less", "greater"}
        ``"less"``: the candidate's mean is below the others'.

    Returns
    -------
    p_value : ndarray, shape (n_pairs,)
        For a pair of a candidate of ``k`` of the column's ``n`` present queries, of sum
        ``S`` (the column's total ``T``): ``(1 + #{resamples: |S* - kT/n| >= |S - kT/n| -
        tol}) / (1 + n_resamples)``, ``tol = 1e-12 * sum(|values|)`` over the column's pool
        (``S* <= S + tol`` for "less", ``S* >= S - tol`` for "greater"). ``D = S/k - (T -
        S)/(n - k)``, the difference of the means, increases with ``S``: this is
        :func:`two_sample_permutation_test` of the candidate against the rest. NaN where
        ``k`` is 0 or ``n``.

    Notes
    -----
    ``S*`` is the sum of the first ``k`` present queries of a shuffle: each resample is one
    row of ``rng.permuted(np.tile(np.arange(n_queries), (size, 1)), axis=1)`` (tasks of
    ``size = max(1, 2**20 // max(n_queries, n_pairs))`` resamples, each with its own stream
    of ``numpy.random.default_rng(seed).spawn(n_tasks)``), kept to the column's present
    queries in their shuffled order; the prefix sums of that order give every candidate
    size's resampled sum at once (taken as far as the largest candidate), so a resample
    costs at most ``n_queries`` per column, whatever the number of candidates. Each pair's
    resampled sums are those of a uniformly drawn ``k``-subset of the pool, the exact
    permutation distribution of its sum.
    """
    filled, present, _, _, col, k, observed, _ = _subset_pairs(values, groups, candidate,
                                                               column)
    n, m = filled.shape
    p_value = np.full(len(col), np.nan)
    pool = present.sum(axis=0)
    total, scale = filled.sum(axis=0), np.abs(filled).sum(axis=0)
    testable = (k >= 1) & (k < pool[col])
    if n == 0 or not testable.any():
        return p_value
    kk = k.astype(np.int64)
    centre = kk * total[col] / np.maximum(pool[col], 1)
    tol = 1e-12 * scale[col]
    used = [j for j in range(m) if (testable & (col == j)).any()]
    chunk = max(1, _BOOT_STEP // max(n, len(col)))
    starts = range(0, n_resamples, chunk)
    # the columns of one pool share its shuffled order; a column's running sums are taken
    # only as far as its largest candidate
    pools: dict[bytes, list[int]] = {}
    for j in used:
        pools.setdefault(np.packbits(present[:, j]).tobytes(), []).append(j)
    columns = np.ascontiguousarray(filled.T)
    each = {j: np.flatnonzero(testable & (col == j)) for j in used}
    longest = {j: int(kk[pairs].max()) for j, pairs in each.items()}

    def count(task: tuple[int, np.random.Generator]) -> npt.NDArray[np.int64]:
        start, rng = task
        size = min(chunk, n_resamples - start)
        order = rng.permuted(np.tile(np.arange(n, dtype=np.intp), (size, 1)), axis=1)
        hits = np.zeros(len(col), dtype=np.int64)
        for js in pools.values():
            pool_j = pool[js[0]]
            kept = order if pool_j == n else order[present[order, js[0]]].reshape(size, pool_j)
            for j in js:
                pairs = each[j]
                prefix = np.cumsum(columns[j][kept[:, : longest[j]]], axis=1)
                hits[pairs] = _hits(prefix[:, kk[pairs] - 1], observed[pairs], centre[pairs],
                                    tol[pairs], alternative)
        return hits

    return _subset_p_values(count, starts, seed, testable, n_resamples)


def subset_sign_flip_test(
    diff: npt.ArrayLike, groups: npt.ArrayLike, candidate: npt.ArrayLike,
    column: npt.ArrayLike, n_resamples: int = 10_000, seed: Seed = None,
    alternative: str = "two-sided",
) -> FloatArray:
    """Paired sign-flip tests of "mean difference = 0" inside many subsets of the queries,
    one per pair ``(candidate[i], column[i])``, on shared sign vectors.

    ``diff`` (n_queries, m): per-query differences (NaN: not in the column); ``groups``,
    ``candidate``, ``column``, ``n_resamples``, ``seed`` and ``alternative`` as
    :func:`subset_permutation_test`. For a pair of sum ``S`` over the candidate's present
    queries: ``(1 + #{resamples: |S*| >= |S| - tol}) / (1 + n_resamples)``, ``tol = 1e-12 *
    sum(|diff|)`` over the candidate (``S* <= S + tol`` for "less", ``S* >= S - tol`` for
    "greater"): :func:`permutation_test` of the candidate's differences, on other sign
    vectors. NaN for a candidate without a present query.

    Each resample flips every query's sign at once: ``np.where(rng.integers(0, 2,
    size=(size, n_queries)) == 1, 1.0, -1.0)``, tasks of ``size = max(1, 2**20 //
    max(n_queries, n_candidates))`` resamples, each with its own stream of
    ``numpy.random.default_rng(seed).spawn(n_tasks)``; every candidate's signed sum comes
    from one sparse product of the membership by the signed differences (a resample costs
    ``n_queries`` per partition and column).
    """
    filled, _, key, cand, col, k, observed, scale = _subset_pairs(diff, groups, candidate,
                                                                  column)
    n, m = filled.shape
    p_value = np.full(len(col), np.nan)
    testable = k >= 1
    if n == 0 or not testable.any():
        return p_value
    n_candidates = int(key.max(initial=-1)) + 1
    tol = 1e-12 * scale
    used = [j for j in range(m) if (testable & (col == j)).any()]
    chunk = max(1, _BOOT_STEP // max(n, n_candidates))
    starts = range(0, n_resamples, chunk)
    members = _members(key, n_candidates)

    def count(task: tuple[int, np.random.Generator]) -> npt.NDArray[np.int64]:
        start, rng = task
        size = min(chunk, n_resamples - start)
        signs = np.where(rng.integers(0, 2, size=(size, n)) == 1, 1.0, -1.0)
        by_query = np.ascontiguousarray(signs.T)  # (n, size): a query's signs side by side
        hits = np.zeros(len(col), dtype=np.int64)
        for j in used:
            # per candidate and resample, its signed sum: one sparse product
            sums = members @ (by_query * filled[:, j : j + 1])
            pairs = np.flatnonzero(testable & (col == j))
            hits[pairs] = _hits(sums[cand[pairs]].T, observed[pairs], np.zeros(len(pairs)),
                                tol[pairs], alternative)
        return hits

    return _subset_p_values(count, starts, seed, testable, n_resamples)


def two_sample_bootstrap_interval(
    x: npt.ArrayLike, y: npt.ArrayLike, confidence_level: float = 0.95, n_resamples: int = 1000,
    seed: Seed = None, totals: npt.ArrayLike = False,
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
    a, b, shape = _two_columns(x, y)
    (n1, m), n2 = a.shape, b.shape[0]
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    if n1 == 0 or n2 == 0:
        return low.reshape(shape), high.reshape(shape)
    w1, w2 = _weights(totals, m, n1, n2)
    finite = np.asarray(np.isfinite(a).all(axis=0) & np.isfinite(b).all(axis=0))
    xs = np.ascontiguousarray(np.where(finite, a, 0.0).T)
    ys = np.ascontiguousarray(np.where(finite, b, 0.0).T)
    values = _two_sample_resampled(xs, ys, w1, w2, n_resamples, seed)
    q = np.quantile(values, _tails(confidence_level), axis=1, method="linear")
    low[finite], high[finite] = q[0][finite], q[1][finite]
    return low.reshape(shape), high.reshape(shape)


def _two_sample_resampled(xs: FloatArray, ys: FloatArray, w1: FloatArray, w2: FloatArray,
                          n_resamples: int, seed: Seed) -> FloatArray:
    """The resamples of :func:`two_sample_bootstrap_interval`: per column (a row of ``xs``
    (m, n1) and of ``ys`` (m, n2)), ``w1 mean(x*) - w2 mean(y*)``, shape (m, n_resamples)."""
    (m, n1), n2 = xs.shape, ys.shape[1]
    chunk = max(1, _BOOT_STEP // (n1 + n2))
    starts = range(0, n_resamples, chunk)
    values = np.empty((m, n_resamples))

    def resample(task: tuple[int, np.random.Generator]) -> None:
        start, rng = task
        size = min(chunk, n_resamples - start)
        ix = rng.integers(0, n1, size=(size, n1))
        iy = rng.integers(0, n2, size=(size, n2))
        for j in range(m):
            values[j, start : start + size] = (
                w1[j] * xs[j].take(ix).mean(axis=1) - w2[j] * ys[j].take(iy).mean(axis=1)
            )

    for _ in _tasks(resample, starts, seed):
        pass
    return values


def _percentile_test(resampled: FloatArray, scale: FloatArray, confidence_level: float,
                     alternative: str) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The p-value and interval of a percentile bootstrap, per row of ``resampled`` (m, B):
    the interval is the ``(1 -+ confidence_level) / 2`` quantiles (``np.quantile``,
    ``method="linear"``), or one-sided, ``(-inf, q(level)]`` for ``"less"`` and
    ``[q(1 - level), inf)`` for ``"greater"``; the p-value inverts it: ``(1 + #{d* >= 0}) /
    (1 + B)`` for ``"less"``, ``(1 + #{d* <= 0}) / (1 + B)`` for ``"greater"``, and
    ``min(1, 2 min(both))`` two-sided (0 within ``1e-12 * scale``, the row's largest
    absolute value, counts on both sides). A row with a NaN gives NaN."""
    m, b = resampled.shape
    nan = np.full(m, np.nan)
    if b == 0 or m == 0:
        return nan, nan.copy(), nan.copy()
    tol = 1e-12 * np.asarray(scale, dtype=np.float64)[:, None]
    above = (1.0 + np.count_nonzero(resampled >= -tol, axis=1)) / (1.0 + b)
    below = (1.0 + np.count_nonzero(resampled <= tol, axis=1)) / (1.0 + b)
    if alternative == "less":
        p, tails = above, [confidence_level]
    elif alternative == "greater":
        p, tails = below, [1.0 - confidence_level]
    else:
        p, tails = np.minimum(1.0, 2.0 * np.minimum(above, below)), _tails(confidence_level)
    q = np.quantile(resampled, tails, axis=1, method="linear")
    low = q[0] if alternative != "less" else np.full(m, -np.inf)
    high = q[-1] if alternative != "greater" else np.full(m, np.inf)
    bad = np.isnan(resampled).any(axis=1)
    return tuple(np.where(bad, np.nan, a) for a in (p, low, high))  # type: ignore[return-value]


def bootstrap_test(
    values: npt.ArrayLike, confidence_level: float = 0.95, n_resamples: int = 1000,
    seed: Seed = None, alternative: str = "two-sided",
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Percentile bootstrap test of "mean 0" of per-query values (paired differences), per
    column: the p-value and the interval of :func:`_percentile_test` over the resampled
    means of :func:`bootstrap_interval` with one segment (the same draws: its interval,
    two-sided, is that function's). Returns ``(p_value, low, high)``; no value, or a NaN
    (or infinite) one, gives NaN."""
    v, shape = _columns(values, "values")
    n = v.shape[0]
    if n == 0:
        nan = np.full(shape, np.nan)
        return nan, nan.copy(), nan.copy()
    means, _, has_nan = _resampled_means(v, np.zeros(n, dtype=np.intp), 1, n_resamples, seed)
    resampled = np.where(has_nan[0][:, None], np.nan, means[:, :, 0])
    scale = np.max(np.abs(np.where(np.isfinite(v), v, 0.0)), axis=0)
    out = _percentile_test(resampled, scale, confidence_level, alternative)
    return tuple(a.reshape(shape) for a in out)  # type: ignore[return-value]


def two_sample_bootstrap_test(
    x: npt.ArrayLike, y: npt.ArrayLike, confidence_level: float = 0.95,
    n_resamples: int = 1000, seed: Seed = None, alternative: str = "two-sided",
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Percentile bootstrap test of "equal means" of two independent samples, per column:
    the p-value and the interval of :func:`_percentile_test` over the resampled
    ``mean(x*) - mean(y*)`` of :func:`two_sample_bootstrap_interval` (the same draws, each
    side resampled on its own: its interval, two-sided, is that function's). Returns
    ``(p_value, low, high)``; an empty side, or a NaN (or infinite) value, gives NaN."""
    a, b, shape = _two_columns(x, y)
    (n1, m), n2 = a.shape, b.shape[0]
    if n1 == 0 or n2 == 0:
        nan = np.full(shape, np.nan)
        return nan, nan.copy(), nan.copy()
    finite = np.isfinite(a).all(axis=0) & np.isfinite(b).all(axis=0)
    xs = np.ascontiguousarray(np.where(finite, a, 0.0).T)
    ys = np.ascontiguousarray(np.where(finite, b, 0.0).T)
    ones = np.ones(m)
    resampled = _two_sample_resampled(xs, ys, ones, ones, n_resamples, seed)
    resampled[~finite] = np.nan
    scale = np.maximum(np.abs(xs).max(axis=1), np.abs(ys).max(axis=1))
    out = _percentile_test(resampled, scale, confidence_level, alternative)
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
    a, b, shape = _two_columns(x, y)
    (n1, m), n2 = a.shape, b.shape[0]
    statistic, p_value = np.full(m, np.nan), np.full(m, np.nan)
    finite = np.asarray(~np.isnan(a).any(axis=0) & ~np.isnan(b).any(axis=0))
    if n1 == 0 or n2 == 0 or not finite.any():
        return statistic.reshape(shape), p_value.reshape(shape)
    n = n1 + n2
    pooled = np.concatenate([a, b])[:, finite].T  # (m', n): one row per column
    ranks, tie, _ = _midranks(pooled)
    u1 = ranks[:, :n1].sum(axis=1) - n1 * (n1 + 1) / 2.0
    u = np.maximum(u1, n1 * n2 - u1)
    s = np.sqrt(n1 * n2 / 12.0 * ((n + 1.0) - tie / (n * (n - 1.0))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (u - n1 * n2 / 2.0 - 0.5) / s
    statistic[finite] = u1
    p_value[finite] = np.clip(2.0 * _special().ndtr(-z), 0.0, 1.0)
    return statistic.reshape(shape), p_value.reshape(shape)


# --- groups of queries: are their means equal? (gaps) ----------------------------------------
#
# ``gaps()`` asks whether the groups of a partition of the queries (user groups) have equal
# means, column by column. Each function below takes the per-query values ``(n_queries, m)``
# (NaN or infinite: the query is not in that column), ``group`` (n_queries,), a code in
# ``0 .. n_groups - 1`` per query, and ``n_groups``; a group without a value in a column
# takes no part in that column, and a column with fewer than two groups gives NaN.


def _groups_checked(values: npt.ArrayLike, group: npt.ArrayLike, n_groups: int) -> tuple[
    FloatArray, tuple[int, ...], npt.NDArray[np.intp], npt.NDArray[np.bool_]
]:
    """The values as (n, m), the shape of one result, the group codes, and which values
    are present (finite)."""
    x, shape = _columns(values, "values")
    g = np.asarray(group)
    if g.shape != (len(x),):
        msg = f"`group` must have shape ({len(x)},), one code per query; got {g.shape}."
        raise InvalidOptionError(msg)
    if len(g) and (not np.issubdtype(g.dtype, np.integer) or g.min() < 0
                   or g.max() >= n_groups):
        raise InvalidOptionError(f"`group` must hold integer codes in 0 .. {n_groups - 1}.")
    return x, shape, g.astype(np.intp), np.isfinite(x)


def group_means(values: npt.ArrayLike, group: npt.ArrayLike,
                n_groups: int) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Per group and column, the mean of the present values (NaN for none) and their
    number; shapes ``(n_groups,) + values.shape[1:]``."""
    x, shape, g, present = _groups_checked(values, group, n_groups)
    m = x.shape[1]
    sums = np.zeros((n_groups, m))
    counts = np.zeros((n_groups, m), dtype=np.int64)
    filled = np.where(present, x, 0.0)
    for j in range(m):  # a loop over columns; queries stay vectorised
        sums[:, j] = np.bincount(g, weights=filled[:, j], minlength=n_groups)
        counts[:, j] = np.bincount(g[present[:, j]], minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return means.reshape((n_groups, *shape)), counts.reshape((n_groups, *shape))


def group_gap(means: FloatArray, exponentiate: npt.ArrayLike = False) -> FloatArray:
    """The gap between groups, ``max - min`` over axis ``-2`` (the groups) of ``means`` (a
    column at a time along the last axis), ``exp`` of the means first in the columns of
    ``exponentiate`` (a geometric mean from mean logs); groups with NaN are left out, and
    fewer than two groups give NaN."""
    stat = np.where(np.broadcast_to(exponentiate, means.shape[-1:]), np.exp(means), means)
    known = ~np.isnan(stat)
    enough = known.sum(axis=-2) >= 2
    high = np.where(known, stat, -np.inf).max(axis=-2)
    low = np.where(known, stat, np.inf).min(axis=-2)
    with np.errstate(invalid="ignore"):
        return np.where(enough, high - low, np.nan)


def group_permutation_test(
    values: npt.ArrayLike, group: npt.ArrayLike, n_groups: int, n_resamples: int = 10_000,
    seed: Seed = None, exponentiate: npt.ArrayLike = False,
) -> FloatArray:
    """Permutation test of "every group has the same distribution", per column, whose
    statistic is the gap between the group means (:func:`group_gap`).

    Returns ``(1 + #{resamples: G* >= G - tol}) / (1 + n_resamples)``, ``G`` the observed
    gap, ``G*`` the gap after shuffling the group labels over the column's present
    queries, ``tol = 1e-9`` times the largest absolute group statistic (rounding). Never
    0; NaN for a column with fewer than two groups.

    The shuffles: tasks of ``size = max(1, 2**20 // n_queries)`` resamples, each drawing
    from its own stream of ``numpy.random.default_rng(seed).spawn(n_tasks)`` one row of
    ``rng.permuted(np.tile(np.arange(n_queries), (size, 1)), axis=1)`` per resample (the
    shuffles of :func:`subset_permutation_test`). In a resample, the column's present
    queries in their shuffled order take the group labels of the present queries in query
    order: with every value present, the query ``order[i]``'s value goes to group
    ``group[i]``. Every column sees the same shuffles; a resample costs a gather and a sum
    of ``n_queries`` values per column, on top of the shuffle itself (about as costly: for
    10,000 queries, 10,000 shuffles take seconds).
    """
    x, shape, g, present = _groups_checked(values, group, n_groups)
    n, m = x.shape
    filled = np.where(present, x, 0.0)
    exp = np.broadcast_to(np.asarray(exponentiate, dtype=bool), (m,))
    means, counts = group_means(np.where(present, x, np.nan), g, n_groups)
    means, counts = means.reshape(n_groups, m), counts.reshape(n_groups, m)
    observed = group_gap(means, exp)
    stat = np.where(exp, np.exp(means), means)
    tol = 1e-9 * np.nan_to_num(np.abs(stat), nan=0.0).max(axis=0, initial=0.0)
    testable = ~np.isnan(observed)
    p_value = np.full(m, np.nan)
    if n == 0 or not testable.any():
        return p_value.reshape(shape)
    columns = np.ascontiguousarray(filled.T)  # (m, n): one contiguous row per column
    # the columns that share their present queries share the gathers of a resample: the
    # present queries in the order of their groups, and where each group starts
    pools = []
    masks, which = np.unique(present.T, axis=0, return_inverse=True)
    for u, mask in enumerate(masks):
        used = np.flatnonzero((np.ravel(which) == u) & testable)
        if len(used):
            labels = g[mask]
            by_group = np.argsort(labels, kind="stable")
            size = np.bincount(labels, minlength=n_groups)
            pools.append((mask, bool(mask.all()), int(mask.sum()), by_group,
                          offsets(size)[size > 0], size[size > 0], used))
    chunk = max(1, _BOOT_STEP // n)
    starts = range(0, n_resamples, chunk)

    def count(task: tuple[int, np.random.Generator]) -> npt.NDArray[np.int64]:
        start, rng = task
        size = min(chunk, n_resamples - start)
        order = rng.permuted(np.tile(np.arange(n, dtype=np.intp), (size, 1)), axis=1)
        hits = np.zeros(m, dtype=np.int64)
        for mask, whole, pool, by_group, first, members, used in pools:
            kept = order if whole else order[mask[order]].reshape(size, pool)
            index = kept[:, by_group]  # the values each group receives, group by group
            for j in used:
                sums = np.add.reduceat(columns[j].take(index), first, axis=1)
                gap = group_gap((sums / members)[:, :, None], exp[j : j + 1])[:, 0]
                hits[j] = np.count_nonzero(gap >= observed[j] - tol[j])
        return hits

    hits = _monte_carlo_hits(count, starts, seed, m)
    p_value[testable] = (1.0 + hits[testable]) / (1.0 + n_resamples)
    return p_value.reshape(shape)


def kruskal_test(values: npt.ArrayLike, group: npt.ArrayLike,
                 n_groups: int) -> tuple[FloatArray, FloatArray]:
    """Kruskal-Wallis H test of "every group has the same distribution", per column: as
    ``scipy.stats.kruskal(*samples)`` on the groups' present values (ties corrected; the
    chi-squared distribution with (groups - 1) degrees of freedom). NaN for fewer than two
    groups, or every value equal."""
    x, shape, g, present = _groups_checked(values, group, n_groups)
    m = x.shape[1]
    statistic, p_value = np.full(m, np.nan), np.full(m, np.nan)
    for j in range(m):  # a loop over columns; queries stay vectorised
        v, labels = x[present[:, j], j], g[present[:, j]]
        sizes = np.bincount(labels, minlength=n_groups).astype(np.float64)
        k, total = int(np.count_nonzero(sizes)), float(len(v))
        if k < 2:
            continue
        ranks, tie, _ = _midranks(v[None, :])
        rank_sums = np.bincount(labels, weights=ranks[0], minlength=n_groups)
        kept = sizes > 0
        h = 12.0 / (total * (total + 1.0)) * np.sum(rank_sums[kept] ** 2 / sizes[kept])
        h -= 3.0 * (total + 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            h /= 1.0 - tie[0] / (total**3 - total)
        statistic[j] = h
        p_value[j] = _special().chdtrc(k - 1, h)
    return statistic.reshape(shape), p_value.reshape(shape)


def one_way_anova(values: npt.ArrayLike, group: npt.ArrayLike,
                  n_groups: int) -> tuple[FloatArray, FloatArray]:
    """One-way analysis of variance, F test of "every group has the same mean", per column:
    as ``scipy.stats.f_oneway(*samples)`` on the groups' present values. ``F`` is inf (p 0)
    when the values vary only between groups; NaN for fewer than two groups, every value
    equal, or no degree of freedom within groups."""
    x, shape, g, present = _groups_checked(values, group, n_groups)
    m = x.shape[1]
    statistic, p_value = np.full(m, np.nan), np.full(m, np.nan)
    means, counts = group_means(np.where(present, x, np.nan), g, n_groups)
    means, counts = means.reshape(n_groups, m), counts.reshape(n_groups, m)
    for j in range(m):  # a loop over columns; queries stay vectorised
        v, labels = x[present[:, j], j], g[present[:, j]]
        kept = counts[:, j] > 0
        k, total = int(np.count_nonzero(kept)), len(v)
        if k < 2 or total - k < 1:
            continue
        grand = v.mean()
        between = float(np.sum(counts[kept, j] * (means[kept, j] - grand) ** 2))
        within = float(np.sum((v - means[labels, j]) ** 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.float64(between / (k - 1)) / np.float64(within / (total - k))
        statistic[j] = f
        p_value[j] = _special().fdtrc(k - 1, total - k, f)
    return statistic.reshape(shape), p_value.reshape(shape)


def group_gap_interval(
    values: npt.ArrayLike, group: npt.ArrayLike, n_groups: int,
    confidence_level: float = 0.95, n_resamples: int = 1000, seed: Seed = None,
    exponentiate: npt.ArrayLike = False,
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval of the gap between the group means (:func:`group_gap`),
    per column, resampling queries within each group.

    The resamples are :func:`bootstrap_interval`'s with the groups as segments (over the
    column's present queries): the queries sorted by group (a stable sort), and for each
    resample ``first[g] + floor(u * size[g])`` with ``u`` uniform in [0, 1) drawn as one
    ``rng.random((size, n_present))`` per task (tasks of ``max(1, 2**20 // n_present)``
    resamples, each with its own stream of ``numpy.random.default_rng(seed)
    .spawn(n_tasks)``); each resample's gap is that of its group means. Columns with the
    same present queries share their resamples. The bounds are the ``(1 -+
    confidence_level) / 2`` quantiles (``np.quantile``, linear) of the resampled gaps. A
    maximum minus a minimum is biased upwards in resamples: when the groups are close the
    interval may lie above the observed gap. NaN for fewer than two groups.
    """
    x, shape, g, present = _groups_checked(values, group, n_groups)
    m = x.shape[1]
    exp = np.broadcast_to(np.asarray(exponentiate, dtype=bool), (m,))
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    masks, which = np.unique(present.T, axis=0, return_inverse=True)
    for u, mask in enumerate(masks):  # the columns that share their present queries
        columns = np.flatnonzero(np.ravel(which) == u)
        rows = np.flatnonzero(mask)
        if len(np.unique(g[rows])) < 2:
            continue
        means, _, _ = _resampled_means(x[np.ix_(rows, columns)], g[rows], n_groups,
                                       n_resamples, seed)
        gaps = group_gap(np.transpose(means, (1, 2, 0)), exp[columns])  # (resamples, columns)
        q = np.quantile(gaps, _tails(confidence_level), axis=0, method="linear")
        low[columns], high[columns] = q[0], q[1]
    return low.reshape(shape), high.reshape(shape)


# -- sample size -------------------------------------------------------------------------------

#: ``alternative`` of the tests (scipy's names) -> the tail(s) a power calculation reads
_POWER_TAILS = {"two-sided": (True, True), "greater": (True, False), "less": (False, True)}


def t_test_power(effect: float, n: float, alpha: float, alternative: str = "two-sided", *,
                 two_sample: bool = False, ratio: float = 1.0) -> float:
    """The power of a t-test at ``alpha`` against a standardized effect ``effect``: one
    sample (or paired differences) of ``n``, or (``two_sample``) two samples of ``n`` and
    ``ratio * n`` with a common standard deviation. The probability that the noncentral t
    statistic (``df`` ``n - 1``, or ``n + ratio n - 2``; noncentrality ``effect * sqrt(n)``,
    or ``effect / sqrt(1 / n + 1 / (ratio n))``) falls beyond the test's critical value(s),
    as statsmodels' ``TTestPower.power`` and ``TTestIndPower.power`` compute it."""
    return float(_t_power(np.float64(effect), np.float64(n),
                          np.float64(ratio * n) if two_sample else None, alpha, alternative))


def _t_power(effect: FloatArray | np.float64, n: FloatArray | np.float64,
             n2: FloatArray | np.float64 | None, alpha: float, alternative: str) -> FloatArray:
    """:func:`t_test_power`, elementwise over arrays (``n2`` None: one sample)."""
    special = _special()
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


def t_test_detectable_effect(n: npt.ArrayLike, alpha: float, power: float,
                             alternative: str = "two-sided", *,
                             n2: npt.ArrayLike | None = None) -> FloatArray:
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
    pairs = np.stack([np.where(valid, n_, 2.0).ravel(),
                      np.where(valid, n2_, 2.0).ravel() if n2_ is not None
                      else np.zeros(n_.size)])
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


def t_test_sample_size(effect: float, alpha: float, power: float,
                       alternative: str = "two-sided", *, two_sample: bool = False) -> float:
    """The (fractional) ``n`` at which :func:`t_test_power` reaches ``power``: statsmodels'
    ``solve_power(nobs=None)`` (per sample, ``ratio=1``, for ``two_sample``); ``inf`` for a
    zero effect, or an effect in the direction a one-sided test does not look."""
    upper, lower = _POWER_TAILS[alternative]
    if effect == 0 or not math.isfinite(effect) or (effect < 0 and not lower) or (
            effect > 0 and not upper):
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
