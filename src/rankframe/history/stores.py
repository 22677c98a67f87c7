"""Where a history store lives: a DuckDB file (DuckDB's own Python API) or a database named
by a SQLAlchemy URL (SQLite, PostgreSQL, ...).

Both open a connection per operation and close it after, so that another process can write
between two of ours. Each run is written in one transaction (its run, tags and values rows):
a process killed while recording leaves no partial run, and readers never see one.

- DuckDB lets one process open a file for writing at a time: opening a store held by another
  process is retried with a growing, jittered backoff until ``timeout`` seconds, then
  :class:`~rankframe.exceptions.StoreError` (``problem="busy"``).
- SQLite: writes begin with ``BEGIN IMMEDIATE`` (one writer at a time, waiting up to
  ``timeout``), and a busy database is retried as above.
- A file that is no database, a database of other tables, or a store of a newer schema
  version is refused at opening (:func:`check_tables`, from the tables it finds); a store of
  an older version is upgraded at opening, in one transaction (``upgrade.py``).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

import pandas as pd
import pyarrow as pa

from rankframe._version import __version__
from rankframe.exceptions import StoreError
from rankframe.history import rows
from rankframe.history.schema import SCHEMA_VERSION, TABLES, ddl
from rankframe.history.upgrade import upgrade

__all__ = ["BEFORE_COMMIT", "DuckDBStore", "SQLAlchemyStore", "Store", "missing_package"]

#: Called with the run id inside a run's transaction, just before it commits (for tests that
#: kill a process mid-record).
BEFORE_COMMIT: list[Callable[[str], None]] = []

_T = TypeVar("_T")

SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOTADB = 5, 6, 26
DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of a DuckDB file
SQLITE_MAGIC = b"SQLite format 3\x00"
MAX_DELAY = 0.05  # seconds: the longest wait between two attempts (short: runs are short)
HEADER_GRACE = 1.0  # seconds a file too short for a header may be one being created


def missing_package(package: str, error: ImportError) -> ImportError:
    """The error for a store whose database package is not installed."""
    msg = (
        f"rankframe.History needs {package} for this store: pip install 'rankframe[history]' "
        f"(duckdb and sqlalchemy)."
    )
    out = ImportError(msg)
    out.__cause__ = error
    return out


class Store(Protocol):
    """What :class:`rankframe.History` asks of a database."""

    where: str  # the path, or the URL without its password (for messages)

    def write(
        self, run: dict[str, Any], tags: list[tuple[str, str, str]], values: pd.DataFrame
    ) -> None:
        """Append one run (its ``rankframe_runs`` row, tags and values) in one transaction."""
        ...

    def read(self, sql: str, params: Mapping[str, Any] | None = None) -> pd.DataFrame:
        """The rows of a query (``:name`` parameters)."""
        ...

    def timestamp(self, value: datetime) -> Any:
        """A naive UTC datetime as a query parameter of this database."""
        ...


def _busy(store: str, timeout: float, cause: BaseException) -> StoreError:
    msg = (
        f"The history store {store!r} stayed busy for {timeout:g} s: another process held it "
        f"({cause}). Close the program that holds it open (a DuckDB shell, a BI tool's "
        "read-write connection), or wait longer: History(..., timeout=120)."
    )
    return StoreError(msg, store=store, problem="busy")


def not_a_store(store: str, why: str, fix: str) -> StoreError:
    return StoreError(
        f"{store!r} is not a rankframe history store: {why}. {fix}",
        store=store,
        problem="not_a_store",
    )


def _run_exists(store: str, run_id: str) -> StoreError:
    msg = (
        f"A run with id {run_id!r} is already recorded in {store!r}; runs are never "
        "overwritten. Record without run_id= for a new id, or pass another one."
    )
    return StoreError(msg, store=store, problem="run_exists")


def _backoff(deadline: float, delay: float) -> float:
    """Sleep about ``delay`` (jittered, not past ``deadline``); the next delay."""
    time.sleep(max(0.0, min(delay * (0.5 + random.random()), deadline - time.monotonic())))
    return min(delay * 2, MAX_DELAY)


Action = Literal["create", "upgrade", "ready"]


def check_tables(store: str, tables: set[str], version: int | None, *, create: bool) -> Action:
    """What a database of ``tables`` (and schema ``version``) needs: the store's tables
    created, an upgrade, or nothing; raise when it is no store, or a newer one."""
    if "rankframe_schema" in tables:
        if version is None:
            raise not_a_store(
                store,
                "its table rankframe_schema is empty",
                "Use another file or database; nothing was changed.",
            )
        if version > SCHEMA_VERSION:
            msg = (
                f"The history store {store!r} has schema version {version}, written by a newer "
                f"rankframe; this one reads version {SCHEMA_VERSION} and writes nothing to it. "
                "Upgrade: pip install -U rankframe."
            )
            raise StoreError(msg, store=store, problem="newer_schema")
        return "upgrade" if version < SCHEMA_VERSION else "ready"
    ours = sorted(t for t in tables if t in TABLES)
    if ours:
        raise not_a_store(
            store,
            f"it has {ours[0]} but no rankframe_schema table",
            "Use another file or database; nothing was changed.",
        )
    if tables and not create:
        shown = ", ".join(sorted(tables)[:3])
        raise not_a_store(
            store,
            f"it holds other tables ({shown}) and no rankframe_schema",
            "Pass create=True to add the store's tables (rankframe_*) to this database, or "
            "use a new file",
        )
    return "create"


def _named_to_dollar(sql: str) -> str:
    """``:name`` parameters as DuckDB's ``$name``."""
    return re.sub(r"(?<![:\w]):([A-Za-z_]\w*)", r"$\1", sql)


