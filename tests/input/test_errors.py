"""Bad input gets a clear error, never a wrong number (SPEC §5, with the input rules of §1).

Every test asserts three things:

- the exact exception class, a subclass of ``rankframe.RankEvalError`` and so a ``ValueError``;
- that the message names the culprit (column, bad value, offending query) and the fix;
- that nothing is returned: the call raises (a LazyFrame raises when collected).

Tests that take a frame run on every frame kind through the ``make_frame`` fixture, which also
checks that the input frame is left unchanged. Data errors of a LazyFrame surface when it is
collected, so every call goes through :func:`run`, which collects.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from pandera.config import ValidationDepth, config_context
from pandera.errors import SchemaError

import helpers
import rankframe
from helpers import collect
from rankframe import (
    ColumnNotFoundError,
    EmptyQueryError,
    InvalidDataError,
    InvalidOptionError,
    RankEvalError,
    UnknownMetricError,
)
from rankframe.engine import ItemColumn

# The option and error grid: every frame kind but Dask, whose one-call-per-case tests in
# tests/backends/test_dask.py stand in for it (helpers.GRID_KINDS)
pytestmark = pytest.mark.frame_kinds(*helpers.GRID_KINDS)

if TYPE_CHECKING:
    from helpers import FrameMaker

Call = Callable[[Any], Any]

# -- helpers ---------------------------------------------------------------------------------


def frame_data(**columns: list[Any]) -> dict[str, list[Any]]:
    """A clean two-query frame (q1 has an unretrieved relevant item); ``columns`` replace some.

    ``theme`` is constant within each query, ``user`` too (a second ``by`` column).
    """
    data: dict[str, list[Any]] = {
        "query": ["q1", "q1", "q1", "q2", "q2", "q2"],
        "item": ["a", "b", "c", "a", "b", "c"],
        "score": [0.9, 0.5, None, 0.8, 0.7, 0.1],
        "relevant": [1, 0, 1, 0, 2, 0],
        "theme": ["news", "news", "news", "sport", "sport", "sport"],
        "user": ["u1", "u1", "u1", "u2", "u2", "u2"],
    }
    data.update(columns)
    return data


def _all_of(fragments: tuple[str, ...]) -> str:
    """A regex that matches a message containing every fragment, literally, in any order."""
    return "(?s)" + "".join(f"(?=.*{re.escape(fragment)})" for fragment in fragments)


@contextmanager
def expect(error: type[RankEvalError], *fragments: str) -> Iterator[pytest.ExceptionInfo[Any]]:
    """``pytest.raises`` for exactly ``error`` with a message containing every fragment."""
    assert issubclass(error, RankEvalError)
    assert issubclass(error, ValueError)
    with pytest.raises(error, match=_all_of(fragments)) as info:
        yield info
    assert type(info.value) is error, f"expected {error.__name__}, got {type(info.value)!r}"
    assert isinstance(info.value, ValueError)


def run(call: Call, accessor: Any) -> None:
    """Call a method on the accessor and collect the result (a LazyFrame runs its plan)."""
    result = collect(call(accessor))
    # reaching this line means the call returned instead of raising
    pytest.fail(f"no error was raised; the call returned {result!r}")


# Every public method that validates the frame, with the default column names.
DATA_CALLS: dict[str, Call] = {
    "mrr": lambda ev: ev.mrr(k=5),
    "ndcg-by": lambda ev: ev.ndcg(k=10, by="theme"),
    "r_precision": lambda ev: ev.r_precision(),
    "per_query": lambda ev: ev.per_query(["map", "P_10"]),
    "evaluate-by": lambda ev: ev.evaluate(["mrr@5", "acc@1"], by=["theme"]),
    "rank": lambda ev: ev.rank(),
}
data_calls = pytest.mark.parametrize("call", DATA_CALLS.values(), ids=DATA_CALLS.keys())

# The methods that compute a metric (everything but rank).
METRIC_CALLS = {name: call for name, call in DATA_CALLS.items() if name != "rank"}
metric_calls = pytest.mark.parametrize("call", METRIC_CALLS.values(), ids=METRIC_CALLS.keys())

# The methods that take `by`, called with the `by` columns given.
BY_CALLS: dict[str, Callable[[Any, list[str]], Any]] = {
    "mrr": lambda ev, by: ev.mrr(k=5, by=by),
    "ndcg": lambda ev, by: ev.ndcg(by=by),
    "per_query": lambda ev, by: ev.per_query(["ndcg@10"], by=by),
    "evaluate": lambda ev, by: ev.evaluate(["mrr@5", "map"], by=by),
}
by_calls = pytest.mark.parametrize("by_call", BY_CALLS.values(), ids=BY_CALLS.keys())

SCALAR_METHODS = ["mrr", "ndcg", "map", "acc", "precision", "recall"]


# -- the clean frame: the errors below come from the one bad change ---------------------------


@data_calls
def test_the_clean_frame_raises_nothing(make_frame: FrameMaker, call: Call) -> None:
    collect(call(make_frame(frame_data()).rank_eval))


# -- missing columns --------------------------------------------------------------------------


@data_calls
def test_missing_column_suggests_the_close_name(make_frame: FrameMaker, call: Call) -> None:
    data = frame_data()
    data["relevance"] = data.pop("relevant")
    frame = make_frame(data)
    with expect(
        ColumnNotFoundError,
        "Column 'relevant'",
        "not found",
        "Did you mean 'relevance'?",
        "rank_eval(relevant='relevance')",
    ):
        run(call, frame.rank_eval)


RENAMED = {"query": "user_id", "item": "movie_id", "score": "pred", "relevant": "clicked"}


def renamed_data(**columns: list[Any]) -> dict[str, list[Any]]:
    """The clean frame with the four columns renamed as in ``RENAMED``."""
    return {RENAMED.get(name, name): values for name, values in frame_data(**columns).items()}


@pytest.mark.parametrize(
    ("bound", "fragments"),
    [
        # a typo in a bound name: the close column is suggested
        (
            {**RENAMED, "relevant": "click"},
            (
                "Column 'click'",
                "(relevant) not found",
                "Did you mean 'clicked'?",
                "rank_eval(relevant='clicked')",
            ),
        ),
        # nothing close: still the role and how to pass another column
        (
            {**RENAMED, "score": "prediction"},
            ("Column 'prediction'", "(score) not found", "score='...'"),
        ),
        # the query role left unbound: its default name 'query' is looked for
        (
            {"item": "movie_id", "score": "pred", "relevant": "clicked"},
            ("Column 'query'", "(query) not found", "query='...'"),
        ),
    ],
    ids=["typo", "no-close-name", "unbound-default"],
)
@data_calls
def test_missing_bound_column(
    make_frame: FrameMaker, call: Call, bound: dict[str, str], fragments: tuple[str, ...]
) -> None:
    frame = make_frame(renamed_data())
    with expect(ColumnNotFoundError, *fragments):
        run(call, frame.rank_eval(**bound))


@pytest.mark.parametrize("by", ["themes", ["user", "themes"]], ids=["one", "second-of-two"])
@by_calls
def test_missing_by_column(
    make_frame: FrameMaker, by_call: Callable[[Any, Any], Any], by: str | list[str]
) -> None:
    frame = make_frame(frame_data())
    fragments = ("Column 'themes'", "Did you mean 'theme'?", "by='theme'")
    with expect(ColumnNotFoundError, *fragments) as info:
        run(lambda ev: by_call(ev, by), frame.rank_eval)
    # the fix must be a call that works: `by` is an argument of the metric methods, not of
    # the accessor, so `df.rank_eval(by=...)` would be a TypeError
    assert "rank_eval(by=" not in str(info.value), str(info.value)


def test_every_missing_column_in_one_error(make_frame: FrameMaker) -> None:
    frame = make_frame(renamed_data())
    bound = {"query": "qid", "item": "movie", "score": "pred", "relevant": "click"}
    with expect(
        ColumnNotFoundError,
        "4 columns not found: ",
        "'qid' (query",
        "'movie' (item; did you mean 'movie_id'?)",
        "'click' (relevant; did you mean 'clicked'?)",
        "'themes' (by; did you mean 'theme'?)",
        "df.rank_eval(",
        "item='movie_id'",
        "relevant='clicked'",
        "by='theme'",
    ) as info:
        run(lambda ev: ev.evaluate(["mrr"], by=["themes"]), frame.rank_eval(**bound))
    assert "'pred'" not in str(info.value).split("Columns:")[0]  # 'pred' is there


# -- nulls in query, item and relevant ---------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "values", "fragments"),
    [
        (
            "query",
            ["q1", None, "q1", "q2", None, "q2"],
            ("Column 'query'", "2 null", "row 1", "drop or fill"),
        ),
        (
            "query",
            [1, None, 1, 2, None, 2],
            ("Column 'query'", "2 null", "row 1", "drop or fill"),
        ),
        (
            "item",
            ["a", "b", "c", "a", None, None],
            ("Column 'item'", "2 null", "row 4", "in query 'q2'", "drop or fill"),
        ),
        (
            "relevant",
            [1, 0, 1, 0, None, None],
            ("Column 'relevant'", "2 null", "row 4", "in query 'q2'", "fill", "with 0"),
        ),
    ],
    ids=["query-str", "query-int", "item", "relevant"],
)
@data_calls
def test_null_values_name_column_count_and_query(
    make_frame: FrameMaker,
    call: Call,
    column: str,
    values: list[Any],
    fragments: tuple[str, ...],
) -> None:
    frame = make_frame(frame_data(**{column: values}))
    with expect(InvalidDataError, *fragments):
        run(call, frame.rank_eval)


@pytest.mark.parametrize(
    ("column", "values", "pandas_fix", "polars_fix"),
    [
        (
            "item",
            ["a", "b", "c", "a", None, "c"],
            "df.dropna(subset=['item'])",
            "df.drop_nulls('item')",
        ),
        (
            "relevant",
            [1, 0, 1, 0, None, 0],
            "df.fillna({'relevant': 0})",
            "df.with_columns(pl.col('relevant').fill_null(0))",
        ),
        (
            "score",
            ["1", "2", "3", "4", "5", "6"],
            "pd.to_numeric(df['score'])",
            "df.with_columns(pl.col('score').cast(pl.Float64))",
        ),
    ],
    ids=["null-item", "null-grade", "text-score"],
)
def test_fixes_are_spelled_for_the_users_library(
    make_frame: FrameMaker, column: str, values: list[Any], pandas_fix: str, polars_fix: str
) -> None:
    frame = make_frame(frame_data(**{column: values}))
    polars = make_frame.kind.startswith("polars")
    with expect(InvalidDataError, polars_fix if polars else pandas_fix) as info:
        run(lambda ev: ev.mrr(), frame.rank_eval)
    assert ("fillna" in str(info.value) or "dropna" in str(info.value)) is (
        not polars and column != "score"
    )


@pytest.mark.parametrize(
    ("columns", "fields"),
    [
        # 2 nulls of the grade, the first at row 4 (0-based), whose query is q2
        (
            {"relevant": [1, 0, 1, 0, None, None]},
            {"column": "relevant", "problem": "null", "count": 2, "row": 4, "query": "q2"},
        ),
        # a null query: its row, and no query to name
        (
            {"query": ["q1", None, "q1", "q2", "q2", "q2"]},
            {"column": "query", "problem": "null", "count": 1, "row": 1, "query": None},
        ),
        (
            {"relevant": [1.0, 0.0, float("inf"), 0.0, 2.0, 0.0]},
            {"column": "relevant", "problem": "infinite", "count": None, "row": 2},
        ),
        (
            {"score": ["1", "2", "3", "4", "5", "6"]},
            {"column": "score", "problem": "not_numeric", "count": None},
        ),
        # item 'a' twice in q2
        (
            {"item": ["a", "b", "c", "a", "a", "c"]},
            {"column": "item", "problem": "duplicate", "count": 2, "query": "q2"},
        ),
    ],
    ids=["null-grade", "null-query", "infinite-grade", "text-score", "duplicate"],
)
def test_data_errors_carry_their_facts_as_fields(
    make_frame: FrameMaker, columns: dict[str, list[Any]], fields: dict[str, Any]
) -> None:
    # code that needs a fact (the command line, a user's handler) reads the field, and the
    # fields survive pickling (an error raised on a worker)
    frame = make_frame(frame_data(**columns))
    with pytest.raises(InvalidDataError) as info:
        run(lambda ev: ev.mrr(), frame.rank_eval)
    for error in (info.value, pickle.loads(pickle.dumps(info.value))):
        assert {name: getattr(error, name) for name in fields} == fields
        assert str(error) == str(info.value)


def test_a_varying_by_column_error_names_its_column_and_query(make_frame: FrameMaker) -> None:
    # theme changes within q2 (rows 3-5: sport, news, sport)
    frame = make_frame(frame_data(theme=["news", "news", "news", "sport", "news", "sport"]))
    with pytest.raises(InvalidDataError) as info:
        run(lambda ev: ev.mrr(by="theme"), frame.rank_eval)
    error = info.value
    assert (error.column, error.problem, error.query) == ("theme", "varying", "q2")


def test_null_messages_show_values_as_python_writes_them(make_frame: FrameMaker) -> None:
    frame = make_frame(
        frame_data(query=[10, 10, 10, 20, 20, 20], item=["a", "b", "c", "a", None, "c"])
    )
    with expect(InvalidDataError, "(first at row 4, in query 20)") as info:
        run(lambda ev: ev.mrr(), frame.rank_eval)
    assert "np." not in str(info.value)


@metric_calls
def test_null_relevance_under_bound_names_names_the_users_columns(
    make_frame: FrameMaker, call: Call
) -> None:
    frame = make_frame(renamed_data(relevant=[1, 0, 1, None, 2, 0]))
    with expect(InvalidDataError, "Column 'clicked'", "1 null", "in query 'q2'"):
        run(call, frame.rank_eval(**RENAMED))


@pytest.mark.parametrize(
    ("column", "values", "fragments"),
    [
        ("relevant", [1.0, 0.0, 1.0, 0.0, None, 0.0], ("Column 'relevant'", "1 null", "'q2'")),
        ("item", [1.0, 2.0, 3.0, 1.0, None, 3.0], ("Column 'item'", "1 null", "'q2'")),
        ("query", [1.0, 1.0, None, 2.0, 2.0, 2.0], ("Column 'query'", "1 null")),
    ],
    ids=["relevant", "item", "query"],
)
@metric_calls
def test_nan_in_a_float_column_is_reported_like_a_null(
    make_frame: FrameMaker,
    call: Call,
    column: str,
    values: list[Any],
    fragments: tuple[str, ...],
) -> None:
    # polars and Arrow keep NaN apart from null: a float NaN grade or id must get the same
    # clear error as a null (pandas' NumPy dtypes have only one missing value, so it is the
    # null case there)
    frame = make_frame(frame_data(**{column: values}))
    if isinstance(frame, pl.DataFrame | pl.LazyFrame):
        frame = frame.with_columns(pl.col(column).fill_null(float("nan")))
    if make_frame.kind == "pandas-pyarrow":  # NaN, not NA, in a double[pyarrow] column
        nan = pa.array([float("nan") if v is None else v for v in values], type=pa.float64())
        frame = frame.assign(**{column: pd.Series(nan, dtype=pd.ArrowDtype(pa.float64()))})
    with expect(InvalidDataError, *fragments):
        run(call, frame.rank_eval)


# -- non-numeric score and relevance -----------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "values", "fragments"),
    [
        (
            "score",
            ["0.9", "0.5", "0.3", "0.8", "0.7", "0.1"],
            (
                "Column 'score'",
                "must be numeric",
                "int or float",
                "Convert it first",
                "score='...'",
            ),
        ),
        (
            "relevant",
            ["yes", "no", "yes", "no", "yes", "no"],
            (
                "Column 'relevant'",
                "must be numeric",
                "bool, int or float",
                "Convert it first",
                "relevant='...'",
            ),
        ),
    ],
    ids=["score", "relevant"],
)
@data_calls
def test_non_numeric_column_names_column_dtype_and_fix(
    make_frame: FrameMaker,
    call: Call,
    column: str,
    values: list[Any],
    fragments: tuple[str, ...],
) -> None:
    frame = make_frame(frame_data(**{column: values}))
    with expect(InvalidDataError, *fragments) as info:
        run(call, frame.rank_eval)
    assert "got dtype" in str(info.value)


@metric_calls
def test_infinite_grade_names_the_column(make_frame: FrameMaker, call: Call) -> None:
    # NDCG would divide inf by inf; a grade must be a finite number
    frame = make_frame(frame_data(relevant=[1.0, 0.0, float("inf"), 0.0, 2.0, 0.0]))
    with expect(InvalidDataError, "'relevant'", "infinite grade", "finite"):
        run(call, frame.rank_eval)


# -- duplicate items --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ids", "fragments"),
    [
        (
            {"item": ["a", "b", "c", "b", "b", "b"]},
            ("Item 'b' appears 3 times in query 'q2'",),
        ),
        (
            {"query": [7, 7, 7, 8, 8, 8], "item": [10, 20, 10, 10, 20, 30]},
            ("Item 10 appears 2 times in query 7",),
        ),
        (  # composite ids: tuples (pandas) or list columns, shown as tuples on every kind
            {
                "query": [(1, 2)] * 3 + [(1, 10)] * 3,
                "item": [(5, 5), (5, 6), (4,), (5, 5), (5, 6), (5, 5)],
            },
            ("Item (5, 5) appears 2 times in query (1, 10)",),
        ),
    ],
    ids=["str-ids", "int-ids", "tuple-ids"],
)
@data_calls
def test_duplicate_item_names_item_count_and_query(
    make_frame: FrameMaker, call: Call, ids: dict[str, list[Any]], fragments: tuple[str, ...]
) -> None:
    frame = make_frame(frame_data(**ids))
    fix = (
        "df.unique(subset=['query', 'item']"
        if make_frame.kind.startswith("polars")
        else "df.drop_duplicates(['query', 'item'])"
    )
    with expect(InvalidDataError, *fragments, "'item'", "once per query", fix):
        run(call, frame.rank_eval)


def _null_element_error(make_frame: FrameMaker, column: str) -> Any:
    """``expect`` the error for composite ids with a null element in ``column``."""
    fix = (
        "df.with_columns(pl.col"
        if make_frame.kind.startswith("polars")
        else f"df[{column!r}] = df[{column!r}].astype(str)"
    )
    return expect(
        InvalidDataError,
        f"Column {column!r}",
        "composite ids",
        "null or NaN element",
        "Fill the nulls",
        fix,
    )


@pytest.mark.parametrize(
    ("column", "values"),
    [
        ("query", [(1, None)] * 3 + [(1, 2)] * 3),
        ("item", [(0, 1), (0, None), (1, 1), (0, 1), (0, 2), (1, 1)]),
        ("item", [(0.5, 1.0), (0.5, float("nan")), (1.0, 1.0)] * 2),
    ],
    ids=["query-none", "item-none", "item-nan"],
)
@data_calls
def test_composite_ids_with_a_null_element(
    make_frame: FrameMaker, call: Call, column: str, values: list[Any]
) -> None:
    # (1, None) < (1, 2) has no answer in Python (Arrow and polars would put the null
    # first): the same error on every kind instead
    frame = make_frame(frame_data(**{column: values}))
    with _null_element_error(make_frame, column):
        run(call, frame.rank_eval)


@by_calls
def test_composite_by_column_with_a_null_element(
    make_frame: FrameMaker, by_call: Callable[[Any, Any], Any]
) -> None:
    frame = make_frame(frame_data(theme=[(1, 0)] * 3 + [(None, 0)] * 3))
    with _null_element_error(make_frame, "theme"):
        run(lambda ev: by_call(ev, "theme"), frame.rank_eval)


def _item_metric_call(items: list[Any]) -> Call:
    """``ndkl@10`` with a group for each of ``items``: an item metric whose target reads
    every row's item, so the call encodes them and the duplicate check reads their codes
    instead of hashes."""
    groups = {item: "even" if i % 2 else "odd" for i, item in enumerate(items)}
    return lambda ev: ev.evaluate(["ndkl@10"], item_groups=groups)


@pytest.mark.parametrize("metrics", ["accuracy", "item-codes"])
@pytest.mark.parametrize(
    ("prefix", "shown"),
    [(None, "118"), ("d", "'d118'"), ("document-", "'document-118'")],
    ids=["int-ids", "short-str-ids", "long-str-ids"],  # short ids are hashed by their bytes
)
def test_duplicate_item_in_a_large_frame(
    make_frame: FrameMaker, prefix: str | None, shown: str, metrics: str
) -> None:
    # from 200k rows the duplicate check runs in a second thread beside the ranking; its
    # error must still replace the result
    n_queries, per_query = 2_000, 120
    query = np.repeat(np.arange(n_queries), per_query)
    item = np.tile(np.arange(per_query), n_queries)
    item[-1] = item[-2]  # the last query holds item 118 twice
    ids = list(range(per_query)) if prefix is None else [f"{prefix}{i}" for i in range(per_query)]
    call = (
        _item_metric_call(ids)
        if metrics == "item-codes"
        else lambda ev: ev.evaluate(["mrr@10", "ndcg@10"])
    )
    frame = make_frame(
        pd.DataFrame(
            {
                "query": query,
                "item": item
                if prefix is None
                else pd.array([f"{prefix}{i}" for i in item], dtype="str"),
                "score": np.linspace(0.0, 1.0, len(query)),
                "relevant": (item % 7 == 0).astype(np.int64),
            }
        )
    )
    with expect(InvalidDataError, f"Item {shown} appears 2 times in query 1999"):
        run(call, frame.rank_eval)


def _top_bits_only(hashes: Any) -> Callable[[ItemColumn], Any]:
    """``ItemColumn.hashes`` keeping only the top two bits of the real hash: equal items
    still share a hash, different ones collide three times in four (a test-only hash)."""
    return lambda column: hashes(column) & np.uint64(0xC000000000000000)


def _never_hashed(_column: ItemColumn) -> Any:
    raise AssertionError("the items were hashed, not read as codes")


@pytest.mark.parametrize("hashing", ["real", "colliding", "item-codes"])
def test_duplicate_check_finds_what_pandas_duplicated_finds(
    make_frame: FrameMaker, monkeypatch: pytest.MonkeyPatch, hashing: str
) -> None:
    # on random small frames, the check raises exactly when pandas' duplicated(keep=False)
    # finds a repeated (query, item), and names one of those pairs with its count; hash
    # collisions never change the answer (a frame in parts is checked part by part, so
    # which pair is named depends on the parts); "item-codes": an item metric that encodes
    # every row's item, whose codes the check then reads (the hashes collide: unused)
    if hashing == "item-codes" and make_frame.kind != "polars-parts":
        # a frame of one part reads the codes: a hash would be a mistake
        monkeypatch.setattr(ItemColumn, "hashes", _never_hashed)
    elif hashing != "real":
        monkeypatch.setattr(ItemColumn, "hashes", _top_bits_only(ItemColumn.hashes))
    rng = np.random.default_rng(38)
    for _ in range(12):
        n = int(rng.integers(2, 14))
        query = [f"q{k}" for k in rng.integers(0, 4, n)]
        # short ids (read by their bytes) and long ones (hashed by polars)
        item = [f"{'item-number-' if k % 2 else ''}i{k}" for k in rng.integers(0, 6, n)]
        data = pd.DataFrame(
            {
                "query": query,
                "item": item,
                "score": rng.random(n),
                "relevant": rng.integers(0, 2, n),
            }
        )
        repeated = data[data.duplicated(["query", "item"], keep=False)]
        counts = repeated.groupby(["query", "item"]).size().to_dict()
        frame = make_frame(data)
        call = (
            _item_metric_call(sorted(set(item)))
            if hashing == "item-codes"
            else lambda ev: ev.evaluate(["mrr@10"])
        )
        if not counts:
            collect(call(frame.rank_eval))
            continue
        with expect(InvalidDataError, "once per query") as info:
            run(call, frame.rank_eval)
        error = info.value
        named = re.match(r"Item '([^']*)' appears (\d+) times in query '([^']*)'", str(error))
        assert named is not None, str(error)
        pair = (named[3], named[1])
        assert pair in counts, (pair, counts)
        assert int(named[2]) == error.count == counts[pair]
        assert error.query == named[3]


def test_a_duplicate_wins_over_a_failing_item_encoding(
    make_frame: FrameMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the check reads the items' codes where an item metric encodes them; when that
    # encoding fails, the check hashes the items instead, so a duplicate is still the error
    # the call raises (as on frames in parts, which never encode them in one piece, and as
    # before the check read codes)
    def failing(_column: ItemColumn) -> Any:
        raise RuntimeError("the encoding of the items failed")

    monkeypatch.setattr(ItemColumn, "dictionary", failing)
    # from 200k rows the items are encoded in a thread beside the ranking (on fewer, before
    # the check, whose error then comes first)
    n_queries, per_query = 2_000, 120
    item = np.tile(np.arange(per_query), n_queries)
    item[-1] = item[-2]  # the last query holds item 118 twice
    frame = make_frame(
        pd.DataFrame(
            {
                "query": np.repeat(np.arange(n_queries), per_query),
                "item": pd.array([f"d{i}" for i in item], dtype="str"),
                "score": np.linspace(0.0, 1.0, len(item)),
                "relevant": (item % 7 == 0).astype(np.int64),
            }
        )
    )
    with expect(InvalidDataError, "Item 'd118' appears 2 times in query 1999"):
        run(_item_metric_call([f"d{i}" for i in range(per_query)]), frame.rank_eval)


# -- metric names -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "suggestion"),
    [
        ("ndgc@10", "'ndcg'"),
        ("mrrr", "'mrr'"),
        ("precison@5", "'precision'"),
        ("reacll", "'recall'"),
    ],
)
@pytest.mark.parametrize("method", ["evaluate", "per_query"])
def test_unknown_metric_suggests_the_close_name(
    make_frame: FrameMaker, method: str, metric: str, suggestion: str
) -> None:
    frame = make_frame(frame_data())
    with expect(
        UnknownMetricError,
        f"Unknown metric {metric!r}",
        f"Did you mean {suggestion}",
        "Known metrics: mrr, ndcg, map",
    ):
        run(lambda ev: getattr(ev, method)(["map", metric]), frame.rank_eval)


@pytest.mark.parametrize("metric", [5, None, 2.5])
def test_metric_that_is_not_a_string(make_frame: FrameMaker, metric: object) -> None:
    frame = make_frame(frame_data())
    with expect(UnknownMetricError, f"got {metric!r}", "'ndcg@10'"):
        run(lambda ev: ev.evaluate(["mrr", metric]), frame.rank_eval)


BAD_CUT_OFFS = [
    ("ndcg@0", ("ndcg", "positive integer", "Got 0")),
    ("P_0", ("precision", "positive integer", "Got 0")),
    ("ndcg_cut_0", ("ndcg", "positive integer", "Got 0")),
    ("ndcg@x", ("'ndcg@x'", "positive integer", "'ndcg@10'", "Got 'x'")),
    ("ndcg@-1", ("'ndcg@-1'", "positive integer", "Got '-1'")),
    ("ndcg@2.5", ("'ndcg@2.5'", "positive integer", "Got '2.5'")),
    ("ndcg@", ("'ndcg@'", "positive integer")),
    ("ndcg@²", ("'ndcg@²'", "positive integer")),
    ("rprec@5", ("r_precision takes no cut-off", "'rprec@5'", "Use 'r_precision'")),
    ("Rprec@5", ("r_precision takes no cut-off", "'Rprec@5'", "Use 'r_precision'")),
]


@pytest.mark.parametrize(("metric", "fragments"), BAD_CUT_OFFS, ids=[m for m, _ in BAD_CUT_OFFS])
@pytest.mark.parametrize("method", ["evaluate", "per_query"])
def test_bad_cut_off_in_a_metric_string(
    make_frame: FrameMaker, method: str, metric: str, fragments: tuple[str, ...]
) -> None:
    frame = make_frame(frame_data())
    with expect(InvalidOptionError, *fragments):
        run(lambda ev: getattr(ev, method)(["mrr@5", metric]), frame.rank_eval)


@pytest.mark.parametrize("metrics", [[], (), iter([])], ids=["list", "tuple", "iterator"])
@pytest.mark.parametrize("method", ["evaluate", "per_query"])
def test_empty_metric_list(make_frame: FrameMaker, method: str, metrics: Any) -> None:
    frame = make_frame(frame_data())
    with expect(UnknownMetricError, "No metric was requested", "'mrr@10'"):
        run(lambda ev: getattr(ev, method)(metrics), frame.rank_eval)


def test_parse_metric_errors_without_a_frame() -> None:
    with expect(UnknownMetricError, "Unknown metric 'ndgc@10'", "Did you mean 'ndcg'"):
        rankframe.parse_metric("ndgc@10")
    with expect(InvalidOptionError, "'k' parameter of ndcg", "Got 0"):
        rankframe.parse_metric("ndcg", k=0)
    with expect(InvalidOptionError, "'ndcg@5'", "already has the cut-off 5", "k=10"):
        rankframe.parse_metric("ndcg@5", k=10)
    with expect(InvalidOptionError, "r_precision takes no cut-off"):
        rankframe.parse_metric("rprec", k=5)


# -- k ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "k",
    [0, -1, 2.5, True, "5", 5.0, float("nan"), np.int64(0)],
    ids=["0", "-1", "2.5", "True", "'5'", "5.0", "nan", "np.int64(0)"],
)
@pytest.mark.parametrize("method", SCALAR_METHODS)
def test_k_must_be_a_positive_integer(make_frame: FrameMaker, method: str, k: object) -> None:
    frame = make_frame(frame_data())
    with expect(
        InvalidOptionError,
        f"The 'k' parameter of {method} must be a positive integer or None",
        f"Got {k!r} instead",
    ):
        run(lambda ev: getattr(ev, method)(k=k), frame.rank_eval)


# -- option values ----------------------------------------------------------------------------

OPTION_CASES = [
    # (method, option, bad value, allowed values shown, suggestion or None)
    ("mrr", "ties", "trek", "'trec', 'first', 'optimistic', 'pessimistic'", "'trec'"),
    ("rank", "ties", "Optimistic", "'trec', 'first', 'optimistic', 'pessimistic'", "'optimistic'"),
    ("evaluate", "ties", None, "'trec', 'first'", None),
    ("ndcg", "gain", "exponentail", "'linear', 'exponential'", "'exponential'"),
    ("per_query", "gain", "exp", "'linear', 'exponential'", None),
    ("map", "denominator", "min-k", "'relevant', 'min_k'", "'min_k'"),
    ("recall", "denominator", "relevnt", "'relevant', 'min_k'", "'relevant'"),
    ("evaluate", "empty", "skipp", "'zero', 'skip', 'nan', 'error'", "'skip'"),
    ("acc", "empty", "raise", "'zero', 'skip', 'nan', 'error'", None),
    ("precision", "empty", True, "'zero', 'skip', 'nan', 'error'", None),
]


@pytest.mark.parametrize(
    ("method", "option", "value", "allowed", "suggestion"),
    OPTION_CASES,
    ids=[f"{m}-{o}={v!r}" for m, o, v, _, _ in OPTION_CASES],
)
def test_unknown_option_value(
    make_frame: FrameMaker,
    method: str,
    option: str,
    value: object,
    allowed: str,
    suggestion: str | None,
) -> None:
    frame = make_frame(frame_data())
    fragments = [f"The '{option}' option must be one of", allowed, f"Got {value!r} instead"]
    if suggestion is not None:
        fragments.append(f"Did you mean {suggestion}?")

    def call(ev: Any) -> Any:
        if method in ("evaluate", "per_query"):
            return getattr(ev, method)(["ndcg@10"], **{option: value})
        return getattr(ev, method)(**{option: value})

    with expect(InvalidOptionError, *fragments):
        run(call, frame.rank_eval)


@pytest.mark.parametrize(
    "level",
    ["1", float("nan"), np.float64("nan"), float("inf"), True, False, [1]],
    ids=["'1'", "nan", "np.nan", "inf", "True", "False", "[1]"],
)
@pytest.mark.parametrize("method", ["mrr", "ndcg", "evaluate"])
def test_bad_min_relevance(make_frame: FrameMaker, method: str, level: object) -> None:
    frame = make_frame(frame_data())

    def call(ev: Any) -> Any:
        if method == "evaluate":
            return ev.evaluate(["map"], min_relevance=level)
        return getattr(ev, method)(min_relevance=level)

    with expect(
        InvalidOptionError,
        "The 'min_relevance' option must be a finite number",
        "or None",
        f"Got {level!r} instead",
    ):
        run(call, frame.rank_eval)


# -- by ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("by", "columns", "fragments"),
    [
        (
            "theme",
            {"theme": ["news", "news", "sport", "sport", "sport", "sport"]},
            ("Column 'theme' varies within query 'q1'",),
        ),
        (
            ["theme", "user"],
            {"user": ["u1", "u1", "u1", "u2", "u3", "u2"]},
            ("Column 'user' varies within query 'q2'",),
        ),
        (
            "theme",
            {"query": [3, 3, 3, 4, 4, 4], "theme": [1, 1, 1, 2, 2, 9]},
            ("Column 'theme' varies within query 4",),
        ),
    ],
    ids=["str", "second-of-two", "int"],
)
@by_calls
def test_by_column_that_varies_within_a_query(
    make_frame: FrameMaker,
    by_call: Callable[[Any, Any], Any],
    by: str | list[str],
    columns: dict[str, list[Any]],
    fragments: tuple[str, ...],
) -> None:
    frame = make_frame(frame_data(**columns))
    with expect(InvalidDataError, *fragments, "must be constant within each query"):
        run(lambda ev: by_call(ev, by), frame.rank_eval)


@pytest.mark.parametrize(
    ("by", "role"), [("query", "query"), (["theme", "query"], "query"), ("item", "item")]
)
@by_calls
def test_by_a_role_column(
    make_frame: FrameMaker, by_call: Callable[[Any, Any], Any], by: str | list[str], role: str
) -> None:
    frame = make_frame(frame_data())
    with expect(InvalidOptionError, f"by={role!r} is the {role} column", "group by a column"):
        run(lambda ev: by_call(ev, by), frame.rank_eval)


@by_calls
def test_by_the_bound_query_column(
    make_frame: FrameMaker, by_call: Callable[[Any, Any], Any]
) -> None:
    data = frame_data()
    data["user_id"] = data.pop("query")
    frame = make_frame(data)
    with expect(InvalidOptionError, "by='user_id' is the query column"):
        run(lambda ev: by_call(ev, "user_id"), frame.rank_eval(query="user_id"))


# -- empty="error" ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "fragments"),
    [
        (lambda ev: ev.mrr(empty="error"), ("1 query has no relevant item: 'q2'",)),
        (lambda ev: ev.ndcg(k=3, by="theme", empty="error"), ("'q2'",)),
        (lambda ev: ev.per_query(["map"], empty="error"), ("'q2'",)),
        (lambda ev: ev.evaluate(["P_5"], empty="error"), ("'q2'",)),
        (
            lambda ev: ev.recall(empty="error", min_relevance=5),
            ("2 queries have no relevant item: 'q1', 'q2'", "or lower min_relevance"),
        ),
    ],
    ids=["mrr", "ndcg-by", "per_query", "evaluate", "min_relevance"],
)
def test_empty_error_names_the_queries(
    make_frame: FrameMaker, call: Call, fragments: tuple[str, ...]
) -> None:
    frame = make_frame(frame_data(relevant=[1, 0, 1, 0, 0, -1]))
    with expect(EmptyQueryError, *fragments, "empty='zero'", "'skip' or 'nan'"):
        run(call, frame.rank_eval)


def test_empty_error_lists_at_most_five_queries(make_frame: FrameMaker) -> None:
    n = 8
    frame = make_frame(
        {
            "query": [f"q{i}" for i in range(n)],
            "item": ["a"] * n,
            "score": [1.0] * n,
            "relevant": [0] * n,
        }
    )
    with expect(EmptyQueryError, "8 queries", "'q0', 'q1', 'q2', 'q3', 'q4' and 3 more"):
        run(lambda ev: ev.map(empty="error"), frame.rank_eval)


def test_empty_error_counts_every_part_and_carries_its_facts(make_frame: FrameMaker) -> None:
    """14 queries without a relevant item among 30, spread over every part of a partitioned
    frame (polars parts, Dask partitions): the message and the error's fields count and name
    the whole frame's, as pandas does (Dask once said "3 queries ... 'q105', 'q33', 'q8'")."""
    ids = [100 + i for i in range(10)] + [20 + i for i in range(10)] + list(range(10))
    empty = {f"q{i}" for i in [*range(100, 107), *range(26, 30), 7, 8, 9]}
    rows = [(f"q{i}", item) for i in ids for item in ("a", "b")]
    frame = make_frame(
        {
            "query": [q for q, _ in rows],
            "item": [item for _, item in rows],
            "score": [2.0 if item == "a" else 1.0 for _, item in rows],
            "relevant": [0 if q in empty or item == "b" else 1 for q, item in rows],
        }
    )
    assert len(empty) == 14
    # sorted as strings: q100 .. q106, then q26 .. q29, then q7, q8, q9
    first_five = ["q100", "q101", "q102", "q103", "q104"]
    shown = ", ".join(repr(q) for q in first_five)
    with expect(EmptyQueryError, f"14 queries have no relevant item: {shown} and 9 more") as info:
        run(lambda ev: ev.mrr(k=5, empty="error"), frame.rank_eval)
    assert info.value.count == 14
    assert info.value.queries == first_five


