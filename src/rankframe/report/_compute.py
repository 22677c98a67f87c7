"""The numbers of a report, from one per-query pass over the frame.

The accessor's ``per_query`` runs once, on the user's frame kind, for the report's metrics
(and ``num_rel``, which says which queries have no relevant item). That table is read back
as the partitioned backends read their parts' tables (``rankframe._pipeline.from_parts``)
and the one finish step (``rankframe._pipeline.finish``) makes the means with their
intervals (overall and per segment) and the comparisons with the baseline: the same code on
the same per-query values as ``evaluate()`` and ``compare()``, so the same numbers, at the
cost of one per-query pass. Win/tie/loss, the distributions and the worst queries come from
the same values. The metric@k curves are one ``evaluate()`` of the metrics at a few
cut-offs; the data facts (rows, tied scores, unjudged rows) read the bound columns once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import polars as pl

from rankframe import _pipeline, _stats
from rankframe._analysis import SYSTEM, PerQuery
from rankframe._conventions import preset_options
from rankframe._options import OPTIONS, Options
from rankframe._registry import Metric, bind_options, parse_metrics
from rankframe.adapters.pandas import PandasBackend
from rankframe.exceptions import InvalidOptionError

FloatArray = npt.NDArray[np.float64]

#: cut-offs of the metric@k curves (those up to each metric's own k, and that k)
CURVE_CUTOFFS = (1, 3, 5, 10, 20, 50, 100, 200, 500, 1000)
#: bins of the per-query histograms
BINS = 20


@dataclass
class Settings:
    """What the report was asked for: its options, written into the report."""

    metrics: list[str]
    by: list[str]
    systems: list[str]
    baseline: str | None
    test: str
    correction: str
    alpha: float
    confidence_level: float
    n_resamples: int
    seed: int | None
    worst: int
    top_k: int
    options: dict[str, Any]
    columns: dict[str, str]


@dataclass
class ReportData:
    """Everything a report shows, as small pandas frames (no row per query)."""

    settings: Settings
    facts: dict[str, Any]
    summary: pd.DataFrame  # one row per system: metric, metric_ci_low, metric_ci_high
    segments: pd.DataFrame | None  # the same per segment, with n_queries
    comparison: pd.DataFrame | None  # compare()'s table, overall
    segment_comparison: pd.DataFrame | None  # compare()'s table, per segment
    wtl: pd.DataFrame | None  # segment, system, metric, wins, ties, losses
    curves: pd.DataFrame | None  # system, metric, k, value
    distributions: list[dict[str, Any]]  # per metric and system: edges, counts, quartiles
    worst: list[dict[str, Any]]  # the worst queries against the baseline, with top-k lists
    trend: pd.DataFrame | None = None
    gates: pd.DataFrame | None = None
    reference: pd.DataFrame | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def eager(table: Any) -> pd.DataFrame:
    """A result table as a pandas frame: polars converted, lazy results run."""
    if isinstance(table, pl.LazyFrame):
        table = table.collect()
    if isinstance(table, pl.DataFrame):
        return table.to_pandas()
    if isinstance(table, pd.Series):
        return table.reset_index()
    if isinstance(table, pd.DataFrame):
        return table
    if hasattr(table, "compute"):
        return eager(table.compute())
    if hasattr(table, "toPandas"):  # a Spark frame of per-query rows
        return eager(table.toPandas())
    msg = f"Expected a table from rank_eval; got {type(table).__name__}."
    raise TypeError(msg)


def _bound(metrics: Any, chosen: dict[str, Any]) -> tuple[list[Metric], Options, dict[str, Any]]:
    """The metrics with the call's options bound (labels as ``evaluate`` writes them)."""
    given = dict(chosen)
    given.update(preset_options(given.get("convention"), given, list(OPTIONS)))
    options = Options(**{n: given[n] for n in OPTIONS if n in given})
    explicit = [n for n in given if n in OPTIONS]
    parsed, options = bind_options(
        parse_metrics(metrics), options, explicit, given.get("convention")
    )
    return parsed, options, given


def _without_empty(metric: Metric) -> Metric:
    return replace(metric, options=tuple((n, v) for n, v in metric.options if n != "empty"))


