"""Many subsets of one pool of queries tested at once (``slices()``): each subset against the
other queries (:func:`subset_permutation_test`), or the paired differences inside each
subset (:func:`subset_sign_flip_test`).

``slices()`` tests thousands of candidate subsets of the same queries. Each function below
takes the per-query values once, ``groups`` (n_queries, n_partitions): per query, the
candidate it belongs to in each partition of the queries (-1 for none; a candidate lies in
one partition), and the pairs ``(candidate[i], column[i])`` to test. The resamples are
shared by every pair, so one resample of the queries serves every candidate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe.stats._arrays import FloatArray, Seed, as_columns
from rankframe.stats.resampling import BOOT_STEP, monte_carlo_hits

__all__ = ["subset_permutation_test", "subset_sign_flip_test"]


def _members(groups: npt.NDArray[np.int64], n_candidates: int) -> Any:
    """The sparse (n_candidates, n_queries) 0/1 matrix of membership (CSR, each row's
    queries in order): its product with a column of per-query values sums each candidate's
    values in the order of the queries, as ``bincount`` does."""
    from scipy import sparse  # heavy (about 0.4 s): loaded when sign flips are drawn

    n = groups.shape[0]
    chosen = groups >= 0
    queries = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None], groups.shape)[chosen]
    return sparse.csr_matrix(
        (np.ones(len(queries)), (groups[chosen], queries)), shape=(n_candidates, n)
    )


def _subset_sums(
    values: FloatArray, groups: npt.NDArray[np.int64], n_candidates: int
) -> FloatArray:
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
    values: npt.ArrayLike,
    groups: npt.ArrayLike,
    candidate: npt.ArrayLike,
    column: npt.ArrayLike,
) -> tuple[
    FloatArray,
    npt.NDArray[np.bool_],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    FloatArray,
    FloatArray,
    FloatArray,
]:
    """The checked arrays, and per pair: the candidate's present queries ``k``, the sum of
    its values and of their absolute values; per column, its present queries."""
    x, _ = as_columns(values, "values")
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
    return (
        filled,
        present,
        key,
        cand,
        col,
        k.astype(np.float64),
        sums[m : 2 * m][col, cand],
        sums[2 * m :][col, cand],
    )


def _hits(
    null: FloatArray, observed: FloatArray, centre: FloatArray, tol: FloatArray, alternative: str
) -> npt.NDArray[np.int64]:
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
    count: Callable[[tuple[int, np.random.Generator]], npt.NDArray[np.int64]],
    starts: range,
    seed: Seed,
    testable: npt.NDArray[np.bool_],
    n_resamples: int,
) -> FloatArray:
    """``(1 + hits) / (1 + n_resamples)`` of the testable pairs, NaN for the others."""
    hits = monte_carlo_hits(count, starts, seed, len(testable))
    return np.where(testable, (1.0 + hits) / (1.0 + n_resamples), np.nan)


def _shared_pools(
    present: npt.NDArray[np.bool_],
    testable: npt.NDArray[np.bool_],
    col: npt.NDArray[np.int64],
    kk: npt.NDArray[np.int64],
) -> tuple[dict[bytes, list[int]], dict[int, npt.NDArray[np.intp]], dict[int, int]]:
    """The columns with a testable pair, by pool (the columns of one pool share its shuffled
    order); per such column, its testable pairs and its largest candidate (a column's
    running sums are taken only as far as it)."""
    used = [j for j in range(present.shape[1]) if (testable & (col == j)).any()]
    pools: dict[bytes, list[int]] = {}
    for j in used:
        pools.setdefault(np.packbits(present[:, j]).tobytes(), []).append(j)
    each = {j: np.flatnonzero(testable & (col == j)) for j in used}
    longest = {j: int(kk[pairs].max()) for j, pairs in each.items()}
    return pools, each, longest


def subset_permutation_test(
    values: npt.ArrayLike,
    groups: npt.ArrayLike,
    candidate: npt.ArrayLike,
    column: npt.ArrayLike,
    n_resamples: int = 10_000,
    seed: Seed = None,
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
    filled, present, _, _, col, k, observed, _ = _subset_pairs(values, groups, candidate, column)
    n = filled.shape[0]
    p_value = np.full(len(col), np.nan)
    pool = present.sum(axis=0)
    total, scale = filled.sum(axis=0), np.abs(filled).sum(axis=0)
    testable = (k >= 1) & (k < pool[col])
    if n == 0 or not testable.any():
        return p_value
    kk = k.astype(np.int64)
    centre = kk * total[col] / np.maximum(pool[col], 1)
    tol = 1e-12 * scale[col]
    chunk = max(1, BOOT_STEP // max(n, len(col)))
    starts = range(0, n_resamples, chunk)
    pools, each, longest = _shared_pools(present, testable, col, kk)
    columns = np.ascontiguousarray(filled.T)

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
                at = (observed[pairs], centre[pairs], tol[pairs])
                hits[pairs] = _hits(prefix[:, kk[pairs] - 1], *at, alternative)
        return hits

    return _subset_p_values(count, starts, seed, testable, n_resamples)


def subset_sign_flip_test(
    diff: npt.ArrayLike,
    groups: npt.ArrayLike,
    candidate: npt.ArrayLike,
    column: npt.ArrayLike,
    n_resamples: int = 10_000,
    seed: Seed = None,
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
    filled, _, key, cand, col, k, observed, scale = _subset_pairs(diff, groups, candidate, column)
    n, m = filled.shape
    p_value = np.full(len(col), np.nan)
    testable = k >= 1
    if n == 0 or not testable.any():
        return p_value
    n_candidates = int(key.max(initial=-1)) + 1
    tol = 1e-12 * scale
    used = [j for j in range(m) if (testable & (col == j)).any()]
    chunk = max(1, BOOT_STEP // max(n, n_candidates))
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
            hits[pairs] = _hits(
                sums[cand[pairs]].T, observed[pairs], np.zeros(len(pairs)), tol[pairs], alternative
            )
        return hits

    return _subset_p_values(count, starts, seed, testable, n_resamples)
