"""The ``rank_eval`` namespace of polars DataFrames and LazyFrames.

A LazyFrame stays lazy: every method returns a LazyFrame whose plan runs the engine when the
user collects it (``LazyFrame.map_batches``). The engine receives all rows of its step at
once, so the metrics, ``evaluate`` and ``per_query`` count the plan's rows when collected (free
for a parquet scan or an in-memory frame) and split larger inputs into parts of at most
:data:`ROWS_PER_PART` rows, by a hash of the query id: the engine runs on each part, and the
small results are combined (means weighted by ``n_queries``, per-query rows sorted by query),
so one part's rows are held at a time. ``rank()`` and what needs every query's values at once
(intervals, tidy tables, tests) run in one step.

Column names, metric names and options are checked at once; checks of the data run at
collection time and raise the eager namespace's errors, with nulls counted and located, and
queries without relevant items counted and named, over the whole frame. See docs/scaling.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa

from rankframe import _engine, schemas
from rankframe._api import SYSTEM, Backend, ColumnNames, Combine, Kind, RankEval, Whole, shape_of
from rankframe._encoding import dense_ranks, dictionary_codes, hash_series
from rankframe._engine import CodeArray, FrameData
from rankframe._options import Options
from rankframe.exceptions import EmptyQueryError, InvalidDataError

IntArray = npt.NDArray[np.int64]


#: Integer dtypes that Arrow cannot hold: their ids are encoded and ranked by polars.
_WIDE = (pl.Int128, pl.UInt128)

#: Fixes for id columns of a dtype that is not an id (no order, or not hashable).
_NOT_IDS = {
    "List": "pl.col({c!r}).cast(pl.List(pl.String)).list.join('|')",
    "Array": "pl.col({c!r}).cast(pl.List(pl.String)).list.join('|')",
    "Struct": "pl.col({c!r}).struct.json_encode()",
    "Object": "pl.Series({c!r}, [str(v) for v in df[{c!r}]])",
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
    """Raise for an id column (query, item, ``by``) of a dtype that cannot be one."""
    for column, role in roles.items():
        dtype = frame.schema[column]
        fix = _NOT_IDS.get(dtype.base_type().__name__)
        if fix is None:
            continue
        msg = (
            f"Column {column!r} ({role}) has dtype {dtype}, which cannot be an id: ids must "
            "be hashable and ordered (strings, integers, floats, dates, categoricals, ...). "
            f"Convert it to strings first, e.g. df.with_columns({fix.format(c=column)})."
        )
        raise InvalidDataError(msg)


def _arrow(series: pl.Series) -> pa.Array:
    """The column as Arrow: strings as string views, polars' own layout (no copy)."""
    series = _id_column(series)
    if series.dtype == pl.String:
        return series.to_arrow(compat_level=pl.CompatLevel.newest())
    return series.to_arrow()


def _polars_codes(series: pl.Series) -> tuple[IntArray, pl.Series]:
    """:func:`_encode` by polars, for the dtypes Arrow lacks (:data:`_WIDE`): codes in
    sorted order, and the sorted distinct values."""
    codes = (series.rank("dense") - 1).cast(pl.Int64).to_numpy()
    return codes, series.unique().sort()


def _encode(series: pl.Series, *, sort: bool) -> tuple[IntArray, pa.Array | pl.Series]:
    """Per row an integer code, and the distinct values (sorted with ``sort=True``)."""
    if series.dtype in _WIDE:
        return _polars_codes(series)
    return dictionary_codes(_arrow(series), sort=sort)


def _query_codes(series: pl.Series) -> tuple[CodeArray, pa.Array | pl.Series]:
    """:func:`_encode` of the query column: int32 codes (half the memory), in two threads
    on large frames."""
    if series.dtype in _WIDE:
        codes, values = _polars_codes(series)
        return codes.astype(np.int32) if len(values) < 2**31 else codes, values
    return dictionary_codes(_arrow(series), sort=True, compact=True, threads=True)


