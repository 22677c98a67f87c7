"""The relevance of the ranked list: ``mrr``, ``ndcg``, ``map``, ``acc``, ``precision``,
``recall``, ``r_precision``, and the metrics other tools report beyond trec_eval's set:
``dcg`` (ranx ``dcg``/``dcg_burges``, LensKit ``DCG``, trec_eval's ``dcg``), ``hit_count``
(ranx ``hits``) and ``f1`` (F-beta with ``beta=``).

Notation, for one query: rel(i) is the grade at rank i; an item is relevant when its grade
is at least ``min_relevance`` (default: grade > 0); R is the number of relevant items of the
query, retrieved or not; hits@k counts relevant items ranked at or above k; ``k=None`` is the
whole list. Each function returns one float per query (queries without relevant items give 0
here; the ``empty`` option is applied when aggregating).

Each declaration also carries the documentation of the accessor's method of that metric
(``doc`` and ``examples``, which run as doctests): ``df.rank_eval.<name>(k, **options)`` is
generated from it, with one keyword per option the metric declares. The declarations are
:data:`DEFINITIONS` and :data:`OTHER_TOOLS`, registered by :mod:`rankframe.metrics`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rankframe.engine import Lists
from rankframe.engine import ties as _ties
from rankframe.engine.segments import sums
from rankframe.metrics.common import FloatArray, ratio
from rankframe.metrics.registry import MetricDef
from rankframe.settings.options import (
    AP_DENOMINATOR,
    BETA,
    DENOMINATOR,
    DISCOUNT,
    EMPTY_LIST,
    EMPTY_NDCG,
    GAIN,
    NEGATIVE_GAINS,
    PRECISION_DENOMINATOR,
    Options,
    options_of,
)


def _relevant_denominator(t: Lists, k: int | None, o: Options) -> npt.NDArray[np.int64]:
    if o.denominator == "min_k" and k is not None:
        return np.minimum(t.n_relevant, k)
    return t.n_relevant


def reciprocal_rank(t: Lists, k: int | None, _: Options) -> FloatArray:
    r"""1 / rank of the first relevant item ranked at or above k, else 0."""
    first = t.first_relevant_rank()
    if k is not None:
        first[first > k] = np.inf
    return 1.0 / first


#: Gains are scaled by a power of two when a query's grades come near this exponent (2**1024
#: overflows float64): see :func:`ndcg`.
_GAIN_EXPONENT = 512


def discounted_gains(
    t: Lists, k: int | None, o: Options
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.int64] | None]:
    """Per query DCG@k of the ranking and of the ideal ranking, each multiplied by
    ``2**-shift`` where a query's gains could overflow float64, and that ``shift`` per query
    (``None`` when no query needs one): see :func:`ndcg`. Each row's discounted gain is
    computed once per lists and options (``t.memo``) and summed for every k."""
    key = ("discounted_gains", o.gain, o.discount)
    if key not in t.memo:
        t.memo[key] = _discounted_rows(t, o)
    shift, gains, actual_rows, ideal_rows = t.memo[key]

    def dcg(query: npt.NDArray[np.int64], rank: npt.NDArray[np.int64], w: FloatArray) -> FloatArray:
        if k is not None:
            keep = rank <= k
            query, w = query[keep], w[keep]
        return sums(query, w, t.n_queries)

    if t.gain_tie_start is None:
        actual = dcg(t.gain_query, t.gain_rank, actual_rows)
    else:  # ties="average": the expected DCG over the orders of tied rows
        actual = _ties.dcg(t, k, gains, lambda rank: _discount(rank, o))
    ideal = dcg(t.ideal_query, t.ideal_rank, ideal_rows)
    return actual, ideal, shift


def _discount(rank: npt.NDArray[np.int64], o: Options) -> FloatArray:
    """The divisor of the gain at each rank: log2(rank + 1), or LensKit's log2(max(rank, 2))."""
    shifted = np.maximum(rank, 2) if o.discount == "log2(max(rank,2))" else rank + 1
    return np.log2(shifted.astype(np.float64))


