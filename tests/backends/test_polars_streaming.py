"""LazyFrame plans in parts of whole queries: what is specific to parts, engines and scans.

Every test that takes a frame also runs on a LazyFrame forced into three parts through the
shared ``make_frame`` fixture (values and error messages equal the eager namespace's). This
module keeps what needs a larger frame, polars' engines or a parquet scan: a LazyFrame's
methods but ``rank()`` count the plan's rows when collected and run the per-query step on
``ceil(rows / rows_per_part)`` parts of the frame, split by a hash of the query id, so that
only one part's rows are held at a time; one finish step makes the result from the parts'
per-query tables. The tests here set the ``rows_per_part`` option so that the test frame runs
in four parts, as a large input does, unless a test says otherwise. Results are compared with
the eager namespace on the same rows, with ``collect()`` and ``collect(engine="streaming")``,
from ``df.lazy()`` and from ``pl.scan_parquet``.

Per-query values are compared exactly. Means are compared to 1e-12 relative.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankframe
from rankframe import EmptyQueryError, RankEvalError
from rankframe.adapters import polars as adapter

RTOL = 1e-12
ENGINES = ["in-memory", "streaming"]
METRICS = ["mrr@5", "ndcg@10", "ndcg", "map", "acc@1", "precision@3", "recall@10", "r_precision"]
Call = Callable[[Any], Any]


def generated(seed: int = 0, n_queries: int = 300) -> pl.DataFrame:
    """A long frame with heavy ties, unretrieved rows (null scores), ±inf, queries without a
    relevant item, two score columns and two `by` columns (one with nulls); rows in random
    order."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 30, size=n_queries)
    query = np.repeat(np.arange(n_queries), lengths)
    n = len(query)
    position = np.arange(n) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    score = np.round(rng.random(n), 1)
    score[rng.random(n) < 0.02] = np.inf
    grade = rng.choice([-1, 0, 0, 0, 1, 2, 3], size=n)
    grade[(rng.random(n_queries) < 0.15)[query]] = 0  # queries without a relevant item
    theme = np.array(["news", "sport", "tech", None], dtype=object)[query % 4]
    frame = pl.DataFrame(
        {
            "query": np.char.add("q", query.astype(str)),  # sorted as text: q10 before q9
            "item": np.char.add("d", (position * 37 % 1009).astype(str)),
            "score": pl.Series(score).set(pl.Series(rng.random(n) < 0.1), None),  # not retrieved
            "other": np.round(rng.random(n), 1),
            "relevant": grade,
            "theme": pl.Series(theme, dtype=pl.String),
            "cohort": query % 3,
        }
    )
    return frame[rng.permutation(n)]


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return generated()


