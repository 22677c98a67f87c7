"""The report's holes (issue 47): per system, the unjudged share of the top k that the
report's metrics read, next to the metrics that count unjudged rows as non-relevant; the
data section names them only when some such top k has a hole."""

from __future__ import annotations

import re
from typing import Any

import pytest

from helpers import as_pandas

pytestmark = pytest.mark.filterwarnings("ignore::rankframe.RankEvalWarning")

LABEL = "holes: unjudged share of the top k, counted as non-relevant (per system)"

# Two queries of four items: a relevant, b judged non-relevant, c and d unjudged.
#   holey ranks q1 c a b d (top 2: c unjudged, 1/2), q2 a b c d (top 2 judged): 1/4
#   tight ranks q1 a b c d and q2 b a d c: its top 2 always judged, 0
#   the whole list: 2 of 4 unjudged in every list, 1/2 for both
DATA = {
    "query": ["q1"] * 4 + ["q2"] * 4,
    "item": ["a", "b", "c", "d"] * 2,
    "holey": [3, 2, 4, 1, 4, 3, 2, 1],
    "tight": [4, 3, 2, 1, 3, 4, 1, 2],
    "relevant": [1, 0, 0, 0, 1, 0, 0, 0],
    "judged": [True, True, False, False] * 2,
}


def _holes(report: Any) -> list[tuple[Any, list[str], dict[str, float]]]:
    return [(h.k, h.metrics, h.share) for h in report.data.facts.holes]


def _spans(html: str) -> list[tuple[str, str, float]]:
    """(system, k, share) of each data-holes span of the page."""
    found = re.findall(r'<span data-holes="([^"]+)" data-system="([^"]*)" data-k="([^"]*)">', html)
    return [(system, k, float(share)) for share, system, k in found]


def test_holes_by_hand(make_frame: Any) -> None:
    ev = make_frame(DATA).rank_eval(score=["holey", "tight"])
    report = ev.report(["ndcg@2", "map", "bpref", "unjudged@2"])
    # bpref and unjudged read the unjudged rows themselves: not listed
    assert _holes(report) == [
        (2, ["ndcg@2"], {"holey": pytest.approx(1 / 4), "tight": 0.0}),
        (None, ["map"], {"holey": pytest.approx(1 / 2), "tight": pytest.approx(1 / 2)}),
    ]
    html = report.html()
    assert LABEL in html
    assert "top 2 (ndcg@2): " in html
    assert "whole list (map): " in html
    assert ">holey: 25.0%</span>" in html
    assert ">tight: 0.0%</span>" in html
    assert ">holey: 50.0%</span>" in html
    assert _spans(html) == [
        ("holey", "2", pytest.approx(1 / 4)),
        ("tight", "2", 0.0),
        ("holey", "", pytest.approx(1 / 2)),
        ("tight", "", pytest.approx(1 / 2)),
    ]
    # the same numbers as judged@k: 1 - its mean
    means = as_pandas(ev.evaluate(["judged@2", "judged"])).set_index("system")
    for system in ("holey", "tight"):
        assert report.data.facts.holes[0].share[system] == pytest.approx(
            1 - means.loc[system, "judged@2"]
        )
        assert report.data.facts.holes[1].share[system] == pytest.approx(
            1 - means.loc[system, "judged"]
        )


def test_no_holes_no_line(make_frame: Any) -> None:
    # the unjudged rows are below every top 2 of tight: ndcg@2 has no hole, so no line
    ev = make_frame(DATA).rank_eval(score=["tight"])
    report = ev.report(["ndcg@2", "precision@1"])
    assert _holes(report) == [
        (2, ["ndcg@2"], {"tight": 0.0}),
        (1, ["precision@1"], {"tight": 0.0}),
    ]
    html = report.html()
    assert "holes:" not in html
    assert "data-holes" not in html
    # judged_only=True ranks the judged rows alone: no hole in any top k (nor in map's
    # whole list, which has some without it); unjudged="condense" says it in one word
    assert _holes(ev.report(["map"]))[0][2]["tight"] > 0
    condensed = ev.report(["map"], judged_only=True)
    assert _holes(condensed) == [(None, ["map(judged_only=true)"], {"tight": 0.0})]
    assert "data-holes" not in condensed.html()
    one_word = ev.report(["map"], unjudged="condense")
    assert _holes(one_word) == [(None, ["map(unjudged=condense)"], {"tight": 0.0})]


def test_negative_grades_are_holes(make_frame: Any) -> None:
    # no judged column: b's grade -1 (trec_eval's "in the pool, not judged") is the hole
    frame = make_frame(
        {"query": "q", "item": ["a", "b", "c"], "score": [3, 2, 1], "relevant": [1, -1, 0]}
    )
    report = frame.rank_eval.report(["precision@2"])
    assert _holes(report) == [(2, ["precision@2"], {"score": pytest.approx(1 / 2)})]
    assert _spans(report.html()) == [("score", "2", pytest.approx(1 / 2))]


def test_no_holes_under_ties_average(make_frame: Any) -> None:
    # judged has no tie-averaged form: under ties="average" (and the sklearn preset, which
    # sets it) the report leaves the holes out rather than refuse the metrics
    ev = make_frame(DATA).rank_eval(score=["holey", "tight"])
    for options in ({"ties": "average"}, {"convention": "sklearn"}):
        report = ev.report(["ndcg@2", "map"], **options)
        assert _holes(report) == [], options
        assert "data-holes" not in report.html()
    assert _holes(ev.report(["ndcg@2"], ties="first")) == [
        (2, ["ndcg@2(ties=first)"], {"holey": pytest.approx(1 / 4), "tight": 0.0})
    ]
