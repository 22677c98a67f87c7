"""``rankframe report``: it says where it wrote the file (as ``rankframe dashboard``), and
``--fingerprint`` shows the input's hash that ``--record`` stores with a run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

import rankframe

# Four queries of two items; a's and b's scores differ, so each system is tested.
DATA = {
    "query": ["q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4"],
    "item": ["x", "y"] * 4,
    "a": [0.9, 0.1, 0.2, 0.8, 0.7, 0.3, 0.6, 0.4],
    "b": [0.1, 0.9, 0.8, 0.2, 0.7, 0.3, 0.4, 0.6],
    "relevant": [1, 0, 0, 1, 1, 0, 0, 1],
}
FINGERPRINT = re.compile(r'data-fingerprint="([0-9a-f]{64})"')


def _write(tmp_path: Path, frame: pd.DataFrame, name: str = "data.csv") -> Path:
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def test_report_says_where_it_wrote(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path, pd.DataFrame(DATA))
    out = tmp_path / "out" / "r.html"
    out.parent.mkdir()
    code, stdout, err = run(
        "report", path, "--score", "a", "--score", "b", "-m", "mrr", "--resamples", "20", "-o", out
    )
    assert code == 0, err
    assert stdout == ""
    assert err == f"rankframe: wrote {out}\n"
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    # as the dashboard says it
    store = tmp_path / "m.duckdb"
    assert run("evaluate", path, "-m", "mrr", "--score", "a", "--record", store)[0] == 0
    page = tmp_path / "d.html"
    code, _, err = run("dashboard", store, "-o", page)
    assert code == 0, err
    assert err == f"rankframe: wrote {page}\n"


def test_report_says_nothing_when_it_cannot_write(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path, pd.DataFrame(DATA))
    code, _, err = run(
        "report",
        path,
        "--score",
        "a",
        "-m",
        "mrr",
        "--resamples",
        "20",
        "-o",
        tmp_path / "missing" / "r.html",
    )
    assert code == 1
    assert "wrote" not in err
    assert err.startswith("rankframe: error: cannot write")


def test_report_fingerprint_is_the_recorded_one(run: Any, tmp_path: Path) -> None:
    frame = pd.DataFrame(DATA)
    path = _write(tmp_path, frame)
    out = tmp_path / "r.html"
    code, _, err = run(
        "report",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--resamples",
        "20",
        "--fingerprint",
        "-o",
        out,
    )
    assert code == 0, err
    (digest,) = FINGERPRINT.findall(out.read_text(encoding="utf-8"))
    # the hash that `rankframe evaluate --record` stores with a run of the same file
    store = tmp_path / "m.duckdb"
    code, _, err = run(
        "evaluate", path, "--score", "a", "--score", "b", "-m", "mrr", "--record", store
    )
    assert code == 0, err
    (recorded,) = rankframe.History(str(store)).runs()["input_hash"]
    assert digest == recorded
    # and the library's report of the frame, whatever its row order
    shuffled = frame.iloc[::-1].reset_index(drop=True)
    html = (
        shuffled.rank_eval(score=["a", "b"]).report("mrr", fingerprint=True, n_resamples=20).html()
    )
    assert FINGERPRINT.findall(html) == [digest]
    # another score: another hash
    changed = _write(tmp_path, frame.assign(b=frame["a"]), name="changed.csv")
    code, _, err = run(
        "report",
        changed,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--resamples",
        "20",
        "--fingerprint",
        "-o",
        out,
    )
    assert code == 0, err
    (other,) = FINGERPRINT.findall(out.read_text(encoding="utf-8"))
    assert other != digest


def test_report_without_fingerprint_has_none(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path, pd.DataFrame(DATA))
    out = tmp_path / "r.html"
    code, _, err = run("report", path, "--score", "a", "-m", "mrr", "--resamples", "20", "-o", out)
    assert code == 0, err
    assert FINGERPRINT.findall(out.read_text(encoding="utf-8")) == []
