"""trec_eval's other measures: every measure of ``trec_eval -m all_trec``, as metrics.

Each is defined from trec_eval's own definition (its ``m_*.c``) and checked against its
test outputs (``tests/references/test_trec_measures.py``). Notation as in
:mod:`rankframe.metrics.relevance`, plus, for one query: N the number of retrieved rows; a
row is *unjudged* when the frame says so (a ``judged`` column, or a null grade with
``unjudged="nonrelevant"``; trec_eval: a document outside the qrels) or when its grade is
negative (trec_eval: in the pool but not judged, grade -1 in qrels); *judged non-relevant*
rows are the judged rows of grade ≥ 0 that are not relevant. An unjudged row counts as grade
0 for every other metric.

The counts (``num_ret``, ...) add up over queries, ``gm_map`` and ``gm_bpref`` take the
geometric mean (``MetricDef.aggregate``). The declarations are :data:`DEFINITIONS`; at the
end, from trec_eval's tables (:mod:`rankframe.metrics.trec_tables`), what the registry also learns
of trec_eval once every metric is declared: its spellings of the other metrics (``set_P``
is ``precision`` over the whole list, :func:`whole_list_spellings`), its default
parameters (:func:`trec_defaults`) and the named sets ``official`` and ``all_trec``
(:data:`NAMED_SETS`). :mod:`rankframe.metrics` registers them all.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from rankframe.engine import Lists
from rankframe.engine import ties as _ties
from rankframe.engine.segments import offsets, prefix_sums, starts, sums
from rankframe.metrics.common import FloatArray, IntArray, ratio
from rankframe.metrics.registry import CUTOFF, Metric, MetricDef, Param
from rankframe.metrics.relevance import average_precision
from rankframe.metrics.trec_tables import NICKNAMES, NOT_METRICS, WHOLE_LIST, defaults_of, params_of
from rankframe.settings.options import Options, options_of

#: trec_eval's ``INFAP_EPSILON``.
INFAP_EPSILON = 1e-5
#: rbp's persistence when none is given, and rbp_resid's (trec_eval's p).
PERSISTENCE = 0.9

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
PROBABILITY = Param(
    "persistence",
    False,
    "a number between 0 and 1 (excluded)",
    "0.9",
    check=lambda v: 0.0 < v < 1.0,
)

_NONE = options_of()


# -- counts ----------------------------------------------------------------------------------


def num_ret(t: Lists, _k: object, _: Options) -> FloatArray:
    """N, the number of retrieved rows."""
    return t.n_retrieved.astype(np.float64)


def num_rel(t: Lists, _k: object, _: Options) -> FloatArray:
    """R, the number of relevant rows, retrieved or not."""
    return t.n_relevant.astype(np.float64)


def num_rel_ret(t: Lists, _k: object, _: Options) -> FloatArray:
    """The number of relevant retrieved rows."""
    return t.hits_at(None)


def num_nonrel_judged_ret(t: Lists, _k: object, _: Options) -> FloatArray:
    """The number of judged non-relevant retrieved rows: N - unjudged - relevant."""
    return t.n_retrieved - t.unjudged_at(None) - t.hits_at(None)


# -- judged-only measures --------------------------------------------------------------------


def _nonrelevant_above(t: Lists) -> tuple[IntArray, IntArray]:
    """Per relevant retrieved row: the judged non-relevant rows above it, and the rows of a
    negative grade above it."""
    unjudged, negative = t.unjudged_above()
    return t.rel_rank - t.rel_hits - unjudged, negative


def bpref(t: Lists, _k: object, _o: Options) -> FloatArray:
    r"""(1/R) Σ over relevant retrieved rows of 1 - min(n, R) / min(J, R), n the judged
    non-relevant rows above it (1 when n = 0), J those of the query. Once per lists
    (``gm_bpref`` reads it too)."""
    if "bpref" not in t.memo:
        above, _ = _nonrelevant_above(t)
        r = t.n_relevant[t.rel_query]
        judged = t.n_judged_nonrelevant[t.rel_query]
        share = ratio(np.minimum(above, r), np.minimum(judged, r))
        value = ratio(
            sums(t.rel_query, np.where(above > 0, 1.0 - share, 1.0), t.n_queries), t.n_relevant
        )
        value.flags.writeable = False
        t.memo["bpref"] = value
    out: FloatArray = t.memo["bpref"]
    return out


def infap(t: Lists, _k: object, _: Options) -> FloatArray:
    r"""Inferred AP (Yilmaz and Aslam), as trec_eval: at a relevant row of rank r with h
    relevant rows at or above it, n judged non-relevant and u negative-grade rows above it,
    1/r + ((r-1)/r) · ((h-1+n+u)/(r-1)) · ((h-1+ε)/(h-1+n+2ε)) (1 at rank 1); summed, / R."""
    nonrel, negative = _nonrelevant_above(t)
    h = (t.rel_hits - 1).astype(np.float64)
    fj = (t.rel_rank - 1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        later = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((h + nonrel + negative) / fj) * (
            (h + INFAP_EPSILON) / (h + nonrel + 2 * INFAP_EPSILON)
        )
    return ratio(sums(t.rel_query, np.where(fj == 0, 1.0, later), t.n_queries), t.n_relevant)


def unjudged(t: Lists, k: int | None, _: Options) -> FloatArray:
    """The share of the top k that is unjudged (k=None: of the retrieved rows)."""
    return ratio(t.unjudged_at(k), t.n_retrieved if k is None else np.full(t.n_queries, k))


# -- interpolated precision ------------------------------------------------------------------


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
    """The mean of the interpolated precision at recall 0.0, 0.1, ..., 1.0."""
    total = np.zeros(t.n_queries)
    for level in _LEVELS:  # a loop over the 11 levels; queries stay vectorised
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


# -- set measures ----------------------------------------------------------------------------


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


# -- gain measures ---------------------------------------------------------------------------


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


def gm_map(t: Lists, _k: object, o: Options) -> FloatArray:
    """Average precision; the mean over queries is geometric."""
    return average_precision(t, None, o)


def gm_bpref(t: Lists, k: object, o: Options) -> FloatArray:
    """bpref; the mean over queries is geometric."""
    return bpref(t, k, o)


# -- declarations ----------------------------------------------------------------------------

_EXAMPLE = """
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c", "d", "e"],
    ...                    "score": [5, 4, 3, 2, None], "relevant": [1, 0, 0, 1, 1],
    ...                    "judged": [True, True, False, True, True]})
