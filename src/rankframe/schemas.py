"""pandera schemas of the long-format input, for rankframe and for your own pipelines.

The accessors validate every frame with these schemas before ranking it, and translate
pandera's errors into ``rankframe.RankEvalError`` messages that name the column, the value
or the query, and the fix. Use them directly to check data as it enters a pipeline (see the
example below).

The input contract: ``query``, ``item`` and ``relevant`` are never null; ``score`` and
``relevant`` are numeric (bool allowed for ``relevant``); grades are finite; ``score`` may be
null (judged but not retrieved); with ``check_unique=True`` an item appears once per query.
The accessors check uniqueness with one sort of packed (query, item hash) keys (faster than
pandera's row hashing) and run the schema with ``check_unique=False``.

Examples
--------
>>> import pandas as pd
>>> from rankframe.schemas import pandas_schema
>>> frame = pd.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"],
...                       "score": [0.9, None], "relevant": [1, 0]})
>>> pandas_schema().validate(frame).shape
(2, 4)
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rankframe.exceptions import InvalidDataError, plain

if TYPE_CHECKING:
    import pandera.pandas as pa
    import pandera.polars as pap
    from pandera.errors import SchemaError

__all__ = ["pandas_schema", "polars_schema"]


def _is_numeric_pandas(series: Any) -> bool:
    import pandas as pd

    types = pd.api.types
    return bool(types.is_numeric_dtype(series) or types.is_bool_dtype(series)) and not (
        types.is_complex_dtype(series)
    )


def _is_finite_pandas(series: Any) -> bool:
    import numpy as np

    if not _is_numeric_pandas(series) or series.dtype.kind in "iub":
        return True  # integers are finite; the numeric check reports other dtypes
    values = series.to_numpy(dtype=np.float64, na_value=0.0)
    return not bool(np.isinf(values).any())


def _is_finite_polars(data: Any) -> bool:
    import polars as pl

    column = pl.col(data.key)
    if not data.lazyframe.collect_schema()[data.key].is_float():
        return True
    infinite = data.lazyframe.select(column.is_infinite().any()).collect()
    return not bool(infinite.item())


def _is_numeric_polars(data: Any) -> bool:
    dtype = data.lazyframe.collect_schema()[data.key]
    return bool(dtype.is_numeric() or dtype.to_python() is bool)


def _is_bool_pandas(series: Any) -> bool:
    import pandas as pd

    return bool(pd.api.types.is_bool_dtype(series))


def _is_bool_polars(data: Any) -> bool:
    import polars as pl

    return bool(data.lazyframe.collect_schema()[data.key] == pl.Boolean)


def _score_columns(score: str | Sequence[str]) -> list[str]:
    return [score] if isinstance(score, str) else list(score)


def pandas_schema(
    query: str = "query",
    item: str = "item",
    score: str | Sequence[str] = "score",
    relevant: str = "relevant",
    *,
    check_unique: bool = True,
    judged: str | None = None,
    null_grades: bool = False,
) -> pa.DataFrameSchema:
    """The pandera schema of a pandas input frame with these column names.

    Parameters
    ----------
    query
        The query column.
    item
        The item column.
    score
        The score column, or a list of score columns (several systems judged on the same
        ``relevant`` column).
    relevant
        The relevance column.
    check_unique
        Also check that each (query, item) pair appears once.
    judged
        A boolean column saying which rows are judged (never null), if any.
    null_grades
        Allow null grades (unjudged rows, ``unjudged="nonrelevant"``).

    Returns
    -------
    pandera.pandas.DataFrameSchema
        Other columns are allowed and left alone.
    """
    pandera_ready()
    import pandera.pandas as pa

    numeric = pa.Check(_is_numeric_pandas, element_wise=False, name="numeric",
                       error="must have a numeric dtype")
    finite = pa.Check(_is_finite_pandas, element_wise=False, name="finite",
                      error="grades must be finite")
    boolean = pa.Check(_is_bool_pandas, element_wise=False, name="boolean",
                       error="must have a boolean dtype")
    flags = {} if judged is None else {judged: pa.Column(nullable=False, checks=boolean)}
    return pa.DataFrameSchema(
        {
            query: pa.Column(nullable=False),
            item: pa.Column(nullable=False),
            **{s: pa.Column(nullable=True, checks=numeric) for s in _score_columns(score)},
            relevant: pa.Column(nullable=null_grades, checks=[numeric, finite]),
            **flags,
        },
        unique=[query, item] if check_unique else None,
        name="rankframe input",
    )


def polars_schema(
    query: str = "query",
    item: str = "item",
    score: str | Sequence[str] = "score",
    relevant: str = "relevant",
    *,
    check_unique: bool = True,
    judged: str | None = None,
    null_grades: bool = False,
) -> pap.DataFrameSchema:
    """The pandera schema of a polars input frame (eager or lazy) with these column names.

    Same rules as ``pandas_schema``. pandera checks only the schema of a LazyFrame by
    default; to check its values too (nulls, uniqueness), validate inside
    ``pandera.config.config_context(validation_depth="SCHEMA_AND_DATA")``, as rankframe does.
    """
    pandera_ready()
    import pandera.polars as pap

    numeric = pap.Check(_is_numeric_polars, name="numeric", error="must have a numeric dtype")
    finite = pap.Check(_is_finite_polars, name="finite", error="grades must be finite")
    boolean = pap.Check(_is_bool_polars, name="boolean", error="must have a boolean dtype")
    flags = {} if judged is None else {judged: pap.Column(nullable=False, checks=boolean)}
    return pap.DataFrameSchema(
        {
            query: pap.Column(nullable=False),
            item: pap.Column(nullable=False),
            **{s: pap.Column(nullable=True, checks=numeric) for s in _score_columns(score)},
            relevant: pap.Column(nullable=null_grades, checks=[numeric, finite]),
            **flags,
        },
        unique=[query, item] if check_unique else None,
        name="rankframe input",
    )


_FIRST_VALIDATION = threading.Lock()
_VALIDATED: set[type] = set()  # schema classes that have validated a frame once
_IMPORTED = threading.Event()


def pandera_ready() -> None:
    """Import pandera (its pandas and polars parts, errors and built-in checks) once, in
    one thread at a time.

    pandera is imported on first use, not with rankframe. Several threads importing it at
    once (Dask's default threaded scheduler, a user's thread pool) can deadlock in Python's
    import locks (``_DeadlockError``); every use of pandera calls this first.

    With pyspark installed, pandera's import (and that of its pandas checks, once pyspark is
    imported) tries ``pyspark.pandas``, which warns under pandas 3 (a ``FutureWarning`` that
    ``filterwarnings = error`` turns into a failure and the CLI would print) and fails to
    import (pandera goes on without it): both imports happen here, with the warnings of
    pyspark's modules silenced, so rankframe behaves the same with pyspark installed or not.
    """
    if _IMPORTED.is_set():
        return
    with _FIRST_VALIDATION, warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"pyspark(\.|$)")
        if not _IMPORTED.is_set():
            import pandera.config
            import pandera.errors
            import pandera.pandas
            import pandera.polars  # noqa: F401
            from pandera.backends.base import builtin_checks  # noqa: F401
            from pandera.backends.pandas import builtin_checks as _  # noqa: F401

            _IMPORTED.set()


def validate(schema: Any, frame: Any) -> None:
    """Validate ``frame`` with ``schema`` whatever pandera's global configuration says.

    rankframe's guarantees (no number from bad input) must not depend on a user switching
    pandera off or to schema-only checks for their own pipelines.

    pandera imports modules the first time it validates (its built-in checks, its backends).
    Several threads doing so at once (Dask's default threaded scheduler, a user's thread
    pool) can deadlock in Python's import locks, so the first validation of each kind of
    schema runs under a lock; later ones run freely.
    """
    pandera_ready()
    from pandera.config import ValidationDepth, config_context

    def run() -> None:
        with config_context(
            validation_enabled=True, validation_depth=ValidationDepth.SCHEMA_AND_DATA
        ):
            schema.validate(frame)

    if type(schema) in _VALIDATED:
        run()
        return
    with _FIRST_VALIDATION:  # an error (and its imports) keeps taking this path
        run()
        _VALIDATED.add(type(schema))


def _flavour_of(error: SchemaError) -> str:
    """``"polars"`` for an error of a pandera polars schema, else ``"pandas"``."""
    return "polars" if "polars" in type(error.schema).__module__ else "pandas"


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


def translate(
    error: SchemaError,
    *,
    roles: dict[str, str],
    dtype_of: Any,
    null_report: Any,
    flavour: str | None = None,
) -> InvalidDataError:
    """Turn a pandera ``SchemaError`` into an error that names the culprit and the fix.

    Parameters
    ----------
    error
        pandera's error.
    roles
        Column name → its role (``"query"``, ``"item"``, ``"score"``, ``"relevant"``).
    dtype_of
        ``dtype_of(column)`` gives the column's dtype, for messages.
    null_report
        ``null_report(column)`` gives (number of nulls, first row position, that row's query
        value or ``None``).
    flavour
        ``"pandas"`` or ``"polars"``: whose spelling the fixes use (default: the library of
        the schema that raised ``error``).
    """
    from pandera.errors import SchemaErrorReason

    column = getattr(error.schema, "name", None)
    role = roles.get(str(column), str(column))
    fix = _fixes(flavour or _flavour_of(error), str(column))
    pass_as = f"or pass {role}='...' to use another column"
    if error.reason_code == SchemaErrorReason.SERIES_CONTAINS_NULLS:
        count, first, query_value = null_report(column)
        where = f"first at row {plain(first)}" + (
            f", in query {plain(query_value)!r}" if query_value is not None else ""
        )
        drop = f"drop or fill those rows (e.g. {fix['drop']})"
        fixes = {
            "query": f"every row must belong to a query; {drop}",
            "item": f"every row needs an item id; {drop}",
            "relevant": "every row needs a grade: fill unjudged items with 0 "
            f"(e.g. {fix['fill']}) or drop them; or pass unjudged='nonrelevant' to read a "
            "null grade as an unjudged row (grade 0, and unjudged for bpref, infAP and unj), "
            "or mark unjudged rows in a boolean 'judged' column",
            "judged": "every row must be True (judged) or False (unjudged); fill the nulls "
            f"or drop those rows (e.g. {fix['drop']})",
        }
        msg = (
            f"Column {column!r} ({role}) has {plain(count)} null value(s) ({where}); "
            f"{fixes.get(role, drop)}."
        )
        return InvalidDataError(msg)
    if role == "relevant" and "finite" in str(error):
        msg = (
            f"Column {column!r} ({role}) has an infinite grade; grades must be finite numbers. "
            "Replace it (e.g. clip to the highest real grade), "
            f"{pass_as}."
        )
        return InvalidDataError(msg)
    if role == "judged":
        msg = (
            f"Column {column!r} ({role}) must be boolean (True: judged, False: unjudged); got "
            f"dtype {dtype_of(column)}. Convert it first (e.g. {fix['boolean']}), {pass_as}."
        )
        return InvalidDataError(msg)
    if role in ("score", "relevant"):
        kind = "int or float" if role == "score" else "bool, int or float"
        msg = (
            f"Column {column!r} ({role}) must be numeric ({kind}); got dtype "
            f"{dtype_of(column)}. Convert it first (e.g. {fix['numeric']}), {pass_as}."
        )
        return InvalidDataError(msg)
    return InvalidDataError(f"Column {column!r} failed validation: {error}")


def missing_column_message(missing: str, role: str, available: Sequence[str]) -> str:
    """The message for a column that is not in the frame, with a "did you mean"."""
    import difflib

    close = difflib.get_close_matches(missing, [str(c) for c in available], n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    shown = ", ".join(repr(c) for c in list(available)[:20])
    example = repr(close[0] if close else "column_name")
    fix = (
        f"Pass by=[...] with columns of the frame, e.g. by={example}"
        if role == "by"
        else f"Pass {role}='...' to use another column, e.g. df.rank_eval({role}={example})"
    )
    return f"Column {missing!r} ({role}) not found.{hint} {fix}. Columns: {shown}."
