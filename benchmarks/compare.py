"""Benchmark of comparisons and intervals: `compare()` and `evaluate(confidence_level=...)`
against ranx.

Usage: ``make bench-compare`` (``.venv/bin/python benchmarks/compare.py``). Writes its section
of ``benchmarks/RESULTS.md``.

Two systems on the workload of ``benchmarks/data.py`` with 5-15 items per query: the
benchmark's ``score`` and a second score column (the first plus noise). Six metrics.
rankframe is timed at 10k and 100k queries; ranx's ``compare`` (the only peer with
significance tests) at 10k queries with the same tests and resample count, so the ratio comes
from one run. Each time is the median of 3 runs after a warm-up, in one process, and includes
building the peer's input.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import markers, write_section

import rankframe
from data import workload

START, END = markers("compare")
METRICS = ["mrr@10", "ndcg@10", "map@100", "acc@5", "precision@10", "recall@100"]
RANX = {
    "mrr@10": "mrr@10",
    "ndcg@10": "ndcg@10",
    "map@100": "map@100",
    "acc@5": "hit_rate@5",
    "precision@10": "precision@10",
    "recall@100": "recall@100",
}
RESAMPLES = 10_000


def frame(n_queries: int) -> pd.DataFrame:
    data = workload(n_queries, 5, 15, seed=1)
    noise = np.random.default_rng(2).normal(0, 0.1, len(data))
    return data.assign(other=data["score"].to_numpy() + noise)


def timed(call: Callable[[], Any], repeat: int = 3) -> float:
    call()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rankframe_calls(data: pd.DataFrame) -> dict[str, Callable[[], Any]]:
    ev = data.rank_eval(score=["score", "other"])
    return {
        "evaluate (no interval, no test)": lambda: ev.evaluate(METRICS),
        "evaluate(confidence_level=0.95), 1000 bootstrap resamples": lambda: ev.evaluate(
            METRICS, confidence_level=0.95
        ),
        "compare, paired t-test": lambda: ev.compare(METRICS, test="t-test"),
        "compare, Wilcoxon": lambda: ev.compare(METRICS, test="wilcoxon", n_resamples=1000),
        f"compare, permutation ({RESAMPLES:,} resamples)": lambda: ev.compare(
            METRICS, test="permutation", n_permutations=RESAMPLES
        ),
    }


def ranx_calls(data: pd.DataFrame) -> dict[str, Callable[[], Any]]:
    import ranx

    def compare(test: str) -> Any:
        objects = data.astype({"query": object, "item": object})
        qrels = ranx.Qrels.from_df(
            objects, q_id_col="query", doc_id_col="item", score_col="relevant"
        )
        runs = []
        for name in ["score", "other"]:
            run = ranx.Run.from_df(objects, q_id_col="query", doc_id_col="item", score_col=name)
            run.name = name
            runs.append(run)
        return ranx.compare(
            qrels,
            runs,
            list(RANX.values()),
            stat_test=test,
            n_permutations=RESAMPLES,
            random_seed=0,
        )

    return {
        "compare, paired t-test": lambda: compare("student"),
        f"compare, permutation ({RESAMPLES:,} resamples)": lambda: compare("fisher"),
    }


def t_test_agreement(data: pd.DataFrame) -> float:
    """The largest difference between ranx's and rankframe's t-test p-values, on scores
    without ties (ranx's report rounds for display only, not in ``comparisons``)."""
    import ranx  # noqa: F401

    # ranx breaks ties of equal scores its own way: untie them so both rank alike
    jitter = np.random.default_rng(3).normal(0, 1e-9, len(data))
    data = data.assign(score=data["score"].to_numpy() + jitter)
    report = ranx_calls(data)["compare, paired t-test"]()
    ours = data.rank_eval(score=["score", "other"]).compare(METRICS, test="t-test")
    worst = 0.0
    for metric in METRICS:
        name, k = metric.split("@")
        row = ours[(ours["system"] == "other") & (ours["metric"] == name) & (ours["k"] == int(k))]
        theirs = float(report.comparisons[("score", "other")][RANX[metric]]["p_value"])
        mine = float(row["p_value"].iloc[0])
        if np.isnan(mine) and np.isnan(theirs):
            continue  # no difference on any query (recall@100: every judged item retrieved)
        worst = max(worst, abs(mine - theirs)) if not np.isnan(mine - theirs) else np.inf
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-ranx", action="store_true")
    args = parser.parse_args()
    rows: list[tuple[str, int, str, float]] = []
    small, large = frame(10_000), frame(100_000)
    for data in (small, large):
        n = data["query"].nunique()
        for name, call in rankframe_calls(data).items():
            rows.append(("rankframe", n, name, timed(call)))
            print(rows[-1], flush=True)
    agreement = None
    if not args.skip_ranx:
        for name, call in ranx_calls(small).items():
            rows.append(("ranx", small["query"].nunique(), name, timed(call, repeat=1)))
            print(rows[-1], flush=True)
        agreement = t_test_agreement(small)
    section = render(rows, agreement, len(small), len(large))
    write_section("compare", section)
    print(section)


def render(
    rows: list[tuple[str, int, str, float]],
    agreement: float | None,
    small_rows: int,
    large_rows: int,
) -> str:
    ours = {(n, name): t for tool, n, name, t in rows if tool == "rankframe"}
    lines = [
        START,
        "## Comparisons and intervals (`make bench-compare`)",
        "",
        f"{date.today().isoformat()}, {platform.node()}, {platform.machine()}, Python "
        f"{platform.python_version()}, rankframe {rankframe.__version__}. Two systems, six "
        f"metrics ({', '.join(METRICS)}); 10k queries = {small_rows:,} rows, 100k queries = "
        f"{large_rows:,} rows. Median of 3 after a warm-up (ranx: one run after a warm-up).",
        "",
        "| tool | queries | call | seconds | ranx / rankframe |",
        "|---|---:|---|---:|---:|",
    ]
    for tool, n, name, seconds in rows:
        ratio = f"{seconds / ours[(n, name)]:.0f}x" if tool == "ranx" else ""
        lines.append(f"| {tool} | {n:,} | {name} | {seconds:.3f} | {ratio} |")
    if agreement is not None:
        lines += [
            "",
            "ranx's and rankframe's paired t-test p-values differ by at most "
            f"{agreement:.1e} (10k queries, six metrics).",
        ]
    lines.append(END)
    return "\n".join(lines)


if __name__ == "__main__":
    main()
