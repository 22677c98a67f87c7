"""The report's answer (issue 45): the segments and slices that go against the overall
change, the comparison with a reference frame (where Simpson's paradox can happen), the
smallest detectable change when nothing moved; the null scores of the data table, the
summary of ``item_groups`` and the drop-rule message of a windowed report of one system.

Every frame has planted reciprocal ranks (``helpers.planted``): each query's one relevant
item at a chosen rank per system, so every per-query value is ``1 / rank`` and the expected
numbers come from scipy's tests and statsmodels' power on those values, written out here.
"""

from __future__ import annotations

import html as htmllib
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.power import TTestIndPower, TTestPower

import rankframe
from helpers import as_pandas, planted


class Spans(HTMLParser):
    """The attributes of every element of the answer's classes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict[str, str]] = []

    def handle_starttag(self, _tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if (
            a.get("class") in ("against", "segment-move", "slice-move", "mde", "move")
            or "data-null-scores" in a
            or "data-segment-tests" in a
            or "data-n-tested" in a
        ):
            self.found.append(a)


def section(page: str, name: str) -> str:
    start = page.index(f'<section id="{name}">')
    return page[start : page.index("</section>", start)]


def spans(page: str, kind: str) -> list[dict[str, str]]:
    parser = Spans()
    parser.feed(section(page, "answer"))
    return [a for a in parser.found if a.get("class") == kind]


def text(page: str, name: str = "answer") -> str:
    """A section as a reader reads it: no tags, entities decoded, one space."""
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", "", section(page, name))))


def holm(p: list[float]) -> np.ndarray:
    """Holm's step-down correction, written out."""
    values = np.asarray(p, dtype=float)
    out = np.empty_like(values)
    running = 0.0
    for i, j in enumerate(np.argsort(values, kind="stable")):
        running = max(running, min(1.0, (len(values) - i) * values[j]))
        out[j] = running
    return out


def rr(ranks: list[int]) -> np.ndarray:
    return 1.0 / np.asarray(ranks, dtype=float)


# -- a reversal in one segment (paired: each system against the baseline) ---------------------

# 60 phone queries: old ranks the relevant item 2nd in all, new 1st in 50 (+1/2 each);
# 30 tablet queries: old 1st in all, new 1st in 5 and 2nd in 25 (-1/2 each). Overall new
# gains (50 - 25)/2/90 = +0.139; in the tablets it loses 25/2/30 = -0.417.
OLD = [2] * 60 + [1] * 30
NEW = [1] * 50 + [2] * 10 + [1] * 5 + [2] * 25
DEVICE = ["phone"] * 60 + ["tablet"] * 30


def _segment_tests(a: list[int], b: list[int], device: list[str]) -> dict[str, tuple[float, float]]:
    """Per segment, b's change against a (mean of the per-query differences of the
    reciprocal ranks) and the paired t-test's p-value, Holm-corrected over the segments."""
    diff = rr(b) - rr(a)
    where = np.asarray(device)
    names = list(dict.fromkeys(device))
    p = [stats.ttest_1samp(diff[where == d], 0.0).pvalue for d in names]
    return {
        d: (float(diff[where == d].mean()), float(q)) for d, q in zip(names, holm(p), strict=True)
    }


@pytest.mark.parametrize("baseline", ["old", "new"])
def test_a_segment_against_the_overall_change_is_named(make_frame: Any, baseline: str) -> None:
    # against old, new is higher overall but lower in the tablets; against new (the reverse),
    # old is lower overall but higher in the tablets
    system = "new" if baseline == "old" else "old"
    ranks = {"old": OLD, "new": NEW}
    ev = make_frame(planted(ranks, {"device": DEVICE})).rank_eval(score=["old", "new"])
    report = ev.report(["mrr"], by="device", baseline=baseline, n_resamples=20)
    page = report.html()
    expected = _segment_tests(ranks[baseline], ranks[system], DEVICE)
    (named,) = spans(page, "segment-move")
    assert named["data-segment"] == "device=tablet"  # phone goes the overall way: unnamed
    assert named["data-system"] == system
    assert float(named["data-delta"]) == pytest.approx(expected["tablet"][0])
    assert float(named["data-p-adjusted"]) == pytest.approx(expected["tablet"][1], rel=1e-9)
    assert named["data-n-queries"] == "30"
    overall = rr(ranks[system]).mean() - rr(ranks[baseline]).mean()
    up, down = ("higher", "lower") if overall > 0 else ("lower", "higher")
    said = text(page)
    sentence = (
        f"{system} on mrr: {up} overall ({overall:+.4f}), but {down} in device=tablet "
        f"({expected['tablet'][0]:+.4f}, 95% interval ["
    )
    assert sentence in said
    assert sentence in report.answer.splitlines()[1]  # the plain text: a line per item
    assert "holm correction over the 2 segment tests of the report" in said
    assert "Nothing moved" not in said