def _take(values: pa.Array | pl.Series, codes: IntArray) -> list[object]:
    """The values at positions ``codes``, as Python values."""
    if isinstance(values, pl.Series):
        return values.gather(codes).to_list()
    return list(values.take(pa.array(codes)).to_pylist())


def _as_float(series: pl.Series) -> npt.NDArray[np.float64]:
    return series.cast(pl.Float64).to_numpy()


def _scores(series: pl.Series) -> npt.NDArray[np.float64]:
    """A score column as float64 (NaN for nulls) that orders exactly as the scores do:
    integers beyond 2**53 and decimals of more than 15 digits become their dense ranks
    (see :func:`~rankframe._engine.scores_in_order`)."""
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
    polars' buffer where it can), booleans as bool."""
    if series.dtype in _WIDE:  # NumPy has no 128-bit integers
        return _as_float(series)
    if series.dtype.is_integer() or series.dtype.is_float() or series.dtype == pl.Boolean:
        return series.to_numpy()
    return _as_float(series)


class PolarsBackend:
    """One eager polars frame, as the engine sees it."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame = frame

    def _validate(self, names: ColumnNames) -> None:
        from pandera.errors import SchemaError

        schema = schemas.polars_schema(
            names.query, names.item, names.scores, names.relevant, check_unique=False
        )
        try:
            schemas.validate(schema, self.frame)
        except SchemaError as error:
            raise schemas.translate(
                error,
                roles=names.roles(),
                dtype_of=lambda c: self.frame.schema[c],
                null_report=lambda c: self._null_report(c, names.query),
            ) from None

    def _null_report(self, column: str, query: str) -> tuple[int, int, object]:
        values = self.frame[column]
        missing = values.is_null()
        if values.dtype.is_float():  # pandera counts NaN as null too
            missing |= values.is_nan()
        nulls = missing.to_numpy()
        first = int(np.flatnonzero(nulls)[0])
        query_value = None if column == query else self.frame[query][first]
        return int(nulls.sum()), first, query_value

    def extract(self, names: ColumnNames, by: Sequence[str]) -> FrameData:
        _check_ids(self.frame, {names.query: "query", names.item: "item",
                                **dict.fromkeys(by, "by")})
        self._validate(names)
        df = self.frame
        query_codes, query_values = _query_codes(df[names.query])
        items = _id_column(df[names.item])

        def item_ranks(rows: IntArray) -> IntArray:
            chosen = items.gather(rows)
            if chosen.dtype in _WIDE:
                return _polars_codes(chosen)[0]
            return dense_ranks(chosen.to_arrow())

        def item_hash() -> npt.NDArray[np.uint64]:
            return hash_series(items)

        def query_labels(codes: IntArray) -> list[object]:
            return _take(query_values, codes)

        systems = [(s, _scores(df[s])) for s in names.scores]
        return FrameData(
            query_codes=query_codes,
            n_queries=len(query_values),
            score=systems[0][1],
            relevant=_grades(df[names.relevant]),
            item_ranks=item_ranks,
            item_hash=item_hash,
            query_labels=query_labels,
            item_label=lambda row: items[row],
            segments=[(b, _encode(df[b], sort=True)[0]) for b in by],
            systems=systems if names.systems is not None else [],
            flavour="polars",
        )

    def table(
        self, keys: Sequence[str], rows: IntArray | None, values: dict[str, Any]
    ) -> pl.DataFrame:
        columns = [pl.Series(name, v) for name, v in values.items()]
        if not keys or rows is None:
            return pl.DataFrame(columns)
        return self.frame.select(keys)[rows].with_columns(columns)

    def column(self, name: str) -> npt.NDArray[Any]:
        return self.frame[name].to_numpy()

    def codes(self, name: str) -> IntArray:
        return _encode(self.frame[name], sort=True)[0]

    def with_ranks(self, ranks: dict[str, IntArray]) -> pl.DataFrame:
        return self.frame.with_columns(
            pl.Series(name, pa.array(rank, mask=rank == 0)) for name, rank in ranks.items()
        )


_TYPES: dict[str, Any] = {"float": pl.Float64, "int": pl.Int64, "int?": pl.Int64,
                          "str": pl.String, "bool": pl.Boolean}


def _shape(
    result: pl.DataFrame, kind: Kind, keys: Sequence[str], value_columns: Sequence[tuple[str, str]]
) -> pl.DataFrame:
    index, metric = shape_of(kind, keys, value_columns)
    if kind == "scalar":
        return result.select(metric)
    if kind == "segments":
        return result.select([*index, metric])
    return result


class PolarsRankEval(RankEval):
    __doc__ = RankEval.__doc__

    def _backend(self, frame: Any) -> Backend:
        return PolarsBackend(frame)

    def _column_names(self) -> list[str]:
        return list(self._frame.columns)

    def _deliver(
        self,
        produce: Callable[[Backend], Any],
        kind: Kind,
        keys: Sequence[str],
        value_columns: Sequence[tuple[str, str]],
        *,
        combine: Combine = None,  # noqa: ARG002  (one frame: nothing to combine)
        whole: Whole | None = None,  # noqa: ARG002
    ) -> Any:
        result = _shape(produce(self._backend(self._frame)), kind, keys, value_columns)
        return float(result.item(0, 0)) if kind == "scalar" else result


# -- LazyFrames: the engine inside the plan ------------------------------------------------

#: The most rows one part of a LazyFrame plan holds, for metrics, ``evaluate`` without
#: ``ci``/``tidy`` and ``per_query``. When collected, the plan counts its rows and splits the
#: queries into ``ceil(rows / ROWS_PER_PART)`` parts (by a hash of the query id), one opaque
#: step each, run one after the other: each part reads the input again, and the engine holds
#: one part's rows at a time. Inputs of up to ROWS_PER_PART rows run in one step that reads
#: the input once. Read when the plan is collected. See docs/scaling.md.
ROWS_PER_PART = 12_500_000

#: A fixed number of parts instead of one from the row count (``None``: from the row count).
QUERY_BUCKETS: int | None = None


def _part_count(frame: pl.LazyFrame) -> int:
    """How many parts the plan of ``frame`` runs in: :data:`QUERY_BUCKETS` when set, else
    from the row count (read from the metadata of a parquet scan; one pass of the plan for
    a plan whose count polars cannot take from metadata)."""
    if QUERY_BUCKETS is not None:
        return max(1, QUERY_BUCKETS)
    rows = int(frame.select(pl.len()).collect().item())
    return max(1, -(-rows // max(1, ROWS_PER_PART)))


def _at_collection(plan: Callable[[], pl.LazyFrame], schema: dict[str, Any]) -> pl.LazyFrame:
    """A LazyFrame that builds ``plan()`` when it is collected, and collects it (with polars'
    default engine)."""

    def run(_: pl.DataFrame) -> pl.DataFrame:
        return plan().collect()

    return pl.LazyFrame({"_": [0]}).map_batches(run, schema=schema, streamable=False)


def _conform(result: pl.DataFrame, schema: dict[str, Any]) -> pl.DataFrame:
    """An empty result with the declared dtypes (an empty label column has no dtype)."""
    return pl.DataFrame(schema=schema) if result.height == 0 else result


def _missing(column: str, dtype: Any) -> pl.Expr:
    """Null, or NaN in a float column: what the schema reports as null."""
    expr = pl.col(column).is_null()
    return expr | pl.col(column).is_nan() if dtype.is_float() else expr


def _null_error(column: str, names: ColumnNames, report: tuple[int, int, object]) -> Exception:
    """The eager accessor's error for nulls in ``column``, with ``report`` (count, first row,
    that row's query) of the whole frame."""
    import pandera.polars as pap
    from pandera.errors import SchemaError, SchemaErrorReason

    failure = SchemaError(  # type: ignore[no-untyped-call]
        schema=pap.Column(name=column),
        data=None,
        message=f"column {column!r} contains null values",
        reason_code=SchemaErrorReason.SERIES_CONTAINS_NULLS,
    )
    return schemas.translate(
        failure, roles=names.roles(), dtype_of=lambda _: None, null_report=lambda _: report
    )


