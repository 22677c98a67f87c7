"""Time windows on the command line (issue 27): ``--time COL [--time-unit U] --every 1w`` for
``rankframe evaluate``, ``compare`` and ``check``, and ``check --reference FILE``.

The file is the gates' hand-made frame (``tests/gates_data.py``: each system ranks the one
relevant item of a query at a chosen rank, so a query's reciprocal rank is 1/rank) with a
system ``drift`` that ranks as ``base`` on queries q00..q11, served on Wednesday 2024-03-06,
and as ``bad`` on q12..q23, served a week later. Week 1: RR 1 on 9 queries and 1/2 on 3
(mean 0.875); week 2: 1/2 on 9 and 1/3 on 3 (mean 0.375 + 1/12 = 0.4583). p-values from
``scipy.stats.ttest_ind(equal_var=False)`` (two weeks of other queries) and
``scipy.stats.ttest_rel`` (a reference file with the same query ids).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from gates_data import RANKS, N, frame_data
from helpers import Run

HALF = N // 2
WEEKS = ["2024-03-04 00:00:00+00:00", "2024-03-11 00:00:00+00:00"]


def _data(drift: bool = True) -> pd.DataFrame:
    data = pd.DataFrame(frame_data())
    late = data["query"].str[1:].astype(int) >= HALF
    data["drift"] = data["base"].where(~late, data["bad"]) if drift else data["base"]
    stamps = pd.Timestamp("2024-03-06 12:00", tz="UTC") + pd.to_timedelta(
        late.astype(int) * 7, unit="D"
    )
    data["served_at"] = stamps.dt.strftime("%Y-%m-%dT%H:%M:%SZ")  # ISO 8601 text
    data["epoch"] = (stamps - pd.Timestamp("1970-01-01", tz="UTC")) // pd.Timedelta(seconds=1)
    return data


def _rr(ranks: list[int]) -> np.ndarray:
    return 1.0 / np.array(ranks, dtype=float)


WEEK1 = _rr(RANKS["base"][:HALF])
WEEK2 = _rr(RANKS["bad"][HALF:])


@pytest.fixture
def path(tmp_path: Path) -> Path:
    out = tmp_path / "runs.csv"
    _data().to_csv(out, index=False)
    return out


def test_evaluate_every_week(run: Run, path: Path) -> None:
    code, out, err = run(
        "evaluate",
        path,
        "--score",
        "drift",
        "-m",
        "mrr",
        "--time",
        "served_at",
        "--every",
        "1w",
        "--format",
        "json",
    )
    assert (code, err) == (0, "")
    rows = json.loads(out)
    assert [r["window"] for r in rows] == WEEKS
    assert [r["mrr"] for r in rows] == pytest.approx([WEEK1.mean(), WEEK2.mean()])
    assert [r["n_queries"] for r in rows] == [HALF, HALF]


def test_evaluate_epochs_with_a_time_unit(run: Run, path: Path) -> None:
    code, out, _ = run(
        "evaluate",
        path,
        "--score",
        "drift",
        "-m",
        "mrr",
        "--time",
        "epoch",
        "--time-unit",
        "s",
        "--every",
        "1w",
        "--format",
        "json",
    )
    assert code == 0
    rows = json.loads(out)
    assert [r["window"] for r in rows] == WEEKS
    assert [r["mrr"] for r in rows] == pytest.approx([0.875, 0.375 + 1 / 12])


def test_compare_each_week_with_the_previous(run: Run, path: Path) -> None:
    # one score column is enough: each window against the previous window
    code, out, _ = run(
        "compare",
        path,
        "--score",
        "drift",
        "-m",
        "mrr",
        "--time",
        "served_at",
        "--every",
        "1w",
        "--format",
        "json",
    )
    assert code == 0
    first, second = json.loads(out)
    assert (first["window"], first["reference_window"], first["delta"]) == (WEEKS[0], None, None)
    assert second["reference_window"] == WEEKS[0]
    assert second["paired"] is False
    assert second["delta"] == pytest.approx(WEEK2.mean() - WEEK1.mean())
    assert second["p_value"] == pytest.approx(stats.ttest_ind(WEEK2, WEEK1, equal_var=False).pvalue)


def test_compare_a_baseline_within_each_week(run: Run, path: Path) -> None:
    code, out, _ = run(
        "compare",
        path,
        "--score",
        "base",
        "--score",
        "drift",
        "-m",
        "mrr",
        "--baseline",
        "base",
        "--time",
        "served_at",
        "--every",
        "1w",
        "--format",
        "json",
    )
    assert code == 0
    rows = [r for r in json.loads(out) if r["system"] == "drift"]
    assert [r["window"] for r in rows] == WEEKS
    base2 = _rr(RANKS["base"][HALF:])
    assert rows[1]["p_value"] == pytest.approx(stats.ttest_rel(WEEK2, base2).pvalue)


def test_check_every_week_exit_1(run: Run, path: Path) -> None:
    code, out, _ = run(
        "check",
        path,
        "--score",
        "drift",
        "--rule",
        "mrr drop <= 0.05",
        "--time",
        "served_at",
        "--every",
        "1w",
        "--min-queries",
        "5",
        "--format",
        "json",
    )
    assert code == 1
    rows = json.loads(out)
    assert [r["status"] for r in rows] == ["no baseline", "fail"]
    assert [r["window"] for r in rows] == WEEKS
    assert rows[1]["p_value"] == pytest.approx(
        stats.ttest_ind(WEEK2, WEEK1, equal_var=False).pvalue
    )
    assert rows[1]["paired"] is False


def test_check_a_reference_file(run: Run, path: Path, tmp_path: Path) -> None:
    # the reference: the same query ids, drift ranking as base everywhere: paired tests
    reference = tmp_path / "last_release.parquet"
    _data(drift=False).to_parquet(reference, index=False)
    base = _rr(RANKS["base"])
    code, out, _ = run(
        "check",
        path,
        "--score",
        "drift",
        "--rule",
        "mrr drop <= 0.05",
        "--reference",
        reference,
        "--min-queries",
        "5",
        "--format",
        "json",
    )
    assert code == 1
    (row,) = json.loads(out)
    drift = np.concatenate([WEEK1, WEEK2])
    assert (row["status"], row["paired"]) == ("fail", True)
    assert row["p_value"] == pytest.approx(stats.ttest_rel(drift, base).pvalue)
    # per week: no change in week 1 (no test), the whole drop in week 2
    code, out, _ = run(
        "check",
        path,
        "--score",
        "drift",
        "--rule",
        "mrr drop <= 0.05",
        "--reference",
        reference,
        "--time",
        "served_at",
        "--every",
        "1w",
        "--min-queries",
        "5",
        "--format",
        "json",
    )
    assert code == 1
    rows = json.loads(out)
    assert [r["status"] for r in rows] == ["pass", "fail"]
    assert rows[1]["p_value"] == pytest.approx(stats.ttest_rel(WEEK2, base[HALF:]).pvalue)


@pytest.mark.parametrize(
    ("command", "argv", "words"),
    [
        ("evaluate", ["--every", "1w"], ["--every needs --time"]),
        ("compare", ["--every", "1w"], ["--every needs --time"]),
        ("evaluate", ["--time", "epoch"], []),  # a time column without windows: fine
        ("evaluate", ["--time-unit", "s"], ["--time-unit needs --time"]),
        (
            "evaluate",
            ["--time", "theme", "--every", "1w"],
            ["--time theme", "not an ISO 8601 datetime", "'small'"],
        ),
        (
            "evaluate",
            ["--time", "served_at", "--every", "1 week"],
            ["--every 1 week", "polars duration"],
        ),
        ("compare", ["--time", "nope", "--every", "1w"], ["'nope'", "--time"]),
    ],
)
def test_time_errors(run: Run, path: Path, command: str, argv: list[str], words: list[str]) -> None:
    code, _, err = run(command, path, "--score", "drift", "-m", "mrr", *argv)
    if not words:
        assert code == 0
        return
    assert code != 0
    for word in words:
        assert word in err
