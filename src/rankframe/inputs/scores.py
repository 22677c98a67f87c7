"""``rankframe.from_scores``: a score matrix (rows = queries, columns = items) as a long frame.

The matrix is read where it lies (``np.asarray`` or DLPack: a CPU torch tensor is not copied)
and, with ``k``, in blocks of rows: each block's k-th largest score per row comes from
``np.partition`` of that block, and the kept columns of a row are those scoring at least
that much. So the memory beyond the matrix is one block, plus the rows kept; no full-size
copy of the matrix is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from rankframe.exceptions import InvalidDataError, InvalidOptionError, excerpt

__all__ = ["from_scores"]

IntArray = npt.NDArray[np.int64]
_BLOCK_CELLS = 1 << 20
"""Cells (rows x columns) of the matrix read in one block when ``k`` is given."""


def _numpy(value: Any, name: str) -> npt.NDArray[Any]:
    """An array as NumPy without a copy where it can: ``__array__``, else DLPack (a list or
    a tuple is converted)."""
    if isinstance(value, np.ndarray):
        return value
    try:
        if hasattr(value, "__array__") or not hasattr(value, "__dlpack__"):
            return np.asarray(value)
        return np.from_dlpack(value)
    except (TypeError, ValueError, RuntimeError, BufferError) as error:
        raise InvalidDataError(_unreadable(value, name, error)) from None


def _unreadable(value: Any, name: str, error: Exception) -> str:
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    return (
        f"{name} cannot be read as a NumPy array ({kind}: "
        f"{excerpt(str(error).splitlines()[0] if str(error) else '', 200)}). Pass a NumPy "
        "array or an array on the CPU (for a torch tensor: tensor.detach().cpu())."
    )


def _check_k(k: object, n_columns: int) -> int | None:
    """``None`` for the whole matrix (also when k reaches the number of columns)."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        msg = (
            "The 'k' parameter of from_scores must be a positive integer or None. Got "
            f"{k!r} instead."
        )
        raise InvalidOptionError(msg)
    return None if k >= n_columns else int(k)


def _ids(ids: Sequence[Any] | None, size: int, name: str, axis: str) -> pd.Index:
    """The ids of the rows or the columns: given (one per row or column, unique, not null),
    else 0, 1, ..."""
    if ids is None:
        return pd.RangeIndex(size)
    index: pd.Index = pd.Index(ids)
    if len(index) != size:
        msg = (
            f"{name} has {len(index):,} ids but scores has {size:,} {axis}; give one id per "
            f"{axis[:-1]}."
        )
        raise InvalidDataError(msg)
    if index.hasnans:
        at = int(np.flatnonzero(index.isna())[0])
        msg = f"{name} has a null id (at position {at:,}); every {axis[:-1]} needs an id."
        raise InvalidDataError(msg)
    if not index.is_unique:
        repeated = index[index.duplicated()][0]
        count = int((index == repeated).sum())
        msg = (
            f"{name} has the id {excerpt(repeated)} {count} times; the ids of the {axis} must "
            "be unique."
        )
        raise InvalidDataError(msg)
    return index


def _check_scores(scores: npt.NDArray[Any]) -> None:
    if scores.ndim != 2:
        msg = (
            "scores must be a 2-D array (one row per query, one column per item); got shape "
            f"{scores.shape}."
        )
        raise InvalidDataError(msg)
    if scores.dtype.kind not in "iuf":
        msg = (
            f"scores must hold numbers (int or float); got dtype {scores.dtype}. Convert it "
            "first (e.g. scores.astype(np.float32))."
        )
        raise InvalidDataError(msg)


def _check_nan(block: npt.NDArray[Any], first_row: int, name: str) -> None:
    """A NaN in a block of rows is an error naming its row and column."""
    if block.dtype.kind != "f" or not np.isnan(block).any():
        return
    row, column = (int(i[0]) for i in np.nonzero(np.isnan(block)))
    msg = (
        f"{name} has a NaN in row {first_row + row:,}, column {column:,}; from_scores needs a "
        "number for every row and column. Replace the NaN first (e.g. np.nan_to_num(x, "
        "nan=-np.inf) ranks them last)."
    )
    raise InvalidDataError(msg)


