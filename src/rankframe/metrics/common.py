"""What every metric module shares: the array types and the one rule of division."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rankframe.engine import FloatArray, IntArray

__all__ = ["FloatArray", "IntArray", "ratio"]


def ratio(numerator: npt.ArrayLike, denominator: npt.ArrayLike) -> FloatArray:
    """numerator / denominator as float64, 0 where the denominator is 0.

    The one rule of every metric: divide wherever the denominator is not 0, whatever its
    sign. Counts (R, k, the retrieved rows, hits) are never negative; a sum of gains can be,
    with ``negative_gains="keep"`` (the ideal total gain of trec_eval's ``G``, the ideal DCG
    of ``ndcg_rel`` and ``Rndcg``), and is then divided by as it is. ``ndcg`` alone gives 0
    for an ideal DCG of 0 or less (docs/conventions.md): it says so at its call.
    """
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out