def _discounted_rows(
    t: Lists, o: Options
) -> tuple[npt.NDArray[np.int64] | None, FloatArray, FloatArray, FloatArray]:
    """The scaling shift per query, the gains of the ranked graded rows, and the discounted
    gains of those rows and of the ideal ranking's."""
    shift = _gain_shift(t, o.gain)

    def gain(query: npt.NDArray[np.int64], grade: FloatArray) -> FloatArray:
        s = None if shift is None else shift[query]
        if o.gain == "exponential":
            if s is None:
                return np.exp2(grade) - 1.0
            return np.exp2(grade - s) - np.exp2(-s)
        return grade if s is None else np.ldexp(grade, -s)

    gains = gain(t.gain_query, t.gain_grade)
    actual = gains / _discount(t.gain_rank, o)
    ideal = gain(t.ideal_query, t.ideal_grade) / _discount(t.ideal_rank, o)
    return shift, gains, actual, ideal


def ndcg(t: Lists, k: int | None, o: Options) -> FloatArray:
    r"""DCG@k / IDCG@k; gains are the grades (linear) or 2**grade - 1 (exponential).

    Every positive grade gives gain, whatever ``min_relevance`` (as trec_eval); the ideal
    ranking sorts every judged item of the query, retrieved or not, by grade. With
    ``negative_gains="keep"`` negative grades give negative gains in both; an ideal of 0
    or less gives 0.

    The ratio does not change when a query's gains are all multiplied by one number: a query
    whose gains could overflow float64 (exponential gains of grades above
    :data:`_GAIN_EXPONENT`, or huge linear grades) has them multiplied by ``2**-s`` first,
    ``s`` from its highest grade, so 2**1100 - 1 needs no number beyond float64. Multiplying
    by a power of two is exact, and other queries are left as they are (``s = 0``).
    """
    actual, ideal, _ = discounted_gains(t, k, o)
    return ratio(actual, np.where(ideal > 0, ideal, 0.0))  # an ideal of 0 or less gives 0


def _gain_shift(t: Lists, gain: str) -> npt.NDArray[np.int64] | None:
    """Per query the exponent ``s`` of :func:`ndcg`'s scaling (0 for most queries), or None
    when no query needs one."""

    def exponent(grade: FloatArray) -> FloatArray:
        if gain == "exponential":
            return np.ceil(grade)
        return np.frexp(grade)[1].astype(np.float64)

    if len(t.ideal_grade) == 0 or float(exponent(t.ideal_grade.max())) <= _GAIN_EXPONENT:
        return None
    # the ideal entries run by query, highest grade first: each query's first is its top
    first = t.ideal_rank == 1
    top = np.zeros(t.n_queries, dtype=np.float64)
    top[t.ideal_query[first]] = exponent(t.ideal_grade[first])
    return np.maximum(top - _GAIN_EXPONENT, 0).astype(np.int64)


def average_precision(t: Lists, k: int | None, o: Options) -> FloatArray:
    r"""Σ over relevant items ranked at or above k of hits@rank / rank, divided by R (or
    the ``ap_denominator``).

    With ``ties="truncated_average"`` (Evidently), the expected value over every order of
    the rows that share a rank (:func:`average_precision_average`): Evidently's own sum
    over the cut-offs j ≤ k of P@j times the relevance of the last row ranked at or above
    j counts a row at several cut-offs, or a precision above 1, wherever ranks are shared
    or skipped at or above k, and can then exceed 1 (docs/conventions.md); where each
    rank 1..k holds one row it is this AP, which every order then gives.
    """
    if o.ties == "truncated_average":  # the denominators other than "hits" read no order
        total = _ties.precision_sum(t.unshared(), k)
        return ratio(total, _ap_denominator(t, k, o))
    keep = slice(None) if k is None else t.rel_rank <= k
    precision_at_hit = t.rel_hits[keep] / t.rel_rank[keep]
    total = np.bincount(t.rel_query[keep], weights=precision_at_hit, minlength=t.n_queries).astype(
        np.float64, copy=False
    )
    return ratio(total, _ap_denominator(t, k, o))


