"""The ``rank_eval`` accessor of Dask DataFrames.

Every method returns a lazy Dask object: a ``Scalar`` for a metric, a ``Series`` for a metric
``by=`` segments, a ``DataFrame`` for ``per_query``, ``evaluate`` and ``rank``. ``.compute()``
gives what the pandas accessor returns for the same rows.

The engine needs all rows of a query together. The frame is shuffled on the query column, so
each partition holds whole queries; each partition then gives its per-query table through the
pandas adapter; the per-query tables are gathered into one partition, where the one finish
step (:mod:`rankframe.pipeline.parts`) makes the result. No rows travel to the client and
nothing loops over queries in Python.

The shuffle is skipped when the frame is already partitioned by query: it has one partition,
or its index is the query column with known divisions (``set_index("query")``,
``read_parquet(..., index="query", calculate_divisions=True)``). Only here may the query
column be the index.

Column names, metric names and options are checked at call time. Checks of the data run when
the result is computed and raise the pandas accessor's errors; a null value is counted and
located over the whole frame, as pandas does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

try:
    import dask
    import dask.dataframe  # its extras missing: the message below
except ImportError as error:
    msg = "The Dask accessor needs dask: pip install 'rankframe[dask]'"
    raise ImportError(msg) from error

import polars as pl
import pyarrow as pa

from rankframe.adapters.pandas import (
    PandasBackend,
    concat_pandas,
    index_levels,
    pandas_column,
    pandas_result,
    polars_of_pandas,
)
from rankframe.engine.encoding import hash_arrow, is_composite
from rankframe.exceptions import RankEvalError, WarningState, warning_state, within
from rankframe.pipeline import validation
from rankframe.pipeline.contract import FrameAdapter
from rankframe.pipeline.parts import Parts
from rankframe.pipeline.reference import Side, side
from rankframe.pipeline.steps import Backend, ColumnNames, Request, from_parts, ranks
from rankframe.pipeline.windows import WINDOW, window_type
from rankframe.settings.options import Ties

__all__ = ["DaskAdapter"]

_DTYPES: dict[str, Any] = {
    "float": "float64",
    "int": "int64",
    "int?": "Int64",
    "str": "str",
    "bool": "bool",
    "float?": "float64",
}
# The shuffle keeps the frame's row order through a column of 64-bit positions:
# the input partition number above bit 40, the row within that partition below.
_POSITION_BITS = 40


# -- before the shuffle: row positions and the facts of the whole frame ---------------


def _numbers(part: pd.DataFrame, names: ColumnNames) -> bool:
    """Whether this partition's score and grade columns are numeric."""
    return all(validation.pandas_numeric(part[c]) for c in validation.numeric_columns(names))


