"""The dashboard's verdict, the page's first paragraph (``rankframe.report.dashboard``).

Each evaluation's value is a series (run name, metric, segment, system, window start:
:func:`evaluation_rows`); its latest value is compared with the latest earlier run that
holds it (``_moves``: both values, the change, whether the two intervals are apart). The
verdict names the pairs of runs compared (the latest :data:`PAIRS_SAID` one by one, the
others counted) and every value that moved beyond its interval or, without intervals,
changed; the values the latest run is the first to hold; and the latest gates."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from rankframe.report._dashboard_cells import Clock, number_text, percent, plain, run_label
from rankframe.report._svg import esc

__all__ = ["PAIRS_SAID", "evaluation_rows", "verdict_paragraph"]

PAIRS_SAID = 5  # pairs of runs the verdict names one by one; the table has every one


def evaluation_rows(values: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
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
        f"<b>{esc(_where(move))}</b> {number_text(move.value_before)} → {number_text(move.value)} "
        f"({sign}{number_text(move.delta)}, {percent(move.relative)})"
    )


def verdict_paragraph(
    runs: pd.DataFrame, values: pd.DataFrame, clock: Clock
) -> tuple[str, pd.DataFrame]:
    """The page's first paragraph, and the moves of every series (latest first)."""
    rows = evaluation_rows(values, runs)
    if rows.empty:
        moves = pd.DataFrame()
        sentences = ["No evaluation is recorded in this selection."]
    else:
        moves = _moves(rows)
        sentences = _evaluation_sentences(rows, moves, runs, clock)
    gates = values[values["kind"] == "gate"]
    if not gates.empty:
        sentences.append(_gates_sentence(gates, runs, clock))
    return " ".join(sentences), moves


def _evaluation_sentences(
    rows: pd.DataFrame, moves: pd.DataFrame, runs: pd.DataFrame, clock: Clock
) -> list[str]:
    """The pairs of runs compared (or that the latest run has no earlier one), and the
    values the latest run is the first to hold."""
    latest_run = runs[runs["run_id"] == rows["run_id"].iloc[-1]].iloc[0]
    held = rows[rows["run_id"] == latest_run.run_id]
    n_new = len(held) - (0 if moves.empty else int((moves["run_id"] == latest_run.run_id).sum()))
    if moves.empty:
        sentences = [
            f"The latest run, {run_label(latest_run, clock)}, has no earlier run to compare with."
        ]
    else:
        sentences = [
            "Each value against the latest earlier run of its name that "
            "holds it (the same metric, segment, system and window): "
            + " ".join(_pairs(moves, runs, clock))
        ]
    if n_new > 0:
        sentences.append(
            f"The latest run, {run_label(latest_run, clock)}, is the "
            f"first to hold {n_new} of its {len(held)} values: nothing to "
            "compare them with yet."
        )
    return sentences


def _pairs(moves: pd.DataFrame, runs: pd.DataFrame, clock: Clock) -> list[str]:
    """A sentence per pair of runs compared, latest first, for the first
    :data:`PAIRS_SAID`; then one that counts the others."""
    pairs = list(dict.fromkeys(zip(moves["run_id"], moves["run_id_before"], strict=True)))
    said = []
    for now, before in pairs[:PAIRS_SAID]:
        these = moves[(moves["run_id"] == now) & (moves["run_id_before"] == before)]
        head = (
            f"{run_label(runs[runs['run_id'] == now].iloc[0], clock)} against "
            f"{run_label(runs[runs['run_id'] == before].iloc[0], clock)}"
        )
        said.append(f"{head}: {'; '.join(_pair_words(these))}.")
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
    return said


def _pair_words(these: pd.DataFrame) -> list[str]:
    """What moved between two runs (``these``: their moves): the values beyond their
    intervals, or that none did; and the values without a recorded interval that changed."""
    judged = these[these["apart"].notna()]
    moved = judged[judged["apart"].astype(bool)]
    blind = these[these["apart"].isna()]
    changed = blind[blind["delta"].fillna(0) != 0]
    words = []
    if len(moved):
        listed = "; ".join(_moved(m) for m in moved.itertuples(index=False))
        words.append(
            f"<b>{len(moved)} of {len(judged)} values moved beyond their intervals</b>: {listed}"
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
    return words


def _gates_sentence(gates: pd.DataFrame, runs: pd.DataFrame, clock: Clock) -> str:
    """The latest gate run: how many of its rules fail, and which (rule, segment, system)."""
    latest_gate = runs[runs["run_id"].isin(gates["run_id"])].iloc[-1]
    gate_rows = gates[gates["run_id"] == latest_gate.run_id]
    failed = gate_rows[gate_rows["status"] == "fail"]
    listed = "; ".join(
        dict.fromkeys(
            esc(", ".join(p for p in (plain(r.rule), plain(r.segment), plain(r.system)) if p))
            for r in failed.itertuples(index=False)
        )
    )
    word = "rule fails" if len(gate_rows) == 1 else "rules fail"
    return (
        f"Gates of {run_label(latest_gate, clock)}: "
        f"<b>{len(failed)} of {len(gate_rows)} {word}</b>" + (f": {listed}." if listed else ".")
    )
