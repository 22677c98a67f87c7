"""The numbers of a report, from one per-query pass over the frame.

One request (``PerQueryRows``, as ``per_query``) holds the report's metrics, the same
metrics at the other cut-offs of the metric@k curves, ``num_rel`` (which says which queries
have no relevant item) and two counts of the data section (``rankframe.report._facts``: tied
and ranked rows per query). The engine ranks each system once for all of them and shares
the lists across the metrics, so the curves and the tie counts add a few array passes to
the ranking, not a ranking each. On one eager frame (pandas, polars, an Arrow source) the
per-query step gives its ``PerQuery`` directly, as ``evaluate()``'s does; a partitioned
frame (LazyFrame, Dask, Spark) runs the request and its per-query table is read back as its
parts' tables are (``rankframe.pipeline.steps.from_parts``). The one finish step
(``rankframe.pipeline.steps.finish``) then makes the means with their intervals (overall and per
segment) and the comparisons with the baseline: the same code on the same per-query values
as ``evaluate()`` and ``compare()``, so the same numbers. The curves are the means of their
per-query values (``PerQuery.means``, what ``evaluate()`` computes); win/tie/loss, the
distributions and the worst queries come from the same values. The rows, unjudged rows and
the worst queries' lists read the bound columns once more.

What the renderer gets is typed here: small dataclasses of plain Python values
(``Facts``, ``MetricRow``, ``WinTieLoss``, ``Curve``, ``Distribution``, ``WorstQuery``),
pulled out of the frames once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import polars as pl

from rankframe.adapters import adapt, results
from rankframe.adapters.pandas import PandasBackend
from rankframe.exceptions import InvalidOptionError
from rankframe.metrics import item_inputs
from rankframe.metrics.registry import Metric, bind_options, parse_metrics
from rankframe.pipeline import item_finish, steps
from rankframe.pipeline.binding import Binding
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.windows import TIME, WINDOW, segmented
from rankframe.report._facts import FACTS, RANKED_ROWS, TIED_ROWS, as_values
from rankframe.settings.conventions import preset_options
from rankframe.settings.options import OPTIONS, Options
from rankframe.settings.statistics import Intervals, Tests
from rankframe.stats import corrections, intervals

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: cut-offs of the metric@k curves (those below each metric's own k, and that k)
CURVE_CUTOFFS = (1, 3, 5, 10, 20, 50, 100, 200, 500, 1000)
#: bins of the per-query histograms
BINS = 20
#: the segments the answer names per system and metric; it counts the others
NAMED_SEGMENTS = 3


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
    every: str | None = None


@dataclass(frozen=True)
class Facts:
    """The data section: rows, queries, systems, queries without a relevant item, unjudged
    rows, and per system the share of ranked rows whose score ties another's in the query."""

    rows: int
    queries: int
    systems: list[str]
    empty_queries: int
    unjudged_rows: int
    tied_share: dict[str, float]
    null_scores: dict[str, int] = field(default_factory=dict)  # per system (not retrieved)


@dataclass(frozen=True)
class MetricRow:
    """One row of the summary or of the segments' table: the segment's values (empty for
    every query), the system, and per metric its mean and interval; the queries."""

    segment: tuple[str, ...]
    system: str
    means: dict[str, float]
    lows: dict[str, float]
    highs: dict[str, float]
    n_queries: int


@dataclass(frozen=True)
class WinTieLoss:
    """Queries where ``system`` is above, equal to, below the baseline on ``metric``:
    ``segment`` -1 for every query, else the segment's position (``ReportData.segment_labels``)."""

    segment: int
    system: str
    metric: str
    wins: int
    ties: int
    losses: int


@dataclass(frozen=True)
class Move:
    """A segment (or a slice) the answer names for one system and metric: its values as
    ``device=tablet & plan=free``, the change against the baseline (one system's slice: its
    mean against the other queries') with its interval and adjusted p-value, its queries."""

    segment: str
    delta: float
    ci_low: float
    ci_high: float
    p_adjusted: float
    n_queries: int


