"""Benchmark of the HTML report (issue 28): `report()` against `compare()` on the same data.

Usage: part of ``make bench`` (``.venv/bin/python benchmarks/html_report.py --queries N``,
default 1M). Two systems (the workload's score and the score plus noise), five metrics,
ten segments, queries of 5-15 items (``benchmarks/data.py``); a time column spreads the
queries over 52 weeks for a report with the weekly trend (``every="1w"``). Targets: the
file under 5 MB, ``report()`` (its numbers and the HTML text) at most 3x ``compare()``. Each
time is the median of 3 runs after a warm-up. Writes its section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import markers, write_section

import rankframe
from data import workload

METRICS = ["mrr@10", "ndcg@10", "map@100", "acc@5", "recall@100"]


def timed(call: Callable[[], Any], repeat: int = 3) -> float:
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--no-write", action="store_true", help="print, do not write")
    args = parser.parse_args()
    data = workload(args.queries, 5, 15, seed=1)
    data["other"] = data["score"].to_numpy() + np.random.default_rng(2).normal(0, 0.1, len(data))
    number = data["query"].str.slice(1).astype(np.int64).to_numpy()
    data["segment"] = np.char.add("s", (number % 10).astype(str))
    # each query's time: an hour of the 52 weeks from Monday 2025-01-06, spread by its number
    hours = (number * 7919) % (52 * 7 * 24)
    data["served_at"] = np.datetime64("2025-01-06T00:00") + hours.astype("timedelta64[h]")
    ev = data.rank_eval(score=["score", "other"], time="served_at")
    compare = timed(lambda: ev.compare(METRICS, by="segment"))
    report = timed(lambda: ev.report(METRICS, by="segment").html())
    size = len(ev.report(METRICS, by="segment").html().encode("utf-8"))
    trend = timed(lambda: ev.report(METRICS, by="segment", every="1w").html())
    trend_size = len(ev.report(METRICS, by="segment", every="1w").html().encode("utf-8"))
    start, end = markers("html-report")
    section = "\n".join(
        [
            start,
            "## The HTML report (`make bench`, benchmarks/html_report.py)",
            "",
            f"{date.today().isoformat()}, {platform.node()}, Python {platform.python_version()}, "
            f"rankframe {rankframe.__version__}. {args.queries:,} queries ({len(data):,} rows), "
            f"2 systems, {len(METRICS)} metrics, 10 segments. Median of 3 after a warm-up.",
            "",
            "| call | seconds | / compare | target |",
            "|---|---:|---:|---|",
            f"| compare(by=segment) | {compare:.3f} | 1.0x | |",
            f"| report(by=segment).html() | {report:.3f} | {report / compare:.1f}x | <= 3x |",
            f"| report(by=segment, every=1w).html(), 52 weekly windows | {trend:.3f} | "
            f"{trend / compare:.1f}x | |",
            "",
            f"File size: {size / 1e6:.2f} MB; with the trend of 52 windows "
            f"{trend_size / 1e6:.2f} MB (target: under 5 MB).",
            end,
        ]
    )
    print(section)
    if not args.no_write:
        write_section("html-report", section)


if __name__ == "__main__":
    main()
