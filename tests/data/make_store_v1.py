"""Writes tests/data/store-v1.duckdb and store-v1.sqlite: history stores of schema version 1.

Run once, with the code of commit 4020715 (schema version 1, before the wide view and gates
stored as gates), and committed as they came out; the upgrade tests in
tests/output/test_history_schema.py open these files. Do not run it again with a later
rankframe: the point of the files is that an older rankframe wrote them.

    PYTHONPATH=src python tests/data/make_store_v1.py

Each store holds four runs on the same eight queries (two systems ``a`` and ``b``, a
``theme`` segment of four queries each):

1. ``evaluate(["mrr", "ndcg@3"], by="theme", confidence_level=0.9)``, run ``nightly``,
   tags ``{"branch": "main"}``;
2. ``evaluate(["mrr", "ndcg@3"])``, run ``nightly``, tags ``{"branch": "main"}``;
3. ``compare(["mrr"], by="theme", baseline="a")``, run ``compare``;
4. ``check(["mrr >= 0.5", "mrr drop <= 10%"], by="theme", baseline="a", min_queries=1)``,
   run ``gate``, tags ``{"branch": "dev"}``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

import rankframe

HERE = Path(__file__).resolve().parent

# Eight queries of three items; the relevant item's rank under a and b, per query:
#   query   1  2  3  4 | 5  6  7  8
#   theme   news       | sport
#   a       1  2  1  3 | 1  1  2  1
#   b       1  1  2  1 | 3  2  1  2
RANKS = {"a": [1, 2, 1, 3, 1, 1, 2, 1], "b": [1, 1, 2, 1, 3, 2, 1, 2]}


def frame() -> pd.DataFrame:
    rows = []
    for q in range(8):
        for position, item in enumerate("xyz"):
            rows.append(
                {
                    "query": q + 1,
                    "item": item,
                    "relevant": int(item == "x"),
                    "theme": "news" if q < 4 else "sport",
                    # the relevant item x at its rank; y and z after, in order
                    **{
                        s: float(
                            3
                            - (
                                RANKS[s][q] - 1
                                if item == "x"
                                else (position - 1 if position <= RANKS[s][q] - 1 else position)
                            )
                        )
                        for s in RANKS
                    },
                }
            )
    return pd.DataFrame(rows)


def main() -> None:
    df = frame()
    ev = df.rank_eval(score=["a", "b"])
    for suffix, where in (
        ("duckdb", str(HERE / "store-v1.duckdb")),
        ("sqlite", f"sqlite:///{HERE / 'store-v1.sqlite'}"),
    ):
        path = HERE / f"store-v1.{suffix}"
        if path.exists():
            sys.exit(f"{path} exists: these files are written once")
        store = rankframe.History(where)
        store.record(
            ev.evaluate(["mrr", "ndcg@3"], by="theme", confidence_level=0.9, n_resamples=200),
            run="nightly",
            tags={"branch": "main"},
            run_id=f"v1-{suffix}-1",
        )
        time.sleep(0.01)
        store.record(
            ev.evaluate(["mrr", "ndcg@3"]),
            run="nightly",
            tags={"branch": "main"},
            run_id=f"v1-{suffix}-2",
        )
        time.sleep(0.01)
        store.record(
            ev.compare(["mrr"], by="theme", baseline="a"), run="compare", run_id=f"v1-{suffix}-3"
        )
        time.sleep(0.01)
        store.record(
            ev.check(["mrr >= 0.5", "mrr drop <= 10%"], by="theme", baseline="a", min_queries=1),
            run="gate",
            tags={"branch": "dev"},
            run_id=f"v1-{suffix}-4",
        )


if __name__ == "__main__":
    main()
