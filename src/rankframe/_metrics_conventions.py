"""Metrics other tools report that rankframe's trec_eval set lacks: unnormalised DCG
(ranx ``dcg``/``dcg_burges``, LensKit ``DCG``, trec_eval's ``dcg``) and the count of
relevant items in the top k (ranx ``hits``). Each is declared once in the registry, like the
metrics of :mod:`rankframe._metrics`; see ``docs/conventions.md``.
"""

from __future__ import annotations

import numpy as np

from rankframe._engine import Lists
from rankframe._metrics import FloatArray, discounted_gains
from rankframe._options import DISCOUNT, GAIN, NEGATIVE_GAINS, Options, options_of
from rankframe._registry import MetricDef, register


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


register(MetricDef(
    name="dcg", aliases=("dcg_cut",), trec_name=None, trec_cut=None,
    takes_k=True, options=options_of(GAIN, DISCOUNT, NEGATIVE_GAINS), compute=dcg, tie_average=dcg,
    summary="discounted cumulative gain of the top k, not normalised",
    doc=r"""Discounted cumulative gain at k, not normalised.

    ``DCG@k = Σ_{i ≤ k} gain(rel(i)) / log2(i + 1)``: NDCG's numerator.
    ``gain="linear"`` (the grade) is ranx's ``dcg`` and trec_eval's ``dcg``;
    ``"exponential"`` (``2**rel - 1``) is ranx's ``dcg_burges``;
    ``discount="log2(max(rank,2))"`` with ``negative_gains="keep"`` is LensKit's ``DCG``.
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
))
register(MetricDef(
    name="hit_count", aliases=("n_hits",), trec_name=None, trec_cut=None,
    takes_k=True, options=options_of(), compute=hit_count, tie_average=hit_count,
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
))
