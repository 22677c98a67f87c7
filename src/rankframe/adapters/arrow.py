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
import pyarrow as pa
import pyarrow.compute as pc

from rankframe import _pipeline
from rankframe._accessor import RankEval, ranks
from rankframe._compat import STR
from rankframe._options import Ties
from rankframe._pipeline import Backend, Request
from rankframe.adapters.pandas import PandasBackend, pandas_result
from rankframe.exceptions import RankEvalError

__all__ = ["ArrowRankEval", "ArrowSource", "arrow_frame", "rank_eval"]


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


class ArrowRankEval(RankEval):
    __doc__ = RankEval.__doc__

    def __init__(self, frame: Any, names: _pipeline.ColumnNames | None = None) -> None:
        source = frame if isinstance(frame, ArrowSource) else ArrowSource(frame)
        super().__init__(source, names)

    def _backend(self, frame: Any) -> Backend:
        return PandasBackend(frame)

    def _column_names(self) -> list[str]:
        return self._frame.names()  # type: ignore[no-any-return]

    def _run(self, request: Request) -> Any:
        columns = [*request.names.roles(), *request.by]
        frame = self._frame.frame(columns)
        return pandas_result(_pipeline.run(PandasBackend(frame), request), request)

    def _side(self, request: Request) -> Any:
        from rankframe._reference import side

        backend = PandasBackend(self._frame.frame([*request.names.roles(), *request.by]))
        return side(backend, _pipeline.per_query(backend, request), request)

    def _rank(self, columns: list[str], ties: Ties) -> Any:
        backend = PandasBackend(self._frame.frame(None))
        return backend.with_ranks(ranks(backend, self._names, columns, ties))


def rank_eval(obj: Any) -> RankEval:
    """The ``rank_eval`` accessor of any frame.

    A pandas, polars (DataFrame or LazyFrame) or Dask frame gives its own accessor
    (``obj.rank_eval``, results of its kind); an Arrow frame (a pyarrow Table, a DuckDB
    relation, an Ibis table, any object with ``__arrow_c_stream__``) gives one that reads
    only the columns each method binds and returns pandas results.

    Examples
    --------
    Query a ranks the relevant item ``y`` second (reciprocal rank 1/2), query b ranks its
    relevant item ``x`` first (1): the mean is 0.75.

    >>> import pyarrow as pa, rankframe
    >>> table = pa.table({"query": ["a", "a", "b", "b"], "item": ["x", "y", "x", "y"],
    ...                   "score": [0.9, 0.1, 0.9, 0.1], "relevant": [0, 1, 1, 0],
    ...                   "notes": ["never", "read", "by", "mrr"]})
    >>> rankframe.rank_eval(table).mrr()
    0.75
    >>> rankframe.rank_eval(table).per_query("mrr")
      query  mrr
    0     a  0.5
    1     b  1.0
    """
    accessor = None if isinstance(obj, type) else getattr(obj, "rank_eval", None)
    if isinstance(accessor, RankEval):
        return accessor
    return ArrowRankEval(obj)
