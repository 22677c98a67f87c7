"""``rankframe.from_lists``: each frame kind's list columns made into the long frame, by the
one Arrow step of :mod:`rankframe.inputs.lists` (the frame kind is told here, in the
adapters, and nowhere else)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import polars as pl

from rankframe._compat import map_batches
from rankframe.exceptions import InvalidOptionError
from rankframe.inputs.lists import (
    ListNames,
    check_polars_schema,
    pandas_long,
    polars_long,
    polars_long_schema,
)

__all__ = ["from_lists"]


def from_lists(
    frame: Any,
    *,
    query: str = "query",
    recommended: str = "recommended",
    relevant: str = "relevant",
    grades: str | None = None,
) -> Any:
    """A long frame (one row per query and item) from one row per query with list columns.

    The input holds, per query, its ranked list and its truth, the way recommender and search
    code often keeps them. The output is the long frame that ``.rank_eval`` reads with its
    default column names, of the same kind as the input: pandas gives pandas, polars gives
    polars, a LazyFrame gives a LazyFrame (computed when collected), a Dask DataFrame gives a
    Dask DataFrame, a PySpark DataFrame (classic or Spark Connect) gives a PySpark DataFrame
    (its input checked when called, its rows computed when read).

    Parameters
    ----------
    frame
        One row per query: a pandas, polars, Dask or PySpark DataFrame or a polars
        LazyFrame.
    query
        The column of query ids (a user, a search, a session); one row per query.
    recommended
        A list column: the query's ranked items, first = rank 1.
    relevant
        A list column of the query's relevant items (grade 1); in pandas also a column of
        dicts item -> grade (``{"C": 1.0, "K": 2.0}``), or an Arrow map column.
    grades
        A list column parallel to ``relevant``: the grade of each relevant item (then the
        grades of ``relevant``'s items are these instead of 1).

    Returns
    -------
    frame
        Columns ``query``, ``item``, ``score``, ``relevant``, then every other column of the
        input (a theme, a segment: ``by=`` works), repeated on each of the query's rows.
        Per query: first the recommended items in list order, then the relevant items missing
        from the list.

        - ``score``: the position from the bottom, ``len(list) - position + 1`` (the first
          item gets the list's length, the last 1), so that rank = position. Positions are
          distinct, so the ``ties=`` option never matters.
        - a relevant item missing from the list: a null score (judged but not retrieved: it
          counts in R, recall and the ideal DCG).
        - ``relevant``: the item's grade, 0 for recommended items that are not relevant.

        A query with an empty list and an empty truth has no rows.

    Raises
    ------
    ColumnNotFoundError
        A named column is not in the frame (with a "did you mean").
    InvalidDataError
        A column that is not a list column; a null list, a null item or a null grade; an item
        twice in one list; grades whose count differs from the relevant items'; a query id
        on two rows or null; items of two types; a column named like an output column.
        On a LazyFrame or a Dask frame, errors of the data surface when it is computed; on a
        PySpark frame, when ``from_lists`` is called (two Spark jobs check the input).

    Examples
    --------
    The first case of the Korean post on RR (``predict_list``, ``ground_truth``): K is
    relevant but not in the list, so it gets a null score.

    >>> import pandas as pd, rankframe
    >>> cases = pd.DataFrame({
    ...     "query": [1],
    ...     "recommended": [["A", "B", "C", "L", "Y", "U", "F", "Z"]],
    ...     "relevant": [{"C": 1.0, "K": 1.0, "B": 1.0, "Z": 1.0}],
    ... })
    >>> long = rankframe.from_lists(cases)
    >>> long.head(3)
       query item  score  relevant
    0      1    A    8.0       0.0
    1      1    B    7.0       1.0
    2      1    C    6.0       1.0
    >>> long.tail(2)
       query item  score  relevant
    7      1    Z    1.0       1.0
    8      1    K    NaN       1.0
    >>> long.rank_eval.mrr(k=5)
    0.5
    """
    return _long(frame, ListNames(query, recommended, relevant, grades))


def _long(frame: Any, names: ListNames) -> Any:
    """The long frame of ``frame``'s kind: the frame kind told apart, then its reader."""
    module = type(frame).__module__.split(".")[0]  # pyspark: imported only for its frames
    if isinstance(frame, pd.DataFrame):
        return pandas_long(frame, names)
    if module == "polars":
        if isinstance(frame, pl.DataFrame):
            return polars_long(frame, names)
        if isinstance(frame, pl.LazyFrame):
            input_schema = frame.collect_schema()
            check_polars_schema(input_schema, names)
            schema = polars_long_schema(input_schema, names)
            return map_batches(frame, lambda data: polars_long(data, names), schema)
    if module.startswith("dask"):
        # Dask loads only for a Dask frame (a heavy optional library)
        from rankframe.adapters.dask_lists import dask_long

        return dask_long(frame, names)
    if module == "modin":
        # modin loads only for a modin frame (a heavy optional library)
        from rankframe.adapters.modin import from_lists as modin_from_lists

        return modin_from_lists(frame, names)
    if module.startswith("pyspark"):
        # pyspark loads only for a Spark frame (a heavy optional library)
        from rankframe.adapters.spark_lists import spark_from_lists

        return spark_from_lists(frame, names)
    msg = (
        "from_lists takes a pandas, polars, Dask or PySpark DataFrame or a polars LazyFrame; "
        "got "
        f"{type(frame).__module__}.{type(frame).__qualname__}."
    )
    raise InvalidOptionError(msg)
