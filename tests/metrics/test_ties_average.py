"""``ties="average"``: each metric's expected value over every order of tied items.

The reference enumerates the orders: every permutation of every group of tied rows
(``itertools.permutations``, groups of at most 5 rows), each order's metrics computed by the
slow reference of ``reference.py`` (and F-beta from its precision and recall, written out
below), averaged. For a larger group with binary grades, the orders reduce to the sets of
places of the relevant rows (``itertools.combinations``), equally likely. Then the bounds
``pessimistic <= average <= optimistic`` on random frames, agreement with ``ties="trec"``
when no score ties, scikit-learn's ``ndcg_score`` (which averages ties), and the errors.
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Hashable, Iterator, Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations, permutations, product
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import ndcg_score

import helpers
import rankframe
import reference as ref
from helpers import as_float, unlabelled
from rankframe.engine import ranking
from reference import Row


# Tables are read without the options their labels name (``map(ties=first)`` as ``map``):
# the values are compared by metric; tests/metrics/test_labels.py tests the labels.
def as_pandas(result: Any) -> pd.DataFrame:
    return unlabelled(result)


def as_dict(result: Any, key: str = "query") -> dict[Any, dict[str, float]]:
    return helpers.as_dict(unlabelled(result), key)


TOLERANCE = 1e-12

METRICS: list[tuple[str, float | None]] = [
    ("mrr", None),
    ("mrr", 1),
    ("mrr", 3),
    ("ndcg", None),
    ("ndcg", 1),
    ("ndcg", 3),
    ("map", None),
    ("map", 2),
    ("map", 4),
    ("acc", 1),
    ("acc", 2),
    ("acc", 4),
    ("precision", None),
    ("precision", 2),
    ("precision", 5),
    ("recall", None),
    ("recall", 2),
    ("recall", 4),
    ("r_precision", None),
    ("f1", None),
    ("f1", 2),
    ("f1", 4),
    ("dcg", None),
    ("dcg", 3),
    ("hit_count", None),
    ("hit_count", 2),
    # trec_eval's measures that do not depend on the order or are linear in hits@k
    ("num_ret", None),
    ("num_rel", None),
    ("num_rel_ret", None),
    ("utility", None),
    ("set_map", None),
    ("set_f", None),
    ("relative_precision", None),
    ("relative_precision", 2),
    ("num_nonrel_judged_ret", None),
    ("rprec_mult", 0.5),
    ("rprec_mult", 1.4),
    ("rbp", None),
    ("rbp", 0.5),
]
COLUMNS = [ref.metric_column(name, k) for name, k in METRICS]

# Option sets: min_relevance=0 makes rows graded 0 relevant (their tie groups are read from
# the full order, not from the positively graded rows found while ranking).
OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"gain": "exponential", "denominator": "min_k", "beta": 2.0},
    {"min_relevance": 2},
    {"min_relevance": 0, "beta": 0.5},
    # other tools' conventions whose denominators and discount do not depend on the order
    {
        "discount": "log2(max(rank,2))",
        "ap_denominator": "min_retrieved",
        "precision_denominator": "retrieved",
        "gain": "exponential",
    },
]


# -- the reference: every order of the tied rows ---------------------------------------------


def f_beta(precision: float, recall: float, beta: float) -> float:
    """(1 + β²) P R / (β² P + R), 0 when P and R are both 0 (ranx, Evidently)."""
    if precision + recall == 0:
        return 0.0
    return (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


def _discounted(grades: Sequence[float], k: int | None, options: dict[str, Any]) -> float:
    """DCG@k of grades in rank order: positive grades only, the gain and discount options."""
    total = 0.0
    for rank, grade in enumerate(grades[:k] if k is not None else grades, start=1):
        if grade > 0:
            gain = 2.0**grade - 1 if options.get("gain") == "exponential" else float(grade)
            lenskit = options.get("discount") == "log2(max(rank,2))"
            total += gain / math.log2(max(rank, 2) if lenskit else rank + 1)
    return total


def _convention_value(
    name: str,
    k: Any,
    ranked: Sequence[float],
    judged: Sequence[float],
    options: dict[str, Any],
) -> float | None:
    """dcg, hit_count, the trec_eval measures that take ties="average", and
    ndcg/map/precision under other tools' options, written out here (the shared reference
    knows the common metrics under trec_eval's conventions only); None for the others."""
    relevant = [ref.is_relevant(g, options.get("min_relevance")) for g in ranked]
    n_relevant = sum(ref.is_relevant(g, options.get("min_relevance")) for g in judged)
    if name == "rprec_mult":  # hits@c / c, c = floor(m R + 0.9)
        c = math.floor(k * n_relevant + 0.9)
        return sum(relevant[:c]) / c if c else 0.0
    if name == "rbp":  # grades over the query's highest one (when above 1), weighted p^(r-1)
        p, scale = (0.9 if k is None else k), max(max(judged), 1)
        return (1 - p) * sum(max(g, 0) / scale * p ** (r - 1) for r, g in enumerate(ranked, 1))
    top = relevant if k is None else relevant[:k]  # k from here on: a cut-off
    shown = len(ranked) if k is None else min(len(ranked), k)
    hits, n = sum(relevant), len(ranked)
    if name == "hit_count":
        return float(sum(top))
    if name in ("num_ret", "num_rel", "num_rel_ret", "utility", "num_nonrel_judged_ret"):
        # a negative grade that is not relevant is unjudged (trec_eval's -1)
        unjudged = sum(g < 0 and not r for g, r in zip(ranked, relevant, strict=True))
        return float(
            {
                "num_ret": n,
                "num_rel": n_relevant,
                "num_rel_ret": hits,
                "utility": hits - (n - hits),
                "num_nonrel_judged_ret": n - unjudged - hits,
            }[name]
        )
    if name == "set_map":
        return hits * hits / (n * n_relevant) if n * n_relevant else 0.0
    if name == "set_f":
        p, r = (hits / n if n else 0.0), (hits / n_relevant if n_relevant else 0.0)
        return 2 * p * r / (p + r) if p + r else 0.0
    if name == "relative_precision":
        denominator = min(n if k is None else k, n_relevant)
        return sum(top) / denominator if denominator else 0.0
    if name == "dcg":
        return _discounted(ranked, k, options)
    if name == "ndcg" and "discount" in options:
        ideal = _discounted(sorted(judged, reverse=True), k, options)
        return _discounted(ranked, k, options) / ideal if ideal > 0 else 0.0
    if name == "map" and options.get("ap_denominator") == "min_retrieved":
        hits, total = 0, 0.0
        for rank, is_rel in enumerate(top, start=1):
            hits += is_rel
            total += hits / rank if is_rel else 0.0
        denominator = min(n_relevant, shown)
        return total / denominator if denominator else 0.0
    if name == "precision" and options.get("precision_denominator") == "retrieved":
        return sum(top) / shown if shown else 0.0
    return None


