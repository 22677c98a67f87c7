"""``rankframe.History``: results of every frame kind recorded in DuckDB and SQLite (and
PostgreSQL when ``RANKFRAME_TEST_POSTGRES_URL`` names a server) and read back; the SQL of
docs/monitoring.md run against a store; two writers at once; a writer killed mid-record;
the errors of stores that are no store, newer, busy, or given a run id twice.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import polars as pl
import pytest
import sqlalchemy as sa

import rankframe
from helpers import DOCS, FRAME_KINDS, FrameMaker, as_pandas
from rankframe import History, StoreError
from rankframe.exceptions import InvalidOptionError

POSTGRES = os.environ.get("RANKFRAME_TEST_POSTGRES_URL")
STORES = ["duckdb", "sqlite", *(["postgresql"] if POSTGRES else [])]
SRC = str(Path(rankframe.__file__).resolve().parents[1])

# Four queries, two segments, two items each; system a ranks x first, b ranks y first. The
# relevant item is y for q1, q2, q4 and x for q3, so reciprocal ranks are a: 1/2, 1/2, 1, 1/2
# and b: 1, 1, 1/2, 1 (segment new = q1, q2; casual = q3, q4).
DATA = {
    "query": [1, 1, 2, 2, 3, 3, 4, 4],
    "item": ["x", "y"] * 4,
    "a": [0.9, 0.1] * 4,
    "b": [0.1, 0.9] * 4,
    "relevant": [0, 1, 0, 1, 1, 0, 0, 1],
    "segment": ["new"] * 4 + ["casual"] * 4,
}
RR = {"a": {1: 0.5, 2: 0.5, 3: 1.0, 4: 0.5}, "b": {1: 1.0, 2: 1.0, 3: 0.5, 4: 1.0}}
SEGMENTS = {"new": [1, 2], "casual": [3, 4]}
# NDCG@2 with one relevant item (grade 1): 1 at rank 1, 1/log2(3) at rank 2
NDCG2 = {
    s: {q: 1.0 if rr == 1.0 else 1 / math.log2(3) for q, rr in v.items()} for s, v in RR.items()
}


def _mean(values: dict[int, float], queries: list[int]) -> float:
    return sum(values[q] for q in queries) / len(queries)


def _reset_postgres(url: str) -> None:
    """The test server's database without the store (a test database: dropped per test)."""
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP VIEW IF EXISTS rankframe_trend"))
        conn.execute(sa.text("DROP VIEW IF EXISTS rankframe_wide"))
        for table in (
            "rankframe_values",
            "rankframe_tags",
            "rankframe_runs",
            "rankframe_segments",
            "rankframe_schema",
            "other",
        ):
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {table}"))
    engine.dispose()


def _url(kind: str, folder: Path) -> str:
    if kind == "duckdb":
        return str(folder / "metrics.duckdb")
    if kind == "sqlite":
        return f"sqlite:///{folder / 'metrics.db'}"
    assert POSTGRES is not None
    _reset_postgres(POSTGRES)
    return POSTGRES


@pytest.fixture(params=STORES)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return _url(request.param, tmp_path)


