"""Properties that hold for every metric of the registry, on generated frames (hypothesis).

Every test iterates ``rankframe.METRICS``: a metric added to the registry is tested without
editing this file, except where a property needs a per-metric rule (the value of a perfect
ranking, monotonicity in k); those tables are checked against the registry so that a new
metric fails loudly until its rule is written down.

The hypothesis tests run on pandas (a ``make_frame`` fixture is function-scoped and cannot be
combined with ``@given``); ``test_invariances_on_every_frame_kind`` checks the invariances on
every frame kind with seeded NumPy frames instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import as_dict, as_float, as_pandas
from rankframe import METRICS, Metric, RankEvalError, parse_metric

KS = (1, 2, 3, 5, 10)
ITEMS = ("a", "b", "c", "B", "aa", "10", "9", "d1", "d10", "d2")  # "9" > "10" as strings
INT_ITEMS = (-3, 0, 1, 2, 9, 10, 11, 100)  # 10 > 9 as numbers
SCORES = (0.0, 0.5, 1.0, 2.0, -1.0, math.inf, -math.inf)
GRADES = (-2, -1, 0, 0, 1, 2, 3)
ALL_TIES = ("trec", "first", "optimistic", "pessimistic")
ORDER_FREE_TIES = ("trec", "optimistic", "pessimistic")  # not "first": it is the row order

SETTINGS = settings(max_examples=40, deadline=None)


def all_metrics(ks: tuple[int, ...] = KS) -> list[Metric]:
    """Every registered metric without cut-off, and at every k if it takes one."""
    return [
        Metric(d.name, k)
        for d in METRICS.values()
        for k in (None, *ks)
        if k is None or d.takes_k
    ]


COLUMNS = [str(m) for m in all_metrics()]


def build(queries: list[object], items: list[object], scores: list[float | None],
          grades: list[int]) -> pd.DataFrame:
    return pd.DataFrame({
        "query": queries,
        "item": items,
        "score": np.array([np.nan if s is None else s for s in scores], dtype=np.float64),
        "relevant": np.array(grades, dtype=np.int64),
    })


@st.composite
def frames(draw: st.DrawFn, *, nulls: bool = True, max_queries: int = 5,
           max_items: int = 8) -> pd.DataFrame:
    """A long frame: a few queries, a few items each (all strings or all integers), tied
    scores, graded relevance, null scores (judged, not retrieved) and ±inf."""
    queries, items, scores, grades = [], [], [], []
    item_ids = draw(st.sampled_from([ITEMS, INT_ITEMS]))
    for q in range(draw(st.integers(1, max_queries))):
        names = draw(st.lists(st.sampled_from(item_ids), min_size=1, max_size=max_items,
                              unique=True))
        for name in names:
            queries.append(f"q{q}")
            items.append(name)
            score = st.sampled_from(SCORES)
            scores.append(draw(st.one_of(st.none(), score) if nulls else score))
            grades.append(draw(st.sampled_from(GRADES)))
    return build(queries, items, scores, grades)


def option_sets(ties: tuple[str, ...] = ALL_TIES,
                denominators: tuple[str, ...] = ("relevant", "min_k")) -> st.SearchStrategy:
    """Keyword options of per_query / evaluate."""
    return st.fixed_dictionaries({
        "min_relevance": st.sampled_from([None, -1, 0, 0.5, 1, 2, 3]),
        "gain": st.sampled_from(["linear", "exponential"]),
        "denominator": st.sampled_from(denominators),
        "ties": st.sampled_from(ties),
    })


options = option_sets()


def relevant_mask(grades: pd.Series, min_relevance: float | None) -> pd.Series:
    return grades > 0 if min_relevance is None else grades >= min_relevance


# -- values in [0, 1] ----------------------------------------------------------------------


# Metrics that are not fractions: a count of hits and an unnormalised DCG (finite, >= 0).
UNBOUNDED = ("hit_count", "dcg")


@SETTINGS
@given(frame=frames(), opts=options)
def test_values_are_in_the_unit_interval(frame, opts) -> None:
    per_query = as_pandas(frame.rank_eval.per_query(COLUMNS, **opts))
    means = as_pandas(frame.rank_eval.evaluate(COLUMNS, **opts)).iloc[0]
    for column in COLUMNS:
        values = per_query[column].to_numpy()
        assert not np.isnan(values).any(), column  # empty="zero": never NaN
        top = math.inf if parse_metric(column).name in UNBOUNDED else 1
        assert ((values >= 0) & (values <= top)).all(), (column, values)
        assert 0 <= means[column] <= top, column


# -- a perfect ranking ---------------------------------------------------------------------

@dataclass(frozen=True)
class Perfect:
    """One query of a perfect ranking: n items, R relevant ones (grade >= min_relevance,
    default grade > 0), whether any grade is > 0, the cut-off and the AP/recall denominator."""

    n: int
    R: int
    positive: bool
    k: int | None
    denominator: str

    def capped(self) -> float:
        """hits@k / R (or / min(R, k)) when hits@k = min(R, k)."""
        if self.R == 0:
            return 0.0
        if self.k is None:
            return 1.0
        hits = min(self.R, self.k)
        return hits / (hits if self.denominator == "min_k" else self.R)


# Per metric: its value on a perfect ranking (scores = grades, every judged item retrieved).
# A perfect ranking puts the R relevant items at ranks 1..R (items of equal grade are
# interchangeable, so every ties= option gives the same values). With R = 0 every metric is 0
# (empty="zero"), except NDCG, which uses the grades whatever min_relevance (as trec_eval).
PERFECT: dict[str, Callable[[Perfect], float] | None] = {
    # 1 for every k: the top item is relevant.
    "mrr": lambda p: float(p.R > 0),
    # 1 for every k and both gains whenever some grade is positive: the ranking is the ideal
    # one (negative and zero grades give no gain, in either ranking); 0 when the ideal is 0.
    "ndcg": lambda p: float(p.positive),
    # min(R, k) / R with denominator="relevant": 1 exactly when k is None or k >= R;
    # always 1 with denominator="min_k" (min(R, k) / min(R, k)).
    "map": Perfect.capped,
    # 1 for every k.
    "acc": lambda p: float(p.R > 0),
    # min(R, k) / k: 1 exactly when k <= R; without k, R / n: 1 exactly when every
    # item of the query is relevant.
    "precision": lambda p: p.R / p.n if p.k is None else min(p.R, p.k) / p.k,
    # as map: hits@k = min(R, k), so 1 exactly when k is None, k >= R or denominator="min_k".
    "recall": Perfect.capped,
    # hits@R / R = 1.
    "r_precision": lambda p: float(p.R > 0),
    # every relevant item in the top k: min(R, k)
    "hit_count": lambda p: float(p.R if p.k is None else min(p.R, p.k)),
    # the ideal DCG: needs the grades, see _ideal_dcg
    "dcg": None,
}


def _ideal_dcg(grades: pd.Series, k: int | None, gain: str) -> float:
    """Σ_i gain(g_i) / log2(i + 1) over the positive grades sorted descending, i <= k."""
    g = np.sort(grades[grades > 0].to_numpy(dtype=np.float64))[::-1][:k]
    gains = np.exp2(g) - 1 if gain == "exponential" else g
    return float((gains / np.log2(np.arange(2, len(g) + 2))).sum())


def test_every_metric_has_a_perfect_ranking_rule() -> None:
    assert set(PERFECT) == set(METRICS)


@SETTINGS
@given(frame=frames(nulls=False), opts=options)
def test_perfect_ranking(frame, opts) -> None:
    perfect = frame.assign(score=frame["relevant"].astype(np.float64))
    per_query = as_dict(perfect.rank_eval.per_query(COLUMNS, **opts))
    relevant = relevant_mask(perfect["relevant"], opts["min_relevance"])
    for query, rows in perfect.groupby("query"):
        n, R = len(rows), int(relevant[rows.index].sum())
        positive = bool((rows["relevant"] > 0).any())
        for metric in all_metrics():
            rule = PERFECT[metric.name]
            want = (
                rule(Perfect(n, R, positive, metric.k, opts["denominator"]))
                if rule is not None
                else _ideal_dcg(rows["relevant"], metric.k, opts["gain"])
            )
            got = per_query[query][str(metric)]
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (query, str(metric), n, R)


# -- invariances ---------------------------------------------------------------------------


@SETTINGS
@given(frame=frames(), opts=option_sets(ties=ORDER_FREE_TIES), data=st.data())
def test_row_order_does_not_matter(frame, opts, data) -> None:
    order = data.draw(st.permutations(range(len(frame))))
    shuffled = frame.iloc[list(order)].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        shuffled.rank_eval.per_query(COLUMNS, **opts), frame.rank_eval.per_query(COLUMNS, **opts)
    )
    pd.testing.assert_frame_equal(
        shuffled.rank_eval.evaluate(COLUMNS, **opts), frame.rank_eval.evaluate(COLUMNS, **opts)
    )
    # the rank of each (query, item) is the same
    def ranks(f: pd.DataFrame) -> dict[tuple[str, str], object]:
        ranked = f.rank_eval.rank(ties=opts["ties"])
        rank = [None if pd.isna(r) else int(r) for r in ranked["rank"]]
        return dict(zip(zip(ranked["query"], ranked["item"], strict=True), rank, strict=True))

    assert ranks(shuffled) == ranks(frame)


relabellings = st.one_of(
    # strings in another sorted order than the original labels
    st.lists(st.text("xyzXYZ_0", min_size=1, max_size=4), min_size=5, max_size=5, unique=True),
    st.lists(st.integers(-10**9, 10**9), min_size=5, max_size=5, unique=True),
)


@SETTINGS
@given(frame=frames(), opts=options, labels=relabellings)
def test_renaming_queries_changes_nothing_per_query(frame, opts, labels) -> None:
    old = sorted(frame["query"].unique())
    rename = dict(zip(old, labels, strict=False))
    renamed = frame.assign(query=frame["query"].map(rename))
    ours = as_dict(renamed.rank_eval.per_query(COLUMNS, **opts))
    before = as_dict(frame.rank_eval.per_query(COLUMNS, **opts))
    assert {rename[q]: v for q, v in before.items()} == ours
    means = as_pandas(renamed.rank_eval.evaluate(COLUMNS, **opts)).iloc[0]
    means_before = as_pandas(frame.rank_eval.evaluate(COLUMNS, **opts)).iloc[0]
    for column in COLUMNS:  # the order of the sum over queries may change
        assert means[column] == pytest.approx(means_before[column], abs=1e-12), column


# -- monotone in k -------------------------------------------------------------------------

# Non-decreasing in k with denominator="relevant": hits@k (acc, recall), the first relevant
# rank within k (mrr) and AP's sum of positive terms over a fixed R (map). Not precision
# (hits@k / k), not ndcg (IDCG@k grows too), not recall/map with denominator="min_k" (the
# denominator min(R, k) grows with k).
MONOTONE = ("acc", "recall", "mrr", "map", "hit_count", "dcg")
LONG_KS = tuple(range(1, 12))


def test_monotone_metrics_are_registered() -> None:
    assert set(MONOTONE) <= set(METRICS)
    assert all(METRICS[name].takes_k for name in MONOTONE)


@SETTINGS
@given(frame=frames(), opts=option_sets(denominators=("relevant",)))
def test_monotone_in_k(frame, opts) -> None:
    metrics = [Metric(name, k) for name in MONOTONE for k in (*LONG_KS, None)]
    table = as_pandas(frame.rank_eval.per_query([str(m) for m in metrics], **opts))
    longest = int(frame.groupby("query").size().max())
    for name in MONOTONE:
        values = table[[str(Metric(name, k)) for k in LONG_KS]].to_numpy()
        whole = table[name].to_numpy()
        assert (np.diff(values, axis=1) >= 0).all(), (name, values)
        assert (values <= whole[:, None]).all(), name
        # k beyond the list is the whole list (the list counts as padded with non-relevant)
        for column in range(LONG_KS.index(longest), len(LONG_KS)):
            np.testing.assert_allclose(values[:, column], whole, rtol=0, atol=1e-12)


@SETTINGS
@given(frame=frames(), opts=options)
def test_cut_off_beyond_the_list_is_the_whole_list(frame, opts) -> None:
    # For k >= the number of rows of every query, metric@k equals the metric without k,
    # except precision, which divides by k instead of the number retrieved.
    k = int(frame.groupby("query").size().max()) + int(frame["query"].nunique())
    with_k = [Metric(d.name, k) for d in METRICS.values() if d.takes_k]
    table = as_dict(frame.rank_eval.per_query(
        [str(m) for m in with_k] + [d.name for d in METRICS.values()], **opts
    ))
    retrieved = frame.groupby("query")["score"].count()
    for query, values in table.items():
        for metric in with_k:
            whole = values[metric.name]
            if metric.name == "precision":
                whole = whole * retrieved[query] / k
            assert values[str(metric)] == pytest.approx(whole, abs=1e-12), (query, metric)


# -- per_query and evaluate agree ----------------------------------------------------------


@SETTINGS
@given(frame=frames(), opts=options, empty=st.sampled_from(["zero", "skip", "nan"]),
       segments=st.integers(1, 3))
def test_evaluate_is_the_mean_of_per_query(frame, opts, empty, segments) -> None:
    codes = {q: i % segments for i, q in enumerate(sorted(frame["query"].unique()))}
    frame = frame.assign(segment=frame["query"].map(codes))
    relevant = relevant_mask(frame["relevant"], opts["min_relevance"])
    has_relevant = relevant.groupby(frame["query"]).any()

    per_query = as_pandas(frame.rank_eval.per_query(COLUMNS, empty=empty, **opts))
    shown = set(has_relevant.index[has_relevant]) if empty == "skip" else set(has_relevant.index)
    assert set(per_query["query"]) == shown
    if empty == "nan":
        for column in COLUMNS:
            empty_rows = ~per_query["query"].map(has_relevant).astype(bool)
            assert per_query.loc[empty_rows, column].isna().all()
            assert per_query.loc[~empty_rows, column].notna().all()

    counted = per_query
    if empty != "zero":  # queries without a relevant item are left out of the means
        counted = per_query[per_query["query"].map(has_relevant).astype(bool)]
    means = as_pandas(frame.rank_eval.evaluate(COLUMNS, empty=empty, **opts)).iloc[0]
    assert means["n_queries"] == len(counted)
    for column in COLUMNS:
        want = counted[column].sum() / len(counted) if len(counted) else math.nan
        assert means[column] == pytest.approx(want, abs=1e-12, nan_ok=True), column

    # by=: one row per segment, the mean of its queries' values
    by_segment = as_pandas(
        frame.rank_eval.evaluate(COLUMNS, by="segment", empty=empty, **opts)
    ).set_index("segment")
    assert sorted(by_segment.index) == sorted(set(codes.values()))
    segment_of = counted["query"].map(codes)
    for segment, row in by_segment.iterrows():
        mine = counted[segment_of == segment]
        assert row["n_queries"] == len(mine)
        for column in COLUMNS:
            want = mine[column].sum() / len(mine) if len(mine) else math.nan
            assert row[column] == pytest.approx(want, abs=1e-12, nan_ok=True), (segment, column)


@settings(max_examples=20, deadline=None)
@given(frame=frames(), opts=options, empty=st.sampled_from(["zero", "skip", "nan"]))
def test_scalar_methods_give_the_evaluate_means(frame, opts, empty) -> None:
    means = as_pandas(frame.rank_eval.evaluate(COLUMNS, empty=empty, **opts)).iloc[0]
    ev = frame.rank_eval
    for metric in all_metrics((3,)):
        method = getattr(ev, metric.name)
        kwargs = {"empty": empty, "ties": opts["ties"], "min_relevance": opts["min_relevance"]}
        kwargs.update({o: opts[o] for o in METRICS[metric.name].options if o in opts})
        value = as_float(method(**kwargs) if metric.k is None else method(metric.k, **kwargs))
        assert value == pytest.approx(means[str(metric)], abs=1e-12, nan_ok=True), str(metric)


# -- metric names --------------------------------------------------------------------------

SPELLINGS = [(d.name, s) for d in METRICS.values() for s in d.spellings()]
TREC_CUTS = [(d.name, d.trec_cut) for d in METRICS.values() if d.trec_cut is not None]
CASES: dict[str, Callable[[str], str]] = {
    "as is": str, "lower": str.lower, "upper": str.upper, "title": str.title,
}


def _canonical(name: str, k: int | None) -> str:
    return name if k is None else f"{name}@{k}"


def _check_round_trip(text: str, name: str, k: int | None) -> None:
    metric = parse_metric(text)
    assert metric == Metric(name, k), text
    assert str(metric) == _canonical(name, k), text
    assert parse_metric(str(metric)) == metric, text


@settings(max_examples=200, deadline=None)
@given(spelling=st.sampled_from(SPELLINGS), k=st.one_of(st.none(), st.integers(1, 10**6)),
       case=st.sampled_from(list(CASES)), space=st.sampled_from(["", " "]))
def test_metric_spellings_round_trip(spelling, k, case, space) -> None:
    name, text = spelling
    text = CASES[case](text)
    if k is None:
        _check_round_trip(f"{space}{text}{space}", name, None)
    elif METRICS[name].takes_k:
        _check_round_trip(f"{text}{space}@{space}{k}", name, k)
    else:
        with pytest.raises(RankEvalError, match="cut-off"):
            parse_metric(f"{text}@{k}")


def test_every_spelling_round_trips() -> None:
    # Exhaustive over the registry, including trec_eval's `name_k` cut-off spellings.
    for name, text in SPELLINGS:
        for case in CASES.values():
            _check_round_trip(case(text), name, None)
            for k in (1, 10, 1000):
                if METRICS[name].takes_k:
                    _check_round_trip(f"{case(text)}@{k}", name, k)
                    assert parse_metric(case(text), k=k) == Metric(name, k)
    for name, cut in TREC_CUTS:
        for case in CASES.values():
            for k in (1, 5, 10, 100, 1000):
                _check_round_trip(case(f"{cut}_{k}"), name, k)


# -- the same invariances on every frame kind ----------------------------------------------


def _numpy_frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    queries, items, scores, grades = [], [], [], []
    for q in range(12):
        n = int(rng.integers(1, 10))
        for item in rng.choice(ITEMS, size=n, replace=False):
            queries.append(f"q{q}")
            items.append(str(item))
            scores.append(None if rng.random() < 0.2 else float(rng.choice(SCORES)))
            grades.append(int(rng.choice(GRADES)))
    return build(queries, items, scores, grades)


@pytest.mark.parametrize("ties", ORDER_FREE_TIES)
@pytest.mark.parametrize("seed", [0, 1])
def test_invariances_on_every_frame_kind(seed, ties, make_frame) -> None:
    frame = _numpy_frame(seed)
    rng = np.random.default_rng(seed + 100)
    shuffled = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    labels = {q: f"renamed-{rng.integers(10**6)}-{q}" for q in frame["query"].unique()}
    renamed = shuffled.assign(query=shuffled["query"].map(labels))

    base = as_dict(make_frame(frame).rank_eval.per_query(COLUMNS, ties=ties))
    assert as_dict(make_frame(shuffled).rank_eval.per_query(COLUMNS, ties=ties)) == base
    after = as_dict(make_frame(renamed).rank_eval.per_query(COLUMNS, ties=ties))
    assert after == {labels[q]: v for q, v in base.items()}

    # and on every kind, the mean of per_query is evaluate, and both match pandas
    means = as_pandas(make_frame(shuffled).rank_eval.evaluate(COLUMNS, ties=ties)).iloc[0]
    pandas_means = as_pandas(frame.rank_eval.evaluate(COLUMNS, ties=ties)).iloc[0]
    for column in COLUMNS:
        want = sum(v[column] for v in base.values()) / len(base)
        assert means[column] == pytest.approx(want, abs=1e-12), column
        assert means[column] == pytest.approx(pandas_means[column], abs=1e-12), column
