"""``rankframe compare FILE --reference FILE2`` (issue 27): the paired and win/tie/loss
columns, and the usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from helpers import Run

# three queries of two items; reciprocal ranks by hand: here 1/2, 1, 1 (y, x, y relevant,
# ranked 2nd, 1st, 1st); in the reference 1/2, 1/2, 1/2
HERE = pd.DataFrame(
    {
        "query": [1, 1, 2, 2, 3, 3],
        "item": ["x", "y"] * 3,
        "a": [0.9, 0.1, 0.9, 0.1, 0.1, 0.9],
        "relevant": [0, 1, 1, 0, 0, 1],
    }
)
THERE = HERE.assign(a=[0.9, 0.1, 0.1, 0.9, 0.9, 0.1])


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "here": tmp_path / "here.csv",
        "there": tmp_path / "there.csv",
        "others": tmp_path / "others.parquet",
    }
    HERE.to_csv(paths["here"], index=False)
    THERE.to_csv(paths["there"], index=False)
    THERE.assign(query=THERE["query"] + 10).to_parquet(paths["others"], index=False)
    return paths


def test_reference_paired(run: Run, files: dict[str, Path]) -> None:
    code, out, _ = run(
        "compare",
        files["here"],
        "--score",
        "a",
        "--reference",
        files["there"],
        "-m",
        "mrr",
        "--format",
        "json",
    )
    assert code == 0
    [row] = json.loads(out)
    assert row["paired"] is True
    # 1/2 = 1/2 ties; 1 > 1/2 twice wins
    assert (row["wins"], row["ties"], row["losses"]) == (2, 1, 0)
    assert row["p_value"] == pytest.approx(
        stats.ttest_rel([0.5, 1, 1], [0.5, 0.5, 0.5]).pvalue, rel=1e-9
    )


def test_reference_two_samples(run: Run, files: dict[str, Path]) -> None:
    code, out, _ = run(
        "compare",
        files["here"],
        "--score",
        "a",
        "--reference",
        files["others"],
        "-m",
        "mrr",
        "--format",
        "json",
    )
    assert code == 0
    [row] = json.loads(out)
    assert row["paired"] is False
    assert row["wins"] is None
    code, table, _ = run(
        "compare", files["here"], "--score", "a", "--reference", files["others"], "-m", "mrr"
    )
    assert code == 0
    assert "paired" in table.splitlines()[0]
    assert "wins" in table.splitlines()[0]


def test_reference_and_baseline_is_a_usage_error(run: Run, files: dict[str, Path]) -> None:
    code, _, err = run(
        "compare", files["here"], "--score", "a", "--baseline", "a", "--reference", files["there"]
    )
    assert code == 2
    assert "compare() takes baseline= or reference=, not both" in err


def test_reference_without_the_score_column(
    run: Run, files: dict[str, Path], tmp_path: Path
) -> None:
    path = tmp_path / "no_a.csv"
    THERE.rename(columns={"a": "b"}).to_csv(path, index=False)
    code, _, err = run("compare", files["here"], "--score", "a", "--reference", path)
    assert code != 0
    assert "'a'" in err
