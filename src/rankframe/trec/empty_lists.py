"""trec_eval's ``-nan`` on an empty ranking, which only ``-J`` makes.

``-J`` removes a query's unjudged documents before anything is counted, which may leave it
none (trec_eval's help: "possibly leaving an empty set"); so does ``-c -J`` with the one
document, outside the qrels, that trec_eval ranks for a judged query the run misses. On such
a query trec_eval's interpolated precision starts from ``num_rel_ret / num_ret`` = 0 / 0
(m_iprec_at_recall.c, m_11pt_avg.c): ``iprec_at_recall`` at a recall level whose number of
relevant documents, ``lround(level * R)``, is 0 (level 0 always) is NaN, and so is
``11pt_avg``, which adds level 0. trec_eval prints NaN as ``-nan`` (its 0.0 / 0.0 has the sign
bit set), and its ``all`` line, the sum over the queries divided by their number, is NaN when
a query's is (``rankframe.trec.text`` writes NaN so). The metrics themselves give 0 there
(a query that retrieved nothing); this module says where trec_eval's output differs from
them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rankframe.metrics.registry import Metric

__all__ = ["zero_over_zero"]


def zero_over_zero(
    metric: Metric, n_retrieved: npt.NDArray[np.float64], n_relevant: npt.NDArray[np.float64]
) -> npt.NDArray[np.bool_]:
    """Per query, whether trec_eval's value of ``metric`` is 0 / 0: its ranking is empty
    (``n_retrieved`` 0) and ``metric`` is ``eleven_point_avg``, or ``iprec`` at a level whose
    ``lround(level * R)`` is 0 (``n_relevant``: R at the call's ``min_relevance``)."""
    empty: npt.NDArray[np.bool_] = np.equal(n_retrieved, 0)
    if metric.name == "eleven_point_avg":
        return empty
    if metric.name == "iprec" and metric.k is not None:
        # lround: halves away from zero; level and R are never negative
        rounded = np.floor(float(metric.k) * n_relevant + 0.5)
        return np.logical_and(empty, np.equal(rounded, 0))
    return np.zeros(len(empty), dtype=bool)
