"""Honest intervals, measured through the frame path (issue 47): the coverage and width of
``evaluate(estimate=..., by="collection")`` over simulated collections judged by a biased,
noisy judge of known bias and noise, and people on a fifth of the queries.

Each collection is a segment of one polars frame: one row per query whose grade is its
per-query value (``dcg@1(negative_gains=keep)`` of one item at rank 1 is its grade).
People's values ``Y`` are drawn from Beta(2, 3) (mean 0.4, standard deviation 0.2); the
judge's are ``F = Y + 0.1 + sigma e`` with ``sigma`` set so that F correlates with Y at rho.
Prints a Markdown table (benchmarks/RESULTS.md, docs/judgments.md); the claims are tested by
tests/statistics/test_ppi_collections.py on the same design.

    python benchmarks/ppi_coverage.py [--collections 500]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl

import rankframe  # noqa: F401 (registers the accessor)

QUERIES, PEOPLE = 500, 100
BETA = (2.0, 3.0)
MU = BETA[0] / sum(BETA)
SD = float(np.sqrt(BETA[0] * BETA[1] / (sum(BETA) ** 2 * (sum(BETA) + 1))))
BIAS = 0.1
METRIC = "dcg@1(negative_gains=keep)"
ESTIMATES = ("ppi", "ppi++", "gold", "judge")


def measure(rho: float, collections: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(20261129)
    y = rng.beta(*BETA, (collections, QUERIES))
    f = y + BIAS + SD * np.sqrt(1.0 / rho**2 - 1.0) * rng.standard_normal(y.shape)
    n = collections * QUERIES
    judged = np.arange(QUERIES)[None, :] < PEOPLE
    frame = pl.DataFrame(
        {
            "collection": np.repeat(np.arange(collections), QUERIES),
            "query": np.arange(n),
            "item": np.zeros(n, dtype=np.int64),
            "score": np.ones(n),
            "llm": f.ravel(),
            "human": np.where(judged, y, np.nan).ravel(),
        }
    )
    ev = frame.rank_eval(relevant="llm", gold="human")
    own = y.mean(axis=1)
    out: dict[str, dict[str, float]] = {}
    widths = {}
    for estimate in ESTIMATES:
        start = time.perf_counter()
        table = ev.evaluate(METRIC, by="collection", estimate=estimate).sort("collection")
        seconds = time.perf_counter() - start
        low = table[f"{METRIC}_ci_low"].to_numpy()
        high = table[f"{METRIC}_ci_high"].to_numpy()
        widths[estimate] = high - low
        out[estimate] = {
            "covers": float(np.mean((low <= MU) & (high >= MU))),
            "covers_own": float(np.mean((low <= own) & (own <= high))),
            "width": float(np.mean(high - low)),
            "seconds": seconds,
        }
    for estimate in ESTIMATES:
        out[estimate]["narrower"] = float(np.mean(widths[estimate] < widths["gold"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collections", type=int, default=500)
    args = parser.parse_args()
    print(
        "| rho | PPI covers | PPI width | PPI narrower | PPI++ covers | PPI++ width "
        "| PPI++ narrower | people covers | people width | judge covers |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    seconds, own = [], []
    for rho in (0.3, 0.5, 0.7, 0.9):
        m = measure(rho, args.collections)
        seconds += [m[e]["seconds"] for e in ESTIMATES]
        p, pp, g, j = (m[e] for e in ESTIMATES)
        print(
            f"| {rho} | {p['covers']:.1%} | {p['width']:.4f} | {p['narrower']:.0%} "
            f"| {pp['covers']:.1%} | {pp['width']:.4f} | {pp['narrower']:.0%} "
            f"| {g['covers']:.1%} | {g['width']:.4f} | {j['covers']:.1%} |"
        )
        own.append(
            f"| {rho} | " + " | ".join(f"{m[e]['covers_own']:.1%}" for e in ESTIMATES) + " |"
        )
    print("\nCovering each collection's own mean over its queries:\n")
    print("| rho | PPI | PPI++ | people | judge |\n|---|---:|---:|---:|---:|")
    print("\n".join(own))
    rows = args.collections * QUERIES
    print(
        f"\n{args.collections} collections of {QUERIES} queries ({PEOPLE} judged by people), "
        f"{rows:,} rows; one evaluate(estimate=, by='collection') call: "
        f"{min(seconds):.2f}-{max(seconds):.2f} s."
    )


if __name__ == "__main__":
    main()
