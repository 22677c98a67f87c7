"""Benchmark of the exposure metrics against the six accuracy metrics, on one frame.

Usage: ``make bench-exposure`` (``.venv/bin/python benchmarks/exposure.py [--queries N]``;
part of ``make bench``). Writes its section of ``benchmarks/RESULTS.md``.

The frame is ``benchmarks/beyond.py``'s (string ids, 50 items per query, a skewed catalogue
of 100,000 items, ~5% relevant rows) with N queries (default 200,000: 10M rows); each item of
the catalogue is in one of three groups (``item_groups=``, a pandas Series). Timed:
``evaluate`` of the exposure metrics at k=10 (exposure, exposure_ratio and exposure_gap, a
column per group; awrf; ndkl, whose default target reads every retrieved row; expected
exposure) against ``evaluate`` of the six accuracy metrics of ``make bench``, on pandas and on
polars; and the five without ``ndkl`` (whose default target reads every row's item).
Each time is the median of the runs after a warm-up, the workloads interleaved in one
process; the target is a ratio of at most 2.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beyond import ACCURACY, CATALOG, ITEMS_PER_QUERY, timed, workload
from sections import markers, write_section

import rankframe

START, END = markers("exposure")
EXPOSURE = [
    "exposure@10",
    "exposure_ratio@10",
    "exposure_gap@10",
    "awrf@10",
    "ndkl@10",
    "expected_exposure@10",
]
TARGET = 2.0
# the five others: ndkl's default target reads every row's item (a code for each of the
# 10M rows), which none of them needs
WITHOUT_NDKL = [m for m in EXPOSURE if not m.startswith("ndkl")]


def item_groups(names: pd.Index) -> pd.Series:
    """Three groups over the catalogue: small (a fifth), mid (two fifths), large."""
    position = np.arange(len(names)) % 5
    return pd.Series(
        np.where(position == 0, "small", np.where(position < 3, "mid", "large")), index=names
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
    began = time.perf_counter()
    load = os.getloadavg()[0]
    frame, popularity, _ = workload(args.queries)
    groups = item_groups(popularity.index)
    polars_frame = pl.from_pandas(frame)
    values = frame.rank_eval.evaluate(EXPOSURE, item_groups=groups).iloc[0]
    check = polars_frame.rank_eval.evaluate(EXPOSURE, item_groups=groups).row(0, named=True)
    assert all(abs(values[m] - check[m]) < 1e-9 for m in values.index), (values, check)
    rows = []
    for kind, data in (("pandas", frame), ("polars", polars_frame)):
        ev = data.rank_eval
        medians = timed(
            {
                "accuracy": lambda ev=ev: ev.evaluate(ACCURACY),
                "exposure": lambda ev=ev: ev.evaluate(EXPOSURE, item_groups=groups),
                "without_ndkl": lambda ev=ev: ev.evaluate(WITHOUT_NDKL, item_groups=groups),
            },
            args.repeat,
        )
        rows.append((kind, medians["accuracy"], medians["exposure"], medians["without_ndkl"]))
        print(kind, medians, flush=True)
    n_rows = len(frame)
    shown = ", ".join(f"{m} {v:.6f}" for m, v in values.items() if m != "n_queries")
    lines = [
        START,
        "## Exposure: the fairness metrics vs the six accuracy metrics",
        "",
        f"Written by `benchmarks/exposure.py --queries {args.queries}` (`make bench-exposure`) "
        f"on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node() and 'shared machine'}, "
        f"total time of the run {time.perf_counter() - began:.0f} s. {args.queries:,} queries "
        f"x {ITEMS_PER_QUERY} items = {n_rows:,} rows (string ids), {CATALOG:,} items in three "
        f"groups; median of {args.repeat} interleaved runs after a warm-up; load average "
        f"{load:.1f} at the start.",
        "",
        f"`evaluate({EXPOSURE}, item_groups=...)` against `evaluate({ACCURACY})`. Target: at "
        f"most {TARGET:.0f}x.",
        "",
        "| frame | six accuracy metrics, s | exposure metrics, s | ratio | without ndkl, s "
        "| ratio |",
        "|---|---:|---:|---:|---:|---:|",
        *(
            f"| {kind} | {a:.3f} | {b:.3f} | {b / a:.2f}x | {c:.3f} | {c / a:.2f}x |"
            for kind, a, b, c in rows
        ),
        "",
        '"Without ndkl": the five other exposure metrics; ndkl\'s default target (each '
        "group's share of the whole ranked list) reads the item of every row, so the call "
        "encodes the 10M rows' items (beside the ranking) and counts their groups.",
        "",
        f"Values (pandas and polars agree to 1e-9): {shown}.",
        END,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("exposure", section)


if __name__ == "__main__":
    rankframe.set_option  # noqa: B018  (registers the accessors)
    main()
