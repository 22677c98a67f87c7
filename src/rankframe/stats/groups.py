"""Groups of queries: are their means equal? (``gaps()``): the groups' means and the gap
between them, the gap's permutation test, Kruskal-Wallis, one-way ANOVA and the bootstrap
interval of the gap, per column.

``gaps()`` asks whether the groups of a partition of the queries (user groups) have equal
means, column by column. Each function below takes the per-query values ``(n_queries, m)``
(NaN or infinite: the query is not in that column), ``group`` (n_queries,), a code in
``0 .. n_groups - 1`` per query, and ``n_groups``; a group without a value in a column
takes no part in that column, and a column with fewer than two groups gives NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe.engine.segments import offsets
from rankframe.exceptions import InvalidOptionError
from rankframe.stats._arrays import (
    FloatArray,
    Seed,
    as_columns,
    central_tails,
    distinct_masks,
    midranks,
    scipy_special,
)
from rankframe.stats.resampling import BOOT_STEP, monte_carlo_hits, resampled_means

__all__ = [
    "group_gap",
    "group_gap_interval",
    "group_means",
    "group_permutation_test",
    "kruskal_test",
    "one_way_anova",
]


def _groups_checked(
    values: npt.ArrayLike, group: npt.ArrayLike, n_groups: int
) -> tuple[FloatArray, tuple[int, ...], npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """The values as (n, m), the shape of one result, the group codes, and which values
    are present (finite)."""
    x, shape = as_columns(values, "values")
    g = np.asarray(group)
    if g.shape != (len(x),):
        msg = f"`group` must have shape ({len(x)},), one code per query; got {g.shape}."
        raise InvalidOptionError(msg)
    if len(g) and (not np.issubdtype(g.dtype, np.integer) or g.min() < 0 or g.max() >= n_groups):
        raise InvalidOptionError(f"`group` must hold integer codes in 0 .. {n_groups - 1}.")
    return x, shape, g.astype(np.intp), np.isfinite(x)


def group_means(
    values: npt.ArrayLike, group: npt.ArrayLike, n_groups: int
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
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


def _pools(
    present: npt.NDArray[np.bool_],
    testable: npt.NDArray[np.bool_],
    g: npt.NDArray[np.intp],
    n_groups: int,
) -> list[tuple[Any, ...]]:
    """The columns that share their present queries share the gathers of a resample: per
    mask of present queries, the mask, whether it is whole, its size, the present queries in
    the order of their groups, where each non-empty group starts, the group sizes, and the
    testable columns that use it."""
    pools = []
    masks, which = distinct_masks(present)
    for u, mask in enumerate(masks):
        used = np.flatnonzero((which == u) & testable)
        if len(used):
            labels = g[mask]
            by_group = np.argsort(labels, kind="stable")
            size = np.bincount(labels, minlength=n_groups)
            pools.append(
                (
                    mask,
                    bool(mask.all()),
                    int(mask.sum()),
                    by_group,
                    offsets(size)[size > 0],
                    size[size > 0],
                    used,
                )
            )
    return pools


SHUFFLE_BLOCK = 1 << 16  # shuffled queries per block of a task (512 kB of indices: in cache)


def group_permutation_test(
    values: npt.ArrayLike,
    group: npt.ArrayLike,
    n_groups: int,
    n_resamples: int = 10_000,
    seed: Seed = None,
    exponentiate: npt.ArrayLike = False,
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
    ``group[i]``. Every column sees the same shuffles. A task shuffles its rows a block
    at a time (the same draws: ``permuted`` shuffles row after row from one stream), and
    per block and mask of present queries the values of every column go to their groups
    in one gather and are summed by group in one ``np.add.reduceat``; the shuffle itself
    is most of the cost (for 20,000 queries, 10,000 shuffles take seconds).
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
    bar = observed - tol  # a resample counts when its gap reaches it
    pools = [  # the used columns' rows, whether they are exponentiated, their bars
        (*pool, np.ascontiguousarray(filled[:, pool[-1]]), exp[pool[-1]], bar[pool[-1]])
        for pool in _pools(present, testable, g, n_groups)
    ]
    chunk = max(1, BOOT_STEP // n)
    starts = range(0, n_resamples, chunk)
    block = max(1, SHUFFLE_BLOCK // n)
    queries = np.arange(n, dtype=np.intp)

    def count(task: tuple[int, np.random.Generator]) -> npt.NDArray[np.int64]:
        start, rng = task
        size = min(chunk, n_resamples - start)
        hits = np.zeros(m, dtype=np.int64)
        rows = np.empty((min(block, size), n), dtype=np.intp)
        for done in range(0, size, block):
            order = rows[: min(block, size - done)]
            order[...] = queries
            rng.permuted(order, axis=1, out=order)
            for mask, whole, pool, by_group, first, members, used, table, e, b in pools:
                kept = order if whole else order[mask[order]].reshape(len(order), pool)
                # the values each group receives, group by group: (resamples, pool, columns)
                received = table.take(kept.take(by_group, axis=1), axis=0)
                means = np.add.reduceat(received, first, axis=1) / members[:, None]
                if e.any():
                    means = np.where(e, np.exp(means), means)
                # group_gap's, where every group has a value (a testable column: two or more)
                with np.errstate(invalid="ignore"):
                    gap = means.max(axis=1) - means.min(axis=1)
                hits[used] += np.count_nonzero(gap >= b, axis=0)
        return hits

    hits = monte_carlo_hits(count, starts, seed, m)
    p_value[testable] = (1.0 + hits[testable]) / (1.0 + n_resamples)
    return p_value.reshape(shape)


def kruskal_test(
    values: npt.ArrayLike, group: npt.ArrayLike, n_groups: int
) -> tuple[FloatArray, FloatArray]:
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
        ranks, tie, _ = midranks(v[None, :])
        rank_sums = np.bincount(labels, weights=ranks[0], minlength=n_groups)
        kept = sizes > 0
        h = 12.0 / (total * (total + 1.0)) * np.sum(rank_sums[kept] ** 2 / sizes[kept])
        h -= 3.0 * (total + 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            h /= 1.0 - tie[0] / (total**3 - total)
        statistic[j] = h
        p_value[j] = scipy_special().chdtrc(k - 1, h)
    return statistic.reshape(shape), p_value.reshape(shape)


def one_way_anova(
    values: npt.ArrayLike, group: npt.ArrayLike, n_groups: int
) -> tuple[FloatArray, FloatArray]:
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
        p_value[j] = scipy_special().fdtrc(k - 1, total - k, f)
    return statistic.reshape(shape), p_value.reshape(shape)


def group_gap_interval(
    values: npt.ArrayLike,
    group: npt.ArrayLike,
    n_groups: int,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed: Seed = None,
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
    masks, which = distinct_masks(present)
    for u, mask in enumerate(masks):  # the columns that share their present queries
        columns = np.flatnonzero(which == u)
        rows = np.flatnonzero(mask)
        if len(np.unique(g[rows])) < 2:
            continue
        means, _, _ = resampled_means(
            x[np.ix_(rows, columns)], g[rows], n_groups, n_resamples, seed
        )
        gaps = group_gap(np.transpose(means, (1, 2, 0)), exp[columns])  # (resamples, columns)
        q = np.quantile(gaps, central_tails(confidence_level), axis=0, method="linear")
        low[columns], high[columns] = q[0], q[1]
    return low.reshape(shape), high.reshape(shape)
