"""Benchmark of slice discovery (issue 36): ``slices()`` against ``evaluate()`` on the same frame.

Usage: ``.venv/bin/python benchmarks/slices.py [--queries N]`` (part of ``make bench``, 1M
queries by default); ``--planted [--seeds 200]`` instead measures how often a planted slice
comes first. Writes its section of ``benchmarks/RESULTS.md``.

The frame: ``benchmarks/data.py``'s workload of ``--queries`` queries of 5-15 items (about 10
per query), two systems (the workload's score and the score plus noise), and six segment
columns, constant within a query, of 5, 10, 20, 30, 40 and 50 values (strings, drawn
uniformly per query). Timed: ``evaluate(metrics)`` (the peer: the same metrics on the same
frame), ``slices(metrics, columns)`` at depth 2 (the t-test, without and with
``baseline=``) and at depth 3; the median of ``--repeat`` interleaved runs after a warm-up
each. Then the permutation and sign-flip tests against the t-test at ``--resample-queries``
(20k) queries and ``--resamples`` (1,000) resamples, one run each. Target
(issue 36): depth 2 at most 5x ``evaluate()``; depth 3 is measured and reported.

``--planted``: per seed, ``--planted-queries`` queries (50k) of 10 items with random scores
and grades and the same six columns; the queries of one pair of values of two columns
(``c10=v3 & c20=v7``, about 2% of the queries once the pair's columns are drawn for that)
get their NDCG@10 lowered by 0.1 on average (their relevant items moved down the
ranking), and ``slices("ndcg@10", columns)`` (depth 2, the t-test, Holm) must list that
slice first. Target (issue 36): first in at least 95% of seeds.
"""

from __future__ import annotations

import argparse
import platform
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
from data import workload

METRICS = ["ndcg@10", "mrr@10"]
SIZES = (5, 10, 20, 30, 40, 50)  # the values of each segment column
COLUMNS = [f"c{size}" for size in SIZES]
TARGET = 5.0
PLANTED_TARGET = 0.95


