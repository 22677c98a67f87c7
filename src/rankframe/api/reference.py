"""The frame a call compares with (``compare(reference=...)``, ``sample_size(reference=...)``,
``check(reference=...)``): the frame of any object rankframe reads, bound with the calling
accessor's column names once it holds every column they name, and the request of a
comparison with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rankframe.adapters import adapt
from rankframe.exceptions import ColumnNotFoundError, InvalidOptionError
from rankframe.metrics.registry import Metric
from rankframe.pipeline.binding import Binding, Frame
from rankframe.pipeline.previous import PreviousWindow
from rankframe.pipeline.reference import ReferenceComparison
from rankframe.pipeline.steps import ColumnNames, Comparison, PerQueryRows, Request
from rankframe.settings.options import Options
from rankframe.settings.statistics import Tests

__all__ = ["against_baseline", "comparison", "frame_of", "reference_binding", "reference_request"]


def frame_of(obj: Any) -> Frame:
    """The adapter of ``obj``: its own accessor's when it offers one (``obj.rank_eval``: the
    frames ``import rankframe`` registers it on, or any object that gives a ``RankEval``),
    else ``adapt(obj)``."""
    own = None if isinstance(obj, type) else getattr(obj, "rank_eval", None)
    binding = getattr(own, "__rankframe_binding__", None)
    if isinstance(binding, Binding):
        return binding.frame
    return adapt(obj)


def _reference_frame(reference: Any) -> Frame:
    """The frame of ``reference=``; anything rankframe does not read is an error naming its
    type."""
    try:
        return frame_of(reference)
    except TypeError:
        msg = (
            "reference= takes a frame rankframe reads (pandas, polars DataFrame or "
            "LazyFrame, Dask, a pyarrow Table or another Arrow frame); got "
            f"{type(reference).__module__}.{type(reference).__qualname__}."
        )
        raise InvalidOptionError(msg) from None


def _check_reference_columns(available: Sequence[str], names: ColumnNames, by: list[str]) -> None:
    """The reference frame holds every score column (``names``' systems) and every column
    the names and ``by`` name; the first missing one is an error naming it."""
    systems = names.scores
    missing = [s for s in systems if s not in available]
    if missing:
        msg = (
            f"The reference frame has no score column {missing[0]!r} (system "
            f"{missing[0]!r} of this frame): reference= compares each score column with "
            "the same column of the reference frame. Add it there, rename it, or bind "
            "only the systems both frames hold, e.g. "
            f"df.rank_eval(score={[s for s in systems if s not in missing]!r})."
        )
        raise ColumnNotFoundError(msg)
    roles = [*names.roles().items(), *((b, "by") for b in by)]
    for name, role in roles:
        if name not in available:
            msg = (
                f"The reference frame has no column {name!r} ({role}); reference= reads "
                "the same columns as this frame. Add or rename it there."
            )
            raise ColumnNotFoundError(msg)


def reference_binding(
    names: ColumnNames, reference: Any, by: list[str], every: str | None
) -> Binding:
    """The reference frame of ``reference=`` bound with the calling accessor's column names
    ``names`` (the time column only with ``every=``), once it holds every score column and
    every column they name."""
    frame = _reference_frame(reference)
    # the time column is read (and needed there) only for windows
    bound = names if every is not None else replace(names, time=None, time_unit=None)
    other = Binding(frame, bound)
    _check_reference_columns(frame.columns(), bound, by)
    other.check_columns(by)
    return other


def reference_request(
    binding: Binding,
    reference: Any,
    metrics: list[Metric],
    by: list[str],
    options: Options,
    every: str | None,
    tests: Tests,
) -> Request:
    """``compare(reference=...)``'s request on ``binding``'s frame: the reference frame,
    bound with the same column names, gives its side of the comparison when the finish
    step runs."""
    other = reference_binding(binding.names, reference, by, every)
    result = ReferenceComparison(reference=lambda: other.side(theirs), tests=tests)
    # this frame's request first: it checks the metrics
    mine = binding.request(metrics, by, options, result, every)
    theirs = other.request(metrics, by, options, PerQueryRows(), every)
    return mine


def comparison(
    names: ColumnNames, baseline: str | None, every: str | None, tests: Tests, baseline_rows: bool
) -> Comparison | PreviousWindow:
    """``compare()``'s finish step within this frame: each window against the previous
    one (``every=`` without ``baseline=``), else the systems against the baseline."""
    if every is not None and baseline is None:
        return PreviousWindow(tests=tests)
    return against_baseline(names, baseline, tests, baseline_rows)


def against_baseline(
    names: ColumnNames, baseline: str | None, tests: Tests, baseline_rows: bool
) -> Comparison:
    """The systems against the baseline (default the first score column)."""
    systems = names.scores
    if len(systems) < 2:
        msg = (
            "compare() needs at least two score columns to compare; pass them as "
            "df.rank_eval(score=['model_a', 'model_b']).compare(...)."
        )
        raise InvalidOptionError(msg)
    base = systems[0] if baseline is None else baseline  # checked: validate_params
    return Comparison(baseline=systems.index(base), tests=tests, baseline_rows=baseline_rows)