# -- DuckDB ---------------------------------------------------------------------------------


class DuckDBStore:
    """A store in a DuckDB file, through DuckDB's Python API."""

    def __init__(self, path: Path, *, timeout: float, create: bool) -> None:
        try:
            import duckdb
        except ImportError as error:
            raise missing_package("duckdb", error) from None
        self._duckdb = duckdb
        self.path = path
        self.where = str(path)
        self.timeout = timeout
        if not path.parent.is_dir():
            msg = (
                f"The folder of the history store {self.where!r} does not exist; create it "
                "first, or give a path in an existing folder."
            )
            raise StoreError(msg, store=self.where, problem="not_a_store")
        self._initialise(create)

    def _header_fault(self) -> str | None:
        """Why the file is no DuckDB database (``None``: it is one, or is being created)."""
        try:
            with self.path.open("rb") as file:
                header = file.read(16)
        except OSError:
            return None
        if len(header) < 12:
            return "short"
        if header[8:12] == DUCKDB_MAGIC:
            return None
        return "sqlite" if header.startswith(SQLITE_MAGIC) else "other"

    def _not_duckdb(self, fault: str) -> StoreError:
        fix = "Give the path of a DuckDB file (a new one is created), or another store."
        if fault == "sqlite":
            fix = f"It is a SQLite database: open it as History('sqlite:///{self.path}')."
        return not_a_store(self.where, "the file is not a DuckDB database", fix)

    @contextmanager
    def connect(self, *, read_only: bool) -> Iterator[Any]:
        """A connection, retried while another process holds the file."""
        duckdb = self._duckdb
        start = time.monotonic()
        deadline, delay = start + self.timeout, 0.002
        while True:
            try:
                # a writer's one thread: a run's rows are few, and DuckDB starts faster
                config = {} if read_only else {"threads": 1}
                con = duckdb.connect(str(self.path), read_only=read_only, config=config)
                break
            except duckdb.ConnectionException as error:  # open in this process, otherwise
                if time.monotonic() >= deadline:
                    raise _busy(self.where, self.timeout, error) from None
                delay = _backoff(deadline, delay)
            except duckdb.CatalogException:  # a path DuckDB reads by its extension
                raise self._not_duckdb(self._header_fault() or "other") from None
            except duckdb.IOException as error:  # held by another process, or no database
                fault = self._header_fault()
                if fault in ("sqlite", "other") or (
                    fault == "short" and time.monotonic() - start > HEADER_GRACE
                ):
                    raise self._not_duckdb(fault) from None
                if time.monotonic() >= deadline:
                    raise _busy(self.where, self.timeout, error) from None
                delay = _backoff(deadline, delay)
        try:
            yield con
        finally:
            con.close()

    def _state(self, con: Any) -> tuple[set[str], int | None]:
        tables = {
            r[0]
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = "
                "current_schema()"
            ).fetchall()
        }
        version = None
        if "rankframe_schema" in tables:
            version = con.execute("SELECT max(version) FROM rankframe_schema").fetchone()[0]
        return tables, version

    def _initialise(self, create: bool) -> None:
        if self.path.exists():
            # a file of other bytes (a CSV, a Parquet file, text) is refused before DuckDB
            # opens it: DuckDB reads some by their extension, and nothing may touch them
            fault = self._header_fault()
            if fault in ("sqlite", "other") or self.path.is_dir():
                raise self._not_duckdb("other" if fault is None else fault)
            with self.connect(read_only=True) as con:
                if check_tables(self.where, *self._state(con), create=create) == "ready":
                    return
        with self.connect(read_only=False) as con:
            con.begin()
            try:
                tables, version = self._state(con)
                action = check_tables(self.where, tables, version, create=create)
                if action == "create":
                    for statement in ddl(index=False):
                        con.execute(statement)
                    con.execute(
                        "INSERT INTO rankframe_schema VALUES (?, ?, ?)",
                        [SCHEMA_VERSION, __version__, _now()],
                    )
                elif action == "upgrade":
                    upgrade(_DuckDBTransaction(con), int(version or 0), _now())
                con.commit()
            except BaseException:
                con.rollback()
                raise

    def write(
        self, run: dict[str, Any], tags: list[tuple[str, str, str]], values: pd.DataFrame
    ) -> None:
        run_id = run["run_id"]
        with self.connect(read_only=False) as con:
            con.begin()
            try:
                if con.execute(
                    "SELECT count(*) FROM rankframe_runs WHERE run_id = ?", [run_id]
                ).fetchone()[0]:
                    raise _run_exists(self.where, run_id)
                columns = list(run)
                con.execute(
                    f"INSERT INTO rankframe_runs ({', '.join(columns)}) VALUES "
                    f"({', '.join('?' * len(columns))})",
                    [run[c] for c in columns],
                )
                if tags:
                    con.executemany("INSERT INTO rankframe_tags VALUES (?, ?, ?)", tags)
                transaction = _DuckDBTransaction(con)
                transaction.insert("rankframe_values", values.assign(run_id=run_id))
                transaction.insert(
                    "rankframe_segments", rows.segment_keys(values).assign(run_id=run_id)
                )
                for hook in BEFORE_COMMIT:
                    hook(run_id)
                con.commit()
            except BaseException:
                con.rollback()
                raise

    def read(self, sql: str, params: Mapping[str, Any] | None = None) -> pd.DataFrame:
        with self.connect(read_only=True) as con:
            if params:
                return con.execute(_named_to_dollar(sql), dict(params)).df()  # type: ignore[no-any-return]
            return con.execute(sql).df()  # type: ignore[no-any-return]

    def timestamp(self, value: datetime) -> Any:
        return value


