"""The approaches timed: rankframe's, the floor, and the peers' (pytrec_eval, ranx,
torchmetrics, ir_measures, a hand-written pandas ``groupby().apply()``).

Each approach prepares its input from a size's data (outside the measurement) and returns a
run (:data:`harness.Run`): the frame in, the metrics' means out, building a peer's own input
structures included. :data:`APPROACHES` names them, with the modules each needs.
"""

from __future__ import annotations

import importlib.util
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from harness import METRICS, Laps, Run, Values, data_path, load_pandas, load_polars, means_of

# pytrec_eval's measure for each metric; its recip_rank has no cut-off (see agree()).
TREC = {
    "mrr@10": "recip_rank",
    "ndcg@10": "ndcg_cut_10",
    "map@100": "map_cut_100",
    "acc@5": "success_5",
    "precision@10": "P_10",
    "recall@100": "recall_100",
}
RANX = {
    "mrr@10": "mrr@10",
    "ndcg@10": "ndcg@10",
    "map@100": "map@100",
    "acc@5": "hit_rate@5",
    "precision@10": "precision@10",
    "recall@100": "recall@100",
}


# Each prepares its input (outside the measurement) and returns a run: frame in, means out.


def order_preserving_bits(score: np.ndarray) -> np.ndarray:
    """uint64 keys whose unsigned order is the float64 order of ``score``."""
    bits = score.view(np.uint64)
    negative = (bits >> np.uint64(63)).astype(bool)
    return np.where(negative, ~bits, bits | np.uint64(1 << 63))


def floor(size: str) -> tuple[Any, Run]:
    """The floor: factorize the query column, one np.sort of a packed (query, score) key."""
    frame = load_pandas(size)

    def run(laps: Laps) -> Values:
        codes, uniques = pd.factorize(frame["query"])
        laps.mark("factorize")
        query_bits = max(1, (len(uniques) - 1).bit_length())
        descending = ~order_preserving_bits(frame["score"].to_numpy())
        key = codes.astype(np.uint64) << np.uint64(64 - query_bits)
        key |= descending >> np.uint64(query_bits)
        np.sort(key)
        laps.mark("pack and sort")
        return {}

    return frame, run


def rankframe_pandas(size: str) -> tuple[Any, Run]:
    import rankframe  # noqa: F401  (registers .rank_eval)

    frame = load_pandas(size)
    return frame, lambda _: means_of(frame.rank_eval.evaluate(METRICS))


def rankframe_average(size: str) -> tuple[Any, Run]:
    import rankframe  # noqa: F401

    frame = load_pandas(size)
    return frame, lambda _: means_of(frame.rank_eval.evaluate(METRICS, ties="average"))


def rankframe_polars(size: str) -> tuple[Any, Run]:
    import rankframe  # noqa: F401

    frame = load_polars(size)
    return frame, lambda _: means_of(frame.rank_eval.evaluate(METRICS))


def rankframe_lazy(size: str) -> tuple[Any, Run]:
    """Scan, evaluate and collect: the data are read inside every run."""
    import polars as pl

    import rankframe  # noqa: F401

    path = data_path(size)

    def run(_: Laps) -> Values:
        lazy: Any = pl.scan_parquet(path)  # .rank_eval is registered at run time
        return means_of(lazy.rank_eval.evaluate(METRICS).collect())

    return None, run


Nested = dict[str, dict[str, Any]]


def polars_read(size: str) -> tuple[Any, Run]:
    """For reference: reading the parquet file, the part of the lazy run before the engine."""
    import polars as pl

    path = data_path(size)

    def run(_: Laps) -> Values:
        pl.read_parquet(path)
        return {}

    return None, run


def pytrec_dicts(frame: pd.DataFrame) -> tuple[Nested, Nested]:
    """qrels from every row (all rows are judged) and the run from every row (all scored)."""
    qrels: Nested = defaultdict(dict)
    run: Nested = defaultdict(dict)
    columns = (frame[c].tolist() for c in ("query", "item", "relevant", "score"))
    for query, item, grade, score in zip(*columns, strict=True):
        qrels[query][item] = grade
        run[query][item] = score
    return qrels, run


