"""``rankframe.rank_eval(obj)``: the accessor of any Arrow frame, with pandas results.

An Arrow frame is a pyarrow ``Table`` or ``RecordBatch``, a DuckDB relation, an Ibis table,
or any object exposing the Arrow PyCapsule stream (``__arrow_c_stream__``: a polars or
pandas frame, a ``RecordBatchReader``, a Delta or Lance dataset, ...). Each method reads only
the columns it binds (query, item, score(s), relevant, judged, and ``by``) as an Arrow table,
hands them to the pandas adapter as Arrow-backed columns (no copy of the values), and returns
what the pandas accessor returns: the same values, bit for bit, and the same errors.
``rank()`` reads every column and returns a pandas frame.

DuckDB relations and Ibis tables are asked for those columns only (a projection the engine
pushes into its scan); any other stream is read batch by batch, keeping the bound columns of
each batch. A one-shot stream (a ``RecordBatchReader``) can be read once (a second call
raises): read it into a ``pyarrow.Table`` to evaluate it several times.

Values as the pandas accessor reads them: pandas has one missing value, so a float NaN in a
bound column is a null here too (a NaN score is "not retrieved"; a NaN grade or id gets the
null error). Dictionary columns become pandas categoricals, whose categories keep the
dictionary's order; strings become pandas' ``str``; every other column keeps its Arrow type
(``pd.ArrowDtype``), so integers with nulls, decimals and timestamps stay exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from rankframe._compat import STR
from rankframe.adapters.pandas import (
    PandasBackend,
    concat_pandas,
    pandas_result,
    polars_of_pandas,
)
from rankframe.exceptions import RankEvalError
from rankframe.pipeline import steps
from rankframe.pipeline.contract import FrameAdapter
from rankframe.pipeline.reference import Side, side
from rankframe.pipeline.steps import Backend, ColumnNames, Request, ranks
from rankframe.settings.options import Ties

__all__ = ["ArrowAdapter", "ArrowSource", "arrow_frame", "is_arrow"]


def _quoted(name: str) -> str:
    """A column name as a SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _is_duckdb(obj: object) -> bool:
    return type(obj).__name__ == "DuckDBPyRelation"


def _is_ibis(obj: object) -> bool:
    return type(obj).__module__.startswith("ibis.") and hasattr(obj, "to_pyarrow")


def is_arrow(obj: object) -> bool:
    """Whether ``rank_eval`` can read ``obj`` as an Arrow frame."""
    return (
        isinstance(obj, pa.Table | pa.RecordBatch)
        or _is_duckdb(obj)
        or _is_ibis(obj)
        or hasattr(obj, "__arrow_c_stream__")
    )


class ArrowSource:
    """An Arrow frame that columns are read from, as an Arrow table, when a method runs."""

    def __init__(self, obj: Any) -> None:
        if not is_arrow(obj):
            msg = (
                "rankframe.rank_eval() takes a pandas, polars or Dask frame, or an Arrow "
                "frame: a pyarrow Table, a DuckDB relation, an Ibis table or any object with "
                f"__arrow_c_stream__. Got {type(obj).__module__}.{type(obj).__qualname__}."
            )
            raise TypeError(msg)
        self.obj = obj
        self._names: list[str] | None = None
        self._reader: pa.RecordBatchReader | None = None  # opened to read the schema
        self._read = False  # a stream was read (a RecordBatchReader cannot be read again)

    def names(self) -> list[str]:
        """The frame's column names, in order (without reading its rows)."""
        if self._names is None:
            self._names = self._read_names()
        return self._names

    def _read_names(self) -> list[str]:
        obj = self.obj
        if isinstance(obj, pa.Table | pa.RecordBatch):
            return list(obj.schema.names)
        if _is_duckdb(obj) or _is_ibis(obj):
            return [str(c) for c in obj.columns]
        if hasattr(obj, "__arrow_c_schema__"):
            return list(pa.schema(obj).names)
        # only a stream: open it for its schema, and keep it for the first read
        self._reader = pa.RecordBatchReader.from_stream(obj)
        return list(self._reader.schema.names)

    def table(self, columns: Sequence[str] | None) -> pa.Table:
        """The ``columns`` (every column for ``None``) as a pyarrow Table. A name the frame
        holds several times gives each of its columns (the pandas adapter's error says so)."""
        obj = self.obj
        names = self.names()
        wanted = names if columns is None else list(dict.fromkeys(columns))
        positions = [i for i, n in enumerate(names) if n in set(wanted)]
        if isinstance(obj, pa.Table | pa.RecordBatch):
            table = obj.select(positions)
            return pa.Table.from_batches([table]) if isinstance(table, pa.RecordBatch) else table
        if _is_duckdb(obj):
            return obj.project(", ".join(_quoted(c) for c in wanted)).to_arrow_table()
        if _is_ibis(obj):
            return obj.select(*wanted).to_pyarrow()
        reader, self._reader = self._reader, None
        if reader is None:
            if self._read and isinstance(obj, pa.RecordBatchReader):
                msg = (
                    "This RecordBatchReader was read by an earlier call: a stream can be read "
                    "once. Read it into a table first, e.g. rankframe.rank_eval(reader.read_all())."
                )
                raise RankEvalError(msg)
            reader = pa.RecordBatchReader.from_stream(obj)
        self._read = True
        schema = pa.schema([reader.schema.field(i) for i in positions])
        return pa.Table.from_batches([b.select(positions) for b in reader], schema=schema)

    def frame(self, columns: Sequence[str] | None) -> pd.DataFrame:
        """The ``columns`` as a pandas frame of Arrow-backed columns (see the module)."""
        return arrow_frame(self.table(columns))