class _DuckDBTransaction:
    """:class:`~rankframe.history.upgrade.Transaction` on a DuckDB connection."""

    def __init__(self, con: Any) -> None:
        self.con = con

    def execute(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        if params:
            self.con.execute(_named_to_dollar(sql), dict(params))
        else:
            self.con.execute(sql)

    def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        return self.con.execute(sql).fetchall()  # type: ignore[no-any-return]

    def insert(self, table: str, frame: pd.DataFrame) -> None:
        if frame.empty:
            return
        self.con.register("rankframe_new_rows", pa.Table.from_pandas(frame, preserve_index=False))
        columns = ", ".join(frame.columns)
        self.con.execute(
            f"INSERT INTO {table} ({columns}) SELECT {columns} FROM rankframe_new_rows"
        )
        self.con.unregister("rankframe_new_rows")


# -- SQLAlchemy ------------------------------------------------------------------------------


class _SQLAlchemyTransaction:
    """:class:`~rankframe.history.upgrade.Transaction` on a SQLAlchemy connection."""

    def __init__(self, store: SQLAlchemyStore, conn: Any) -> None:
        self.store, self.conn = store, conn

    def execute(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        self.conn.execute(self.store._sa.text(sql), dict(params or {}))

    def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self.conn.execute(self.store._sa.text(sql)).fetchall()]

    def insert(self, table: str, frame: pd.DataFrame) -> None:
        records = _records(frame)
        if records:
            self.conn.execute(self.store.tables[table].insert(), records)


class SQLAlchemyStore:
    """A store in any database SQLAlchemy reaches (SQLite, PostgreSQL, ...)."""

    def __init__(self, url: str, *, timeout: float, create: bool) -> None:
        try:
            import sqlalchemy as sa
        except ImportError as error:
            raise missing_package("sqlalchemy", error) from None
        self._sa = sa
        self.url = sa.engine.make_url(url)
        self.where = self.url.render_as_string(hide_password=True)
        self.timeout = timeout
        self.sqlite = self.url.get_backend_name() == "sqlite"
        connect_args = {"timeout": timeout} if self.sqlite else {}
        pool = sa.pool.NullPool  # nothing held open between operations
        self.reader = sa.create_engine(self.url, connect_args=connect_args, poolclass=pool)
        self.writer = sa.create_engine(self.url, connect_args=connect_args, poolclass=pool)
        if self.sqlite:
            # one writer at a time, from the transaction's first statement (SQLAlchemy's
            # recipe: the driver's own transaction handling off, BEGIN IMMEDIATE on begin)
            @sa.event.listens_for(self.writer, "connect")
            def _no_driver_transactions(dbapi_connection: Any, _: Any) -> None:
                dbapi_connection.isolation_level = None

            @sa.event.listens_for(self.writer, "begin")
            def _begin_immediate(connection: Any) -> None:
                connection.exec_driver_sql("BEGIN IMMEDIATE")

        metadata = sa.MetaData()
        types: dict[str, Any] = {
            "text": sa.String(),
            "id": sa.String(36),
            "int": sa.BigInteger(),
            "float": sa.Double(),
            "timestamp": sa.DateTime(),
        }
        self.tables = {
            name: sa.Table(
                name, metadata, *(sa.Column(c, types[t], nullable=n) for c, t, n in columns)
            )
            for name, columns in TABLES.items()
        }
        try:
            self._retried(lambda: self._initialise(create))
        except (sa.exc.IntegrityError, sa.exc.ProgrammingError):
            # another process created the tables meanwhile (PostgreSQL runs two CREATE TABLE
            # at once): what is there now is checked again
            self._retried(lambda: self._initialise(create))

    def _fault(self, error: BaseException) -> str | None:
        """``"busy"``, ``"not_a_database"`` or ``None`` for a database error."""
        code = getattr(getattr(error, "orig", None), "sqlite_errorcode", None)
        if code in (SQLITE_BUSY, SQLITE_LOCKED):
            return "busy"
        if code == SQLITE_NOTADB:
            return "not_a_database"
        return None

    def _retried(self, attempt: Callable[[], _T]) -> _T:
        deadline, delay = time.monotonic() + self.timeout, 0.002
        while True:
            try:
                return attempt()
            except self._sa.exc.DBAPIError as error:
                fault = self._fault(error)
                if fault == "not_a_database":
                    raise not_a_store(
                        self.where,
                        "the file is not a SQLite database",
                        "Give a SQLite file (a new one is created), or another store.",
                    ) from None
                if fault != "busy":
                    raise
                if time.monotonic() >= deadline:
                    raise _busy(self.where, self.timeout, error.orig or error) from None
                delay = _backoff(deadline, delay)

    def _state(self, conn: Any) -> tuple[set[str], int | None]:
        inspector = self._sa.inspect(conn)
        tables = set(inspector.get_table_names()) | set(inspector.get_view_names())
        version = None
        if "rankframe_schema" in tables:
            version = conn.execute(
                self._sa.text("SELECT max(version) FROM rankframe_schema")
            ).scalar()
        return tables, version

    def _initialise(self, create: bool) -> None:
        with self.reader.connect() as conn:
            if check_tables(self.where, *self._state(conn), create=create) == "ready":
                return
        with self.writer.begin() as conn:
            tables, version = self._state(conn)
            if not self.sqlite and "rankframe_schema" in tables:
                # PostgreSQL: one process upgrades, the others wait and find it done
                conn.execute(self._sa.text("LOCK TABLE rankframe_schema IN EXCLUSIVE MODE"))
                tables, version = self._state(conn)
            action = check_tables(self.where, tables, version, create=create)
            if action == "upgrade":
                upgrade(_SQLAlchemyTransaction(self, conn), int(version or 0), _now())
            elif action == "create":
                for statement in ddl(index=True):
                    conn.execute(self._sa.text(statement))
                conn.execute(
                    self.tables["rankframe_schema"].insert(),
                    [
                        {
                            "version": SCHEMA_VERSION,
                            "rankframe_version": __version__,
                            "created_at": _now(),
                        }
                    ],
                )

    def write(
        self, run: dict[str, Any], tags: list[tuple[str, str, str]], values: pd.DataFrame
    ) -> None:
        records = _records(values)
        run_id = run["run_id"]
        tables = self.tables

        def attempt() -> None:
            with self.writer.begin() as conn:
                runs = tables["rankframe_runs"]
                found = conn.execute(
                    self._sa.select(self._sa.func.count())
                    .select_from(runs)
                    .where(runs.c.run_id == run_id)
                ).scalar()
                if found:
                    raise _run_exists(self.where, run_id)
                conn.execute(runs.insert(), [run])
                if tags:
                    conn.execute(
                        tables["rankframe_tags"].insert(),
                        [{"run_id": r, "tag": t, "value": v} for r, t, v in tags],
                    )
                if records:
                    conn.execute(
                        tables["rankframe_values"].insert(),
                        [{"run_id": run_id, **r} for r in records],
                    )
                _SQLAlchemyTransaction(self, conn).insert(
                    "rankframe_segments", rows.segment_keys(values).assign(run_id=run_id)
                )
                for hook in BEFORE_COMMIT:
                    hook(run_id)

        try:
            self._retried(attempt)
        except self._sa.exc.IntegrityError:  # the same id, written by another process since
            raise _run_exists(self.where, run_id) from None

    def read(self, sql: str, params: Mapping[str, Any] | None = None) -> pd.DataFrame:
        def attempt() -> pd.DataFrame:
            with self.reader.connect() as conn:
                result = conn.execute(self._sa.text(sql), dict(params or {}))
                return pd.DataFrame(result.fetchall(), columns=list(result.keys()))

        return self._retried(attempt)

    def timestamp(self, value: datetime) -> Any:
        # SQLite holds timestamps as the text SQLAlchemy writes: compare as that text
        return value.strftime("%Y-%m-%d %H:%M:%S.%f") if self.sqlite else value


def _records(values: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as dicts of Python values, NULL for NaN and NaT."""
    columns: dict[str, Sequence[Any]] = {}
    for name in values.columns:
        column = values[name]
        if pd.api.types.is_datetime64_any_dtype(column.dtype):
            columns[name] = [None if pd.isna(v) else v.to_pydatetime() for v in column]
        elif column.dtype.kind == "f":
            columns[name] = [None if v != v else float(v) for v in column.tolist()]
        else:
            columns[name] = column.tolist()
    names = list(columns)
    return [dict(zip(names, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def _now() -> datetime:
    """Now, as a naive UTC datetime (the store's timestamps)."""
    return datetime.now(UTC).replace(tzinfo=None)
