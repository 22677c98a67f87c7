"""The input contract, checked once for every frame kind: the facts of a part, combined over
parts, and the one function that turns them into the error.

The contract (also exported as pandera schemas, :mod:`rankframe.schemas`): the query, item
and relevant columns hold no nulls (the grade may with ``unjudged="nonrelevant"`` or
``"condense"``); the score and relevant columns are numeric (bool allowed); grades are
finite; a ``judged`` column is boolean and never null; a ``time`` column (``every=``)
holds datetimes, dates, or integer epochs with ``time_unit=``, and never null. ``nulls``
counts a NaN of a float column as null.

- :func:`pandas_facts` and :func:`polars_facts` read the :class:`Facts` of one frame: an eager
  frame, or one part of a partitioned one (a LazyFrame bucket, a Dask or Spark partition).
  A polars LazyFrame gives its whole-frame facts in one streaming aggregation.
- :func:`combine` makes the facts of a whole frame from those of its parts, in row order.
- :func:`error` turns facts into the eager accessor's error, in the schema's order: the
  query, item, score, relevant, judged and time columns in turn, and within a column its nulls,
  then its dtype, then (grades) infinite values. The error carries the facts as fields
  (:class:`~rankframe.exceptions.InvalidDataError`), and its message is built from them.

Beyond the contract of one row, :func:`first_duplicate`, :func:`first_varying` and
:func:`empty_queries` find, in a polars frame's row order, the first repeated item of a
query, the first query in which a column varies, and the queries without a relevant item:
the command line reads them to say where in a file the library's refusal comes from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import polars as pl

from rankframe._suggest import closest_one
from rankframe.exceptions import InvalidDataError, plain

if TYPE_CHECKING:
    # pandas and pyarrow are imported where used: `rankframe trec` runs without them
    import pandas as pd

    from rankframe.pipeline.steps import ColumnNames

__all__ = [
    "Facts",
    "Nulls",
    "combine",
    "empty_queries",
    "error",
    "first_duplicate",
    "first_varying",
    "lazy_polars_facts",
    "missing_columns_message",
    "never_null",
    "numeric_columns",
    "pandas_boolean",
    "pandas_facts",
    "pandas_finite",
    "pandas_numeric",
    "polars_boolean",
    "polars_facts",
    "polars_numeric",
    "raise_for",
    "unused_name",
]


def never_null(names: ColumnNames) -> list[str]:
    """The columns that must not hold nulls, in the schema's order (the grade may be null
    with ``unjudged="nonrelevant"`` or ``"condense"``)."""
    grades = [] if names.null_grades else [names.relevant]
    judged = [] if names.judged is None else [names.judged]
    time = [] if names.time is None else [names.time]
    return [*names.query_key, *names.item_key, *grades, *judged, *time]


def numeric_columns(names: ColumnNames) -> list[str]:
    """The columns that must be numeric: the scores and the grades (people's too)."""
    gold = [] if names.gold is None or names.gold == names.relevant else [names.gold]
    return [*names.scores, names.relevant, *gold]


@dataclass(frozen=True)
class Nulls:
    """The nulls of one column: how many, the position of the first one (in the frame's or
    part's row order; -1 without nulls) and that row's query (``None`` for the query column
    itself)."""

    count: int = 0
    first: int = -1
    query: object = None


@dataclass(frozen=True)
class Facts:
    """What the input contract needs to know of a frame, or of one part of it.

    ``nulls`` maps each never-null column (:func:`never_null`) to its :class:`Nulls`;
    ``dtypes`` maps each score or grade column that is not numeric, a ``judged`` column
    that is not boolean, and a ``time`` column that holds no times, to its dtype;
    ``infinite`` is the row of the first infinite grade (-1: none; read only where the
    grade column is numeric).
    """

    rows: int
    nulls: Mapping[str, Nulls] = field(default_factory=dict)
    dtypes: Mapping[str, object] = field(default_factory=dict)
    infinite: int = -1

    @property
    def clean(self) -> bool:
        """Whether the frame keeps the contract (:func:`error` gives ``None``)."""
        return not (any(n.count for n in self.nulls.values()) or self.dtypes or self.infinite >= 0)


# -- the facts of one frame ------------------------------------------------------------------


def pandas_numeric(series: Any) -> bool:
    """Whether a pandas column is numeric (bool allowed, complex not)."""
    import pandas as pd

    types = pd.api.types
    return bool(types.is_numeric_dtype(series) or types.is_bool_dtype(series)) and not (
        types.is_complex_dtype(series)
    )


def _first_infinite(series: Any) -> int:
    """The position of a pandas column's first infinite value; -1 for none (integers are
    finite; a column that is not numeric counts as finite: its dtype is reported instead)."""
    if not pandas_numeric(series) or series.dtype.kind in "iub":
        return -1
    infinite = np.isinf(series.to_numpy(dtype=np.float64, na_value=0.0))
    return int(np.argmax(infinite)) if infinite.any() else -1


def pandas_finite(series: Any) -> bool:
    """Whether a pandas column holds no infinite value."""
    return _first_infinite(series) < 0


def pandas_boolean(series: Any) -> bool:
    """Whether a pandas column has a boolean dtype."""
    import pandas as pd

    return bool(pd.api.types.is_bool_dtype(series))


def polars_numeric(dtype: Any) -> bool:
    """Whether a polars dtype is numeric (bool allowed)."""
    return bool(dtype.is_numeric() or dtype == pl.Boolean)


def polars_boolean(dtype: Any) -> bool:
    """Whether a polars dtype is boolean."""
    return bool(dtype == pl.Boolean)


def pandas_temporal(series: Any, time_unit: str | None) -> bool:
    """Whether a pandas column holds times: datetimes (NumPy or Arrow, with or without a
    zone), dates (Arrow, or ``datetime.date`` objects), or integers with a ``time_unit``."""
    import pandas as pd
    import pyarrow as pa

    types, dtype = pd.api.types, series.dtype
    if isinstance(dtype, pd.ArrowDtype):
        arrow = dtype.pyarrow_dtype
        if pa.types.is_timestamp(arrow) or pa.types.is_date(arrow):
            return True
    elif types.is_datetime64_any_dtype(dtype):
        return True
    if types.is_integer_dtype(dtype):
        return time_unit is not None
    if types.is_object_dtype(dtype):
        return types.infer_dtype(series, skipna=True) in ("date", "empty")
    return False


def polars_temporal(dtype: Any, time_unit: str | None) -> bool:
    """Whether a polars dtype holds times: ``Datetime``, ``Date``, or integers with a
    ``time_unit``."""
    if dtype == pl.Date or isinstance(dtype, pl.Datetime):
        return True
    return bool(dtype.is_integer()) and time_unit is not None


def _integer(dtype: Any) -> bool:
    """Whether a pandas or polars dtype is an integer dtype."""
    test = getattr(dtype, "is_integer", None)  # polars
    if callable(test):
        return bool(test())
    import pandas as pd

    return bool(pd.api.types.is_integer_dtype(dtype))


def _wrong_dtypes(
    names: ColumnNames, dtype_of: Any, numeric: Any, boolean: Any, temporal: Any
) -> dict[str, object]:
    """Column → dtype for the score and grade columns that are not numeric, a judged
    column that is not boolean and a time column that holds no times."""
    wrong = {c: dtype_of(c) for c in numeric_columns(names) if not numeric(c)}
    if names.judged is not None and not boolean(names.judged):
        wrong[names.judged] = dtype_of(names.judged)
    if names.time is not None and not temporal(names.time):
        wrong[names.time] = dtype_of(names.time)
    return wrong


def _pandas_missing(series: pd.Series[Any]) -> npt.NDArray[np.bool_]:
    """Per row, whether the value is null: ``isna``, and NaN in a pyarrow float column too
    (Arrow keeps NaN apart from null; the NumPy path, polars and the engine read it as
    null, so a NaN grade is the null grade's error on every frame kind)."""
    import pandas as pd
    import pyarrow as pa

    missing = np.asarray(series.isna().to_numpy(), dtype=bool)
    dtype = series.dtype
    if isinstance(dtype, pd.ArrowDtype) and pa.types.is_floating(dtype.pyarrow_dtype):
        missing = missing | np.isnan(series.to_numpy(dtype=np.float64, na_value=np.nan))
    return missing


def _pandas_query(frame: pd.DataFrame, names: ColumnNames, row: int) -> object:
    """The query of a row: a tuple for a composite key."""
    values = tuple(frame[c].iloc[row] for c in names.query_key)
    return values if len(values) > 1 else values[0]


def pandas_facts(frame: pd.DataFrame, names: ColumnNames) -> Facts:
    """The :class:`Facts` of a pandas frame (``isna`` is null)."""
    nulls = {}
    for column in never_null(names):
        missing = _pandas_missing(frame[column])
        count = int(missing.sum())
        if count:
            first = int(np.argmax(missing))
            query = None if column in names.query_key else _pandas_query(frame, names, first)
            nulls[column] = Nulls(count, first, query)
        else:
            nulls[column] = Nulls()
    dtypes = _wrong_dtypes(
        names,
        lambda c: frame[c].dtype,
        lambda c: pandas_numeric(frame[c]),
        lambda c: pandas_boolean(frame[c]),
        lambda c: pandas_temporal(frame[c], names.time_unit),
    )
    return Facts(len(frame), nulls, dtypes, _first_infinite(frame[names.relevant]))


def _missing(column: str, dtype: Any) -> pl.Expr:
    """Null, or NaN in a float column."""
    expr = pl.col(column).is_null()
    return expr | pl.col(column).is_nan() if dtype.is_float() else expr


def unused_name(columns: Sequence[object], stem: str) -> str:
    """``stem``, with underscores around it until no column has that name."""
    name = stem
    while name in columns:
        name = f"_{name}_"
    return name


def polars_facts(frame: pl.DataFrame, names: ColumnNames) -> Facts:
    """The :class:`Facts` of an eager polars frame. A frame without nulls, NaN or infinite
    grades costs its null counts (free) and a pass over its float columns."""
    schema = frame.collect_schema()
    dtypes = _polars_dtypes(schema, names)
    grade = names.relevant
    finite_checked = schema[grade].is_float() and grade not in dtypes
    columns = never_null(names)
    suspect = any(
        frame[c].null_count() or (schema[c].is_float() and frame[c].is_nan().any()) for c in columns
    ) or (finite_checked and bool(frame[grade].is_infinite().any()))
    if not suspect:
        return Facts(frame.height, dict.fromkeys(columns, Nulls()), dtypes)
    return _plan_facts(frame.lazy(), names, schema, dtypes, streaming=False)


def lazy_polars_facts(frame: pl.LazyFrame, names: ColumnNames) -> Facts:
    """The :class:`Facts` of a LazyFrame's whole plan: one streaming aggregation."""
    schema = frame.collect_schema()
    return _plan_facts(frame, names, schema, _polars_dtypes(schema, names), streaming=True)


def _polars_dtypes(schema: pl.Schema, names: ColumnNames) -> dict[str, object]:
    return _wrong_dtypes(
        names,
        schema.__getitem__,
        lambda c: polars_numeric(schema[c]),
        lambda c: polars_boolean(schema[c]),
        lambda c: polars_temporal(schema[c], names.time_unit),
    )


def _plan_facts(
    frame: pl.LazyFrame,
    names: ColumnNames,
    schema: pl.Schema,
    dtypes: dict[str, object],
    *,
    streaming: bool,
) -> Facts:
    """The facts from one aggregation of ``frame``'s plan (streaming for a LazyFrame)."""
    columns = never_null(names)
    grade = names.relevant
    finite_checked = schema[grade].is_float() and grade not in dtypes
    row = unused_name(list(schema.names()), "__rankframe_row__")
    missing = [_missing(c, schema[c]) for c in columns]
    infinite = (
        pl.col(row).filter(pl.col(grade).is_infinite()).first()
        if finite_checked
        else pl.lit(None, dtype=pl.UInt32)
    )
    key = names.query_key
    query = pl.col(key[0]) if len(key) == 1 else pl.struct(key)
    plan = (
        frame.select(list(dict.fromkeys([*columns, grade])))
        .with_row_index(row)
        .select(
            pl.len().alias("rows"),
            infinite.alias("infinite"),
            *(m.sum().alias(f"count{i}") for i, m in enumerate(missing)),
            *(pl.col(row).filter(m).first().alias(f"first{i}") for i, m in enumerate(missing)),
            *(query.filter(m).first().alias(f"query{i}") for i, m in enumerate(missing)),
        )
    )
    report = plan.collect(engine="streaming" if streaming else "auto").row(0, named=True)
    nulls = {}
    for i, column in enumerate(columns):
        count = int(report[f"count{i}"] or 0)
        found = None if column in key else report[f"query{i}"]
        if isinstance(found, dict):  # a composite key's values
            found = tuple(found.values())
        nulls[column] = Nulls(count, int(report[f"first{i}"]), found) if count else Nulls()
    at = report["infinite"]
    return Facts(int(report["rows"]), nulls, dtypes, -1 if at is None else int(at))


# -- the facts of parts, combined -----------------------------------------------------------


def combine(parts: Sequence[Facts]) -> Facts:
    """The facts of a frame from those of its parts, in the frame's row order: null counts
    add up, the first null is the first part's that has one (its row offset by the rows of
    the parts before it), a wrong dtype is the first part's that has it."""
    nulls: dict[str, Nulls] = {}
    dtypes: dict[str, object] = {}
    offset, infinite = 0, -1
    for part in parts:
        for column, found in part.nulls.items():
            seen = nulls.get(column, Nulls())
            if not found.count:
                nulls.setdefault(column, seen)
            elif seen.count:
                nulls[column] = replace(seen, count=seen.count + found.count)
            else:
                nulls[column] = Nulls(found.count, offset + found.first, found.query)
        for column, dtype in part.dtypes.items():
            dtypes.setdefault(column, dtype)
        if infinite < 0 <= part.infinite:
            infinite = offset + part.infinite
        offset += part.rows
    return Facts(offset, nulls, dtypes, infinite)


# -- the error ---------------------------------------------------------------------------------


def _fixes(flavour: str, column: str) -> dict[str, str]:
    """The fixes of the messages below, spelled for pandas or polars users."""
    if flavour == "polars":
        return {
            "drop": f"df.drop_nulls({column!r})",
            "fill": f"df.with_columns(pl.col({column!r}).fill_null(0))",
            "numeric": f"df.with_columns(pl.col({column!r}).cast(pl.Float64))",
            "boolean": f"df.with_columns(pl.col({column!r}).cast(pl.Boolean))",
        }
    return {
        "drop": f"df.dropna(subset=[{column!r}])",
        "fill": f"df.fillna({{{column!r}: 0}})",
        "numeric": f"df[{column!r}] = pd.to_numeric(df[{column!r}])",
        "boolean": f"df[{column!r}] = df[{column!r}].astype(bool)",
    }


def _null_error(column: str, role: str, nulls: Nulls, flavour: str) -> InvalidDataError:
    fix = _fixes(flavour, column)
    where = f"first at row {plain(nulls.first)}" + (
        f", in query {plain(nulls.query)!r}" if nulls.query is not None else ""
    )
    drop = f"drop or fill those rows (e.g. {fix['drop']})"
    fixes = {
        "query": f"every row must belong to a query; {drop}",
        "item": f"every row needs an item id; {drop}",
        "relevant": "every row needs a grade: fill unjudged items with 0 "
        f"(e.g. {fix['fill']}) or drop them; or pass unjudged='nonrelevant' to read a "
        "null grade as an unjudged row (grade 0, and unjudged for bpref, infAP and unj), "
        "or unjudged='condense' to rank only the judged rows (condensed lists), "
        "or mark unjudged rows in a boolean 'judged' column",
        "judged": "every row must be True (judged) or False (unjudged); fill the nulls "
        f"or drop those rows (e.g. {fix['drop']})",
        "time": "every row needs a time for every= windows (a query's time is its earliest "
        f"row's); fill the nulls or drop those rows (e.g. {fix['drop']})",
    }
    msg = (
        f"Column {column!r} ({role}) has {plain(nulls.count)} null value(s) ({where}); "
        f"{fixes.get(role, drop)}."
    )
    return InvalidDataError(
        msg,
        column=column,
        problem="null",
        count=nulls.count,
        row=nulls.first,
        query=plain(nulls.query),
    )


def _dtype_error(column: str, role: str, dtype: object, flavour: str) -> InvalidDataError:
    fix = _fixes(flavour, column)
    pass_as = f"or pass {role}='...' to use another column"
    if role == "judged":
        msg = (
            f"Column {column!r} ({role}) must be boolean (True: judged, False: unjudged); got "
            f"dtype {dtype}. Convert it first (e.g. {fix['boolean']}), {pass_as}."
        )
        return InvalidDataError(msg, column=column, problem="not_boolean", dtype=dtype)
    if role == "time":
        return _time_dtype_error(column, dtype, flavour)
    kind = "int or float" if role == "score" else "bool, int or float"
    msg = (
        f"Column {column!r} ({role}) must be numeric ({kind}); got dtype "
        f"{dtype}. Convert it first (e.g. {fix['numeric']}), {pass_as}."
    )
    return InvalidDataError(msg, column=column, problem="not_numeric", dtype=dtype)


def _time_dtype_error(column: str, dtype: object, flavour: str) -> InvalidDataError:
    if _integer(dtype):
        msg = (
            f"Column {column!r} (time) holds integers (dtype {dtype}); say what they count: "
            f"pass time_unit='s', 'ms', 'us' or 'ns' (epochs since 1970-01-01 UTC), e.g. "
            f"df.rank_eval(time={column!r}, time_unit='s')."
        )
        return InvalidDataError(msg, column=column, problem="no_time_unit", dtype=dtype)
    convert = (
        f"df.with_columns(pl.col({column!r}).str.to_datetime())"
        if flavour == "polars"
        else f"df[{column!r}] = pd.to_datetime(df[{column!r}])"
    )
    msg = (
        f"Column {column!r} (time) must hold datetimes, dates or integer epochs (with "
        f"time_unit=...); got dtype {dtype}. Convert it first (e.g. {convert}), or pass "
        "time='...' to use another column."
    )
    return InvalidDataError(msg, column=column, problem="not_temporal", dtype=dtype)


def _infinite_error(column: str, role: str, row: int) -> InvalidDataError:
    msg = (
        f"Column {column!r} ({role}) has an infinite grade; grades must be finite numbers. "
        "Replace it (e.g. clip to the highest real grade), "
        f"or pass {role}='...' to use another column."
    )
    return InvalidDataError(msg, column=column, problem="infinite", row=row)


def error(facts: Facts, names: ColumnNames, *, flavour: str) -> InvalidDataError | None:
    """The eager accessor's error for a frame of these facts (``None`` when it keeps the
    contract); ``flavour`` (``"pandas"`` or ``"polars"``) spells the fix in the user's
    library. The schema's order decides which error comes first (see the module)."""
    roles = names.roles()
    judged = [] if names.judged is None else [names.judged]
    time = [] if names.time is None else [names.time]
    gold = [] if names.gold is None else [names.gold]
    for column in dict.fromkeys(
        [*names.query_key, *names.item_key, *names.scores, names.relevant, *gold, *judged, *time]
    ):
        nulls = facts.nulls.get(column)
        if nulls is not None and nulls.count:
            return _null_error(column, roles[column], nulls, flavour)
        if column in facts.dtypes:
            return _dtype_error(column, roles[column], facts.dtypes[column], flavour)
        if column == names.relevant and facts.infinite >= 0:
            return _infinite_error(column, roles[column], facts.infinite)
    return None


def raise_for(facts: Facts, names: ColumnNames, *, flavour: str) -> None:
    """Raise :func:`error` of these facts, if any."""
    found = error(facts, names, flavour=flavour)
    if found is not None:
        raise found


# -- beyond one row: in a polars frame's row order, for the command line ------------------------


def first_duplicate(
    frame: pl.DataFrame, query: str, item: str
) -> tuple[object, object, list[int]] | None:
    """The first (query, item) pair that appears more than once, in row order: its query,
    its item and the rows that hold it; ``None`` when every pair appears once."""
    repeated = frame.select(query, item).is_duplicated()
    if not repeated.any():
        return None
    first = int(repeated.arg_true()[0])
    query_value, item_value = frame[query][first], frame[item][first]
    same = (frame[query] == query_value) & (frame[item] == item_value)
    return query_value, item_value, same.arg_true().to_list()


def first_varying(frame: pl.DataFrame, query: str, column: str) -> tuple[object, int, int] | None:
    """The first query (by its first row) in which ``column`` takes more than one value:
    the query, its first row and the first of its rows with another value; ``None`` when
    the column is constant within every query."""
    row = unused_name(frame.columns, "__rankframe_row__")
    indexed = frame.with_row_index(row)
    varying = (
        indexed.group_by(query)
        .agg(pl.col(column).n_unique().alias("n"), pl.col(row).min())
        .filter(pl.col("n") > 1)
        .sort(row)
    )
    if varying.height == 0:
        return None
    query_value = varying[query][0]
    rows = indexed.filter(pl.col(query) == query_value)
    values = rows[column]
    other = int(values.ne_missing(values[0]).arg_true()[0])
    return query_value, int(rows[row][0]), int(rows[row][other])


def empty_queries(
    frame: pl.DataFrame, query: str, relevant: str, min_relevance: float | None
) -> pl.DataFrame:
    """The queries without a relevant item (grade > 0, or >= ``min_relevance``), in the
    order of their first rows: a frame of the query column and ``row``, that first row."""
    grade = pl.col(relevant).cast(pl.Float64)
    is_relevant = grade > 0 if min_relevance is None else grade >= min_relevance
    row = unused_name(frame.columns, "__rankframe_row__")
    return (
        frame.with_row_index(row)
        .group_by(query)
        .agg(is_relevant.any().alias("__any__"), pl.col(row).min())
        .filter(~pl.col("__any__"))
        .sort(row)
        .select(query, pl.col(row).alias("row"))
    )


def missing_column_message(missing: str, role: str, available: Sequence[str]) -> str:
    """The message for a column that is not in the frame, with a "did you mean"."""
    return missing_columns_message([(missing, role)], available)


def missing_columns_message(missing: Sequence[tuple[str, str]], available: Sequence[object]) -> str:
    """The one message for every column (name, role) that is not in the frame, each with
    a "did you mean"."""
    names = [str(c) for c in available]
    close = {name: closest_one(name, names, cutoff=0.5) for name, _ in missing}
    shown = ", ".join(repr(c) for c in list(available)[:20])
    if len(missing) == 1:
        ((name, role),) = missing
        hint = f" Did you mean {close[name][0]!r}?" if close[name] else ""
        example = repr(close[name][0] if close[name] else "column_name")
        fix = (
            f"Pass by=[...] with columns of the frame, e.g. by={example}"
            if role == "by"
            else f"Pass {role}='...' to use another column, e.g. df.rank_eval({role}={example})"
        )
        return f"Column {name!r} ({role}) not found.{hint} {fix}. Columns: {shown}."
    listed = ", ".join(
        f"{name!r} ({role}" + (f"; did you mean {close[name][0]!r}?)" if close[name] else ")")
        for name, role in missing
    )
    examples: dict[str, list[str]] = {}
    for name, role in missing:
        examples.setdefault(role, []).append(repr(close[name][0] if close[name] else "column_name"))
    keywords = {
        role: values[0] if len(values) == 1 else f"[{', '.join(values)}]"
        for role, values in examples.items()
    }
    by = keywords.pop("by", None)
    fixes = []
    if keywords:
        bound = ", ".join(f"{role}={value}" for role, value in keywords.items())
        fixes.append(f"df.rank_eval({bound})")
    if by is not None:
        fixes.append(f"by={by}")
    return (
        f"{len(missing)} columns not found: {listed}. Name columns of the frame, e.g. "
        f"{' and '.join(fixes)}. Columns: {shown}."
    )
