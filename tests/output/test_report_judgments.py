"""The report's section "Judgments" (issue 47): with a gold column bound, the share of each
system's top k that people graded, the judge's agreement with them (agreement()'s kappa and
alpha, its bias) and the means corrected by their grades (evaluate(estimate=...)), every word
on data built to trip it."""

from __future__ import annotations

import html as html_module
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from helpers import as_pandas

pytestmark = pytest.mark.filterwarnings("ignore::rankframe.RankEvalWarning")
# the numbers on every frame kind; the words (the same page from the same tables) on two

HOSTILE = "<script>alert(1)</script>"
QUOTED = '" onerror="alert(1)'

# Four queries of two items. a's score ranks item a first, b's ranks item b first.
#   people graded every row of q1 and q2, row a of q3 (q3 is partly judged), nothing of q4
#   top 1 people graded: system a (item a first) q1 q2 q3 -> 3/4; system b q1 q2 -> 2/4
#   whole list: (1 + 1 + 1/2 + 0) / 4 = 5/8 for both
SMALL = {
    "query": ["q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4"],
    "item": ["a", "b"] * 4,
    "a": [2, 1] * 4,
    "b": [1, 2] * 4,
    "llm": [1, 0, 1, 0, 1, 0, 0, 1],
    "human": [1, 0, 0, 1, 1, None, None, None],
}


def section(page: str) -> str:
    start = page.index('<section id="judgments">')
    return page[start : page.index("</section>", start)]


def text(page: str) -> str:
    """The section's words, without tags."""
    return re.sub(r"\s+", " ", html_module.unescape(re.sub(r"<[^>]+>", " ", section(page))))


def values(page: str, kind: str) -> list[tuple[str, str, str, float]]:
    """(segment, system, metric, value) of the cells of one data-kind, in page order."""
    found = re.findall(
        rf'data-kind="judgments:{re.escape(kind)}" data-metric="([^"]*)" '
        r'data-system="([^"]*)" data-segment="([^"]*)" data-value="([^"]*)"',
        section(page),
    )
    return [(seg, system, metric, float(v)) for metric, system, seg, v in found]


def test_coverage_agreement_and_means_are_the_accessors(make_frame: Any) -> None:
    ev = make_frame(SMALL).rank_eval(score=["a", "b"], relevant="llm", gold="human")
    report = ev.report(["mrr", "precision@1"])
    j = report.data.judgments
    assert j is not None
    assert (j.judge, j.gold) == ("llm", "human")
    assert [(h.k, h.metrics, h.share) for h in j.coverage] == [
        (None, ["mrr"], {"a": pytest.approx(5 / 8), "b": pytest.approx(5 / 8)}),
        (1, ["precision@1"], {"a": pytest.approx(3 / 4), "b": pytest.approx(2 / 4)}),
    ]
    page = report.html()
    assert ">a: 75.0%</span>" in section(page)
    assert ">b: 50.0%</span>" in section(page)
    assert "the share of each system's top k that people graded" in text(page)
    # agreement()'s grade table: the five rows both graded, shown to 3 decimals
    grades = as_pandas(ev.agreement().grades)
    for column in ("kappa", "kappa_linear", "kappa_quadratic", "krippendorff_alpha"):
        shown = re.search(rf'data-kind="judgments:{column}"[^>]*data-value="([^"]+)"', page)
        assert shown is not None
        assert float(shown.group(1)) == pytest.approx(float(grades[column][0]), abs=1e-15)
    assert re.search(r'data-kind="judgments:n_pairs">5<', page)
    # the corrected means: evaluate(estimate=...)'s, people judged q1 and q2 (n 2, N 2)
    for estimate in ("judge", "gold", "ppi++"):
        table = as_pandas(ev.evaluate(["mrr", "precision@1"], estimate=estimate))
        expected = [
            ("", system, metric, float(table[metric][i]))
            for i, system in enumerate(["a", "b"])
            for metric in ("mrr", "precision@1")
        ]
        shown = values(page, estimate)
        assert [v[:3] for v in shown] == [e[:3] for e in expected], estimate
        assert [v[3] for v in shown] == pytest.approx([e[3] for e in expected], nan_ok=True)
    assert re.findall(r'data-kind="judgments:n">(\d+)<', page) == ["2"] * 4
    assert re.findall(r'data-kind="judgments:N">(\d+)<', page) == ["2"] * 4


def _disagreeing(agree: bool) -> dict[str, list[Any]]:
    """Eight queries of three items, each judged by people; the score ranks x, y, z. The
    judge grades x relevant; people grade y (even queries) or z (odd) relevant, so the
    judge's mrr is 1 and people's 1/2 or 1/3: a bias of 7/12 on average, significant.
    ``agree``: the judge gives people's grades, no bias."""
    rows: dict[str, list[Any]] = {k: [] for k in ("query", "item", "s", "llm", "human")}
    for q in range(8):
        human = [0, 1, 0] if q % 2 == 0 else [0, 0, 1]
        rows["query"] += [q] * 3
        rows["item"] += ["x", "y", "z"]
        rows["s"] += [3, 2, 1]
        rows["human"] += human
        rows["llm"] += human if agree else [1, 0, 0]
    return rows


