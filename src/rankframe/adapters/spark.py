"""The ``rank_eval`` accessor of PySpark DataFrames (classic, and Spark Connect).

The engine needs every row of a query together. The bound columns (query, item, score(s),
relevant, judged, ``by``) and each row's position are grouped on a hash bucket of the query
(``groupBy(bucket).applyInArrow``): each group arrives in a Python worker as one Arrow
table of whole queries, is read as the Arrow adapter reads a table (Arrow-backed pandas
columns, a float NaN as a null), and gives its per-query table through the pandas adapter
(:class:`rankframe.pipeline.parts.Parts`). Each group sends back one row: its per-query table,
pickled. The driver collects those rows with ``toArrow()`` and runs the one finish step, so
the values are the pandas accessor's, bit for bit. Nothing loops over queries in Python and
nothing goes through ``pyspark.pandas``.

With ``partitioned=True`` (``rankframe.spark.rank_eval(sdf, partitioned=True)``) the frame
is taken as laid out by query (every query's rows in one partition: written bucketed, by
query, or ``repartition("query")``): ``mapInArrow`` runs on each partition as it is, with
no shuffle. The driver checks that no query came from two partitions; those that did (a
file split cutting a query) are computed again from all their rows, shuffled, so a wrong
layout costs time, never a wrong number.

Errors are the pandas accessor's. A worker never raises for bad data: a group whose columns
hold nulls (or a score or grade column that is not numeric) says so, and the driver then
counts and locates them over the whole frame in its row order (one more job, only on that
path) and raises the eager error (:mod:`rankframe.pipeline.validation`); any
other error (a duplicate item, a ``by`` column that varies within a query) comes back
pickled and is raised on the driver, as raised.

``evaluate``, ``compare`` and the metric methods return what the pandas accessor returns;
``per_query`` and ``rank`` return Spark DataFrames. ``rank()`` checks the whole frame's
nulls and dtypes when called (one scan, no shuffle) and raises the pandas error at once; the
ranking itself is lazy, so an error found within a query (a duplicate item) surfaces when its
frame is computed, as Spark's ``PythonException`` carrying rankframe's message.
"""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa

try:
    from pyspark import TaskContext
    from pyspark.sql import DataFrame, functions
    from pyspark.sql.types import LongType, StructField, StructType
except ImportError as error:
    msg = "The Spark accessor needs pyspark: pip install 'rankframe[spark]'"
    raise ImportError(msg) from error

from rankframe.adapters.arrow import arrow_frame
from rankframe.adapters.pandas import PandasBackend, concat_pandas, pandas_result
from rankframe.exceptions import RankEvalError
from rankframe.pipeline import validation
from rankframe.pipeline.contract import FrameAdapter
from rankframe.pipeline.parts import Parts
from rankframe.pipeline.reference import Side, side
from rankframe.pipeline.steps import Backend, ColumnNames, Means, Request, from_parts, ranks
from rankframe.settings import config
from rankframe.settings.options import Ties

__all__ = ["SparkAdapter", "register"]

_POSITION, _BUCKET = "_position", "_bucket"  # beside the columns' aliases _0, _1, ...
_REPLY = "part long, reported boolean, error binary, payload binary"
_FACTS = "part long, facts binary"
#: Up to this many queries cut across partitions are recomputed alone (``partitioned=True``);
#: beyond, the whole frame is shuffled.
STRADDLING_QUERIES = 10_000


