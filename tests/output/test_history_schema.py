"""The history store's schema version 2: the wide view, gates stored as gates, the runs'
kind, and the upgrade of a store of version 1 written by rankframe 0.1 (the committed files
tests/data/store-v1.duckdb and .sqlite, made by tests/data/make_store_v1.py).

The expected numbers are written out from the data of make_store_v1.py: eight queries, the
relevant item's rank under ``a`` and ``b``:

    query   1  2  3  4 | 5  6  7  8
    theme   news       | sport
    a       1  2  1  3 | 1  1  2  1
    b       1  1  2  1 | 3  2  1  2

so MRR per theme is a: news (1 + 1/2 + 1 + 1/3)/4 = 17/24, sport (1 + 1 + 1/2 + 1)/4 = 7/8;
b: news (1 + 1 + 1/2 + 1)/4 = 7/8, sport (1/3 + 1/2 + 1 + 1/2)/4 = 7/12.
"""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

from helpers import ROOT
from rankframe import History, InvalidOptionError
from rankframe.history import upgrade

DATA = ROOT / "tests" / "data"
MRR = {("news", "a"): 17 / 24, ("sport", "a"): 7 / 8, ("news", "b"): 7 / 8, ("sport", "b"): 7 / 12}


def _copy(kind: str, folder: Path) -> tuple[str, Path]:
    """A copy of the committed version-1 store: its URL and path."""
    suffix = "duckdb" if kind == "duckdb" else "sqlite"
    path = folder / f"store-v1.{suffix}"
    shutil.copy(DATA / f"store-v1.{suffix}", path)
    return (str(path) if kind == "duckdb" else f"sqlite:///{path}"), path


def _raw(kind: str, path: Path, sql: str) -> list[tuple[Any, ...]]:
    """Rows read from the file directly, without rankframe."""
    if kind == "duckdb":
        with duckdb.connect(str(path), read_only=True) as con:
            return con.execute(sql).fetchall()
    with sqlite3.connect(path) as con:
        return con.execute(sql).fetchall()


VALUES = (
    "SELECT run_id, result_row, value_name, value FROM rankframe_values "
    "ORDER BY run_id, result_row, value_name"
)


@pytest.fixture(params=["duckdb", "sqlite"])
def old(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str, Path]:
    return (request.param, *_copy(request.param, tmp_path))


def test_the_committed_stores_are_of_version_1(old: tuple[str, str, Path]) -> None:
    kind, _, path = old
    assert _raw(kind, path, "SELECT version FROM rankframe_schema") == [(1,)]
    segments = [
        r[0]
        for r in _raw(
            kind, path, "SELECT DISTINCT segment FROM rankframe_values WHERE segment LIKE 'rule=%'"
        )
    ]
    assert "rule=mrr >= 0.5, theme=news" in segments  # version 1: the rule as a segment


def test_an_old_store_is_upgraded_and_loses_nothing(old: tuple[str, str, Path]) -> None:
    kind, where, path = old
    before = _raw(kind, path, VALUES)
    segments_before = _raw(
        kind,
        path,
        "SELECT run_id, result_row, segment_json FROM rankframe_values ORDER BY run_id, result_row",
    )
    store = History(where)
    assert _raw(kind, path, "SELECT version FROM rankframe_schema ORDER BY version") == [
        (1,),
        (3,),
    ]  # upgraded through version 2 to 3 in one transaction
    assert _raw(kind, path, VALUES) == before  # every value as it was
    runs = store.runs()
    assert runs["kind"].tolist() == ["evaluation", "evaluation", "comparison", "gate"]
    assert runs["n_values"].tolist() == [32, 8, 52, 54]
    # the rule left the segment for its own column; every other key stayed
    long = store.load(kind="gate", long=True)
    assert set(long["segment"]) == {"theme=news", "theme=sport"}
    assert set(long["rule"]) == {"mrr >= 0.5", "mrr drop <= 10%"}
    moved = {(r, n): None if s is None else json.loads(s) for r, n, s in segments_before}
    after = _raw(
        kind,
        path,
        "SELECT run_id, result_row, segment_json, rule FROM "
        "rankframe_values ORDER BY run_id, result_row",
    )
    for run_id, row, text, rule in after:
        old_segment = moved[(run_id, row)]
        new_segment = None if text is None else json.loads(text)
        if rule is None:
            assert new_segment == old_segment
        else:
            assert {**new_segment, "rule": rule} == old_segment
    keys = _raw(kind, path, "SELECT DISTINCT key, value FROM rankframe_segments ORDER BY value")
    assert keys == [("theme", "news"), ("theme", "sport")]
    # opened again: nothing to do
    History(where)
    assert len(_raw(kind, path, "SELECT version FROM rankframe_schema")) == 2


