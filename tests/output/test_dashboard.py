"""The history store's dashboard (``History.dashboard``, ``rankframe dashboard``): numbers
read from the page equal the store's and the hand-computed ones, no script, no request,
hostile run names and tags shown as text; the page opened in Chromium (on the browser
worker with tests/output/test_report.py: tests/conftest.py WORKER_GROUPS)."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from helpers import FrameMaker, as_pandas
from rankframe import History, InvalidOptionError

# The page reads the store alone: a frame kind reaches it only through History.record, whose
# rows are the same from every kind (tests/output/test_history.py, round trips on every frame
# kind). pandas, and polars-lazy for a lazy result that record collects.
pytestmark = pytest.mark.frame_kinds("pandas", "polars-lazy")

HOSTILE = "<script>alert(1)</script>"
# Four queries, two themes; a ranks the relevant item 1st, 2nd, 1st, 2nd (reciprocal ranks
# 1, 1/2, 1, 1/2), b 1st, 1st, 2nd, 2nd (1, 1, 1/2, 1/2). Theme t = q1, q2; u = q3, q4.
DATA = {
    "query": [1, 1, 2, 2, 3, 3, 4, 4],
    "item": ["x", "y"] * 4,
    "a": [0.9, 0.1, 0.1, 0.9, 0.9, 0.1, 0.1, 0.9],
    "b": [0.9, 0.1, 0.9, 0.1, 0.1, 0.9, 0.1, 0.9],
    "relevant": [1, 0, 1, 0, 1, 0, 1, 0],
    "theme": ["t"] * 4 + ["u"] * 4,
}
MRR = {("a", "theme=t"): 0.75, ("a", "theme=u"): 0.75, ("b", "theme=t"): 1.0, ("b", "theme=u"): 0.5}


def _store(make_frame: FrameMaker, folder: Path) -> History:
    store = History(folder / "m.duckdb")
    ev = make_frame(DATA).rank_eval(score=["a", "b"])
    store.record(
        ev.evaluate(["mrr"], by="theme", confidence_level=0.9, n_resamples=50),
        run=HOSTILE,
        tags={"branch": HOSTILE},
    )
    for _ in range(2):
        store.record(
            ev.evaluate(["mrr"], by="theme", confidence_level=0.9, n_resamples=50),
            run="nightly",
            tags={"branch": "main"},
        )
    store.record(
        ev.check(["mrr drop <= 0.1"], by="theme", baseline="a", min_queries=1, mode="point"),
        run="gate",
    )
    return store


def _cells(page: str, kind: str) -> dict[tuple[str, ...], str]:
    """The numbers of a kind of cell, by their data-* keys (unescaped)."""
    found = {}
    for attributes, text in re.findall(
        r'<td class="num[^"]*"((?: data-[a-z]+="[^"]*")*)'
        r">([^<]*)</td>",
        page,
    ):
        data = dict(re.findall(r'data-([a-z]+)="([^"]*)"', attributes))
        if data.get("kind") == kind:
            key = tuple(html.unescape(v) for k, v in data.items() if k != "kind")
            found[key] = text
    return found


def test_the_numbers_on_the_page(make_frame: FrameMaker, tmp_path: Path) -> None:
    store = _store(make_frame, tmp_path)
    page = store.dashboard(tmp_path / "d.html")
    assert (tmp_path / "d.html").read_text(encoding="utf-8") == page
    values = _cells(page, "value")  # the latest evaluation run, "nightly"
    assert values == {
        ("mrr", segment, system, ""): f"{v:.4f}" for (system, segment), v in MRR.items()
    }
    latest = store.load(run="nightly").tail(4)
    for row in latest.to_dict("records"):
        assert values[("mrr", row["segment"], row["system"], "")] == f"{row['value']:.4f}"
    # the drop rule's change, b - a: theme t 1 - 3/4, theme u 1/2 - 3/4
    deltas = _cells(page, "gate-delta")
    assert deltas == {
        ("mrr drop <= 0.1", "theme=t", "b"): "0.2500",
        ("mrr drop <= 0.1", "theme=u", "b"): "-0.2500",
    }
    # the verdict leads, in words: the same values as the run before, one gate failing
    verdict = re.search(r'<p class="verdict" id="verdict">(.*?)</p>', page, re.S)
    assert verdict is not None
    assert page.index("verdict") < page.index("<h2")
    assert "none of 4 values moved" in verdict.group(1)
    assert "1 of 2 rules fail" in verdict.group(1)
    assert "mrr drop &lt;= 0.1, theme=u, b" in verdict.group(1)


def test_no_script_no_request_hostile_strings_as_text(
    make_frame: FrameMaker, tmp_path: Path
) -> None:
    page = _store(make_frame, tmp_path).dashboard(title=HOSTILE)
    assert "<script" not in page.lower()
    assert HOSTILE not in page
    assert html.escape(HOSTILE, quote=True) in page  # name, tag and title as text
    assert not re.search(r'(src|href)\s*=\s*"?(https?:)?//', page)
    assert "http://" not in page
    assert "https://" not in page


def test_filters_and_a_moved_value(tmp_path: Path) -> None:
    store = History(tmp_path / "m.duckdb")
    ev = pd.DataFrame(DATA).rank_eval(score=["a", "b"])
    store.record(ev.evaluate(["mrr"]), run="nightly", tags={"branch": "main"})
    moved = pd.DataFrame(DATA).assign(b=DATA["a"])  # b as a: 3/4 where it was 3/4 ...
    store.record(moved.rank_eval(score=["a", "b"]).evaluate(["mrr"]), run="other")
    page = store.dashboard(run="nightly", tags={"branch": "main"})
    assert html.escape("1 runs (run='nightly', tags={'branch': 'main'})") in page
    assert "other" not in page
    with pytest.raises(InvalidOptionError, match="last= takes a positive number"):
        store.dashboard(last=0)


def test_the_command_line(run: Any, make_frame: FrameMaker, tmp_path: Path) -> None:
    _store(make_frame, tmp_path)
    out = tmp_path / "page.html"
    code, _, err = run(
        "dashboard", str(tmp_path / "m.duckdb"), "-o", str(out), "--run-name", "gate"
    )
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert "1 runs (run=&#x27;gate&#x27;)" in page
    assert _cells(page, "gate-delta")[("mrr drop <= 0.1", "theme=t", "b")] == "0.2500"


# -- in Chromium -----------------------------------------------------------------------------


@pytest.mark.load
def test_the_dashboard_in_chromium(browser: Any, tmp_path: Path) -> None:
    store = _store(lambda data: pd.DataFrame(data), tmp_path)  # type: ignore[arg-type]
    path = tmp_path / "dashboard.html"
    store.dashboard(path)
    requests: list[str] = []
    dialogs: list[str] = []
    page = browser.new_page()
    try:
        page.on("request", lambda r: requests.append(r.url))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        shown = page.eval_on_selector_all(
            "td[data-kind=value]",
            "els => els.map(e => [e.dataset.segment, e.dataset.system, e.textContent])",
        )
        charts = page.eval_on_selector_all(
            "svg.chart", "els => els.map(e => e.querySelectorAll('circle').length)"
        )
        text = page.inner_text("body")
    finally:
        page.close()
    assert requests == [path.as_uri()]
    assert dialogs == []
    latest = as_pandas(store.load(run="nightly")).tail(4)
    assert {(s, y): v for s, y, v in shown} == {
        (r["segment"], r["system"]): f"{r['value']:.4f}" for r in latest.to_dict("records")
    }
    assert charts == [6, 6]  # a chart per theme: three runs, two systems
    assert HOSTILE in text  # shown as text
    assert "1 of 2 rules fail" in text


# -- the verdict, the axes, the tooltips: a store built to trip each --------------------------

# b ranks every relevant item first (MRR 1, every query 1: its interval [1, 1]), then second
# (MRR 1/2, interval [1/2, 1/2]): a drop of 1/2 beyond the intervals; a is the same each time
B_FIRST = [0.9, 0.1] * 4
B_SECOND = [0.1, 0.9] * 4
T0 = datetime(2026, 1, 5, 6, 0, tzinfo=UTC)
WEEKS = pd.to_datetime(["2024-01-01"] * 4 + ["2024-01-08"] * 4)  # q1, q2 | q3, q4


def _mixed(make_frame: FrameMaker, folder: Path) -> History:
    """One run name, "nightly", of every shape, backfilled within one minute: two overall
    runs, a third whose b dropped, a run by theme, then two windowed runs (every="1w")."""
    store = History(folder / "m.duckdb")
    good = make_frame({**DATA, "b": B_FIRST, "time": WEEKS}).rank_eval(
        score=["a", "b"], time="time"
    )
    bad = make_frame({**DATA, "b": B_SECOND, "time": WEEKS}).rank_eval(
        score=["a", "b"], time="time"
    )
    options = {"confidence_level": 0.9, "n_resamples": 50}
    results = [
        good.evaluate(["mrr"], **options),
        good.evaluate(["mrr"], **options),
        bad.evaluate(["mrr"], **options),
        good.evaluate(["mrr"], by="theme", **options),
        good.evaluate(["mrr"], every="1w"),
        good.evaluate(["mrr"], every="1w"),
    ]
    # recorded out of order: the store and the page go by recorded_at
    for i in [1, 0, 2, 3, 4, 5]:
        store.record(results[i], run="nightly", recorded_at=T0 + timedelta(seconds=10 * i))
    return store


def _verdict(page: str) -> str:
    found = re.search(r'<p class="verdict" id="verdict">(.*?)</p>', page, re.S)
    assert found is not None
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def _charts(page: str) -> dict[str, tuple[str, list[str], list[str]]]:
    """Each chart by its title: its x axis title, its x labels, its points' tooltips."""
    charts = {}
    for svg in re.findall(r'<svg class="chart".*?</svg>', page, re.S):
        title = html.unescape(re.search(r"<title>(.*?)</title>", svg).group(1))
        texts = [html.unescape(t) for t in re.findall(r'class="xt">([^<]*)</text>', svg)]
        tips = [html.unescape(t) for t in re.findall(r"<circle[^>]*><title>([^<]*)</title>", svg)]
        charts[title] = (texts[-1], texts[:-1], tips)
    return charts


