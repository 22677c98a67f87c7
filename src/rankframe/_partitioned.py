"""Frames split into parts of whole queries (polars LazyFrames, Dask): one way to run them.

A partitioned adapter only splits its frame into parts that each hold every row of their
queries, and concatenates what the parts give. Everything else is here, once:

- :meth:`Parts.map` runs the per-query step on one part (:func:`~rankframe._pipeline.part_table`);
- :meth:`Parts.finish` reads the concatenated per-query tables back and runs the one finish
  step (:func:`~rankframe._pipeline.finish`): means, segments, ``empty`` and its error over
  every query, intervals, tidy rows, ``compare``;
- :class:`NullFacts` and :func:`raise_nulls`: the error for nulls in a column that must have
  none names the count and the first row of the *whole* frame, so each part only reports
  whether it holds such nulls, and the adapter's whole-frame counts are turned into the
  eager accessor's error here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from rankframe import _pipeline, schemas
from rankframe._pipeline import Backend, ColumnNames, Request
from rankframe.exceptions import RankEvalError

__all__ = ["NullFacts", "Parts", "never_null", "raise_nulls"]


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

    def part_columns(self) -> list[tuple[str, str]]:
        """The per-query table's columns beyond the query and ``by`` columns."""
        return self.request.part_columns()


# -- nulls: counted and located over the whole frame ---------------------------------------


def never_null(names: ColumnNames) -> list[str]:
    """The columns that must not hold nulls, in the order the schema checks them."""
    return [names.query, names.item, names.relevant]


class NullFacts(NamedTuple):
    """Nulls of one column over the whole frame: how many, the position of the first one
    in the frame's row order, and that row's query (``None`` for the query column)."""

    nulls: int
    first: int
    query: object


def raise_nulls(
    names: ColumnNames, facts: Sequence[NullFacts], *, numeric_scores: bool, flavour: str
) -> None:
    """Raise the eager accessor's error for the first column (in :func:`never_null` order)
    with nulls, given each column's :class:`NullFacts` of the whole frame.

    The schema reports a non-numeric score before nulls in the relevant column: then this
    returns, and the part's own validation raises the score's error. ``flavour``
    (``"pandas"`` or ``"polars"``) spells the fix in the user's library.
    """
    schemas.pandera_ready()
    import pandera.pandas as pa
    from pandera.errors import SchemaError, SchemaErrorReason

    for column, fact in zip(never_null(names), facts, strict=True):
        if not fact.nulls:
            continue
        if column == names.relevant and not numeric_scores:
            return
        failure = SchemaError(  # type: ignore[no-untyped-call]
            schema=pa.Column(name=column),
            data=None,
            message=f"column {column!r} contains null values",
            reason_code=SchemaErrorReason.SERIES_CONTAINS_NULLS,
        )
        report = (fact.nulls, fact.first, None if column == names.query else fact.query)
        raise schemas.translate(
            failure, roles=names.roles(), dtype_of=lambda _: None,
            null_report=lambda _, report=report: report, flavour=flavour,
        ) from None


def nulls_reported(has_nulls: Sequence[bool], *, numeric_scores: bool) -> bool:
    """Whether :func:`raise_nulls` raises for a part whose never-null columns hold nulls as
    ``has_nulls`` says (query, item, relevant): then the part's own result is not used."""
    query, item, relevant = has_nulls
    return query or item or (relevant and numeric_scores)
