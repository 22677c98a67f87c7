"""The report's figures from the per-query values of its one pass: the data section's
facts, Student-t intervals of the means, win/tie/loss, the distributions, the metric@k
curves and the worst queries with their top lists (read from the bound columns)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd
import polars as pl

from rankframe.adapters import adapt
from rankframe.metrics.params import CUTOFF
from rankframe.metrics.registry import Metric, parse_metrics
from rankframe.pipeline import steps
from rankframe.pipeline.per_query import PerQuery
from rankframe.report._records import (
    Curve,
    Distribution,
    Facts,
    FloatArray,
    Holes,
    Listed,
    WinTieLoss,
    WorstQuery,
)
from rankframe.settings.options import Options
from rankframe.stats import intervals

BoolArray = npt.NDArray[np.bool_]

#: cut-offs of the metric@k curves (those below each metric's own k, and that k)
CURVE_CUTOFFS = (1, 3, 5, 10, 20, 50, 100, 200, 500, 1000)
#: bins of the per-query histograms
BINS = 20


def hole_metrics(parsed: Sequence[Metric], options: Options) -> dict[int | None, list[Metric]]:
    """The report's metrics that count an unjudged row as non-relevant (they depend on the
    relevant items and do not read unjudged rows: ``MetricDef.reads_unjudged``), by the
    top k they read: their cut-off, ``None`` for the whole list (no k, or a k that is not
    a cut-off: ``rbp``'s persistence, ``iprec``'s level). None under a ``ties=`` option that
    ``judged`` does not take (``"average"``: it has no tie-averaged form;
    ``"truncated_average"``: it reads one position per row)."""
    judged = judged_at(None).definition
    if (options.ties == "average" and judged.tie_average is None) or (
        options.ties == "truncated_average" and not judged.shared_ranks
    ):
        return {}
    out: dict[int | None, list[Metric]] = {}
    for metric in parsed:
        d = metric.definition
        if not d.depends_on_relevant or d.reads_unjudged:
            continue
        cut = metric.k if d.takes_k and d.param == CUTOFF and metric.k is not None else None
        out.setdefault(None if cut is None else int(cut), []).append(metric)
    return out


def judged_at(k: int | None) -> Metric:
    """``judged@k`` (``judged`` for k ``None``), the metric the holes are read from."""
    return parse_metrics("judged" if k is None else f"judged@{k}")[0]


def holes(
    pq: PerQuery, by_k: dict[int | None, list[Metric]], positions: dict[Metric, int]
) -> list[Holes]:
    """The holes of each top k of ``by_k`` (``hole_metrics``): per system, 1 - the mean
    of ``judged@k`` over every query (its column at ``positions``)."""
    values = values_of(pq)
    out = []
    for k, metrics in by_k.items():
        judged = values[:, :, positions[judged_at(k)]]
        share = {
            system: float(1.0 - judged[:, s].mean()) if len(judged) else 0.0
            for s, system in enumerate(pq.systems)
        }
        out.append(Holes(k, [str(m) for m in metrics], share))
    return out


def facts(
    data: pl.DataFrame,
    names: steps.ColumnNames,
    pq: PerQuery,
    counts: FloatArray,
    holes: list[Holes] | None = None,
) -> Facts:
    """The data section; ``data``: the bound columns (read once for the unjudged rows and
    the worst queries' lists); ``counts``: per query and system, the tied and the ranked
    rows (``rankframe.report._facts``); ``holes``: see :func:`holes`. The null scores of
    each system: its score column's nulls and NaNs (rows judged but not retrieved), one
    count over that column each."""
    tied, ranked = counts[:, :, 0].sum(axis=0), counts[:, :, 1].sum(axis=0)
    nulls = (
        data.select(
            [
                (
                    pl.col(s).is_null()
                    | (pl.col(s).is_nan() if data.schema[s].is_float() else pl.lit(value=False))
                )
                .sum()
                .alias(s)
                for s in dict.fromkeys(names.scores)
            ]
        ).row(0, named=True)
        if data.width
        else {}
    )
    unjudged = 0
    if names.judged is not None and names.judged in data.columns:
        unjudged = int((~data[names.judged].fill_null(True).cast(pl.Boolean)).sum())
    elif names.null_grades:
        unjudged = int(data[names.relevant].is_null().sum())
    return Facts(
        rows=data.height,
        queries=len(pq.empty),
        systems=list(pq.systems),
        empty_queries=int(pq.empty.sum()),
        unjudged_rows=unjudged,
        tied_share={
            system: float(tied[s] / ranked[s]) if ranked[s] else 0.0
            for s, system in enumerate(pq.systems)
        },
        null_scores={
            system: int(nulls.get(score, 0))
            for system, score in zip(pq.systems, names.scores, strict=False)
        },
        holes=list(holes or []),
    )


def t_intervals(pq: PerQuery, confidence_level: float) -> tuple[FloatArray, FloatArray]:
    """Student-t intervals of each (segment, system, metric)'s aggregate over its included
    queries (``rankframe.stats.intervals.t_interval``, per segment; NaN values left out of their
    own column); a geometric mean's from the logs, a sum's times the number of queries."""
    low, high = np.full(pq.shape, np.nan), np.full(pq.shape, np.nan)
    for positions, part in pq.parts():
        flat = part.flat_values()
        seg = part.segment[part.include]
        counts = np.bincount(seg, minlength=part.n_segments).astype(np.int64)
        lo = np.full((part.n_segments, flat.shape[1]), np.nan)
        hi = lo.copy()
        # each segment's rows in their order, from one stable sort (a mask per segment
        # read every query once per segment: 520 segments x windows took minutes on 1M)
        order = np.argsort(seg, kind="stable")
        ends = np.cumsum(counts)
        for g in range(part.n_segments):
            block = flat[order[ends[g] - counts[g] : ends[g]]]
            for c in range(flat.shape[1]):
                column = block[:, c]
                column = column[~np.isnan(column)]
                lo[g, c], hi[g, c] = intervals.t_interval(column, confidence_level)
        low[:, :, positions] = part.finish_aggregates(lo, counts)
        high[:, :, positions] = part.finish_aggregates(hi, counts)
    return low, high


def with_t_intervals(
    frame: pd.DataFrame, pq: PerQuery, metrics: Sequence[Metric], confidence_level: float
) -> pd.DataFrame:
    """The wide means table with ``<metric>_ci_low``/``_ci_high`` of ``t_intervals``
    (its rows are (segment, system) in order, as the finish step writes them)."""
    low, high = t_intervals(pq, confidence_level)
    out = frame.copy()
    for j, metric in enumerate(metrics):
        out[f"{metric}_ci_low"] = low[:, :, j].ravel()
        out[f"{metric}_ci_high"] = high[:, :, j].ravel()
    return out


def values_of(pq: PerQuery) -> FloatArray:
    """Every per-query value, shape (queries, systems, metrics)."""
    return pq.values  # noqa: PD011  (PerQuery.values is a NumPy array, not a pandas object)


def _kept(pq: PerQuery, j: int) -> BoolArray:
    """The queries that enter metric ``j``'s mean (``empty=`` applies to it or not)."""
    include: BoolArray = pq.include if pq.applies()[j] else np.ones_like(pq.include)
    return include


def wtl(pq: PerQuery, baseline: int, by: bool) -> list[WinTieLoss]:
    """Queries where each system is above, equal to, below the baseline, per metric (and
    per segment): the queries that enter the metric's mean, both values known."""
    rows = []
    per_query = values_of(pq)
    n = pq.n_segments if by else 1
    for j, metric in enumerate(pq.metrics):
        keep = _kept(pq, j)
        base = per_query[:, baseline, j]
        for s, system in enumerate(pq.systems):
            if s == baseline:
                continue
            value = per_query[:, s, j]
            known = keep & ~np.isnan(value) & ~np.isnan(base)
            seg = pq.segment[known] if by else np.zeros(int(known.sum()), dtype=np.int64)
            diff = value[known] - base[known]
            wins = np.bincount(seg, weights=diff > 0, minlength=n)
            ties = np.bincount(seg, weights=diff == 0, minlength=n)
            losses = np.bincount(seg, weights=diff < 0, minlength=n)
            rows += [
                WinTieLoss(
                    g if by else -1, system, str(metric), int(wins[g]), int(ties[g]), int(losses[g])
                )
                for g in range(n)
            ]
    return rows


def distributions(pq: PerQuery) -> list[Distribution]:
    """Per metric and system: a histogram of the per-query values and their quartiles."""
    out = []
    per_query = values_of(pq)
    for j, metric in enumerate(pq.metrics):
        values = per_query[_kept(pq, j), :, j]
        finite = values[np.isfinite(values)]
        lo = min(0.0, float(finite.min())) if finite.size else 0.0
        hi = max(1.0, float(finite.max())) if finite.size else 1.0
        edges = np.linspace(lo, hi, BINS + 1)
        for s, system in enumerate(pq.systems):
            v = values[:, s]
            v = v[np.isfinite(v)]
            counts, _ = np.histogram(v, bins=edges)
            quartiles = (
                [float(q) for q in np.quantile(v, [0.0, 0.25, 0.5, 0.75, 1.0])]
                if v.size
                else [np.nan] * 5
            )
            out.append(
                Distribution(
                    metric=str(metric),
                    system=system,
                    edges=[float(e) for e in edges],
                    counts=[int(c) for c in counts],
                    quartiles=quartiles,
                    n=int(v.size),
                )
            )
    return out


def curve_metrics(metrics: Sequence[Metric]) -> list[Metric]:
    """The metrics at the curve's cut-offs: those with an integer cut-off, at every cut-off
    of ``CURVE_CUTOFFS`` below their own, and their own."""
    out: list[Metric] = []
    for metric in metrics:
        k = metric.k
        definition = metric.definition
        if (
            not (definition.takes_k and definition.param.integer and isinstance(k, int))
            or definition.aggregate == "set"
        ):
            continue
        for cut in sorted({*(c for c in CURVE_CUTOFFS if c < k), k}):
            m = replace(metric, k=cut)
            if m not in out:
                out.append(m)
    return out


def curves(pq: PerQuery, curve: Sequence[Metric], positions: Sequence[int]) -> list[Curve]:
    """The curves from the means over every query of ``pq`` (one segment, ``empty=``
    applied): each curve metric's column is ``positions[i]`` of ``pq``'s metrics. The means
    of every column at once: the values as they are, no copy of some of their columns."""
    if not curve:
        return []
    means, _ = pq.means()
    by_metric: dict[str, Curve] = {}
    for i, metric in enumerate(curve):
        label = str(replace(metric, k=None))
        entry = by_metric.setdefault(label, Curve(label, [], {s: [] for s in pq.systems}))
        entry.ks.append(int(metric.k or 0))
        for s, system in enumerate(pq.systems):
            entry.means[system].append(float(means[0, s, positions[i]]))
    return list(by_metric.values())


def worst_queries(
    pq: PerQuery,
    data: pl.DataFrame,
    names: steps.ColumnNames,
    query_ids: Callable[[list[int]], list[object]],
    baseline: int,
    options: Options,
    count: int,
    top_k: int,
) -> list[WorstQuery]:
    """The ``count`` queries with the largest loss of a system against the baseline on the
    first metric, each with its top-k lists and their grades."""
    if count <= 0 or len(pq.systems) < 2 or not pq.metrics:
        return []
    values = values_of(pq)[:, :, 0]
    losses = values - values[:, [baseline]]
    losses[:, baseline] = np.nan
    losses[~_kept(pq, 0)] = np.nan
    flat = np.where(np.isnan(losses), np.inf, losses).ravel()
    n_take = min(count, int((flat < 0).sum()))
    if n_take == 0:
        return []
    picked = np.argpartition(flat, n_take - 1)[:n_take]
    picked = picked[np.lexsort((picked, flat[picked]))]
    n_systems = len(pq.systems)
    chosen = [(int(p // n_systems), int(p % n_systems)) for p in picked]
    ids = query_ids([q for q, _ in chosen])
    lists = _top_lists(data, names, ids, options, top_k)
    key = names.query_key
    return [
        WorstQuery(
            # a composite key's id is a tuple (query_ids zips its columns)
            query=(
                ", ".join(
                    f"{c}={v}" for c, v in zip(key, cast("tuple[object, ...]", qid), strict=True)
                )
                if len(key) > 1
                else str(qid)
            ),
            system=pq.systems[s],
            metric=str(pq.metrics[0]),
            value=float(values[q, s]),
            baseline_value=float(values[q, baseline]),
            lists={pq.systems[i]: lists.get((_key(qid), pq.systems[i]), []) for i in (baseline, s)},
        )
        for (q, s), qid in zip(chosen, ids, strict=True)
    ]


def _key(value: Any) -> str:
    """A query id (a composite key's tuple) as the text both sides of a lookup agree on."""
    if isinstance(value, tuple):
        return repr(tuple(_key(v) for v in value))
    return repr(value.item() if hasattr(value, "item") else value)


def _positive(grade: Any) -> bool:
    """Whether a grade of the frame (a number, a bool, None) is above 0."""
    if grade is None or isinstance(grade, str):
        return False
    try:
        return float(grade) > 0
    except (TypeError, ValueError):
        return False


def _top_lists(
    data: pl.DataFrame,
    names: steps.ColumnNames,
    ids: list[Any],
    options: Options,
    top_k: int,
) -> dict[tuple[str, str], list[Listed]]:
    """(query, system) → the top ``top_k`` (item, score, grade) of those queries, ranked as
    the metrics rank them (``rank()`` with the call's ties; ``trec`` for ``"average"``)."""
    if not ids:
        return {}
    key = list(names.query_key)
    if len(key) == 1:
        wanted = pl.Series(ids).cast(data.schema[names.query], strict=False)
        rows = data.filter(pl.col(names.query).is_in(wanted.implode()))
    else:  # a composite key: the rows of the wanted tuples
        wanted_keys = pl.DataFrame(
            {
                c: pl.Series([qid[j] for qid in ids]).cast(data.schema[c], strict=False)
                for j, c in enumerate(key)
            }
        )
        rows = data.join(wanted_keys, on=key, how="semi", nulls_equal=True)
    scores = list(names.scores)
    ties = (
        options.ties if options.ties in ("trec", "first", "optimistic", "pessimistic") else "trec"
    )
    bound = steps.ColumnNames(
        query=names.query,
        item=names.item,
        score=scores[0],
        relevant=names.relevant,
        query_columns=names.query_columns,
        systems=tuple(scores) if len(scores) > 1 else None,
    )
    columns = [f"__rank_{s}" for s in scores] if len(scores) > 1 else ["__rank"]
    ranked: pl.DataFrame = adapt(rows).rank(bound, columns, ties)
    out: dict[tuple[str, str], list[Listed]] = {}
    for score in scores:
        column = "__rank" if len(scores) == 1 else f"__rank_{score}"
        top = ranked.filter(pl.col(column).is_not_null() & (pl.col(column) <= top_k)).sort(
            [*key, column]
        )
        for *query, item, value, grade in top.select(
            [*key, names.item, score, names.relevant]
        ).iter_rows():
            qid = query[0] if len(key) == 1 else tuple(query)
            out.setdefault((_key(qid), score), []).append(
                Listed(str(item), str(value), str(grade), _positive(grade))
            )
    return out
