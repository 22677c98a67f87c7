"""The Dask accessor on a real cluster, and what is specific to partitions.

The value tests that take a frame also run on Dask through the shared ``make_frame`` fixture
(three partitions, the threaded scheduler): values and error messages equal pandas'. The
option and error grids (tests/input/test_errors.py, tests/metrics/test_options_reference.py,
test_labels.py, test_conventions.py) leave Dask out (``helpers.GRID_KINDS``): this module's
one-call-per-case tests stand in for them, as tests/backends/test_spark.py's do for Spark —
every registered metric, every option, every ``convention=`` preset and every error class at
least once on Dask, equal to pandas (``VALUE_CASES``, ``ERROR_CASES``), and
``test_dask_cases_cover_every_metric_option_and_error_class`` asserts that coverage against
the registry, the options table, the presets and the error classes. This module also keeps
what needs a cluster or a particular partitioning: a ``distributed.LocalCluster``
(2 worker processes) runs every computation of this module (errors and their fields pickled
from the workers), the shuffle and when it is skipped, the index, parquet datasets. The
frames put the rows of each query in several partitions (rows in random order, 4 partitions),
so every result goes through the shuffle on the query column. Each result is compared with the
pandas accessor on the same rows (``ddf.compute()``: Dask stores strings as ``string[pyarrow]``,
so that is the pandas frame the user gets back).

Per-query values are compared exactly. Means are compared to 1e-12 relative.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
import pytest

import rankframe
from helpers import all_metrics
from rankframe import METRICS, EmptyQueryError, Metric, RankEvalError, parse_metric
from rankframe.exceptions import TrackingError, TrecFormatError
from rankframe.settings.conventions import CONVENTIONS
from rankframe.settings.options import OPTIONS

RTOL = 1e-12
SOME_METRICS = [
    "mrr@5",
    "ndcg@10",
    "ndcg",
    "map",
    "map@5",
    "acc@1",
    "precision@3",
    "recall@10",
    "r_precision",
]


@pytest.fixture(scope="module", autouse=True)
def client() -> Iterator[Any]:
    """A local cluster of two worker processes; every compute of the module runs on it.
    Under pytest-xdist the module runs on one worker (tests/conftest.py, WORKER_GROUPS): one
    cluster for the whole run."""
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit="2GiB",
            dashboard_address=":0",  # any free port: never "port 8787 is already in use"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def generated(seed: int, n_queries: int = 60, *, int_queries: bool = False) -> pd.DataFrame:
    """A long frame with heavy ties, unretrieved rows, ±inf, empty queries, two `by` columns;
    rows in random order."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 30, size=n_queries)
    query = np.repeat(np.arange(n_queries), lengths)
    n = len(query)
    position = np.arange(n) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    score = np.round(rng.random(n), 1)
    score[rng.random(n) < 0.1] = np.nan  # judged, not retrieved
    score[rng.random(n) < 0.02] = np.inf
    grade = rng.choice([-1, 0, 0, 0, 1, 2, 3], size=n)
    grade[(rng.random(n_queries) < 0.15)[query]] = 0  # queries without a relevant item
    frame = pd.DataFrame(
        {
            "query": query * 10 if int_queries else np.char.add("q", query.astype(str)),
            "item": np.char.add("d", (position * 37 % 1009).astype(str)),
            "score": score,
            "relevant": grade,
            "theme": np.array(["news", "sport", "tech"])[query % 3],
            "cohort": query % 2,
        }
    )
    return frame.iloc[rng.permutation(n)].reset_index(drop=True)


def dask_and_pandas(frame: pd.DataFrame, npartitions: int = 4) -> tuple[Any, pd.DataFrame]:
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    return ddf, ddf.compute()


@pytest.fixture(scope="module")
def frames() -> tuple[Any, pd.DataFrame]:
    return dask_and_pandas(generated(0))