@contextmanager
def quiet() -> Iterator[None]:
    """pyspark's warning that it does not yet support pandas 3 (raised by its Arrow
    functions at every call), silenced around rankframe's calls."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="PySpark does not yet fully support pandas", category=FutureWarning
        )
        yield


def col(name: str) -> Any:
    """A column by its name, whatever characters it holds."""
    return functions.col("`" + name.replace("`", "``") + "`")


def _reported(frame: pd.DataFrame, names: ColumnNames) -> bool:
    """Whether the whole frame's check raises for this part's data."""
    return not validation.pandas_facts(frame, names).clean


def _hashable(values: list[Any]) -> list[Any]:
    """Query ids as set members: composite ids (Arrow lists, structs) as tuples."""

    def one(value: Any) -> Any:
        if isinstance(value, list):
            return tuple(one(v) for v in value)
        if isinstance(value, dict):
            return tuple((k, one(v)) for k, v in value.items())
        return value

    return [one(v) for v in values]


def partition_id() -> int:
    """The number of the partition a task runs on (0 outside a task)."""
    context = TaskContext.get()
    return 0 if context is None else context.partitionId()


def _reply(
    part: int, *, reported: bool = False, error: bytes | None = None, payload: bytes | None = None
) -> pa.Table:
    return pa.table(
        {
            "part": pa.array([part], pa.int64()),
            "reported": pa.array([reported]),
            "error": pa.array([error], pa.binary()),
            "payload": pa.array([payload], pa.binary()),
        }
    )


def aliases(columns: Sequence[str]) -> list[str]:
    """The names the columns travel under (Spark's Arrow functions read columns by unquoted
    name: a name holding a backtick or a dot would break them)."""
    return [f"_{i}" for i in range(len(columns))]


def _in_order(table: pa.Table, columns: Sequence[str]) -> pa.Table:
    """A part's rows back in the frame's order (by position), under their own names."""
    order = np.argsort(np.asarray(table[_POSITION]), kind="stable")
    kept = table.select(aliases(columns)).take(pa.array(order))
    return kept.rename_columns(list(columns))


def _part_reply(table: pa.Table, parts: Parts, columns: Sequence[str], part: int) -> pa.Table:
    """One part of whole queries (an Arrow table) → one row: its pickled per-query table,
    or that the whole frame's check reports it, or a pickled error."""
    frame = arrow_frame(_in_order(table, columns))
    if _reported(frame, parts.request.names):
        return _reply(part, reported=True)
    try:
        result = parts.map(frame)
    except RankEvalError as error:
        return _reply(part, error=pickle.dumps(error))
    return _reply(part, payload=pickle.dumps(result, protocol=5))


def _grouped(parts: Parts, columns: Sequence[str]) -> Any:
    def run(key: tuple[pa.Scalar, ...], table: pa.Table) -> pa.Table:
        return _part_reply(table, parts, columns, key[0].as_py())

    return run


def _mapped(parts: Parts, columns: Sequence[str]) -> Any:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        received = list(batches)
        table = pa.Table.from_batches(received) if received else None
        if table is not None and table.num_rows:
            part = partition_id()
            yield from _part_reply(table, parts, columns, part).to_batches()

    return run