def metric_of_order(
    name: str,
    k: Any,
    ranked: Sequence[float],
    judged: Sequence[float],
    options: dict[str, Any],
) -> float:
    """One metric of one query ranked in one order (``ranked``: grades, rank 1 first)."""
    value = _convention_value(name, k, ranked, judged, options)
    if value is not None:
        return value
    kwargs = {o: options[o] for o in ("min_relevance", "gain", "denominator") if o in options}
    if name == "f1":
        precision = ref.metric_value("precision", k, ranked, judged, **kwargs)
        recall = ref.metric_value(
            "recall", k, ranked, judged, min_relevance=kwargs.get("min_relevance")
        )
        return f_beta(precision, recall, options.get("beta", 1.0))
    return ref.metric_value(name, k, ranked, judged, **kwargs)


def tie_groups(rows: Sequence[Row]) -> list[list[float]]:
    """The grades of a query's retrieved rows, one list per score, highest score first."""
    retrieved = [r for r in rows if r.score is not None]
    scores = sorted({r.score for r in retrieved}, reverse=True)
    return [[r.relevant for r in retrieved if r.score == s] for s in scores]


def every_order(rows: Sequence[Row]) -> Iterator[list[float]]:
    """Every order of the query's retrieved rows that sorts them by score (equally likely)."""
    for parts in product(*(permutations(g) for g in tie_groups(rows))):
        yield [grade for part in parts for grade in part]


