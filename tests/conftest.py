"""Shared fixtures: every test that takes a frame runs on every frame kind.

``make_frame`` is parametrised over pandas (NumPy dtypes), pandas with pyarrow dtypes, polars
eager and polars lazy. It builds the frame from a dict or a pandas frame, remembers a copy,
and after the test checks that rankframe left the frame unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import polars as pl
import pytest

import rankframe  # noqa: F401  (registers the accessors)

FRAME_KINDS = ["pandas", "pandas-pyarrow", "polars", "polars-lazy"]


def _native(data: pd.DataFrame, kind: str) -> Any:
    if kind == "pandas":
        return data.copy()
    if kind == "pandas-pyarrow":
        return data.convert_dtypes(dtype_backend="pyarrow")
    frame = pl.from_pandas(data, nan_to_null=True)
    return frame.lazy() if kind == "polars-lazy" else frame


def _same(before: Any, after: Any) -> None:
    if isinstance(after, pd.DataFrame):
        pd.testing.assert_frame_equal(after, before)
    else:
        if isinstance(after, pl.LazyFrame):
            before, after = before.collect(), after.collect()
        assert after.equals(before), "rankframe modified the input frame"


class FrameMaker:
    """Builds frames of one kind; ``kind`` tells which."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.made: list[tuple[Any, Any]] = []

    def __call__(self, data: dict[str, Any] | pd.DataFrame) -> Any:
        frame = _native(pd.DataFrame(data), self.kind)
        snapshot = frame.clone() if isinstance(frame, pl.DataFrame) else (
            frame.copy(deep=True) if isinstance(frame, pd.DataFrame) else frame.collect()
        )
        self.made.append((snapshot, frame))
        return frame

    @property
    def is_lazy(self) -> bool:
        return self.kind == "polars-lazy"

    def check_unchanged(self) -> None:
        for snapshot, frame in self.made:
            before = snapshot.lazy() if isinstance(frame, pl.LazyFrame) else snapshot
            _same(before, frame)


@pytest.fixture(params=FRAME_KINDS)
def make_frame(request: pytest.FixtureRequest) -> Iterator[FrameMaker]:
    maker = FrameMaker(request.param)
    yield maker
    maker.check_unchanged()
