"""How the resampling tests and intervals draw: tasks of resamples, each with its own random
stream, run on a few threads, and the resamples the bootstrap functions share.

Each task of resamples draws from its own stream of ``numpy.random.default_rng(seed)
.spawn(n_tasks)`` (:func:`spawn_tasks`), so for an int ``seed`` the results depend neither
on the number of threads (at most :data:`MAX_THREADS`) nor on their scheduling.
:func:`resampled_means` (the per-segment bootstrap of means), :func:`two_sample_resampled`
(each side resampled on its own) and :func:`percentile_test` (a p-value and interval from
resampled values) serve :mod:`~rankframe.stats.intervals`,
:mod:`~rankframe.stats.two_sample` and :mod:`~rankframe.stats.groups` alike.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from rankframe.engine.segments import offsets
from rankframe.stats._arrays import FloatArray, Seed, central_tails

__all__ = [
    "BOOT_STEP",
    "MAX_THREADS",
    "draw_in_segments",
    "map_chunks",
    "monte_carlo_hits",
    "percentile_test",
    "resampled_means",
    "spawn_tasks",
    "thread_count",
    "two_sample_resampled",
]

_A = TypeVar("_A")
_R = TypeVar("_R")

BOOT_STEP = 1 << 20  # resampled queries per task of the bootstrap (8 MB of indices)
MAX_THREADS = 4  # chunks of resamples run on a few threads (NumPy releases the GIL)


def thread_count() -> int:
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        available = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, available))


def map_chunks(work: Callable[[_A], _R], chunks: Iterable[_A]) -> Iterator[_R]:
    """``map(work, chunks)`` on a few threads, in order, with few chunks in flight.

    Each chunk of resamples draws from its own random stream (``Generator.spawn``), so the
    results do not depend on the number of threads or on their scheduling.
    """
    threads = thread_count()
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


def spawn_tasks(
    work: Callable[[tuple[int, np.random.Generator]], _R], starts: range, seed: Seed
) -> Iterator[_R]:
    """``work((start, rng))`` for each task of resamples (its first resample), each with its
    own stream of ``default_rng(seed).spawn(len(starts))``, in order (:func:`map_chunks`)."""
    streams = np.random.default_rng(seed).spawn(len(starts))
    yield from map_chunks(work, zip(starts, streams, strict=True))


def monte_carlo_hits(
    count: Callable[[tuple[int, np.random.Generator]], npt.NDArray[np.int64]],
    starts: range,
    seed: Seed,
    m: int,
) -> npt.NDArray[np.int64]:
    """Per column (``m``), the resampled statistics at least as extreme as the observed one,
    summed over the tasks (``count``: one task's counts); a permutation test's p-value is
    ``(1 + hits) / (1 + resamples)``."""
    hits = np.zeros(m, dtype=np.int64)
    for task_hits in spawn_tasks(count, starts, seed):
        hits += task_hits
    return hits


def draw_in_segments(
    rng: np.random.Generator,
    count: int,
    scale: FloatArray,
    query_size: npt.NDArray[np.intp],
    query_first: npt.NDArray[np.intp],
) -> npt.NDArray[np.intp]:
    """``count`` resamples of the queries sorted by segment: for each position, a position
    of its segment drawn uniformly (``first + floor(u * size)``), shape (count, n)."""
    u = rng.random((count, len(scale)))
    u *= scale
    index = u.astype(np.intp)  # floor, u >= 0
    np.minimum(index, query_size - 1, out=index)  # guard u * size rounding up to size
    index += query_first
    return index


def resampled_means(
    v: FloatArray,
    segment: npt.NDArray[np.integer],
    n_segments: int,
    n_resamples: int,
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
    chunk = max(1, BOOT_STEP // n)  # resamples per task
    starts = range(0, n_resamples, chunk)

    def resample(task: tuple[int, np.random.Generator]) -> None:
        start, rng = task
        stop = min(start + chunk, n_resamples)
        index = draw_in_segments(rng, stop - start, scale, query_size, query_first)
        for j in range(m):  # every column sees the same resampled queries
            sums = np.add.reduceat(columns[j].take(index), starts_present, axis=1)
            means[j, start:stop] = sums / size[present]

    for _ in spawn_tasks(resample, starts, seed):
        pass
    return means, present, has_nan


def two_sample_resampled(
    xs: FloatArray, ys: FloatArray, w1: FloatArray, w2: FloatArray, n_resamples: int, seed: Seed
) -> FloatArray:
    """The resamples of :func:`two_sample_bootstrap_interval`: per column (a row of ``xs``
    (m, n1) and of ``ys`` (m, n2)), ``w1 mean(x*) - w2 mean(y*)``, shape (m, n_resamples)."""
    (m, n1), n2 = xs.shape, ys.shape[1]
    chunk = max(1, BOOT_STEP // (n1 + n2))
    starts = range(0, n_resamples, chunk)
    values = np.empty((m, n_resamples))

    def resample(task: tuple[int, np.random.Generator]) -> None:
        start, rng = task
        size = min(chunk, n_resamples - start)
        ix = rng.integers(0, n1, size=(size, n1))
        iy = rng.integers(0, n2, size=(size, n2))
        for j in range(m):
            values[j, start : start + size] = w1[j] * xs[j].take(ix).mean(axis=1) - w2[j] * ys[
                j
            ].take(iy).mean(axis=1)

    for _ in spawn_tasks(resample, starts, seed):
        pass
    return values


def percentile_test(
    resampled: FloatArray, scale: FloatArray, confidence_level: float, alternative: str
) -> tuple[FloatArray, FloatArray, FloatArray]:
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
        p, tails = np.minimum(1.0, 2.0 * np.minimum(above, below)), central_tails(confidence_level)
    q = np.quantile(resampled, tails, axis=1, method="linear")
    low = q[0] if alternative != "less" else np.full(m, -np.inf)
    high = q[-1] if alternative != "greater" else np.full(m, np.inf)
    bad = np.isnan(resampled).any(axis=1)
    return tuple(np.where(bad, np.nan, a) for a in (p, low, high))  # type: ignore[return-value]
