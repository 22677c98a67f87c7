"""Benchmark of ``History.record``: a 10,000-row result appended to a store.

Usage: ``.venv/bin/python benchmarks/history.py [--queries N]`` (part of ``make bench``).
Writes its section of ``benchmarks/RESULTS.md``.

The result: ``per_query(["mrr@10", "ndcg@10", "recall@100"])`` of N queries (default 10,000)
x 20 items (string ids, random scores, ~10% relevant rows): N rows, 3 values each. Timed:
``record`` of that result into a DuckDB file and into a SQLite database (through
SQLAlchemy), each store fresh; the time includes reading the result's columns, the input's
fingerprint (a hash of its 20 N rows) and the one transaction. Each time is the median of
``--repeat`` records after a warm-up. Target: under 1 s.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import markers, write_section

import rankframe

START, END = markers("history")
METRICS = ["mrr@10", "ndcg@10", "recall@100"]
ITEMS_PER_QUERY = 20
TARGET = 1.0


def workload(n_queries: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = n_queries * ITEMS_PER_QUERY
    query = np.repeat(np.arange(n_queries), ITEMS_PER_QUERY)
    return pd.DataFrame(
        {
            "query": pd.array(np.char.add("q", query.astype(str)), dtype="str"),
            "item": pd.array(
                np.char.add("d", np.tile(np.arange(ITEMS_PER_QUERY), n_queries).astype(str)),
                dtype="str",
            ),
            "score": rng.random(n),
            "relevant": np.where(rng.random(n) < 0.1, 1, 0),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
    began = time.perf_counter()
    frame = workload(args.queries)
    result = frame.rank_eval.per_query(METRICS)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, where in (
            ("DuckDB file", f"{folder}/metrics.duckdb"),
            ("SQLite (SQLAlchemy)", f"sqlite:///{folder}/metrics.db"),
        ):
            store = rankframe.History(where)
            store.record(result)  # warm-up
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                store.record(result, run="bench")
                times.append(time.perf_counter() - start)
            n_values = int(store.runs()["n_values"].iloc[-1])
            rows.append((name, statistics.median(times), n_values))
            print(name, times, flush=True)
    lines = [
        START,
        "## History store: `record` of a 10k-row result",
        "",
        f"Written by `benchmarks/history.py --queries {args.queries}` (`make bench`) on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node() and 'shared machine'}, "
        f"total time of the run {time.perf_counter() - began:.0f} s. `per_query({METRICS})` of "
        f"{args.queries:,} queries x {ITEMS_PER_QUERY} items ({len(frame):,} input rows, string "
        f"ids): a {len(result):,}-row result. `History.record(result)` into a fresh store, "
        f"median of {args.repeat} after a warm-up; it includes the input's fingerprint. "
        f"Target: under {TARGET:.0f} s.",
        "",
        "| store | values rows | record, s |",
        "|---|---:|---:|",
        *(f"| {name} | {n:,} | {seconds:.3f} |" for name, seconds, n in rows),
        END,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("history", section)


if __name__ == "__main__":
    main()
