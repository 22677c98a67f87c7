"""Null and NaN scores: still "not retrieved" (trec_eval's convention: no number changes), but
counted and said: a ``RankEvalWarning`` per score column with null scores, with their share,
once per call on every frame kind; a score column with no score at all is an error (the
contract: a system that retrieves nothing is an error), raised where the result is computed.

Every frame here is built to trip the word it tests, and goes through ``make_frame``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest

import rankframe
from helpers import FrameMaker, as_float, as_pandas, collect
from rankframe import InvalidDataError, RankEvalWarning

N_QUERIES = 100
ITEMS = 10  # per query: 10% of the rows are one in each query


def _tenth_null(n_queries: int = N_QUERIES) -> dict[str, Any]:
    """Per query: the relevant item x at rank 1, a relevant item y with a null score (not
    retrieved) and 8 non-relevant items: 10% of the scores are null; recall@10 is 1/2 and
    mrr is 1 in every query (R = 2, one of them retrieved, at rank 1)."""
    query = np.repeat([f"q{i:03d}" for i in range(n_queries)], ITEMS)
    item = np.tile([f"d{j}" for j in range(ITEMS)], n_queries)
    position = np.tile(np.arange(ITEMS), n_queries)
    score = np.where(position == 1, np.nan, 1.0 - position / ITEMS)
    relevant = (position <= 1).astype(int)
    return {"query": query, "item": item, "score": score, "relevant": relevant}


def _null_warnings(record: Any) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, RankEvalWarning)]


def test_ten_percent_null_scores_warn_with_their_share(make_frame: FrameMaker) -> None:
    ev = make_frame(_tenth_null()).rank_eval
    with pytest.warns(
        RankEvalWarning,
        match=r"^score column 'score' has 100 null scores "
        r"\(10\.0% of 1,000 rows\); they count as not retrieved",
    ) as record:
        recall = as_float(ev.recall(k=10))
    assert recall == 0.5  # not retrieved, as ever: y counts in R
    assert len(_null_warnings(record)) == 1  # once per call, whatever the parts
    (warning,) = [w.message for w in record if isinstance(w.message, RankEvalWarning)]
    assert (warning.column, warning.count, warning.rows) == ("score", 100, 1_000)


def test_every_method_warns_once(make_frame: FrameMaker) -> None:
    ev = make_frame(_tenth_null(4)).rank_eval
    calls = [
        lambda: ev.evaluate(["mrr", "recall@10"]),
        lambda: ev.per_query(["mrr"]),
        lambda: ev.check(["mrr >= 0.5"], mode="point", min_queries=1),
    ]
    for call in calls:
        with pytest.warns(
            RankEvalWarning, match=r"has 4 null scores \(10\.0% of 40 rows\)"
        ) as record:
            collect(call())
        assert len(_null_warnings(record)) == 1


def test_null_in_one_of_two_systems_names_that_system(make_frame: FrameMaker) -> None:
    data = _tenth_null(6)
    data["new"] = data["score"]
    data["old"] = np.where(np.isnan(data["score"]), 0.0, data["score"])  # y scored, last
    ev = make_frame(data).rank_eval(score=["old", "new"])
    with pytest.warns(
        RankEvalWarning,
        match=r"^score column 'new' has 6 null scores "
        r"\(10\.0% of 60 rows\)",
    ) as record:
        table = as_pandas(ev.compare(["recall@10"], baseline="old"))
    assert _null_warnings(record) == [_null_warnings(record)[0]]  # 'old' has none: no word
    # check(): evaluate() and compare() of one frame, one word
    with pytest.warns(RankEvalWarning) as record:
        collect(
            ev.check(
                ["recall@10 >= 0.4", "recall@10 drop <= 0.1"],
                baseline="old",
                mode="point",
                min_queries=1,
            )
        )
    assert len(_null_warnings(record)) == 1
    recall = dict(zip(table["system"], table["mean"], strict=True))
    assert recall == {"old": 1.0, "new": 0.5}


def _computed(
    make_frame: FrameMaker, call: Callable[[], Any], plans: bool = True
) -> Callable[[], Any]:
    """``call``'s result computed: at once on an eager frame; on a LazyFrame or a Dask frame,
    a call that ``plans`` raises nothing, and the result is computed where it is collected."""
    if not (plans and make_frame.is_deferred):
        return lambda: collect(call())
    planned = call()
    return lambda: collect(planned)


def _nothing_retrieved(
    make_frame: FrameMaker, call: Callable[[], Any], plans: bool = True
) -> InvalidDataError:
    """The error ``call`` raises, with no warning before it (it is raised before any)."""
    computed = _computed(make_frame, call, plans)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankEvalWarning)
        with pytest.raises(InvalidDataError) as info:
            computed()
    assert info.value.problem == "nothing_retrieved"
    return info.value


CAUSE = (
    "Likely a join that matched no row (keys of another dtype or spelling) or scores that "
    "failed to compute; "
)


def test_a_system_without_a_score_is_an_error(make_frame: FrameMaker) -> None:
    """Every score is null: the system retrieved nothing, which the contract calls an error
    (not every metric 0): the message names the column, the rows, the likely cause and the
    fix; the error carries them as fields."""
    data = _tenth_null(3)
    data["score"] = np.full(len(data["score"]), np.nan)
    ev = make_frame(data).rank_eval
    for call in (
        lambda: ev.recall(k=10),
        lambda: ev.evaluate(["mrr", "ndcg@10"]),
        lambda: ev.per_query(["mrr"]),
    ):
        error = _nothing_retrieved(make_frame, call)
        assert str(error) == (
            "Score column 'score' has no score at all (all 30 rows are null): the system "
            "retrieved nothing, and every metric would be 0 for it. " + CAUSE + "check the column."
        )
        assert (error.column, error.count) == ("score", 30)


def test_a_second_system_without_a_score_is_named(make_frame: FrameMaker) -> None:
    """'old' has some null scores, 'new' none at all: the error names 'new', and the fix
    leaves it out; it comes before 'old''s warning, which is never issued."""
    data = _tenth_null(3)
    data["old"] = data["score"]
    data["new"] = np.full(len(data["score"]), np.nan)
    ev = make_frame(data).rank_eval(score=["old", "new"])
    error = _nothing_retrieved(make_frame, lambda: ev.evaluate(["recall@10"]))
    assert str(error) == (
        "Score column 'new' has no score at all (all 30 rows are null): the system retrieved "
        "nothing, and every metric would be 0 for it. " + CAUSE + "check the column, or "
        "leave the system out, e.g. df.rank_eval(score='old')."
    )
    assert (error.column, error.count) == ("new", 30)
    # compare() of it: the same error; check(), whose table is computed by the call on
    # every kind, raises it there
    compare = _nothing_retrieved(make_frame, lambda: ev.compare(["recall@10"], baseline="old"))
    check = _nothing_retrieved(
        make_frame, lambda: ev.check(["recall@10 >= 0.4"], mode="point", min_queries=1), plans=False
    )
    assert str(compare) == str(check) == str(error)


