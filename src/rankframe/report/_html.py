"""The report as one self-contained HTML file: inline CSS, inline SVG charts, no script, no
request of any kind. Every user string (ids, column names, segment values, system names) goes
through ``rankframe.report._svg.esc``.

Numbers carry their exact value in ``data-value`` (``repr`` of the float) beside the shown
text (4 decimals), so that tests and tools read what ``evaluate()`` gave.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from rankframe.report import _svg
from rankframe.report._compute import Distribution, MetricRow, ReportData, metric_rows
from rankframe.report._svg import esc
from rankframe.report._tables import letters, marks

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1100px;padding:0 18px 40px;color:#222;background:#fff}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;
border-bottom:1px solid #ddd;padding-bottom:3px}h3{font-size:15px;margin:16px 0 6px}
nav a{margin-right:10px;color:#1f5fa8;text-decoration:none}
table{border-collapse:collapse;margin:6px 0 10px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;white-space:nowrap}
.ci{color:#666;font-size:12px}.note{color:#555;font-size:13px}
sup{color:#b5179e;font-weight:600}.best{font-weight:700}
.charts{display:flex;flex-wrap:wrap;gap:10px}
svg.chart{border:1px solid #eee;background:#fff}
svg .grid{stroke:#eee}svg text{font:11px system-ui,sans-serif;fill:#333}
svg .yt{text-anchor:end}svg .xt{text-anchor:middle}svg .ct{font-weight:600}
svg .band{stroke-width:6;stroke-opacity:.25}
.pass{background:#e3f4e3}.fail{background:#fbe0e0}.uncertain{background:#fff4d6}
.rel{background:#e3f4e3}code{background:#f4f4f4;padding:0 3px}
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

SECTIONS = (("data", "The data"), ("summary", "Summary"), ("segments", "By segment"),
            ("trend", "Trend"), ("gates", "Gates"), ("reference", "Reference"),
            ("curves", "Metric@k"), ("distributions", "Distributions"),
            ("wtl", "Win / tie / loss"), ("worst", "Worst queries"), ("about", "About"))


def _num(value: Any, *, metric: str = "", system: str = "", segment: str = "",
         kind: str = "mean", digits: int = 4, extra: str = "") -> str:
    """A number cell with its exact value in ``data-value``."""
    v = float(value) if value is not None and not pd.isna(value) else math.nan
    text = "" if math.isnan(v) else f"{v:.{digits}f}"
    return (f'<td class="num" data-kind="{esc(kind)}" data-metric="{esc(metric)}" '
            f'data-system="{esc(system)}" data-segment="{esc(segment)}" '
            f'data-value="{esc(repr(v))}">{text}{extra}</td>')


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
    rows = []
    for record in frame.itertuples(index=False, name=None):
        cells = []
        for column, value in zip(frame.columns, record, strict=True):
            if isinstance(value, float) and not isinstance(value, bool):
                cells.append(_num(value, kind=f"{kind}:{column}"))
            elif str(column) == "status":
                status = str(value)
                cls = status if status in ("pass", "fail", "uncertain") else "other"
                cells.append(f'<td class="{cls}">{esc(status)}</td>')
            else:
                cells.append(f"<td>{esc('' if value is None else value)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
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

    # -- sections --------------------------------------------------------------------

    def data(self) -> str:
        f = self.d.facts
        ties = ", ".join(f"{esc(s)}: {share:.1%}" for s, share in f.tied_share.items())
        rows = [("rows", f"{f.rows:,}"), ("queries", f"{f.queries:,}"),
                ("systems", ", ".join(esc(s) for s in f.systems)),
                ("queries without a relevant item", f"{f.empty_queries:,}"),
                ("unjudged rows", f"{f.unjudged_rows:,}"),
                ("ranked rows with a tied score (per system)", ties)]
        body = "".join(f'<tr><th>{esc(k)}</th><td data-fact="{esc(k)}">{v}</td></tr>'
                       for k, v in rows)
        return f'<table class="facts">{body}</table>'

    def _metric_table(self, rows: Sequence[MetricRow], segment_columns: list[str]) -> str:
        metrics = self.s.metrics
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
                mark = self.marks.get((key, system, m), "")
                sup = f"<sup>{esc(mark)}</sup>" if mark else ""
                extra = sup + _interval(row.lows[m], row.highs[m])
                cells.append(_num(row.means[m], metric=m, system=system, segment=segment,
                                  extra=extra))
            cells.append(f'<td class="num" data-kind="n_queries" data-system="{esc(system)}" '
                         f'data-segment="{esc(segment)}">{row.n_queries:,}</td>')
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
        return f'<p class="note">{note}</p>' + self._metric_table(rows, [])

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
        t["window"] = t["window"].astype(str)
        windows = list(dict.fromkeys(t["window"]))
        systems = _systems(t, self.s.systems[0])
        t["__system"] = systems
        charts = []
        for m in [m for m in self.s.metrics if m in t.columns]:
            series: dict[str, list[float]] = {}
            bands: dict[str, tuple[list[float], list[float]]] = {}
            for system in dict.fromkeys(systems):
                part = t[t["__system"] == system].groupby("window", sort=False).first()
                part = part.reindex(windows)
                series[system] = _floats(part[m])
                if f"{m}_ci_low" in part.columns:
                    bands[system] = (_floats(part[f"{m}_ci_low"]),
                                     _floats(part[f"{m}_ci_high"]))
            charts.append(_svg.line_chart(f"{m} by window", windows, series, bands,
                                          "window start"))
        return (f'<div class="charts">{"".join(charts)}</div>'
                + _generic(t.drop(columns="__system"), "trend"))

    def gates(self) -> str:
        g = self.d.gates
        if g is None:
            return ""
        statuses = [str(v) for v in g["status"].tolist()] if "status" in g.columns else []
        counts = {s: statuses.count(s) for s in dict.fromkeys(statuses)}
        summary = ", ".join(f"{esc(k)}: {v}" for k, v in counts.items())
        return f'<p class="note">{summary}</p>' + _generic(g, "gates")

    def reference(self) -> str:
        r = self.d.reference
        return "" if r is None else _generic(r, "reference")

    def curves(self) -> str:
        charts = [
            _svg.line_chart(f"{c.metric}@k", [str(k) for k in c.ks], c.means, x_title="k")
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
            charts.append(_svg.histogram(f"{metric} per query", edges, counts, quartiles))
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
            parts.append(
                f"<h3>query {esc(_short(entry.query))}: {esc(entry.system)} "
                f"{entry.value:.4f} vs {entry.baseline_value:.4f}</h3>"
                f'<div class="charts">{"".join(lists)}</div>'
            )
        return "".join(parts)

    def about(self) -> str:
        from rankframe import __version__

        s = self.s
        options = ", ".join(f"{esc(k)}={esc(v)}" for k, v in s.options.items()) or \
            "defaults (trec_eval's conventions)"
        columns = ", ".join(f"{esc(k)}: <code>{esc(v)}</code>" for k, v in s.columns.items())
        rows = [
            ("metrics", ", ".join(esc(m) for m in s.metrics)),
            ("segments (by)", ", ".join(esc(b) for b in s.by) or "none"),
            ("systems (score columns)", ", ".join(esc(x) for x in s.systems)),
            ("baseline", esc(s.baseline) if s.baseline is not None else "none"),
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
            f"<header><h1>{esc(self.title)}</h1><nav>{nav}</nav></header>{body}</div>"
        )

    def page(self) -> str:
        """The whole file."""
        return (
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(self.title)}</title></head><body>{self.body()}</body></html>\n"
        )


def _floats(column: pd.Series) -> list[float]:
    """A column of numbers (nulls as NaN) as Python floats."""
    return [float(v) for v in column.to_numpy(dtype=float, na_value=math.nan)]


def _short(value: Any, limit: int = 80) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(data: ReportData, title: str, *, page: bool = True) -> str:
    """The report as a whole HTML file, or (``page=False``) the ``<div>`` a notebook shows."""
    writer = _Writer(data, title)
    return writer.page() if page else writer.body()
