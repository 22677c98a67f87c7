"""``rankframe.from_lists``: one row per query with list columns, as a long frame.

Every backend turns its list columns into Arrow arrays (offsets + flat values) and hands them
to :func:`_explode`, which does the work once, in NumPy, for every frame kind: it numbers
the items of all lists together (one Arrow ``dictionary_encode``), finds repeated items in a
list and each truth item in its query's list by sorting packed ``(row, item)`` keys, and
returns the output rows as positions into the flat arrays. Each backend then builds its own
kind of frame from those positions. No step loops over rows in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from rankframe._suggest import closest_one, did_you_mean
from rankframe.exceptions import (
    ColumnNotFoundError,
    InvalidDataError,
    InvalidOptionError,
    excerpt,
    plain,
)

__all__ = [
    "ListNames",
    "check_list_type",
    "check_names",
    "check_polars_schema",
    "check_queries",
    "long_from_arrow",
    "null_query",
    "pandas_long",
    "polars_long",
    "polars_long_schema",
    "repeated_query",
]

IntArray = npt.NDArray[np.int64]
Label = Callable[[int], object]
"""The query id of an input row, for messages."""

OUTPUT = ("query", "item", "score", "relevant")
_LIST_HINT = {
    "recommended": "the ranked items, first = rank 1",
    "relevant": "the relevant items, or in pandas a dict item -> grade",
    "grades": "one grade per item of the relevant list",
}


@dataclass(frozen=True)
class ListNames:
    query: str
    recommended: str
    relevant: str
    grades: str | None

    def roles(self) -> dict[str, str]:
        """Each role and its column."""
        out = {"query": self.query, "recommended": self.recommended, "relevant": self.relevant}
        if self.grades is not None:
            out["grades"] = self.grades
        return out


@dataclass(frozen=True)
class _Lists:
    """A list column as Arrow: ``offsets`` (length rows + 1) into the flat ``values``."""

    offsets: IntArray
    values: pa.Array

    @property
    def lengths(self) -> IntArray:
        return np.diff(self.offsets)


@dataclass(frozen=True)
class _Long:
    """The output rows: the input row of each, its item (positions into ``items``), its
    score (``list length - position + 1``; ``retrieved`` False for a truth item missing from
    the list) and its grade."""

    rows: IntArray
    items: pa.Array
    score: IntArray
    retrieved: npt.NDArray[np.bool_]
    grades: pa.Array


# -- arguments ---------------------------------------------------------------------------------


def check_names(columns: Sequence[str], names: ListNames) -> None:
    """Missing columns, and carried columns whose names the output uses."""
    for role, column in names.roles().items():
        if not isinstance(column, str):
            msg = f"from_lists takes a column name for {role}=; got {excerpt(column)}."
            raise InvalidOptionError(msg)
        if column not in columns:
            hint = did_you_mean(closest_one(column, [str(c) for c in columns], cutoff=0.5))
            shown = ", ".join(repr(c) for c in list(columns)[:20])
            msg = (
                f"Column {column!r} ({role}) not found.{hint} Pass {role}='...' to from_lists "
                f"to use another column. Columns: {shown}."
            )
            raise ColumnNotFoundError(msg)
    used = set(names.roles().values())
    for column in columns:
        if column not in used and column in OUTPUT:
            msg = (
                f"Column {column!r} of the frame would clash with the output column "
                f"{column!r} of from_lists; rename it first (e.g. to '{column}_0')."
            )
            raise InvalidDataError(msg)


def _first_repeat(keys: IntArray) -> tuple[int, int] | None:
    """The position of the first key (in input order) that occurs again, and its count."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    repeated = ordered[1:] == ordered[:-1]
    if not repeated.any():
        return None
    second = np.flatnonzero(repeated) + 1
    first_of_pair = order[second - 1]
    at = int(first_of_pair.min())
    return at, int((keys == keys[at]).sum())


def null_query(row: int, column: str) -> InvalidDataError:
    """The error of a null query id at ``row`` (of the whole frame)."""
    msg = (
        f"Column {column!r} (query) has a null query id (row {row:,}); every row needs "
        "its query. Fill or drop those rows first."
    )
    return InvalidDataError(msg)


