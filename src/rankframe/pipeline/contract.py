"""The one contract a frame kind implements: :class:`FrameAdapter`.

The data path declares it and the adapters (``rankframe.adapters``) implement it, so this
layer imports no adapter. An adapter is asked three things, each a typed part of the one
contract:

- the frame itself (:class:`FrameAdapter`): its columns, the run of a request, the side of
  ``compare(reference=)``, ranks, result tables (what the accessor, ``check()``, the report
  and the history store ask);
- one eager frame as the engine reads it (:class:`~rankframe.pipeline.steps.Backend`, from
  :meth:`FrameAdapter.backend`): the validated columns (:class:`~rankframe.engine.FrameData`)
  and the output frame of the finish step;
- its item column (:class:`~rankframe.engine.ItemSource`, in the ``FrameData``): ranks,
  hashes and ids by row position, a class of methods rather than closures.

The public accessor holds one adapter and never tests what kind of frame it holds. The
defaults here are those of one eager frame (pandas, polars): the whole frame is one block of
the per-query step. Frames split into parts of whole queries (LazyFrames, Dask, Spark)
override :meth:`~FrameAdapter.run`, :meth:`~FrameAdapter.side`, :meth:`~FrameAdapter.rank`
and :meth:`~FrameAdapter.one_pass`. A new kind registers its adapter with
``rankframe.adapters.register_kind``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rankframe.engine import ItemSource
from rankframe.pipeline import steps
from rankframe.pipeline.reference import Side, side
from rankframe.pipeline.steps import Backend, ColumnNames, Request, ranks
from rankframe.settings.options import Ties

if TYPE_CHECKING:
    import pandas as pd
    import polars as pl

__all__ = ["Backend", "FrameAdapter", "ItemSource"]

IntArray = npt.NDArray[np.int64]


class FrameAdapter(ABC):
    """One native frame as the accessor sees it.

    ``frame`` is what the engine reads (for an Arrow frame, the source its columns are read
    from); ``source`` is the user's own object, which a result remembers
    (:mod:`rankframe.pipeline.provenance`).
    """

    def __init__(self, frame: Any) -> None:
        self.frame = frame

    @property
    def source(self) -> Any:
        """The user's object, as they passed it."""
        return self.frame

    # -- the frame ---------------------------------------------------------------------------

    def columns(self) -> list[str]:
        """The frame's column names, in order."""
        return list(self.frame.columns)

    def index_levels(self) -> list[str]:
        """The names of the frame's index levels (none without an index)."""
        return []

    @abstractmethod
    def backend(self, frame: Any) -> Backend:
        """The engine's view of one eager frame of this kind (an input, or a result table)."""
        ...

    # -- the accessor's requests -------------------------------------------------------------

    def convert(self, table: Any, request: Request) -> Any:  # noqa: ARG002  (adapters use it)
        """The user's result from the finish step's native frame: the frame itself, or a
        float (``"scalar"``) / a value per segment (``"segments"``)."""
        return table

    def run(self, request: Request) -> Any:
        """``request`` on the frame: the user's result."""
        return self.convert(steps.run(self.backend(self.frame), request), request)

    def side(self, request: Request) -> Side:
        """This frame's side of ``compare(reference=...)``."""
        backend = self.backend(self.frame)
        return side(backend, steps.per_query(backend, request), request)

    def rank(self, names: ColumnNames, columns: list[str], ties: Ties) -> Any:
        """The frame plus a rank column per system."""
        backend = self.backend(self.frame)
        return backend.with_ranks(ranks(backend, names, columns, ties))

    def one_pass(self, request: Request) -> Backend | None:  # noqa: ARG002  (Arrow reads it)
        """The backend whose per-query step runs ``request`` over the whole frame in this
        process (one eager frame), or ``None`` for a frame in parts, whose per-query table
        comes from :meth:`run` of a ``per_query`` request."""
        return self.backend(self.frame)

    # -- result tables (check(), the report) -------------------------------------------------

    def eager(self, result: Any) -> Any:
        """A result table of this adapter at hand (a lazy one collected or computed)."""
        return result

    @abstractmethod
    def concat(self, tables: Sequence[Any]) -> Any:
        """Eager result tables of this kind, one under the other."""
        ...

    def pandas_columns(self, columns: Sequence[str]) -> pd.DataFrame:
        """The frame's ``columns`` (all present) as one eager pandas frame."""
        return self.polars_columns(columns).to_pandas()

    @property
    def readable_again(self) -> bool:
        """Whether the frame can be read once more (a one-shot stream cannot)."""
        return True

    @abstractmethod
    def polars_columns(self, columns: Sequence[str]) -> pl.DataFrame:
        """The frame's ``columns`` as one eager polars frame (read once)."""
