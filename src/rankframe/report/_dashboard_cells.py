"""The cells and small pieces of text the dashboard's page (``rankframe.report.dashboard``)
is written with: numbers to 4 decimals (``-`` for none), p-values as
:func:`rankframe.report.verdict.p_text` writes them, changes in percent, intervals, stored
values as text, tables and their cells, gate statuses; and times, printed to one precision
for the page's runs (:class:`Clock`), with the runs' labels. Every user string through
``rankframe.report._svg.esc``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from rankframe.report._svg import esc
from rankframe.report.verdict import p_text


def number_text(value: Any) -> str:
    """A number as the page prints it (4 decimals; ``-`` for none)."""
    if value is None or value is pd.NA:
        return "-"
    number = float(value)
    return "-" if math.isnan(number) else f"{number:.4f}"


def p_value(value: Any) -> str:
    """A p-value as the report prints it (``p_text``: never ``0.0000``; ``< 1e-300`` below
    that, escaped; ``-`` for none)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return esc(p_text(value) or "-")


def percent(value: Any) -> str:
    """A relative change in percent, signed, to a tenth (``-`` for none)."""
    if value is None or value is pd.NA or math.isnan(float(value)):
        return "-"
    return f"{float(value) * 100:+.1f}%"


def minute(value: Any) -> str:
    """A time to the minute (empty for none)."""
    if value is None or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return ""
    return pd.Timestamp(value).strftime("%Y-%m-%d %H:%M")


def plain(value: Any) -> str:
    """A stored value as text (empty for none)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]], cls: str) -> str:
    """A table; each cell is HTML already (escaped by its maker)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join(f"<tr>{''.join(rows_)}</tr>" for rows_ in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def td(
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


def status_badge(status: Any) -> str:
    """A gate's status as a badge (its class: the status, spaces as ``-``)."""
    text = plain(status)
    return f'<span class="status {esc(text.replace(" ", "-"))}">{esc(text)}</span>'


def value_cell(value: Any) -> str:
    """Any stored value as a cell's text: numbers to 4 decimals, booleans as yes or no."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return number_text(value)
    return esc(value)


def interval(low: Any, high: Any) -> str:
    """``[low, high]`` to 4 decimals."""
    return f"[{number_text(low)}, {number_text(high)}]"


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


class Clock:
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


def run_label(run: Any, clock: Clock) -> str:
    """``“nightly” of 2026-01-05 06:00`` (escaped)."""
    return f"“{esc(plain(run.run_name) or run.run_id)}” of {esc(clock(run.recorded_at))}"
