"""Spark: rankframe against Spark ML's ``RankingEvaluator``, on one ``local[N]`` session.

``make bench-spark`` (``python benchmarks/spark.py --rows 10_000_000``) writes a tie-free
dataset once (queries of 20 items, a random score per row, about 10% relevant rows; into
``benchmarks/data/spark-<rows>/``), then times, each on the parquet files:

- rankframe: ``sdf.rank_eval.evaluate(six metrics)``, one pass; and on the rows laid out
  by query (``repartition(query)``, cached) with ``partitioned=True``: no shuffle;
- ``RankingEvaluator``: each query's items ranked by score (``array_sort`` of its rows) and
  its relevant items, then ``evaluate()`` once per metric (P@10, R@100, MAP, NDCG@10), as the
  API takes them: four jobs;
- the driver: the four columns collected with ``toArrow()``, then the pandas accessor.

Each path runs ``--repeat`` times (3); the table shows the fastest. Values are
compared on these tie-free, binary data, where the two agree by definition
(RankingEvaluator's MAP divides by R, as trec_eval's). Microsoft Recommenders'
``SparkRankingEvaluation`` is not timed here (not installed). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")

DATA = Path(__file__).resolve().parent / "data"
SIX = ["mrr@10", "ndcg@10", "map", "acc@1", "precision@10", "recall@100"]
FOUR = {"precision@10": ("precisionAtK", 10), "recall@100": ("recallAtK", 100),
        "map": ("meanAveragePrecision", None), "ndcg@10": ("ndcgAtK", 10)}
ITEMS = 20


def dataset(rows: int) -> Path:
    """Queries of 20 items (integer ids, as RankingEvaluator needs numbers), written once."""
    path = DATA / f"spark-{rows}"
    if path.exists():
        return path
    path.mkdir(parents=True)
    rng = np.random.default_rng(0)
    queries = rows // ITEMS
    chunk = 100_000  # queries per file
    for start in range(0, queries, chunk):
        n = min(chunk, queries - start)
        query = np.repeat(np.arange(start, start + n, dtype=np.int64), ITEMS)
        item = np.tile(np.arange(ITEMS, dtype=np.int64), n) + 1000 * (query % 7)
        score = rng.random(n * ITEMS)  # 53 random bits: no ties in practice (checked below)
        relevant = (rng.random(n * ITEMS) < 0.1).astype(np.int64)
        table = pa.table({"query": query, "item": item, "score": score, "relevant": relevant})
        pq.write_table(table, path / f"part-{start // chunk:05d}.parquet")
    return path


def timed(run: Any, repeat: int) -> tuple[float, Any]:
    """The fastest of ``repeat`` runs (the first warms the JVM, the file cache, the
    workers), and the value."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F  # noqa: N812

    import rankframe.spark
    from rankframe.adapters.arrow import arrow_frame

    path = dataset(args.rows)
    spark = (SparkSession.builder.master(f"local[{args.cores}]")
             .config("spark.driver.memory", "6g").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", str(4 * args.cores)).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    frame = spark.read.parquet(str(path))
    ties = frame.groupBy("query", "score").count().where("count > 1").limit(1).count()
    assert ties == 0, "tied scores: the values would depend on the tie order"

    seconds, ours = timed(lambda: frame.rank_eval.evaluate(SIX), args.repeat)
    rows = [("rankframe on Spark: six metrics, one pass", seconds)]
    laid_out = frame.repartition(4 * args.cores, "query").cache()
    laid_out.count()
    seconds, _ = timed(lambda: rankframe.spark.rank_eval(laid_out, partitioned=True
                                                          ).evaluate(SIX), args.repeat)
    rows.append(("rankframe on Spark, laid out by query (partitioned=True): six metrics",
                 seconds))
    laid_out.unpersist()

    ranked = frame.groupBy("query").agg(
        F.array_sort(F.collect_list(F.struct((-F.col("score")).alias("key"),
                                             F.col("item").cast("double").alias("item"))))
        .alias("ranked"),
        F.collect_list(F.when(F.col("relevant") > 0, F.col("item").cast("double")))
        .alias("label"),
    ).select(F.col("ranked.item").alias("prediction"), "label")
    def four_passes() -> dict[str, float]:
        values = {}
        for name, (metric, k) in FOUR.items():
            evaluator = RankingEvaluator(metricName=metric, predictionCol="prediction",
                                         labelCol="label")
            if k is not None:
                evaluator.setK(k)
            values[name] = evaluator.evaluate(ranked)
        return values

    seconds, theirs = timed(four_passes, args.repeat)
    rows.append(("RankingEvaluator: four metrics, one evaluate() each", seconds))

    def on_the_driver() -> Any:
        table = frame.select("query", "item", "score", "relevant").toArrow()
        return arrow_frame(table).rank_eval.evaluate(SIX)

    seconds, driver = timed(on_the_driver, args.repeat)
    rows.append(("toArrow() of the four columns, then pandas: six metrics", seconds))
    spark.stop()

    print(f"{args.rows:,} rows, {args.rows // ITEMS:,} queries, local[{args.cores}]\n")
    print("| path | seconds |\n|---|---|")
    for label, value in rows:
        print(f"| {label} | {value:.1f} |")
    print("\n| metric | rankframe | RankingEvaluator | driver |\n|---|---|---|---|")
    for name in FOUR:
        ours_value, driver_value = float(ours[name].iloc[0]), float(driver[name].iloc[0])
        print(f"| {name} | {ours_value:.12f} | {theirs[name]:.12f} | {driver_value:.12f} |")
        assert ours_value == driver_value
        assert abs(ours_value - theirs[name]) < 1e-9, (name, ours_value, theirs[name])


if __name__ == "__main__":
    main()
