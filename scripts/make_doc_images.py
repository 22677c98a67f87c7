"""Render the images of docs/plots.md from rankframe.datasets.recommendations(seed=0).

Run from the repository root: .venv/bin/python scripts/make_doc_images.py (writes docs/images/*.png).
The code is the code shown on the page.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "rankframe"  # stable output between runs

import matplotlib.pyplot as plt

import rankframe  # noqa: F401  (registers .rank_eval)
from rankframe import plot
from rankframe.datasets import recommendations

OUT = Path("docs/images")
OUT.mkdir(parents=True, exist_ok=True)
SAVE = {"dpi": 110, "metadata": {"Software": None}}  # no version stamp: reruns give equal files

data = recommendations(seed=0)
ev = data.rank_eval(query="user_id", item="item_id", score=["model_a", "model_b"])

ax = plot.metric_at_k(ev, "ndcg", k_max=20)
ax.figure.savefig(OUT / "metric_at_k.png", **SAVE)
plt.close(ax.figure)

table = ev.evaluate(["ndcg@10", "mrr"], by="segment", ci=0.95, tidy=True)
ax = plot.segments(table, "ndcg@10")
ax.figure.savefig(OUT / "segments.png", **SAVE)
plt.close(ax.figure)

per_query = ev.per_query(["ndcg@10"], empty="nan")
ax = plot.distribution(per_query, "ndcg@10")
ax.figure.savefig(OUT / "distribution.png", **SAVE)
plt.close(ax.figure)