def assert_same(lazy: Any, expected: Any, *, exact: bool = False) -> None:
    """``lazy`` is a Dask object that computes to ``expected``."""
    assert dask_collection(lazy), type(lazy)
    got = lazy.compute()
    if isinstance(expected, float):
        assert isinstance(got, float), type(got)
        assert got == pytest.approx(expected, rel=RTOL, nan_ok=True)
    elif isinstance(expected, pd.Series):
        pd.testing.assert_series_equal(got, expected, check_exact=exact, rtol=RTOL)
    else:
        pd.testing.assert_frame_equal(got, expected, check_exact=exact, rtol=RTOL)


def dask_collection(value: Any) -> bool:
    from dask import is_dask_collection

    return bool(is_dask_collection(value))


# -- the data really is spread out -----------------------------------------------------------


def test_queries_straddle_partitions(frames: tuple[Any, pd.DataFrame]) -> None:
    ddf, pdf = frames
    pairs = ddf.map_partitions(lambda p: p[["query"]].drop_duplicates()).compute()
    assert ddf.npartitions == 4
    assert len(pairs) > 2 * pdf["query"].nunique()  # most queries are in several partitions


def test_accessor_is_registered_and_binds_names(frames: tuple[Any, pd.DataFrame]) -> None:
    from rankframe.adapters.dask import DaskAdapter

    ddf, _ = frames
    assert isinstance(ddf.rank_eval, rankframe.RankEval)
    assert isinstance(ddf.rank_eval.__rankframe_binding__.frame, DaskAdapter)
    renamed = ddf.rename(columns={"query": "user", "relevant": "clicked"})
    ev = renamed.rank_eval(query="user", relevant="clicked")
    assert repr(ev) == "<rank_eval query='user' item='item' score='score' relevant='clicked'>"
    expected = renamed.compute().rank_eval(query="user", relevant="clicked").mrr(k=5)
    assert_same(ev.mrr(k=5), expected)


# -- every method, equal to pandas -----------------------------------------------------------

SCALAR_CALLS: dict[str, Callable[[Any], Any]] = {
    "mrr": lambda ev: ev.mrr(k=5),
    "acc-skip": lambda ev: ev.acc(k=1, empty="skip"),
}


@pytest.mark.parametrize("call", SCALAR_CALLS.values(), ids=SCALAR_CALLS.keys())
def test_metric_is_a_lazy_scalar(frames: tuple[Any, pd.DataFrame], call: Any) -> None:
    ddf, pdf = frames
    result = call(ddf.rank_eval)
    assert isinstance(result, dd.Scalar)
    assert_same(result, call(pdf.rank_eval))


@pytest.mark.parametrize("by", ["theme", ["theme", "cohort"]])
@pytest.mark.parametrize("empty", ["zero", "skip"])
def test_metric_by_segments_is_a_lazy_series(
    frames: tuple[Any, pd.DataFrame], by: Any, empty: str
) -> None:
    ddf, pdf = frames
    result = ddf.rank_eval.ndcg(k=10, by=by, empty=empty)
    assert isinstance(result, dd.Series)
    assert_same(result, pdf.rank_eval.ndcg(k=10, by=by, empty=empty))


@pytest.mark.parametrize("ties", ["trec", "first", "optimistic"])
def test_rank_keeps_the_index(frames: tuple[Any, pd.DataFrame], ties: str) -> None:
    ddf, pdf = frames
    result = ddf.rank_eval.rank(ties=ties, name="position")
    assert isinstance(result, dd.DataFrame)
    # rows come grouped by query; the index of each row is kept
    got = result.compute().sort_index()
    pd.testing.assert_frame_equal(got, pdf.rank_eval.rank(ties=ties, name="position"))


def test_ties_first_follows_the_frames_row_order() -> None:
    frame = generated(3)
    frame["score"] = 1.0  # every row of a query tied: the rank is the order in the frame
    ddf, pdf = dask_and_pandas(frame, npartitions=6)
    ranks = ddf.rank_eval.rank(ties="first").compute().sort_index()["rank"]
    expected = pdf.groupby("query").cumcount() + 1
    assert (ranks.to_numpy() == expected.to_numpy()).all()
    assert_same(
        ddf.rank_eval.per_query(["mrr", "ndcg@3"], ties="first"),
        pdf.rank_eval.per_query(["mrr", "ndcg@3"], ties="first"),
        exact=True,
    )