def test_the_verdict_of_a_store_of_mixed_shapes(make_frame: FrameMaker, tmp_path: Path) -> None:
    page = _mixed(make_frame, tmp_path).dashboard()
    verdict = _verdict(page)
    assert "shares no metric" not in verdict
    # the drop, named with the pair of runs compared: b 1 → 1/2, -0.5 (-50%)
    assert (
        "“nightly” of 2026-01-05 06:00:20 against “nightly” of 2026-01-05 06:00:10: "
        "1 of 2 values moved beyond their intervals: mrr (b) 1.0000 → 0.5000 "
        "(-0.5000, -50.0%)"
    ) in verdict
    # the windowed runs: each window against the same window of the run before (no interval)
    assert (
        "“nightly” of 2026-01-05 06:00:50 against “nightly” of 2026-01-05 06:00:40: "
        "4 values without a recorded interval, none of them changed"
    ) in verdict
    # the by-theme run's values have nothing before them; not the latest run's
    assert "is the first to hold" not in verdict
    _runs_and_windows_on_their_own_axes(page)


def test_a_latest_run_of_a_new_shape(make_frame: FrameMaker, tmp_path: Path) -> None:
    store = History(tmp_path / "m.duckdb")
    ev = make_frame({**DATA, "b": B_FIRST}).rank_eval(score=["a", "b"])
    store.record(ev.evaluate(["mrr"]), run="nightly", recorded_at=T0)
    store.record(ev.evaluate(["mrr"]), run="nightly", recorded_at=T0 + timedelta(hours=1))
    store.record(
        ev.evaluate(["mrr"], by="theme"), run="nightly", recorded_at=T0 + timedelta(hours=2)
    )
    verdict = _verdict(store.dashboard())
    assert (
        "“nightly” of 2026-01-05 07:00 against “nightly” of 2026-01-05 06:00: "
        "2 values without a recorded interval, none of them changed."
    ) in verdict
    assert (
        "The latest run, “nightly” of 2026-01-05 08:00, is the first to hold 4 of its 4 "
        "values: nothing to compare them with yet."
    ) in verdict


