"""Spark: rankframe against Spark ML's ``RankingEvaluator`` and Microsoft Recommenders'
``SparkRankingEvaluation``, on one ``local[N]`` session.

``make bench-spark`` (``python benchmarks/spark.py --rows 10_000_000``) writes a tie-free
dataset once (queries of 20 items, a random score per row, about 10% relevant rows; into
``benchmarks/data/spark-<rows>/``), then times, each on the parquet files:

- rankframe: ``sdf.rank_eval.evaluate(six metrics)``, one pass (shuffled); with
  ``partitioned=True`` on the files as read (written query by query, so only a query cut
  by a file split needs a second look); and on the rows laid out by query
  (``repartition(query)``, cached) with ``partitioned=True``: no shuffle;
- ``RankingEvaluator``: each query's items ranked by score (``array_sort`` of its rows) and
  its relevant items, then ``evaluate()`` once per metric (P@10, R@100, MAP, NDCG@10), as the
  API takes them: four jobs;
- Recommenders' ``SparkRankingEvaluation`` as its users call it: ``rating_true`` (the
  relevant rows: query, item, relevant) and ``rating_pred`` (every row: query, item,
  score), one evaluator object per k (``relevancy_method="top_k"``: each query's top k by
  ``row_number`` over the score), then its methods: ``precision_at_k()`` and
  ``ndcg_at_k()`` of the k=10 object, ``recall_at_k()`` and ``map()`` of the k=100 one
  (its ``map()`` is AP over the top-k list divided by R; k=100 covers the 20-item lists,
  so it is the full list's MAP). Each object builds an RDD for ``pyspark.mllib``'s
  ``RankingMetrics`` (one job to infer its schema), and each method is one more job;
- the driver: the four columns collected with ``toArrow()``, then the pandas accessor.

Each path runs ``--repeat`` times (3), the paths taking turns (one run of each per round);
the table shows the fastest, and every run's time (the first round warms the JVM and the
workers; on a shared machine the runs vary). Values are compared on
these tie-free, binary data: ``RankingEvaluator`` agrees with rankframe's defaults by
definition (its MAP divides by R, as trec_eval's). Recommenders joins the predictions to
the users' relevant items with an inner join, so a query without a relevant item is left
out of its means: its values are rankframe's with ``empty="skip"`` (checked), and differ
from the defaults (printed). Untimed, its ``map()`` and ``map_at_k()`` of a k=2 object are
checked against rankframe's ``map@2`` (denominator R) and ``map@2`` with
``ap_denominator="min_k"`` (min(R, k)).

Install: Recommenders' own pins (pandas < 3, numpy < 2, ...) conflict with rankframe's, and
its Spark evaluation needs none of them, so ``make bench-spark`` installs it with
``pip install --no-deps recommenders==1.2.1``. Without it the Recommenders row says so, and
an error it raises on this Spark is written to the results as raised.

Prints a Markdown section and writes it to ``benchmarks/RESULTS.md`` (``--no-write``: print
only).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from sections import markers, write_section

warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")

DATA = Path(__file__).resolve().parent / "data"
SIX = ["mrr@10", "ndcg@10", "map", "acc@1", "precision@10", "recall@100"]
FOUR = {
    "precision@10": ("precisionAtK", 10),
    "recall@100": ("recallAtK", 100),
    "map": ("meanAveragePrecision", None),
    "ndcg@10": ("ndcgAtK", 10),
}
ITEMS = 20
START, END = markers("spark")


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


RUNS: dict[str, list[float]] = {}  # every run's seconds, by path


def rounds(paths: dict[str, Any], repeat: int) -> tuple[dict[str, float], dict[str, Any]]:
    """Each path's fastest of ``repeat`` runs, and its value. The paths take turns, one
    run each per round (the first round warms the JVM, the file cache, the workers), so
    that a busy spell of the shared machine or the JVM's age weighs on every path alike;
    every run's time kept in ``RUNS``."""
    values: dict[str, Any] = {}
    for _ in range(repeat):
        for label, run in paths.items():
            start = time.perf_counter()
            try:
                values[label] = run()
            except Exception as error:  # a peer that fails here: recorded as raised
                values[label] = error
                continue
            RUNS.setdefault(label, []).append(time.perf_counter() - start)
            print(f"{label}: {RUNS[label][-1]:.2f}", file=sys.stderr, flush=True)
    return {label: min(RUNS[label]) for label in paths if label in RUNS}, values


