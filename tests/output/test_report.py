"""The HTML report (rankframe.Report) and the paper tables (issue 28).

The report's numbers are read back from its HTML (``html.parser``) and checked against
``evaluate()``, ``compare()``, scipy's t interval and hand counts; the page is opened in a
real headless Chromium (Playwright) from disk.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from scipy import stats

import rankframe
from helpers import planted

HOSTILE_ITEM = "<script>alert(1)</script>"
HOSTILE_SEGMENT = '" onerror="alert(1)'

# Four queries, two systems, one relevant item each (grade 1), scores without ties.
# Reciprocal ranks (a, b): q1 (1/2, 1), q2 (1, 1), q3 (1, 1/3), q4 (1/3, 1/3)
#   mrr: a = (1/2 + 1 + 1 + 1/3)/4 = 17/24, b = (1 + 1 + 1/3 + 1/3)/4 = 2/3
#   b against a: wins q1; ties q2, q4; loses q3
DATA = {
    "query": ["q1"] * 3 + ["q2"] * 3 + ["q3"] * 3 + ["q4"] * 3,
    "item": ["x", HOSTILE_ITEM, "z"] * 4,
    "a": [0.9, 0.5, 0.1, 0.9, 0.5, 0.1, 0.9, 0.5, 0.1, 0.9, 0.5, 0.1],
    "b": [0.1, 0.9, 0.5, 0.9, 0.5, 0.1, 0.1, 0.5, 0.9, 0.5, 0.9, 0.1],
    "relevant": [0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1],
    "seg": [
        "u",
        "u",
        "u",
        HOSTILE_SEGMENT,
        HOSTILE_SEGMENT,
        HOSTILE_SEGMENT,
        "u",
        "u",
        "u",
        HOSTILE_SEGMENT,
        HOSTILE_SEGMENT,
        HOSTILE_SEGMENT,
    ],
}
METRICS = ["mrr", "ndcg@3"]


class Cells(HTMLParser):
    """The attributes of every element with a ``data-value`` or ``data-kind``; scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.append((tag, a))
        if "data-value" in a:
            self.cells.append(a)


def parsed(html: str) -> Cells:
    parser = Cells()
    parser.feed(html)
    return parser


def _pandas(table: Any) -> pd.DataFrame:
    from rankframe.adapters.results import as_pandas  # what a report reads a table as

    frame = as_pandas(table)
    assert frame is not None, type(table)
    return frame


def _report(make_frame: Any, **kwargs: Any) -> tuple[Any, Any]:
    frame = make_frame(DATA)
    ev = frame.rank_eval(score=["a", "b"])
    return ev, ev.report(METRICS, by="seg", **kwargs)


def test_the_numbers_in_the_html_are_evaluates(make_frame: Any) -> None:
    ev, report = _report(make_frame)
    cells = parsed(report.html()).cells
    shown = {
        (c["data-segment"], c["data-system"], c["data-metric"]): float(c["data-value"])
        for c in cells
        if c.get("data-kind") == "mean"
    }
    overall = _pandas(ev.evaluate(METRICS))
    by_seg = _pandas(ev.evaluate(METRICS, by="seg"))
    for metric in ["mrr", "ndcg@3"]:
        for row in overall.to_dict("records"):
            assert shown[("", row["system"], metric)] == pytest.approx(row[metric], abs=1e-12)
        for _, row in by_seg.iterrows():
            assert shown[(row["seg"], row["system"], metric)] == pytest.approx(
                row[metric], abs=1e-12
            )
    # and by hand (see DATA)
    assert shown[("", "a", "mrr")] == pytest.approx(17 / 24)
    assert shown[("", "b", "mrr")] == pytest.approx(2 / 3)


def test_intervals_are_scipys_t_interval(make_frame: Any) -> None:
    _, report = _report(make_frame)
    # a's reciprocal ranks per query, by hand (see DATA)
    values = np.array([1 / 2, 1, 1, 1 / 3])
    low, high = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    row = report.summary[report.summary["system"] == "a"].iloc[0]
    assert row["mrr_ci_low"] == pytest.approx(low, abs=1e-12)
    assert row["mrr_ci_high"] == pytest.approx(high, abs=1e-12)