def pytrec_measures(per_query: dict[str, dict[str, float]]) -> dict[str, np.ndarray]:
    """Per metric, pytrec_eval's per-query values in sorted query order.

    ``mrr@10`` is derived from ``recip_rank``, which has no cut-off: RR@10 = RR when the first
    relevant item is at rank <= 10, i.e. when 1/rank >= 1/10, else 0.
    """
    queries = sorted(per_query)
    out = {m: np.array([per_query[q][TREC[m]] for q in queries]) for m in METRICS}
    out["mrr"] = out["mrr@10"]
    out["mrr@10"] = np.where(out["mrr"] >= 1 / 10, out["mrr"], 0.0)
    return out


def pytrec_eval_run(size: str) -> tuple[Any, Run]:
    import pytrec_eval

    frame = load_pandas(size)
    measures = {"recip_rank", "ndcg_cut.10", "map_cut.100", "success.5", "P.10", "recall.100"}

    def run(laps: Laps) -> Values:
        qrels, trec_run = pytrec_dicts(frame)
        laps.mark("build dicts")
        per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(trec_run)
        laps.mark("evaluate")
        return {m: float(v.mean()) for m, v in pytrec_measures(per_query).items() if m in METRICS}

    return frame, run


def all_trec_measures() -> list[str]:
    """The printed names of every measure of trec_eval's ``-m all_trec`` that is a metric
    (``P_5``, ``iprec_at_recall_0.10``, ``gm_map``, ...), as rankframe's metric strings."""
    from rankframe.trec import parse_trec_measures

    return [
        name
        for measure, params in parse_trec_measures(["all_trec"])
        if measure.kind == "metric"
        for name in measure.line_names(params)
    ]


def rankframe_all_trec(size: str) -> tuple[Any, Run]:
    """Every measure of all_trec in one ``evaluate`` (their `all` values)."""
    import rankframe  # noqa: F401

    frame = load_pandas(size)
    metrics = all_trec_measures()

    def run(_: Laps) -> Values:
        frame.rank_eval.evaluate(metrics)
        return {}

    return frame, run


def pytrec_eval_all_trec(size: str) -> tuple[Any, Run]:
    """pytrec_eval's all_trec from the same frame: its dicts, its per-query values, and the
    `all` value of each measure (the mean over queries; trec_eval's sums and geometric means
    are as cheap)."""
    import pytrec_eval

    frame = load_pandas(size)

    def run(laps: Laps) -> Values:
        qrels, trec_run = pytrec_dicts(frame)
        laps.mark("build dicts")
        per_query = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(trec_run)
        laps.mark("evaluate")
        names = list(next(iter(per_query.values())))
        table = np.array([[values[n] for n in names] for values in per_query.values()])
        table.mean(axis=0)
        laps.mark("means")
        return {}

    return frame, run


def ranx_run(size: str) -> tuple[Any, Run]:
    import ranx

    frame = load_pandas(size)

    def run(laps: Laps) -> Values:
        # ranx's from_df asserts object dtype: pandas 3 `str` ids are converted here
        objects = frame.astype({"query": object, "item": object})
        qrels = ranx.Qrels.from_df(
            objects, q_id_col="query", doc_id_col="item", score_col="relevant"
        )
        ranx_run = ranx.Run.from_df(objects, q_id_col="query", doc_id_col="item", score_col="score")
        laps.mark("build Qrels and Run")
        means = ranx.evaluate(qrels, ranx_run, list(RANX.values()))
        laps.mark("evaluate")
        return {m: float(means[RANX[m]]) for m in METRICS}

    return frame, run


