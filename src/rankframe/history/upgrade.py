"""A store of an older schema version, upgraded in place in one transaction.

Nothing is rewritten lossily: columns and tables are added, and what version 1 kept in other
places moves to them. Version 2 to 3: ``rankframe_values.value_text`` (the text values of
gaps and sample sizes), the views again (the wide one with the columns of the new kinds, the
answer first), and the kinds ``slices``, ``gaps`` (by the run's ``result``) and
``sample_size`` (a run of values ``n_needed`` and ``effect_size``), which version 2 filed as
evaluations, with the segment keys it made up for them moved out (a gap's ``worst_group``
and ``best_group``, a sample size's ``test``: to text values; a slice's ``slice`` name and
the keys it leaves open: dropped, the name being the keys it constrains). Version 1 to 2:

- ``rankframe_runs.kind``: from the run's ``result`` (``Means`` → ``evaluation``, ...); a
  run of unknown origin is a ``gate`` when a row has a ``status`` or a ``rule`` segment key,
  a ``comparison`` when one has a ``statistic``, an ``evaluation`` otherwise;
- ``rankframe_values.rule``: a gate's rule, which version 1 stored as the segment key
  ``rule`` (``rule=ndcg@10 >= 0.3, theme=news``): it leaves the segment (``theme=news``);
- ``rankframe_segments``: the segment keys of every row, from ``segment_json``;
- the views ``rankframe_trend`` (with ``kind`` and ``rule``) and ``rankframe_wide``.

The stores run it (:func:`upgrade`) through :class:`Transaction`, inside the transaction
that checked the version, so that two processes opening an old store upgrade it once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

import pandas as pd

from rankframe._version import __version__
from rankframe.history import rows
from rankframe.history.schema import SCHEMA_VERSION, UPGRADES, VIEWS

__all__ = ["Transaction", "upgrade"]


class Transaction(Protocol):
    """A store's open write transaction."""

    def execute(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        """Run a statement (``:name`` parameters)."""
        ...

    def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of a query."""
        ...

    def insert(self, table: str, frame: pd.DataFrame) -> None:
        """Append a frame's rows (its columns named as the table's)."""
        ...


def upgrade(transaction: Transaction, version: int, now: datetime) -> None:
    """Take a store of ``version`` to :data:`SCHEMA_VERSION`."""
    while version < SCHEMA_VERSION:
        for statement in UPGRADES[version]:
            transaction.execute(statement)
        if version == 1:
            fill_version_2(transaction)
        elif version == 2:
            fill_version_3(transaction)
        version += 1
    for view in VIEWS:
        transaction.execute(view)
    transaction.execute(
        "INSERT INTO rankframe_schema (version, rankframe_version, created_at) "
        "VALUES (:version, :rankframe_version, :created_at)",
        {"version": SCHEMA_VERSION, "rankframe_version": __version__, "created_at": now},
    )


def fill_version_2(transaction: Transaction) -> None:
    results = dict(transaction.fetch("SELECT run_id, result FROM rankframe_runs"))
    marks = {
        run_id: (bool(status), bool(statistic))
        for run_id, status, statistic in transaction.fetch(
            "SELECT run_id, MAX(CASE WHEN status IS NULL THEN 0 ELSE 1 END), "
            "MAX(CASE WHEN statistic IS NULL THEN 0 ELSE 1 END) FROM rankframe_values "
            "GROUP BY run_id"
        )
    }
    segments = transaction.fetch(
        "SELECT DISTINCT run_id, result_row, segment_json FROM rankframe_values "
        "WHERE segment_json IS NOT NULL"
    )
    with_rule = {run_id for run_id, _, text in segments if "rule" in json.loads(text)}
    kinds = {}
    for run_id, result in results.items():
        status, statistic = marks.get(run_id, (False, False))
        kinds[run_id] = rows.kind_of(
            result, gate=status or run_id in with_rule, comparison=statistic
        )
        transaction.execute(
            "UPDATE rankframe_runs SET kind = :kind WHERE run_id = :run_id",
            {"kind": kinds[run_id], "run_id": run_id},
        )

    moved: dict[tuple[str, str], tuple[str | None, str | None, str | None]] = {}
    keys: list[tuple[str, int, str, str | None]] = []
    for run_id, result_row, text in segments:
        segment = json.loads(text)
        if kinds[run_id] == "gate" and "rule" in segment:
            rule = segment.pop("rule")
            moved[(run_id, text)] = (None if rule is None else str(rule), *_labels(segment))
        keys += [(run_id, int(result_row), k, rows.key_text(v)) for k, v in segment.items()]
    for (run_id, old), (rule, label, new) in moved.items():
        transaction.execute(
            "UPDATE rankframe_values SET rule = :rule, segment = :segment, segment_json = :new "
            "WHERE run_id = :run_id AND segment_json = :old",
            {"rule": rule, "segment": label, "new": new, "run_id": run_id, "old": old},
        )
    if keys:
        transaction.insert(
            "rankframe_segments",
            pd.DataFrame(keys, columns=["run_id", "result_row", "key", "value"]),
        )


def fill_version_3(transaction: Transaction) -> None:
    """The kinds of version 3: a run of ``slices()``, ``gaps()`` or ``sample_size()``
    (filed as an evaluation before) gets its own, by its result or its values' names."""
    for result, kind in rows.KIND_OF_RESULT.items():
        if kind in ("slices", "gaps"):
            transaction.execute(
                "UPDATE rankframe_runs SET kind = :kind WHERE result = :result",
                {"kind": kind, "result": result},
            )
    found = transaction.fetch(
        "SELECT run_id, value_name FROM rankframe_values WHERE value_name IN "
        "('n_needed', 'effect_size', 'slice', 'depth', 'n_tested', 'gap') GROUP BY run_id, "
        "value_name"
    )
    names: dict[str, set[str]] = {}
    for run_id, name in found:
        names.setdefault(run_id, set()).add(name)
    for run_id, held in names.items():
        kind = rows.kind_of(None, gate=False, comparison=False, columns=sorted(held))
        if kind == "sample_size":
            transaction.execute(
                "UPDATE rankframe_runs SET kind = :kind WHERE run_id = :run_id AND "
                "kind = 'evaluation'",
                {"kind": kind, "run_id": run_id},
            )
    # the segments version 2 made up: a gap's groups and a sample size's test were segment
    # keys (now text values), a slice's name and the keys it leaves open too (dropped: the
    # slice's keys are those it constrains)
    found_rows = transaction.fetch(
        "SELECT DISTINCT v.run_id, v.result_row, v.segment_json, r.kind FROM rankframe_values "
        "v JOIN rankframe_runs r ON r.run_id = v.run_id WHERE r.kind IN ('slices', 'gaps', "
        "'sample_size') AND v.segment_json IS NOT NULL"
    )
    added: dict[str, int] = {}
    keys: list[tuple[str, int, str, str | None]] = []
    for run_id, result_row, text, kind in found_rows:
        segment = json.loads(text)
        texts = {k: segment.pop(k) for k in rows.TEXT_VALUES.get(kind, ()) if k in segment}
        if kind == "slices":
            segment.pop(rows.SLICE, None)
            segment = {k: v for k, v in segment.items() if v is not None}
        label, as_json = _labels(segment)
        where = {"run_id": run_id, "row": int(result_row)}
        transaction.execute(
            "UPDATE rankframe_values SET segment = :segment, segment_json = :new "
            "WHERE run_id = :run_id AND result_row = :row",
            {"segment": label, "new": as_json, **where},
        )
        transaction.execute(
            "DELETE FROM rankframe_segments WHERE run_id = :run_id AND result_row = :row", where
        )
        keys += [(run_id, int(result_row), k, rows.key_text(v)) for k, v in segment.items()]
        anchor = "gap" if kind == "gaps" else "n_needed"
        for name, value in texts.items():
            transaction.execute(
                "INSERT INTO rankframe_values (run_id, result_row, segment, segment_json, "
                "window_start, system, metric, k, statistic, status, value_name, value, rule, "
                "value_text) SELECT run_id, result_row, segment, segment_json, window_start, "
                "system, metric, k, statistic, status, :name, NULL, rule, :text FROM "
                "rankframe_values WHERE run_id = :run_id AND result_row = :row AND "
                "value_name = :anchor",
                {
                    "name": name,
                    "text": None if value is None else str(value),
                    "anchor": anchor,
                    **where,
                },
            )
            added[run_id] = added.get(run_id, 0) + 1
    for run_id, count in added.items():
        transaction.execute(
            "UPDATE rankframe_runs SET n_values = n_values + :count WHERE run_id = :run_id",
            {"count": count, "run_id": run_id},
        )
    if keys:
        transaction.insert(
            "rankframe_segments",
            pd.DataFrame(keys, columns=["run_id", "result_row", "key", "value"]),
        )


def _labels(segment: dict[str, Any]) -> tuple[str | None, str | None]:
    """A segment's text and JSON as ``rows.segment_labels`` writes them."""
    if not segment:
        return None, None
    frame = pd.DataFrame({k: pd.Series([v], dtype=object) for k, v in segment.items()})
    text, as_json = rows.segment_labels(frame, list(frame.columns))
    return str(text[0]), str(as_json[0])