def averaged(
    rows: Sequence[Row],
    metrics: Sequence[tuple[str, int | None]],
    options: dict[str, Any],
    orders: Any = every_order,
) -> dict[Hashable, dict[str, float]]:
    """{query: {column: the mean over the orders of the metric}}."""
    by_query: dict[Hashable, list[Row]] = {}
    for row in rows:
        by_query.setdefault(row.query, []).append(row)
    out = {}
    for query, group in by_query.items():
        judged = [r.relevant for r in group]
        totals = dict.fromkeys(metrics, 0.0)
        count = 0
        # orders that differ only by swapping rows of equal grades give the same grades in
        # rank order, so the same metrics: each distinct sequence is computed once (every
        # order is still counted and added)
        computed: dict[tuple[float, ...], list[float]] = {}
        for ranked in orders(group):
            count += 1
            key = tuple(ranked)
            if key not in computed:
                computed[key] = [metric_of_order(n, k, ranked, judged, options) for n, k in metrics]
            for metric, value in zip(metrics, computed[key], strict=True):
                totals[metric] += value
        out[query] = {ref.metric_column(n, k): t / max(count, 1) for (n, k), t in totals.items()}
    return out


# -- generated frames ------------------------------------------------------------------------


def generate(seed: int) -> list[Row]:
    """About 8 queries with groups of 1-5 tied rows (at most 2,880 orders per query), graded
    -1..3, some rows judged but not retrieved; a query that retrieved nothing and one without
    a relevant row; rows shuffled across queries."""
    rng = random.Random(seed)
    rows: list[Row] = []
    for q in range(8):
        while True:
            sizes = [rng.choice([1, 1, 2, 3, 4, 5]) for _ in range(rng.randint(1, 4))]
            if math.prod(math.factorial(s) for s in sizes) <= 2880:
                break
        item = 0
        for level, size in enumerate(sizes):
            for _ in range(size):
                grade = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])
                rows.append(Row(f"q{q}", f"d{item}", float(10 - level), grade))
                item += 1
        for _ in range(rng.randint(0, 2)):  # judged, not retrieved
            rows.append(Row(f"q{q}", f"d{item}", None, rng.choice([0, 1, 2])))
            item += 1
    rows.append(Row("nothing", "d0", None, 1))
    rows += [Row("no_relevant", f"d{i}", 1.0, 0) for i in range(3)]
    rng.shuffle(rows)
    return rows


def frame_of(rows: Sequence[Row]) -> dict[str, list[Any]]:
    return {
        "query": [r.query for r in rows],
        "item": [r.item for r in rows],
        "score": [r.score for r in rows],
        "relevant": [r.relevant for r in rows],
    }


def generated(seeds: Sequence[int]) -> list[Row]:
    """The frames of ``seeds`` as one: each seed's queries named apart (``s1-q3``)."""
    return [
        Row(f"s{seed}-{row.query}", row.item, row.score, row.relevant)
        for seed in seeds
        for row in generate(seed)
    ]


@cache
def expected(seeds: tuple[int, ...], option_set: int) -> dict[Hashable, dict[str, float]]:
    return averaged(generated(seeds), METRICS, OPTION_SETS[option_set])


def assert_close(
    got: dict[Hashable, dict[str, float]], want: dict[Hashable, dict[str, float]]
) -> None:
    assert set(got) == set(want)
    for query, values in want.items():
        for column, value in values.items():
            assert got[query][column] == pytest.approx(value, abs=TOLERANCE), (query, column)


# -- against the enumeration of orders -------------------------------------------------------


