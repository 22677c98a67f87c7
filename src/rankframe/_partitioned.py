"""Frames split into parts of whole queries (polars LazyFrames, Dask): one way to run them.

A partitioned adapter only splits its frame into parts that each hold every row of their
queries, and concatenates what the parts give. Everything else is here, once:

- :meth:`Parts.map` runs the per-query step on one part (:func:`~rankframe._pipeline.part_table`);
- :meth:`Parts.finish` reads the concatenated per-query tables back and runs the one finish
  step (:func:`~rankframe._pipeline.finish`): means, segments, ``empty`` and its error over
  every query, intervals, tidy rows, ``compare``;
- :class:`NullFacts` and :func:`raise_whole_frame`: the error for nulls in a column that must
  have none names the count and the first row of the *whole* frame, and which error comes
  first follows the schema's order over the whole frame; so each part only reports whether
  it holds such nulls, and the adapter's whole-frame facts are turned into the eager
  accessor's error here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from rankframe import _pipeline, schemas
from rankframe._pipeline import Backend, ColumnNames, Request
from rankframe.exceptions import RankEvalError

__all__ = ["NullFacts", "Parts", "never_null", "raise_whole_frame"]


@dataclass(frozen=True)
class Parts:
    """A request run part by part: ``backend`` builds the engine's view of a native frame
    of the input, ``tables`` that of the concatenated per-query tables (default: the same)."""

    request: Request
    backend: Callable[[Any], Backend]
    tables: Callable[[Any], Backend] | None = None

    def map(self, part: Any) -> Any:
        """The per-query table of one part of whole queries."""
        try:
            return _pipeline.part_table(self.backend(part), self.request)
        except RankEvalError as error:
            # Raised on a worker, the error may be pickled to reach the caller; the pandera
            # error it was raised from (its __context__) says nothing more.
            error.__context__ = error.__cause__ = None
            raise

    def finish(self, tables: Any) -> Any:
        """The request's result from the per-query tables of every part (any order)."""
        backend = (self.tables or self.backend)(tables)
        return _pipeline.finish(backend, _pipeline.from_parts(backend, self.request),
                                self.request)


# -- nulls: counted and located over the whole frame ---------------------------------------


def never_null(names: ColumnNames) -> list[str]:
    """The columns that must not hold nulls, in the order the schema checks them (the grade
    may be null with ``unjudged="nonrelevant"``)."""
    grades = [] if names.null_grades else [names.relevant]
    judged = [] if names.judged is None else [names.judged]
    return [names.query, names.item, *grades, *judged]


class NullFacts(NamedTuple):
    """Nulls of one column over the whole frame: how many, the position of the first one
    in the frame's row order, and that row's query (``None`` for the query column)."""

    nulls: int
    first: int
    query: object


def _schema_error(column: str, message: str, reason: str) -> Any:
    """A pandera ``SchemaError`` about ``column``, for :func:`schemas.translate`."""
    schemas.pandera_ready()
    import pandera.pandas as pa
    from pandera.errors import SchemaError, SchemaErrorReason

    return SchemaError(  # type: ignore[no-untyped-call]
        schema=pa.Column(name=column), data=None, message=message,
        reason_code=getattr(SchemaErrorReason, reason),
    )


def raise_whole_frame(
    names: ColumnNames, facts: Sequence[NullFacts], not_numeric: Mapping[str, object], *,
    flavour: str,
) -> None:
    """Raise the eager accessor's error for the whole frame, from its facts: each
    never-null column's :class:`NullFacts` (:func:`never_null` order) and the score or
    grade columns that are not numeric (column → a dtype it has). The schema's order
    decides which error comes first: the query, item, score and relevant columns in turn,
    and within the relevant column its nulls before its dtype. ``flavour`` (``"pandas"``
    or ``"polars"``) spells the fix in the user's library."""
    nulls = dict(zip(never_null(names), facts, strict=True))
    judged = [] if names.judged is None else [names.judged]
    for column in [names.query, names.item, *names.scores, names.relevant, *judged]:
        fact = nulls.get(column)
        if fact is not None and fact.nulls:
            failure = _schema_error(column, f"column {column!r} contains null values",
                                    "SERIES_CONTAINS_NULLS")
            report = (fact.nulls, fact.first, None if column == names.query else fact.query)
            raise schemas.translate(
                failure, roles=names.roles(), dtype_of=lambda _: None,
                null_report=lambda _, report=report: report, flavour=flavour,
            ) from None
        if column in not_numeric:
            failure = _schema_error(column, f"column {column!r} must have a numeric dtype",
                                    "DATAFRAME_CHECK")
            raise schemas.translate(
                failure, roles=names.roles(), dtype_of=lambda c: not_numeric[c],
                null_report=None, flavour=flavour,
            ) from None