def _facts(names: ColumnNames, columns: Sequence[str]) -> Any:
    """Per input partition: its :class:`~rankframe.pipeline.validation.Facts` (pickled), from its
    rows as pandas reads them."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        received = list(batches)
        if received:
            table = pa.Table.from_batches(received).rename_columns(list(columns))
            facts = validation.pandas_facts(arrow_frame(table), names)
        else:
            facts = validation.Facts(0)
        yield pa.RecordBatch.from_pydict(
            {
                "part": [partition_id()],
                "facts": [pickle.dumps(facts)],
            }
        )

    return run


class SparkAdapter(FrameAdapter):
    """A PySpark DataFrame (classic or Connect): parts of whole queries grouped on the
    workers (see the module); ``partitioned=True``: the frame's own partitions hold whole
    queries."""

    def __init__(self, frame: Any, *, partitioned: bool = False) -> None:
        super().__init__(frame)
        self.partitioned = partitioned

    def backend(self, frame: Any) -> Backend:
        return PandasBackend(frame)

    def concat(self, tables: Sequence[Any]) -> Any:
        return concat_pandas(tables)

    def polars_columns(self, columns: Sequence[str]) -> pl.DataFrame:
        arrow = pl.from_arrow(self.frame.select(*list(dict.fromkeys(columns))).toArrow())
        return arrow if isinstance(arrow, pl.DataFrame) else arrow.to_frame()

    def one_pass(self, request: Request) -> Backend | None:  # noqa: ARG002
        return None

    def _selected(self, columns: Sequence[str], *, position: bool = True) -> Any:
        """The frame's ``columns`` under their aliases (:func:`aliases`), and a column of
        each row's position in the frame's order."""
        named = aliases(columns)
        frame = self.frame.select(*[col(c).alias(a) for c, a in zip(columns, named, strict=True)])
        if not position:
            return frame
        return frame.withColumn(_POSITION, functions.monotonically_increasing_id())

    def _empty(self, columns: Sequence[str]) -> pd.DataFrame:
        """The columns with no rows, as a part of the frame is read."""
        return arrow_frame(self.frame.select(*[col(c) for c in columns]).limit(0).toArrow())

    def _buckets(self) -> int:
        chosen = config.get_option("query_buckets")
        if chosen is not None:
            return int(chosen)
        session = self.frame.sparkSession
        return max(1, int(session.conf.get("spark.sql.shuffle.partitions", "200")))

    def _bucketed(self, frame: Any, columns: Sequence[str], query: Sequence[str]) -> Any:
        """``frame`` (of :meth:`_selected`) grouped on a hash of the query (of every column
        of a composite key), modulo the number of buckets."""
        named = aliases(columns)
        hashed = [functions.col(named[list(columns).index(c)]) for c in query]
        key = functions.pmod(functions.xxhash64(*hashed), functions.lit(self._buckets()))
        return frame.withColumn(_BUCKET, key).groupBy(_BUCKET)

    def _replies(self, columns: Sequence[str], parts: Parts) -> pa.Table:
        frame = self._selected(columns)
        if self.partitioned:
            replies = frame.mapInArrow(_mapped(parts, columns), _REPLY)
        else:
            replies = self._bucketed(frame, columns, parts.request.names.query_key).applyInArrow(
                _grouped(parts, columns), _REPLY
            )
        return replies.toArrow().sort_by("part")

    def _check(
        self,
        names: ColumnNames,
        columns: Sequence[str],
        reported: bool,
        errors: Sequence[bytes | None],
    ) -> None:
        """Raise the pandas accessor's error, if any part reported one."""
        if reported:
            self._raise_whole_frame(names, columns)
        for error in errors:
            if error is not None:
                raise pickle.loads(error)

    def _raise_whole_frame(self, names: ColumnNames, columns: Sequence[str]) -> None:
        frame = self._selected(columns, position=False)
        reports = frame.mapInArrow(_facts(names, columns), _FACTS).toArrow().sort_by("part")
        facts = validation.combine([pickle.loads(f) for f in reports["facts"].to_pylist()])
        validation.raise_for(facts, names, flavour="pandas")

    def run(self, request: Request) -> Any:
        with quiet():
            return self._evaluate(request)

    def _part_tables(self, request: Request) -> pd.DataFrame:
        """The per-query tables of every part of whole queries, concatenated (on the
        driver). The workers run only the per-query step, which reads no result: they get
        the request with a plain one (``compare(reference=...)``'s holds the reference
        frame, which stays on the driver), and no shared pass (``agreement()``'s, which holds
        the accessor)."""
        names = request.names
        columns = list(dict.fromkeys([*names.roles(), *request.by]))
        parts = Parts(replace(request, result=Means(), shared_pass=None), PandasBackend)
        replies = self._replies(columns, parts)
        self._check(
            names, columns, any(replies["reported"].to_pylist()), replies["error"].to_pylist()
        )
        tables = [pickle.loads(p) for p in replies["payload"].to_pylist()]
        if not tables:
            tables = [parts.map(self._empty(columns))]
        if self.partitioned:
            tables = self._whole(request, tables)
        table: pd.DataFrame = pd.concat(tables, ignore_index=True)
        return table

    def _whole(self, request: Request, tables: list[pd.DataFrame]) -> list[pd.DataFrame]:
        """``partitioned=True``: the tables of the partitions, with the queries found in more
        than one partition (a query cut by a file split, or rows not laid out by query)
        taken out and computed again from all their rows, shuffled. Beyond
        :data:`STRADDLING_QUERIES` such queries, the whole frame is shuffled instead."""
        key = request.names.query_key
        query = key[0]
        keys = [
            list(zip(*(_hashable(pa.array(t[c]).to_pylist()) for c in key), strict=True))
            if len(key) > 1
            else _hashable(pa.array(t[query]).to_pylist())
            for t in tables
        ]
        seen: set[Any] = set()
        cut: set[Any] = set()
        for part in keys:
            mine = set(part)
            cut |= mine & seen
            seen |= mine
        if not cut:
            return tables
        if len(cut) > STRADDLING_QUERIES or any(isinstance(k, tuple) for k in cut):
            return [SparkAdapter(self.frame)._part_tables(request)]  # (composite ids: no isin)
        cut_rows = self.frame.where(col(query).isin(sorted(cut, key=repr)))
        again = SparkAdapter(cut_rows)._part_tables(request)
        kept = [t[[k not in cut for k in part]] for t, part in zip(tables, keys, strict=True)]
        return [*kept, again]

    def _evaluate(self, request: Request) -> Any:
        table = Parts(request, PandasBackend).finish(self._part_tables(request))
        if request.result.per_query_rows:
            return self._spark(table)
        return pandas_result(table, request)

    def side(self, request: Request) -> Side:
        """This frame's side of ``compare(reference=...)``: its parts' per-query tables,
        read back on the driver (as :meth:`run`)."""
        with quiet():
            backend = PandasBackend(self._part_tables(request))
            return side(backend, from_parts(backend, request), request)

    def _spark(self, table: pd.DataFrame) -> Any:
        """A pandas result as a Spark DataFrame of the frame's session."""
        arrow = pa.Table.from_pandas(table, preserve_index=False)
        return self.frame.sparkSession.createDataFrame(arrow)

    def rank(self, names: ColumnNames, columns: list[str], ties: Ties) -> Any:
        with quiet():
            return self._ranked(names, columns, ties)

    def _ranked(self, names: ColumnNames, columns: list[str], ties: Ties) -> Any:
        # nulls and dtypes over the whole frame, in its row order, now (a scan, no shuffle)
        self._raise_whole_frame(names, list(names.roles()))
        every = list(self.frame.columns)
        schema = StructType(
            [*self.frame.schema.fields, *(StructField(c, LongType()) for c in columns)]
        )

        def run(table: pa.Table) -> pa.Table:
            table = _in_order(table, every)
            found = ranks(PandasBackend(arrow_frame(table)), names, columns, ties)
            for column, rank in found.items():
                table = table.append_column(column, pa.array(rank, mask=rank == 0, type=pa.int64()))
            return table

        grouped = self._bucketed(self._selected(every), every, names.query_key)
        return grouped.applyInArrow(run, schema)


class _Accessor:
    """``DataFrame.rank_eval``: a property that builds the accessor of its frame."""

    def __init__(self, accessor: type) -> None:
        self.accessor = accessor

    def __get__(self, frame: Any, cls: type) -> Any:
        if frame is None:
            return self.accessor
        return self.accessor(frame)


def register(accessor: type) -> None:
    """Register ``accessor`` (called with the frame) as ``rank_eval`` on
    ``pyspark.sql.DataFrame`` and, when Spark Connect's client is installed, on its
    DataFrame."""
    classes: list[type] = [DataFrame]
    try:
        with warnings.catch_warnings():  # pyspark's own warnings (pandas 3), as pandera's
            warnings.filterwarnings("ignore", module=r"pyspark(\.|$)")
            from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
    except ImportError:  # Connect's client needs grpcio: pip install 'pyspark[connect]'
        pass
    else:
        classes.append(ConnectDataFrame)
    for cls in classes:
        if not isinstance(cls.__dict__.get("rank_eval"), _Accessor):
            cls.rank_eval = _Accessor(accessor)  # type: ignore[attr-defined]