# -- frames already partitioned by query: no shuffle -----------------------------------------


def _shuffles(result: Any) -> int:
    keys = result.__dask_graph__().keys()
    return sum("shuffle" in str(key) for key in keys)


def test_query_as_index_with_divisions_skips_the_shuffle(frames: tuple[Any, pd.DataFrame]) -> None:
    ddf, pdf = frames
    # like read_parquet(path, index="query", calculate_divisions=True) on data sorted by query
    indexed = ddf.set_index("query").persist()
    assert indexed.known_divisions
    assert _shuffles(ddf.rank_eval.evaluate(SOME_METRICS)) > 0
    result = indexed.rank_eval.evaluate(SOME_METRICS, by="theme")
    assert _shuffles(result) == 0
    assert_same(result, pdf.rank_eval.evaluate(SOME_METRICS, by="theme"))
    assert_same(
        indexed.rank_eval.per_query(SOME_METRICS), pdf.rank_eval.per_query(SOME_METRICS), exact=True
    )
    # rank gives the frame back with its index (the query) and the rank column
    ranked = indexed.rank_eval.rank().compute()
    assert ranked.index.name == "query"
    expected = pdf.rank_eval.rank()
    pd.testing.assert_frame_equal(
        ranked.reset_index().sort_values(["query", "item"], ignore_index=True),
        expected[ranked.reset_index().columns].sort_values(["query", "item"], ignore_index=True),
    )


def test_partitions_do_not_wait_for_the_null_check(frames: tuple[Any, pd.DataFrame]) -> None:
    # Without a shuffle, a partition that waited for the check of the whole frame would keep
    # every input partition in memory until the last one is read. Only the last step waits.
    ddf, _ = frames
    indexed = ddf.set_index("query").persist()
    graph = dict(indexed.rank_eval.evaluate(SOME_METRICS).__dask_graph__())
    check = {key for key in graph if "customreduction" in str(key)}
    partitions = [task for key, task in graph.items() if "_map_part" in str(key)]
    assert check
    assert len(partitions) == indexed.npartitions
    assert all(not (task.dependencies & check) for task in partitions)


def test_query_as_index_without_divisions_is_shuffled(frames: tuple[Any, pd.DataFrame]) -> None:
    ddf, pdf = frames
    indexed = ddf.set_index("query").clear_divisions().persist()
    result = indexed.rank_eval.per_query(SOME_METRICS)
    assert _shuffles(result) > 0
    assert_same(result, pdf.rank_eval.per_query(SOME_METRICS), exact=True)


def test_one_partition_is_not_shuffled() -> None:
    ddf, pdf = dask_and_pandas(generated(4), npartitions=1)
    result = ddf.rank_eval.evaluate(SOME_METRICS, by="cohort")
    assert _shuffles(result) == 0
    assert_same(result, pdf.rank_eval.evaluate(SOME_METRICS, by="cohort"))


def test_parquet_dataset(tmp_path: Any) -> None:
    frame = generated(5).assign(unused=1.5)
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    ddf = dd.read_parquet(tmp_path)
    pdf = ddf.compute()
    assert_same(
        ddf.rank_eval.evaluate(SOME_METRICS, by="theme"),
        pdf.rank_eval.evaluate(SOME_METRICS, by="theme"),
    )
    assert_same(
        ddf.rank_eval.per_query(SOME_METRICS), pdf.rank_eval.per_query(SOME_METRICS), exact=True
    )