def projection(ev: Any, columns: Sequence[str]) -> pl.DataFrame:
    """The bound columns of the accessor's frame as one polars frame (read once)."""
    frame = ev._frame
    columns = list(dict.fromkeys(columns))
    if hasattr(frame, "frame") and callable(frame.frame):  # an Arrow source
        frame = frame.frame(columns)
    if isinstance(frame, pl.LazyFrame):
        return frame.select(columns).collect()
    if isinstance(frame, pl.DataFrame):
        return frame.select(columns)
    if hasattr(frame, "toArrow"):  # Spark
        return pl.from_arrow(frame.select(*columns).toArrow())  # type: ignore[return-value]
    if not isinstance(frame, pd.DataFrame):
        frame = frame[columns].compute()  # Dask: only these columns
    part = frame[columns]
    try:
        return pl.from_pandas(part)
    except (TypeError, ValueError, pl.exceptions.PolarsError):  # mixed object ids
        return pl.from_pandas(
            part.astype({c: str for c in part.columns if part[c].dtype == object})
        )


def _facts(data: pl.DataFrame, names: _pipeline.ColumnNames, pq: PerQuery) -> dict[str, Any]:
    """The data section: rows, queries, systems, empty queries, unjudged rows, tied scores."""
    rows = data.height
    tied = {}
    for score in names.scores:
        scored = data.filter(
            pl.col(score).is_not_null() & pl.col(score).is_not_nan()
            if data.schema[score].is_float()
            else pl.col(score).is_not_null()
        )
        # a hash of the query id groups as the id does (numbers group faster than strings)
        sizes = (
            scored.select(pl.col(names.query).hash(seed=0).alias("__q"), pl.col(score))
            .group_by(["__q", score])
            .len()
        )
        in_ties = int(sizes.filter(pl.col("len") > 1)["len"].sum())
        tied[score] = in_ties / scored.height if scored.height else 0.0
    unjudged = 0
    if names.judged is not None and names.judged in data.columns:
        unjudged = int((~data[names.judged].fill_null(True).cast(pl.Boolean)).sum())
    elif names.null_grades:
        unjudged = int(data[names.relevant].is_null().sum())
    return {
        "rows": rows,
        "queries": int(pq.values.shape[0]),
        "systems": list(names.scores),
        "empty_queries": int(pq.empty.sum()),
        "unjudged_rows": unjudged,
        "tied_share": tied,
    }


def t_intervals(pq: PerQuery, confidence_level: float) -> tuple[FloatArray, FloatArray]:
    """Student-t intervals of each (segment, system, metric)'s aggregate over its included
    queries (``rankframe._stats.t_interval``, per segment; NaN values left out of their
    own column); a geometric mean's from the logs, a sum's times the number of queries."""
    low, high = np.full(pq.shape, np.nan), np.full(pq.shape, np.nan)
    for positions, part in pq.parts():
        flat = part._flat()
        seg = part.segment[part.include]
        counts = np.bincount(seg, minlength=part.n_segments).astype(np.int64)
        lo = np.full((part.n_segments, flat.shape[1]), np.nan)
        hi = lo.copy()
        for g in range(part.n_segments):
            block = flat[seg == g]
            for c in range(flat.shape[1]):
                column = block[:, c]
                column = column[~np.isnan(column)]
                lo[g, c], hi[g, c] = _stats.t_interval(column, confidence_level)
        low[:, :, positions] = part._finish(lo, counts)
        high[:, :, positions] = part._finish(hi, counts)
    return low, high


