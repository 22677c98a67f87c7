"""F-measures of the top k: ``f1@k``, and F-beta through the ``beta`` option.

Declared in the registry like the metrics of :mod:`rankframe._metrics` (which imports this
module last).
"""

from __future__ import annotations

import numpy as np

from rankframe._engine import Lists
from rankframe._metrics import FloatArray, _ratio
from rankframe._options import BETA, Options, options_of
from rankframe._registry import MetricDef, register


def f_measure(t: Lists, k: int | None, o: Options) -> FloatArray:
    r"""(1 + β²) P@k R@k / (β² P@k + R@k), 0 when both are 0.

    With P@k = hits@k / k and R@k = hits@k / R this is (1 + β²) hits@k / (β² R + k): linear
    in hits@k, so under ``ties="average"`` the expected hits give the expected F exactly.
    ``k=None``: precision over the retrieved rows (k = their number).
    """
    beta2 = float(o.beta) ** 2
    retrieved = t.n_retrieved if k is None else np.full(t.n_queries, k)
    return _ratio((1.0 + beta2) * t.hits_at(k), beta2 * t.n_relevant + retrieved)


register(MetricDef(
    name="f1", aliases=("f_measure", "fbeta"), trec_name=None, trec_cut=None,
    takes_k=True, options=options_of(BETA), compute=f_measure, tie_average=f_measure,
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
))
