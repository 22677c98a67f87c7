"""The cells and small pieces of text the report's page is written with: numbers with
their exact value in ``data-value`` (``repr`` of the float) beside the shown text (4
decimals), p-values as :func:`rankframe.report.verdict.p_text` writes them, intervals,
signed changes, window starts; every user string through ``rankframe.report._svg.esc``."""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

from rankframe.report._svg import esc
from rankframe.report.verdict import p_text


def as_float(value: Any) -> float:
    """A cell's number (None, NaN and pandas' NA as NaN)."""
    return float(value) if value is not None and not pd.isna(value) else math.nan


def num_cell(
    value: Any,
    *,
    metric: str = "",
    system: str = "",
    segment: str = "",
    kind: str = "mean",
    digits: int = 4,
    extra: str = "",
    attrs: str = "",
) -> str:
    """A number cell with its exact value in ``data-value``."""
    v = as_float(value)
    text = "" if math.isnan(v) else f"{v:.{digits}f}"
    return (
        f'<td class="num" data-kind="{esc(kind)}" data-metric="{esc(metric)}" '
        f'data-system="{esc(system)}" data-segment="{esc(segment)}" '
        f'data-value="{esc(repr(v))}"{attrs}>{text}{extra}</td>'
    )


def p_cell(value: Any, *, kind: str, metric: str = "", system: str = "", segment: str = "") -> str:
    """A p-value's cell: as :func:`p_text` writes it, its exact value in ``data-value``."""
    return (
        f'<td class="num" data-kind="{esc(kind)}" data-metric="{esc(metric)}" '
        f'data-system="{esc(system)}" data-segment="{esc(segment)}" '
        f'data-value="{esc(repr(as_float(value)))}">{esc(p_text(value))}</td>'
    )


def status_class(status: str) -> str:
    """The CSS class of a gate's status (``"too few queries"``: ``too-few-queries``)."""
    return re.sub(r"[^a-z0-9]+", "-", status.lower()).strip("-") or "other"


def window_labels(column: pd.Series) -> list[str]:
    """Window starts as text: the date alone when every start is at midnight, else the
    date and the time (minutes); any other column as its values' text."""
    if not pd.api.types.is_datetime64_any_dtype(column):
        return [str(v) for v in column.tolist()]
    stamps = pd.DatetimeIndex(column)
    midnight = bool(
        (
            (stamps.hour == 0)
            & (stamps.minute == 0)
            & (stamps.second == 0)
            & (stamps.microsecond == 0)
            | stamps.isna()
        ).all()
    )
    fmt = "%Y-%m-%d" if midnight else "%Y-%m-%d %H:%M"
    return ["" if pd.isna(t) else t.strftime(fmt) for t in stamps]


def zone_of(column: pd.Series) -> str:
    """The zone of a column of zone-aware datetimes, else ``""``."""
    tz = (
        getattr(getattr(column, "dt", None), "tz", None)
        if pd.api.types.is_datetime64_any_dtype(column)
        else None
    )
    return "" if tz is None else str(tz)


def interval_text(low: float, high: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return ""
    return f'<br><span class="ci">[{low:.4f}, {high:.4f}]</span>'


def systems_of(frame: pd.DataFrame, default: str) -> list[str]:
    if "system" in frame.columns:
        return [str(s) for s in frame["system"].tolist()]
    return [default] * len(frame)


def generic_table(frame: pd.DataFrame, kind: str) -> str:
    """Any result table, every cell escaped; numbers with 4 decimals; a ``status`` cell
    gets its class (pass, fail, uncertain)."""
    head = "".join(f"<th>{esc(c)}</th>" for c in frame.columns)
    rows: list[str] = []
    for record in frame.itertuples(index=False, name=None):
        cells = []
        for column, value in zip(frame.columns, record, strict=True):
            if isinstance(value, float) and not isinstance(value, bool):
                cells.append(num_cell(value, kind=f"{kind}:{column}"))
            elif str(column) == "status":
                status = str(value)
                cells.append(
                    f'<td class="status {status_class(status)}" '
                    f'data-status="{esc(status)}">{esc(status)}</td>'
                )
            else:
                shown = "" if value is None or value is pd.NA or value is pd.NaT else value
                cells.append(f'<td data-kind="{esc(kind)}:{esc(column)}">{esc(shown)}</td>')
        rows.append(f'<tr data-row="{len(rows)}">' + "".join(cells) + "</tr>")
    return f'<table class="{esc(kind)}"><tr>{head}</tr>{"".join(rows)}</table>'


def floats_of(column: pd.Series) -> list[float]:
    """A column of numbers (nulls as NaN) as Python floats."""
    return [float(v) for v in column.to_numpy(dtype=float, na_value=math.nan)]


def short(value: Any, limit: int = 80) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def signed(value: float, relative: bool = False) -> str:
    if math.isnan(value):
        return ""
    return f"{value * 100:+.1f}%" if relative else f"{value:+.4f}"
