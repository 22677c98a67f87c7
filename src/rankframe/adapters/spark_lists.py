"""``rankframe.from_lists`` on a PySpark DataFrame (classic, and Spark Connect).

Imported by :func:`rankframe.from_lists` only when it is given a Spark frame, so that
``import rankframe`` never imports pyspark.

The long rows are made per partition (``mapInArrow``) by the Arrow core that every backend
shares (:func:`rankframe.inputs.lists._from_arrow`): a query is one input row, so a
partition holds whole queries. The Spark schema of the output is that of the same
conversion run on the frame's columns with no rows (``limit(0).toArrow()``), converted by
``pyspark.sql.pandas.types.from_arrow_schema``.

Errors are the pandas ones, raised when ``from_lists`` is called (the long rows themselves
stay lazy). Two jobs check the input:

- per partition (``mapInArrow``, in the frame's order: partitions by number, rows in
  order): its row count, its first null query id, and the error of its lists, pickled;
- a count per query id (``groupBy``) for an id on two rows, in any partitions.

The driver raises, in the pandas order: a null query id (its row in the whole frame), a
repeated query id (the one pandas names: whose second row comes first, found by one more
job on that path only), then the error of the lists. When one partition holds all the bad
rows its error is the pandas one (every check of a list is of one row, and a count in a
message, such as the null lists in all, is then that partition's). When several do, their
rows are brought to the driver and converted there in the frame's order (one more job, on
that path only), so that the error is the one pandas finds first over the whole frame.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql import Window, functions
from pyspark.sql.pandas.types import from_arrow_schema

from rankframe.adapters.spark import aliases, col, partition_id, quiet
from rankframe.exceptions import RankEvalError
from rankframe.inputs.lists import (
    ListNames,
    check_names,
    long_from_arrow,
    null_query,
    repeated_query,
)

__all__ = ["spark_from_lists"]

_CHECKS = pa.schema(
    [("part", pa.int64()), ("rows", pa.int64()), ("null_query", pa.int64()), ("error", pa.binary())]
)
_CHECKS_DDL = "part long, rows long, null_query long, error binary"
_POSITION = "_position"


def _value_type(column: pa.ChunkedArray) -> pa.DataType | None:
    """The item type of a list column as Spark sends it (None for another type)."""
    kind = column.type
    if pa.types.is_map(kind):
        return kind.key_type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return kind.value_type
    return None


def _long_table(table: pa.Table, names: ListNames) -> pa.Table:
    """A part of the input (under its own column names) as its long rows: query, item,
    score, relevant, then the carried columns, in the types Spark sent (items of strings
    back from the large strings the core uses)."""
    queries = table[names.query]

    def label(row: int) -> object:
        return queries[row].as_py()

    long = long_from_arrow(
        table[names.recommended],
        table[names.relevant],
        table[names.grades] if names.grades is not None else None,
        names,
        label,
    )
    rows = pa.array(long.rows, type=pa.int64())
    items = long.items
    sent = _value_type(table[names.recommended])
    if (
        sent is not None
        and not pa.types.is_null(sent)
        and items.type != sent
        and (pa.types.is_large_string(items.type) or pa.types.is_large_binary(items.type))
    ):
        items = items.cast(sent)
    used = set(names.roles().values())
    columns: dict[str, Any] = {
        "query": queries.take(rows),
        "item": items,
        "score": pa.array(long.score, mask=~long.retrieved, type=pa.int64()),
        "relevant": long.grades,
    }
    columns.update({c: table[c].take(rows) for c in table.column_names if c not in used})
    return pa.table(columns)


def _received(batches: Iterator[pa.RecordBatch], columns: Sequence[str]) -> pa.Table | None:
    """A partition's batches as one table under the frame's own column names."""
    received = list(batches)
    if not received:
        return None
    return pa.Table.from_batches(received).rename_columns(list(columns))


def _checks(names: ListNames, columns: Sequence[str]) -> Any:
    """Per partition: its number, its rows, its first null query id (-1: none) and the
    error of its lists (pickled)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        table = _received(batches, columns)
        rows, null_query, error = 0, -1, None
        if table is not None and table.num_rows:
            rows = table.num_rows
            queries = table[names.query]
            if queries.null_count:
                nulls = queries.is_null().to_numpy(zero_copy_only=False)
                null_query = int(np.flatnonzero(nulls)[0])
            try:
                _long_table(table, names)
            except RankEvalError as raised:
                error = pickle.dumps(raised)
        yield pa.RecordBatch.from_pydict(
            {
                "part": [partition_id()],
                "rows": [rows],
                "null_query": [null_query],
                "error": [error],
            },
            schema=_CHECKS,
        )

    return run


def _converted(names: ListNames, columns: Sequence[str]) -> Any:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        table = _received(batches, columns)
        if table is not None and table.num_rows:
            yield from _long_table(table, names).to_batches()

    return run


def _kept(parts: set[int]) -> Any:
    """The rows of the partitions ``parts``, as they are."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        if partition_id() in parts:
            yield from batches

    return run


def spark_from_lists(frame: Any, names: ListNames) -> Any:
    """The long Spark DataFrame of ``frame``, after the checks (pandas' errors)."""
    with quiet():
        return _spark(frame, names)


def _spark(frame: Any, names: ListNames) -> Any:
    columns = [str(c) for c in frame.columns]
    check_names(columns, names)
    named = aliases(columns)
    selected = frame.select(*[col(c).alias(a) for c, a in zip(columns, named, strict=True)])
    checks = selected.mapInArrow(_checks(names, columns), _CHECKS_DDL).toArrow().sort_by("part")
    rows = np.asarray(checks["rows"].to_numpy(zero_copy_only=False), dtype=np.int64)
    before = np.concatenate([[0], np.cumsum(rows)[:-1]]) if len(rows) else rows
    for start, at in zip(before, checks["null_query"].to_pylist(), strict=True):
        if at >= 0:
            raise null_query(int(start) + at, names.query)
    _check_repeated(selected, names, named[columns.index(names.query)])
    errors = [
        (p, e)
        for p, e in zip(checks["part"].to_pylist(), checks["error"].to_pylist(), strict=True)
        if e is not None
    ]
    if len(errors) > 1:  # the first error over the whole frame, as pandas finds it
        bad = selected.mapInArrow(_kept({p for p, _ in errors}), selected.schema).toArrow()
        _long_table(bad.rename_columns(columns), names)
    if errors:
        raise pickle.loads(errors[0][1])
    empty = _long_table(selected.limit(0).toArrow().rename_columns(columns), names)
    return selected.mapInArrow(_converted(names, columns), from_arrow_schema(empty.schema))


def _check_repeated(selected: Any, names: ListNames, query: str) -> None:
    """A query id on two rows: the one pandas names (``duplicated()``'s first row: the id
    whose second row comes first in the frame's order) and its count of rows."""
    key = functions.col(query)
    if not selected.groupBy(key).count().where(functions.col("count") > 1).limit(1).take(1):
        return
    each = Window.partitionBy(key)
    found = (
        selected.select(key, functions.monotonically_increasing_id().alias(_POSITION))
        .withColumn("n", functions.count(functions.lit(1)).over(each))
        .withColumn("nth", functions.row_number().over(each.orderBy(_POSITION)))
        .where(functions.col("nth") == 2)
        .orderBy(_POSITION)
        .limit(1)
        .toArrow()
    )
    raise repeated_query(found[query][0].as_py(), int(found["n"][0].as_py()), names.query)
