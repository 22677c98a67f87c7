"""The ``.rank_eval`` accessor of pandas DataFrames (numpy, pyarrow, ``str`` and categorical
dtypes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from rankframe.engine import (
    EXACT_DIGITS,
    CodeArray,
    FrameData,
    ItemColumn,
    composite_codes,
    scores_in_order,
    with_judged,
)
from rankframe.engine.encoding import (
    DistinctStrings,
    UnorderedIdsError,
    as_tuple,
    composite_nulls,
    dense_ranks,
    dictionary_codes,
    hash_arrow,
    hash_series,
    in_row_order,
    is_composite,
    labelled_codes,
    ranks_at,
    take_rows,
    tuples_with_nulls,
    without_half_floats,
)
from rankframe.exceptions import InvalidDataError, Keyword
from rankframe.pipeline import validation
from rankframe.pipeline.contract import FrameAdapter
from rankframe.pipeline.steps import (
    Backend,
    ColumnNames,
    Request,
    composite_items,
    key_labels,
)
from rankframe.pipeline.windows import WINDOW

IntArray = npt.NDArray[np.int64]


def _as_float(series: pd.Series) -> npt.NDArray[np.float64]:
    """The column as float64 with NaN for nulls; a NumPy float64 column is not copied (the
    engine never writes to it)."""
    if series.dtype == np.float64:
        return series.to_numpy()
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def _scores(series: pd.Series) -> npt.NDArray[np.float64]:
    """A score column as float64 (NaN for nulls) that orders exactly as the scores do:
    integers beyond 2**53 and decimals become their dense ranks (see
    :func:`~rankframe.engine.scores_in_order`)."""
    dtype = series.dtype
    exact_as_float = pd.api.types.is_float_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)
    if exact_as_float or not pd.api.types.is_numeric_dtype(dtype):
        return _as_float(series)
    if isinstance(dtype, np.dtype):  # NumPy integers: no nulls
        return scores_in_order(series.to_numpy())
    present = series.notna().to_numpy()
    values = series.to_numpy() if present.all() else series[present].to_numpy()
    if isinstance(dtype, pd.ArrowDtype) and pa.types.is_decimal(dtype.pyarrow_dtype):
        if dtype.pyarrow_dtype.precision <= EXACT_DIGITS:
            return _as_float(series)
        ranks = pc.rank(pa.array(series[present].array), tiebreaker="dense")
        values = np.asarray(ranks, dtype=np.int64)  # Arrow compares the decimals exactly
    out = np.full(len(series), np.nan)
    out[present] = scores_in_order(values)
    return out


def _codes(
    series: pd.Series, *, sort: bool, threads: bool = False, labels: bool = False
) -> tuple[CodeArray, Any]:
    """Per row an integer code, and the distinct values (sorted with ``sort=True``).

    Arrow-backed columns (pandas 3's ``str``) are encoded by Arrow, which also sorts the
    distinct strings far faster than pandas does, into int32 codes (half the memory of
    int64), in two threads with ``threads=True``; others by ``pd.factorize``.
    """
    if isinstance(series.array, pd.arrays.ArrowExtensionArray | pd.arrays.ArrowStringArray):
        values = without_half_floats(pa.array(series.array))
        if labels and sort:  # distinct values only read as labels: made when first read
            return labelled_codes(values, threads=threads)
        return dictionary_codes(values, sort=sort, compact=True, threads=threads)
    try:
        codes, uniques = pd.factorize(series, sort=sort, use_na_sentinel=False)
    except TypeError:  # unhashable values (lists, dicts, sets)
        raise _unhashable(series) from None
    distinct = np.asarray(uniques)
    if tuples_with_nulls(distinct):
        raise _null_elements(series)
    return codes.astype(np.int64, copy=False), distinct


def _unhashable(series: pd.Series) -> InvalidDataError:
    """The error for an id column whose values are not hashable (lists, dicts, sets)."""
    column = series.name
    msg = (
        f"Column {column!r} (dtype {series.dtype}) holds values that are not hashable "
        "(lists, dicts or sets); ids must be hashable and ordered. Convert lists to tuples, "
        f"e.g. df[{column!r}] = df[{column!r}].map(tuple), or the ids to strings, e.g. "
        f"df[{column!r}] = df[{column!r}].astype(str)."
    )
    return InvalidDataError(msg)


def _null_elements(series: pd.Series) -> InvalidDataError:
    """The error for composite ids (tuples, Arrow lists or structs) with a null or NaN
    element: they have no order (Python's ``None < 1`` fails)."""
    column = series.name
    msg = (
        f"Column {column!r} (dtype {series.dtype}) holds composite ids (tuples, lists or "
        "structs) with a null or NaN element; ids must be hashable and ordered, and a null "
        "has no order among values. Fill the nulls first, or convert the ids to strings, "
        f"e.g. df[{column!r}] = df[{column!r}].astype(str)."
    )
    return InvalidDataError(msg)


def _check_composite(series: pd.Series) -> None:
    """Raise for an Arrow list or struct id column with a null or NaN element (object
    columns of tuples are checked where they are factorized, :func:`_codes`)."""
    dtype = series.dtype
    composite = isinstance(dtype, pd.ArrowDtype) and is_composite(dtype.pyarrow_dtype)
    if composite and composite_nulls(pa.array(series.array)):
        raise _null_elements(series)


def _hash(series: pd.Series) -> npt.NDArray[np.uint64]:
    """Per row a 64-bit hash of the value, equal for equal values.

    Arrow-backed columns (pandas 3's ``str``) are hashed a slice at a time, without a
    polars copy of the whole column (see :func:`~rankframe.engine.encoding.hash_arrow`).
    """
    if isinstance(series.array, pd.arrays.ArrowExtensionArray | pd.arrays.ArrowStringArray):
        return hash_arrow(pa.array(series.array))
    try:
        values = pl.from_pandas(series)
    except (pl.exceptions.PolarsError, pa.ArrowException, TypeError, ValueError, OverflowError):
        values = None  # an object column mixing types: hash codes of equal values instead
    if values is None or values.dtype.is_nested() or values.dtype == pl.Object:
        # tuples, lists, dicts (polars made lists and structs of them): the codes of
        # pandas' factorize, which hashes tuples and refuses lists and dicts
        values = pl.Series(_codes(series, sort=False)[0])
    return hash_series(values)


def _unordered(column: str, dtype: object, error: Exception) -> InvalidDataError:
    """The error for item ids that have no order (``ties`` breaks ties by item id)."""
    msg = (
        f"Column {column!r} (item, dtype {dtype}) holds {error}; ties between equal scores "
        f"are broken by item id, which needs an order. Convert the ids to strings, e.g. "
        f"df[{column!r}].astype(str), or pass ",
        Keyword("ties", "first"),
        ".",
    )
    return InvalidDataError(msg)


def _grades(series: pd.Series) -> npt.NDArray[Any]:
    """The grades as NumPy numbers: a NumPy integer, float or bool column as it is (no
    float64 copy; the engine never writes to it), others as float64."""
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "biuf":
        return series.to_numpy()
    return _as_float(series)


def pandas_column(values: Any) -> Any:
    """An output column: NumPy arrays as they are, an Arrow integer array with nulls as
    pandas' nullable ``Int64``, an Arrow float array as float64 (NaN for nulls), an Arrow
    timestamp array as pandas' ``datetime64[unit, tz]``, a date array as
    ``datetime.date`` objects (pandas' own types, as pyarrow converts them) and a string
    array as objects (``None`` for nulls)."""
    if isinstance(values, pa.Array) and pa.types.is_string(values.type):
        out = np.empty(len(values), dtype=object)
        out[:] = values.to_pylist()
        return out
    if isinstance(values, pa.Array) and pa.types.is_floating(values.type):
        return np.asarray(values.fill_null(np.nan), dtype=np.float64)
    if isinstance(values, pa.Array) and pa.types.is_temporal(values.type):
        return pd.Series(values.to_pandas()).array
    if isinstance(values, pa.Array):
        filled = np.asarray(values.fill_null(0), dtype=np.int64)
        return pd.arrays.IntegerArray(filled, mask=np.asarray(values.is_null()))
    return values


class PandasItems:
    """The item column of a pandas frame, as the engine reads it (an
    :class:`~rankframe.engine.ItemSource`): ranks, hashes and ids by row position."""

    def __init__(self, items: pd.Series, column: str) -> None:
        self.items = items
        self.column = column
        dtype = items.dtype
        self.strings = isinstance(items.array, pd.arrays.ArrowStringArray) or (
            isinstance(dtype, pd.ArrowDtype) and pa.types.is_string(dtype.pyarrow_dtype)
        )
        self.distinct: pa.Array | None = None  # the sorted distinct strings of encode()

    def dense_ranks(self, rows: IntArray) -> IntArray:
        items = self.items
        if isinstance(items.array, pd.arrays.ArrowExtensionArray | pd.arrays.ArrowStringArray):
            return ranks_at(pa.array(items.array), rows)
        chosen = items.take(rows)
        if isinstance(chosen.dtype, pd.ArrowDtype | pd.StringDtype):
            return dense_ranks(pa.array(chosen.array))
        try:
            return dense_ranks(np.asarray(chosen.to_numpy()))
        except UnorderedIdsError as error:
            raise _unordered(self.column, items.dtype, error) from None

    def hash(self) -> npt.NDArray[np.uint64]:
        return _hash(self.items)

    def value(self, row: int) -> object:
        return as_tuple(self.items.iloc[row])

    def values(self, rows: IntArray) -> list[object]:
        out: list[object] = self.items.take(rows).tolist()
        return out

    def first_of_each(self) -> IntArray:
        return np.flatnonzero(~self.items.duplicated().to_numpy())

    def encode(self) -> tuple[CodeArray, int]:
        try:  # by hashing: Arrow's dictionary, or pandas' factorize
            codes, values = _codes(self.items, sort=True)
        except (InvalidDataError, TypeError):  # ids of mixed types: ordered by type
            ranks = self.dense_ranks(np.arange(len(self.items), dtype=np.int64))
            return ranks, int(ranks.max()) + 1 if len(ranks) else 0
        if self.strings and isinstance(values, pa.Array):
            self.distinct = values
        return codes, len(values)

    def hashed_ranks(self, rows: IntArray) -> IntArray:
        if self.strings:  # Arrow's hash table, then its sorted dictionary: dense ranks
            taken, ascending = take_rows(pa.array(self.items.array), rows)
            codes = dictionary_codes(taken, sort=True)[0].astype(np.int64, copy=False)
            return in_row_order(codes, ascending)
        return self.dense_ranks(rows)

    def code_labels(self, codes: IntArray) -> list[object] | None:
        # strings only: Arrow gives the same Python str as the column's tolist()
        distinct = self.distinct
        return None if distinct is None else distinct.take(pa.array(codes)).to_pylist()


class _QueryLabels:
    """The query ids of codes, for messages: ``uniques`` are the distinct ids in code order,
    or each query's first row for a composite key (read through the backend)."""

    def __init__(self, backend: Backend, key: Sequence[str], uniques: Any) -> None:
        self.backend = backend
        self.key = key
        self.uniques = uniques
        self.count = len(uniques)

    def labels(self, codes: IntArray) -> list[object]:
        uniques = self.uniques
        if len(self.key) > 1:
            return key_labels(self.backend, self.key, uniques[codes])
        if isinstance(uniques, pa.Array | DistinctStrings):
            return [as_tuple(v) for v in uniques.take(pa.array(codes)).to_pylist()]
        return list(uniques[codes])


class PandasBackend:
    """One pandas frame, as the engine sees it."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def _validate(self, names: ColumnNames) -> None:
        self._check_unique_names(names.roles())
        facts = validation.pandas_facts(self.frame, names)
        validation.raise_for(facts, names, flavour="pandas")

    def _check_unique_names(self, roles: dict[str, str]) -> None:
        """Raise if a column the accessor reads shares its name with another column."""
        columns = self.frame.columns
        if columns.is_unique:
            return
        for name, role in roles.items():
            count = int((columns == name).sum())
            if count > 1:
                msg = (
                    f"Column name {name!r} ({role}) appears {count} times in the frame; "
                    "rankframe needs one column per name. Drop or rename the copies, e.g. "
                    "df.loc[:, ~df.columns.duplicated()]."
                )
                raise InvalidDataError(msg)

    def extract(self, names: ColumnNames, by: Sequence[str]) -> FrameData:
        self._validate(names)
        self._check_unique_names(dict.fromkeys(by, "by"))
        df = self.frame
        for column in dict.fromkeys([*names.query_key, *names.item_key, *by]):
            _check_composite(df[column])
        # On large frames Arrow encodes the query column in two threads; the items' hashes
        # (for the duplicate check) are computed later in the check's own thread, beside
        # the ranking.
        query_codes: CodeArray
        if len(names.query_key) > 1:  # a composite key: the tuples of its columns
            query_codes, first = composite_codes([self.codes(c) for c in names.query_key])
            queries = _QueryLabels(self, names.query_key, first)
        else:
            query_codes, uniques = _codes(df[names.query], sort=True, threads=True, labels=True)
            queries = _QueryLabels(self, names.query_key, uniques)
        systems = [(s, _scores(df[s])) for s in names.scores]
        data = FrameData(
            query_codes=query_codes,
            n_queries=queries.count,
            score=systems[0][1],
            relevant=_grades(df[names.relevant]),
            item=composite_items(self, names.item_key)
            or ItemColumn.of(PandasItems(df[names.item], names.item)),
            query_labels=queries.labels,
            segments=[(b, _codes(df[b], sort=True)[0]) for b in by],
            systems=systems if names.systems is not None else [],
            flavour="pandas",
        )
        judged = None if names.judged is None else df[names.judged].to_numpy(dtype=bool)
        return with_judged(
            data,
            judged,
            null_grades=names.null_grades,
            columns=(names.item, names.relevant, str(names.judged)),
        )

    def table(
        self, keys: Sequence[str], rows: IntArray | None, values: dict[str, Any]
    ) -> pd.DataFrame:
        columns = {name: pandas_column(v) for name, v in values.items()}
        if not keys or rows is None:
            return pd.DataFrame(columns)
        out = self.frame[list(keys)].take(rows).reset_index(drop=True)
        # one concat, not assign: pandas warns of a fragmented frame beyond 100 columns
        # (trec_eval's all_trec alone is 97)
        leading = {WINDOW: columns.pop(WINDOW)} if WINDOW in columns else {}
        return pd.concat(
            [pd.DataFrame(leading, index=out.index), out, pd.DataFrame(columns, index=out.index)],
            axis=1,
        )

    def column(self, name: str) -> npt.NDArray[Any]:
        return np.asarray(self.frame[name].to_numpy())

    def codes(self, name: str) -> IntArray:
        return _codes(self.frame[name], sort=True)[0].astype(np.int64, copy=False)

    def labels(self, name: str, rows: IntArray) -> list[object]:
        return [as_tuple(v) for v in self.frame[name].take(rows)]

    def arrow(self, name: str) -> Any:
        column = self.frame[name]
        if isinstance(column.array, pd.arrays.ArrowExtensionArray):
            return pa.array(column.array)
        return pa.array(column, from_pandas=True)

    def with_ranks(self, ranks: dict[str, IntArray]) -> pd.DataFrame:
        index = self.frame.index
        return self.frame.assign(
            **{
                name: pd.Series(pd.arrays.IntegerArray(rank, mask=rank == 0), index=index)
                for name, rank in ranks.items()
            }
        )


class PandasAdapter(FrameAdapter):
    """A pandas DataFrame (NumPy, pyarrow, ``str`` and categorical dtypes)."""

    def index_levels(self) -> list[str]:
        return index_levels(self.frame)

    def backend(self, frame: Any) -> Backend:
        return PandasBackend(frame)

    def convert(self, table: pd.DataFrame, request: Request) -> Any:
        return pandas_result(table, request)

    def concat(self, tables: Sequence[Any]) -> Any:
        return concat_pandas(tables)

    def polars_columns(self, columns: Sequence[str]) -> pl.DataFrame:
        return polars_of_pandas(self.frame[list(dict.fromkeys(columns))])

    def pandas_columns(self, columns: Sequence[str]) -> pd.DataFrame:
        selected: pd.DataFrame = self.frame[list(columns)]
        return selected


def index_levels(frame: Any) -> list[str]:
    """The names of a pandas (or Dask) frame's index levels."""
    index = frame.index
    names = getattr(index, "names", None)
    if names is None:
        names = [getattr(index, "name", None)]
    return [n for n in names if isinstance(n, str)]


def concat_pandas(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Result tables one under the other (one table: itself)."""
    return pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]


def polars_of_pandas(part: pd.DataFrame) -> pl.DataFrame:
    """A pandas frame as a polars one; object columns of mixed ids as strings."""
    try:
        return pl.from_pandas(part)
    except (TypeError, ValueError, pl.exceptions.PolarsError):  # mixed object ids
        return pl.from_pandas(
            part.astype({c: str for c in part.columns if part[c].dtype == object})
        )


def pandas_result(table: pd.DataFrame, request: Request) -> Any:
    """What the pandas accessor returns, from the finish step's frame: a float for one
    value, a Series for a value per segment, the frame itself for tables."""
    index, metric = request.shape()
    if request.kind == "scalar":
        return float(table[metric].iloc[0])
    if request.kind == "segments":
        return table.set_index(index)[metric]
    return table
