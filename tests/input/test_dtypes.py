"""Every dtype an id, score or grade column may have: an exact result, or a clear error.

Two parts:

- the values that used to come out wrong (integer scores beyond 2**53, pandas ``Interval``
  ids, exponential gains of huge grades, object columns that mix types), each against a
  reference written here or in ``reference.py``;
- the dtype matrix of ``docs/dtypes.md``: the test reads the page's table and checks every
  cell. A row is one dtype of one library; the frame is built from a pandas reference frame
  for each frame kind of that library (through ``FrameMaker``, as the ``make_frame``
  fixture does) and the column under test is then cast by that library itself. An "exact"
  cell is compared with a reference computed in Python from the order of the values; an
  error cell names the ``RankEvalError`` subclass, and the message must name the column.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import rankframe
from helpers import DOCS, FrameMaker, as_float, as_pandas, assert_unchanged, collect
from reference import Row, evaluate

DTYPES_PAGE = DOCS / "dtypes.md"
METRICS = [("mrr", None), ("ndcg", 10), ("map", None)]


def _values(frame: Any) -> dict[str, float]:
    """mrr, ndcg@10 and map of a frame of any kind."""
    table = collect(frame.rank_eval.evaluate(["mrr", "ndcg@10", "map"]))
    if isinstance(table, pl.DataFrame):
        table = table.to_pandas()
    return {c: float(table[c].iloc[0]) for c in ("mrr", "ndcg@10", "map")}


def _expected(rows: list[Row]) -> dict[str, float]:
    return {c: v for c, v in evaluate(rows, METRICS)[None].items() if c != "n_queries"}


def _assert_close(got: dict[str, float], want: dict[str, float]) -> None:
    assert got.keys() == want.keys()
    for name, value in want.items():
        assert got[name] == pytest.approx(value, rel=1e-12, abs=1e-12), (name, got, want)


# -- values that used to be wrong ---------------------------------------------------------


NS_2026 = 1_764_000_000_000_000_000  # nanoseconds since 1970: float64's spacing here is 256


@pytest.mark.parametrize(
    ("dtype", "base", "step"),
    [("Int64", NS_2026, 1), ("UInt64", 2**64 - 1, -1), ("Int64", -(2**63), 1)],
    ids=["int64-nanoseconds", "uint64-near-max", "int64-min"],
)
def test_integer_scores_beyond_2_53_rank_exactly(
    make_frame: FrameMaker, dtype: str, base: int, step: int
) -> None:
    # scores that differ by 1 (distinct) or 0 (tied): float64 would tie all of them
    offsets = [[3, 1, 1, 2, None], [0, 5, 4, 4, 6]]
    grades = [[0, 1, 0, 2, 1], [1, 0, 2, 0, 1]]
    rows = [
        Row(f"q{q}", f"d{i}", None if o is None else base + step * o, grades[q][i])
        for q in range(2)
        for i, o in enumerate(offsets[q])
    ]
    frame = make_frame(
        {
            "query": [r.query for r in rows],
            "item": [r.item for r in rows],
            "score": pd.array([r.score for r in rows], dtype=dtype),
            "relevant": [r.relevant for r in rows],
        }
    )
    want = _expected(rows)
    # the data tells exact from float64: ranked through float64, the values differ
    rounded = [r._replace(score=None if r.score is None else float(r.score)) for r in rows]
    assert _expected(rounded) != want
    _assert_close(_values(frame), want)


def test_exponential_gain_of_grades_beyond_float_range(make_frame: FrameMaker) -> None:
    grades = [1000, 1100, 0, 1050, 1099]
    frame = make_frame(
        {"query": "q", "item": list("abcde"), "score": [5.0, 4, 3, 2, 1], "relevant": grades}
    )
    # exact: integer gains 2**g - 1 as fractions, one rounding at the end
    discounts = [math.log2(i + 1) for i in range(1, 6)]

    def dcg(order: list[int]) -> Fraction:
        return sum(
            (Fraction(2**g - 1) / Fraction(d) for g, d in zip(order, discounts, strict=True)),
            Fraction(0),
        )

    want = float(dcg(grades) / dcg(sorted(grades, reverse=True)))
    assert 0 < want < 1
    got = as_float(frame.rank_eval.ndcg(gain="exponential"))
    assert got == pytest.approx(want, rel=1e-12)


def test_linear_gain_of_grades_near_float_max(make_frame: FrameMaker) -> None:
    grades = [1e308, 0.0, 1.5e308]
    frame = make_frame(
        {"query": "q", "item": list("abc"), "score": [3.0, 2, 1], "relevant": grades}
    )
    weights = [Fraction(1), Fraction(math.log2(3)), Fraction(2)]
    ranked = sum(Fraction(g) / w for g, w in zip(grades, weights, strict=True))
    ideal = Fraction(1.5e308) / weights[0] + Fraction(1e308) / weights[1]
    assert as_float(frame.rank_eval.ndcg()) == pytest.approx(float(ranked / ideal), rel=1e-12)


@pytest.mark.parametrize(
    "grades",
    [[127, 0, 1, 126, 3, 2], [255, 0, 1, 254, 3, 2], [2**40, 0, 1, 2**39, 3, 2]],
    ids=["int8", "int16", "int64"],
)
@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_integer_grades_of_every_width_rank_and_gain_as_numbers(
    make_frame: FrameMaker, grades: list[int], ties: str
) -> None:
    # a polars frame's chunks are joined into the narrowest integers that hold the grades
    # (int8 for these, int16, int64): its grades are the same numbers, negated to sort
    frame = make_frame(
        {"query": "q", "item": list("abcdef"), "score": [2.0, 1, 1, 1, 1, 0], "relevant": grades}
    )
    tied = sorted(grades[1:5], reverse=ties == "optimistic")
    ranked = [grades[0], *tied, grades[5]]
    weights = [Fraction(math.log2(i + 1)) for i in range(1, 7)]

    def dcg(order: list[int]) -> Fraction:
        return sum((Fraction(g) / w for g, w in zip(order, weights, strict=True)), Fraction(0))

    want = float(dcg(ranked) / dcg(sorted(grades, reverse=True)))
    assert as_float(frame.rank_eval.ndcg(ties=ties)) == pytest.approx(want, rel=1e-12)


def _interval_frame(kind: str, dtype: str) -> Any:
    """One query of 12 tied intervals (text order "(10, 11]" < "(2, 3]" is not theirs)."""
    intervals = [pd.Interval(i, i + 1) for i in range(12)] + [pd.Interval(0, 5)]
    grades = [1, 0, 2, 0, 0, 1, 0, 0, 0, 0, 2, 0, 1]
    column = pd.Series(intervals, dtype=object if dtype == "object" else "interval")
    rows = [Row("q", v, 1.0, g) for v, g in zip(intervals, grades, strict=True)]
    frame = FrameMaker(kind)({"query": "q", "item": column, "score": 1.0, "relevant": grades})
    return frame, rows


@pytest.mark.parametrize("dtype", ["object", "interval"])
@pytest.mark.parametrize("kind", ["pandas", "pandas-pyarrow"])  # polars has no intervals
def test_interval_ids_tie_in_the_order_of_intervals(kind: str, dtype: str) -> None:
    frame, rows = _interval_frame(kind, dtype)
    before = frame.copy(deep=True)
    _assert_close(_values(frame), _expected(rows))  # reference: Python's sort of Intervals
    assert_unchanged(before, frame)


@pytest.mark.parametrize("kind", ["pandas", "pandas-pyarrow"])  # polars has no mixed column
def test_mixed_type_ids_do_not_depend_on_row_order(kind: str) -> None:
    make = FrameMaker(kind)
    data = pd.DataFrame(
        {"query": "q", "item": pd.Series([1, "1"], dtype=object), "score": 1.0, "relevant": [1, 0]}
    )
    # numbers before strings: "1" > 1, so "1" ranks first and the relevant 1 second
    assert make(data).rank_eval.mrr() == 0.5
    assert make(data.iloc[::-1].reset_index(drop=True)).rank_eval.mrr() == 0.5
    make.check_unchanged()


@pytest.mark.parametrize("kind", ["pandas", "pandas-pyarrow"])
def test_mixed_type_ids_order_by_family_then_value(kind: str) -> None:
    values = [
        True,
        2**70,
        2.5,
        -1,
        "10",
        "9",
        "B",
        b"a",
        (1, "x"),
        (0, "y"),
        datetime.date(2020, 1, 1),
        Decimal("0.5"),
    ]
    # the documented total order: families by name (bytes, date, number, str, tuple), then
    # by value within a family (True == 1 as a number)
    ascending = [
        b"a",
        datetime.date(2020, 1, 1),
        -1,
        Decimal("0.5"),
        True,
        2.5,
        2**70,
        "10",
        "9",
        "B",
        (0, "y"),
        (1, "x"),
    ]
    column = pd.Series(values, dtype=object)
    frame = FrameMaker(kind)({"query": "q", "item": column, "score": 1.0, "relevant": 0})
    ranks = frame.rank_eval.rank()["rank"].tolist()
    position = {repr(v): len(ascending) - i for i, v in enumerate(ascending)}
    assert ranks == [position[repr(v)] for v in values]


@pytest.mark.parametrize("kind", ["pandas", "pandas-pyarrow"])
def test_ids_in_a_partial_order_do_not_depend_on_row_order(kind: str) -> None:
    # frozensets compare by "subset of": {1} and {2} are neither below nor above each other,
    # so they are ordered by their text: frozenset({2}) ranks first
    make = FrameMaker(kind)
    data = pd.DataFrame(
        {"query": "q", "item": [frozenset({1}), frozenset({2})], "score": 1.0, "relevant": [1, 0]}
    )
    assert make(data).rank_eval.mrr() == 0.5
    assert make(data.iloc[::-1].reset_index(drop=True)).rank_eval.mrr() == 0.5
    make.check_unchanged()


@pytest.mark.parametrize("kind", ["pandas", "pandas-pyarrow"])  # polars: no such ids
def test_item_ids_without_order_get_an_error(kind: str) -> None:
    class Opaque:
        def __init__(self, text: str) -> None:
            self.text = text

        def __repr__(self) -> str:
            return "Opaque"  # two different ids, one text: no order to fall back on

    frame = FrameMaker(kind)(
        {"query": "q", "item": [Opaque("a"), Opaque("b")], "score": 1.0, "relevant": [1, 0]}
    )
    with pytest.raises(rankframe.InvalidDataError, match=r"Column 'item' \(item, dtype object"):
        frame.rank_eval.mrr()
    assert frame.rank_eval.mrr(ties="first") == 1.0


def _tuple(value: Any) -> Any:
    """A composite id read back from any frame kind (a tuple, a list, a NumPy array) as a
    tuple, at any depth."""
    if hasattr(value, "tolist") and not isinstance(value, tuple):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return tuple(_tuple(v) for v in value)
    return value


# (user_id, session_id) queries, (doc, version) items of different lengths, a tuple cohort.
# pandas holds tuples in object columns; pyarrow, polars and Dask get list columns.
COMPOSITE = {
    "query": [(1, 2)] * 4 + [(1, 10)] * 3 + [(2, 0)] * 4,
    "item": [
        (3,),
        (3, 0),
        (10, 1),
        (2, 9),
        (5, 5),
        (5, 6),
        (4, 100),
        (7, 1),
        (7, 2),
        (1, 1),
        (7, 1, 5),
    ],
    "score": [1.0, 1.0, 1.0, 0.5, 2.0, 2.0, 2.0, 0.3, 0.3, 0.9, 0.3],
    "relevant": [1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1],
    "cohort": [(0, 1)] * 7 + [(1, 0)] * 4,
}


def test_composite_ids_of_integers(make_frame: FrameMaker) -> None:
    # Ties are broken by item id descending, tuples compared as Python compares them:
    # element by element, numbers as numbers, a tuple before any longer one it begins.
    # (1, 2):  at 1.0 (10, 1) > (3, 0) > (3,): ranks (10, 1)=1 r0, (3, 0)=2 r0, (3,)=3 r1;
    #          (2, 9)=4 r1.  RR = 1/3, AP = (1/3 + 2/4) / 2 = 5/12.
    #          (as text, "(3,)" > "(3, 0)" > "(10, 1)" would give RR = 1.)
    # (1, 10): at 2.0 (5, 6) > (5, 5) > (4, 100): (5, 6) r1 first.  RR = 1, AP = 1.
    # (2, 0):  (1, 1)=1 r0 (0.9); at 0.3 (7, 2) > (7, 1, 5) > (7, 1): (7, 2)=2 r0,
    #          (7, 1, 5)=3 r1.  RR = 1/3, AP = (1/3) / 1 = 1/3.
    # Queries in tuple order (1, 2) < (1, 10) < (2, 0) (as text, "(1, 10)" < "(1, 2)").
    # Means: mrr = (1/3 + 1 + 1/3) / 3 = 5/9; map = (5/12 + 1 + 1/3) / 3 = 7/12.
    # Cohort (0, 1) = queries (1, 2), (1, 10): mrr 2/3, map (5/12 + 1) / 2 = 17/24;
    # cohort (1, 0) = query (2, 0): mrr 1/3, map 1/3.
    frame = make_frame(pd.DataFrame(COMPOSITE))
    overall = as_pandas(frame.rank_eval.evaluate(["mrr", "map"]))
    assert overall["mrr"].tolist() == pytest.approx([5 / 9], rel=1e-12)
    assert overall["map"].tolist() == pytest.approx([7 / 12], rel=1e-12)

    per_query = as_pandas(frame.rank_eval.per_query(["mrr", "map"]))
    assert [_tuple(q) for q in per_query["query"]] == [(1, 2), (1, 10), (2, 0)]
    assert per_query["mrr"].tolist() == pytest.approx([1 / 3, 1, 1 / 3], rel=1e-12)
    assert per_query["map"].tolist() == pytest.approx([5 / 12, 1, 1 / 3], rel=1e-12)

    segments = as_pandas(frame.rank_eval.evaluate(["mrr", "map"], by="cohort"))
    got = {
        _tuple(c): (m, a)
        for c, m, a in zip(segments["cohort"], segments["mrr"], segments["map"], strict=True)
    }
    assert got == {
        (0, 1): pytest.approx((2 / 3, 17 / 24), rel=1e-12),
        (1, 0): pytest.approx((1 / 3, 1 / 3), rel=1e-12),
    }
    assert [_tuple(c) for c in segments["cohort"]] == [(0, 1), (1, 0)]

    ranked = as_pandas(frame.rank_eval.rank())
    assert ranked["rank"].tolist() == [3, 2, 1, 4, 2, 1, 3, 4, 2, 1, 3]


@pytest.mark.parametrize(
    "items",
    [
        # (1.5, 2.0) > (1.5, 1.25) > (-0.5, 3.0): the second element decides, as numbers
        [(1.5, 1.25), (1.5, 2.0), (-0.5, 3.0)],
        # False < True: (True, False) > (False, True)
        [(False, True), (True, False)],
        # tuples of tuples, element by element: ((1, 2), (3,)) > ((1, 2), (0, 9)), as
        # (3,) > (0, 9) (3 > 0, whatever the lengths); both > ((0, 9), (9, 9))
        [((1, 2), (0, 9)), ((1, 2), (3,)), ((0, 9), (9, 9))],
    ],
    ids=["floats", "bools", "nested"],
)
def test_composite_ids_of_floats_bools_and_tuples(
    make_frame: FrameMaker, items: list[tuple[Any, ...]]
) -> None:
    # one query, every item tied: ties="trec" ranks them by item id descending, in Python's
    # tuple order. The relevant item, listed second, is the largest id: rank 1, RR = 1
    # (in row order, or with the second elements compared wrongly, it would rank 2: 1/2).
    assert max(items) == items[1]
    relevant = [int(i == 1) for i in range(len(items))]
    frame = make_frame({"query": "q", "item": items, "score": 1.0, "relevant": relevant})
    assert as_float(frame.rank_eval.mrr()) == 1.0
    assert as_float(frame.rank_eval.mrr(ties="first")) == 0.5


@pytest.mark.parametrize("column", ["score", "item", "theme"])
@pytest.mark.parametrize("kind", ["pandas", "pandas-pyarrow"])  # polars: names are unique
def test_a_duplicated_column_name_is_an_error(kind: str, column: str) -> None:
    frame = FrameMaker(kind)(
        pd.DataFrame(
            [["q", "a", 1.0, 1, "x", "y"]],
            columns=["query", "item", "score", "relevant", "theme", column],
        )
    )
    role = "by" if column == "theme" else column
    with pytest.raises(
        rankframe.InvalidDataError, match=f"Column name '{column}' \\({role}\\) appears 2 times"
    ):
        frame.rank_eval.mrr(by="theme")


# -- the dtype matrix of docs/dtypes.md ------------------------------------------------------


def _pd(dtype: Any) -> Callable[[list[Any]], pd.Series]:
    return lambda values: pd.Series(values, dtype=dtype)


def _pd_arrow(kind: pa.DataType) -> Callable[[list[Any]], pd.Series]:
    return lambda values: pd.Series(pa.array(values, type=kind), dtype=pd.ArrowDtype(kind))


def _pd_half(values: list[Any]) -> pd.Series:
    # NumPy's float16 scalars: older pyarrow (the floor, 18) makes no float16 of Python floats
    array = pa.array([None if v is None else np.float16(v) for v in values], type=pa.float16())
    return pd.Series(array, dtype=pd.ArrowDtype(pa.float16()))


def _pd_dictionary(values: list[Any]) -> pd.Series:
    array = pa.array(values).dictionary_encode()
    return pd.Series(array, dtype=pd.ArrowDtype(array.type))


def _pl(dtype: Any, source: Any = None) -> Callable[[list[Any]], pl.Series]:
    return lambda values: pl.Series(values, dtype=source).cast(dtype)


def _pl_object(values: list[Any]) -> pl.Series:
    return pl.Series(values, dtype=pl.Object)


@dataclass
class Dtype:
    """How to build one dtype of the matrix from Python values, and which values.

    ``ids`` are distinct and ascending in the order rankframe documents; ``scores`` and
    ``grades`` too (None: not numeric, so any values, the cell being an error).
    """

    make: Callable[[list[Any]], Any]
    ids: list[Any]
    scores: list[Any] | None = None
    grades: list[Any] | None = None


INTS = [-5, 0, 7]
BIG = [-(2**62), 2**62 + 1, 2**62 + 2]  # +1 and +2 round to one float64
DAYS = [datetime.date(2020, 1, d) for d in (1, 2, 3)]
MOMENTS = [datetime.datetime(2020, 1, 1, h) for h in (0, 1, 2)]
SPANS = [datetime.timedelta(hours=h) for h in (0, 1, 2)]
FLOATS = [-1.5, 0.25, 3.0]
STRINGS = ["B", "a", "é"]
INTERVALS = [pd.Interval(0, 3), pd.Interval(1, 2), pd.Interval(1, 3)]
NUMERIC = {"scores": FLOATS, "grades": [0, 1, 2]}
# 38 digits: float64 rounds them to one number (written out: Decimal arithmetic keeps 28)
WIDE_DECIMALS = [
    Decimal("1" + "0" * 36),
    Decimal("1" + "0" * 36 + ".1"),
    Decimal("1" + "0" * 35 + "1"),
]

DTYPES: dict[tuple[str, str], Dtype] = {
    # pandas: NumPy dtypes
    ("pandas", "int64"): Dtype(_pd("int64"), INTS, BIG, [0, 1, 2]),
    ("pandas", "int32"): Dtype(_pd("int32"), INTS, INTS, [0, 1, 2]),
    ("pandas", "uint64"): Dtype(
        _pd("uint64"), [0, 2**63, 2**64 - 1], [2**64 - 3, 2**64 - 2, 2**64 - 1], [0, 1, 2]
    ),
    ("pandas", "float64"): Dtype(_pd("float64"), FLOATS, **NUMERIC),
    ("pandas", "float32"): Dtype(_pd("float32"), FLOATS, **NUMERIC),
    ("pandas", "bool"): Dtype(_pd("bool"), [False, True], [False, True], [False, True]),
    ("pandas", "datetime64[ns]"): Dtype(_pd("datetime64[ns]"), MOMENTS),
    ("pandas", "timedelta64[ns]"): Dtype(_pd("timedelta64[ns]"), SPANS),
    ("pandas", "object (str)"): Dtype(_pd(object), STRINGS),
    ("pandas", "object (int)"): Dtype(_pd(object), [-(2**70), 3, 2**70]),
    ("pandas", "object (mixed types)"): Dtype(_pd(object), [2.5, 2**70, "1"]),
    ("pandas", "object (tuple)"): Dtype(_pd(object), [(0, "b"), (1, "a"), (1, "b")]),
    ("pandas", "object (int tuple)"): Dtype(_pd(object), [(1, 2), (1, 2, 0), (1, 10)]),
    ("pandas", "object (float tuple)"): Dtype(_pd(object), [(-1.5, 2.0), (0.25,), (0.25, 1.0)]),
    ("pandas", "object (nested tuple)"): Dtype(_pd(object), [((0, 9), 1), ((1,), 0), ((1, 2), 0)]),
    ("pandas", "object (tuple with None)"): Dtype(_pd(object), [(0, None), (1, 2), (1, 3)]),
    ("pandas", "object (Interval)"): Dtype(_pd(object), INTERVALS),
    ("pandas", "object (Decimal)"): Dtype(_pd(object), [Decimal("0.1"), Decimal(1), 2]),
    ("pandas", "object (list)"): Dtype(_pd(object), [[0], [1], [1, 2]]),
    ("pandas", "object (dict)"): Dtype(_pd(object), [{"a": 0}, {"a": 1}]),
    ("pandas", "object (set)"): Dtype(_pd(object), [{0}, {1}, {1, 2}]),
    # pandas: extension dtypes
    ("pandas", "str"): Dtype(_pd("str"), STRINGS),
    ("pandas", "category"): Dtype(_pd("category"), STRINGS),
    ("pandas", "Int64"): Dtype(_pd("Int64"), INTS, BIG, [0, 1, 2]),
    ("pandas", "UInt64"): Dtype(
        _pd("UInt64"), [0, 5, 2**64 - 1], [2**64 - 3, 2**64 - 2, 2**64 - 1], [0, 1, 2]
    ),
    ("pandas", "Float64"): Dtype(_pd("Float64"), FLOATS, **NUMERIC),
    ("pandas", "boolean"): Dtype(_pd("boolean"), [False, True], [False, True], [False, True]),
    ("pandas", "interval"): Dtype(_pd("interval"), INTERVALS),
    ("pandas", "datetime64[ns, UTC]"): Dtype(
        _pd("datetime64[ns, UTC]"), [m.replace(tzinfo=datetime.UTC) for m in MOMENTS]
    ),
    # pandas: pyarrow dtypes
    ("pandas", "int64[pyarrow]"): Dtype(_pd_arrow(pa.int64()), INTS, BIG, [0, 1, 2]),
    ("pandas", "uint64[pyarrow]"): Dtype(
        _pd_arrow(pa.uint64()), [0, 5, 2**64 - 1], [2**64 - 3, 2**64 - 2, 2**64 - 1], [0, 1, 2]
    ),
    ("pandas", "double[pyarrow]"): Dtype(_pd_arrow(pa.float64()), FLOATS, **NUMERIC),
    ("pandas", "bool[pyarrow]"): Dtype(
        _pd_arrow(pa.bool_()), [False, True], [False, True], [False, True]
    ),
    ("pandas", "string[pyarrow]"): Dtype(_pd_arrow(pa.string()), STRINGS),
    ("pandas", "large_string[pyarrow]"): Dtype(_pd_arrow(pa.large_string()), STRINGS),
    ("pandas", "dictionary<string>[pyarrow]"): Dtype(_pd_dictionary, STRINGS),
    ("pandas", "dictionary<int64>[pyarrow]"): Dtype(_pd_dictionary, INTS),
    ("pandas", "halffloat[pyarrow]"): Dtype(_pd_half, FLOATS, **NUMERIC),
    ("pandas", "decimal128[pyarrow]"): Dtype(
        _pd_arrow(pa.decimal128(38, 1)),
        [Decimal("-0.5"), Decimal(0), Decimal("1e36")],
        WIDE_DECIMALS,
        [Decimal(0), Decimal(1), Decimal("2.5")],
    ),
    ("pandas", "date32[pyarrow]"): Dtype(_pd_arrow(pa.date32()), DAYS),
    ("pandas", "timestamp[us][pyarrow]"): Dtype(_pd_arrow(pa.timestamp("us")), MOMENTS),
    ("pandas", "binary[pyarrow]"): Dtype(_pd_arrow(pa.binary()), [b"A", b"a", b"ab"]),
    ("pandas", "list<int64>[pyarrow]"): Dtype(
        _pd_arrow(pa.list_(pa.int64())), [[1, 2], [1, 2, 0], [1, 10]]
    ),
    ("pandas", "list<string>[pyarrow]"): Dtype(
        _pd_arrow(pa.list_(pa.string())), [["B", "a"], ["a"], ["a", "é"]]
    ),
    ("pandas", "list<int64> with null[pyarrow]"): Dtype(
        _pd_arrow(pa.list_(pa.int64())), [[0, None], [1, 2], [1, 3]]
    ),
    ("pandas", "struct[pyarrow]"): Dtype(
        _pd_arrow(pa.struct([("a", pa.int64()), ("b", pa.string())])),
        [{"a": 0, "b": "z"}, {"a": 1, "b": "a"}, {"a": 1, "b": "b"}],
    ),
    # polars
    **{
        ("polars", name): Dtype(_pl(getattr(pl, name)), [-5, 0, 7], [-5, 0, 7], [0, 1, 2])
        for name in ("Int8", "Int16", "Int32")
    },
    ("polars", "Int64"): Dtype(_pl(pl.Int64), INTS, BIG, [0, 1, 2]),
    ("polars", "Int128"): Dtype(
        _pl(pl.Int128, pl.Int128), [-(2**100), 0, 2**100], [2**100, 2**100 + 1, 2**101], [0, 1, 2]
    ),
    **{
        ("polars", name): Dtype(_pl(getattr(pl, name)), [0, 5, 7], [0, 5, 7], [0, 1, 2])
        for name in ("UInt8", "UInt16", "UInt32")
    },
    ("polars", "UInt64"): Dtype(
        _pl(pl.UInt64), [0, 2**63, 2**64 - 1], [2**64 - 3, 2**64 - 2, 2**64 - 1], [0, 1, 2]
    ),
    ("polars", "UInt128"): Dtype(
        _pl(pl.UInt128, pl.UInt128), [0, 2**64, 2**127], [2**100, 2**100 + 1, 2**101], [0, 1, 2]
    ),
    ("polars", "Float16"): Dtype(_pl(pl.Float16), FLOATS, **NUMERIC),
    ("polars", "Float32"): Dtype(_pl(pl.Float32), FLOATS, **NUMERIC),
    ("polars", "Float64"): Dtype(_pl(pl.Float64), FLOATS, **NUMERIC),
    ("polars", "Decimal"): Dtype(
        _pl(pl.Decimal(38, 1)),
        [Decimal("-0.5"), Decimal(0), Decimal("1e36")],
        WIDE_DECIMALS,
        [Decimal(0), Decimal(1), Decimal("2.5")],
    ),
    ("polars", "Boolean"): Dtype(_pl(pl.Boolean), [False, True], [False, True], [False, True]),
    ("polars", "String"): Dtype(_pl(pl.String), STRINGS),
    ("polars", "Categorical"): Dtype(_pl(pl.Categorical), STRINGS),
    ("polars", "Enum"): Dtype(_pl(pl.Enum(["é", "a", "B"])), STRINGS),
    ("polars", "Binary"): Dtype(_pl(pl.Binary), [b"A", b"a", b"ab"]),
    ("polars", "Date"): Dtype(_pl(pl.Date), DAYS),
    ("polars", "Datetime"): Dtype(_pl(pl.Datetime("us")), MOMENTS),
    ("polars", "Datetime(time_zone='UTC')"): Dtype(_pl(pl.Datetime("us", "UTC")), MOMENTS),
    ("polars", "Duration"): Dtype(_pl(pl.Duration("us")), SPANS),
    ("polars", "Time"): Dtype(_pl(pl.Time), [datetime.time(h) for h in (0, 1, 2)]),
    ("polars", "List"): Dtype(_pl(pl.List(pl.Int64)), [[1], [1, 2], [1, 10]]),
    ("polars", "List(String)"): Dtype(_pl(pl.List(pl.String)), [["B"], ["a"], ["a", "é"]]),
    ("polars", "List(List(Int64))"): Dtype(
        _pl(pl.List(pl.List(pl.Int64))), [[[0, 9], [1]], [[1], [0]], [[1, 2]]]
    ),
    ("polars", "List with null"): Dtype(_pl(pl.List(pl.Int64)), [[0, None], [1], [1, 2]]),
    ("polars", "Array"): Dtype(
        _pl(pl.Array(pl.Int64, 2), pl.List(pl.Int64)), [[0, 5], [1, -1], [1, 2]]
    ),
    ("polars", "Struct"): Dtype(
        _pl(pl.Struct({"a": pl.Int64, "b": pl.String})),
        [{"a": 0, "b": "z"}, {"a": 1, "b": "a"}, {"a": 1, "b": "b"}],
    ),
    ("polars", "Object"): Dtype(_pl_object, [0, 1, 2]),
}

ROLES = ["query", "item", "score", "relevant"]
KINDS = {"pandas": ["pandas", "pandas-pyarrow"], "polars": ["polars", "polars-lazy"]}


def matrix() -> list[tuple[str, str, dict[str, str]]]:
    """The rows of the table in docs/dtypes.md: library, dtype, and per role the cell."""
    rows = []
    for line in DTYPES_PAGE.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in KINDS:
            library, dtype, ids, score, grade = cells
            outcome = {"query": ids, "item": ids, "score": score, "relevant": grade}
            rows.append((library, dtype.strip("`"), outcome))
    return rows


def test_the_matrix_lists_every_dtype_once() -> None:
    listed = [(library, dtype) for library, dtype, _ in matrix()]
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(DTYPES)


def _frame(role: str, values: list[Any]) -> tuple[pd.DataFrame, list[Any], list[Row]]:
    """A reference frame (str ids, float scores and grades), the column for ``role`` (Python
    values, to be cast), and the reference rows. In the rows, ids and scores under test are
    their positions in ``values`` (ascending: only their order and equality matter); grades
    are numbers."""
    n = len(values)
    last = n - 1
    if role == "query":  # one query per value: items a, b tied; the relevant one varies
        at = [j for j in range(n) for _ in range(3)]
        query, item = at, ["a", "b", "c"] * n
        score = [1.0, 1.0, 0.5] * n
        grade = [float(i == j % 3) for j in range(n) for i in range(3)]
    elif role == "item":  # every value in two queries, tied
        at = list(range(n)) * 2
        query, item = [0] * n + [1] * n, at
        score = [1.0] * (2 * n)
        grade = [float(i == 1) for i in range(n)] + [1.0, 0, 2][:n]
    else:  # scores or grades: two queries of three items (the last two values meet in q0)
        at = [0, last, 1 % n, 1 % n, 0, 1 % n]
        query, item = [0, 0, 0, 1, 1, 1], list(range(6))
        score = at if role == "score" else [6.0, 5, 4, 3, 2, 1]
        grade = [1.0, 0, 2, 0, 1, 1]
        if role == "relevant":  # (a dtype that is not numeric: any grade, the cell an error)
            grade = [
                float(v) if isinstance(v, int | float | Decimal) else 0.0
                for v in (values[i] for i in at)
            ]
    column = [values[i] for i in at]
    reference = pd.DataFrame(
        {
            "query": [f"q{q}" for q in query],
            "item": [f"d{i}" for i in item],
            "score": [float(s) for s in score],
            "relevant": grade,
        }
    )
    rows = [Row(q, i, s, g) for q, i, s, g in zip(query, item, score, grade, strict=True)]
    return reference, column, rows


def _native(kind: str, reference: pd.DataFrame, role: str, column: Any) -> Any:
    frame = FrameMaker(kind)(reference)
    if isinstance(frame, pd.DataFrame):
        return frame.assign(**{role: column.set_axis(frame.index)})
    return frame.with_columns(column.alias(role))


CASES = [
    pytest.param(library, dtype, role, outcome[role], kind, id=f"{kind}-{dtype}-{role}")
    for library, dtype, outcome in matrix()
    for role in ROLES
    for kind in KINDS[library]
]


@pytest.mark.parametrize(("library", "dtype", "role", "cell", "kind"), CASES)
def test_dtype_matrix(library: str, dtype: str, role: str, cell: str, kind: str) -> None:
    spec = DTYPES[(library, dtype)]
    values = {"score": spec.scores, "relevant": spec.grades}.get(role, spec.ids)
    if values is None:  # not numeric: the ids will do
        values = spec.ids
    reference, column, rows = _frame(role, values)
    frame = _native(kind, reference, role, spec.make(column))
    snapshot = frame.copy(deep=True) if isinstance(frame, pd.DataFrame) else collect(frame)
    if cell == "exact":
        _assert_close(_values(frame), _expected(rows))
    else:
        error = getattr(rankframe, cell.split()[0])
        with pytest.raises(error, match=re.escape(repr(role))) as info:
            _values(frame)
        # the message names the dtype and gives a fix in the user's library
        assert "dtype" in str(info.value)
        assert ("pl." if library == "polars" else "df[") in str(info.value)
    if dtype == "Object":  # polars cannot compare Object columns: compare the values
        snapshot, frame = snapshot.to_pandas(), collect(frame).to_pandas()
    assert_unchanged(snapshot.lazy() if isinstance(frame, pl.LazyFrame) else snapshot, frame)