#: A test of a frame kind and a store: every kind on DuckDB, the other stores on pandas and
#: polars-lazy. ``record`` reads any kind into one pandas table (``rows.as_pandas``) before
#: the store sees it, so the kinds and the stores' SQL never meet: their cross product would
#: run each store's SQL on the same table seven times.
KINDS_BY_STORE = [(kind, "duckdb") for kind in FRAME_KINDS] + [
    (kind, store) for store in STORES if store != "duckdb" for kind in ("pandas", "polars-lazy")
]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``make_frame`` and ``url`` together over :data:`KINDS_BY_STORE` (``--frame-kind``
    runs keep every store for the kinds they name)."""
    names = metafunc.fixturenames
    if "make_frame" in names and "url" in names and not metafunc.config.getoption("--frame-kind"):
        metafunc.definition.add_marker(
            pytest.mark.parametrize(
                ("make_frame", "url"),
                KINDS_BY_STORE,
                indirect=True,
                ids=[f"{kind}-{store}" for kind, store in KINDS_BY_STORE],
            )
        )


@pytest.fixture
def store(url: str) -> History:
    return History(url)


def _keyed(table: pd.DataFrame, *keys: str) -> dict[Any, float]:
    """{key (a tuple for several key columns): value} of loaded rows."""

    def key(row: dict[str, Any]) -> Any:
        return row[keys[0]] if len(keys) == 1 else tuple(row[k] for k in keys)

    return {key(row): row["value"] for row in table.to_dict("records")}


# -- round trips on every frame kind ----------------------------------------------------------


def test_wide_round_trip(make_frame: FrameMaker, store: History) -> None:
    frame = make_frame(DATA)
    result = frame.rank_eval(score=["a", "b"]).evaluate(["mrr", "ndcg@2"], by="segment")
    run_id = store.record(result, run="nightly")
    loaded = store.load(run_id=run_id, long=True)
    got = _keyed(loaded, "segment", "system", "metric", "value_name")
    for name, queries in SEGMENTS.items():
        for system in "ab":
            key = (f"segment={name}", system)
            assert got[(*key, "mrr", "value")] == pytest.approx(_mean(RR[system], queries))
            assert got[(*key, "ndcg@2", "value")] == pytest.approx(_mean(NDCG2[system], queries))
            assert got[(*key, "mrr", "n_queries")] == 2
            assert got[(*key, "ndcg@2", "n_queries")] == 2
    assert len(loaded) == 2 * 2 * 2 * 2  # segments x systems x metrics x (value, n_queries)
    # every cell of the result is in the store, as it is
    table = as_pandas(result)
    for row in table.to_dict("records"):
        key = (f"segment={row['segment']}", row["system"])
        assert got[(*key, "mrr", "value")] == row["mrr"]
        assert got[(*key, "ndcg@2", "value")] == row["ndcg@2"]
    assert set(loaded["k"].dropna()) == {2.0}
    assert list(loaded["segment_json"].map(json.loads).map(list).map(tuple).unique()) == [
        ("segment",)
    ]
    runs = store.runs()
    assert len(runs) == 1
    assert runs.loc[0, "n_values"] == len(loaded)
    assert runs.loc[0, "result"] == "Means"
    assert runs.loc[0, "kind"] == "evaluation"
    # the wide rows: one per segment, system and metric, the statistics as columns
    wide = store.load(run_id=run_id)
    assert len(wide) == 2 * 2 * 2
    assert wide["n_queries"].tolist() == [2] * 8
    assert str(wide["n_queries"].dtype) == "Int64"
    assert (
        wide["segment"].tolist()
        == wide["segment_json"].map(lambda s: f"segment={json.loads(s)['segment']}").tolist()
    )
    for row in wide.to_dict("records"):
        expected = (RR if row["metric"] == "mrr" else NDCG2)[row["system"]]
        queries = SEGMENTS[json.loads(row["segment_json"])["segment"]]
        assert row["value"] == pytest.approx(_mean(expected, queries))
    options = json.loads(runs.loc[0, "options"])
    assert options["metrics"] == ["mrr", "ndcg@2"]
    assert options["by"] == ["segment"]
    assert options["columns"]["score"] == ["a", "b"]
    assert options["options"]["ties"] == "trec"


def test_tidy_per_query_and_compare_round_trip(make_frame: FrameMaker, store: History) -> None:
    frame = make_frame(DATA)
    ev = frame.rank_eval(score=["a", "b"])
    tidy = ev.evaluate(["mrr@10"], tidy=True, confidence_level=0.9, n_resamples=50)
    per_query = ev.per_query(["mrr"])
    compared = ev.compare(["mrr"], by="segment", baseline="a")
    ids = [
        store.record(r, run=name)
        for r, name in ((tidy, "tidy"), (per_query, "per_query"), (compared, "compare"))
    ]

    values = store.load(run_id=ids[0], long=True)
    got = _keyed(values, "system", "metric", "value_name")
    table = as_pandas(tidy)
    for row in table.to_dict("records"):
        for name in ("value", "ci_low", "ci_high", "n_queries"):
            assert got[(row["system"], "mrr@10", name)] == row[name]
    assert got[("a", "mrr@10", "value")] == pytest.approx(0.625)
    assert got[("b", "mrr@10", "value")] == pytest.approx(0.875)
    assert set(values["k"]) == {10.0}
    assert values["segment"].isna().all()

    assert store.load(run_id=ids[1]).empty  # not an evaluation: kind="per_query"
    values = store.load(run_id=ids[1], kind="per_query")
    assert len(values) == 8  # queries x systems, one value each
    by_query = _keyed(values, "query", "system")
    assert by_query == {(q, s): RR[s][q] for s in "ab" for q in range(1, 5)}

    values = store.load(run_id=ids[2], kind="comparison").assign(value=lambda t: t["delta"])
    assert _keyed(values, "segment", "system") == pytest.approx(
        {
            ("segment=new", "a"): 0.0,
            ("segment=new", "b"): 0.5,  # b - a: 1/2, 1/2
            ("segment=casual", "a"): 0.0,
            ("segment=casual", "b"): 0.0,  # -1/2, 1/2
        }
    )
    assert set(store.load(run_id=ids[2], kind="comparison")["statistic"]) == {"mean"}
    p_values = store.load(run_id=ids[2], long=True, kind=None, value_name="p_value", system="a")
    assert p_values["value"].isna().all()  # the baseline has no test: NULL
    # the comparison's wide rows: value is the statistic, delta_relative = mean / base - 1
    wide = store.load(run_id=ids[2], kind="comparison", system="b")
    assert _keyed(wide, "segment") == pytest.approx({"segment=new": 1.0, "segment=casual": 0.75})
    assert wide["delta_relative"].tolist() == pytest.approx([0.0, 1.0])  # casual, new


def test_a_metric_per_segment(make_frame: FrameMaker, store: History) -> None:
    """A metric method's value per segment (a pandas Series, a polars frame)."""
    frame = make_frame(DATA)
    run_id = store.record(frame.rank_eval(score="b").mrr(by="segment"))
    loaded = store.load(run_id=run_id, long=True)
    assert _keyed(loaded, "segment", "metric", "value_name") == {
        ("segment=casual", "mrr", "value"): 0.75,
        ("segment=new", "mrr", "value"): 1.0,
    }