# three generated frames in one (a call's cost on most kinds is per call, not per row)
@pytest.mark.parametrize("option_set", range(len(OPTION_SETS)))
def test_average_is_the_mean_over_every_order(make_frame: Any, option_set: int) -> None:
    options = OPTION_SETS[option_set]
    frame = make_frame(frame_of(generated((0, 1, 2))))
    got = as_dict(frame.rank_eval.per_query(COLUMNS, ties="average", **options))
    assert_close(got, expected((0, 1, 2), option_set))


@pytest.mark.parametrize("option_set", [0, 3])
def test_average_after_the_lexsort_ranking(
    make_frame: Any, monkeypatch: pytest.MonkeyPatch, option_set: int
) -> None:
    # the ranking that frames too large for one packed key take: every tie group read from
    # the full order
    monkeypatch.setattr(ranking, "MIN_SCORE_BITS", 64)
    frame = make_frame(frame_of(generated((1,))))
    options = OPTION_SETS[option_set]
    got = as_dict(frame.rank_eval.per_query(COLUMNS, ties="average", **options))
    assert_close(got, expected((1,), option_set))


def test_the_enumeration_is_not_trivial() -> None:
    # the generated frames tie: some query's AP takes several values over its orders
    rows = generate(0)
    spread = 0
    for query in {r.query for r in rows}:
        group = [r for r in rows if r.query == query]
        judged = [r.relevant for r in group]
        values = {metric_of_order("map", None, o, judged, {}) for o in every_order(group)}
        spread = max(spread, len(values))
    assert spread >= 4


def large_group_rows() -> list[Row]:
    """One query: 2 rows above a group of 24 tied rows holding its first 3 relevant rows
    (binary), a relevant row below it, and a relevant row never retrieved."""
    rows = [Row("q", "top1", 30.0, 0), Row("q", "top2", 29.0, 0)]
    relevant_at = {3, 11, 20}
    rows += [Row("q", f"t{i}", 5.0, 1 if i in relevant_at else 0) for i in range(24)]
    return [*rows, Row("q", "low", 1.0, 1), Row("q", "unseen", None, 1)]


def places_of_relevant(rows: Sequence[Row]) -> Iterator[list[float]]:
    """For binary grades, every order of a tie group is one set of places of its relevant
    rows, each set equally likely: the orders of :func:`every_order` up to repeats."""
    groups = tie_groups(rows)
    choices = [combinations(range(len(g)), int(sum(g))) for g in groups]
    for places in product(*choices):
        yield [
            1.0 if j in chosen else 0.0
            for g, chosen in zip(groups, places, strict=True)
            for j in range(len(g))
        ]


@cache
def large_group_expected() -> dict[Hashable, dict[str, float]]:
    """The enumeration's values for :func:`large_group_rows`, computed once for every frame
    kind (it walks the 2,024 sets of places in Python)."""
    return averaged(large_group_rows(), METRICS, {}, orders=places_of_relevant)


def test_a_large_tie_group(make_frame: Any) -> None:
    # C(24, 3) = 2,024 sets of places; the closed forms' binomials and sums on a real group
    rows = large_group_rows()
    want = large_group_expected()
    frame = make_frame(frame_of(rows))
    assert_close(as_dict(frame.rank_eval.per_query(COLUMNS, ties="average")), want)
    # by hand: ranks 3-4 are 2 of the group's 24 places; no relevant row there with chance
    # C(21, 2) / C(24, 2); E[hits@5] = 3 relevant rows x 3 places / 24
    assert want["q"]["acc@4"] == pytest.approx(1 - math.comb(21, 2) / math.comb(24, 2))
    assert want["q"]["precision@5"] == pytest.approx(3 * 3 / 24 / 5)


@cache
def huge_group_expectations(n: int, r: int, s: int) -> tuple[Fraction, Fraction]:
    """Too many orders to enumerate: E[RR] and E[acc@(s + 7)] of a group of n rows with r
    relevant, s rows above it, in exact rational arithmetic (computed once per process: the
    sum has n terms). The first relevant row is the group's j-th when the other r - 1 lie
    among the n - j places below it: C(n - j, r - 1) of the C(n, r) equally likely sets of
    places. None in the first 7 places: C(n - 7, r) of them."""
    rr = sum(
        Fraction(math.comb(n - j, r - 1), math.comb(n, r)) / (s + j) for j in range(1, n - r + 2)
    )
    acc = 1 - Fraction(math.comb(n - 7, r), math.comb(n, r))
    return Fraction(rr), acc


