"""No silent emptiness (SPEC §4e): a frame with no rows, or with no query left to average
after ``empty="skip"``, is a clear error on every frame kind (a LazyFrame or a Dask result
raises when collected or computed, as its other data errors do); a ``by`` segment or a
window without queries has no row."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest

from helpers import Run, as_pandas, collect
from rankframe import InvalidDataError

if TYPE_CHECKING:
    from pathlib import Path

    from helpers import FrameMaker

NO_ROWS = pd.DataFrame(
    {
        "query": pd.Series([], dtype=str),
        "item": pd.Series([], dtype=str),
        "score": pd.Series([], dtype="float64"),
        "relevant": pd.Series([], dtype="int64"),
        "theme": pd.Series([], dtype=str),
    }
)

# q1 (theme s, day 1) has no relevant item; q2 (theme t, day 2) ranks its relevant item 2nd
TWO = {
    "query": ["q1", "q1", "q2", "q2"],
    "item": ["x", "y", "x", "y"],
    "score": [1.0, 2.0, 1.0, 2.0],
    "relevant": [0, 0, 1, 0],
    "theme": ["s", "s", "t", "t"],
    "at": [datetime.datetime(2024, 1, 1, 9)] * 2 + [datetime.datetime(2024, 1, 2, 9)] * 2,
}


def _calls() -> Any:
    return pytest.mark.parametrize(
        "call",
        [
            lambda ev: ev.mrr(),
            lambda ev: ev.evaluate(["mrr", "ndcg@2"]),
            lambda ev: ev.evaluate(["mrr"], by="theme"),
            lambda ev: ev.per_query(["mrr"]),
        ],
        ids=["metric", "evaluate", "evaluate-by", "per_query"],
    )


@_calls()
def test_a_frame_without_rows(make_frame: FrameMaker, call: Any) -> None:
    frame = make_frame(NO_ROWS)
    with pytest.raises(InvalidDataError, match="The frame has no rows") as info:
        collect(call(frame.rank_eval))
    assert "a filter before rank_eval may have matched nothing" in str(info.value)
    assert info.value.problem == "no_rows"


def test_a_comparison_of_a_frame_without_rows(make_frame: FrameMaker) -> None:
    frame = make_frame(NO_ROWS.assign(other=NO_ROWS["score"]))
    with pytest.raises(InvalidDataError, match="The frame has no rows"):
        collect(frame.rank_eval(score=["score", "other"]).compare(["mrr"]))


@_calls()
def test_no_query_left_after_skip(make_frame: FrameMaker, call: Any) -> None:
    frame = make_frame({k: v[:2] for k, v in TWO.items()})  # q1 alone: no relevant item
    with pytest.raises(InvalidDataError, match="No query is left to evaluate") as info:
        collect(call(Skipping(frame.rank_eval)))
    message = str(info.value)
    assert "the only query has no relevant item, and empty='skip'" in message
    assert "empty='zero'" in message
    assert info.value.problem == "no_queries"
    assert info.value.count == 1


class Skipping:
    """An accessor whose method calls pass ``empty="skip"``."""

    def __init__(self, ev: Any) -> None:
        self.ev = ev

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.ev, name)
        return lambda *args, **kwargs: method(*args, empty="skip", **kwargs)


def test_a_segment_without_queries_has_no_row(make_frame: FrameMaker) -> None:
    frame = make_frame(TWO)
    # skip leaves q1 out: theme s has no query, so no row; q2's reciprocal rank is 1/2
    table = as_pandas(frame.rank_eval.evaluate(["mrr"], by="theme", empty="skip"))
    assert table.to_dict("list") == {"theme": ["t"], "mrr(empty=skip)": [0.5], "n_queries": [1]}
    tidy = as_pandas(frame.rank_eval.evaluate(["mrr"], by="theme", empty="skip", tidy=True))
    assert tidy["theme"].tolist() == ["t"]
    # a metric that keeps every query (a count) keeps the segment: it has a query
    both = as_pandas(frame.rank_eval.evaluate(["mrr", "num_ret"], by="theme", empty="skip"))
    assert both["theme"].tolist() == ["s", "t"]
    assert both["num_ret"].tolist() == [2.0, 2.0]
    # with empty="zero" both segments count their query
    zero = as_pandas(frame.rank_eval.evaluate(["mrr"], by="theme"))
    assert zero["mrr"].tolist() == [0.0, 0.5]


def test_a_window_without_queries_has_no_row(make_frame: FrameMaker) -> None:
    frame = make_frame(TWO)
    table = as_pandas(frame.rank_eval(time="at").evaluate(["mrr"], every="1d", empty="skip"))
    assert [pd.Timestamp(w).date() for w in table["window"]] == [datetime.date(2024, 1, 2)]
    assert table["mrr(empty=skip)"].tolist() == [0.5]
    zero = as_pandas(frame.rank_eval(time="at").evaluate(["mrr"], every="1d"))
    assert zero["mrr"].tolist() == [0.0, 0.5]  # empty="zero": both windows hold a query


def test_the_command_line_says_what_is_empty(tmp_path: Path, run: Run) -> None:
    path = tmp_path / "none.csv"
    path.write_text("query,item,score,relevant\nq1,x,1,0\nq1,y,2,0\n")
    code, _, err = run("evaluate", path, "-m", "mrr", "--empty", "skip")
    assert code == 1  # a data error, as the others of evaluate (docs/cli.md)
    assert "No query is left to evaluate" in err
    assert "--empty skip" in err
    assert "--empty zero" in err
    code, _, err = run("check", path, "--rule", "mrr >= 0.5", "--empty", "skip")
    assert code == 2  # rankframe check: any error
    assert "No query is left to evaluate" in err
