"""The report's sections of issue 27's pieces (issue 28): the trend over time windows, the
gates and the comparison with a reference frame, on every frame kind, read back from the
HTML and checked against ``evaluate(every=...)``, ``check()``, ``compare(reference=...)``,
scipy and values derived by hand; the command line's flags; hostile strings as text.
"""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest
from scipy import stats

import rankframe
from rankframe.adapters.results import as_pandas as eager  # what a report reads a table as
from rankframe.api.gates import STATUSES

HOSTILE = "<script>alert(1)</script>"
QUOTED = '" onerror="alert(1)'

# Four queries of three items, two systems, one relevant item each (the data of
# test_report.py). Reciprocal ranks (a, b): q1 (1/2, 1), q2 (1, 1), q3 (1, 1/3), q4 (1/3, 1/3).
# Times: a query's time is its earliest row's. q1's rows are Tuesday 2026-01-06 and Tuesday
# 01-13, so q1 is in the week of Monday 2026-01-05, with q2 (Thursday 01-08); q3 (Monday
# 01-12 00:30) and q4 (Sunday 01-18 23:00) are in the week of Monday 01-12.
#   week 2026-01-05: a = (1/2 + 1)/2 = 3/4, b = (1 + 1)/2 = 1
#   week 2026-01-12: a = (1 + 1/3)/2 = 2/3, b = (1/3 + 1/3)/2 = 1/3
TIMED = {
    "query": ["q1"] * 3 + ["q2"] * 3 + ["q3"] * 3 + ["q4"] * 3,
    "item": ["x", "y", "z"] * 4,
    "a": [0.9, 0.5, 0.1, 0.9, 0.5, 0.1, 0.9, 0.5, 0.1, 0.9, 0.5, 0.1],
    "b": [0.1, 0.9, 0.5, 0.9, 0.5, 0.1, 0.1, 0.5, 0.9, 0.5, 0.9, 0.1],
    "relevant": [0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1],
    "seg": ["u", "u", "u", QUOTED, QUOTED, QUOTED, "u", "u", "u", QUOTED, QUOTED, QUOTED],
    "served_at": pd.to_datetime(
        ["2026-01-06 09:00", "2026-01-13 09:00", "2026-01-06 10:00"]
        + ["2026-01-08 12:00"] * 3
        + ["2026-01-12 00:30"] * 3
        + ["2026-01-18 23:00"] * 3
    ),
}
METRICS = ["mrr", "ndcg@3"]
WEEKS = ["2026-01-05", "2026-01-12"]
RR = {
    "a": {"2026-01-05": [1 / 2, 1], "2026-01-12": [1, 1 / 3]},
    "b": {"2026-01-05": [1, 1], "2026-01-12": [1 / 3, 1 / 3]},
}