def _with_t_intervals(
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


def _wtl(pq: PerQuery, baseline: int, by: bool) -> pd.DataFrame:
    """Queries where each system is above, equal to, below the baseline, per metric (and
    per segment): the queries that enter the metric's mean, both values known."""
    rows = []
    applies = pq.applies()
    for j, metric in enumerate(pq.metrics):
        keep = pq.include if applies[j] else np.ones_like(pq.include)
        base = pq.values[:, baseline, j]
        for s, system in enumerate(pq.systems):
            if s == baseline:
                continue
            value = pq.values[:, s, j]
            known = keep & ~np.isnan(value) & ~np.isnan(base)
            seg = pq.segment[known] if by else np.zeros(int(known.sum()), dtype=np.int64)
            n = pq.n_segments if by else 1
            diff = value[known] - base[known]
            wins = np.bincount(seg, weights=diff > 0, minlength=n)
            ties = np.bincount(seg, weights=diff == 0, minlength=n)
            losses = np.bincount(seg, weights=diff < 0, minlength=n)
            for g in range(n):
                rows.append(
                    {
                        "segment": g,
                        "system": system,
                        "metric": str(metric),
                        "wins": int(wins[g]),
                        "ties": int(ties[g]),
                        "losses": int(losses[g]),
                    }
                )
    return pd.DataFrame(rows, columns=["segment", "system", "metric", "wins", "ties", "losses"])


def _distributions(pq: PerQuery) -> list[dict[str, Any]]:
    """Per metric and system: a histogram of the per-query values and their quartiles."""
    out = []
    applies = pq.applies()
    for j, metric in enumerate(pq.metrics):
        keep = pq.include if applies[j] else np.ones_like(pq.include)
        values = pq.values[keep, :, j]
        finite = values[np.isfinite(values)]
        lo = min(0.0, float(finite.min())) if finite.size else 0.0
        hi = max(1.0, float(finite.max())) if finite.size else 1.0
        edges = np.linspace(lo, hi, BINS + 1)
        for s, system in enumerate(pq.systems):
            v = values[:, s]
            v = v[np.isfinite(v)]
            counts, _ = np.histogram(v, bins=edges)
            quartiles = (
                np.quantile(v, [0.0, 0.25, 0.5, 0.75, 1.0]).tolist() if v.size else [np.nan] * 5
            )
            out.append(
                {
                    "metric": str(metric),
                    "system": system,
                    "edges": edges.tolist(),
                    "counts": counts.astype(int).tolist(),
                    "quartiles": quartiles,
                    "n": int(v.size),
                }
            )
    return out


def _curve_metrics(metrics: Sequence[Metric]) -> list[Metric]:
    """The metrics at the curve's cut-offs: those with an integer cut-off, at every cut-off
    of ``CURVE_CUTOFFS`` up to their own, and their own."""
    out: list[Metric] = []
    for metric in metrics:
        k = metric.k
        if (
            not (
                metric.definition.takes_k and metric.definition.param.integer and isinstance(k, int)
            )
            or metric.definition.aggregate == "set"
        ):
            continue
        for cut in sorted({*(c for c in CURVE_CUTOFFS if c < k), k}):
            m = replace(metric, k=cut)
            if m not in out:
                out.append(m)
    return out


def _curves(ev: Any, metrics: list[Metric], chosen: dict[str, Any]) -> pd.DataFrame | None:
    curve = _curve_metrics(metrics)
    if not curve:
        return None
    table = eager(ev.evaluate(curve, **chosen))
    systems = table[SYSTEM].astype(str).tolist() if SYSTEM in table.columns else None
    offset = 1 if systems is not None else 0
    rows = []
    for i in range(len(table)):
        system = systems[i] if systems is not None else ev._names.score
        for position, metric in enumerate(curve):
            value = float(table.iloc[i, offset + position])
            rows.append(
                {
                    "system": system,
                    "metric": str(replace(metric, k=None)),
                    "k": int(metric.k or 0),
                    "value": value,
                }
            )
    return pd.DataFrame(rows, columns=["system", "metric", "k", "value"])


def _worst(
    pq: PerQuery,
    data: pl.DataFrame,
    ev: Any,
    names: _pipeline.ColumnNames,
    query_ids: list[Any],
    baseline: int,
    options: Options,
    count: int,
    top_k: int,
) -> list[dict[str, Any]]:
    """The ``count`` queries with the largest loss of a system against the baseline on the
    first metric, each with its top-k lists and their grades."""
    if count <= 0 or len(pq.systems) < 2 or not pq.metrics:
        return []
    values = pq.values[:, :, 0]
    keep = pq.include if pq.applies()[0] else np.ones_like(pq.include)
    losses = values - values[:, [baseline]]
    losses[:, baseline] = np.nan
    losses[~keep] = np.nan
    flat = np.where(np.isnan(losses), np.inf, losses).ravel()
    n_take = min(count, int((flat < 0).sum()))
    if n_take == 0:
        return []
    picked = np.argpartition(flat, n_take - 1)[:n_take]
    picked = picked[np.lexsort((picked, flat[picked]))]
    n_systems = len(pq.systems)
    chosen = [(int(p // n_systems), int(p % n_systems)) for p in picked]
    ids = [query_ids[q] for q, _ in chosen]
    lists = _top_lists(data, ev, names, ids, options, top_k)
    out = []
    for (q, s), qid in zip(chosen, ids, strict=True):
        out.append(
            {
                "query": qid,
                "system": pq.systems[s],
                "metric": str(pq.metrics[0]),
                "value": float(values[q, s]),
                "baseline_value": float(values[q, baseline]),
                "lists": {
                    pq.systems[i]: lists.get((_key(qid), pq.systems[i]), []) for i in (baseline, s)
                },
            }
        )
    return out


def _key(value: Any) -> str:
    return repr(value.item() if hasattr(value, "item") else value)


def _top_lists(
    data: pl.DataFrame,
    ev: Any,
    names: _pipeline.ColumnNames,
    ids: list[Any],
    options: Options,
    top_k: int,
) -> dict[tuple[str, str], list[tuple[Any, Any, Any]]]:
    """(query, system) → the top ``top_k`` (item, score, grade) of those queries, ranked as
    the metrics rank them (``rank()`` with the call's ties; ``trec`` for ``"average"``)."""
    if not ids:
        return {}
    wanted = pl.Series(ids).cast(data.schema[names.query], strict=False)
    rows = data.filter(pl.col(names.query).is_in(wanted.implode()))
    scores = list(names.scores)
    accessor = rows.rank_eval(  # type: ignore[attr-defined]
        query=names.query,
        item=names.item,
        score=scores if len(scores) > 1 else scores[0],
        relevant=names.relevant,
    )
    ties = (
        options.ties if options.ties in ("trec", "first", "optimistic", "pessimistic") else "trec"
    )
    ranked = accessor.rank(ties=ties, name="__rank")
    out: dict[tuple[str, str], list[tuple[Any, Any, Any]]] = {}
    for score in scores:
        column = "__rank" if len(scores) == 1 else f"__rank_{score}"
        top = ranked.filter(pl.col(column).is_not_null() & (pl.col(column) <= top_k)).sort(
            [names.query, column]
        )
        for row in top.select([names.query, names.item, score, names.relevant]).rows():
            out.setdefault((_key(row[0]), score), []).append((row[1], row[2], row[3]))
    return out


def compute(
    ev: Any,
    metrics: Any,
    *,
    by: str | Sequence[str] | None,
    baseline: str | None,
    test: str,
    correction: str,
    alpha: float,
    confidence_level: float,
    n_resamples: int,
    seed: int | None,
    worst: int,
    top_k: int,
    curves: bool,
    chosen: dict[str, Any],
) -> ReportData:
    """Every number of the report (see the module)."""
    names = ev._names
    by_list = [by] if isinstance(by, str) else list(dict.fromkeys(by or []))
    parsed, options, given = _bound(metrics, chosen)
    for metric in parsed:
        if metric.definition.aggregate == "set":
            msg = (
                f"{metric} is a set-level metric: the report needs per-query values; "
                "evaluate it with evaluate([...], by=...) instead."
            )
            raise InvalidOptionError(msg)
    systems = list(names.scores)
    base = systems[0] if baseline is None else baseline
    if base not in systems:
        msg = f"baseline={base!r} is not one of the score columns {systems}; pass one of them."
        raise InvalidOptionError(msg)
    # one per-query pass: every value at empty="zero" (the finish step applies `empty`)
    pass_options = {n: v for n, v in chosen.items() if n != "empty"}
    wanted = [_without_empty(m) for m in parsed]
    table = eager(
        ev.per_query([*wanted, "num_rel"], by=by_list or None, empty="zero", **pass_options)
    )
    keys = [names.query, *by_list] + ([SYSTEM] if SYSTEM in table.columns else [])
    values = list(table.columns[len(keys) :])
    table = table.rename(columns=dict(zip(values[: len(parsed)], map(str, parsed), strict=True)))
    table[_pipeline.EMPTY] = table[values[len(parsed)]].to_numpy() == 0
    resolved = ev._resolved(by_list, options)
    request = _pipeline.Request(
        resolved, tuple(parsed), tuple(by_list), options, _pipeline.PerQueryRows()
    )
    backend = PandasBackend(table)
    pq = _pipeline.from_parts(backend, request)
    included = _pipeline._included(pq, options)
    overall_pq = replace(
        pq, segment=np.zeros_like(pq.segment), segment_rows=pq.segment_rows[:1], n_segments=1
    )
    overall_included = replace(
        included, segment=overall_pq.segment, segment_rows=overall_pq.segment_rows, n_segments=1
    )

    def finish(result: Any, segmented: bool) -> pd.DataFrame:
        r = replace(request, by=tuple(by_list) if segmented else (), result=result)
        frame = _pipeline.finish(backend, pq if segmented else overall_pq, r)
        return eager(frame)

    if test == "t-test":  # t intervals of the means, as compare()'s of the deltas
        plain = _pipeline.Means()
        summary = _with_t_intervals(
            finish(plain, False), overall_included, parsed, confidence_level
        )
        segments = (
            _with_t_intervals(finish(plain, True), included, parsed, confidence_level)
            if by_list
            else None
        )
    else:  # evaluate()'s percentile bootstrap
        means = _pipeline.Means(
            confidence_level=confidence_level, n_resamples=n_resamples, seed=seed
        )
        summary = finish(means, False)
        segments = finish(means, True) if by_list else None
    comparison = segment_comparison = wtl = None
    b = systems.index(base)
    if len(systems) > 1:
        compared = _pipeline.Comparison(
            baseline=b,
            test=test,
            correction=correction,
            family="systems",  # type: ignore[arg-type]
            alpha=alpha,
            confidence_level=confidence_level,
            n_permutations=10_000,
            n_resamples=n_resamples,
            seed=seed,
        )
        comparison = finish(compared, False)
        segment_comparison = finish(compared, True) if by_list else None
        wtl = _wtl(included, b, False)
        if by_list:
            wtl = pd.concat([wtl.assign(segment=-1), _wtl(included, b, True)], ignore_index=True)
        else:
            wtl = wtl.assign(segment=-1)
    data = projection(ev, [*resolved.roles(), *by_list])
    facts = _facts(data, resolved, pq)
    query_ids = (
        table[names.query].to_numpy()[pq.first_rows] if pq.first_rows is not None else np.array([])
    )
    worst_queries = (
        _worst(included, data, ev, resolved, list(query_ids), b, options, worst, top_k)
        if len(systems) > 1
        else []
    )
    settings = Settings(
        metrics=[str(m) for m in parsed],
        by=by_list,
        systems=systems,
        baseline=base if len(systems) > 1 else None,
        test=test,
        correction=correction,
        alpha=alpha,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        seed=seed,
        worst=worst,
        top_k=top_k,
        options={n: v for n, v in given.items() if n in OPTIONS or n == "convention"},
        columns={
            "query": names.query,
            "item": names.item,
            "relevant": names.relevant,
            **({"judged": resolved.judged} if resolved.judged else {}),
        },
    )
    segment_labels = None
    if by_list:  # per segment code, its values (the row of the per-query table it names)
        keys_of = table.iloc[pq.segment_rows][by_list].astype(str)
        segment_labels = keys_of.agg(" / ".join, axis=1).tolist()
    return ReportData(
        settings=settings,
        facts=facts,
        summary=summary,
        segments=segments,
        comparison=comparison,
        segment_comparison=segment_comparison,
        wtl=wtl,
        curves=_curves(ev, parsed, chosen) if curves else None,
        distributions=_distributions(included),
        worst=worst_queries,
        extra={"segment_labels": segment_labels},
    )
