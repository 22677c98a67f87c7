"""The tables of a history store, declared once for every database (``docs/monitoring.md``).

``rankframe_schema``
    One row per schema version the store has had: the ``version`` (:data:`SCHEMA_VERSION`),
    the rankframe that created or upgraded it, when. The highest is the store's; a store of
    a higher version is refused (written by a newer rankframe), one of a lower version is
    upgraded when opened (:data:`UPGRADES`).
``rankframe_runs``
    One row per recorded result: ``run_id`` (a UUID, the primary key), ``recorded_at`` (UTC),
    ``run_name``, ``tags`` (a JSON object of strings), ``rankframe_version``, ``result``
    (what made the result: ``Means`` for ``evaluate`` and the metric methods,
    ``PerQueryRows`` for ``per_query``, ``Comparison`` for ``compare``; NULL when unknown),
    ``options`` (JSON: metrics, ``by``, columns, options, the result's settings), the input's
    fingerprint (``input_rows``, ``input_queries``, ``input_hash``), ``n_values``, the
    number of its rows in ``rankframe_values``, and ``kind`` (version 2): what its rows are,
    one of :data:`KINDS` (``evaluation``, ``per_query``, ``comparison``, ``gate``; version 3:
    ``slices``, ``gaps``, ``sample_size``).
``rankframe_tags``
    One row per (run, tag): the tags again, as rows that plain SQL joins and filters on.
``rankframe_values``
    The long table: one row per (run, result row, value): the result row's keys
    (``segment``, ``segment_json``, ``window_start``, ``system``, ``metric``, ``k``,
    ``statistic``, ``status``, and a gate's ``rule``, version 2), the value's name
    (``value_name``: ``value``, ``ci_low``, ``n_queries``, ``delta``, ``p_value`` ...) and
    the ``value`` (NULL for NaN), or, for a value that is text (a gap's ``worst_group``, a
    sample size's ``test``; version 3), ``value_text``. A gate's rule is its own column,
    never a segment key.
``rankframe_segments`` (version 2)
    One row per (run, result row, segment key): ``key`` and ``value`` (as text): the
    segment keys as rows that plain SQL joins on, one column per key (``docs/monitoring.md``).
``rankframe_trend`` (a view)
    ``rankframe_values`` joined with its run's ``recorded_at``, ``run_id``, ``run_name`` and
    ``kind``: the long rows with their time.
``rankframe_wide`` (a view, version 2)
    One row per (run, result row, metric): run, window, segment, system and metric (and
    rule) with the statistics as typed columns (:data:`WIDE_COLUMNS`), the answer first
    (:data:`WIDE_ORDER`, version 3): what a BI panel reads.

Timestamps are ``TIMESTAMP`` without a time zone holding UTC (SQLite: ISO text).
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "KINDS",
    "SCHEMA_VERSION",
    "TABLES",
    "TREND_VIEW",
    "UPGRADES",
    "WIDE_COLUMNS",
    "WIDE_ORDER",
    "WIDE_VIEW",
    "Column",
    "ddl",
]

SCHEMA_VERSION = 3
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
        ("kind", "text", True),  # version 2 (NULL only in a store being upgraded)
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
        ("rule", "text", True),  # version 2
        ("value_text", "text", True),  # version 3
    ],
    "rankframe_segments": [
        ("run_id", "id", False),
        ("result_row", "int", False),
        ("key", "text", False),
        ("value", "text", True),
    ],
}

KINDS = ("evaluation", "per_query", "comparison", "gate", "slices", "gaps", "sample_size")
"""What a run's rows are (``rankframe_runs.kind``): ``evaluate`` and the metric methods,
``per_query``, ``compare`` (against a baseline, a reference or the previous window),
``check``, ``slices``, ``gaps``, ``sample_size`` (version 3)."""

PRIMARY_KEYS = {
    "rankframe_runs": ("run_id",),
    "rankframe_tags": ("run_id", "tag"),
    "rankframe_segments": ("run_id", "result_row", "key"),
}

VALUE_COLUMNS = [c for c, _, _ in TABLES["rankframe_values"]]

TREND_VIEW = """CREATE VIEW rankframe_trend AS
SELECT r.recorded_at, r.run_id, r.run_name, r.kind, v.result_row, v.segment, v.segment_json,
       v.window_start, v.system, v.metric, v.k, v.statistic, v.rule, v.status, v.value_name,
       v.value, v.value_text
FROM rankframe_values v JOIN rankframe_runs r ON r.run_id = v.run_id"""

# -- the wide view ----------------------------------------------------------------------------

WIDE_KEYS = [
    "recorded_at",
    "run_id",
    "run_name",
    "kind",
    "result_row",
    "window_start",
    "segment",
    "segment_json",
    "system",
    "metric",
    "k",
    "statistic",
    "rule",
    "status",
]
"""The wide view's key columns: the run's, then the result row's (its grouping)."""