def test_a_segment_is_named_when_the_overall_change_is_not_significant(make_frame: Any) -> None:
    # 40 phone queries: new gains 1/2 on 30; 40 tablet queries: new loses 1/2 on 30. Overall
    # no change (mean 0, p = 1); each segment significantly, in opposite directions.
    old = [2] * 40 + [1] * 40
    new = [1] * 30 + [2] * 10 + [2] * 30 + [1] * 10
    device = ["phone"] * 40 + ["tablet"] * 40
    ev = make_frame(planted({"old": old, "new": new}, {"device": device})).rank_eval(
        score=["old", "new"]
    )
    page = ev.report(["mrr"], by="device", n_resamples=20).html()
    expected = _segment_tests(old, new, device)
    named = {a["data-segment"]: a for a in spans(page, "segment-move")}
    assert set(named) == {"device=phone", "device=tablet"}
    for segment, (delta, p) in expected.items():
        assert float(named[f"device={segment}"]["data-delta"]) == pytest.approx(delta)
        assert float(named[f"device={segment}"]["data-p-adjusted"]) == pytest.approx(p)
    (against,) = spans(page, "against")
    assert against["data-direction"] == "0"
    said = text(page)
    assert "new on mrr: no significant change overall (+0.0000), but significantly" in said
    assert f"higher in device=phone ({expected['phone'][0]:+.4f}" in said
    assert f"lower in device=tablet ({expected['tablet'][0]:+.4f}" in said


def test_the_named_segments_are_capped(make_frame: Any) -> None:
    # 100 "main" queries: new gains 1/2 on 80; five small segments of 12: new loses 1/2 on
    # 10 of each. Overall new gains (40 - 25)/160 (significant); the five small segments go
    # against it: 3 named, "and 2 more segments"
    small = [f"s{i}" for i in range(5)]
    segment = ["main"] * 100 + [s for s in small for _ in range(12)]
    old = [2] * 100 + [1] * 60
    new = [1] * 80 + [2] * 20 + ([2] * 10 + [1] * 2) * 5
    ev = make_frame(planted({"old": old, "new": new}, {"segment": segment})).rank_eval(
        score=["old", "new"]
    )
    page = ev.report(["mrr"], by="segment", n_resamples=20).html()
    expected = _segment_tests(old, new, segment)
    assert all(p < 0.05 for name, (_, p) in expected.items())
    named = spans(page, "segment-move")
    assert len(named) == 3
    assert {a["data-segment"] for a in named} <= {f"segment={s}" for s in small}
    (against,) = spans(page, "against")
    assert against["data-more"] == "2"
    said = text(page)
    assert "; and 2 more segments: see the segment table." in said
    assert "holm correction over the 6 segment tests of the report" in said
    assert "at most 3 segments named per system and metric" in said


# -- Simpson's paradox: against a reference frame (two samples) -------------------------------
#
# Against a baseline column every query is paired, so the overall change is the segments'
# changes weighted by their queries: it cannot be below every segment's. Against a reference
# frame of other queries it can: here the current frame is better in every segment, but holds
# mostly the hard segment (tablets: the relevant item at rank 2 or 5), the reference mostly
# the easy one (phones: rank 1 or 2), so the current frame is worse overall.


def _simpson(better: bool) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """(current, reference) of 300 queries each, of five items. The good side ranks the
    relevant item first in 90% of its phones (else second) and second in 50% of its tablets
    (else fifth); the bad side 70% and 10%. ``better``: the current frame is the good side
    with 60 phones and 240 tablets, the reference the bad side with 240 phones and 60
    tablets; else the current frame is the bad side with 240 phones, the reference the good
    side with 60."""

    def frame(phones: int, rates: tuple[float, float], prefix: str) -> dict[str, list[Any]]:
        tablets = 300 - phones
        first, second = round(phones * rates[0]), round(tablets * rates[1])
        ranks = [1] * first + [2] * (phones - first) + [2] * second + [5] * (tablets - second)
        device = ["phone"] * phones + ["tablet"] * tablets
        return planted({"score": ranks}, {"device": device}, items=5, prefix=prefix)

    good, bad = (0.9, 0.5), (0.7, 0.1)
    if better:
        return frame(60, good, "c"), frame(240, bad, "r")
    return frame(240, bad, "c"), frame(60, good, "r")


