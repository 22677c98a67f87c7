"""``rankframe.rank_eval(obj)`` on Arrow frames beyond the fixture's pyarrow Table: a
RecordBatch, a DuckDB relation, an Ibis table, a plain ``__arrow_c_stream__`` object, a
RecordBatchReader.

The frame-kind fixture (``arrow``) already runs every test of values and errors on a pyarrow
Table; these tests cover what only the other sources do: which columns are read, how often a
stream is opened, and the errors that belong to Arrow input.

The data, derived by hand (``trec`` ties: item id descending; a null score is unretrieved):

- q1: x (0.9, grade 0), y (0.5, grade 2), z (no score, grade 1): ranking x, y. The first
  relevant item is y at rank 2: RR 1/2, recall@1 0/2, AP (1/2)/2 = 1/4 (z counts in R = 2).
- q2: x (0.3, grade 1), y (0.3, grade 0): tied, y before x: RR 1/2, recall@1 0, AP 1/2.
- q3: x (0.1, grade 1): RR 1, recall@1 1, AP 1.

Means: mrr (1/2 + 1/2 + 1)/3 = 2/3, recall@1 1/3, map (1/4 + 1/2 + 1)/3 = 7/12.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

import rankframe
from rankframe import InvalidDataError, RankEvalError

DATA = {
    "query": ["q1", "q1", "q1", "q2", "q2", "q3"],
    "item": ["x", "y", "z", "x", "y", "x"],
    "score": [0.9, 0.5, None, 0.3, 0.3, 0.1],
    "relevant": [0, 2, 1, 1, 0, 1],
    "theme": ["news", "news", "news", "sport", "sport", "sport"],
    "notes": ["never", "read", "by", "the", "metrics", "!"],
}
MEANS = {"mrr": 2 / 3, "recall@1": 1 / 3, "map": 7 / 12}
PER_QUERY = {"q1": 0.5, "q2": 0.5, "q3": 1.0}  # reciprocal ranks
METRICS = list(MEANS)


class Stream:
    """A frame that only exposes ``__arrow_c_stream__`` (no schema, no columns), and counts
    the streams it opens."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table
        self.opened = 0

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        self.opened += 1
        return self._table.__arrow_c_stream__(requested_schema)


def _means(accessor: Any) -> dict[str, float]:
    table = accessor.evaluate(METRICS)
    assert isinstance(table, pd.DataFrame)
    return {m: float(table[m].iloc[0]) for m in METRICS}


def _check(accessor: Any) -> None:
    assert _means(accessor) == pytest.approx(MEANS, abs=1e-15)
    per_query = accessor.per_query("mrr", by="theme")
    assert per_query["query"].tolist() == list(PER_QUERY)
    assert per_query["theme"].tolist() == ["news", "sport", "sport"]
    assert per_query["mrr"].tolist() == list(PER_QUERY.values())
    segments = accessor.mrr(by="theme")  # a pandas Series, one value per theme
    assert isinstance(segments, pd.Series)
    assert segments.to_dict() == pytest.approx({"news": 0.5, "sport": 0.75})


def test_a_record_batch() -> None:
    _check(rankframe.rank_eval(pa.RecordBatch.from_pydict(DATA)))


def test_a_plain_arrow_stream_is_opened_once_per_call() -> None:
    stream = Stream(pa.table(DATA))
    accessor = rankframe.rank_eval(stream)
    assert accessor.mrr() == pytest.approx(2 / 3, abs=1e-15)
    # the stream opened for the column names is the one read by the first call
    assert stream.opened == 1
    _check(accessor)
    assert stream.opened == 1 + 3


def test_a_duckdb_relation_reads_only_the_bound_columns() -> None:
    import duckdb

    connection = duckdb.connect()
    connection.register("runs", pa.table(DATA))
    # `trap` raises when DuckDB computes it: a call that read it would fail
    relation = connection.sql("select *, error('the trap column was read') as trap from runs")
    _check(rankframe.rank_eval(relation))
    renamed = connection.sql(
        'select query as "user id", item, score as "pred", relevant, '
        "error('read') as trap from runs"
    )
    accessor = rankframe.rank_eval(renamed)(query="user id", score="pred")
    assert _means(accessor) == pytest.approx(MEANS, abs=1e-15)
    with pytest.raises(duckdb.Error, match="the trap column was read"):
        rankframe.rank_eval(relation).rank()  # rank() returns every column