def _pick(name: str, column: str = "value") -> str:
    """The value ``name`` of a result row's metric (NULL when the row has none)."""
    return f"MAX(CASE WHEN v.value_name = '{name}' THEN v.{column} END)"


def _gate_columns() -> dict[str, str]:
    """How a gate's (``check()``'s) stored values read as the wide columns: the one place
    that knows check's columns.

    A drop rule's interval of the change and its bound are in the rule's unit: relative for
    a ``%`` rule, in ``ci_low_relative``/``ci_high_relative``/``bound_relative`` since check
    writes ``delta_relative`` (in ``ci_low``/``ci_high``/``bound`` before). Its ``delta`` is
    relative for a ``%`` rule in the tables of rankframe 0.1 (no ``delta_relative`` column),
    absolute once check writes ``delta_relative``: the baseline's statistic is
    ``value / (1 + delta)`` in the first case, ``value - delta`` otherwise, and every other
    number follows from it.
    An absolute rule has the value's interval and no delta.
    """
    value, delta, stored_relative = _pick("value"), _pick("delta"), _pick("delta_relative")
    drop = "v.rule LIKE '% drop %'"
    percent = "v.rule LIKE '%!%' ESCAPE '!'"
    old_percent = f"({percent} AND {stored_relative} IS NULL)"
    baseline = (
        f"(CASE WHEN {old_percent} THEN {value} / NULLIF(1 + {delta}, 0) "
        f"ELSE {value} - {delta} END)"
    )

    def in_unit(name: str) -> str:  # check's column in the rule's unit: *_relative for a %
        return f"COALESCE({_pick(name + '_relative')}, {_pick(name)})"  # rule, since 0.2

    def change(end: str) -> str:  # an end of the change's interval, in absolute units
        return (
            f"CASE WHEN NOT ({drop}) THEN NULL WHEN {percent} THEN {in_unit(end)} * "
            f"{baseline} ELSE {_pick(end)} END"
        )

    return {
        "ci_low": f"CASE WHEN {drop} THEN NULL ELSE {_pick('ci_low')} END",
        "ci_high": f"CASE WHEN {drop} THEN NULL ELSE {_pick('ci_high')} END",
        "delta": f"CASE WHEN {old_percent} THEN {value} - {baseline} ELSE {delta} END",
        "delta_relative": (
            f"COALESCE({stored_relative}, CASE WHEN {old_percent} THEN {delta} "
            f"ELSE {delta} / NULLIF({baseline}, 0) END)"
        ),
        "delta_ci_low": change("ci_low"),
        "delta_ci_high": change("ci_high"),
        "bound": in_unit("bound"),
    }


def _comparison_columns() -> dict[str, str]:
    """``compare()``'s values as the wide columns: the statistic is ``mean``, the interval
    is the (absolute) delta's, ``ratio`` is the statistic over the baseline's."""
    return {
        "value": _pick("mean"),
        "ci_low": "NULL",
        "ci_high": "NULL",
        "delta_relative": f"COALESCE({_pick('delta_relative')}, {_pick('ratio')} - 1)",
        "delta_ci_low": _pick("ci_low"),
        "delta_ci_high": _pick("ci_high"),
    }


def _slices_columns() -> dict[str, str]:
    """``slices()``'s values: the slice's mean is ``value``, its interval is the change's
    (inside against outside, or against the baseline)."""
    return {
        "value": _pick("mean"),
        "ci_low": "NULL",
        "ci_high": "NULL",
        "delta_ci_low": _pick("ci_low"),
        "delta_ci_high": _pick("ci_high"),
    }


def _gaps_columns() -> dict[str, str]:
    """``gaps()``'s values: the gap (best group's mean less the worst's) is ``value``, with
    its interval."""
    return {"value": _pick("gap")}


def _sample_size_columns() -> dict[str, str]:
    """``sample_size()``'s values: the queries needed are ``value``; ``delta`` is the change
    to detect."""
    return {"value": _pick("n_needed")}


