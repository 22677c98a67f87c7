"""What ``compare()``'s ``mde`` column costs: the share of ``compare()``'s time spent solving
the detectable effects (``rankframe.stats.power.t_test_detectable_effect``, one
bisection per distinct sample size of the table), measured inside the same calls.

Usage: ``.venv/bin/python benchmarks/mde.py`` (writes its section of
``benchmarks/RESULTS.md``). Two systems, six metrics, 100k queries of 5-15 items
(``benchmarks/data.py``), ``by=`` a segment of 1 to 5000 values (each segment its own
sample size: the worst case of the solve); each time the median of 3 runs after a warm-up.
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import markers, write_section

import rankframe  # noqa: F401  (registers the accessor)
from data import workload
from rankframe.stats import power

START, END = markers("mde")
METRICS = ["mrr@10", "ndcg@10", "map@100", "acc@5", "precision@10", "recall@100"]
N_QUERIES = 100_000


def main() -> None:
    data = workload(N_QUERIES, 5, 15, seed=1)
    noise = np.random.default_rng(2).normal(0, 0.1, len(data))
    data = data.assign(other=data["score"].to_numpy() + noise)
    codes = data["query"].astype("category").cat.codes.to_numpy()
    solve = power.t_test_detectable_effect
    spent = [0.0]

    def timed_solve(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        out = solve(*args, **kwargs)
        spent[0] += time.perf_counter() - start
        return out

    power.t_test_detectable_effect = timed_solve  # type: ignore[assignment]
    lines = []
    for segments in (1, 100, 1000, 5000):
        ev = data.assign(segment=codes % segments).rank_eval(score=["score", "other"])
        ev.compare(METRICS, by="segment")  # warm-up
        totals, shares = [], []
        for _ in range(3):
            spent[0] = 0.0
            start = time.perf_counter()
            ev.compare(METRICS, by="segment")
            total = time.perf_counter() - start
            totals.append(total)
            shares.append(spent[0] / total)
        total, share = statistics.median(totals), statistics.median(shares)
        lines.append(f"| {segments:,} | {total:.2f} s | {share * 100:.1f}% |")
        print(lines[-1])
    power.t_test_detectable_effect = solve  # type: ignore[assignment]
    section = "\n".join(
        [
            START,
            "## compare()'s `mde` column: its share of compare() (`benchmarks/mde.py`)",
            "",
            f"{date.today().isoformat()}, {platform.machine()}, Python "
            f"{platform.python_version()}, `python benchmarks/mde.py` (a shared 2-core machine: "
            "the shares, measured inside the same calls, are what to read). Two systems, six "
            f"metrics, {N_QUERIES:,} queries, `compare(metrics, by='segment')`; each segment has "
            "its own number of queries, so the bisection solves one effect per segment.",
            "",
            "| segments | compare() | of it, the mde solve |",
            "|---:|---:|---:|",
            *lines,
            END,
        ]
    )
    write_section("mde", section)


if __name__ == "__main__":
    main()
