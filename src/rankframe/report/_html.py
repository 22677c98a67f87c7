"""The report as one self-contained HTML file: inline CSS, inline SVG charts, no script, no
request of any kind. Every user string (ids, column names, segment values, system names) goes
through ``rankframe.report._svg.esc``.

Numbers carry their exact value in ``data-value`` (``repr`` of the float) beside the shown
text (4 decimals), so that tests and tools read what ``evaluate()`` gave.
"""

from __future__ import annotations

import functools
import html
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from rankframe._version import __version__
from rankframe.pipeline.analysis import MDE_POWER
from rankframe.report import _svg
from rankframe.report._colours import system_colours
from rankframe.report._compute import (
    NAMED_SEGMENTS,
    Against,
    Distribution,
    MetricRow,
    Move,
    ReportData,
    SliceAgainst,
    metric_label,
    metric_rows,
    option_text,
)
from rankframe.report._svg import esc
from rankframe.report._tables import letters, marks
from rankframe.report.verdict import p_text, verdict

#: The segments drawn as small multiples of the trend (the largest first)
TREND_SEGMENTS = 6
#: The key columns of check()'s table that are not a segment or the system
_GATE_VALUES = ("rule", "metric", "k")

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1100px;padding:0 18px 40px;color:#222;background:#fff}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;
border-bottom:1px solid #ddd;padding-bottom:3px}h3{font-size:15px;margin:16px 0 6px}
nav a{margin-right:10px;color:#1f5fa8;text-decoration:none}
table{border-collapse:collapse;margin:6px 0 10px;font-variant-numeric:tabular-nums;
display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;white-space:nowrap}
.ci{color:#666;font-size:12px}.note{color:#555;font-size:13px}
sup{color:#b5179e;font-weight:600}.best{font-weight:700}
.charts{display:flex;flex-wrap:wrap;gap:10px}
svg.chart{border:1px solid #eee;background:#fff}
svg .grid{stroke:#eee}svg text{font:11px system-ui,sans-serif;fill:#333}
svg .yt{text-anchor:end}svg .xt{text-anchor:middle}svg .ct{font-weight:600}
svg .band{stroke-width:6;stroke-opacity:.25}
svg .area{fill-opacity:.15;stroke:none}
.pass{background:#e3f4e3}.fail{background:#fbe0e0}.uncertain{background:#fff4d6}
.too-few-queries,.no-baseline{background:#eeeeee}.status{font-weight:600}
.up{color:#1a7f37}.down{color:#c62828}
.rel{background:#e3f4e3}code{background:#f4f4f4;padding:0 3px}
.answer{border-left:4px solid #1f5fa8;background:#f6f9fd;padding:6px 14px;margin:8px 0}
.answer li{margin:4px 0}.meta{color:#555;font-size:13px;margin:0 0 6px}
.rule{white-space:nowrap;font-family:ui-monospace,monospace}
td.status.pass{color:#1a7f37}td.status.fail{color:#c62828}td.status.uncertain{color:#8a6100}
details{margin:6px 0}summary{cursor:pointer}
"""



def _scoped(css: str, scope: str) -> str:
    """Every rule of ``css`` applies only inside ``scope`` (``body`` is the scope itself):
    the same styles in a saved page and in a notebook cell, which they leave alone."""
    rules = []
    for rule in css.replace("\n", "").split("}"):
        if "{" not in rule:
            continue
        selectors, declarations = rule.split("{", 1)
        scoped = [scope if s.strip() == "body" else f"{scope} {s.strip()}"
                  for s in selectors.split(",")]
        rules.append(f"{','.join(scoped)}{{{declarations}}}")
    return "\n".join(rules)


CSS = _scoped(_CSS, ".rankframe-report")

SECTIONS = (("answer", "The answer"), ("data", "The data"), ("summary", "Summary"),
            ("segments", "By segment"),
            ("trend", "Trend"), ("gates", "Gates"), ("reference", "Reference"),
            ("slices", "Where it fails"), ("fairness", "Exposure of item groups"),
            ("curves", "Metric@k"), ("distributions", "Distributions"),
            ("wtl", "Win / tie / loss"), ("worst", "Worst queries"), ("about", "About"))


def _float(value: Any) -> float:
    """A cell's number (None, NaN and pandas' NA as NaN)."""
    return float(value) if value is not None and not pd.isna(value) else math.nan


def _num(value: Any, *, metric: str = "", system: str = "", segment: str = "",
         kind: str = "mean", digits: int = 4, extra: str = "", attrs: str = "") -> str:
    """A number cell with its exact value in ``data-value``."""
    v = _float(value)
    text = "" if math.isnan(v) else f"{v:.{digits}f}"
    return (f'<td class="num" data-kind="{esc(kind)}" data-metric="{esc(metric)}" '
            f'data-system="{esc(system)}" data-segment="{esc(segment)}" '
            f'data-value="{esc(repr(v))}"{attrs}>{text}{extra}</td>')


def _p_cell(value: Any, *, kind: str, metric: str = "", system: str = "",
            segment: str = "") -> str:
    """A p-value's cell: as :func:`p_text` writes it, its exact value in ``data-value``."""
    return (f'<td class="num" data-kind="{esc(kind)}" data-metric="{esc(metric)}" '
            f'data-system="{esc(system)}" data-segment="{esc(segment)}" '
            f'data-value="{esc(repr(_float(value)))}">{esc(p_text(value))}</td>')


def _status_class(status: str) -> str:
    """The CSS class of a gate's status (``"too few queries"``: ``too-few-queries``)."""
    return re.sub(r"[^a-z0-9]+", "-", status.lower()).strip("-") or "other"


def window_labels(column: pd.Series) -> list[str]:
    """Window starts as text: the date alone when every start is at midnight, else the
    date and the time (minutes); any other column as its values' text."""
    if not pd.api.types.is_datetime64_any_dtype(column):
        return [str(v) for v in column.tolist()]
    stamps = pd.DatetimeIndex(column)
    midnight = bool(((stamps.hour == 0) & (stamps.minute == 0) & (stamps.second == 0)
                     & (stamps.microsecond == 0) | stamps.isna()).all())
    fmt = "%Y-%m-%d" if midnight else "%Y-%m-%d %H:%M"
    return ["" if pd.isna(t) else t.strftime(fmt) for t in stamps]


def _zone(column: pd.Series) -> str:
    """The zone of a column of zone-aware datetimes, else ``""``."""
    tz = getattr(getattr(column, "dt", None), "tz", None) if \
        pd.api.types.is_datetime64_any_dtype(column) else None
    return "" if tz is None else str(tz)


def _interval(low: float, high: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return ""
    return f'<br><span class="ci">[{low:.4f}, {high:.4f}]</span>'


def _systems(frame: pd.DataFrame, default: str) -> list[str]:
    if "system" in frame.columns:
        return [str(s) for s in frame["system"].tolist()]
    return [default] * len(frame)


def _generic(frame: pd.DataFrame, kind: str) -> str:
    """Any result table, every cell escaped; numbers with 4 decimals; a ``status`` cell
    gets its class (pass, fail, uncertain)."""
    head = "".join(f"<th>{esc(c)}</th>" for c in frame.columns)
    rows: list[str] = []
    for record in frame.itertuples(index=False, name=None):
        cells = []
        for column, value in zip(frame.columns, record, strict=True):
            if isinstance(value, float) and not isinstance(value, bool):
                cells.append(_num(value, kind=f"{kind}:{column}"))
            elif str(column) == "status":
                status = str(value)
                cells.append(f'<td class="status {_status_class(status)}" '
                             f'data-status="{esc(status)}">{esc(status)}</td>')
            else:
                shown = "" if value is None or value is pd.NA or value is pd.NaT else value
                cells.append(f'<td data-kind="{esc(kind)}:{esc(column)}">{esc(shown)}</td>')
        rows.append(f'<tr data-row="{len(rows)}">' + "".join(cells) + "</tr>")
    return f'<table class="{esc(kind)}"><tr>{head}</tr>{"".join(rows)}</table>'


class _Writer:
    def __init__(self, data: ReportData, title: str) -> None:
        self.d = data
        self.title = title
        self.s = data.settings
        self.marks = marks(data.comparison) if data.comparison is not None else {}
        if data.segment_comparison is not None:
            self.marks.update(marks(data.segment_comparison))
        self.letter = letters(self.s.systems)
        self.colours = system_colours(self.s.systems, self.s.baseline)

    # -- sections --------------------------------------------------------------------

    def answer(self) -> str:
        """The verdict in words (:meth:`answer_items`), as a list."""
        body = "".join(f"<li>{item}</li>" for item in self.answer_items())
        return f'<div class="answer"><ul>{body}</ul></div>'

    def answer_items(self) -> list[str]:
        """The verdict in words: per system against the baseline (or the last window
        against the previous one, or the reference frame) which metrics moved significantly
        and by how much, the segments and slices that go against that, or the smallest
        change the data could detect when nothing moved; then how many gates failed."""
        items = []
        c = self.d.comparison
        if c is not None:
            for system in self.s.systems:
                if system != self.s.baseline:
                    rows = c[c["system"].astype(str) == system]
                    items.append(_moves(f"<strong>{esc(system)}</strong> against the "
                                        f"baseline <strong>{esc(self.s.baseline)}</strong>",
                                        rows, self.s.confidence_level))
                    against = [a for a in self.d.against if a.system == system]
                    items += [self._against(a) for a in against]
                    if not against and not _moved(rows):
                        counts = rows["n_queries"].dropna() if "n_queries" in rows.columns \
                            else pd.Series([self.d.facts.queries])
                        items.append(self._nothing_moved(  # the paired queries compared
                            rows, int(counts.max()) if len(counts) else self.d.facts.queries,
                            segments=self.d.segment_comparison is not None))
            if self.d.against:
                items.append(self._family(self.d.segment_tests, "the report"))
        previous = self.d.previous
        if previous is not None and "window" in previous.columns and len(previous):
            windows = window_labels(previous["window"])
            last = previous["window"].max()
            rows = previous[(previous["window"] == last).to_numpy()]
            label = windows[int(np.flatnonzero((previous["window"] == last).to_numpy())[0])]
            items.append(_moves(f"The window of <strong>{esc(label)}</strong> against the "
                                "previous one", rows, self.s.confidence_level))
            if not _moved(rows):  # two samples (this window and the previous one)
                items.append(self._nothing_moved(rows, None))
        r = self.d.reference_overall
        if r is not None and {"system", "delta"} <= set(r.columns):
            for system in self.s.systems:
                rows = r[(r["system"].astype(str) == system).to_numpy()]
                if not len(rows):
                    continue
                items.append(_moves(f"<strong>{esc(system)}</strong> against the reference "
                                    "frame", rows, self.s.confidence_level))
                against = [a for a in self.d.reference_against if a.system == system]
                items += [self._against(a) for a in against]
                if not against and not _moved(rows):  # paired or two samples
                    items.append(self._nothing_moved(rows, None, segments=bool(self.s.by)))
            if self.d.reference_against:
                items.append(self._family(self.d.reference_segment_tests,
                                          "the comparison with the reference"))
        if not items:  # one system: its means
            row = metric_rows(self.d.summary, self.s.metrics, [], self.s.systems[0])[0]
            means = "; ".join(
                f"{esc(m)} {row.means[m]:.4f}" + (
                    f" [{row.lows[m]:.4f}, {row.highs[m]:.4f}]"
                    if math.isfinite(row.lows[m]) and math.isfinite(row.highs[m]) else "")
                for m in self.s.metrics)
            items.append(f"<strong>{esc(row.system)}</strong> over "
                         f"{self.d.facts.queries:,} queries: {means} "
                         f"({self.s.confidence_level:.0%} intervals).")
        items += [self._slice(a) for a in self.d.slice_against]
        g = self.d.gates
        if g is not None and "status" in g.columns and "metric" in g.columns:
            keys = [str(col) for col in g.columns[1: list(g.columns).index("metric")]]
            rows = g.to_dict("records")
            line = verdict(rows, keys, {"fail"})
            failed = sum(1 for r in rows if r["status"] == "fail")
            items.append(f'<span class="{"down" if failed else "up"}">Gates:</span> '
                         f'<span data-gates-failed="{failed}" data-gates="{len(rows)}">'
                         f"{esc(line)}</span>.")
        return items

    def _family(self, tests: int, of: str) -> str:
        """What the segments' adjusted p-values are corrected over."""
        return (f'<span class="note">The segments\' adjusted p-values: '
                f"{esc(self.s.correction)} correction over the "
                f'<span data-segment-tests="{tests}">{tests:,} segment tests</span> of {of} '
                f"(every segment, system and metric); at most {NAMED_SEGMENTS} segments "
                "named per system and metric, the most significant first.</span>")

    def _against(self, a: Against) -> str:
        """A system's segments against its overall change on one metric: "new on ndcg@10:
        higher overall (+0.0920), but lower in device=tablet (...)"."""
        overall = {1: '<span class="up">higher</span> overall',
                   -1: '<span class="down">lower</span> overall'}.get(
                       a.direction, "no significant change overall")
        prefix = "" if a.direction else "significantly "
        parts = [self._segment(a.system, a.metric, m, prefix,  # the direction when it turns
                               word=i == 0 or (m.delta < 0) != (a.named[i - 1].delta < 0))
                 for i, m in enumerate(a.named)]
        named = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        more = (f"; and {a.more:,} more segment{'s' if a.more > 1 else ''}: see the segment "
                "table" if a.more else "")
        return (f'<span class="against" data-system="{esc(a.system)}" '
                f'data-metric="{esc(a.metric)}" data-direction="{a.direction}" '
                f'data-more="{a.more}" data-reference="{str(a.reference).lower()}">'
                f"<strong>{esc(a.system)}</strong> on <strong>{esc(a.metric)}</strong>"
                + (" against the reference frame" if a.reference else "")
                + f": {overall} ({_signed(a.delta)}), but "
                f"{named}{more}.</span>")

    def _segment(self, system: str, metric: str, m: Move, prefix: str, *,
                 kind: str = "segment-move", details: str = "", word: bool = True) -> str:
        """A segment (or slice) the answer names, its numbers in ``data-`` attributes;
        ``word``: with its direction ("lower in")."""
        said = (prefix + ('<span class="down">lower</span>' if m.delta < 0
                          else '<span class="up">higher</span>') + " in ") if word else ""
        interval = (f", {self.s.confidence_level:.0%} interval [{_signed(m.ci_low)}, "
                    f"{_signed(m.ci_high)}]"
                    if math.isfinite(m.ci_low) and math.isfinite(m.ci_high) else "")
        p = esc(p_text(m.p_adjusted))
        queries = f", {m.n_queries:,} queries" if m.n_queries >= 0 else ""
        return (f'<span class="{kind}" data-system="{esc(system)}" data-metric="{esc(metric)}" '
                f'data-segment="{esc(m.segment)}" data-delta="{esc(repr(m.delta))}" '
                f'data-ci-low="{esc(repr(m.ci_low))}" data-ci-high="{esc(repr(m.ci_high))}" '
                f'data-p-adjusted="{esc(repr(m.p_adjusted))}" data-n-queries="{m.n_queries}">'
                f"{said}<strong>{esc(m.segment)}</strong> ({_signed(m.delta)}"
                f"{details}{interval}" + (f", adjusted p {p}" if p else "")
                + f"{queries})</span>")

    def _slice(self, a: SliceAgainst) -> str:
        """The answer's slice of one system and metric (``report(slices=...)``)."""
        m = a.move
        other = (f" against the baseline's {a.other:.4f}" if a.paired else
                 f": {a.mean:.4f} against {a.other:.4f} in the other queries")
        shown = self._segment(a.system, a.metric, m, "significantly ", kind="slice-move",
                              details=other)
        return (f"<strong>{esc(a.system)}</strong> on <strong>{esc(a.metric)}</strong>, "
                f"where it fails: {shown}; adjusted over the "
                f'<span data-n-tested="{a.n_tested}">{a.n_tested:,} slice tests</span> '
                "(see Where it fails).")

    def _nothing_moved(self, rows: pd.DataFrame, queries: int | None, *,
                       segments: bool = False) -> str:
        """No significant change (``segments``: in any segment either): says so, with the
        smallest change the data (``queries``: these paired queries) could have detected
        per metric (compare()'s ``mde``)."""
        where = " in any segment" if segments else ""
        shown = []
        for row in rows.to_dict("records"):
            mde = _float(row.get("mde"))
            if math.isnan(_float(row.get("delta"))):
                continue
            label = metric_label(row["metric"], row["k"])
            value = f"&#177;{mde:.4f}" if math.isfinite(mde) else "none (no variation)"
            shown.append(f'<span class="mde" data-metric="{esc(label)}" '
                         f'data-mde="{esc(repr(mde))}">{esc(label)} {value}</span>')
        data = f"these {queries:,} queries" if queries is not None else "the data"
        level = 1 - self.s.confidence_level
        return (f'<span class="nothing-moved">Nothing moved: no significant change{where}.'
                f"</span> The smallest change {data} could detect ({MDE_POWER:.0%} power, "
                f"two-sided at {level:.2g}; compare()'s <code>mde</code>): "
                + (", ".join(shown) or "none") + ".")

    def data(self) -> str:
        f = self.d.facts
        ties = ", ".join(f"{esc(s)}: {share:.1%}" for s, share in f.tied_share.items())
        nulls = ", ".join(
            f'<span data-null-scores="{n}" data-system="{esc(s)}">{esc(s)}: {n:,}'
            + (f" ({n / f.rows:.1%} of the rows)" if n and f.rows else "") + "</span>"
            for s, n in f.null_scores.items())
        rows = [("rows", f"{f.rows:,}"), ("queries", f"{f.queries:,}"),
                ("systems", ", ".join(esc(s) for s in f.systems)),
                ("queries without a relevant item", f"{f.empty_queries:,}"),
                ("unjudged rows", f"{f.unjudged_rows:,}"),
                ("ranked rows with a tied score (per system)", ties),
                ("null scores, not retrieved (per system)", nulls)]
        body = "".join(f'<tr><th>{esc(k)}</th><td data-fact="{esc(k)}">{v}</td></tr>'
                       for k, v in rows)
        return f'<table class="facts">{body}</table>'

    def _metric_table(self, rows: Sequence[MetricRow], segment_columns: list[str], *,
                      kind: str = "mean", metrics: Sequence[str] | None = None) -> str:
        """Means with their intervals, a row per (segment, system); ``kind="mean"`` with
        the summary's significance marks."""
        metrics = self.s.metrics if metrics is None else list(metrics)
        marked = kind == "mean"
        head = "".join(f"<th>{esc(c)}</th>" for c in segment_columns)
        head += "<th>system</th>" + "".join(f"<th>{esc(m)}</th>" for m in metrics)
        head += "<th>queries</th>"
        body = []
        for row in rows:
            system, key = row.system, row.segment
            segment = " / ".join(key)
            letter = self.letter.get(system, "")
            cells = [f"<td>{esc(v)}</td>" for v in key]
            name = esc(system) + (f" ({letter})" if len(self.s.systems) > 1 else "")
            cells.append(f"<td>{name}</td>")
            for m in metrics:
                mark = self.marks.get((key, system, m), "") if marked else ""
                sup = f"<sup>{esc(mark)}</sup>" if mark else ""
                extra = sup + _interval(row.lows[m], row.highs[m])
                bounds = (f' data-ci-low="{esc(repr(row.lows[m]))}" '
                          f'data-ci-high="{esc(repr(row.highs[m]))}"')
                cells.append(_num(row.means[m], metric=m, system=system, segment=segment,
                                  kind=kind, extra=extra, attrs=bounds))
            count = f"{row.n_queries:,}" if row.n_queries >= 0 else ""
            queries = "n_queries" if marked else f"{kind}:n_queries"
            cells.append(f'<td class="num" data-kind="{queries}" data-system="{esc(system)}" '
                         f'data-segment="{esc(segment)}">{count}</td>')
            body.append("<tr>" + "".join(cells) + "</tr>")
        return f'<table class="metrics"><tr>{head}</tr>{"".join(body)}</table>'

    def summary(self) -> str:
        kind = ("Student-t intervals" if self.s.test == "t-test" else
                f"percentile bootstrap intervals ({self.s.n_resamples:,} resamples, seed "
                f"{esc(self.s.seed)})")
        note = f"Means over queries with {self.s.confidence_level:.0%} {kind}."
        if self.d.comparison is not None:
            note += (f" A superscript letter: significantly better than the system of that "
                     f"letter ({esc(self.s.test)} against the baseline "
                     f"{esc(self.s.baseline)}, {esc(self.s.correction)} correction, "
                     f"adjusted p &lt; {self.s.alpha}).")
        rows = metric_rows(self.d.summary, self.s.metrics, [], self.s.systems[0])
        table = f'<p class="note">{note}</p>' + self._metric_table(rows, [])
        if self.d.comparison is None:
            return table
        return table + (
            f"<h3>Against the baseline {esc(self.s.baseline)}</h3>"
            f'<p class="note">The change of each mean: absolute (<em>delta</em>) and '
            f"relative to the baseline's mean, the {self._intervals()} of the absolute "
            f"change (compare()'s), and its p-value after the {esc(self.s.correction)} "
            "correction.</p>"
            + _changes(self.d.comparison, self.s.baseline))

    def segments(self) -> str:
        if self.d.segments is None:
            return ""
        rows = metric_rows(self.d.segments, self.s.metrics, self.s.by, self.s.systems[0])
        return ('<p class="note">The same per segment; <em>queries</em> is the segment\'s '
                "size.</p>" + self._metric_table(rows, self.s.by))

    def trend(self) -> str:
        t = self.d.trend
        if t is None or "window" not in t.columns:
            return ""
        t = t.copy()
        zone = _zone(t["window"])
        t["window"] = window_labels(t["window"])
        windows = list(dict.fromkeys(t["window"]))
        metrics = [m for m in self.s.metrics if m in t.columns] or [
            str(c) for c in t.columns
            if c not in ("window", "system", "n_queries") and not str(c).endswith(
                ("_ci_low", "_ci_high")) and pd.api.types.is_numeric_dtype(t[c])]
        rows = metric_rows(t, metrics, ["window"], self.s.systems[0])
        systems = list(dict.fromkeys(r.system for r in rows))
        at = {w: i for i, w in enumerate(windows)}
        charts = []
        x_title = "window start" + (f" ({zone})" if zone else "")
        for m in metrics:
            series = {s: [math.nan] * len(windows) for s in systems}
            lows = {s: [math.nan] * len(windows) for s in systems}
            highs = {s: [math.nan] * len(windows) for s in systems}
            for r in rows:
                i = at[r.segment[0]]
                series[r.system][i] = r.means[m]
                lows[r.system][i], highs[r.system][i] = r.lows[m], r.highs[m]
            bands = {s: (lows[s], highs[s]) for s in systems}
            charts.append(_svg.line_chart(f"{m} by window", windows, series, bands, x_title,
                                          fit=True, colours=self.colours))
        every = (f" of <code>every={esc(repr(self.s.every))}</code>"
                 if self.s.every is not None else "")
        time = self.s.columns.get("time")
        source = (f" by the time column <code>{esc(time)}</code> (a query's time is its "
                  "earliest row's)" if time else "")
        note = (f'<p class="note">Every query\'s means per window{every}{source}, each with '
                f"its {self._intervals()} (the shaded band, drawn whole: a Student-t interval "
                "of a bounded metric may pass its bound); windows without queries have no "
                "point. Each chart's axis is scaled to its values and bands.</p>")
        return (note + f'<div class="charts">{"".join(charts)}</div>'
                + self._segment_trends(metrics, windows, x_title)
                + self._metric_table(rows, ["window"], kind="trend", metrics=metrics))

    def _segment_trends(self, metrics: Sequence[str], windows: list[str], x_title: str) -> str:
        """The trend per ``by`` segment: one small chart per (metric, segment), the
        :data:`TREND_SEGMENTS` largest segments (by queries over every window) first."""
        t = self.d.segment_trend
        by = self.s.by
        if t is None or not by or "window" not in t.columns:
            return ""
        t = t.copy()
        t["window"] = window_labels(t["window"])
        rows = metric_rows(t, metrics, [*by, "window"], self.s.systems[0])
        sizes: dict[tuple[str, ...], int] = {}
        for r in rows:
            if r.system == rows[0].system:
                sizes[r.segment[:-1]] = sizes.get(r.segment[:-1], 0) + max(r.n_queries, 0)
        shown = sorted(sizes, key=lambda key: -sizes[key])[:TREND_SEGMENTS]
        systems = list(dict.fromkeys(r.system for r in rows))
        at = {w: i for i, w in enumerate(windows)}
        charts = []
        for m in metrics:
            for key in shown:
                series = {s: [math.nan] * len(windows) for s in systems}
                lows = {s: [math.nan] * len(windows) for s in systems}
                highs = {s: [math.nan] * len(windows) for s in systems}
                for r in rows:
                    if r.segment[:-1] == key and r.segment[-1] in at:
                        i = at[r.segment[-1]]
                        series[r.system][i] = r.means[m]
                        lows[r.system][i], highs[r.system][i] = r.lows[m], r.highs[m]
                label = ", ".join(f"{b}={v}" for b, v in zip(by, key, strict=True))
                bands = {s: (lows[s], highs[s]) for s in systems}
                charts.append(_svg.line_chart(f"{m}: {label}", windows, series, bands,
                                              x_title, fit=True, colours=self.colours))
        cap = (f"the {len(shown)} largest of {len(sizes)} segments (by queries), "
               if len(sizes) > len(shown) else f"each of the {len(sizes)} segments, ")
        return (f"<h3>By segment</h3><p class=\"note\">The same per segment: {cap}each "
                "chart on its own scale.</p>"
                f'<div class="charts segments">{"".join(charts)}</div>')

    def _intervals(self) -> str:
        """The summary's and the trend's intervals, in words."""
        if self.s.test == "t-test":
            return f"{self.s.confidence_level:.0%} Student-t interval"
        return (f"{self.s.confidence_level:.0%} percentile bootstrap interval "
                f"({self.s.n_resamples:,} resamples, seed {esc(self.s.seed)})")

    def gates(self) -> str:
        g = self.d.gates
        if g is None:
            return ""
        statuses = [str(v) for v in g["status"].tolist()] if "status" in g.columns else []
        counts = {s: statuses.count(s) for s in dict.fromkeys(statuses)}
        tally = ", ".join(f'<span class="status {_status_class(k)}">{esc(k)}</span>: {v}'
                          for k, v in counts.items())
        against = ("the reference frame" if self.d.reference is not None else
                   f"the baseline {esc(self.s.baseline)}" if self.s.baseline else "a baseline")
        keys = ([str(c) for c in g.columns[1: list(g.columns).index("metric")]]
                if "metric" in g.columns else [])
        failed = sum(1 for v in statuses if v == "fail")
        head = (f'<p class="verdict"><strong class="{"down" if failed else "up"}">'
                f"{failed} of {len(statuses)} rules failed</strong> ({tally})</p>")
        note = ('<p class="note">Each rule per system and segment over every query: '
                "an absolute rule passes when its whole interval lies on the right side of "
                "the bound, fails when it lies on the wrong side and is uncertain otherwise; "
                f"a drop rule compares with {against} and fails on a significant decrease "
                "beyond its tolerance, its change, interval and bound in the rule's own unit "
                "(a percentage rule: relative to the baseline's mean); a segment with too "
                "few queries is neither.</p>")
        return head + note + _gates_table(g, keys)

    def reference(self) -> str:
        r = self.d.reference
        if r is None:
            return ""
        if "system" not in r.columns or "reference_mean" not in r.columns:
            return _generic(r, "reference")
        return _reference_note(self.s.test) + _reference_table(r)

    def slices(self) -> str:
        """slices()'s table: the worst slices per system and metric, significant marked."""
        t = self.d.slices
        if t is None:
            return ""
        return _slices_note(t, self.s.correction, self.s.confidence_level) + _slices_table(t)

    def fairness(self) -> str:
        """Per system and item group, exposure share against relevance share; awrf, ndkl."""
        e = self.d.exposure
        if e is None:
            return ""
        browsing = self.s.options.get("browsing") or "log"
        labels = [str(c) for c in e.divergences.columns
                  if str(c) not in ("system", "n_queries")
                  and not str(c).endswith(("_ci_low", "_ci_high"))]
        rows = metric_rows(e.divergences, labels, [], self.s.systems[0])
        return (_exposure_note(e.k, str(browsing), self.s.confidence_level)
                + _exposure_table(e.shares)
                + self._metric_table(rows, [], kind="fairness", metrics=labels))

    def curves(self) -> str:
        charts = [
            _svg.line_chart(f"{c.metric}@k", [str(k) for k in c.ks], c.means, x_title="k",
                            colours=self.colours)
            for c in self.d.curves
        ]
        return f'<div class="charts">{"".join(charts)}</div>' if charts else ""

    def distributions(self) -> str:
        charts = []
        by_metric: dict[str, list[Distribution]] = {}
        for entry in self.d.distributions:
            by_metric.setdefault(entry.metric, []).append(entry)
        for metric, entries in by_metric.items():
            edges = entries[0].edges
            counts = {e.system: e.counts for e in entries}
            quartiles = {e.system: e.quartiles for e in entries}
            charts.append(_svg.histogram(f"{metric} per query", edges, counts, quartiles,
                                         colours=self.colours))
        note = ('<p class="note">Share of queries per bin of the per-query value; under it, '
                "each system's quartiles (box) and range (line).</p>")
        return note + f'<div class="charts">{"".join(charts)}</div>'

    def wtl(self) -> str:
        w = self.d.wtl
        if not w:
            return ('<p class="note">One system: nothing to compare with a baseline.</p>'
                    if len(self.s.systems) < 2 else "")
        labels = self.d.segment_labels
        head = ("<tr><th>segment</th><th>system</th><th>metric</th><th>wins</th>"
                "<th>ties</th><th>losses</th><th></th></tr>")
        body = []
        for row in w:
            segment = "all" if row.segment < 0 else labels[row.segment]
            attrs = (f'data-system="{esc(row.system)}" data-metric="{esc(row.metric)}" '
                     f'data-segment="{esc(segment)}"')
            body.append(
                f"<tr {attrs}><td>{esc(segment)}</td><td>{esc(row.system)}</td>"
                f"<td>{esc(row.metric)}</td><td class=\"num\" data-kind=\"wins\">{row.wins}"
                f"</td><td class=\"num\" data-kind=\"ties\">{row.ties}</td>"
                f"<td class=\"num\" data-kind=\"losses\">{row.losses}</td>"
                f"<td>{_svg.stacked_bar(row.wins, row.ties, row.losses)}</td></tr>"
            )
        note = (f'<p class="note">Queries where each system is above (wins), equal to (ties) '
                f"or below (losses) the baseline {esc(self.s.baseline)}.</p>")
        return note + f'<table class="wtl">{head}{"".join(body)}</table>'

    def worst(self) -> str:
        if not self.d.worst:
            return ""
        parts = [f'<p class="note">The {len(self.d.worst)} largest losses against the '
                 f"baseline {esc(self.s.baseline)} on {esc(self.s.metrics[0])}, with the top "
                 f"{self.s.top_k} of each list (grade &gt; 0 shaded).</p>"]
        for entry in self.d.worst:
            lists = []
            for system, items in entry.lists.items():
                rows = "".join(
                    f'<tr class="{"rel" if x.positive else ""}"><td>{i + 1}</td>'
                    f"<td>{esc(_short(x.item))}</td><td>{esc(x.score)}</td>"
                    f"<td>{esc(x.grade)}</td></tr>"
                    for i, x in enumerate(items)
                )
                lists.append(f"<table><tr><th colspan=\"4\">{esc(system)}</th></tr><tr>"
                             f"<th>rank</th><th>item</th><th>score</th><th>grade</th></tr>"
                             f"{rows}</table>")
            opened = " open" if len(parts) == 1 else ""
            parts.append(
                f"<details{opened}><summary><strong>query {esc(_short(entry.query))}</strong>: "
                f"{esc(entry.system)} {entry.value:.4f} vs {entry.baseline_value:.4f}"
                f'</summary><div class="charts">{"".join(lists)}</div></details>'
            )
        return "".join(parts)

    def about(self) -> str:
        s = self.s
        options = ", ".join(f"{esc(k)}={esc(_short(option_text(k, v)))}"
                            for k, v in s.options.items()) or \
            "defaults (trec_eval's conventions)"
        columns = ", ".join(f"{esc(k)}: <code>{esc(v)}</code>" for k, v in s.columns.items())
        rows = [
            ("metrics", ", ".join(esc(m) for m in s.metrics)),
            ("segments (by)", ", ".join(esc(b) for b in s.by) or "none"),
            ("systems (score columns)", ", ".join(esc(x) for x in s.systems)),
            ("baseline", esc(s.baseline) if s.baseline is not None else "none"),
            ("time windows", f"every={esc(repr(s.every))} of the time column "
             f"<code>{esc(s.columns.get('time', ''))}</code>; a query's time is its earliest "
             "row's" if s.every is not None else "none"),
            ("columns", columns),
            ("metric options", options),
            ("test", f"{esc(s.test)}, {esc(s.correction)} correction, alpha {s.alpha}"),
            ("intervals", f"{s.confidence_level:.0%} Student-t" if s.test == "t-test" else
             f"{s.confidence_level:.0%} percentile bootstrap, {s.n_resamples:,} resamples, "
             f"seed {esc(s.seed)}"),
            ("conventions", "ties broken as trec_eval does unless <code>ties=</code> says "
                            "otherwise; queries without a relevant item count 0 unless "
                            "<code>empty=</code> says otherwise; see rankframe's "
                            "docs/conventions.md"),
            ("rankframe", esc(__version__)),
        ]
        body = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in rows)
        return f'<table class="about">{body}</table>'

    # -- the page --------------------------------------------------------------------

    def meta(self) -> str:
        """Under the title: when, by which rankframe, of which data."""
        a = self.d.about
        if a is None:
            return ""
        parts = [f'generated <time data-generated="{esc(a.generated)}">{esc(a.generated)}'
                 f"</time> by rankframe {esc(__version__)}"]
        if a.name is not None:
            parts.append(f'data: <strong data-name="{esc(a.name)}">{esc(a.name)}</strong>')
        if a.rows is not None and a.queries is not None:
            parts.append(f"{a.rows:,} rows, {a.queries:,} queries")
        if a.digest is not None:
            parts.append(f'fingerprint <code data-fingerprint="{esc(a.digest)}" '
                         f'title="{esc(a.digest)}">{esc(a.digest[:12])}</code>')
        return f'<p class="meta">{" · ".join(parts)}</p>'

    def body(self) -> str:
        """The report inside its ``<div>`` with its styles (a notebook cell shows this)."""
        sections = []
        for key, heading in SECTIONS:
            content = getattr(self, key)()
            if content:
                sections.append((key, heading, content))
        nav = "".join(f'<a href="#{k}">{esc(h)}</a>' for k, h, _ in sections)
        body = "".join(f'<section id="{k}"><h2>{esc(h)}</h2>{c}</section>'
                       for k, h, c in sections)
        return (
            f'<div class="rankframe-report"><style>{CSS}</style>'
            f"<header><h1>{esc(self.title)}</h1>{self.meta()}<nav>{nav}</nav></header>"
            f"{body}</div>"
        )

    def page(self) -> str:
        """The whole file."""
        return (
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(self.title)}</title></head><body>{self.body()}</body></html>\n"
        )


_TWO_SAMPLE = {"t-test": "Welch's t-test", "permutation": "a two-sample permutation test",
               "wilcoxon": "the Mann-Whitney U test"}


def _reference_note(test: str) -> str:
    two = _TWO_SAMPLE.get(test, "its two-sample form")
    return ('<p class="note">Each system against the same score column of the reference frame '
            "(<em>reference</em>: its mean there). <em>paired</em> where both frames hold the "
            f"same query ids ({esc(test)} on the per-query differences; wins, ties and losses "
            f"count those queries), <em>two-sample</em> otherwise ({esc(two)}). "
            '<span class="up">&#9650;</span> / <span class="down">&#9660;</span>: a '
            "significant increase / decrease (adjusted p &lt; alpha); under the delta, its "
            "interval.</p>")


def _reference_table(r: pd.DataFrame) -> str:
    """``compare(reference=...)``'s table: a row per (segment, system, metric)."""
    columns = list(r.columns)
    segments = [str(c) for c in columns[: columns.index("system")]]
    head = "".join(f"<th>{esc(c)}</th>" for c in segments)
    head += ("<th>system</th><th>metric</th><th>reference</th><th>current</th><th>delta</th>"
             "<th>p (adjusted)</th><th>comparison</th><th>wins</th><th>ties</th>"
             "<th>losses</th><th>queries</th><th>reference queries</th>")
    body = []
    for row in r.to_dict("records"):
        key = [str(row[c]) for c in segments]
        segment = " / ".join(key)
        system = str(row["system"])
        label = metric_label(row["metric"], row["k"])
        delta = _float(row.get("delta"))
        significant = bool(row.get("significant")) if not pd.isna(row.get("significant")) \
            else False
        mark = ""
        if significant and delta > 0:
            mark = '<sup class="up" title="significant increase">&#9650;</sup>'
        elif significant and delta < 0:
            mark = '<sup class="down" title="significant decrease">&#9660;</sup>'
        low, high = _float(row.get("ci_low")), _float(row.get("ci_high"))
        cell = functools.partial(_num, metric=label, system=system, segment=segment)
        paired = row.get("paired")
        kind = "" if paired is None or pd.isna(paired) else \
            ("paired" if bool(paired) else "two-sample")
        cells = [f"<td>{esc(v)}</td>" for v in key]
        cells += [f"<td>{esc(system)}</td>", f"<td>{esc(label)}</td>",
                  cell(row.get("reference_mean"), kind="reference:reference_mean"),
                  cell(row.get("mean"), kind="reference:mean"),
                  cell(delta, kind="reference:delta", extra=mark + _interval(low, high),
                       attrs=f' data-ci-low="{esc(repr(low))}" '
                             f'data-ci-high="{esc(repr(high))}" '
                             f'data-significant="{str(significant).lower()}"'),
                  _p_cell(row.get("p_adjusted"), kind="reference:p_adjusted", metric=label,
                          system=system, segment=segment),
                  f'<td data-kind="reference:paired" data-system="{esc(system)}" '
                  f'data-metric="{esc(label)}" data-segment="{esc(segment)}">{kind}</td>']
        for name in ("wins", "ties", "losses", "n_queries", "n_reference"):
            value = row.get(name)
            shown = "" if value is None or pd.isna(value) else f"{int(value):,}"
            cells.append(f'<td class="num" data-kind="reference:{name}" '
                         f'data-system="{esc(system)}" data-metric="{esc(label)}" '
                         f'data-segment="{esc(segment)}">{shown}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="reference"><tr>{head}</tr>{"".join(body)}</table>'


def _signed(value: float, relative: bool = False) -> str:
    if math.isnan(value):
        return ""
    return f"{value * 100:+.1f}%" if relative else f"{value:+.4f}"


def _moved(rows: pd.DataFrame) -> bool:
    """Whether a metric of ``rows`` (compare()'s rows) changed significantly."""
    if "significant" not in rows.columns:
        return False
    return bool(rows["significant"].fillna(value=False).astype(bool).any())


def _moves(head: str, rows: pd.DataFrame, confidence_level: float) -> str:
    """One line of the answer: which metrics of ``rows`` (compare()'s rows of one system or
    window) moved significantly, by how much, and which did not."""
    up, down, flat = [], [], []
    for row in rows.to_dict("records"):
        delta = _float(row.get("delta"))
        if math.isnan(delta):  # the baseline itself, or a first window
            continue
        label = metric_label(row["metric"], row["k"])
        relative = _float(row.get("delta_relative"))
        low, high = _float(row.get("ci_low")), _float(row.get("ci_high"))
        p = row.get("p_adjusted")
        significant = bool(row.get("significant")) if not pd.isna(row.get("significant")) \
            else False
        details = [_signed(relative, True)] if math.isfinite(relative) else []
        if math.isfinite(low) and math.isfinite(high):
            details.append(f"{confidence_level:.0%} interval [{_signed(low)}, {_signed(high)}]")
        attrs = (f'class="move" data-metric="{esc(label)}" data-delta="{esc(repr(delta))}" '
                 f'data-delta-relative="{esc(repr(relative))}" '
                 f'data-p-adjusted="{esc(repr(_float(p)))}" '
                 f'data-significant="{str(significant).lower()}"')
        if p_text(p):
            details.append(f"adjusted p {esc(p_text(p))}")
        text = (f"<span {attrs}><strong>{esc(label)}</strong> {_signed(delta)}"
                + (f" ({'; '.join(details)})" if details else "") + "</span>")
        (up if significant and delta > 0 else down if significant and delta < 0
         else flat).append(text)
    parts = []
    if up:
        parts.append('<span class="up">significantly higher</span> on ' + ", ".join(up))
    if down:
        parts.append('<span class="down">significantly lower</span> on ' + ", ".join(down))
    if flat:
        parts.append("no significant change on " + ", ".join(flat))
    return f"{head}: " + "; ".join(parts or ["nothing to compare"]) + "."


def _exact(value: float, text: str, kind: str, metric: str, system: str) -> str:
    """A number cell shown as ``text``, its exact value in ``data-value``."""
    return (f'<td class="num" data-kind="{esc(kind)}" data-metric="{esc(metric)}" '
            f'data-system="{esc(system)}" data-value="{esc(repr(value))}">{text}</td>')


def _changes(c: pd.DataFrame, baseline: str | None) -> str:
    """The summary's comparison: per system and metric, the mean, the change (absolute and
    relative), the interval of the change and the adjusted p-value."""
    head = ("<tr><th>system</th><th>metric</th><th>mean</th><th>delta</th>"
            "<th>relative</th><th>interval of the delta</th><th>p (adjusted)</th>"
            "<th>significant</th></tr>")
    body = []
    for row in c.to_dict("records"):
        system = str(row["system"])
        if system == baseline:
            continue
        label = metric_label(row["metric"], row["k"])
        cell = functools.partial(_num, metric=label, system=system)
        delta, relative = _float(row.get("delta")), _float(row.get("delta_relative"))
        low, high = _float(row.get("ci_low")), _float(row.get("ci_high"))
        significant = bool(row.get("significant")) if not pd.isna(row.get("significant")) \
            else False
        interval = (f"[{_signed(low)}, {_signed(high)}]"
                    if math.isfinite(low) and math.isfinite(high) else "")
        mark = ('<span class="up">higher</span>' if significant and delta > 0 else
                '<span class="down">lower</span>' if significant and delta < 0 else "no")
        body.append(
            f"<tr><td>{esc(system)}</td><td>{esc(label)}</td>"
            + cell(row.get("mean"), kind="change:mean")
            + _exact(delta, _signed(delta), "change:delta", label, system)
            + _exact(relative, _signed(relative, True), "change:delta_relative", label, system)
            + f'<td class="num" data-kind="change:interval" data-metric="{esc(label)}" '
              f'data-system="{esc(system)}" data-ci-low="{esc(repr(low))}" '
              f'data-ci-high="{esc(repr(high))}">{interval}</td>'
            + _exact(_float(row.get("p_adjusted")), esc(p_text(row.get("p_adjusted"))),
                     "change:p_adjusted", label, system)
            + f'<td data-kind="change:significant" data-metric="{esc(label)}" '
              f'data-system="{esc(system)}">{mark}</td></tr>')
    return f'<table class="changes">{head}{"".join(body)}</table>'


def _in_unit(value: float, *, relative: bool, signed: bool) -> str:
    """A gate's number in its rule's unit: a percentage (relative rules), else 4 decimals,
    signed for a change."""
    if math.isnan(value):
        return ""
    if relative:
        return f"{value * 100:+.2f}%"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def _gates_table(g: pd.DataFrame, keys: Sequence[str]) -> str:
    """check()'s table as the rules read: the rule on one line, its segment, the status as
    a coloured word, what was measured (the value, or a drop rule's change) with its
    interval and the bound in the rule's own unit, the p-value as the CLI writes it, the
    queries, and for an uncertain row the queries that would decide it."""
    head = ("<tr><th>rule</th>" + "".join(f"<th>{esc(k)}</th>" for k in keys)
            + "<th>status</th><th>measured</th><th>interval</th><th>bound</th>"
            "<th>p (adjusted)</th><th>queries</th><th>queries to decide</th></tr>")
    shown_keys = pd.DataFrame({k: window_labels(g[k]) if k == "window" else
                               [str(v) for v in g[k].tolist()] for k in keys}) if keys else None
    body = []
    for i, row in enumerate(g.to_dict("records")):
        relative = math.isfinite(_float(row.get("bound_relative")))
        drop = math.isfinite(_float(row.get("delta")))
        suffix = "_relative" if relative else ""
        measured = _float(row.get("delta_relative" if relative else "delta")) if drop else \
            _float(row.get("value"))
        low, high = _float(row.get(f"ci_low{suffix}")), _float(row.get(f"ci_high{suffix}"))
        bound = _float(row.get(f"bound{suffix}"))
        shown = functools.partial(_in_unit, relative=relative, signed=drop)
        status = str(row["status"])
        queries = row.get("n_queries")
        decide = _float(row.get("queries_to_decide"))
        cells = [f'<td class="rule" data-kind="gates:rule">{esc(row["rule"])}</td>']
        if shown_keys is not None:
            cells += [f'<td data-kind="gates:{esc(k)}">{esc(v)}</td>'
                      for k, v in zip(keys, shown_keys.iloc[i].tolist(), strict=True)]
        cells += [
            f'<td class="status {_status_class(status)}" data-status="{esc(status)}">'
            f"{esc(status)}</td>",
            f'<td class="num" data-kind="gates:measured" data-value="{esc(repr(measured))}" '
            f'data-measure="{"change" if drop else "value"}'
            f'{" relative" if relative else ""}">{shown(measured)}</td>',
            f'<td class="num" data-kind="gates:interval" data-ci-low="{esc(repr(low))}" '
            f'data-ci-high="{esc(repr(high))}">'
            + (f"[{shown(low)}, {shown(high)}]" if math.isfinite(low) and math.isfinite(high)
               else "") + "</td>",
            f'<td class="num" data-kind="gates:bound" data-value="{esc(repr(bound))}">'
            f"{shown(bound)}</td>",
            f'<td class="num" data-kind="gates:p_adjusted" '
            f'data-value="{esc(repr(_float(row.get("p_adjusted"))))}">'
            f'{esc(p_text(row.get("p_adjusted")))}</td>',
            '<td class="num" data-kind="gates:n_queries">'
            + ("" if queries is None or pd.isna(queries) else f"{int(queries):,}") + "</td>",
            f'<td class="num" data-kind="gates:queries_to_decide" '
            f'data-value="{esc(repr(decide))}">'
            + (f"{int(decide):,}" if math.isfinite(decide) else "never" if decide > 0 else "")
            + "</td>",
        ]
        body.append(f'<tr data-row="{i}">' + "".join(cells) + "</tr>")
    return f'<table class="gates">{head}{"".join(body)}</table>'


_GUARANTEES = {
    "holm": "Holm's correction keeps the family-wise error: the chance that any slice is "
            "marked significant while no slice differs is at most {alpha}",
    "bonferroni": "Bonferroni's correction keeps the family-wise error: the chance that any "
                  "slice is marked significant while no slice differs is at most {alpha}",
    "fdr_bh": "the Benjamini-Hochberg correction keeps the false discovery rate: on "
              "average at most {alpha} of the slices marked significant are false",
    "none": "no correction: with this many tests, about {alpha} of them come out "
            "significant by chance alone",
}


def _slices_note(t: pd.DataFrame, correction: str, confidence_level: float) -> str:
    """What the slices' table shows, and what its correction guarantees."""
    paired = "baseline_mean" in t.columns
    tested = int(t["n_tested"].max()) if len(t) else 0
    alpha = f"{1 - confidence_level:.3g}"
    how = ("each system's per-query difference from the baseline inside the slice (the "
           "paired test, as compare()); <em>baseline</em>: the baseline's mean there"
           if paired else "each slice's mean against the mean of the other queries "
           "(Welch's t-test); <em>outside</em>: the other queries' mean")
    guarantee = _GUARANTEES.get(correction, "").format(alpha=alpha)
    return (f'<p class="note">Slices of the queries (<code>slices()</code>): {how}. '
            f'Worst first within each system and metric. <span data-n-tested="{tested}">'
            f"{tested:,} tests</span> in all (every slice, system and metric, not only the "
            f"rows shown), {esc(correction)} correction: {guarantee}. "
            '<sup class="down">&#9660;</sup> / <sup class="up">&#9650;</sup>: significant '
            f"(adjusted p &lt; {alpha}); under the delta, its "
            f"{confidence_level:.0%} interval.</p>")


def _slices_table(t: pd.DataFrame) -> str:
    """slices()'s rows: system, metric, slice, queries, the means, delta and interval,
    p-values and the significance mark; every number with its exact ``data-value``."""
    if not len(t):
        return ('<p class="note" data-kind="slices:none">No slice has enough queries to be '
                "tested.</p>")
    other = "baseline_mean" if "baseline_mean" in t.columns else "mean_outside"
    head = ("<tr><th>system</th><th>metric</th><th>slice</th><th>queries</th><th>mean</th>"
            f"<th>{'baseline' if other == 'baseline_mean' else 'outside'}</th><th>delta</th>"
            "<th>p</th><th>p (adjusted)</th></tr>")
    body = []
    for i, row in enumerate(t.to_dict("records")):
        system, label = str(row["system"]), metric_label(row["metric"], row["k"])
        where = str(row["slice"])
        delta = _float(row["delta"])
        significant = bool(row["significant"])
        mark = ("" if not significant else '<sup class="down" title="significant">&#9660;'
                "</sup>" if delta < 0 else '<sup class="up" title="significant">&#9650;</sup>')
        low, high = _float(row["ci_low"]), _float(row["ci_high"])
        cell = functools.partial(_num, metric=label, system=system, segment=where)
        cells = [
            f"<td>{esc(system)}</td>", f"<td>{esc(label)}</td>",
            f'<td data-kind="slices:slice" data-slice="{esc(where)}">{esc(where)}</td>',
            f'<td class="num" data-kind="slices:n_queries" data-system="{esc(system)}" '
            f'data-metric="{esc(label)}" data-segment="{esc(where)}" '
            f'data-value="{int(row["n_queries"])}">{int(row["n_queries"]):,}</td>',
            cell(row["mean"], kind="slices:mean"),
            cell(row[other], kind=f"slices:{other}"),
            cell(delta, kind="slices:delta", extra=mark + _interval(low, high),
                 attrs=f' data-ci-low="{esc(repr(low))}" data-ci-high="{esc(repr(high))}" '
                       f'data-significant="{str(significant).lower()}"'),
            *(f'<td class="num" data-kind="slices:{name}" data-system="{esc(system)}" '
              f'data-metric="{esc(label)}" data-segment="{esc(where)}" '
              f'data-value="{esc(repr(_float(row[name])))}">{esc(p_text(row[name]))}</td>'
              for name in ("p_value", "p_adjusted")),
        ]
        body.append(f'<tr data-row="{i}">' + "".join(cells) + "</tr>")
    return f'<table class="slices">{head}{"".join(body)}</table>'


def _exposure_note(k: int, browsing: str, confidence_level: float) -> str:
    return (f'<p class="note">The users\' attention over the top {k} (browsing model '
            f"<code>{esc(browsing)}</code>) shared among the item groups, per system: each "
            f"group's mean <em>exposure</em> share (<code>exposure@{k}</code>) against its "
            "<em>relevance</em> share (the group's share of the grades of the query's "
            f"relevant items), over the queries with a relevant item; <em>gap</em> = "
            f"exposure - relevance (<code>exposure_gap@{k}</code>: below 0, less attention "
            f"than the group's relevance merits). Then <code>awrf@{k}</code> (1: the "
            f"attention follows the target) and <code>ndkl@{k}</code> (0: fair) over "
            f"every query, with {confidence_level:.0%} intervals; see "
            "docs/fairness.md.</p>")


def _exposure_table(shares: pd.DataFrame) -> str:
    head = ("<tr><th>system</th><th>group</th><th>exposure</th><th>relevance</th>"
            "<th>gap</th><th>queries</th></tr>")
    body = []
    for row in shares.to_dict("records"):
        system, group = str(row["system"]), str(row["group"])
        cell = functools.partial(_num, metric=group, system=system)
        gap = _float(row["gap"])
        body.append(
            f"<tr><td>{esc(system)}</td><td>{esc(group)}</td>"
            + cell(row["exposure"], kind="exposure:exposure")
            + cell(row["merit"], kind="exposure:merit")
            + cell(gap, kind="exposure:gap")
            + f'<td class="num" data-kind="exposure:n_queries" data-system="{esc(system)}" '
              f'data-metric="{esc(group)}">{int(row["n_queries"]):,}</td></tr>')
    return f'<table class="exposure">{head}{"".join(body)}</table>'


def _floats(column: pd.Series) -> list[float]:
    """A column of numbers (nulls as NaN) as Python floats."""
    return [float(v) for v in column.to_numpy(dtype=float, na_value=math.nan)]


def _short(value: Any, limit: int = 80) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def answer_text(data: ReportData, title: str) -> str:
    """The answer as plain text, a line per item (what ``Report.answer`` gives)."""
    lines = [html.unescape(re.sub(r"<[^>]+>", "", item))
             for item in _Writer(data, title).answer_items()]
    return "\n".join(re.sub(r"\s+", " ", line).strip() for line in lines)


def render(data: ReportData, title: str, *, page: bool = True) -> str:
    """The report as a whole HTML file, or (``page=False``) the ``<div>`` a notebook shows."""
    writer = _Writer(data, title)
    return writer.page() if page else writer.body()
