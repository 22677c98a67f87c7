"""``rankframe.from_scores``: a score matrix and the truth as a long pandas frame.

The full frame is checked against ranks computed here with NumPy (trec_eval's tie rule: equal
scores by item id descending); the top-k frame against the full frame, for every metric with
a cut-off of at most k, under every ``ties=`` option, on matrices with many ties.
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe import InvalidDataError, InvalidOptionError

TIES = ["trec", "first", "optimistic", "pessimistic"]


def _true_rank(scores: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """The rank of each row's true column: higher scores first, equal scores by column
    descending (trec_eval's rule for numeric ids)."""
    columns = np.arange(scores.shape[1])
    true_score = scores[np.arange(len(truth)), truth][:, None]
    above = (scores > true_score) | ((scores == true_score) & (columns > truth[:, None]))
    return above.sum(axis=1) + 1


def test_full_frame_against_numpy_ranks() -> None:
    rng = np.random.default_rng(1)
    scores = rng.integers(0, 5, size=(300, 40))  # many ties
    truth = rng.integers(0, 40, size=300)
    rank = _true_rank(scores, truth)
    long = rankframe.from_scores(scores, truth)
    assert len(long) == 300 * 40
    table = long.rank_eval.evaluate(["acc@1", "acc@3", "mrr", "ndcg@5"])
    assert table.loc[0, "acc@1"] == pytest.approx(np.mean(rank <= 1))
    assert table.loc[0, "acc@3"] == pytest.approx(np.mean(rank <= 3))
    assert table.loc[0, "mrr"] == pytest.approx(np.mean(1 / rank))
    assert table.loc[0, "ndcg@5"] == pytest.approx(
        np.mean(np.where(rank <= 5, 1 / np.log2(rank + 1), 0.0))
    )


def _cut_metrics(k: int) -> list[str]:
    cuts = sorted({1, max(1, k // 2), k})
    names = ["acc", "mrr", "ndcg", "precision", "recall", "map"]
    return [f"{name}@{c}" for name in names for c in cuts]


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("k", [1, 3, 7])
@pytest.mark.parametrize("graded", [False, True])
def test_top_k_is_exact_for_cut_offs_up_to_k(ties: str, k: int, graded: bool) -> None:
    rng = np.random.default_rng(k)
    scores = rng.integers(0, 4, size=(200, 25)).astype(np.float32)  # ties at every boundary
    scores[:5] = 1.0  # rows of one score throughout
    truth: Any = rng.integers(0, 25, size=200)
    if graded:
        truth = rng.choice([0, 0, 0, 1, 2, 3], size=(200, 25))
        truth[7] = 0  # a row without any relevant column
    metrics = _cut_metrics(k)
    whole = rankframe.from_scores(scores, truth)
    top = rankframe.from_scores(scores, truth, k=k)
    assert len(top) < len(whole) * 0.8
    full = whole.rank_eval.per_query(metrics, ties=ties)
    cut = top.rank_eval.per_query(metrics, ties=ties)
    pd.testing.assert_frame_equal(cut, full, check_exact=False, rtol=0, atol=1e-12)


def test_tie_straddling_the_k_th_place_keeps_the_group() -> None:
    scores = np.array([[1.0, 2.0, 2.0, 2.0, 0.0], [5.0, 4.0, 3.0, 2.0, 1.0]])
    long = rankframe.from_scores(scores, np.array([0, 4]), k=2)
    assert long[["query", "item"]].to_numpy().tolist() == [
        [0, 0],
        [0, 1],
        [0, 2],
        [0, 3],  # 0 is the truth (null score), 1-3 tie at 2nd place
        [1, 0],
        [1, 1],
        [1, 4],
    ]
    assert long["score"].isna().tolist() == [True, False, False, False, False, False, True]
    assert long["relevant"].tolist() == [1, 0, 0, 0, 0, 0, 1]
    # trec_eval's rule: among the tied columns 3 ranks first
    assert long.rank_eval.per_query("mrr@2")["mrr@2"].tolist() == [0.0, 0.0]
    optimistic = long.rank_eval.per_query("mrr", ties="optimistic")
    assert optimistic["mrr(ties=optimistic)"].tolist() == [0.0, 0.0]


def test_ids_and_string_tie_rule() -> None:
    scores = np.array([[1.0, 1.0, 0.5]])
    long = rankframe.from_scores(
        scores, np.array([0]), queries=["u1"], items=["apple", "pear", "fig"]
    )
    assert long["query"].tolist() == ["u1"] * 3
    assert long["item"].tolist() == ["apple", "pear", "fig"]
    # apple and pear tie: trec_eval ranks 'pear' (the larger string) first
    assert long.rank_eval.mrr() == 0.5
    assert (
        rankframe.from_scores(
            scores, np.array([0]), k=1, items=["apple", "pear", "fig"]
        ).rank_eval.mrr(k=1)
        == 0.0
    )


def test_dtypes() -> None:
    truth = np.array([1, 0])
    float32 = rankframe.from_scores(np.ones((2, 3), dtype=np.float32), truth, k=1)
    assert float32["score"].dtype == np.float32
    assert rankframe.from_scores(np.ones((2, 3), np.float16), truth)["score"].dtype == (np.float32)
    integers = rankframe.from_scores(np.array([[3, 2, 1], [1, 2, 3]]), truth, k=1)
    assert str(integers["score"].dtype) == "Int64"
    # by row, then column: (0, 0) kept, (0, 1) true; (1, 0) true, (1, 2) kept
    assert integers["score"].isna().tolist() == [False, True, True, False]
    assert integers.rank_eval.acc(k=1) == 0.0
    graded = rankframe.from_scores(np.ones((2, 3)), np.array([[0.5, 0, 0], [0, 0, 2.0]]))
    assert graded["relevant"].dtype == np.float64


class _DLPackOnly:
    """An array that NumPy can read only through DLPack (as a tensor of another library)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()


def test_dlpack_and_array_inputs_without_copy() -> None:
    scores = np.array([[0.1, 0.9], [0.8, 0.2]])
    via_dlpack = rankframe.from_scores(_DLPackOnly(scores), _DLPackOnly(np.array([1, 1])))
    assert via_dlpack.rank_eval.mrr() == 0.75
    assert rankframe.from_scores(scores.tolist(), [1, 1]).rank_eval.mrr() == 0.75


def test_no_full_size_copy_of_the_matrix() -> None:
    scores = np.random.default_rng(0).random((20_000, 500), dtype=np.float32)  # 40 MB
    truth = np.zeros(20_000, dtype=np.int64)
    scores.flags.writeable = False  # read in place, never written
    tracemalloc.start()
    long = rankframe.from_scores(scores, truth, k=5)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(long) >= 20_000 * 5
    assert peak < scores.nbytes * 0.75, f"peak {peak:,} bytes for a {scores.nbytes:,}-byte matrix"


# -- errors ----------------------------------------------------------------------------------


def _fails(error: type[Exception], match: str, scores: Any, truth: Any, **kwargs: Any) -> None:
    with pytest.raises(error, match=match):
        rankframe.from_scores(scores, truth, **kwargs)


GOOD = np.zeros((3, 4))
TRUTH = np.array([0, 1, 3])


def test_scores_not_2d() -> None:
    _fails(
        InvalidDataError,
        r"scores must be a 2-D array \(one row per query, one column per "
        r"item\); got shape \(4,\)",
        np.zeros(4),
        TRUTH,
    )


def test_scores_not_numbers() -> None:
    _fails(
        InvalidDataError,
        r"scores must hold numbers \(int or float\); got dtype bool",
        np.zeros((3, 4), dtype=bool),
        TRUTH,
    )


@pytest.mark.parametrize("k", [None, 2])
def test_nan_score(k: int | None) -> None:
    scores = GOOD.copy()
    scores[2, 1] = np.nan
    _fails(
        InvalidDataError,
        r"scores has a NaN in row 2, column 1; from_scores needs a number "
        r"for every row and column\. Replace the NaN first",
        scores,
        TRUTH,
        k=k,
    )


def test_truth_not_integers() -> None:
    _fails(
        InvalidDataError,
        r"truth must be a 1-D array of integers \(the true column of "
        r"each row\) or a 2-D array of grades; got a 1-D array of dtype float64\. Convert",
        GOOD,
        TRUTH.astype(float),
    )


def test_truth_of_another_length() -> None:
    _fails(InvalidDataError, r"truth has 2 entries but scores has 3 rows", GOOD, TRUTH[:2])


@pytest.mark.parametrize("bad", [4, -100])
def test_truth_out_of_range(bad: int) -> None:
    _fails(
        InvalidDataError,
        rf"truth has {bad} in row 1, but scores has 4 columns \(0 to 3\); "
        r"1 rows in all are outside\. Drop those rows first",
        GOOD,
        np.array([0, bad, 3]),
    )


def test_grades_of_another_shape() -> None:
    _fails(
        InvalidDataError,
        r"or a 2-D array of grades of the shape of scores \(3, 4\); got "
        r"shape \(3, 5\)",
        GOOD,
        np.zeros((3, 5)),
    )


def test_nan_grade() -> None:
    grades = np.zeros((3, 4))
    grades[0, 3] = np.nan
    _fails(InvalidDataError, r"truth has a NaN in row 0, column 3", GOOD, grades)


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "5"])
def test_bad_k(k: Any) -> None:
    _fails(
        InvalidOptionError,
        r"The 'k' parameter of from_scores must be a positive integer "
        rf"or None\. Got {re_repr(k)} instead\.",
        GOOD,
        TRUTH,
        k=k,
    )


def re_repr(value: Any) -> str:
    import re

    return re.escape(repr(value))


def test_ids_of_another_count() -> None:
    _fails(
        InvalidDataError,
        r"items has 3 ids but scores has 4 columns; give one id per "
        r"column",
        GOOD,
        TRUTH,
        items=["a", "b", "c"],
    )


def test_repeated_ids() -> None:
    _fails(
        InvalidDataError,
        r"queries has the id 'u1' 2 times; the ids of the rows must be "
        r"unique",
        GOOD,
        TRUTH,
        queries=["u1", "u2", "u1"],
    )


def test_null_id() -> None:
    _fails(
        InvalidDataError,
        r"items has a null id \(at position 2\)",
        GOOD,
        TRUTH,
        items=["a", "b", None, "d"],
    )


def test_unreadable_array() -> None:
    class Broken:
        def __array__(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad.")

    _fails(
        InvalidDataError,
        r"scores cannot be read as a NumPy array \(.*Broken: .Can't call "
        r"numpy\(\) on Tensor that requires grad\..\)\. Pass a NumPy array or an array on the"
        r" CPU \(for a torch tensor: tensor\.detach\(\)\.cpu\(\)\)",
        Broken(),
        TRUTH,
    )


def test_k_beyond_columns_is_the_full_frame() -> None:
    assert len(rankframe.from_scores(GOOD, TRUTH, k=10)) == 12
    # every score ties: the tied group at the first place is every column
    tied = rankframe.from_scores(GOOD, TRUTH, k=1)
    assert len(tied) == 12
    assert not tied["score"].isna().any()
