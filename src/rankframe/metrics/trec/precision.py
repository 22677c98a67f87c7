"""trec_eval's measures of precision at recall levels and at multiples of R: interpolated
precision (``iprec_at_recall``) and its 11-point average, ``Rprec_mult``; average
precision's geometric mean (``gm_map``)."""

from __future__ import annotations

import numpy as np

from rankframe.engine import Lists
from rankframe.engine.segments import offsets
from rankframe.metrics.common import FloatArray, IntArray, ratio
from rankframe.metrics.params import Param
from rankframe.metrics.relevance import average_precision
from rankframe.metrics.trec.declare import declare
from rankframe.settings.options import Options

__all__ = [
    "DEFINITIONS",
    "RECALL_LEVEL",
    "R_MULTIPLE",
    "eleven_point_avg",
    "gm_map",
    "iprec",
    "rprec_mult",
    "rprec_mult_average",
]

RECALL_LEVEL = Param(
    "recall level",
    False,
    "a number from 0 to 1",
    "0.1",
    check=lambda v: 0.0 <= v <= 1.0,
    required=True,
)
R_MULTIPLE = Param(
    "multiple of R", False, "a positive number", "0.2", check=lambda v: v > 0.0, required=True
)


def _range_max(values: FloatArray, start: IntArray, stop: IntArray) -> FloatArray:
    """max(values[start:stop]) for each range (every range non-empty)."""
    if len(start) == 0:
        return np.zeros(0)
    bounds = np.empty(2 * len(start), dtype=np.int64)
    bounds[0::2], bounds[1::2] = start, stop
    return np.maximum.reduceat(np.append(values, 0.0), bounds)[0::2]


def _lround(x: FloatArray) -> IntArray:
    """C's ``lround`` of non-negative numbers: halves away from zero."""
    whole = np.floor(x)
    return (whole + (x - whole >= 0.5)).astype(np.int64)


def iprec(t: Lists, level: float, _: Options) -> FloatArray:
    r"""Interpolated precision at a recall level: the highest precision at or below the
    rank of the c-th relevant row, c = round(level · R) (at least 1); 0 when fewer than c
    relevant rows are retrieved. Kept in ``t.memo``: ``eleven_point_avg`` reads the same
    levels as ``iprec_at_recall``."""
    key = ("iprec", level)
    if key not in t.memo:
        t.memo[key] = _iprec(t, level)
    value: FloatArray = t.memo[key]
    return value


def _iprec(t: Lists, level: float) -> FloatArray:
    if "rel_counts" not in t.memo:
        counts = np.bincount(t.rel_query, minlength=t.n_queries)
        t.memo["rel_counts"] = counts, offsets(counts), t.rel_hits / t.rel_rank
    counts, first, precision = t.memo["rel_counts"]
    need = np.maximum(_lround(level * t.n_relevant.astype(np.float64)), 1)
    reached = need <= counts
    out = np.zeros(t.n_queries)
    out[reached] = _range_max(precision, (first + need - 1)[reached], (first + counts)[reached])
    return out


_LEVELS = tuple(i / 10 for i in range(11))


def eleven_point_avg(t: Lists, _k: object, o: Options) -> FloatArray:
    """The mean of the interpolated precision at recall 0.0, 0.1, ..., 1.0, added from 1.0
    down as trec_eval does (its printed digits can depend on the order: 0.15625 exactly in
    that order, 0.15625000000000003 from 0.0 up)."""
    total = np.zeros(t.n_queries)
    for level in reversed(_LEVELS):  # a loop over the 11 levels; queries stay vectorised
        total += iprec(t, level, o)
    return total / len(_LEVELS)


def _multiple_cut(t: Lists, multiple: float) -> IntArray:
    """Per query the rank c = ⌊multiple · R + 0.9⌋ (trec_eval's rounding)."""
    return np.floor(multiple * t.n_relevant.astype(np.float64) + 0.9).astype(np.int64)


