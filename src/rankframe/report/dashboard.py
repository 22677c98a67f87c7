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
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

import numpy as np
import pandas as pd

from rankframe._version import __version__
from rankframe.report._colours import system_colours
from rankframe.report._html import CSS
from rankframe.report._svg import esc, line_chart
from rankframe.report.verdict import p_text

__all__ = ["render"]

_GATE_COLUMNS = [
    "rule",
    "segment",
    "system",
    "window_start",
    "status",
    "value",
    "delta",
    "delta_relative",
    "bound",
    "p_adjusted",
    "n_queries",
]


def _num(value: Any) -> str:
    """A number as the page prints it (4 decimals; ``-`` for none)."""
    if value is None or value is pd.NA:
        return "-"
    number = float(value)
    return "-" if math.isnan(number) else f"{number:.4f}"


def _p(value: Any) -> str:
    """A p-value as the report prints it (``p_text``: never ``0.0000``; ``< 1e-300`` below
    that, escaped; ``-`` for none)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return esc(p_text(value) or "-")


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


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], cls: str) -> str:
    """A table; each cell is HTML already (escaped by its maker)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join(f"<tr>{''.join(rows_)}</tr>" for rows_ in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _td(
    value: str,
    *,
    num: bool = False,
    cls: str = "",
    title: str = "",
    data: dict[str, str] | None = None,
) -> str:
    """A cell; ``data``: its ``data-*`` attributes (what a test reads the number as)."""
    classes = " ".join(c for c in ("num" if num else "", cls) if c)
    attributes = (
        (f' class="{classes}"' if classes else "")
        + (f' title="{esc(title)}"' if title else "")
        + "".join(f' data-{k}="{esc(v)}"' for k, v in (data or {}).items())
    )
    return f"<td{attributes}>{value}</td>"


def _status(status: Any) -> str:
    text = _text(status)
    return f'<span class="status {esc(text.replace(" ", "-"))}">{esc(text)}</span>'


# -- times -------------------------------------------------------------------------------------


def _stamp(value: Any, level: int) -> str:
    """A time to the minute (level 0), second (1), millisecond (2) or microsecond (3)."""
    t = pd.Timestamp(value)
    text = t.strftime("%Y-%m-%d %H:%M" if level == 0 else "%Y-%m-%d %H:%M:%S")
    if level == 2:
        return f"{text}.{t.microsecond // 1000:03d}"
    return f"{text}.{t.microsecond:06d}" if level == 3 else text


def _level(times: Any) -> int:
    """The coarsest level of :func:`_stamp` that prints distinct times as distinct labels
    (runs backfilled within one minute get seconds, or finer)."""
    stamps = pd.Series(pd.to_datetime(pd.Series(list(times)), utc=True)).dropna().unique()
    for level in range(3):
        if len({_stamp(t, level) for t in stamps}) == len(stamps):
            return level
    return 3


class _Clock:
    """A time as the page prints it: one precision for the page's runs, fine enough that no
    two runs of different times share a label."""

    def __init__(self, times: Any, *, dates: bool = False) -> None:
        stamps = [pd.Timestamp(t) for t in times if not pd.isna(t)]
        self.dates = dates and all(t == t.normalize() for t in stamps)
        self.level = _level(stamps)

    def __call__(self, value: Any) -> str:
        if value is None or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
            return ""
        if self.dates:
            return pd.Timestamp(value).strftime("%Y-%m-%d")
        return _stamp(value, self.level)


def _run_label(run: Any, clock: _Clock) -> str:
    """``“nightly” of 2026-01-05 06:00`` (escaped)."""
    return f"“{esc(_text(run.run_name) or run.run_id)}” of {esc(clock(run.recorded_at))}"


# -- the verdict --------------------------------------------------------------------------------


def _evaluations(values: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The evaluation rows, each with its run's position, and its series' key columns
    (run name, metric, segment, system, window start; empty text for none), oldest first."""
    rows = values[values["kind"] == "evaluation"]
    position = dict(zip(runs["run_id"], runs["position"], strict=True))
    rows = rows[rows["run_id"].isin(position)]
    out = pd.DataFrame(
        {
            "run_id": rows["run_id"].to_numpy(),
            "position": rows["run_id"].map(position).to_numpy(),
            "run_name": rows["run_name"].fillna("").astype(str).to_numpy(),
            "metric": rows["metric"].fillna("").astype(str).to_numpy(),
            "segment": rows["segment"].fillna("").astype(str).to_numpy(),
            "system": rows["system"].fillna("").astype(str).to_numpy(),
            "window": _naive_utc(rows["window_start"]),
            "value": rows["value"].astype("float64").to_numpy(),
            "ci_low": rows["ci_low"].astype("float64").to_numpy(),
            "ci_high": rows["ci_high"].astype("float64").to_numpy(),
            "n_queries": rows["n_queries"].to_numpy(),
        }
    )
    window = pd.Series(out["window"]).dt.strftime("%Y-%m-%dT%H:%M:%S.%f").fillna("")
    out["series"] = (
        out["run_name"].astype(object)
        + "\x1f"
        + out["metric"].astype(object)
        + "\x1f"
        + out["segment"].astype(object)
        + "\x1f"
        + out["system"].astype(object)
        + "\x1f"
        + window.astype(object)
    )
    return out.sort_values("position", kind="stable", ignore_index=True)


def _naive_utc(column: pd.Series) -> Any:
    """Times as naive UTC ``datetime64`` (NaT for none)."""
    times = pd.to_datetime(pd.Series(column.to_numpy(), dtype=object), utc=True)
    if not isinstance(times.dtype, pd.DatetimeTZDtype):  # every one missing
        return np.full(len(column), np.datetime64("NaT", "ns"))
    return times.dt.tz_convert(None).to_numpy()


def _moves(rows: pd.DataFrame) -> pd.DataFrame:
    """Per series (run name, metric, segment, system, window): its latest value against the
    latest earlier run that holds it: both runs, both values, the change, and whether the
    two intervals are apart (``None`` without intervals). A series of one run: no row."""
    latest = rows.groupby("series", sort=False, dropna=False).tail(1)
    earlier = rows.drop(index=latest.index).groupby("series", sort=False, dropna=False).tail(1)
    joined = latest.merge(
        earlier[["series", "run_id", "position", "value", "ci_low", "ci_high"]],
        on="series",
        how="inner",
        suffixes=("", "_before"),
    )
    joined["delta"] = joined["value"] - joined["value_before"]
    joined["relative"] = joined["delta"] / joined["value_before"].where(joined["value_before"] != 0)
    known = joined[["ci_low", "ci_high", "ci_low_before", "ci_high_before"]].notna().all(axis=1)
    apart = (joined["ci_low"] > joined["ci_high_before"]) | (
        joined["ci_high"] < joined["ci_low_before"]
    )
    joined["apart"] = pd.array(
        [bool(a) if k else None for a, k in zip(apart, known, strict=True)], dtype="boolean"
    )
    return joined.sort_values(
        ["position", "position_before"], ascending=False, kind="stable", ignore_index=True
    )


def _where(move: Any) -> str:
    """``metric (segment, system, window)`` of a series, for sentences."""
    window = "" if pd.isna(move.window) else f"window {pd.Timestamp(move.window):%Y-%m-%d}"
    inside = ", ".join(p for p in (move.segment, move.system, window) if p)
    return f"{move.metric} ({inside})" if inside else str(move.metric)


def _moved(move: Any) -> str:
    sign = "+" if move.delta >= 0 else ""
    return (
        f"<b>{esc(_where(move))}</b> {_num(move.value_before)} → {_num(move.value)} "
        f"({sign}{_num(move.delta)}, {_percent(move.relative)})"
    )


PAIRS_SAID = 5  # pairs of runs the verdict names one by one; the table has every one


def _verdict(runs: pd.DataFrame, values: pd.DataFrame, clock: _Clock) -> tuple[str, pd.DataFrame]:
    """The page's first paragraph, and the moves of every series (latest first)."""
    sentences: list[str] = []
    rows = _evaluations(values, runs)
    moves = _moves(rows) if not rows.empty else pd.DataFrame()
    if rows.empty:
        sentences.append("No evaluation is recorded in this selection.")
    else:
        latest_run = runs[runs["run_id"] == rows["run_id"].iloc[-1]].iloc[0]
        held = rows[rows["run_id"] == latest_run.run_id]
        n_new = len(held) - (
            0 if moves.empty else int((moves["run_id"] == latest_run.run_id).sum())
        )
        if moves.empty:
            sentences.append(
                f"The latest run, {_run_label(latest_run, clock)}, has no "
                "earlier run to compare with."
            )
        else:
            pairs = list(dict.fromkeys(zip(moves["run_id"], moves["run_id_before"], strict=True)))
            said = []
            for now, before in pairs[:PAIRS_SAID]:
                these = moves[(moves["run_id"] == now) & (moves["run_id_before"] == before)]
                judged = these[these["apart"].notna()]
                moved = judged[judged["apart"].astype(bool)]
                blind = these[these["apart"].isna()]
                changed = blind[blind["delta"].fillna(0) != 0]
                head = (
                    f"{_run_label(runs[runs['run_id'] == now].iloc[0], clock)} against "
                    f"{_run_label(runs[runs['run_id'] == before].iloc[0], clock)}"
                )
                words = []
                if len(moved):
                    listed = "; ".join(_moved(m) for m in moved.itertuples(index=False))
                    words.append(
                        f"<b>{len(moved)} of {len(judged)} values moved beyond "
                        f"their intervals</b>: {listed}"
                    )
                elif len(judged):
                    words.append(f"none of {len(judged)} values moved beyond their intervals")
                if len(blind):
                    listed = "; ".join(_moved(m) for m in changed.itertuples(index=False))
                    words.append(
                        f"{len(blind)} values without a recorded interval, "
                        + (
                            f"{len(changed)} of them changed: {listed}"
                            if len(changed)
                            else "none of them changed"
                        )
                    )
                said.append(f"{head}: {'; '.join(words)}.")
            if len(pairs) > PAIRS_SAID:
                rest = moves[
                    [
                        (a, b) not in set(pairs[:PAIRS_SAID])
                        for a, b in zip(moves["run_id"], moves["run_id_before"], strict=True)
                    ]
                ]
                n_moved = int(rest["apart"].fillna(False).sum())
                said.append(
                    f"{len(pairs) - PAIRS_SAID} more pairs of runs compared "
                    f"{len(rest)} values, {n_moved} of them beyond their intervals "
                    "(the charts' folded tables have every value)."
                )
            sentences.append(
                "Each value against the latest earlier run of its name that "
                "holds it (the same metric, segment, system and window): " + " ".join(said)
            )
        if n_new > 0:
            sentences.append(
                f"The latest run, {_run_label(latest_run, clock)}, is the "
                f"first to hold {n_new} of its {len(held)} values: nothing to "
                "compare them with yet."
            )
    gates = values[values["kind"] == "gate"]
    if not gates.empty:
        latest_gate = runs[runs["run_id"].isin(gates["run_id"])].iloc[-1]
        gate_rows = gates[gates["run_id"] == latest_gate.run_id]
        failed = gate_rows[gate_rows["status"] == "fail"]
        listed = "; ".join(
            dict.fromkeys(
                esc(", ".join(p for p in (_text(r.rule), _text(r.segment), _text(r.system)) if p))
                for r in failed.itertuples(index=False)
            )
        )
        word = "rule fails" if len(gate_rows) == 1 else "rules fail"
        sentences.append(
            f"Gates of {_run_label(latest_gate, clock)}: "
            f"<b>{len(failed)} of {len(gate_rows)} {word}</b>" + (f": {listed}." if listed else ".")
        )
    return " ".join(sentences), moves


# -- the sections -------------------------------------------------------------------------------


def _interval(low: Any, high: Any) -> str:
    return f"[{_num(low)}, {_num(high)}]"


def _point_tip(system: str, x_label: str, row: Any, run: str) -> str:
    return f"{system}, {x_label}: {_num(row.value)} {_interval(row.ci_low, row.ci_high)}" + (
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
            _td(esc(getattr(r, x_column))),
            _td(esc(r.series)),
            _td(_num(r.value), num=True),
            _td(_interval(r.ci_low, r.ci_high), num=True),
            _td(esc(run_text[r.run_id])),
        ]
        for r in table.iloc[::-1].itertuples(index=False)
    ]
    folded = (
        f"<details><summary>The {len(body)} values</summary>"
        + _table([x_title, "system", "value", "interval", "run"], body, "points")
        + "</details>"
    )
    return f'<figure class="trend">{svg}{folded}</figure>'


def _trends(
    values: pd.DataFrame, runs: pd.DataFrame, clock: _Clock, colours: dict[str, str]
) -> str:
    """Per (metric, segment): the runs' values over run time (a line per system), and,
    apart, the windowed runs' values over window start; never one line across both."""
    rows = _evaluations(values, runs)
    if rows.empty:
        return '<p class="note">No evaluation in the runs shown.</p>'
    by_id = runs.set_index("run_id")
    run_text = {
        i: f"“{_text(r.run_name) or i}” of {clock(r.recorded_at)}" for i, r in by_id.iterrows()
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
        windows = _Clock(by_window["window"], dates=True)
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
    moves: pd.DataFrame, values: pd.DataFrame, runs: pd.DataFrame, clock: _Clock
) -> str:
    rows = _evaluations(values, runs)
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
    windows = _Clock(held["window"], dates=True)
    body = []
    for r in held.itertuples(index=False):
        m = by_key.get(r.series)
        window = windows(r.window)
        where = {"metric": r.metric, "segment": r.segment, "system": r.system, "window": window}
        against = "" if m is None else esc(clock(by_id.loc[m.run_id_before, "recorded_at"]))
        body.append(
            [
                _td(esc(r.metric)),
                _td(esc(r.segment)),
                _td(esc(r.system)),
                _td(esc(window)),
                _td(_num(r.value), num=True, data={"kind": "value", **where}),
                _td(_interval(r.ci_low, r.ci_high), num=True),
                _td(_text(r.n_queries), num=True),
                _td(against),
                _td(_num(m.value_before) if m is not None else "-", num=True),
                _td(
                    _num(m.delta) if m is not None else "-",
                    num=True,
                    cls=""
                    if m is None or m.apart is not True
                    else ("up" if m.delta > 0 else "down"),
                ),
                _td(_percent(m.relative) if m is not None else "-", num=True),
            ]
        )
    return (
        f'<h2 id="latest">The latest run</h2><p class="note">{_run_label(latest, clock)}; '
        "each value against the latest earlier run of its name that holds it "
        "(<em>compared with</em>: that run's time; <em>-</em>: none).</p>"
        + _table(
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


def _others(values: pd.DataFrame, runs: pd.DataFrame, clock: _Clock) -> str:
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
                _td(
                    _p(v) if c in ("p_value", "p_adjusted") else _cell(v),
                    num=isinstance(v, float | int) and not isinstance(v, bool),
                )
                for c, v in zip(columns, r, strict=True)
            ]
            for r in rows[columns].itertuples(index=False)
        ]
        parts.append(
            f'<h3>{esc(name)}</h3><p class="note">The latest {esc(kind)} run, '
            f"{_run_label(latest, clock)} (not drawn as a trend).</p>" + _table(columns, body, kind)
        )
    if not parts:
        return ""
    return '<h2 id="other">Other records</h2>' + "".join(parts)


def _segment_key_columns(rows: pd.DataFrame) -> set[str]:
    keys: set[str] = set()
    for text in rows["segment_json"].dropna().unique():
        keys |= set(_json(text))
    return keys


def _cell(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return _num(value)
    return esc(value)


def _gates(values: pd.DataFrame, runs: pd.DataFrame, last: int, clock: _Clock) -> str:
    gates = values[values["kind"] == "gate"]
    if gates.empty:
        return '<h2 id="gates">Gates</h2><p class="note">No gate is recorded.</p>'
    gate_runs = runs[runs["run_id"].isin(gates["run_id"])]
    latest = gate_runs.iloc[-1]
    body = [
        [
            _td(esc(_text(r.rule))),
            _td(esc(_text(r.segment))),
            _td(esc(_text(r.system))),
            _td(esc(_time(r.window_start))),
            _td(_status(r.status)),
            _td(_num(r.value), num=True),
            _td(
                _num(r.delta),
                num=True,
                data={
                    "kind": "gate-delta",
                    "rule": _text(r.rule),
                    "segment": _text(r.segment),
                    "system": _text(r.system),
                },
            ),
            _td(_percent(r.delta_relative), num=True),
            _td(_num(r.bound), num=True),
            _td(_p(r.p_adjusted), num=True),
            _td(_text(r.n_queries), num=True),
        ]
        for r in gates[gates["run_id"] == latest.run_id].itertuples(index=False)
    ]
    shown = gate_runs.iloc[-last:]
    history = gates[gates["run_id"].isin(shown["run_id"])]
    order = dict(zip(shown["run_id"], range(len(shown)), strict=True))
    lines = []
    for (rule, segment, system), group in history.groupby(
        [history["rule"].fillna(""), history["segment"].fillna(""), history["system"].fillna("")],
        sort=True,
    ):
        cells = ["&nbsp;"] * len(shown)
        for r in group.itertuples(index=False):
            label = _text(r.status)
            cells[order[r.run_id]] = (
                f'<span class="status {esc(label.replace(" ", "-"))}" title="'
                f"{esc(clock(runs.loc[runs['run_id'] == r.run_id, 'recorded_at'].iloc[0]))}: "
                f'{esc(label)}">{esc(label[:1].upper())}</span>'
            )
        lines.append(
            [
                _td(esc(rule)),
                _td(esc(segment)),
                _td(esc(system)),
                _td(" ".join(cells), cls="history"),
            ]
        )
    return (
        f'<h2 id="gates">Gates</h2><p class="note">The latest gate run, “'
        f"{esc(_text(latest.run_name) or latest.run_id)}” of {esc(clock(latest.recorded_at))}; "
        "<code>delta</code> is absolute, <code>bound</code> in the rule's unit.</p>"
        + _table(
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
            body,
            "gates",
        )
        + f'<h3>History</h3><p class="note">Statuses of the latest {len(shown)} of '
        f"{len(gate_runs)} gate runs, oldest first (P pass, F fail, U uncertain, "
        "T too few queries, N no baseline).</p>"
        + _table(["rule", "segment", "system", "statuses"], lines, "gate-history")
    )


def _runs_table(runs: pd.DataFrame, last: int, clock: _Clock) -> str:
    shown = runs.iloc[::-1].iloc[:last]
    body = []
    for r in shown.itertuples(index=False):
        tags = json.loads(r.tags) if isinstance(r.tags, str) else {}
        fingerprint = _text(r.input_hash)
        body.append(
            [
                _td(esc(_text(r.run_name))),
                _td(esc(clock(r.recorded_at))),
                _td(esc(", ".join(f"{k}={v}" for k, v in tags.items()))),
                _td(esc(_text(r.kind))),
                _td(esc(_text(r.rankframe_version))),
                _td(_text(r.input_rows), num=True),
                _td(_text(r.input_queries), num=True),
                _td(
                    f"<code>{esc(fingerprint[:12])}</code>" if fingerprint else "",
                    title=fingerprint,
                ),
                _td(f"<code>{esc(r.run_id)}</code>"),
            ]
        )
    return (
        f'<h2 id="runs">Runs</h2><p class="note">The latest {len(shown)} of {len(runs)} '
        "runs, newest first.</p>"
        + _table(
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
    clock = _Clock(runs["recorded_at"])
    colours = _system_colours(runs, values)
    verdict, moves = _verdict(runs, values, clock)
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