class _NullCheck:
    """The error for nulls of the eager accessor, counted and located over the whole frame.

    A part of the plan holds some queries' rows only. When it finds nulls in the query, item
    or relevant column, :meth:`raise_for` collects a small aggregation of the whole frame
    (its null counts, first null row and that row's query) and raises what the eager
    accessor raises for the whole frame. Frames without nulls never run it.
    """

    def __init__(self, frame: pl.LazyFrame, names: ColumnNames) -> None:
        schema = frame.collect_schema()
        self.names = names
        self.columns = [names.query, names.item, names.relevant]  # in the schema's order
        # the schema reports a non-numeric score before nulls in the relevant column
        self.numeric_scores = all(
            schema[s].is_numeric() or schema[s] == pl.Boolean for s in names.scores
        )
        self.dtypes = {c: schema[c] for c in self.columns}
        row = _unused_name(self.columns, "__rankframe_row__")
        missing = [_missing(c, self.dtypes[c]) for c in self.columns]
        self.plan = (
            frame.select(self.columns)
            .with_row_index(row)
            .select(
                *(m.sum().alias(f"count{i}") for i, m in enumerate(missing)),
                *(pl.col(row).filter(m).first().alias(f"first{i}") for i, m in enumerate(missing)),
                *(pl.col(names.query).filter(m).first().alias(f"query{i}")
                  for i, m in enumerate(missing)),
            )
        )

    def has_nulls(self, part: pl.DataFrame) -> bool:
        """Whether this part of the frame holds nulls in a column that must have none."""
        return any(
            part[c].null_count() > 0 or (self.dtypes[c].is_float() and part[c].is_nan().any())
            for c in self.columns
        )

    def raise_for(self) -> None:
        """Raise the eager accessor's error for the nulls of the whole frame (return when the
        schema reports another error first: the part's own validation raises it)."""
        report = self.plan.collect(engine="streaming").row(0)
        n = len(self.columns)
        for i, column in enumerate(self.columns):
            count = int(report[i])
            if not count:
                continue
            if column == self.names.relevant and not self.numeric_scores:
                return
            query = None if column == self.names.query else report[2 * n + i]
            raise _null_error(column, self.names, (count, int(report[n + i]), query))