def test_bootstrap_intervals_are_evaluates(make_frame: Any) -> None:
    frame = make_frame(DATA)
    ev = frame.rank_eval(score=["a", "b"])
    report = ev.report(METRICS, test="permutation", n_resamples=200, seed=3)
    expected = _pandas(ev.evaluate(METRICS, confidence_level=0.95, n_resamples=200, seed=3))
    for column in ["mrr_ci_low", "mrr_ci_high", "ndcg@3_ci_low", "ndcg@3_ci_high"]:
        np.testing.assert_allclose(
            report.summary[column].to_numpy(dtype=float),
            expected[column].to_numpy(dtype=float),
            atol=1e-12,
        )


def test_win_tie_loss_by_hand(make_frame: Any) -> None:
    _, report = _report(make_frame)
    cells = [
        t for t in parsed(report.html()).tags if t[0] == "tr" and t[1].get("data-metric") == "mrr"
    ]
    assert cells, "no win/tie/loss row"
    wtl = report.wtl
    overall = wtl[(wtl["segment"] == -1) & (wtl["metric"] == "mrr")].iloc[0]
    # b against a: wins q1; ties q2, q4; loses q3 (see DATA)
    assert (overall["wins"], overall["ties"], overall["losses"]) == (1, 2, 1)
    # segment "u" holds q1 (win) and q3 (loss); the hostile segment q2 and q4 (ties)
    html = report.html()
    assert re.search(
        r'data-segment="u"><td>u</td><td>b</td><td>mrr</td>'
        r'<td class="num" data-kind="wins">1</td>'
        r'<td class="num" data-kind="ties">0</td>'
        r'<td class="num" data-kind="losses">1</td>',
        html,
    )


def test_the_data_section_by_hand(make_frame: Any) -> None:
    _, report = _report(make_frame)
    facts = report.data.facts
    # 12 rows, 4 queries, each with a relevant item; no ties within a query
    assert (facts.rows, facts.queries, facts.empty_queries) == (12, 4, 0)
    assert facts.tied_share == {"a": 0.0, "b": 0.0}


def test_tied_share_by_hand(make_frame: Any) -> None:
    # a: q1 scores 0.5, 0.5, 0.1 (two rows tied); q2 0.1, 0.05, 0.02 (none: its top score
    #    0.1 equals q1's last, in another query) -> 2 of 6 ranked rows
    # b: q1 0.9, 0.8, 0.7 (none); q2 0.4, 0.4, 0.4 (three) -> 3 of 6
    frame = make_frame(
        {
            "query": ["q1"] * 3 + ["q2"] * 3,
            "item": ["x", "y", "z"] * 2,
            "a": [0.5, 0.5, 0.1, 0.1, 0.05, 0.02],
            "b": [0.9, 0.8, 0.7, 0.4, 0.4, 0.4],
            "relevant": [1, 0, 0, 0, 1, 0],
        }
    )
    facts = frame.rank_eval(score=["a", "b"]).report(["mrr"]).data.facts
    assert facts.tied_share == {"a": pytest.approx(2 / 6), "b": pytest.approx(3 / 6)}
    assert (facts.rows, facts.queries) == (6, 2)


def test_curves_are_evaluates(make_frame: Any) -> None:
    frame = make_frame(DATA)
    ev = frame.rank_eval(score=["a", "b"])
    report = ev.report(["ndcg@3", "mrr@5"], curves=True)
    curves = {c.metric: c for c in report.data.curves}
    assert [curves["ndcg"].ks, curves["mrr"].ks] == [[1, 3], [1, 3, 5]]
    at = ["ndcg@1", "ndcg@3", "mrr@1", "mrr@3", "mrr@5"]
    expected = _pandas(ev.evaluate(at)).set_index("system")
    for system in ["a", "b"]:
        shown = [*curves["ndcg"].means[system], *curves["mrr"].means[system]]
        np.testing.assert_allclose(
            shown, expected.loc[system, at].to_numpy(dtype=float), atol=1e-12
        )
    # by hand (see DATA): the relevant item is first in q2, q3 for a and q1, q2 for b
    assert curves["mrr"].means["a"][0] == pytest.approx(2 / 4)
    assert curves["mrr"].means["b"][0] == pytest.approx(2 / 4)


