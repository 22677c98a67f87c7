"""Corrections of p-values for multiple comparisons (Holm, Bonferroni, Benjamini-Hochberg),
along the last axis of an array of p-values (the family).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rankframe.settings.options import CORRECTION, Correction, check_choice
from rankframe.stats._arrays import FloatArray

__all__ = ["Adjustment", "adjust"]

Adjustment = Correction  # the corrections of ``compare``, declared in rankframe.settings.options


def adjust(p_values: npt.ArrayLike, method: Adjustment = "holm") -> FloatArray:
    """Family-wise error corrections of p-values, along the last axis (the family).

    Parameters
    ----------
    p_values : array_like
        p-values; each slice along the last axis is one family. NaN entries stay NaN and are
        not counted in the family size.
    method : {"holm", "bonferroni", "fdr_bh", "none"}, default "holm"
        ``"bonferroni"``: ``min(1, k p)``; ``"holm"`` (step-down): with ``p_(1) <= ... <=
        p_(k)`` the sorted p-values of the family, ``p_(i)`` becomes
        ``max_{j <= i} min(1, (k - j + 1) p_(j))``; ``"fdr_bh"`` (Benjamini-Hochberg, a
        bound on the false discovery rate rather than the family-wise error): ``p_(i)``
        becomes ``min_{j >= i} min(1, k p_(j) / j)``, as
        ``scipy.stats.false_discovery_control(method="bh")``; ``"none"``: unchanged. ``k``
        is the number of non-NaN p-values in the family.

    Returns
    -------
    ndarray of float, same shape as ``p_values``
    """
    check_choice("method", method, CORRECTION.choices)
    p = np.array(p_values, dtype=np.float64)  # a copy
    if method == "none" or p.ndim == 0 or p.size == 0:
        return p
    k = np.sum(~np.isnan(p), axis=-1, keepdims=True).astype(np.float64)
    if method == "bonferroni":
        return np.asarray(np.minimum(p * k, 1.0), dtype=np.float64)
    order = np.argsort(p, axis=-1, kind="stable")  # NaN last
    ordered = np.take_along_axis(p, order, axis=-1)
    if method == "fdr_bh":  # step-up: the running minimum from the largest p-value down
        with np.errstate(invalid="ignore"):
            scaled = np.minimum(ordered * k / np.arange(1, p.shape[-1] + 1), 1.0)
        # NaN (the tail) become inf so that the running minimum passes over them
        flipped = np.flip(np.where(np.isnan(scaled), np.inf, scaled), axis=-1)
        stepped = np.flip(np.minimum.accumulate(flipped, axis=-1), axis=-1)
    else:
        factor = k - np.arange(p.shape[-1])  # k, k - 1, ..., (<= 0 only at the NaN tail)
        stepped = np.fmax.accumulate(np.minimum(ordered * factor, 1.0), axis=-1)
    stepped[np.isnan(ordered)] = np.nan
    out = np.empty_like(p)
    np.put_along_axis(out, order, stepped, axis=-1)
    return out