def test_every_system_without_a_score_is_named_in_one_error(make_frame: FrameMaker) -> None:
    data = _tenth_null(2)
    data["a"] = data["b"] = np.nan_to_num(data["score"], nan=-1.0)
    data["x"] = data["y"] = np.full(len(data["score"]), np.nan)
    ev = make_frame(data).rank_eval(score=["a", "x", "b", "y"])
    error = _nothing_retrieved(make_frame, lambda: ev.evaluate(["mrr"]))
    assert str(error) == (
        "Score columns 'x' and 'y' have no score at all (all 20 rows of each are null): these "
        "systems retrieved nothing, and every metric would be 0 for them. "
        + CAUSE
        + "check the columns, or leave the systems out, e.g. df.rank_eval(score=['a', 'b'])."
    )
    assert (error.column, error.count) == ("x", 20)
    both = make_frame(data).rank_eval(score=["x", "y"])
    assert str(_nothing_retrieved(make_frame, lambda: both.mrr())).endswith("check the columns.")


def test_a_query_that_retrieved_nothing_is_0_and_no_error(make_frame: FrameMaker) -> None:
    """Some queries have no score at all: each retrieved nothing, and every metric is 0 for
    it (the contract's rule for a query); only the share of null scores is said."""
    data = _tenth_null(4)
    nothing = np.isin(data["query"], ["q001", "q003"])
    data["score"] = np.where(nothing, np.nan, data["score"])
    ev = make_frame(data).rank_eval
    metrics = ["mrr", "recall@10", "ndcg@10", "map", "P@5", "success@1"]
    computed = _computed(make_frame, lambda: ev.per_query(metrics))
    with pytest.warns(RankEvalWarning) as record:
        table = as_pandas(computed())
    assert _null_warnings(record) == [
        "score column 'score' has 22 null scores (55.0% of 40 rows); they count as not "
        "retrieved (trec_eval's convention), which lowers recall, NDCG and AP if the system "
        "did score those items. Items outside its ranked list (a top-k list joined with the "
        "judgments) are meant so: silence this with warnings.filterwarnings('ignore', "
        "'score column', rankframe.RankEvalWarning)."
    ]
    values = table.set_index("query")
    assert len(values.columns) == len(metrics)
    assert (values.loc[["q001", "q003"]] == 0).all().all()
    assert (values.loc[["q000", "q002"]] > 0).all().all()


