"""The screenshots of docs/report.md: a report of the embedded sample data with a weekly
trend and gates, opened from disk in headless Chromium (the browser of the report's tests):
its top as docs/images/report.png, its trend and gates as docs/images/report-trend.png; and
the dashboard of a store of eight weekly runs of the same data (an evaluation and a check
each) as docs/images/dashboard.png.

Run by ``make docs``. Chromium: ``RANKFRAME_CHROMIUM``, else ``chromium`` or
``chromium-browser`` on the PATH (``apt-get install chromium``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pandas as pd

from rankframe.datasets import recommendations

OUT = Path(__file__).resolve().parent / "images" / "report.png"
OUT_TREND = OUT.with_name("report-trend.png")
OUT_DASHBOARD = OUT.with_name("dashboard.png")
TIME = "served_at"
#: the gates of the screenshot's report
RULES = ["ndcg@10 >= 0.2", "mrr@10 >= 0.5", "ndcg@10 drop <= 1%"]


def with_times(frame: pd.DataFrame) -> pd.DataFrame:
    """The sample data with a time column: its own ``served_at`` when it has one, else one
    made up from the user id, the same on every run (user n is served on day
    ``(37 n) mod 56`` from Monday 2026-01-05 at hour ``n mod 24``: eight weekly windows)."""
    if TIME in frame.columns:
        return frame
    number = frame["user_id"].astype(str).str.extract(r"(\d+)", expand=False).astype(int)
    start = pd.Timestamp("2026-01-05")
    offset = pd.to_timedelta((number * 37) % 56, unit="D") + pd.to_timedelta(number % 24,
                                                                              unit="h")
    return frame.assign(**{TIME: start + offset})


def chromium() -> str:
    """The path of Chromium: RANKFRAME_CHROMIUM, else chromium or chromium-browser."""
    given = os.environ.get("RANKFRAME_CHROMIUM")
    if given:
        return given
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("Chromium not found: apt-get install chromium, or set RANKFRAME_CHROMIUM")


def main() -> None:
    from playwright.sync_api import sync_playwright

    frame = with_times(recommendations(seed=0))
    ev = frame.rank_eval(query="user_id", item="item_id", score=["model_a", "model_b"],
                         time=TIME)
    report = ev.report(["ndcg@10", "mrr@10", "recall@20"], by="segment", every="1w",
                       rules=RULES, worst=3, top_k=5,
                       title="rankframe report: the sample data")
    with tempfile.TemporaryDirectory() as tmp:
        path = report.save(Path(tmp) / "report.html")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium())
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.goto(path.as_uri())
            page.screenshot(path=str(OUT), full_page=False)
            # the trend and the gates, from the top of the trend section
            top = page.eval_on_selector("#trend", "e => e.getBoundingClientRect().top")
            bottom = page.eval_on_selector("#gates", "e => e.getBoundingClientRect().bottom")
            page.set_viewport_size({"width": 1100, "height": int(bottom) + 40})
            page.screenshot(path=str(OUT_TREND), clip={
                "x": 0, "y": float(top) - 10, "width": 1100,
                "height": float(bottom - top) + 20})
            dashboard = _dashboard(ev, Path(tmp))
            page.set_viewport_size({"width": 1100, "height": 1400})
            page.goto(dashboard.as_uri())
            page.screenshot(path=str(OUT_DASHBOARD), full_page=False)
            browser.close()
    print(f"wrote {OUT}, {OUT_TREND} and {OUT_DASHBOARD}")


def _dashboard(ev: object, tmp: Path) -> Path:
    """A store of the sample data's weeks, one nightly evaluation and one gate run each, and
    its dashboard page."""
    from rankframe import History

    weekly = ev.evaluate(["ndcg@10", "mrr@10"], by="segment", every="1w",  # type: ignore[attr-defined]
                         confidence_level=0.95)
    store = History(tmp / "metrics.duckdb")
    for window, rows in weekly.groupby("window", sort=True):
        # each week recorded as the Monday 06:00 UTC after it (a backfill)
        start = pd.Timestamp(window)
        start = start.tz_convert("UTC") if start.tzinfo else start.tz_localize("UTC")
        at = start + pd.Timedelta(days=7, hours=6)
        store.record(rows.drop(columns="window"), run="nightly", tags={"branch": "main"},
                     run_id=f"nightly-{window:%Y-%m-%d}", recorded_at=at)
    store.record(ev.check(RULES, by="segment"), run="gate",  # type: ignore[attr-defined]
                 recorded_at=at + pd.Timedelta(hours=1))
    path = tmp / "dashboard.html"
    store.dashboard(path, title="rankframe dashboard: the sample data")
    return path


if __name__ == "__main__":
    main()
