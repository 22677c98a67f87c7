"""The history store's dashboard (``History.dashboard``, ``rankframe dashboard``): numbers
read from the page equal the store's and the hand-computed ones, no script, no request,
hostile run names and tags shown as text; the page opened in Chromium (on the browser
worker with tests/output/test_report.py: tests/conftest.py WORKER_GROUPS)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import FrameMaker
from helpers import as_pandas
from output.test_report import chromium
from rankframe import History, InvalidOptionError

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
MRR = {("a", "theme=t"): 0.75, ("a", "theme=u"): 0.75, ("b", "theme=t"): 1.0,
       ("b", "theme=u"): 0.5}


def _store(make_frame: FrameMaker, folder: Path) -> History:
    store = History(folder / "m.duckdb")
    ev = make_frame(DATA).rank_eval(score=["a", "b"])
    store.record(ev.evaluate(["mrr"], by="theme", confidence_level=0.9, n_resamples=50),
                 run=HOSTILE, tags={"branch": HOSTILE})
    for _ in range(2):
        store.record(ev.evaluate(["mrr"], by="theme", confidence_level=0.9, n_resamples=50),
                     run="nightly", tags={"branch": "main"})
    store.record(ev.check(["mrr drop <= 0.1"], by="theme", baseline="a", min_queries=1,
                          mode="point"), run="gate")
    return store


def _cells(page: str, kind: str) -> dict[tuple[str, ...], str]:
    """The numbers of a kind of cell, by their data-* keys (unescaped)."""
    found = {}
    for attributes, text in re.findall(r'<td class="num[^"]*"((?: data-[a-z]+="[^"]*")*)'
                                       r'>([^<]*)</td>', page):
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
    assert values == {("mrr", segment, system, ""): f"{v:.4f}"
                      for (system, segment), v in MRR.items()}
    latest = store.load(run="nightly").tail(4)
    for row in latest.to_dict("records"):
        assert values[("mrr", row["segment"], row["system"], "")] == f"{row['value']:.4f}"
    # the drop rule's change, b - a: theme t 1 - 3/4, theme u 1/2 - 3/4
    deltas = _cells(page, "gate-delta")
    assert deltas == {("mrr drop <= 0.1", "theme=t", "b"): "0.2500",
                      ("mrr drop <= 0.1", "theme=u", "b"): "-0.2500"}
    # the verdict leads, in words: the same values as the run before, one gate failing
    verdict = re.search(r'<p class="verdict" id="verdict">(.*?)</p>', page, re.S)
    assert verdict is not None
    assert page.index("verdict") < page.index("<h2")
    assert "none of 4 values moved" in verdict.group(1)
    assert "1 of 2 rules fail" in verdict.group(1)
    assert "mrr drop &lt;= 0.1, theme=u, b" in verdict.group(1)


def test_no_script_no_request_hostile_strings_as_text(make_frame: FrameMaker,
                                                      tmp_path: Path) -> None:
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
    code, _, err = run("dashboard", str(tmp_path / "m.duckdb"), "-o", str(out),
                       "--run-name", "gate")
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert "1 runs (run=&#x27;gate&#x27;)" in page
    assert _cells(page, "gate-delta")[("mrr drop <= 0.1", "theme=t", "b")] == "0.2500"


# -- in Chromium -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium())
        yield launched
        launched.close()


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
            "td[data-kind=value]", "els => els.map(e => [e.dataset.segment, e.dataset.system, "
            "e.textContent])")
        charts = page.eval_on_selector_all(
            "svg.chart", "els => els.map(e => e.querySelectorAll('circle').length)")
        text = page.inner_text("body")
    finally:
        page.close()
    assert requests == [path.as_uri()]
    assert dialogs == []
    latest = as_pandas(store.load(run="nightly")).tail(4)
    assert {(s, y): v for s, y, v in shown} == {
        (r["segment"], r["system"]): f"{r['value']:.4f}" for r in latest.to_dict("records")}
    assert charts == [6, 6]  # a chart per theme: three runs, two systems
    assert HOSTILE in text  # shown as text
    assert "1 of 2 rules fail" in text