def _check_truth(truth: npt.NDArray[Any], shape: tuple[int, int]) -> None:
    n_rows, n_columns = shape
    if truth.ndim == 1:
        if truth.dtype.kind not in "iu":
            msg = (
                "truth must be a 1-D array of integers (the true column of each row) or a "
                f"2-D array of grades; got a 1-D array of dtype {truth.dtype}. Convert it "
                "first (e.g. truth.astype(int))."
            )
            raise InvalidDataError(msg)
        if len(truth) != n_rows:
            msg = (
                f"truth has {len(truth):,} entries but scores has {n_rows:,} rows; give the "
                "true column of each row."
            )
            raise InvalidDataError(msg)
        outside = np.flatnonzero((truth < 0) | (truth >= n_columns))
        if outside.size:
            row = int(outside[0])
            msg = (
                f"truth has {truth[row].item()} in row {row:,}, but scores has {n_columns:,} "
                f"columns (0 to {n_columns - 1:,}); {outside.size:,} rows in all are outside. "
                "Drop those rows first (e.g. keep = (truth >= 0) & (truth < scores.shape[1]))."
            )
            raise InvalidDataError(msg)
        return
    if truth.ndim != 2 or truth.shape != shape:
        msg = (
            f"truth must be a 1-D array of the true column of each row (length {n_rows:,}) "
            f"or a 2-D array of grades of the shape of scores {shape}; got shape "
            f"{truth.shape}."
        )
        raise InvalidDataError(msg)
    if truth.dtype.kind not in "biuf":
        msg = f"The grades in truth must be numbers (bool, int or float); got dtype {truth.dtype}."
        raise InvalidDataError(msg)


def _frame(
    rows: IntArray,
    columns: IntArray,
    score: Any,
    grade: npt.NDArray[Any],
    queries: pd.Index,
    items: pd.Index,
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query": queries.take(rows),
            "item": items.take(columns),
            "score": score,
            "relevant": grade,
        }
    )


def _score_column(values: npt.NDArray[Any], retrieved: npt.NDArray[np.bool_] | None) -> Any:
    """The kept scores in their dtype (float16 as float32); the unretrieved true columns
    null: NaN for floats, a masked integer array for integers."""
    if values.dtype == np.float16:
        values = values.astype(np.float32)
    if retrieved is None:
        return values
    if values.dtype.kind == "f":
        return np.where(retrieved, values, np.nan).astype(values.dtype, copy=False)
    return pd.arrays.IntegerArray(values, ~retrieved)


