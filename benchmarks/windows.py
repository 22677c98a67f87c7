"""Benchmark of time windows: ``evaluate(metrics, every="1w")`` against ``evaluate(metrics)``.

Usage: ``.venv/bin/python benchmarks/windows.py [--size L]`` (part of ``make bench``).
Writes its section of ``benchmarks/RESULTS.md``.

The frame: the workload of ``make bench`` at ``--size`` (L: 100k queries x 50-150 items =
10M rows, string ids) plus a ``served_at`` column (timezone-aware, UTC): each query gets a
moment in 52 weeks from Monday 2024-01-01, and each of its rows that moment plus up to an
hour, so a query's earliest row decides its week. Timed: ``evaluate`` of the six metrics
of ``make bench`` with and without ``every="1w"``, on pandas and on polars; the median of
``--repeat`` interleaved runs after a warm-up. The target (issue 27): windows at most 1.5x
the time without.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beyond import timed
from harness import METRICS
from sections import markers, write_section

import rankframe
from data import SIZES, make

START, END = markers("windows")
TARGET = 1.5
WEEKS = 52


def workload(size: str, seed: int = 0) -> pd.DataFrame:
    """``make bench``'s frame of ``size`` with a ``served_at`` column (see the module)."""
    frame = make(size, seed=seed)
    rng = np.random.default_rng(seed + 1)
    codes, uniques = pd.factorize(frame["query"])
    second = 1_000_000  # microseconds
    moment = rng.integers(0, WEEKS * 7 * 86_400, size=len(uniques)) * second
    jitter = rng.integers(0, 3_600, size=len(frame)) * second
    start = np.datetime64("2024-01-01T00:00:00", "us").astype(np.int64)
    stamps = (start + moment[codes] + jitter).astype("datetime64[us]")
    return frame.assign(served_at=pd.DatetimeIndex(stamps).tz_localize("UTC"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="L", choices=sorted(SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
    began = time.perf_counter()
    frame = workload(args.size)
    polars_frame = pl.from_pandas(frame)
    weekly = frame.rank_eval(time="served_at").evaluate(METRICS, every="1w")
    check = polars_frame.rank_eval(time="served_at").evaluate(METRICS, every="1w")
    assert len(weekly) == check.height, (len(weekly), check.height)
    assert np.allclose(
        weekly[METRICS].to_numpy(), check.select(METRICS).to_numpy(), atol=1e-12, rtol=0
    )
    rows = []
    for kind, data in (("pandas", frame), ("polars", polars_frame)):
        ev = data.rank_eval(time="served_at")
        medians = timed(
            {
                "whole": lambda ev=ev: ev.evaluate(METRICS),
                "weekly": lambda ev=ev: ev.evaluate(METRICS, every="1w"),
            },
            args.repeat,
        )
        rows.append((kind, medians["whole"], medians["weekly"]))
        print(kind, medians, flush=True)
    lines = [
        START,
        f'## Time windows: `every="1w"` over {WEEKS} weeks vs no windows',
        "",
        f"Written by `benchmarks/windows.py --size {args.size}` (`make bench`) on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node() and 'shared machine'}, "
        f"total time of the run {time.perf_counter() - began:.0f} s. {len(frame):,} rows, "
        f"{frame['query'].nunique():,} queries, a timezone-aware `served_at` column over "
        f"{WEEKS} weeks ({len(weekly)} windows); median of {args.repeat} interleaved runs "
        "after a warm-up.",
        "",
        f'`evaluate({METRICS}, every="1w")` against the same call without `every`. '
        f"Target: at most {TARGET}x.",
        "",
        '| frame | no windows, s | every="1w", s | ratio |',
        "|---|---:|---:|---:|",
        *(f"| {kind} | {a:.3f} | {b:.3f} | {b / a:.2f}x |" for kind, a, b in rows),
        END,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("windows", section)


if __name__ == "__main__":
    rankframe.set_option  # noqa: B018  (registers the accessors)
    main()