def _runs_and_windows_on_their_own_axes(page: str) -> None:
    charts = _charts(page)
    assert set(charts) == {"mrr", "mrr · theme=t", "mrr · theme=u", "mrr · by window"}
    x_title, _, tips = charts["mrr"]
    assert x_title == "run time (UTC)"
    # every point readable, in time order although recorded out of order: a 3/4 each run,
    # b 1, 1, then 1/2; backfilled within a minute, labelled to the second
    a_tips = [t for t in tips if t.startswith("a, ")]
    assert [t.split(": ")[0] for t in a_tips] == [
        f"a, 2026-01-05 06:00:{s:02d}" for s in (0, 10, 20)
    ]
    b_tips = [t for t in tips if t.startswith("b, ")]
    assert [t.split(": ")[1].split(" ")[0] for t in b_tips] == ["1.0000", "1.0000", "0.5000"]
    x_title, labels, tips = charts["mrr · by window"]
    assert x_title == "window start (UTC)"
    assert labels == ["2024-01-01", "2024-01-08"]
    # week 1 (q1, q2): a (1 + 1/2)/2, b 1; week 2 (q3, q4): the same
    assert sorted(t.split(" (")[0] for t in tips) == [
        "a, 2024-01-01: 0.7500 [-, -]",
        "a, 2024-01-08: 0.7500 [-, -]",
        "b, 2024-01-01: 1.0000 [-, -]",
        "b, 2024-01-08: 1.0000 [-, -]",
    ]
    # each chart's values, folded under it: the by-window chart's, of both windowed runs
    folded = re.findall(r"<details><summary>The (\d+) values</summary>", page)
    assert sorted(map(int, folded)) == [2, 2, 6, 8]


