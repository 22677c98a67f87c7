"""The answer's findings, from the report's tables and no other pass: the segments that go
against the overall change (or move while it does not) per system and metric
(``segment_answer``), and the first significant slice below the overall direction
(``slice_answer``). The page words them (``rankframe.report._html``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from rankframe.report._records import Against, FloatArray, Move, SliceAgainst, metric_label
from rankframe.settings.statistics import Tests
from rankframe.stats import corrections

#: the segments the answer names per system and metric; it counts the others
NAMED_SEGMENTS = 3


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


