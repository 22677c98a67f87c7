"""Benchmark of ``gaps()`` against ``evaluate(by=...)`` on the same frame and groups.

Usage: ``.venv/bin/python benchmarks/gaps.py [--size S] [--repeat 3] [--no-write]``.
Writes its section of ``benchmarks/RESULTS.md``.

The frame: the workload of ``make bench`` at ``--size`` (S: 10k queries x 50-150 items =
1M rows, string ids) plus a ``band`` column, one of four user groups per query. Timed, on
pandas: ``evaluate(["ndcg@10", "mrr@10"], by="band")`` (the peer: the same per-query pass
and the group means) and ``gaps`` of the same metrics and groups with each test
(``"rank"``, ``"anova"``, ``"permutation"`` with its default 10,000 shuffles), each with
the default bootstrap interval of the gap (1,000 resamples); the median of ``--repeat``
interleaved runs after a warm-up. What the ratios show: the tests' cost on top of the one
per-query pass.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beyond import timed
from sections import markers, write_section

import rankframe
from data import SIZES, make

START, END = markers("gaps")
METRICS = ["ndcg@10", "mrr@10"]
GROUPS = 4


def workload(size: str, seed: int = 0) -> pd.DataFrame:
    """``make bench``'s frame of ``size`` with a ``band`` column (see the module)."""
    frame = make(size, seed=seed)
    codes, uniques = pd.factorize(frame["query"])
    band = np.random.default_rng(seed + 1).integers(0, GROUPS, size=len(uniques))
    return frame.assign(band=np.array([f"g{g}" for g in range(GROUPS)])[band][codes])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="S", choices=sorted(SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
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