@pytest.mark.frame_kinds("pandas", "polars-lazy")
def test_a_judge_that_disagrees_is_named_biased(make_frame: Any) -> None:
    ev = make_frame(_disagreeing(agree=False)).rank_eval(score="s", relevant="llm", gold="human")
    page = ev.report("mrr").html()
    words = text(page)
    bias = as_pandas(ev.agreement("mrr").bias)
    assert float(bias["bias"][0]) == pytest.approx(7 / 12)
    assert float(bias["p_value"][0]) < 0.05
    low, high = float(bias["ci_low"][0]), float(bias["ci_high"][0])
    assert (
        f"The judge is biased (p < 0.05, on the queries people judged): mrr of s +0.5833 "
        f"(95% interval [{low:.4f}, {high:.4f}])." in words
    )
    assert "No significant bias" not in words


@pytest.mark.frame_kinds("pandas", "polars-lazy")
def test_a_judge_that_agrees_is_not(make_frame: Any) -> None:
    ev = make_frame(_disagreeing(agree=True)).rank_eval(score="s", relevant="llm", gold="human")
    words = text(ev.report("mrr").html())
    assert "No significant bias of the judge (p < 0.05) on the queries people judged." in words
    assert "The judge is biased" not in words


def test_a_segment_people_did_not_judge_says_so(make_frame: Any) -> None:
    # segment "both": q1 q2 q3, people's mrr 1, 1/2, 1; "none": q4 and q5, people graded
    # neither; "one": q6 alone graded by people
    data = {
        "query": [f"q{q}" for q in range(1, 7) for _ in "ab"],
        "item": ["a", "b"] * 6,
        "s": [2, 1] * 6,
        "llm": [1, 0] * 6,
        "human": [1, 0, 0, 1, 1, 0] + [None] * 4 + [1, 0],
        "seg": ["both"] * 6 + ["none"] * 4 + ["one"] * 2,
    }
    ev = make_frame(data).rank_eval(score="s", relevant="llm", gold="human")
    report = ev.report("mrr", by="seg")
    page = report.html()
    segments = report.data.judgments.segments  # type: ignore[union-attr]
    assert segments is not None
    gold = {s: v for s, _, _, v in values(page, "gold")}
    assert gold["both"] == pytest.approx(2.5 / 3)
    cells = re.findall(
        r'data-kind="judgments:(gold|ppi\+\+)"[^>]*data-segment="([^"]*)" data-value="nan">'
        r"([^<]*)<",
        section(page),
    )
    # people's one query has a mean (1), without an interval; PPI++ needs two
    assert gold["one"] == 1.0
    assert sorted(cells) == [
        ("gold", "none", "no query judged by people"),
        ("ppi++", "none", "no query judged by people"),
        ("ppi++", "one", "1 query judged by people: too few"),
    ]
    assert "Corrected means per segment" in text(page)


@pytest.mark.frame_kinds("pandas", "polars-lazy")
def test_empty_skip_leaves_the_metric_tables_out_and_says_why(make_frame: Any) -> None:
    ev = make_frame(SMALL).rank_eval(score=["a", "b"], relevant="llm", gold="human")
    report = ev.report("mrr", empty="skip")
    j = report.data.judgments
    assert j is not None
    assert j.bias is None
    assert j.means is None
    words = text(report.html())
    assert (
        "empty='skip' leaves out different queries under the judge's and people's grades: "
        "the bias and the corrected means pair each query's values under both, so they need "
        "empty='zero' (or 'one')." in words
    )
    assert "Corrected means" not in words
    assert "Cohen's κ" in words  # the grade tables need no metric


@pytest.mark.frame_kinds("pandas", "polars-lazy")
def test_no_metric_that_is_a_mean_says_why(make_frame: Any) -> None:
    ev = make_frame(SMALL).rank_eval(score=["a", "b"], relevant="llm", gold="human")
    report = ev.report("num_ret")  # a sum of per-query values: no estimate of a mean
    assert report.data.judgments is not None
    assert report.data.judgments.means is None
    assert (
        "None of the report's metrics is a mean of per-query values: the bias and the "
        "corrected means have nothing to estimate." in text(report.html())
    )


@pytest.mark.frame_kinds("pandas", "polars-lazy")
def test_no_gold_column_no_section(make_frame: Any) -> None:
    report = make_frame(SMALL).rank_eval(score=["a", "b"], relevant="llm").report("mrr")
    assert report.data.judgments is None
    assert '<section id="judgments">' not in report.html()


@pytest.mark.frame_kinds("pandas", "polars-lazy")
def test_hostile_column_names_are_text(make_frame: Any) -> None:
    data = {
        "query": SMALL["query"],
        "item": SMALL["item"],
        QUOTED: SMALL["a"],
        "llm": SMALL["llm"],
        HOSTILE: SMALL["human"],
    }
    ev = make_frame(data).rank_eval(score=[QUOTED], relevant="llm", gold=HOSTILE)
    part = section(ev.report("mrr").html())
    assert HOSTILE not in part
    assert QUOTED not in part
    assert html_module.escape(HOSTILE) in part
    assert html_module.escape(QUOTED, quote=True) in part


def test_cli_gold_adds_the_section(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "judged.csv"
    pd.DataFrame(SMALL).to_csv(path, index=False)
    out = tmp_path / "report.html"
    flags = ["--score", "a", "--score", "b", "--relevant", "llm", "-m", "mrr", "-o", out]
    code, _, err = run("report", path, *flags, "--gold", "human")
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert "Corrected means" in text(page)
    assert [v[3] for v in values(page, "gold")] == pytest.approx([0.75, 0.75])
    code, _, err = run("report", path, *flags)  # the judge alone: no section (null grades
    assert code == 0, err  # of human unread)
    assert '<section id="judgments">' not in out.read_text(encoding="utf-8")
