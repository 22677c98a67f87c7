"""The answer, the report's first section. Its findings, from the report's tables and no
other pass: the segments that go against the overall change (or move while it does not)
per system and metric (``segment_answer``), and the first significant slice below the
overall direction (``slice_answer``). Its words (``Answer``, HTML a line per item, which
``rankframe.report._html`` lists and ``Report.answer`` gives as text): the metrics that
moved (``moves``), those segments and slices, what the data could detect when nothing
moved (compare()'s ``mde``), and the gates' verdict."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from rankframe.pipeline.analysis import MDE_POWER
from rankframe.report._cells import as_float, signed, window_labels
from rankframe.report._records import (
    Against,
    FloatArray,
    Move,
    ReportData,
    SliceAgainst,
    metric_label,
    metric_rows,
)
from rankframe.report._svg import esc
from rankframe.report.verdict import p_text, verdict
from rankframe.settings.statistics import Tests
from rankframe.stats import corrections

#: the segments the answer names per system and metric; it counts the others
NAMED_SEGMENTS = 3


def _labels(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """(system, metric label) of each row of a comparison."""
    return [
        (str(s), metric_label(m, k))
        for s, m, k in zip(
            frame["system"].tolist(), frame["metric"].tolist(), frame["k"].tolist(), strict=True
        )
    ]


def _floats(frame: pd.DataFrame, column: str) -> FloatArray:
    return np.asarray(frame[column].to_numpy(dtype=np.float64, na_value=np.nan))


def _directions(comparison: pd.DataFrame) -> dict[tuple[str, str], tuple[int, float]]:
    """(system, metric label) → the overall change's direction (1: significantly higher,
    -1: significantly lower, 0: neither) and its delta."""
    delta = _floats(comparison, "delta")
    significant = comparison["significant"].fillna(value=False).to_numpy(dtype=bool)
    sign = np.where(significant, np.sign(np.nan_to_num(delta)), 0).astype(int)
    return {
        key: (int(d), float(x)) for key, d, x in zip(_labels(comparison), sign, delta, strict=True)
    }


def segment_label(columns: Sequence[str], values: Sequence[Any]) -> str:
    """A segment as the answer names it: ``device=tablet & plan=free``; a missing value
    as ``(missing)``."""
    return " & ".join(
        f"{c}={'(missing)' if _missing(v) else v}" for c, v in zip(columns, values, strict=True)
    )


def _missing(value: Any) -> bool:
    return (
        value is None
        or value is pd.NA
        or value is pd.NaT
        or (isinstance(value, float) and math.isnan(value))
    )


def segment_answer(
    comparison: pd.DataFrame | None,
    segments: pd.DataFrame | None,
    by: Sequence[str],
    baseline: str | None,
    tests: Tests,
    *,
    reference: bool = False,
) -> tuple[list[Against], int]:
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
        named = (
            (adjusted < tests.alpha)
            & (sign != 0)
            & ((direction == 0) | (sign == -direction))
            & (segments["system"].astype(str).to_numpy() != baseline)
        )
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
            Move(
                segment_label(by, values.iloc[i].tolist()),
                float(delta[i]),
                float(low[i]),
                float(high[i]),
                float(adjusted[i]),
                int(counts[i]),
            )
            for i in rows[:NAMED_SEGMENTS]
        ]
        out.append(
            Against(
                key[0],
                key[1],
                d,
                overall_delta,
                named_rows,
                max(len(rows) - NAMED_SEGMENTS, 0),
                reference,
            )
        )
    return out, int(np.count_nonzero(~np.isnan(p)))


def slice_answer(
    slices: pd.DataFrame | None, comparison: pd.DataFrame | None
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
            key[0],
            key[1],
            Move(
                where[i],
                float(delta[i]),
                float(low[i]),
                float(high[i]),
                float(adjusted[i]),
                int(counts[i]),
            ),
            float(mean[i]),
            float(other[i]),
            paired,
            int(tested[i]),
        )
    return list(out.values())


# -- the answer's words --------------------------------------------------------------------


class Answer:
    """The answer in words (HTML), a line per item, from a report's records: per system
    the metrics that moved (``moves``), the segments and slices against that
    (``segment_answer``, ``slice_answer``), or what the data could detect when nothing
    moved; then the gates."""

    def __init__(self, data: ReportData) -> None:
        self.d = data
        self.s = data.settings

    def items(self) -> list[str]:
        """The verdict in words: per system against the baseline (or the last window
        against the previous one, or the reference frame) which metrics moved significantly
        and by how much, the segments and slices that go against that, or the smallest
        change the data could detect when nothing moved; then how many gates failed."""
        items = [*self._against_baseline(), *self._against_previous(), *self._against_reference()]
        if not items:  # one system: its means
            items.append(self._means())
        items += [self._slice(a) for a in self.d.slice_against]
        items += self._gates()
        return items

    def _against_baseline(self) -> list[str]:
        """Per system against the baseline: the metrics that moved, the segments against
        that, or what the paired queries could detect; then the segments' family."""
        c = self.d.comparison
        if c is None:
            return []
        items = []
        for system in self.s.systems:
            if system == self.s.baseline:
                continue
            rows = c[c["system"].astype(str) == system]
            items.append(
                moves(
                    f"<strong>{esc(system)}</strong> against the "
                    f"baseline <strong>{esc(self.s.baseline)}</strong>",
                    rows,
                    self.s.confidence_level,
                )
            )
            against = [a for a in self.d.against if a.system == system]
            items += [self._against(a) for a in against]
            if not against and not moved(rows):
                counts = (
                    rows["n_queries"].dropna()
                    if "n_queries" in rows.columns
                    else pd.Series([self.d.facts.queries])
                )
                items.append(
                    self._nothing_moved(  # the paired queries compared
                        rows,
                        int(counts.max()) if len(counts) else self.d.facts.queries,
                        segments=self.d.segment_comparison is not None,
                    )
                )
        if self.d.against:
            items.append(self._family(self.d.segment_tests, "the report"))
        return items

    def _against_previous(self) -> list[str]:
        """A trend of one system: its last window against the previous one (two samples)."""
        previous = self.d.previous
        if previous is None or "window" not in previous.columns or not len(previous):
            return []
        windows = window_labels(previous["window"])
        last = previous["window"].max()
        rows = previous[(previous["window"] == last).to_numpy()]
        label = windows[int(np.flatnonzero((previous["window"] == last).to_numpy())[0])]
        items = [
            moves(
                f"The window of <strong>{esc(label)}</strong> against the previous one",
                rows,
                self.s.confidence_level,
            )
        ]
        if not moved(rows):  # two samples (this window and the previous one)
            items.append(self._nothing_moved(rows, None))
        return items

    def _against_reference(self) -> list[str]:
        """Per system against the reference frame: the metrics that moved, the segments
        against that, or what the data could detect; then the segments' family."""
        r = self.d.reference_overall
        if r is None or not {"system", "delta"} <= set(r.columns):
            return []
        items = []
        for system in self.s.systems:
            rows = r[(r["system"].astype(str) == system).to_numpy()]
            if not len(rows):
                continue
            items.append(
                moves(
                    f"<strong>{esc(system)}</strong> against the reference frame",
                    rows,
                    self.s.confidence_level,
                )
            )
            against = [a for a in self.d.reference_against if a.system == system]
            items += [self._against(a) for a in against]
            if not against and not moved(rows):  # paired or two samples
                items.append(self._nothing_moved(rows, None, segments=bool(self.s.by)))
        if self.d.reference_against:
            items.append(
                self._family(self.d.reference_segment_tests, "the comparison with the reference")
            )
        return items

    def _means(self) -> str:
        """One system, nothing to compare with: its means and their intervals."""
        row = metric_rows(self.d.summary, self.s.metrics, [], self.s.systems[0])[0]
        means = "; ".join(
            f"{esc(m)} {row.means[m]:.4f}"
            + (
                f" [{row.lows[m]:.4f}, {row.highs[m]:.4f}]"
                if math.isfinite(row.lows[m]) and math.isfinite(row.highs[m])
                else ""
            )
            for m in self.s.metrics
        )
        return (
            f"<strong>{esc(row.system)}</strong> over "
            f"{self.d.facts.queries:,} queries: {means} "
            f"({self.s.confidence_level:.0%} intervals)."
        )

    def _gates(self) -> list[str]:
        """The gates' verdict (check()'s table), if the report has gates."""
        g = self.d.gates
        if g is None or "status" not in g.columns or "metric" not in g.columns:
            return []
        keys = [str(col) for col in g.columns[1 : list(g.columns).index("metric")]]
        # check()'s table: its column names are strings
        records = cast("list[dict[str, Any]]", g.to_dict("records"))
        line = verdict(records, keys, {"fail"})
        failed = sum(1 for r in records if r["status"] == "fail")
        return [
            f'<span class="{"down" if failed else "up"}">Gates:</span> '
            f'<span data-gates-failed="{failed}" data-gates="{len(records)}">'
            f"{esc(line)}</span>."
        ]

    def _family(self, tests: int, of: str) -> str:
        """What the segments' adjusted p-values are corrected over."""
        return (
            f'<span class="note">The segments\' adjusted p-values: '
            f"{esc(self.s.correction)} correction over the "
            f'<span data-segment-tests="{tests}">{tests:,} segment tests</span> of {of} '
            f"(every segment, system and metric); at most {NAMED_SEGMENTS} segments "
            "named per system and metric, the most significant first.</span>"
        )

    def _against(self, a: Against) -> str:
        """A system's segments against its overall change on one metric: "new on ndcg@10:
        higher overall (+0.0920), but lower in device=tablet (...)"."""
        overall = {
            1: '<span class="up">higher</span> overall',
            -1: '<span class="down">lower</span> overall',
        }.get(a.direction, "no significant change overall")
        prefix = "" if a.direction else "significantly "
        parts = [
            self._segment(
                a.system,
                a.metric,
                m,
                prefix,  # the direction when it turns
                word=i == 0 or (m.delta < 0) != (a.named[i - 1].delta < 0),
            )
            for i, m in enumerate(a.named)
        ]
        named = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        more = (
            f"; and {a.more:,} more segment{'s' if a.more > 1 else ''}: see the segment table"
            if a.more
            else ""
        )
        return (
            f'<span class="against" data-system="{esc(a.system)}" '
            f'data-metric="{esc(a.metric)}" data-direction="{a.direction}" '
            f'data-more="{a.more}" data-reference="{str(a.reference).lower()}">'
            f"<strong>{esc(a.system)}</strong> on <strong>{esc(a.metric)}</strong>"
            + (" against the reference frame" if a.reference else "")
            + f": {overall} ({signed(a.delta)}), but "
            f"{named}{more}.</span>"
        )

    def _segment(
        self,
        system: str,
        metric: str,
        m: Move,
        prefix: str,
        *,
        kind: str = "segment-move",
        details: str = "",
        word: bool = True,
    ) -> str:
        """A segment (or slice) the answer names, its numbers in ``data-`` attributes;
        ``word``: with its direction ("lower in")."""
        said = (
            (
                prefix
                + (
                    '<span class="down">lower</span>'
                    if m.delta < 0
                    else '<span class="up">higher</span>'
                )
                + " in "
            )
            if word
            else ""
        )
        interval = (
            f", {self.s.confidence_level:.0%} interval [{signed(m.ci_low)}, {signed(m.ci_high)}]"
            if math.isfinite(m.ci_low) and math.isfinite(m.ci_high)
            else ""
        )
        p = esc(p_text(m.p_adjusted))
        queries = f", {m.n_queries:,} queries" if m.n_queries >= 0 else ""
        return (
            f'<span class="{kind}" data-system="{esc(system)}" data-metric="{esc(metric)}" '
            f'data-segment="{esc(m.segment)}" data-delta="{esc(repr(m.delta))}" '
            f'data-ci-low="{esc(repr(m.ci_low))}" data-ci-high="{esc(repr(m.ci_high))}" '
            f'data-p-adjusted="{esc(repr(m.p_adjusted))}" data-n-queries="{m.n_queries}">'
            f"{said}<strong>{esc(m.segment)}</strong> ({signed(m.delta)}"
            f"{details}{interval}" + (f", adjusted p {p}" if p else "") + f"{queries})</span>"
        )

    def _slice(self, a: SliceAgainst) -> str:
        """The answer's slice of one system and metric (``report(slices=...)``)."""
        m = a.move
        other = (
            f" against the baseline's {a.other:.4f}"
            if a.paired
            else f": {a.mean:.4f} against {a.other:.4f} in the other queries"
        )
        shown = self._segment(
            a.system, a.metric, m, "significantly ", kind="slice-move", details=other
        )
        return (
            f"<strong>{esc(a.system)}</strong> on <strong>{esc(a.metric)}</strong>, "
            f"where it fails: {shown}; adjusted over the "
            f'<span data-n-tested="{a.n_tested}">{a.n_tested:,} slice tests</span> '
            "(see Where it fails)."
        )

    def _nothing_moved(
        self, rows: pd.DataFrame, queries: int | None, *, segments: bool = False
    ) -> str:
        """No significant change (``segments``: in any segment either): says so, with the
        smallest change the data (``queries``: these paired queries) could have detected
        per metric (compare()'s ``mde``)."""
        where = " in any segment" if segments else ""
        shown = []
        for row in rows.to_dict("records"):
            mde = as_float(row.get("mde"))
            if math.isnan(as_float(row.get("delta"))):
                continue
            label = metric_label(row["metric"], row["k"])
            value = f"&#177;{mde:.4f}" if math.isfinite(mde) else "none (no variation)"
            shown.append(
                f'<span class="mde" data-metric="{esc(label)}" '
                f'data-mde="{esc(repr(mde))}">{esc(label)} {value}</span>'
            )
        data = f"these {queries:,} queries" if queries is not None else "the data"
        level = 1 - self.s.confidence_level
        return (
            f'<span class="nothing-moved">Nothing moved: no significant change{where}.'
            f"</span> The smallest change {data} could detect ({MDE_POWER:.0%} power, "
            f"two-sided at {level:.2g}; compare()'s <code>mde</code>): "
            + (", ".join(shown) or "none")
            + "."
        )


