"""The screenshot of docs/report.md: a report of the embedded sample data, opened from disk
in headless Chromium (the browser of the report's tests), saved as docs/images/report.png.

Run by ``make docs``. Chromium: ``RANKFRAME_CHROMIUM``, else ``chromium`` or
``chromium-browser`` on the PATH (``apt-get install chromium``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from rankframe.datasets import recommendations

OUT = Path(__file__).resolve().parent / "images" / "report.png"


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

    frame = recommendations(seed=0)
    ev = frame.rank_eval(query="user_id", item="item_id", score=["model_a", "model_b"])
    report = ev.report(["ndcg@10", "mrr@10", "recall@20"], by="segment", worst=3, top_k=5,
                       title="rankframe report: the sample data")
    with tempfile.TemporaryDirectory() as tmp:
        path = report.save(Path(tmp) / "report.html")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium())
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.goto(path.as_uri())
            page.screenshot(path=str(OUT), full_page=False)
            browser.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
