"""Writes tests/data/store-v2.duckdb and store-v2.sqlite: history stores of schema version 2.

Run once, with the code of commit f3fe65c (schema version 2, which filed every result it did
not know as an evaluation), and committed as they came out; the upgrade tests in
tests/output/test_history_kinds.py open these files. Do not run it again with a later
rankframe: the point of the files is that an older rankframe wrote them.

    PYTHONPATH=src python tests/data/make_store_v2.py

Each store holds four runs on the eight queries of make_store_v1.py (two systems ``a`` and
``b``, a ``theme`` segment of four queries each), run ``nightly``:

1. ``evaluate(["mrr"])``;
2. ``slices(["mrr"], "theme", min_queries=1)`` (version 2: kind ``evaluation``, the slice's
   name and its unconstrained keys as segment keys);
3. ``gaps(["mrr"], by="theme", n_permutations=200)`` (kind ``evaluation``, ``worst_group``
   and ``best_group`` as segment keys);
4. ``sample_size(["mrr"], delta=0.1)`` (kind ``evaluation``, ``test`` as a segment key).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import rankframe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_store_v1 import frame

HERE = Path(__file__).resolve().parent


def main() -> None:
    ev = frame().rank_eval(score=["a", "b"])
    for suffix, where in (
        ("duckdb", str(HERE / "store-v2.duckdb")),
        ("sqlite", f"sqlite:///{HERE / 'store-v2.sqlite'}"),
    ):
        path = HERE / f"store-v2.{suffix}"
        if path.exists():
            sys.exit(f"{path} exists: these files are written once")
        store = rankframe.History(where)
        results = [
            ev.evaluate(["mrr"]),
            ev.slices(["mrr"], "theme", min_queries=1),
            ev.gaps(["mrr"], by="theme", n_permutations=200),
            ev.sample_size(["mrr"], delta=0.1),
        ]
        for i, result in enumerate(results):
            store.record(result, run="nightly", run_id=f"v2-{suffix}-{i + 1}")
            time.sleep(0.01)


if __name__ == "__main__":
    main()
