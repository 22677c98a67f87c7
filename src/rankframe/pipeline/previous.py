"""``compare(metrics, every="1w")`` with no ``baseline=``: each window against the previous
window, per system (score column) and ``by`` segment.

The finish step makes the window the first segment key
(:func:`rankframe.pipeline.windows.segmented`);
:meth:`PreviousWindow.finish` then reads one per-query table twice: each segment (a window
and its ``by`` values) is the current side, and the queries of the **previous window that
holds queries of the same ``by`` values** are its reference side (a window without queries
has no row, so it is skipped: the output's ``reference_window`` column says which window
each row was compared with). Both sides go to
:func:`rankframe.pipeline.analysis.compare_samples`, with the query positions of the one table as
their ids: paired where both windows hold the same query ids, two-sample otherwise. A query
belongs to one window (its earliest row's), so two windows of one frame never share a
query: the comparison is two-sample (``paired`` False). The first window of each ``by``
segment has no previous one: its rows have NaN tests, a NaN delta, a NaN
``reference_mean``, ``n_reference`` 0 and a null ``reference_window``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from rankframe.pipeline import analysis
from rankframe.pipeline import windows as _windows
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.reference import comparison_columns, side
from rankframe.pipeline.steps import Backend, Compared, Kind, Request, ValueColumns
from rankframe.settings.statistics import Tests

__all__ = ["REFERENCE_WINDOW", "PreviousWindow", "previous_segments"]

IntArray = npt.NDArray[np.int64]

#: the output column: the window each row was compared with (null for a first window)
REFERENCE_WINDOW = "reference_window"


def previous_segments(segments: list[tuple[object, ...]]) -> IntArray:
    """Per segment (``(window start, *by values)``, in order of window start as the finish
    step numbers them), the segment of the latest earlier window with the same ``by``
    values; -1 for none."""
    previous = np.full(len(segments), -1, dtype=np.int64)
    latest: dict[tuple[object, ...], int] = {}
    for g, key in enumerate(segments):  # a loop over segments; queries stay vectorised
        rest = key[1:]
        previous[g] = latest.get(rest, -1)
        latest[rest] = g
    return previous


def _previous_side(pq: PerQuery, previous: IntArray) -> tuple[PerQuery, IntArray]:
    """The reference side: each query of a window moved to the segment of the next window of
    its ``by`` values (the one whose previous window it is), the others left out; and those
    queries' positions in ``pq`` (their ids)."""
    following = np.full(pq.n_segments, -1, dtype=np.int64)
    has_previous = previous >= 0
    following[previous[has_previous]] = np.flatnonzero(has_previous)
    segment = following[pq.segment]
    keep = np.flatnonzero(segment >= 0)
    moved = replace(
        pq,
        values=pq.values[keep],
        include=pq.include[keep],
        empty=pq.empty[keep],
        segment=segment[keep],
        first_rows=None,
        top=None,
        sets=None,
    )
    return moved, keep.astype(np.int64)


@dataclass(frozen=True)
class PreviousWindow(Compared):
    """Each window against the previous window of the same ``by`` values (``compare`` with
    ``every=`` and no ``baseline=``): the table of ``compare(reference=...)`` plus
    :data:`REFERENCE_WINDOW`."""

    tests: Tests
    kind: Kind = "table"
    per_query_rows: bool = False
    refuses: ClassVar[str] = "compare() tests per-query values"

    def value_columns(self, request: Request) -> ValueColumns:
        return [*comparison_columns(request), (REFERENCE_WINDOW, "window")]

    def finish(
        self, backend: Backend, pq: PerQuery, request: Request
    ) -> tuple[IntArray, dict[str, Any]]:
        """The output's rows and columns from the per-query table ``pq`` (segmented by
        window first, as the finish step does)."""
        assert request.window is not None  # a request of every=
        current = side(backend, pq, request, segmented=True)
        previous = previous_segments(current.segments)
        reference, ids = _previous_side(current.values, previous)
        mine = np.arange(len(current.values.include), dtype=np.int64)
        rows, columns = analysis.compare_samples(
            current.values,
            reference,
            current_ids=mine,
            reference_ids=ids,
            tests=self.tests,
        )
        starts = _windows.segment_starts(current.values, request.window)
        per_row = previous[analysis.row_segments(current.values.shape)]
        columns[REFERENCE_WINDOW] = starts.take(pa.array(per_row, pa.int64(), mask=per_row < 0))
        return rows, columns
