"""The ``rankframe`` command line.

``rankframe demo`` evaluates the embedded sample data (:func:`rankframe.datasets.recommendations`)
overall and by user segment, for two models, and prints the tables.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, TextIO, cast

DEMO_METRICS = ["mrr@10", "ndcg@10", "map@10", "acc@1", "acc@5", "precision@5", "recall@10"]


def demo(seed: int = 0, out: TextIO | None = None) -> None:
    """Evaluate the sample data overall and by segment, printing readable tables."""
    import pandas as pd

    import rankframe  # noqa: F401  (registers the accessor)
    from rankframe.datasets import recommendations

    stream = out if out is not None else sys.stdout
    data = recommendations(seed=seed)
    n_users = data["user_id"].nunique()
    retrieved = int(data["model_a"].notna().sum())
    print(
        f"Sample data: {len(data):,} rows, {n_users} users, {retrieved:,} recommended "
        f"(user, item) pairs; judged-but-not-recommended items have a null score.\n",
        file=stream,
    )
    for title, by in (("Overall", None), ("By segment", "segment")):
        tables = []
        for model in ("model_a", "model_b"):
            # pandas-stubs do not know registered accessors
            ev = cast("Any", data).rank_eval(query="user_id", item="item_id", score=model)
            table = ev.evaluate(DEMO_METRICS, by=by)
            tables.append(table.assign(model=model))
        combined = pd.concat(tables, ignore_index=True)
        keys = ["model"] if by is None else [by, "model"]
        combined = combined.sort_values(keys, kind="stable").set_index(keys)
        print(f"{title} (mean over users; ties broken as trec_eval):", file=stream)
        print(combined.to_string(float_format=lambda v: f"{v:.4f}"), file=stream)
        print(file=stream)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rankframe`` console script."""
    parser = argparse.ArgumentParser(
        prog="rankframe", description="Ranking metrics inside pandas and polars DataFrames."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo_parser = commands.add_parser("demo", help="evaluate the embedded sample data")
    demo_parser.add_argument("--seed", type=int, default=0, help="seed of the sample data")
    args = parser.parse_args(argv)
    if args.command == "demo":
        demo(seed=args.seed)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