def test_curves_follow_the_empty_option(make_frame: Any) -> None:
    data = pd.DataFrame(DATA)
    data.loc[data["query"] == "q4", "relevant"] = 0  # q4 has no relevant item now
    ev = make_frame(data).rank_eval(score=["a", "b"])
    report = ev.report(["mrr@3"], empty="skip")
    (curve,) = report.data.curves
    expected = _pandas(ev.evaluate(["mrr@1", "mrr@3"], empty="skip")).set_index("system")
    for system in ["a", "b"]:
        np.testing.assert_allclose(
            curve.means[system],
            expected.loc[system, ["mrr@1(empty=skip)", "mrr@3(empty=skip)"]].to_numpy(float),
            atol=1e-12,
        )


def test_hostile_strings_are_text(make_frame: Any) -> None:
    _, report = _report(make_frame)
    html = report.html()
    assert "<script" not in html.lower()
    assert 'onerror="' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the worst query's list
    assert "&quot; onerror=&quot;alert(1)" in html
    tags = parsed(html).tags
    assert not any(k.startswith("on") for _, attrs in tags for k in attrs)
    assert not any(tag in ("script", "iframe", "object", "embed", "img") for tag, _ in tags)


def test_no_external_reference(make_frame: Any) -> None:
    _, report = _report(make_frame)
    html = report.html()
    assert not re.search(r"https?://", html)
    assert "@import" not in html
    assert "url(" not in html
    for _, attrs in parsed(html).tags:
        for name in ("src", "href"):
            if name in attrs:
                assert attrs[name].startswith("#"), attrs


def test_notebook_display_is_the_same_report(make_frame: Any) -> None:
    _, report = _report(make_frame)
    fragment = report._repr_html_()
    assert fragment.startswith('<div class="rankframe-report">')
    assert fragment in report.html()


def test_trend_and_gates_sections_take_their_tables() -> None:
    frame = pd.DataFrame(DATA)
    report = frame.rank_eval(score=["a", "b"]).report(METRICS)
    trend = pd.DataFrame(
        {
            "window": ["2026-01-05", "2026-01-12"] * 2,
            "system": ["a", "a", "b", "b"],
            "mrr": [0.5, 0.6, 0.7, 0.8],
            "mrr_ci_low": [0.4, 0.5, 0.6, 0.7],
            "mrr_ci_high": [0.6, 0.7, 0.8, 0.9],
            "n_queries": [2, 2, 2, 2],
        }
    )
    gates = pd.DataFrame(
        {
            "rule": ["mrr >= 0.3", "mrr >= 0.9"],
            "system": ["a", "b"],
            "value": [0.7, 0.7],
            "status": ["pass", "fail"],
        }
    )
    html = report.with_tables(trend=trend, gates=gates).html()
    assert '<section id="trend">' in html
    assert '<section id="gates">' in html
    assert '<td class="status fail" data-status="fail">fail</td>' in html
    assert '<section id="trend">' not in report.html()


def test_item_metrics_are_evaluates(make_frame: Any) -> None:
    ev = make_frame(DATA).rank_eval(score=["a", "b"])
    popularity = {"x": 10, "z": 1, HOSTILE_ITEM: 3}
    report = ev.report(["arp@2", "mrr"], popularity=popularity)
    expected = _pandas(ev.evaluate(["arp@2", "mrr"], popularity=popularity))
    np.testing.assert_allclose(
        report.summary["arp@2"].to_numpy(dtype=float),
        expected["arp@2"].to_numpy(dtype=float),
        atol=1e-12,
    )
    # by hand: a's top 2 is x, then the hostile item in every query: (10 + 3)/2 = 6.5
    assert float(report.summary["arp@2"].iloc[0]) == pytest.approx(6.5)
    (curve,) = [c for c in report.data.curves if c.metric == "arp"]
    at_1 = _pandas(ev.evaluate(["arp@1"], popularity=popularity))["arp@1"].to_numpy(float)
    np.testing.assert_allclose([curve.means["a"][0], curve.means["b"][0]], at_1, atol=1e-12)


def test_unknown_keyword_names_the_one_meant(make_frame: Any) -> None:
    ev = make_frame(DATA).rank_eval(score=["a", "b"])
    with pytest.raises(rankframe.UnknownArgumentError, match=r"report\(\).*'emtpy'.*'empty'"):
        ev.report(METRICS, emtpy="skip")


