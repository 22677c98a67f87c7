"""Six metrics on 10M rows, this checkout against another one, in alternating processes.

    python benchmarks/before_after.py --before ../before/src [--size L] [--rounds 5]
        [--call six-metrics|ties-average|all-trec|compare|every-1w]

``--before`` is the ``src`` folder of another checkout of rankframe (a ``git worktree`` of the
commit to compare with). Each round runs one process per (tree, frame kind), the trees in
turns, each process timing ``evaluate`` of the six metrics of ``make bench`` three times after
a warm-up and printing its medians of wall and CPU seconds (``time.process_time``: every
thread's, less moved by other processes on a shared machine); the table gives each tree's
median over the rounds and the ratios after / before. The frame (size L of
``benchmarks/data.py``: 100k queries, 10M rows) is written once to a parquet file and read by
every process before its timing starts.

``--call`` times another call on the same frame: ``ties-average`` (the six metrics with
``ties="average"``), ``all-trec`` (``evaluate("all_trec")``), ``compare`` (``compare`` of the
six metrics, the score against a second system: the score plus seeded noise) and
``every-1w`` (the six metrics with ``every="1w"`` over a time column: each query at a seeded
moment of 52 weeks). The extra columns are added in each process, outside the timing, from
the query ids and a seed: the parquet file and ``data.py``'s frame stay those of the six
metrics.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
T = TypeVar("T")
METRICS = ["mrr@10", "ndcg@10", "map@100", "acc@5", "precision@10", "recall@100"]

CALLS = ("six-metrics", "ties-average", "all-trec", "compare", "every-1w")

CHILD = """
import statistics, sys, time
import numpy as np, pandas as pd, polars as pl
import rankframe
path, kind, metrics, call = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]
frame = pd.read_parquet(path) if kind == "pandas" else pl.read_parquet(path)
extra = {}
if call == "compare":  # a second system: the score plus seeded noise
    score = frame["score"].to_numpy()
    extra["other"] = score + np.random.default_rng(2).normal(0, 0.1, len(score))
if call == "every-1w":  # each query at a seeded moment of 52 weeks, its rows within an hour
    codes, uniques = pd.factorize(np.asarray(frame["query"].to_numpy(), dtype=object))
    rng = np.random.default_rng(1)
    moment = rng.integers(0, 52 * 7 * 86_400, size=len(uniques)) * 1_000_000
    jitter = rng.integers(0, 3_600, size=len(codes)) * 1_000_000
    start = np.datetime64("2024-01-01T00:00:00", "us").astype(np.int64)
    extra["served_at"] = (start + moment[codes] + jitter).astype("datetime64[us]")
if extra:
    frame = frame.assign(**extra) if kind == "pandas" else frame.with_columns(
        pl.Series(name, values) for name, values in extra.items())
calls = {
    "six-metrics": lambda: frame.rank_eval.evaluate(metrics),
    "ties-average": lambda: frame.rank_eval.evaluate(metrics, ties="average"),
    "all-trec": lambda: frame.rank_eval.evaluate("all_trec"),
    "compare": lambda: frame.rank_eval(score=["score", "other"]).compare(metrics),
    "every-1w": lambda: frame.rank_eval(time="served_at").evaluate(metrics, every="1w"),
}
run = calls[call]
run()  # warm-up
wall, cpu = [], []
for _ in range(3):
    start, began = time.perf_counter(), time.process_time()
    run()
    wall.append(time.perf_counter() - start)
    cpu.append(time.process_time() - began)
print(rankframe.__file__, statistics.median(wall), statistics.median(cpu))
"""


def _run(src: Path, path: Path, kind: str, call: str = "six-metrics") -> tuple[float, float]:
    """The median wall and CPU (``time.process_time``, every thread's) seconds of ``call``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, "-c", CHILD, str(path), kind, ",".join(METRICS), call]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    where, wall, cpu = done.stdout.split()
    assert Path(where).resolve().is_relative_to(src.resolve()), (where, src)
    return float(wall), float(cpu)


def alternate(
    before: Path, size: str, rounds: int, run: Callable[[Path, Path, str], T]
) -> dict[tuple[str, str], list[T]]:
    """``run(src, parquet, kind)`` of each tree and frame kind, ``rounds`` times, the trees in
    turns; the frame of ``size`` is written once to a parquet file that every process reads."""
    sys.path.insert(0, str(HERE))
    from data import SIZES, workload

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "frame.parquet"
        workload(*SIZES[size]).to_parquet(path)
        times: dict[tuple[str, str], list[T]] = {}
        for _ in range(rounds):
            for kind in ("pandas", "polars"):
                for name, src in (("before", before), ("after", SRC)):
                    times.setdefault((name, kind), []).append(run(src, path, kind))
    return times


def arguments(doc: str) -> argparse.Namespace:
    """``--before``, ``--size`` and ``--rounds`` (this script's and ``phases.py``'s)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="src/ of the other tree")
    parser.add_argument("--size", default="L")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--call",
        choices=CALLS,
        default="six-metrics",
        help="the call to time (before_after.py only; default: six metrics)",
    )
    return parser.parse_args()


def main() -> None:
    args = arguments(__doc__)
    times = alternate(
        args.before,
        args.size,
        args.rounds,
        lambda src, path, kind: _run(src, path, kind, args.call),
    )
    print(
        "| frame | before s | after s | after / before | CPU before s | CPU after s | CPU ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in ("pandas", "polars"):
        cells = []
        for clock in (0, 1):
            before = statistics.median(t[clock] for t in times["before", kind])
            after = statistics.median(t[clock] for t in times["after", kind])
            cells.append(f"{before:.3f} | {after:.3f} | {after / before:.2f}")
        print(f"| {kind} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