def test_empty_frame() -> None:
    """No rows: the pandas accessor's error, raised when the result is computed."""
    ddf, pdf = dask_and_pandas(generated(0).iloc[:0], npartitions=1)
    for call in (lambda ev: ev.mrr(), lambda ev: ev.evaluate(["mrr"], by="theme")):
        with pytest.raises(rankframe.InvalidDataError, match="The frame has no rows") as want:
            call(pdf.rank_eval)
        result = call(ddf.rank_eval)  # lazy: nothing runs yet
        with pytest.raises(rankframe.InvalidDataError) as got:
            result.compute()
        assert str(got.value) == str(want.value)


# -- errors: raised on the workers, the pandas accessor's messages on the client ------------


def pandas_error(call: Callable[[Any], Any], frame: pd.DataFrame) -> Exception:
    with pytest.raises(rankframe.RankEvalError) as info:
        call(frame.rank_eval)
    return info.value


def _with(frame: pd.DataFrame, rows: list[int], column: str, value: Any) -> pd.DataFrame:
    out = frame.copy()
    if value is None or (isinstance(value, float) and np.isnan(value)):
        out[column] = out[column].astype(object if out[column].dtype.kind not in "f" else float)
    out.loc[rows, column] = value
    return out


DATA_ERRORS: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
    # rows in different partitions: the count and the first row are those of the whole frame
    "null-relevant": lambda f: _with(f, [900, 10, 400], "relevant", np.nan),
    "null-query": lambda f: _with(f, [700, 800], "query", None),
    "null-item": lambda f: _with(f, [650], "item", None),
    "non-numeric-score": lambda f: f.assign(score=f["score"].astype(str)),
    "infinite-grade": lambda f: _with(f.astype({"relevant": float}), [5], "relevant", np.inf),
    "duplicate-item": lambda f: pd.concat([f, f.iloc[[300]]], ignore_index=True),
    "by-varies": lambda f: _with(f, [3], "theme", "other"),
}


DATA_CALLS: dict[str, Callable[[Any], Any]] = {
    "ndcg-by": lambda ev: ev.ndcg(k=10, by="theme"),
    "rank": lambda ev: ev.rank(),
}


@pytest.mark.parametrize(
    ("make_bad", "call"),
    [
        pytest.param(DATA_ERRORS[error], DATA_CALLS[call], id=f"{call}-{error}")
        for call in DATA_CALLS
        for error in DATA_ERRORS
        if (call, error) != ("rank", "by-varies")  # rank takes no `by`
    ],
)
def test_data_errors_raise_at_compute_with_the_pandas_message(
    make_bad: Callable[[pd.DataFrame], pd.DataFrame], call: Callable[[Any], Any]
) -> None:
    ddf, pdf = dask_and_pandas(make_bad(generated(6)))
    expected = pandas_error(call, pdf)
    lazy = call(ddf.rank_eval)  # builds the graph without looking at the data
    with pytest.raises(type(expected)) as info:
        lazy.compute()
    assert str(info.value) == str(expected)


def test_empty_error_names_the_queries_and_keeps_its_fields() -> None:
    frame = generated(7).assign(relevant=1)
    frame.loc[frame["query"].isin(["q5", "q17"]), "relevant"] = 0  # without a relevant item
    ddf, pdf = dask_and_pandas(frame)
    expected = pandas_error(lambda ev: ev.mrr(empty="error"), pdf)
    lazy = ddf.rank_eval.mrr(empty="error")
    with pytest.raises(EmptyQueryError) as info:
        lazy.compute()
    assert str(info.value) == str(expected)
    # the fields travel from the worker process with the error
    assert (info.value.count, info.value.queries) == (2, ["q17", "q5"])


