"""Composite keys: ``query=`` and ``item=`` take a list of columns (SPEC §4e).

A composite key's value is the tuple of its columns' values. Every test runs on every frame
kind (``make_frame``) and checks the values against an independent formulation (the same ids
joined into one string column, which the one-column path evaluates) or against values
derived by hand in the test; outputs carry each column of the key by name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest

from helpers import as_float, as_pandas, collect
from rankframe import ColumnNotFoundError, InvalidDataError, InvalidOptionError

if TYPE_CHECKING:
    from helpers import FrameMaker

# A user-as-query log: user 1 on two days, user 2 on one. Item ids repeat across a user's
# days (and across shops, for the composite item), so one column alone is not a key.
LOG: dict[str, list[Any]] = {
    "user": [1, 1, 1, 1, 2, 2, 2],
    "day": ["d1", "d1", "d2", "d2", "d1", "d1", "d1"],
    "shop": ["s", "s", "s", "t", "s", "t", "t"],
    "sku": ["a", "b", "a", "a", "a", "a", "b"],
    "score": [0.9, 0.5, 0.1, 0.8, 0.3, 0.2, 0.7],
    "other": [0.1, 0.5, 0.9, 0.8, 0.3, 0.7, 0.2],
    "relevant": [0, 1, 1, 0, 1, 0, 0],
    "theme": ["x", "x", "y", "y", "x", "x", "x"],
}


def joined(data: dict[str, list[Any]], name: str, columns: list[str]) -> dict[str, list[Any]]:
    """``data`` plus a column ``name`` of the ``columns``' values joined into one string."""
    rows = zip(*(data[c] for c in columns), strict=True)
    return {**data, name: ["|".join(map(str, row)) for row in rows]}


def sorted_rows(table: Any, columns: list[str]) -> pd.DataFrame:
    """A result as pandas, sorted by ``columns``, with a fresh index."""
    return as_pandas(table).sort_values(columns, kind="stable").reset_index(drop=True)


def test_user_as_query_by_hand(make_frame: FrameMaker) -> None:
    # (user, day) queries, items (shop, sku) ranked by score:
    # (1, d1): (s, a) 0.9 non-relevant, (s, b) 0.5 relevant -> RR 1/2, recall@2 = 1
    # (1, d2): (t, a) 0.8 non-relevant, (s, a) 0.1 relevant -> RR 1/2, recall@2 = 1
    # (2, d1): (t, b) 0.7, (s, a) 0.3 relevant, (t, a) 0.2 -> RR 1/2, recall@2 = 1
    # so P@1 = 0 everywhere; (s, a) and (t, a) are two items of (1, d2) and of (2, d1)
    frame = make_frame(LOG)
    ev = frame.rank_eval(query=["user", "day"], item=["shop", "sku"])
    table = as_pandas(ev.per_query(["mrr", "P_1", "recall@2"]))
    assert list(table.columns) == ["user", "day", "mrr", "precision@1", "recall@2"]
    assert table[["user", "day"]].to_numpy().tolist() == [[1, "d1"], [1, "d2"], [2, "d1"]]
    assert table["mrr"].tolist() == [0.5, 0.5, 0.5]
    assert table["precision@1"].tolist() == [0.0, 0.0, 0.0]
    assert table["recall@2"].tolist() == [1.0, 1.0, 1.0]
    by_theme = as_pandas(ev.evaluate(["mrr"], by="theme"))
    assert list(by_theme.columns) == ["theme", "mrr", "n_queries"]
    assert by_theme["n_queries"].tolist() == [2, 1]


def test_user_as_query_differs_from_the_user_alone(make_frame: FrameMaker) -> None:
    # (1, d1): b 0.5 relevant under a 0.9 -> RR 1/2; (1, d2): c 0.7 relevant first -> RR 1;
    # (2, d1): a relevant, alone -> RR 1. Mean 5/6. The user alone as query would merge
    # user 1's days: a 0.9, c 0.7 relevant -> RR 1/2, and mean (1/2 + 1) / 2 = 3/4.
    data = {
        "user": [1, 1, 1, 1, 2],
        "day": ["d1", "d1", "d2", "d2", "d1"],
        "item": ["a", "b", "c", "d", "a"],
        "score": [0.9, 0.5, 0.7, 0.2, 0.3],
        "relevant": [0, 1, 1, 0, 1],
    }
    frame = make_frame(data)
    assert as_float(frame.rank_eval(query=["user", "day"]).mrr()) == pytest.approx(5 / 6)
    assert as_float(frame.rank_eval(query="user").mrr()) == pytest.approx(3 / 4)
    table = as_pandas(frame.rank_eval(query=["user", "day"]).evaluate(["mrr"]))
    assert table["n_queries"].tolist() == [3]


@pytest.mark.parametrize("empty", ["zero", "skip"])
def test_composite_query_equals_joined_ids(make_frame: FrameMaker, empty: str) -> None:
    data = joined(joined(LOG, "key", ["user", "day"]), "item_id", ["shop", "sku"])
    frame = make_frame(data)
    metrics = ["mrr", "ndcg@2", "P_1", "map", "recall@2"]
    composite = frame.rank_eval(query=["user", "day"], item=["shop", "sku"])
    one = frame.rank_eval(query="key", item="item_id")
    mine = sorted_rows(composite.per_query(metrics, empty=empty), ["user", "day"])
    theirs = sorted_rows(one.per_query(metrics, empty=empty), ["key"])
    keys = ["|".join(map(str, row)) for row in mine[["user", "day"]].to_numpy().tolist()]
    assert keys == theirs["key"].tolist()
    pd.testing.assert_frame_equal(mine.drop(columns=["user", "day"]), theirs.drop(columns=["key"]))
    by_theme = as_pandas(composite.evaluate(metrics, by="theme", empty=empty))
    pd.testing.assert_frame_equal(
        by_theme, as_pandas(one.evaluate(metrics, by="theme", empty=empty))
    )