def repeated_query(query: object, count: int, column: str) -> InvalidDataError:
    """The error of a query id on ``count`` rows."""
    msg = (
        f"Query {excerpt(plain(query))} has {count} rows in column "
        f"{column!r}; from_lists takes one row per query (its list and its truth). "
        "Combine those rows first, or pass another query column."
    )
    return InvalidDataError(msg)


def check_queries(values: pd.Series, column: str) -> None:
    """One row per query, never a null query (pandas Series of the query column)."""
    if values.isna().any():
        raise null_query(int(np.flatnonzero(values.isna().to_numpy())[0]), column)
    counts = values.value_counts(sort=False)
    if (counts > 1).any():
        repeated = values[values.duplicated()].iloc[0]
        raise repeated_query(repeated, int(counts[repeated]), column)


# -- list columns as Arrow ---------------------------------------------------------------------


def _chunk(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(array, pa.ChunkedArray):
        return array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    return array


_LIST_KINDS = (
    pa.types.is_list,
    pa.types.is_large_list,
    pa.types.is_fixed_size_list,
    pa.types.is_list_view,
    pa.types.is_large_list_view,
    pa.types.is_map,
)


def _type_words(arrow_type: pa.DataType) -> str:
    """An Arrow type in words for a message, the same whichever library made it."""
    for test, words in (
        (pa.types.is_string, "strings"),
        (pa.types.is_large_string, "strings"),
        (pa.types.is_string_view, "strings"),
        (pa.types.is_integer, "integers"),
        (pa.types.is_floating, "floats"),
        (pa.types.is_boolean, "booleans"),
        (pa.types.is_struct, "structs"),
        (pa.types.is_null, "nulls"),
    ):
        if test(arrow_type):
            return words
    return str(arrow_type)


def check_list_type(arrow_type: pa.DataType, column: str, role: str, hint: str = "") -> None:
    """A column that is no list column is an error (decided from its type alone, so that a
    lazy frame raises it as an eager one does)."""
    if any(is_kind(arrow_type) for is_kind in _LIST_KINDS):
        return
    words = _type_words(arrow_type)
    fix = (
        "Split the strings into lists first (e.g. df[col].str.split())"
        if words == "strings"
        else "Make it a list column first"
    )
    msg = (
        f"Column {column!r} ({role}) must hold one list per row ({_LIST_HINT[role]}); got "
        f"{words}. {fix}.{hint}"
    )
    raise InvalidDataError(msg)


def _map_entries(array: pa.Array) -> tuple[IntArray, pa.Array, pa.Array]:
    """A map column's offsets (from 0) and the keys and values of its entries in use."""
    offsets = np.asarray(array.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
    start, stop = int(offsets[0]), int(offsets[-1])
    keys = array.keys.slice(start, stop - start)
    values = array.items.slice(start, stop - start)
    return offsets - start, keys, values


def _lists(array: pa.Array | pa.ChunkedArray, column: str, role: str, label: Label) -> _Lists:
    """A list column as offsets and flat values (a map column: its keys); null lists and null
    items are errors."""
    array = _chunk(array)
    check_list_type(array.type, column, role)
    if array.null_count:
        nulls = np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))
        msg = (
            f"Column {column!r} ({role}) has a null instead of a list in query "
            f"{excerpt(plain(label(int(nulls[0]))))} ({nulls.size:,} null lists in all); give "
            "every query a list, an empty one when it has no items."
        )
        raise InvalidDataError(msg)
    if pa.types.is_map(array.type):
        offsets, values, _ = _map_entries(array)
    else:
        counts = pc.list_value_length(array).to_numpy(zero_copy_only=False).astype(np.int64)
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        values = _chunk(pc.list_flatten(array))
    if values.null_count:
        row = int(
            np.searchsorted(
                offsets,
                np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0],
                side="right",
            )
            - 1
        )
        msg = (
            f"Column {column!r} ({role}) has a null item in the list of query "
            f"{excerpt(plain(label(row)))}; drop the nulls from the lists first."
        )
        raise InvalidDataError(msg)
    return _Lists(offsets, values)