@dataclass(frozen=True)
class Against:
    """What the answer adds to a system's line for one metric: the overall change
    (``direction``: 1 significantly higher, -1 significantly lower, 0 neither) and the
    segments that go against it, or are significant while it is not (at most
    :data:`NAMED_SEGMENTS`, the most significant first; ``more`` counts the others)."""

    system: str
    metric: str
    direction: int
    delta: float
    named: list[Move]
    more: int
    reference: bool = False  # against the reference frame (report(reference=...))


@dataclass(frozen=True)
class SliceAgainst:
    """The answer's slice of one system and metric (``report(slices=...)``): the first
    significant slice of ``slices()``'s table (worst first) below the overall direction
    (against a significant increase or no significant change: a significant decrease;
    against a significant decrease: a significant increase); ``other``: the baseline's
    mean there, or the other queries' (one system); ``n_tested``: every test of the
    slices' correction."""

    system: str
    metric: str
    move: Move
    mean: float
    other: float
    paired: bool
    n_tested: int


@dataclass(frozen=True)
class Curve:
    """A metric's means at several cut-offs: ``means[system][i]`` is the mean at ``ks[i]``."""

    metric: str
    ks: list[int]
    means: dict[str, list[float]]


@dataclass(frozen=True)
class Distribution:
    """A metric's per-query values of one system: counts in the bins between ``edges``
    (shared by the systems), the quartiles (minimum, 25%, median, 75%, maximum), ``n``."""

    metric: str
    system: str
    edges: list[float]
    counts: list[int]
    quartiles: list[float]
    n: int


@dataclass(frozen=True)
class Listed:
    """One row of a worst query's list, as shown: item, score, grade; ``positive`` grade."""

    item: str
    score: str
    grade: str
    positive: bool


@dataclass(frozen=True)
class WorstQuery:
    """A large loss of ``system`` against the baseline on ``metric``, with both top lists."""

    query: str
    system: str
    metric: str
    value: float
    baseline_value: float
    lists: dict[str, list[Listed]]


@dataclass(frozen=True)
class Provenance:
    """Where the report comes from: when it was made (UTC, to the second), the data's name
    (``name=``; the file's name from the CLI), its rows and queries, and with
    ``fingerprint=True`` the hash of its bound columns that the history store records
    (``rankframe.adapters.fingerprint``; ``None`` for an input that cannot be read again)."""

    generated: str
    name: str | None = None
    rows: int | None = None
    queries: int | None = None
    digest: str | None = None


@dataclass
class ReportData:
    """Everything a report shows (no row per query)."""

    settings: Settings
    facts: Facts
    summary: pd.DataFrame  # one row per system: metric, metric_ci_low, metric_ci_high
    segments: pd.DataFrame | None  # the same per segment, with n_queries
    comparison: pd.DataFrame | None  # compare()'s table, overall
    segment_comparison: pd.DataFrame | None  # compare()'s table, per segment
    wtl: list[WinTieLoss]  # overall (segment -1), then per segment
    curves: list[Curve]
    distributions: list[Distribution]  # per metric and system
    worst: list[WorstQuery]  # the worst queries against the baseline, with top-k lists
    segment_labels: list[str] = field(default_factory=list)  # per segment code: its values
    trend: pd.DataFrame | None = None
    segment_trend: pd.DataFrame | None = None  # the trend per segment (by= and every=)
    gates: pd.DataFrame | None = None
    reference: pd.DataFrame | None = None
    previous: pd.DataFrame | None = None  # compare(every=)'s table: each window vs the last
    about: Provenance | None = None
    slices: pd.DataFrame | None = None  # slices()'s table (report(slices=[...]))
    against: list[Against] = field(default_factory=list)  # the segments the answer names
    segment_tests: int = 0  # the tests of the segments (the family of Against's p-values)
    # against the reference frame (report(reference=...)): compare(reference=...) over every
    # query, and with by= the segments the answer names, the number of segment tests
    reference_overall: pd.DataFrame | None = None
    reference_against: list[Against] = field(default_factory=list)
    reference_segment_tests: int = 0
    slice_against: list[SliceAgainst] = field(default_factory=list)
    exposure: Exposure | None = None  # the fairness section (report(item_groups=...))


