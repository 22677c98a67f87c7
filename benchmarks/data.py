"""The benchmark workload, generated with NumPy from a seed (no Python loop over rows).

100k queries x 50-150 items = 10M rows at size L (other sizes: other numbers of queries and
items per query): string ids (pandas 3 ``str``), 10% of the
scores rounded to 2 decimals (ties), grades 0-3 with ~5% nonzero, 5% of queries without a
relevant item, rows shuffled.

Scores are float32 values (stored as float64): pytrec_eval keeps scores as float32, so scores
that differ only beyond float32 precision would tie there and not in rankframe; with float32
values every tool sees the same ties. Every query outside the 5% "empty" ones gets at least
one relevant item (one random row gets a grade 1-3 where chance gave none), so exactly those
5% have no relevant item.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SIZES = {  # name: (queries, min items, max items)
    "S": (10_000, 50, 150),
    "M": (30_000, 50, 150),
    "L": (100_000, 50, 150),
    "long": (1_000, 9_000, 11_000),
    "short": (1_000_000, 10, 10),
    # many short lists, 5x the queries: the query ids q0..q999999 have 2-7 bytes, q0..q4999999
    # up to 8 (the scaling of `make bench` across the 7-byte boundary of the id encoding)
    "pairs-1M": (1_000_000, 2, 2),
    "pairs-5M": (5_000_000, 2, 2),
}


def workload(n_queries: int, lo: int, hi: int, seed: int = 0) -> pd.DataFrame:
    """The long frame: query, item, score, relevant (shuffled rows)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(lo, hi + 1, size=n_queries)
    n = int(lengths.sum())
    query = np.repeat(np.arange(n_queries), lengths)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    position = np.arange(n) - starts[query]
    score = rng.random(n)
    rounded = rng.random(n) < 0.10
    score[rounded] = np.round(score[rounded], 2)
    score = score.astype(np.float32).astype(np.float64)  # the ties pytrec_eval sees, see above
    grade = np.where(rng.random(n) < 0.05, rng.integers(1, 4, size=n), 0)
    empty = rng.random(n_queries) < 0.05
    grade[empty[query]] = 0
    has_relevant = np.bincount(query, weights=grade > 0, minlength=n_queries) > 0
    fill = np.flatnonzero(~has_relevant & ~empty)
    pick = starts[fill] + (rng.random(len(fill)) * lengths[fill]).astype(np.int64)
    grade[pick] = rng.integers(1, 4, size=len(fill))
    # item ids: distinct within a query (position-based), drawn from a shared catalogue
    item = (position * 7919 + rng.integers(0, 1_000, size=n_queries)[query]) % 1_000_003
    order = rng.permutation(n)
    query_ids = np.char.add("q", np.arange(n_queries).astype(str))
    frame = pd.DataFrame(
        {
            "query": pd.array(query_ids[query[order]], dtype="str"),
            "item": pd.array(np.char.add("d", item[order].astype(str)), dtype="str"),
            "score": score[order],
            "relevant": grade[order].astype(np.int64),
        }
    )
    return frame


def make(size: str, seed: int = 0) -> pd.DataFrame:
    return workload(*SIZES[size], seed=seed)
