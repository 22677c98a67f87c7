"""``rankframe.History``: an append-only store of results that dashboards read with SQL.

The modules: ``schema`` (the tables and views, declared once), ``rows`` (a result as the
store's long rows, read from its columns; the input's fingerprint), ``stores`` (a DuckDB
file through DuckDB's API, any other database through SQLAlchemy: connections, retries, one
transaction per run), ``upgrade`` (a store of an older schema version, upgraded at
opening). ``rankframe.History`` is :class:`rankframe.api.store.History`: this class and the
store's HTML dashboard (drawn with the report's charts, which this layer does not import).
``docs/monitoring.md`` documents the tables and the SQL of dashboard panels.
Neither duckdb nor sqlalchemy is imported before a store is opened.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd
import polars as pl

from rankframe._version import __version__
from rankframe.exceptions import InvalidOptionError
from rankframe.history import rows, stores
from rankframe.history.schema import KINDS, SCHEMA_VERSION, TABLES, WIDE_COLUMNS, WIDE_ORDER
from rankframe.pipeline import provenance as _provenance
from rankframe.pipeline.binding import Bound
from rankframe.pipeline.steps import ColumnNames

if TYPE_CHECKING:
    from pandas.api.typing import NaTType

__all__ = ["SCHEMA_VERSION", "TABLES", "History"]

FrameKind = Literal["pandas", "polars"]
_TIMES = ("recorded_at", "window_start", "created_at")
_INTS = (
    "input_rows",
    "input_queries",
    "n_values",
    "result_row",
    "version",
    *(c for c, t in WIDE_COLUMNS.items() if t == "int"),
)
_BOOLS = tuple(c for c, t in WIDE_COLUMNS.items() if t == "bool")
_FLOATS = ("k", "value", *(c for c, t in WIDE_COLUMNS.items() if t == "float"))
_RUN_COLUMNS = [c for c, _, _ in TABLES["rankframe_runs"]]
_LONG_COLUMNS = [
    "recorded_at",
    "run_id",
    "run_name",
    "kind",
    "result_row",
    "segment",
    "segment_json",
    "window_start",
    "system",
    "metric",
    "k",
    "statistic",
    "rule",
    "status",
    "value_name",
    "value",
    "value_text",
]
_WIDE_COLUMNS = WIDE_ORDER
Kind = Literal["evaluation", "per_query", "comparison", "gate", "slices", "gaps", "sample_size"]


def _store(where: str | os.PathLike[str], timeout: float, create: bool) -> stores.Store:
    if isinstance(where, str) and "://" in where:
        if where.startswith("duckdb:///"):
            return stores.DuckDBStore(
                Path(where.removeprefix("duckdb:///")), timeout=timeout, create=create
            )
        return stores.SQLAlchemyStore(where, timeout=timeout, create=create)
    return stores.DuckDBStore(Path(os.fspath(where)), timeout=timeout, create=create)


def _utc(value: datetime | date | str, name: str) -> datetime:
    """``since=``/``until=`` as a naive UTC datetime (naive input: UTC already)."""
    try:
        stamp = pd.Timestamp(value)
    except (ValueError, TypeError):
        msg = (
            f"{name}= takes a datetime, a date or an ISO string such as '2026-01-31'; got "
            f"{value!r}."
        )
        raise InvalidOptionError(msg) from None
    if stamp.tzinfo is not None:
        stamp = stamp.tz_convert("UTC").tz_localize(None)
    return stamp.to_pydatetime()


def _recorded_at(value: object) -> datetime:
    """``record(recorded_at=)`` as a naive UTC datetime; a naive or unreadable time is an
    error."""
    fix = (
        "pass a timezone-aware datetime, e.g. datetime(2026, 1, 5, 6, 0, tzinfo=UTC), or an "
        "ISO string with its offset, e.g. '2026-01-05T06:00:00+00:00'"
    )
    if isinstance(value, bool) or not isinstance(value, datetime | str):
        msg = f"recorded_at= takes the run's time: {fix}; got {value!r}."
        raise InvalidOptionError(msg)
    try:
        stamp: pd.Timestamp | NaTType = pd.Timestamp(value)  # NaT for e.g. "NaT"
    except (ValueError, TypeError):
        raise InvalidOptionError(f"recorded_at={value!r} is not a time: {fix}.") from None
    if stamp is pd.NaT or pd.isna(stamp):
        raise InvalidOptionError(f"recorded_at={value!r} is not a time: {fix}.")
    if stamp.tzinfo is None:
        msg = f"recorded_at={value!r} has no time zone, so the instant it names is a guess: {fix}."
        raise InvalidOptionError(msg)
    return stamp.tz_convert("UTC").tz_localize(None).to_pydatetime()


def _segment_text(segment: str | Mapping[str, Any]) -> str:
    if isinstance(segment, str):
        return segment
    frame = pd.DataFrame({k: [v] for k, v in segment.items()})
    text, _ = rows.segment_labels(frame, list(frame.columns))
    return str(text[0])


def _check_tags(tags: Mapping[str, str] | None) -> dict[str, str]:
    if tags is None:
        return {}
    if not isinstance(tags, Mapping):
        raise InvalidOptionError(
            f"tags= takes a dict of strings, e.g. {{'branch': 'main'}}; got {type(tags).__name__}."
        )
    for key, value in tags.items():
        if not isinstance(key, str) or not key or not isinstance(value, str):
            msg = (
                f"tags= takes non-empty string keys and string values; got {key!r}: "
                f"{value!r}. Pass str(value) for a number."
            )
            raise InvalidOptionError(msg)
    return dict(tags)


def _kinds(
    provenance: _provenance.Provenance | None, frame: pd.DataFrame
) -> tuple[str | None, str]:
    """The result's name (the method's result type, ``None`` for a table rankframe did not
    return) and the run's kind, read from its provenance and its columns; a table of a
    method the store cannot hold is a ``TypeError``."""
    request = None if provenance is None else provenance.request
    kind = None if provenance is None else provenance.kind
    result_name = None if request is None else (kind or type(request.result).__name__)
    if result_name is not None and result_name not in rows.KIND_OF_RESULT:
        made_by = rows.REFUSED_CALLS.get(result_name, "another method")
        msg = (
            f"History.record() stores what {rows.RECORDED} return; this table was made "
            f"by {made_by}, which the store cannot hold faithfully. Record one of those "
            "results instead."
        )
        raise TypeError(msg)
    run_kind = rows.kind_of(
        result_name,
        gate=bool({"rule", "status"} & set(frame.columns)),
        comparison="statistic" in frame.columns,
        columns=[str(c) for c in frame.columns],
    )
    return result_name, run_kind


def _input_fingerprint(
    provenance: _provenance.Provenance | None, data: Any
) -> tuple[int | None, int | None, str | None]:
    """The rows, queries and hash of the result's input: ``data`` (a frame, or an accessor
    bound to its columns) when given, else the input the result remembers; ``None`` each
    without an input."""
    names = None if provenance is None or provenance.request is None else provenance.request.names
    source = None if provenance is None else provenance.input()
    if isinstance(data, Bound):  # an accessor: its frame and column names
        binding = data.__rankframe_binding__
        source, names = binding.frame.source, binding.names
    elif data is not None:
        source = data
    if names is None and source is not None:
        names = ColumnNames()
    if source is None or names is None:
        return None, None, None
    return rows.fingerprint(source, names)


def _run_id(run: object, run_id: object) -> str:
    """The run's name checked, and its id: ``run_id`` checked, or a new UUID."""
    if run is not None and not isinstance(run, str):
        raise InvalidOptionError(f"run= takes the run's name, a string; got {run!r}.")
    identifier = str(uuid.uuid4()) if run_id is None else run_id
    if not isinstance(identifier, str) or not identifier or len(identifier) > 36:
        raise InvalidOptionError(
            f"run_id= takes a string of 1 to 36 characters (a UUID); got {run_id!r}."
        )
    return identifier