def test_composite_keys_in_comparisons(make_frame: FrameMaker) -> None:
    data = joined(joined(LOG, "key", ["user", "day"]), "item_id", ["shop", "sku"])
    frame = make_frame(data)
    composite = frame.rank_eval(
        query=["user", "day"], item=["shop", "sku"], score=["score", "other"]
    )
    one = frame.rank_eval(query="key", item="item_id", score=["score", "other"])
    shown = ["system", "metric", "mean", "delta", "n_queries", "paired"]
    mine = as_pandas(composite.compare(["mrr", "ndcg@2"], test="t-test"))[shown]
    pd.testing.assert_frame_equal(
        mine, as_pandas(one.compare(["mrr", "ndcg@2"], test="t-test"))[shown]
    )
    # the same frame as its own reference: every query paired with itself, delta 0
    single = frame.rank_eval(query=["user", "day"], item=["shop", "sku"])
    reference = frame.table if make_frame.is_arrow else frame
    against = as_pandas(single.compare(["mrr"], reference=reference))
    assert against["paired"].tolist() == [True]
    assert against["delta"].tolist() == [0.0]
    assert against["n_queries"].tolist() == [3]


def test_composite_item_metrics_of_the_items(make_frame: FrameMaker) -> None:
    # the top 1 of each query: (1, d1) (s, a); (1, d2) (t, a); (2, d1) (t, b): three
    # distinct (shop, sku) items of the frame's four -> coverage 3/4.
    frame = make_frame(LOG)
    composite = frame.rank_eval(query=["user", "day"], item=["shop", "sku"])
    assert as_float(composite.coverage(k=1)) == pytest.approx(3 / 4)


def test_rank_with_composite_keys(make_frame: FrameMaker) -> None:
    frame = make_frame(LOG)
    ranked = as_pandas(frame.rank_eval(query=["user", "day"], item=["shop", "sku"]).rank())
    # within (1, d1): 0.9 first, 0.5 second; (1, d2): 0.8, 0.1; (2, d1): 0.7, 0.3, 0.2
    assert ranked["rank"].tolist() == [1, 2, 2, 1, 2, 3, 1]


def test_a_null_in_a_key_column_names_it(make_frame: FrameMaker) -> None:
    frame = make_frame({**LOG, "day": ["d1", "d1", None, "d2", "d1", "d1", "d1"]})
    with pytest.raises(InvalidDataError, match=r"Column 'day' \(query\) has 1 null value"):
        collect(frame.rank_eval(query=["user", "day"], item=["shop", "sku"]).mrr())
    frame = make_frame({**LOG, "shop": ["s", "s", "s", "t", "s", None, "t"]})
    with pytest.raises(InvalidDataError, match=r"Column 'shop' \(item\) has 1 null value"):
        collect(frame.rank_eval(query=["user", "day"], item=["shop", "sku"]).mrr())


def test_a_duplicate_item_of_a_composite_key(make_frame: FrameMaker) -> None:
    frame = make_frame(LOG)
    with pytest.raises(
        InvalidDataError,
        match=r"appears 2 times in query \((1, 'd2'|2, 'd1')\) "
        r"\(columns 'sku', 'user', 'day'\)",
    ):
        collect(frame.rank_eval(query=["user", "day"], item="sku").mrr())


@pytest.mark.parametrize(
    ("query", "error", "fragment"),
    [
        ([], InvalidOptionError, "query= takes a column name or a list of column names"),
        (["user", 3], InvalidOptionError, "query= takes a column name"),
        (["user", "user"], InvalidOptionError, "query= lists 'user' more than once"),
        (
            ["user", "dya"],
            ColumnNotFoundError,
            "Column 'dya' (query) not found. Did you mean 'day'?",
        ),
        (["user", "sku"], InvalidOptionError, "must be four different columns"),
    ],
    ids=["empty", "not-a-name", "repeated", "missing", "also-the-item"],
)
def test_bad_composite_keys(
    make_frame: FrameMaker, query: list[Any], error: type[Exception], fragment: str
) -> None:
    frame = make_frame(LOG)
    with pytest.raises(error, match=re.escape(fragment)):
        collect(frame.rank_eval(query=query, item="sku").mrr())


def test_the_accessor_shows_a_composite_key(make_frame: FrameMaker) -> None:
    ev = make_frame(LOG).rank_eval(query=["user", "day"], item="sku")
    assert "query=['user', 'day'] item='sku'" in repr(ev)
    # binding other columns keeps the composite key
    assert "query=['user', 'day']" in repr(ev(score="other"))


def test_by_a_column_of_the_composite_key(make_frame: FrameMaker) -> None:
    # a column of the key describes its queries: by="day" groups (1, d1) and (2, d1)
    # (RR 1/2 each) apart from (1, d2) (RR 1/2), hand-computed in test_user_as_query_by_hand
    frame = make_frame(LOG)
    ev = frame.rank_eval(query=["user", "day"], item=["shop", "sku"])
    table = as_pandas(ev.evaluate(["mrr"], by="day"))
    assert table.to_dict("list") == {"day": ["d1", "d2"], "mrr": [0.5, 0.5], "n_queries": [2, 1]}
    rows = as_pandas(ev.per_query(["mrr"], by="day"))
    assert list(rows.columns) == ["user", "day", "mrr"]  # the key's column once
    with pytest.raises(InvalidOptionError, match="by='user' is the query column"):
        collect(frame.rank_eval(query="user", item=["shop", "sku", "day"]).mrr(by="user"))