def _unused_name(columns: Sequence[str], stem: str) -> str:
    name = stem
    while name in columns:
        name = f"_{name}_"
    return name


def _sorted_by_query(table: pl.DataFrame, query: str) -> pl.DataFrame:
    """Per-query tables of disjoint sets of queries as one, sorted by query like the eager
    accessor (the order of its query codes; rows of one query keep their order)."""
    if table.height == 0:
        return table
    codes, _ = _encode(table[query], sort=True)
    return table[np.argsort(codes, kind="stable")]


def _combined_means(
    table: pl.DataFrame, keys: Sequence[str], value_columns: Sequence[tuple[str, str]],
    systems: Sequence[str],
) -> pl.DataFrame:
    """Summary tables of disjoint sets of queries (``keys``, ``system``, means, ``n_queries``)
    as one: per segment and system, the means weighted by ``n_queries``, rows in the eager
    accessor's order (segments sorted as its codes, systems in the order given)."""
    labels = [n for n, t in value_columns if t == "str"]
    metrics = [n for n, t in value_columns if t == "float"]
    codes = [_encode(table[k], sort=True)[0] for k in keys]
    if labels:
        position = {s: i for i, s in enumerate(systems)}
        codes.append(np.array([position[s] for s in table[SYSTEM].to_list()], dtype=np.int64))
    if codes:
        _, first, group = np.unique(
            np.stack(codes, axis=1), axis=0, return_index=True, return_inverse=True
        )
        group = group.reshape(-1)
        n_groups = len(first)
    else:  # one segment: one row, even without any part
        first, group, n_groups = np.zeros(0, dtype=np.int64), np.zeros(table.height, np.int64), 1
    counts = table["n_queries"].to_numpy().astype(np.int64)
    total = np.bincount(group, weights=counts, minlength=n_groups).astype(np.int64)
    columns: dict[str, Any] = {}
    for name, _ in value_columns:
        if name in metrics:
            means = table[name].to_numpy().astype(np.float64)
            sums = np.bincount(
                group, weights=np.where(counts > 0, means, 0.0) * counts, minlength=n_groups
            )
            with np.errstate(invalid="ignore", divide="ignore"):
                columns[name] = np.where(total > 0, sums / np.maximum(total, 1), np.nan)
        elif name == "n_queries":
            columns[name] = total
    index = [*keys, *labels]
    values = [pl.Series(name, columns[name]) for name, _ in value_columns if name in columns]
    if not index:
        return pl.DataFrame(values)
    return table.select(index)[first].with_columns(values)


