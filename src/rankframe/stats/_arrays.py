"""The arrays the statistics read, and the formulas several of them share (private).

:func:`as_columns` turns per-query values into a float ``(n_queries, m)`` array and the shape
of one result; :func:`as_two_columns` does it for two samples of the same columns. The rest
are shared steps: the tails of a central interval, the moments of a t-test, average ranks
with their tie correction, the columns that share their present queries, and
``scipy.special`` imported when first needed.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import numpy.typing as npt

from rankframe.exceptions import InvalidOptionError

FloatArray = npt.NDArray[np.float64]
Seed = int | np.random.Generator | None


def scipy_special() -> ModuleType:
    """``scipy.special``, imported when first needed: it takes about 0.4 s to import, which
    ``import rankframe`` should not pay (a heavy library, imported in this function alone)."""
    import scipy.special

    special: ModuleType = scipy.special
    return special


def as_columns(x: npt.ArrayLike, name: str) -> tuple[FloatArray, tuple[int, ...]]:
    """``x`` as a float (n, m) array, and the shape of one result (``x.shape[1:]``)."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        msg = f"`{name}` must have at least one dimension (queries along axis 0)."
        raise InvalidOptionError(msg)
    return a.reshape(a.shape[0], math.prod(a.shape[1:])), a.shape[1:]


def as_two_columns(
    x: npt.ArrayLike, y: npt.ArrayLike
) -> tuple[FloatArray, FloatArray, tuple[int, ...]]:
    """``x`` and ``y`` as float (n1, m) and (n2, m) arrays with the same columns."""
    a, shape = as_columns(x, "x")
    b, shape_y = as_columns(y, "y")
    if shape != shape_y:
        msg = f"`x` and `y` must have the same columns; got shapes {shape} and {shape_y}."
        raise InvalidOptionError(msg)
    return a, b, shape


def side_weights(totals: npt.ArrayLike, m: int, n1: int, n2: int) -> tuple[FloatArray, FloatArray]:
    """Per column, the factors of the two means: 1 (means), or n1 and n2 (sums)."""
    scaled = np.broadcast_to(np.asarray(totals, dtype=bool).ravel(), (m,))
    return np.where(scaled, float(n1), 1.0), np.where(scaled, float(n2), 1.0)


def distinct_masks(
    present: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.intp]]:
    """The distinct columns of ``present`` (n, m) as rows, in sorted order, and which one
    each column is: ``np.unique(present.T, axis=0, return_inverse=True)``, whose structured
    view of a row per column costs a field per query (0.2 s at 20,000 queries)."""
    keys = [column.tobytes() for column in np.ascontiguousarray(present.T, dtype=np.bool_)]
    distinct = sorted(set(keys))  # bytes sort as the rows do: False (0) before True (1)
    where = {key: u for u, key in enumerate(distinct)}
    masks = np.array([np.frombuffer(key, dtype=np.bool_) for key in distinct], dtype=np.bool_)
    return masks.reshape(len(distinct), present.shape[0]), np.array(
        [where[key] for key in keys], dtype=np.intp
    )


def central_tails(confidence_level: float) -> list[float]:
    """The probabilities of the bounds of a central interval: ``(1 -+ confidence_level) / 2``."""
    return [(1.0 - confidence_level) / 2.0, (1.0 + confidence_level) / 2.0]


def moments(d: FloatArray) -> tuple[FloatArray, FloatArray, int]:
    """Column means, standard errors of the mean (ddof=1, NaN for n < 2) and n."""
    n = d.shape[0]
    if n < 2:
        nan = np.full(d.shape[1], np.nan)
        return (d.mean(axis=0) if n else nan.copy()), nan, n
    mean = d.mean(axis=0)
    # as scipy's ttest_1samp: the mean of squared deviations, times n / (n - 1)
    var = np.mean((d - mean) ** 2, axis=0) * (n / (n - 1))
    return mean, np.sqrt(var / n), n


def midranks(a: FloatArray) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """Average ranks of each row of ``a`` (NaNs rank last, each NaN on its own), with the tie
    correction ``sum(t**3 - t)`` over the groups of tied values and whether a row has ties."""
    m, n = a.shape
    order = np.argsort(a, axis=1, kind="stable")
    y = np.take_along_axis(a, order, axis=1)
    new = np.ones((m, n), dtype=bool)
    new[:, 1:] = y[:, 1:] != y[:, :-1]  # NaN != NaN: every NaN starts a group
    starts = np.flatnonzero(new)
    counts = np.diff(starts, append=m * n).astype(np.float64)
    first_rank = (starts % n + 1).astype(np.float64)
    ranks = np.empty((m, n))
    np.put_along_axis(
        ranks,
        order,
        np.repeat(first_rank + (counts - 1.0) / 2.0, counts.astype(np.intp)).reshape(m, n),
        axis=1,
    )
    row = starts // n
    tie = np.bincount(row, weights=counts**3 - counts, minlength=m).astype(np.float64)
    has_ties = np.bincount(row, weights=counts > 1, minlength=m) > 0
    return ranks, tie, has_ties
