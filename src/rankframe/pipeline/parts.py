"""Frames split into parts of whole queries (polars LazyFrames, Dask): one way to run them.

A partitioned adapter only splits its frame into parts that each hold every row of their
queries, and concatenates what the parts give. Everything else is here, once:

- :meth:`Parts.map` runs the per-query step on one part
  (:func:`~rankframe.pipeline.steps.part_table`);
- :meth:`Parts.finish` reads the concatenated per-query tables back and runs the one finish
  step (:func:`~rankframe.pipeline.steps.finish`): means, segments, ``empty`` and its error over
  every query, intervals, tidy rows, ``compare``.

The errors of the input contract name the count and the first row of the *whole* frame, and
which comes first follows the schema's order over the whole frame: each part only says
whether it breaks the contract, and the adapter combines the facts of every part and raises
the eager accessor's error (:mod:`rankframe.pipeline.validation`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rankframe.exceptions import RankEvalError
from rankframe.pipeline import steps
from rankframe.pipeline.steps import Backend, Request

__all__ = ["Parts"]


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
            return steps.part_table(self.backend(part), self.request)
        except RankEvalError as error:
            error.detached()
            raise

    def finish(self, tables: Any) -> Any:
        """The request's result from the per-query tables of every part (any order)."""
        backend = (self.tables or self.backend)(tables)
        return steps.finish(backend, steps.from_parts(backend, self.request), self.request)
