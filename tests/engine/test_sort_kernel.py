"""The sort of packed keys (rankframe.engine.sorting): both kernels, NumPy's and polars',
give the order np.lexsort gives, on keys and on the rankings built from them.

The hypothesis tests work on the engine's own input (a frame's columns as arrays: a
``make_frame`` fixture is function-scoped and cannot be combined with ``@given``);
``test_every_frame_kind_ranks_as_lexsort`` ranks through each frame kind with the polars
kernel forced.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import as_pandas
from rankframe.engine import FrameData, ItemColumn, rank, ranking, sorting

KERNELS = ("numpy", "polars")
SETTINGS = settings(max_examples=60, deadline=None)
# ties, negative zero, infinities, NaN (not retrieved), and finite scores so far apart that
# nearby ones share a score bucket of the packed key (their runs are then ordered exactly)
SCORES = (
    0.0,
    -0.0,
    0.5,
    1.0,
    math.nextafter(1.0, 2.0),
    -1.0,
    1e300,
    -1e300,
    math.inf,
    -math.inf,
    math.nan,
)


@contextmanager
def forced(kernel: str) -> Iterator[None]:
    """Every sort of keys, whatever its size, by ``kernel``."""
    with (
        mock.patch.object(sorting, "POLARS_FROM", 0),
        mock.patch.object(sorting, "CHOSEN_KERNEL", kernel),
    ):
        yield


@pytest.mark.parametrize("kernel", KERNELS)
@SETTINGS
@given(
    st.lists(st.integers(0, 2**64 - 1) | st.sampled_from([0, 1, 2**63, 2**64 - 1]), max_size=300)
)
def test_keys_sort_as_numpy(kernel: str, values: list[int]) -> None:
    keys = np.array(values, dtype=np.uint64)
    expected = np.array(sorted(values), dtype=np.uint64)  # Python's sort of the integers
    sorting.sort_keys(keys, using=kernel)  # type: ignore[arg-type]
    assert keys.tolist() == expected.tolist()


def frame_data(query: list[int], score: list[float], grade: list[int]) -> FrameData:
    """The engine's input, for ties="first" (which never reads the items)."""
    codes = np.unique(np.array(query), return_inverse=True)[1].astype(np.int64)

    def unused(*_: Any) -> Any:
        raise AssertionError("ties='first' does not read the items")

    item = ItemColumn(
        dense_ranks=unused,
        hash=unused,
        value=unused,
        values=unused,
        first_of_each=unused,
        encode=unused,
    )
    return FrameData(
        query_codes=codes,
        n_queries=int(codes.max(initial=-1)) + 1,
        score=np.array(score, dtype=np.float64),
        relevant=np.array(grade, dtype=np.int64),
        item=item,
        query_labels=unused,
    )


rows_strategy = st.lists(
    st.tuples(st.integers(0, 4), st.sampled_from(SCORES), st.integers(0, 2)),
    min_size=1,
    max_size=120,
)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("packed", [True, False], ids=["packed-key", "lexsort-ranking"])
@SETTINGS
@given(rows_strategy)
def test_ranking_orders_as_lexsort(
    kernel: str, packed: bool, rows: list[tuple[int, float, int]]
) -> None:
    query, score, grade = (list(column) for column in zip(*rows, strict=True))
    data = frame_data(query, score, grade)
    values = np.array(score)
    retrieved = np.flatnonzero(~np.isnan(values))
    # by query, score descending (-0.0 ties with 0.0), then row: ties="first"
    expected = retrieved[np.lexsort((retrieved, -values[retrieved], data.query_codes[retrieved]))]
    with (
        forced(kernel),
        mock.patch.object(ranking, "MIN_SCORE_BITS", ranking.MIN_SCORE_BITS if packed else 64),
    ):
        got = rank(data, "first")
        assert got.order.tolist() == expected.tolist()
        positive = np.flatnonzero(np.array(grade)[got.order] > 0)
        assert got.positive.tolist() == positive.tolist()


@pytest.mark.parametrize("kernel", KERNELS)
def test_every_frame_kind_ranks_as_lexsort(make_frame: Any, kernel: str) -> None:
    rng = np.random.default_rng(7)
    n = 400
    score = rng.choice(np.array(SCORES), size=n)
    items = rng.permutation(n)  # distinct per query: distinct overall
    frame = pd.DataFrame(
        {
            "query": rng.choice(["q1", "q2", "q10", "x"], size=n),
            "item": [f"d{i}" for i in items],
            "score": score,
            "relevant": rng.integers(0, 3, size=n),
        }
    )
    retrieved = np.flatnonzero(~np.isnan(score))
    # trec: score descending, then item id descending (strings compare as strings)
    item_rank = np.unique(frame["item"].to_numpy(dtype=str), return_inverse=True)[1]
    query_rank = np.unique(frame["query"].to_numpy(dtype=str), return_inverse=True)[1]
    order = retrieved[np.lexsort((-item_rank[retrieved], -score[retrieved], query_rank[retrieved]))]
    expected = {}
    for q in np.unique(query_rank):
        for r, row in enumerate(order[query_rank[order] == q], start=1):
            expected[frame["item"][row]] = r
    with forced(kernel):
        ranked = as_pandas(make_frame(frame).rank_eval.rank(ties="trec"))
    got = {
        item: int(r)
        for item, r in zip(ranked["item"], ranked["rank"], strict=True)
        if not pd.isna(r)
    }
    assert got == expected
