"""``rankframe slices`` and the item-group flags (``--item-groups FILE``, ``--group-column``,
``--unknown-group``) of evaluate, compare, report and slices (issues 36 and 37): the numbers
are the library's on the same data, checked again against scipy and a plain loop; errors exit
as docs/cli.md says (2: the command line, 1: the data).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankframe  # noqa: F401  (registers the accessors)

# Forty queries of two items, one relevant each: reciprocal ranks 1 or 1/2. b ranks the
# relevant item second in every "news" query on "ios"; a at random.
N = 40
_RNG = np.random.default_rng(11)
THEME = np.array(["news", "sport"] * (N // 2))
DEVICE = np.array(["ios"] * (N // 2) + ["web"] * (N // 2))
A_FIRST = _RNG.random(N) < 0.6
B_FIRST = ~((THEME == "news") & (DEVICE == "ios")) & (_RNG.random(N) < 0.9)


def frame() -> pd.DataFrame:
    item = np.tile(["x", "y"], N)
    relevant = (item == "x").astype(int)  # x is the relevant item of every query

    def score(first: np.ndarray) -> np.ndarray:
        return np.where(np.repeat(first, 2) == (item == "x"), 0.9, 0.1)

    return pd.DataFrame(
        {
            "query": np.repeat([f"q{i:02d}" for i in range(N)], 2),
            "item": [f"{i}{q}" for q in range(N) for i in "xy"],
            "a": score(A_FIRST),
            "b": score(B_FIRST),
            "relevant": relevant,
            "theme": np.repeat(THEME, 2),
            "device": np.repeat(DEVICE, 2),
        }
    )


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "data.csv"
    frame().to_csv(path, index=False)
    return path


def _groups(tmp_path: Path, drop: int = 0, name: str = "groups.csv") -> Path:
    items = frame()["item"].tolist()[drop:]
    path = tmp_path / name
    pd.DataFrame(
        {"item": items, "group": ["odd" if len(i) % 2 else "even" for i in items], "other": 1}
    ).to_csv(path, index=False)
    return path


def _csv(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""])


def test_slices_prints_slices_table(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path)
    code, out, err = run(
        "slices",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "--baseline",
        "a",
        "--column",
        "theme",
        "--column",
        "device",
        "-m",
        "mrr",
        "--min-queries",
        "5",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = (
        frame()
        .rank_eval(score=["a", "b"])
        .slices("mrr", ["theme", "device"], baseline="a", min_queries=5)
    )
    assert shown["slice"].tolist() == expected["slice"].tolist()
    for column in (
        "n_queries",
        "mean",
        "baseline_mean",
        "delta",
        "ci_low",
        "ci_high",
        "p_value",
        "p_adjusted",
        "n_tested",
    ):
        np.testing.assert_allclose(
            shown[column].to_numpy(float), expected[column].to_numpy(float), rtol=1e-12
        )
    # the worst slice by a plain loop: b - a inside news & ios, scipy's paired t-test
    assert shown["slice"].iloc[0] == "theme=news & device=ios"
    inside = (THEME == "news") & (DEVICE == "ios")
    a, b = np.where(A_FIRST, 1.0, 0.5), np.where(B_FIRST, 1.0, 0.5)
    assert shown["delta"].iloc[0] == pytest.approx((b - a)[inside].mean(), abs=1e-12)
    assert shown["p_value"].iloc[0] == pytest.approx(
        stats.ttest_rel(b[inside], a[inside]).pvalue, abs=1e-12
    )


def test_slices_options_reach_the_library(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path)
    code, out, err = run(
        "slices",
        path,
        "--score",
        "b",
        "--column",
        "theme",
        "--column",
        "device",
        "-m",
        "mrr",
        "--min-queries",
        "5",
        "--max-depth",
        "1",
        "--top",
        "2",
        "--correction",
        "fdr_bh",
        "--test",
        "permutation",
        "--permutations",
        "200",
        "--seed",
        "3",
        "--alternative",
        "less",
        "--confidence-level",
        "0.9",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = (
        frame()
        .rank_eval(score="b")
        .slices(
            "mrr",
            ["theme", "device"],
            min_queries=5,
            max_depth=1,
            top=2,
            correction="fdr_bh",
            test="permutation",
            n_permutations=200,
            seed=3,
            alternative="less",
            confidence_level=0.9,
        )
    )
    assert len(shown) == 2
    assert shown["slice"].tolist() == expected["slice"].tolist()
    np.testing.assert_allclose(
        shown["p_adjusted"].to_numpy(float), expected["p_adjusted"].to_numpy(float), rtol=1e-12
    )
    # the bootstrap, with its resamples
    code, out, err = run(
        "slices",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "--baseline",
        "a",
        "--column",
        "theme",
        "-m",
        "mrr",
        "--min-queries",
        "5",
        "--test",
        "bootstrap",
        "--resamples",
        "150",
        "--seed",
        "4",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = (
        frame()
        .rank_eval(score=["a", "b"])
        .slices(
            "mrr", "theme", baseline="a", min_queries=5, test="bootstrap", n_resamples=150, seed=4
        )
    )
    assert shown["slice"].tolist() == expected["slice"].tolist()
    for column in ("p_value", "ci_low", "ci_high"):
        np.testing.assert_allclose(
            shown[column].to_numpy(float), expected[column].to_numpy(float), rtol=1e-12
        )
    # the table format: aligned columns, p-values as the other commands write them
    code, out, _ = run(
        "slices",
        path,
        "--score",
        "b",
        "--column",
        "theme",
        "-m",
        "mrr",
        "--min-queries",
        "5",
        "--percent",
    )
    assert code == 0
    assert out.splitlines()[0].split()[:3] == ["theme", "slice", "depth"]
    assert "%" in out.splitlines()[2]


@pytest.mark.parametrize(
    ("flags", "code", "message"),
    [
        (["--column", "theme", "--by", "theme"], 2, "--column COL, not --by"),
        (["--column", "theme", "--baseline", "c"], 2, "baseline='c'"),
        (
            ["--column", "theme", "--max-depth", "0"],
            2,
            "'--max-depth' parameter of slices() must be an integer of at least 1",
        ),
        (
            ["--column", "theme", "--bins", "1"],
            2,
            "'--bins' parameter of slices() must be an integer of at least 2",
        ),
        (["--column", "theme", "--confidence-level", "1.5"], 2, "--confidence-level"),
        (["--column", "item"], 2, "--column item is the --item column"),
        (["--column", "theme", "--min-queries", "41"], 2, "above the 40 queries"),
        (["--column", "theme", "--correction", "sidak"], 2, "invalid choice"),
        (
            ["--column", "theme", "--test", "bootstrap", "--resamples", "0"],
            2,
            "'--resamples' option must be a positive integer",
        ),
        (["--column", "them"], 1, "column 'them' (--column) not found"),
        (["--column", "a"], 2, "--column a is the --score column"),
        (["--column", "relevant"], 2, "--column relevant is the --relevant column"),
        ([], 2, "--column"),
    ],
)
def test_slices_errors(run: Any, tmp_path: Path, flags: list[str], code: int, message: str) -> None:
    path = _write(tmp_path)
    status, out, err = run("slices", path, "--score", "a", "--score", "b", "-m", "mrr", *flags)
    assert (status, out) == (code, ""), err
    assert err.startswith("rankframe: error: "), err
    assert err.count("\n") == 1, err
    assert message in err


def test_a_slice_column_varying_within_a_query_names_the_flag(run: Any, tmp_path: Path) -> None:
    data = frame()
    data.loc[1, "theme"] = "other"  # q00's second row
    path = tmp_path / "varying.csv"
    data.to_csv(path, index=False)
    code, _, err = run("slices", path, "--score", "a", "--column", "theme", "-m", "mrr")
    assert code == 1
    assert "Column 'theme' (--column) varies within query 'q00'" in err
    assert "line 3" in err


# -- item groups ----------------------------------------------------------------------------


def _groups_dict() -> dict[str, str]:
    return {i: "odd" if len(i) % 2 else "even" for i in frame()["item"]}


def test_item_groups_file_on_evaluate_and_compare(run: Any, tmp_path: Path) -> None:
    path, groups = _write(tmp_path), _groups(tmp_path)
    code, out, err = run(
        "evaluate",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "exposure@2,awrf@2",
        "--item-groups",
        groups,
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = (
        frame()
        .rank_eval(score=["a", "b"])
        .evaluate(["exposure@2", "awrf@2"], item_groups=_groups_dict())
    )
    assert shown.columns.tolist() == expected.columns.tolist()
    for column in expected.columns[1:]:
        np.testing.assert_allclose(
            shown[column].to_numpy(float), expected[column].to_numpy(float), rtol=1e-12
        )
    code, out, err = run(
        "compare",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "exposure@2",
        "--item-groups",
        groups,
        "--format",
        "csv",
    )
    assert code == 0, err
    compared = _csv(out)
    expected = (
        frame().rank_eval(score=["a", "b"]).compare(["exposure@2"], item_groups=_groups_dict())
    )
    np.testing.assert_allclose(
        compared["mean"].to_numpy(float), expected["mean"].to_numpy(float), rtol=1e-12
    )
    assert compared["group"].tolist() == expected["group"].tolist()


def test_item_group_columns_and_unknown_group(run: Any, tmp_path: Path) -> None:
    path = _write(tmp_path)
    groups = tmp_path / "g.csv"
    items = frame()["item"].tolist()
    pd.DataFrame({"item": items[2:], "kind": "listed"}).to_csv(groups, index=False)
    code, out, err = run(
        "evaluate",
        path,
        "--score",
        "a",
        "-m",
        "exposure@2",
        "--item-groups",
        groups,
        "--group-column",
        "kind",
        "--unknown-group",
        "rest",
        "--format",
        "csv",
    )
    assert code == 0, err
    shown = _csv(out)
    expected = (
        frame()
        .rank_eval(score="a")
        .evaluate(
            ["exposure@2"], item_groups=dict.fromkeys(items[2:], "listed"), unknown_group="rest"
        )
    )
    assert shown.columns.tolist() == expected.columns.tolist()
    np.testing.assert_allclose(
        shown.iloc[0, :2].to_numpy(float), expected.iloc[0, :2].to_numpy(float), rtol=1e-12
    )
    # by hand: only q00's two items (x0, y0) are in "rest": its share is 1 in 1 of 40
    # queries
    assert shown["exposure@2(group=rest)"].iloc[0] == pytest.approx(1 / N)


@pytest.mark.parametrize(
    ("flags", "code", "message"),
    [
        (["-m", "exposure@2"], 2, "exposure@2 needs --item-groups FILE"),
        (["-m", "mrr", "--unknown-group", "x"], 2, "--unknown-group needs --item-groups"),
        (
            ["-m", "exposure@2", "--item-groups", "GROUPS", "--group-column", "grp"],
            1,
            "column 'grp' (--group-column) not found",
        ),
        (
            ["-m", "exposure@2", "--item-groups", "GROUPS", "--group-column", "item"],
            2,
            "--group-column item is the --item column",
        ),
        (["-m", "exposure@2", "--item-groups", "missing.csv"], 2, "not found; check the path"),
        (["-m", "exposure@2", "--item-groups", "PARTIAL"], 1, "pass --unknown-group other"),
    ],
)
def test_item_group_errors(
    run: Any, tmp_path: Path, flags: list[str], code: int, message: str
) -> None:
    path = _write(tmp_path)
    full, partial = _groups(tmp_path), _groups(tmp_path, drop=2, name="partial.csv")
    flags = [str(full) if f == "GROUPS" else str(partial) if f == "PARTIAL" else f for f in flags]
    for command in ("evaluate", "compare", "slices"):
        extra = {"compare": ["--score", "b"], "slices": ["--column", "theme"]}.get(command, [])
        status, out, err = run(command, path, "--score", "a", *extra, *flags)
        assert (status, out) == (code, ""), (command, err)
        assert message in err, (command, err)


def test_report_slice_and_item_groups(run: Any, tmp_path: Path) -> None:
    path, groups = _write(tmp_path), _groups(tmp_path)
    out = tmp_path / "report.html"
    code, _, err = run(
        "report",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "-m",
        "mrr",
        "--slice",
        "theme",
        "--slice",
        "device",
        "--slice-min-queries",
        "5",
        "--item-groups",
        groups,
        "--exposure-k",
        "2",
        "--resamples",
        "20",
        "-o",
        out,
    )
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    assert '<section id="slices">' in html
    assert '<section id="fairness">' in html
    expected = (
        frame()
        .rank_eval(score=["a", "b"])
        .slices("mrr", ["theme", "device"], baseline="a", min_queries=5, top=5)
    )
    assert len(expected)
    assert f'data-n-tested="{int(expected["n_tested"].iloc[0])}"' in html
    for where in expected["slice"]:
        assert f'data-slice="{where.replace("&", "&amp;")}"' in html
    assert "<script" not in html


@pytest.mark.parametrize("flag", ["--slice-min-queries", "--exposure-k"])
def test_report_bad_counts_exit_2(run: Any, tmp_path: Path, flag: str) -> None:
    code, _, err = run(
        "report",
        _write(tmp_path),
        "--score",
        "a",
        "-m",
        "mrr",
        flag,
        "0",
        "-o",
        tmp_path / "r.html",
    )
    assert code == 2
    assert f"The '{flag}' parameter of report() must be an integer of at least 1" in err