def segments(n_queries: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Per query, one value of each segment column (``v0``..``v{size-1}``)."""
    return {
        f"c{size}": np.char.add("v", np.arange(size).astype(str))[rng.integers(0, size, n_queries)]
        for size in SIZES
    }


def frame(n_queries: int) -> pd.DataFrame:
    data = workload(n_queries, 5, 15, seed=1)
    rng = np.random.default_rng(2)
    data["other"] = data["score"].to_numpy() + rng.normal(0, 0.1, len(data))
    number = data["query"].str.slice(1).astype(np.int64).to_numpy()
    for name, values in segments(n_queries, rng).items():
        data[name] = pd.array(values[number], dtype="str")
    return data


def speed(args: argparse.Namespace) -> str:
    began = time.perf_counter()
    data = frame(args.queries)
    built = time.perf_counter() - began
    ev = data.rank_eval(score=["score", "other"])
    calls: dict[str, tuple[Callable[[], Any], dict[str, Any] | None]] = {
        "evaluate(metrics)": (lambda: ev.evaluate(METRICS), None),
    }
    for label, kwargs in (
        ("slices(metrics, columns), depth 2", {}),
        ('slices(metrics, columns, baseline="score"), depth 2', {"baseline": "score"}),
        ("slices(metrics, columns, max_depth=3)", {"max_depth": 3}),
    ):
        calls[label] = (lambda kw=kwargs: ev.slices(METRICS, COLUMNS, **kw), kwargs)
    seconds = timed({label: call for label, (call, _) in calls.items()}, args.repeat)
    evaluate = seconds["evaluate(metrics)"]
    rows: list[tuple[str, float, int]] = []
    for label, (_, kwargs) in calls.items():
        n_tested = (
            0 if kwargs is None else int(ev.slices(METRICS, COLUMNS, **kwargs)["n_tested"].iloc[0])
        )
        rows.append((label, seconds[label], n_tested))
        print(f"  {label}: {seconds[label]:.2f} s ({seconds[label] / evaluate:.1f}x)", flush=True)
    start, end = markers("slices")
    lines = [
        start,
        "## Slice discovery (`make bench`, benchmarks/slices.py)",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()} (2 cores, shared), Python "
        f"{platform.python_version()}, rankframe {rankframe.__version__}. "
        f"`benchmarks/slices.py --queries {args.queries}`: {args.queries:,} queries of 5-15 "
        f"items ({len(data):,} rows, pandas, string ids; built in {built:.0f} s), 2 systems, "
        f"{len(METRICS)} metrics ({', '.join(METRICS)}), 6 segment columns of "
        f"{', '.join(map(str, SIZES))} values. The t-test, Holm, min_queries=30. Median of "
        f"{args.repeat} interleaved runs after a warm-up each. Target (issue 36): depth 2 at "
        f"most {TARGET:.0f}x `evaluate()` of the same metrics on the same frame.",
        "",
        "| call | seconds | / evaluate | tests (n_tested) | target |",
        "|---|---:|---:|---:|---|",
    ]
    for label, seconds, n_tested in rows:
        target = f"<= {TARGET:.0f}x" if "depth 2" in label else ""
        lines.append(
            f"| {label} | {seconds:.2f} | {seconds / evaluate:.1f}x | {n_tested or ''} | {target} |"
        )
    lines += ["", *resampled(args), end]
    return "\n".join(lines)


def resampled(args: argparse.Namespace) -> list[str]:
    """The permutation and sign-flip tests against the t-test, at ``--resample-queries``
    queries, ``--resamples`` resamples: one run each after a warm-up of the t-test."""
    data = frame(args.resample_queries)
    ev = data.rank_eval(score=["score", "other"])
    calls = [
        ("t-test", {}),
        ("permutation", {"test": "permutation", "n_permutations": args.resamples}),
        ('t-test, baseline="score"', {"baseline": "score"}),
        (
            'sign flips, baseline="score"',
            {"baseline": "score", "test": "permutation", "n_permutations": args.resamples},
        ),
    ]
    ev.slices(METRICS, COLUMNS)
    times = []
    for label, kwargs in calls:
        start = time.perf_counter()
        n_tested = int(ev.slices(METRICS, COLUMNS, **kwargs)["n_tested"].iloc[0])
        times.append((label, time.perf_counter() - start, n_tested))
        print(f"  {args.resample_queries} queries, {label}: {times[-1][1]:.2f} s", flush=True)
    out = [
        f"The resampling tests, depth 2, at {args.resample_queries:,} queries (the same "
        f"columns and metrics), {args.resamples:,} resamples (time grows linearly with "
        "them; the default is 10,000), one run each:",
        "",
        "| test | seconds | / its t-test | tests |",
        "|---|---:|---:|---:|",
    ]
    for i, (label, seconds, n_tested) in enumerate(times):
        peer = times[i - i % 2][1]
        out.append(f"| {label} | {seconds:.2f} | {seconds / peer:.1f}x | {n_tested} |")
    return out


PLANTED = "c5=v1 & c10=v3"  # 1/5 x 1/10 of the queries: 2%


def planted_frame(n_queries: int, seed: int) -> tuple[pd.DataFrame, float]:
    """A frame of ``n_queries`` queries of 10 items with the planted slice (see the module),
    and the slice's measured drop of mean NDCG@10.

    Grades 0-3 (P = .55, .25, .12, .08; each query has a relevant item), a score of the
    grade plus normal noise (sd 1.5); six segment columns drawn per query. The drop: the
    per-query NDCG@10 of each query's ranking and of its reverse (rankframe's
    ``per_query``); the planted slice's queries, in a random order, get their ranking
    reversed until the reversals have lowered the slice's mean NDCG@10 by 0.1."""
    rng = np.random.default_rng(seed)
    per = 10
    query = np.repeat(np.arange(n_queries), per)
    grade = rng.choice(4, size=n_queries * per, p=[0.55, 0.25, 0.12, 0.08])
    first = np.arange(n_queries) * per
    grade[first] = np.maximum(grade[first], 1)  # no query without a relevant item
    score = grade + rng.normal(0.0, 1.5, n_queries * per)
    columns = segments(n_queries, rng)
    data = pd.DataFrame(
        {
            "query": query,
            "item": np.tile(np.arange(per), n_queries),
            "relevant": grade,
            "score": score,
            "reversed": -score,
        }
    )
    ndcg = data.rank_eval(score=["score", "reversed"]).per_query("ndcg@10")
    by_system = {
        name: part.sort_values("query")["ndcg@10"].to_numpy()
        for name, part in ndcg.groupby("system")
    }
    drop = by_system["score"] - by_system["reversed"]
    inside = np.flatnonzero((columns["c5"] == "v1") & (columns["c10"] == "v3"))
    chosen = rng.permutation(inside)
    taken = np.searchsorted(np.cumsum(drop[chosen]), 0.1 * len(inside)) + 1
    flipped = np.zeros(n_queries, dtype=bool)
    flipped[chosen[:taken]] = True
    data["score"] = np.where(flipped[query], -score, score)
    for name, values in columns.items():
        data[name] = values[query]
    return data.drop(columns="reversed"), float(drop[chosen[:taken]].sum() / len(inside))