def _same_type(rec: pa.Array, truth: pa.Array, names: ListNames) -> tuple[pa.Array, pa.Array]:
    """The items of both lists in one Arrow type (dictionaries decoded, strings large)."""

    def plain_type(values: pa.Array) -> pa.Array:
        if pa.types.is_dictionary(values.type):
            values = values.dictionary_decode()
        if pa.types.is_string(values.type) or pa.types.is_string_view(values.type):
            values = values.cast(pa.large_string())
        if pa.types.is_binary(values.type) or pa.types.is_binary_view(values.type):
            values = values.cast(pa.large_binary())
        return values

    rec, truth = plain_type(rec), plain_type(truth)
    if rec.type == truth.type:
        return rec, truth
    if pa.types.is_null(rec.type):
        return rec.cast(truth.type), truth
    if pa.types.is_null(truth.type):
        return rec, truth.cast(rec.type)
    if pa.types.is_integer(rec.type) and pa.types.is_integer(truth.type):
        return rec.cast(pa.int64()), truth.cast(pa.int64())
    msg = (
        f"The items of column {names.recommended!r} (recommended) are {rec.type} but those of "
        f"column {names.relevant!r} (relevant) are {truth.type}; an item must have one type "
        "in both. Convert one of them first."
    )
    raise InvalidDataError(msg)


# -- the one step every backend shares -----------------------------------------------------------


def _explode(
    rec: _Lists, truth: _Lists, grades: pa.Array | None, names: ListNames, label: Label
) -> _Long:
    """The long rows: each recommended item in list order, then the truth items missing from
    the list, per input row; repeated items are errors."""
    n_rows = len(rec.offsets) - 1
    rec_values, truth_values = _same_type(rec.values, truth.values, names)
    if grades is None:
        grades = pa.array(np.ones(len(truth_values), dtype=np.int64))
    all_items = _chunk(pa.concat_arrays([rec_values, truth_values]))
    encoded = all_items.dictionary_encode()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    n_codes = max(len(encoded.dictionary), 1)
    rec_rows = np.repeat(np.arange(n_rows, dtype=np.int64), rec.lengths)
    truth_rows = np.repeat(np.arange(n_rows, dtype=np.int64), truth.lengths)
    rec_keys = rec_rows * n_codes + codes[: len(rec_values)]
    truth_keys = truth_rows * n_codes + codes[len(rec_values) :]
    for role, keys, rows, values, column in (
        ("recommended", rec_keys, rec_rows, rec_values, names.recommended),
        ("relevant", truth_keys, truth_rows, truth_values, names.relevant),
    ):
        repeat = _first_repeat(keys)
        if repeat is not None:
            first, count = repeat
            query = excerpt(plain(label(int(rows[first]))))
            msg = (
                f"Item {excerpt(values[first].as_py())} appears {count} times in the list of "
                f"column {column!r} ({role}) of query {query}; each item may appear once per "
                "list. Drop the repeats first (e.g. keep the first: "
                "list(dict.fromkeys(items)))."
            )
            raise InvalidDataError(msg)
    truth_order = np.argsort(truth_keys, kind="stable")
    rec_hit, at = _lookup(truth_keys[truth_order], rec_keys)
    truth_found, _ = _lookup(np.sort(rec_keys), truth_keys)
    missing = np.flatnonzero(~truth_found)

    rows = np.concatenate([rec_rows, truth_rows[missing]])
    order = np.argsort(rows, kind="stable")  # per input row: the list, then the missing truth
    position = np.arange(len(rec_rows), dtype=np.int64) - rec.offsets[rec_rows]
    score = np.concatenate(
        [rec.lengths[rec_rows] - position, np.zeros(len(missing), dtype=np.int64)]
    )[order]
    retrieved = np.concatenate(
        [np.ones(len(rec_rows), dtype=bool), np.zeros(len(missing), dtype=bool)]
    )[order]
    items = all_items.take(
        pa.array(np.concatenate([np.arange(len(rec_values)), len(rec_values) + missing])[order])
    )
    zero = (
        pa.array([0], type=grades.type)
        if not pa.types.is_boolean(grades.type)
        else (pa.array([False]))
    )
    grade_pool = pa.concat_arrays([grades, zero])
    rec_grade = np.where(rec_hit, truth_order[at] if len(truth_order) else at, len(grades))
    grade_index = np.concatenate([rec_grade, missing])[order]
    return _Long(rows[order], items, score, retrieved, grade_pool.take(pa.array(grade_index)))


def _lookup(ordered: IntArray, keys: IntArray) -> tuple[npt.NDArray[np.bool_], IntArray]:
    """Whether each key is in the sorted ``ordered``, and where (0 when it is not)."""
    if not len(ordered):
        return np.zeros(len(keys), dtype=bool), np.zeros(len(keys), dtype=np.int64)
    at = np.searchsorted(ordered, keys).clip(max=len(ordered) - 1)
    found = ordered[at] == keys
    return found, np.where(found, at, 0)