WIDE_COLUMNS: dict[str, str] = {
    "value": "float",
    "delta": "float",
    "delta_relative": "float",
    "bound": "float",
    "ci_low": "float",
    "ci_high": "float",
    "delta_ci_low": "float",
    "delta_ci_high": "float",
    "p_adjusted": "float",
    "significant": "bool",
    "p_value": "float",
    "n_queries": "int",
    "paired": "bool",
    "reference_mean": "float",
    "n_reference": "int",
    "wins": "int",
    "ties": "int",
    "losses": "int",
    # slices (version 3)
    "depth": "int",
    "mean_outside": "float",
    "baseline_mean": "float",
    "n_tested": "int",
    # gaps (version 3)
    "worst_group": "text",
    "worst_mean": "float",
    "best_group": "text",
    "best_mean": "float",
    "ratio": "float",
    "n_groups": "int",
    # sample_size (version 3)
    "n_needed": "float",
    "enough": "bool",
    "effect_size": "float",
    "sd": "float",
    "test": "text",
}
"""The wide view's statistics and their types. ``value`` is the answer of the row's kind:
the metric's value (a comparison's and a slice's statistic, ``mean``; a gap; a sample
size's ``n_needed``), ``ci_low``/``ci_high`` its interval; ``delta`` is absolute and
``delta_relative`` relative to the baseline's statistic, their interval
``delta_ci_low``/``delta_ci_high`` (absolute); ``bound`` is a gate's, in its rule's unit.
Then the columns of slices, gaps and sample sizes (version 3). Values of other names stay in
``rankframe_values`` only."""

WIDE_ORDER = [
    "recorded_at",
    "run_id",
    "run_name",
    "kind",
    "window_start",
    "segment",
    "system",
    "metric",
    "rule",
    "status",
    "value",
    "delta",
    "delta_relative",
    "bound",
    "ci_low",
    "ci_high",
    "delta_ci_low",
    "delta_ci_high",
    "p_adjusted",
    "significant",
    "p_value",
    "n_queries",
    *(
        c
        for c in WIDE_COLUMNS
        if c
        not in (
            "value",
            "delta",
            "delta_relative",
            "bound",
            "ci_low",
            "ci_high",
            "delta_ci_low",
            "delta_ci_high",
            "p_adjusted",
            "significant",
            "p_value",
            "n_queries",
        )
    ),
    "k",
    "statistic",
    "result_row",
    "segment_json",
]
"""The wide view's columns in their order (version 3), as the API's tables: the keys, the
answer (a gate's ``status``, the ``value``, its change and bound), the intervals, the
tests, then the rest and the bookkeeping (``k``, ``statistic``, ``result_row``,
``segment_json``)."""


def _wide_column(name: str, kind: str) -> str:
    by_kind = {
        "comparison": _comparison_columns(),
        "gate": _gate_columns(),
        "slices": _slices_columns(),
        "gaps": _gaps_columns(),
        "sample_size": _sample_size_columns(),
    }
    cases = [
        f"WHEN r.kind = '{k}' THEN {columns[name]}"
        for k, columns in by_kind.items()
        if name in columns
    ]
    own = _pick(name, "value_text" if kind == "text" else "value")
    expression = f"CASE {' '.join(cases)} ELSE {own} END" if cases else own
    if kind == "int":
        return f"CAST({expression} AS BIGINT)"
    if kind == "bool":
        return f"({expression}) <> 0"
    return expression


def _key(name: str) -> str:
    return ("r." if name in ("recorded_at", "run_id", "run_name", "kind") else "v.") + name


def wide_view() -> str:
    """The ``rankframe_wide`` view (portable SQL: DuckDB, SQLite, PostgreSQL), its columns
    in :data:`WIDE_ORDER`."""
    selected = ",\n       ".join(
        f"{_key(name)}"
        if name in WIDE_KEYS
        else f"{_wide_column(name, WIDE_COLUMNS[name])} AS {name}"
        for name in WIDE_ORDER
    )
    keys = ", ".join(_key(k) for k in WIDE_KEYS)
    return (
        f"CREATE VIEW rankframe_wide AS\nSELECT {selected}\n"
        "FROM rankframe_values v JOIN rankframe_runs r ON r.run_id = v.run_id\n"
        f"GROUP BY {keys}"
    )


WIDE_VIEW = wide_view()

_SQL_TYPES = {
    "text": "VARCHAR",
    "id": "VARCHAR(36)",
    "int": "BIGINT",
    "float": "DOUBLE PRECISION",
    "timestamp": "TIMESTAMP",
}


VIEWS = [TREND_VIEW, WIDE_VIEW]

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
    statements += VIEWS
    return [*statements, INDEX] if index else statements


def create_table(table: str) -> str:
    """The statement that creates one table."""
    return next(s for s in ddl(index=False) if s.startswith(f"CREATE TABLE {table} "))


UPGRADES: dict[int, list[str]] = {
    1: [
        "DROP VIEW rankframe_trend",
        "ALTER TABLE rankframe_runs ADD COLUMN kind VARCHAR",
        "ALTER TABLE rankframe_values ADD COLUMN rule VARCHAR",
        create_table("rankframe_segments"),
    ],
    2: [
        "DROP VIEW IF EXISTS rankframe_wide",
        "DROP VIEW IF EXISTS rankframe_trend",
        "ALTER TABLE rankframe_values ADD COLUMN value_text VARCHAR",
    ],
}
"""The statements that take a store of a version to the next, before the rows of the new
columns are filled (``stores.upgrade``) and the views created."""
