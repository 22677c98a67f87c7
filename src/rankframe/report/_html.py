"""The report as one self-contained HTML file: inline CSS, inline SVG charts, no script, no
request of any kind. Every user string (ids, column names, segment values, system names) goes
through ``rankframe.report._svg.esc``.

Numbers carry their exact value in ``data-value`` (``repr`` of the float) beside the shown
text (4 decimals), so that tests and tools read what ``evaluate()`` gave.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence

import pandas as pd

from rankframe._version import __version__
from rankframe.report import _judgments, _svg
from rankframe.report._answer import Answer
from rankframe.report._cells import (
    generic_table,
    interval_text,
    num_cell,
    short,
    status_class,
    window_labels,
    zone_of,
)
from rankframe.report._colours import system_colours
from rankframe.report._compute import option_text
from rankframe.report._records import (
    Distribution,
    MetricRow,
    ReportData,
    metric_rows,
)
from rankframe.report._sections import (
    changes,
    exposure_note,
    exposure_table,
    gates_table,
    reference_note,
    reference_table,
    slices_note,
    slices_table,
)
from rankframe.report._svg import esc
from rankframe.report._tables import letters, marks

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
        scoped = [
            scope if s.strip() == "body" else f"{scope} {s.strip()}" for s in selectors.split(",")
        ]
        rules.append(f"{','.join(scoped)}{{{declarations}}}")
    return "\n".join(rules)


CSS = _scoped(_CSS, ".rankframe-report")

SECTIONS = (
    ("answer", "The answer"),
    ("data", "The data"),
    ("summary", "Summary"),
    ("segments", "By segment"),
    ("judgments", "Judgments"),
    ("trend", "Trend"),
    ("gates", "Gates"),
    ("reference", "Reference"),
    ("slices", "Where it fails"),
    ("fairness", "Exposure of item groups"),
    ("curves", "Metric@k"),
    ("distributions", "Distributions"),
    ("wtl", "Win / tie / loss"),
    ("worst", "Worst queries"),
    ("about", "About"),
)


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

    def answer_items(self) -> list[str]:
        """The answer in words, a line per item (``rankframe.report._answer.Answer``)."""
        return Answer(self.d).items()

    def answer(self) -> str:
        """The verdict in words (:meth:`answer_items`), as a list."""
        body = "".join(f"<li>{item}</li>" for item in self.answer_items())
        return f'<div class="answer"><ul>{body}</ul></div>'

    def data(self) -> str:
        f = self.d.facts
        ties = ", ".join(f"{esc(s)}: {share:.1%}" for s, share in f.tied_share.items())
        nulls = ", ".join(
            f'<span data-null-scores="{n}" data-system="{esc(s)}">{esc(s)}: {n:,}'
            + (f" ({n / f.rows:.1%} of the rows)" if n and f.rows else "")
            + "</span>"
            for s, n in f.null_scores.items()
        )
        rows = [
            ("rows", f"{f.rows:,}"),
            ("queries", f"{f.queries:,}"),
            ("systems", ", ".join(esc(s) for s in f.systems)),
            ("queries without a relevant item", f"{f.empty_queries:,}"),
            ("unjudged rows", f"{f.unjudged_rows:,}"),
            *self._holes(),
            ("ranked rows with a tied score (per system)", ties),
            ("null scores, not retrieved (per system)", nulls),
        ]
        body = "".join(
            f'<tr><th>{esc(k)}</th><td data-fact="{esc(k)}">{v}</td></tr>' for k, v in rows
        )
        return f'<table class="facts">{body}</table>'

    def _holes(self) -> list[tuple[str, str]]:
        """The holes' row of the data section: per top k that the metrics read, each
        system's unjudged share; none when every such top k is wholly judged."""
        holes = self.d.facts.holes
        if not any(share > 0 for h in holes for share in h.share.values()):
            return []
        parts = []
        for h in holes:
            top = "whole list" if h.k is None else f"top {h.k}"
            shares = ", ".join(
                f'<span data-holes="{share!r}" data-system="{esc(s)}" data-k="{h.k or ""}">'
                f"{esc(s)}: {share:.1%}</span>"
                for s, share in h.share.items()
            )
            parts.append(f"{top} ({esc(', '.join(h.metrics))}): {shares}")
        label = "holes: unjudged share of the top k, counted as non-relevant (per system)"
        return [(label, "; ".join(parts))]

    def _metric_table(
        self,
        rows: Sequence[MetricRow],
        segment_columns: list[str],
        *,
        kind: str = "mean",
        metrics: Sequence[str] | None = None,
    ) -> str:
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
                extra = sup + interval_text(row.lows[m], row.highs[m])
                bounds = (
                    f' data-ci-low="{esc(repr(row.lows[m]))}" '
                    f'data-ci-high="{esc(repr(row.highs[m]))}"'
                )
                cells.append(
                    num_cell(
                        row.means[m],
                        metric=m,
                        system=system,
                        segment=segment,
                        kind=kind,
                        extra=extra,
                        attrs=bounds,
                    )
                )
            count = f"{row.n_queries:,}" if row.n_queries >= 0 else ""
            queries = "n_queries" if marked else f"{kind}:n_queries"
            cells.append(
                f'<td class="num" data-kind="{queries}" data-system="{esc(system)}" '
                f'data-segment="{esc(segment)}">{count}</td>'
            )
            body.append("<tr>" + "".join(cells) + "</tr>")
        return f'<table class="metrics"><tr>{head}</tr>{"".join(body)}</table>'

    def summary(self) -> str:
        kind = (
            "Student-t intervals"
            if self.s.test == "t-test"
            else f"percentile bootstrap intervals ({self.s.n_resamples:,} resamples, seed "
            f"{esc(self.s.seed)})"
        )
        note = f"Means over queries with {self.s.confidence_level:.0%} {kind}."
        if self.d.comparison is not None:
            note += (
                f" A superscript letter: significantly better than the system of that "
                f"letter ({esc(self.s.test)} against the baseline "
                f"{esc(self.s.baseline)}, {esc(self.s.correction)} correction, "
                f"adjusted p &lt; {self.s.alpha})."
            )
        rows = metric_rows(self.d.summary, self.s.metrics, [], self.s.systems[0])
        table = f'<p class="note">{note}</p>' + self._metric_table(rows, [])
        if self.d.comparison is None:
            return table
        return table + (
            f"<h3>Against the baseline {esc(self.s.baseline)}</h3>"
            f'<p class="note">The change of each mean: absolute (<em>delta</em>) and '
            f"relative to the baseline's mean, the {self._intervals()} of the absolute "
            f"change (compare()'s), and its p-value after the {esc(self.s.correction)} "
            "correction.</p>" + changes(self.d.comparison, self.s.baseline)
        )

    def segments(self) -> str:
        if self.d.segments is None:
            return ""
        rows = metric_rows(self.d.segments, self.s.metrics, self.s.by, self.s.systems[0])
        return (
            '<p class="note">The same per segment; <em>queries</em> is the segment\'s '
            "size.</p>" + self._metric_table(rows, self.s.by)
        )

    def trend(self) -> str:
        t = self.d.trend
        if t is None or "window" not in t.columns:
            return ""
        t = t.copy()
        zone = zone_of(t["window"])
        t["window"] = window_labels(t["window"])
        windows = list(dict.fromkeys(t["window"]))
        metrics = [m for m in self.s.metrics if m in t.columns] or [
            str(c)
            for c in t.columns
            if c not in ("window", "system", "n_queries")
            and not str(c).endswith(("_ci_low", "_ci_high"))
            and pd.api.types.is_numeric_dtype(t[c])
        ]
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
            charts.append(
                _svg.line_chart(
                    f"{m} by window",
                    windows,
                    series,
                    bands,
                    x_title,
                    fit=True,
                    colours=self.colours,
                )
            )
        every = (
            f" of <code>every={esc(repr(self.s.every))}</code>" if self.s.every is not None else ""
        )
        time = self.s.columns.get("time")
        source = (
            f" by the time column <code>{esc(time)}</code> (a query's time is its earliest row's)"
            if time
            else ""
        )
        note = (
            f'<p class="note">Every query\'s means per window{every}{source}, each with '
            f"its {self._intervals()} (the shaded band, drawn whole: a Student-t interval "
            "of a bounded metric may pass its bound); windows without queries have no "
            "point. Each chart's axis is scaled to its values and bands.</p>"
        )
        return (
            note
            + f'<div class="charts">{"".join(charts)}</div>'
            + self._segment_trends(metrics, windows, x_title)
            + self._metric_table(rows, ["window"], kind="trend", metrics=metrics)
        )

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
                charts.append(
                    _svg.line_chart(
                        f"{m}: {label}",
                        windows,
                        series,
                        bands,
                        x_title,
                        fit=True,
                        colours=self.colours,
                    )
                )
        cap = (
            f"the {len(shown)} largest of {len(sizes)} segments (by queries), "
            if len(sizes) > len(shown)
            else f"each of the {len(sizes)} segments, "
        )
        return (
            f'<h3>By segment</h3><p class="note">The same per segment: {cap}each '
            "chart on its own scale.</p>"
            f'<div class="charts segments">{"".join(charts)}</div>'
        )

    def _intervals(self) -> str:
        """The summary's and the trend's intervals, in words."""
        if self.s.test == "t-test":
            return f"{self.s.confidence_level:.0%} Student-t interval"
        return (
            f"{self.s.confidence_level:.0%} percentile bootstrap interval "
            f"({self.s.n_resamples:,} resamples, seed {esc(self.s.seed)})"
        )

    def gates(self) -> str:
        g = self.d.gates
        if g is None:
            return ""
        statuses = [str(v) for v in g["status"].tolist()] if "status" in g.columns else []
        counts = {s: statuses.count(s) for s in dict.fromkeys(statuses)}
        tally = ", ".join(
            f'<span class="status {status_class(k)}">{esc(k)}</span>: {v}'
            for k, v in counts.items()
        )
        against = (
            "the reference frame"
            if self.d.reference is not None
            else f"the baseline {esc(self.s.baseline)}"
            if self.s.baseline
            else "a baseline"
        )
        keys = (
            [str(c) for c in g.columns[1 : list(g.columns).index("metric")]]
            if "metric" in g.columns
            else []
        )
        failed = sum(1 for v in statuses if v == "fail")
        head = (
            f'<p class="verdict"><strong class="{"down" if failed else "up"}">'
            f"{failed} of {len(statuses)} rules failed</strong> ({tally})</p>"
        )
        note = (
            '<p class="note">Each rule per system and segment over every query: '
            "an absolute rule passes when its whole interval lies on the right side of "
            "the bound, fails when it lies on the wrong side and is uncertain otherwise; "
            f"a drop rule compares with {against} and fails on a significant decrease "
            "beyond its tolerance, its change, interval and bound in the rule's own unit "
            "(a percentage rule: relative to the baseline's mean); a segment with too "
            "few queries is neither.</p>"
        )
        return head + note + gates_table(g, keys)

    def reference(self) -> str:
        r = self.d.reference
        if r is None:
            return ""
        if "system" not in r.columns or "reference_mean" not in r.columns:
            return generic_table(r, "reference")
        return reference_note(self.s.test) + reference_table(r)

    def slices(self) -> str:
        """slices()'s table: the worst slices per system and metric, significant marked."""
        t = self.d.slices
        if t is None:
            return ""
        return slices_note(t, self.s.correction, self.s.confidence_level) + slices_table(t)

    def fairness(self) -> str:
        """Per system and item group, exposure share against relevance share; awrf, ndkl."""
        e = self.d.exposure
        if e is None:
            return ""
        browsing = self.s.options.get("browsing") or "log"
        labels = [
            str(c)
            for c in e.divergences.columns
            if str(c) not in ("system", "n_queries")
            and not str(c).endswith(("_ci_low", "_ci_high"))
        ]
        rows = metric_rows(e.divergences, labels, [], self.s.systems[0])
        return (
            exposure_note(e.k, str(browsing), self.s.confidence_level)
            + exposure_table(e.shares)
            + self._metric_table(rows, [], kind="fairness", metrics=labels)
        )

    def judgments(self) -> str:
        """The judge against people: coverage, agreement, corrected means (a gold column)."""
        j = self.d.judgments
        if j is None:
            return ""
        return _judgments.html(j, self.s.by, self.s.confidence_level, self.s.alpha)

    def curves(self) -> str:
        charts = [
            _svg.line_chart(
                f"{c.metric}@k", [str(k) for k in c.ks], c.means, x_title="k", colours=self.colours
            )
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
            charts.append(
                _svg.histogram(
                    f"{metric} per query", edges, counts, quartiles, colours=self.colours
                )
            )
        note = (
            '<p class="note">Share of queries per bin of the per-query value; under it, '
            "each system's quartiles (box) and range (line).</p>"
        )
        return note + f'<div class="charts">{"".join(charts)}</div>'

    def wtl(self) -> str:
        w = self.d.wtl
        if not w:
            return (
                '<p class="note">One system: nothing to compare with a baseline.</p>'
                if len(self.s.systems) < 2
                else ""
            )
        labels = self.d.segment_labels
        head = (
            "<tr><th>segment</th><th>system</th><th>metric</th><th>wins</th>"
            "<th>ties</th><th>losses</th><th></th></tr>"
        )
        body = []
        for row in w:
            segment = "all" if row.segment < 0 else labels[row.segment]
            attrs = (
                f'data-system="{esc(row.system)}" data-metric="{esc(row.metric)}" '
                f'data-segment="{esc(segment)}"'
            )
            body.append(
                f"<tr {attrs}><td>{esc(segment)}</td><td>{esc(row.system)}</td>"
                f'<td>{esc(row.metric)}</td><td class="num" data-kind="wins">{row.wins}'
                f'</td><td class="num" data-kind="ties">{row.ties}</td>'
                f'<td class="num" data-kind="losses">{row.losses}</td>'
                f"<td>{_svg.stacked_bar(row.wins, row.ties, row.losses)}</td></tr>"
            )
        note = (
            f'<p class="note">Queries where each system is above (wins), equal to (ties) '
            f"or below (losses) the baseline {esc(self.s.baseline)}.</p>"
        )
        return note + f'<table class="wtl">{head}{"".join(body)}</table>'

    def worst(self) -> str:
        if not self.d.worst:
            return ""
        parts = [
            f'<p class="note">The {len(self.d.worst)} largest losses against the '
            f"baseline {esc(self.s.baseline)} on {esc(self.s.metrics[0])}, with the top "
            f"{self.s.top_k} of each list (grade &gt; 0 shaded).</p>"
        ]
        for entry in self.d.worst:
            lists = []
            for system, items in entry.lists.items():
                rows = "".join(
                    f'<tr class="{"rel" if x.positive else ""}"><td>{i + 1}</td>'
                    f"<td>{esc(short(x.item))}</td><td>{esc(x.score)}</td>"
                    f"<td>{esc(x.grade)}</td></tr>"
                    for i, x in enumerate(items)
                )
                lists.append(
                    f'<table><tr><th colspan="4">{esc(system)}</th></tr><tr>'
                    f"<th>rank</th><th>item</th><th>score</th><th>grade</th></tr>"
                    f"{rows}</table>"
                )
            opened = " open" if len(parts) == 1 else ""
            parts.append(
                f"<details{opened}><summary><strong>query {esc(short(entry.query))}</strong>: "
                f"{esc(entry.system)} {entry.value:.4f} vs {entry.baseline_value:.4f}"
                f'</summary><div class="charts">{"".join(lists)}</div></details>'
            )
        return "".join(parts)

    def about(self) -> str:
        s = self.s
        options = (
            ", ".join(f"{esc(k)}={esc(short(option_text(k, v)))}" for k, v in s.options.items())
            or "defaults (trec_eval's conventions)"
        )
        columns = ", ".join(f"{esc(k)}: <code>{esc(v)}</code>" for k, v in s.columns.items())
        rows = [
            ("metrics", ", ".join(esc(m) for m in s.metrics)),
            ("segments (by)", ", ".join(esc(b) for b in s.by) or "none"),
            ("systems (score columns)", ", ".join(esc(x) for x in s.systems)),
            ("baseline", esc(s.baseline) if s.baseline is not None else "none"),
            (
                "time windows",
                f"every={esc(repr(s.every))} of the time column "
                f"<code>{esc(s.columns.get('time', ''))}</code>; a query's time is its earliest "
                "row's"
                if s.every is not None
                else "none",
            ),
            ("columns", columns),
            ("metric options", options),
            ("test", f"{esc(s.test)}, {esc(s.correction)} correction, alpha {s.alpha}"),
            (
                "intervals",
                f"{s.confidence_level:.0%} Student-t"
                if s.test == "t-test"
                else f"{s.confidence_level:.0%} percentile bootstrap, {s.n_resamples:,} resamples, "
                f"seed {esc(s.seed)}",
            ),
            (
                "conventions",
                "ties broken as trec_eval does unless <code>ties=</code> says "
                "otherwise; queries without a relevant item count 0 unless "
                "<code>empty=</code> says otherwise; see rankframe's "
                "docs/conventions.md",
            ),
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
        parts = [
            f'generated <time data-generated="{esc(a.generated)}">{esc(a.generated)}'
            f"</time> by rankframe {esc(__version__)}"
        ]
        if a.name is not None:
            parts.append(f'data: <strong data-name="{esc(a.name)}">{esc(a.name)}</strong>')
        if a.rows is not None and a.queries is not None:
            parts.append(f"{a.rows:,} rows, {a.queries:,} queries")
        if a.digest is not None:
            parts.append(
                f'fingerprint <code data-fingerprint="{esc(a.digest)}" '
                f'title="{esc(a.digest)}">{esc(a.digest[:12])}</code>'
            )
        return f'<p class="meta">{" · ".join(parts)}</p>'

    def body(self) -> str:
        """The report inside its ``<div>`` with its styles (a notebook cell shows this)."""
        sections = []
        for key, heading in SECTIONS:
            content = getattr(self, key)()
            if content:
                sections.append((key, heading, content))
        nav = "".join(f'<a href="#{k}">{esc(h)}</a>' for k, h, _ in sections)
        body = "".join(f'<section id="{k}"><h2>{esc(h)}</h2>{c}</section>' for k, h, c in sections)
        return (
            f'<div class="rankframe-report"><style>{CSS}</style>'
            f"<header><h1>{esc(self.title)}</h1>{self.meta()}<nav>{nav}</nav></header>"
            f"{body}</div>"
        )

    def page(self) -> str:
        """The whole file."""
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(self.title)}</title></head><body>{self.body()}</body></html>\n"
        )


def answer_text(data: ReportData, title: str) -> str:
    """The answer as plain text, a line per item (what ``Report.answer`` gives)."""
    lines = [
        html.unescape(re.sub(r"<[^>]+>", "", item)) for item in _Writer(data, title).answer_items()
    ]
    return "\n".join(re.sub(r"\s+", " ", line).strip() for line in lines)


def render(data: ReportData, title: str, *, page: bool = True) -> str:
    """The report as a whole HTML file, or (``page=False``) the ``<div>`` a notebook shows."""
    writer = _Writer(data, title)
    return writer.page() if page else writer.body()
