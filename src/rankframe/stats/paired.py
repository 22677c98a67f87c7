"""Paired tests of per-query differences between two systems: the t-test, the Wilcoxon
signed-rank test and the sign-flip permutation test, each per column of ``diff``
(``(n_queries,)`` or ``(n_queries, m)``). A column containing NaN gives NaN.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from rankframe.stats._arrays import FloatArray, Seed, as_columns, midranks, moments, scipy_special
from rankframe.stats.resampling import monte_carlo_hits

__all__ = ["paired_t_test", "permutation_test", "wilcoxon_test"]

_BLOCK = 8  # queries per lookup table in the sign-flip test: 2**8 signed sums per block
_PERM_TASK = 1024  # resamples per task of the sign-flip test (one random stream each)
_PERM_STEP = 1 << 18  # table lookups per step of a task: 256 blocks x 1024 resamples (2 MB)
_WILCOXON_EXACT_MAX = 50  # scipy's method="auto": exact distribution up to 50 queries
_WILCOXON_ENUM_MAX = 13  # ... and full sign enumeration (2**13 <= 9999) with ties/zeros


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
    d, shape = as_columns(diff, "diff")
    mean, sem, n = moments(d)
    if n < 2:
        nan = np.full(d.shape[1], np.nan)
        return nan.reshape(shape), nan.copy().reshape(shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / sem
    p = 2.0 * scipy_special().stdtr(n - 1, -np.abs(t))
    return t.reshape(shape), np.asarray(p, dtype=np.float64).reshape(shape)


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
    d, shape = as_columns(diff, "diff")
    n, m = d.shape
    statistic = np.full(m, np.nan)
    p_value = np.full(m, np.nan)
    finite = np.asarray(~np.isnan(d).any(axis=0))
    if n == 0 or not finite.any():
        return statistic.reshape(shape), p_value.reshape(shape)
    x = d[:, finite].T  # (m', n): one row per column, for row-wise sorting
    ranks, tie, r_plus, r_minus, count, untied = _signed_ranks(x)
    normal, exact, enumerate_ = _wilcoxon_methods(n, untied)
    p = np.full(len(x), np.nan)
    if normal.any():
        p[normal] = _wilcoxon_normal(r_plus[normal], count[normal], tie[normal])
    if exact.any():
        p[exact] = _wilcoxon_exact(r_plus[exact], n)
    if enumerate_.any():
        p[enumerate_] = _wilcoxon_enumerated(r_plus[enumerate_], ranks[enumerate_], n)

    statistic[finite] = np.minimum(r_plus, r_minus)
    p_value[finite] = p
    return statistic.reshape(shape), p_value.reshape(shape)


def _signed_ranks(
    x: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """Per row of ``x`` (m', n), the signed-rank step of :func:`wilcoxon_test`: the ranks of
    the absolute non-zero differences (0 for a zero), the tie correction, the rank sums of
    the positive and of the negative differences, the number of non-zero differences, and
    whether the row has neither a tie nor a zero."""
    n = x.shape[1]
    nonzero = x != 0
    ranks, tie, has_ties = midranks(np.where(nonzero, np.abs(x), np.nan))
    ranks = np.where(nonzero, ranks, 0.0)
    r_plus = np.sum(np.where(x > 0, ranks, 0.0), axis=1)
    r_minus = np.sum(np.where(x < 0, ranks, 0.0), axis=1)
    count = nonzero.sum(axis=1).astype(np.float64)
    untied = ~(has_ties | (count < n))  # no tie and no zero
    return ranks, tie, r_plus, r_minus, count, untied


def _wilcoxon_methods(
    n: int, untied: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Which rows take the normal approximation, the exact distribution of ``W+``, or the
    enumeration of every sign vector (scipy's ``method="auto"``, decided per row)."""
    if n > _WILCOXON_EXACT_MAX:
        normal = np.ones(len(untied), dtype=bool)
    elif n <= _WILCOXON_ENUM_MAX:
        normal = np.zeros(len(untied), dtype=bool)
    else:
        normal = ~untied
    return normal, ~normal & untied, ~normal & ~untied


def _wilcoxon_normal(r_plus: FloatArray, c: FloatArray, tie: FloatArray) -> FloatArray:
    """The p-values of the normal approximation (tie-corrected variance, no continuity
    correction) of rank sums ``r_plus`` over ``c`` non-zero differences."""
    mn = c * (c + 1.0) * 0.25
    se = np.sqrt((c * (c + 1.0) * (2.0 * c + 1.0) - tie / 2.0) / 24.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mn) / se
    return np.asarray(2.0 * scipy_special().ndtr(-np.abs(z)), dtype=np.float64)


def _wilcoxon_exact(r_plus: FloatArray, n: int) -> FloatArray:
    """The p-values of the exact distribution of ``W+`` for ``n`` untied non-zero
    differences."""
    cdf, sf = _wilcoxon_tails(n)
    w = r_plus.astype(np.intp)  # integral without ties
    mean = n * (n + 1) / 4
    w_cdf = np.where(w <= mean, cdf[w], 1.0 - sf[np.minimum(w + 1, len(sf) - 1)])
    w_sf = np.where(w <= mean, sf[w], 1.0 - cdf[np.maximum(w - 1, 0)])
    return np.asarray(np.clip(2.0 * np.minimum(w_sf, w_cdf), 0.0, 1.0), dtype=np.float64)


def _wilcoxon_enumerated(observed: FloatArray, ranks: FloatArray, n: int) -> FloatArray:
    """The p-values of the exact sign-flip distribution of ``W+`` (all ``2**n`` sign
    vectors), for rows of ``ranks`` (m'', n) with observed rank sums ``observed``."""
    # every sign vector: bit j of row k says whether query j is positive
    signs = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    null = signs.astype(np.float64) @ ranks.T  # (2**n, m'')
    gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)  # scipy's tolerance
    less = np.count_nonzero(null <= observed + gamma, axis=0) / 2.0**n
    greater = np.count_nonzero(null >= observed - gamma, axis=0) / 2.0**n
    return np.asarray(np.clip(2.0 * np.minimum(less, greater), 0.0, 1.0), dtype=np.float64)


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
    d, shape = as_columns(diff, "diff")
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

    hits = monte_carlo_hits(count, starts, seed, m)
    p_value[finite] = (1.0 + hits[finite]) / (1.0 + n_resamples)
    return p_value.reshape(shape)
