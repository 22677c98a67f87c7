"""rankframe.mlflow against a real MLflow: a tracking server this module starts on localhost
(SQLite store, local artifact root, a free port; stopped after the session; the full
``mlflow`` package's, whose UI a browser test opens: ``make mlflow-ui``), and a file store.
What a user would see is read back through ``MlflowClient``: the keys and values of the
metrics (equal to the result's, bit for bit), the steps and timestamps of windows, the table
and the report's page; and in MLflow's UI, in Chromium."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mlflow
import pandas as pd
import polars as pl
import pytest
from mlflow.tracking import MlflowClient

import rankframe
import rankframe.mlflow as rm
from helpers import mlflow_ui, same_bits, tracked_cell, tracking_rows
from rankframe.exceptions import InvalidOptionError, TrackingError


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``mlflow server`` on a free port of localhost, SQLite store, artifacts in tmp: the
    server of the full ``mlflow`` package, of the test venv's mlflow-skinny version, from
    ``make mlflow-ui``'s venv, whose UI the browser test opens (mlflow-skinny has no UI
    build; benchmarks/mlflow_log.py runs the test venv's own server). One server for the
    module: a start costs ~13 s of CPU."""
    root = tmp_path_factory.mktemp("mlflow-server")
    port = _free_port()
    command = [
        str(mlflow_ui(mlflow.__version__)),
        "server",
        "--backend-store-uri",
        f"sqlite:///{root / 'mlflow.db'}",
        "--default-artifact-root",
        str(root / "artifacts"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
    ]
    log = (root / "server.log").open("w")
    # without MLflow 3's job runner (a huey consumer of several processes, each importing
    # mlflow): rankframe runs no server-side job, and they cost the suite's two cores
    env = {**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    uri = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{uri}/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((root / "server.log").read_text())
            time.sleep(0.5)
        yield uri
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.fixture
def server(mlflow_server: str) -> Iterator[str]:
    previous = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(mlflow_server)
    yield mlflow_server
    mlflow.set_tracking_uri(previous)


def _data(n: int = 24) -> dict[str, list[Any]]:
    """n queries of four items, two systems, two themes, three weeks."""
    return tracking_rows(n, seed=7)


def _read_back(client: MlflowClient, run_id: str, frame: pd.DataFrame, prefix: str) -> int:
    """Every metric of the run under prefix equals its cell of the table; returns the count
    of values (with their steps). A key of one cell is read as the run shows it (its latest
    value, one request for every key); a key of several, a table's windows, by its history
    (its steps and timestamps)."""
    latest = client.get_run(run_id).data.metrics
    metrics = [k for k in latest if k.startswith(prefix)]
    metrics = [k for k in metrics if not k.startswith(f"{prefix}comparison/")]
    count = 0
    for text in metrics:
        key = rm.parse_key(text, prefix)
        cells = tracked_cell(frame, key)
        if "window" not in frame.columns:
            assert len(cells) == 1, text
            assert same_bits(latest[text], cells[0]), text
            count += 1
            continue
        history = sorted(client.get_metric_history(run_id, text), key=lambda m: m.step)
        assert len(history) == len(cells), text
        rows = frame
        for column, value in key.where:
            rows = rows[rows[column].astype(str).eq(value).to_numpy(dtype=bool)]
        windows = sorted(frame["window"].unique())
        expected = [windows.index(w) for w in rows["window"]]
        assert [m.step for m in history] == expected
        stamps = [int(pd.Timestamp(w).tz_localize("UTC").value // 10**6) for w in rows["window"]]
        assert [m.timestamp for m in history] == stamps
        assert all(same_bits(m.value, c) for m, c in zip(history, cells, strict=True)), text
        count += len(history)
    return count


def _numbers(frame: pd.DataFrame) -> int:
    """The values log() writes: every number, bool and status cell but the keys'."""
    skip = {"k", "window", "depth"} & set(frame.columns)
    numeric = [
        c
        for c in frame.columns
        if c not in skip
        and (pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c]))
    ]
    return len(frame) * (len(numeric) + ("depth" in frame.columns) + ("status" in frame.columns))


@pytest.mark.parametrize("make_frame", ["pandas", "polars-lazy"], indirect=True)
@pytest.mark.usefixtures("server")
def test_every_result_round_trips_through_the_server(make_frame: Any) -> None:
    frame = make_frame(_data())
    ev = frame.rank_eval(score=["a", "b"], time="t")
    results = {
        "evaluate/": ev.evaluate(
            ["mrr@3", "ndcg@3(ties=first)"], by="theme", confidence_level=0.9, n_resamples=20
        ),
        "weekly/": ev.evaluate(["mrr@3"], every="1w"),
        "compare/": ev.compare(["mrr@3", "f1@2(beta=2)"], by="theme"),
        "check/": ev.check(["mrr@3 >= 0.9", "mrr@3 drop <= 1%"], min_queries=1),
        "slices/": ev.slices("mrr", columns=["theme"], min_queries=2),
        "gaps/": ev.gaps("mrr", by="theme"),
        "sample_size/": ev.sample_size("mrr", delta=0.05),
    }
    client = MlflowClient()
    with mlflow.start_run() as run:
        run_id = run.info.run_id
        for prefix, result in results.items():
            assert rm.log(result, prefix=prefix) == run_id
    tags = client.get_run(run_id).data.tags
    for prefix, result in results.items():
        back = rm.load(run_id, prefix=prefix)
        if isinstance(result, pl.LazyFrame):
            result = result.collect()
        if isinstance(result, pl.DataFrame):
            assert isinstance(back, pl.DataFrame)
            assert back.equals(result, null_equal=True)
            assert back.schema == result.schema
            table = result.to_pandas()
        else:
            pd.testing.assert_frame_equal(back, result, check_exact=True)
            table = result
        assert _read_back(client, run_id, table, prefix) == _numbers(table), prefix
        kind = "evaluate" if prefix == "weekly/" else prefix.rstrip("/")
        assert tags[f"{prefix}rankframe.kind"] == kind
        assert tags[f"{prefix}rankframe.version"] == rankframe.__version__
        assert tags[f"{prefix}rankframe.logged"] == "complete"
        # the table as MLflow shows it: log_table's JSON, the same rows and columns
        path = client.download_artifacts(run_id, f"{prefix}rankframe/table.json")
        shown = json.loads(Path(path).read_text())
        assert shown["columns"] == [str(c) for c in table.columns]
        assert len(shown["data"]) == len(table)
    assert "weekly/mrr-a3/value/system:a" in client.get_run(run_id).data.metrics


@pytest.mark.usefixtures("server")
def test_check_verdict_tag_is_the_command_lines_line(tmp_path: Path, run: Any) -> None:
    frame = pd.DataFrame(_data())
    rules = ["mrr@3 >= 0.9", "mrr@3 drop <= 1%"]
    gates = frame.rank_eval(score=["a", "b"]).check(rules, by="theme", min_queries=1)
    assert (gates["status"] == "fail").any()  # data built to name failing rows
    with mlflow.start_run() as started:
        rm.log(gates)
    tag = MlflowClient().get_run(started.info.run_id).data.tags["rankframe.verdict"]
    path = tmp_path / "run.csv"
    frame.drop(columns="t").to_csv(path, index=False)
    argv = ["check", path, "--score", "a", "--score", "b", "--by", "theme"]
    argv += [a for rule in rules for a in ("--rule", rule)] + ["--min-queries", "1"]
    code, _, err = run(*argv)
    assert code == 1
    assert err.strip() == f"rankframe: {tag}"


@pytest.mark.usefixtures("server")
def test_report_logs_its_page_summary_and_fingerprint() -> None:
    frame = pd.DataFrame(_data())
    report = frame.rank_eval(score=["a", "b"]).report("mrr@3", n_resamples=20, fingerprint=True)
    client = MlflowClient()
    with mlflow.start_run() as started:
        rm.log(report)  # the one-liner
    run_id = started.info.run_id
    page = Path(client.download_artifacts(run_id, "rankframe/report.html")).read_text()
    assert page == report.html()
    tags = client.get_run(run_id).data.tags
    assert tags["rankframe.kind"] == "report"
    assert tags["rankframe.fingerprint"] in page
    assert len(tags["rankframe.fingerprint"]) == 64
    pd.testing.assert_frame_equal(rm.load(run_id), report.summary, check_exact=True)
    comparison = rm.load(run_id, prefix="comparison/")
    pd.testing.assert_frame_equal(comparison, report.comparison, check_exact=True)
    assert _read_back(client, run_id, report.summary, "") > 0


@pytest.mark.usefixtures("file_store")
def test_windows_to_a_file_store() -> None:
    frame = pd.DataFrame(_data())
    weekly = frame.rank_eval(score="a", time="t").evaluate(["mrr@3", "acc@1"], every="1w")
    assert weekly["window"].nunique() == 4
    client = MlflowClient()
    with mlflow.start_run() as started:
        rm.log(weekly, prefix="w/")
    run_id = started.info.run_id
    assert _read_back(client, run_id, weekly, "w/") == _numbers(weekly)
    pd.testing.assert_frame_equal(rm.load(run_id, prefix="w/"), weekly, check_exact=True)


# -- keys -------------------------------------------------------------------------------------


def _registry_labels() -> list[str]:
    """Every registered metric's label: bare, with its parameter, and with each option its
    label can name set to each non-default choice (numbers and flags to one value); and
    every measure of all_trec."""
    labels = [str(m) for m in rankframe.parse_metrics("all_trec")]
    for name, definition in rankframe.METRICS.items():
        at = f"{name}@{definition.param.example}" if definition.takes_k else name
        if not (definition.takes_k and definition.param.required):
            labels.append(str(rankframe.parse_metric(name)))
        labels.append(str(rankframe.parse_metric(at)))
        for option, spec in definition.label_options().items():
            values = [c for c in spec.choices if c != spec.default]
            values = values or (["true"] if spec.kind == "flag" else ["0.5"])
            for value in values:
                labels.append(str(rankframe.parse_metric(f"{at}({option}={value})")))
    return sorted(set(labels))


HOSTILE = [
    "",
    " ",
    ".",
    "..",
    "a/../b",
    "//",
    "a:b",
    "a-b",
    "a-db",
    "a@b",
    "a-ab",
    "x=1,y=2",
    "(a)",
    "名前",
    "tab\there",
    "new\nline",
    "-z",
    "-",
]


def test_every_registered_label_and_hostile_name_makes_one_valid_key() -> None:
    labels = _registry_labels()
    assert "mrr@10(ties=first)" in labels or "mrr@1(ties=first)" in labels
    assert len(labels) > 300
    keys: dict[str, rm.Key] = {}
    for label in [*labels, *HOSTILE]:
        for name in HOSTILE:
            key = rm.Key(label, "ci_low", (("theme", name), ("system", name), (name, None)))
            text = rm.metric_key(key, prefix="run/")
            assert rm.parse_key(text, "run/") == key
            assert len(text) <= 250
            assert os.path.normpath(text) == text
            assert all(c.isalnum() or c in "/_.- :" for c in text), text
            assert not set(text) & set("@()=,"), text
            assert text not in keys, (key, keys.get(text))  # no collision
            keys[text] = key
    mlflow.utils.validation._validate_metric_name(next(iter(keys)))  # MLflow's own rule


@pytest.mark.usefixtures("file_store")
def test_mlflow_accepts_every_registered_label() -> None:
    """MLflow's own check of each key, through the store, in one batch per 1000."""
    from mlflow.entities import Metric

    client = MlflowClient()
    labels = _registry_labels()
    keys = [rm.metric_key(rm.Key(label, "value", (("system", "a"),))) for label in labels]
    with mlflow.start_run() as started:
        for start in range(0, len(keys), 1000):
            batch = [Metric(k, 1.0, 0, 0) for k in keys[start : start + 1000]]
            client.log_batch(started.info.run_id, metrics=batch)
    assert set(client.get_run(started.info.run_id).data.metrics) == set(keys)


@pytest.mark.usefixtures("server")
def test_hostile_systems_and_segments_through_the_server() -> None:
    names = ["a/../b", "..", "x:y", "a@b", "a-ab", "名前", "(1)"]
    data = _data(len(names) * 2)
    segments = [names[q % len(names)] for q in data["query"]]
    frame = pd.DataFrame({**data, "segment": segments}).rename(columns={"a": "..", "b": "a/b"})
    table = frame.rank_eval(score=["..", "a/b"]).evaluate(["mrr@3"], by="segment")
    client = MlflowClient()
    with mlflow.start_run() as started:
        rm.log(table)
    logged = client.get_run(started.info.run_id).data.metrics
    assert len(logged) == len(table) * 2  # mrr@3 and n_queries per row: no collision
    assert _read_back(client, started.info.run_id, table, "") == len(logged)


def test_wide_and_tidy_tables_share_their_labels() -> None:
    ev = pd.DataFrame(_data()).rank_eval(score="a")
    metrics = ["mrr@3", "f1@2(beta=2)", "ndcg(gain=exponential)"]
    wide = {rm.parse_key(k).label for k in rm.keys_of(ev.evaluate(metrics))}
    tidy = {rm.parse_key(k).label for k in rm.keys_of(ev.evaluate(metrics, tidy=True))}
    assert tidy == set(metrics)
    assert wide == tidy | {"n_queries"}


@pytest.mark.usefixtures("file_store")
def test_number_segments_are_keys_not_values() -> None:
    data = _data()
    data["bucket"] = [q % 3 for q in data["query"]]  # an integer segment column
    ev = pd.DataFrame(data).rank_eval(score=["a", "b"])
    means = ev.evaluate(["mrr@3"], by="bucket")
    found = ev.slices("mrr@3", columns=["bucket", "theme"], min_queries=2)
    client = MlflowClient()
    with mlflow.start_run() as started:
        rm.log(means, prefix="means/")
        rm.log(found, prefix="slices/")
    run_id = started.info.run_id
    assert _read_back(client, run_id, means, "means/") == len(means) * 2  # mrr@3, n_queries
    assert "means/mrr-a3/value/bucket:2/system:b" in client.get_run(run_id).data.metrics
    assert _read_back(client, run_id, found, "slices/") == _numbers(found)
    wheres = {rm.parse_key(k).where for k in rm.keys_of(found)}
    assert (("bucket", "1"), ("theme", None), ("system", "a")) in wheres  # a slice of bucket


@pytest.mark.usefixtures("file_store")
def test_too_long_a_name_is_refused_before_anything_is_logged() -> None:
    data = _data()
    data["theme"] = ["x" * 300] * len(data["theme"])
    table = pd.DataFrame(data).rank_eval(score="a").evaluate("mrr", by="theme")
    too_long = "characters long; MLflow takes at most 250"
    with mlflow.start_run() as started, pytest.raises(InvalidOptionError, match=too_long):
        rm.log(table)
    assert MlflowClient().get_run(started.info.run_id).data.metrics == {}


def test_a_bad_prefix_is_refused() -> None:
    table = pd.DataFrame(_data()).rank_eval(score="a").evaluate("mrr")
    with pytest.raises(InvalidOptionError, match=r"prefix='a@b' cannot start a key"):
        rm.log(table, prefix="a@b")


# -- failures ---------------------------------------------------------------------------------


def test_no_active_run_names_the_tracking_uri(file_store: str) -> None:
    table = pd.DataFrame(_data()).rank_eval(score="a").evaluate("mrr")
    assert mlflow.active_run() is None
    with pytest.raises(TrackingError, match="No active MLflow run") as error:
        rm.log(table)
    assert file_store in str(error.value)
    assert error.value.tracking_uri == file_store


def test_a_server_that_is_down_gives_up_within_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "MLFLOW_HTTP_REQUEST_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    uri = f"http://127.0.0.1:{_free_port()}"  # nothing listens: a server that is down
    previous = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(uri)
    table = pd.DataFrame(_data()).rank_eval(score="a").evaluate("mrr")
    try:
        started = time.monotonic()
        with pytest.raises(TrackingError, match="Could not log the result") as error:
            rm.log(table, run_id="0" * 32)
        assert time.monotonic() - started < 60
        assert uri in str(error.value)
        with pytest.raises(TrackingError, match=f"Could not read run {'0' * 32}"):
            rm.load("0" * 32)
    finally:
        mlflow.set_tracking_uri(previous)
    assert "MLFLOW_HTTP_REQUEST_MAX_RETRIES" not in os.environ  # nothing leaks


def test_a_server_that_never_answers_gives_up_within_a_minute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stopped server process: the port takes connections (the kernel's backlog) and
    nothing answers; MLflow's defaults (7 retries of 120 s) would wait for many minutes.
    rankframe's 3 attempts (2 retries), each cut at MLFLOW_HTTP_REQUEST_TIMEOUT (a variable the
    user set is kept: 1 s here, to prove the mechanism quickly), with backoffs of at most 1 s
    and 2 s: under the default 10 s, at most 3 x 10 + 1 + 2 = 33 s, within a minute (the
    bound docs/mlflow.md gives)."""
    monkeypatch.delenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", raising=False)
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "1")
    table = pd.DataFrame(_data()).rank_eval(score="a").evaluate("mrr")
    previous = mlflow.get_tracking_uri()
    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(16)
        uri = f"http://127.0.0.1:{hung.getsockname()[1]}"
        mlflow.set_tracking_uri(uri)
        try:
            started = time.monotonic()
            with pytest.raises(TrackingError, match=f"tracking server {uri}"):
                rm.log(table, run_id="0" * 32)
            waited = time.monotonic() - started
        finally:
            mlflow.set_tracking_uri(previous)
        hung.setblocking(False)
        attempts = 0
        with contextlib.suppress(BlockingIOError):
            while True:
                hung.accept()[0].close()
                attempts += 1
    assert attempts == 3  # the first request and 2 retries, each connected and unanswered
    assert 3 * 1 <= waited < 60  # each attempt waited its timeout
    assert os.environ["MLFLOW_HTTP_REQUEST_TIMEOUT"] == "1"  # the user's value, restored


def test_a_refused_write_is_an_error_and_never_complete(server: str) -> None:
    table = pd.DataFrame(_data()).rank_eval(score="a").evaluate("mrr")
    client = MlflowClient()
    with mlflow.start_run() as started:
        pass
    run_id = started.info.run_id
    client.delete_run(run_id)
    with pytest.raises(TrackingError, match=f"MLflow tracking server {server}") as error:
        rm.log(table, run_id=run_id)
    assert error.value.tracking_uri == server
    client.restore_run(run_id)
    with pytest.raises(TrackingError, match="holds no complete rankframe log"):
        rm.load(run_id)


def test_a_run_that_does_not_exist_is_an_error_naming_the_server(server: str) -> None:
    table = pd.DataFrame(_data()).rank_eval(score="a").evaluate("mrr")
    missing = "0" * 32  # a run id no server gives out
    with pytest.raises(TrackingError, match=f"MLflow tracking server {server}") as error:
        rm.log(table, run_id=missing)
    assert missing in str(error.value)
    assert error.value.tracking_uri == server


def test_import_rankframe_does_not_load_mlflow_or_wandb() -> None:
    names = ["rankframe.mlflow", "mlflow", "rankframe.wandb", "wandb"]
    code = f"import sys, rankframe; print(*[n in sys.modules for n in {names}])"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.split() == ["False"] * len(names), out.stderr


@pytest.mark.usefixtures("server")
def test_a_history_store_mirrors_through_the_server_once(tmp_path: Path) -> None:
    """History.to_mlflow against the server (tests/output/test_mlflow_history.py reads every
    value back from a file store): a second call adds no run and no value."""
    ev = pd.DataFrame(_data()).rank_eval(score=["a", "b"], time="t")
    store = rankframe.History(tmp_path / "metrics.duckdb")
    ids = [
        store.record(ev.evaluate(["mrr@3"], every="1w"), run="weekly"),
        store.record(ev.check(["mrr@3 >= 0.9"], min_queries=1), run="gates"),
    ]
    mirrored = store.to_mlflow(experiment="history-server")
    assert list(mirrored) == ids
    client = MlflowClient()
    weekly = client.get_metric_history(mirrored[ids[0]], "mrr-a3/value/system:a")
    assert [m.step for m in weekly] == [0, 1, 2, 3]  # four weeks, a step each
    assert store.to_mlflow(experiment="history-server") == mirrored
    runs = mlflow.search_runs(experiment_names=["history-server"], output_format="list")
    assert sorted(r.info.run_id for r in runs) == sorted(mirrored.values())
    again = client.get_metric_history(mirrored[ids[0]], "mrr-a3/value/system:a")
    assert len(again) == len(weekly)
    verdict = client.get_run(mirrored[ids[1]]).data.tags["rankframe.verdict"]
    assert verdict == rm.verdict(ev.check(["mrr@3 >= 0.9"], min_queries=1))


@pytest.mark.load
def test_the_logged_report_opens_in_chromium(server: str, browser: Any) -> None:
    """The page as the MLflow UI gets it (the server's get-artifact route, which sends every
    artifact as an attachment; the UI shows an HTML one in a frame of its own): the page
    logged, which opens in Chromium with no request, no console error, its charts drawn and
    each system's mean shown."""
    frame = pd.DataFrame(_data())
    report = frame.rank_eval(score=["a", "b"]).report(["mrr@3", "ndcg@3"], n_resamples=20)
    with mlflow.start_run() as started:
        rm.log(report)
    query = f"path=rankframe/report.html&run_uuid={started.info.run_id}"
    with urllib.request.urlopen(f"{server}/get-artifact?{query}", timeout=30) as answer:
        assert "attachment" in answer.headers["Content-Disposition"]
        text = answer.read().decode("utf-8")
    assert text == report.html()
    requests: list[str] = []
    errors: list[str] = []
    page = browser.new_page()
    try:
        page.on("request", lambda r: requests.append(r.url))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_content(text, wait_until="load")
        charts = page.eval_on_selector_all(
            "svg.chart", "els => els.map(e => e.getBoundingClientRect().height)"
        )
        shown = page.eval_on_selector_all(
            "td[data-kind=mean]", "els => els.map(e => [e.dataset.system, e.dataset.metric])"
        )
    finally:
        page.close()
    assert (requests, errors) == ([], [])
    assert charts, "no chart"
    assert all(height > 0 for height in charts)
    assert {(s, m) for s, m in shown} >= {(s, m) for s in "ab" for m in ("mrr@3", "ndcg@3")}


#: the screenshots of docs/mlflow.md, written by the UI's test (`make screenshots` copies them
#: into docs/images/)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
#: how long (ms) a page of the UI may take to show what it fetches, on a busy machine (a first
#: load took 14 s with 15 processes running on 2 cores); Playwright's default is 5 s
WAIT = 60_000


@pytest.mark.load
@pytest.mark.parametrize("make_frame", ["pandas"], indirect=True)
def test_the_mlflow_ui_shows_what_was_logged(server: str, browser: Any, make_frame: Any) -> None:
    """MLflow's own UI (the module's server's) on a run holding a report, a weekly evaluation
    by segment of two systems and gates, as a user opens it in Chromium: the run's page lists
    each mean under its key with its value, the metrics' page charts each window as a step
    (a section per segment, a chart per system), the artifacts' page lists the tables and
    shows the report's page; a screenshot of each into build/screenshots/."""
    from playwright.sync_api import expect

    ev = make_frame(_data()).rank_eval(score=["a", "b"], time="t")
    metrics, rules = ["mrr@3", "ndcg@3"], ["mrr@3 >= 0.5", "mrr@3 drop <= 1%"]
    title = "rankframe report: a against b"
    options = {"by": "theme", "every": "1w", "min_queries": 1, "n_resamples": 20}
    report = ev.report(metrics, rules=rules, title=title, **options)
    weekly = ev.evaluate(metrics, by="theme", every="1w")
    gates = ev.check(rules, by="theme", min_queries=1)
    experiment = MlflowClient().create_experiment("rankframe-ui")
    with mlflow.start_run(experiment_id=experiment, run_name="ranker-b") as started:
        rm.log(report)
        rm.log(weekly, prefix="weekly/")
        rm.log(gates, prefix="gates/")
    run = f"{server}/#/experiments/{experiment}/runs/{started.info.run_id}"
    machine_learning = "?workflowType=machine_learning"  # not the GenAI pages
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1200, "height": 760})
    page.set_default_timeout(WAIT)
    try:
        page.goto(run + machine_learning)
        page.get_by_label("Close", exact=True).click()  # MLflow's assistant
        page.get_by_placeholder("Search metrics").fill("value/system")
        means = report.summary.set_index("system")
        for system in ("a", "b"):
            for metric in metrics:
                key = rm.metric_key(rm.Key(metric, "value", (("system", system),)))
                row = page.get_by_role("row").filter(has=page.get_by_text(key, exact=True))
                expect(row).to_contain_text(repr(float(means.loc[system, metric])), timeout=WAIT)
        page.get_by_text("Metrics (").evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(SCREENSHOTS / "mlflow-run.png"))

        page.goto(f"{run}/model-metrics{machine_learning}")
        page.get_by_placeholder("Search metric charts").fill("weekly/mrr-a3/value")
        sections = page.get_by_test_id("experiment-view-compare-runs-section-header")
        titles = [
            re.compile(rf"^weekly/mrr-a3/value/theme:{t}\s*\(2\)$") for t in ("news", "sport")
        ]
        expect(sections).to_have_text(titles, timeout=WAIT)  # a section per theme
        for system in ("a", "b"):  # a chart per theme and system
            charts = page.get_by_text(f"system:{system}", exact=True)
            expect(charts).to_have_count(2, timeout=WAIT)
        # a line over the steps (a key of one step is a bar)
        expect(page.get_by_text("Step", exact=True).first).to_be_visible(timeout=WAIT)
        page.screenshot(path=str(SCREENSHOTS / "mlflow-charts.png"))

        page.goto(f"{run}/artifacts{machine_learning}")
        page.locator("[artifact-name=rankframe]").click()
        for name in ("report.html", "result.parquet", "table.json"):
            expect(page.locator(f"[artifact-name='{name}']")).to_be_visible(timeout=WAIT)
        page.locator("[artifact-name='report.html']").click()
        shown = page.frame_locator("iframe").locator("td[data-kind=mean]")
        expect(shown.first).to_be_visible(timeout=WAIT)
        cells = shown.evaluate_all("els => els.map(e => [e.dataset.system, e.dataset.metric])")
        assert {(s, m) for s, m in cells} >= {(s, m) for s in "ab" for m in metrics}
        page.screenshot(path=str(SCREENSHOTS / "mlflow-report.png"))
    finally:
        page.close()
