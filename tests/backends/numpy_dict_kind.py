"""A frame kind defined by the tests alone: a dict of NumPy arrays (one per column).

It proves docs/architecture.md's "a new frame kind is 2 files": this module is the kind's
adapter (a :class:`rankframe.pipeline.contract.FrameAdapter`, the one contract), and the
:func:`register` call below is its registration (``rankframe.adapters.register_kind``); no
other file of ``src/`` knows it. The adapter is a thin delegate: it converts the columns to a
pandas frame at the boundary and hands everything to the pandas adapter, so its results are
the pandas accessor's (as an Arrow table's are). ``tests/backends/test_numpy_dict_kind.py``
runs the value grid on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import polars as pl

from rankframe.adapters import FrameKind, adapt, register_kind
from rankframe.pipeline.contract import Backend, FrameAdapter
from rankframe.pipeline.steps import Request

NAME = "numpy-dict"


class NumpyDictFrame:
    """A dict of equally long NumPy arrays, one per column: the test-only frame kind.
    ``.rank_eval`` is put on the class by the kind's registration."""

    def __init__(self, columns: Mapping[str, npt.NDArray[Any]]) -> None:
        lengths = {len(v) for v in columns.values()}
        assert len(lengths) <= 1, f"columns of different lengths: {lengths}"
        self.arrays = {str(name): np.asarray(values) for name, values in columns.items()}

    @classmethod
    def of(cls, data: pd.DataFrame) -> NumpyDictFrame:
        """The columns of a pandas frame as NumPy arrays (nulls as NaN or ``None``)."""
        return cls({str(c): data[c].to_numpy() for c in data.columns})

    @property
    def columns(self) -> list[str]:
        return list(self.arrays)

    def __len__(self) -> int:
        return len(next(iter(self.arrays.values()))) if self.arrays else 0

    def __getitem__(self, name: str) -> npt.NDArray[Any]:
        return self.arrays[name]

    def copy(self) -> NumpyDictFrame:
        return NumpyDictFrame({name: values.copy() for name, values in self.arrays.items()})

    def equals(self, other: NumpyDictFrame) -> bool:
        return self.columns == other.columns and all(
            pd.Series(self.arrays[c]).equals(pd.Series(other.arrays[c])) for c in self.columns
        )

    def to_pandas(self) -> pd.DataFrame:
        # copy=False: the arrays are read where they lie (pandas copies none of them here)
        return pd.DataFrame(self.arrays, copy=False)


class NumpyDictAdapter(FrameAdapter):
    """The kind's adapter: a delegate of the pandas adapter, converting at the boundary."""

    def __init__(self, frame: NumpyDictFrame) -> None:
        super().__init__(frame)
        self.pandas = adapt(frame.to_pandas())

    def columns(self) -> list[str]:
        columns: list[str] = self.frame.columns
        return columns

    def backend(self, frame: Any) -> Backend:
        native = self.pandas.frame if frame is self.frame else frame
        return self.pandas.backend(native)

    def convert(self, table: Any, request: Request) -> Any:
        return self.pandas.convert(table, request)

    def concat(self, tables: Sequence[Any]) -> Any:
        return self.pandas.concat(tables)

    def polars_columns(self, columns: Sequence[str]) -> pl.DataFrame:
        return self.pandas.polars_columns(columns)

    def pandas_columns(self, columns: Sequence[str]) -> pd.DataFrame:
        return self.pandas.pandas_columns(columns)


def _accessor(accessor: type) -> None:
    """``frame.rank_eval`` on the kind's frames, as the libraries' own accessors."""
    NumpyDictFrame.rank_eval = property(accessor)  # type: ignore[attr-defined]


def register() -> FrameKind:
    """The kind's registration: the one line a new kind adds (here, from the tests:
    ``helpers`` calls it once on import; importing this module registers nothing, so a second
    copy of it, as pytest's doctest collection makes, changes nothing)."""
    return register_kind(NAME, NumpyDictFrame, NumpyDictAdapter, accessor=_accessor)