def test_a_partition_with_string_scores_gets_the_dtype_error_not_a_shuffle_failure() -> None:
    """One input partition whose scores are strings (as a CSV read in blocks can give):
    the P2P shuffle used to fail with "failed during unpack phase"."""
    ddf, _ = dask_and_pandas(generated(8))

    def spoil(part: pd.DataFrame, partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
        if partition_info is not None and partition_info["number"] == 1:
            return part.assign(score=part["score"].astype(str))
        return part

    bad = ddf.map_partitions(spoil, meta=ddf._meta)
    with pytest.raises(
        rankframe.InvalidDataError,
        match=r"Column 'score' \(score\) must be "
        r"numeric \(int or float\); got dtype (str|object)",
    ):
        bad.rank_eval.mrr(k=5).compute()


def test_without_dask_the_adapter_fails_politely() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["dask"] = None  # as if Dask were not installed
        sys.modules["dask.dataframe"] = None
        import pandas as pd
        import rankframe  # works: the Dask accessor is optional
        frame = pd.DataFrame({"query": [1], "item": [1], "score": [1.0], "relevant": [1]})
        assert frame.rank_eval.mrr() == 1.0
        try:
            import rankframe.adapters.dask
        except ImportError as error:
            print(error)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "The Dask accessor needs dask: pip install 'rankframe[dask]'"


# -- several systems -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_systems(frames: tuple[Any, pd.DataFrame]) -> tuple[Any, pd.DataFrame]:
    _, pdf = frames
    rng = np.random.default_rng(7)
    other = pdf.assign(other=np.round(rng.random(len(pdf)), 1))
    return dask_and_pandas(other)


#: the item ids of generated() (d0..d1008) in two groups, for the exposure metrics
ITEM_GROUPS = {f"d{i}": "odd" if i % 2 else "even" for i in range(1009)}

WHOLE_CALLS: dict[str, Callable[[Any], Any]] = {
    "ci": lambda ev: ev.evaluate(SOME_METRICS, confidence_level=0.9, n_resamples=200),
    "ci-by": lambda ev: ev.evaluate(
        ["mrr", "ndcg@10"], by=["theme", "cohort"], confidence_level=0.9
    ),
    "tidy": lambda ev: ev.evaluate(SOME_METRICS, by="theme", tidy=True, empty="skip"),
    "compare-permutation": lambda ev: ev.compare(
        ["mrr"], test="permutation", n_permutations=500, baseline="other"
    ),
    "slices": lambda ev: ev.slices(["mrr", "ndcg@10"], ["theme", "cohort"], min_queries=5),
    "slices-baseline-permutation": lambda ev: ev.slices(
        ["mrr"],
        ["theme", "cohort"],
        baseline="score",
        min_queries=5,
        test="permutation",
        n_permutations=300,
    ),
    "gaps": lambda ev: ev.gaps(["mrr"], "theme", n_permutations=300, n_resamples=50),
    "gaps-baseline-anova": lambda ev: ev.gaps(
        ["mrr", "ndcg@10"], ["theme", "cohort"], baseline="score", test="anova", n_resamples=50
    ),
    "exposure": lambda ev: ev.evaluate(
        ["exposure@5", "exposure_gap@5", "awrf@5", "ndkl@5"], item_groups=ITEM_GROUPS, by="theme"
    ),
}


@pytest.mark.parametrize("call", WHOLE_CALLS.values(), ids=WHOLE_CALLS.keys())
def test_whole_frame_summaries_equal_pandas(
    two_systems: tuple[Any, pd.DataFrame], call: Any
) -> None:
    """Intervals, tests and tidy tables: per-query values on the workers, the statistics
    from all of them in one partition; the same numbers as pandas (same seeds)."""
    ddf, pdf = two_systems
    scores = ["score", "other"]
    result = call(ddf.rank_eval(score=scores))
    assert isinstance(result, dd.DataFrame)
    assert_same(result, call(pdf.rank_eval(score=scores)))


def test_sample_size_on_the_cluster(two_systems: tuple[Any, pd.DataFrame]) -> None:
    """sample_size() reads the per-query values computed on the workers: pandas' table."""
    ddf, pdf = two_systems
    scores = ["score", "other"]
    for options in ({"baseline": "score"}, {"relative": True}):
        got = ddf.rank_eval(score=scores).sample_size(["mrr", "ndcg@10"], delta=0.1, **options)
        want = pdf.rank_eval(score=scores).sample_size(["mrr", "ndcg@10"], delta=0.1, **options)
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=RTOL)