def _welch(
    current: dict[str, list[Any]], reference: dict[str, list[Any]]
) -> tuple[float, dict[str, tuple[float, float]]]:
    """The overall change of the means, and per segment the change and Welch's p-value,
    Holm-corrected over the segments; from the planted ranks (each query's first row)."""

    def values(frame: dict[str, list[Any]]) -> pd.DataFrame:
        rows = pd.DataFrame(frame)
        relevant = rows[rows["relevant"] == 1]
        n = int(rows.groupby("query").size().iloc[0])
        return pd.DataFrame(
            {
                "device": relevant["device"].to_numpy(),
                "rr": 1.0 / (n + 1 - relevant["score"].to_numpy()),
            }
        )

    a, b = values(current), values(reference)
    names = ["phone", "tablet"]
    deltas = [a.loc[a.device == d, "rr"].mean() - b.loc[b.device == d, "rr"].mean() for d in names]
    p = [
        stats.ttest_ind(
            a.loc[a.device == d, "rr"], b.loc[b.device == d, "rr"], equal_var=False
        ).pvalue
        for d in names
    ]
    return float(a.rr.mean() - b.rr.mean()), {
        d: (float(x), float(q)) for d, x, q in zip(names, deltas, holm(p), strict=True)
    }


@pytest.mark.parametrize("better", [True, False], ids=["better-in-each", "worse-in-each"])
def test_simpsons_paradox_against_the_reference(make_frame: Any, better: bool) -> None:
    current, reference = _simpson(better)
    overall, segments = _welch(current, reference)
    assert (overall < 0) == better  # the paradox: overall the other way
    assert all((delta > 0) == better for delta, _ in segments.values())
    ev = make_frame(current).rank_eval()
    page = ev.report(["mrr"], by="device", reference=make_frame(reference), n_resamples=20).html()
    named = {a["data-segment"]: a for a in spans(page, "segment-move")}
    assert set(named) == {"device=phone", "device=tablet"}
    for segment, (delta, p) in segments.items():
        assert float(named[f"device={segment}"]["data-delta"]) == pytest.approx(delta)
        assert float(named[f"device={segment}"]["data-p-adjusted"]) == pytest.approx(p)
    (against,) = spans(page, "against")
    assert against["data-reference"] == "true"
    said = text(page)
    overall_word, segment_word = ("lower", "higher") if better else ("higher", "lower")
    assert "score against the reference frame: significantly " + overall_word in said
    assert (
        f"score on mrr against the reference frame: {overall_word} overall "
        f"({overall:+.4f}), but {segment_word} in device="
    ) in said  # most significant first
    assert "over the 2 segment tests of the comparison with the reference" in said


# -- nothing moved: the smallest detectable change -------------------------------------------


@pytest.mark.parametrize("by", [None, "device"])
def test_nothing_moved_gives_the_smallest_detectable_change(
    make_frame: Any, by: str | None
) -> None:
    # 40 queries: new gains 1/2 on 10, loses 1/2 on 10, ties on 20 (mean change 0), the same
    # in each device; the mde of the paired t-test: statsmodels' standardized effect at 80%
    # power, two-sided at 0.05, times the differences' standard deviation
    old = [2] * 10 + [1] * 10 + [1] * 20
    new = [1] * 10 + [2] * 10 + [1] * 20
    device = (["phone"] * 5 + ["tablet"] * 5) * 2 + ["phone", "tablet"] * 10
    ev = make_frame(planted({"old": old, "new": new}, {"device": device})).rank_eval(
        score=["old", "new"]
    )
    page = ev.report(["mrr"], by=by, n_resamples=20).html()
    diff = rr(new) - rr(old)
    effect = TTestPower().solve_power(effect_size=None, nobs=len(diff), alpha=0.05, power=0.8)
    mde = effect * diff.std(ddof=1)
    (shown,) = spans(page, "mde")
    assert float(shown["data-mde"]) == pytest.approx(mde, rel=1e-6)
    assert not spans(page, "segment-move")
    said = text(page)
    where = " in any segment" if by else ""
    assert f"Nothing moved: no significant change{where}." in said
    assert (
        f"The smallest change these 40 queries could detect (80% power, two-sided at "
        f"0.05; compare()'s mde): mrr ±{mde:.4f}."
    ) in said


