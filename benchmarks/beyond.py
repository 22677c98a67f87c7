"""Benchmark of the beyond-accuracy metrics against the six accuracy metrics, on one frame.

Usage: ``make bench-beyond`` (``.venv/bin/python benchmarks/beyond.py [--queries N]``; part
of ``make bench``). Writes its section of ``benchmarks/RESULTS.md``.

The frame: N queries (default 1,000,000) x 50 items each, drawn from a catalogue of 100,000
items with a skewed popularity (a few items in many lists), string ids (pandas 3 ``str``),
random scores, ~5% relevant rows; 32 numeric features per item, and each item's popularity
(its number of rows in the frame). Timed: ``evaluate`` of the seven beyond-accuracy metrics
at k=10 (coverage, gini, entropy, personalization, arp, novelty, ild; the default catalog,
the frame's items) against ``evaluate`` of the six accuracy metrics of ``make bench``, on
pandas and on polars. Each time is the median of 3 runs after a warm-up, the two workloads
interleaved in one process; the target is a ratio of at most 2.
"""

from __future__ import annotations

import argparse
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
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import markers, write_section

import rankframe

START, END = markers("beyond")
ACCURACY = ["mrr@10", "ndcg@10", "map@100", "acc@5", "precision@10", "recall@100"]
BEYOND = [
    "coverage@10",
    "gini@10",
    "entropy@10",
    "personalization@10",
    "arp@10",
    "novelty@10",
    "ild@10",
]
ITEMS_PER_QUERY = 50
CATALOG = 100_000
FEATURES = 32
TARGET = 2.0


def workload(n_queries: int, seed: int = 0) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    """The frame, the popularity of each item and the item features."""
    rng = np.random.default_rng(seed)
    n = n_queries * ITEMS_PER_QUERY
    query = np.repeat(np.arange(n_queries), ITEMS_PER_QUERY)
    position = np.tile(np.arange(ITEMS_PER_QUERY), n_queries)
    # a query's items: a skewed start in the catalogue, then a stride (distinct in a query)
    start = (CATALOG * rng.random(n_queries) ** 3).astype(np.int64)
    item = (start[query] + position * 1_009) % CATALOG
    order = rng.permutation(n)
    names = np.char.add("d", np.arange(CATALOG).astype(str))
    frame = pd.DataFrame(
        {
            "query": pd.array(
                np.char.add("q", np.arange(n_queries).astype(str))[query[order]], dtype="str"
            ),
            "item": pd.array(names[item[order]], dtype="str"),
            "score": rng.random(n),
            "relevant": np.where(rng.random(n) < 0.05, 1, 0),
        }
    )
    counts = np.bincount(item, minlength=CATALOG)
    popularity = pd.Series(counts + 1, index=names)  # every item once more: none has 0
    features = pd.DataFrame(rng.random((CATALOG, FEATURES)), index=names)
    return frame, popularity, features


def timed(calls: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Median seconds of each call, runs interleaved after one warm-up each."""
    for call in calls.values():
        call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
    began = time.perf_counter()
    frame, popularity, features = workload(args.queries)
    polars_frame = pl.from_pandas(frame)
    inputs = {"popularity": popularity, "item_features": features}
    values = frame.rank_eval.evaluate(BEYOND, **inputs).iloc[0]
    check = polars_frame.rank_eval.evaluate(BEYOND, **inputs).row(0, named=True)
    assert all(abs(values[m] - check[m]) < 1e-9 for m in BEYOND), (values, check)
    rows = []
    for kind, data in (("pandas", frame), ("polars", polars_frame)):
        ev = data.rank_eval
        medians = timed(
            {
                "accuracy": lambda ev=ev: ev.evaluate(ACCURACY),
                "beyond": lambda ev=ev: ev.evaluate(BEYOND, **inputs),
            },
            args.repeat,
        )
        rows.append((kind, medians["accuracy"], medians["beyond"]))
        print(kind, medians, flush=True)
    n_rows = len(frame)
    lines = [
        START,
        "## Beyond accuracy: seven metrics vs the six accuracy metrics",
        "",
        f"Written by `benchmarks/beyond.py --queries {args.queries}` (`make bench-beyond`) on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node() and 'shared machine'}, "
        f"total time of the run {time.perf_counter() - began:.0f} s. {args.queries:,} queries "
        f"x {ITEMS_PER_QUERY} items = {n_rows:,} rows (string ids), {CATALOG:,} items with "
        f"{FEATURES} features each; median of {args.repeat} interleaved runs after a warm-up.",
        "",
        f"`evaluate({BEYOND})` (default catalog: the frame's items; `popularity=`, "
        f"`item_features=`) against `evaluate({ACCURACY})`. Target: at most {TARGET:.0f}x.",
        "",
        "| frame | six accuracy metrics, s | seven beyond-accuracy metrics, s | ratio |",
        "|---|---:|---:|---:|",
        *(f"| {kind} | {a:.3f} | {b:.3f} | {b / a:.2f}x |" for kind, a, b in rows),
        "",
        "Values (pandas and polars agree to 1e-9): "
        + ", ".join(f"{m} {values[m]:.6f}" for m in BEYOND)
        + ".",
        END,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("beyond", section)


if __name__ == "__main__":
    rankframe.set_option  # noqa: B018  (registers the accessors)
    main()