def test_fingerprint_is_the_same_on_every_frame_kind(
    make_frame: FrameMaker, store: History
) -> None:
    frame = make_frame(DATA)
    store.record(frame.rank_eval(score=["a", "b"]).evaluate(["mrr"]), run="kind")
    shuffled = pd.DataFrame(DATA).iloc[::-1].reset_index(drop=True)
    store.record(shuffled.rank_eval(score=["a", "b"]).evaluate(["mrr"]), run="reversed")
    changed = pd.DataFrame(DATA).assign(a=[0.9, 0.1] * 3 + [0.1, 0.9])
    store.record(changed.rank_eval(score=["a", "b"]).evaluate(["mrr"]), run="changed")
    runs = store.runs().set_index("run_name")
    assert runs.loc["kind", "input_rows"] == 8
    assert runs.loc["kind", "input_queries"] == 4
    assert runs.loc["kind", "input_hash"] == runs.loc["reversed", "input_hash"]
    assert runs.loc["kind", "input_hash"] != runs.loc["changed", "input_hash"]
    assert re.fullmatch("[0-9a-f]{64}", runs.loc["kind", "input_hash"])


def test_fingerprint_reads_the_sample_column(make_frame: FrameMaker, store: History) -> None:
    """Sampled rankings (rank_eval(sample=...)): the same rows in other samples are
    another input."""
    rows = {
        "query": ["q"] * 4,
        "item": ["a", "b", "a", "b"],
        "score": [2.0, 1.0, 1.0, 2.0],
        "relevant": [1, 0, 1, 0],
    }
    for name, draw in (("one", [0, 0, 1, 1]), ("other", [1, 0, 0, 1])):
        frame = make_frame({**rows, "draw": draw})
        store.record(frame.rank_eval(sample="draw").evaluate(["ee_l"]), run=name)
    runs = store.runs().set_index("run_name")
    assert runs.loc["one", "input_queries"] == 1
    assert runs.loc["one", "input_hash"] != runs.loc["other", "input_hash"]


def test_a_result_that_no_method_returned(make_frame: FrameMaker, store: History) -> None:
    frame = make_frame(DATA)
    ev = frame.rank_eval(score=["a", "b"])
    result = as_pandas(ev.evaluate(["mrr"], by="segment")).copy()
    plain = store.record(result)
    bound = store.record(result, data=frame.rank_eval(score=["a", "b"]))
    # a frame alone: the default column names, which this one does not have
    with pytest.raises(rankframe.ColumnNotFoundError, match=r"no column 'score'.*data=df"):
        store.record(result, data=pd.DataFrame(DATA))
    renamed = pd.DataFrame(DATA).drop(columns="b").rename(columns={"a": "score"})
    given = store.record(result, data=renamed)
    runs = store.runs().set_index("run_id")
    assert runs.loc[plain, ["result", "options", "input_hash"]].isna().all()
    assert runs.loc[bound, "input_rows"] == 8
    assert runs.loc[bound, "input_queries"] == 4
    assert runs.loc[given, "input_rows"] == 8
    assert runs.loc[given, "input_hash"] != runs.loc[bound, "input_hash"]  # one score column
    assert store.load(run_id=plain)["value"].tolist() == pytest.approx(
        [0.75, 0.75, 0.5, 1.0]
    )  # casual a, b; new a, b