def test_one_system(make_frame: Any) -> None:
    frame = make_frame(DATA)
    report = frame.rank_eval(score="a").report(["mrr"])
    assert report.comparison is None
    assert float(report.summary["mrr"].iloc[0]) == pytest.approx(17 / 24)
    assert "nothing to compare" in report.html()


def test_empty_option_reaches_the_report(make_frame: Any) -> None:
    data = pd.DataFrame(DATA)
    data.loc[data["query"] == "q4", "relevant"] = 0  # q4 has no relevant item now
    frame = make_frame(data)
    ev = frame.rank_eval(score=["a", "b"])
    report = ev.report(["mrr"], empty="skip")
    expected = _pandas(ev.evaluate(["mrr"], empty="skip"))
    np.testing.assert_allclose(
        report.summary["mrr(empty=skip)"].to_numpy(dtype=float),
        expected["mrr(empty=skip)"].to_numpy(dtype=float),
    )
    assert report.data.facts.empty_queries == 1


# -- paper tables: against tables written out by hand -----------------------------------------

COMPARISON = pd.DataFrame(
    {
        "system": ["bm25", "bm25", "dense_1", "dense_1", "mix", "mix"],
        "metric": ["ndcg", "mrr"] * 3,
        "k": [10, None] * 3,
        "mean": [0.31, 0.5, 0.35, 0.45, 0.35, 0.52],
        "delta": [0.0, 0.0, 0.04, -0.05, 0.04, 0.02],
        "p_value": [None, None, 0.001, 0.01, 0.2, 0.5],
        "significant": [False, False, True, True, False, False],
    }
)


def test_markdown_table_by_hand() -> None:
    # dense_1 beats bm25 on ndcg@10 (mark a on dense_1); bm25 beats dense_1 on mrr (mark b
    # on bm25); ties at the best value are both bold (0.35); mix's mrr 0.52 is the best
    expected = (
        "| system | ndcg@10 | mrr |\n"
        "|---|---:|---:|\n"
        "| bm25 (a) | 0.31 | 0.50<sup>b</sup> |\n"
        "| dense_1 (b) | **0.35**<sup>a</sup> | 0.45 |\n"
        "| mix (c) | **0.35** | **0.52** |\n"
    )
    assert rankframe.to_markdown(COMPARISON, digits=2) == expected


def test_latex_table_by_hand() -> None:
    expected = (
        "\\begin{tabular}{lrr}\n"
        "\\toprule\n"
        "system & ndcg@10 & mrr \\\\\n"
        "\\midrule\n"
        "bm25 (a) & 0.31 & 0.50$^{b}$ \\\\\n"
        "dense\\_1 (b) & \\textbf{0.35}$^{a}$ & 0.45 \\\\\n"
        "mix (c) & \\textbf{0.35} & \\textbf{0.52} \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
    )
    assert rankframe.to_latex(COMPARISON, digits=2) == expected


def test_paper_table_of_a_report_is_its_comparisons(make_frame: Any) -> None:
    frame = make_frame(DATA)
    ev = frame.rank_eval(score=["a", "b"])
    report = ev.report(METRICS)
    assert report.to_latex() == rankframe.to_latex(ev.compare(METRICS))
    assert report.to_markdown() == rankframe.to_markdown(ev.compare(METRICS))


