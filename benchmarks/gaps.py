"""Benchmark of ``gaps()`` against ``evaluate(by=...)`` on the same frame and groups.

Usage: ``.venv/bin/python benchmarks/gaps.py [--size S] [--repeat 3] [--no-write]``, or
``benchmarks/gaps.py --permutation [--repeat 3] [--no-write]``. Writes its section of
``benchmarks/RESULTS.md`` (``gaps``, or ``gaps-permutation``).

The frame: the workload of ``make bench`` at ``--size`` (S: 10k queries x 50-150 items =
1M rows, string ids) plus a ``band`` column, one of four user groups per query. Timed, on
pandas: ``evaluate(["ndcg@10", "mrr@10"], by="band")`` (the peer: the same per-query pass
and the group means) and ``gaps`` of the same metrics and groups with each test
(``"rank"``, ``"anova"``, ``"permutation"`` with its default 10,000 shuffles), each with
the default bootstrap interval of the gap (1,000 resamples); the median of ``--repeat``
interleaved runs after a warm-up. What the ratios show: the tests' cost on top of the one
per-query pass.

``--permutation``: the call of issue 48, ``gaps()`` with its default permutation test
(10,000 shuffles) and bootstrap interval on 1M rows: 20,000 queries x 50 items (``data.py``'s
workload), 5 user groups, against ``evaluate(by=...)`` of the same metrics; wall and CPU
seconds (``time.process_time``: every thread's, less moved by other processes on a shared
machine), the median of ``--repeat`` interleaved runs after a warm-up. Run with another
checkout's ``src`` first on ``PYTHONPATH`` (``--no-write``), it times that checkout: the
numbers before and after a change, in alternating processes.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beyond import timed
from sections import markers, write_section

import rankframe
from data import SIZES, make
from data import workload as long_frame

START, END = markers("gaps")
METRICS = ["ndcg@10", "mrr@10"]
GROUPS = 4
PERMUTATION = (20_000, 50, 5)  # --permutation: queries, items per query, user groups


def with_bands(frame: pd.DataFrame, groups: int, seed: int = 0) -> pd.DataFrame:
    """``frame`` with a ``band`` column: one of ``groups`` user groups per query."""
    codes, uniques = pd.factorize(frame["query"])
    band = np.random.default_rng(seed + 1).integers(0, groups, size=len(uniques))
    return frame.assign(band=np.array([f"g{g}" for g in range(groups)])[band][codes])


def workload(size: str, seed: int = 0) -> pd.DataFrame:
    """``make bench``'s frame of ``size`` with a ``band`` column (see the module)."""
    return with_bands(make(size, seed=seed), GROUPS, seed)


def timed_cpu(calls: dict[str, Callable[[], Any]], repeat: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds of each call, runs interleaved after one warm-up each."""
    for call in calls.values():
        call()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            wall, cpu = time.perf_counter(), time.process_time()
            call()
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    return {
        name: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
        for name, t in times.items()
    }


def permutation(args: argparse.Namespace) -> None:
    """``--permutation``: see the module."""
    began = time.perf_counter()
    n_queries, items, groups = PERMUTATION
    frame = with_bands(long_frame(n_queries, items, items), groups)
    ev = frame.rank_eval
    out: dict[str, Any] = {}
    medians = timed_cpu(
        {
            "evaluate": lambda: ev.evaluate(METRICS, by="band"),
            "gaps": lambda: out.update(gaps=ev.gaps(METRICS, "band")),
        },
        args.repeat,
    )
    table = out["gaps"][["metric", "gap", "p_value"]].to_dict("records")
    print(rankframe.__file__, table, flush=True)
    print(medians, flush=True)
    start, end = markers("gaps-permutation")
    lines = [
        start,
        f"## `gaps()` with its default permutation test: 1M rows, {groups} user groups",
        "",
        f"Written by `benchmarks/gaps.py --permutation --repeat {args.repeat}` on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; shared machine (2 cores shared, load "
        f"average {os.getloadavg()[0]:.0f} at the end), total time of the run "
        f"{time.perf_counter() - began:.0f} s. {len(frame):,} rows, {n_queries:,} queries of "
        f"{items} items; pandas; median of {args.repeat} interleaved runs after a warm-up; CPU "
        "is every thread's (`time.process_time`). `gaps()`: 10,000 shuffles and the bootstrap "
        "interval of the gap (1,000 resamples).",
        "",
        "| call | wall, s | CPU, s | CPU ratio to evaluate |",
        "|---|---:|---:|---:|",
        *(
            f"| `{call}` | {medians[name][0]:.2f} | {medians[name][1]:.2f} | "
            f"{medians[name][1] / medians['evaluate'][1]:.2f}x |"
            for name, call in (
                ("evaluate", f'evaluate({METRICS}, by="band")'),
                ("gaps", f'gaps({METRICS}, "band")'),
            )
        ),
        end,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("gaps-permutation", section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="S", choices=sorted(SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    parser.add_argument(
        "--permutation", action="store_true", help="the 1M-row permutation test (see the module)"
    )
    args = parser.parse_args()
    if args.permutation:
        permutation(args)
        return
    began = time.perf_counter()
    frame = workload(args.size)
    ev = frame.rank_eval
    medians = timed(
        {
            "evaluate": lambda: ev.evaluate(METRICS, by="band"),
            "rank": lambda: ev.gaps(METRICS, "band", test="rank"),
            "anova": lambda: ev.gaps(METRICS, "band", test="anova"),
            "permutation": lambda: ev.gaps(METRICS, "band"),
        },
        args.repeat,
    )
    print(medians, flush=True)
    peer = medians["evaluate"]
    lines = [
        START,
        f"## `gaps()` vs `evaluate(by=...)`: {len(METRICS)} metrics, {GROUPS} user groups",
        "",
        f"Written by `benchmarks/gaps.py --size {args.size} --repeat {args.repeat}` on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node() and 'shared machine'} "
        f"(2 cores shared), total time of the run {time.perf_counter() - began:.0f} s. "
        f"{len(frame):,} rows, {frame['query'].nunique():,} queries; pandas; median of "
        f"{args.repeat} interleaved runs after a warm-up. Every `gaps()` call includes the "
        "bootstrap interval of the gap (1,000 resamples).",
        "",
        "| call | s | ratio to evaluate |",
        "|---|---:|---:|",
        f'| `evaluate({METRICS}, by="band")` | {peer:.3f} | 1.00x |',
        *(
            f'| `gaps(..., test="{name}")` | {medians[name]:.3f} | {medians[name] / peer:.2f}x |'
            for name in ("rank", "anova", "permutation")
        ),
        END,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("gaps", section)


if __name__ == "__main__":
    rankframe.set_option  # noqa: B018  (registers the accessors)
    main()
