"""The history store's dashboard: one self-contained HTML page of its runs.

``rankframe.History(...).dashboard(...)`` and ``rankframe dashboard STORE`` read the store
(its runs, and its wide rows: a row per run, window, segment, system and metric) and hand
them to :func:`render`, which knows nothing of databases. The page leads with the verdict
in words: each evaluation's value (a series: run name, metric, segment, system, window)
against the latest earlier run that holds it, naming the pairs of runs compared and every
value that moved beyond its interval; the latest gates. Then the latest run's values, the
trends per metric and segment (a line per system, coloured as in the report,
``_colours.system_colours``; runs over run time, windowed runs over window start, never on
one line; each point's value in its ``<title>`` and in a folded table), the latest slices,
gaps and sample sizes (tables, never trends), the gates' latest statuses and their history,
and the runs. No script, no request; every user string escaped. Numbers are the store's,
printed to 4 decimals; run times to the minute, or finer when that tells runs apart.

Pages stay small on large stores: charts and tables show the latest ``last`` runs (the
page says how many there are); the verdict reads the whole selection.

This module draws the page and its sections; the verdict (the series, their moves and the
words) is ``rankframe.report._dashboard_verdict``'s, the cells, numbers and times it is
written with ``rankframe.report._dashboard_cells``'s.
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, cast

import pandas as pd

from rankframe._version import __version__
from rankframe.report._colours import system_colours
from rankframe.report._dashboard_cells import (
    Clock,
    html_table,
    interval,
    minute,
    number_text,
    p_value,
    percent,
    plain,
    run_label,
    status_badge,
    td,
    value_cell,
)
from rankframe.report._dashboard_verdict import evaluation_rows, verdict_paragraph
from rankframe.report._html import CSS
from rankframe.report._svg import esc, line_chart

__all__ = ["render"]


# -- the sections -------------------------------------------------------------------------------


def _point_tip(system: str, x_label: str, row: Any, run: str) -> str:
    return f"{system}, {x_label}: {number_text(row.value)} {interval(row.ci_low, row.ci_high)}" + (
        f" ({run})" if run else ""
    )


def _chart(
    title: str,
    x_title: str,
    labels: list[str],
    table: pd.DataFrame,
    x_column: str,
    colours: dict[str, str],
    run_text: Mapping[Hashable, str],
) -> str:
    """A line per series over ``labels``, each point's tooltip, and a folded table of
    every value drawn (and of every earlier run's value of a window)."""
    at = {label: i for i, label in enumerate(labels)}
    # the series' names are strings (_trends builds them from the system and run names)
    names = sorted(
        cast("Iterable[str]", table["series"].unique()),
        key=lambda n: (
            list(colours).index(table.loc[table["series"] == n, "system"].iloc[0])
            if table.loc[table["series"] == n, "system"].iloc[0] in colours
            else len(colours),
            n,
        ),
    )
    series = {n: [math.nan] * len(labels) for n in names}
    lows = {n: [math.nan] * len(labels) for n in names}
    highs = {n: [math.nan] * len(labels) for n in names}
    tips = {n: [""] * len(labels) for n in names}
    line_colours: dict[str, str] = {}
    for r in table.itertuples(index=False):  # oldest run first: the latest run's value stays
        i = at[getattr(r, x_column)]
        name, system = cast(str, r.series), cast(str, r.system)
        series[name][i], lows[name][i], highs[name][i] = (
            cast(float, r.value),
            cast(float, r.ci_low),
            cast(float, r.ci_high),
        )
        tips[name][i] = _point_tip(name, getattr(r, x_column), r, run_text[r.run_id])
        line_colours[name] = colours.get(system, "")
    bands = {n: (lows[n], highs[n]) for n in names}
    svg = line_chart(
        title,
        labels,
        series,
        bands,
        x_title=x_title,
        fit=True,
        colours={n: c for n, c in line_colours.items() if c},
        tips=tips,
    )
    body = [
        [
            td(esc(getattr(r, x_column))),
            td(esc(r.series)),
            td(number_text(r.value), num=True),
            td(interval(r.ci_low, r.ci_high), num=True),
            td(esc(run_text[r.run_id])),
        ]
        for r in table.iloc[::-1].itertuples(index=False)
    ]
    folded = (
        f"<details><summary>The {len(body)} values</summary>"
        + html_table([x_title, "system", "value", "interval", "run"], body, "points")
        + "</details>"
    )
    return f'<figure class="trend">{svg}{folded}</figure>'


def _trends(values: pd.DataFrame, runs: pd.DataFrame, clock: Clock, colours: dict[str, str]) -> str:
    """Per (metric, segment): the runs' values over run time (a line per system), and,
    apart, the windowed runs' values over window start; never one line across both."""
    rows = evaluation_rows(values, runs)
    if rows.empty:
        return '<p class="note">No evaluation in the runs shown.</p>'
    by_id = runs.set_index("run_id")
    run_text = {
        i: f"“{plain(r.run_name) or i}” of {clock(r.recorded_at)}" for i, r in by_id.iterrows()
    }
    names = rows["run_name"].unique()
    rows = rows.assign(
        series=rows["system"].replace("", "value")
        + (" · " + rows["run_name"].replace("", "(unnamed)") if len(names) > 1 else ""),
        system=rows["system"].replace("", "value"),
        run_time=rows["run_id"].map(lambda i: clock(by_id.loc[i, "recorded_at"])),
    )
    windowed = rows["window"].notna()
    charts = []
    per_run = rows[~windowed]
    for (metric, segment), group in per_run.groupby(["metric", "segment"], sort=True):
        labels = list(dict.fromkeys(group["run_time"]))  # runs in time order
        title = f"{metric} · {segment}" if segment else str(metric)
        charts.append(_chart(title, "run time (UTC)", labels, group, "run_time", colours, run_text))
    by_window = rows[windowed]
    if not by_window.empty:
        windows = Clock(by_window["window"], dates=True)
        by_window = by_window.assign(window_label=by_window["window"].map(windows))
        for (metric, segment), group in by_window.groupby(["metric", "segment"], sort=True):
            ordered = group.sort_values(["window", "position"], kind="stable")
            labels = list(dict.fromkeys(ordered["window_label"]))
            title = (f"{metric} · {segment}" if segment else str(metric)) + " · by window"
            charts.append(
                _chart(
                    title,
                    "window start (UTC)",
                    labels,
                    group.sort_values("position", kind="stable"),
                    "window_label",
                    colours,
                    run_text,
                )
            )
    return f'<div class="charts">{"".join(charts)}</div>'


def _latest_values(
    moves: pd.DataFrame, values: pd.DataFrame, runs: pd.DataFrame, clock: Clock
) -> str:
    rows = evaluation_rows(values, runs)
    if rows.empty:
        return ""
    latest = runs[runs["run_id"] == rows["run_id"].iloc[-1]].iloc[0]
    held = rows[rows["run_id"] == latest.run_id]
    by_key = (
        {}
        if moves.empty
        else dict(zip(moves["series"], moves.itertuples(index=False), strict=True))
    )
    by_id = runs.set_index("run_id")
    windows = Clock(held["window"], dates=True)
    body = []
    for r in held.itertuples(index=False):
        m = by_key.get(r.series)
        window = windows(r.window)
        where = {"metric": r.metric, "segment": r.segment, "system": r.system, "window": window}
        against = "" if m is None else esc(clock(by_id.loc[m.run_id_before, "recorded_at"]))
        body.append(
            [
                td(esc(r.metric)),
                td(esc(r.segment)),
                td(esc(r.system)),
                td(esc(window)),
                td(number_text(r.value), num=True, data={"kind": "value", **where}),
                td(interval(r.ci_low, r.ci_high), num=True),
                td(plain(r.n_queries), num=True),
                td(against),
                td(number_text(m.value_before) if m is not None else "-", num=True),
                td(
                    number_text(m.delta) if m is not None else "-",
                    num=True,
                    cls=""
                    if m is None or m.apart is not True
                    else ("up" if m.delta > 0 else "down"),
                ),
                td(percent(m.relative) if m is not None else "-", num=True),
            ]
        )
    return (
        f'<h2 id="latest">The latest run</h2><p class="note">{run_label(latest, clock)}; '
        "each value against the latest earlier run of its name that holds it "
        "(<em>compared with</em>: that run's time; <em>-</em>: none).</p>"
        + html_table(
            [
                "metric",
                "segment",
                "system",
                "window",
                "value",
                "interval",
                "n_queries",
                "compared with",
                "previous",
                "delta",
                "delta_relative",
            ],
            body,
            "latest",
        )
    )


_OTHERS = {"slices": "Slices", "gaps": "Gaps", "sample_size": "Sample size"}


def _others(values: pd.DataFrame, runs: pd.DataFrame, clock: Clock) -> str:
    """The latest run of each kind that is no trend (``slices``, ``gaps``,
    ``sample_size``): its rows as a table of the columns it fills."""
    parts = []
    for kind, name in _OTHERS.items():
        rows = values[values["kind"] == kind]
        if rows.empty:
            continue
        latest = runs[runs["run_id"].isin(rows["run_id"])].iloc[-1]
        rows = rows[rows["run_id"] == latest.run_id]
        skip = {
            "recorded_at",
            "run_id",
            "run_name",
            "kind",
            "result_row",
            "segment_json",
            "statistic",
            "rule",
            "status",
            "k",
            "window_start",
        }
        columns = [
            c
            for c in rows.columns
            if c not in skip and rows[c].notna().any() and c not in _segment_key_columns(rows)
        ]
        body = [
            [
                td(
                    p_value(v) if c in ("p_value", "p_adjusted") else value_cell(v),
                    num=isinstance(v, float | int) and not isinstance(v, bool),
                )
                for c, v in zip(columns, r, strict=True)
            ]
            for r in rows[columns].itertuples(index=False)
        ]
        parts.append(
            f'<h3>{esc(name)}</h3><p class="note">The latest {esc(kind)} run, '
            f"{run_label(latest, clock)} (not drawn as a trend).</p>"
            + html_table(columns, body, kind)
        )
    if not parts:
        return ""
    return '<h2 id="other">Other records</h2>' + "".join(parts)


def _segment_key_columns(rows: pd.DataFrame) -> set[str]:
    keys: set[str] = set()
    for text in rows["segment_json"].dropna().unique():
        keys |= set(_json(text))
    return keys


def _gates(values: pd.DataFrame, runs: pd.DataFrame, last: int, clock: Clock) -> str:
    """The gates section: the latest gate run's rows, and the statuses of the latest
    ``last`` gate runs per rule, segment and system."""
    gates = values[values["kind"] == "gate"]
    if gates.empty:
        return '<h2 id="gates">Gates</h2><p class="note">No gate is recorded.</p>'
    gate_runs = runs[runs["run_id"].isin(gates["run_id"])]
    latest = gate_runs.iloc[-1]
    shown = gate_runs.iloc[-last:]
    return (
        f'<h2 id="gates">Gates</h2><p class="note">The latest gate run, “'
        f"{esc(plain(latest.run_name) or latest.run_id)}” of {esc(clock(latest.recorded_at))}; "
        "<code>delta</code> is absolute, <code>bound</code> in the rule's unit.</p>"
        + html_table(
            [
                "rule",
                "segment",
                "system",
                "window",
                "status",
                "value",
                "delta",
                "delta_relative",
                "bound",
                "p_adjusted",
                "n_queries",
            ],
            _gate_rows(gates[gates["run_id"] == latest.run_id]),
            "gates",
        )
        + f'<h3>History</h3><p class="note">Statuses of the latest {len(shown)} of '
        f"{len(gate_runs)} gate runs, oldest first (P pass, F fail, U uncertain, "
        "T too few queries, N no baseline).</p>"
        + html_table(
            ["rule", "segment", "system", "statuses"],
            _gate_history(gates[gates["run_id"].isin(shown["run_id"])], shown, runs, clock),
            "gate-history",
        )
    )


def _gate_rows(rows: pd.DataFrame) -> list[list[str]]:
    """A gate run's rows as the table's cells (its deltas with their keys in ``data-``)."""
    return [
        [
            td(esc(plain(r.rule))),
            td(esc(plain(r.segment))),
            td(esc(plain(r.system))),
            td(esc(minute(r.window_start))),
            td(status_badge(r.status)),
            td(number_text(r.value), num=True),
            td(
                number_text(r.delta),
                num=True,
                data={
                    "kind": "gate-delta",
                    "rule": plain(r.rule),
                    "segment": plain(r.segment),
                    "system": plain(r.system),
                },
            ),
            td(percent(r.delta_relative), num=True),
            td(number_text(r.bound), num=True),
            td(p_value(r.p_adjusted), num=True),
            td(plain(r.n_queries), num=True),
        ]
        for r in rows.itertuples(index=False)
    ]


def _gate_history(
    history: pd.DataFrame, shown: pd.DataFrame, runs: pd.DataFrame, clock: Clock
) -> list[list[str]]:
    """Per rule, segment and system: its status in each gate run ``shown`` (oldest
    first; a blank where the run has no row of it), each a letter with its run's time."""
    order = dict(zip(shown["run_id"], range(len(shown)), strict=True))
    lines = []
    for (rule, segment, system), group in history.groupby(
        [history["rule"].fillna(""), history["segment"].fillna(""), history["system"].fillna("")],
        sort=True,
    ):
        cells = ["&nbsp;"] * len(shown)
        for r in group.itertuples(index=False):
            label = plain(r.status)
            cells[order[r.run_id]] = (
                f'<span class="status {esc(label.replace(" ", "-"))}" title="'
                f"{esc(clock(runs.loc[runs['run_id'] == r.run_id, 'recorded_at'].iloc[0]))}: "
                f'{esc(label)}">{esc(label[:1].upper())}</span>'
            )
        lines.append(
            [
                td(esc(rule)),
                td(esc(segment)),
                td(esc(system)),
                td(" ".join(cells), cls="history"),
            ]
        )
    return lines


def _runs_table(runs: pd.DataFrame, last: int, clock: Clock) -> str:
    shown = runs.iloc[::-1].iloc[:last]
    body = []
    for r in shown.itertuples(index=False):
        tags = json.loads(r.tags) if isinstance(r.tags, str) else {}
        fingerprint = plain(r.input_hash)
        body.append(
            [
                td(esc(plain(r.run_name))),
                td(esc(clock(r.recorded_at))),
                td(esc(", ".join(f"{k}={v}" for k, v in tags.items()))),
                td(esc(plain(r.kind))),
                td(esc(plain(r.rankframe_version))),
                td(plain(r.input_rows), num=True),
                td(plain(r.input_queries), num=True),
                td(
                    f"<code>{esc(fingerprint[:12])}</code>" if fingerprint else "",
                    title=fingerprint,
                ),
                td(f"<code>{esc(r.run_id)}</code>"),
            ]
        )
    return (
        f'<h2 id="runs">Runs</h2><p class="note">The latest {len(shown)} of {len(runs)} '
        "runs, newest first.</p>"
        + html_table(
            [
                "name",
                "recorded (UTC)",
                "tags",
                "kind",
                "rankframe",
                "rows",
                "queries",
                "input fingerprint",
                "run id",
            ],
            body,
            "runs",
        )
    )


def _system_colours(runs: pd.DataFrame, values: pd.DataFrame) -> dict[str, str]:
    """Each system's colour, as the report gives it (``_colours.system_colours``): the score
    columns in the order the runs name them, the baseline of the latest comparison or gate
    (else the first score column) first."""
    systems: list[str] = []
    baseline = None
    for text in runs["options"]:
        options = _json(text)
        scores = options.get("columns", {}).get("score") or []
        systems += [str(s) for s in scores if str(s) not in systems]
        chosen = options.get("settings", {}).get("baseline")
        if isinstance(chosen, int) and not isinstance(chosen, bool) and chosen < len(scores):
            baseline = str(scores[chosen])
        elif isinstance(chosen, str):
            baseline = chosen
    systems += sorted({str(s) for s in values["system"].dropna()} - set(systems))
    return system_colours(systems, baseline)


def _json(text: Any) -> dict[str, Any]:
    try:
        found = json.loads(text) if isinstance(text, str) else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def render(
    runs: pd.DataFrame, values: pd.DataFrame, *, title: str, selection: str = "", last: int = 100
) -> str:
    """The page.

    Parameters
    ----------
    runs
        The runs shown (``History.runs()``'s columns), oldest first.
    values
        Their wide rows (``History.load(kind=None)``'s columns).
    title
        The page's title.
    selection
        The filters that chose the runs, in words (shown under the title).
    last
        Charts and tables show the latest ``last`` runs.
    """
    runs = runs.reset_index(drop=True).assign(position=range(len(runs)))
    clock = Clock(runs["recorded_at"])
    colours = _system_colours(runs, values)
    verdict, moves = verdict_paragraph(runs, values, clock)
    shown = runs.iloc[-last:]
    charted = shown[shown["kind"] == "evaluation"]
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}\n.rankframe-report .history span"
        "{display:inline-block;width:1.3em;text-align:center;margin:0 1px}"
        ".rankframe-report figure.trend{margin:0;width:460px}"
        ".rankframe-report figure.trend table{font-size:12px}</style>",
        '</head><body><div class="rankframe-report">',
        f"<h1>{esc(title)}</h1>",
        f'<p class="note">{len(runs)} runs{esc(selection)}; generated {generated} by rankframe '
        f"{esc(__version__)}.</p>",
        f'<p class="verdict" id="verdict">{verdict}</p>',
        '<nav><a href="#latest">Latest run</a><a href="#trend">Trend</a>'
        '<a href="#gates">Gates</a><a href="#runs">Runs</a></nav>',
        _latest_values(moves, values, runs, clock),
        f'<h2 id="trend">Trend</h2><p class="note">Each metric and segment over the latest '
        f"{len(charted)} of {int((runs['kind'] == 'evaluation').sum())} evaluation runs, a "
        "line per system (one colour per system, as in the report), its interval shaded "
        "where recorded: runs over their time, the windows of windowed runs "
        "(<code>every=</code>) apart, over their start (a window recorded again: its latest "
        "run's value). Hover a point for its value, or unfold its chart's values.</p>",
        _trends(values, charted, clock, colours),
        _others(values, runs, clock),
        _gates(values, runs, last, clock),
        _runs_table(runs, last, clock),
        "</div></body></html>",
    ]
    return "\n".join(parts)
