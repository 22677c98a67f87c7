"""The ``rank_eval`` namespace of polars DataFrames and LazyFrames.

A LazyFrame stays lazy: every method returns a LazyFrame whose plan runs the engine when the
user collects it (``LazyFrame.map_batches``). Column names, metric names and options are
checked at once; checks of the data run at collection time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa

from rankframe import schemas
from rankframe._api import Backend, ColumnNames, Kind, RankEval, shape_of
from rankframe._encoding import dense_ranks, dictionary_codes, hash_series
from rankframe._engine import FrameData

IntArray = npt.NDArray[np.int64]


def _encode(series: pl.Series, *, sort: bool) -> tuple[IntArray, pa.Array]:
    """Per row an integer code, and the distinct values (sorted with ``sort=True``)."""
    if series.dtype in (pl.Categorical, pl.Enum):
        series = series.cast(pl.String)
    return dictionary_codes(series.to_arrow(), sort=sort)


def _as_float(series: pl.Series) -> npt.NDArray[np.float64]:
    return series.cast(pl.Float64).to_numpy()


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
        self._validate(names)
        df = self.frame
        query_codes, query_values = _encode(df[names.query], sort=True)
        items = df[names.item]
        if items.dtype in (pl.Categorical, pl.Enum):
            items = items.cast(pl.String)

        def item_ranks(rows: IntArray) -> IntArray:
            return dense_ranks(items.gather(rows).to_arrow())

        def item_hash() -> npt.NDArray[np.uint64]:
            return hash_series(items)

        def query_labels(codes: IntArray) -> list[object]:
            return list(query_values.take(pa.array(codes)).to_pylist())

        systems = [(s, _as_float(df[s])) for s in names.scores]
        return FrameData(
            query_codes=query_codes,
            n_queries=len(query_values),
            score=systems[0][1],
            relevant=_as_float(df[names.relevant]),
            item_ranks=item_ranks,
            item_hash=item_hash,
            query_labels=query_labels,
            item_label=lambda row: items[row],
            segments=[(b, _encode(df[b], sort=True)[0]) for b in by],
            systems=systems if names.systems is not None else [],
        )

    def table(
        self, keys: Sequence[str], rows: IntArray | None, values: dict[str, Any]
    ) -> pl.DataFrame:
        columns = [pl.Series(name, v) for name, v in values.items()]
        if not keys or rows is None:
            return pl.DataFrame(columns)
        return self.frame.select(keys)[rows].with_columns(columns)

    def with_ranks(self, ranks: dict[str, IntArray]) -> pl.DataFrame:
        return self.frame.with_columns(
            pl.Series(name, pa.array(rank, mask=rank == 0)) for name, rank in ranks.items()
        )


_TYPES: dict[str, Any] = {"float": pl.Float64, "int": pl.Int64, "str": pl.String,
                          "bool": pl.Boolean}


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
    ) -> Any:
        result = _shape(produce(self._backend(self._frame)), kind, keys, value_columns)
        return float(result.item(0, 0)) if kind == "scalar" else result


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
    ) -> Any:
        input_schema = self._frame.collect_schema()
        schema: dict[str, Any] = (
            dict(input_schema) if list(keys) == ["*"] else {k: input_schema[k] for k in keys}
        )
        schema.update({name: _TYPES[t] for name, t in value_columns})
        index, metric = shape_of(kind, keys, value_columns)
        if kind != "table":
            schema = {**{c: schema[c] for c in index}, metric: pl.Float64}

        def run(frame: pl.DataFrame) -> pl.DataFrame:
            return _shape(produce(self._backend(frame)), kind, keys, value_columns)

        frame = self._frame
        if list(keys) != ["*"]:
            # polars does not push column selection through map_batches: select the columns
            # the engine reads, so a scan reads only those
            frame = frame.select(list(dict.fromkeys([*self._names.roles(), *keys])))
        return frame.map_batches(run, schema=schema, streamable=False)


def register() -> None:
    """Register ``rank_eval`` on ``polars.DataFrame`` and ``polars.LazyFrame``."""
    pl.api.register_dataframe_namespace("rank_eval")(PolarsRankEval)
    pl.api.register_lazyframe_namespace("rank_eval")(LazyPolarsRankEval)