def eager(table: Any) -> pd.DataFrame:
    """A result table as a pandas frame (:func:`rankframe.adapters.results.as_pandas`)."""
    frame = results.as_pandas(table)
    if frame is not None:
        return frame
    msg = f"Expected a table from rank_eval; got {type(table).__name__}."
    raise TypeError(msg)


def metric_rows(frame: pd.DataFrame, metrics: Sequence[str], by: Sequence[str],
                default_system: str) -> list[MetricRow]:
    """The rows of a means table (``evaluate``'s wide layout) as plain values."""
    n = len(frame)
    nan = np.full(n, np.nan)

    def floats(column: str) -> FloatArray:
        if column not in frame.columns:
            return nan
        return np.asarray(frame[column].to_numpy(dtype=np.float64, na_value=np.nan))

    systems = ([str(s) for s in frame["system"].tolist()] if "system" in frame.columns
               else [default_system] * n)
    keys = [[str(v) for v in frame[c].tolist()] for c in by]
    means = {m: floats(m) for m in metrics}
    lows = {m: floats(f"{m}_ci_low") for m in metrics}
    highs = {m: floats(f"{m}_ci_high") for m in metrics}
    counts = (frame["n_queries"].to_numpy(dtype=np.int64) if "n_queries" in frame.columns
              else np.full(n, -1, dtype=np.int64))  # -1: not given (a table of with_tables)
    return [
        MetricRow(
            segment=tuple(k[i] for k in keys),
            system=systems[i],
            means={m: float(means[m][i]) for m in metrics},
            lows={m: float(lows[m][i]) for m in metrics},
            highs={m: float(highs[m][i]) for m in metrics},
            n_queries=int(counts[i]),
        )
        for i in range(n)
    ]


def metric_label(metric: Any, k: Any) -> str:
    """A metric of a long table as its label: ``metric`` and ``k`` columns as ``ndcg@10``."""
    if k is None or (isinstance(k, float) and math.isnan(k)) or k is pd.NA:
        return str(metric)
    return f"{metric}@{int(k) if float(k).is_integer() else k}"