def torchmetrics_run(size: str) -> tuple[Any, Run]:
    import torch
    from torchmetrics import retrieval

    frame = load_pandas(size)
    metrics = {
        "mrr@10": retrieval.RetrievalMRR(top_k=10),
        "ndcg@10": retrieval.RetrievalNormalizedDCG(top_k=10),
        "map@100": retrieval.RetrievalMAP(top_k=100),
        "acc@5": retrieval.RetrievalHitRate(top_k=5),
        "precision@10": retrieval.RetrievalPrecision(top_k=10),
        "recall@100": retrieval.RetrievalRecall(top_k=100),
    }

    def run(laps: Laps) -> Values:
        indexes = torch.from_numpy(pd.factorize(frame["query"])[0].astype(np.int64))
        preds = torch.from_numpy(frame["score"].to_numpy())
        grades = torch.from_numpy(frame["relevant"].to_numpy())
        binary = grades > 0  # all but NDCG take binary targets
        laps.mark("build tensors")
        values = {}
        for name, metric in metrics.items():
            metric.reset()
            metric.update(preds, grades if name == "ndcg@10" else binary, indexes=indexes)
            values[name] = float(metric.compute())
        laps.mark("update and compute")
        return values

    return frame, run


def ir_measures_run(size: str) -> tuple[Any, Run]:
    import ir_measures
    from ir_measures import AP, RR, P, R, Success, nDCG

    frame = load_pandas(size)
    measures = {
        "mrr@10": RR @ 10,
        "ndcg@10": nDCG @ 10,
        "map@100": AP @ 100,
        "acc@5": Success @ 5,
        "precision@10": P @ 10,
        "recall@100": R @ 100,
    }

    def run(laps: Laps) -> Values:
        qrels = frame[["query", "item", "relevant"]].rename(
            columns={"query": "query_id", "item": "doc_id", "relevant": "relevance"}
        )
        ir_run = frame[["query", "item", "score"]].rename(
            columns={"query": "query_id", "item": "doc_id"}
        )
        laps.mark("rename columns")
        means = ir_measures.calc_aggregate(list(measures.values()), qrels, ir_run)
        laps.mark("evaluate")
        return {m: float(means[measures[m]]) for m in METRICS}

    return frame, run


def apply_one_query(group: pd.DataFrame) -> pd.Series:
    """The six metrics of one query, as a user would write them (trec ties: item descending)."""
    ranked = group.sort_values(["score", "item"], ascending=False)
    grades = ranked["relevant"].to_numpy()
    relevant = grades > 0
    n_relevant = relevant.sum()
    discount = 1 / np.log2(np.arange(2, 12))
    top10 = grades[:10]
    ideal = np.sort(grades)[::-1][:10]
    idcg = (ideal * discount[: len(ideal)]).sum()
    first = np.flatnonzero(relevant[:10])
    hits = np.cumsum(relevant[:100])
    ranks = np.arange(1, len(hits) + 1)
    return pd.Series(
        {
            "mrr@10": 1 / (first[0] + 1) if len(first) else 0.0,
            "ndcg@10": (top10 * discount[: len(top10)]).sum() / idcg if idcg > 0 else 0.0,
            "map@100": (hits / ranks)[relevant[:100]].sum() / n_relevant if n_relevant else 0.0,
            "acc@5": float(relevant[:5].any()),
            "precision@10": relevant[:10].sum() / 10,
            "recall@100": relevant[:100].sum() / n_relevant if n_relevant else 0.0,
        }
    )


def pandas_apply(size: str) -> tuple[Any, Run]:
    frame = load_pandas(size)

    def run(_: Laps) -> Values:
        per_query = frame.groupby("query")[["item", "score", "relevant"]].apply(apply_one_query)
        return {m: float(per_query[m].mean()) for m in METRICS}

    return frame, run


