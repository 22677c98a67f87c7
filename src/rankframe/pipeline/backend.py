"""The bound column names (:class:`ColumnNames`) and one eager frame as the engine reads it
(:class:`Backend`): the part of the one contract (:mod:`rankframe.pipeline.contract`) that an
adapter gives for each eager frame (the input, a part of it, or a per-query table), below
the steps that read it. :mod:`rankframe.pipeline.steps` names both too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from rankframe import engine as _engine

__all__ = ["Backend", "ColumnNames"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ColumnNames:
    """The names of the input columns.

    ``systems`` lists the score columns when several systems are evaluated at once (the
    first is also ``score``); ``None`` for one score column and no ``system`` output column.
    ``judged`` is the boolean column saying which rows are judged (``None``: every row with
    a grade is); ``null_grades``: a null grade is an unjudged row (``unjudged=
    "nonrelevant"`` or ``"condense"``) rather than an error. ``time`` is the time column of
    ``every=`` windows (datetimes, dates, or integer epochs in ``time_unit``); a request
    names it only when it asks for windows, and only then is it read and checked. ``gold`` is
    the column of people's grades beside the judge's in ``relevant`` (``None``: none bound);
    null where no person judged the row (``docs/judgments.md``).

    A composite key (``query=["user_id", "day"]``) lists every column of the key in
    ``query_columns`` (``item_columns``), ``query`` (``item``) being its first: the key is
    the tuple of its columns' values, encoded where one column is
    (:func:`key_codes`, :func:`key_labels`), and outputs carry each column by name.
    """

    query: str = "query"
    item: str = "item"
    score: str = "score"
    relevant: str = "relevant"
    systems: tuple[str, ...] | None = None
    judged: str | None = None
    null_grades: bool = False
    time: str | None = None
    time_unit: str | None = None
    query_columns: tuple[str, ...] = ()
    item_columns: tuple[str, ...] = ()
    sample: str | None = None
    gold: str | None = None

    @property
    def scores(self) -> tuple[str, ...]:
        """Every score column."""
        return self.systems if self.systems is not None else (self.score,)

    @property
    def query_key(self) -> tuple[str, ...]:
        """The query's column(s): several for a composite key."""
        return self.query_columns or (self.query,)

    @property
    def item_key(self) -> tuple[str, ...]:
        """The item's column(s): several for a composite key."""
        return self.item_columns or (self.item,)

    def roles(self) -> dict[str, str]:
        """Column name → role."""
        return {
            **dict.fromkeys(self.query_key, "query"),
            **dict.fromkeys(self.item_key, "item"),
            **dict.fromkeys(self.scores, "score"),
            self.relevant: "relevant",
            **({} if self.judged is None else {self.judged: "judged"}),
            **({} if self.time is None else {self.time: "time"}),
            **({} if self.sample is None else {self.sample: "sample"}),
            **({} if self.gold is None else {self.gold: "gold"}),
        }


class Backend(Protocol):
    """What an adapter provides for one eager frame (the input, or a per-query table)."""

    def extract(self, names: ColumnNames, by: Sequence[str]) -> _engine.FrameData:
        """Validate the frame and hand its columns to the engine."""
        ...

    def table(self, keys: Sequence[str], rows: IntArray | None, values: dict[str, Any]) -> Any:
        """A native frame: the ``keys`` columns taken at ``rows``, then ``values`` (NumPy
        arrays; an Arrow integer array for an integer column with nulls; an Arrow
        temporal array for a time column). A ``window`` column of ``values`` comes first,
        before the keys (``every=``)."""
        ...

    def with_ranks(self, ranks: dict[str, IntArray]) -> Any:
        """The input frame plus an integer column per entry (0 in a rank becomes null)."""
        ...

    def column(self, name: str) -> npt.NDArray[Any]:
        """A column of the frame as a NumPy array (for tables rankframe produced)."""
        ...

    def codes(self, name: str) -> IntArray:
        """Per row, an integer code of the column's value, numbered in sorted order."""
        ...

    def labels(self, name: str, rows: IntArray) -> list[object]:
        """The column's values at ``rows`` as Python objects (for messages)."""
        ...

    def arrow(self, name: str) -> Any:
        """A column of the frame as an Arrow array (the time column of ``every=``)."""
        ...
