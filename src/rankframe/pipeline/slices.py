"""Slice discovery: where a system does worse, over every conjunction of segment values, with
the p-values corrected over every test of the call (``slices()``).

The search reads the per-query table (:class:`~rankframe.pipeline.per_query.PerQuery`) of
the one per-query pass, whose segments are every combination of the slice columns (the
request's ``by``): per query, the value of each column (the codes the pass read for the
segments; a numeric column of more than ``bins`` distinct values is cut into quantile bins
over the queries, as ``pandas.qcut``). A candidate slice is a conjunction of up to
``max_depth`` predicates ``column == value``. For each combination of columns, the
candidates are counted with one ``bincount`` of the queries' combined codes, those of fewer
than ``min_queries`` queries are dropped, and the survivors' counts, sums and sums of
squares, every column of tests at once, come from one sparse product (each query adds its
row to its candidate's); the complement's moments are the totals minus the candidate's:
nothing loops over slices or touches rows per slice. The tests
are t-tests from those moments (:func:`rankframe.stats.two_sample.welch_error`,
:func:`~rankframe.stats.two_sample.t_test_of`): Welch's two-sample test of the slice against
the other queries, or, with a baseline, the paired t-test of each system's per-query
difference from the baseline inside the slice. ``test="permutation"`` replaces the p-values
by permutation tests on resamples shared by every slice; ``test="bootstrap"`` the p-values
and intervals by percentile bootstraps of each slice, those of ``compare()``'s bootstrap
intervals of the same queries (:func:`_bootstrap_tests`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from rankframe.exceptions import InvalidOptionError
from rankframe.metrics.registry import Metric
from rankframe.pipeline import analysis
from rankframe.pipeline.analysis import SYSTEM
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.steps import (
    Backend,
    Compared,
    Kind,
    Request,
    ValueColumns,
    completed,
)
from rankframe.settings.statistics import Tests
from rankframe.stats.corrections import adjust
from rankframe.stats.intervals import bootstrap_test
from rankframe.stats.subsets import subset_permutation_test, subset_sign_flip_test
from rankframe.stats.two_sample import t_test_of, two_sample_bootstrap_test, welch_error

__all__ = ["SLICE", "Slices", "slice_columns"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

SLICE = "slice"  # the output column naming each slice: "theme=news & device=ios"


def slice_columns(
    columns: tuple[str, ...], metrics: tuple[Metric, ...], *, paired: bool
) -> ValueColumns:
    """The output's columns, in their order: one per slice column (its value as text, null
    where the slice does not constrain it), ``slice``, ``depth``, ``system``, ``metric``,
    ``k``, ``n_queries``, ``mean`` (inside), ``mean_outside`` (or, with a baseline,
    ``baseline_mean``: the baseline's inside), ``delta``, the interval, ``p_value``,
    ``p_adjusted``, ``significant`` and ``n_tested``."""
    other = "baseline_mean" if paired else "mean_outside"
    return [
        *((c, "str") for c in columns),
        (SLICE, "str"),
        ("depth", "int"),
        (SYSTEM, "str"),
        ("metric", "str"),
        ("k", analysis.k_type(metrics)),
        ("n_queries", "int"),
        ("mean", "float"),
        (other, "float"),
        ("delta", "float"),
        ("ci_low", "float"),
        ("ci_high", "float"),
        ("p_value", "float"),
        ("p_adjusted", "float"),
        ("significant", "bool"),
        ("n_tested", "int"),
    ]


@dataclass(frozen=True)
class Slices(Compared):
    """``slices()``: the slices of the request's ``by`` columns, tested and corrected."""

    baseline: int | None
    tests: Tests
    max_depth: int
    min_queries: int
    bins: int
    alternative: str
    top: int | None
    test: str = "t-test"  # "t-test", "permutation" or "bootstrap" (tests.test is unused)
    kind: Kind = "table"
    per_query_rows: bool = False
    refuses = "slices() tests per-query values"

    def keys(self, request: Request) -> list[str]:  # noqa: ARG002
        return []

    def value_columns(self, request: Request) -> ValueColumns:
        return slice_columns(request.by, request.metrics, paired=self.baseline is not None)

    def finish(
        self, backend: Backend, pq: PerQuery, request: Request
    ) -> tuple[IntArray, dict[str, Any]]:
        pq = completed(pq, request.options)
        n_queries = len(pq.segment)
        if self.min_queries > n_queries:
            msg = (
                f"min_queries={self.min_queries} is above the frame's {n_queries:,} "
                f"{'query' if n_queries == 1 else 'queries'}: no slice can be that large. "
                f"Pass a smaller min_queries (at most {n_queries})."
            )
            raise InvalidOptionError(msg)
        levels = [_levels(backend, pq, i, name, self.bins) for i, name in enumerate(request.by)]
        found = _search(pq, levels, self)
        return np.zeros(0, dtype=np.int64), _table(found, levels, pq, request, self)


# -- the values of each column, per query ------------------------------------------------------


@dataclass(frozen=True)
class _Levels:
    """One slice column: per query, the code of its value (or bin), and each code's text."""

    name: str
    codes: IntArray
    labels: list[str]


def _levels(backend: Backend, pq: PerQuery, position: int, name: str, bins: int) -> _Levels:
    """The column's level per query: its value, or for a numeric column of more than
    ``bins`` distinct values, its quantile bin over the queries (``[low, high)``, the last
    closed; a missing value is a level of its own, ``(missing)``).

    The per-query codes the pass read for the segments (``PerQuery.by_codes``) give the
    levels; the column itself is read only when it may be numeric (its first value is not
    a string): a string column of millions of rows is not converted again."""
    rows = pq.segment_rows
    by_codes = None if pq.by_codes is None else pq.by_codes[position]
    if by_codes is None or not _is_text(backend.labels(name, rows[:1])):
        raw = np.asarray(backend.column(name))[rows]
        if raw.dtype.kind in "iuf":
            per_query = raw.astype(np.float64)[pq.segment]
            present = ~np.isnan(per_query)
            if len(np.unique(per_query[present])) > bins:
                return _binned(name, per_query, present, bins)
    if by_codes is None:
        by_codes = backend.codes(name)[rows][pq.segment]
    _, first, dense = np.unique(by_codes, return_index=True, return_inverse=True)
    texts = [_text(v) for v in backend.labels(name, rows[pq.segment[first]])]
    return _Levels(name, dense.astype(np.int64).reshape(-1), texts)


def _is_text(values: list[object]) -> bool:
    """Whether a column's (first) value is a string: the column is then not numeric."""
    return bool(values) and isinstance(values[0], str)


def _text(value: object) -> str:
    return analysis.segment_text(value)


def _binned(name: str, values: FloatArray, present: BoolArray, bins: int) -> _Levels:
    """Quantile bins as ``pandas.qcut(values, bins, duplicates="drop")`` cuts them: right
    closed, ``(low, high]``, the first one ``[low, high]``."""
    edges = np.unique(np.quantile(values[present], np.linspace(0.0, 1.0, bins + 1)))
    codes = np.searchsorted(edges[1:-1], values, side="left").astype(np.int64)
    n_bins = len(edges) - 1
    labels = [f"{'[' if i == 0 else '('}{edges[i]:g}, {edges[i + 1]:g}]" for i in range(n_bins)]
    if not present.all():
        codes[~present] = n_bins
        labels.append(analysis.MISSING)
    return _Levels(name, codes, labels)


# -- the search ----------------------------------------------------------------------------------


@dataclass
class _Found:
    """Every tested (candidate, column of tests): the candidate's predicates (column
    positions and level codes, -1 for none), the column, the moments and the tests."""

    predicates: IntArray  # (n, n_slice_columns): the level of each column, -1 unconstrained
    candidate: IntArray  # the candidate's number, in the order of the search
    depth: IntArray
    column: IntArray  # which (system, metric) column of tests
    n: IntArray
    mean: FloatArray
    other: FloatArray
    delta: FloatArray
    low: FloatArray
    high: FloatArray
    p_value: FloatArray


def _tested_columns(pq: PerQuery, baseline: int | None) -> tuple[FloatArray, FloatArray, BoolArray]:
    """Per query, the values each test reads, one column per (system, metric): the values
    (without a baseline) or each system's difference from the baseline; the baseline's own
    values beside them (zeros without one); whether each query enters each column (``empty=``
    and NaN values leave it out)."""
    values = analysis.tested_values(pq)
    n, n_systems, n_metrics = values.shape
    systems = _systems(n_systems, baseline)
    base = np.zeros((n, len(systems), n_metrics))
    if baseline is not None:
        base = np.broadcast_to(values[:, baseline : baseline + 1, :], base.shape)
    tested = values[:, systems, :] - base
    enters = pq.include[:, None, None] | ~pq.applies()[None, None, :]
    enters = enters & ~np.isnan(tested) & ~np.isnan(base)
    enters = np.broadcast_to(enters, tested.shape)
    shape = (n, len(systems) * n_metrics)
    return (tested.reshape(shape), np.ascontiguousarray(base).reshape(shape), enters.reshape(shape))


def _systems(n_systems: int, baseline: int | None) -> list[int]:
    """The systems tested: every one, or every one but the baseline."""
    return [s for s in range(n_systems) if s != baseline]


def _summed(
    enters: BoolArray, x: FloatArray, b: FloatArray, paired: bool
) -> tuple[FloatArray, Any]:
    """The per-query columns summed per candidate, side by side (one C-ordered array: a
    candidate's sums are one pass over the queries), and how to lay their sums out as
    :func:`_search` reads them: per column of tests its count of queries, sum, sum of
    squares and the baseline's sum. The count is summed once when every column of tests
    has the same queries (no NaN, no ``empty=`` left out), the baseline's only with one."""
    m = x.shape[1]
    shared = m > 0 and bool((enters == enters[:, :1]).all())
    counts = enters[:, :1] if shared else enters
    parts = [counts, x, x * x, *([b] if paired else [])]
    stacked = np.ascontiguousarray(np.concatenate(parts, axis=1), dtype=np.float64)
    n_counts = counts.shape[1]

    def laid_out(sums: FloatArray) -> FloatArray:
        """The sums of ``stacked``'s columns as (count, sum, sum of squares, baseline),
        ``m`` columns each (the baseline's zero without one)."""
        count = sums[:, :n_counts]
        rest = sums[:, n_counts:]
        baseline = rest[:, 2 * m :] if paired else np.zeros((len(sums), m))
        return np.concatenate(
            [np.broadcast_to(count, (len(sums), m)), rest[:, : 2 * m], baseline], axis=1
        )

    return stacked, laid_out


def _sums(key: IntArray, size: int, stacked: FloatArray) -> FloatArray:
    """Per candidate ``0 .. size - 1``, the sums of ``stacked``'s columns over its queries
    (``key``: per query its candidate, or ``size`` for none), shape (size, n_columns): one
    sparse product (each query adds its row to its candidate's, in the order of the
    queries, as ``bincount`` adds them)."""
    from scipy import sparse  # heavy (about 0.4 s): loaded when slices are searched

    n = len(key)
    one_per_query = sparse.csc_matrix((np.ones(n), key, np.arange(n + 1)), shape=(size + 1, n))
    return np.asarray(one_per_query @ stacked)[:size]


def _search(pq: PerQuery, levels: list[_Levels], slices: Slices) -> _Found:
    """Every candidate of up to ``max_depth`` predicates with at least ``min_queries``
    queries, not one of its parents' query sets, tested."""
    tested, base, enters = _tested_columns(pq, slices.baseline)
    weight = enters.astype(np.float64)
    # centred on each column's mean over its queries: the sums of squares stay accurate
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(enters, tested, 0.0).sum(axis=0) / np.maximum(weight.sum(axis=0), 1)
    x = np.where(enters, tested - centre, 0.0)
    b = np.where(enters, base, 0.0)
    stacked, laid_out = _summed(enters, x, b, paired=slices.baseline is not None)
    n_columns = tested.shape[1]
    total = laid_out(stacked.sum(axis=0)[None, :])[0]
    sizes = [len(level.labels) for level in levels]
    # per combination of columns: its candidates' keys and sums, for their children's parents
    done: dict[tuple[int, ...], tuple[IntArray, FloatArray]] = {}
    parts: list[tuple[IntArray, IntArray, FloatArray, BoolArray]] = []
    # per query and combination, its candidate (numbered over every combination), or -1:
    # for the resampling tests only
    groups: list[IntArray] = []
    resampled = slices.test in ("permutation", "bootstrap")
    first = 0
    for depth in range(1, min(slices.max_depth, len(levels)) + 1):
        for combo in itertools.combinations(range(len(levels)), depth):
            radix = [sizes[c] for c in combo]
            key = np.ravel_multi_index(tuple(levels[c].codes for c in combo), radix)
            size = int(np.prod(radix))
            count = np.bincount(key, minlength=size)
            alive = np.flatnonzero(count >= slices.min_queries)
            if not len(alive):
                continue
            compact = np.full(size, len(alive), dtype=np.int64)
            compact[alive] = np.arange(len(alive))
            inside_rows = compact[key]
            sums = laid_out(_sums(inside_rows, len(alive), stacked))
            done[combo] = (alive, sums)
            digits = np.stack(np.unravel_index(alive, radix), axis=1)
            # a candidate whose queries are its parent's, column by column, is not tested
            same = np.zeros((len(alive), n_columns), dtype=bool)
            for drop in range(depth):
                parent = combo[:drop] + combo[drop + 1 :]
                parent_n = _parent_counts(done, parent, digits, drop, radix, total, n_columns)
                same |= parent_n == sums[:, :n_columns]
            parts.append((np.array(combo), digits, sums, same))
            if resampled:
                groups.append(np.where(inside_rows < len(alive), inside_rows + first, -1))
            first += len(alive)
    found = _scored(parts, total, centre, len(levels), slices)
    if resampled:
        members = np.stack(groups, axis=1) if groups else np.full((len(pq.segment), 0), -1)
        if slices.test == "permutation":
            found.p_value = _permutation_p_values(found, members, tested, enters, slices)
        else:
            found.p_value, found.low, found.high = _bootstrap_tests(
                found, members, tested, enters, slices
            )
    return found


def _bootstrap_tests(
    found: _Found, members: IntArray, tested: FloatArray, enters: BoolArray, slices: Slices
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The percentile bootstrap tests and intervals of every tested (candidate, column),
    candidate by candidate, as ``compare()``'s bootstraps of the same queries: the slice's
    queries against the other queries, each side resampled on its own
    (:func:`rankframe.stats.two_sample.two_sample_bootstrap_test`, the draws of
    ``compare(reference=)``'s interval), or, with a baseline, the slice's differences
    (:func:`~rankframe.stats.intervals.bootstrap_test`, the draws of ``compare()``'s
    paired interval); every candidate's resamples start from ``seed``. A candidate's
    columns of the same queries share one call (the draws do not depend on the number of
    columns). Costs ``n_resamples`` x its queries (the whole frame's, without a baseline)
    per candidate."""
    out = np.full((3, len(found.candidate)), np.nan)
    level, n_resamples = slices.tests.confidence_level, slices.tests.n_resamples
    seed, alternative = slices.tests.seed, slices.alternative
    # the columns of the same queries: one pool each
    pools: dict[bytes, list[int]] = {}
    for j in range(tested.shape[1]):
        pools.setdefault(np.packbits(enters[:, j]).tobytes(), []).append(j)
    pool_of = np.empty(tested.shape[1], dtype=np.int64)
    for i, js in enumerate(pools.values()):
        pool_of[js] = i
    order = np.lexsort((found.column, pool_of[found.column], found.candidate))
    keys = np.stack([found.candidate[order], pool_of[found.column[order]]], axis=1)
    starts = (
        np.flatnonzero(np.r_[True, (keys[1:] != keys[:-1]).any(axis=1)])
        if len(order)
        else np.zeros(0, dtype=np.int64)
    )
    for start, stop in zip(starts, [*starts[1:], len(order)], strict=True):
        rows = order[start:stop]
        columns = found.column[rows]
        pool = enters[:, columns[0]]
        inside = (members == found.candidate[rows[0]]).any(axis=1)
        x = tested[inside & pool][:, columns]
        if slices.baseline is None:
            y = tested[~inside & pool][:, columns]
            result = two_sample_bootstrap_test(x, y, level, n_resamples, seed, alternative)
        else:
            result = bootstrap_test(x, level, n_resamples, seed, alternative)
        out[:, rows] = np.stack(result)
    return out[0], out[1], out[2]


def _permutation_p_values(
    found: _Found, members: IntArray, tested: FloatArray, enters: BoolArray, slices: Slices
) -> FloatArray:
    """The permutation tests of every tested (candidate, column), on resamples shared by
    every candidate: the slice against the other queries (a shuffle of the queries,
    :func:`rankframe.stats.subsets.subset_permutation_test`), or, with a baseline, the
    sign flips of the differences inside the slice (:func:`~rankframe.stats.subsets.
    subset_sign_flip_test`)."""
    values = np.where(enters, tested, np.nan)
    test = subset_permutation_test if slices.baseline is None else subset_sign_flip_test
    return test(
        values,
        members,
        found.candidate,
        found.column,
        slices.tests.n_permutations,
        slices.tests.seed,
        slices.alternative,
    )


def _parent_counts(
    done: dict[tuple[int, ...], tuple[IntArray, FloatArray]],
    parent: tuple[int, ...],
    digits: IntArray,
    drop: int,
    radix: list[int],
    total: FloatArray,
    n_columns: int,
) -> FloatArray:
    """Per candidate, the queries of its parent without predicate ``drop`` (the whole
    frame for a candidate of one predicate), per column; -1 where the parent was pruned
    (it has fewer queries than the candidate's minimum, so it differs)."""
    if not parent:
        return np.broadcast_to(total[:n_columns], (len(digits), n_columns))
    alive, sums = done.get(parent, (np.zeros(0, dtype=np.int64), np.zeros((0, n_columns))))
    kept = [i for i in range(len(radix)) if i != drop]
    key = np.ravel_multi_index(tuple(digits[:, i] for i in kept), [radix[i] for i in kept])
    where = np.searchsorted(alive, key)
    hit = (
        (where < len(alive)) & (alive[np.minimum(where, len(alive) - 1)] == key)
        if len(alive)
        else np.zeros(len(key), dtype=bool)
    )
    out = np.full((len(digits), n_columns), -1.0)
    out[hit] = sums[where[hit], :n_columns]
    return out


def _scored(
    parts: list[tuple[IntArray, IntArray, FloatArray, BoolArray]],
    total: FloatArray,
    centre: FloatArray,
    n_levels: int,
    slices: Slices,
) -> _Found:
    """The tests of every candidate and column that is tested (enough queries in the
    column, not its parent's query set); ``centre``: what :func:`_search` subtracted from
    each column, added back to the means."""
    n_columns = len(centre)
    predicates, sums, same = [], [], []
    for combo, digits, part_sums, part_same in parts:
        constrained = np.full((len(digits), n_levels), -1, dtype=np.int64)
        constrained[:, combo] = digits
        predicates.append(constrained)
        sums.append(part_sums)
        same.append(part_same)
    if not predicates:
        predicates, sums, same = (
            [np.zeros((0, n_levels), dtype=np.int64)],
            [np.zeros((0, 4 * n_columns))],
            [np.zeros((0, n_columns), dtype=bool)],
        )
    every = np.concatenate(predicates)
    s = np.concatenate(sums)
    m = n_columns
    n_in, s1, s2, sb = s[:, :m], s[:, m : 2 * m], s[:, 2 * m : 3 * m], s[:, 3 * m :]
    test = (n_in >= slices.min_queries) & ~np.concatenate(same)
    row, column = np.nonzero(test)
    n1, x1, xx1, b1 = (a[row, column] for a in (n_in, s1, s2, sb))
    inside, variance = _moments(n1, x1, xx1)
    inside += centre[column]
    level = slices.tests.confidence_level
    if slices.baseline is None:  # the slice against the other queries: Welch
        n2 = total[column] - n1
        outside, variance2 = _moments(n2, total[m + column] - x1, total[2 * m + column] - xx1)
        outside += centre[column]
        delta = inside - outside
        se, df = welch_error(n1, variance, n2, variance2)
        mean, other = inside, outside
    else:  # the mean difference from the baseline inside the slice: paired
        delta = inside
        with np.errstate(invalid="ignore", divide="ignore"):
            se = np.sqrt(np.where(n1 >= 2, variance / n1, np.nan))
            other = b1 / n1
        df = n1 - 1.0
        mean = delta + other  # the system's own mean inside
    _, p, low, high = t_test_of(
        delta, se, df, alternative=slices.alternative, confidence_level=level
    )
    return _Found(
        predicates=every[row],
        candidate=row,
        depth=(every[row] >= 0).sum(axis=1),
        column=column,
        n=n1.astype(np.int64),
        mean=mean,
        other=other,
        delta=delta,
        low=low,
        high=high,
        p_value=p,
    )


def _moments(n: FloatArray, sum1: FloatArray, sum2: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Means and ddof=1 variances from counts, sums and sums of squares (centred values:
    the centre cancels in every difference of means, and is added back by the caller)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, sum1 / np.maximum(n, 1), np.nan)
        var = np.where(n >= 2, np.maximum(sum2 - n * mean * mean, 0.0) / (n - 1), np.nan)
    return mean, var


# -- the output ----------------------------------------------------------------------------------


def _table(
    found: _Found, levels: list[_Levels], pq: PerQuery, request: Request, slices: Slices
) -> dict[str, Any]:
    """The output's columns, one row per tested (slice, system, metric), worst first
    within each system and metric; ``top`` keeps the first rows of each."""
    _, n_systems, n_metrics = pq.shape
    systems = _systems(n_systems, slices.baseline)
    mean, other = found.mean, found.other
    p_adjusted = adjust(found.p_value, slices.tests.correction)
    n_tested = int(np.count_nonzero(~np.isnan(found.p_value)))
    # worst first within each (system, metric): the column, then delta (NaN last)
    order = np.lexsort((found.depth, np.nan_to_num(found.delta, nan=np.inf), found.column))
    if slices.top is not None:
        rank = np.arange(len(order)) - np.searchsorted(found.column[order], found.column[order])
        order = order[rank < slices.top]
    predicates = found.predicates[order]
    column = found.column[order]
    system = np.array(systems, dtype=np.int64)[column // n_metrics] if len(systems) else column
    metric = column % n_metrics
    names = [level.name for level in levels]
    texts = [np.array([*level.labels, None], dtype=object) for level in levels]
    out: dict[str, Any] = {  # text with nulls: an Arrow array (Backend.table)
        name: pa.array(texts[i][predicates[:, i]].tolist(), type=pa.string())
        for i, name in enumerate(names)
    }
    # each candidate's text once, for its rows of every (system, metric)
    _, first_row, row_of = np.unique(found.candidate[order], return_index=True, return_inverse=True)
    out[SLICE] = np.array(
        [
            " & ".join(f"{names[i]}={levels[i].labels[v]}" for i, v in enumerate(p) if v >= 0)
            for p in predicates[first_row]
        ]
        + [""],
        dtype=object,
    )[row_of.reshape(-1)]
    labels = analysis.long_labels(pq.systems, pq.metrics, system, metric)
    paired = slices.baseline is not None
    significant = p_adjusted[order] < 1.0 - slices.tests.confidence_level
    out |= {
        "depth": found.depth[order],
        **labels,
        "n_queries": found.n[order],
        "mean": _shown(mean[order], pq, metric),
        ("baseline_mean" if paired else "mean_outside"): _shown(other[order], pq, metric),
        "delta": found.delta[order],
        "ci_low": found.low[order],
        "ci_high": found.high[order],
        "p_value": found.p_value[order],
        "p_adjusted": p_adjusted[order],
        "significant": significant,
        "n_tested": np.full(len(order), n_tested, dtype=np.int64),
    }
    return {
        name: out[name] for name, _ in slice_columns(request.by, request.metrics, paired=paired)
    }


def _shown(means: FloatArray, pq: PerQuery, metric: IntArray) -> FloatArray:
    """Means of tested values as the metric's statistic: ``exp`` of a mean log (a geometric
    mean)."""
    geometric = (pq.aggregates() == "geometric")[metric] if len(metric) else np.zeros(0, bool)
    return np.where(geometric, np.exp(means), means)
