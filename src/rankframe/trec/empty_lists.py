"""trec_eval's ``-nan`` on an empty ranking, which only ``-J`` makes.

``-J`` removes a query's unjudged documents before anything is counted, which may leave it
none (trec_eval's help: "possibly leaving an empty set"); so does ``-c -J`` with the one
document, outside the qrels, that trec_eval ranks for a judged query the run misses. On such
a query trec_eval's interpolated precision starts from ``num_rel_ret / num_ret`` = 0 / 0
(m_iprec_at_recall.c, m_11pt_avg.c): ``iprec_at_recall`` at a recall level whose number of
relevant documents, ``lround(level * R)``, is 0 (level 0 always) is NaN, and so is
``11pt_avg``, which adds level 0. trec_eval prints NaN as ``-nan`` (its 0.0 / 0.0 has the sign
bit set), and its ``all`` line, the sum over the queries divided by their number, is NaN when
a query's is. The metrics themselves give 0 there (a query that retrieved nothing); this
module says where trec_eval's output differs from them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from rankframe.exceptions import silenced
from rankframe.metrics.registry import Metric

__all__ = ["NAN", "empty_list_nans", "zero_over_zero"]

NAN = "  -nan"  # trec_eval's "%6.4f" of its NaN


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


def empty_list_nans(
    joined: pd.DataFrame, metrics: list[Metric], queries: pd.Index, options: dict[str, Any]
) -> pd.DataFrame:
    """Per query (``queries``, the report's), a boolean column per metric (named by its
    ``str``): whether trec_eval prints ``-nan`` for it (:func:`zero_over_zero`), on the
    frame ``joined`` evaluated with ``options``."""
    if not any(m.name in ("iprec", "eleven_point_avg") for m in metrics):
        return pd.DataFrame(False, index=queries, columns=[str(m) for m in metrics])
    with silenced():  # a judged item missing from the run: the format's null score
        counts: pd.DataFrame = joined.rank_eval.per_query(["num_ret", "num_rel"], **options)
    counts = counts.set_index("query").reindex(queries)
    n_retrieved = counts.iloc[:, 0].to_numpy(dtype=np.float64)
    n_relevant = counts.iloc[:, 1].to_numpy(dtype=np.float64)
    return pd.DataFrame(
        {str(m): zero_over_zero(m, n_retrieved, n_relevant) for m in metrics}, index=queries
    )