def test_nothing_moved_between_the_last_windows(make_frame: Any) -> None:
    # one system over weeks: 12 queries in the week of 2026-01-05 (ranks 1, 2, 1, 2, ...),
    # 10 in the week of 01-12 (ranks 2, 1, ...): means 3/4 and 3/4, no change; the mde of
    # two samples: statsmodels' TTestIndPower (ratio 12/10) times the pooled deviation
    ranks = [1, 2] * 6 + [2, 1] * 5
    data = planted({"a": ranks})
    data["served_at"] = list(pd.to_datetime(["2026-01-06"] * 36 + ["2026-01-13"] * 30))
    ev = make_frame(data).rank_eval(score="a", time="served_at")
    page = ev.report(["mrr"], every="1w", n_resamples=20).html()
    last, first = rr(ranks[12:]), rr(ranks[:12])
    squares = ((last - last.mean()) ** 2).sum() + ((first - first.mean()) ** 2).sum()
    pooled = np.sqrt(squares / (len(last) + len(first) - 2))
    effect = TTestIndPower().solve_power(
        effect_size=None, nobs1=len(last), ratio=len(first) / len(last), alpha=0.05, power=0.8
    )
    (shown,) = spans(page, "mde")
    assert float(shown["data-mde"]) == pytest.approx(effect * pooled, rel=1e-6)
    said = text(page)
    assert "The window of 2026-01-12 against the previous one: no significant change" in said
    assert (
        "Nothing moved: no significant change. The smallest change the data could "
        f"detect (80% power, two-sided at 0.05; compare()'s mde): mrr ±{effect * pooled:.4f}."
    ) in said


def test_something_moved_has_no_nothing_moved(make_frame: Any) -> None:
    ev = make_frame(planted({"old": OLD, "new": NEW})).rank_eval(score=["old", "new"])
    page = ev.report(["mrr"], n_resamples=20).html()
    assert "Nothing moved" not in text(page)
    assert not spans(page, "mde")


# -- slices below the overall direction ------------------------------------------------------


def test_a_slice_below_the_overall_direction_is_named(make_frame: Any) -> None:
    # the reversal above: new higher overall, the slice device=tablet lower (paired, against
    # old inside the slice); slices() tests 2 slices (phone, tablet), Holm over both
    frame = make_frame(planted({"old": OLD, "new": NEW}, {"device": DEVICE}))
    ev = frame.rank_eval(score=["old", "new"])
    page = ev.report(["mrr"], slices=["device"], slice_min_queries=5, n_resamples=20).html()
    expected = _segment_tests(OLD, NEW, DEVICE)
    (named,) = spans(page, "slice-move")
    assert named["data-segment"] == "device=tablet"
    assert float(named["data-delta"]) == pytest.approx(expected["tablet"][0])
    assert float(named["data-p-adjusted"]) == pytest.approx(expected["tablet"][1])
    said = text(page)
    assert (
        f"new on mrr, where it fails: significantly lower in device=tablet "
        f"({expected['tablet'][0]:+.4f} against the baseline's 1.0000"
    ) in said
    assert "adjusted over the 2 slice tests" in said


def test_one_systems_slice_below_the_other_queries_is_named(make_frame: Any) -> None:
    # new alone: the tablets' mean (5 + 25/2)/30 against the phones' (50 + 10/2)/60, Welch
    frame = make_frame(planted({"new": NEW}, {"device": DEVICE}))
    page = (
        frame.rank_eval(score="new")
        .report(["mrr"], slices=["device"], slice_min_queries=5, n_resamples=20)
        .html()
    )
    values = rr(NEW)
    tablet, phone = values[60:], values[:60]
    (named,) = spans(page, "slice-move")
    assert named["data-segment"] == "device=tablet"
    assert float(named["data-delta"]) == pytest.approx(tablet.mean() - phone.mean())
    said = text(page)
    assert (
        f"new on mrr, where it fails: significantly lower in device=tablet "
        f"({tablet.mean() - phone.mean():+.4f}: {tablet.mean():.4f} against "
        f"{phone.mean():.4f} in the other queries"
    ) in said


# -- the data table, About, the drop rule -----------------------------------------------------


@pytest.mark.filterwarnings("ignore::UserWarning")  # null scores' warning: tested where raised
def test_null_scores_are_counted_per_system(make_frame: Any) -> None:
    data = planted({"a": [1, 2, 1, 2], "b": [2, 1, 1, 1]})  # 4 queries of 3 rows
    data["b"][1] = float("nan")  # q0's second row
    data["b"][4] = float("nan")  # q1's
    data["b"][11] = None  # q3's last row
    ev = make_frame(data).rank_eval(score=["a", "b"])
    page = ev.report(["mrr"], n_resamples=20).html()
    parser = Spans()
    parser.feed(section(page, "data"))
    counts = {
        a["data-system"]: int(a["data-null-scores"])
        for a in parser.found
        if "data-null-scores" in a
    }
    assert counts == {"a": 0, "b": 3}
    assert "b: 3 (25.0% of the rows)" in text(page, "data")


