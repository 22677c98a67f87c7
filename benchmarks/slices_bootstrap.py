"""The cost of ``slices(test="bootstrap")`` against the t-test and the permutation test on
the same frame, in the same run (issue 36).

Usage: ``.venv/bin/python benchmarks/slices_bootstrap.py [--queries 5000]
[--resamples 1000]``; prints a Markdown table (not part of ``make bench``: the bootstrap
without a baseline resamples the whole frame for every slice, minutes at 20k queries).

The frame: ``--queries`` queries of 5 items with random scores and 0/1 grades, two systems
(``score`` and ``b``, both random), three segment columns of 5, 10 and 20 values drawn per
query; ``slices("ndcg@5", columns)`` at depth 2 (Holm, ``min_queries=30``), one run each
after a warm-up of the t-test.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import rankframe  # noqa: F401  (the accessor)


def frame(n: int, per: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    columns = {f"c{s}": np.char.add("v", rng.integers(0, s, n).astype(str)) for s in (5, 10, 20)}
    return pd.DataFrame(
        {
            "query": np.repeat(np.arange(n), per),
            "item": np.tile(np.arange(per), n),
            "score": rng.random(n * per),
            "b": rng.random(n * per),
            "relevant": rng.integers(0, 2, n * per),
            **{name: np.repeat(values, per) for name, values in columns.items()},
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    ev = frame(args.queries).rank_eval(score=["score", "b"])
    columns = ["c5", "c10", "c20"]
    b = args.resamples
    calls = [
        ("t-test", {}),
        (f"permutation, {b} resamples", {"test": "permutation", "n_permutations": b}),
        (f"bootstrap, {b} resamples", {"test": "bootstrap", "n_resamples": b}),
        ("t-test, baseline='b'", {"baseline": "b"}),
        (
            f"sign flips, {b} resamples, baseline='b'",
            {"test": "permutation", "n_permutations": b, "baseline": "b"},
        ),
        (
            f"bootstrap, {b} resamples, baseline='b'",
            {"test": "bootstrap", "n_resamples": b, "baseline": "b"},
        ),
    ]
    ev.slices("ndcg@5", columns)  # warm-up
    print("| call | seconds | / its t-test | tests |\n|---|---:|---:|---:|")
    peer = 1.0
    for name, kwargs in calls:
        start = time.perf_counter()
        out = ev.slices("ndcg@5", columns, **kwargs)
        seconds = time.perf_counter() - start
        if name.startswith("t-test"):
            peer = seconds
        print(f"| {name} | {seconds:.2f} | {seconds / peer:.1f}x | {int(out.n_tested.iloc[0])} |")


if __name__ == "__main__":
    main()