def _check_grades(grades: _Lists, truth: _Lists, names: ListNames, label: Label) -> pa.Array:
    """The flat grades of a ``grades=`` column: numeric, one per relevant item."""
    assert names.grades is not None
    differ = np.flatnonzero(grades.lengths != truth.lengths)
    if differ.size:
        row = int(differ[0])
        msg = (
            f"Column {names.grades!r} (grades) has {int(grades.lengths[row])} grades but "
            f"column {names.relevant!r} (relevant) has {int(truth.lengths[row])} items in "
            f"query {excerpt(plain(label(row)))}; give one grade per relevant item, in the "
            "same order."
        )
        raise InvalidDataError(msg)
    values = grades.values  # noqa: PD011  (an Arrow array, not pandas)
    if pa.types.is_null(values.type):
        values = values.cast(pa.int64())
    if not (
        pa.types.is_integer(values.type)
        or pa.types.is_floating(values.type)
        or pa.types.is_boolean(values.type)
    ):
        msg = (
            f"Column {names.grades!r} (grades) must hold lists of numbers (bool, int or "
            f"float); got lists of {values.type}. Convert them first."
        )
        raise InvalidDataError(msg)
    return values


def long_from_arrow(
    rec_column: pa.Array | pa.ChunkedArray,
    truth_column: pa.Array | pa.ChunkedArray,
    grades_column: pa.Array | pa.ChunkedArray | None,
    names: ListNames,
    label: Label,
) -> _Long:
    """The long rows of Arrow list columns (a map column as the truth: item -> grade)."""
    rec = _lists(rec_column, names.recommended, "recommended", label)
    truth = _lists(truth_column, names.relevant, "relevant", label)
    truth_type = _chunk(truth_column).type
    grades: pa.Array | None = None
    if pa.types.is_map(truth_type):
        if names.grades is not None:
            msg = (
                f"Column {names.relevant!r} (relevant) holds dicts (item -> grade), which "
                f"carry their grades; pass grades=None, or make {names.relevant!r} a list "
                f"column to use the grades of {names.grades!r}."
            )
            raise InvalidOptionError(msg)
        grades = _map_entries(_chunk(truth_column))[2]
        if grades.null_count:
            where = np.flatnonzero(grades.is_null().to_numpy(zero_copy_only=False))[0]
            row = int(np.searchsorted(truth.offsets, where, side="right") - 1)
            msg = (
                f"Column {names.relevant!r} (relevant) has a null grade in query "
                f"{excerpt(plain(label(row)))}; every relevant item needs a number."
            )
            raise InvalidDataError(msg)
    elif grades_column is not None:
        assert names.grades is not None
        grades = _check_grades(
            _lists(grades_column, names.grades, "grades", label), truth, names, label
        )
    return _explode(rec, truth, grades, names, label)


# -- pandas --------------------------------------------------------------------------------------


def _pandas_arrow(series: pd.Series, column: str, role: str) -> pa.Array:
    """A pandas column as Arrow: Arrow dtypes as they are; object cells (lists, tuples,
    arrays, or dicts item -> grade) converted by Arrow in one call."""
    if isinstance(series.dtype, pd.ArrowDtype):
        return _chunk(pa.array(series.array))
    objects = pd.api.types.is_object_dtype(series.dtype)
    if not len(series) and objects:  # an empty frame (a Dask meta)
        return pa.array([], type=pa.list_(pa.null()))
    values = series.to_numpy()
    valid = series[series.notna()] if objects else series.iloc[:0]
    first = valid.iloc[0] if len(valid) else None
    try:
        if isinstance(first, Mapping):
            sample = next((v for v in valid if isinstance(v, Mapping) and v), {})
            key_type = pa.array(list(sample)).type if sample else pa.null()
            if pa.types.is_string(key_type):
                key_type = pa.large_string()
            return pa.array(values, type=pa.map_(key_type, pa.float64()), from_pandas=True)
        return _chunk(pa.array(values, from_pandas=True))
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as error:
        detail = excerpt(str(error).split("\n")[0], 160)
        msg = (
            f"Column {column!r} ({role}) must hold one list per row ({_LIST_HINT[role]}), "
            f"with items of one type; Arrow cannot read it: {detail}. Make every cell a list "
            "(or every cell a dict) of items of one type."
        )
        raise InvalidDataError(msg) from None