def arrow_frame(table: pa.Table) -> pd.DataFrame:
    """An Arrow table as the pandas adapter reads it: Arrow-backed columns, dictionaries as
    categoricals, a float NaN as a null (see the module)."""
    arrays = [_nan_as_null(c) for c in table.columns]
    table = pa.Table.from_arrays(arrays, names=table.column_names)
    frame: pd.DataFrame = table.to_pandas(types_mapper=_pandas_dtype)
    return frame


def _nan_as_null(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A float column's NaNs as nulls (pandas' one missing value); others as they are."""
    if not pa.types.is_floating(column.type) or column.null_count == len(column):
        return column
    nan = pc.is_nan(column)
    if not pc.any(nan).as_py():
        return column
    return pc.if_else(nan, pa.scalar(None, column.type), column)


_STR = STR  # pandas 3's default ``str`` (pandas 2.2: "pyarrow_numpy")


def _pandas_dtype(arrow_type: pa.DataType) -> Any:
    """The pandas dtype of an Arrow column: ``None`` (pandas' categorical) for a dictionary,
    pandas' ``str`` for strings (as ``pd.read_parquet`` gives them: messages name the dtype
    as for a pandas frame), ``pd.ArrowDtype`` for the rest."""
    if pa.types.is_dictionary(arrow_type):
        return None
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return _STR
    return pd.ArrowDtype(arrow_type)


class ArrowAdapter(FrameAdapter):
    """An Arrow frame, read through :class:`ArrowSource`: each request reads only the
    columns it binds, as a pandas frame, and gives pandas results."""

    def __init__(self, obj: Any) -> None:
        super().__init__(ArrowSource(obj))

    @property
    def source(self) -> Any:
        return self.frame.obj

    def columns(self) -> list[str]:
        return self.frame.names()  # type: ignore[no-any-return]

    def backend(self, frame: Any) -> Backend:
        return PandasBackend(frame)

    def _read(self, request: Request) -> PandasBackend:
        return PandasBackend(self.frame.frame([*request.names.roles(), *request.by]))

    def run(self, request: Request) -> Any:
        return pandas_result(steps.run(self._read(request), request), request)

    def side(self, request: Request) -> Side:
        backend = self._read(request)
        return side(backend, steps.per_query(backend, request), request)

    def rank(self, names: ColumnNames, columns: list[str], ties: Ties) -> Any:
        backend = PandasBackend(self.frame.frame(None))
        return backend.with_ranks(ranks(backend, names, columns, ties))

    def one_pass(self, request: Request) -> Backend | None:
        return self._read(request)

    def concat(self, tables: Sequence[Any]) -> Any:
        return concat_pandas(tables)

    def polars_columns(self, columns: Sequence[str]) -> pl.DataFrame:
        return polars_of_pandas(self.frame.frame(list(dict.fromkeys(columns))))

    def pandas_columns(self, columns: Sequence[str]) -> pd.DataFrame:
        table: pa.Table = self.frame.table(list(columns))
        frame: pd.DataFrame = table.to_pandas()
        return frame

    @property
    def readable_again(self) -> bool:
        return not isinstance(self.frame.obj, pa.RecordBatchReader)
