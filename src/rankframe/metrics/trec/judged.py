"""trec_eval's measures of incomplete judgments: bpref and its geometric mean, inferred AP,
and the share of the top k that is unjudged; and ir_measures' ``Judged@k``, the share of
the top k that is judged (:data:`OTHER_TOOLS`: not a trec_eval measure). They read the
unjudged rows (a ``judged`` column, or a negative grade: trec_eval's "in the pool but not
judged") and the judged non-relevant ones, which ``Lists`` computes on first use."""

from __future__ import annotations

import numpy as np

from rankframe.engine import Lists
from rankframe.engine.segments import sums
from rankframe.metrics.common import FloatArray, IntArray, ratio
from rankframe.metrics.trec.declare import declare
from rankframe.settings.options import Options

__all__ = [
    "DEFINITIONS",
    "INFAP_EPSILON",
    "OTHER_TOOLS",
    "bpref",
    "gm_bpref",
    "infap",
    "judged",
    "unjudged",
]

#: trec_eval's ``INFAP_EPSILON``.
INFAP_EPSILON = 1e-5


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


def judged(t: Lists, k: int | None, _: Options) -> FloatArray:
    """The share of the top k that is judged, as ir_measures' ``Judged@k``: of the
    min(k, N) retrieved rows (k=None: of the N retrieved rows); 0 for a query with none."""
    top = t.n_retrieved if k is None else np.minimum(t.n_retrieved, k)
    return ratio(top - t.unjudged_at(k), top)


def gm_bpref(t: Lists, k: object, o: Options) -> FloatArray:
    """bpref; the mean over queries is geometric."""
    return bpref(t, k, o)


# -- declarations ----------------------------------------------------------------------------

BPREF = declare(
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
    reads_unjudged=True,
)

INFAP = declare(
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
    reads_unjudged=True,
)

GM_BPREF = declare(
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
    reads_unjudged=True,
)

UNJUDGED = declare(
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
    reads_unjudged=True,
)

JUDGED = declare(
    "judged",
    judged,
    "share of the top k that is judged",
    """Share of the top k retrieved rows that is judged, as ir_measures' ``Judged@k``:
    ``(min(k, N) - u) / min(k, N)``, u the unjudged rows among the first min(k, N) (k=None:
    the N retrieved rows); 0 for a query that retrieved nothing.

    A list shorter than k is divided by its own length, so ``judged@k`` is ``1 -
    unjudged@k`` only when the list holds at least k rows (``unjudged`` divides by k).
    Unjudged as for ``unjudged``: a ``judged`` column False, a null grade with
    ``unjudged="nonrelevant"``, or a negative grade (trec_eval's "in the pool but not
    judged"; ir_measures counts a document of any grade in the qrels as judged). ir_measures
    reports no value for a query without judgments; here it is a query like any other.

    ir_measures: ``Judged@k``.
    """,
    """
    c, the third row, is unjudged; the list holds N = 4 rows, so the top 10 is its 4 rows,
    of which 3 (a, b, d) are judged:

    >>> df.rank_eval.judged(2), df.rank_eval.judged(3), df.rank_eval.judged(10)
    (1.0, 0.6666666666666666, 0.75)
    """,
    takes_k=True,
    depends_on_relevant=False,
    reads_unjudged=True,
)

#: The measures of this family, in the order trec_eval prints them.
DEFINITIONS = (BPREF, INFAP, GM_BPREF, UNJUDGED)
#: The measures of this family that other tools report (ir_measures), registered after
#: trec_eval's (:mod:`rankframe.metrics`), in this order.
OTHER_TOOLS = (JUDGED,)