"""


_DECLARED: list[MetricDef] = []


def _declare(
    name: str,
    compute: object,
    summary: str,
    doc: str,
    examples: str,
    *,
    trec_name: str | None = None,
    trec_cut: str | None = None,
    aliases: tuple[str, ...] = (),
    takes_k: bool = False,
    aggregate: str = "mean",
    param: Param | None = None,
    linear: bool = False,
    tie_average: object = None,
    depends_on_relevant: bool = True,
    bounded: bool = True,
) -> None:
    """Declare one measure (in :data:`DEFINITIONS`, in the order of the calls). ``linear``:
    its value does not depend on the order of tied rows or is linear in hits@k (as the lists
    give it under ``ties="average"``), so ``compute`` is also its tie-averaged form.
    ``depends_on_relevant``: ``False`` for a count or a measure of the judgments alone,
    which ``empty=`` leaves alone. ``bounded``: ``False`` for a value not in [0, 1] (a
    count, ``utility``). None reads shared ranks (``MetricDef.shared_ranks``):
    they read one position per row, as trec_eval ranks."""
    _DECLARED.append(
        MetricDef(
            name=name,
            aliases=aliases,
            trec_name=trec_name,
            trec_cut=trec_cut,
            takes_k=takes_k,
            options=_NONE,
            compute=compute,  # type: ignore[arg-type]
            summary=summary,
            doc=doc,
            examples=_EXAMPLE + examples,
            aggregate=aggregate,
            param=CUTOFF if param is None else param,
            tie_average=compute if linear else tie_average,  # type: ignore[arg-type]
            depends_on_relevant=depends_on_relevant,
            bounded=bounded,
        )
    )


# The example frame, per metric: ranks a (rel), b (judged, not relevant), c (unjudged),
# d (rel); e relevant, not retrieved. R = 3, N = 4, hits = 2, one judged non-relevant.

_declare(
    "num_ret",
    num_ret,
    "number of retrieved rows (summed over queries)",
    """Number of retrieved rows (rows with a score) of each query; summed over queries.

    trec_eval: ``num_ret``.
    """,
    """
    >>> df.rank_eval.num_ret()
    4.0
    """,
    trec_name="num_ret",
    aggregate="sum",
    linear=True,
    depends_on_relevant=False,
    bounded=False,
)
_declare(
    "num_rel",
    num_rel,
    "number of relevant rows, retrieved or not (summed over queries)",
    """Number of relevant rows of each query, R, retrieved or not; summed over queries.

    trec_eval: ``num_rel``.
    """,
    """
    >>> df.rank_eval.num_rel()
    3.0
    """,
    trec_name="num_rel",
    aggregate="sum",
    linear=True,
    depends_on_relevant=False,
    bounded=False,
)
_declare(
    "num_rel_ret",
    num_rel_ret,
    "number of relevant retrieved rows (summed over queries)",
    """Number of relevant retrieved rows of each query; summed over queries.

    trec_eval: ``num_rel_ret``.
    """,
    """
    >>> df.rank_eval.num_rel_ret()
    2.0
    """,
    trec_name="num_rel_ret",
    aggregate="sum",
    linear=True,
    depends_on_relevant=False,
    bounded=False,
)
_declare(
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
_declare(
    "bpref",
    bpref,
    "binary preference: relevant rows ranked above judged non-relevant ones",
    r"""Binary preference (Buckley and Voorhees, SIGIR 2004), from judged rows only.

    ``bpref = (1/R) Σ_{relevant retrieved r} (1 - min(n_r, R) / min(J, R))``, where n_r is
    the number of judged non-relevant rows ranked above r and J the number of judged
    non-relevant rows of the query (the term is 1 when n_r = 0). Unjudged rows are skipped.
    trec_eval: ``bpref``.
    """,
    """
    a counts 1; above d is one judged non-relevant row (b; c is unjudged), so d counts
    1 - min(1, 3) / min(1, 3) = 0:

    >>> round(df.rank_eval.bpref(), 4)
    0.3333
    """,
    trec_name="bpref",
)
_declare(
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
_declare(
    "infap",
    infap,
    "inferred average precision (incomplete judgments)",
    r"""Inferred average precision (Yilmaz and Aslam, CIKM 2006), as trec_eval computes it.

    At a relevant retrieved row of rank r > 1 with h relevant rows at or above it, n judged
    non-relevant rows and u rows of a negative grade above it (trec_eval: in the pool but
    not judged): ``1/r + ((r-1)/r) · ((h-1+n+u)/(r-1)) · ((h-1+ε)/(h-1+n+2ε))``, ε =
    1e-5; 1 at rank 1. Summed and divided by R. Unjudged rows above count as non-relevant
    (the ``(r-1)`` share they take). trec_eval: ``infAP``.
    """,
    """
    a gives 1; d (r = 4, h = 2, n = 1, u = 0) gives 1/4 + (3/4)(2/3)(1.00001/2.00002):

    >>> round(df.rank_eval.infap(), 4)
    0.5
    """,
    trec_name="infAP",
)
_declare(
    "gm_bpref",
    gm_bpref,
    "bpref, geometric mean over queries",
    """bpref per query; over queries ``exp(mean(log(max(bpref, 1e-5))))``.

    trec_eval: ``gm_bpref``.
    """,
    """
    >>> round(df.rank_eval.gm_bpref(), 4)
    0.3333
    """,
    trec_name="gm_bpref",
    aggregate="geometric",
)
_declare(
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
_declare(
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
_declare(
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
_declare(
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
_declare(
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
_declare(
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
_declare(
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
_declare(
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
_declare(
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
_declare(
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
_declare(
    "num_nonrel_judged_ret",
    num_nonrel_judged_ret,
    "number of judged non-relevant retrieved rows (summed over queries)",
    """Number of judged non-relevant retrieved rows of each query: N minus the unjudged
    rows minus the relevant ones; summed over queries.

    trec_eval: ``num_nonrel_judged_ret``.
    """,
    """
    >>> df.rank_eval.num_nonrel_judged_ret()
    1.0
    """,
    trec_name="num_nonrel_judged_ret",
    aggregate="sum",
    linear=True,
    depends_on_relevant=False,
    bounded=False,
)
_declare(
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
_declare(
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
)
_declare(
    "unjudged",
    unjudged,
    "share of the top k that is unjudged",
    """Share of the top k that is unjudged (k=None: of the retrieved rows); a list shorter
    than k counts the missing places as judged. A red flag: the judgments do not cover the
    run.

    trec_eval: ``unj_k``.
    """,
    """
    >>> df.rank_eval.unjudged(2), df.rank_eval.unjudged(3)
    (0.0, 0.3333333333333333)
    """,
    trec_cut="unj",
    takes_k=True,
    depends_on_relevant=False,
)

#: Every measure of this module, in the order of the registry.
DEFINITIONS = tuple(_DECLARED)


# -- trec_eval's vocabulary, from its tables (rankframe.metrics.trec_tables) ---------------


def _by_trec_cut(definitions: Iterable[MetricDef]) -> dict[str, str]:
    """trec_eval's name with cut-offs or levels (``trec_cut``) → the metric's name."""
    return {d.trec_cut: d.name for d in definitions if d.trec_cut is not None}


def trec_defaults(definitions: Iterable[MetricDef]) -> dict[str, tuple[float, ...]]:
    """trec_eval's default parameters of each metric it names with cut-offs or levels."""
    return {
        name: tuple(defaults_of(trec_cut))
        for trec_cut, name in _by_trec_cut(definitions).items()
        if params_of(trec_cut) in ("cutoffs", "levels")
    }


def whole_list_spellings(definitions: Iterable[MetricDef]) -> dict[str, Metric]:
    """trec_eval's set measures (``set_P``): each names a metric over the whole list."""
    by_trec_cut = _by_trec_cut(definitions)
    return {
        spelling: Metric(by_trec_cut[trec_cut], None) for spelling, trec_cut in WHOLE_LIST.items()
    }


def _spec(measure: str) -> str:
    """The metric string of a trec_eval measure at trec_eval's default parameters: the
    cut-offs are listed (a bare ``P`` is precision over the whole list); a bare measure of
    levels (``iprec_at_recall``) takes its defaults already."""
    if params_of(measure) == "cutoffs":
        return f"{measure}.{','.join(str(v) for v in defaults_of(measure))}"
    return measure


#: trec_eval's nicknames ``official`` and ``all_trec``, as lists of metric strings.
NAMED_SETS = {
    nickname: tuple(_spec(measure) for measure in NICKNAMES[nickname] if measure not in NOT_METRICS)
    for nickname in ("official", "all_trec")
}