def _ibis_with_a_trap(data: dict[str, list[Any]]) -> Any:
    """An Ibis table (its default backend, in-process DuckDB) of ``data`` plus a column
    ``trap`` whose computation fails (1000 does not fit int8): a call that read it fails."""
    import ibis

    table = ibis.memtable(pa.table({**data, "big": [1000] * len(data["query"])}))
    return table.mutate(trap=table.big.cast("int8"))


def test_an_ibis_table_reads_only_the_bound_columns() -> None:
    table = _ibis_with_a_trap(DATA)
    with pytest.raises(Exception, match="out of range"):
        table.to_pyarrow()  # the trap works
    _check(rankframe.rank_eval(table))
    renamed = table.rename({"user id": "query", "pred": "score"})
    accessor = rankframe.rank_eval(renamed)(query="user id", score="pred")
    assert _means(accessor) == pytest.approx(MEANS, abs=1e-15)


def test_an_ibis_table_gives_the_pandas_errors() -> None:
    data = {**DATA, "relevant": [0, 2, 1, None, 0, 1]}
    message = (
        r"Column 'relevant' \(relevant\) has 1 null value\(s\) "
        r"\(first at row 3, in query 'q2'\)"
    )
    with pytest.raises(InvalidDataError, match=message):
        rankframe.rank_eval(_ibis_with_a_trap(data)).mrr()


def test_a_duckdb_relation_gives_the_pandas_errors() -> None:
    import duckdb

    data = {**DATA, "relevant": [0, 2, 1, None, 0, 1]}
    relation = duckdb.connect().from_arrow(pa.table(data))
    message = (
        r"Column 'relevant' \(relevant\) has 1 null value\(s\) "
        r"\(first at row 3, in query 'q2'\)"
    )
    with pytest.raises(InvalidDataError, match=message):
        rankframe.rank_eval(relation).mrr()
    with pytest.raises(InvalidDataError, match=message):
        pd.DataFrame(data).rank_eval.mrr()


def test_rank_returns_every_column_as_pandas() -> None:
    result = rankframe.rank_eval(pa.table(DATA)).rank()
    assert isinstance(result, pd.DataFrame)
    assert list(result.columns) == [*DATA, "rank"]
    # q1: x 1, y 2, z unranked; q2: y 1, x 2; q3: x 1
    assert result["rank"].tolist() == [1, 2, pd.NA, 2, 1, 1]


def test_a_nan_grade_is_reported_like_a_null() -> None:
    # an Arrow float column holds NaN apart from null; pandas has one missing value
    table = pa.table(
        {**DATA, "relevant": pa.array([0, 2, 1, float("nan"), 0, 1], from_pandas=False)}
    )
    assert table["relevant"].null_count == 0
    with pytest.raises(InvalidDataError, match=r"Column 'relevant'.*1 null.*'q2'"):
        rankframe.rank_eval(table).mrr()


def test_a_record_batch_reader_is_read_once() -> None:
    table = pa.table(DATA)
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    accessor = rankframe.rank_eval(reader)
    assert accessor.mrr() == pytest.approx(2 / 3, abs=1e-15)
    with pytest.raises(RankEvalError, match=r"read once.*reader\.read_all\(\)"):
        accessor.mrr()


def test_frames_with_an_accessor_get_their_own() -> None:
    frame = pd.DataFrame(DATA)
    assert type(rankframe.rank_eval(frame)) is type(frame.rank_eval)
    assert rankframe.rank_eval(frame).mrr() == pytest.approx(2 / 3, abs=1e-15)


def test_other_objects_are_refused() -> None:
    with pytest.raises(TypeError, match=r"__arrow_c_stream__\. Got builtins\.dict"):
        rankframe.rank_eval(DATA)