def _buckets(frame: pl.LazyFrame, query: str, n: int) -> list[pl.LazyFrame]:
    """The frame's rows in ``n`` parts of whole queries, by a hash of the query id (every
    row of a query, null included, in one part; rows in the frame's order)."""
    bucket = pl.col(query).hash(seed=0) % n
    return [frame.filter(bucket == i) for i in range(n)]


class _RecordingBackend(PolarsBackend):
    """A backend that remembers the query values the engine last asked for, for a message."""

    def __init__(self, frame: pl.DataFrame) -> None:
        super().__init__(frame)
        self.labels: list[object] = []

    def extract(self, names: ColumnNames, by: Sequence[str]) -> FrameData:
        data = super().extract(names, by)
        query_labels = data.query_labels

        def recorded(codes: IntArray) -> list[object]:
            self.labels = query_labels(codes)
            return self.labels

        return replace(data, query_labels=recorded)


_EMPTY_COUNT = re.compile(r"(\d+) quer(?:y has|ies have) no relevant item")


class _EmptyQueries:
    """The error for queries without relevant items (``empty="error"``) of the whole frame.

    A part of the plan holds some queries only, so its error counts and names its own. Then
    :meth:`raise_for` runs the engine on every part again (one part in memory at a time),
    merges what each part found (its count, and its first five queries in sorted order)
    and raises the eager accessor's message: the total, and the first five of all.
    """

    def __init__(
        self, frame: pl.LazyFrame, names: ColumnNames, produce: Callable[[Backend], Any],
        n: int,
    ) -> None:
        self.frame, self.query, self.produce, self.n = frame, names.query, produce, n

    def raise_for(self) -> None:
        found: list[tuple[int, list[object]]] = []

        def probe(part: pl.DataFrame) -> pl.DataFrame:
            backend = _RecordingBackend(part)
            try:
                self.produce(backend)
            except EmptyQueryError as error:
                count = _EMPTY_COUNT.match(str(error))
                if count is None:  # a message this merge does not know: the part's own
                    raise
                found.append((int(count.group(1)), backend.labels))
            return pl.DataFrame()

        parts = [b.map_batches(probe, schema={}, streamable=False)
                 for b in _buckets(self.frame, self.query, self.n)]
        pl.concat(parts, parallel=False).collect(engine="streaming")
        if not found:
            return
        dtype = self.frame.collect_schema()[self.query]
        labels = pl.Series([q for _, shown in found for q in shown],
                           dtype=pl.String if dtype in (pl.Categorical, pl.Enum) else dtype)
        codes, _ = _encode(labels, sort=True)
        first = labels.gather(np.argsort(codes, kind="stable")[:5]).to_list()
        total = sum(count for count, _ in found)
        # the engine's own message, for the whole frame's count and first queries
        data = SimpleNamespace(query_labels=lambda codes: first[: len(codes)])
        table = SimpleNamespace(n_relevant=np.zeros(total, dtype=np.int64), n_queries=total)
        _engine.included_queries(cast(Any, data), cast(Any, table), Options(empty="error"))