# -- column roles and the rank column ---------------------------------------------------------


@pytest.mark.parametrize("name", ["theme", "score", "query"])
def test_rank_name_that_clashes_with_a_column(make_frame: FrameMaker, name: str) -> None:
    frame = make_frame(frame_data())
    with expect(InvalidOptionError, f"already has a column {name!r}", "name='...'"):
        run(lambda ev: ev.rank(name=name), frame.rank_eval)


@pytest.mark.parametrize(
    ("bound", "fragments"),
    [
        (
            {"query": "theme", "item": "theme", "score": "theme", "relevant": "theme"},
            ("query='theme'", "item='theme'", "score='theme'", "relevant='theme'"),
        ),
        ({"item": "query"}, ("query='query'", "item='query'")),
    ],
    ids=["all-four", "two"],
)
@data_calls
def test_roles_mapped_to_the_same_column(
    make_frame: FrameMaker, call: Call, bound: dict[str, str], fragments: tuple[str, ...]
) -> None:
    frame = make_frame(frame_data())
    with expect(InvalidOptionError, "four different columns", *fragments):
        run(call, frame.rank_eval(**bound))


# -- where and when errors surface ------------------------------------------------------------


def test_lazy_frames_raise_data_errors_on_collect(make_frame: FrameMaker) -> None:
    frame = make_frame(frame_data(item=["a", "b", "a", "a", "b", "c"]))
    message = ("Item 'a' appears 2 times in query 'q1'",)
    if not make_frame.is_lazy:
        with expect(InvalidDataError, *message):
            frame.rank_eval.mrr()
        return
    plan = frame.rank_eval.mrr()  # builds the plan; the data is only read on collect
    assert isinstance(plan, pl.LazyFrame)
    # polars must hand rankframe's own error through, on every engine, not wrap it in
    # a ComputeError
    for engine in ("auto", "in-memory", "streaming"):
        with expect(InvalidDataError, *message):
            plan.collect(engine=engine)
    with expect(InvalidDataError, *message):
        pl.collect_all([plan])


