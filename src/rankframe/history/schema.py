"""The tables of a history store, declared once for every database (``docs/monitoring.md``).

``rankframe_schema``
    One row: the store's schema ``version`` (:data:`SCHEMA_VERSION`), the rankframe that
    created it, when. A store of a higher version is refused (written by a newer rankframe).
``rankframe_runs``
    One row per recorded result: ``run_id`` (a UUID, the primary key), ``recorded_at`` (UTC),
    ``run_name``, ``tags`` (a JSON object of strings), ``rankframe_version``, ``result``
    (what made the result: ``Means`` for ``evaluate`` and the metric methods,
    ``PerQueryRows`` for ``per_query``, ``Comparison`` for ``compare``; NULL when unknown),
    ``options`` (JSON: metrics, ``by``, columns, options, the result's settings), the input's
    fingerprint (``input_rows``, ``input_queries``, ``input_hash``) and ``n_values``, the
    number of its rows in ``rankframe_values``.
``rankframe_tags``
    One row per (run, tag): the tags again, as rows that plain SQL joins and filters on.
``rankframe_values``
    The long table: one row per (run, result row, value): the result row's keys
    (``segment``, ``segment_json``, ``window_start``, ``system``, ``metric``, ``k``,
    ``statistic``, ``status``), the value's name (``value_name``: ``value``, ``ci_low``,
    ``n_queries``, ``delta``, ``p_value`` ...) and the ``value`` (NULL for NaN).
``rankframe_trend`` (a view)
    ``rankframe_values`` joined with its run's ``recorded_at``, ``run_id`` and
    ``run_name``: what a time-series panel reads.

Timestamps are ``TIMESTAMP`` without a time zone holding UTC (SQLite: ISO text).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["SCHEMA_VERSION", "TABLES", "TREND_VIEW", "Column", "ddl"]

SCHEMA_VERSION = 1
"""The version this rankframe writes and reads; a store of a higher one is refused."""

Type = Literal["text", "id", "int", "float", "timestamp"]
Column = tuple[str, Type, bool]  # name, type, nullable

TABLES: dict[str, list[Column]] = {
    "rankframe_schema": [
        ("version", "int", False),
        ("rankframe_version", "text", False),
        ("created_at", "timestamp", False),
    ],
    "rankframe_runs": [
        ("run_id", "id", False),
        ("recorded_at", "timestamp", False),
        ("run_name", "text", True),
        ("tags", "text", False),
        ("rankframe_version", "text", False),
        ("result", "text", True),
        ("options", "text", True),
        ("input_rows", "int", True),
        ("input_queries", "int", True),
        ("input_hash", "text", True),
        ("n_values", "int", False),
    ],
    "rankframe_tags": [
        ("run_id", "id", False),
        ("tag", "text", False),
        ("value", "text", False),
    ],
    "rankframe_values": [
        ("run_id", "id", False),
        ("result_row", "int", False),
        ("segment", "text", True),
        ("segment_json", "text", True),
        ("window_start", "timestamp", True),
        ("system", "text", True),
        ("metric", "text", True),
        ("k", "float", True),
        ("statistic", "text", True),
        ("status", "text", True),
        ("value_name", "text", False),
        ("value", "float", True),
    ],
}

PRIMARY_KEYS = {"rankframe_runs": ("run_id",), "rankframe_tags": ("run_id", "tag")}

VALUE_COLUMNS = [c for c, _, _ in TABLES["rankframe_values"]]

TREND_VIEW = """CREATE VIEW rankframe_trend AS
SELECT r.recorded_at, r.run_id, r.run_name, v.result_row, v.segment, v.segment_json,
       v.window_start, v.system, v.metric, v.k, v.statistic, v.status, v.value_name, v.value
FROM rankframe_values v JOIN rankframe_runs r ON r.run_id = v.run_id"""

_SQL_TYPES = {
    "text": "VARCHAR",
    "id": "VARCHAR(36)",
    "int": "BIGINT",
    "float": "DOUBLE PRECISION",
    "timestamp": "TIMESTAMP",
}


INDEX = "CREATE INDEX rankframe_values_run ON rankframe_values (run_id)"
"""An index of the values by run (SQLite, PostgreSQL; DuckDB scans without one)."""


def ddl(*, index: bool) -> list[str]:
    """The statements that create a store (portable SQL: DuckDB, SQLite, PostgreSQL)."""
    statements = []
    for table, columns in TABLES.items():
        lines = [
            f"{name} {_SQL_TYPES[kind]}{'' if nullable else ' NOT NULL'}"
            for name, kind, nullable in columns
        ]
        if table in PRIMARY_KEYS:
            lines.append(f"PRIMARY KEY ({', '.join(PRIMARY_KEYS[table])})")
        statements.append(f"CREATE TABLE {table} (\n    " + ",\n    ".join(lines) + "\n)")
    statements.append(TREND_VIEW)
    return [*statements, INDEX] if index else statements
