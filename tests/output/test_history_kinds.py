"""The history store's kinds (schema version 3), backfilled run times, files that are not a
store, and the wide view's column order.

- ``slices()``, ``gaps()`` and ``sample_size()`` are recorded under kinds of their own, their
  numbers in typed wide columns, their text values (a gap's groups, a sample size's test) as
  text, and never a made-up segment; a store of version 2 that filed them as evaluations is
  upgraded (the committed tests/data/store-v2.duckdb and .sqlite, made by
  tests/data/make_store_v2.py).
- ``record(recorded_at=)`` backfills a run's time, timezone-aware only.
- ``History(path)`` of a CSV, a Parquet file, an empty file or a text file raises
  ``StoreError(problem="not_a_store")`` naming the file, and leaves the file as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

from helpers import ROOT, FrameMaker, as_pandas
from rankframe import History, InvalidOptionError, StoreError

DATA_DIR = ROOT / "tests" / "data"
# Eight queries, two themes of four; the relevant item x ranked 1st or 2nd:
#   query   1  2  3  4 | 5  6  7  8
#   theme   t          | u
#   a       1  2  1  2 | 1  2  1  2     mrr: t 3/4, u 3/4
#   b       1  1  1  1 | 2  2  2  2     mrr: t 1,   u 1/2
RANKS = {"a": [1, 2, 1, 2, 1, 2, 1, 2], "b": [1, 1, 1, 1, 2, 2, 2, 2]}
DATA = {
    "query": [q for q in range(1, 9) for _ in range(2)],
    "item": ["x", "y"] * 8,
    **{
        s: [0.9 if (item == "x") == (r == 1) else 0.1 for r in ranks for item in "xy"]
        for s, ranks in RANKS.items()
    },
    "relevant": [1, 0] * 8,
    "theme": ["t"] * 8 + ["u"] * 8,
}


def _plain(*values: Any) -> tuple[Any, ...]:
    """Values to compare: NaN as None, numbers rounded to 12 digits."""
    return tuple(
        None if pd.isna(v) else round(float(v), 12) if isinstance(v, float) else v for v in values
    )


def _segment_keys(store: History, run_id: str) -> set[str]:
    long = as_pandas(store.load(run_id=run_id, kind=None, long=True))
    return {k for text in long["segment_json"].dropna() for k in json.loads(text)}


# -- kinds ----------------------------------------------------------------------------------


def test_slices_gaps_and_sample_size_are_kinds_of_their_own(
    make_frame: FrameMaker, tmp_path: Path
) -> None:
    store = History(tmp_path / "m.duckdb")
    ev = make_frame(DATA).rank_eval(score=["a", "b"])
    slices = as_pandas(ev.slices(["mrr"], "theme", min_queries=1))
    gaps = as_pandas(ev.gaps(["mrr"], by="theme", n_permutations=100))
    sizes = as_pandas(ev.sample_size(["mrr"], delta=0.1))
    ids = {
        kind: store.record(result, run="nightly")
        for kind, result in (
            ("slices", ev.slices(["mrr"], "theme", min_queries=1)),
            ("gaps", ev.gaps(["mrr"], by="theme", n_permutations=100)),
            ("sample_size", ev.sample_size(["mrr"], delta=0.1)),
        )
    }
    runs = as_pandas(store.runs()).set_index("run_id")
    assert {k: runs.loc[i, "kind"] for k, i in ids.items()} == {
        "slices": "slices",
        "gaps": "gaps",
        "sample_size": "sample_size",
    }
    # never a made-up segment: a slice's keys are its own, gaps and sample sizes have none
    assert _segment_keys(store, ids["slices"]) == {"theme"}
    assert _segment_keys(store, ids["gaps"]) == set()
    assert _segment_keys(store, ids["sample_size"]) == set()
    assert as_pandas(store.load()).empty  # no evaluation recorded: nothing to draw

    wide = as_pandas(store.load(kind="slices"))
    got = {
        (r.segment, r.system): _plain(
            r.value,
            r.mean_outside,
            r.delta,
            r.delta_ci_low,
            r.p_adjusted,
            bool(r.significant),
            r.depth,
        )
        for r in wide.itertuples(index=False)
    }
    assert got == {
        (r.slice, r.system): _plain(
            r.mean, r.mean_outside, r.delta, r.ci_low, r.p_adjusted, bool(r.significant), r.depth
        )
        for r in slices.itertuples(index=False)
    }
    assert set(wide["segment"]) == {"theme=t", "theme=u"}
    # theme t: a 3/4, b 1; theme u: a 3/4, b 1/2 (the means of the slices, as recorded)
    assert dict(
        zip(zip(wide["segment"], wide["system"], strict=True), wide["value"], strict=True)
    ) == pytest.approx(
        {
            ("theme=t", "a"): 0.75,
            ("theme=t", "b"): 1.0,
            ("theme=u", "a"): 0.75,
            ("theme=u", "b"): 0.5,
        }
    )

    wide = as_pandas(store.load(kind="gaps")).set_index("system")
    for r in gaps.itertuples(index=False):
        row = wide.loc[r.system]
        assert (
            row["value"],
            row["worst_group"],
            row["best_group"],
            row["worst_mean"],
            row["best_mean"],
            row["ratio"],
            row["n_groups"],
        ) == (
            pytest.approx(r.gap),
            r.worst_group,
            r.best_group,
            pytest.approx(r.worst_mean),
            pytest.approx(r.best_mean),
            pytest.approx(r.ratio),
            r.n_groups,
        )
    # b: theme u (1/2) is the worst group, t (1) the best
    assert (wide.loc["b", "worst_group"], wide.loc["b", "best_group"]) == ("u", "t")
    assert wide.loc["b", "value"] == pytest.approx(0.5)

    wide = as_pandas(store.load(kind="sample_size")).set_index("system")
    for r in sizes.itertuples(index=False):
        row = wide.loc[r.system]
        assert (
            row["n_needed"],
            bool(row["enough"]),
            row["effect_size"],
            row["test"],
            row["delta"],
            row["n_queries"],
        ) == (
            pytest.approx(r.n_needed),
            bool(r.enough),
            pytest.approx(r.effect_size),
            r.test,
            pytest.approx(r.delta),
            r.n_queries,
        )
    assert wide["segment"].isna().all()


def test_the_dashboard_draws_no_trend_of_them(tmp_path: Path) -> None:
    store = History(tmp_path / "m.duckdb")
    ev = pd.DataFrame(DATA).rank_eval(score=["a", "b"])
    store.record(ev.gaps(["mrr"], by="theme", n_permutations=100), run="nightly")
    store.record(ev.sample_size(["mrr"], delta=0.1), run="nightly")
    page = store.dashboard()
    assert "<svg" not in page  # no chart
    assert "No evaluation is recorded in this selection." in page
    assert "<h3>Gaps</h3>" in page
    assert "<h3>Sample size</h3>" in page
    assert "worst_group" in page


def test_a_version_2_store_is_upgraded(tmp_path: Path) -> None:
    for suffix in ("duckdb", "sqlite"):
        path = tmp_path / f"store-v2.{suffix}"
        shutil.copy(DATA_DIR / f"store-v2.{suffix}", path)
        raw = _raw(suffix, path)
        assert raw("SELECT version FROM rankframe_schema") == [(2,)]
        made_up = {
            r[0]
            for r in raw("SELECT DISTINCT segment FROM rankframe_values WHERE segment IS NOT NULL")
        }
        assert "test=two-sample t-test" in made_up  # what version 2 did
        before = raw(
            "SELECT run_id, result_row, value_name, value FROM rankframe_values "
            "ORDER BY run_id, result_row, value_name"
        )
        store = History(str(path) if suffix == "duckdb" else f"sqlite:///{path}")
        assert raw("SELECT version FROM rankframe_schema ORDER BY version") == [(2,), (3,)]
        runs = as_pandas(store.runs())
        assert runs["kind"].tolist() == ["evaluation", "slices", "gaps", "sample_size"]
        after = raw(
            "SELECT run_id, result_row, value_name, value FROM rankframe_values "
            "WHERE value_text IS NULL ORDER BY run_id, result_row, value_name"
        )
        assert after == before  # every number as it was
        texts = raw(
            "SELECT value_name, value_text FROM rankframe_values WHERE value_text "
            "IS NOT NULL ORDER BY run_id, result_row, value_name"
        )
        assert sorted(set(texts)) == [
            ("best_group", "news"),
            ("best_group", "sport"),
            ("test", "two-sample t-test"),
            ("worst_group", "news"),
            ("worst_group", "sport"),
        ]
        segments = {
            r[0]
            for r in raw("SELECT DISTINCT segment FROM rankframe_values WHERE segment IS NOT NULL")
        }
        assert segments == {"theme=news", "theme=sport"}  # the slices' own keys only
        keys = raw("SELECT DISTINCT key FROM rankframe_segments")
        assert keys == [("theme",)]
        counted = raw(
            "SELECT r.n_values, COUNT(*) FROM rankframe_runs r JOIN "
            "rankframe_values v ON v.run_id = r.run_id GROUP BY r.run_id, r.n_values"
        )
        assert all(n == count for n, count in counted)
        gaps = as_pandas(store.load(kind="gaps"))
        assert set(zip(gaps["worst_group"], gaps["best_group"], strict=True)) <= {
            ("news", "sport"),
            ("sport", "news"),
        }


def _raw(suffix: str, path: Path) -> Any:
    def read(sql: str) -> list[tuple[Any, ...]]:
        if suffix == "duckdb":
            with duckdb.connect(str(path), read_only=True) as con:
                return con.execute(sql).fetchall()
        with sqlite3.connect(path) as con:
            return con.execute(sql).fetchall()

    return read


# -- the wide view's columns ------------------------------------------------------------------


def test_the_wide_view_puts_the_answer_first(tmp_path: Path) -> None:
    store = History(tmp_path / "m.duckdb")
    ev = pd.DataFrame(DATA).rank_eval(score=["a", "b"])
    store.record(ev.check(["mrr drop <= 0.1"], baseline="a", min_queries=1), run="gate")
    columns = list(as_pandas(store.load(kind=None)).columns)
    assert columns[:14] == [
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
    ]
    assert columns.index("ci_low") < columns.index("p_adjusted") < columns.index("p_value")
    assert columns[-4:] == ["k", "statistic", "result_row", "segment_json"]
    view = list(as_pandas(store.query("SELECT * FROM rankframe_wide")).columns)
    assert columns[: len(view)] == view  # load() adds the segment keys' columns after


# -- a run's time ---------------------------------------------------------------------------


def test_recorded_at_backfills_a_run(tmp_path: Path) -> None:
    store = History(tmp_path / "m.duckdb")
    ev = pd.DataFrame(DATA).rank_eval(score=["a", "b"])
    paris = timezone(timedelta(hours=1))
    store.record(ev.evaluate(["mrr"]), run="late", recorded_at="2026-01-05T07:00:30+01:00")
    store.record(
        ev.evaluate(["mrr"]), run="early", recorded_at=datetime(2026, 1, 5, 7, 0, tzinfo=paris)
    )
    runs = as_pandas(store.runs())
    assert runs["run_name"].tolist() == ["early", "late"]  # oldest first, by the given time
    assert [t.isoformat() for t in runs["recorded_at"]] == [
        "2026-01-05T06:00:00+00:00",
        "2026-01-05T06:00:30+00:00",
    ]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (datetime(2026, 1, 5, 6, 0), "has no time zone"),
        ("2026-01-05 06:00", "has no time zone"),
        ("last tuesday", "is not a time"),
        (1767592800, "takes the run's time"),
    ],
)
def test_recorded_at_refuses_a_naive_or_bad_time(value: Any, said: str, tmp_path: Path) -> None:
    store = History(tmp_path / "m.duckdb")
    ev = pd.DataFrame(DATA).rank_eval(score=["a", "b"])
    with pytest.raises(InvalidOptionError, match=said) as error:
        store.record(ev.evaluate(["mrr"]), recorded_at=value)
    assert "recorded_at=" in str(error.value)
    assert "timezone-aware datetime" in str(error.value)
    assert "tzinfo=UTC" in str(error.value)
    assert as_pandas(store.runs()).empty  # nothing recorded


# -- files that are not a store ---------------------------------------------------------------


def _files(folder: Path) -> dict[str, Path]:
    csv = folder / "results.csv"
    pd.DataFrame({"a": [1, 2]}).to_csv(csv, index=False)
    parquet = folder / "results.parquet"
    pd.DataFrame({"a": [1, 2]}).to_parquet(parquet)
    empty = folder / "empty.duckdb"
    empty.touch()
    text = folder / "notes.txt"
    text.write_text("not a database, but long enough to have a header\n", encoding="utf-8")
    return {"csv": csv, "parquet": parquet, "empty": empty, "text": text}


@pytest.mark.parametrize("name", ["csv", "parquet", "empty", "text"])
def test_a_file_that_is_not_a_store(name: str, tmp_path: Path) -> None:
    path = _files(tmp_path)[name]
    old = datetime(2020, 1, 1, tzinfo=UTC).timestamp()
    os.utime(path, (old, old))
    content, mtime = path.read_bytes(), path.stat().st_mtime_ns
    with pytest.raises(StoreError) as error:
        History(path)
    assert error.value.problem == "not_a_store"
    assert str(path) in str(error.value)
    assert "is not a rankframe history store" in str(error.value)
    assert path.read_bytes() == content
    assert path.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in _files_names(tmp_path)
    )  # no file beside it (a WAL)


def _files_names(folder: Path) -> list[Path]:
    return [folder / n for n in ("results.csv", "results.parquet", "empty.duckdb", "notes.txt")]


def test_the_command_line_backfills_a_run(run: Any, tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    pd.DataFrame(DATA).to_csv(data, index=False)
    path = tmp_path / "m.duckdb"
    code, _, err = run(
        "evaluate",
        data,
        "--score",
        "a",
        "-m",
        "mrr",
        "--record",
        path,
        "--recorded-at",
        "2026-01-05T07:00:00+01:00",
    )
    assert code == 0, err
    assert [t.isoformat() for t in as_pandas(History(path).runs())["recorded_at"]] == [
        "2026-01-05T06:00:00+00:00"
    ]
    code, _, err = run(
        "evaluate",
        data,
        "--score",
        "a",
        "-m",
        "mrr",
        "--record",
        path,
        "--recorded-at",
        "2026-01-05",
    )
    assert code == 2
    assert (
        "--recorded-at takes the run's time with its offset, e.g. "
        "2026-01-05T06:00:00+00:00 (Z for UTC); got '2026-01-05'"
    ) in err
    code, _, err = run("evaluate", data, "--score", "a", "--recorded-at", "2026-01-05T06:00:00Z")
    assert code == 2
    assert "--recorded-at names a recorded run: add --record STORE" in err


# -- what the store refuses ---------------------------------------------------------------

#: three queries of two items, two systems, a judge's grades (llm) and people's (human)
JUDGED = {
    "query": ["q1", "q1", "q2", "q2", "q3", "q3"],
    "item": ["a", "b"] * 3,
    "t": [0.1, 0.9, 0.2, 0.8, 0.7, 0.6],
    "llm": [1, 0, 0, 1, 1, 0],
    "human": [1.0, 0.0, 0.0, 1.0, 1.0, 0.0],
}


def test_the_store_refuses_an_estimate_naming_the_call(
    make_frame: FrameMaker, tmp_path: Any
) -> None:
    # a table of evaluate(estimate=) or compare(estimate=) is not one History keeps: the
    # error names the call a user made (it named an internal class)
    data = {**JUDGED, "s": [0.9, 0.1, 0.8, 0.2, 0.4, 0.3]}
    ev = make_frame(data).rank_eval(score=["s", "t"], relevant="llm", gold="human")
    store = History(tmp_path / "runs.duckdb")
    means = ev.evaluate("mrr", estimate="gold")
    delta = ev.compare("mrr", estimate="gold")
    for result, call in ((means, "evaluate"), (delta, "compare")):
        with pytest.raises(TypeError, match=rf"this table was made by {call}\(estimate=\.\.\.\)"):
            store.record(result)
    assert store.runs().empty