def _full(
    scores: npt.NDArray[Any], truth: npt.NDArray[Any], queries: pd.Index, items: pd.Index
) -> pd.DataFrame:
    """Every (row, column): n x V rows."""
    n_rows, n_columns = scores.shape
    step = max(1, _BLOCK_CELLS // max(n_columns, 1))
    for start in range(0, n_rows, step):
        _check_nan(scores[start : start + step], start, "scores")
    rows = np.repeat(np.arange(n_rows, dtype=np.int64), n_columns)
    columns = np.tile(np.arange(n_columns, dtype=np.int64), n_rows)
    if truth.ndim == 1:
        grade = np.zeros(n_rows * n_columns, dtype=np.int64)
        grade[np.arange(n_rows, dtype=np.int64) * n_columns + truth] = 1
    else:
        grade = truth.reshape(-1)
    return _frame(rows, columns, _score_column(scores.reshape(-1), None), grade, queries, items)


def _top(
    scores: npt.NDArray[Any],
    truth: npt.NDArray[Any],
    k: int,
    queries: pd.Index,
    items: pd.Index,
) -> pd.DataFrame:
    """Per row, the columns scoring at least its k-th largest score (k of them, more when
    a tie straddles the k-th place), then the true columns outside them."""
    n_rows, n_columns = scores.shape
    step = max(1, _BLOCK_CELLS // n_columns)
    parts: list[
        tuple[IntArray, IntArray, npt.NDArray[Any], npt.NDArray[np.bool_], npt.NDArray[Any]]
    ] = []
    for start in range(0, n_rows, step):
        block = scores[start : start + step]
        _check_nan(block, start, "scores")
        threshold = np.partition(block, n_columns - k, axis=1)[:, n_columns - k]
        kept = block >= threshold[:, None]
        if truth.ndim == 1:
            true_column = truth[start : start + step]
            local = np.arange(len(block), dtype=np.int64)
            outside = ~kept[local, true_column]
            extra_rows, extra_columns = local[outside], true_column[outside].astype(np.int64)
            extra_grade = np.ones(len(extra_rows), dtype=np.int64)
        else:
            grades = truth[start : start + step]
            extra_rows, extra_columns = np.nonzero((grades != 0) & ~kept)
            extra_grade = grades[extra_rows, extra_columns]
        rows, columns = np.nonzero(kept)
        grade = (
            np.asarray(columns == true_column[rows], dtype=np.int64)
            if truth.ndim == 1
            else grades[rows, columns]
        )
        all_rows = np.concatenate([rows, extra_rows]).astype(np.int64)
        all_columns = np.concatenate([columns, extra_columns]).astype(np.int64)
        retrieved = np.concatenate([np.ones(len(rows), bool), np.zeros(len(extra_rows), bool)])
        values = np.concatenate(
            [block[rows, columns], np.zeros(len(extra_rows), dtype=block.dtype)]
        )
        all_grades = np.concatenate([grade, extra_grade])
        if len(extra_rows):  # by row, then column, as the full frame is
            order = np.argsort(all_rows * n_columns + all_columns, kind="stable")
            all_rows, all_columns = all_rows[order], all_columns[order]
            retrieved, values, all_grades = retrieved[order], values[order], all_grades[order]
        parts.append((all_rows + start, all_columns, values, retrieved, all_grades))
    if not parts:
        return _full(scores, truth, queries, items)
    rows, columns, values, retrieved, grade = (np.concatenate(p) for p in zip(*parts, strict=True))
    return _frame(rows, columns, _score_column(values, retrieved), grade, queries, items)


def _read(scores: Any, truth: Any) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """The score matrix and the truth as NumPy arrays (no copy where they can be read in
    place), checked: their shapes, and no NaN in the scores or in float truth."""
    matrix = _numpy(scores, "scores")
    _check_scores(matrix)
    truth_array = _numpy(truth, "truth")
    _check_truth(truth_array, matrix.shape)
    if truth_array.dtype.kind == "f":
        _check_nan(truth_array, 0, "truth")
    return matrix, truth_array


def from_scores(
    scores: Any,
    truth: Any,
    *,
    k: int | None = None,
    queries: Sequence[Any] | None = None,
    items: Sequence[Any] | None = None,
) -> pd.DataFrame:
    """A long pandas frame from a score matrix: one row per query, one column per item.

    The shape of a model's output (logits ``[batch, num_locations]``, a user x item score
    matrix) and the true column of each row, ready for ``.rank_eval``.

    Parameters
    ----------
    scores
        A 2-D array of numbers (int or float, no NaN): NumPy, or anything NumPy reads
        through ``__array__`` or DLPack, such as a CPU torch tensor (read without a copy;
        rankframe does not import torch).
    truth
        Either a 1-D integer array, the true column of each row (grade 1, every other
        column 0), or a 2-D array of grades of the shape of ``scores``.
    k
        Keep only each row's top k columns (and the true columns outside them, as rows with a
        null score: judged but not retrieved). Every metric with a cut-off of at most k is
        then exact (``acc@k``, ``mrr@k``, ``ndcg@k``, ``precision@k``, ``recall@k``,
        ``map@k``), under every ``ties=`` option, at about k/V of the rows. A tie that
        straddles the k-th place keeps the whole tied group, so a row can keep more than k
        columns. Metrics without a cut-off then see the top k only: ``mrr`` is ``mrr@k``.
        ``None`` (or k of at least the number of columns) keeps every column.
    queries, items
        The ids of the rows and of the columns (unique, not null); by default 0, 1, ...

    Returns
    -------
    pandas.DataFrame
        Columns ``query``, ``item``, ``score`` (the matrix's dtype; float16 as float32; with
        ``k``, integer scores become a nullable integer column) and ``relevant``: one row per
        kept (row, column), by row and then column.

    Raises
    ------
    InvalidDataError
        scores not 2-D or not numbers, or with a NaN; truth of another length or shape, not
        integers, or a true column outside the matrix; ids of another count, null or
        repeated; an array NumPy cannot read (a GPU tensor: move it to the CPU).
    InvalidOptionError
        k not a positive integer or None.

    Notes
    -----
    Equal scores are ranked by the ``ties=`` option of the metric, as in any frame:
    trec_eval's rule by default, item id descending (so, with the default ids, the
    higher column first).

    Examples
    --------
    The Acc@k example of the next-location write-up: two samples, four locations
    (Cafe, Work, Home, Gym); the truth is Work, then Home.

    >>> import numpy as np, rankframe
    >>> logits = np.array([[0.4, 0.3, 0.2, 0.1],
    ...                    [0.1, 0.3, 0.5, 0.1]])
    >>> long = rankframe.from_scores(logits, np.array([1, 2]),
    ...                              items=["Cafe", "Work", "Home", "Gym"])
    >>> long.rank_eval.evaluate(["acc@1", "acc@3"])
       acc@1  acc@3  n_queries
    0    0.5    1.0          2

    With ``k=1`` only each row's top column is kept, plus the true column when it is not
    the top one (a null score): Acc@1 is the same.

    >>> top1 = rankframe.from_scores(logits, np.array([1, 2]), k=1,
    ...                              items=["Cafe", "Work", "Home", "Gym"])
    >>> top1
       query  item  score  relevant
    0      0  Cafe    0.4         0
    1      0  Work    NaN         1
    2      1  Home    0.5         1
    >>> top1.rank_eval.acc(k=1)
    0.5
    """
    matrix, truth_array = _read(scores, truth)
    n_rows, n_columns = matrix.shape
    cut = _check_k(k, n_columns)
    query_ids = _ids(queries, n_rows, "queries", "rows")
    item_ids = _ids(items, n_columns, "items", "columns")
    if cut is None:
        return _full(matrix, truth_array, query_ids, item_ids)
    return _top(matrix, truth_array, cut, query_ids, item_ids)
