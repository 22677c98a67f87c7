"""``rankframe demo``: the embedded sample data, evaluated and compared."""

from __future__ import annotations

import sys
from typing import Any, TextIO, cast

from rankframe.exceptions import silenced

DEMO_METRICS = ["mrr@10", "ndcg@10", "map@10", "acc@1", "acc@5", "precision@5", "recall@10"]
# beyond accuracy: printed beside the accuracy metrics (coverage is set-level: not compared)
BEYOND_METRICS = ["coverage@10", "novelty@10"]


def demo(seed: int = 0, out: TextIO | None = None) -> None:
    """Evaluate the sample data overall and by segment, compare the two models, and print
    readable tables."""
    import rankframe  # noqa: F401  (registers the accessor)
    from rankframe.datasets import recommendations  # the sample data: only when run

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
    ev = cast("Any", data).rank_eval(query="user_id", item="item_id", score=["model_a", "model_b"])
    # the sample data has no interaction log: an item's popularity is taken from the data
    # itself, as the number of users whose candidates hold it
    popularity = data["item_id"].value_counts()
    print(
        "coverage@10: share of the catalogue (the items of the data) in some top-10 list; "
        "novelty@10: mean -log2 of the top-10 items' popularity share, popularity = the "
        "number of users whose candidates hold the item (derived from the sample data).\n",
        file=stream,
    )
    for title, by in (("Overall", None), ("By segment", "segment")):
        with silenced():  # the null scores are the items a model did not recommend (above)
            table = ev.evaluate([*DEMO_METRICS, *BEYOND_METRICS], by=by, popularity=popularity)
        keys = ["system"] if by is None else [by, "system"]
        print(f"{title} (mean over users; ties broken as trec_eval):", file=stream)
        print(table.set_index(keys).to_string(float_format=lambda v: f"{v:.4f}"), file=stream)
        print(file=stream)
    with silenced():
        comparison = ev.compare(DEMO_METRICS, baseline="model_a", test="t-test")
    comparison = comparison[comparison["system"] != "model_a"].drop(columns="system")
    print("model_b against model_a (paired t-test over users):", file=stream)
    print(comparison.to_string(index=False, float_format=lambda v: f"{v:.4g}"), file=stream)
    print(file=stream)