def moved(rows: pd.DataFrame) -> bool:
    """Whether a metric of ``rows`` (compare()'s rows) changed significantly."""
    if "significant" not in rows.columns:
        return False
    return bool(rows["significant"].fillna(value=False).astype(bool).any())


def moves(head: str, rows: pd.DataFrame, confidence_level: float) -> str:
    """One line of the answer: which metrics of ``rows`` (compare()'s rows of one system or
    window) moved significantly, by how much, and which did not."""
    up: list[str] = []
    down: list[str] = []
    flat: list[str] = []
    for row in rows.to_dict("records"):
        delta = as_float(row.get("delta"))
        if math.isnan(delta):  # the baseline itself, or a first window
            continue
        label = metric_label(row["metric"], row["k"])
        relative = as_float(row.get("delta_relative"))
        low, high = as_float(row.get("ci_low")), as_float(row.get("ci_high"))
        p = row.get("p_adjusted")
        significant = bool(row.get("significant")) if not pd.isna(row.get("significant")) else False
        details = [signed(relative, True)] if math.isfinite(relative) else []
        if math.isfinite(low) and math.isfinite(high):
            details.append(f"{confidence_level:.0%} interval [{signed(low)}, {signed(high)}]")
        attrs = (
            f'class="move" data-metric="{esc(label)}" data-delta="{esc(repr(delta))}" '
            f'data-delta-relative="{esc(repr(relative))}" '
            f'data-p-adjusted="{esc(repr(as_float(p)))}" '
            f'data-significant="{str(significant).lower()}"'
        )
        if p_text(p):
            details.append(f"adjusted p {esc(p_text(p))}")
        text = (
            f"<span {attrs}><strong>{esc(label)}</strong> {signed(delta)}"
            + (f" ({'; '.join(details)})" if details else "")
            + "</span>"
        )
        (up if significant and delta > 0 else down if significant and delta < 0 else flat).append(
            text
        )
    parts = []
    if up:
        parts.append('<span class="up">significantly higher</span> on ' + ", ".join(up))
    if down:
        parts.append('<span class="down">significantly lower</span> on ' + ", ".join(down))
    if flat:
        parts.append("no significant change on " + ", ".join(flat))
    return f"{head}: " + "; ".join(parts or ["nothing to compare"]) + "."
