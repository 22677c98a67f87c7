"""``History.to_mlflow``: a history store's runs mirrored into an MLflow experiment (a file
store), read back through ``MlflowClient``: each stored value under its key, bit for bit,
windows as steps, the runs' names, times and tags; a second call adds nothing; a mirror
whose log failed half-way is logged again."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import mlflow
import pandas as pd
import pytest
from mlflow.tracking import MlflowClient

import rankframe
import rankframe.mlflow as rm
from helpers import tracking_rows

pytestmark = pytest.mark.usefixtures("file_store")

RULES = ["mrr@3 >= 0.9", "mrr@3 drop <= 1%"]
TAGS = {"branch": "main", "git-sha": "abc1", "a@b": "escaped"}


def _data(n: int = 16) -> dict[str, list[Any]]:
    """n queries of four items, two systems, two themes, a day each."""
    return tracking_rows(n, seed=11)


def _bits(value: float) -> bytes:
    return struct.pack("<d", float(value))


def _logged(client: MlflowClient, run_id: str) -> dict[tuple[Any, ...], list[Any]]:
    """The run's metric histories by (label, field, where as a dict's items)."""
    out = {}
    for key in client.get_run(run_id).data.metrics:
        parsed = rm.parse_key(key)
        history = sorted(client.get_metric_history(run_id, key), key=lambda m: m.step)
        out[(parsed.label, parsed.field, frozenset(parsed.where))] = history
    return out


def _points(client: MlflowClient, run_id: str) -> list[tuple[Any, ...]]:
    """Every logged point of the run: key, step, timestamp and the value's bits."""
    return sorted(
        (m.key, m.step, m.timestamp, _bits(m.value))
        for history in _logged(client, run_id).values()
        for m in history
    )


@pytest.mark.parametrize("make_frame", ["polars"], indirect=True)
def test_a_store_mirrors_into_an_experiment_once(tmp_path: Path, make_frame: Any) -> None:
    ev = make_frame(_data()).rank_eval(score=["a", "b"], time="t")
    store = rankframe.History(tmp_path / "metrics.duckdb", frame="polars")
    gates = ev.check(RULES, by="theme", min_queries=1)
    results = {
        "nightly": ev.evaluate(["mrr@3", "ndcg@3"], by="theme", confidence_level=0.9),
        "weekly": ev.evaluate(["mrr@3"], every="1w"),
        "gates": gates,
        "compare": ev.compare(["mrr@3"]),
    }
    for day, (name, result) in enumerate(results.items()):
        when = f"2026-01-0{day + 1}T06:00:00+00:00"
        store.record(result, run=name, tags=TAGS, recorded_at=when)
    mapping = store.to_mlflow(experiment="offline")
    runs = store.runs().to_pandas()
    assert list(mapping) == list(runs["run_id"])

    client = MlflowClient()
    experiment = client.get_experiment_by_name("offline")
    assert experiment is not None
    stored = store.load(long=True, kind=None).to_pandas()
    for row in runs.to_dict("records"):
        run = client.get_run(mapping[row["run_id"]])
        started = int(row["recorded_at"].value // 10**6)
        assert (run.info.run_name, run.info.start_time) == (row["run_name"], started)
        assert (run.info.end_time, run.info.status) == (started, "FINISHED")
        assert run.info.experiment_id == experiment.experiment_id
        tags = run.data.tags
        assert {k: tags.get(k) for k in ("branch", "git-sha")} == {
            "branch": "main",
            "git-sha": "abc1",
        }
        assert tags["a-ab"] == "escaped"  # a key MLflow refuses, escaped
        assert tags["rankframe.history.run_id"] == row["run_id"]
        assert tags["rankframe.history.kind"] == row["kind"]
        assert tags["rankframe.fingerprint"] == row["input_hash"]
        assert tags["rankframe.history.store"] == store.store
        logged = _logged(client, run.info.run_id)
        rows = stored[(stored["run_id"] == row["run_id"]) & stored["value"].notna()]
        windows = sorted(rows["window_start"].dropna().unique())
        for value in rows.to_dict("records"):
            text = value["segment_json"]
            where = json.loads(text) if isinstance(text, str) else {}
            for column in ("rule", "system"):
                if isinstance(value[column], str):
                    where[column] = value[column]
            key = (value["metric"], value["value_name"], frozenset(where.items()))
            history = logged[key]
            step = windows.index(value["window_start"]) if windows else 0
            point = next(m for m in history if m.step == step)
            assert _bits(point.value) == _bits(value["value"]), key
            if windows:
                assert point.timestamp == int(value["window_start"].value // 10**6)
        # a gate's status, as a metric of its code
        statuses = [k for k in logged if k[1] == "status"]
        gated = rows.drop_duplicates(["result_row", "metric"]).dropna(subset="status")
        assert len(statuses) == len(gated)
        assert {logged[k][0].value for k in statuses} <= set(rm.STATUS_CODES.values())
        # every other logged value is a cell its row lacks: NaN
        found = sum(len(h) for h in logged.values())
        nans = sum(math.isnan(m.value) for h in logged.values() for m in h)
        assert found - nans == len(rows) + len(statuses)
    gate_tags = client.get_run(mapping[runs["run_id"][2]]).data.tags
    assert gate_tags["rankframe.verdict"] == rm.verdict(gates.to_pandas())
    assert (gates["status"] == "fail").any()  # data built to name failing gates

    # a second call adds nothing; one after a new record adds its run only
    before = mlflow.search_runs([experiment.experiment_id], output_format="list")
    histories = {r.info.run_id: _points(client, r.info.run_id) for r in before}
    assert store.to_mlflow(experiment="offline") == mapping
    after = mlflow.search_runs([experiment.experiment_id], output_format="list")
    assert sorted(r.info.run_id for r in after) == sorted(histories)
    assert {r.info.run_id: _points(client, r.info.run_id) for r in after} == histories
    new = store.record(results["weekly"], run="weekly")
    again = store.to_mlflow(experiment="offline")
    assert list(again) == [*mapping, new]
    assert {k: again[k] for k in mapping} == mapping


def test_a_mirror_that_failed_half_way_is_logged_again(tmp_path: Path) -> None:
    store = rankframe.History(tmp_path / "metrics.duckdb")
    frame = pd.DataFrame(_data())
    run_id = store.record(frame.rank_eval(score="a").evaluate("mrr@3"), run="nightly")
    first = store.to_mlflow(experiment="offline")[run_id]
    client = MlflowClient()
    client.set_tag(first, "rankframe.logged", "started")  # as a log that broke off
    second = store.to_mlflow(experiment="offline")[run_id]
    assert second != first
    assert client.get_run(first).info.lifecycle_stage == "deleted"
    assert client.get_run(second).data.tags["rankframe.logged"] == "complete"
    back = rm.load(second)
    assert _bits(back.loc[0, "value"]) == _bits(store.load()["value"][0])


def test_a_deleted_experiment_is_named(tmp_path: Path, file_store: str) -> None:
    store = rankframe.History(tmp_path / "metrics.duckdb")
    store.record(pd.DataFrame(_data()).rank_eval(score="a").evaluate("mrr@3"))
    client = MlflowClient()
    client.delete_experiment(client.create_experiment("gone"))
    with pytest.raises(rankframe.exceptions.TrackingError, match=r"'gone' .* is deleted") as error:
        store.to_mlflow(experiment="gone")
    assert error.value.tracking_uri == file_store