def rprec_mult(t: Lists, multiple: float, _: Options) -> FloatArray:
    r"""Precision at rank c = ⌊multiple · R + 0.9⌋ (trec_eval's rounding): hits@c / c."""
    cut = _multiple_cut(t, multiple)
    within = t.rel_rank <= cut[t.rel_query]
    return ratio(np.bincount(t.rel_query[within], minlength=t.n_queries), cut)


def rprec_mult_average(t: Lists, multiple: float, _: Options) -> FloatArray:
    r"""rprec_mult under ``ties="average"``: E[hits@c] / c, c not depending on the order."""
    cut = _multiple_cut(t, multiple)
    return ratio(t.expected_hits(cut), cut)


def gm_map(t: Lists, _k: object, o: Options) -> FloatArray:
    """Average precision; the mean over queries is geometric."""
    return average_precision(t, None, o)


# -- declarations ----------------------------------------------------------------------------

GM_MAP = declare(
    "gm_map",
    gm_map,
    "average precision, geometric mean over queries",
    """Geometric mean average precision: AP per query; over queries
    ``exp(mean(log(max(AP, 1e-5))))``.

    trec_eval: ``gm_map`` (printed only for all queries).
    """,
    """
    AP = (1/1 + 2/4) / 3 = 0.5 for the one query:

    >>> df.rank_eval.gm_map()
    0.5
    """,
    trec_name="gm_map",
    aggregate="geometric",
)

IPREC = declare(
    "iprec",
    iprec,
    "interpolated precision at a recall level (trec_eval's 11 levels)",
    r"""Interpolated precision at a recall level: ``max_{i ≥ i_c} P@i``, where i_c is the rank
    of the c-th relevant row, ``c = round(level · R)`` (at least 1); 0 when fewer than c
    relevant rows are retrieved.

    trec_eval: ``iprec_at_recall_0.10`` (levels 0.0, 0.1, ..., 1.0, printed with two
    decimals); ``"iprec_at_recall"`` gives the 11 of them. The level is required:
    ``df.rank_eval.iprec(0.5)``.
    """,
    """
    c = round(0.5 · 3) = 2: the second relevant row is d at rank 4, P@4 = 0.5:

    >>> df.rank_eval.iprec(0.5)
    0.5
    """,
    trec_cut="iprec_at_recall",
    aliases=("interpolated_precision",),
    takes_k=True,
    param=RECALL_LEVEL,
)

RPREC_MULT = declare(
    "rprec_mult",
    rprec_mult,
    "precision at a multiple of R",
    r"""Precision at rank c = ⌊m · R + 0.9⌋ for a multiple m of R: hits@c / c (0 for c = 0).

    trec_eval: ``Rprec_mult_0.20`` (multiples 0.2, 0.4, ..., 2.0, printed with two decimals);
    ``"Rprec_mult"`` gives the 10 of them. The multiple is required:
    ``df.rank_eval.rprec_mult(1.0)`` is R-precision.
    """,
    """
    c = ⌊2 · 3 + 0.9⌋ = 6: two hits in the top 6:

    >>> round(df.rank_eval.rprec_mult(2.0), 4)
    0.3333
    """,
    trec_cut="Rprec_mult",
    takes_k=True,
    param=R_MULTIPLE,
    tie_average=rprec_mult_average,
)

ELEVEN_POINT_AVG = declare(
    "eleven_point_avg",
    eleven_point_avg,
    "mean interpolated precision at 11 recall levels",
    """Mean of the interpolated precision at recall 0.0, 0.1, ..., 1.0 (``iprec``).

    trec_eval: ``11pt_avg``.
    """,
    """
    Levels 0.0 to 0.4 (c ≤ 1) give 1, 0.5 to 0.8 (c = 2: d at rank 4) give 0.5, 0.9 and
    1.0 (c = 3: e is not retrieved) give 0, so 7/11:

    >>> round(df.rank_eval.eleven_point_avg(), 4)
    0.6364
    """,
    trec_name="11pt_avg",
)

#: The measures of this family, in the order trec_eval prints them.
DEFINITIONS = (GM_MAP, IPREC, RPREC_MULT, ELEVEN_POINT_AVG)
