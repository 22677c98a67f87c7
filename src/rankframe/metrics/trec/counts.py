"""trec_eval's counts: retrieved, relevant, relevant retrieved and judged non-relevant
retrieved rows per query, summed over queries (``aggregate="sum"``). They read no rank, so
every tie rule gives them the same value (``ties="truncated_average"`` too)."""

from __future__ import annotations

import numpy as np

from rankframe.engine import Lists
from rankframe.metrics.common import FloatArray
from rankframe.metrics.trec.declare import declare
from rankframe.settings.options import Options

__all__ = ["DEFINITIONS", "num_nonrel_judged_ret", "num_rel", "num_rel_ret", "num_ret"]


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


# -- declarations ----------------------------------------------------------------------------

NUM_RET = declare(
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
    rank_free=True,
)

NUM_REL = declare(
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
    rank_free=True,
)

NUM_REL_RET = declare(
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
    rank_free=True,
)

NUM_NONREL_JUDGED_RET = declare(
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
    rank_free=True,
    reads_unjudged=True,
)

#: The measures of this family, in the order trec_eval prints them.
DEFINITIONS = (NUM_RET, NUM_REL, NUM_REL_RET, NUM_NONREL_JUDGED_RET)