def test_cli_report_and_latex(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    pd.DataFrame(DATA).to_csv(path, index=False)
    out = tmp_path / "report.html"
    code, _, err = run(
        "report", path, "--score", "a", "--score", "b", "-m", "mrr", "--by", "seg", "-o", out
    )
    assert code == 0, err
    cells = parsed(out.read_text()).cells
    means = {
        (c["data-segment"], c["data-system"]): float(c["data-value"])
        for c in cells
        if c.get("data-kind") == "mean"
    }
    assert means[("", "a")] == pytest.approx(17 / 24)
    code, latex, err = run(
        "compare", path, "--score", "a", "--score", "b", "-m", "mrr", "--format", "latex"
    )
    assert code == 0, err
    assert latex.startswith("\\begin{tabular}{lr}")


# -- in a real browser ----------------------------------------------------------------------


@dataclass
class Opened:
    """What a page did while it loaded from disk, and what it shows."""

    uri: str
    requests: list[str]
    errors: list[str]
    dialogs: list[str]
    charts: list[tuple[str, float, float, int]]
    means: dict[tuple[str, str, str], str]
    text: str
    answer: str = ""
    axes: dict[str, list[float]] = field(default_factory=dict)  # chart title: y ticks


def open_report(browser: Any, path: Path) -> Opened:
    """Open a saved report in a new page of ``browser``; every request, console error and
    dialog recorded; each chart's size and marks, each shown number of a kind."""
    uri = path.as_uri()
    opened = Opened(uri, [], [], [], [], {}, "")
    page = browser.new_page()
    try:
        page.on("request", lambda r: opened.requests.append(r.url))
        page.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: opened.errors.append(str(e)))
        page.on("dialog", lambda d: (opened.dialogs.append(d.message), d.dismiss()))
        page.goto(uri)
        page.wait_for_load_state("load")
        opened.charts = page.eval_on_selector_all(
            "svg.chart",
            "els => els.map(e => [e.closest('section').id, "
            "e.getBoundingClientRect().width, "
            "e.getBoundingClientRect().height, "
            "e.querySelectorAll('rect,polyline,polygon,circle,line').length])",
        )
        shown = page.eval_on_selector_all(
            "td[data-kind=mean], td[data-kind=trend]",
            "els => els.map(e => [e.dataset.kind, e.dataset.segment, e.dataset.system, "
            "e.dataset.metric, e.firstChild ? e.firstChild.textContent : ''])",
        )
        opened.means = {
            (kind + ":" + seg, system, metric): value for kind, seg, system, metric, value in shown
        }
        opened.text = page.inner_text("body")
        if page.query_selector("section#answer") is not None:
            opened.answer = page.inner_text("section#answer")
        axes = page.eval_on_selector_all(
            "svg.chart",
            "els => els.map(e => [e.querySelector('title').textContent, "
            "Array.from(e.querySelectorAll('text.yt')).map(t => t.textContent)])",
        )
        opened.axes = {title: [float(v.rstrip("%")) for v in ticks] for title, ticks in axes}
    finally:
        page.close()
    return opened


def assert_clean(opened: Opened) -> None:
    """No request but the file itself, no console error, no dialog, charts with content."""
    assert opened.requests == [opened.uri]
    assert opened.errors == []
    assert opened.dialogs == []
    assert opened.charts, "no chart"
    assert all(w > 0 and h > 0 and n > 0 for _, w, h, n in opened.charts), opened.charts


@pytest.mark.load
def test_the_report_in_chromium(browser: Any, tmp_path: Path) -> None:
    frame = pd.DataFrame(DATA)
    ev = frame.rank_eval(score=["a", "b"])
    opened = open_report(browser, ev.report(METRICS, by="seg").save(tmp_path / "report.html"))
    assert_clean(opened)
    assert HOSTILE_ITEM in opened.text  # shown as text
    expected = _pandas(ev.evaluate(METRICS))
    for row in expected.to_dict("records"):
        for metric in METRICS:
            assert opened.means[("mean:", row["system"], metric)] == f"{row[metric]:.4f}"
    assert not math.isnan(float(opened.means[("mean:", "a", "mrr")]))
    # the answer, visible first: nothing moved (4 queries), with the smallest detectable
    # change of each metric (compare()'s mde)
    assert opened.answer.startswith("The answer")
    assert "Nothing moved: no significant change in any segment." in opened.answer
    compared = _pandas(ev.compare(METRICS))
    for row in compared[compared["system"] == "b"].to_dict("records"):
        label = f"{row['metric']}@{row['k']}" if not pd.isna(row["k"]) else row["metric"]
        assert f"{label} ±{row['mde']:.4f}" in opened.answer
    # a reversal (see test_report_answer.py): new higher overall, lower in the tablets (30
    # queries of 90, 25 of them from rank 1 to 2: -25/2/30); named in the answer on the page
    old, new = [2] * 60 + [1] * 30, [1] * 50 + [2] * 10 + [1] * 5 + [2] * 25
    planted_frame = pd.DataFrame(
        planted({"old": old, "new": new}, {"device": ["phone"] * 60 + ["tablet"] * 30})
    )
    reversal = planted_frame.rank_eval(score=["old", "new"]).report(["mrr"], by="device")
    answer = open_report(browser, reversal.save(tmp_path / "reversal.html")).answer
    assert "new on mrr: higher overall (" in answer
    assert f"but lower in device=tablet ({-25 / 2 / 30:+.4f}, 95% interval [" in answer
    assert "device=phone" not in answer


