"""The Spark accessor (``import rankframe.spark``) on a session-scoped ``local[2]`` session,
classic and Spark Connect.

The Spark accessor promises the pandas accessor's values, bit for bit, and its errors,
message for message (the pandas values are themselves tested against references elsewhere).
A Spark call costs about a second (a job, Python workers), so rather than every test of the
frame-kind fixture, these tests run every metric of the registry in one call per case:

- values: every registered metric (at several cut-offs), every output layout (scalar, by
  segments, ``per_query``, ``evaluate`` with intervals, ``compare``), and ``rank``;
- errors: each data error of the input contract, on every metric at once;
- with pyspark installed, the CLI prints its one error line (no pyspark warning).

Java comes from the system (OpenJDK 17); the Makefile checks for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from pyspark.sql import functions

import rankframe
import rankframe.spark
from helpers import all_metrics, judged_frame
from rankframe import METRICS, EmptyQueryError, InvalidDataError, Metric
from rankframe.adapters import spark as spark_adapter

# Under pytest-xdist (`make test`) the whole module runs on one worker, which starts each
# session once (tests/conftest.py, WORKER_GROUPS).
pytestmark = [
    pytest.mark.load,  # a Spark session: `make test` runs them, -m 'not load' leaves them out
    # pyspark's own warning at its Arrow calls under pandas 3 (the tests call toArrow too)
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]

PARTS = 3  # shuffle partitions, and query buckets: queries from several rows meet


@pytest.fixture(scope="session", params=["classic", "connect"])
def spark(request: pytest.FixtureRequest) -> Iterator[Any]:
    """One ``local[2]`` session at a time: classic, then Spark Connect (``remote``), which
    starts a local Connect server."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers import this rankframe
    builder = SparkSession.builder.appName("rankframe-tests")
    if request.param == "classic":
        builder = builder.master("local[2]").config("spark.ui.enabled", "false")
    else:  # (a Connect session takes only session settings)
        builder = builder.remote("local[2]")
    session = builder.config("spark.sql.shuffle.partitions", str(PARTS)).getOrCreate()
    connect = type(session).__module__.startswith("pyspark.sql.connect")
    assert connect is (request.param == "connect")
    if request.param == "classic":
        session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def generated(seed: int = 7, queries: int = 40) -> pd.DataFrame:
    """Queries of 1 to 8 items: scores on a grid of 5 values (many ties), some unscored
    (judged, not retrieved), grades 0 to 3, a theme per query, two systems."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=queries)
    query = np.repeat([f"q{i:02d}" for i in range(queries)], sizes)
    item = np.concatenate([rng.permutation(12)[:n] for n in sizes]).astype(str)
    score = rng.integers(0, 5, size=len(query)) / 4
    score[rng.random(len(query)) < 0.1] = np.nan
    other = rng.integers(0, 5, size=len(query)) / 4
    theme = np.repeat(rng.choice(["news", "sport", "food"], size=queries), sizes)
    return pd.DataFrame(
        {
            "query": query,
            "item": item,
            "score": score,
            "other": other,
            "relevant": rng.integers(0, 4, size=len(query)),
            "theme": theme,
        }
    )


# -- values ----------------------------------------------------------------------------------


def _relevance_metrics() -> list[Metric]:
    return all_metrics(ks=(1, 3, 10))


# the metrics of the items themselves that need no input beyond the frame
ITEM_METRICS = [
    Metric(d.name, 3 if d.takes_k else None)
    for d in METRICS.values()
    if d.items is not None and d.items.needs is None and d.takes_k
]


def test_every_metric_matches_pandas_bit_for_bit(spark: Any) -> None:
    data = generated()
    sdf = spark.createDataFrame(data)
    metrics = [*_relevance_metrics(), *ITEM_METRICS]
    want = data.rank_eval.evaluate(metrics, by="theme")
    got = sdf.rank_eval.evaluate(metrics, by="theme")
    assert isinstance(got, pd.DataFrame)
    pd.testing.assert_frame_equal(
        got.astype({"theme": object}), want.astype({"theme": object}), check_exact=True
    )
    assert len(want.columns) == len(metrics) + 2  # theme, every metric, n_queries


def test_condensed_lists_match_pandas_bit_for_bit(spark: Any) -> None:
    # unjudged="condense": a null grade is unjudged, and only the judged rows are ranked
    data = generated(seed=8)
    unjudged = np.random.default_rng(8).random(len(data)) < 0.3
    data["relevant"] = data["relevant"].astype(float).mask(unjudged)
    metrics = [*_relevance_metrics(), *ITEM_METRICS]
    want = data.rank_eval.evaluate(metrics, by="theme", unjudged="condense")
    got = spark.createDataFrame(data).rank_eval.evaluate(metrics, by="theme", unjudged="condense")
    pd.testing.assert_frame_equal(
        got.astype({"theme": object}), want.astype({"theme": object}), check_exact=True
    )
    kept = data.rank_eval.evaluate(metrics, by="theme", unjudged="nonrelevant")
    assert not np.allclose(want.iloc[:, 1:].to_numpy(float), kept.iloc[:, 1:].to_numpy(float))


def test_exposure_metrics_match_pandas_bit_for_bit(spark: Any) -> None:
    # issue 37: the grades of the entries (the cascade model, the merit) cross the seam
    data = generated(seed=5)
    groups = {item: ("a", "b", "c")[int(item) % 3] for item in data["item"].unique()}
    metrics = ["exposure@3", "exposure_ratio@10", "exposure_gap@3", "awrf@10", "ndkl@3"]
    options = {"item_groups": groups, "browsing": "cascade", "stop": 0.7}
    want = data.rank_eval.evaluate(metrics, by="theme", **options)
    got = spark.createDataFrame(data).rank_eval.evaluate(metrics, by="theme", **options)
    pd.testing.assert_frame_equal(
        got.astype({"theme": object}), want.astype({"theme": object}), check_exact=True
    )
    assert len(want.columns) == 3 * 3 + 2 + 2  # a column per group of three metrics


def test_slices_gaps_sample_size_and_samples_match_pandas(spark: Any) -> None:
    # issues 36 and 37: the tables built on the per-query values that cross the seam
    data = generated(seed=9, queries=60).assign(
        device=lambda d: np.where(d["query"].str[-1].astype(int) % 2 == 0, "ios", "web")
    )
    two = {"score": ["score", "other"]}
    mine, theirs = data.rank_eval(**two), spark.createDataFrame(data).rank_eval(**two)
    calls = [
        lambda ev: ev.slices(["mrr", "ndcg@3"], ["theme", "device"], min_queries=5),
        lambda ev: ev.slices(["mrr"], ["theme", "device"], baseline="score", min_queries=5),
        lambda ev: ev.gaps(["mrr"], "theme", n_permutations=200, n_resamples=50),
        lambda ev: ev.gaps(["ndcg@3"], "theme", baseline="score", test="anova", n_resamples=50),
        lambda ev: ev.sample_size(["mrr", "ndcg@3"], delta=0.1, baseline="score"),
    ]
    for call in calls:
        got, want = call(theirs), call(mine)
        got = got if isinstance(got, pd.DataFrame) else got.toArrow().to_pandas()
        pd.testing.assert_frame_equal(got.astype(object), want.astype(object), check_exact=True)
    # sampled rankings: the second system's scores as a second draw of each query
    draws = pd.concat(
        [data.assign(draw=0), data.assign(draw=1, score=data["other"])], ignore_index=True
    )
    ee = ["expected_exposure@3", "ee_disparity@3", "ee_relevance"]
    want = draws.rank_eval(sample="draw").evaluate(ee)
    got = spark.createDataFrame(draws).rank_eval(sample="draw").evaluate(ee)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


@pytest.mark.parametrize("ties", ["trec", "first", "optimistic", "average"])
def test_per_query_is_a_spark_frame_of_the_pandas_values(spark: Any, ties: str) -> None:
    data = generated(seed=3)
    metrics = ["mrr", "ndcg@3", "map", "recall@10", "r_precision"]
    want = data.rank_eval.per_query(metrics, by="theme", ties=ties)
    got = spark.createDataFrame(data).rank_eval.per_query(metrics, by="theme", ties=ties)
    assert type(got).__module__.startswith("pyspark.sql")
    got = got.toArrow().to_pandas()  # (pyspark's toPandas warns under pandas 3)
    pd.testing.assert_frame_equal(got.astype(object), want.astype(object), check_exact=True)


@pytest.mark.parametrize("convention", ["lenskit", "recommenders"])
def test_presets_per_metric_rules_match_pandas(spark: Any, convention: str) -> None:
    # issue 35: grades -1 to 2 (queries whose grades are all 0 or less, some negative: ndcg
    # counts them under lenskit) and a query that retrieved nothing (ndcg counts it under
    # recommenders, the others give NaN)
    data = generated(seed=11).assign(relevant=lambda d: d["relevant"] - 1)
    data.loc[data["query"] == data["query"].iloc[0], "score"] = np.nan
    metrics = ["ndcg@3", "dcg", "precision@3", "recall@3", "map", "mrr"]
    want = data.rank_eval.per_query(metrics, by="theme", convention=convention)
    got = spark.createDataFrame(data).rank_eval.per_query(
        metrics, by="theme", convention=convention
    )
    got = got.toArrow().to_pandas()
    pd.testing.assert_frame_equal(got.astype(object), want.astype(object), check_exact=True)
    means = data.rank_eval.evaluate(metrics, convention=convention)
    assert (
        spark.createDataFrame(data).rank_eval.evaluate(metrics, convention=convention).equals(means)
    )


def test_scalars_segments_intervals_and_compare(spark: Any) -> None:
    data = generated(seed=5)
    sdf = spark.createDataFrame(data)
    assert sdf.rank_eval.ndcg(k=3) == data.rank_eval.ndcg(k=3)
    got, want = sdf.rank_eval.mrr(by="theme"), data.rank_eval.mrr(by="theme")
    assert got.to_dict() == want.to_dict()
    interval = {"confidence_level": 0.9, "n_resamples": 200, "tidy": True}
    want = data.rank_eval.evaluate(["mrr", "map"], **interval)
    got = sdf.rank_eval.evaluate(["mrr", "map"], **interval)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    two = {"score": ["score", "other"]}
    want = data.rank_eval(**two).compare(["ndcg@3", "mrr"], test="permutation", n_permutations=500)
    got = sdf.rank_eval(**two).compare(["ndcg@3", "mrr"], test="permutation", n_permutations=500)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def _frame_of(table: Any) -> pd.DataFrame:
    """A result as a pandas frame (a Spark frame read through Arrow: pyspark's toPandas
    warns under pandas 3)."""
    if type(table).__module__.startswith("pyspark.sql"):
        table = table.toArrow().to_pandas()
    return pd.DataFrame(table).astype(object)


def test_judged_estimates_and_agreement_match_pandas(spark: Any) -> None:
    """gold=: every estimate of every metric averaged over queries, compare(estimate=) and
    agreement()'s five tables, per segment, as pandas gives them (its values are tested
    against ppi_py, scikit-learn, krippendorff and scipy in tests/statistics)."""
    data = judged_frame()
    metrics = [m for m in _relevance_metrics() if m.definition.aggregate == "mean"]
    bound = {"score": ["a", "b", "c"], "relevant": "llm", "gold": "human"}
    want, got = data.rank_eval(**bound), spark.createDataFrame(data).rank_eval(**bound)
    for estimate in ("ppi", "ppi++", "gold", "judge"):
        pd.testing.assert_frame_equal(
            _frame_of(got.evaluate(metrics, estimate=estimate, by="theme")),
            _frame_of(want.evaluate(metrics, estimate=estimate, by="theme")),
            check_exact=True,
        )
    pd.testing.assert_frame_equal(
        _frame_of(got.compare(metrics, estimate="ppi", baseline="a")),
        _frame_of(want.compare(metrics, estimate="ppi", baseline="a")),
        check_exact=True,
    )
    theirs, ours = want.agreement(metrics, by="theme"), got.agreement(metrics, by="theme")
    for table in ("grades", "confusion", "bias", "orders", "conclusions"):
        pd.testing.assert_frame_equal(
            _frame_of(getattr(ours, table)), _frame_of(getattr(theirs, table)), check_exact=True
        )


def test_report_history_and_plots_read_spark_results(spark: Any, tmp_path: Path) -> None:
    """report() reads its per-query rows back from Spark (it failed under pandas 3 through
    pyspark's toPandas), History.record takes per_query's Spark DataFrame, and the plots
    read it: the pandas accessor's tables."""
    data = generated(seed=23)
    two = {"score": ["score", "other"]}
    metrics = ["ndcg@3", "mrr"]
    got = spark.createDataFrame(data).rank_eval(**two).report(metrics, by="theme")
    want = data.rank_eval(**two).report(metrics, by="theme")
    for table in ("summary", "segments", "comparison", "wtl"):
        pd.testing.assert_frame_equal(
            getattr(got, table), getattr(want, table), check_exact=True, obj=table
        )
    store = rankframe.History(tmp_path / "h.duckdb")
    run = store.record(spark.createDataFrame(data).rank_eval.per_query(metrics))
    loaded = store.load(run_id=run, kind="per_query")  # load() reads evaluations unless told
    want_rows = data.rank_eval.per_query(metrics)
    for metric in metrics:
        recorded = loaded.loc[loaded["metric"] == metric, "value"].to_numpy()
        np.testing.assert_array_equal(np.sort(recorded), np.sort(want_rows[metric].to_numpy()))
    from rankframe.adapters.results import as_pandas  # what the plots read a table as

    rows = as_pandas(spark.createDataFrame(data).rank_eval.per_query(metrics))
    assert rows is not None
    rows = rows.sort_values("query", ignore_index=True)
    np.testing.assert_array_equal(
        rows[metrics].to_numpy(),
        want_rows.sort_values("query", ignore_index=True)[metrics].to_numpy(),
    )


def test_time_windows_match_pandas(spark: Any) -> None:
    # each query's rows spread over a few days around week boundaries (UTC): its earliest
    # row decides its week, in every part as in one frame
    data = generated(seed=19)
    rng = np.random.default_rng(19)
    hours = rng.integers(0, 24 * 7 * 6, size=len(data))
    data["served_at"] = pd.Timestamp("2024-01-01", tz="UTC") + pd.to_timedelta(hours, "h")
    sdf = spark.createDataFrame(data)
    options = {"every": "1w", "by": "theme", "confidence_level": 0.9, "n_resamples": 200}
    want = data.rank_eval(time="served_at").evaluate(["mrr", "ndcg@3"], **options)
    got = sdf.rank_eval(time="served_at").evaluate(["mrr", "ndcg@3"], **options)
    assert list(got.columns) == list(want.columns)
    assert list(got.columns[:2]) == ["window", "theme"]
    # the same instants (Spark gives timestamps in its session's zone, in microseconds)
    assert got["window"].dt.tz_convert("UTC").tolist() == want["window"].tolist()
    values = [c for c in want.columns if c != "window"]
    pd.testing.assert_frame_equal(
        got[values].astype({"theme": object}),
        want[values].astype({"theme": object}),
        check_exact=True,
    )


def test_windows_are_cut_in_the_sessions_time_zone(spark: Any) -> None:
    """A Spark TIMESTAMP is an instant shown in the session's zone
    (``spark.sql.session.timeZone``): weeks are cut in that zone. q1 is served on Sunday
    2024-01-07 at 23:30 in Berlin (22:30 UTC), q2 on Monday 2024-01-08 at 00:30 in Berlin
    (Sunday 23:30 UTC). q1's relevant item is first (RR 1), q2's second (RR 1/2). In
    Berlin's weeks they fall in two weeks (1 and 1/2); in UTC's, both in the week of
    2024-01-01 (mean 3/4)."""
    served = pd.to_datetime(["2024-01-07 23:30"] * 2 + ["2024-01-08 00:30"] * 2)
    data = pd.DataFrame(
        {
            "query": ["q1", "q1", "q2", "q2"],
            "item": ["a", "b", "a", "b"],
            "score": [0.9, 0.1, 0.9, 0.1],
            "relevant": [1, 0, 0, 1],
            "served_at": served.tz_localize("Europe/Berlin"),
        }
    )
    sdf = spark.createDataFrame(data)
    expected = {
        "Europe/Berlin": (
            [
                pd.Timestamp("2024-01-01", tz="Europe/Berlin"),
                pd.Timestamp("2024-01-08", tz="Europe/Berlin"),
            ],
            [1.0, 0.5],
        ),
        "UTC": ([pd.Timestamp("2024-01-01", tz="UTC")], [0.75]),
    }
    before = spark.conf.get("spark.sql.session.timeZone")
    try:
        for zone, (weeks, means) in expected.items():
            spark.conf.set("spark.sql.session.timeZone", zone)
            got = sdf.rank_eval(time="served_at").evaluate(["mrr"], every="1w")
            assert [str(w.tz) for w in got["window"]] == [zone] * len(weeks)
            assert got["window"].tolist() == weeks
            assert got["mrr"].tolist() == means
            # pandas, on the column shown in the same zone
            shown = data.assign(served_at=data["served_at"].dt.tz_convert(zone))
            assert shown.rank_eval(time="served_at").mrr(every="1w").tolist() == means
    finally:
        spark.conf.set("spark.sql.session.timeZone", before)


def test_compare_with_a_reference_and_the_previous_window_match_pandas(spark: Any) -> None:
    # the reference: the same queries scored by `other` (paired) in the theme news, other
    # query ids in the other themes (two samples); a Spark reference and a pandas one
    data = generated(seed=23)
    rng = np.random.default_rng(23)
    data["served_at"] = pd.Timestamp("2024-01-01", tz="UTC") + pd.to_timedelta(
        rng.integers(0, 24 * 7 * 4, size=len(data)), "h"
    )
    reference = data.assign(score=data["other"])
    renamed = reference["theme"] != "news"
    reference.loc[renamed, "query"] = "r" + reference.loc[renamed, "query"]
    sdf, sref = spark.createDataFrame(data), spark.createDataFrame(reference)
    options = {"by": "theme", "test": "permutation", "n_permutations": 300, "n_resamples": 200}
    want = data.rank_eval.compare(["mrr", "ndcg@3"], reference=reference, **options)
    for other in (sref, reference):
        got = sdf.rank_eval.compare(["mrr", "ndcg@3"], reference=other, **options)
        pd.testing.assert_frame_equal(
            got.astype({"theme": object}), want.astype({"theme": object}), check_exact=True
        )
    assert set(want["paired"]) == {True, False}  # both kinds of comparison were made
    # each week against the previous week (one score column is enough)
    want = data.rank_eval(time="served_at").compare(["mrr"], every="1w", **options)
    got = sdf.rank_eval(time="served_at").compare(["mrr"], every="1w", **options)
    assert list(got.columns) == list(want.columns)
    for column in ("window", "reference_window"):
        assert got[column].dt.tz_convert("UTC").tolist() == want[column].tolist()
    values = [c for c in want.columns if c not in ("window", "reference_window")]
    pd.testing.assert_frame_equal(
        got[values].astype({"theme": object}),
        want[values].astype({"theme": object}),
        check_exact=True,
    )


def test_rank_is_a_spark_frame_of_the_pandas_ranks(spark: Any) -> None:
    data = generated(seed=11, queries=12)
    got = spark.createDataFrame(data).rank_eval.rank().toArrow().to_pandas()
    want = data.rank_eval.rank()
    got = got.sort_values(["query", "item"]).reset_index(drop=True)
    want = want.sort_values(["query", "item"]).reset_index(drop=True)
    assert got["rank"].astype("Int64").tolist() == want["rank"].tolist()


def test_partitioned_skips_the_shuffle_with_the_same_values(spark: Any) -> None:
    data = generated(seed=13)
    laid_out = spark.createDataFrame(data).repartition(PARTS, "query")
    got = rankframe.spark.rank_eval(laid_out, partitioned=True)
    assert got.evaluate(["mrr", "ndcg@10"]).equals(data.rank_eval.evaluate(["mrr", "ndcg@10"]))
    plan = laid_out.rank_eval  # registered: the same accessor, shuffling
    assert plan.mrr() == data.rank_eval.mrr()


def _cut(spark: Any, data: pd.DataFrame) -> Any:
    """``data`` in its row order, cut into partitions by position: the queries at a cut
    straddle two partitions (checked)."""
    table = pa.Table.from_pandas(data.assign(_order=np.arange(len(data))), preserve_index=False)
    frame = spark.createDataFrame(table).repartitionByRange(PARTS, "_order").drop("_order")
    seen = frame.select(
        functions.to_json(functions.struct("query")).alias("query"),
        functions.spark_partition_id().alias("part"),
    ).toArrow()
    parts = seen.to_pandas().groupby("query")["part"].nunique()
    assert (parts > 1).any(), "no query straddles two partitions"
    return frame


def test_partitioned_recomputes_queries_cut_across_partitions(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``partitioned=True`` on rows not laid out by query still gives the pandas values:
    the queries found in two partitions are computed again from all their rows; beyond
    ``_STRADDLING`` of them, the whole frame is shuffled."""
    data = generated(seed=19)
    cut = _cut(spark, data)
    metrics = ["mrr", "ndcg@10", "map", "precision@3"]
    want = data.rank_eval.evaluate(metrics, by="theme")
    got = rankframe.spark.rank_eval(cut, partitioned=True).evaluate(metrics, by="theme")
    pd.testing.assert_frame_equal(got, want)
    per_query = rankframe.spark.rank_eval(cut, partitioned=True).per_query(metrics)
    got_rows = per_query.toArrow().to_pandas().sort_values("query", ignore_index=True)
    want_rows = data.rank_eval.per_query(metrics).sort_values("query", ignore_index=True)
    assert got_rows["query"].tolist() == want_rows["query"].tolist()
    np.testing.assert_array_equal(got_rows[metrics].to_numpy(), want_rows[metrics].to_numpy())
    monkeypatch.setattr(spark_adapter, "STRADDLING_QUERIES", 0)
    again = rankframe.spark.rank_eval(cut, partitioned=True).evaluate(metrics, by="theme")
    pd.testing.assert_frame_equal(again, want)


def test_partitioned_recomputes_composite_query_ids_cut_across_partitions(spark: Any) -> None:
    """Query ids of two parts (Arrow lists) straddling partitions: the whole frame is
    shuffled again (no ``isin`` on lists), with the pandas values."""
    data = generated(seed=29)
    data["query"] = [(int(q[1:]) % 4, int(q[1:])) for q in data["query"]]
    cut = _cut(
        spark,
        data.assign(
            query=pd.Series(
                pd.arrays.ArrowExtensionArray(pa.array([list(q) for q in data["query"]]))
            )
        ),
    )
    metrics = ["mrr", "ndcg@10", "map"]
    want = data.rank_eval.evaluate(metrics)
    got = rankframe.spark.rank_eval(cut, partitioned=True).evaluate(metrics)
    pd.testing.assert_frame_equal(got, want)


def test_composite_keys_and_an_empty_frame_as_pandas(spark: Any) -> None:
    """``query=`` and ``item=`` lists: the pandas values, the key columns by name (and with
    ``partitioned=True`` on queries cut across partitions); no rows: the pandas error."""
    data = generated(seed=31)
    number = data["query"].str[1:].astype(int)
    data = data.assign(user=number % 4, session=number, shelf=data["item"].astype(int) % 3)
    keys = {"query": ["user", "session"], "item": ["shelf", "item"]}
    metrics = ["mrr", "ndcg@10", "coverage@3"]
    want = data.rank_eval(**keys).evaluate(metrics, by="theme")
    got = spark.createDataFrame(data).rank_eval(**keys).evaluate(metrics, by="theme")
    pd.testing.assert_frame_equal(
        got.astype({"theme": object}), want.astype({"theme": object}), check_exact=True
    )
    cut = rankframe.spark.rank_eval(_cut(spark, data), partitioned=True)(**keys)
    rows = cut.per_query(["mrr"]).toArrow().to_pandas()
    rows = rows.sort_values(["user", "session"], ignore_index=True)
    want_rows = data.rank_eval(**keys).per_query(["mrr"])
    assert list(rows.columns) == ["user", "session", "mrr"]
    pd.testing.assert_frame_equal(rows, want_rows, check_dtype=False)
    matched_nothing = spark.createDataFrame(data).where(functions.col("relevant") > 9)
    with pytest.raises(InvalidDataError, match="The frame has no rows"):
        matched_nothing.rank_eval.mrr()


def test_partitioned_sees_a_by_column_that_differs_across_a_cut(spark: Any) -> None:
    """The two halves of a cut query each hold one theme: the pandas error all the same."""
    data = generated(seed=19)
    seen = (
        _cut(spark, data)
        .select("query", functions.spark_partition_id().alias("part"))
        .toArrow()
        .to_pandas()
    )
    straddling = seen.groupby("query")["part"].nunique().loc[lambda n: n > 1].index[0]
    rows = data.index[data["query"] == straddling]
    data.loc[rows[-1], "theme"] = "elsewhere"
    with pytest.raises(rankframe.RankEvalError) as want:
        data.rank_eval.evaluate(["mrr"], by="theme")
    with pytest.raises(rankframe.RankEvalError) as got:
        rankframe.spark.rank_eval(_cut(spark, data), partitioned=True).evaluate(["mrr"], by="theme")
    assert type(got.value) is type(want.value)
    assert str(got.value) == str(want.value)


# -- errors: message for message --------------------------------------------------------------


def _bad(column: str, at: int, value: Any) -> pd.DataFrame:
    """The generated frame with one cell changed (``None``: a null; grades as floats)."""
    data = generated(seed=17, queries=10)
    if column == "relevant":
        data = data.astype({"relevant": float})
    data.loc[at, column] = value
    return data


def _duplicate() -> pd.DataFrame:
    """The first query of two rows or more gets its first item twice."""
    data = generated(seed=17, queries=10)
    second = int(np.flatnonzero(data["query"].to_numpy()[1:] == data["query"].to_numpy()[:-1])[0])
    data.loc[second + 1, "item"] = data.loc[second, "item"]
    return data


ERRORS = {
    "null grade": (lambda: _bad("relevant", 9, None), {}),
    "null item": (lambda: _bad("item", 4, None), {}),
    "null query": (lambda: _bad("query", 6, None), {}),
    "text score": (lambda: generated(queries=5).astype({"score": str}), {}),
    "duplicate item": (_duplicate, {}),
    "by varies": (lambda: _bad("theme", 2, "other"), {"by": "theme"}),
    "no relevant item": (lambda: generated(queries=6).assign(relevant=0), {"empty": "error"}),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_match_pandas(spark: Any, case: str) -> None:
    make, options = ERRORS[case]
    data = make()
    metrics = [m for m in _relevance_metrics() if not METRICS[m.name].param.required][:40]
    with pytest.raises(rankframe.RankEvalError) as want:
        data.rank_eval.evaluate(metrics, **options)
    with pytest.raises(rankframe.RankEvalError) as got:
        spark.createDataFrame(data).rank_eval.evaluate(metrics, **options)
    assert type(got.value) is type(want.value)
    assert str(got.value) == str(want.value)
    assert isinstance(got.value, InvalidDataError | EmptyQueryError)


@pytest.mark.parametrize("case", ["null grade", "null item", "null query", "text score"])
def test_rank_raises_the_pandas_error_of_nulls_and_dtypes_at_once(spark: Any, case: str) -> None:
    """rank() is lazy, but the whole frame's nulls and dtypes are checked when it is called:
    the pandas message, naming the frame's rows (not a bucket's)."""
    data = ERRORS[case][0]()
    with pytest.raises(rankframe.RankEvalError) as want:
        data.rank_eval.rank()
    with pytest.raises(rankframe.RankEvalError) as got:
        spark.createDataFrame(data).rank_eval.rank()  # no action: raised by the call
    assert type(got.value) is type(want.value)
    assert str(got.value) == str(want.value)


# -- installing pyspark changes nothing else --------------------------------------------------


def test_the_cli_prints_one_error_line_with_pyspark_installed(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("query,item,score,relevant\nq1,a,0.5,1\nq1,a,0.4,0\nq2,a,0.4,0\n")
    done = subprocess.run(
        [sys.executable, "-m", "rankframe.cli", "evaluate", str(path), "-m", "mrr"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("rankframe: error: Item 'a' appears 2 times")


def test_any_column_name(spark: Any) -> None:
    # Spark reads a name holding a backtick or a dot as a path unless it is quoted
    data = generated(seed=19, queries=8)
    names = {"query": "user `id`", "score": "model.v2", "theme": "a b"}
    sdf = spark.createDataFrame(data.rename(columns=names))
    accessor = sdf.rank_eval(query="user `id`", score="model.v2")
    got = accessor.evaluate(["mrr", "ndcg@3"], by="a b")
    want = data.rank_eval.evaluate(["mrr", "ndcg@3"], by="theme").rename(columns=names)
    pd.testing.assert_frame_equal(
        got.astype({"a b": object}), want.astype({"a b": object}), check_exact=True
    )
    ranked = accessor.rank().toArrow().to_pandas()
    assert list(ranked.columns) == [*data.rename(columns=names).columns, "rank"]


def test_without_pyspark_the_import_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['pyspark'] = None\n"  # as if pyspark were not installed
        "import rankframe\n"
        "try:\n    import rankframe.spark\nexcept ImportError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "The Spark accessor needs pyspark: pip install 'rankframe[spark]'"
    assert done.stderr == ""


# -- from_lists: one row per query with list columns ------------------------------------------


def _in_parts(spark: Any, data: pd.DataFrame) -> Any:
    """``data`` as a Spark frame of ``PARTS`` partitions, cut by position: its row order is
    ``data``'s, partitions in order (checked)."""
    frame = (
        spark.createDataFrame(data.assign(_order=np.arange(len(data))))
        .repartitionByRange(PARTS, "_order")
        .drop("_order")
    )
    parts = frame.select(functions.spark_partition_id().alias("part")).toArrow()["part"]
    assert parts.to_pylist() == sorted(parts.to_pylist())
    assert len(set(parts.to_pylist())) == PARTS
    return frame


LISTS = pd.DataFrame(
    {
        "query": ["u1", "u2", "u3", "u4", "u5", "u6"],
        # u3: no recommendations; "z" (u1) is not in the truth; "k" (u2) is never recommended
        "recommended": [["a", "z", "b"], ["c", "d"], [], ["a", "b", "c", "d"], ["e"], ["b", "a"]],
        "relevant": [["b", "a"], ["k", "c"], ["a"], ["d", "a"], [], ["a"]],
        "grades": [[2, 1], [3, 1], [1], [1, 2], [], [2]],
        "theme": ["news", "food", "news", "sport", "food", "news"],
    }
)


def test_from_lists_gives_the_pandas_rows_and_values(spark: Any) -> None:
    want = rankframe.from_lists(LISTS, grades="grades")
    sdf = _in_parts(spark, LISTS)
    long = rankframe.from_lists(sdf, grades="grades")
    got = long.toArrow().to_pandas()
    order = ["query", "item"]
    pd.testing.assert_frame_equal(
        got.sort_values(order, ignore_index=True),
        want.sort_values(order, ignore_index=True),
        check_exact=True,
    )
    metrics = ["mrr", "ndcg@3", "map", "recall@2", "precision@2", "num_rel"]
    pd.testing.assert_frame_equal(
        long.rank_eval.evaluate(metrics, by="theme"),
        want.rank_eval.evaluate(metrics, by="theme"),
        check_exact=True,
    )


def _set(data: pd.DataFrame, row: int, column: str, value: Any) -> None:
    """One cell of a column of lists set to a list (or None)."""
    cells = data[column].tolist()
    cells[row] = value
    data[column] = pd.Series(cells, index=data.index, dtype=object)


def _lists_case(change: str) -> tuple[pd.DataFrame, dict[str, str]]:
    data = LISTS.copy()
    if change == "item twice":
        _set(data, 4, "recommended", ["e", "f", "e"])
    elif change == "query twice":  # rows 1 and 5: the first and the last partition
        data.loc[5, "query"] = "u2"
    elif change == "null query":  # in the last partition: its row counts those before it
        data.loc[4, "query"] = None
    elif change == "not a list":
        data["recommended"] = data["recommended"].str.join(" ")
    elif change == "grades of another length":
        _set(data, 3, "grades", [1])
    elif change == "errors in two partitions":
        # a repeated truth item in the first partition, a null list in the last: pandas
        # checks the null lists of the whole column before any repeat, so names u6
        _set(data, 0, "relevant", ["b", "b"])
        _set(data, 0, "grades", [1, 1])
        _set(data, 5, "recommended", None)
    return data, ({"relevant": "truth"} if change == "missing column" else {"grades": "grades"})


@pytest.mark.parametrize(
    "change",
    [
        "item twice",
        "query twice",
        "not a list",
        "missing column",
        "grades of another length",
        "errors in two partitions",
        "null query",
    ],
)
def test_from_lists_raises_the_pandas_errors(spark: Any, change: str) -> None:
    data, options = _lists_case(change)
    with pytest.raises(rankframe.RankEvalError) as want:
        rankframe.from_lists(data, **options)
    with pytest.raises(rankframe.RankEvalError) as got:
        rankframe.from_lists(_in_parts(spark, data), **options)  # no action: raised by the call
    assert type(got.value) is type(want.value)
    assert str(got.value) == str(want.value)


def test_null_scores_warn_as_pandas(spark: Any) -> None:
    """Null scores counted over every partition, said once on the driver with the pandas
    accessor's words; a score column without a score, the pandas error."""
    data = generated(seed=17, queries=12).assign(new=np.nan)
    data.loc[::5, "score"] = np.nan
    with pytest.warns(rankframe.RankEvalWarning) as want:
        expected = data.rank_eval.evaluate(["mrr"])
    with pytest.warns(rankframe.RankEvalWarning) as got:
        table = spark.createDataFrame(data).rank_eval.evaluate(["mrr"])
    said = [str(w.message) for w in got if issubclass(w.category, rankframe.RankEvalWarning)]
    assert said == [
        str(w.message) for w in want if issubclass(w.category, rankframe.RankEvalWarning)
    ]
    assert len(said) == 1
    assert table.equals(expected)
    with pytest.raises(rankframe.InvalidDataError) as want_error:
        data.rank_eval(score=["score", "new"]).evaluate(["mrr"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankframe.RankEvalWarning)  # raised before any
        with pytest.raises(rankframe.InvalidDataError) as got_error:
            spark.createDataFrame(data).rank_eval(score=["score", "new"]).evaluate(["mrr"])
    assert str(got_error.value) == str(want_error.value)
    assert (got_error.value.problem, got_error.value.column, got_error.value.count) == (
        "nothing_retrieved",
        "new",
        len(data),
    )