class LazyPolarsRankEval(RankEval):
    __doc__ = RankEval.__doc__

    def _backend(self, frame: Any) -> Backend:
        return PolarsBackend(frame)

    def _column_names(self) -> list[str]:
        return list(self._frame.collect_schema().names())

    def _deliver(
        self,
        produce: Callable[[Backend], Any],
        kind: Kind,
        keys: Sequence[str],
        value_columns: Sequence[tuple[str, str]],
        *,
        combine: Combine = None,
        whole: Whole | None = None,
    ) -> Any:
        input_schema = self._frame.collect_schema()
        table: dict[str, Any] = (
            dict(input_schema) if list(keys) == ["*"] else {k: input_schema[k] for k in keys}
        )
        table.update({name: _TYPES[t] for name, t in value_columns})
        index, metric = shape_of(kind, keys, value_columns)
        schema = table if kind == "table" else {**{c: table[c] for c in index},
                                                metric: pl.Float64}
        frame: pl.LazyFrame = self._frame
        if list(keys) != ["*"]:
            # polars does not push column selection through map_batches: select the columns
            # the engine reads, so a scan reads only those
            frame = frame.select(list(dict.fromkeys([*self._names.roles(), *keys])))
        if whole is not None:
            # per-query values part by part, then the result from all of them at once
            per_query = self._deliver(
                whole.per_query, "table", whole.keys, whole.value_columns, combine="rows"
            )

            def finish(table: pl.DataFrame) -> pl.DataFrame:
                return _conform(whole.finish(PolarsBackend(table)), schema)

            return per_query.map_batches(finish, schema=schema, streamable=False)

        def run(part: pl.DataFrame) -> pl.DataFrame:
            result = _shape(produce(self._backend(part)), kind, keys, value_columns)
            return _conform(result, schema)

        if combine is None:
            return frame.map_batches(run, schema=schema, streamable=False)

        def parts() -> pl.LazyFrame:
            n = _part_count(frame)
            if n == 1:  # the whole frame in one step: the eager results, bit for bit
                return frame.map_batches(run, schema=schema, streamable=False)
            return self._bucketed(frame, n, produce, kind, keys, value_columns, combine, table,
                                  schema)

        return _at_collection(parts, schema)

    def _bucketed(
        self,
        frame: pl.LazyFrame,
        n: int,
        produce: Callable[[Backend], Any],
        kind: Kind,
        keys: Sequence[str],
        value_columns: Sequence[tuple[str, str]],
        combination: Literal["means", "rows"],
        table: dict[str, Any],
        schema: dict[str, Any],
    ) -> pl.LazyFrame:
        """The plan in ``n`` parts of whole queries, split by a hash of the query id: each
        runs the engine on its rows alone; their results are combined last.

        Only one part's rows are held at a time (each part is one opaque step that receives
        all of its rows at once, and the parts run one after the other).
        """
        names = self._names
        nulls = _NullCheck(frame, names)
        empties = _EmptyQueries(frame, names, produce, n)

        def run_part(part: pl.DataFrame) -> pl.DataFrame:
            # the errors that count or list rows and queries are those of the whole frame
            if nulls.has_nulls(part):
                nulls.raise_for()
            try:
                return _conform(produce(self._backend(part)), table)
            except EmptyQueryError:
                empties.raise_for()
                raise

        def finish(parts: pl.DataFrame) -> pl.DataFrame:
            if combination == "rows":
                return _sorted_by_query(parts, names.query)
            result = _combined_means(parts, keys, value_columns, names.scores)
            return _conform(_shape(result, kind, keys, value_columns), schema)

        parts = [
            part.map_batches(run_part, schema=table, streamable=False)
            for part in _buckets(frame, names.query, n)
        ]
        return pl.concat(parts, parallel=False).map_batches(
            finish, schema=schema, streamable=False
        )


def register() -> None:
    """Register ``rank_eval`` on ``polars.DataFrame`` and ``polars.LazyFrame``."""
    pl.api.register_dataframe_namespace("rank_eval")(PolarsRankEval)
    pl.api.register_lazyframe_namespace("rank_eval")(LazyPolarsRankEval)