def polars_hand_per_query(frame: Any) -> Any:
    """The six metrics per query as a user writes them in polars instead of rankframe: one
    ``group_by`` whose aggregation sorts each query's grades by score, ties by item
    descending (trec_eval's order), then the lists exploded with their ranks and summed per
    query (the fastest of the forms tried: expressions on the sorted grades inside the first
    aggregation run 4-5 times slower). Linear gains, as trec_eval's; no validation."""
    import polars as pl

    lists = frame.group_by("query").agg(
        grade=pl.col("relevant").sort_by(["score", "item"], descending=[True, True]),
        ideal=pl.col("relevant").top_k(10),
    )
    ideal_gain = pl.element() / (pl.int_range(pl.len()) + 2).log(2)
    rows = lists.select(
        "query",
        "grade",
        rank=pl.int_ranges(1, pl.col("grade").list.len() + 1),
        hits=pl.col("grade").list.eval((pl.element() > 0).cum_sum()),
        idcg=pl.col("ideal").list.sort(descending=True).list.eval(ideal_gain).list.sum(),
    ).explode("grade", "rank", "hits")
    hit, rank = pl.col("grade") > 0, pl.col("rank")
    n_relevant = hit.sum()
    dcg = (pl.col("grade") / (rank + 1).log(2)).filter(rank <= 10).sum()
    return (
        rows.group_by("query")
        .agg(
            (1 / rank).filter(hit & (rank <= 10)).max().fill_null(0.0).alias("mrr@10"),
            (dcg / pl.col("idcg").first()).fill_nan(0.0).alias("ndcg@10"),
            ((pl.col("hits") / rank).filter(hit & (rank <= 100)).sum() / n_relevant)
            .fill_nan(0.0)
            .alias("map@100"),
            (hit & (rank <= 5)).any().cast(pl.Float64).alias("acc@5"),
            ((hit & (rank <= 10)).sum() / 10).alias("precision@10"),
            ((hit & (rank <= 100)).sum() / n_relevant).fill_nan(0.0).alias("recall@100"),
        )
        .sort("query")
    )


def polars_hand(size: str) -> tuple[Any, Run]:
    frame = load_polars(size)

    def run(_: Laps) -> Values:
        per_query = polars_hand_per_query(frame)
        return {m: float(per_query[m].mean()) for m in METRICS}  # type: ignore[arg-type]

    return frame, run


DUCKDB_SQL = """
WITH ranked AS (
    SELECT query, relevant,
        ROW_NUMBER() OVER w AS rank,
        SUM(CASE WHEN relevant > 0 THEN 1 ELSE 0 END) OVER w AS hits,
        ROW_NUMBER() OVER (PARTITION BY query ORDER BY relevant DESC) AS ideal_rank
    FROM frame
    WINDOW w AS (PARTITION BY query ORDER BY score DESC, item DESC
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
), per_query AS (
    SELECT query,
        COALESCE(MAX(CASE WHEN relevant > 0 AND rank <= 10 THEN 1.0 / rank END), 0)
            AS "mrr@10",
        SUM(CASE WHEN rank <= 10 THEN relevant / LOG2(rank + 1) ELSE 0 END) AS dcg,
        SUM(CASE WHEN ideal_rank <= 10 THEN relevant / LOG2(ideal_rank + 1) ELSE 0 END)
            AS idcg,
        SUM(CASE WHEN relevant > 0 AND rank <= 100 THEN hits / rank ELSE 0 END) AS ap,
        MAX(CASE WHEN relevant > 0 AND rank <= 5 THEN 1.0 ELSE 0.0 END) AS "acc@5",
        SUM(CASE WHEN relevant > 0 AND rank <= 10 THEN 1 ELSE 0 END) / 10.0
            AS "precision@10",
        SUM(CASE WHEN relevant > 0 AND rank <= 100 THEN 1 ELSE 0 END) AS hits_100,
        SUM(CASE WHEN relevant > 0 THEN 1 ELSE 0 END) AS n_relevant
    FROM ranked GROUP BY query
)
SELECT query, "mrr@10",
    CASE WHEN idcg > 0 THEN dcg / idcg ELSE 0 END AS "ndcg@10",
    CASE WHEN n_relevant > 0 THEN ap / n_relevant ELSE 0 END AS "map@100",
    "acc@5", "precision@10",
    CASE WHEN n_relevant > 0 THEN hits_100 / n_relevant ELSE 0 END AS "recall@100"
FROM per_query ORDER BY query
"""