def _labels(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """(system, metric label) of each row of a comparison."""
    return [(str(s), metric_label(m, k)) for s, m, k in
            zip(frame["system"].tolist(), frame["metric"].tolist(), frame["k"].tolist(),
                strict=True)]


def _floats(frame: pd.DataFrame, column: str) -> FloatArray:
    return np.asarray(frame[column].to_numpy(dtype=np.float64, na_value=np.nan))


def _directions(comparison: pd.DataFrame) -> dict[tuple[str, str], tuple[int, float]]:
    """(system, metric label) → the overall change's direction (1: significantly higher,
    -1: significantly lower, 0: neither) and its delta."""
    delta = _floats(comparison, "delta")
    significant = comparison["significant"].fillna(value=False).to_numpy(dtype=bool)
    sign = np.where(significant, np.sign(np.nan_to_num(delta)), 0).astype(int)
    return {key: (int(d), float(x))
            for key, d, x in zip(_labels(comparison), sign, delta, strict=True)}


def segment_label(columns: Sequence[str], values: Sequence[Any]) -> str:
    """A segment as the answer names it: ``device=tablet & plan=free``; a missing value
    as ``(missing)``."""
    return " & ".join(f"{c}={'(missing)' if _missing(v) else v}"
                      for c, v in zip(columns, values, strict=True))


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or value is pd.NaT or (
        isinstance(value, float) and math.isnan(value))


def segment_answer(comparison: pd.DataFrame | None, segments: pd.DataFrame | None,
                   by: Sequence[str], baseline: str | None, tests: Tests, *,
                   reference: bool = False) -> tuple[list[Against], int]:
    """The segments the answer names (``Against``, per system and metric against the
    baseline) and the number of segment tests: from ``compare(by=)``'s table of the
    report (``segments``) and the overall one (``comparison``), no other pass. The
    p-values are corrected (``tests.correction``) over every segment test of the report
    (every segment, system and metric: the family of a reader who scans the whole
    segment table), and a segment is named when its change is significant at
    ``tests.alpha`` and goes against the overall change's direction, or the overall change
    is not significant. ``reference``: the tables are ``compare(reference=...)``'s (every
    system against its reference column; no baseline)."""
    if comparison is None or segments is None or not by or not len(segments):
        return [], 0
    p = _floats(segments, "p_value")
    adjusted = corrections.adjust(p, tests.correction)
    delta = _floats(segments, "delta")
    keys = _labels(segments)
    overall = _directions(comparison)
    direction = np.array([overall.get(key, (0, math.nan))[0] for key in keys], dtype=int)
    sign = np.sign(np.nan_to_num(delta)).astype(int)
    with np.errstate(invalid="ignore"):
        named = ((adjusted < tests.alpha) & (sign != 0)
                 & ((direction == 0) | (sign == -direction))
                 & (segments["system"].astype(str).to_numpy() != baseline))
    picked = np.flatnonzero(named)
    picked = picked[np.lexsort((-np.abs(delta[picked]), adjusted[picked]))]
    by_key: dict[tuple[str, str], list[int]] = {}
    for i in picked.tolist():
        by_key.setdefault(keys[i], []).append(i)
    low, high = _floats(segments, "ci_low"), _floats(segments, "ci_high")
    counts = segments["n_queries"].to_numpy(dtype=np.int64, na_value=-1)
    values = segments[list(by)]
    out = []
    for key, (d, overall_delta) in overall.items():
        rows = by_key.get(key)
        if not rows:
            continue
        named_rows = [
            Move(segment_label(by, values.iloc[i].tolist()), float(delta[i]), float(low[i]),
                 float(high[i]), float(adjusted[i]), int(counts[i]))
            for i in rows[:NAMED_SEGMENTS]
        ]
        out.append(Against(key[0], key[1], d, overall_delta, named_rows,
                           max(len(rows) - NAMED_SEGMENTS, 0), reference))
    return out, int(np.count_nonzero(~np.isnan(p)))


def slice_answer(slices: pd.DataFrame | None, comparison: pd.DataFrame | None
                 ) -> list[SliceAgainst]:
    """Per system and metric of ``slices()``'s table (worst first), its first significant
    slice below the overall direction (``SliceAgainst``); one system (no comparison): its
    first slice significantly below the other queries."""
    if slices is None or not len(slices):
        return []
    overall = _directions(comparison) if comparison is not None else {}
    delta = _floats(slices, "delta")
    significant = slices["significant"].fillna(value=False).to_numpy(dtype=bool)
    paired = "baseline_mean" in slices.columns
    other = _floats(slices, "baseline_mean" if paired else "mean_outside")
    mean, low, high = (_floats(slices, c) for c in ("mean", "ci_low", "ci_high"))
    adjusted = _floats(slices, "p_adjusted")
    counts = slices["n_queries"].to_numpy(dtype=np.int64, na_value=-1)
    tested = slices["n_tested"].to_numpy(dtype=np.int64, na_value=-1)
    where = slices["slice"].astype(str).tolist()
    out: dict[tuple[str, str], SliceAgainst] = {}
    for i, key in enumerate(_labels(slices)):
        below = -1 if overall.get(key, (0, math.nan))[0] >= 0 else 1
        if key in out or not significant[i] or np.sign(delta[i]) != below:
            continue
        out[key] = SliceAgainst(
            key[0], key[1], Move(where[i], float(delta[i]), float(low[i]), float(high[i]),
                                 float(adjusted[i]), int(counts[i])),
            float(mean[i]), float(other[i]), paired, int(tested[i]))
    return list(out.values())


#: the groups of ``item_groups`` the About section names; it counts the others
NAMED_GROUPS = 5


def option_text(name: str, value: Any) -> str:
    """An option's value as the About section writes it: ``item_groups`` summarized
    (``5,000 items in 2 groups: head, tail``; at most :data:`NAMED_GROUPS` names), any
    other as its ``str``."""
    if name != "item_groups" or value is None:
        return str(value)
    keys, _, groups = item_inputs.read_item_groups(value)
    names = ", ".join(str(g) for g in groups[:NAMED_GROUPS])
    more = f" and {len(groups) - NAMED_GROUPS:,} more" if len(groups) > NAMED_GROUPS else ""
    plural = "" if len(groups) == 1 else "s"
    return f"{len(keys):,} items in {len(groups):,} group{plural}: {names}{more}"


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


def _facts(data: pl.DataFrame, names: steps.ColumnNames, pq: PerQuery,
           counts: FloatArray) -> Facts:
    """The data section; ``data``: the bound columns (read once for the unjudged rows and
    the worst queries' lists); ``counts``: per query and system, the tied and the ranked
    rows (``rankframe.report._facts``). The null scores of each system: its score column's
    nulls and NaNs (rows judged but not retrieved), one count over that column each."""
    tied, ranked = counts[:, :, 0].sum(axis=0), counts[:, :, 1].sum(axis=0)
    nulls = data.select([
        (pl.col(s).is_null() | (pl.col(s).is_nan() if data.schema[s].is_float()
                                else pl.lit(value=False))).sum().alias(s)
        for s in dict.fromkeys(names.scores)
    ]).row(0, named=True) if data.width else {}
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
        null_scores={system: int(nulls.get(score, 0))
                     for system, score in zip(pq.systems, names.scores, strict=False)},
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
            block = flat[order[ends[g] - counts[g]:ends[g]]]
            for c in range(flat.shape[1]):
                column = block[:, c]
                column = column[~np.isnan(column)]
                lo[g, c], hi[g, c] = intervals.t_interval(column, confidence_level)
        low[:, :, positions] = part.finish_aggregates(lo, counts)
        high[:, :, positions] = part.finish_aggregates(hi, counts)
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


def _values(pq: PerQuery) -> FloatArray:
    """Every per-query value, shape (queries, systems, metrics)."""
    return pq.values  # noqa: PD011  (PerQuery.values is a NumPy array, not a pandas object)


def _kept(pq: PerQuery, j: int) -> BoolArray:
    """The queries that enter metric ``j``'s mean (``empty=`` applies to it or not)."""
    include: BoolArray = pq.include if pq.applies()[j] else np.ones_like(pq.include)
    return include


def _wtl(pq: PerQuery, baseline: int, by: bool) -> list[WinTieLoss]:
    """Queries where each system is above, equal to, below the baseline, per metric (and
    per segment): the queries that enter the metric's mean, both values known."""
    rows = []
    per_query = _values(pq)
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
                WinTieLoss(g if by else -1, system, str(metric), int(wins[g]), int(ties[g]),
                           int(losses[g]))
                for g in range(n)
            ]
    return rows


