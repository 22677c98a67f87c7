"""trec_eval's set measures: the retrieved rows as a set (relative precision, utility,
set AP, set F)."""

from __future__ import annotations

import numpy as np

from rankframe.engine import Lists
from rankframe.metrics.common import FloatArray, ratio
from rankframe.metrics.trec.declare import declare
from rankframe.settings.options import Options

__all__ = ["DEFINITIONS", "relative_precision", "set_f", "set_map", "utility"]


def relative_precision(t: Lists, k: int | None, _: Options) -> FloatArray:
    """hits@k / min(k, R) (k=None: / min(N, R))."""
    size = t.n_retrieved if k is None else np.full(t.n_queries, k)
    return ratio(t.hits_at(k), np.minimum(size, t.n_relevant))


def utility(t: Lists, _k: object, _: Options) -> FloatArray:
    """Relevant retrieved rows minus non-relevant retrieved rows (trec_eval's coefficients
    1, -1, 0, 0)."""
    hits = t.hits_at(None)
    return hits - (t.n_retrieved - hits)


def set_map(t: Lists, _k: object, _: Options) -> FloatArray:
    """hits² / (N · R): set precision times set recall."""
    hits = t.hits_at(None)
    return ratio(hits * hits, t.n_retrieved.astype(np.float64) * t.n_relevant)


def set_f(t: Lists, _k: object, _: Options) -> FloatArray:
    """2 · P · Rc / (P + Rc), with P = hits / N and Rc = hits / R (0 without a hit)."""
    hits = t.hits_at(None)
    p, r = ratio(hits, t.n_retrieved), ratio(hits, t.n_relevant)
    return ratio(2.0 * p * r, p + r)


# -- declarations ----------------------------------------------------------------------------

UTILITY = declare(
    "utility",
    utility,
    "relevant retrieved rows minus non-relevant retrieved rows",
    """Set utility with trec_eval's default coefficients: relevant retrieved rows minus
    non-relevant retrieved rows (unjudged ones included).

    trec_eval: ``utility``.
    """,
    """
    >>> df.rank_eval.utility()
    0.0
    """,
    trec_name="utility",
    linear=True,
    bounded=False,
)

RELATIVE_PRECISION = declare(
    "relative_precision",
    relative_precision,
    "precision relative to the best possible",
    r"""Relative precision at k: ``hits@k / min(k, R)``, precision up to R and recall after.
    With k=None, ``hits / min(N, R)``.

    trec_eval: ``relative_P_k``; k=None: ``set_relative_P``.
    """,
    """
    >>> df.rank_eval.relative_precision(2), df.rank_eval.relative_precision()
    (0.5, 0.6666666666666666)
    """,
    trec_cut="relative_P",
    takes_k=True,
    linear=True,
)

SET_MAP = declare(
    "set_map",
    set_map,
    "set precision times set recall",
    """Unranked set AP: ``hits² / (N · R)``, set precision times set recall.

    trec_eval: ``set_map``.
    """,
    """
    >>> round(df.rank_eval.set_map(), 4)
    0.3333
    """,
    trec_name="set_map",
    linear=True,
)

SET_F = declare(
    "set_f",
    set_f,
    "F1 of set precision and set recall",
    """F-measure of set precision P = hits / N and set recall hits / R: ``2 P R / (P + R)``
    (0 without a hit).

    trec_eval: ``set_F``.
    """,
    """
    P = 2/4, recall 2/3:

    >>> round(df.rank_eval.set_f(), 4)
    0.5714
    """,
    trec_name="set_F",
    linear=True,
)

#: The measures of this family, in the order trec_eval prints them.
DEFINITIONS = (UTILITY, RELATIVE_PRECISION, SET_MAP, SET_F)
