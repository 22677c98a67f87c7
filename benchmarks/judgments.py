"""Benchmark of the judged estimates and ``agreement()`` against the plain ``evaluate``.

Usage: ``.venv/bin/python benchmarks/judgments.py [--size L]`` (part of ``make bench``).
Writes its section of ``benchmarks/RESULTS.md`` (one per size).

The frame: ``make bench``'s workload (``benchmarks/data.py``, size L: 100k queries x 50-150
items = 10M rows, string ids, rows shuffled) with a judge's grades (``llm``: the grade, moved
one step up or down on 10% of the rows, clipped to 0-3) on every row and people's
(``human``: the grade) on the rows of 10% of the queries, null elsewhere. Timed, in one
process, runs interleaved after a warm-up, medians: ``evaluate`` of the six metrics of
``make bench`` on the judge's grades (plain), the same with ``estimate="ppi"`` and
``"ppi++"``, ``agreement()`` (the grade tables) and ``agreement()`` of the six metrics.
Targets (issue 47): the estimate at most 2x the plain ``evaluate``; ``agreement()`` under 2 s.
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
from sections import markers, write_section

import rankframe
from data import SIZES, workload

METRICS = ["mrr@10", "ndcg@10", "map@100", "acc@5", "precision@10", "recall@100"]
PEOPLE_SHARE = 0.10
TARGET_RATIO = 2.0
TARGET_AGREEMENT = 2.0


def judged(frame: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    """``frame`` with a judge's grades (``llm``) and people's on 10% of the queries
    (``human``, null elsewhere); ``relevant`` dropped."""
    rng = np.random.default_rng(seed)
    grade = frame["relevant"].to_numpy()
    step = np.where(rng.random(len(grade)) < 0.10, rng.choice([-1, 1], size=len(grade)), 0)
    codes, _ = pd.factorize(frame["query"])
    people = rng.random(int(codes.max()) + 1) < PEOPLE_SHARE
    human = pd.array(grade, dtype="Int64")
    human[~people[codes]] = pd.NA
    return frame.drop(columns="relevant").assign(llm=np.clip(grade + step, 0, 3), human=human)


def machine() -> str:
    """The processor's model name (Linux), else the platform's."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def timed(calls: dict[str, Callable[[], Any]], repeat: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds (``time.process_time``: every thread of the process) of
    each call, runs interleaved after one warm-up each."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="L", choices=sorted(SIZES))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
    began = time.perf_counter()
    name = "judgments" if args.size == "L" else f"judgments-{args.size.lower()}"
    start, end = markers(name)
    frame = judged(workload(*SIZES[args.size]))
    ev = frame.rank_eval(relevant="llm", gold="human")
    calls: dict[str, Callable[[], Any]] = {
        "evaluate": lambda: ev.evaluate(METRICS),
        'evaluate(estimate="ppi")': lambda: ev.evaluate(METRICS, estimate="ppi"),
        'evaluate(estimate="ppi++")': lambda: ev.evaluate(METRICS, estimate="ppi++"),
        "agreement()": lambda: ev.agreement(),
        "agreement(six metrics)": lambda: ev.agreement(METRICS),
    }
    medians = timed(calls, args.repeat)
    for name, (wall, cpu) in medians.items():
        print(f"{name}: {wall:.3f} s, CPU {cpu:.3f} s", flush=True)
    plain, plain_cpu = medians["evaluate"]
    estimate = ev.evaluate(METRICS, estimate="ppi").iloc[0]
    grades = ev.agreement().grades.iloc[0]
    load = os.getloadavg()[0]
    rows = [
        f"| `{name}` | {wall:.3f} | {wall / plain:.2f}x | {cpu:.3f} | {cpu / plain_cpu:.2f}x |"
        for name, (wall, cpu) in medians.items()
    ]
    n_gold, n_queries = int(estimate["n_gold"]), int(estimate["n_queries"])
    lines = [
        start,
        f"## Judged estimates and agreement() vs the plain evaluate ({len(frame):,} rows)",
        "",
        f"Written by `benchmarks/judgments.py --size {args.size}` (`make bench`) on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {machine()}"
        f", {os.cpu_count()} cores (shared: load average {load:.2f} at the end), total time of "
        f"the run {time.perf_counter() - began:.0f} s. {len(frame):,} rows, {n_queries:,} "
        f"queries, {n_gold:,} of them judged by people; median of {args.repeat} interleaved "
        "runs after a warm-up, in one process; wall time, and CPU time of every thread "
        "(`time.process_time`).",
        "",
        f"Metrics: `{METRICS}` on the judge's grades (`relevant='llm', gold='human'`). "
        f"Targets: the estimate at most {TARGET_RATIO:.0f}x the plain `evaluate`, "
        f"`agreement()` under {TARGET_AGREEMENT:.0f} s.",
        "",
        "| call | median s | ratio to plain evaluate | median CPU s | CPU ratio |",
        "|---|---:|---:|---:|---:|",
        *rows,
        "",
        "Values: ppi "
        + ", ".join(f"{m} {estimate[m]:.6f}" for m in METRICS)
        + f"; kappa {grades['kappa']:.6f} on {int(grades['n_pairs']):,} pairs.",
        end,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section(name, section)


if __name__ == "__main__":
    rankframe.set_option  # noqa: B018  (registers the accessors)
    main()