class Tags(HTMLParser):
    """Every start tag with its attributes, and each element's text by its ``data-kind``
    (the first text inside it)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.texts: list[tuple[dict[str, str], str]] = []
        self._open: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.append((tag, a))
        if tag == "td":
            self._open = a
            self.texts.append((a, ""))

    def handle_data(self, data: str) -> None:
        if self._open is not None and self.texts and self.texts[-1][0] is self._open:
            attrs, text = self.texts[-1]
            self.texts[-1] = (attrs, text + data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "br", "sup"):
            self._open = None


def tags(html: str) -> Tags:
    parser = Tags()
    parser.feed(html)
    return parser


def section(html: str, name: str) -> str:
    """The HTML of one section of the page."""
    start = html.index(f'<section id="{name}">')
    return html[start : html.index("</section>", start)]


def cells(html: str, kind: str) -> dict[tuple[str, str, str], dict[str, str]]:
    """(segment, system, metric) -> the attributes of the cells of one ``data-kind``."""
    return {
        (a["data-segment"], a["data-system"], a["data-metric"]): a
        for tag, a in tags(html).tags
        if tag == "td" and a.get("data-kind") == kind
    }


def close(shown: str, expected: float) -> bool:
    value = float(shown)
    return (math.isnan(value) and math.isnan(expected)) or value == pytest.approx(
        expected, abs=1e-12
    )


# -- the trend ------------------------------------------------------------------------------


def test_trend_numbers_are_evaluates_every(make_frame: Any) -> None:
    ev = make_frame(TIMED).rank_eval(score=["a", "b"], time="served_at")
    report = ev.report(METRICS, every="1w", test="permutation", n_resamples=200, seed=3)
    shown = cells(report.html(), "trend")
    expected = eager(
        ev.evaluate(METRICS, every="1w", confidence_level=0.95, n_resamples=200, seed=3)
    )
    assert len(shown) == len(expected) * len(METRICS)
    for row, week in zip(
        expected.to_dict("records"), [w for w in WEEKS for _ in "ab"], strict=True
    ):
        for metric in METRICS:
            cell = shown[(week, row["system"], metric)]
            assert close(cell["data-value"], row[metric])
            assert close(cell["data-ci-low"], row[f"{metric}_ci_low"])
            assert close(cell["data-ci-high"], row[f"{metric}_ci_high"])
    # by hand (see TIMED)
    by_hand = {
        ("2026-01-05", "a"): 3 / 4,
        ("2026-01-05", "b"): 1.0,
        ("2026-01-12", "a"): 2 / 3,
        ("2026-01-12", "b"): 1 / 3,
    }
    for (week, system), value in by_hand.items():
        assert float(shown[(week, system, "mrr")]["data-value"]) == pytest.approx(value)


def test_trend_t_intervals_by_hand(make_frame: Any) -> None:
    ev = make_frame(TIMED).rank_eval(score=["a", "b"], time="served_at")
    report = ev.report(["mrr"], every="1w", by="seg")  # by= leaves the trend on every query
    shown = cells(report.html(), "trend")
    expected = eager(ev.evaluate(["mrr"], every="1w"))
    assert [
        float(shown[(w, s, "mrr")]["data-value"]) for w in WEEKS for s in "ab"
    ] == pytest.approx(expected["mrr"].tolist(), abs=1e-12)
    for system, weeks in RR.items():
        for week, values in weeks.items():
            v = np.array(values)
            if v.std() == 0:  # b's first week: both 1, the interval is the point
                low = high = float(v[0])
            else:
                low, high = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
            cell = shown[(week, system, "mrr")]
            assert float(cell["data-ci-low"]) == pytest.approx(low, abs=1e-12)
            assert float(cell["data-ci-high"]) == pytest.approx(high, abs=1e-12)


def test_trend_charts_draw_a_line_and_a_band_per_system(make_frame: Any) -> None:
    ev = make_frame(TIMED).rank_eval(score=["a", "b"], time="served_at")
    html = section(ev.report(METRICS, every="1w").html(), "trend")
    charts = re.findall(r'<svg class="chart".*?</svg>', html)
    assert len(charts) == len(METRICS)
    for chart in charts:
        assert chart.count("<polyline") == 2  # a line per system
        assert chart.count("<polygon") == 2  # its interval band
        assert all(w in chart for w in WEEKS)  # the windows on the x axis


def test_trend_needs_a_time_column(make_frame: Any) -> None:
    ev = make_frame(TIMED).rank_eval(score=["a", "b"])
    with pytest.raises(rankframe.InvalidOptionError, match="needs a time column"):
        ev.report(METRICS, every="1w")


# -- the gates ------------------------------------------------------------------------------

# One system; two items per query, x scored 0.9 and y 0.1: the relevant item x gives a
# reciprocal rank of 1, y gives 1/2. Groups: big = q1 (1), q2 (1), q3 (1/2): mean 5/6;
# new = q5, q6 (1, 1); small = q4 alone. The reference ranks q1's x second (1/2): big's
# reference mean is (1/2 + 1 + 1/2)/3 = 2/3, a change of +1/6, paired (the same ids), q1
# a win and q2, q3 ties.
GATE_RR = {"q1": 1.0, "q2": 1.0, "q3": 0.5, "q4": 1.0, "q5": 1.0, "q6": 1.0}
GROUP = {"q1": "big", "q2": "big", "q3": "big", "q4": "small", "q5": "new", "q6": "new"}
RULES = ["mrr >= 0.4", "mrr >= 0.9", "mrr <= 0.45", "mrr drop <= 0.01", "mrr drop <= 10%"]


def gate_data() -> pd.DataFrame:
    rows = [
        {
            "query": q,
            "item": item,
            "score": score,
            "relevant": int((item == "x") == (rr == 1)),
            "grp": GROUP[q],
        }
        for q, rr in GATE_RR.items()
        for item, score in (("x", 0.9), ("y", 0.1))
    ]
    return pd.DataFrame(rows)


def gate_reference() -> pd.DataFrame:
    data = gate_data()
    data.loc[data["query"] == "q1", "score"] = [0.1, 0.9]
    return data


def test_gates_are_checks_table(make_frame: Any) -> None:
    ev = make_frame(gate_data()).rank_eval
    reference = make_frame(gate_reference())
    report = ev.report(["mrr"], by="grp", rules=RULES, reference=reference, min_queries=2)
    html = section(report.html(), "gates")
    expected = eager(ev.check(RULES, by="grp", reference=reference, min_queries=2))
    parsed = tags(html).texts
    statuses = [text for a, text in parsed if "data-status" in a]
    assert statuses == expected["status"].tolist()

    def column(name: str) -> npt.NDArray[np.float64]:
        return expected[name].to_numpy(float, na_value=np.nan)

    # each rule in its own unit: an absolute rule's value, a drop rule's change (a
    # percentage rule's relative change), with the interval and the bound in that unit
    drop = ~np.isnan(column("delta"))
    relative = ~np.isnan(column("bound_relative"))
    assert drop.any()
    assert relative.any()
    assert (drop & ~relative).any()
    want = {
        "measured": np.where(
            drop, np.where(relative, column("delta_relative"), column("delta")), column("value")
        ),
        "bound": np.where(relative, column("bound_relative"), column("bound")),
        "p_adjusted": column("p_adjusted"),
        # NaN but where uncertain: check()'s own number, tested in test_gates.py
        "queries_to_decide": column("queries_to_decide"),
    }
    for kind, values in want.items():
        shown = [float(a["data-value"]) for a, _ in parsed if a.get("data-kind") == f"gates:{kind}"]
        np.testing.assert_allclose(shown, values, atol=1e-12)
    for end in ("low", "high"):
        shown = [
            float(a[f"data-ci-{end}"]) for a, _ in parsed if a.get("data-kind") == "gates:interval"
        ]
        np.testing.assert_allclose(
            shown, np.where(relative, column(f"ci_{end}_relative"), column(f"ci_{end}")), atol=1e-12
        )
    rules = [text for a, text in parsed if a.get("data-kind") == "gates:rule"]
    assert rules == expected["rule"].tolist()
    # a percentage rule reads in percent: its bound -10% as the rule writes it
    bounds = [text for a, text in parsed if a.get("data-kind") == "gates:bound"]
    assert (
        next(b for b, r in zip(bounds, rules, strict=True) if r == "mrr drop <= 10%") == "-10.00%"
    )
    # by hand: the absolute rules of big read 5/6 (see gate_data); small is too few
    values = [float(a["data-value"]) for a, _ in parsed if a.get("data-kind") == "gates:measured"]
    groups = [text for a, text in parsed if a.get("data-kind") == "gates:grp"]
    assert values[groups.index("big")] == pytest.approx(5 / 6)
    assert [s for s, g in zip(statuses, groups, strict=True) if g == "small"] == [
        "too few queries"
    ] * len(RULES)


def test_every_status_reads_as_text(make_frame: Any) -> None:
    ev = make_frame(gate_data()).rank_eval
    report = ev.report(
        ["mrr"], by="grp", rules=RULES, reference=make_frame(gate_reference()), min_queries=2
    )
    # from check(): big's interval holds 0.9 (uncertain), lies above 0.4 (pass) and above
    # 0.45 (fail); small has one query
    shown = {text for a, text in tags(report.html()).texts if "data-status" in a}
    assert {"pass", "fail", "uncertain", "too few queries"} <= shown
    # and every status rankframe has, "no baseline" too, through a table of check()'s kind
    table = pd.DataFrame(
        {
            "rule": ["mrr >= 0.4"] * len(STATUSES),
            "system": ["a"] * len(STATUSES),
            "value": [0.5] * len(STATUSES),
            "status": list(STATUSES),
        }
    )
    html = report.with_tables(gates=table).html()
    for status in STATUSES:
        assert re.search(
            rf'<td class="status [a-z-]+" data-status="{status}">{status}</td>', html
        ), status
    assert '<td class="status too-few-queries"' in html  # the class reads, the text says it


# -- the reference --------------------------------------------------------------------------


def test_reference_is_compares_paired(make_frame: Any) -> None:
    ev = make_frame(gate_data()).rank_eval
    reference = make_frame(gate_reference())
    report = ev.report(["mrr"], by="grp", reference=reference)
    html = section(report.html(), "reference")
    expected = eager(ev.compare(["mrr"], by="grp", reference=reference))
    for row in expected.to_dict("records"):
        key = (row["grp"], row["system"], "mrr")
        for column in ["mean", "reference_mean", "delta", "p_adjusted"]:
            assert close(cells(html, f"reference:{column}")[key]["data-value"], row[column])
        delta = cells(html, "reference:delta")[key]
        assert close(delta["data-ci-low"], row["ci_low"])
        assert close(delta["data-ci-high"], row["ci_high"])
    texts = {
        (a["data-segment"], a["data-kind"]): t
        for a, t in tags(html).texts
        if a.get("data-kind", "").startswith("reference:")
    }
    # by hand (see gate_data): big 5/6 against 2/3, paired, one win and two ties
    assert texts[("big", "reference:paired")] == "paired"
    assert (
        texts[("big", "reference:wins")],
        texts[("big", "reference:ties")],
        texts[("big", "reference:losses")],
    ) == ("1", "2", "0")
    big = cells(html, "reference:delta")[("big", "score", "mrr")]
    assert float(big["data-value"]) == pytest.approx(5 / 6 - 2 / 3)


def test_reference_two_sample_is_welch(make_frame: Any) -> None:
    ev = make_frame(gate_data()).rank_eval
    other = gate_reference()
    other["query"] = "r" + other["query"]  # other ids: a two-sample comparison
    report = ev.report(["mrr"], reference=make_frame(other))
    html = section(report.html(), "reference")
    texts = {a["data-kind"]: t for a, t in tags(html).texts if "data-kind" in a}
    assert texts["reference:paired"] == "two-sample"
    assert texts["reference:wins"] == ""  # no pairs, no wins
    # Welch's t-test on the per-query reciprocal ranks (see gate_data)
    mine = list(GATE_RR.values())
    theirs = [0.5, 1.0, 0.5, 1.0, 1.0, 1.0]
    p = stats.ttest_ind(mine, theirs, equal_var=False).pvalue
    shown = cells(html, "reference:p_adjusted")[("", "score", "mrr")]
    assert float(shown["data-value"]) == pytest.approx(p, abs=1e-12)
    assert "Welch" in html


# -- hostile strings -------------------------------------------------------------------------


def test_hostile_names_in_trend_gates_and_reference(make_frame: Any) -> None:
    data = pd.DataFrame(TIMED).rename(columns={"a": HOSTILE, "b": QUOTED})
    ev = make_frame(data).rank_eval(score=[HOSTILE, QUOTED], time="served_at")
    report = ev.report(
        ["mrr"],
        by="seg",
        every="1w",
        rules=["mrr >= 0.3", "mrr drop <= 0.1"],
        reference=make_frame(data),
        min_queries=1,
        n_resamples=50,
    )
    html = report.html()
    for name in ("trend", "gates", "reference"):
        part = section(html, name)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in part, name  # system names
        assert "&quot; onerror=&quot;alert(1)" in part, name  # systems and segments
    _safe(html)
    # window labels of a table given to the trend
    trend = pd.DataFrame(
        {
            "window": [HOSTILE, QUOTED],
            "mrr": [0.5, 0.6],
            "mrr_ci_low": [0.4, 0.5],
            "mrr_ci_high": [0.6, 0.7],
        }
    )
    html = report.with_tables(trend=trend).html()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section(html, "trend")
    _safe(html)


def _safe(html: str) -> None:
    assert "<script" not in html.lower()
    assert 'onerror="' not in html
    parsed = tags(html).tags
    assert not any(k.startswith("on") for _, attrs in parsed for k in attrs)
    assert not any(tag in ("script", "iframe", "object", "embed", "img") for tag, _ in parsed)


# -- the command line ------------------------------------------------------------------------


def _files(tmp_path: Path) -> tuple[Path, Path]:
    data = pd.DataFrame(TIMED)
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    reference = data.copy()
    reference["query"] = "r" + reference["query"]
    ref_path = tmp_path / "reference.csv"
    reference.to_csv(ref_path, index=False)
    return path, ref_path


def test_cli_trend_gates_and_reference(run: Any, tmp_path: Path) -> None:
    path, ref_path = _files(tmp_path)
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
        "--time",
        "served_at",
        "--every",
        "1w",
        "--reference",
        ref_path,
        "--rule",
        "mrr >= 0.9",
        "--rule",
        "mrr drop <= 0.01",
        "--min-queries",
        "1",
        "--resamples",
        "50",
        "-o",
        out,
    )
    assert code == 0, err  # a failing or uncertain gate still writes the report
    html = out.read_text(encoding="utf-8")
    for name in ("trend", "gates", "reference"):
        assert f'<section id="{name}">' in html
    trend = cells(html, "trend")
    assert float(trend[("2026-01-05", "a", "mrr")]["data-value"]) == pytest.approx(3 / 4)
    assert float(trend[("2026-01-12", "b", "mrr")]["data-value"]) == pytest.approx(1 / 3)
    assert "two-sample" in section(html, "reference")
    assert "data-status=" in section(html, "gates")


def test_cli_without_the_flags_has_no_such_sections(run: Any, tmp_path: Path) -> None:
    path, _ = _files(tmp_path)
    out = tmp_path / "report.html"
    code, _, err = run("report", path, "--score", "a", "--score", "b", "-m", "mrr", "-o", out)
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    for name in ("trend", "gates", "reference"):
        assert f'<section id="{name}">' not in html
    assert f'data-name="{Path(path).name}"' in html  # the data's name: the file's


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--every", "1w"], "--every needs --time"),
        (["--time", "served_at"], "--every and --time go together"),
        (["--rule", "mrr >>= 0.3"], "rule"),
        (["--reference", "missing.csv"], "missing.csv"),
    ],
)
def test_cli_bad_flags_exit_2(run: Any, tmp_path: Path, flags: list[str], message: str) -> None:
    path, _ = _files(tmp_path)
    out = tmp_path / "report.html"
    flags = [str(tmp_path / f) if f.endswith(".csv") else f for f in flags]
    code, _, err = run("report", path, "--score", "a", "-m", "mrr", *flags, "-o", out)
    assert code == 2, err
    assert message in err
    assert not out.exists()


def test_cli_bad_time_column_exits_2(run: Any, tmp_path: Path) -> None:
    path, _ = _files(tmp_path)
    out = tmp_path / "report.html"
    code, _, err = run(
        "report", path, "--score", "a", "-m", "mrr", "--time", "seg", "--every", "1w", "-o", out
    )
    # --time names text that is not ISO 8601: as rankframe evaluate and check, 2
    assert code == 2, err
    assert "--time seg" in err
    assert "not an ISO 8601 datetime" in err
    assert not out.exists()


# -- the answer first (issue 35) ---------------------------------------------------------------


def _moves(html: str) -> dict[str, dict[str, str]]:
    """The answer's changes by metric: their data- attributes."""
    return {
        a["data-metric"]: a
        for tag, a in tags(section(html, "answer")).tags
        if tag == "span" and a.get("class") == "move"
    }