def _ap_denominator(t: Lists, k: int | None, o: Options) -> npt.NDArray[np.generic]:
    choice = o.denominator if o.ap_denominator is None else o.ap_denominator
    if choice == "hits":
        return t.hits_at(k)
    if choice == "min_retrieved":
        length = t.n_retrieved if k is None else np.minimum(t.n_retrieved, k)
        return np.minimum(t.n_relevant, length)
    if choice == "min_k" and k is not None:
        return np.minimum(t.n_relevant, k)
    return t.n_relevant


def success(t: Lists, k: int | None, _: Options) -> FloatArray:
    r"""1 if a relevant item is ranked at or above k, else 0."""
    return (t.hits_at(k) > 0).astype(np.float64)


def precision(t: Lists, k: int | None, o: Options) -> FloatArray:
    r"""hits@k / k; with k=None, hits / number of retrieved items; with
    ``precision_denominator="retrieved"``, hits@k / min(k, number of retrieved items)."""
    if k is None:
        denominator = t.n_retrieved
    elif o.precision_denominator == "retrieved":
        denominator = np.minimum(t.n_retrieved, k)
    else:
        denominator = np.full(t.n_queries, k)
    return ratio(t.hits_at(k), denominator)


def recall(t: Lists, k: int | None, o: Options) -> FloatArray:
    r"""hits@k / R (or / min(R, k) with ``denominator="min_k"``)."""
    return ratio(t.hits_at(k), _relevant_denominator(t, k, o))


def r_precision(t: Lists, _k: int | None, _: Options) -> FloatArray:
    r"""hits@R / R: precision at the query's own number of relevant items."""
    within = t.rel_rank <= t.n_relevant[t.rel_query]
    hits = np.bincount(t.rel_query[within], minlength=t.n_queries).astype(np.float64)
    return ratio(hits, t.n_relevant)


def dcg(t: Lists, k: int | None, o: Options) -> FloatArray:
    r"""Σ_{i ≤ k} gain(rel(i)) / discount(i), not normalised."""
    actual, _, shift = discounted_gains(t, k, o)
    if shift is None:
        return actual
    with np.errstate(over="ignore"):  # a DCG beyond float64 is inf, as exp2 gives it
        return np.ldexp(actual, shift)


def hit_count(t: Lists, k: int | None, _: Options) -> FloatArray:
    r"""The number of relevant items ranked at or above k."""
    return t.hits_at(k)


def f_measure(t: Lists, k: int | None, o: Options) -> FloatArray:
    r"""(1 + β²) P@k R@k / (β² P@k + R@k), 0 when both are 0.

    With P@k = hits@k / k and R@k = hits@k / R this is (1 + β²) hits@k / (β² R + k): linear
    in hits@k, so under ``ties="average"`` the expected hits give the expected F exactly.
    ``k=None``: precision over the retrieved rows (k = their number).
    """
    beta2 = float(o.beta) ** 2
    retrieved = t.n_retrieved if k is None else np.full(t.n_queries, k)
    return ratio((1.0 + beta2) * t.hits_at(k), beta2 * t.n_relevant + retrieved)


# -- ties="average" (rankframe.engine.ties): ndcg, dcg, precision, recall, f1 and hit_count
# read the tie groups themselves (through their DCG and Lists.hits_at); mrr and acc take
# theirs from rankframe.engine.ties, map and r_precision have their own below


def average_precision_average(t: Lists, k: int | None, o: Options) -> FloatArray:
    r"""Expected AP@k over the orders of tied rows (its denominator does not depend on
    the order, except ``ap_denominator="hits"``, which the pipeline refuses with it)."""
    return ratio(_ties.precision_sum(t, k), _ap_denominator(t, k, o))


def r_precision_average(t: Lists, _k: int | None, _: Options) -> FloatArray:
    r"""Expected R-precision over the orders of tied rows: E[hits@R] / R."""
    return ratio(t.expected_hits(t.n_relevant), t.n_relevant)