@pytest.mark.parametrize(("n", "r", "s"), [(2000, 5, 3), (20000, 2, 0), (300, 150, 10)])
def test_huge_groups_in_exact_arithmetic(make_frame: Any, n: int, r: int, s: int) -> None:
    rr, acc = huge_group_expectations(n, r, s)
    ev = make_frame(
        {
            "query": "q",
            "item": list(range(s + n)),
            "score": [2.0] * s + [1.0] * n,
            "relevant": [0] * s + [1] * r + [0] * (n - r),
        }
    ).rank_eval
    assert as_float(ev.mrr(ties="average")) == pytest.approx(float(rr), rel=1e-12, abs=0)
    assert as_float(ev.acc(s + 7, ties="average")) == pytest.approx(float(acc), rel=1e-14)


# -- bounds and agreement with ties="trec" ---------------------------------------------------


def random_frame(seed: int, n_queries: int = 60) -> dict[str, list[Any]]:
    """Queries of 1-30 rows, scores from a few values (ties everywhere), grades 0-3."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 31, n_queries)
    query = np.repeat([f"q{i:03d}" for i in range(n_queries)], sizes)
    n = len(query)
    score = rng.integers(0, 6, n).astype(float)
    score[rng.random(n) < 0.05] = np.nan
    return {
        "query": query.tolist(),
        "item": [f"d{i}" for i in range(n)],
        "score": [None if math.isnan(s) else s for s in score],
        "relevant": rng.choice([0, 0, 0, 1, 2, 3], n).tolist(),
    }


@pytest.mark.parametrize("seed", [0, 1])
def test_average_lies_between_pessimistic_and_optimistic(make_frame: Any, seed: int) -> None:
    ev = make_frame(random_frame(seed)).rank_eval
    low, mid, high = (
        as_pandas(ev.per_query(COLUMNS, ties=t)).set_index("query")
        for t in ("pessimistic", "average", "optimistic")
    )
    assert (low.to_numpy() <= mid.to_numpy() + TOLERANCE).all()
    assert (mid.to_numpy() <= high.to_numpy() + TOLERANCE).all()
    assert (low.to_numpy() < high.to_numpy() - 1e-3).any()  # the frame does tie


def test_without_ties_average_is_trec(make_frame: Any) -> None:
    data = random_frame(3)
    data["score"] = [None if s is None else s + i * 1e-3 for i, s in enumerate(data["score"])]
    ev = make_frame(data).rank_eval
    average = as_pandas(ev.per_query(COLUMNS, ties="average"))
    trec = as_pandas(ev.per_query(COLUMNS, ties="trec"))
    pd.testing.assert_frame_equal(average, trec, rtol=0, atol=1e-15)


# -- scikit-learn's ndcg_score averages ties ------------------------------------------------


@pytest.mark.parametrize("k", [None, 1, 3, 5])
def test_ndcg_as_scikit_learn(make_frame: Any, k: int | None) -> None:
    # every judged item scored (sklearn's ideal is the row), linear gains, 3 queries x 6 items
    true = np.array([[3, 2, 0, 0, 1, 0], [0, 1, 0, 1, 1, 0], [2, 0, 0, 0, 0, 3]])
    score = np.array([[1, 1, 1, 0, 0, 2], [4, 4, 4, 4, 1, 1], [0.5, 0.5, 0.2, 0.2, 0.2, 0.5]])
    data = {
        "query": np.repeat(["a", "b", "c"], 6).tolist(),
        "item": list(range(6)) * 3,
        "score": score.ravel().tolist(),
        "relevant": true.ravel().tolist(),
    }
    got = as_float(make_frame(data).rank_eval.ndcg(k, ties="average"))
    assert got == pytest.approx(ndcg_score(true, score, k=k, ignore_ties=False), abs=TOLERANCE)


# -- f1 against ranx and by hand ----------------------------------------------------------


def test_f1_as_ranx(make_frame: Any) -> None:
    from numba.core.errors import NumbaTypeSafetyWarning
    from ranx import Qrels, Run, evaluate

    rng = np.random.default_rng(7)
    data = random_frame(7, n_queries=40)
    data["score"] = [None if s is None else s + rng.random() for s in data["score"]]  # no ties
    qrels = {q: {} for q in dict.fromkeys(data["query"])}
    run: dict[str, dict[str, float]] = {q: {} for q in qrels}
    for q, item, s, g in zip(
        data["query"], data["item"], data["score"], data["relevant"], strict=True
    ):
        if g > 0:
            qrels[q][item] = int(g)
        if s is not None:
            run[q][item] = s
    keep = [q for q in qrels if qrels[q] and run[q]]  # ranx needs both
    metrics = ["f1@1", "f1@3", "f1@10", "f1"]
    with warnings.catch_warnings():  # numba's notes while compiling ranx's kernels
        warnings.simplefilter("ignore", NumbaTypeSafetyWarning)
        peer = evaluate(
            Qrels({q: qrels[q] for q in keep}),
            Run({q: run[q] for q in keep}),
            metrics,
            return_mean=False,
            make_comparable=True,
        )
    ev = make_frame(data).rank_eval
    ours = as_pandas(ev.per_query(metrics)).set_index("query")
    for metric in metrics:
        assert ours.loc[keep, metric].to_numpy() == pytest.approx(peer[metric], abs=1e-12)


def test_f1_by_hand(make_frame: Any) -> None:
    # q: relevant at ranks 1 and 3, one relevant never retrieved (R = 3)
    ev = make_frame(
        {
            "query": "q",
            "item": ["a", "b", "c", "d", "e"],
            "score": [4, 3, 2, 1, None],
            "relevant": [1, 0, 1, 0, 1],
        }
    ).rank_eval
    assert as_float(ev.f1(1)) == pytest.approx(2 * 1 * (1 / 3) / (1 + 1 / 3))  # 1/2
    assert as_float(ev.f1(4)) == pytest.approx(2 * (2 / 4) * (2 / 3) / (2 / 4 + 2 / 3))
    assert as_float(ev.f1()) == pytest.approx(4 / 7)  # k = 4 retrieved: same as f1@4
    assert as_float(ev.f1(2, beta=2)) == pytest.approx(5 * (1 / 2) * (1 / 3) / (2 + 1 / 3))
    assert as_float(ev.f1(2, beta=0.5)) == pytest.approx(
        1.25 * (1 / 2) * (1 / 3) / (0.25 * (1 / 2) + 1 / 3)
    )
    # b, c, d tied: E[hits@2] = 1 + 1/3 (c lands at rank 2 with chance 1/3): 2 h / (2 + 3)
    tied = make_frame(
        {
            "query": "q",
            "item": ["a", "b", "c", "d", "e"],
            "score": [4, 2, 2, 2, None],
            "relevant": [1, 0, 1, 0, 1],
        }
    ).rank_eval
    assert as_float(tied.f1(2, ties="average")) == pytest.approx(2 * (4 / 3) / 5)


# -- errors ----------------------------------------------------------------------------------


def test_rank_refuses_average(make_frame: Any) -> None:
    ev = make_frame({"query": "q", "item": ["a", "b"], "score": 1.0, "relevant": [1, 0]}).rank_eval
    with pytest.raises(rankframe.InvalidOptionError, match="rank\\(\\) cannot use it"):
        ev.rank(ties="average")


@pytest.mark.parametrize("beta", [0, -1.0, math.inf, math.nan, "2", True])
def test_beta_must_be_positive(beta: object) -> None:
    df = pd.DataFrame({"query": "q", "item": ["a"], "score": [1.0], "relevant": [1]})
    with pytest.raises(rankframe.InvalidOptionError, match="'beta' option must be a positive"):
        df.rank_eval.f1(1, beta=beta)