def _to_pandas(array: pa.Array, arrow: bool) -> pd.Series:
    if arrow:
        return pd.Series(pd.arrays.ArrowExtensionArray(array))
    return pd.Series(array.to_pandas())


def pandas_long(frame: pd.DataFrame, names: ListNames, *, keep_index: bool = False) -> pd.DataFrame:
    """The long frame of a pandas frame: a fresh index, or (``keep_index``) each input row's
    label on its rows, as ``DataFrame.explode`` does."""
    check_names([str(c) for c in frame.columns], names)
    queries = frame[names.query]
    check_queries(queries, names.query)

    def label(row: int) -> object:
        return queries.iloc[row]

    columns = {role: frame[column] for role, column in names.roles().items()}
    arrow = {
        role: _pandas_arrow(columns[role], names.roles()[role], role)
        for role in names.roles()
        if role != "query"
    }
    long = long_from_arrow(
        arrow["recommended"], arrow["relevant"], arrow.get("grades"), names, label
    )
    as_arrow = isinstance(columns["recommended"].dtype, pd.ArrowDtype)
    rows = long.rows
    score: pd.Series
    if as_arrow:
        score = _to_pandas(pa.array(long.score, mask=~long.retrieved), arrow=True)
    else:
        score = pd.Series(np.where(long.retrieved, long.score, np.nan))
    carried = [c for c in frame.columns if c not in set(names.roles().values())]
    out = pd.DataFrame(
        {
            "query": queries.take(rows).reset_index(drop=True),
            "item": _to_pandas(long.items, as_arrow),
            "score": score,
            "relevant": _to_pandas(long.grades, as_arrow),
        }
    )
    if carried:
        out = pd.concat([out, frame[carried].take(rows).reset_index(drop=True)], axis=1)
    if keep_index:
        out.index = frame.index.take(rows)
    return out


# -- polars --------------------------------------------------------------------------------------


def _polars_arrow(series: Any) -> pa.Array:
    return _chunk(series.to_arrow(compat_level=pl.CompatLevel.oldest()))


def check_polars_schema(schema: Mapping[str, Any], names: ListNames) -> None:
    """Missing columns and columns that are no lists, from a polars schema."""
    check_names(list(schema), names)
    for role, column in names.roles().items():
        if role != "query":
            check_list_type(pl.Series([], dtype=schema[column]).to_arrow().type, column, role)


def polars_long_schema(schema: Mapping[str, Any], names: ListNames) -> dict[Any, Any]:
    """The output schema of a polars frame with the input ``schema``."""

    def inner(column: str) -> Any:
        dtype = schema[column]
        return dtype.inner if isinstance(dtype, (pl.List, pl.Array)) else pl.Null

    item = inner(names.recommended)
    if item == pl.Null:
        item = inner(names.relevant)
    grade = inner(names.grades) if names.grades is not None else pl.Int64
    if grade == pl.Null:
        grade = pl.Int64
    out = {"query": schema[names.query], "item": item, "score": pl.Int64, "relevant": grade}
    used = set(names.roles().values())
    out.update({c: dtype for c, dtype in schema.items() if c not in used})
    return out


def polars_long(frame: Any, names: ListNames) -> Any:
    check_polars_schema(frame.schema, names)
    check_queries(frame[names.query].to_pandas(), names.query)
    queries = frame[names.query]

    def label(row: int) -> object:
        return queries[row]

    long = long_from_arrow(
        _polars_arrow(frame[names.recommended]),
        _polars_arrow(frame[names.relevant]),
        _polars_arrow(frame[names.grades]) if names.grades is not None else None,
        names,
        label,
    )
    schema = polars_long_schema(frame.schema, names)
    rows = pl.Series(long.rows)
    used = set(names.roles().values())
    carried = [c for c in frame.columns if c not in used]
    out = pl.DataFrame(
        {
            "query": queries.gather(rows),
            "item": pl.from_arrow(long.items),
            "score": pl.from_arrow(pa.array(long.score, mask=~long.retrieved)),
            "relevant": pl.from_arrow(long.grades),
        }
    )
    if carried:
        out = pl.concat([out, frame.select(carried)[rows]], how="horizontal")
    return out.cast(schema)
