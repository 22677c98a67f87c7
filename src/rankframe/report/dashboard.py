"""The history store's dashboard: one self-contained HTML page of its runs.

``rankframe.History(...).dashboard(...)`` and ``rankframe dashboard STORE`` read the store
(its runs, and its wide rows: a row per run, window, segment, system and metric) and hand
them to :func:`render`, which knows nothing of databases. The page leads with the verdict
in words (the latest run against the previous one; the latest gates), then a trend over
runs with its interval per metric and segment (a line per system, drawn by the report's
``line_chart``), the gates' latest statuses and their history, and the runs. No script, no
request; every user string escaped. Numbers are the store's, printed to 4 decimals.

Pages stay small on large stores: charts and tables show the latest ``last`` runs (the
page says how many there are); the verdict reads the whole selection.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from rankframe._version import __version__
from rankframe.report._html import CSS
from rankframe.report._svg import esc, line_chart
from rankframe.report.verdict import p_text

__all__ = ["render"]

_GATE_COLUMNS = ["rule", "segment", "system", "window_start", "status", "value", "delta",
                 "delta_relative", "bound", "p_adjusted", "n_queries"]


def _num(value: Any) -> str:
    """A number as the page prints it (4 decimals; ``-`` for none)."""
    if value is None or value is pd.NA:
        return "-"
    number = float(value)
    return "-" if math.isnan(number) else f"{number:.4f}"


def _float(value: Any) -> float:
    """A stored number as a float (NaN for none)."""
    return math.nan if value is None or value is pd.NA else float(value)


def _percent(value: Any) -> str:
    if value is None or value is pd.NA or math.isnan(float(value)):
        return "-"
    return f"{float(value) * 100:+.1f}%"


def _time(value: Any) -> str:
    if value is None or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return ""
    return pd.Timestamp(value).strftime("%Y-%m-%d %H:%M")


def _text(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _key(row: Any) -> tuple[str, str, str, str]:
    return (_text(row.metric), _text(row.segment), _text(row.system), _time(row.window_start))


def _where(key: tuple[str, str, str, str]) -> str:
    """``metric (segment, system, window)`` of a key, for sentences."""
    metric, segment, system, window = key
    inside = ", ".join(p for p in (segment, system, window) if p)
    return f"{metric} ({inside})" if inside else metric


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], cls: str) -> str:
    """A table; each cell is HTML already (escaped by its maker)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join(f"<tr>{''.join(rows_)}</tr>" for rows_ in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _td(value: str, *, num: bool = False, cls: str = "", title: str = "",
        data: dict[str, str] | None = None) -> str:
    """A cell; ``data``: its ``data-*`` attributes (what a test reads the number as)."""
    classes = " ".join(c for c in ("num" if num else "", cls) if c)
    attributes = (f' class="{classes}"' if classes else "") + (
        f' title="{esc(title)}"' if title else "") + "".join(
        f' data-{k}="{esc(v)}"' for k, v in (data or {}).items())
    return f"<td{attributes}>{value}</td>"


def _status(status: Any) -> str:
    text = _text(status)
    return f'<span class="status {esc(text.replace(" ", "-"))}">{esc(text)}</span>'


# -- the verdict --------------------------------------------------------------------------------


def _previous_run(runs: pd.DataFrame, latest: Any) -> Any:
    """The run before ``latest`` with values (the same name when it has one)."""
    earlier = runs[runs["position"] < latest.position]
    if isinstance(latest.run_name, str):
        earlier = earlier[earlier["run_name"] == latest.run_name]
    return None if earlier.empty else earlier.iloc[-1]


def _moves(now: pd.DataFrame, before: pd.DataFrame) -> list[dict[str, Any]]:
    """Per key in both runs: the two values, the change, and whether the two intervals
    are apart (``None`` without intervals)."""
    old = {_key(r): r for r in before.itertuples(index=False)}
    moves = []
    for row in now.itertuples(index=False):
        key = _key(row)
        if key not in old:
            continue
        prior = old[key]
        low, high, value = _float(row.ci_low), _float(row.ci_high), _float(row.value)
        before_low, before_high = _float(prior.ci_low), _float(prior.ci_high)
        previous = _float(prior.value)
        apart = None
        if not any(math.isnan(v) for v in (low, high, before_low, before_high)):
            apart = low > before_high or high < before_low
        delta = value - previous
        relative = delta / previous if previous else math.nan
        moves.append({"key": key, "value": value, "previous": previous,
                      "delta": delta, "relative": relative, "apart": apart})
    return moves


def _verdict(runs: pd.DataFrame, values: pd.DataFrame) -> tuple[str, list[dict[str, Any]]]:
    """The page's first paragraph, and the moves of the latest evaluation run."""
    sentences: list[str] = []
    moves: list[dict[str, Any]] = []
    evaluated = runs[runs["run_id"].isin(values.loc[values["kind"] == "evaluation", "run_id"])]
    if evaluated.empty:
        sentences.append("No evaluation is recorded in this selection.")
    else:
        latest = evaluated.iloc[-1]
        previous = _previous_run(evaluated, latest)
        name = f"“{esc(_text(latest.run_name) or latest.run_id)}” of {_time(latest.recorded_at)}"
        if previous is None:
            sentences.append(f"The latest run, {name}, has no earlier run to compare with.")
        else:
            rows = values[values["kind"] == "evaluation"]
            moves = _moves(rows[rows["run_id"] == latest.run_id],
                           rows[rows["run_id"] == previous.run_id])
            moved = [m for m in moves if m["apart"]]
            against = (f"“{esc(_text(previous.run_name) or previous.run_id)}” of "
                       f"{_time(previous.recorded_at)}")
            if not moves:
                sentences.append(f"The latest run, {name}, shares no metric, segment and "
                                 f"system with the previous one, {against}.")
            elif moved:
                listed = "; ".join(
                    f"<b>{esc(_where(m['key']))}</b> {_num(m['previous'])} → {_num(m['value'])} "
                    f"({'+' if m['delta'] >= 0 else ''}{_num(m['delta'])}, "
                    f"{_percent(m['relative'])})" for m in moved)
                sentences.append(
                    f"The latest run, {name}, against {against}: {len(moved)} of {len(moves)} "
                    f"values moved beyond their intervals: {listed}.")
            else:
                untested = sum(m["apart"] is None for m in moves)
                tail = (f" ({untested} without a recorded interval)" if untested else "")
                sentences.append(
                    f"The latest run, {name}, against {against}: none of {len(moves)} values "
                    f"moved beyond their intervals{tail}.")
    gates = values[values["kind"] == "gate"]
    if not gates.empty:
        latest_gate = runs[runs["run_id"].isin(gates["run_id"])].iloc[-1]
        rows = gates[gates["run_id"] == latest_gate.run_id]
        failed = rows[rows["status"] == "fail"]
        listed = "; ".join(dict.fromkeys(
            esc(", ".join(p for p in (_text(r.rule), _text(r.segment), _text(r.system)) if p))
            for r in failed.itertuples(index=False)))
        word = "rule fails" if len(rows) == 1 else "rules fail"
        sentences.append(
            f"Gates of “{esc(_text(latest_gate.run_name) or latest_gate.run_id)}” "
            f"({_time(latest_gate.recorded_at)}): <b>{len(failed)} of {len(rows)} {word}</b>"
            + (f": {listed}." if listed else "."))
    return " ".join(sentences), moves


# -- the sections -------------------------------------------------------------------------------


def _trends(values: pd.DataFrame, runs: pd.DataFrame) -> str:
    """A chart per (metric, segment): a line per system over the runs, its interval shaded."""
    rows = values[(values["kind"] == "evaluation") & values["run_id"].isin(runs["run_id"])]
    if rows.empty:
        return '<p class="note">No evaluation in the runs shown.</p>'
    times = dict(zip(runs["run_id"], runs["recorded_at"], strict=True))
    rows = pd.DataFrame({
        "position": rows["run_id"].map(dict(zip(runs["run_id"], runs["position"],
                                                strict=True))),
        "window": rows["window_start"].map(_time),
        "run_time": rows["run_id"].map(times).map(_time),
        "metric": rows["metric"].fillna(""), "segment": rows["segment"].fillna(""),
        "system": rows["system"].fillna("").replace("", "value"),
        "value": rows["value"], "ci_low": rows["ci_low"], "ci_high": rows["ci_high"]})
    charts = []
    for (metric, segment), group in rows.groupby(["metric", "segment"], sort=True):
        table = group.pivot_table(index=["position", "window", "run_time"], columns="system",
                                  values=["value", "ci_low", "ci_high"], aggfunc="first"
                                  ).sort_index()
        labels = [w or t for _, w, t in table.index]
        systems = sorted(group["system"].unique())

        def column(name: str, system: str, table: pd.DataFrame = table) -> list[float]:
            if (name, system) not in table.columns:
                return [math.nan] * len(table)
            return [float(v) for v in table[(name, system)].astype("float64").to_numpy()]

        series = {y: column("value", y) for y in systems}
        bands = {y: (column("ci_low", y), column("ci_high", y)) for y in systems}
        title = f"{metric} · {segment}" if segment else str(metric)
        charts.append(line_chart(title, labels, series, bands, x_title="run", fit=True))
    return f'<div class="charts">{"".join(charts)}</div>'


def _latest_values(moves: list[dict[str, Any]], values: pd.DataFrame,
                   runs: pd.DataFrame) -> str:
    evaluated = runs[runs["run_id"].isin(values.loc[values["kind"] == "evaluation", "run_id"])]
    if evaluated.empty:
        return ""
    latest = evaluated.iloc[-1]
    rows = values[(values["run_id"] == latest.run_id) & (values["kind"] == "evaluation")]
    by_key = {m["key"]: m for m in moves}
    body = []
    for r in rows.itertuples(index=False):
        m = by_key.get(_key(r))
        where = {"metric": _text(r.metric), "segment": _text(r.segment),
                 "system": _text(r.system), "window": _time(r.window_start)}
        body.append([
            _td(esc(_text(r.metric))), _td(esc(_text(r.segment))), _td(esc(_text(r.system))),
            _td(esc(_time(r.window_start))),
            _td(_num(r.value), num=True, data={"kind": "value", **where}),
            _td(f"[{_num(r.ci_low)}, {_num(r.ci_high)}]", num=True),
            _td(_text(r.n_queries), num=True),
            _td(_num(m["previous"]) if m else "-", num=True),
            _td(_num(m["delta"]) if m else "-", num=True,
                cls="" if not m or not m["apart"] else ("up" if m["delta"] > 0 else "down")),
            _td(_percent(m["relative"]) if m else "-", num=True),
        ])
    return (f'<h2 id="latest">The latest run</h2><p class="note">“'
            f'{esc(_text(latest.run_name) or latest.run_id)}” of {_time(latest.recorded_at)}, '
            "against the previous run of its name.</p>"
            + _table(["metric", "segment", "system", "window", "value", "interval",
                      "n_queries", "previous", "delta", "delta_relative"], body, "latest"))


def _gates(values: pd.DataFrame, runs: pd.DataFrame, last: int) -> str:
    gates = values[values["kind"] == "gate"]
    if gates.empty:
        return '<h2 id="gates">Gates</h2><p class="note">No gate is recorded.</p>'
    gate_runs = runs[runs["run_id"].isin(gates["run_id"])]
    latest = gate_runs.iloc[-1]
    body = [[
        _td(esc(_text(r.rule))), _td(esc(_text(r.segment))), _td(esc(_text(r.system))),
        _td(esc(_time(r.window_start))), _td(_status(r.status)), _td(_num(r.value), num=True),
        _td(_num(r.delta), num=True, data={"kind": "gate-delta", "rule": _text(r.rule),
                                           "segment": _text(r.segment),
                                           "system": _text(r.system)}),
        _td(_percent(r.delta_relative), num=True),
        _td(_num(r.bound), num=True), _td(esc(p_text(r.p_adjusted) or "-"), num=True),
        _td(_text(r.n_queries), num=True),
    ] for r in gates[gates["run_id"] == latest.run_id].itertuples(index=False)]
    shown = gate_runs.iloc[-last:]
    history = gates[gates["run_id"].isin(shown["run_id"])]
    order = dict(zip(shown["run_id"], range(len(shown)), strict=True))
    lines = []
    for (rule, segment, system), group in history.groupby(
            [history["rule"].fillna(""), history["segment"].fillna(""),
             history["system"].fillna("")], sort=True):
        cells = ["&nbsp;"] * len(shown)
        for r in group.itertuples(index=False):
            label = _text(r.status)
            cells[order[r.run_id]] = (
                f'<span class="status {esc(label.replace(" ", "-"))}" title="'
                f'{esc(_time(runs.loc[runs["run_id"] == r.run_id, "recorded_at"].iloc[0]))}: '
                f'{esc(label)}">{esc(label[:1].upper())}</span>')
        lines.append([_td(esc(rule)), _td(esc(segment)), _td(esc(system)),
                      _td(" ".join(cells), cls="history")])
    return (f'<h2 id="gates">Gates</h2><p class="note">The latest gate run, “'
            f'{esc(_text(latest.run_name) or latest.run_id)}” of {_time(latest.recorded_at)}; '
            "<code>delta</code> is absolute, <code>bound</code> in the rule's unit.</p>"
            + _table(["rule", "segment", "system", "window", "status", "value", "delta",
                      "delta_relative", "bound", "p_adjusted", "n_queries"], body, "gates")
            + f'<h3>History</h3><p class="note">Statuses of the latest {len(shown)} of '
              f"{len(gate_runs)} gate runs, oldest first (P pass, F fail, U uncertain, "
              "T too few queries, N no baseline).</p>"
            + _table(["rule", "segment", "system", "statuses"], lines, "gate-history"))


def _runs_table(runs: pd.DataFrame, last: int) -> str:
    shown = runs.iloc[::-1].iloc[:last]
    body = []
    for r in shown.itertuples(index=False):
        tags = json.loads(r.tags) if isinstance(r.tags, str) else {}
        fingerprint = _text(r.input_hash)
        body.append([
            _td(esc(_text(r.run_name))), _td(esc(_time(r.recorded_at))),
            _td(esc(", ".join(f"{k}={v}" for k, v in tags.items()))), _td(esc(_text(r.kind))),
            _td(esc(_text(r.rankframe_version))), _td(_text(r.input_rows), num=True),
            _td(_text(r.input_queries), num=True),
            _td(f"<code>{esc(fingerprint[:12])}</code>" if fingerprint else "",
                title=fingerprint),
            _td(f"<code>{esc(r.run_id)}</code>"),
        ])
    return (f'<h2 id="runs">Runs</h2><p class="note">The latest {len(shown)} of {len(runs)} '
            "runs, newest first.</p>"
            + _table(["name", "recorded (UTC)", "tags", "kind", "rankframe", "rows", "queries",
                      "input fingerprint", "run id"], body, "runs"))


def render(runs: pd.DataFrame, values: pd.DataFrame, *, title: str, selection: str = "",
           last: int = 100) -> str:
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
    verdict, moves = _verdict(runs, values)
    shown = runs.iloc[-last:]
    charted = shown[shown["kind"] == "evaluation"]
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}\n.rankframe-report .history span"
        "{display:inline-block;width:1.3em;text-align:center;margin:0 1px}</style>",
        '</head><body><div class="rankframe-report">',
        f"<h1>{esc(title)}</h1>",
        f'<p class="note">{len(runs)} runs{esc(selection)}; generated {generated} by rankframe '
        f"{esc(__version__)}.</p>",
        f'<p class="verdict" id="verdict">{verdict}</p>',
        '<nav><a href="#latest">Latest run</a><a href="#trend">Trend</a>'
        '<a href="#gates">Gates</a><a href="#runs">Runs</a></nav>',
        _latest_values(moves, values, runs),
        f'<h2 id="trend">Trend</h2><p class="note">Each metric and segment over the latest '
        f"{len(charted)} of {int((runs['kind'] == 'evaluation').sum())} evaluation runs, a "
        "line per system, its interval shaded where recorded.</p>",
        _trends(values, charted),
        _gates(values, runs, last),
        _runs_table(runs, last),
        "</div></body></html>",
    ]
    return "\n".join(parts)