def _with_position(
    part: pd.DataFrame,
    name: str,
    names: ColumnNames,
    partition_info: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """The partition plus a column ``name``: each row's position in the frame's order.

    A partition whose score or grade column is not numeric (one block of a CSV read as
    strings) goes through the shuffle as no rows: its dtype would break the shuffle (P2P's
    "failed during unpack phase"), and the whole frame's check raises its error instead.
    """
    number = partition_info["number"] if partition_info else 0
    if not _numbers(part, names):
        numeric = validation.numeric_columns(names)
        part = part.iloc[:0].astype(dict.fromkeys(numeric, np.float64))
    position = np.arange(len(part), dtype=np.int64) + (np.int64(number) << _POSITION_BITS)
    return part.assign(**{name: position})


def _composite(column: pd.Series) -> bool:
    """Whether a column holds composite ids as Arrow lists or structs (tuples, as pyarrow
    and parquet give them), which Dask's shuffle cannot hash."""
    return isinstance(column.dtype, pd.ArrowDtype) and is_composite(column.dtype.pyarrow_dtype)


def _with_bucket(part: pd.DataFrame, name: str, query: Sequence[str]) -> pd.DataFrame:
    """The partition plus a column ``name``: a 64-bit hash of each row's query id (equal for
    equal ids; of the tuple of a composite key's columns), for the shuffle of composite
    query ids."""
    columns = [
        pa.array(part[c].array)
        if isinstance(part[c].dtype, pd.ArrowDtype)
        else pa.array(part[c], from_pandas=True)
        for c in query
    ]
    ids = (
        columns[0]
        if len(columns) == 1
        else pa.StructArray.from_arrays(columns, names=[f"f{i}" for i in range(len(columns))])
    )
    return part.assign(**{name: hash_arrow(ids)})


def _facts(part: pd.DataFrame, names: ColumnNames) -> pd.DataFrame:
    """One row for an input partition: its :class:`~rankframe.pipeline.validation.Facts`."""
    return pd.DataFrame({"facts": pd.Series([validation.pandas_facts(part, names)], dtype=object)})


def _check_data(reports: pd.DataFrame, names: ColumnNames) -> int:
    """Raise the error pandas raises for the whole frame, from the rows of :func:`_facts`
    (one per input partition, in order); 0 when there is none."""
    facts = validation.combine(list(reports["facts"]))
    validation.raise_for(facts, names, flavour="pandas")
    return 0


# -- after the shuffle: the per-query step on each partition, the finish step on one --------


def _in_order(part: pd.DataFrame, position: str | None) -> pd.DataFrame:
    """A shuffled partition's rows back in the frame's order, without the position."""
    if position is None:
        return part
    order = part[position].to_numpy()
    if (order[1:] < order[:-1]).any():
        part = part.take(np.argsort(order, kind="stable"))
    return part.drop(columns=position)


def _reported(part: pd.DataFrame, names: ColumnNames) -> bool:
    """Whether the whole frame's check raises for this partition's data."""
    return not validation.pandas_facts(part, names).clean


def _map_part(
    part: pd.DataFrame, parts: Parts, position: str | None, empty: pd.DataFrame
) -> pd.DataFrame:
    """The per-query table of one partition of whole queries. A partition whose nulls the
    whole frame's check reports gives ``empty``: the finish step waits for that check."""
    part = _in_order(part, position)
    if _reported(part, parts.request.names):
        return empty
    table: pd.DataFrame = parts.map(part)
    return table


def _finish(
    tables: pd.DataFrame, parts: Parts, _checked: int, *, state: WarningState, convert: bool = True
) -> Any:
    """The result from every partition's per-query table (once the null check passed): as
    the pandas accessor gives it, or (``convert=False``) the finish step's frame. Its
    warnings (null scores) as the caller's blocks say (``state``: a scheduler's thread
    does not inherit the caller's context)."""
    with within(state):
        table = parts.finish(tables.reset_index(drop=True))
    return pandas_result(table, parts.request) if convert else table


def _rank_part(
    part: pd.DataFrame,
    names: ColumnNames,
    columns: list[str],
    ties: Ties,
    position: str | None,
    index: str | None,
    _checked: int,
) -> pd.DataFrame:
    """``rank`` on one partition of whole queries, its rows back in the frame's order."""
    backend = PandasBackend(_in_order(part, position))
    try:
        result = backend.with_ranks(ranks(backend, names, columns, ties))
    except RankEvalError as error:
        error.detached()
        raise
    return result.set_index(index) if index is not None else result


def _identity(part: Any) -> Any:
    return part


def _scalar(table: pd.DataFrame, metric: str) -> float:
    return float(table[metric].iloc[0])


def _meta(
    frame: Any, keys: Sequence[str], value_columns: Sequence[tuple[str, str]], names: ColumnNames
) -> Any:
    """An empty pandas frame with the ``keys`` columns of ``frame`` and typed values (a
    ``window`` column first)."""
    meta = frame._meta[list(keys)].reset_index(drop=True)
    values = pd.DataFrame({name: _empty(frame, t, names) for name, t in value_columns})
    leading = [WINDOW] if WINDOW in values else []
    # not assign: no warning beyond 100 columns
    return pd.concat([values[leading], meta, values.drop(columns=leading)], axis=1)


def _empty(frame: Any, kind: str, names: ColumnNames) -> Any:
    """An empty output column of type ``kind``: the time column's own (``"time"``, as a
    part's per-query table holds it) or its window's (``"window"``)."""
    if kind not in ("time", "window") or names.time is None:
        return pd.Series([], dtype=_DTYPES[kind])
    column = frame._meta[names.time]
    arrow = (
        pa.array(column.array)
        if isinstance(column.dtype, pd.ArrowDtype)
        else pa.array(column, from_pandas=True)
    )
    if not (pa.types.is_temporal(arrow.type) or pa.types.is_integer(arrow.type)):
        # dates as objects (no Arrow type without values), or no times: the data's check
        # raises before any value is made
        return pd.Series([], dtype=object)
    if kind == "time":
        kind_type = pa.int64() if pa.types.is_integer(arrow.type) else arrow.type
    else:
        kind_type = window_type(arrow.type, names.time_unit)
    return pd.Series(pandas_column(pa.array([], kind_type)))


class DaskAdapter(FrameAdapter):
    """A Dask DataFrame: the partitions hold whole queries after a shuffle on the query
    (see the module); results are lazy Dask objects that compute to the pandas result."""

    def backend(self, frame: Any) -> Backend:
        return PandasBackend(frame)

    def index_levels(self) -> list[str]:
        return index_levels(self.frame)

    def eager(self, result: Any) -> Any:
        return result.compute()

    def concat(self, tables: Sequence[Any]) -> Any:
        return concat_pandas(tables)

    def polars_columns(self, columns: Sequence[str]) -> pl.DataFrame:
        return polars_of_pandas(self.pandas_columns(list(dict.fromkeys(columns))))

    def pandas_columns(self, columns: Sequence[str]) -> pd.DataFrame:
        computed: pd.DataFrame = self.frame[list(columns)].compute()  # only these columns
        return computed

    def one_pass(self, request: Request) -> Backend | None:  # noqa: ARG002
        return None

    def _index_name(self) -> str | None:
        """The name of the frame's index when it is not also a column."""
        name = self.frame.index.name
        return name if isinstance(name, str) and name not in self.frame.columns else None

    def columns(self) -> list[str]:
        index = self._index_name()
        return [*self.frame.columns, *([index] if index is not None else [])]

    def _partitioned(
        self, keys: Sequence[str] | None, names: ColumnNames
    ) -> tuple[Any, Any, str | None, str | None]:
        """The frame with every row of a query in one partition (shuffled unless it already
        is), the whole frame's null check, the position column that restores the row order
        (``None`` without a shuffle), and the index column set back by ``rank``.
        ``keys``: the columns beyond the four to keep (``None``: every column); ``names``:
        the request's column names."""
        frame: Any = self.frame  # dask.dataframe.DataFrame (dask has no type annotations)
        used = list(dict.fromkeys([*names.roles(), *(keys or [])]))
        index = self._index_name() if self._index_name() in used or keys is None else None
        if keys is not None:  # only the columns the engine reads travel through the shuffle
            frame = frame[[c for c in used if c != index]]
        # already partitioned by query: one partition, or the query as index with divisions
        key = list(names.query_key)
        presorted = frame.npartitions == 1 or ([index] == key and frame.known_divisions)
        if index is not None:
            frame = frame.reset_index()
        checked = frame.reduction(
            _facts,
            aggregate=_check_data,
            split_every=False,
            meta=int,
            chunk_kwargs={"names": names},
            aggregate_kwargs={"names": names},
        )
        position = None
        if not presorted:
            position = validation.unused_name(list(frame.columns), "__rankframe_position__")
            meta = frame._meta.assign(**{position: np.zeros(0, dtype=np.int64)})
            frame = frame.map_partitions(_with_position, position, names, meta=meta)
            if any(_composite(frame._meta[c]) for c in key):  # shuffled on a hash of the ids
                bucket = validation.unused_name([*frame.columns], "__rankframe_bucket__")
                meta = frame._meta.assign(**{bucket: np.zeros(0, dtype=np.uint64)})
                frame = frame.map_partitions(_with_bucket, bucket, key, meta=meta)
                frame = frame.shuffle(on=bucket).drop(columns=bucket)
            else:
                frame = frame.shuffle(on=key[0] if len(key) == 1 else key)
        return frame, checked, position, index

    def run(self, request: Request) -> Any:
        frame, checked, position, _ = self._partitioned(request.by, request.names)
        parts = Parts(request, PandasBackend)
        part_meta = _meta(frame, request.part_keys(), request.part_columns(), request.names)
        # the partitions run without waiting for the null check (so that each input
        # partition is released once read); the finish step, on one partition, waits for it
        tables = frame.map_partitions(
            _map_part, parts, position, part_meta, meta=part_meta
        ).repartition(npartitions=1)
        table_meta = _meta(frame, request.keys, request.value_columns(), request.names)
        if request.kind == "scalar":
            _, metric = request.shape()
            table = tables.map_partitions(
                _finish, parts, checked, state=warning_state(), convert=False, meta=table_meta
            )
            return table.reduction(
                _identity,
                aggregate=_scalar,
                split_every=False,
                meta=float,
                aggregate_kwargs={"metric": metric},
            )
        meta = pandas_result(table_meta, request)
        return tables.map_partitions(_finish, parts, checked, state=warning_state(), meta=meta)

    def side(self, request: Request) -> Side:
        """This frame's side of ``compare(reference=...)``: its partitions' per-query tables,
        computed with the whole frame's null check (as :meth:`run`), read back as one."""
        frame, checked, position, _ = self._partitioned(request.by, request.names)
        parts = Parts(request, PandasBackend)
        part_meta = _meta(frame, request.part_keys(), request.part_columns(), request.names)
        tables = frame.map_partitions(_map_part, parts, position, part_meta, meta=part_meta)
        computed, _ = dask.compute(tables, checked)  # type: ignore[attr-defined,no-untyped-call]
        backend = PandasBackend(computed.reset_index(drop=True))
        return side(backend, from_parts(backend, request), request)

    def rank(self, names: ColumnNames, columns: list[str], ties: Ties) -> Any:
        frame, checked, position, index = self._partitioned(None, names)
        meta = frame._meta.drop(columns=[position] if position else [])
        meta = meta.assign(**{c: pd.array([], dtype="Int64") for c in columns})
        if index is not None:
            meta = meta.set_index(index)
        # each partition waits for the null check: without a shuffle, the input
        # partitions stay in memory until then
        return frame.map_partitions(
            _rank_part, names, columns, ties, position, index, checked, meta=meta
        )
