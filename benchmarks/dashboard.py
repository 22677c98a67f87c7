"""Benchmark of the history store's dashboard: 10,000 runs x 50 values.

Usage: ``.venv/bin/python benchmarks/dashboard.py [--runs N]`` (part of ``make bench``).
Writes its section of ``benchmarks/RESULTS.md``.

The store: a DuckDB file of N runs (default 10,000) of an evaluation each, 50 values a run
(5 metrics x 5 segments x 2 systems, each with its interval and ``n_queries``: 200 rows of
``rankframe_values`` a run, 2,000,000 in all), written directly into the tables (what
``record`` would write, without its 10,000 transactions). Timed: ``History.dashboard()``,
reading the store and writing the page, once. Targets: under 10 s, under 5 MB.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import markers, write_section

import rankframe

START, END = markers("dashboard")
METRICS = ["mrr@10", "ndcg@10", "recall@100", "precision@10", "map@100"]
SEGMENTS = [f"s{i}" for i in range(5)]
SYSTEMS = ["a", "b"]
TARGET_S, TARGET_MB = 10.0, 5.0


def fill(path: str, n_runs: int, seed: int = 0) -> None:
    rankframe.History(path)  # the tables
    rng = np.random.default_rng(seed)
    start = datetime(2026, 1, 1)
    ids = [f"run-{i:06d}" for i in range(n_runs)]
    runs = pd.DataFrame(
        {
            "run_id": ids,
            "recorded_at": [start + timedelta(hours=i) for i in range(n_runs)],
            "run_name": "nightly",
            "tags": json.dumps({"branch": "main"}),
            "rankframe_version": rankframe.__version__,
            "result": "Means",
            "options": None,
            "input_rows": 1_000_000,
            "input_queries": 20_000,
            "input_hash": "0" * 64,
            "n_values": 200,
            "kind": "evaluation",
        }
    )
    keys = [(m, s, y) for m in METRICS for s in SEGMENTS for y in SYSTEMS]
    n = n_runs * len(keys)
    value = rng.uniform(0.3, 0.8, n)
    half = rng.uniform(0.005, 0.02, n)
    row = np.tile(np.repeat(np.arange(len(SEGMENTS) * len(SYSTEMS)), 1), n_runs * len(METRICS))
    base = pd.DataFrame(
        {
            "run_id": np.repeat(ids, len(keys)),
            "result_row": row,
            "segment": np.tile([f"theme={k[1]}" for k in keys], n_runs),
            "segment_json": np.tile([json.dumps({"theme": k[1]}) for k in keys], n_runs),
            "window_start": pd.NaT,
            "system": np.tile([k[2] for k in keys], n_runs),
            "metric": np.tile([k[0] for k in keys], n_runs),
            "k": np.tile([float(k[0].split("@")[1]) for k in keys], n_runs),
            "statistic": None,
            "status": None,
            "rule": None,
        }
    )
    parts = [
        base.assign(value_name=name, value=v)
        for name, v in (
            ("value", value),
            ("ci_low", value - half),
            ("ci_high", value + half),
            ("n_queries", np.full(n, 4000.0)),
        )
    ]
    values = pd.concat(parts, ignore_index=True)
    segments = pd.DataFrame(
        {
            "run_id": np.repeat(ids, 10),
            "result_row": np.tile(np.arange(10), n_runs),
            "key": "theme",
            "value": np.tile([s for s in SEGMENTS for _ in SYSTEMS], n_runs),
        }
    )
    with duckdb.connect(path) as con:
        for table, frame in (
            ("rankframe_runs", runs),
            ("rankframe_values", values),
            ("rankframe_segments", segments),
        ):
            con.register("new_rows", frame)
            columns = ", ".join(frame.columns)
            con.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM new_rows")
            con.unregister("new_rows")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/metrics.duckdb"
        fill(path, args.runs)
        store = rankframe.History(path)
        began = time.perf_counter()
        page = store.dashboard(f"{folder}/dashboard.html")
        seconds = time.perf_counter() - began
    size = len(page.encode("utf-8")) / 1e6
    lines = [
        START,
        "## History store: the dashboard of 10,000 runs",
        "",
        f"Written by `benchmarks/dashboard.py --runs {args.runs}` (`make bench`) on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, shared machine. A DuckDB store of "
        f"{args.runs:,} evaluation runs x 50 values (5 metrics x 5 segments x 2 systems, each "
        f"with its interval and n_queries: {args.runs * 200:,} rows of rankframe_values). "
        "`History.dashboard(path)`, once: reading the store (the wide view) and writing the "
        f"page, whose charts show the latest 100 runs. Targets: under {TARGET_S:.0f} s and "
        f"{TARGET_MB:.0f} MB.",
        "",
        "| runs | values | dashboard, s | page, MB |",
        "|---:|---:|---:|---:|",
        f"| {args.runs:,} | {args.runs * 50:,} | {seconds:.2f} | {size:.2f} |",
        END,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("dashboard", section)


if __name__ == "__main__":
    main()
