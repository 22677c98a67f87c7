"""``compare(metrics, reference=other_frame)``: each system against the same system of
another frame.

The two frames run the one data path side by side: each gives its per-query table in its
own kind (an eager frame at once; a LazyFrame or a Dask frame in parts of whole queries),
and the finish step of the current frame reads both (:meth:`ReferenceComparison.finish`):
the ``empty=`` option and the item metrics on each side, the query ids and the ``by``
segments of both sides numbered together, then :func:`rankframe.pipeline.analysis.compare_samples`
(paired where a segment holds the same queries on both sides, two-sample otherwise).

The reference frame's side is computed when the current frame's finish step runs: at once
for an eager current frame, when the result is collected (LazyFrame) or computed (Dask)
otherwise. The reference may be of any kind rankframe reads; a LazyFrame or Dask
reference is collected or computed then, inside that step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, count
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from rankframe.exceptions import InvalidOptionError
from rankframe.pipeline import analysis
from rankframe.pipeline import windows as _windows
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.steps import Backend, Compared, Kind, Request, ValueColumns, completed
from rankframe.settings.statistics import Tests

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    pass

__all__ = ["ReferenceComparison", "Side", "comparison_columns", "side"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Side:
    """One frame's per-query values as a comparison reads them: after the finish step's
    item metrics and ``empty=`` (:func:`rankframe.pipeline.steps.completed`), with each query's
    id and each segment's ``by`` values (a tuple)."""

    values: PerQuery
    queries: list[object]
    segments: list[tuple[object, ...]]
    window_type: Any = None  # every=: the Arrow type of the window starts


def side(backend: Backend, pq: PerQuery, request: Request, *, segmented: bool = False) -> Side:
    """The :class:`Side` of a per-query table that ``backend`` holds the rows of.

    With ``every=`` (``request.window``), the window is the first segment key (each segment's
    tuple starts with its window start, a Python ``datetime`` or ``date``); ``segmented``
    says that ``pq``'s segments already hold it (the finish step's table)."""
    window = request.window
    if window is not None and not segmented:
        pq, _ = _windows.segmented(pq, window)
    pq = completed(pq, request.options)
    queries = pq.query_labels(np.arange(len(pq.include), dtype=np.int64))
    columns = [backend.labels(b, pq.segment_rows) for b in request.by]
    window_type = None
    if window is not None:
        starts = _windows.segment_starts(pq, window)
        columns.insert(0, starts.to_pylist())
        window_type = starts.type
    segments: list[tuple[object, ...]] = (
        list(zip(*columns, strict=True)) if columns else [()] * pq.n_segments
    )
    return Side(pq, list(queries), segments, window_type)


def comparison_columns(request: Request) -> ValueColumns:
    """The columns of a comparison of two tables of per-query values (after ``keys``)."""
    return analysis.comparison_columns(request.metrics, reference=True)


def joint_codes(left: Sequence[object], right: Sequence[object]) -> tuple[IntArray, IntArray]:
    """Integer codes of two lists of ids (or tuples of ``by`` values) in one numbering:
    equal values, equal codes."""
    codes = dict(zip(dict.fromkeys(chain(left, right)), count(), strict=False))
    mine = np.fromiter(map(codes.__getitem__, left), dtype=np.int64, count=len(left))
    theirs = np.fromiter(map(codes.__getitem__, right), dtype=np.int64, count=len(right))
    return mine, theirs


def _within(reference: Side, current: Side) -> tuple[PerQuery, list[object]]:
    """The reference's queries in the current's segments, numbered as the current's; the
    reference's queries of other segments are left out."""
    mine, theirs = joint_codes(current.segments, reference.segments)
    lookup = np.full(int(max(mine.max(initial=-1), theirs.max(initial=-1))) + 1, -1)
    lookup[mine] = np.arange(len(mine))
    pq = reference.values
    segment = lookup[theirs][pq.segment] if len(theirs) else np.zeros(0, dtype=np.int64)
    keep = segment >= 0
    target = current.values
    restricted = replace(
        pq,
        values=pq.values[keep],
        include=pq.include[keep],
        empty=pq.empty[keep],
        segment=segment[keep].astype(np.int64),
        n_segments=target.n_segments,
        segment_rows=target.segment_rows,
        first_rows=None,
        top=None,
        sets=None,
    )
    queries = [q for q, k in zip(reference.queries, keep.tolist(), strict=True) if k]
    return restricted, queries


@dataclass(frozen=True)
class ReferenceComparison(Compared):
    """Each system against the same system of a reference frame: ``compare(reference=)``.

    ``reference()`` gives the reference frame's :class:`Side` for this request (the
    reference accessor's per-query step, run when the finish step runs)."""

    reference: Callable[[], Side] = field(compare=False)
    tests: Tests
    kind: Kind = "table"
    per_query_rows: bool = False
    refuses: ClassVar[str] = "compare() tests per-query values"
    evaluate_where: ClassVar[str] = " on each frame"

    def value_columns(self, request: Request) -> ValueColumns:
        return comparison_columns(request)

    def finish(
        self, backend: Backend, pq: PerQuery, request: Request
    ) -> tuple[IntArray, dict[str, Any]]:
        """The output's rows and columns: the current frame's per-query table (``pq``,
        whose rows ``backend`` holds, before the finish step) against the reference's."""
        current = side(backend, pq, request, segmented=True)
        other = self.reference()
        _same_windows(current, other, request)
        reference, reference_queries = _within(other, current)
        mine, theirs = joint_codes(current.queries, reference_queries)
        return analysis.compare_samples(
            current.values,
            reference,
            current_ids=mine,
            reference_ids=theirs,
            tests=self.tests,
        )


def _same_windows(current: Side, reference: Side, request: Request) -> None:
    """With ``every=``, both frames' windows must be of one kind (dates, naive datetimes,
    zone-aware datetimes): the same window is the same start."""
    import pyarrow as pa

    if request.window is None:
        return

    def kind(window_type: Any) -> str:
        if window_type is None or not pa.types.is_timestamp(window_type):
            return "dates"
        return "naive datetimes" if window_type.tz is None else "zone-aware datetimes"

    mine, theirs = kind(current.window_type), kind(reference.window_type)
    if len(current.queries) and len(reference.queries) and mine != theirs:
        column = request.window.column
        msg = (
            f"compare(reference=..., every={request.window.every!r}) compares each window of "
            f"this frame with the same window of the reference, but the time column "
            f"{column!r} holds {mine} here and {theirs} in the reference. Convert one of "
            "them (e.g. both to UTC datetimes) first."
        )
        raise InvalidOptionError(msg)
