"""The metrics of the recommended items themselves: the beyond-accuracy metrics and
``top1_f1``, declared like every metric (:data:`DEFINITIONS`, registered by
:mod:`rankframe.metrics`) and computed in the finish step from every query's top-k items
(:mod:`rankframe.metrics.item_values`), never from the per-query lists.

Notation: L_q is query q's top-k list (the usual ranking and tie rule); c_i the number of
lists that hold item i, over every item of the catalog (zeros included); n the catalog size.
``arp``, ``novelty`` and ``ild`` have a value per query (and the mean over queries); the
others are set-level (``aggregate="set"``): one value per set of queries, the frame or a
``by`` segment. See docs/beyond.md.
"""

from __future__ import annotations

from rankframe.metrics import exposure, item_values
from rankframe.metrics.item_values import ItemMetric
from rankframe.metrics.registry import MetricDef
from rankframe.settings.options import (
    BROWSING,
    CATALOG,
    CLASS_AVERAGE,
    DISCOUNT,
    GROUP,
    ITEM_FEATURES,
    ITEM_GROUPS,
    JSD_UNIT,
    PATIENCE,
    POPULARITY,
    STOP,
    TARGET,
    UNKNOWN_GROUP,
    options_of,
)

# The worked example of the docstrings: top-2 lists {a, b}, {a, c}, {b, d}; the frame's
# items a, b, c, d (n = 4); counts c_a = c_b = 2, c_c = c_d = 1.
_FRAME = """
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({
    ...     "query": ["u1", "u1", "u1", "u2", "u2", "u2", "u3", "u3"],
    ...     "item": ["a", "b", "c", "a", "c", "b", "b", "d"],
    ...     "score": [0.9, 0.8, 0.1, 0.9, 0.8, 0.1, 0.9, 0.5],
    ...     "relevant": 0})"""

_CATALOG = options_of(CATALOG)

