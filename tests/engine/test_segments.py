"""Scans over segments (rankframe.engine.segments): the running sums within segments, by
table (:func:`running_sums`) and by doubling steps (:func:`prefix_sums`), against a plain
loop over the entries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankframe.engine import segments


def _loop(segment: np.ndarray, values: np.ndarray) -> list[float]:
    """The running sum within each segment, one entry at a time."""
    out, total = [], 0.0
    for i, v in enumerate(values):
        total = v if i == 0 or segment[i] != segment[i - 1] else total + v
        out.append(total)
    return out


def _layout(sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Each entry's segment and place, for segments of ``sizes`` entries in order."""
    segment = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    place = np.concatenate(
        [np.arange(s, dtype=np.int64) for s in sizes] or [np.zeros(0, dtype=np.int64)]
    )
    return segment, place


@pytest.mark.parametrize(
    "sizes",
    [
        [3, 3, 3, 3],  # every segment full: the entries are the table
        [3, 0, 2, 3, 1],  # ragged, an empty segment: laid out in the table
        [40] + [1] * 5,  # too ragged for the table: doubling steps
        [],
    ],
)
def test_running_sums_equal_a_loop(sizes: list[int]) -> None:
    segment, place = _layout(sizes)
    values = np.random.default_rng(len(sizes)).normal(size=len(segment))
    got = segments.running_sums(segment, place, values, len(sizes))
    assert got.tolist() == pytest.approx(_loop(segment, values), abs=1e-12)
    assert segments.prefix_sums(segment, values).tolist() == pytest.approx(got.tolist(), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 12), max_size=30), st.integers(0, 2**32 - 1))
def test_running_sums_of_any_layout(sizes: list[int], seed: int) -> None:
    segment, place = _layout(sizes)
    values = np.random.default_rng(seed).integers(-5, 5, size=len(segment)).astype(float)
    got = segments.running_sums(segment, place, values, len(sizes))
    assert got.tolist() == _loop(segment, values)  # small integers: exact in any order
    assert not np.shares_memory(got, values)
