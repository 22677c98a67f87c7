"""``rankframe check``: exit statuses 0 / 1 / 2, the JSON a CI system reads, the formats.

The file is the hand-made frame of ``tests/statistics/test_gates.py`` (each system ranks the
one relevant item of a query at a chosen rank): mean reciprocal rank 0.875 for ``base``
(RR 1 on 18 queries, 0.5 on 6), 11/24 for ``bad`` (0.5 and 1/3), 0.8125 for ``noisy``; a
percentile bootstrap interval of a mean lies between the extreme per-query values.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import TTestPower

from gates_data import RANKS, N, frame_data
from helpers import Run

KEYS = [
    "rule",
    "system",
    "metric",
    "k",
    "status",
    "value",
    "delta",
    "delta_relative",
    "bound",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "bound_relative",
    "ci_low_relative",
    "ci_high_relative",
    "paired",
    "n_queries",
    "queries_to_decide",
]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    out = tmp_path / "runs.csv"
    pd.DataFrame(frame_data()).to_csv(out, index=False)
    return out


def test_every_row_passes_exit_0(run: Run, path: Path) -> None:
    code, out, err = run(
        "check",
        path,
        "--score",
        "base",
        "--score",
        "better",
        "--rule",
        "mrr >= 0.5",
        "--rule",
        "mrr@10 > 0.4",
    )
    # the verdict on stderr, on a pass too: 2 rules x 2 systems
    assert (code, err) == (0, "rankframe: 0 of 4 rules failed (4 pass)\n")
    lines = out.splitlines()
    assert lines[0].split() == KEYS
    assert len(lines) == 2 + 4
    assert all(" pass " in line for line in lines[2:])


def test_a_failing_row_exit_1(run: Run, path: Path) -> None:
    # bad's reciprocal ranks are at most 0.5: its interval is below 0.6
    code, out, _ = run(
        "check",
        path,
        "--score",
        "base",
        "--score",
        "bad",
        "--rule",
        "mrr >= 0.6",
        "--format",
        "json",
    )
    assert code == 1
    rows = json.loads(out)
    assert [(r["system"], r["status"]) for r in rows] == [("base", "pass"), ("bad", "fail")]


def test_uncertain_fails_only_when_asked(run: Run, path: Path) -> None:
    # base's acc@1 is 18 ones and 6 zeros: the bound 0.75 is its mean, inside the interval
    argv = ("check", path, "--score", "base", "--rule", "acc@1 >= 0.75", "--format", "json")
    code, out, _ = run(*argv)
    assert code == 0
    assert json.loads(out)[0]["status"] == "uncertain"
    code, _, _ = run(*argv, "--fail-on", "uncertain")
    assert code == 1
    code, out, _ = run(*argv, "--mode", "point")  # 0.75 >= 0.75
    assert code == 0
    assert json.loads(out)[0]["status"] == "pass"


def test_too_few_queries_does_not_fail(run: Run, path: Path) -> None:
    code, out, _ = run(
        "check",
        path,
        "--score",
        "bad",
        "--rule",
        "mrr >= 0.9",
        "--min-queries",
        N + 1,
        "--format",
        "json",
    )
    assert code == 0
    assert json.loads(out)[0]["status"] == "too few queries"


def test_the_json_keys_and_values(run: Run, path: Path) -> None:
    code, out, _ = run(
        "check",
        path,
        "--score",
        "base",
        "--score",
        "noisy",
        "--score",
        "bad",
        "--baseline",
        "base",
        "--rule",
        "mrr >= 0.3",
        "--rule",
        "mrr drop <= 5%",
        "--by",
        "theme",
        "--min-queries",
        5,
        "--format",
        "json",
    )
    assert code == 1  # bad drops significantly
    rows = json.loads(out)
    keys = [KEYS[0], "theme", *KEYS[1:]]
    assert all(list(r) == keys for r in rows)
    absolute = {(r["theme"], r["system"]): r for r in rows if r["rule"] == "mrr >= 0.3"}
    assert len(absolute) == 6
    assert absolute["big", "base"]["value"] == pytest.approx((15 + 6 * 0.5) / (N - 3))
    assert absolute["small", "base"]["status"] == "too few queries"
    assert absolute["big", "base"]["p_value"] is None  # NaN as null
    assert absolute["big", "base"]["k"] is None
    drops = {(r["theme"], r["system"]): r for r in rows if r["rule"] == "mrr drop <= 5%"}
    assert set(drops) == {("big", "noisy"), ("big", "bad"), ("small", "noisy"), ("small", "bad")}
    assert drops["big", "bad"]["status"] == "fail"
    # a relative rule: its bound and interval are relative, the absolute ones empty
    assert drops["big", "bad"]["bound_relative"] == -0.05
    assert drops["big", "bad"]["bound"] is None
    assert drops["big", "bad"]["ci_low"] is None
    base_mean = (15 + 6 * 0.5) / (N - 3)
    bad_mean = (15 * 0.5 + 6 / 3) / (N - 3)
    assert drops["big", "bad"]["delta"] == pytest.approx(bad_mean - base_mean)
    assert drops["big", "bad"]["delta_relative"] == pytest.approx(bad_mean / base_mean - 1)
    assert (
        drops["big", "bad"]["ci_low_relative"]
        <= drops["big", "bad"]["delta_relative"]
        <= drops["big", "bad"]["ci_high_relative"]
    )
    assert not any(isinstance(v, float) and math.isnan(v) for r in rows for v in r.values())


def test_markdown_and_table(run: Run, path: Path) -> None:
    code, out, _ = run(
        "check", path, "--score", "base", "--rule", "mrr >= 0.5", "--format", "markdown"
    )
    assert code == 0
    assert out.splitlines()[0] == "| " + " | ".join(KEYS) + " |"
    assert "| 0.8750 |" in out
    # a relative rule's columns are percentages, as the rule writes its tolerance
    _, out, _ = run(
        "check",
        path,
        "--score",
        "base",
        "--score",
        "bad",
        "--rule",
        "mrr drop <= 5%",
        "--min-queries",
        5,
        "--format",
        "markdown",
    )
    row = dict(
        zip(KEYS, (c.strip() for c in out.splitlines()[2].strip("|").split("|")), strict=True)
    )
    base_mean, bad_mean = 0.875, (18 * 0.5 + 6 / 3) / N  # bad's RR: 1/2 x18, 1/3 x6
    assert row["bound_relative"] == "-5.00%"
    assert row["delta_relative"] == f"{(bad_mean / base_mean - 1) * 100:+.2f}%"
    assert row["delta"] == f"{bad_mean - base_mean:+.4f}"
    assert row["bound"] == ""


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--rule", "ndgc@10 >= 0.3"], ["unknown metric 'ndgc@10'", "Did you mean 'ndcg'"]),
        (["--rule", "mrr 0.3"], ["no comparison operator", "A rule reads"]),
        (["--rule", "mrr drop <= 0.01"], ["is a drop rule", "baseline"]),
        (["--rule", "mrr >= 0", "--min-queries", "0"], ["min_queries"]),
        (
            ["--rule", "mrr >= 0", "--baseline", "nope"],
            ["baseline='nope' is not one of the score columns"],
        ),
        (["--rule", "mrr >= 0", "--every", "1w"], ["--every needs --time"]),
        (["--rule", "mrr >= 0", "--relevant", "grade"], ["'grade'", "--relevant"]),
        (["--rule", "mrr >= 0", "--ties", "sideways"], ["invalid choice"]),
        (["--rule", "mrr >= 0", "--baseline", "base", "--reference", "x.csv"], ["not allowed"]),
        ([], ["--rule"]),
    ],
)
def test_bad_input_exit_2(run: Run, path: Path, argv: list[str], words: list[str]) -> None:
    code, out, err = run("check", path, "--score", "base", *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("rankframe: error:")
    for word in words:
        assert word in err


def test_bad_data_and_missing_files_exit_2(run: Run, tmp_path: Path) -> None:
    code, _, err = run("check", tmp_path / "none.csv", "--rule", "mrr >= 0")
    assert code == 2
    assert "not found" in err
    broken = pd.DataFrame(frame_data())
    broken.loc[5, "query"] = None  # a null query id on line 7 of the file
    bad = tmp_path / "broken.csv"
    broken.to_csv(bad, index=False)
    code, _, err = run("check", bad, "--score", "base", "--rule", "mrr >= 0")
    assert code == 2
    assert "Line 7" in err


def test_record_appends_the_gate_table(run: Run, path: Path, tmp_path: Path) -> None:
    import rankframe

    store = tmp_path / "gates.duckdb"
    code, out, err = run(
        "check",
        path,
        "--score",
        "base",
        "--score",
        "bad",
        "--rule",
        "mrr >= 0.6",
        "--format",
        "json",
        "--record",
        store,
        "--run-name",
        "ci",
        "--tag",
        "branch=main",
    )
    assert code == 1  # recording does not change the decision
    assert "recorded run" in err
    history = rankframe.History(store)
    runs = history.runs()
    assert list(runs["run_name"]) == ["ci"]
    assert list(runs["result"]) == ["Check"]
    assert runs["input_queries"].iloc[0] == N
    stored = history.load(run="ci", kind="gate")
    statuses = dict(zip(stored["system"], stored["status"], strict=False))
    assert statuses == {r["system"]: r["status"] for r in json.loads(out)}


def test_run_name_without_record_is_a_usage_error(run: Run, path: Path) -> None:
    code, _, err = run("check", path, "--score", "base", "--rule", "mrr >= 0.6", "--run-name", "ci")
    assert code == 2
    assert "--record" in err


# -- the verdict line on stderr ----------------------------------------------------------------


def test_the_verdict_names_the_failed_rows(run: Run, path: Path) -> None:
    # bad's mean RR in the big segment drops from base's (15 + 6 * 0.5) / 21 to
    # (15 * 0.5 + 6 / 3) / 21, -47% and significant: fail; noisy's changes cancel out
    # there (+0.5, -0.5, -0.5, +0.5): pass; the small segment has 3 queries: too few. Every
    # RR is at least 1/3: "mrr >= 0.3" passes where it is not too few.
    code, out, err = run(
        "check",
        path,
        "--score",
        "base",
        "--score",
        "noisy",
        "--score",
        "bad",
        "--baseline",
        "base",
        "--rule",
        "mrr >= 0.3",
        "--rule",
        "mrr drop <= 5%",
        "--by",
        "theme",
        "--min-queries",
        5,
    )
    assert code == 1
    assert out.splitlines()[0].split()[:3] == ["rule", "theme", "system"]  # the table first
    # 3 systems x 2 segments for the absolute rule, 2 x 2 for the drop rule
    assert err == ("rankframe: 1 of 10 rules failed: mrr drop <= 5% (theme=big, system=bad)\n")


def test_the_verdict_names_five_rows_and_counts_the_others(run: Run, path: Path) -> None:
    # bad's RR is 1/2 or 1/3: each rule fails on both segments in point mode, 6 rows; one
    # system, so no system= in the line. Segments in sorted order: big, then small
    code, _, err = run(
        "check",
        path,
        "--score",
        "bad",
        "--rule",
        "mrr >= 0.9",
        "--rule",
        "mrr >= 0.8",
        "--rule",
        "acc@1 >= 0.5",
        "--by",
        "theme",
        "--mode",
        "point",
        "--min-queries",
        1,
    )
    assert code == 1
    assert err == (
        "rankframe: 6 of 6 rules failed: mrr >= 0.9 (theme=big), mrr >= 0.9 (theme=small), "
        "mrr >= 0.8 (theme=big), mrr >= 0.8 (theme=small), acc@1 >= 0.5 (theme=big), "
        "and 1 more\n"
    )


def test_the_verdict_of_fail_on_uncertain_says_uncertain(run: Run, path: Path) -> None:
    # base's acc@1 is 18 ones and 6 zeros: the bound 0.75 is its mean, inside the interval
    argv = ("check", path, "--score", "base", "--rule", "acc@1 >= 0.75")
    code, _, err = run(*argv)
    assert (code, err) == (0, "rankframe: 0 of 1 rules failed (1 uncertain)\n")
    code, _, err = run(*argv, "--fail-on", "uncertain")
    assert (code, err) == (1, "rankframe: 1 of 1 rules failed: acc@1 >= 0.75 (uncertain)\n")


def test_the_verdict_names_windows_by_their_date(run: Run, tmp_path: Path) -> None:
    data = pd.DataFrame(frame_data())
    # queries q00..q11 in the week of 2024-03-04, the others a week later
    data["served_at"] = [
        pd.Timestamp("2024-03-06 12:00", tz="UTC") + pd.Timedelta(weeks=int(int(q[1:]) >= N // 2))
        for q in data["query"]
    ]
    file = tmp_path / "weeks.parquet"
    data.to_parquet(file)
    code, _, err = run(
        "check",
        file,
        "--score",
        "bad",
        "--rule",
        "mrr >= 0.9",
        "--time",
        "served_at",
        "--every",
        "1w",
        "--mode",
        "point",
        "--min-queries",
        1,
    )
    assert code == 1
    assert err == (
        "rankframe: 2 of 2 rules failed: mrr >= 0.9 (window=2024-03-04), "
        "mrr >= 0.9 (window=2024-03-11)\n"
    )


def test_an_uncertain_row_says_how_many_queries_would_decide_it(run: Run, path: Path) -> None:
    code, out, _ = run(
        "check",
        path,
        "--score",
        "base",
        "--score",
        "noisy",
        "--rule",
        "mrr drop <= 0.05",
        "--format",
        "json",
    )
    assert code == 0
    (row,) = json.loads(out)
    assert row["status"] == "uncertain"  # noisy drops 0.0625 (p = 0.27)
    # a paired t-test at 5% with even odds against the observed mean difference
    diff = 1 / np.array(RANKS["noisy"]) - 1 / np.array(RANKS["base"])
    effect = abs(diff.mean()) / diff.std(ddof=1)
    assert row["queries_to_decide"] == math.ceil(
        TTestPower().solve_power(effect, alpha=0.05, power=0.5)
    )