def test_an_upgrade_that_fails_leaves_the_old_store(
    old: tuple[str, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    kind, where, path = old
    before = _raw(kind, path, VALUES)

    def broken(transaction: Any) -> None:
        transaction.execute("UPDATE rankframe_runs SET kind = 'x'")
        raise RuntimeError("killed mid-upgrade")

    monkeypatch.setattr(upgrade, "fill_version_2", broken)
    with pytest.raises(RuntimeError, match="killed mid-upgrade"):
        History(where)
    assert _raw(kind, path, "SELECT version FROM rankframe_schema") == [(1,)]
    assert _raw(kind, path, VALUES) == before
    assert len(_raw(kind, path, "SELECT * FROM rankframe_runs")[0]) == 11  # no kind column
    monkeypatch.undo()
    assert History(where).runs()["kind"].tolist()[-1] == "gate"


def test_the_wide_rows_of_an_old_store(old: tuple[str, str, Path]) -> None:
    _, where, _ = old
    store = History(where)
    evaluation = store.load(metric="mrr", segment={"theme": "news"})
    # load() reads evaluations: one row per run x segment x system, statistics as columns
    assert evaluation[["system", "value", "n_queries"]].to_dict("records") == [
        {"system": "a", "value": pytest.approx(17 / 24), "n_queries": 4},
        {"system": "b", "value": pytest.approx(7 / 8), "n_queries": 4},
    ]
    assert (evaluation["ci_low"] <= evaluation["value"]).all()
    assert (evaluation["value"] <= evaluation["ci_high"]).all()
    assert evaluation["theme"].tolist() == ["news", "news"]
    trend = store.trend("mrr", system="b")  # no gate and no comparison rows
    assert trend["value"].tolist() == pytest.approx([7 / 8, 7 / 12, (7 / 8 + 7 / 12) / 2])

    compared = store.load(kind="comparison", system="b").set_index("theme")
    gates = store.load(kind="gate", system="b").set_index(["rule", "theme"])
    for theme in ("news", "sport"):
        delta = MRR[(theme, "b")] - MRR[(theme, "a")]
        relative = MRR[(theme, "b")] / MRR[(theme, "a")] - 1
        assert compared.loc[theme, "delta"] == pytest.approx(delta)
        assert compared.loc[theme, "delta_relative"] == pytest.approx(relative)
        # the % rule stored a relative delta in version 1: read as absolute and relative
        drop = gates.loc[("mrr drop <= 10%", theme)]
        assert drop["delta"] == pytest.approx(delta)
        assert drop["delta_relative"] == pytest.approx(relative)
        assert drop["bound"] == -0.1
        # its interval, relative in version 1, in absolute units: the comparison's
        assert drop["delta_ci_low"] == pytest.approx(compared.loc[theme, "delta_ci_low"])
        assert drop["delta_ci_high"] == pytest.approx(compared.loc[theme, "delta_ci_high"])
        assert pd.isna(drop["ci_low"])
        absolute = gates.loc[("mrr >= 0.5", theme)]
        assert absolute["value"] == pytest.approx(MRR[(theme, "b")])
        assert absolute["ci_low"] <= absolute["value"] <= absolute["ci_high"]
        assert pd.isna(absolute["delta"])
    assert gates["status"].to_dict() == {
        ("mrr >= 0.5", "news"): "pass",
        ("mrr >= 0.5", "sport"): "uncertain",
        ("mrr drop <= 10%", "news"): "pass",
        ("mrr drop <= 10%", "sport"): "uncertain",
    }


def test_a_new_check_is_stored_as_gates(tmp_path: Path) -> None:
    df = pd.DataFrame(
        {
            "query": [1, 1, 2, 2],
            "item": ["x", "y"] * 2,
            "a": [0.9, 0.1] * 2,
            "b": [0.1, 0.9] * 2,
            "relevant": [0, 1, 1, 0],
            "theme": ["t", "t", "u", "u"],
        }
    )
    store = History(tmp_path / "m.duckdb")
    ev = df.rank_eval(score=["a", "b"])
    store.record(ev.evaluate(["mrr"], by="theme"), run="nightly")
    store.record(
        ev.check(
            ["mrr >= 0.5", "mrr drop <= 0.1"], by="theme", baseline="a", min_queries=1, mode="point"
        ),
        run="gate",
    )
    assert store.runs()["kind"].tolist() == ["evaluation", "gate"]
    assert set(store.load()["run_name"]) == {"nightly"}
    assert set(store.load(kind=None)["segment"]) == {"theme=t", "theme=u"}
    gates = store.load(kind="gate")
    assert gates.groupby("rule").size().to_dict() == {"mrr >= 0.5": 4, "mrr drop <= 0.1": 2}
    # query 1 (theme t): a ranks the relevant y second (1/2), b first (1); query 2 (u): a
    # ranks the relevant x first (1), b second (1/2)
    drop = gates[gates["rule"] == "mrr drop <= 0.1"].set_index("theme")
    assert drop["delta"].to_dict() == {"t": 0.5, "u": -0.5}
    assert drop["delta_relative"].to_dict() == {"t": 1.0, "u": -0.5}
    assert drop["status"].to_dict() == {"t": "pass", "u": "fail"}


def test_bad_load_arguments(tmp_path: Path) -> None:
    store = History(tmp_path / "m.duckdb")
    with pytest.raises(InvalidOptionError, match="kind= takes one of 'evaluation'"):
        store.load(kind="gates")  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match="pass long=True"):
        store.load(value_name="ci_low")


def test_a_percentage_rule_reads_in_its_unit_and_in_absolute_terms(tmp_path: Path) -> None:
    # check() writes a % rule's interval and bound as ci_low_relative, ..., bound_relative;
    # the wide view gives the bound in the rule's unit (-0.1) and the interval of the change
    # in absolute terms: the same interval as the absolute rule on the same pair of systems
    df = pd.DataFrame(
        {
            "query": [1, 1, 2, 2, 3, 3],
            "item": ["x", "y"] * 3,
            "a": [0.9, 0.1] * 3,
            "b": [0.1, 0.9, 0.9, 0.1, 0.9, 0.1],
            "relevant": [0, 1, 1, 0, 1, 0],
        }
    )
    store = History(tmp_path / "m.duckdb")
    ev = df.rank_eval(score=["a", "b"])
    store.record(ev.check(["mrr drop <= 10%", "mrr drop <= 0.1"], baseline="a"), run="gate")
    gates = store.load(kind="gate").set_index("rule")
    percent, absolute = gates.loc["mrr drop <= 10%"], gates.loc["mrr drop <= 0.1"]
    assert percent["bound"] == -0.1
    assert absolute["bound"] == -0.1
    # reciprocal ranks, a: 1/2, 1, 1 (mean 5/6); b: 1, 1, 1 (1): the change +1/6, relative
    # (1/6) / (5/6) = +1/5
    assert percent["delta"] == pytest.approx(1 / 6)
    assert percent["delta_relative"] == pytest.approx(1 / 5)
    for end in ("delta_ci_low", "delta_ci_high"):
        assert not math.isnan(percent[end])
        assert percent[end] == pytest.approx(absolute[end])