def test_run_labels_in_minutes_when_they_tell_runs_apart(
    make_frame: FrameMaker, tmp_path: Path
) -> None:
    store = History(tmp_path / "m.duckdb")
    ev = make_frame(DATA).rank_eval(score=["a", "b"])
    for minutes in (0, 1):
        store.record(
            ev.evaluate(["mrr"]), run="nightly", recorded_at=T0 + timedelta(minutes=minutes)
        )
    runs = re.findall(r"<tr><td>nightly</td><td>([^<]*)</td>", store.dashboard())
    assert runs == ["2026-01-05 06:01", "2026-01-05 06:00"]  # newest first
    store.record(
        ev.evaluate(["mrr"]), run="nightly", recorded_at=T0 + timedelta(minutes=1, milliseconds=5)
    )
    runs = re.findall(r"<tr><td>nightly</td><td>([^<]*)</td>", store.dashboard())
    assert runs == ["2026-01-05 06:01:00.005", "2026-01-05 06:01:00.000", "2026-01-05 06:00:00.000"]


def _legend(page: str) -> dict[str, set[str]]:
    """Each system's colours in the page's chart legends."""
    found: dict[str, set[str]] = {}
    for fill, name in re.findall(
        r'<rect [^>]*fill="(#[0-9a-f]{6})"/><text [^>]*class="lg">'
        r"([^<]*)</text>",
        page,
    ):
        found.setdefault(html.unescape(name), set()).add(fill)
    return found


def test_one_colour_per_system_in_the_report_and_the_dashboard(
    make_frame: FrameMaker, tmp_path: Path
) -> None:
    ev = make_frame({**DATA, "time": WEEKS}).rank_eval(score=["a", "b"], time="time")
    store = History(tmp_path / "m.duckdb")
    store.record(ev.evaluate(["mrr"], every="1w"), run="nightly")
    store.record(ev.check(["mrr drop <= 0.1"], baseline="b", min_queries=1), run="gate")
    dashboard = _legend(store.dashboard())
    report = _legend(ev.report(["mrr"], baseline="b", every="1w").html())
    assert set(dashboard) == set(report) == {"a", "b"}
    assert all(len(c) == 1 for c in (*dashboard.values(), *report.values()))
    assert dashboard == report
    assert dashboard["a"] != dashboard["b"]
    # the baseline always takes the same colour, whichever system it is
    flipped = _legend(ev.report(["mrr"], baseline="a", every="1w").html())
    assert flipped["a"] == report["b"]
    assert flipped["b"] == report["a"]