def test_the_answer_says_what_moved_against_the_baseline(make_frame: Any) -> None:
    # b against a over the four queries: mrr 2/3 - 17/24 = -1/24 (relative -1/17), the
    # paired t-test on the differences (1/2, 0, -2/3, 0) of scipy; ndcg@3 likewise
    ev = make_frame(TIMED).rank_eval(score=["a", "b"])
    report = ev.report(METRICS, rules=["mrr >= 0.7", "mrr drop <= 1%"], n_resamples=50)
    html = report.html()
    assert html.index('id="answer"') < html.index('id="data"') < html.index('id="summary"')
    moves = _moves(html)
    assert set(moves) == set(METRICS)
    assert float(moves["mrr"]["data-delta"]) == pytest.approx(-1 / 24)
    assert float(moves["mrr"]["data-delta-relative"]) == pytest.approx(-1 / 17)
    # paired t-tests of b - a per query: mrr (1/2, 0, -2/3, 0); ndcg@3 q1 1 - 1/log2(3),
    # q3 1/2 - 1 (b ranks q3's relevant item third), 0 elsewhere; the report's family is
    # compare()'s "systems" (holm over the systems against the baseline: one here)
    p_mrr = stats.ttest_1samp([1 / 2, 0, -2 / 3, 0], 0.0).pvalue
    p_ndcg = stats.ttest_1samp([1 - 1 / math.log2(3), 0, -1 / 2, 0], 0.0).pvalue
    assert float(moves["mrr"]["data-p-adjusted"]) == pytest.approx(p_mrr)
    assert float(moves["ndcg@3"]["data-p-adjusted"]) == pytest.approx(p_ndcg)
    assert moves["mrr"]["data-significant"] == "false"
    text = re.sub(r"<[^>]+>", "", section(html, "answer"))
    assert "b against the baseline a: no significant change on mrr -0.0417 (-5.9%" in text
    # the gates: mrr >= 0.7 fails for b (2/3, but its interval decides), counted in words
    gates = eager(ev.check(["mrr >= 0.7", "mrr drop <= 1%"], n_resamples=50))
    failed = int((gates["status"] == "fail").sum())
    assert f"Gates: {failed} of {len(gates)} rules failed" in text