ARGUMENT_ERRORS: dict[str, tuple[Call, type[RankEvalError]]] = {
    "missing column": (lambda ev: ev(relevant="clicks").mrr(), ColumnNotFoundError),
    "missing by": (lambda ev: ev.mrr(by="segment"), ColumnNotFoundError),
    "unknown metric": (lambda ev: ev.evaluate(["ndgc@10"]), UnknownMetricError),
    "bad k": (lambda ev: ev.ndcg(k=0), InvalidOptionError),
    "bad option": (lambda ev: ev.per_query(["mrr"], ties="trek"), InvalidOptionError),
    "by role": (lambda ev: ev.mrr(by="query"), InvalidOptionError),
    "rank name": (lambda ev: ev.rank(name="score"), InvalidOptionError),
}


@pytest.mark.parametrize(("call", "error"), ARGUMENT_ERRORS.values(), ids=ARGUMENT_ERRORS.keys())
def test_argument_errors_raise_at_the_call_even_on_lazy_frames(
    make_frame: FrameMaker, call: Call, error: type[RankEvalError]
) -> None:
    frame = make_frame(frame_data())
    with expect(error):
        call(frame.rank_eval)  # no collect: names, metrics and options are checked at once


@pytest.mark.parametrize(
    "config",
    [{"validation_enabled": False}, {"validation_depth": ValidationDepth.SCHEMA_ONLY}],
    ids=["validation-disabled", "schema-only"],
)
@pytest.mark.parametrize(
    ("column", "values", "error_fragment"),
    [
        ("relevant", [1, 0, 1, 0, None, 0], "Column 'relevant'"),
        ("query", ["q1", "q1", "q1", "q2", None, "q2"], "Column 'query'"),
    ],
    ids=["null-relevant", "null-query"],
)
def test_checks_do_not_depend_on_the_global_pandera_config(
    make_frame: FrameMaker,
    config: dict[str, Any],
    column: str,
    values: list[Any],
    error_fragment: str,
) -> None:
    # a user may switch pandera's validation off (PANDERA_VALIDATION_ENABLED=False) or to
    # schema-only for their own pipelines; rankframe must still never return a wrong number
    frame = make_frame(frame_data(**{column: values}))
    with config_context(**config), expect(InvalidDataError, error_fragment, "null"):
        run(DATA_CALLS["mrr"], frame.rank_eval)