def duckdb_per_query(frame: pd.DataFrame) -> pd.DataFrame:
    """The six metrics per query in DuckDB SQL over the pandas frame (its replacement scan):
    a ``ROW_NUMBER`` window by score, ties by item descending, on every core."""
    import duckdb

    connection = duckdb.connect()
    connection.register("frame", frame)
    return connection.sql(DUCKDB_SQL).df()


def duckdb_sql(size: str) -> tuple[Any, Run]:
    frame = load_pandas(size)

    def run(_: Laps) -> Values:
        per_query = duckdb_per_query(frame)
        return {m: float(per_query[m].mean()) for m in METRICS}

    return frame, run


@dataclass(frozen=True)
class Approach:
    label: str
    prepare: Callable[[str], tuple[Any, Run]]
    needs: tuple[str, ...] = ()  # modules that must be importable
    note: str = ""


APPROACHES = {
    "floor": Approach("floor: factorize query + one sort of a packed key", floor),
    "rankframe_pandas": Approach("rankframe, pandas", rankframe_pandas),
    "rankframe_average": Approach(
        'rankframe, pandas, ties="average"',
        rankframe_average,
        note="expected values over the orders of tied items",
    ),
    "rankframe_polars": Approach(
        "rankframe, polars eager",
        rankframe_polars,
        ("polars",),
        "the polars frame is the user's: read outside the timing",
    ),
    "rankframe_lazy": Approach(
        "rankframe, polars lazy (scan_parquet)",
        rankframe_lazy,
        ("polars",),
        "reads the parquet file inside every run",
    ),
    "polars_read": Approach(
        "(reference) polars read_parquet alone",
        polars_read,
        ("polars",),
        "the reading part of the lazy row",
    ),
    "pytrec_eval": Approach("pytrec_eval", pytrec_eval_run, ("pytrec_eval",)),
    "ranx": Approach("ranx", ranx_run, ("ranx",)),
    "torchmetrics": Approach("torchmetrics", torchmetrics_run, ("torch", "torchmetrics")),
    "ir_measures": Approach("ir_measures", ir_measures_run, ("ir_measures",)),
    "pandas_apply": Approach("pandas groupby().apply()", pandas_apply),
    "polars_hand": Approach(
        "hand-written polars (group_by + sort_by per query)",
        polars_hand,
        ("polars",),
        "what a user writes instead: ties by item descending, no validation",
    ),
    "duckdb_sql": Approach(
        "DuckDB SQL (ROW_NUMBER window)",
        duckdb_sql,
        ("duckdb",),
        "over the pandas frame, on every core",
    ),
    "rankframe_all_trec": Approach(
        "rankframe, pandas: every measure of trec_eval's all_trec", rankframe_all_trec
    ),
    "pytrec_eval_all_trec": Approach(
        "pytrec_eval: all_trec", pytrec_eval_all_trec, ("pytrec_eval",)
    ),
}
# timed in their own section (all_trec), not in the main table
SECTION_ONLY = ("rankframe_all_trec", "pytrec_eval_all_trec")
PEERS = (
    "polars_hand",
    "duckdb_sql",
    "pytrec_eval",
    "ranx",
    "torchmetrics",
    "ir_measures",
    "pandas_apply",
)
# written with trec_eval's tie order: checked equal to rankframe per query, not only in range
EXACT_PEERS = {"polars_hand": polars_hand_per_query, "duckdb_sql": duckdb_per_query}


def missing_modules(approach: Approach) -> list[str]:
    return [m for m in approach.needs if importlib.util.find_spec(m) is None]