def test_the_summary_shows_the_change_of_each_mean(make_frame: Any) -> None:
    ev = make_frame(TIMED).rank_eval(score=["a", "b"])
    html = section(ev.report(METRICS, n_resamples=50).html(), "summary")
    parsed = tags(html).texts
    compared = eager(ev.compare(METRICS))
    compared = compared[compared["system"] == "b"]
    for kind, column in (
        ("change:delta", "delta"),
        ("change:delta_relative", "delta_relative"),
        ("change:p_adjusted", "p_adjusted"),
    ):
        shown = [float(a["data-value"]) for a, _ in parsed if a.get("data-kind") == kind]
        np.testing.assert_allclose(shown, compared[column].to_numpy(float), atol=1e-12)
    # mrr's change as written: -1/24 and -1/17 (see above)
    texts = {a.get("data-kind"): t for a, t in parsed if a.get("data-metric") == "mrr"}
    assert texts["change:delta"] == "-0.0417"
    assert texts["change:delta_relative"] == "-5.9%"


def test_one_system_over_windows_answers_with_the_last_window(make_frame: Any) -> None:
    # a alone, weeks of 2026-01-05 (mrr 3/4) and 01-12 (2/3): the change -1/12, relative
    # -1/9, as compare(every=) gives it for the last window
    ev = make_frame(TIMED).rank_eval(score="a", time="served_at")
    moves = _moves(ev.report(["mrr"], every="1w", n_resamples=50).html())
    assert float(moves["mrr"]["data-delta"]) == pytest.approx(-1 / 12)
    assert float(moves["mrr"]["data-delta-relative"]) == pytest.approx(-1 / 9)


