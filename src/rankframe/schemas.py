"""pandera schemas of the long-format input, for rankframe and for your own pipelines.

The accessors check the same contract on every frame kind without pandera
(``rankframe.pipeline.validation``: the facts of each column, turned into a
``rankframe.RankEvalError`` that names the column, the value or the query, and the fix); the
checks of these schemas are the same functions. Use them to check data as it enters a
pipeline (see the example below).

The input contract: ``query``, ``item`` and ``relevant`` are never null; ``score`` and
``relevant`` are numeric (bool allowed for ``relevant``); grades are finite; ``score`` may be
null (judged but not retrieved); with ``check_unique=True`` an item appears once per query.
The accessors check uniqueness with one sort of packed (query, item hash) keys (faster than
pandera's row hashing).

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

from rankframe.pipeline import validation

if TYPE_CHECKING:
    import pandera.pandas as pa
    import pandera.polars as pap

__all__ = ["pandas_schema", "polars_schema"]


def _is_finite_polars(data: Any) -> bool:
    import polars as pl

    column = pl.col(data.key)
    if not data.lazyframe.collect_schema()[data.key].is_float():
        return True
    infinite = data.lazyframe.select(column.is_infinite().any()).collect()
    return not bool(infinite.item())


def _is_numeric_polars(data: Any) -> bool:
    return validation.polars_numeric(data.lazyframe.collect_schema()[data.key])


def _is_bool_polars(data: Any) -> bool:
    return validation.polars_boolean(data.lazyframe.collect_schema()[data.key])


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
        Allow null grades (unjudged rows, ``unjudged="nonrelevant"`` or ``"condense"``).

    Returns
    -------
    pandera.pandas.DataFrameSchema
        Other columns are allowed and left alone.
    """
    pandera_ready()
    import pandera.pandas as pa

    checks = {
        "numeric": (validation.pandas_numeric, "must have a numeric dtype"),
        "finite": (validation.pandas_finite, "grades must be finite"),
        "boolean": (validation.pandas_boolean, "must have a boolean dtype"),
    }
    made = {
        name: pa.Check(f, element_wise=False, name=name, error=error)
        for name, (f, error) in checks.items()
    }
    schema: pa.DataFrameSchema = _schema(
        pa,
        made,
        query,
        item,
        score,
        relevant,
        check_unique=check_unique,
        judged=judged,
        null_grades=null_grades,
    )
    return schema


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
    ``pandera.config.config_context(validation_depth="SCHEMA_AND_DATA")``.
    """
    pandera_ready()
    import pandera.polars as pap

    checks = {
        "numeric": (_is_numeric_polars, "must have a numeric dtype"),
        "finite": (_is_finite_polars, "grades must be finite"),
        "boolean": (_is_bool_polars, "must have a boolean dtype"),
    }
    made = {name: pap.Check(f, name=name, error=error) for name, (f, error) in checks.items()}
    schema: pap.DataFrameSchema = _schema(
        pap,
        made,
        query,
        item,
        score,
        relevant,
        check_unique=check_unique,
        judged=judged,
        null_grades=null_grades,
    )
    return schema


def _schema(
    module: Any,
    checks: dict[str, Any],
    query: str,
    item: str,
    score: str | Sequence[str],
    relevant: str,
    *,
    check_unique: bool,
    judged: str | None,
    null_grades: bool,
) -> Any:
    """The schema of ``pandas_schema`` or ``polars_schema``, from pandera's ``module`` for
    that library and its checks ``numeric``, ``finite`` and ``boolean``."""
    column = module.Column
    flags = {} if judged is None else {judged: column(nullable=False, checks=checks["boolean"])}
    return module.DataFrameSchema(
        {
            query: column(nullable=False),
            item: column(nullable=False),
            **{s: column(nullable=True, checks=checks["numeric"]) for s in _score_columns(score)},
            relevant: column(nullable=null_grades, checks=[checks["numeric"], checks["finite"]]),
            **flags,
        },
        unique=[query, item] if check_unique else None,
        name="rankframe input",
    )


_IMPORTING = threading.Lock()
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
    with _IMPORTING, warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"pyspark(\.|$)")
        if not _IMPORTED.is_set():
            import pandera.config
            import pandera.errors
            import pandera.pandas
            import pandera.polars  # noqa: F401
            from pandera.backends.base import builtin_checks  # noqa: F401
            from pandera.backends.pandas import builtin_checks as _  # noqa: F401

            _IMPORTED.set()