def test_nothing_to_say_about_a_frame_without_nulls(make_frame: FrameMaker) -> None:
    data = _tenth_null(3)
    data["score"] = np.nan_to_num(data["score"], nan=-1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankEvalWarning)
        assert as_float(make_frame(data).rank_eval.recall(k=10)) == 1.0


def test_judged_only_counts_the_frame_as_given(make_frame: FrameMaker) -> None:
    """``judged_only=True`` leaves unjudged rows unranked (trec_eval -J): their scores are
    not the user's null scores, and are not counted."""
    data = _tenth_null(2)
    data["score"] = np.nan_to_num(data["score"], nan=-1.0)
    data["judged"] = np.tile(np.arange(ITEMS) < 5, 2)
    ev = make_frame(data).rank_eval
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankEvalWarning)
        assert as_float(ev.mrr(judged_only=True)) == 1.0


def test_the_warning_points_at_the_callers_line(make_frame: FrameMaker) -> None:
    """The line that asked for the number: the call, or for a deferred result (a LazyFrame,
    Dask) the line that collects it."""
    ev = make_frame(_tenth_null(2)).rank_eval
    with pytest.warns(RankEvalWarning) as record:
        as_float(ev.mrr())  # a deferred result is computed here, where it is collected
    assert len(record) == 1
    if not make_frame.is_deferred:
        assert {w.filename for w in record} == {__file__}


def test_nan_and_null_of_polars_both_count() -> None:
    """A polars float column tells NaN from null: both are "not retrieved", both counted.
    (Polars' own distinction, so a polars frame built as such.)"""
    frame = pl.DataFrame(
        {
            "query": ["q"] * 4,
            "item": list("abcd"),
            "score": [0.9, float("nan"), None, 0.1],
            "relevant": [1, 1, 1, 0],
        }
    )
    with pytest.warns(RankEvalWarning, match=r"has 2 null scores \(50\.0% of 4 rows\)"):
        recall = frame.rank_eval.recall(k=4)
    assert recall == pytest.approx(1 / 3)


def test_the_warning_is_a_filterable_user_warning() -> None:
    assert issubclass(rankframe.RankEvalWarning, UserWarning)
    frame = pl.DataFrame(
        {"query": ["q"] * 2, "item": ["a", "b"], "score": [0.5, None], "relevant": [1, 1]}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", "score column", rankframe.RankEvalWarning)
        assert frame.rank_eval.recall(k=2) == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankEvalWarning)
        with pytest.raises(RankEvalWarning, match=r"^score column 'score' has 1 null score "):
            frame.rank_eval.recall(k=2)


def test_nan_and_null_of_polars_all_null_is_an_error() -> None:
    """A polars column of NaN and null, nothing else: no score at all, whichever the null."""
    frame = pl.DataFrame(
        {
            "query": ["q"] * 4,
            "item": list("abcd"),
            "score": [float("nan"), None, float("nan"), None],
            "relevant": [1, 1, 1, 0],
        }
    )
    message = re.escape("Score column 'score' has no score at all (all 4 rows are null)")
    with pytest.raises(InvalidDataError, match=message) as info:
        frame.rank_eval.recall(k=4)
    assert (info.value.problem, info.value.count) == ("nothing_retrieved", 4)
    planned = frame.lazy().rank_eval.recall(k=4)  # a plan: raised where it is collected
    with pytest.raises(InvalidDataError, match=message):
        planned.collect()


@pytest.mark.parametrize(
    ("count", "rows", "shown"),
    [
        (1, 100_000, "less than 0.1%"),
        (99_999, 100_000, "more than 99.9%"),
        (1, 8, "12.5%"),
    ],
)
def test_a_share_is_never_rounded_to_none_or_all(count: int, rows: int, shown: str) -> None:
    query = np.repeat(np.arange(rows // 4), 4)
    score = np.arange(rows, dtype=float)
    score[:count] = np.nan
    frame = pl.DataFrame(
        {
            "query": query,
            "item": np.arange(rows),
            "score": score,
            "relevant": np.ones(rows, dtype=int),
        }
    )
    with pytest.warns(RankEvalWarning, match=rf"\({shown} of {rows:,} rows\)"):
        frame.rank_eval.mrr()
