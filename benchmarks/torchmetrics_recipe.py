"""Check of docs/conventions.md's torchmetrics recipes against torchmetrics itself.

Usage: ``.venv/bin/python benchmarks/torchmetrics_recipe.py`` (needs the ``bench`` extra:
torch and torchmetrics, which the test suite does not install). Prints, per way of handling
scores ≤ 0, how many random queries differ from torchmetrics for each metric; the docs quote
the result.

torchmetrics (from 1.7.4) counts an item whose score is ≤ 0 as not retrieved for AP,
precision, recall's hits and RR, but not for hit rate, R-precision and NDCG. The frame has
untied scores (torchmetrics' order among ties is torch's), some of them ≤ 0, and at least one
relevant item per query.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
from torchmetrics.functional import retrieval as tm

import rankframe  # noqa: F401  (the accessor)

K = 5
METRICS = {
    "map@5": lambda p, t: tm.retrieval_average_precision(p, t, top_k=K),
    "map": tm.retrieval_average_precision,
    "precision@5": lambda p, t: tm.retrieval_precision(p, t, top_k=K),
    "precision": tm.retrieval_precision,
    "recall@5": lambda p, t: tm.retrieval_recall(p, t, top_k=K),
    "mrr": tm.retrieval_reciprocal_rank,
    "acc@5": lambda p, t: tm.retrieval_hit_rate(p, t, top_k=K),
    "r_precision": tm.retrieval_r_precision,
    "ndcg@5": lambda p, t: tm.retrieval_normalized_dcg(p, t, top_k=K),
}


def frame(seed: int = 0, n_queries: int = 1500) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for q in range(n_queries):
        n = int(rng.integers(1, 15))
        relevant = rng.random(n) < 0.35
        if not relevant.any():
            continue
        parts.append(
            pd.DataFrame(
                {
                    "query": q,
                    "item": np.arange(n),
                    "score": np.round(rng.normal(0.2, 1.0, n), 6),
                    "relevant": relevant.astype(int),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    df = frame()
    reference = {}
    for query, rows in df.groupby("query"):
        preds = torch.tensor(rows["score"].to_numpy(), dtype=torch.float64)
        target = torch.tensor(rows["relevant"].to_numpy().astype(bool))
        reference[query] = {m: float(f(preds, target)) for m, f in METRICS.items()}
    expected = pd.DataFrame(reference).T
    ways = {
        "as it is": df,
        "relevant 0 where score <= 0": df.assign(relevant=df["relevant"].where(df["score"] > 0, 0)),
        "score null where score <= 0": df.assign(score=df["score"].where(df["score"] > 0)),
    }
    print(f"{df['query'].nunique()} queries; queries that differ from torchmetrics:")
    for name, data in ways.items():
        ours = data.rank_eval.per_query(list(METRICS), convention="torchmetrics")
        # labels name the preset (map@10(convention=torchmetrics)): compare by metric
        ours = ours.rename(
            columns=lambda c: c.split("(")[0] + c.split(")")[-1] if "(" in c else c
        ).set_index("query")
        differ = {
            m: int((~np.isclose(ours[m], expected.loc[ours.index, m], atol=1e-9)).sum())
            for m in METRICS
        }
        print(f"  {name}: {differ}")


if __name__ == "__main__":
    main()
