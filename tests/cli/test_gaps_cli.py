"""``rankframe gaps``: the table of ``gaps()`` on the same data, its flags reaching the
library, the numbers checked again by a plain loop and scipy, and its errors (2: the command
line, 1: the data), as docs/cli.md says."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankframe  # noqa: F401  (registers the accessors)

# Sixty queries of two items, one relevant each: reciprocal ranks 1 or 1/2. Three age
# bands of twenty queries; b ranks the relevant item second for most "young" users (a gap
# between the groups that a permutation test finds), a at random.
N = 60
_RNG = np.random.default_rng(5)
AGE = np.array(["young", "middle", "old"] * (N // 3))
PLAN = np.array(["free"] * (N // 2) + ["paid"] * (N // 2))
A_FIRST = _RNG.random(N) < 0.6
B_FIRST = np.where(AGE == "young", _RNG.random(N) < 0.15, _RNG.random(N) < 0.9)


def frame() -> pd.DataFrame:
    item = np.tile(["x", "y"], N)

    def score(first: np.ndarray) -> np.ndarray:
        return np.where(np.repeat(first, 2) == (item == "x"), 0.9, 0.1)

    return pd.DataFrame(
        {
            "query": np.repeat([f"q{i:02d}" for i in range(N)], 2),
            "item": [f"{i}{q}" for q in range(N) for i in "xy"],
            "a": score(A_FIRST),
            "b": score(B_FIRST),
            "relevant": (item == "x").astype(int),
            "age": np.repeat(AGE, 2),
            "plan": np.repeat(PLAN, 2),
        }
    )


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "data.csv"
    frame().to_csv(path, index=False)
    return path


def _csv(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""])


NUMBERS = ("gap", "ci_low", "ci_high", "p_value", "p_adjusted", "n_groups", "n_queries", "n_tested")


def _same(shown: pd.DataFrame, expected: pd.DataFrame, columns: tuple[str, ...]) -> None:
    assert shown.columns.tolist() == expected.columns.tolist()
    for column in columns:
        np.testing.assert_allclose(
            shown[column].to_numpy(float), expected[column].to_numpy(float), rtol=1e-12
        )


def test_gaps_prints_the_libraries_table(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path)
    code, out, err = run(
        "gaps",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr,acc@1",
        "--by",
        "age",
        "--permutations",
        "500",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = frame().rank_eval(score=["a", "b"]).gaps(["mrr", "acc@1"], "age", n_permutations=500)
    _same(shown, expected, (*NUMBERS, "ratio", "worst_mean", "best_mean"))
    assert shown["worst_group"].tolist() == expected["worst_group"].tolist()
    # b's reciprocal ranks by a plain loop: the young users' mean is the lowest
    rr = np.where(B_FIRST, 1.0, 0.5)
    means = {g: rr[g == AGE].mean() for g in ("young", "middle", "old")}
    row = shown[(shown["system"] == "b") & (shown["metric"] == "mrr")].iloc[0]
    assert row["worst_group"] == "young"
    assert row["gap"] == pytest.approx(max(means.values()) - min(means.values()), abs=1e-12)
    assert row["significant"]


def test_gaps_flags_reach_the_library(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path)
    # Kruskal-Wallis, intersectional groups, another correction and level, the bootstrap's
    # resamples and seed
    code, out, err = run(
        "gaps",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--by",
        "age",
        "--by",
        "plan",
        "--test",
        "rank",
        "--correction",
        "bonferroni",
        "--confidence-level",
        "0.9",
        "--resamples",
        "200",
        "--seed",
        "3",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = (
        frame()
        .rank_eval(score=["a", "b"])
        .gaps(
            "mrr",
            ["age", "plan"],
            test="rank",
            correction="bonferroni",
            confidence_level=0.9,
            n_resamples=200,
            seed=3,
        )
    )
    _same(shown, expected, NUMBERS)
    assert (shown["n_groups"] == 6).all()
    rr = np.where(B_FIRST, 1.0, 0.5)
    groups = [rr[(a == AGE) & (p == PLAN)] for a in set(AGE) for p in set(PLAN)]
    b_row = shown[shown["system"] == "b"].iloc[0]
    assert b_row["p_value"] == pytest.approx(stats.kruskal(*groups).pvalue, abs=1e-12)
    # against a baseline: the one-way ANOVA of b - a per age band
    code, out, err = run(
        "gaps",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--by",
        "age",
        "--baseline",
        "a",
        "--test",
        "anova",
        "--correction",
        "none",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = (
        frame()
        .rank_eval(score=["a", "b"])
        .gaps("mrr", "age", baseline="a", test="anova", correction=None)
    )
    _same(shown, expected, (*NUMBERS, "worst_delta", "best_delta"))
    diff = rr - np.where(A_FIRST, 1.0, 0.5)
    anova = stats.f_oneway(*(diff[g == AGE] for g in ("young", "middle", "old")))
    assert shown["system"].tolist() == ["b"]
    assert shown["p_value"].iloc[0] == pytest.approx(anova.pvalue, abs=1e-12)
    assert shown["p_adjusted"].iloc[0] == shown["p_value"].iloc[0]  # --correction none


def test_gaps_table_format(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path)
    code, out, err = run(
        "gaps", path, "--score", "b", "-m", "mrr", "--by", "age", "--permutations", "200"
    )
    assert code == 0, err
    header, rule, row = out.splitlines()
    assert header.split()[:4] == ["system", "metric", "k", "gap"]
    assert set(rule) <= {"-", " "}
    assert row.split()[:2] == ["b", "mrr"]


@pytest.mark.parametrize(
    ("flags", "code", "message"),
    [
        ([], 2, "gaps needs --by COL"),
        (["--by", "age", "--baseline", "c"], 2, "baseline='c'"),
        (["--by", "age", "--test", "t-test"], 2, "invalid choice"),
        (["--by", "age", "--correction", "sidak"], 2, "invalid choice"),
        (
            ["--by", "age", "--permutations", "0"],
            2,
            "'--permutations' option must be a positive integer",
        ),
        (["--by", "age", "--resamples", "0"], 2, "'--resamples' option must be a positive integer"),
        (
            ["--by", "age", "--confidence-level", "1"],
            2,
            "'--confidence-level' option must be a number between 0 and 1",
        ),
        (["--by", "item"], 2, "--by item is the --item column"),
        (["--by", "agee"], 1, "column 'agee' (--by) not found"),
        (["--by", "age", "-m", "coverage@2"], 1, "coverage"),
        (["--by", "age", "-m", "nosuch"], 2, "nosuch"),
    ],
)
def test_gaps_errors(run: Any, tmp_path: Path, flags: list[str], code: int, message: str) -> None:
    path = _write(tmp_path)
    status, out, err = run("gaps", path, "--score", "a", "--score", "b", *flags)
    assert (status, out) == (code, ""), err
    assert err.startswith("rankframe: error: "), err
    assert err.count("\n") == 1, err
    assert message in err


def test_gaps_baseline_needs_two_scores(run: Any, tmp_path: Path) -> None:
    status, _, err = run("gaps", _write(tmp_path), "--score", "a", "--by", "age", "--baseline", "a")
    assert status == 2
    assert "baseline=" in err
    assert "two score columns" in err


def test_a_group_column_varying_within_a_query_names_the_flag(run: Any, tmp_path: Path) -> None:
    data = frame()
    data.loc[1, "age"] = "other"  # q00's second row
    path = tmp_path / "varying.csv"
    data.to_csv(path, index=False)
    code, _, err = run("gaps", path, "--score", "a", "--by", "age", "-m", "mrr")
    assert code == 1
    assert "Column 'age' (--by) varies within query 'q00'" in err
    assert "line 3" in err