# -- the exported pandera schemas -------------------------------------------------------------


@contextmanager
def _data_level_validation(frame: Any) -> Iterator[None]:
    """pandera checks only the schema of a LazyFrame unless told to check its data too."""
    if isinstance(frame, pl.LazyFrame):
        with config_context(validation_depth=ValidationDepth.SCHEMA_AND_DATA):
            yield
    else:
        yield


@pytest.mark.parametrize(
    ("columns", "match"),
    [
        ({"item": ["a", "b", "c", "a", "a", "c"]}, r"\('query', 'item'\).* not unique"),
        ({"query": ["q1", "q1", None, "q2", "q2", "q2"]}, r"'query' contains null"),
    ],
    ids=["duplicate", "null-query"],
)
def test_exported_schemas_reject_bad_frames_in_a_users_pipeline(
    make_frame: FrameMaker, columns: dict[str, list[Any]], match: str
) -> None:
    clean, bad = make_frame(frame_data()), make_frame(frame_data(**columns))
    if make_frame.is_arrow:  # and of a pyarrow Table: validate it as the pandas frame it gives
        clean, bad = clean.table.to_pandas(), bad.table.to_pandas()
    if make_frame.is_modin:  # pandera reads a modin frame through modin's pandas fallbacks,
        # which warn: validate the pandas frame it gives
        clean, bad = clean.modin.to_pandas(), bad.modin.to_pandas()
    schema = (
        rankframe.pandas_schema() if isinstance(clean, pd.DataFrame) else rankframe.polars_schema()
    )
    with _data_level_validation(clean):
        collect(schema.validate(clean))
    with _data_level_validation(bad), pytest.raises(SchemaError, match=match):
        collect(schema.validate(bad))


@pytest.mark.parametrize("kind", [pa.float64(), pa.float32()])
def test_nan_grade_of_a_pyarrow_column_is_unjudged_on_request(kind: pa.DataType) -> None:
    # A NaN in a pyarrow float grade column is a null grade (the error:
    # test_nan_in_a_float_column_is_reported_like_a_null), so unjudged="nonrelevant" reads
    # it as an unjudged row, as a null. (The fixture's pyarrow kind makes NA, not NaN.)
    grades = pd.Series(
        pa.array([1.0, 0.0, 1.0, 0.0, float("nan"), 1.0], type=kind), dtype=pd.ArrowDtype(kind)
    )
    frame = pd.DataFrame(frame_data()).assign(relevant=grades)
    # q1's a (grade 1) ranks first, RR 1; q2 ranks a (grade 0), b (NaN: unjudged, grade 0),
    # c (grade 1): RR 1/3
    assert frame.rank_eval.mrr(unjudged="nonrelevant") == pytest.approx((1 + 1 / 3) / 2)