@pytest.mark.load
def test_the_verdict_and_the_tooltips_in_chromium(browser: Any, tmp_path: Path) -> None:
    store = _mixed(lambda data: pd.DataFrame(data), tmp_path)  # type: ignore[arg-type]
    path = tmp_path / "dashboard.html"
    store.dashboard(path)
    page = browser.new_page()
    try:
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        verdict = page.inner_text("#verdict")
        tips = page.eval_on_selector_all(
            "svg.chart circle", "els => els.map(e => e.querySelector('title').textContent)"
        )
        folded = page.eval_on_selector_all("details", "els => els.map(e => e.open)")
        page.click("details >> nth=0")  # unfold the first chart's values
        rows = page.eval_on_selector_all(
            "details >> nth=0 >> table.points tbody tr", "els => els.map(e => e.innerText)"
        )
    finally:
        page.close()
    assert "1 of 2 values moved beyond their intervals: mrr (b) 1.0000 → 0.5000" in verdict
    assert "b, 2026-01-05 06:00:20: 0.5000 [0.5000, 0.5000]" in "\n".join(tips)
    assert len(tips) == 6 + 2 + 2 + 4  # every point drawn has its tooltip
    assert folded == [False] * 4
    assert len(rows) == 6  # the overall chart: three runs, two systems
    assert any("0.5000" in r and "06:00:20" in r for r in rows)


def test_the_verdict_reads_runs_older_than_the_page_shows(
    make_frame: FrameMaker, tmp_path: Path
) -> None:
    """A by-theme run, four overall runs, a by-theme run: with last=2 the page shows the
    last two runs, and the latest one's values are still compared with the first run."""
    store = History(tmp_path / "m.duckdb")
    ev = make_frame({**DATA, "b": B_FIRST}).rank_eval(score=["a", "b"])
    store.record(ev.evaluate(["mrr"], by="theme"), run="nightly", recorded_at=T0)
    for day in range(1, 5):
        store.record(ev.evaluate(["mrr"]), run="nightly", recorded_at=T0 + timedelta(days=day))
    store.record(
        ev.evaluate(["mrr"], by="theme"), run="nightly", recorded_at=T0 + timedelta(days=9)
    )
    verdict = _verdict(store.dashboard(last=2))
    assert (
        "“nightly” of 2026-01-14 06:00 against “nightly” of 2026-01-05 06:00: 4 values "
        "without a recorded interval, none of them changed."
    ) in verdict
    assert "is the first to hold" not in verdict


def test_p_values_that_underflow_are_never_zero(tmp_path: Path) -> None:
    """A gate table (of no known origin: read from its columns) whose p-value is 3e-292:
    the dashboard prints it as the report does (``p_text``), never 0.0000."""
    store = History(tmp_path / "m.duckdb")
    store.record(
        pd.DataFrame(
            {
                "rule": ["mrr drop <= 1%"] * 2,
                "system": ["b", "c"],
                "metric": ["mrr"] * 2,
                "value": [0.5, 0.4],
                "delta": [-0.25, -0.35],
                "bound": [-0.01, -0.01],
                "p_adjusted": [3e-292, 0.5],
                "status": ["fail", "fail"],
                "n_queries": [4, 4],
            }
        ),
        run="gate",
    )
    page = store.dashboard()
    cells = [
        row
        for row in re.findall(r"<tr><td>mrr drop &lt;= 1%</td>(.*?)</tr>", page)
        if "gate-delta" in row
    ]  # the latest gates' table (not their history)
    assert len(cells) == 2
    p_cells = [re.findall(r'<td class="num">([^<]*)</td>', row)[-2] for row in cells]
    assert p_cells == ["3.0e-292", "0.5000"]
