"""``rankframe.from_lists``: list columns in, the long frame out, on every frame kind.

Expected long frames and metric values are written out by hand in each test (or taken from
the seed documents' printed tables); errors name the column, the query and the fix.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import rankframe
from helpers import FRAME_KINDS, as_dict, as_float, as_pandas, collect, frames_of, is_modin
from rankframe import ColumnNotFoundError, InvalidDataError, InvalidOptionError

if TYPE_CHECKING:
    from helpers import FrameMaker


@pytest.fixture(params=[k for k in FRAME_KINDS if k != "arrow"])
def make_frame(request: pytest.FixtureRequest) -> Iterator[FrameMaker]:
    """Every frame kind that ``from_lists`` takes (an Arrow table is evaluated through
    ``rankframe.rank_eval``; it holds no accessor and makes no long frame)."""
    with frames_of(request.param) as maker:
        yield maker


PANDAS_KINDS = ("pandas", "pandas-pyarrow", "modin")
NAN = float("nan")


def _rows(result: Any) -> list[tuple[Any, ...]]:
    """The (query, item, score, relevant) rows of a long frame of any kind; a null score is
    None."""
    table = as_pandas(result)
    score = pd.to_numeric(table["score"]).astype("Float64").astype(object)
    return [
        (q, i, None if pd.isna(s) else int(s), float(g))
        for q, i, s, g in zip(table["query"], table["item"], score, table["relevant"], strict=True)
    ]


def _same_kind(result: Any, make_frame: FrameMaker) -> None:
    expected = {
        "pandas": pd.DataFrame,
        "pandas-pyarrow": pd.DataFrame,
        "polars": pl.DataFrame,
        "polars-lazy": pl.LazyFrame,
        "polars-parts": pl.LazyFrame,
    }.get(make_frame.kind)
    if make_frame.is_modin:
        assert is_modin(result), type(result)
    elif expected is None:
        assert type(result).__module__.startswith("dask"), type(result)
    else:
        assert isinstance(result, expected), type(result)


def test_lists_become_long_rows(make_frame: FrameMaker) -> None:
    frame = make_frame(
        {
            "user": ["u1", "u2"],
            "recommended": [["a", "b", "c"], ["d"]],
            "relevant": [["c", "x"], []],
            "segment": ["new", "old"],
        }
    )
    long = rankframe.from_lists(frame, query="user")
    _same_kind(long, make_frame)
    assert list(collect(long).columns) == ["query", "item", "score", "relevant", "segment"]
    assert _rows(long) == [
        ("u1", "a", 3, 0.0),
        ("u1", "b", 2, 0.0),
        ("u1", "c", 1, 1.0),
        ("u1", "x", None, 1.0),  # relevant, not recommended: judged but not retrieved
        ("u2", "d", 1, 0.0),
    ]
    assert as_pandas(long)["segment"].tolist() == ["new"] * 4 + ["old"]


def test_portuguese_lists_mrr(make_frame: FrameMaker) -> None:
    # 004: recommendation_lists / relevance_lists; RR = 1/2, 1, 1/3
    frame = make_frame(
        {
            "query": [1, 2, 3],
            "recommended": [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]],
            "relevant": [[2], [5, 6], [11]],
        }
    )
    ev = rankframe.from_lists(frame).rank_eval
    assert as_float(ev.mrr()) == pytest.approx((1 / 2 + 1 + 1 / 3) / 3, abs=1e-15)
    assert as_dict(ev.per_query("mrr")) == {
        1: {"mrr": 0.5},
        2: {"mrr": 1.0},
        3: {"mrr": pytest.approx(1 / 3)},
    }


def test_portuguese_ndcg_and_ap_table(make_frame: FrameMaker) -> None:
    # 004's table: the same list [1, 2, 3, 4], relevant [1, 2], [1, 3], [1, 4]
    frame = make_frame(
        {
            "query": [1, 2, 3],
            "recommended": [[1, 2, 3, 4]] * 3,
            "relevant": [[1, 2], [1, 3], [1, 4]],
        }
    )
    table = as_dict(rankframe.from_lists(frame).rank_eval.per_query(["mrr", "ndcg", "map"]))
    ideal = 1 + 1 / math.log2(3)
    assert table == {
        1: {"mrr": 1.0, "ndcg": pytest.approx(1.0), "map": 1.0},
        2: {"mrr": 1.0, "ndcg": pytest.approx((1 + 1 / 2) / ideal), "map": pytest.approx(5 / 6)},
        3: {
            "mrr": 1.0,
            "ndcg": pytest.approx((1 + 1 / math.log2(5)) / ideal),
            "map": pytest.approx(3 / 4),
        },
    }
    assert table[2]["ndcg"] == pytest.approx(0.919721, abs=5e-7)  # as printed
    assert table[3]["ndcg"] == pytest.approx(0.877215, abs=5e-7)


def test_missing_truth_counts_in_recall_map_and_ideal_dcg(make_frame: FrameMaker) -> None:
    frame = make_frame({"query": ["q"], "recommended": [["a", "b"]], "relevant": [["b", "c"]]})
    result = as_pandas(
        rankframe.from_lists(frame).rank_eval.evaluate(["recall@2", "map", "ndcg", "precision@2"])
    )
    discount = 1 / math.log2(3)
    assert result.loc[0, "recall@2"] == 0.5
    assert result.loc[0, "map"] == pytest.approx((1 / 2) / 2)
    assert result.loc[0, "ndcg"] == pytest.approx(discount / (1 + discount))
    assert result.loc[0, "precision@2"] == 0.5


def test_grades_column(make_frame: FrameMaker) -> None:
    frame = make_frame(
        {
            "query": ["q1", "q2"],
            "recommended": [["a", "b", "c"], ["d", "e"]],
            "relevant": [["c", "a", "z"], ["e"]],
            "grades": [[3, 1, 2], [2]],
        }
    )
    long = rankframe.from_lists(frame, grades="grades")
    assert _rows(long) == [
        ("q1", "a", 3, 1.0),
        ("q1", "b", 2, 0.0),
        ("q1", "c", 1, 3.0),
        ("q1", "z", None, 2.0),
        ("q2", "d", 2, 0.0),
        ("q2", "e", 1, 2.0),
    ]
    # q1: DCG = 1 + 3/log2(4); ideal = 3 + 2/log2(3) + 1/log2(4); q2: 2/log2(3) over 2
    ndcg = as_dict(long.rank_eval.per_query("ndcg"))
    assert ndcg["q1"]["ndcg"] == pytest.approx((1 + 3 / 2) / (3 + 2 / math.log2(3) + 1 / 2))
    assert ndcg["q2"]["ndcg"] == pytest.approx(1 / math.log2(3))


def test_by_segment_of_carried_column(make_frame: FrameMaker) -> None:
    frame = make_frame(
        {
            "query": [1, 2, 3],
            "recommended": [["a", "b"], ["a", "b"], ["a", "b"]],
            "relevant": [["a"], ["b"], ["c"]],
            "theme": ["x", "y", "y"],
        }
    )
    table = as_pandas(rankframe.from_lists(frame).rank_eval.evaluate("mrr", by="theme"))
    assert table.sort_values("theme")[["theme", "mrr", "n_queries"]].to_numpy().tolist() == [
        ["x", 1.0, 1],
        ["y", 0.25, 2],
    ]


def test_korean_cases_dicts(make_frame: FrameMaker) -> None:
    # 001: predict_list and the ground_truth dict of each case; MRR 0.375, RR@5 of case 1 0.5
    data = {
        "query": [1, 2],
        "recommended": [["A", "B", "C", "L", "Y", "U", "F", "Z"], ["N", "X", "Y", "B", "M"]],
        "relevant": [{"C": 1.0, "K": 1.0, "B": 1.0, "Z": 1.0}, {"E": 1.0, "B": 1.0}],
    }
    frame = make_frame(data)
    if make_frame.kind not in PANDAS_KINDS:  # dicts are pandas' (polars: structs)
        with pytest.raises(
            InvalidDataError,
            match=r"Column 'relevant' \(relevant\) must hold "
            r"one list per row .* got (structs|strings)",
        ):
            collect(rankframe.from_lists(frame))
        return
    ev = rankframe.from_lists(frame).rank_eval
    assert ev.mrr() == 0.375
    assert as_pandas(ev.per_query("mrr@5"))["mrr@5"].tolist() == [0.5, 0.25]
    assert ev.recall(k=5) == pytest.approx((2 / 4 + 1 / 2) / 2)  # K and E are not retrieved


def test_pandas_arrow_map_column() -> None:
    import pyarrow as pa

    truth = pa.array([{"b": 2.0}, {}], type=pa.map_(pa.string(), pa.float64()))
    frame = pd.DataFrame(
        {
            "query": [1, 2],
            "recommended": [["a", "b"], ["c"]],
            "relevant": pd.arrays.ArrowExtensionArray(truth),
        }
    )
    assert _rows(rankframe.from_lists(frame)) == [
        (1, "a", 2, 0.0),
        (1, "b", 1, 2.0),
        (2, "c", 1, 0.0),
    ]


def test_empty_lists_and_integer_items(make_frame: FrameMaker) -> None:
    frame = make_frame(
        {"query": [1, 2, 3], "recommended": [[], [7, 8], []], "relevant": [[5], [8], []]}
    )
    assert _rows(rankframe.from_lists(frame)) == [(1, 5, None, 1.0), (2, 7, 2, 0.0), (2, 8, 1, 1.0)]


def test_lazy_frame_is_not_collected() -> None:
    frame = pl.LazyFrame({"query": [1], "recommended": [[1, 2]], "relevant": [[2]]})
    long = rankframe.from_lists(frame)
    assert isinstance(long, pl.LazyFrame)
    assert long.collect_schema() == {
        "query": pl.Int64,
        "item": pl.Int64,
        "score": pl.Int64,
        "relevant": pl.Int64,
    }


# -- errors ----------------------------------------------------------------------------------


def _fails(
    make_frame: FrameMaker, data: dict[str, Any], error: type[Exception], match: str, **names: Any
) -> None:
    frame = make_frame(data)
    with pytest.raises(error, match=match):
        collect(rankframe.from_lists(frame, **names))


def test_item_twice_in_a_list(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {
            "query": ["q1", "q2"],
            "recommended": [["a"], ["b", "c", "b"]],
            "relevant": [["a"], ["c"]],
        },
        InvalidDataError,
        r"Item 'b' appears 2 times in the list of column 'recommended' "
        r"\(recommended\) of query 'q2'; each item may appear once per list\. Drop the "
        r"repeats",
    )


def test_item_twice_in_the_truth(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {"query": [1], "recommended": [[1]], "relevant": [[4, 4]]},
        InvalidDataError,
        r"Item 4 appears 2 times in the list of column 'relevant' "
        r"\(relevant\) of query 1",
    )


def test_null_list(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {"query": ["q1", "q2"], "recommended": [["a"], None], "relevant": [["a"], ["b"]]},
        InvalidDataError,
        r"Column 'recommended' \(recommended\) has a null instead of a "
        r"list in query 'q2' \(1 null lists in all\); give every query a list, an empty one",
    )


def test_null_item(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {"query": ["q1"], "recommended": [["a", None]], "relevant": [["a"]]},
        InvalidDataError,
        r"Column 'recommended' \(recommended\) has a null item in the "
        r"list of query 'q1'; drop the nulls",
    )


def test_grades_of_another_length(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {
            "query": ["q1", "q2"],
            "recommended": [["a"], ["b"]],
            "relevant": [["a"], ["b", "c"]],
            "g": [[1], [2]],
        },
        InvalidDataError,
        r"Column 'g' \(grades\) has 1 grades but column 'relevant' "
        r"\(relevant\) has 2 items in query 'q2'; give one grade per relevant item",
        grades="g",
    )


def test_grades_not_numbers(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {"query": ["q1"], "recommended": [["a"]], "relevant": [["a"]], "g": [["high"]]},
        InvalidDataError,
        r"Column 'g' \(grades\) must hold lists of numbers",
        grades="g",
    )


def test_column_of_strings_is_no_list(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {"query": ["q1"], "recommended": ["a b c"], "relevant": [["a"]]},
        InvalidDataError,
        r"Column 'recommended' \(recommended\) must hold one list per row "
        r"\(the ranked items, first = rank 1\); got strings\. Split the strings into lists",
    )


def test_missing_column(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {"query": ["q1"], "recommended": [["a"]], "relevant": [["a"]]},
        ColumnNotFoundError,
        r"Column 'recommendations' \(recommended\) not found\. Did you "
        r"mean 'recommended'\? Pass recommended='\.\.\.' to from_lists",
        recommended="recommendations",
    )


def test_query_on_two_rows(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {
            "query": ["q1", "q2", "q3", "q1"],
            "recommended": [["a"], ["b"], ["c"], ["d"]],
            "relevant": [["a"], ["b"], ["c"], ["d"]],
        },
        InvalidDataError,
        r"Query 'q1' has 2 rows in column 'query'; from_lists takes one "
        r"row per query",
    )


def test_output_name_clash(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {"user": ["q1"], "recommended": [["a"]], "relevant": [["a"]], "score": [1.0]},
        InvalidDataError,
        r"Column 'score' of the frame would clash with the output column "
        r"'score' of from_lists; rename it first",
        query="user",
    )


def test_items_of_two_types(make_frame: FrameMaker) -> None:
    _fails(
        make_frame,
        {"query": ["q1"], "recommended": [["a"]], "relevant": [[1]]},
        InvalidDataError,
        r"The items of column 'recommended' \(recommended\) are "
        r"large_string but those of column 'relevant' \(relevant\) are int64",
    )


def test_dicts_with_grades_column() -> None:
    frame = pd.DataFrame(
        {"query": [1], "recommended": [["a"]], "relevant": [{"a": 1.0}], "g": [[1]]}
    )
    with pytest.raises(
        InvalidOptionError,
        match=r"Column 'relevant' \(relevant\) holds dicts "
        r"\(item -> grade\), which carry their grades; pass grades=None",
    ):
        rankframe.from_lists(frame, grades="g")


def test_not_a_frame() -> None:
    with pytest.raises(
        InvalidOptionError,
        match=r"from_lists takes a pandas, polars, Dask or "
        r"PySpark DataFrame or a polars LazyFrame; got builtins\.dict",
    ):
        rankframe.from_lists({"query": [1]})


def test_vectorised_on_many_rows() -> None:
    # 20,000 queries of 50 items: the long frame's metric against NumPy written here
    rng = np.random.default_rng(0)
    n, m = 20_000, 50
    lists = rng.permuted(np.tile(np.arange(200), (n, 1)), axis=1)[:, :m]
    truth = rng.integers(0, 200, size=n)
    frame = pd.DataFrame(
        {"query": np.arange(n), "recommended": list(lists), "relevant": list(truth[:, None])}
    )
    hit = lists == truth[:, None]
    expected = np.where(hit.any(axis=1), 1 / (hit.argmax(axis=1) + 1), 0.0).mean()
    assert rankframe.from_lists(frame).rank_eval.mrr() == pytest.approx(expected, abs=1e-12)


def test_pyspark_is_imported_only_for_a_spark_frame() -> None:
    # from_lists takes Spark frames, but `import rankframe` and pandas frames leave pyspark out
    code = (
        "import sys, pandas as pd, rankframe\n"
        "rankframe.from_lists(pd.DataFrame({'query': [1], 'recommended': [['a']],"
        " 'relevant': [['a']]}))\n"
        "print('pyspark' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
