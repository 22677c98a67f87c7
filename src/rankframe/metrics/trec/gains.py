"""trec_eval's measures of graded gain: binary G, normalised gain G, NDCG averaged over the
rows with gain (``ndcg_rel``) and where the ideal gain changes (``Rndcg``), rank-biased
precision and its residual."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rankframe.engine import Lists
from rankframe.engine import ties as _ties
from rankframe.engine.segments import prefix_sums, starts, sums
from rankframe.metrics.common import FloatArray, IntArray, ratio
from rankframe.metrics.params import Param
from rankframe.metrics.trec.declare import declare
from rankframe.settings.options import Options

__all__ = [
    "DEFINITIONS",
    "PERSISTENCE",
    "PROBABILITY",
    "bin_g",
    "ndcg_rel",
    "normalized_gain",
    "r_ndcg",
    "rbp",
    "rbp_average",
    "rbp_resid",
]

#: rbp's persistence when none is given, and rbp_resid's (trec_eval's p).
PERSISTENCE = 0.9
PROBABILITY = Param(
    "persistence",
    False,
    "a number between 0 and 1 (excluded)",
    "0.9",
    check=lambda v: 0.0 < v < 1.0,
)


def _ideal_prefix(t: Lists, values: FloatArray) -> tuple[FloatArray, IntArray, IntArray]:
    """Running sums of ``values`` over each query's ideal entries, each query's first ideal
    entry and its number of them (P)."""
    bounds = starts(t.ideal_query, t.n_queries)
    return prefix_sums(t.ideal_query, values), bounds[:-1], np.diff(bounds)


def _at(prefix: FloatArray, first: IntArray, count: IntArray) -> FloatArray:
    """``prefix`` at the ``count``-th entry from ``first`` (0 where count is 0)."""
    out = np.zeros(len(first))
    has = count > 0
    out[has] = prefix[(first + count - 1)[has]]
    return out


def bin_g(t: Lists, _k: object, _: Options) -> FloatArray:
    r"""(1/R) Σ over relevant retrieved rows of 1 / log2(2 + non-relevant rows above it)."""
    above = (t.rel_rank - t.rel_hits).astype(np.float64)
    return ratio(sums(t.rel_query, 1.0 / np.log2(2.0 + above), t.n_queries), t.n_relevant)


def normalized_gain(t: Lists, _k: object, _: Options) -> FloatArray:
    r"""trec_eval's G: Σ over retrieved rows of gain / log2(2 + C(r) - S(r)), with S(r) the
    gain of the top r and C(r) = Σ_{i ≤ r} max(ideal gain at i, 1); divided by the ideal's
    total gain. Gains are the positive grades."""
    extra, first, count = _ideal_prefix(t, np.maximum(t.ideal_grade, 1.0) - 1.0)
    q = t.gain_query
    cost = t.gain_rank + _at(extra, first[q], np.minimum(t.gain_rank, count[q]))
    gained = prefix_sums(q, t.gain_grade)
    total = sums(q, t.gain_grade / np.log2(2.0 + cost - gained), t.n_queries)
    return ratio(total, sums(t.ideal_query, t.ideal_grade, t.n_queries))


def _dcg_prefix(t: Lists) -> tuple[FloatArray, FloatArray, IntArray, IntArray]:
    """Running DCG (linear gains) over the retrieved rows with gain, and over the ideal
    entries, with each query's first ideal entry and P (once per lists: ``ndcg_rel`` and
    ``r_ndcg`` both read them)."""
    if "dcg_prefix" not in t.memo:
        dcg = prefix_sums(t.gain_query, t.gain_grade / np.log2(t.gain_rank + 1.0))
        ideal, first, count = _ideal_prefix(t, t.ideal_grade / np.log2(t.ideal_rank + 1.0))
        t.memo["dcg_prefix"] = dcg, ideal, first, count
    prefix: tuple[FloatArray, FloatArray, IntArray, IntArray] = t.memo["dcg_prefix"]
    return prefix


def _dcg_at(t: Lists, dcg: FloatArray, query: IntArray, rank: npt.ArrayLike) -> FloatArray:
    """DCG of the top ``rank`` rows of each ``query`` (pairs), from :func:`_dcg_prefix`."""
    span = np.int64(int(t.n_retrieved.max(initial=0)) + 2)
    keys = t.gain_query * span + t.gain_rank
    at = np.searchsorted(keys, query * span + np.minimum(rank, span - 1), side="right") - 1
    found = at >= 0
    found[found] = t.gain_query[at[found]] == query[found]
    out = np.zeros(len(found))
    out[found] = dcg[at[found]]
    return out


def ndcg_rel(t: Lists, _k: object, _: Options) -> FloatArray:
    r"""NDCG averaged over the rows with gain: at each retrieved one of rank r,
    DCG@r / IDCG@min(r, P); each one not retrieved counts DCG@N / IDCG@P; / P (linear gains,
    P the number of rows with gain)."""
    dcg, ideal, first, count = _dcg_prefix(t)
    q = t.gain_query
    retrieved = sums(q, dcg / _at(ideal, first[q], np.minimum(t.gain_rank, count[q])), t.n_queries)
    full = _at(ideal, first, count)
    queries = np.arange(t.n_queries, dtype=np.int64)
    missing = count - np.bincount(q, minlength=t.n_queries)
    rest = ratio(missing * _dcg_at(t, dcg, queries, t.n_retrieved), full)
    return ratio(retrieved + rest, count)


def r_ndcg(t: Lists, _k: object, _: Options) -> FloatArray:
    r"""NDCG averaged at the ranks where the ideal gain changes (the end of each grade of the
    ideal ranking, P included), and at N when N > P + 1, as trec_eval's Rndcg (linear
    gains); 0 for a query without relevant rows."""
    dcg, ideal, first, count = _dcg_prefix(t)
    # the ideal entries after which the ideal gain changes: the last of each grade
    last = np.ones(len(t.ideal_query), dtype=bool)
    last[:-1] = (t.ideal_query[1:] != t.ideal_query[:-1]) | (
        t.ideal_grade[1:] != t.ideal_grade[:-1]
    )
    q, b = t.ideal_query[last], t.ideal_rank[last]
    at_boundaries = sums(q, _dcg_at(t, dcg, q, b) / ideal[last], t.n_queries)
    n_boundaries = np.bincount(q, minlength=t.n_queries)
    tail = t.n_retrieved > count + 1
    queries = np.arange(t.n_queries, dtype=np.int64)
    at_end = np.where(
        tail, ratio(_dcg_at(t, dcg, queries, t.n_retrieved), _at(ideal, first, count)), 0.0
    )
    value = ratio(at_boundaries + at_end, n_boundaries + tail)
    return np.where(t.n_relevant > 0, value, 0.0)


def rbp(t: Lists, p: float | None, _: Options) -> FloatArray:
    r"""Rank-biased precision (Moffat and Zobel): (1 - p) Σ gain(r) · p^(r-1), gains the
    grades divided by the query's highest grade when it is above 1 (trec_eval's scaling to
    [0, 1]); p = 0.9 unless given."""
    p = PERSISTENCE if p is None else float(p)
    weights = _rbp_gains(t) * np.power(p, t.gain_rank - 1.0)
    return (1.0 - p) * sums(t.gain_query, weights, t.n_queries)


def _rbp_gains(t: Lists) -> FloatArray:
    """The graded rows' gains for rbp: the grade, divided by the query's highest grade when
    it is above 1."""
    top = np.zeros(t.n_queries)
    head = t.ideal_rank == 1
    top[t.ideal_query[head]] = t.ideal_grade[head]
    scale = np.where(top > 1.0, top, 1.0)[t.gain_query]
    gains: FloatArray = t.gain_grade / scale
    return gains


def rbp_average(t: Lists, p: float | None, _: Options) -> FloatArray:
    r"""rbp under ``ties="average"``: each place of a tie group gets the group's mean gain,
    weighted p^(rank - 1) (a DCG whose discount is p^-(rank - 1))."""
    q = PERSISTENCE if p is None else float(p)
    expected = _ties.dcg(t, None, _rbp_gains(t), lambda rank: np.power(q, -(rank - 1.0)))
    return (1.0 - q) * expected


def rbp_resid(t: Lists, _k: object, _: Options) -> FloatArray:
    r"""rbp's residual (p = 0.9): p^N + (1 - p) Σ over unjudged retrieved rows of p^(r-1);
    0 for a query without unjudged retrieved rows.

    When most retrieved rows are unjudged, the sum is that over every rank, (1 - p^N) /
    (1 - p), minus that over the judged rows: fewer rows to look up.
    """
    p = PERSISTENCE
    n = t.n_retrieved.astype(np.float64)
    unjudged = t.unjudged_at(None)
    complement = 2 * t.n_unjudged() > int(t.n_retrieved.sum())
    query, rank = t.unjudged_ranks(judged=complement)
    powers = np.power(p, np.arange(int(rank.max(initial=0)), dtype=np.float64))
    mass = sums(query, powers[rank - 1], t.n_queries)
    if complement:
        mass = (1.0 - np.power(p, n)) / (1.0 - p) - mass
    return np.where(unjudged > 0, np.power(p, n) + (1.0 - p) * mass, 0.0)


# -- declarations ----------------------------------------------------------------------------

BIN_G = declare(
    "bin_g",
    bin_g,
    "binary G: 1 / log2(2 + non-relevant rows above) per relevant row",
    r"""Binary G: ``(1/R) Σ_{relevant retrieved r} 1 / log2(2 + non-relevant rows above r)``
    (unjudged rows count as non-relevant).

    trec_eval: ``binG``.
    """,
    """
    a: 1 / log2(2); d, two rows above: 1 / log2(4):

    >>> df.rank_eval.bin_g()
    0.5
    """,
    trec_name="binG",
)

NORMALIZED_GAIN = declare(
    "normalized_gain",
    normalized_gain,
    "trec_eval's G, normalised gain",
    r"""trec_eval's G (normalised gain): ``Σ_r gain(r) / log2(2 + C(r) - S(r))`` over the
    retrieved rows, with S(r) the gain of the top r and C(r) = ``Σ_{i ≤ r} max(g*_i, 1)``
    for g*_i the i-th gain of the ideal ranking; divided by the ideal ranking's total gain.
    Gains are the positive grades (linear).

    trec_eval: ``G``.
    """,
    """
    a: 1 / log2(2 + 1 - 1); d: 1 / log2(2 + 4 - 2), over a total gain of 3:

    >>> df.rank_eval.normalized_gain()
    0.5
    """,
    trec_name="G",
)

NDCG_REL = declare(
    "ndcg_rel",
    ndcg_rel,
    "NDCG averaged over the rows with gain",
    r"""NDCG averaged over the rows with gain (P of them): at a retrieved one of rank r,
    ``DCG@r / IDCG@min(r, P)``; each one not retrieved counts ``DCG@N / IDCG@P``;
    divided by P. Linear gains.

    trec_eval: ``ndcg_rel``.
    """,
    """
    a: DCG@1 / IDCG@1 = 1; d: DCG@4 / IDCG@3 = (1 + 1/log2(5)) / (1 + 1/log2(3) + 1/2),
    and e, not retrieved, the same: (1 + 2 · 0.6714) / 3:

    >>> round(df.rank_eval.ndcg_rel(), 4)
    0.7809
    """,
    trec_name="ndcg_rel",
)

R_NDCG = declare(
    "r_ndcg",
    r_ndcg,
    "NDCG averaged where the ideal gain changes",
    r"""NDCG averaged at the ranks where the gain of the ideal ranking changes (after the
    last row of each grade, P included) and, when N > P + 1, at N (over IDCG@P): trec_eval's
    Rndcg. Linear gains; 0 for a query without relevant rows.

    trec_eval: ``Rndcg``.
    """,
    """
    One grade, so one change, after rank P = 3: NDCG@3 = 1 / (1 + 1/log2(3) + 1/2) (N = 4
    is not above P + 1):

    >>> round(df.rank_eval.r_ndcg(), 4)
    0.4693
    """,
    trec_name="Rndcg",
)

RBP = declare(
    "rbp",
    rbp,
    "rank-biased precision (persistence p, default 0.9)",
    r"""Rank-biased precision (Moffat and Zobel, TOIS 2008): ``(1 - p) Σ_r gain(r)
    p^(r-1)``; gains are the grades, divided by the query's highest grade when it is above
    1 (trec_eval scales gains to [0, 1]). ``k`` is the persistence p (default 0.9).

    trec_eval: ``rbp`` (p = 0.9).
    """,
    """
    0.1 · (1 + 0.9³):

    >>> round(df.rank_eval.rbp(), 4)
    0.1729
    """,
    trec_name="rbp",
    takes_k=True,
    param=PROBABILITY,
    tie_average=rbp_average,
)

RBP_RESID = declare(
    "rbp_resid",
    rbp_resid,
    "rbp's residual: the weight of unjudged rows and of the tail",
    r"""Residual of rbp (p = 0.9): ``p^N + (1 - p) Σ_{unjudged retrieved r} p^(r-1)``, the
    most rbp could grow if every unjudged row were relevant; 0 without unjudged retrieved
    rows.

    trec_eval: ``rbp_resid``.
    """,
    """
    0.9⁴ + 0.1 · 0.9²:

    >>> round(df.rank_eval.rbp_resid(), 4)
    0.7371
    """,
    trec_name="rbp_resid",
    depends_on_relevant=False,
    reads_unjudged=True,
)

#: The measures of this family, in the order trec_eval prints them.
DEFINITIONS = (BIN_G, NORMALIZED_GAIN, NDCG_REL, R_NDCG, RBP, RBP_RESID)
