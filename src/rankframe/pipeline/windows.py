"""Time windows (``every=``): each query's time, its window, the window as a segment.

A frame binds a time column (``df.rank_eval(time="served_at")``); ``every="1w"`` asks for
one row per window. The data path stays "per query first, aggregate last":

1. the per-query step reads the time column as Arrow (:func:`column_times`: int64 in the
   column's own unit, and its Arrow type) and keeps each query's **earliest** time
   (:func:`earliest`); parts hold whole queries, so a part's minimum is the query's;
   a part's per-query table carries it as the column :data:`TIME`, in the column's type
   (:func:`per_query_column`);
2. the finish step truncates those times to window starts with polars' ``dt.truncate``
   (:func:`starts`: calendar boundaries, weeks from Monday, a zone-aware column in its
   zone) and makes the window the first segment key (:func:`segmented`); every output row
   gets its window's start as the :data:`WINDOW` column, before the ``by`` columns.

The window has the time column's type: a datetime of its unit and zone, a date for a date
column; integer epochs (``time_unit=``) give a UTC datetime of their unit (seconds: of
milliseconds, polars' coarsest unit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import polars as pl

from rankframe.exceptions import InvalidOptionError, Keyword, OptionName

if TYPE_CHECKING:
    # pandas and pyarrow are imported where used: `rankframe trec` runs without them
    import pyarrow as pa

    from rankframe.pipeline.per_query import PerQuery

__all__ = [
    "TIME",
    "TIME_UNITS",
    "WINDOW",
    "Times",
    "Window",
    "check_every",
    "check_time_unit",
    "column_times",
    "earliest",
    "per_query_column",
    "segment_starts",
    "segmented",
    "starts",
    "window_type",
]

IntArray = npt.NDArray[np.int64]

WINDOW = "window"  # the output column: each row's window start
TIME = "__rankframe_time__"  # per-query tables of parts: each query's earliest time
TIME_UNITS = ("s", "ms", "us", "ns")
#: polars' duration units, for ``every=`` (``"i"``, a count of rows, is no time)
DURATION_UNITS = ("ns", "us", "ms", "s", "m", "h", "d", "w", "mo", "q", "y")
_DURATION = re.compile(r"(?:\d+(?:ns|us|ms|mo|s|m|h|d|w|q|y))+")


@dataclass(frozen=True)
class Window:
    """``every=`` of one request: the duration, the time column and its epochs' unit."""

    every: str
    column: str
    time_unit: str | None = None


@dataclass(frozen=True)
class Times:
    """Per query its earliest time, as int64 in the column's unit, and the column's Arrow
    type (``pa.timestamp``, ``pa.date32`` or an integer type for epochs)."""

    values: IntArray
    type: pa.DataType

    def take(self, positions: IntArray) -> Times:
        return replace(self, values=self.values[positions])


def check_every(every: object) -> str:
    """``every`` when it is a polars duration string (``"1w"``, ``"2w"``, ``"1mo"``,
    ``"1h30m"``) of a positive length; else an error naming the value and the units."""
    valid = isinstance(every, str) and _DURATION.fullmatch(every) is not None
    if valid and not any(int(n) for n in re.findall(r"\d+", str(every))):
        valid = False
    if not valid:
        msg = (
            Keyword("every", every),
            " is not a window length: pass a polars duration string, "
            "a positive integer and a unit, such as '1h', '1d', '1w', '2w', '1mo', '1q' or "
            f"'1y' (units: {', '.join(DURATION_UNITS)}).",
        )
        raise InvalidOptionError(msg)
    return str(every)


def check_time_unit(unit: object) -> None:
    """``time_unit`` must be one of :data:`TIME_UNITS` (or ``None``)."""
    if unit is not None and unit not in TIME_UNITS:
        msg = (
            Keyword("time_unit", unit),
            " is not a unit of integer epochs; pass one of "
            f"{', '.join(map(repr, TIME_UNITS))} (seconds, milliseconds, microseconds, "
            "nanoseconds since 1970-01-01 UTC), or None for a datetime or date column.",
        )
        raise InvalidOptionError(msg)


def no_time_column(every: str) -> InvalidOptionError:
    """The error for ``every=`` without a bound time column."""
    msg = (
        Keyword("every", every),
        " needs a time column: bind it first, e.g. "
        f"df.rank_eval(time='served_at').evaluate([...], every={every!r}) (integer epochs: "
        "also time_unit='s'). A query's time is its earliest row's.",
    )
    return InvalidOptionError(msg)


# -- 1. the per-query step ------------------------------------------------------------------