@pytest.mark.load
def test_trend_gates_and_reference_in_chromium(browser: Any, tmp_path: Path) -> None:
    # two queries a week (Mondays 2026-01-05 and 01-12): q1, q2 in the first, q3, q4 in the
    # second; a's reciprocal ranks (see DATA) give 3/4 and 2/3, b's 1 and 1/3
    frame = pd.DataFrame(DATA)
    frame["served_at"] = pd.to_datetime(["2026-01-06"] * 6 + ["2026-01-13"] * 6)
    ev = frame.rank_eval(score=["a", "b"], time="served_at")
    report = ev.report(
        METRICS,
        by="seg",
        every="1w",
        reference=frame,
        min_queries=1,
        rules=["mrr >= 0.5", "mrr drop <= 0.01"],
        n_resamples=100,
    )
    opened = open_report(browser, report.save(tmp_path / "report.html"))
    assert_clean(opened)
    # a chart per metric, then per metric one per segment (2 segments, under the cap)
    trend = [c for c in opened.charts if c[0] == "trend"]
    assert len(trend) == len(METRICS) * 3
    for metric in METRICS:
        assert f"{metric} by window" in opened.axes
        for seg in ("u", HOSTILE_SEGMENT):
            assert f"{metric}: seg={seg}" in opened.axes
    # the axis fits the data, bands drawn whole: a's first week holds reciprocal ranks 1/2
    # and 1 (q1, q2), whose 95% Student-t interval is 3/4 ± t(0.975, 1)·0.25 = 3/4 ± 3.18,
    # far past 1 and below 0; the axis reaches both ends
    half = scipy.stats.t.ppf(0.975, 1) * 0.25
    ticks = opened.axes["mrr by window"]
    assert min(ticks) <= 0.75 - half
    assert max(ticks) >= 0.75 + half
    # the answer first: b against a on both metrics, and the gates' count
    gates = _pandas(report.data.gates)
    failed = int((gates["status"] == "fail").sum())
    assert opened.answer.startswith("The answer")
    assert "b against the baseline a:" in opened.answer
    assert f"Gates: {failed} of {len(gates)} rules failed" in opened.answer
    for metric in METRICS:
        assert metric in opened.answer
    expected = _pandas(ev.evaluate(METRICS, every="1w"))
    weeks = ["2026-01-05", "2026-01-05", "2026-01-12", "2026-01-12"]
    for week, row in zip(weeks, expected.to_dict("records"), strict=True):
        for metric in METRICS:
            shown = opened.means[("trend:" + week, row["system"], metric)]
            assert shown == f"{row[metric]:.4f}"
    assert opened.means[("trend:2026-01-12", "b", "mrr")] == f"{1 / 3:.4f}"
    for status in set(_pandas(report.data.gates)["status"]):
        assert status in opened.text  # each status as text
    for heading in ("Trend", "Gates", "Reference", "paired"):
        assert heading in opened.text
    assert HOSTILE_SEGMENT in opened.text


@pytest.mark.load
def test_where_it_fails_and_exposure_in_chromium(browser: Any, tmp_path: Path) -> None:
    # the sections of report(slices=..., item_groups=...): one offline file, no script, no
    # request; the slice of the hostile segment and the hostile item group shown as text
    frame = pd.DataFrame(DATA)
    ev = frame.rank_eval(score=["a", "b"])
    groups = {
        item: HOSTILE_SEGMENT if i % 2 else "plain"
        for i, item in enumerate(sorted(frame["item"].unique()))
    }
    report = ev.report(
        METRICS,
        slices=["seg"],
        slice_min_queries=1,
        item_groups=groups,
        exposure_k=2,
        n_resamples=50,
    )
    opened = open_report(browser, report.save(tmp_path / "report.html"))
    assert_clean(opened)
    for heading in ("Where it fails", "Exposure of item groups", "tests in all", "holm correction"):
        assert heading in opened.text
    assert f"seg={HOSTILE_SEGMENT}" in opened.text
    assert HOSTILE_SEGMENT in opened.text.split("Exposure of item groups", 1)[1]
    expected = _pandas(ev.slices(METRICS, ["seg"], baseline="a", min_queries=1, top=5))
    for row in expected.to_dict("records"):
        assert f"{row['delta']:.4f}" in opened.text