def planted(args: argparse.Namespace) -> str:
    firsts, deltas, runners, shares = [], [], [], []
    began = time.perf_counter()
    for seed in range(args.seeds):
        data, _ = planted_frame(args.planted_queries, seed)
        out = data.rank_eval(score="score").slices("ndcg@10", COLUMNS)
        firsts.append(out["slice"].iloc[0] == PLANTED)
        row = out[out["slice"] == PLANTED]
        deltas.append(float(row["delta"].iloc[0]) if len(row) else np.nan)
        runners.append(float(out[out["slice"] != PLANTED]["delta"].iloc[0]))
        shares.append(
            float(row["n_queries"].iloc[0]) / args.planted_queries if len(row) else np.nan
        )
        if seed % 20 == 19:
            print(f"  {seed + 1} seeds: first in {np.mean(firsts):.1%}", flush=True)
    seconds = time.perf_counter() - began
    share = float(np.mean(firsts))
    start, end = markers("slices-planted")
    lines = [
        start,
        "## Slice discovery: a planted slice comes first (benchmarks/slices.py --planted)",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}. `benchmarks/slices.py "
        f"--planted --seeds {args.seeds} --planted-queries {args.planted_queries}`: per seed, "
        f"{args.planted_queries:,} queries of 10 items (grades 0-3, score = grade + N(0, "
        "1.5)), six segment columns of 5-50 values drawn per query; the slice "
        f"`{PLANTED}` (depth 2, {np.nanmean(shares):.1%} of the queries on average) has "
        'its NDCG@10 lowered by 0.1 (reversed rankings). `slices("ndcg@10", columns)` '
        "with the defaults (depth 2, t-test, Holm, min_queries=30). Target (issue 36): the "
        f"planted slice is the first row (worst first) in at least {PLANTED_TARGET:.0%} of "
        f"seeds. {seconds:.0f} s in all.",
        "",
        "| seeds | planted slice first | its delta, mean | the next worst delta, mean (min) |",
        "|---:|---:|---:|---:|",
        f"| {args.seeds} | {share:.1%} ({sum(firsts)}/{args.seeds}) | "
        f"{np.nanmean(deltas):.3f} | {np.mean(runners):.3f} ({np.min(runners):.3f}) |",
        end,
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--resample-queries", type=int, default=20_000)
    parser.add_argument("--resamples", type=int, default=1_000)
    parser.add_argument(
        "--planted", action="store_true", help="the share of seeds whose planted slice comes first"
    )
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--planted-queries", type=int, default=50_000)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
    section = planted(args) if args.planted else speed(args)
    print(section)
    if not args.no_write:
        write_section("slices-planted" if args.planted else "slices", section)


if __name__ == "__main__":
    main()
