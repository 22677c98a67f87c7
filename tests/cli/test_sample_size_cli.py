"""``rankframe sample-size``: the table of ``sample_size()`` on the same data, its flags
reaching the library, the numbers checked again against statsmodels, and its errors (2: the
command line, 1: the data), as docs/cli.md says."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import TTestIndPower, TTestPower

import rankframe  # noqa: F401  (registers the accessors)

# Forty queries of two items, one relevant each: reciprocal ranks 1 or 1/2; a and b at
# random, b a little better; two devices of twenty queries each.
N = 40
_RNG = np.random.default_rng(3)
A_FIRST = _RNG.random(N) < 0.5
B_FIRST = _RNG.random(N) < 0.7
DEVICE = np.array(["ios", "web"] * (N // 2))


def frame(first_a: np.ndarray = A_FIRST) -> pd.DataFrame:
    item = np.tile(["x", "y"], N)

    def score(first: np.ndarray) -> np.ndarray:
        return np.where(np.repeat(first, 2) == (item == "x"), 0.9, 0.1)

    return pd.DataFrame(
        {
            "query": np.repeat([f"q{i:02d}" for i in range(N)], 2),
            "item": [f"{i}{q}" for q in range(N) for i in "xy"],
            "a": score(first_a),
            "b": score(B_FIRST),
            "relevant": (item == "x").astype(int),
            "device": np.repeat(DEVICE, 2),
        }
    )


def _write(tmp_path: Path, data: pd.DataFrame | None = None, name: str = "data.csv") -> Path:
    path = tmp_path / name
    (frame() if data is None else data).to_csv(path, index=False)
    return path


def _csv(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""])


NUMBERS = ("n_needed", "n_queries", "delta", "effect_size", "sd")


def _same(shown: pd.DataFrame, expected: pd.DataFrame, columns: tuple[str, ...] = NUMBERS) -> None:
    assert shown.columns.tolist() == expected.columns.tolist()
    assert shown["system"].tolist() == expected["system"].tolist()
    assert shown["test"].tolist() == expected["test"].tolist()
    assert shown["enough"].tolist() == expected["enough"].tolist()
    for column in columns:
        np.testing.assert_allclose(
            shown[column].to_numpy(float), expected[column].to_numpy(float), rtol=1e-12
        )


def test_sample_size_prints_the_libraries_table(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path)
    code, out, err = run(
        "sample-size",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr,acc@1",
        "--delta",
        "0.05",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = frame().rank_eval(score=["a", "b"]).sample_size(["mrr", "acc@1"], delta=0.05)
    _same(shown, expected)
    # a's reciprocal ranks, two samples: statsmodels' TTestIndPower
    rr = np.where(A_FIRST, 1.0, 0.5)
    need = TTestIndPower().solve_power(0.05 / rr.std(ddof=1), alpha=0.05, power=0.8)
    row = shown[(shown["system"] == "a") & (shown["metric"] == "mrr")].iloc[0]
    assert row["n_needed"] == math.ceil(need)


def test_sample_size_flags_reach_the_library(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path)
    # paired, relative, another level, power and side
    code, out, err = run(
        "sample-size",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--delta",
        "0.1",
        "--relative",
        "--baseline",
        "a",
        "--alpha",
        "0.01",
        "--power",
        "0.9",
        "--alternative",
        "greater",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = (
        frame()
        .rank_eval(score=["a", "b"])
        .sample_size(
            "mrr",
            delta=0.1,
            relative=True,
            baseline="a",
            alpha=0.01,
            power=0.9,
            alternative="greater",
        )
    )
    _same(shown, expected)
    a, b = np.where(A_FIRST, 1.0, 0.5), np.where(B_FIRST, 1.0, 0.5)
    diff = b - a
    change = 0.1 * a.mean()  # a fraction of the baseline's mean
    need = TTestPower().solve_power(
        change / diff.std(ddof=1), alpha=0.01, power=0.9, alternative="larger"
    )
    assert shown["n_needed"].tolist() == [math.ceil(need)]
    assert shown["delta"].iloc[0] == pytest.approx(change, abs=1e-12)
    # a reference file: each system against the same system there (two samples)
    other = frame(first_a=~A_FIRST)
    reference = _write(tmp_path, other, name="reference.csv")
    code, out, err = run(
        "sample-size",
        path,
        "--score",
        "a",
        "-m",
        "mrr",
        "--delta",
        "0.05",
        "--reference",
        reference,
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = frame().rank_eval(score="a").sample_size("mrr", delta=0.05, reference=other)
    _same(shown, expected, (*NUMBERS, "n_reference"))
    # metric options reach it too: the label names the option
    code, out, err = run(
        "sample-size",
        path,
        "--score",
        "a",
        "-m",
        "recall@1",
        "--delta",
        "0.05",
        "--empty",
        "skip",
        "--format",
        "csv",
    )
    assert code == 0, err
    assert _csv(out)["metric"].tolist() == ["recall@1(empty=skip)"]


def test_sample_size_by_segment(run: Any, tmp_path: Path) -> None:
    # a row per segment, with the queries in hand per segment
    path = _write(tmp_path)
    code, out, err = run(
        "sample-size",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--delta",
        "0.05",
        "--baseline",
        "a",
        "--by",
        "device",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = (
        frame()
        .rank_eval(score=["a", "b"])
        .sample_size("mrr", delta=0.05, baseline="a", by="device")
    )
    _same(shown, expected)
    assert shown["device"].tolist() == expected["device"].tolist() == ["ios", "web"]
    assert shown["n_queries"].tolist() == [N // 2, N // 2]


def test_sample_size_table_format(run: Any, tmp_path: Path) -> None:
    # n_needed is a count in a float column (inf, NaN): shown whole, not 133.0000
    path = _write(tmp_path)
    code, out, err = run(
        "sample-size",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--delta",
        "0.05",
        "--baseline",
        "a",
    )
    assert code == 0, err
    header, _rule, row = out.splitlines()
    cells = dict(zip(header.split(), row.split(), strict=False))
    expected = frame().rank_eval(score=["a", "b"]).sample_size("mrr", delta=0.05, baseline="a")
    assert cells["n_needed"] == str(int(expected["n_needed"].iloc[0]))
    assert cells["enough"] == "no"
    # a one-sided test the wrong way never gets there: inf
    code, out, err = run(
        "sample-size",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--delta",
        "0.05",
        "--baseline",
        "a",
        "--alternative",
        "less",
    )
    assert code == 0, err
    assert out.splitlines()[2].split()[2] == "inf"


@pytest.mark.parametrize(
    ("flags", "code", "message"),
    [
        ([], 2, "the following arguments are required: --delta"),
        (["--delta", "0"], 2, "delta=0 is no change to detect"),
        (["--delta", "nan"], 2, "--delta=nan must be a finite number"),
        (["--delta", "0.1", "--alpha", "1.5"], 2, "--alpha=1.5 must lie strictly between 0 and 1"),
        (["--delta", "0.1", "--power", "0"], 2, "--power=0.0 must lie strictly between 0 and 1"),
        (["--delta", "0.1", "--baseline", "c"], 2, "baseline='c' is not one of the score columns"),
        (["--delta", "0.1", "--baseline", "a", "--reference", "x.csv"], 2, "not allowed with"),
        (["--delta", "0.1", "--alternative", "up"], 2, "invalid choice"),
        (["--delta", "0.1", "--reference", "missing.csv"], 2, "not found; check the path"),
        (["--delta", "0.1", "--by", "item"], 2, "--by item is the --item column"),
        (["--delta", "0.1", "--relevant", "grade"], 1, "column 'grade' (--relevant) not found"),
        (["--delta", "0.1", "-m", "coverage@2"], 1, "coverage@2 is a set-level metric"),
    ],
)
def test_sample_size_errors(
    run: Any, tmp_path: Path, flags: list[str], code: int, message: str
) -> None:
    path = _write(tmp_path)
    status, out, err = run("sample-size", path, "--score", "a", "--score", "b", *flags)
    assert (status, out) == (code, ""), err
    assert err.startswith("rankframe: error: "), err
    assert err.count("\n") == 1, err
    assert message in err


def test_sample_size_baseline_needs_two_scores(run: Any, tmp_path: Path) -> None:
    status, _, err = run(
        "sample-size", _write(tmp_path), "--score", "a", "--delta", "0.1", "--baseline", "a"
    )
    assert status == 2
    assert "baseline= needs two score columns or more" in err
