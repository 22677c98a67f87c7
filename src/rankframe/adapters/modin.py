"""The ``.rank_eval`` accessor of modin DataFrames (``modin.pandas``): the pandas adapter's,
with modin frames at the boundary.

Each request takes the columns it binds (query, item, score(s), relevant, judged, and
``by``) out of the modin frame as a pandas frame (modin's public ``modin.pandas.io.to_pandas``),
runs the pandas path on it, and gives what the pandas accessor gives, as modin objects: a
table as a ``modin.pandas.DataFrame``, a value per segment as a ``modin.pandas.Series``, one
value as a float. The values and the errors are the pandas accessor's, bit for bit and word
for word. Loaded only for a modin frame (modin is an optional, heavy library): ``import
rankframe`` registers the accessor when ``modin.pandas`` is imported (``adapters.register``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import modin.pandas as mpd
import pandas as pd
import polars as pl
from modin.pandas.io import from_pandas, to_pandas

from rankframe.adapters.base import FrameAdapter
from rankframe.adapters.pandas import (
    PandasBackend,
    concat_pandas,
    index_levels,
    pandas_result,
    polars_of_pandas,
)
from rankframe.inputs.lists import ListNames, pandas_long
from rankframe.pipeline import steps
from rankframe.pipeline.reference import Side, side
from rankframe.pipeline.steps import Backend, ColumnNames, Request, ranks
from rankframe.settings.options import Ties

__all__ = [
    "ModinAdapter",
    "from_lists",
    "is_modin",
    "modin_of",
    "pandas_columns",
    "pandas_of",
]


def is_modin(obj: object) -> bool:
    """Whether ``obj`` is a modin DataFrame or Series."""
    return isinstance(obj, mpd.DataFrame | mpd.Series)


def pandas_of(obj: Any) -> Any:
    """A modin DataFrame or Series as pandas'; anything else as it is."""
    return to_pandas(obj) if is_modin(obj) else obj


def modin_of(obj: Any) -> Any:
    """A pandas DataFrame or Series as modin's; anything else (a float) as it is.
    (``from_pandas``: modin's constructor warns that it distributes a frame of a million
    values or more, which a per-query table may be.)"""
    if isinstance(obj, pd.DataFrame):
        return from_pandas(obj)
    if isinstance(obj, pd.Series):  # a value per segment
        return mpd.Series(obj)
    return obj


def pandas_columns(frame: Any, columns: Sequence[str]) -> pd.DataFrame:
    """The ``columns`` of a modin frame as one pandas frame, selected by modin (an empty
    frame is converted whole: modin selects in one by pandas, with a warning)."""
    selected: pd.DataFrame = (
        to_pandas(frame)[list(columns)] if frame.empty else to_pandas(frame[list(columns)])
    )
    return selected


class ModinAdapter(FrameAdapter):
    """A modin DataFrame, read as the pandas frame of the columns a request binds."""

    def index_levels(self) -> list[str]:
        return index_levels(self.frame)

    def backend(self, frame: Any) -> Backend:
        return PandasBackend(pandas_of(frame))

    def _read(self, request: Request) -> PandasBackend:
        columns = list(dict.fromkeys([*request.names.roles(), *request.by]))
        return PandasBackend(pandas_columns(self.frame, columns))

    def convert(self, table: Any, request: Request) -> Any:
        return modin_of(pandas_result(table, request))

    def run(self, request: Request) -> Any:
        return self.convert(steps.run(self._read(request), request), request)

    def side(self, request: Request) -> Side:
        backend = self._read(request)
        return side(backend, steps.per_query(backend, request), request)

    def rank(self, names: ColumnNames, columns: list[str], ties: Ties) -> Any:
        backend = PandasBackend(pandas_of(self.frame))
        return modin_of(backend.with_ranks(ranks(backend, names, columns, ties)))

    def one_pass(self, request: Request) -> Backend | None:
        return self._read(request)

    def eager(self, result: Any) -> Any:
        return pandas_of(result)

    def concat(self, tables: Sequence[Any]) -> Any:
        return modin_of(concat_pandas([pandas_of(t) for t in tables]))

    def polars_columns(self, columns: Sequence[str]) -> pl.DataFrame:
        return polars_of_pandas(self.pandas_columns(list(dict.fromkeys(columns))))

    def pandas_columns(self, columns: Sequence[str]) -> pd.DataFrame:
        return pandas_columns(self.frame, columns)


def from_lists(frame: Any, names: ListNames) -> Any:
    """``rankframe.from_lists`` of a modin frame: the pandas frame's long frame, as modin's."""
    return modin_of(pandas_long(pandas_of(frame), names))