@pytest.fixture(scope="module")
def parquet(frame: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("streaming") / "eval.parquet"
    frame.write_parquet(path, row_group_size=500)  # several row groups: several morsels
    return path


@pytest.fixture(autouse=True)
def four_parts(frame: pl.DataFrame) -> Iterator[None]:
    """The test frame's rows in four parts, as a large input's would be."""
    with rankframe.option_context("rows_per_part", -(-frame.height // 4)):
        yield


def sources(frame: pl.DataFrame, parquet: Path) -> dict[str, pl.LazyFrame]:
    return {"lazy": frame.lazy(), "parquet": pl.scan_parquet(parquet)}


def assert_same(plan: Any, expected: Any, engine: str, *, exact: bool) -> None:
    """``plan`` is a LazyFrame that collects on ``engine`` to ``expected`` (a float for a
    scalar metric: then a 1x1 frame)."""
    assert isinstance(plan, pl.LazyFrame), type(plan)
    got = plan.collect(engine=engine)
    if isinstance(expected, float):
        assert got.shape == (1, 1), got
        assert got.item() == pytest.approx(expected, rel=RTOL, nan_ok=True)
        return
    assert got.schema == expected.schema
    assert_frame_equal(got, expected, check_exact=exact, rel_tol=RTOL, abs_tol=0)


# -- every combinable method, equal to the eager namespace -----------------------------------

MEANS: dict[str, Call] = {
    "mrr": lambda ev: ev.mrr(k=5),
    "ndcg-exp-theme": lambda ev: ev.ndcg(k=10, gain="exponential", by="theme"),
    "evaluate": lambda ev: ev.evaluate(METRICS),
    "evaluate-both": lambda ev: ev.evaluate(METRICS, by=["cohort", "theme"]),
    "evaluate-skip-pess": lambda ev: ev.evaluate(
        METRICS, by="theme", empty="skip", ties="pessimistic"
    ),
}
PER_QUERY: dict[str, Call] = {
    "per_query": lambda ev: ev.per_query(METRICS),
    "per_query-both": lambda ev: ev.per_query(METRICS, by=["theme", "cohort"]),
    "per_query-nan-first": lambda ev: ev.per_query(["mrr", "P_3"], empty="nan", ties="first"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("source", ["lazy", "parquet"])
@pytest.mark.parametrize(
    ("call", "exact"),
    [*((c, False) for c in MEANS.values()), *((c, True) for c in PER_QUERY.values())],
    ids=[*MEANS, *PER_QUERY],
)
def test_equals_eager(
    frame: pl.DataFrame, parquet: Path, source: str, engine: str, call: Call, exact: bool
) -> None:
    lazy = sources(frame, parquet)[source]
    assert_same(call(lazy.rank_eval), call(frame.rank_eval), engine, exact=exact)


@pytest.mark.parametrize("buckets", [1, 2, 7])
def test_any_number_of_parts_gives_the_same_result(frame: pl.DataFrame, buckets: int) -> None:
    ev = frame.lazy().rank_eval(score=["score", "other"])
    eager = frame.rank_eval(score=["score", "other"])
    with rankframe.option_context("query_buckets", buckets):
        call = PER_QUERY["per_query-both"]
        assert_same(call(ev), call(eager), "streaming", exact=True)
        call = MEANS["evaluate-both"]
        assert_same(call(ev), call(eager), "streaming", exact=False)


def test_categorical_and_integer_queries_sort_like_eager(frame: pl.DataFrame) -> None:
    # a Categorical (categories in order of appearance) and an Enum (in reverse order) sort
    # as text, like the eager namespace; integer ids sort as numbers
    categories = frame["query"].unique(maintain_order=True).to_list()
    variants = [
        frame.with_columns(pl.col("query").cast(pl.Categorical)),
        frame.with_columns(pl.col("query").cast(pl.Enum(categories[::-1]))),
        frame.with_columns(pl.col("query").str.slice(1).cast(pl.Int64)),
    ]
    for variant in variants:
        call = PER_QUERY["per_query"]
        assert_same(
            call(variant.lazy().rank_eval), call(variant.rank_eval), "streaming", exact=True
        )


def test_a_frame_without_rows(frame: pl.DataFrame) -> None:
    """No rows: the eager namespace's error, raised when the plan is collected."""
    empty = frame.clear()
    for call in (MEANS["mrr"], MEANS["evaluate"], MEANS["evaluate-both"], PER_QUERY["per_query"]):
        with pytest.raises(rankframe.InvalidDataError, match="The frame has no rows") as want:
            call(empty.rank_eval)
        plan = call(empty.lazy().rank_eval)  # lazy: nothing runs yet
        for engine in ENGINES:
            with pytest.raises(rankframe.InvalidDataError) as got:
                plan.collect(engine=engine)
            assert str(got.value) == str(want.value)


# -- how the plan runs -----------------------------------------------------------------------


@pytest.fixture
def part_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of rows of each frame the engine receives from a LazyFrame plan."""
    sizes: list[int] = []
    backend = adapter.LazyPolarsAdapter.backend

    def spy(self: Any, frame: pl.DataFrame) -> Any:
        sizes.append(frame.height)
        return backend(self, frame)

    monkeypatch.setattr(adapter.LazyPolarsAdapter, "backend", spy)
    return sizes


@pytest.mark.parametrize("engine", ENGINES)
def test_streaming_holds_one_part_of_the_rows_at_a_time(
    frame: pl.DataFrame, parquet: Path, part_sizes: list[int], engine: str
) -> None:
    pl.scan_parquet(parquet).rank_eval.evaluate(METRICS).collect(engine=engine)
    assert len(part_sizes) == 4
    assert sum(part_sizes) == frame.height
    assert max(part_sizes) < frame.height / 2  # each part holds about 1/4 of the rows


DEFAULT_ROWS_PER_PART = rankframe.get_option("rows_per_part")
LIMITS: dict[str, tuple[Callable[[int], int], int]] = {  # ROWS_PER_PART from the height; parts
    "default": (lambda _: DEFAULT_ROWS_PER_PART, 1),
    "height": (lambda height: height, 1),
    "one-row-less": (lambda height: height - 1, 2),
    "a-quarter": (lambda height: -(-height // 4), 4),
}


@pytest.mark.parametrize("limit", LIMITS.values(), ids=LIMITS.keys())
@pytest.mark.parametrize("call", ["evaluate-both", "per_query-both"])
def test_the_number_of_parts_comes_from_the_row_count(
    frame: pl.DataFrame,
    parquet: Path,
    part_sizes: list[int],
    limit: tuple[Callable[[int], int], int],
    call: str,
) -> None:
    """Up to ROWS_PER_PART rows run in one step, with the eager namespace's values bit for
    bit; one row more makes two parts."""
    rows_per_part, parts = limit
    method = {**MEANS, **PER_QUERY}[call]
    plan = method(pl.scan_parquet(parquet).rank_eval(score=["score", "other"]))
    expected = method(frame.rank_eval(score=["score", "other"]))
    with rankframe.option_context("rows_per_part", rows_per_part(frame.height)):
        assert_same(plan, expected, "streaming", exact=parts == 1 or call.startswith("per_query"))
    assert len(part_sizes) == parts
    assert sum(part_sizes) == frame.height


def test_a_plan_counted_by_a_pass_splits_by_its_own_rows(
    frame: pl.DataFrame, parquet: Path, part_sizes: list[int]
) -> None:
    """A filter keeps the row count out of the file's metadata: the plan counts its rows by
    running, and parts them by what is left after the filter."""
    kept = frame.filter(pl.col("cohort") != 1)
    plan = pl.scan_parquet(parquet).filter(pl.col("cohort") != 1).rank_eval.per_query(METRICS)
    assert_same(plan, kept.rank_eval.per_query(METRICS), "streaming", exact=True)
    assert len(part_sizes) == -(-kept.height // rankframe.get_option("rows_per_part"))
    assert 1 < len(part_sizes) < 4


WHOLE: dict[str, Call] = {  # results from every query's values at once
    "evaluate-ci": lambda ev: ev.evaluate(
        ["mrr", "ndcg@5"], by="theme", confidence_level=0.9, n_resamples=20
    ),
    "evaluate-tidy": lambda ev: ev.evaluate(["mrr", "ndcg@5"], by="cohort", tidy=True),
    "compare": lambda ev: ev.compare(["mrr", "ndcg@5"], n_permutations=20),
}


@pytest.mark.parametrize("call", WHOLE.values(), ids=WHOLE.keys())
def test_intervals_tests_and_tidy_tables_run_per_part_then_whole(
    frame: pl.DataFrame, part_sizes: list[int], call: Call
) -> None:
    """Per-query values part by part; the statistics from all of them in a last step."""
    scores = ["score", "other"]
    plan = call(frame.lazy().rank_eval(score=scores))
    expected = call(frame.rank_eval(score=scores))
    assert_same(plan, expected, "streaming", exact=True)
    assert len(part_sizes) == 4
    assert sum(part_sizes) == frame.height


def test_rank_runs_in_one_step(frame: pl.DataFrame, part_sizes: list[int]) -> None:
    scores = ["score", "other"]
    plan = frame.lazy().rank_eval(score=scores).rank()
    assert_same(plan, frame.rank_eval(score=scores).rank(), "streaming", exact=True)
    assert part_sizes == [frame.height]  # one step with every row


def test_nothing_is_collected_before_collect(frame: pl.DataFrame) -> None:
    reads: list[int] = []

    def source(batch: pl.DataFrame) -> pl.DataFrame:
        reads.append(batch.height)
        return batch

    lazy = frame.lazy().map_batches(source, schema=frame.schema)
    plans = [call(lazy.rank_eval) for call in [*MEANS.values(), *PER_QUERY.values()]]
    assert reads == []
    assert all(isinstance(p, pl.LazyFrame) for p in plans)
    plans[0].collect(engine="streaming")
    assert reads


# -- data errors: the eager namespace's messages ---------------------------------------------


def eager_error(call: Call, frame: pl.DataFrame) -> RankEvalError:
    with pytest.raises(RankEvalError) as info:
        call(frame.rank_eval)
    return info.value


def _set(frame: pl.DataFrame, rows: list[int], column: str, value: Any) -> pl.DataFrame:
    mask = pl.Series(np.isin(np.arange(frame.height), rows))
    return frame.with_columns(
        pl.when(mask)
        .then(pl.lit(value))
        .otherwise(pl.col(column))
        .cast(frame.schema[column])
        .alias(column)
    )


BAD: dict[str, Callable[[pl.DataFrame], pl.DataFrame]] = {
    # rows of different queries, in different parts: counted and located in the whole frame
    "null-relevant": lambda f: _set(f, [900, 10, 400, 2000], "relevant", None),
    "nan-relevant": lambda f: _set(
        f.with_columns(pl.col("relevant").cast(pl.Float64)), [1500, 30], "relevant", float("nan")
    ),
    "null-query": lambda f: _set(f, [700, 800], "query", None),
    "null-item": lambda f: _set(f, [650, 3], "item", None),
    # the query column is reported first, though the part with the first null relevant
    # grade may run first
    "null-relevant-and-query": lambda f: _set(
        _set(f, [5, 6, 7, 8], "relevant", None), [3000], "query", None
    ),
    # a non-numeric score is reported before null grades
    "null-relevant-text-score": lambda f: _set(
        f.with_columns(pl.col("score").cast(pl.String)), [12], "relevant", None
    ),
    "duplicate-item": lambda f: pl.concat([f, f[[300]]]),
    "by-varies": lambda f: _set(f, [3], "theme", "other"),
    "infinite-grade": lambda f: _set(
        f.with_columns(pl.col("relevant").cast(pl.Float64)), [5], "relevant", float("inf")
    ),
}
ERROR_CALLS: dict[str, Call] = {
    "ndcg-theme": lambda ev: ev.ndcg(k=10, by="theme"),
    "per_query": lambda ev: ev.per_query(["mrr"], by="theme"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("call", ERROR_CALLS.values(), ids=ERROR_CALLS.keys())
@pytest.mark.parametrize("make_bad", BAD.values(), ids=BAD.keys())
def test_data_errors_raise_on_collect_with_the_eager_message(
    frame: pl.DataFrame,
    tmp_path: Path,
    make_bad: Callable[[pl.DataFrame], pl.DataFrame],
    call: Call,
    engine: str,
) -> None:
    bad = make_bad(frame)
    expected = eager_error(call, bad)
    bad.write_parquet(tmp_path / "bad.parquet", row_group_size=500)
    plan = call(pl.scan_parquet(tmp_path / "bad.parquet").rank_eval)  # builds the plan
    with pytest.raises(type(expected)) as info:
        plan.collect(engine=engine)
    assert str(info.value) == str(expected)


@pytest.mark.parametrize("n_empty", [1, 3, 40])
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("query_type", [pl.String, pl.Categorical])
def test_empty_error_counts_and_names_the_queries_of_the_whole_frame(
    frame: pl.DataFrame, n_empty: int, engine: str, query_type: Any
) -> None:
    queries = frame["query"].unique().sort().to_list()
    empty = pl.col("query").is_in(queries[-n_empty:])  # the last ones: in every part
    bad = frame.with_columns(relevant=pl.when(empty).then(0).otherwise(1))
    bad = bad.with_columns(pl.col("query").cast(query_type))
    call: Call = lambda ev: ev.evaluate(["mrr"], by="theme", empty="error")  # noqa: E731
    expected = eager_error(call, bad)
    assert isinstance(expected, EmptyQueryError)
    with pytest.raises(EmptyQueryError) as info:
        call(bad.lazy().rank_eval).collect(engine=engine)
    assert str(info.value) == str(expected)