class History:
    """An append-only store of rankframe results, for dashboards.

    ``History("metrics.duckdb")`` opens (or creates) a DuckDB file; any SQLAlchemy URL
    (``"sqlite:///metrics.db"``, ``"postgresql://user@host/db"``) opens that database.
    ``record`` appends a result table with its run's metadata; ``runs``,
    ``load`` and ``trend`` read them back as frames (``rankframe.History`` adds
    ``dashboard``, a page of every run); BI tools read the documented tables and views
    (``rankframe_wide``: a row per run, window, segment, system and metric, its
    statistics as columns) with plain SQL (``docs/monitoring.md``). A store of an older
    schema version is upgraded when opened.

    Parameters
    ----------
    store
        A path (a DuckDB file, created when missing) or a SQLAlchemy URL.
    frame
        The library of the frames read back: ``"pandas"`` or ``"polars"``.
    timeout
        Seconds to keep retrying while another process holds the store (DuckDB lets one
        process write a file at a time), before ``rankframe.StoreError``.
    create
        Add the store's tables to a database that holds other tables. A new file or an
        empty database gets them anyway; a database of other tables is refused without it.

    Raises
    ------
    StoreError
        The file or database is not a store (``problem="not_a_store"``: any other file, a
        CSV, a Parquet or a text file, left untouched; a database of other tables, without
        ``create=True``), or one of a newer schema version.
    ImportError
        duckdb (for a file) or sqlalchemy (for a URL) is not installed:
        ``pip install 'rankframe[history]'``.

    Examples
    --------
    Two queries: the first ranks its relevant item second (reciprocal rank 1/2), the second
    ranks it first (1), so MRR is 0.75, recorded as one row of ``rankframe_values``:

    >>> import pandas as pd, rankframe, tempfile
    >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["x", "y", "x", "y"],
    ...                    "score": [0.9, 0.1, 0.9, 0.1], "relevant": [0, 1, 1, 0]})
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = rankframe.History(f"{folder.name}/metrics.duckdb")
    >>> run_id = store.record(df.rank_eval.evaluate(["mrr"]), run="nightly",
    ...                       tags={"branch": "main"})
    >>> store.load(metric="mrr")[["run_name", "metric", "value", "n_queries"]]
      run_name metric  value  n_queries
    0  nightly    mrr   0.75          2
    >>> store.runs()[["run_name", "tags", "input_rows", "input_queries"]]
      run_name                 tags  input_rows  input_queries
    0  nightly  {"branch": "main"}           4              2
    >>> folder.cleanup()
    """

    def __init__(
        self,
        store: str | os.PathLike[str],
        *,
        frame: FrameKind = "pandas",
        timeout: float = 30.0,
        create: bool = False,
    ) -> None:
        if frame not in ("pandas", "polars"):
            raise InvalidOptionError(f"frame= takes 'pandas' or 'polars'; got {frame!r}.")
        if not timeout >= 0:
            raise InvalidOptionError(f"timeout= takes seconds >= 0; got {timeout!r}.")
        self._frame_kind = frame
        self._store = _store(store, float(timeout), create)

    @property
    def store(self) -> str:
        """The store's path, or its URL without the password."""
        return self._store.where

    def __repr__(self) -> str:
        return f"History({self.store!r})"

    # -- writing -------------------------------------------------------------------------------

    def record(
        self,
        result: Any,
        *,
        run: str | None = None,
        tags: Mapping[str, str] | None = None,
        data: Any = None,
        keys: Sequence[str] = (),
        run_id: str | None = None,
        recorded_at: datetime | str | None = None,
    ) -> str:
        """Append ``result`` (any result table) as a new run; return the run's id.

        Parameters
        ----------
        result
            What ``evaluate`` (wide or tidy), ``per_query``, ``compare``, ``check`` (or a
            metric method's value per segment), ``slices``, ``gaps`` or ``sample_size``
            returned, of any frame kind; a LazyFrame is collected and a Dask result
            computed. Its rows become ``rankframe_values`` rows, read from its columns
            (``docs/monitoring.md``), under the run's kind (``evaluation``, ...,
            ``slices``, ``gaps``, ``sample_size``); a table another rankframe method made
            is a ``TypeError`` listing these.
        run
            The run's name (``"nightly"``), ``run_name`` in the store.
        tags
            String labels of the run (``{"branch": "main"}``).
        data
            The input the result was computed from, when the result is not the object a
            rankframe method returned (which remembers its input): a frame, or its
            accessor bound to its columns, ``df.rank_eval(query="user_id", ...)``. Its
            fingerprint (rows, queries, a hash of the bound columns) is recorded; without
            it, and for a result whose input is gone, the fingerprint is NULL.
        keys
            Columns of ``result`` that are segment keys although they hold numbers (a
            ``by="year"`` column of a result rankframe did not return).
        run_id
            The run's id (default: a new UUID). An id already in the store is an error:
            nothing is ever overwritten.
        recorded_at
            The run's time (default: now), to backfill runs of the past: a timezone-aware
            ``datetime`` or an ISO string with its offset (``"2026-01-05T06:00:00+00:00"``),
            stored as UTC. A naive time is an error: its zone would be a guess.

        Returns
        -------
        str
            The run's id.
        """
        provenance = _provenance.recall(result)
        request = None if provenance is None else provenance.request
        frame = rows.as_pandas(result)
        result_name, run_kind = _kinds(provenance, frame)
        declared = [] if request is None else [c for c in request.keys if c in frame.columns]
        values = rows.long_values(frame, [*declared, *keys], run_kind)
        n_rows, n_queries, fingerprint = _input_fingerprint(provenance, data)
        checked_tags = _check_tags(tags)
        identifier = _run_id(run, run_id)
        now = datetime.now(UTC).replace(tzinfo=None)
        when = now if recorded_at is None else _recorded_at(recorded_at)
        tag_text = json.dumps(checked_tags, sort_keys=True, ensure_ascii=False)
        settings = None if provenance is None else provenance.settings
        options = None if request is None else rows.options_json(request, settings)
        n_values = len(values)
        record = {
            "run_id": identifier,
            "recorded_at": when,
            "run_name": run,
            "tags": tag_text,
            "rankframe_version": __version__,
            "result": result_name,
            "options": options,
            "input_rows": n_rows,
            "input_queries": n_queries,
            "input_hash": fingerprint,
            "n_values": n_values,
            "kind": run_kind,
        }
        tag_rows = [(identifier, k, v) for k, v in sorted(checked_tags.items())]
        self._store.write(record, tag_rows, values)
        return identifier

    # -- reading -------------------------------------------------------------------------------

    def _where(
        self,
        *,
        run: str | None = None,
        run_id: str | None = None,
        since: datetime | date | str | None = None,
        until: datetime | date | str | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> tuple[list[str], dict[str, Any]]:
        """The clauses (on a table aliased ``o``) and parameters of the runs' filters."""
        prefix = "o."
        clauses: list[str] = []
        params: dict[str, Any] = {}
        if run is not None:
            clauses.append(f"{prefix}run_name = :run")
            params["run"] = run
        if run_id is not None:
            clauses.append(f"{prefix}run_id = :run_id")
            params["run_id"] = run_id
        if since is not None:
            clauses.append(f"{prefix}recorded_at >= :since")
            params["since"] = self._store.timestamp(_utc(since, "since"))
        if until is not None:
            clauses.append(f"{prefix}recorded_at < :until")
            params["until"] = self._store.timestamp(_utc(until, "until"))
        for i, (tag, value) in enumerate(_check_tags(tags).items()):
            clauses.append(
                f"EXISTS (SELECT 1 FROM rankframe_tags t WHERE t.run_id = {prefix}run_id "
                f"AND t.tag = :tag{i} AND t.value = :value{i})"
            )
            params[f"tag{i}"], params[f"value{i}"] = tag, value
        return clauses, params

    def runs(
        self,
        *,
        run: str | None = None,
        run_id: str | None = None,
        since: datetime | date | str | None = None,
        until: datetime | date | str | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> Any:
        """The recorded runs, oldest first: a row of ``rankframe_runs`` each (``tags`` and
        ``options`` as JSON text). Filters: the run's name (``run``), id, ``since``
        (inclusive) / ``until`` (exclusive) in UTC (naive datetimes are UTC), and ``tags``
        (every one given must match)."""
        clauses, params = self._where(run=run, run_id=run_id, since=since, until=until, tags=tags)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = (
            f"SELECT {', '.join(_RUN_COLUMNS)} FROM rankframe_runs o{where} "
            "ORDER BY recorded_at, run_id"
        )
        return self._out(self._store.read(sql, params), _RUN_COLUMNS)

    def load(
        self,
        *,
        metric: str | None = None,
        system: str | None = None,
        segment: str | Mapping[str, Any] | None = None,
        kind: Kind | None = "evaluation",
        rule: str | None = None,
        run: str | None = None,
        run_id: str | None = None,
        since: datetime | date | str | None = None,
        until: datetime | date | str | None = None,
        tags: Mapping[str, str] | None = None,
        long: bool = False,
        value_name: str | None = None,
    ) -> Any:
        """Recorded values: one row per (run, result row, metric), oldest run first, with
        the statistics as columns (the view ``rankframe_wide``).

        Columns, the answer first: the run's ``recorded_at``, ``run_id``, ``run_name`` and
        ``kind``, the row's keys (``window_start``, ``segment``, ``system``, ``metric``, a
        gate's ``rule``), the answer (a gate's ``status``, ``value``, ``delta`` (absolute),
        ``delta_relative``, ``bound``), the intervals (``ci_low``, ``ci_high``,
        ``delta_ci_low``, ``delta_ci_high``), the tests (``p_adjusted``, ``significant``,
        ``p_value``), ``n_queries``, the rest (``paired``, ``reference_mean``,
        ``n_reference``, ``wins``, ``ties``, ``losses``, and the columns of slices, gaps and
        sample sizes), the bookkeeping (``k``, ``statistic``, ``result_row``,
        ``segment_json``; NaN or null where the row has none), then one column per segment
        key (``theme``) read from ``segment_json``.
        ``long=True`` gives the stored rows instead, one per value (``value_name``,
        ``value``), every value the result had.

        Filters: ``metric`` (a label, ``"ndcg@10"``), ``system``, ``segment`` (``{}`` for
        rows of no segment, ``{"theme": "news"}`` or its text ``"theme=news"``), ``kind``
        (the runs' kind: ``"evaluation"`` by default, ``"per_query"``, ``"comparison"``,
        ``"gate"``, ``"slices"``, ``"gaps"``, ``"sample_size"``, or ``None`` for every
        run), a gate's ``rule``, the filters of ``runs``, and with ``long=True``
        ``value_name`` (``"value"``, ``"ci_low"``, ...).
        """
        if kind is not None and kind not in KINDS:
            raise InvalidOptionError(
                f"kind= takes one of {', '.join(map(repr, KINDS))} or "
                f"None (every run); got {kind!r}."
            )
        if value_name is not None and not long:
            raise InvalidOptionError(
                f"value_name={value_name!r} filters the stored long rows: pass long=True, or "
                f"read the column {value_name!r} of the wide rows."
            )
        clauses, params = self._where(run=run, run_id=run_id, since=since, until=until, tags=tags)
        for column, value in (
            ("metric", metric),
            ("system", system),
            ("kind", kind),
            ("rule", rule),
            ("value_name", value_name),
        ):
            if value is not None:
                clauses.append(f"o.{column} = :{column}")
                params[column] = value
        if segment is not None:
            if isinstance(segment, Mapping) and not segment:
                clauses.append("o.segment IS NULL")
            else:
                clauses.append("o.segment = :segment")
                params["segment"] = _segment_text(segment)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        if long:
            columns, view, order = _LONG_COLUMNS, "rankframe_trend", "result_row"
        else:
            columns, view, order = _WIDE_COLUMNS, "rankframe_wide", "result_row, metric, rule"
        sql = (
            f"SELECT {', '.join(columns)} FROM {view} o{where} "
            f"ORDER BY recorded_at, run_id, {order}"
        )
        table = self._store.read(sql, params)
        return self._out(_with_segment_columns(table), columns)

    def trend(
        self,
        metric: str,
        *,
        system: str | None = None,
        segment: str | Mapping[str, Any] | None = None,
        kind: Kind | None = "evaluation",
        run: str | None = None,
        since: datetime | date | str | None = None,
        until: datetime | date | str | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> Any:
        """One metric over time: a row per (run, system, segment, window) with the run's
        ``recorded_at`` and ``run_name``, the ``value``, its interval (``ci_low``,
        ``ci_high``) and ``n_queries``, oldest first; what a time-series panel reads from
        ``rankframe_wide``. Evaluations by default (``kind=``: another kind of run; a
        comparison's ``value`` is its statistic). Filters as ``load``."""
        table = self.load(
            metric=metric,
            system=system,
            segment=segment,
            kind=kind,
            run=run,
            since=since,
            until=until,
            tags=tags,
        )
        columns = [
            "recorded_at",
            "run_name",
            "run_id",
            "system",
            "segment",
            "window_start",
            "value",
            "ci_low",
            "ci_high",
            "n_queries",
        ]
        if self._frame_kind == "polars":
            return table.select(columns)
        return table[columns].reset_index(drop=True)

    def query(self, sql: str) -> Any:
        """The rows of any SQL query on the store (as a dashboard would run it), as a frame."""
        return self._out(self._store.read(sql), [])

    # -- frames ----------------------------------------------------------------------------

    def _out(self, table: pd.DataFrame, columns: list[str]) -> Any:
        """A frame of the user's library, timestamps as UTC, counts as integers."""
        if table.empty and columns and list(table.columns) != columns:
            table = pd.DataFrame({c: [] for c in columns})
        for name in table.columns:
            if name in _TIMES:
                table[name] = pd.to_datetime(table[name], utc=True, format="ISO8601")
            elif name in _INTS:
                table[name] = table[name].astype("Int64")
            elif name in _FLOATS:
                try:
                    table[name] = pd.to_numeric(table[name]).astype("float64")
                except ValueError:  # a column of that name that holds text (query())
                    continue
            elif name in _BOOLS:
                table[name] = table[name].astype("boolean")
        if self._frame_kind == "polars":
            return pl.from_pandas(table)
        return table


def _with_segment_columns(table: pd.DataFrame) -> pd.DataFrame:
    """The table plus one column per segment key found in ``segment_json``."""
    if table.empty or table["segment_json"].isna().all():
        return table
    parsed = {s: json.loads(s) for s in table["segment_json"].dropna().unique()}
    keys = list(dict.fromkeys(k for d in parsed.values() for k in d))
    out = table.copy()
    for key in keys:
        if key in out.columns:  # a key named as a column of the store stays in the JSON
            continue
        out[key] = [
            None if s is None or s != s else parsed[s].get(key) for s in table["segment_json"]
        ]
    return out