COVERAGE = MetricDef(
    name="coverage",
    aliases=("item_coverage", "catalog_coverage"),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=_CATALOG,
    aggregate="set",
    items=ItemMetric(per_set=item_values.coverage, catalog=True),
    depends_on_relevant=False,
    summary="share of the catalog that appears in some top-k list (set-level)",
    doc=r"""Catalog coverage at k: the share of the catalog's items in some top-k list.

    The number of distinct items of the top-k lists divided by n, over the queries of the
    frame or of a ``by`` segment; n is the size of ``catalog`` (default: the distinct items
    of the whole frame). Set-level: no per-query value. RecBole ``ItemCoverage``,
    Microsoft Recommenders ``catalog_coverage``.
    """,
    examples=_FRAME
    + """

    The top-2 lists hold a, b, c and d: the whole catalog of the frame. The top-1 lists
    hold a and b; a catalog of six items halves the top-2 value:

    >>> df.rank_eval.coverage(2), df.rank_eval.coverage(1)
    (1.0, 0.5)
    >>> round(df.rank_eval.coverage(2, catalog=list("abcdef")), 4)
    0.6667
    """,
)
GINI = MetricDef(
    name="gini",
    aliases=("gini_index",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=_CATALOG,
    aggregate="set",
    items=ItemMetric(per_set=item_values.gini, catalog=True),
    depends_on_relevant=False,
    summary="Gini index of how often catalog items are recommended (set-level)",
    doc=r"""Gini index of the item counts of the top-k lists: 0 when every catalog item is
    recommended equally often, near 1 when a few items take every place.

    ``Σ_{i=1..n} (2i - n - 1) c_(i) / (n Σ c)``, the counts sorted ascending over the n
    catalog items (items in no list count 0). NaN when no list holds an item. Set-level.
    RecBole ``GiniIndex``.
    """,
    examples=_FRAME
    + """

    Sorted counts 1, 1, 2, 2 (n = 4, Σc = 6): (-3·1 - 1·1 + 1·2 + 3·2) / (4·6) = 1/6.
    At k = 1 the counts are 0, 0, 1, 2: (1·1 + 3·2) / (4·3) = 7/12:

    >>> round(df.rank_eval.gini(2), 4), round(df.rank_eval.gini(1), 4)
    (0.1667, 0.5833)
    """,
)
ENTROPY = MetricDef(
    name="entropy",
    aliases=("shannon_entropy",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(),
    aggregate="set",
    items=ItemMetric(per_set=item_values.entropy),
    depends_on_relevant=False,
    bounded=False,
    summary="Shannon entropy (nats) of the recommended items' distribution (set-level)",
    doc=r"""Shannon entropy of the distribution of the top-k items, in nats.

    ``-Σ p_i ln p_i`` with ``p_i = c_i / Σ c`` over the items some list holds. Higher is
    more even. Set-level. RecBole's ``ShannonEntropy`` also divides by the number of
    recommended items; rankframe does not.
    """,
    examples=_FRAME
    + """

    p = 1/3, 1/3, 1/6, 1/6: (2/3) ln 3 + (1/3) ln 6 = 1.3297...

    >>> round(df.rank_eval.entropy(2), 4)
    1.3297
    """,
)
PERSONALIZATION = MetricDef(
    name="personalization",
    aliases=(),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(),
    aggregate="set",
    items=ItemMetric(
        per_set=item_values.personalization, cutoff="it divides each pair's shared items by k"
    ),
    depends_on_relevant=False,
    summary="1 - mean share of items two queries' top-k lists have in common (set-level)",
    doc=r"""Personalization at k: how different the queries' top-k lists are.

    ``1 - mean over pairs of queries q < r of |L_q ∩ L_r| / k``, from the item counts
    (``Σ_i c_i (c_i - 1) / 2`` pairs of lists share item i): no loop over pairs. Needs a
    cut-off; NaN for fewer than two queries. Set-level. Evidently ``PersonalizationMetric``.
    """,
    examples=_FRAME
    + """

    u1 and u2 share a, u1 and u3 share b, u2 and u3 nothing: 1 - (1/2 + 1/2 + 0) / 3:

    >>> round(df.rank_eval.personalization(2), 4)
    0.6667
    """,
)

_POPULARITY = options_of(POPULARITY)

ARP = MetricDef(
    name="arp",
    aliases=("average_popularity", "avg_pop"),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=_POPULARITY,
    items=ItemMetric(per_query=item_values.average_popularity, needs="popularity"),
    depends_on_relevant=False,
    bounded=False,
    summary="mean popularity of the top-k items (average recommendation popularity)",
    doc=r"""Average recommendation popularity: per query, the mean ``popularity`` of its top-k
    items (over the items of the list: a list shorter than k divides by its length; 0
    for a query that retrieved nothing), then the mean over queries.

    RecBole ``AveragePopularity``. Needs ``popularity`` (item → interaction count).
    """,
    examples=_FRAME
    + """
    >>> popularity = {"a": 8, "b": 4, "c": 2, "d": 2}

    Per query (8 + 4) / 2, (8 + 2) / 2, (4 + 2) / 2 = 6, 5, 3:

    >>> round(df.rank_eval.arp(2, popularity=popularity), 4)
    4.6667
    """,
)
NOVELTY = MetricDef(
    name="novelty",
    aliases=("self_information",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=_POPULARITY,
    items=ItemMetric(per_query=item_values.novelty, needs="popularity"),
    depends_on_relevant=False,
    bounded=False,
    summary="mean self-information -log2(popularity share) of the top-k items",
    doc=r"""Novelty: per query, the mean self-information of its top-k items,
    ``-log2(popularity(i) / Σ_j popularity(j))`` (the sum over every item of
    ``popularity``), then the mean over queries. An item with popularity 0 is an error
    (infinite novelty).

    Zhou et al. (2010), "Solving the apparent diversity-accuracy dilemma of recommender
    systems"; Microsoft Recommenders ``novelty``.
    """,
    examples=_FRAME
    + """
    >>> popularity = {"a": 8, "b": 4, "c": 2, "d": 2}

    Shares 1/2, 1/4, 1/8, 1/8 give 1, 2, 3, 3 bits; per query 1.5, 2 and 2.5:

    >>> df.rank_eval.novelty(2, popularity=popularity)
    2.0
    """,
)
ILD = MetricDef(
    name="ild",
    aliases=("intra_list_diversity", "diversity"),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(ITEM_FEATURES),
    items=ItemMetric(per_query=item_values.intra_list_diversity, needs="item_features"),
    depends_on_relevant=False,
    bounded=False,
    summary="mean pairwise cosine distance of the top-k items' features",
    doc=r"""Intra-list diversity: per query, the mean over the pairs i < j of its top-k items of
    ``1 - cos(f_i, f_j)`` (``item_features``), then the mean over queries. A list of fewer
    than two items has no pair: 0. A zero feature vector has cosine 0 with every vector
    (as scikit-learn's ``cosine_similarity``).

    Ziegler et al. (2005), "Improving recommendation lists through topic
    diversification"; Microsoft Recommenders ``diversity``.
    """,
    examples=_FRAME
    + """
    >>> features = pd.DataFrame({"x": [1, 0, 1, 1], "y": [0, 1, 1, 0]},
    ...                         index=["a", "b", "c", "d"])

    cos(a, b) = 0, cos(a, c) = 1/√2, cos(b, d) = 0: (1 + (1 - 0.7071) + 1) / 3:

    >>> round(df.rank_eval.ild(2, item_features=features), 4)
    0.7643
    """,
)
TOP1_F1 = MetricDef(
    name="top1_f1",
    aliases=("f1_top1",),
    trec_name=None,
    trec_cut=None,
    takes_k=False,
    options=options_of(CLASS_AVERAGE),
    aggregate="set",
    items=ItemMetric(per_set=item_values.top1_f1, truth=True, depth=1),
    summary="F1 of the rank-1 item as a class prediction of the one relevant item (set-level)",
    doc=r"""F1 score of the top-1 predictions, as a multi-class classification.

    Each query has exactly one relevant item, its true class; its rank-1 item is the
    predicted class. The value is ``sklearn.metrics.f1_score(y_true, y_pred,
    average=class_average)`` over the queries of the frame or segment: ``"weighted"``
    (per-class F1 weighted by the class's number of queries), ``"macro"`` or ``"micro"``
    (accuracy). Set-level. A query with two or more relevant items, or with one that
    retrieved nothing, is an error. A query without a relevant item is left out with
    ``empty="skip"`` or ``"nan"``; ``"error"`` raises ``EmptyQueryError``, and the default
    ``"zero"`` (or ``"one"``) an error naming it.
    """,
    examples="""
    True classes x, x, y; rank-1 items x, y, y. Class x: F1 = 2·1 / (2 + 1) = 2/3 (two
    queries); class y: 2·1 / (1 + 2) = 2/3 (one query):

    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({
    ...     "query": [1, 1, 2, 2, 3, 3], "item": ["x", "y"] * 3,
    ...     "score": [0.9, 0.1, 0.1, 0.9, 0.2, 0.8], "relevant": [1, 0, 1, 0, 0, 1]})
    >>> round(df.rank_eval.top1_f1(), 4), df.rank_eval.top1_f1(class_average="micro")
    (0.6667, 0.6666...)
    """,
)

# -- fairness of exposure (metrics/exposure.py, docs/fairness.md) ---------------------------

# The worked example: one query, top 3 a (group x, grade 2), b (y, 0), c (y, 1); attention
# 1/log2(2), 1/log2(3), 1/log2(4) = 1, 0.6309, 0.5 (sum 2.1309).
_GROUPS = """
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c"],
    ...                    "score": [3, 2, 1], "relevant": [2, 0, 1]})
    >>> groups = {"a": "x", "b": "y", "c": "y"}"""

_BROWSING = (BROWSING, PATIENCE, STOP, DISCOUNT)
_PER_GROUP = options_of(ITEM_GROUPS, UNKNOWN_GROUP, *_BROWSING, GROUP)
_EXPOSURE_REFS = """

    Singh & Joachims (2018), "Fairness of exposure in rankings", KDD; the browsing model
    ``browsing=`` (``"log"``, ``"rbp"`` with ``patience``, ``"cascade"`` with ``stop``)
    is described in docs/fairness.md. With ``group=None`` (the default) a call gives one
    column per group of ``item_groups`` (``exposure@5(group=x)``); the metric method then
    needs ``group=``."""

EXPOSURE = MetricDef(
    name="exposure",
    aliases=("group_exposure",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=_PER_GROUP,
    items=ItemMetric(
        per_query=exposure.exposure_share,
        needs="item_groups",
        truth=True,
        grades=True,
        per_group=True,
    ),
    expand=exposure.per_group,
    depends_on_relevant=False,
    summary="a group's share of the attention over the top k (one column per group)",
    doc=r"""Exposure share of a group at k: the attention its items in the top k receive,
    divided by the attention of the whole top k.

    ``E_g = Σ_{i ≤ k, g(i) = g} a_i / Σ_{i ≤ k} a_i`` per query, a_i the attention of
    rank i under ``browsing``; 0 for a query that retrieved nothing; then the mean over
    queries."""
    + _EXPOSURE_REFS,
    examples=_GROUPS
    + """

    x holds rank 1: 1 / (1 + 0.6309 + 0.5) = 0.4693; with RBP (patience 0.5) the
    attention is 1, 0.5, 0.25 and x's share 1 / 1.75:

    >>> round(df.rank_eval.exposure(3, item_groups=groups, group="x"), 4)
    0.4693
    >>> round(df.rank_eval.exposure(3, item_groups=groups, group="x", browsing="rbp",
    ...                             patience=0.5), 4)
    0.5714
    >>> df.rank_eval.evaluate(["exposure@3"], item_groups=groups).round(4)
       exposure@3(group=x)  exposure@3(group=y)  n_queries
    0               0.4693               0.5307          1
    """,
)
EXPOSURE_RATIO = MetricDef(
    name="exposure_ratio",
    aliases=("disparate_exposure",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=_PER_GROUP,
    items=ItemMetric(
        per_query=exposure.exposure_ratio,
        needs="item_groups",
        truth=True,
        grades=True,
        per_group=True,
    ),
    expand=exposure.per_group,
    bounded=False,
    summary="a group's share of the attention over its share of the merit (1: fair)",
    doc=r"""Exposure ratio of a group at k: its exposure share over its merit share.

    ``E_g / M_g`` per query, with ``M_g`` the group's share of the grades of the query's
    relevant items (its merit, Singh & Joachims' demographic parity of exposure against
    merit); 1 is exposure in proportion to merit. NaN for a query where the group has no
    merit (left out of the mean); a query without relevant items follows ``empty=``."""
    + _EXPOSURE_REFS,
    examples=_GROUPS
    + """

    Merit: x has grade 2 of 3 (2/3), y 1/3. x: 0.46928 / (2/3) = 0.70392; y: 0.53072 /
    (1/3) = 1.59217:

    >>> round(df.rank_eval.exposure_ratio(3, item_groups=groups, group="y"), 4)
    1.5922
    >>> df.rank_eval.evaluate(["exposure_ratio@3"], item_groups=groups).round(4)
       exposure_ratio@3(group=x)  exposure_ratio@3(group=y)  n_queries
    0                     0.7039                     1.5922          1
    """,
)
EXPOSURE_GAP = MetricDef(
    name="exposure_gap",
    aliases=(),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=_PER_GROUP,
    items=ItemMetric(
        per_query=exposure.exposure_gap,
        needs="item_groups",
        truth=True,
        grades=True,
        per_group=True,
    ),
    expand=exposure.per_group,
    bounded=False,
    summary="a group's share of the attention minus its share of the merit (0: fair)",
    doc=r"""Exposure gap of a group at k: its exposure share minus its merit share.

    ``E_g - M_g`` per query (in [-1, 1]; 0 is exposure in proportion to merit, negative:
    the group gets less attention than its relevance merits); a query without relevant
    items follows ``empty=``."""
    + _EXPOSURE_REFS,
    examples=_GROUPS
    + """

    x: 0.46928 - 2/3 = -0.19739:

    >>> round(df.rank_eval.exposure_gap(3, item_groups=groups, group="x"), 4)
    -0.1974
    """,
)
AWRF = MetricDef(
    name="awrf",
    aliases=("attention_weighted_rank_fairness",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(ITEM_GROUPS, UNKNOWN_GROUP, TARGET, *_BROWSING, JSD_UNIT),
    items=ItemMetric(per_query=exposure.awrf, needs="item_groups", truth=True, grades=True),
    summary="1 - Jensen-Shannon divergence of the groups' attention from a target",
    doc=r"""Attention-weighted rank fairness at k: 1 minus the Jensen-Shannon divergence
    (in bits, so in [0, 1]) between the groups' exposure shares and a target; higher is
    fairer.

    ``1 - JSD(E, T)``, ``JSD(P, Q) = ½ Σ P log2(P/M) + ½ Σ Q log2(Q/M)``, M = (P + Q)/2;
    T is ``target`` (group → share, summing to 1) or, by default, per query the groups'
    shares of its relevant items (by count). 0 for a query that retrieved nothing; a
    query without relevant items follows ``empty=`` (0 under ``"zero"`` with the default
    target, its value with a ``target``).

    Sapiezynski et al. (2019), "Quantifying the impact of user attention on fair group
    representation in ranked lists"; TREC Fair Ranking 2021-22. The divergence, not
    scipy's ``jensenshannon`` (its square root, the distance).
    """,
    examples=_GROUPS
    + """

    E = (0.46928, 0.53072); T (relevant items a and c, one per group) = (0.5, 0.5):
    M = (0.48464, 0.51536); E's term Σ E log2(E/M) = -0.02181 + 0.02249 and T's
    0.02251 - 0.02183: JSD = 0.00068. A target of x alone, T = (1, 0): M = (0.73464,
    0.26536), E's term 0.46928 log2(0.63879) + 0.53072 log2(2) = 0.22729, T's
    log2(1/0.73464) = 0.44489, JSD = 0.33609:

    >>> round(df.rank_eval.awrf(3, item_groups=groups), 4)
    0.9993
    >>> round(df.rank_eval.awrf(3, item_groups=groups, target={"x": 1.0}), 4)
    0.6639
    """,
)

NDKL = MetricDef(
    name="ndkl",
    aliases=("normalized_discounted_kl",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(ITEM_GROUPS, UNKNOWN_GROUP, TARGET),
    items=ItemMetric(per_query=exposure.ndkl, needs="item_groups", whole_list=True),
    depends_on_relevant=False,
    bounded=False,
    summary="normalised discounted KL divergence of the top-i group shares from a target",
    doc=r"""Normalised discounted KL divergence at k (Geyik et al. 2019, LinkedIn): how far
    the groups' shares among the top i items stray from a target, over every i <= k,
    weighted as DCG; 0 is representative at every rank, lower is fairer.

    ``Σ_{i ≤ k} KL(P_i || T) / log2(i + 1)`` divided by ``Σ_{i ≤ k} 1 / log2(i + 1)`` over
    the ranks the list has; P_i the groups' shares among the top i, KL in nats; T is
    ``target`` or, by default, the groups' shares of the query's whole ranked list (every
    retrieved item), as FairRankTune's ``NDKL``. 0 for a query that retrieved nothing;
    +inf when ``target`` gives 0 to a group of the top i.

    Geyik, Ambler & Kenthapadi (2019), "Fairness-aware ranking in search & recommendation
    systems with application to LinkedIn talent search", KDD.
    """,
    examples=_GROUPS
    + """

    T = (1/3, 2/3). Top 1 (x): KL = ln 3 = 1.09861; top 2 (x, y): ½ ln 1.5 + ½ ln 0.75 =
    0.05889, weight 0.63093; top 3 is T (0). (1.09861 + 0.03716) / 2.13093 = 0.53299:

    >>> round(df.rank_eval.ndkl(3, item_groups=groups), 4)
    0.533
    """,
)


# Expected exposure (Diaz et al. 2020): a, b, c ranked 1, 2, 3 with grades 2, 0, 1 (the
# worked example), browsing="rbp", patience 0.5: ε = (1, 0.5, 0.25); the target gives a
# (the grade-2 item) position 1's attention, 1, and c (grade 1) position 2's, 0.5.
_EE_EXAMPLE = (
    _GROUPS
    + """

    EE-D = 1² + 0.5² + 0.25² = 1.3125; EE-R = 1 · 1 + 0.25 · 0.5 = 1.125; EE-L = (1 - 1)²
    + 0.5² + (0.25 - 0.5)² = 0.3125 (= EE-D - 2 EE-R + ||ε*||² = 1.3125 - 2.25 + 1.25):

    >>> rbp = {"browsing": "rbp", "patience": 0.5}
    >>> df.rank_eval.expected_exposure(**rbp)
    0.3125
    >>> df.rank_eval.ee_disparity(**rbp), df.rank_eval.ee_relevance(**rbp)
    (1.3125, 1.125)
    """
)
_EE_DOC = """

    Per query, over every item d (retrieved or relevant): ε_d the attention of d's rank
    under ``browsing`` (0 below k, or not retrieved), ε*_d its target exposure: the items of
    one grade share equally the attention of the positions an ideal ranking gives that
    grade, every higher grade first (``(A(b + m) - A(b)) / m`` for b relevant items of a
    higher grade and m of this one, A(j) the attention of the first j positions, cut at
    k); 0 for an item that is not relevant. ``EE-L = ||ε - ε*||² = EE-D - 2 EE-R +
    ||ε*||²``. One ranking per query (the expected exposure of a deterministic ranking);
    Diaz et al. use RBP with patience 0.5 (``browsing="rbp", patience=0.5``). A query
    without relevant items has every target 0: its EE-L is its EE-D (``empty=`` does not
    touch EE-L or EE-D; EE-R is 0 there, and follows ``empty=``).

    Diaz, Mitra, Ekstrand, Biega & Carterette (2020), "Evaluating stochastic rankings with
    expected exposure", CIKM; TREC Fair Ranking 2021's EE-L, EE-D, EE-R (over groups
    there)."""

EXPECTED_EXPOSURE = MetricDef(
    name="expected_exposure",
    aliases=("ee_loss", "ee_l"),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(*_BROWSING),
    items=ItemMetric(per_query=exposure.ee_loss, truth=True, grades=True, samples=True),
    depends_on_relevant=False,
    bounded=False,
    summary="expected-exposure loss EE-L: the squared distance of each item's attention "
    "from the exposure its grade merits (0: equal exposure for equal grades)",
    doc=r"""Expected exposure loss (EE-L) at k: the squared distance between the attention
    each item receives and the target exposure of its grade; lower is fairer and better.
    """
    + _EE_DOC,
    examples=_EE_EXAMPLE,
)
EE_DISPARITY = MetricDef(
    name="ee_disparity",
    aliases=("ee_d",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(*_BROWSING),
    items=ItemMetric(per_query=exposure.ee_disparity, truth=True, grades=True, samples=True),
    depends_on_relevant=False,
    bounded=False,
    summary="expected-exposure disparity EE-D: the sum of the squared attention of the "
    "items (lower: attention spread over more items)",
    doc=r"""Expected exposure disparity (EE-D) at k: ``||ε||²``, the sum over items of their
    squared attention; lower spreads the attention over more items, whatever their
    relevance."""
    + _EE_DOC,
    examples=_GROUPS
    + """

    RBP with patience 0.5: ε = (1, 0.5, 0.25), 1² + 0.5² + 0.25² = 1.3125:

    >>> df.rank_eval.ee_disparity(browsing="rbp", patience=0.5)
    1.3125
    """,
)
EE_RELEVANCE = MetricDef(
    name="ee_relevance",
    aliases=("ee_r",),
    trec_name=None,
    trec_cut=None,
    takes_k=True,
    options=options_of(*_BROWSING),
    items=ItemMetric(per_query=exposure.ee_relevance, truth=True, grades=True, samples=True),
    bounded=False,
    summary="expected-exposure relevance EE-R: the attention of the items weighted by "
    "their target exposure (higher: attention where the grades put it)",
    doc=r"""Expected exposure relevance (EE-R) at k: ``ε · ε*``, the attention of the items
    weighted by their target exposure; higher puts the attention where the grades
    merit it."""
    + _EE_DOC,
    examples=_GROUPS
    + """

    RBP with patience 0.5: ε = (1, 0.5, 0.25), targets a 1, c 0.5 (b: 0), so 1 · 1 +
    0.25 · 0.5 = 1.125:

    >>> df.rank_eval.ee_relevance(browsing="rbp", patience=0.5)
    1.125
    """,
)

#: In the order of the registry. None reads shared ranks (``MetricDef.shared_ranks``): they
#: read each query's top k, one position per row.
DEFINITIONS = (
    COVERAGE,
    GINI,
    ENTROPY,
    PERSONALIZATION,
    ARP,
    NOVELTY,
    ILD,
    TOP1_F1,
    EXPOSURE,
    EXPOSURE_RATIO,
    EXPOSURE_GAP,
    AWRF,
    NDKL,
    EXPECTED_EXPOSURE,
    EE_DISPARITY,
    EE_RELEVANCE,
)
