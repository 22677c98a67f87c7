"""rankframe.wandb against a real W&B run in offline mode (no network): what ``log`` wrote is
read back from the run's files, its ``.wandb`` log of records (a LevelDB-style log of
``wandb_internal_pb2.Record`` protobufs, which W&B syncs later) and its media files: the
keys of rankframe.mlflow's scheme with the values bit for bit, windows as rows against their
axis, the table, the report's page and the summary."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import wandb
from wandb.proto import wandb_internal_pb2

import rankframe
import rankframe.wandb as rw
from helpers import as_pandas, same_bits, tracked_cell
from rankframe import tracking
from rankframe.exceptions import InvalidOptionError

_BLOCK = 32768  # the log's blocks: records never span a block's last 6 bytes
_FULL, _LAST = 1, 4  # a record in one piece; the last piece of a record in several


def _records(path: Path) -> Iterator[Any]:
    """The records of a ``.wandb`` file: a 7-byte header (``:W&B``, a magic, a version),
    then pieces of records, each with a 7-byte header (checksum, length, type)."""
    data = path.read_bytes()
    assert data[:4] == b":W&B"
    pos, pieces = 7, b""
    while pos + 7 <= len(data):
        left = _BLOCK - pos % _BLOCK
        length, kind = struct.unpack("<HB", data[pos + 4 : pos + 7])
        if left < 7 or (length == 0 and kind == 0):  # a block's padding
            pos += left
            continue
        pieces += data[pos + 7 : pos + 7 + length]
        pos += 7 + length
        if kind in (_FULL, _LAST):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pieces)
            yield record
            pieces = b""


def _items(items: Any) -> dict[str, Any]:
    """Items of a record as a dict: a key, or a nested key (a media's fields) as dicts."""
    out: dict[str, Any] = {}
    for item in items:
        *path, last = list(item.nested_key) or [item.key]
        place = out
        for part in path:
            place = place.setdefault(part, {})
        place[last] = json.loads(item.value_json)
    return out


class Offline:
    """What an offline run's files say: its history rows and its summary."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.rows: list[dict[str, Any]] = []
        self.summary: dict[str, Any] = {}
        (log,) = folder.glob("run-*.wandb")
        kind = None
        for record in _records(log):
            kind = record.WhichOneof("record_type")
            if kind == "history":
                self.rows.append(_items(record.history.item))
            elif kind == "summary":
                self.summary |= _items(record.summary.update)
        assert kind == "exit", "the run's log is not complete"

    def values(self, prefix: str, others: tuple[str, ...]) -> dict[str, list[Any]]:
        """The values of each key under ``prefix`` (not under the longer prefixes
        ``others``; no key of W&B's own, no table, no window axis), in logged order."""
        skip = ("_", *others, f"{prefix}rankframe/", f"{prefix}window")
        out: dict[str, list[Any]] = {}
        for row in self.rows:
            for key, value in row.items():
                if key.startswith(prefix) and not key.startswith(skip):
                    out.setdefault(key, []).append(value)
        return out

    def media(self, row_value: dict[str, Any]) -> Path:
        return self.folder / "files" / row_value["path"]


def _data(n: int = 16) -> pd.DataFrame:
    """n queries of four items, two systems, two themes, a day each (three weeks)."""
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        {
            "query": np.repeat(np.arange(n), 4),
            "item": np.tile(np.arange(4), n),
            "a": rng.random(4 * n),
            "b": rng.random(4 * n),
            "relevant": (rng.random(4 * n) < 0.4).astype(int),
            "theme": np.repeat(np.where(np.arange(n) % 2, "news", "sport"), 4),
            "t": np.repeat(pd.date_range("2024-01-01", periods=n, freq="D"), 4),
        }
    )


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A W&B run in offline mode in the test's folder: nothing leaves the machine."""
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    settings = wandb.Settings(console="off", disable_git=True, save_code=False)
    with wandb.init(dir=tmp_path, project="rankframe", settings=settings) as run:
        yield run


def _finished(run: Any) -> Offline:
    """The run finished and its files read: W&B's service writes them apart from the
    process, so it is stopped (``wandb.teardown``), which closes them, before reading."""
    folder = Path(run.dir).parent  # the run's folder; run.dir is its files/
    run.finish()
    wandb.teardown()
    return Offline(folder)


@pytest.mark.parametrize("make_frame", ["pandas", "polars-lazy"], indirect=True)
def test_values_windows_table_and_verdict_reach_the_offline_run(
    make_frame: Any, offline: Any
) -> None:
    ev = make_frame(_data()).rank_eval(score=["a", "b"], time="t")
    results = {
        "": ev.evaluate(["mrr@3", "ndcg@3(ties=first)"], by="theme", confidence_level=0.9),
        "weekly/": ev.evaluate(["mrr@3"], every="1w"),
        "gates/": ev.check(["mrr@3 >= 0.9", "mrr@3 drop <= 1%"], min_queries=1),
    }
    for prefix, result in results.items():
        assert rw.log(result, prefix=prefix) is offline
    run = _finished(offline)
    for prefix, result in results.items():
        table = as_pandas(result)
        others = tuple(p for p in results if p and p != prefix)
        logged = run.values(prefix, others)
        assert set(logged) == {v.key for v in tracking.values_of(table, prefix, 0)}
        for key, points in logged.items():
            cells = tracked_cell(table, tracking.parse_key(key, prefix))
            assert len(points) == len(cells), key
            assert all(same_bits(v, c) for v, c in zip(points, cells, strict=True)), key
        shown = [r[f"{prefix}rankframe/table"] for r in run.rows if f"{prefix}rankframe/table" in r]
        assert len(shown) == 1
        written = json.loads(run.media(shown[0]).read_text())
        assert written["columns"] == [str(c) for c in table.columns]
        assert len(written["data"]) == len(table)
        assert run.summary[f"{prefix}rankframe.version"] == rankframe.__version__
    # windows: a row each, against the axis weekly/window, with the window's start
    weekly = as_pandas(results["weekly/"])
    rows = [r for r in run.rows if "weekly/window" in r]
    starts = sorted(weekly["window"].unique())
    assert [r["weekly/window"] for r in rows] == list(range(len(starts)))
    stamps = [pd.Timestamp(s).tz_localize("UTC").timestamp() for s in starts]
    assert [r["weekly/window_start"] for r in rows] == stamps
    gates = as_pandas(results["gates/"])
    assert (gates["status"] == "fail").any()  # data built to name failing gates
    assert run.summary["gates/rankframe.verdict"] == tracking.verdict(gates)


def test_a_report_logs_its_page_and_fingerprint(offline: Any) -> None:
    report = _data().rank_eval(score=["a", "b"]).report("mrr@3", n_resamples=20, fingerprint=True)
    rw.log(report)
    run = _finished(offline)
    (page,) = [r["rankframe/report"] for r in run.rows if "rankframe/report" in r]
    assert run.media(page).read_text() == report.html()
    assert run.summary["rankframe.kind"] == "report"
    assert run.summary["rankframe.fingerprint"] in report.html()
    assert "comparison/mrr-a3/delta/system:b" in {k for r in run.rows for k in r}


def test_no_active_run_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WANDB_MODE", "offline")
    assert wandb.run is None
    table = _data().rank_eval(score="a").evaluate("mrr")
    with pytest.raises(InvalidOptionError, match=r"No active W&B run: call .* after wandb.init"):
        rw.log(table)