def test_the_header_names_the_data_and_the_time(make_frame: Any) -> None:
    ev = make_frame(TIMED).rank_eval(score=["a", "b"])
    html = ev.report(METRICS, name=HOSTILE, n_resamples=50).html()
    header = html[html.index("<header>") : html.index("</header>")]
    assert HOSTILE not in header
    assert "&lt;script&gt;" in header
    stamp = re.search(r'data-generated="([^"]+)"', header)
    assert stamp is not None
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", stamp.group(1))
    assert f"rankframe {rankframe.__version__}" in header


def test_the_worst_queries_are_folded_the_first_open(make_frame: Any) -> None:
    ev = make_frame(TIMED).rank_eval(score=["a", "b"])
    html = section(ev.report(METRICS, n_resamples=50).html(), "worst")
    opened = [a for tag, a in tags(html).tags if tag == "details"]
    # b loses q3 (1/3 against 1) on mrr: one worst query at least, the first open
    assert opened
    assert "open" in opened[0]
    assert all("open" not in a for a in opened[1:])


def test_the_fingerprint_is_the_stores(make_frame: Any, tmp_path: Path) -> None:
    # the report's fingerprint, when asked, is the one History.record(data=...) stores for
    # the same input: the same rows whatever the frame kind
    frame = make_frame(TIMED)
    ev = frame.rank_eval(score=["a", "b"])
    html = ev.report(METRICS, fingerprint=True, n_resamples=50).html()
    shown = re.search(r'data-fingerprint="([0-9a-f]{64})"', html)
    assert shown is not None
    store = rankframe.History(tmp_path / "m.duckdb")
    store.record(ev.evaluate(METRICS), data=ev)
    assert store.runs()["input_hash"].tolist() == [shown.group(1)]
    assert "12 rows, 4 queries" in html  # TIMED: four queries of three rows
    assert "data-fingerprint" not in ev.report(METRICS, n_resamples=50).html()