def wtl_frame(rows: Sequence[WinTieLoss]) -> pd.DataFrame:
    """Win/tie/loss as a table: ``segment``, ``system``, ``metric``, ``wins``, ``ties``,
    ``losses``."""
    columns = ["segment", "system", "metric", "wins", "ties", "losses"]
    return pd.DataFrame(
        [(r.segment, r.system, r.metric, r.wins, r.ties, r.losses) for r in rows],
        columns=columns,
    )


def _distributions(pq: PerQuery) -> list[Distribution]:
    """Per metric and system: a histogram of the per-query values and their quartiles."""
    out = []
    per_query = _values(pq)
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
                [float(q) for q in np.quantile(v, [0.0, 0.25, 0.5, 0.75, 1.0])] if v.size
                else [np.nan] * 5
            )
            out.append(Distribution(
                metric=str(metric), system=system, edges=[float(e) for e in edges],
                counts=[int(c) for c in counts], quartiles=quartiles, n=int(v.size),
            ))
    return out


def _curve_metrics(metrics: Sequence[Metric]) -> list[Metric]:
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


def _curves(pq: PerQuery, curve: Sequence[Metric], positions: Sequence[int]) -> list[Curve]:
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


def _worst(
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
    values = _values(pq)[:, :, 0]
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
            query=(", ".join(f"{c}={v}" for c, v in zip(key, qid, strict=True))
                   if len(key) > 1 else str(qid)),
            system=pq.systems[s],
            metric=str(pq.metrics[0]),
            value=float(values[q, s]),
            baseline_value=float(values[q, baseline]),
            lists={
                pq.systems[i]: lists.get((_key(qid), pq.systems[i]), []) for i in (baseline, s)
            },
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
        wanted_keys = pl.DataFrame({
            c: pl.Series([qid[j] for qid in ids]).cast(data.schema[c], strict=False)
            for j, c in enumerate(key)})
        rows = data.join(wanted_keys, on=key, how="semi", nulls_equal=True)
    scores = list(names.scores)
    ties = (
        options.ties if options.ties in ("trec", "first", "optimistic", "pessimistic") else "trec"
    )
    bound = steps.ColumnNames(query=names.query, item=names.item, score=scores[0],
                              relevant=names.relevant, query_columns=names.query_columns,
                              systems=tuple(scores) if len(scores) > 1 else None)
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


def _one_pass(
    binding: Binding, metrics: Sequence[Metric], by: list[str], options: Options, every: str | None
) -> tuple[PerQuery, steps.Backend, list[Metric]]:
    """The one per-query pass: every value of ``metrics`` (at ``empty="zero"``: the finish
    step applies ``empty=``), ``num_rel`` and the counts of ``rankframe.report._facts``;
    the backend whose rows the table's ``first_rows`` and ``segment_rows`` name; the
    metrics of its values, in order. With ``every``, each query's time too (``PerQuery.time``,
    the time column's earliest value of the query, read in the same pass), from which the
    trend's windows are made.

    One eager frame runs the per-query step itself, as ``evaluate()`` does; a partitioned
    one runs ``per_query``'s request and its table is read back as the parts' tables are
    (``steps.from_parts``): the same values either way."""
    num_rel = parse_metrics("num_rel")[0]
    wanted = list(dict.fromkeys([*(_without_empty(m) for m in metrics), num_rel, *FACTS]))
    binding.check_columns(by)
    request = binding.request(wanted, by, replace(options, empty="zero"),
                          steps.PerQueryRows(), every)
    backend = binding.frame.one_pass(request)
    if backend is not None:
        pq = steps.per_query(backend, request)
        if pq.top is not None:  # the metrics of the items: their per-query values, once
            item_finish.complete(_values(pq), pq.top, wanted, options, pq.segment, pq.n_segments)
            pq = replace(pq, top=None)
        return pq, backend, wanted
    table = eager(binding.run(request))
    table[steps.EMPTY] = table[str(num_rel)].to_numpy() == 0
    if request.window is not None:  # its window start stands for each query's time: the
        # start of a window lies in that window (truncating it again gives itself)
        table = table.rename(columns={WINDOW: TIME})
    backend = PandasBackend(table)
    # the table holds every metric's final per-query value, the items' too: read as values
    read = replace(request, metrics=tuple(as_values(m) for m in wanted))
    return steps.from_parts(backend, read, counted=False), backend, wanted


def compute(
    binding: Binding,
    metrics: Any,
    *,
    by: str | Sequence[str] | None,
    baseline: str | None,
    tests: Tests,
    worst: int,
    top_k: int,
    curves: bool,
    chosen: dict[str, Any],
    every: str | None = None,
) -> ReportData:
    """Every number of the report (see the module), with the statistics of ``tests``."""
    names = binding.names
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
    curve = _curve_metrics(parsed) if curves else []
    # every per-query value: the metrics, their curves, the facts
    window = binding.window(every, by_list)  # checked before the pass
    everything, backend, wanted = _one_pass(binding, [*parsed, *curve], by_list, options, every)
    resolved = binding.resolved(by_list, options)
    column = {m: i for i, m in enumerate(wanted)}
    pq = replace(
        everything,
        values=_values(everything)[:, :, [column[_without_empty(m)] for m in parsed]],
        metrics=list(parsed),
    )
    counts = _values(everything)[:, :, [column[TIED_ROWS], column[RANKED_ROWS]]]
    request = steps.Request(
        resolved, tuple(parsed), tuple(by_list), options, steps.PerQueryRows()
    )
    included = steps.included(pq, options)
    overall_pq = replace(
        pq, segment=np.zeros_like(pq.segment), segment_rows=pq.segment_rows[:1], n_segments=1
    )
    overall_included = replace(
        included, segment=overall_pq.segment, segment_rows=overall_pq.segment_rows, n_segments=1
    )

    def finish(result: steps.Result, by_segment: bool) -> pd.DataFrame:
        r = replace(request, by=tuple(by_list) if by_segment else (), result=result)
        return eager(steps.finish(backend, pq if by_segment else overall_pq, r))

    def windowed(result: steps.Result, by_segment: bool = False) -> pd.DataFrame:
        """Every query's means per window (``by_segment``: per segment and window):
        ``evaluate(every=...)``'s finish step."""
        r = replace(request, by=tuple(by_list) if by_segment else (), result=result,
                    window=window)
        return eager(steps.finish(backend, pq if by_segment else overall_pq, r))

    confidence_level = tests.confidence_level
    trend = segment_trend = None

    def kept(table: PerQuery) -> PerQuery:
        """The segments the finish step keeps: with ``empty="skip"``, not those it leaves
        without a query (as ``steps.completed``), so the intervals match its rows."""
        return table.without_empty_segments() if options.empty == "skip" else table
    if tests.test == "t-test":  # t intervals of the means, as compare()'s of the deltas
        plain = steps.Means()
        summary = _with_t_intervals(
            finish(plain, False), overall_included, parsed, confidence_level
        )
        if window is not None:  # per window: the windows as the segments of the t intervals
            trend = _with_t_intervals(windowed(plain),
                                      kept(segmented(overall_included, window)[0]),
                                      parsed, confidence_level)
            if by_list:
                segment_trend = _with_t_intervals(
                    windowed(plain, True), kept(segmented(included, window)[0]), parsed,
                    confidence_level)
        segments = (
            _with_t_intervals(finish(plain, True), kept(included), parsed, confidence_level)
            if by_list
            else None
        )
    else:  # evaluate()'s percentile bootstrap
        means = steps.Means(intervals=Intervals(
            confidence_level=confidence_level, n_resamples=tests.n_resamples, seed=tests.seed
        ))
        summary = finish(means, False)
        segments = finish(means, True) if by_list else None
        trend = windowed(means) if window is not None else None
        segment_trend = windowed(means, True) if window is not None and by_list else None
    comparison = segment_comparison = None
    wtl: list[WinTieLoss] = []
    b = systems.index(base)
    if len(systems) > 1:
        compared = steps.Comparison(baseline=b, tests=tests)
        comparison = finish(compared, False)
        segment_comparison = finish(compared, True) if by_list else None
        wtl = _wtl(included, b, False) + (_wtl(included, b, True) if by_list else [])
    against, segment_tests = segment_answer(comparison, segment_comparison, by_list, base,
                                            tests)
    # the rows, unjudged rows and lists of the worst queries: no time column read for them
    bound = replace(resolved, time=None, time_unit=None)
    data = binding.frame.polars_columns([*bound.roles(), *by_list])
    first_rows = pq.first_rows if pq.first_rows is not None else np.zeros(0, dtype=np.int64)

    def query_ids(codes: list[int]) -> list[object]:
        """The queries' ids; a composite key's as tuples of its columns' values."""
        rows = first_rows[np.asarray(codes, dtype=np.int64)]
        labels = [backend.labels(c, rows) for c in names.query_key]
        return labels[0] if len(labels) == 1 else list(zip(*labels, strict=True))

    worst_queries = (
        _worst(included, data, resolved, query_ids, b, options, worst, top_k)
        if len(systems) > 1
        else []
    )
    settings = Settings(
        metrics=[str(m) for m in parsed],
        by=by_list,
        systems=systems,
        baseline=base if len(systems) > 1 else None,
        test=tests.test,
        correction=tests.correction,
        alpha=tests.alpha,
        confidence_level=confidence_level,
        n_resamples=tests.n_resamples,
        seed=tests.seed,
        worst=worst,
        top_k=top_k,
        options={n: v for n, v in given.items() if n in OPTIONS or n == "convention"},
        columns={
            "query": names.query,
            "item": names.item,
            "relevant": names.relevant,
            **({"judged": resolved.judged} if resolved.judged else {}),
            **({"time": names.time} if window is not None and names.time else {}),
        },
        every=every,
    )
    segment_labels: list[str] = []
    if by_list:  # per segment code, its values (the row of the per-query table it names)
        values = [backend.labels(c, pq.segment_rows) for c in by_list]
        segment_labels = [" / ".join(map(str, key)) for key in zip(*values, strict=True)]
    # the curves: every query (empty= applied), the metric's own k from its own column
    curve_pq = steps.included(
        replace(everything, segment=overall_pq.segment, segment_rows=overall_pq.segment_rows,
                n_segments=1, metrics=list(wanted)),
        options,
    )
    return ReportData(
        settings=settings,
        facts=_facts(data, resolved, pq, counts),
        summary=summary,
        segments=segments,
        comparison=comparison,
        segment_comparison=segment_comparison,
        wtl=wtl,
        curves=_curves(curve_pq, curve, [column[_without_empty(m)] for m in curve]),
        distributions=_distributions(included),
        worst=worst_queries,
        segment_labels=segment_labels,
        trend=trend,
        segment_trend=segment_trend,
        against=against,
        segment_tests=segment_tests,
    )


# -- the sections asked for by keyword: slices and exposure ---------------------------------


def slice_table(ev: Any, metrics: Any, columns: Sequence[str], *, baseline: str | None,
                tests: Tests, max_depth: int, min_queries: int, top: int,
                chosen: dict[str, Any]) -> pd.DataFrame:
    """The section "Where it fails": ``ev.slices()``'s own table (its ``top`` rows per
    system and metric, worst first; ``n_tested`` counts every test of the call), with the
    report's correction and confidence level; the permutation test when the report's test
    is one, Welch's or the paired t-test otherwise."""
    return eager(ev.slices(
        metrics, list(columns), baseline=baseline, max_depth=max_depth,
        min_queries=min_queries, top=top,
        test="permutation" if tests.test == "permutation" else "t-test",
        confidence_level=tests.confidence_level,
        correction=None if tests.correction == "none" else tests.correction,
        seed=tests.seed, **chosen,
    ))


@dataclass(frozen=True)
class Exposure:
    """The section on fairness of exposure at cut-off ``k``. ``shares``: per system and
    group of ``item_groups``, over the queries with a relevant item (``n_queries``), the
    mean exposure share (``exposure@k``), the mean merit share (the group's share of the
    relevance grades) and their difference (``exposure_gap@k``); ``divergences``:
    ``evaluate()``'s table of ``awrf@k`` and ``ndkl@k`` with their intervals."""

    k: int
    shares: pd.DataFrame  # system, group, exposure, merit, gap, n_queries
    divergences: pd.DataFrame


def exposure(ev: Any, k: int, systems: Sequence[str], tests: Tests,
             chosen: dict[str, Any]) -> Exposure:
    """The fairness section's numbers (``Exposure``): the per-query values of
    ``exposure@k`` and ``exposure_gap@k`` (with ``empty="skip"``: the queries with a
    relevant item, where the merit share is defined), their means per system, and the merit
    share as their difference, exposure - gap, query by query."""
    given = {**chosen, "empty": "skip"}
    parsed, _, _ = _bound([f"exposure@{k}", f"exposure_gap@{k}"], given)
    # each metric's column per group, as the per-query table labels it (bound: a metric
    # per group of item_groups, MetricDef.expand)
    labels: list[dict[str, str]] = [{}, {}]
    for m in parsed:
        labels[m.name == "exposure_gap"][str(dict(m.options)["group"])] = str(m)
    per_query = eager(ev.per_query([f"exposure@{k}", f"exposure_gap@{k}"], **given))
    system = (per_query["system"].astype(str) if "system" in per_query.columns
              else pd.Series(systems[0], index=per_query.index))
    rows = []
    for name in systems:
        mine = per_query[(system == name).to_numpy()]
        for group, shown in labels[0].items():
            share = mine[shown].to_numpy(dtype=np.float64)
            gap = mine[labels[1][group]].to_numpy(dtype=np.float64)
            rows.append({"system": name, "group": group, "exposure": _mean(share),
                         "merit": _mean(share - gap), "gap": _mean(gap),
                         "n_queries": len(mine)})
    divergences = eager(ev.evaluate(
        [f"awrf@{k}", f"ndkl@{k}"], confidence_level=tests.confidence_level,
        n_resamples=tests.n_resamples, seed=tests.seed, **chosen,
    ))
    return Exposure(k, pd.DataFrame(rows), divergences)


def _mean(values: FloatArray) -> float:
    return float(values.mean()) if len(values) else math.nan

