"""The ``rank_eval`` namespace of polars DataFrames and LazyFrames.

A LazyFrame stays lazy: every method returns a LazyFrame whose plan runs the engine when the
user collects it (``LazyFrame.map_batches``). The engine receives all rows of its step at
once, so every method but ``rank()`` counts the plan's rows when collected (free for a
parquet scan or an in-memory frame) and splits larger inputs into parts of at most
``rankframe.get_option("rows_per_part")`` rows, by a hash of the query id: each part gives its
per-query table, and the one finish step (:mod:`rankframe.pipeline.parts`) makes the result
from all of them, so one part's rows are held at a time. ``rank()`` runs in one step.

Column names, metric names and options are checked at once; checks of the data run at
collection time and raise the eager namespace's errors, with nulls counted and located, and
queries without relevant items counted and named, over the whole frame. See docs/scaling.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import polars as pl

from rankframe import engine as _engine
from rankframe._compat import map_batches
from rankframe.engine import CodeArray, FrameData, ItemColumn, composite_codes
from rankframe.engine.encoding import (
    DistinctStrings,
    as_tuple,
    composite_nulls,
    composite_ranks,
    dense_ranks,
    dictionary_codes,
    hash_series,
    labelled_codes,
    polars_floats,
    polars_integers,
    polars_numpy,
    table_codes,
)
from rankframe.exceptions import InvalidDataError
from rankframe.pipeline import validation
from rankframe.pipeline.contract import FrameAdapter
from rankframe.pipeline.parts import Parts
from rankframe.pipeline.reference import Side, side
from rankframe.pipeline.steps import (
    Backend,
    ColumnNames,
    Request,
    composite_items,
    from_parts,
    key_labels,
    per_query,
    ranks,
    run,
)
from rankframe.pipeline.windows import WINDOW, window_type
from rankframe.settings.config import get_option
from rankframe.settings.options import Ties

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

IntArray = npt.NDArray[np.int64]


#: Integer dtypes that Arrow cannot hold: their ids are encoded and ranked by polars.
_WIDE = (pl.Int128, pl.UInt128)

#: Fixes for id columns of a dtype that is not an id (no order, or not hashable).
_NOT_IDS = {
    "Object": "pl.Series({c!r}, [str(v) for v in df[{c!r}]])",
}
#: Fixes for composite ids (``List``, ``Array``, ``Struct``) with a null or NaN element.
_COMPOSITE_FIXES = {
    "List": "pl.col({c!r}).cast(pl.List(pl.String)).list.join('|')",
    "Array": "pl.col({c!r}).cast(pl.List(pl.String)).list.join('|')",
    "Struct": "pl.col({c!r}).struct.json_encode()",
}


def _id_column(series: pl.Series) -> pl.Series:
    """An id column in a dtype that Arrow encodes and ranks, with the same equality and
    order: categoricals as strings, Float16 as Float32 (exact)."""
    if series.dtype in (pl.Categorical, pl.Enum):
        return series.cast(pl.String)
    if series.dtype == pl.Float16:
        return series.cast(pl.Float32)
    return series


def _check_ids(frame: pl.DataFrame, roles: dict[str, str]) -> None:
    """Raise for an id column (query, item, ``by``) of a dtype that cannot be one, or of
    composite ids (``List``, ``Array``, ``Struct``) with a null or NaN element."""
    for column, role in roles.items():
        dtype = frame.schema[column]
        name = dtype.base_type().__name__
        fix = _NOT_IDS.get(name)
        if fix is not None:
            msg = (
                f"Column {column!r} ({role}) has dtype {dtype}, which cannot be an id: ids "
                "must be hashable and ordered (strings, integers, floats, dates, "
                "categoricals, tuples, ...). Convert it to strings first, e.g. "
                f"df.with_columns({fix.format(c=column)})."
            )
            raise InvalidDataError(msg)
        fix = _COMPOSITE_FIXES.get(name)
        if fix is not None and composite_nulls(frame[column]):
            msg = (
                f"Column {column!r} ({role}, dtype {dtype}) holds composite ids (tuples, "
                "lists or structs) with a null or NaN element; ids must be hashable and "
                "ordered, and a null has no order among values. Fill the nulls first, or "
                f"convert the ids to strings, e.g. df.with_columns({fix.format(c=column)})."
            )
            raise InvalidDataError(msg)


def _arrow(series: pl.Series) -> pa.ChunkedArray:
    """The column as Arrow, chunk by chunk as polars holds it (no copy): strings as string
    views, polars' own layout. ``Series.to_arrow`` would join the chunks of a frame read
    from parquet into one array, a copy of the column (0.14 GiB and 0.25 s for 10M ids)."""
    series = _id_column(series)
    level = pl.CompatLevel.newest() if series.dtype == pl.String else pl.CompatLevel.oldest()
    return series.to_frame().to_arrow(compat_level=level).column(0)


def _by_polars(dtype: Any) -> bool:
    """Whether ids of this dtype are encoded and ranked by polars: the integers Arrow lacks
    (:data:`_WIDE`) and composite ids (``List``, ``Array``, ``Struct``: as tuples)."""
    return dtype in _WIDE or bool(dtype.is_nested())


def _polars_codes(series: pl.Series) -> tuple[IntArray, pl.Series]:
    """:func:`_encode` by polars, for the dtypes of :func:`_by_polars`: codes in sorted
    order, and the sorted distinct values (composite ids in the order of Python's tuples,
    :func:`~rankframe.engine.encoding.composite_ranks`)."""
    return composite_ranks(series)


def _integer_codes(series: pl.Series) -> tuple[IntArray, pl.Series] | None:
    """Integer ids without nulls over a small range (codes, such as ``rankframe trec``'s)
    by a table in NumPy (:func:`~rankframe.engine.encoding.table_codes`): the codes and
    distinct values of :func:`_encode`, sorted, without Arrow; else None."""
    if not series.dtype.is_integer() or series.dtype in _WIDE or series.null_count():
        return None
    coded = table_codes(polars_numpy(series))
    if coded is None:
        return None
    codes, distinct = coded
    return codes, pl.Series(series.name, distinct, dtype=series.dtype)


def _encode(series: pl.Series, *, sort: bool) -> tuple[IntArray, pa.Array | pl.Series]:
    """Per row an integer code, and the distinct values (sorted with ``sort=True``)."""
    if _by_polars(series.dtype):
        return _polars_codes(series)
    coded = _integer_codes(series) if sort else None
    if coded is not None:
        return coded
    return dictionary_codes(_arrow(series), sort=sort)


def _query_codes(series: pl.Series) -> tuple[CodeArray, pa.Array | DistinctStrings | pl.Series]:
    """:func:`_encode` of the query column: int32 codes (half the memory), in two threads
    on large frames."""
    if _by_polars(series.dtype):
        codes, values = _polars_codes(series)
        return codes.astype(np.int32) if len(values) < 2**31 else codes, values
    coded = _integer_codes(series)
    if coded is not None:
        codes, distinct = coded
        return codes.astype(np.int32) if len(distinct) < 2**31 else codes, distinct
    return labelled_codes(_arrow(series), threads=True)


def _take(values: pa.Array | DistinctStrings | pl.Series, codes: IntArray) -> list[object]:
    """The values at positions ``codes``, as Python values."""
    import pyarrow as pa

    if isinstance(values, pl.Series):
        return [as_tuple(v) for v in values.gather(codes).to_list()]
    return list(values.take(pa.array(codes)).to_pylist())


def _as_float(series: pl.Series) -> npt.NDArray[np.float64]:
    return polars_floats(series)


def _scores(series: pl.Series) -> npt.NDArray[np.float64]:
    """A score column as float64 (NaN for nulls) that orders exactly as the scores do:
    integers beyond 2**53 and decimals of more than 15 digits become their dense ranks
    (see :func:`~rankframe.engine.scores_in_order`)."""
    dtype = series.dtype
    if dtype.is_integer():
        low, high = series.min(), series.max()
        limit = _engine.EXACT_INTEGER
        lossy = low is not None and (low < -limit or high > limit)  # type: ignore[operator]
    else:
        digits = getattr(dtype, "precision", None) or 38
        lossy = dtype.is_decimal() and digits > _engine.EXACT_DIGITS
    return _as_float(series.rank("dense") if lossy else series)


def _grades(series: pl.Series) -> npt.NDArray[Any]:
    """The grades as NumPy numbers: integers and floats without a float64 copy (a view of
    polars' buffer where it can; integers of several chunks in the narrowest integer type
    that holds them, :func:`~rankframe.engine.encoding.polars_integers`), booleans as bool."""
    if series.dtype in _WIDE:  # NumPy has no 128-bit integers
        return _as_float(series)
    if series.dtype.is_integer():  # several chunks: joined into the narrowest integers
        return polars_integers(series)
    if series.dtype.is_integer() or series.dtype.is_float() or series.dtype == pl.Boolean:
        return polars_numpy(series)
    return _as_float(series)


class PolarsItems:
    """The item column of a polars frame, as the engine reads it (an
    :class:`~rankframe.engine.ItemSource`): ranks, hashes and ids by row position."""

    def __init__(self, items: pl.Series) -> None:
        self.items = items
        self.distinct: pa.Array | None = None  # the sorted distinct strings of encode()

    def dense_ranks(self, rows: IntArray) -> IntArray:
        chosen = self.items.gather(rows)
        if _by_polars(chosen.dtype):
            return _polars_codes(chosen)[0]
        coded = _integer_codes(chosen)
        if coded is not None:
            return coded[0]
        return dense_ranks(chosen.to_arrow())

    def hash(self) -> npt.NDArray[np.uint64]:
        return hash_series(self.items)

    def value(self, row: int) -> object:
        return as_tuple(self.items[row])

    def values(self, rows: IntArray) -> list[object]:
        return self.items.gather(rows).to_list()

    def first_of_each(self) -> IntArray:
        return np.flatnonzero(self.items.is_first_distinct().to_numpy())

    def encode(self) -> tuple[CodeArray, int]:
        import pyarrow as pa

        codes, values = _encode(self.items, sort=True)
        if self.items.dtype == pl.String and isinstance(values, pa.Array):
            self.distinct = values
        return codes, len(values)

    def hashed_ranks(self, rows: IntArray) -> IntArray:
        if self.items.dtype == pl.String:  # Arrow's hash table, then its sorted dictionary
            return dictionary_codes(_arrow(self.items.gather(rows)), sort=True)[0]
        return self.dense_ranks(rows)

    def code_labels(self, codes: IntArray) -> list[object] | None:
        # strings only: Arrow gives the same Python str as the column's to_list()
        return None if self.distinct is None else _take(self.distinct, codes)


class _QueryLabels:
    """The query ids of codes, for messages: ``values`` are the distinct ids in code order,
    or each query's first row for a composite key (read through the backend)."""

    def __init__(self, backend: Backend, key: Sequence[str], values: Any) -> None:
        self.backend = backend
        self.key = key
        self.values = values
        self.count = len(values)

    def labels(self, codes: IntArray) -> list[object]:
        if len(self.key) > 1:  # values: each query's first row
            return key_labels(self.backend, self.key, np.asarray(self.values)[codes])
        return _take(cast("pa.Array | DistinctStrings | pl.Series", self.values), codes)


class PolarsBackend:
    """One eager polars frame, as the engine sees it."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame = frame

    def _validate(self, names: ColumnNames) -> None:
        facts = validation.polars_facts(self.frame, names)
        validation.raise_for(facts, names, flavour="polars")

    def extract(self, names: ColumnNames, by: Sequence[str]) -> FrameData:
        _check_ids(
            self.frame,
            {
                **dict.fromkeys(names.query_key, "query"),
                **dict.fromkeys(names.item_key, "item"),
                **dict.fromkeys(by, "by"),
            },
        )
        self._validate(names)
        df = self.frame
        query_codes: CodeArray
        query_values: pa.Array | DistinctStrings | pl.Series | IntArray
        if len(names.query_key) > 1:  # a composite key: the tuples of its columns
            query_codes, query_values = composite_codes([self.codes(c) for c in names.query_key])
        else:
            query_codes, query_values = _query_codes(df[names.query])
        queries = _QueryLabels(self, names.query_key, query_values)
        systems = [(s, _scores(df[s])) for s in names.scores]
        grades = df[names.relevant]
        data = FrameData(
            query_codes=query_codes,
            n_queries=queries.count,
            score=systems[0][1],
            relevant=_as_float(grades) if grades.null_count() else _grades(grades),
            item=composite_items(self, names.item_key)
            or ItemColumn.of(PolarsItems(_id_column(df[names.item]))),
            query_labels=queries.labels,
            segments=[(b, _encode(df[b], sort=True)[0]) for b in by],
            systems=systems if names.systems is not None else [],
            flavour="polars",
        )
        judged = None if names.judged is None else polars_numpy(df[names.judged])
        return _engine.with_judged(
            data,
            judged,
            null_grades=names.null_grades,
            columns=(names.item, names.relevant, str(names.judged)),
        )

    def table(
        self, keys: Sequence[str], rows: IntArray | None, values: dict[str, Any]
    ) -> pl.DataFrame:
        columns = [pl.Series(name, v) for name, v in values.items()]
        if not keys or rows is None:
            return pl.DataFrame(columns)
        out = self.frame.select(keys)[rows].with_columns(columns)
        return out.select(WINDOW, pl.exclude(WINDOW)) if WINDOW in values else out

    def column(self, name: str) -> npt.NDArray[Any]:
        return polars_numpy(self.frame[name])

    def codes(self, name: str) -> IntArray:
        return _encode(self.frame[name], sort=True)[0]

    def labels(self, name: str, rows: IntArray) -> list[object]:
        return [as_tuple(v) for v in self.frame[name].gather(rows).to_list()]

    def arrow(self, name: str) -> Any:
        return self.frame[name].to_arrow()

    def with_ranks(self, ranks: dict[str, IntArray]) -> pl.DataFrame:
        import pyarrow as pa

        return self.frame.with_columns(
            pl.Series(name, pa.array(rank, mask=rank == 0)) for name, rank in ranks.items()
        )


_TYPES: dict[str, Any] = {
    "float": pl.Float64,
    "int": pl.Int64,
    "int?": pl.Int64,
    "str": pl.String,
    "bool": pl.Boolean,
    "float?": pl.Float64,
}


def _shape(result: pl.DataFrame, request: Request) -> pl.DataFrame:
    """The finish step's frame as the polars result: the metric alone for one value, the
    index columns and the metric for a value per segment, the frame itself for tables."""
    index, metric = request.shape()
    if request.kind == "scalar":
        return result.select(metric)
    if request.kind == "segments":
        return result.select([*index, metric])
    return result


class PolarsAdapter(FrameAdapter):
    """A polars DataFrame."""

    def backend(self, frame: Any) -> Backend:
        return PolarsBackend(frame)

    def convert(self, table: pl.DataFrame, request: Request) -> Any:
        result = _shape(table, request)
        return float(result.item(0, 0)) if request.kind == "scalar" else result

    def concat(self, tables: Sequence[Any]) -> Any:
        return concat_polars(tables)

    def polars_columns(self, columns: Sequence[str]) -> pl.DataFrame:
        frame: pl.DataFrame = self.frame
        return frame.select(list(dict.fromkeys(columns)))


def concat_polars(tables: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Result tables one under the other (one table: itself)."""
    return pl.concat(tables, how="vertical_relaxed") if len(tables) > 1 else tables[0]


# -- LazyFrames: the engine inside the plan ------------------------------------------------


def _part_count(frame: pl.LazyFrame) -> int:
    """How many parts the plan of ``frame`` runs in: the ``query_buckets`` option when set,
    else from the row count and the ``rows_per_part`` option (the count is read from the
    metadata of a parquet scan; one pass of the plan for a plan whose count polars cannot
    take from metadata)."""
    buckets = get_option("query_buckets")
    if buckets is not None:
        return max(1, int(buckets))
    rows = int(frame.select(pl.len()).collect().item())
    return max(1, -(-rows // max(1, int(get_option("rows_per_part")))))


def _at_collection(plan: Callable[[], pl.LazyFrame], schema: dict[str, Any]) -> pl.LazyFrame:
    """A LazyFrame that builds ``plan()`` when it is collected, and collects it (with polars'
    default engine)."""

    def run(_: pl.DataFrame) -> pl.DataFrame:
        return plan().collect()

    return map_batches(pl.LazyFrame({"_": [0]}), run, schema)


def _conform(result: pl.DataFrame, schema: dict[str, Any]) -> pl.DataFrame:
    """An empty result with the declared dtypes (an empty label column has no dtype)."""
    return pl.DataFrame(schema=schema) if result.height == 0 else result


def _buckets(frame: pl.LazyFrame, query: Sequence[str], n: int) -> list[pl.LazyFrame]:
    """The frame's rows in ``n`` parts of whole queries, by a hash of the query id (of
    the tuple of a composite key's columns; every row of a query, null included, in one
    part; rows in the frame's order)."""
    key = pl.col(query[0]) if len(query) == 1 else pl.struct(query)
    bucket = key.hash(seed=0) % n
    return [frame.filter(bucket == i) for i in range(n)]


class LazyPolarsAdapter(FrameAdapter):
    """A LazyFrame: every method gives a LazyFrame whose plan runs the engine when
    collected, in parts of whole queries when the input is large (see the module)."""

    def backend(self, frame: Any) -> Backend:
        return PolarsBackend(frame)

    def columns(self) -> list[str]:
        return list(self.frame.collect_schema().names())

    def eager(self, result: Any) -> Any:
        return result.collect()

    def concat(self, tables: Sequence[Any]) -> Any:
        return concat_polars(tables)

    def polars_columns(self, columns: Sequence[str]) -> pl.DataFrame:
        frame: pl.LazyFrame = self.frame
        return frame.select(list(dict.fromkeys(columns))).collect()

    def one_pass(self, request: Request) -> Backend | None:  # noqa: ARG002
        return None

    def _input(self, names: ColumnNames, keys: Sequence[str]) -> pl.LazyFrame:
        # nothing is pushed into the engine's step (rankframe._compat.map_batches): select
        # the columns the engine reads, so a scan reads only those
        frame: pl.LazyFrame = self.frame
        return frame.select(list(dict.fromkeys([*names.roles(), *keys])))

    def _schema(
        self, keys: Sequence[str], value_columns: Sequence[tuple[str, str]], names: ColumnNames
    ) -> dict[str, Any]:
        input_schema = self.frame.collect_schema()
        out = {
            **{k: input_schema[k] for k in keys},
            **{name: self._dtype(t, input_schema, names) for name, t in value_columns},
        }
        return {WINDOW: out.pop(WINDOW), **out} if WINDOW in out else out

    @staticmethod
    def _dtype(kind: str, input_schema: Any, names: ColumnNames) -> Any:
        """The polars dtype of an output column of type ``kind``: the time column's own
        (``"time"``, integers as Int64) or its window's (``"window"``)."""
        import pyarrow as pa

        if kind not in ("time", "window") or names.time is None:
            return _TYPES[kind]
        dtype = input_schema[names.time]
        if kind == "time":
            return pl.Int64 if dtype.is_integer() else dtype
        arrow = pl.Series([], dtype=dtype).to_arrow().type
        return pl.Series(pa.array([], window_type(arrow, names.time_unit))).dtype

    def run(self, request: Request) -> pl.LazyFrame:
        names = request.names
        table = self._schema(request.keys, request.value_columns(), names)
        index, metric = request.shape()
        schema = (
            table
            if request.kind == "table"
            else {**{c: table[c] for c in index}, metric: pl.Float64}
        )
        frame = self._input(request.names, request.by)

        def whole(data: pl.DataFrame) -> pl.DataFrame:
            # the whole frame in one step: the eager accessor's result, bit for bit
            return _conform(_shape(run(self.backend(data), request), request), schema)

        def plan() -> pl.LazyFrame:
            n = _part_count(frame)
            if n == 1:
                return map_batches(frame, whole, schema)
            parts = Parts(request, self.backend, PolarsBackend)

            def finish(tables: pl.DataFrame) -> pl.DataFrame:
                return _conform(_shape(parts.finish(tables), request), schema)

            return map_batches(self._part_tables(request, frame, n), finish, schema)

        return _at_collection(plan, schema)

    def _part_tables(self, request: Request, frame: pl.LazyFrame, n: int) -> pl.LazyFrame:
        """The per-query tables of ``n`` parts of whole queries, concatenated."""
        part_schema = self._schema(request.part_keys(), request.part_columns(), request.names)
        parts = Parts(request, self.backend, PolarsBackend)

        def run_part(part: pl.DataFrame) -> pl.DataFrame:
            if not validation.polars_facts(part, request.names).clean:
                # the error counts and locates over the whole frame: its facts, from
                # one streaming aggregation of the plan
                whole = validation.lazy_polars_facts(frame, request.names)
                validation.raise_for(whole, request.names, flavour="polars")
            return _conform(parts.map(part), part_schema)

        # one part's rows are held at a time: each part is one opaque step that gets all
        # of its rows at once, and the parts run one after the other
        tables = [
            map_batches(part, run_part, part_schema)
            for part in _buckets(frame, request.names.query_key, n)
        ]
        return pl.concat(tables, parallel=False)

    def side(self, request: Request) -> Side:
        """This LazyFrame's side of ``compare(reference=...)``: its plan collected, in parts
        of whole queries when it is large (as :meth:`run`)."""
        frame = self._input(request.names, request.by)
        n = _part_count(frame)
        if n == 1:
            backend = PolarsBackend(frame.collect())
            return side(backend, per_query(backend, request), request)
        tables = PolarsBackend(self._part_tables(request, frame, n).collect())
        return side(tables, from_parts(tables, request), request)

    def rank(self, names: ColumnNames, columns: list[str], ties: Ties) -> pl.LazyFrame:
        schema = {**self.frame.collect_schema(), **dict.fromkeys(columns, pl.Int64)}

        def run(data: pl.DataFrame) -> pl.DataFrame:
            backend = self.backend(data)
            ranked: pl.DataFrame = backend.with_ranks(ranks(backend, names, columns, ties))
            return ranked

        frame: pl.LazyFrame = self.frame
        return map_batches(frame, run, schema)