#: ``MetricDef.counts_rated`` of ndcg and dcg: a query without a relevant item but with a
#: negative grade (a rated item) has a value, 0, which ``empty=`` keeps
_COUNTS_RATED = ("empty_ndcg", "no_relevant_or_negative")
_NONE = options_of()
#: ``empty_list``: a query that retrieved nothing gets NaN under these values
#: (``MetricDef.nan_if_nothing_retrieved``); ndcg and dcg count it 0 under every value
_LENGTH = ("nan", "nan_except_ndcg")  # precision and AP divide by the list's length
_EXCEPT_NDCG = ("nan_except_ndcg",)
_NOTHING_RETRIEVED = options_of(EMPTY_LIST)

MRR = MetricDef(
    name="mrr",
    aliases=("rr", "reciprocal_rank"),
    trec_name="recip_rank",
    trec_cut=None,
    takes_k=True,
    options=_NOTHING_RETRIEVED,
    compute=reciprocal_rank,
    tie_average=_ties.reciprocal_rank,
    nan_if_nothing_retrieved=_EXCEPT_NDCG,
    shared_ranks=True,
    summary="reciprocal rank of the first relevant item within the top k (mean: MRR)",
    doc=r"""Mean reciprocal rank: the mean over queries of 1 / rank of the first relevant item.

    Per query, ``RR@k = 1 / min{i ≤ k : rel(i)}``, or 0 when no relevant item is
    ranked at or above k. trec_eval: ``recip_rank`` (no cut-off).
    """,
    examples="""
    The first relevant item of q1 is at rank 2. In q2 all three scores tie; ties go to
    the higher item id (as trec_eval), which puts q2's relevant item 'a' third:

    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({
    ...     "query": ["q1", "q1", "q1", "q2", "q2", "q2"],
    ...     "item": ["a", "b", "c", "a", "b", "c"],
    ...     "score": [0.9, 0.8, 0.1, 0.5, 0.5, 0.5],
    ...     "relevant": [0, 1, 1, 1, 0, 0]})
    >>> df.rank_eval.mrr()
    0.41666...
    >>> df.rank_eval.mrr(ties="optimistic")
    0.75
    """,
)
NDCG = MetricDef(
    name="ndcg",
    aliases=(),
    trec_name="ndcg",
    trec_cut="ndcg_cut",
    takes_k=True,
    options=options_of(GAIN, DISCOUNT, NEGATIVE_GAINS, EMPTY_NDCG),
    compute=ndcg,
    tie_average=ndcg,
    shared_ranks=True,
    counts_rated=_COUNTS_RATED,
    summary="normalised discounted cumulative gain of the top k",
    doc=r"""Normalised discounted cumulative gain at k.

    ``DCG@k = Σ_{i ≤ k} gain(rel(i)) / log2(i + 1)``, divided by the same sum
    over the ideal ordering of every judged item of the query (retrieved or not);
    0 when that ideal is 0. ``gain="linear"``: the grade; ``"exponential"``:
    ``2**rel - 1``. Negative grades give no gain. trec_eval: ``ndcg``,
    ``ndcg_cut_k``.
    """,
    examples="""
    Relevant items at ranks 1 and 3 of four (the NDCG-vs-AP table of the MRR article):

    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": 1, "item": [1, 2, 3, 4], "score": [4, 3, 2, 1],
    ...                    "relevant": [1, 0, 1, 0]})
    >>> round(df.rank_eval.ndcg(), 6)
    0.919721
    """,
)
MAP = MetricDef(
    name="map",
    aliases=("ap", "average_precision"),
    trec_name="map",
    trec_cut="map_cut",
    takes_k=True,
    options=options_of(DENOMINATOR, AP_DENOMINATOR, EMPTY_LIST),
    compute=average_precision,
    tie_average=average_precision_average,
    nan_if_nothing_retrieved=_LENGTH,
    shared_ranks=True,
    summary="average precision of the top k (mean: MAP)",
    doc=r"""Mean average precision at k.

    Per query ``AP@k = (1/R) Σ_{i ≤ k, i relevant} hits@i / i``, with R the
    number of relevant items of the query, retrieved or not (``denominator="min_k"``:
    ``min(R, k)``). trec_eval: ``map``, ``map_cut_k``.
    """,
    examples="""
    One relevant item retrieved at rank 1, another never retrieved (null score):

    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c"],
    ...                    "score": [2.0, 1.0, None], "relevant": [1, 0, 1]})
    >>> df.rank_eval.map()
    0.5
    """,
)
ACC = MetricDef(
    name="acc",
    aliases=("hit_rate", "hits", "accuracy"),
    trec_name=None,
    trec_cut="success",
    takes_k=True,
    options=_NOTHING_RETRIEVED,
    compute=success,
    tie_average=_ties.success_at,
    nan_if_nothing_retrieved=_EXCEPT_NDCG,
    shared_ranks=True,
    summary="1 if a relevant item is in the top k (accuracy@k, hit rate, success@k)",
    doc=r"""Accuracy@k (hit rate, success@k): share of queries with a relevant item in the top k.

    trec_eval: ``success_k``.
    """,
    examples="""
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["x", "y", "x", "y"],
    ...                    "score": [0.9, 0.1, 0.9, 0.1], "relevant": [0, 1, 1, 0]})
    >>> df.rank_eval.acc(k=1), df.rank_eval.acc(k=2)
    (0.5, 1.0)
    """,
)
PRECISION = MetricDef(
    name="precision",
    aliases=("p",),
    trec_name=None,
    trec_cut="P",
    takes_k=True,
    options=options_of(PRECISION_DENOMINATOR, EMPTY_LIST),
    compute=precision,
    tie_average=precision,
    nan_if_nothing_retrieved=_LENGTH,
    shared_ranks=True,
    summary="share of the top k that is relevant",
    doc=r"""Precision at k: hits@k / k (k=None: / the number of retrieved items).

    A list shorter than k counts the missing places as non-relevant (trec_eval ``P_k``).
    """,
    examples="""
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": "q", "item": ["a", "b"], "score": [2, 1],
    ...                    "relevant": [1, 1]})
    >>> df.rank_eval.precision(k=4)
    0.5
    """,
)
RECALL = MetricDef(
    name="recall",
    aliases=("r",),
    trec_name=None,
    trec_cut="recall",
    takes_k=True,
    options=options_of(DENOMINATOR, EMPTY_LIST),
    compute=recall,
    tie_average=recall,
    nan_if_nothing_retrieved=_EXCEPT_NDCG,
    shared_ranks=True,
    summary="share of the relevant items that is in the top k",
    doc=r"""Recall at k: hits@k / R (``denominator="min_k"``: / min(R, k)). trec_eval ``recall_k``.
    """,
    examples="""
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c"], "score": [3, 2, 1],
    ...                    "relevant": [1, 1, 1]})
    >>> df.rank_eval.recall(k=2), df.rank_eval.recall(k=2, denominator="min_k")
    (0.666..., 1.0)
    """,
)
R_PRECISION = MetricDef(
    name="r_precision",
    aliases=("rprec",),
    trec_name="Rprec",
    trec_cut=None,
    takes_k=False,
    options=_NOTHING_RETRIEVED,
    compute=r_precision,
    tie_average=r_precision_average,
    nan_if_nothing_retrieved=_EXCEPT_NDCG,
    shared_ranks=True,
    summary="precision at rank R, the query's number of relevant items",
    doc=r"""R-precision: hits@R / R, precision at the query's number of relevant items.

    trec_eval: ``Rprec``.
    """,
    examples="""
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c", "d"],
    ...                    "score": [4, 3, 2, None], "relevant": [1, 0, 1, 1]})
    >>> round(df.rank_eval.r_precision(), 4)
    0.6667
    """,
)
DCG = MetricDef(
    name="dcg",
    aliases=("dcg_cut",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(GAIN, DISCOUNT, NEGATIVE_GAINS, EMPTY_NDCG),
    compute=dcg,
    tie_average=dcg,
    shared_ranks=True,
    bounded=False,
    counts_rated=_COUNTS_RATED,
    summary="discounted cumulative gain of the top k, not normalised",
    doc=r"""Discounted cumulative gain at k, not normalised.

    ``DCG@k = Σ_{i ≤ k} gain(rel(i)) / log2(i + 1)``: NDCG's numerator.
    ``gain="linear"`` (the grade) is ranx's ``dcg`` and trec_eval's ``dcg``;
    ``"exponential"`` (``2**rel - 1``) is ranx's ``dcg_burges``;
    ``discount="log2(max(rank,2))"`` is LensKit's ``DCG`` (with ``negative_gains="keep"``,
    LensKit 2025's).
    Its mean depends on how many relevant items each query has, so compare systems on the
    same queries only.
    """,
    examples="""
    Grades 0, 5, 0, 4, 3 at ranks 1 to 5 (ranx's test of ``dcg``):
    5 / log2(3) + 4 / log2(5) + 3 / log2(6) = 3.1546 + 1.7227 + 1.1606:

    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": "q", "item": [1, 2, 3, 4, 5],
    ...                    "score": [5, 4, 3, 2, 1], "relevant": [0, 5, 0, 4, 3]})
    >>> round(df.rank_eval.dcg(), 4)
    6.0379
    >>> round(df.rank_eval.dcg(k=2, discount="log2(max(rank,2))"), 4)
    5.0
    """,
)
HIT_COUNT = MetricDef(
    name="hit_count",
    aliases=("n_hits",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=_NOTHING_RETRIEVED,
    compute=hit_count,
    tie_average=hit_count,
    nan_if_nothing_retrieved=_EXCEPT_NDCG,
    shared_ranks=True,
    bounded=False,
    summary="the number of relevant items in the top k (ranx's hits)",
    doc=r"""The number of relevant items in the top k: hits@k (ranx's ``hits``).

    Not to be confused with ``acc`` (alias ``hits``, ``hit_rate``): 1 when the top k holds
    at least one relevant item, else 0. trec_eval's ``num_rel_ret`` is ``hit_count`` with
    ``k=None``, summed over queries instead of averaged.
    """,
    examples="""
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": [1, 1, 1, 2, 2], "item": ["a", "b", "c", "a", "b"],
    ...                    "score": [3, 2, 1, 2, 1], "relevant": [1, 0, 1, 0, 0]})
    >>> df.rank_eval.hit_count(k=3), df.rank_eval.acc(k=3)
    (1.0, 0.5)
    """,
)
F1 = MetricDef(
    name="f1",
    aliases=("f_measure", "fbeta"),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(BETA, EMPTY_LIST),
    compute=f_measure,
    tie_average=f_measure,
    nan_if_nothing_retrieved=_EXCEPT_NDCG,
    shared_ranks=True,
    summary="harmonic mean of precision@k and recall@k (F-beta with beta=)",
    doc=r"""F1@k: the harmonic mean of precision@k and recall@k, per query.

    ``F1@k = 2 P@k R@k / (P@k + R@k)``, 0 when both are 0 (as ranx's ``f1`` and Evidently's
    F-beta at k), with ``P@k = hits@k / k`` (a list shorter than k counts the missing places
    as non-relevant; ``k=None``: / the number of retrieved items) and ``R@k = hits@k / R``.
    With ``beta``: ``F_β = (1 + β²) P R / (β² P + R)`` (van Rijsbergen), which weighs
    recall β times as much as precision; the column keeps the name ``f1@k``. Equal to
    ``(1 + β²) hits@k / (β² R + k)``.
    """,
    examples="""
    Relevant items at ranks 1 and 3, and a third relevant item never retrieved (R = 3). In the
    top 2: one hit, so P@2 = 1/2 and R@2 = 1/3: F1@2 = 2 (1/6) / (5/6) = 2/5, and F2@2 =
    5 (1/6) / (4/2 + 1/3) = 5/14:

    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c", "d", "e"],
    ...                    "score": [4, 3, 2, 1, None], "relevant": [1, 0, 1, 0, 1]})
    >>> df.rank_eval.f1(2)
    0.4
    >>> round(df.rank_eval.f1(2, beta=2), 6), round(5 / 14, 6)
    (0.357143, 0.357143)
    """,
)


#: The relevance metrics of trec_eval's own set, in the order of the registry.
DEFINITIONS = (MRR, NDCG, MAP, ACC, PRECISION, RECALL, R_PRECISION)
#: The metrics other tools report beyond that set: registered after the metrics of the items
#: (:mod:`rankframe.metrics`), in this order.
OTHER_TOOLS = (DCG, HIT_COUNT, F1)