# -- what a table's columns say ---------------------------------------------------------------


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_columns_of_other_tables(kind: str, tmp_path: Path) -> None:
    """A gate's table (``status``) and windows, read from their columns."""
    windows = pd.to_datetime(["2026-03-02", "2026-03-09"]).tz_localize("Europe/Paris")
    table = pd.DataFrame(
        {
            "rule": ["ndcg@10 >= 0.3", "ndcg@10 >= 0.3"],
            "window": windows,
            "year": [2026, 2026],
            "system": ["a", "a"],
            "metric": ["ndcg", "ndcg"],
            "k": [10, 10],
            "value": [0.4, 0.25],
            "ci_low": [0.35, 0.2],
            "bound": [0.3, 0.3],
            "status": ["pass", "fail"],
        }
    )
    result = pl.from_pandas(table) if kind == "polars" else table
    store = History(tmp_path / "m.duckdb", frame="polars")
    run_id = store.record(result, keys=["year"])
    assert store.runs()["kind"].to_list() == ["gate"]  # a status column, no known origin
    loaded = store.load(run_id=run_id, long=True, kind="gate")
    assert isinstance(loaded, pl.DataFrame)
    rows = loaded.filter(pl.col("value_name") == "value")
    assert rows["status"].to_list() == ["pass", "fail"]
    assert rows["metric"].to_list() == ["ndcg@10", "ndcg@10"]
    assert rows["segment"].to_list() == ["year=2026"] * 2  # the rule is no segment key
    assert rows["rule"].to_list() == ["ndcg@10 >= 0.3"] * 2
    # Monday midnight in Paris (UTC+1 in March) is Sunday 23:00 UTC
    assert [t.isoformat() for t in rows["window_start"].to_list()] == [
        "2026-03-01T23:00:00+00:00",
        "2026-03-08T23:00:00+00:00",
    ]
    assert sorted(set(loaded["value_name"].to_list())) == ["bound", "ci_low", "value"]


# -- reading back -----------------------------------------------------------------------------