def recommenders_peer(frame: Any) -> tuple[Any, Any] | str:
    """Recommenders' four metrics as its users call them (a function of no argument), and
    its evaluator of a k; or why it cannot run here."""
    try:
        from recommenders.evaluation.spark_evaluation import SparkRankingEvaluation
    except ImportError as error:
        return f"not installed ({error}): pip install --no-deps recommenders==1.2.1"
    from pyspark.sql import functions as F  # noqa: N812

    rating_true = frame.where(F.col("relevant") > 0).select("query", "item", "relevant")
    rating_pred = frame.select("query", "item", "score")

    def evaluator(k: int) -> Any:
        return SparkRankingEvaluation(
            rating_true,
            rating_pred,
            k=k,
            relevancy_method="top_k",
            col_user="query",
            col_item="item",
            col_rating="relevant",
            col_prediction="score",
        )

    def four() -> dict[str, float]:
        at_10, at_100 = evaluator(10), evaluator(100)
        return {
            "precision@10": at_10.precision_at_k(),
            "recall@100": at_100.recall_at_k(),
            "map": at_100.map(),
            "ndcg@10": at_10.ndcg_at_k(),
        }

    return four, evaluator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
    began = time.perf_counter()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import pyspark
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F  # noqa: N812

    import rankframe.spark
    from rankframe.adapters.arrow import arrow_frame

    path = dataset(args.rows)
    spark = (
        SparkSession.builder.master(f"local[{args.cores}]")
        .config("spark.driver.memory", "6g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(4 * args.cores))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    frame = spark.read.parquet(str(path))
    ties = frame.groupBy("query", "score").count().where("count > 1").limit(1).count()
    assert ties == 0, "tied scores: the values would depend on the tie order"

    laid_out = frame.repartition(4 * args.cores, "query").cache()
    laid_out.count()

    ranked = (
        frame.groupBy("query")
        .agg(
            F.array_sort(
                F.collect_list(
                    F.struct(
                        (-F.col("score")).alias("key"), F.col("item").cast("double").alias("item")
                    )
                )
            ).alias("ranked"),
            F.collect_list(F.when(F.col("relevant") > 0, F.col("item").cast("double"))).alias(
                "label"
            ),
        )
        .select(F.col("ranked.item").alias("prediction"), "label")
    )

    def four_passes() -> dict[str, float]:
        values = {}
        for name, (metric, k) in FOUR.items():
            evaluator = RankingEvaluator(
                metricName=metric, predictionCol="prediction", labelCol="label"
            )
            if k is not None:
                evaluator.setK(k)
            values[name] = evaluator.evaluate(ranked)
        return values

    def on_the_driver() -> Any:
        table = frame.select("query", "item", "score", "relevant").toArrow()
        return arrow_frame(table).rank_eval.evaluate(SIX)

    paths: dict[str, Any] = {
        "one pass": lambda: frame.rank_eval.evaluate(SIX),
        "as read": lambda: rankframe.spark.rank_eval(frame, partitioned=True).evaluate(SIX),
        "partitioned": lambda: rankframe.spark.rank_eval(laid_out, partitioned=True).evaluate(SIX),
        "RankingEvaluator": four_passes,
        "driver": on_the_driver,
    }
    peer = recommenders_peer(frame)
    failure = peer if isinstance(peer, str) else None
    if not isinstance(peer, str):
        paths["Recommenders"] = peer[0]
    times, values = rounds(paths, args.repeat)
    laid_out.unpersist()
    ours, theirs, driver = values["one pass"], values["RankingEvaluator"], values["driver"]
    for label in ("as read", "partitioned"):
        assert values[label].equals(ours), label  # bit for bit, whatever the layout
    skipped = frame.rank_eval.evaluate(list(FOUR), empty="skip")
    recommenders: dict[str, float] | None = None
    at_2: dict[str, float] = {}
    if not isinstance(peer, str):
        found = values["Recommenders"]
        if isinstance(found, Exception):  # recorded as raised, not as a number
            failure = f"{type(found).__name__}: {str(found).splitlines()[0]}"
        else:
            recommenders = found
            top_2 = peer[1](2)  # k=2 < R for about a third of the queries
            at_2 = {"map": top_2.map(), "map_at_k": top_2.map_at_k()}
    if at_2:
        ours_at_2 = float(frame.rank_eval.evaluate(["map@2"], empty="skip").iloc[0, 0])
        ours_min_k = float(
            frame.rank_eval.evaluate(["map@2"], empty="skip", ap_denominator="min_k").iloc[0, 0]
        )
    spark.stop()

    def ratio(over: str, under: str) -> str:
        return f"{times[over] / times[under]:.1f}x" if over in times else "—"

    def runs(label: str) -> str:
        return ", ".join(f"{s:.1f}" for s in RUNS[label])

    value_rows = []
    for name in FOUR:
        ours_value, driver_value = float(ours[name].iloc[0]), float(driver[name].iloc[0])
        skip_value = float(skipped.iloc[0, list(FOUR).index(name)])  # "p@10(empty=skip)"
        rec = "—" if recommenders is None else f"{recommenders[name]:.12f}"
        value_rows.append(
            f"| {name} | {ours_value:.12f} | {theirs[name]:.12f} | "
            f"{driver_value:.12f} | {skip_value:.12f} | {rec} |"
        )
        assert ours_value == driver_value
        assert abs(ours_value - theirs[name]) < 1e-9, (name, ours_value, theirs[name])
        if recommenders is not None:
            assert abs(skip_value - recommenders[name]) < 1e-9, (
                name,
                skip_value,
                recommenders[name],
            )
    n_all, n_relevant = int(ours["n_queries"].iloc[0]), int(skipped["n_queries"].iloc[0])
    lines = [
        START,
        "## Spark: rankframe against RankingEvaluator and Recommenders (`make bench-spark`)",
        "",
        f"Written by `benchmarks/spark.py --rows {args.rows}` on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node() and 'shared machine'} "
        f"({os.cpu_count()} cores, other agents' processes running: times vary between "
        f"runs), pyspark {pyspark.__version__}, `local[{args.cores}]`, total time of the run "
        f"{time.perf_counter() - began:.0f} s. {args.rows:,} rows = {args.rows // ITEMS:,} "
        f"queries x {ITEMS} items from parquet, tie-free scores, binary relevance; the "
        f"fastest of {args.repeat} runs.",
        "",
        "| path | seconds | every run | RankingEvaluator's time over this |",
        "|---|---:|---|---:|",
        f"| rankframe: six metrics, one pass | {times['one pass']:.1f} | {runs('one pass')} | "
        f"{ratio('RankingEvaluator', 'one pass')} |",
        f"| rankframe, `partitioned=True` on the files as read (written query by query; "
        f"queries cut by a split computed again): six metrics | {times['as read']:.1f} | "
        f"{runs('as read')} | {ratio('RankingEvaluator', 'as read')} |",
        f"| rankframe, rows laid out by query (`repartition(query)`, cached; "
        f"`partitioned=True`): six metrics | "
        f"{times['partitioned']:.1f} | {runs('partitioned')} | "
        f"{ratio('RankingEvaluator', 'partitioned')} |",
        f"| `RankingEvaluator`: P@10, R@100, MAP, NDCG@10, one `evaluate()` each | "
        f"{times['RankingEvaluator']:.1f} | {runs('RankingEvaluator')} | 1.0x |",
        (
            f"| Recommenders `SparkRankingEvaluation`: the same four (objects of k=10 and "
            f"k=100) | {times['Recommenders']:.1f} | {runs('Recommenders')} | "
            f"{ratio('RankingEvaluator', 'Recommenders')} |"
            if "Recommenders" in times
            else f"| Recommenders `SparkRankingEvaluation` | did not run: {failure} | | — |"
        ),
        f"| `toArrow()` of the four columns to the driver, then pandas: six metrics | "
        f"{times['driver']:.1f} | {runs('driver')} | {ratio('RankingEvaluator', 'driver')} |",
        "",
        f"Targets (issue 29): `RankingEvaluator` at least 3x rankframe's one pass: "
        f"{ratio('RankingEvaluator', 'one pass')}; rankframe's one pass at most 2x the "
        f"driver's: {ratio('one pass', 'driver')} (`partitioned=True` on the files as "
        f"read: {ratio('as read', 'driver')})."
        + (
            f" Recommenders over rankframe's one pass: {ratio('Recommenders', 'one pass')}."
            if "Recommenders" in times
            else ""
        ),
        "",
        '| metric | rankframe | RankingEvaluator | driver | rankframe, `empty="skip"` '
        "| Recommenders |",
        "|---|---|---|---|---|---|",
        *value_rows,
        "",
        "rankframe and the driver agree bit for bit, `RankingEvaluator` to 1e-9 (it counts a "
        "query without a relevant item as 0, as rankframe's default). Recommenders leaves "
        f"those queries out ({n_all - n_relevant:,} of {n_all:,}: an inner join of the "
        "predictions to the relevant items): its values are rankframe's with "
        '`empty="skip"` (the mean over the other queries), to 1e-9.',
    ]
    if at_2:
        lines += [
            "",
            "Its two MAPs, untimed, on an object of k=2 (fewer than R for about a third of "
            f"the queries): `map()` {at_2['map']:.12f}, rankframe's `map@2` "
            f'(`empty="skip"`, AP over the top 2 divided by R) {ours_at_2:.12f}; '
            f"`map_at_k()` {at_2['map_at_k']:.12f}, `map@2` with "
            f'`ap_denominator="min_k"` (divided by min(R, 2)) {ours_min_k:.12f}.',
        ]
        assert abs(at_2["map"] - ours_at_2) < 1e-9, (at_2, ours_at_2)
        assert abs(at_2["map_at_k"] - ours_min_k) < 1e-9, (at_2, ours_min_k)
    lines.append(END)
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("spark", section)


if __name__ == "__main__":
    main()