def test_item_groups_are_summarized_in_about(make_frame: Any) -> None:
    data = planted({"a": [1, 2, 1], "b": [2, 1, 1]}, items=7)
    two = {"r": "head", **{f"n{j}": "tail" for j in range(1, 7)}}
    seven = {"r": "g0", **{f"n{j}": f"g{j}" for j in range(1, 7)}}
    ev = make_frame(data).rank_eval(score=["a", "b"])
    for groups, said in (
        (two, "7 items in 2 groups: head, tail"),
        (seven, "7 items in 7 groups: g0, g1, g2, g3, g4 and 2 more"),
    ):
        about = text(
            ev.report(["mrr"], item_groups=groups, exposure_k=2, n_resamples=20).html(), "about"
        )
        assert f"item_groups={said}" in about
        assert "{" not in about  # no repr of the mapping


def test_a_drop_rule_in_a_windowed_report_of_one_system(make_frame: Any) -> None:
    data = planted({"a": [1, 2, 1, 2]})
    data["served_at"] = list(pd.to_datetime(["2026-01-06"] * 6 + ["2026-01-13"] * 6))
    ev = make_frame(data).rank_eval(score="a", time="served_at")
    with pytest.raises(rankframe.InvalidRuleError) as caught:
        ev.report(["mrr"], every="1w", rules=["mrr drop <= 5%"], n_resamples=20)
    message = str(caught.value)
    assert "the report's gates run over all queries" in message
    assert "df.rank_eval.check(['mrr drop <= 5%'], every='1w')" in message
    assert "windows (every=" not in message  # not the suggestion of what was passed
    assert caught.value.rule == "mrr drop <= 5%"


def test_the_answer_reads_compares_tables(make_frame: Any) -> None:
    # the segments' numbers are compare(by=)'s (its delta and interval), the adjusted p over
    # every segment test of its table; nothing is computed again
    ev = make_frame(planted({"old": OLD, "new": NEW}, {"device": DEVICE})).rank_eval(
        score=["old", "new"]
    )
    page = ev.report(["mrr"], by="device", n_resamples=20).html()
    table = as_pandas(ev.compare(["mrr"], by="device"))
    row = table[(table["device"] == "tablet") & (table["system"] == "new")].iloc[0]
    (named,) = spans(page, "segment-move")
    assert float(named["data-delta"]) == row["delta"]
    assert float(named["data-ci-low"]) == row["ci_low"]
    assert float(named["data-ci-high"]) == row["ci_high"]


def test_a_missing_segment_value_is_named_missing(make_frame: Any) -> None:
    # the reversal above with the tablets' device unknown (null): named "(missing)"
    device = ["phone"] * 60 + [None] * 30
    ev = make_frame(planted({"old": OLD, "new": NEW}, {"device": device})).rank_eval(
        score=["old", "new"]
    )
    (named,) = spans(ev.report(["mrr"], by="device", n_resamples=20).html(), "segment-move")
    assert named["data-segment"] == "device=(missing)"
    assert float(named["data-delta"]) == pytest.approx(-25 / 2 / 30)


def test_the_drop_rule_message_on_the_command_line(run: Any, tmp_path: Path) -> None:
    data = planted({"a": [1, 2, 1, 2]})
    data["served_at"] = ["2026-01-06"] * 6 + ["2026-01-13"] * 6
    path = tmp_path / "data.csv"
    pd.DataFrame(data).to_csv(path, index=False)
    code, _, err = run(
        "report",
        path,
        "--score",
        "a",
        "-m",
        "mrr",
        "--time",
        "served_at",
        "--every",
        "1w",
        "--rule",
        "mrr drop <= 5%",
        "-o",
        tmp_path / "r.html",
    )
    assert code == 2  # a bad command line (docs/report.md), as a rule that does not parse
    assert "(--every 1w draws the report's trend; its gates are not per window)" in err
    assert "rankframe check --rule 'mrr drop <= 5%' --time COLUMN --every 1w" in err


def test_a_hostile_segment_value_is_text_in_the_answer(make_frame: Any) -> None:
    hostile = "<script>alert(1)</script>"
    device = ["phone"] * 60 + [hostile] * 30
    ev = make_frame(planted({"old": OLD, "new": NEW}, {"device": device})).rank_eval(
        score=["old", "new"]
    )
    page = ev.report(["mrr"], by="device", n_resamples=20).html()
    assert hostile not in section(page, "answer")
    assert f"lower in device={hostile} (" in text(page)