def test_runs_load_and_trend_filters(url: str) -> None:
    store = History(url)
    df = pd.DataFrame(DATA)
    ev = df.rank_eval(score=["a", "b"])
    first = store.record(ev.evaluate(["mrr"]), run="nightly", tags={"branch": "main"})
    time.sleep(0.01)
    middle = store.runs().loc[0, "recorded_at"] + pd.Timedelta(microseconds=1)
    second = store.record(
        ev.evaluate(["mrr"], by="segment"), run="nightly", tags={"branch": "dev", "ci": "yes"}
    )
    third = store.record(ev.evaluate(["ndcg@2"]), run="adhoc")

    assert store.runs()["run_id"].tolist() == [first, second, third]
    assert store.runs(run="nightly")["run_id"].tolist() == [first, second]
    assert store.runs(tags={"branch": "dev"})["run_id"].tolist() == [second]
    assert store.runs(tags={"branch": "dev", "ci": "no"}).empty
    assert store.runs(since=middle)["run_id"].tolist() == [second, third]
    assert store.runs(until=middle)["run_id"].tolist() == [first]
    assert store.runs(since=middle.tz_convert("Asia/Tokyo"))["run_id"].tolist() == [
        second,
        third,
    ]  # an aware time: its instant
    assert json.loads(store.runs(run_id=second).loc[0, "tags"]) == {"branch": "dev", "ci": "yes"}

    assert set(store.load(metric="ndcg@2")["run_id"]) == {third}
    assert store.load(system="b")["value"].tolist() == pytest.approx(
        [0.875, 0.75, 1.0, _mean(NDCG2["b"], [1, 2, 3, 4])]
    )  # casual before new
    assert store.load(segment={}, metric="mrr")["run_id"].unique().tolist() == [first]
    new = store.load(segment={"segment": "new"})
    assert _keyed(new, "system") == {"a": 0.5, "b": 1.0}
    assert store.load(segment="segment=new").equals(store.load(segment={"segment": "new"}))

    trend = store.trend("mrr", segment={})
    assert trend.columns.tolist() == [
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
    assert trend["value"].tolist() == [0.625, 0.875]
    assert str(trend["recorded_at"].dtype).endswith("UTC]")
    assert store.trend("mrr", run="adhoc").empty

    polars = History(url, frame="polars").trend("mrr", system="a")
    assert isinstance(polars, pl.DataFrame)
    assert polars["value"].to_list() == [0.625, 0.75, 0.5]  # whole; casual, new


def _sql_blocks() -> dict[str, str]:
    """The SQL blocks of docs/monitoring.md, by the words of their first comment line."""
    text = (DOCS / "monitoring.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sql\n(.*?)```", text, re.DOTALL)
    return {block.splitlines()[0].removeprefix("-- ").split(":")[0]: block for block in blocks}


def test_the_dashboard_sql_of_the_docs(url: str) -> None:
    """The docs' SQL, run on a store filled as the docs' example fills it, plus a gate."""
    blocks = _sql_blocks()
    assert set(blocks) == {"time series", "per segment", "gates"}
    store = History(url)
    ev = pd.DataFrame(DATA).rank_eval(score=["a", "b"])
    for _ in range(2):
        store.record(ev.evaluate(["mrr@10"]), run="nightly")
    store.record(ev.evaluate(["mrr@10"], by="segment"), run="nightly")
    store.record(ev.evaluate(["mrr@10"], by="segment"), run="adhoc")  # not a nightly run
    store.record(
        ev.check(
            ["mrr@10 drop <= 0.1", "mrr@10 >= 0.6"],
            by="segment",
            baseline="a",
            min_queries=1,
            mode="point",
        ),
        run="gate",
    )

    series = store.query(blocks["time series"])
    assert series.columns.tolist() == ["time", "system", "value", "ci_low", "ci_high"]
    assert series["system"].tolist() == ["a", "b", "a", "b"]
    assert series["value"].tolist() == [0.625, 0.875, 0.625, 0.875]
    assert series["ci_low"].isna().all()  # evaluate() without confidence_level
    times = pd.to_datetime(series["time"])
    assert times.is_monotonic_increasing
    assert times.iloc[0] < times.iloc[2]

    table = store.query(blocks["per segment"])
    assert table.columns.tolist() == ["segment", "system", "mrr_10", "n_queries"]
    assert table.to_dict("records") == [
        {"segment": "casual", "system": "a", "mrr_10": 0.75, "n_queries": 2},
        {"segment": "casual", "system": "b", "mrr_10": 0.75, "n_queries": 2},
        {"segment": "new", "system": "a", "mrr_10": 0.5, "n_queries": 2},
        {"segment": "new", "system": "b", "mrr_10": 1.0, "n_queries": 2},
    ]

    gates = store.query(blocks["gates"])
    assert gates.columns.tolist() == [
        "rule",
        "segment",
        "system",
        "status",
        "value",
        "delta",
        "delta_relative",
        "bound",
    ]
    # b - a: new 1 - 1/2 = 1/2 (relative 1), casual 3/4 - 3/4 = 0; a's new 0.5 < 0.6 fails
    records = [tuple(r) for r in gates.itertuples(index=False)]
    assert [r[:4] for r in records] == [
        ("mrr@10 >= 0.6", "segment=casual", "a", "pass"),
        ("mrr@10 >= 0.6", "segment=casual", "b", "pass"),
        ("mrr@10 >= 0.6", "segment=new", "a", "fail"),
        ("mrr@10 >= 0.6", "segment=new", "b", "pass"),
        ("mrr@10 drop <= 0.1", "segment=casual", "b", "pass"),
        ("mrr@10 drop <= 0.1", "segment=new", "b", "pass"),
    ]
    assert [r[5] for r in records[4:]] == [0.0, 0.5]
    assert [r[6] for r in records[4:]] == [0.0, 1.0]
    assert [r[7] for r in records] == [0.6] * 4 + [-0.1] * 2


# -- nothing overwritten, clear errors --------------------------------------------------------


def test_a_run_id_is_never_recorded_twice(store: History) -> None:
    ev = pd.DataFrame(DATA).rank_eval(score=["a", "b"])
    store.record(ev.evaluate(["mrr"]), run_id="fixed", run="first")
    with pytest.raises(StoreError, match="'fixed' is already recorded") as error:
        store.record(ev.evaluate(["ndcg@2"]), run_id="fixed", run="second")
    assert error.value.problem == "run_exists"
    assert store.runs()["run_name"].tolist() == ["first"]
    assert set(store.load()["metric"]) == {"mrr"}


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_a_text_file_is_not_a_store(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    text = "query,item\n" * 100
    path.write_text(text)
    where = str(path) if kind == "duckdb" else f"sqlite:///{path}"
    with pytest.raises(StoreError, match="is not a rankframe history store") as error:
        History(where)
    assert error.value.problem == "not_a_store"
    assert str(path) in str(error.value)
    assert path.read_text() == text


def test_a_sqlite_file_given_as_a_path_says_the_url(tmp_path: Path) -> None:
    path = tmp_path / "metrics.db"
    History(f"sqlite:///{path}")
    with pytest.raises(StoreError, match=re.escape(f"History('sqlite:///{path}')")):
        History(path)


@pytest.mark.parametrize("kind", STORES)
def test_a_database_of_other_tables(kind: str, tmp_path: Path) -> None:
    where = _url(kind, tmp_path)
    _execute(kind, where, ["CREATE TABLE other (x INTEGER)", "INSERT INTO other VALUES (7)"])
    with pytest.raises(StoreError, match=r"holds other tables \(other\).*create=True") as error:
        History(where)
    assert error.value.problem == "not_a_store"
    store = History(where, create=True)
    store.record(pd.DataFrame(DATA).rank_eval(score=["a", "b"]).evaluate(["mrr"]))
    assert len(History(where).runs()) == 1
    assert store.query("SELECT x FROM other")["x"].tolist() == [7]


@pytest.mark.parametrize("kind", STORES)
def test_half_a_store_and_a_newer_store(kind: str, tmp_path: Path) -> None:
    where = _url(kind, tmp_path)
    _execute(kind, where, ["CREATE TABLE rankframe_runs (run_id VARCHAR)"])
    with pytest.raises(StoreError, match="rankframe_runs but no rankframe_schema"):
        History(where, create=True)
    _execute(kind, where, ["DROP TABLE rankframe_runs"])
    History(where)
    _execute(kind, where, ["INSERT INTO rankframe_schema VALUES (4, '9.0', '2030-01-01 00:00:00')"])
    with pytest.raises(StoreError, match="schema version 4, written by a newer") as error:
        History(where)
    assert error.value.problem == "newer_schema"
    assert "pip install -U rankframe" in str(error.value)


def _execute(kind: str, where: str, statements: list[str]) -> None:
    """Statements run on the database outside rankframe."""
    if kind == "duckdb":
        with duckdb.connect(where) as con:
            for statement in statements:
                con.execute(statement)
        return
    if kind == "sqlite":
        con = sqlite3.connect(where.removeprefix("sqlite:///"))
        with con:
            for statement in statements:
                con.execute(statement)
        con.close()
        return
    engine = sa.create_engine(where)
    with engine.begin() as conn:
        for statement in statements:
            conn.execute(sa.text(statement))
    engine.dispose()


def test_bad_arguments(tmp_path: Path) -> None:
    store = History(tmp_path / "m.duckdb")
    result = pd.DataFrame(DATA).rank_eval(score=["a", "b"]).evaluate(["mrr"])
    with pytest.raises(InvalidOptionError, match="tags= takes non-empty string keys"):
        store.record(result, tags={"build": 7})  # type: ignore[dict-item]
    with pytest.raises(InvalidOptionError, match="frame= takes 'pandas' or 'polars'"):
        History(tmp_path / "m.duckdb", frame="arrow")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="record\\(\\) takes a result table"):
        store.record(0.75)
    with pytest.raises(InvalidOptionError, match="since= takes a datetime"):
        store.runs(since="last tuesday")
    with pytest.raises(StoreError, match="does not exist; create it first"):
        History(tmp_path / "missing" / "m.duckdb")
    assert store.runs().empty


def test_missing_packages(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "duckdb", None)
    with pytest.raises(ImportError, match=re.escape("pip install 'rankframe[history]'")):
        History(tmp_path / "m.duckdb")
    monkeypatch.setitem(sys.modules, "sqlalchemy", None)
    with pytest.raises(ImportError, match=re.escape("pip install 'rankframe[history]'")):
        History(f"sqlite:///{tmp_path / 'm.db'}")


def test_import_rankframe_imports_no_database_package() -> None:
    code = "import sys, rankframe; print('duckdb' in sys.modules, 'sqlalchemy' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert out.stdout.split() == ["False", "False"]


# -- the command line -------------------------------------------------------------------------


def test_the_command_line_records(run: Any, tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    pd.DataFrame(DATA).to_csv(data, index=False)
    path = tmp_path / "m.duckdb"
    code, _, err = run(
        "evaluate",
        data,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--by",
        "segment",
        "--record",
        path,
        "--run-name",
        "nightly",
        "--tag",
        "branch=main",
        "--tag",
        "ci=yes",
    )
    assert code == 0, err
    assert re.fullmatch(
        rf"rankframe: recorded run [0-9a-f-]{{36}} in {re.escape(str(path))}\n", err
    )
    code, _, err = run(
        "compare", data, "--score", "a", "--score", "b", "-m", "mrr", "--record", path
    )
    assert code == 0, err
    store = History(path)
    runs = store.runs()
    assert runs.loc[0, "run_name"] == "nightly"
    assert pd.isna(runs.loc[1, "run_name"])
    assert json.loads(runs.loc[0, "tags"]) == {"branch": "main", "ci": "yes"}
    assert runs["result"].tolist() == ["Means", "Comparison"]
    assert runs["input_rows"].tolist() == [8, 8]
    assert _keyed(store.load(run="nightly"), "segment", "system") == {
        ("segment=casual", "a"): 0.75,
        ("segment=casual", "b"): 0.75,
        ("segment=new", "a"): 0.5,
        ("segment=new", "b"): 1.0,
    }
    compared = store.load(run_id=runs.loc[1, "run_id"], kind="comparison")
    assert _keyed(compared.assign(value=compared["delta"]), "system") == {"a": 0.0, "b": 0.25}

    code, _, err = run("evaluate", data, "--run-name", "nightly")
    assert code == 2
    assert "--run-name names a recorded run: add --record STORE" in err
    code, _, err = run("evaluate", data, "--record", path, "--tag", "main")
    assert code == 2
    assert "--tag takes KEY=VALUE" in err
    text = tmp_path / "notes.txt"
    text.write_text("not a store\n" * 20)
    code, _, err = run("evaluate", data, "--score", "a", "--record", text)
    assert code == 1
    assert "is not a rankframe history store" in err


# -- processes --------------------------------------------------------------------------------

WRITER = """
import sys, time
from pathlib import Path
import pandas as pd, rankframe
from rankframe.history import stores
where, name, n, folder = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
data = {data!r}
result = pd.DataFrame(data).rank_eval(score=["a", "b"]).evaluate(["mrr", "ndcg@2"])
store = rankframe.History(where, timeout=120)
(folder / ("ready-" + name)).touch()
while not (folder / "go").exists():
    time.sleep(0.005)
for i in range(n):
    store.record(result, run=name, tags={{"i": str(i)}}, run_id=f"{{name}}-{{i}}")
if name == "killed":
    def hang(run_id):
        (folder / "inside").write_text(run_id)
        time.sleep(120)
    stores.BEFORE_COMMIT.append(hang)
    store.record(result, run=name, run_id="unfinished", tags={{"i": "last"}})
"""


def _writer(where: str, name: str, n: int, folder: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER.format(data=DATA), where, name, str(n), str(folder)],
        env={**os.environ, "PYTHONPATH": SRC},
        text=True,
        stderr=subprocess.PIPE,
    )


def _wait_for(path: Path, processes: list[subprocess.Popen[str]], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        for process in processes:
            assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, f"no {path.name} after {timeout} s"
        time.sleep(0.01)


def _complete_runs(store: History) -> dict[str, int]:
    """Each run's id → its rows in rankframe_values, checked against its n_values."""
    runs = store.runs()
    counts = store.query("SELECT run_id, COUNT(*) AS n FROM rankframe_values GROUP BY run_id")
    found = dict(zip(counts["run_id"], counts["n"], strict=True))
    assert set(found) <= set(runs["run_id"]), "values of a run that has no run row"
    for run_id, n_values in zip(runs["run_id"], runs["n_values"], strict=True):
        assert found.get(run_id, 0) == n_values, f"run {run_id} is partial"
    return found


@pytest.mark.load
def test_two_processes_record_at_once(url: str, tmp_path: Path) -> None:
    History(url)
    # ten runs each: from "go" both write at once (DuckDB's lock taken in turns, SQLite's
    # busy waits), which a run or two would already meet; ten keep them meeting many times
    writers = [_writer(url, name, 10, tmp_path) for name in ("left", "right")]
    for name in ("left", "right"):
        _wait_for(tmp_path / f"ready-{name}", writers)
    (tmp_path / "go").touch()
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
    store = History(url)
    found = _complete_runs(store)
    assert sorted(found) == sorted(f"{n}-{i}" for n in ("left", "right") for i in range(10))
    assert set(found.values()) == {8}  # (mrr, ndcg@2) x (a, b) x (value, n_queries)
    tags = store.query("SELECT COUNT(*) AS n FROM rankframe_tags")
    assert tags["n"].tolist() == [20]


@pytest.mark.load
def test_a_process_killed_while_recording(url: str, tmp_path: Path) -> None:
    History(url)
    writer = _writer(url, "killed", 3, tmp_path)
    _wait_for(tmp_path / "ready-killed", [writer])
    (tmp_path / "go").touch()
    _wait_for(tmp_path / "inside", [writer])  # inside the fourth run's transaction
    os.kill(writer.pid, signal.SIGKILL)
    writer.communicate(timeout=60)  # closes its pipe
    store = History(url)
    found = _complete_runs(store)
    assert sorted(found) == ["killed-0", "killed-1", "killed-2"]
    assert store.load(run_id="unfinished").empty
    assert store.query("SELECT COUNT(*) AS n FROM rankframe_tags WHERE run_id = 'unfinished'")[
        "n"
    ].tolist() == [0]
    # the store takes new runs, the unfinished id too
    ev = pd.DataFrame(DATA).rank_eval(score=["a", "b"])
    store.record(ev.evaluate(["mrr"]), run_id="unfinished")
    assert len(store.runs()) == 4


@pytest.mark.load
def test_a_duckdb_file_held_by_another_process(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    History(path)
    code = (
        f"import duckdb, time; con = duckdb.connect({str(path)!r}); "
        f"open({str(tmp_path / 'held')!r}, 'w').close(); time.sleep(60)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code])
    try:
        _wait_for(tmp_path / "held", [holder])  # type: ignore[list-item]
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"stayed busy for 0\.5 s") as error:
            History(path, timeout=0.5)
        assert 0.5 <= time.monotonic() - started < 10
        assert error.value.problem == "busy"
        assert error.value.store == str(path)
    finally:
        holder.kill()
        holder.wait()
    assert History(path).runs().empty


def test_check_records_its_rules_settings_and_input(make_frame, tmp_path):
    """A gate table is assembled from evaluate's and compare's tables: its run still names
    the kind (Check), every rule's metric, check's settings, and the input's fingerprint."""
    import json

    import rankframe

    frame = make_frame(
        {
            "query": [1, 1, 2, 2],
            "item": ["x", "y", "x", "y"],
            "a": [0.9, 0.1, 0.9, 0.1],
            "b": [0.1, 0.9, 0.9, 0.1],
            "relevant": [0, 1, 1, 0],
        }
    )
    table = frame.rank_eval(score=["a", "b"]).check(
        ["mrr drop <= 1%", "ndcg@2 >= 0.1"], min_queries=1, mode="point"
    )
    store = rankframe.History(tmp_path / "m.duckdb")
    store.record(table, run="gate")
    run = store.runs().iloc[0]
    assert run["result"] == "Check"
    options = json.loads(run["options"])
    assert options["metrics"] == ["mrr", "ndcg@2"]
    assert options["settings"]["rules"] == ["mrr drop <= 1%", "ndcg@2 >= 0.1"]
    assert options["settings"]["mode"] == "point"
    assert run["input_rows"] == 4
    assert run["input_queries"] == 2


def test_a_reference_comparison_records_the_same_settings_every_run(make_frame, tmp_path):
    """compare(reference=) holds the reference side as a function: its settings say there is
    a reference (true), the same on every run, not the function's address."""
    import json

    import rankframe

    data = {
        "query": [1, 1, 2, 2],
        "item": ["x", "y", "x", "y"],
        "score": [0.9, 0.1, 0.9, 0.1],
        "relevant": [0, 1, 1, 0],
    }
    frame = make_frame(data)
    store = rankframe.History(tmp_path / "m.duckdb")
    for name in ("first", "second"):
        store.record(frame.rank_eval.compare("mrr", reference=make_frame(data)), run=name)
    settings = [json.loads(o)["settings"] for o in store.runs()["options"]]
    assert settings[0] == settings[1]
    assert settings[0]["reference"] is True
