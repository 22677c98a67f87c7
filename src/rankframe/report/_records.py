"""What the report's renderer gets, typed: small dataclasses of plain Python values
(``Settings``, ``Facts``, ``MetricRow``, ``WinTieLoss``, ``Move``, ``Against``,
``SliceAgainst``, ``Curve``, ``Distribution``, ``Listed``, ``WorstQuery``, ``Provenance``,
``Exposure``, ``Judgments``) gathered in ``ReportData``, and the readers that pull them out
of result tables once (``eager``, ``metric_rows``, ``metric_label``, ``wtl_frame``). The numbers
themselves are made in ``rankframe.report._compute``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from rankframe.adapters import results

FloatArray = npt.NDArray[np.float64]


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
class Holes:
    """The holes of one top k: per system the unjudged share of its top k (``1 -
    judged@k``, the mean over every query; k ``None``: the whole list), and the report's
    metrics that read that top k and count its unjudged rows as non-relevant."""

    k: int | None
    metrics: list[str]
    share: dict[str, float]


@dataclass(frozen=True)
class Facts:
    """The data section: rows, queries, systems, queries without a relevant item, unjudged
    rows, per system the share of ranked rows whose score ties another's in the query, and
    the holes (``Holes``) of each top k that the metrics read."""

    rows: int
    queries: int
    systems: list[str]
    empty_queries: int
    unjudged_rows: int
    tied_share: dict[str, float]
    null_scores: dict[str, int] = field(default_factory=dict)  # per system (not retrieved)
    holes: list[Holes] = field(default_factory=list)


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
    judgments: Judgments | None = None  # the judgments section (a bound gold column)


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


@dataclass(frozen=True)
class Judgments:
    """The section on a judge checked against people (a bound ``gold`` column).
    ``judge`` and ``gold``: the two grade columns. ``coverage``: per top k of the holes
    (``Holes``: k, its metrics), per system the share of its top k that people graded
    (the mean over every query of ``judged@k`` read under people's grades). ``grades``:
    ``agreement().grades`` (kappa, alpha). ``bias``: ``agreement(metrics).bias``.
    ``means``: ``evaluate(metrics, by=..., estimate=e)`` for the judge alone, people
    alone and PPI++ over every query, one table (its ``estimate`` column); ``segments``
    the same per ``by`` segment (``None`` without ``by=``). ``metrics``: the metrics of
    ``bias`` and ``means`` (the report's metrics that are a mean of per-query values);
    ``refused``: why there are none (``empty=`` that pairs no values), else ``None``."""

    judge: str
    gold: str
    coverage: list[Holes]
    grades: pd.DataFrame
    bias: pd.DataFrame | None
    means: pd.DataFrame | None
    metrics: list[str]
    refused: str | None = None
    segments: pd.DataFrame | None = None  # the means per by= segment (report(by=...))


def eager(table: Any) -> pd.DataFrame:
    """A result table as a pandas frame (:func:`rankframe.adapters.results.as_pandas`)."""
    frame = results.as_pandas(table)
    if frame is not None:
        return frame
    msg = f"Expected a table from rank_eval; got {type(table).__name__}."
    raise TypeError(msg)


def metric_rows(
    frame: pd.DataFrame, metrics: Sequence[str], by: Sequence[str], default_system: str
) -> list[MetricRow]:
    """The rows of a means table (``evaluate``'s wide layout) as plain values."""
    n = len(frame)
    nan = np.full(n, np.nan)

    def floats(column: str) -> FloatArray:
        if column not in frame.columns:
            return nan
        return np.asarray(frame[column].to_numpy(dtype=np.float64, na_value=np.nan))

    systems = (
        [str(s) for s in frame["system"].tolist()]
        if "system" in frame.columns
        else [default_system] * n
    )
    keys = [[str(v) for v in frame[c].tolist()] for c in by]
    means = {m: floats(m) for m in metrics}
    lows = {m: floats(f"{m}_ci_low") for m in metrics}
    highs = {m: floats(f"{m}_ci_high") for m in metrics}
    counts = (
        frame["n_queries"].to_numpy(dtype=np.int64)
        if "n_queries" in frame.columns
        else np.full(n, -1, dtype=np.int64)
    )  # -1: not given (a table of with_tables)
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


def wtl_frame(rows: Sequence[WinTieLoss]) -> pd.DataFrame:
    """Win/tie/loss as a table: ``segment``, ``system``, ``metric``, ``wins``, ``ties``,
    ``losses``."""
    columns = ["segment", "system", "metric", "wins", "ties", "losses"]
    return pd.DataFrame(
        [(r.segment, r.system, r.metric, r.wins, r.ties, r.losses) for r in rows],
        columns=columns,
    )