def test_the_worst_queries_of_a_composite_key(make_frame: Any) -> None:
    # queries are (user, day): u1 on day 1 and on day 2 hold different items. b ranks the
    # relevant item of (u1, 2) last (reciprocal rank 1/3 against a's 1): the one loss
    rows = [
        ("u1", 1, "p", 0.9, 0.9, 1),
        ("u1", 1, "q", 0.5, 0.5, 0),
        ("u1", 1, "r", 0.1, 0.1, 0),
        ("u1", 2, "s", 0.9, 0.1, 1),
        ("u1", 2, "t", 0.5, 0.5, 0),
        ("u1", 2, "v", 0.1, 0.9, 0),
        ("u2", 1, "w", 0.9, 0.9, 1),
        ("u2", 1, "x", 0.1, 0.1, 0),
    ]
    data = pd.DataFrame(rows, columns=["user", "day", "item", "a", "b", "relevant"])
    ev = make_frame(data).rank_eval(query=["user", "day"], score=["a", "b"])
    worst = ev.report(["mrr"], worst=5, top_k=5, n_resamples=50).data.worst
    assert [w.query for w in worst] == ["user=u1, day=2"]
    assert (worst[0].value, worst[0].baseline_value) == (pytest.approx(1 / 3), 1.0)
    assert [x.item for x in worst[0].lists["a"]] == ["s", "t", "v"]
    assert [x.item for x in worst[0].lists["b"]] == ["v", "t", "s"]
    # the fingerprint counts the key's tuples: (u1, 1), (u1, 2), (u2, 1)
    assert "8 rows, 3 queries" in ev.report(["mrr"], fingerprint=True, n_resamples=50).html()


def test_a_segment_that_skip_leaves_empty_has_no_row(make_frame: Any) -> None:
    # segment t's one query has no relevant item: with empty="skip" it has no row, in the
    # report as in evaluate(); s: a's reciprocal ranks 1/2 and 1 (3/4), b's 1 and 1 (1)
    data = {
        "query": [1, 1, 2, 2, 3, 3],
        "item": list("xyxyxy"),
        "a": [0.9, 0.1, 0.9, 0.1, 0.9, 0.1],
        "b": [0.1, 0.9, 0.9, 0.1, 0.1, 0.9],
        "relevant": [0, 1, 1, 0, 0, 0],
        "seg": ["s", "s", "s", "s", "t", "t"],
    }
    ev = make_frame(data).rank_eval(score=["a", "b"])
    segments = ev.report(["mrr"], by="seg", empty="skip", n_resamples=50).segments
    assert segments["seg"].tolist() == ["s", "s"]
    assert segments["mrr(empty=skip)"].tolist() == [pytest.approx(3 / 4), 1.0]
