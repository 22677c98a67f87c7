"""``rankframe agreement`` and ``--gold``/``--estimate`` on ``evaluate`` and ``compare``:
the library's tables on the same data (docs/judgments.md), the kappa checked again by
scikit-learn, and their errors (2: the command line, 1: the data)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import rankframe  # noqa: F401  (registers the accessors)
from helpers import judged_frame

GRADES = ("--relevant", "llm", "--gold", "human")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    written = tmp_path / "judged.csv"
    judged_frame().to_csv(written, index=False)
    return written


def _csv(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""])


def _same(shown: pd.DataFrame, expected: pd.DataFrame) -> None:
    assert shown.columns.tolist() == expected.columns.tolist()
    for column in expected.columns:
        if pd.api.types.is_numeric_dtype(expected[column].dtype):  # k: null without a cut-off
            want = pd.to_numeric(expected[column]).astype(float)
            np.testing.assert_allclose(shown[column].astype(float), want, rtol=1e-12)
        else:
            assert shown[column].astype(str).tolist() == expected[column].astype(str).tolist()


def test_agreement_prints_the_libraries_grade_table(run: Any, path: Path) -> None:
    code, out, err = run(
        "agreement", path, *GRADES, "--score", "a", "--by", "theme", "--format", "csv"
    )
    assert code == 0, err
    ev = judged_frame().rank_eval(score="a", relevant="llm", gold="human")
    _same(_csv(out), ev.agreement(by="theme").grades)
    pairs = judged_frame().dropna(subset=["human"])
    x = pairs[pairs["theme"] == "x"]
    want = cohen_kappa_score(x["llm"].astype(int), x["human"].astype(int))
    assert _csv(out)["kappa"][0] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("table", ["confusion", "bias", "orders", "conclusions"])
def test_agreement_prints_each_table(run: Any, path: Path, table: str) -> None:
    systems = ("--score", "a", "--score", "b", "--score", "c")
    code, out, err = run(
        "agreement", path, *GRADES, *systems, "-m", "mrr,ndcg@3", "--alpha", "0.3",
        "--table", table, "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    ev = judged_frame().rank_eval(score=["a", "b", "c"], relevant="llm", gold="human")
    expected = getattr(ev.agreement(["mrr", "ndcg@3"], alpha=0.3), table)
    _same(_csv(out), expected)


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_estimate_reaches_the_library(run: Any, path: Path, command: str) -> None:
    code, out, err = run(
        command, path, *GRADES, "--score", "a", "--score", "b", "-m", "mrr,precision@2",
        "--estimate", "ppi++", "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    ev = judged_frame().rank_eval(score=["a", "b"], relevant="llm", gold="human")
    expected = getattr(ev, command)(["mrr", "precision@2"], estimate="ppi++")
    shown = _csv(out)
    assert shown["estimate"].tolist() == ["ppi++"] * len(expected)
    assert shown["n_gold"].tolist() == [8] * len(expected)
    numbers = ["mrr", "mrr_ci_low"] if command == "evaluate" else ["mean", "delta", "ci_high"]
    for column in numbers:
        np.testing.assert_allclose(shown[column], expected[column], rtol=1e-12)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ("evaluate", "--relevant", "llm", "--estimate", "ppi"),
            "--estimate ppi corrects the judge's grades (--relevant llm) by people's: pass "
            "--gold COL",
        ),
        (
            ("evaluate", *GRADES, "--estimate", "gold", "--per-query"),
            "--estimate gold gives evaluate's means and intervals; drop --per-query",
        ),
        (
            ("compare", *GRADES, "--score", "b", "--estimate", "ppi", "--record", "runs.duckdb"),
            "--record stores compare's plain tables, not --estimate ppi's",
        ),
        (("agreement", "--relevant", "llm"), "agreement compares the judge's grades"),
        (
            ("agreement", "--relevant", "llm", "--gold", "llm"),
            "--gold llm is the --relevant column",
        ),
        (("agreement", *GRADES, "--table", "bias"), "--table bias compares metrics"),
        (("agreement", *GRADES, "--percent"), "unrecognized arguments: --percent"),
        (("agreement", *GRADES, "--alpha", "1.5"), "--alpha"),
    ],
)
def test_judgment_flags_are_usage_errors(
    run: Any, path: Path, argv: tuple[str, ...], message: str
) -> None:
    code, out, err = run(argv[0], path, "--score", "a", *argv[1:])
    assert code == 2
    assert out == ""
    assert message in err


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_no_row_graded_by_people_is_a_data_error(run: Any, tmp_path: Path, suffix: str) -> None:
    # a CSV's column of empty fields is text to polars: --gold reads it as numbers (nulls)
    data = judged_frame().assign(human=np.nan)
    written = tmp_path / f"nobody.{suffix}"
    if suffix == "csv":
        data.to_csv(written, index=False)
        assert pd.read_csv(written)["human"].isna().all()
    else:
        data.to_parquet(written, index=False)
    code, _, err = run("agreement", written, *GRADES, "--score", "a")
    assert code == 1
    assert "No row has both a judge's grade (column 'llm') and people's" in err