def column_times(values: pa.Array | pa.ChunkedArray) -> Times:
    """The time column (no nulls: checked before) as int64 in its own unit (timestamps: their
    unit; dates: days; epochs: as they are), and its Arrow type."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    kind = values.type
    if pa.types.is_date64(kind):  # milliseconds at midnight: as days
        values = values.cast(pa.date32())
        kind = values.type
    if pa.types.is_timestamp(kind) or pa.types.is_date32(kind):
        storage = pa.int64() if pa.types.is_timestamp(kind) else pa.int32()
        raw = values.view(storage)
    else:
        raw = values
    # nulls only in a part's rows of item-metric entries, which are never read
    ints = np.asarray(raw.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    return Times(ints, kind)


def earliest(times: Times, query_codes: npt.NDArray[np.integer[Any]], n_queries: int) -> Times:
    """Per query (codes ``0 .. n_queries - 1``), its earliest time."""
    out = np.full(n_queries, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(out, query_codes, times.values)
    return Times(out, times.type)


def per_query_column(times: Times, repeat: int, extra: int) -> pa.Array:
    """A part's per-query :data:`TIME` column: each query's time repeated per system
    (``repeat``), then nulls for ``extra`` rows (the item metrics' entries), in the type of
    the time column."""
    import pyarrow as pa

    values = np.repeat(times.values, repeat)
    mask = np.concatenate([np.zeros(len(values), dtype=bool), np.ones(extra, dtype=bool)])
    values = np.concatenate([values, np.zeros(extra, dtype=np.int64)])
    kind = times.type
    if pa.types.is_timestamp(kind):
        return pa.array(values, pa.int64(), mask=mask).view(kind)
    if pa.types.is_date32(kind):
        return pa.array(values.astype(np.int32), pa.int32(), mask=mask).view(kind)
    return pa.array(values, pa.int64(), mask=mask)


# -- 2. the finish step ---------------------------------------------------------------------


def window_type(kind: pa.DataType, time_unit: str | None) -> pa.DataType:
    """The window column's Arrow type for a time column of Arrow type ``kind``."""
    import pyarrow as pa

    if pa.types.is_timestamp(kind):
        return kind
    if pa.types.is_date(kind):
        return pa.date32()
    unit = "ms" if time_unit in (None, "s") else str(time_unit)
    return pa.timestamp(unit, "UTC")


def starts(times: Times, every: str, time_unit: str | None) -> tuple[IntArray, pa.Array]:
    """Each time's window start (polars ``dt.truncate``): as int64 (for grouping), and as an
    Arrow array of :func:`window_type`."""
    import pyarrow as pa

    kind = times.type
    values = times.values
    if pa.types.is_date32(kind):
        if re.search(r"\d+(?:ns|us|ms|s|m|h)(?!o)", every):
            msg = (
                Keyword("every", every),
                " is shorter than a day, but the time column "
                "holds dates; pass a window of whole days ('1d', '1w', '1mo', ...), or bind "
                "a datetime column with ",
                OptionName("time"),
                ".",
            )
            raise InvalidOptionError(msg)
        series = pl.Series(values.astype(np.int32), dtype=pl.Int32).cast(pl.Date)
    else:
        if pa.types.is_timestamp(kind):
            unit, zone = kind.unit, kind.tz
        else:  # integer epochs, in UTC
            unit, zone = str(time_unit), "UTC"
        if unit == "s":  # polars' coarsest unit is the millisecond
            values, unit = values * 1000, "ms"
        series = pl.Series(values, dtype=pl.Int64).cast(pl.Datetime(unit, "UTC"))
        if zone is not None and zone != "UTC":
            series = series.dt.convert_time_zone(zone)
    truncated = series.dt.truncate(every)
    keys = truncated.to_physical().cast(pl.Int64).to_numpy()
    arrow = truncated.to_arrow()
    wanted = window_type(kind, time_unit)
    if arrow.type != wanted:
        arrow = arrow.cast(wanted)
    return np.asarray(keys, dtype=np.int64), arrow


def segmented(pq: PerQuery, window: Window) -> tuple[PerQuery, Any]:
    """``pq`` with the window as its first segment key (segments ordered by window start,
    then by the ``by`` values), and a function from output rows (rows of the frame that
    are first rows of queries) to their window starts (an Arrow array)."""
    import pyarrow as pa

    assert pq.time is not None  # read for a request with a window
    assert pq.first_rows is not None
    keys, values = starts(pq.time, window.every, window.time_unit)
    _, dense = np.unique(keys, return_inverse=True)
    combined = dense.astype(np.int64) * max(pq.n_segments, 1) + pq.segment
    _, first_query, segment = np.unique(combined, return_index=True, return_inverse=True)
    segmented_pq = replace(
        pq,
        segment=segment.astype(np.int64),
        segment_rows=pq.first_rows[first_query],
        n_segments=len(first_query),
    )
    first_rows = pq.first_rows
    sorter = np.argsort(first_rows, kind="stable")

    def at_rows(rows: IntArray) -> pa.Array:
        positions = sorter[np.searchsorted(first_rows[sorter], rows)]
        return values.take(pa.array(positions, pa.int64()))

    return segmented_pq, at_rows


def segment_starts(pq: PerQuery, window: Window) -> pa.Array:
    """Per segment of a table segmented by window (:func:`segmented`), its window start (an
    Arrow array of :func:`window_type`); every such segment holds a query."""
    import pyarrow as pa

    assert pq.time is not None  # read for a request with a window
    _, values = starts(pq.time, window.every, window.time_unit)
    _, first = np.unique(pq.segment, return_index=True)
    return values.take(pa.array(first.astype(np.int64), pa.int64()))
