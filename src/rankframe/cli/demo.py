"""``rankframe demo``: the embedded sample data, evaluated and compared."""

from __future__ import annotations

import sys
from typing import Any, TextIO, cast

DEMO_METRICS = ["mrr@10", "ndcg@10", "map@10", "acc@1", "acc@5", "precision@5", "recall@10"]


def demo(seed: int = 0, out: TextIO | None = None) -> None:
    """Evaluate the sample data overall and by segment, compare the two models, and print
    readable tables."""
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
    # pandas-stubs do not know registered accessors
    ev = cast("Any", data).rank_eval(
        query="user_id", item="item_id", score=["model_a", "model_b"]
    )
    for title, by in (("Overall", None), ("By segment", "segment")):
        table = ev.evaluate(DEMO_METRICS, by=by)
        keys = ["system"] if by is None else [by, "system"]
        print(f"{title} (mean over users; ties broken as trec_eval):", file=stream)
        print(table.set_index(keys).to_string(float_format=lambda v: f"{v:.4f}"), file=stream)
        print(file=stream)
    comparison = ev.compare(DEMO_METRICS, baseline="model_a", test="t-test")
    comparison = comparison[comparison["system"] != "model_a"].drop(columns="system")
    print("model_b against model_a (paired t-test over users):", file=stream)
    print(comparison.to_string(index=False, float_format=lambda v: f"{v:.4g}"), file=stream)
    print(file=stream)