def _timed(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a UTC ``served_at``: query i at day 3·i from Monday 2024-01-01 (rows of
    one query an hour apart), so its 60 queries fall in 26 weekly windows."""
    number = frame["query"].str.slice(1).astype(int).to_numpy()
    start = pd.Timestamp("2024-01-01", tz="UTC")
    hours = pd.to_timedelta(frame.groupby("query").cumcount().to_numpy(), unit="h")
    served = start + pd.to_timedelta(3 * number, unit="D") + hours
    return frame.assign(served_at=served)


def test_windows_and_reference_comparisons_on_the_cluster() -> None:
    """every= and compare(reference=) (whose reference side is computed inside the finish
    task, a nested compute) on the LocalCluster give the pandas tables."""
    current, reference = _timed(generated(3)), _timed(generated(4))
    ddf, pdf = dask_and_pandas(current)
    dref, pref = dask_and_pandas(reference)
    lazy, eager = ddf.rank_eval(time="served_at"), pdf.rank_eval(time="served_at")
    assert_same(
        lazy.evaluate(["mrr@5", "ndcg@10"], every="1w", by="theme"),
        eager.evaluate(["mrr@5", "ndcg@10"], every="1w", by="theme"),
    )
    assert_same(lazy.compare(["mrr@5"], every="2w"), eager.compare(["mrr@5"], every="2w"))
    for other, pandas_other in ((dref, pref), (pref, pref)):
        assert_same(
            lazy.compare(["mrr@5", "map"], reference=other, by="theme"),
            eager.compare(["mrr@5", "map"], reference=pandas_other, by="theme"),
        )


# -- the option and error grids' Dask kind: every metric, option, preset and error class ------
#
# The grids of tests/input/test_errors.py and tests/metrics/test_options_reference.py,
# test_labels.py and test_conventions.py run on every frame kind but Dask (helpers.GRID_KINDS);
# these cases stand in for their Dask kind, one call each on the LocalCluster, each equal to
# the pandas accessor on the same rows (issue 46).

#: every item id of generated() (d0..d1008)
ITEMS = [f"d{i}" for i in range(1009)]


def _unjudged(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every seventh row's grade null: judged nothing (``unjudged=``)."""
    grades = frame["relevant"].astype(float)
    grades[frame.index % 7 == 0] = np.nan
    return frame.assign(relevant=grades)


def _one_true_item(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with one relevant row per query (its first), the true class of top1_f1."""
    first = ~frame["query"].duplicated()
    return frame.assign(relevant=first.astype(int))


def _away_from_default(name: str, value: Any) -> bool:
    """Whether ``value`` of option ``name`` is not its declared default (data is never)."""
    default = OPTIONS[name].default
    if value is None or default is None:
        return value is not default
    return not isinstance(value, str | int | float) or value != default


def _k(name: str) -> Metric:
    """The registered metric ``name`` at a cut-off (or number) if it takes one."""
    d = METRICS[name]
    if not d.takes_k:
        return Metric(name)
    return Metric(name, 5 if d.param.integer else 0.5)


@dataclass(frozen=True)
class Case:
    """One call on Dask and on pandas: ``method`` (``per_query``: values compared exactly;
    ``evaluate``: by theme, means to ``RTOL``) of ``metrics`` with ``options``, on
    ``change(generated(0))``."""

    metrics: list[Any]
    options: dict[str, Any] = field(default_factory=dict)
    method: str = "per_query"
    change: Callable[[pd.DataFrame], pd.DataFrame] = lambda frame: frame


VALUE_CASES: dict[str, Case] = {
    # every metric of relevance at several cut-offs, trec_eval's options
    "every-relevance-metric": Case(all_metrics(ks=(1, 3, 10))),
    # the options of the metrics of relevance, each away from its default
    "relevance-options": Case(
        ["ndcg@10", "dcg@5", "map@5", "recall@10", "precision@5", "f1@5", "mrr@5"],
        {
            "gain": "exponential",
            "discount": "log2(max(rank,2))",
            "negative_gains": "keep",
            "empty_ndcg": "no_relevant_or_negative",
            "empty": "skip",
            "denominator": "min_k",
            "ap_denominator": "hits",
            "precision_denominator": "retrieved",
            "empty_list": "nan",
            "beta": 2.0,
            "min_relevance": 2,
        },
    ),
    # every metric whose declaration has a tie-averaged form
    "ties-average": Case(
        [_k(d.name) for d in METRICS.values() if d.tie_average is not None], {"ties": "average"}
    ),
    "unjudged": Case(
        ["unjudged@5", "map@10", "ndcg@10"],
        {"unjudged": "nonrelevant", "judged_only": True},
        change=_unjudged,
    ),
    # the share of the top k judged, null grades read as unjudged (not dropped)
    "judged": Case(
        ["judged@5", "judged", "unjudged@5"], {"unjudged": "nonrelevant"}, change=_unjudged
    ),
    # the metrics of the items themselves (some are set-level: evaluate)
    "items": Case(
        ["coverage@5", "gini@5", "entropy@5", "personalization@5", "arp@5", "novelty@5", "ild@5"],
        {
            "catalog": [*ITEMS, "never-shown"],
            "popularity": {item: n + 1 for n, item in enumerate(ITEMS)},
            "item_features": pd.DataFrame(
                {"a": np.arange(1009) % 7, "b": np.arange(1009) % 5}, index=ITEMS, dtype=float
            ),
            "ties": "first",
        },
        method="evaluate",
    ),
    "top1-f1": Case(
        ["top1_f1"], {"class_average": "macro"}, method="evaluate", change=_one_true_item
    ),
    "exposure-rbp": Case(
        ["exposure@5", "exposure_ratio@5", "exposure_gap@5", "awrf@5", "ndkl@5"],
        {
            "item_groups": {i: g for i, g in ITEM_GROUPS.items() if not i.endswith("7")},
            "unknown_group": "other",
            "target": {"even": 0.4, "odd": 0.4, "other": 0.2},
            "browsing": "rbp",
            "patience": 0.7,
            "jsd_unit": "nats",
        },
    ),
    "exposure-one-group": Case(
        ["exposure@5", "exposure_gap@5"], {"item_groups": ITEM_GROUPS, "group": "odd"}
    ),
    "expected-exposure-cascade": Case(
        ["expected_exposure@5", "ee_disparity@5", "ee_relevance@5"],
        {"browsing": "cascade", "stop": 0.6},
    ),
    **{
        f"convention-{name}": Case(
            ["ndcg@10", "map@10", "precision@5", "recall@10", "mrr@10"], {"convention": name}
        )
        for name in CONVENTIONS
    },
}


@pytest.mark.parametrize("case", VALUE_CASES.values(), ids=VALUE_CASES.keys())
def test_every_metric_option_and_preset_equals_pandas(case: Case) -> None:
    ddf, pdf = dask_and_pandas(case.change(generated(0)))
    if case.method == "per_query":
        assert_same(
            ddf.rank_eval.per_query(case.metrics, **case.options),
            pdf.rank_eval.per_query(case.metrics, **case.options),
            exact=True,
        )
    else:
        assert_same(
            ddf.rank_eval.evaluate(case.metrics, by="theme", **case.options),
            pdf.rank_eval.evaluate(case.metrics, by="theme", **case.options),
        )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> rankframe.History:
    """A history store holding run 'r1' (recorded from pandas)."""
    history = rankframe.History(tmp_path_factory.mktemp("store") / "runs.duckdb", create=True)
    history.record(generated(0).rank_eval.evaluate(["mrr"]), run_id="r1")
    return history


Frame = Callable[[pd.DataFrame], pd.DataFrame]
Raise = Callable[[Any, rankframe.History], Any]

#: error class → the frame (from generated(0)) and the call (on it, and on ``store``) that
#: raise it
ERROR_CASES: dict[type[RankEvalError], tuple[Frame, Raise]] = {
    rankframe.ColumnNotFoundError: (
        lambda f: f,
        lambda frame, _: frame.rank_eval(relevant="grade").mrr(),
    ),
    rankframe.InvalidDataError: (  # on every metric of relevance at once
        DATA_ERRORS["duplicate-item"],
        lambda frame, _: frame.rank_eval.per_query(all_metrics(ks=(5,))),
    ),
    rankframe.UnknownMetricError: (
        lambda f: f,
        lambda frame, _: frame.rank_eval.evaluate(["ndcgg@10"]),
    ),
    rankframe.InvalidOptionError: (
        lambda f: f,
        lambda frame, _: frame.rank_eval.ndcg(k=10, gain="cubic"),
    ),
    rankframe.UnknownArgumentError: (
        lambda f: f,
        lambda frame, _: frame.rank_eval.mrr(tie="first"),
    ),
    rankframe.InvalidRuleError: (
        lambda f: f,
        lambda frame, _: frame.rank_eval.check(["mrr >> 0.3"]),
    ),
    rankframe.EmptyQueryError: (lambda f: f, lambda frame, _: frame.rank_eval.mrr(empty="error")),
    rankframe.StoreError: (  # a run id taken
        lambda f: f,
        lambda frame, history: history.record(frame.rank_eval.evaluate(["mrr"]), run_id="r1"),
    ),
}

#: the error classes no call on a frame raises, each with the reason
NOT_ON_FRAMES: dict[type[RankEvalError], str] = {
    TrecFormatError: "raised while reading a TREC file (read_trec_run, read_trec_qrels), "
    "before any frame exists",
    TrackingError: "raised by rankframe.mlflow while writing a result to a tracking server, "
    "after the result exists (tests/output/test_mlflow.py)",
}


@pytest.mark.parametrize("error", ERROR_CASES, ids=lambda error: error.__name__)
def test_every_error_class_has_the_pandas_message(
    error: type[RankEvalError], store: rankframe.History
) -> None:
    change, call = ERROR_CASES[error]
    ddf, pdf = dask_and_pandas(change(generated(0)))
    expected = pandas_error(lambda _: call(pdf, store), pdf)
    assert type(expected) is error

    def on_dask() -> None:
        result = call(ddf, store)
        if dask_collection(result):
            result.compute()  # a data error: raised on the workers

    with pytest.raises(error) as info:
        on_dask()
    assert type(info.value) is error
    assert str(info.value) == str(expected)


def _error_classes(base: type[RankEvalError] = RankEvalError) -> set[type[RankEvalError]]:
    found: set[type[RankEvalError]] = set()
    for sub in base.__subclasses__():
        found |= {sub, *_error_classes(sub)}
    return found


def test_dask_cases_cover_every_metric_option_and_error_class() -> None:
    """The Dask cases stand in for the Dask kind of the option and error grids only while they
    cover every registered metric, every option (each away from its default), every
    ``convention=`` preset and every error class: a new one without a Dask case fails here."""
    metrics = {parse_metric(m).name for case in VALUE_CASES.values() for m in case.metrics}
    assert set(METRICS) - metrics == set(), "metrics without a Dask case"
    options = {
        name
        for case in VALUE_CASES.values()
        for name, value in case.options.items()
        if name in OPTIONS and _away_from_default(name, value)
    }
    assert set(OPTIONS) - options == set(), "options without a Dask case"
    presets = {case.options.get("convention") for case in VALUE_CASES.values()}
    assert set(CONVENTIONS) - presets == set(), "convention= presets without a Dask case"
    classes = _error_classes()
    assert classes - set(ERROR_CASES) - set(NOT_ON_FRAMES) == set(), "errors without a Dask case"
    assert set(NOT_ON_FRAMES) <= classes
    assert not set(NOT_ON_FRAMES) & set(ERROR_CASES)
