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
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import helpers
from helpers import NUMBERS, all_metrics, as_float, parameters, unlabelled
from rankframe import METRICS as REGISTRY
from rankframe import InvalidDataError, Metric, RankEvalError, parse_metric


# Tables are read without the options their labels name (``map(ties=first)`` as ``map``):
# the values are compared by metric; tests/metrics/test_labels.py tests the labels.
def as_pandas(result: Any) -> pd.DataFrame:
    return unlabelled(result)


def as_dict(result: Any, key: str = "query") -> dict[Any, dict[str, float]]:
    return helpers.as_dict(unlabelled(result), key)


# The metrics of relevance: the beyond-accuracy metrics (``MetricDef.items``: they read
# popularity, features, the catalog) have their own properties in tests/metrics/test_beyond.py.
METRICS = {name: d for name, d in REGISTRY.items() if d.items is None}

ITEMS = ("a", "b", "c", "B", "aa", "10", "9", "d1", "d10", "d2")  # "9" > "10" as strings
INT_ITEMS = (-3, 0, 1, 2, 9, 10, 11, 100)  # 10 > 9 as numbers
SCORES = (0.0, 0.5, 1.0, 2.0, -1.0, math.inf, -math.inf)
GRADES = (-2, -1, 0, 0, 1, 2, 3)
ALL_TIES = ("trec", "first", "optimistic", "pessimistic", "average")
ORDER_FREE_TIES = ("trec", "optimistic", "pessimistic")  # not "first": it is the row order

# 25 generated frames a test and run: each run on a clean clone (CI: no example database)
# draws new ones, so the examples add up over runs while the loop stays short
SETTINGS = settings(max_examples=25, deadline=None)


FLOOR = 1e-5  # of the geometric means


def aggregate(metric: str, values: pd.Series) -> float:
    """The aggregate over queries the metric declares: mean, sum or geometric mean."""
    if len(values) == 0:
        return math.nan
    kind = parse_metric(metric).definition.aggregate
    if kind == "sum":
        return float(values.sum())
    if kind == "geometric":
        return math.exp(float(np.log(np.maximum(values, FLOOR)).sum()) / len(values))
    return float(values.sum()) / len(values)


COLUMNS = [str(m) for m in all_metrics()]


def takes(metric: Metric, ties: str) -> bool:
    """Whether the metric takes this ``ties`` option: ``"average"`` needs a tie-averaged
    form (the other metrics refuse it)."""
    return ties != "average" or metric.definition.tie_average is not None


def columns(ties: str) -> list[str]:
    """The columns of ``COLUMNS`` whose metric takes this ``ties`` option."""
    return [c for c in COLUMNS if takes(parse_metric(c), ties)]


def build(
    queries: list[object], items: list[object], scores: list[float | None], grades: list[int]
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query": queries,
            "item": items,
            "score": np.array([np.nan if s is None else s for s in scores], dtype=np.float64),
            "relevant": np.array(grades, dtype=np.int64),
        }
    )


@st.composite
def frames(
    draw: st.DrawFn, *, nulls: bool = True, max_queries: int = 5, max_items: int = 8
) -> pd.DataFrame:
    """A long frame: a few queries, a few items each (all strings or all integers), tied
    scores, graded relevance, null scores (judged, not retrieved: every score of a query may
    be null, but not every score of the frame, which is an error of its own:
    ``test_a_frame_without_a_score_is_an_error``) and ±inf."""
    queries, items, scores, grades = [], [], [], []
    item_ids = draw(st.sampled_from([ITEMS, INT_ITEMS]))
    for q in range(draw(st.integers(1, max_queries))):
        names = draw(
            st.lists(st.sampled_from(item_ids), min_size=1, max_size=max_items, unique=True)
        )
        for name in names:
            queries.append(f"q{q}")
            items.append(name)
            score = st.sampled_from(SCORES)
            scores.append(draw(st.one_of(st.none(), score) if nulls else score))
            grades.append(draw(st.sampled_from(GRADES)))
    if all(score is None for score in scores):  # the system retrieves something
        scores[draw(st.integers(0, len(scores) - 1))] = draw(st.sampled_from(SCORES))
    return build(queries, items, scores, grades)


def option_sets(
    ties: tuple[str, ...] = ALL_TIES, denominators: tuple[str, ...] = ("relevant", "min_k")
) -> st.SearchStrategy:
    """Keyword options of per_query / evaluate."""
    return st.fixed_dictionaries(
        {
            "min_relevance": st.sampled_from([None, -1, 0, 0.5, 1, 2, 3]),
            "gain": st.sampled_from(["linear", "exponential"]),
            "denominator": st.sampled_from(denominators),
            "ties": st.sampled_from(ties),
            # F1 (its rule below); other betas: tests/metrics/test_ties_average.py
            "beta": st.just(1.0),
        }
    )


options = option_sets()


def relevant_mask(grades: pd.Series, min_relevance: float | None) -> pd.Series:
    return grades > 0 if min_relevance is None else grades >= min_relevance


# -- values in [0, 1] ----------------------------------------------------------------------


@SETTINGS
@given(frame=frames(), opts=options)
def test_values_are_in_the_unit_interval(frame, opts) -> None:
    per_query = as_pandas(frame.rank_eval.per_query(columns(opts["ties"]), **opts))
    means = as_pandas(frame.rank_eval.evaluate(columns(opts["ties"]), **opts)).iloc[0]
    for column in columns(opts["ties"]):
        values = per_query[column].to_numpy()
        assert not np.isnan(values).any(), column  # empty="zero": never NaN
        # the declaration: counts, utility (+1/-1 per retrieved item), an unnormalised DCG
        # are not in [0, 1] (tests/cli/test_percent_cli.py checks which are declared so)
        if not parse_metric(column).definition.bounded:
            continue
        assert ((values >= 0) & (values <= 1)).all(), (column, values)
        assert 0 <= means[column] <= 1, column


@settings(max_examples=8, deadline=None)
@given(frame=frames(), opts=options)
def test_a_frame_without_a_score_is_an_error(frame, opts) -> None:
    """A system that retrieves nothing (every score null) is an error of every metric (a
    query that retrieved nothing is 0 for each, and is no error)."""
    frame = frame.assign(score=np.nan)
    wanted = columns(opts["ties"])
    calls = [(frame.rank_eval.per_query, [column]) for column in wanted]
    for call, metrics in [*calls, (frame.rank_eval.evaluate, wanted)]:
        with pytest.raises(InvalidDataError) as info:
            call(metrics, **opts)
        assert (info.value.problem, info.value.column, info.value.count) == (
            "nothing_retrieved",
            "score",
            len(frame),
        ), metrics


# -- a perfect ranking ---------------------------------------------------------------------


@dataclass(frozen=True)
class Perfect:
    """One query of a perfect ranking: n items, R relevant ones (grade >= min_relevance,
    default grade > 0), whether any grade is > 0, the cut-off and the AP/recall denominator."""

    n: int
    R: int
    positive: bool
    k: int | float | None
    denominator: str
    grades: tuple[int, ...] = ()  # the query's grades, highest first
    level: float | None = None  # min_relevance

    @property
    def unjudged(self) -> int:
        """Items of a negative grade that are not relevant: ranked last, as the lowest
        grades."""
        return sum(g < 0 and not (self.level is not None and g >= self.level) for g in self.grades)

    def rbp(self, p: float | None) -> float:
        p = 0.9 if p is None else p
        top = max([g for g in self.grades if g > 0], default=0)
        scale = top if top > 1 else 1
        return (1 - p) * sum(g / scale * p**i for i, g in enumerate(self.grades) if g > 0)

    def infap(self) -> float:
        # relevant items at ranks 1..R, nothing else above them: h = r, n = u = 0
        eps = 1e-5
        terms = [1.0] + [
            1 / r + ((r - 1) / r) * ((r - 1 + eps) / (r - 1 + 2 * eps))
            for r in range(2, self.R + 1)
        ]
        return sum(terms[: self.R]) / self.R if self.R else 0.0

    def rprec_mult(self) -> float:
        assert self.k is not None
        cut = math.floor(self.k * self.R + 0.9)
        return min(self.R, cut) / cut if cut else 0.0

    def unjudged_share(self) -> float:
        m, n = self.unjudged, self.n
        if self.k is None:
            return m / n
        k = int(self.k)
        return max(0, min(k, n) - (n - m)) / k

    def judged_share(self) -> float:
        """Of the first min(k, n) items, the judged ones: all but the unjudged ranked last."""
        m, n = self.unjudged, self.n
        top = n if self.k is None else min(int(self.k), n)
        return (top - max(0, top - (n - m))) / top if top else 0.0

    def rbp_resid(self) -> float:
        m, n = self.unjudged, self.n
        return 0.9**n + 0.1 * sum(0.9 ** (r - 1) for r in range(n - m + 1, n + 1)) if m else 0.0

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
    # 2 hits@k / (k + R) with hits@k = min(R, k); without k, k is the n retrieved items.
    "f1": lambda p: (
        2 * min(p.R, p.n if p.k is None else p.k) / ((p.n if p.k is None else p.k) + p.R)
    ),
    # trec_eval's other measures: every item is retrieved, R of them relevant (ranked first),
    # the items of a negative grade that are not relevant (unjudged for trec_eval) last
    "num_ret": lambda p: float(p.n),
    "num_rel": lambda p: float(p.R),
    "num_rel_ret": lambda p: float(p.R),
    "num_nonrel_judged_ret": lambda p: float(p.n - p.R - p.unjudged),
    "gm_map": lambda p: float(p.R > 0),  # AP, per query
    "bpref": lambda p: float(p.R > 0),  # no judged non-relevant item above a relevant one
    "gm_bpref": lambda p: float(p.R > 0),
    "infap": Perfect.infap,  # just below 1: the ε of trec_eval's formula
    "iprec": lambda p: float(p.R > 0),  # precision 1 down to the last relevant item
    "eleven_point_avg": lambda p: float(p.R > 0),
    "rprec_mult": Perfect.rprec_mult,  # min(R, c) / c at c = floor(m R + 0.9)
    "utility": lambda p: float(2 * p.R - p.n),
    "bin_g": lambda p: float(p.R > 0),  # 1 / log2(2 + 0) per relevant item
    "normalized_gain": lambda p: float(p.positive),  # the ideal ranking
    "ndcg_rel": lambda p: float(p.positive),
    "r_ndcg": lambda p: float(p.positive and p.R > 0),
    "relative_precision": lambda p: float(p.R > 0),  # min(R, k) / min(k, R)
    "set_map": lambda p: p.R / p.n,
    "set_f": lambda p: 2 * p.R / (p.R + p.n),  # P = R / n, recall 1
    "rbp": lambda p: p.rbp(p.k),
    "rbp_resid": Perfect.rbp_resid,
    "unjudged": Perfect.unjudged_share,
    "judged": Perfect.judged_share,  # divided by min(k, n), not k
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
    per_query = as_dict(perfect.rank_eval.per_query(columns(opts["ties"]), **opts))
    relevant = relevant_mask(perfect["relevant"], opts["min_relevance"])
    for query, rows in perfect.groupby("query"):
        n, R = len(rows), int(relevant[rows.index].sum())
        positive = bool((rows["relevant"] > 0).any())
        grades = tuple(sorted(rows["relevant"], reverse=True))
        for metric in map(parse_metric, columns(opts["ties"])):
            rule = PERFECT[metric.name]
            want = (
                rule(
                    Perfect(
                        n, R, positive, metric.k, opts["denominator"], grades, opts["min_relevance"]
                    )
                )
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
    st.lists(st.integers(-(10**9), 10**9), min_size=5, max_size=5, unique=True),
)


@SETTINGS
@given(frame=frames(), opts=options, labels=relabellings)
def test_renaming_queries_changes_nothing_per_query(frame, opts, labels) -> None:
    old = sorted(frame["query"].unique())
    rename = dict(zip(old, labels, strict=False))
    renamed = frame.assign(query=frame["query"].map(rename))
    ours = as_dict(renamed.rank_eval.per_query(columns(opts["ties"]), **opts))
    before = as_dict(frame.rank_eval.per_query(columns(opts["ties"]), **opts))
    assert {rename[q]: v for q, v in before.items()} == ours
    means = as_pandas(renamed.rank_eval.evaluate(columns(opts["ties"]), **opts)).iloc[0]
    means_before = as_pandas(frame.rank_eval.evaluate(columns(opts["ties"]), **opts)).iloc[0]
    for column in columns(opts["ties"]):  # the order of the sum over queries may change
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
    # except precision and unjudged, which divide by k instead of the number retrieved, f1,
    # whose precision does, and relative_precision, by min(k, R) instead of min(retrieved, R).
    k = int(frame.groupby("query").size().max()) + int(frame["query"].nunique())
    cut_offs = [
        d.name for d in METRICS.values() if d.takes_k and not d.param.required and d.param.integer
    ]
    cut_offs = [name for name in cut_offs if takes(Metric(name), opts["ties"])]
    with_k = [Metric(name, k) for name in cut_offs]
    table = as_dict(frame.rank_eval.per_query([str(m) for m in with_k] + cut_offs, **opts))
    retrieved = frame.groupby("query")["score"].count()
    relevant = relevant_mask(frame["relevant"], opts["min_relevance"]).groupby(frame["query"]).sum()
    for query, values in table.items():
        for metric in with_k:
            if metric.name == "f1":
                continue
            whole = values[metric.name]
            if metric.name in ("precision", "unjudged"):
                whole = whole * retrieved[query] / k
            if metric.name == "relative_precision" and relevant[query]:
                whole = whole * min(retrieved[query], relevant[query]) / min(k, relevant[query])
            assert values[str(metric)] == pytest.approx(whole, abs=1e-12), (query, metric)


# -- per_query and evaluate agree ----------------------------------------------------------


@SETTINGS
@given(
    frame=frames(),
    opts=options,
    empty=st.sampled_from(["zero", "skip", "nan"]),
    segments=st.integers(1, 3),
)
def test_evaluate_is_the_mean_of_per_query(frame, opts, empty, segments) -> None:
    codes = {q: i % segments for i, q in enumerate(sorted(frame["query"].unique()))}
    frame = frame.assign(segment=frame["query"].map(codes))
    relevant = relevant_mask(frame["relevant"], opts["min_relevance"])
    has_relevant = relevant.groupby(frame["query"]).any()

    wanted = columns(opts["ties"])
    # empty= applies to the metrics about relevant items; counts keep every query (issue 25)
    applies = {c: parse_metric(c).definition.depends_on_relevant for c in wanted}
    assert any(applies.values())
    if empty == "skip" and not has_relevant.any():  # nothing left to average: an error
        for call in (frame.rank_eval.per_query, frame.rank_eval.evaluate):
            with pytest.raises(InvalidDataError, match="No query is left"):
                as_pandas(call(wanted, empty=empty, **opts))
        return
    per_query = as_pandas(frame.rank_eval.per_query(wanted, empty=empty, **opts))
    every = as_pandas(frame.rank_eval.per_query(wanted, **opts))  # empty="zero": every query
    shown = set(has_relevant.index[has_relevant]) if empty == "skip" else set(has_relevant.index)
    assert set(per_query["query"]) == shown
    if empty == "nan":
        for column in wanted:
            empty_rows = ~per_query["query"].map(has_relevant).astype(bool)
            if applies[column]:
                assert per_query.loc[empty_rows, column].isna().all()
            assert per_query.loc[~empty_rows, column].notna().all()

    def counted(rows: pd.DataFrame) -> Callable[[str], pd.DataFrame]:
        """The queries in a column's mean among ``rows`` of ``every``."""
        kept = rows[rows["query"].map(has_relevant).astype(bool)]
        # queries without a relevant item are left out of the metrics about relevant items
        return lambda column: kept if empty != "zero" and applies[column] else rows

    first = next(c for c in wanted if applies[c])  # the wide n_queries is of these metrics
    means = as_pandas(frame.rank_eval.evaluate(wanted, empty=empty, **opts)).iloc[0]
    of_every = counted(every)
    assert means["n_queries"] == len(of_every(first))
    for column in wanted:
        want = aggregate(column, of_every(column)[column])
        assert means[column] == pytest.approx(want, abs=1e-12, nan_ok=True), column

    # by=: one row per segment, the mean of its queries' values
    by_segment = as_pandas(
        frame.rank_eval.evaluate(wanted, by="segment", empty=empty, **opts)
    ).set_index("segment")
    # a segment that "skip" leaves without a query has no row, unless a requested metric
    # counts every query (issue 35)
    segments = set(codes.values())
    if empty == "skip" and all(applies.values()):
        segments = {codes[q] for q in has_relevant.index[has_relevant]}
    assert sorted(by_segment.index) == sorted(segments)
    segment_of = every["query"].map(codes)
    for segment, row in by_segment.iterrows():
        mine = counted(every[segment_of == segment])
        assert row["n_queries"] == len(mine(first))
        for column in wanted:
            want = aggregate(column, mine(column)[column])
            assert row[column] == pytest.approx(want, abs=1e-12, nan_ok=True), (segment, column)


@settings(max_examples=20, deadline=None)
@given(frame=frames(), opts=options, empty=st.sampled_from(["zero", "skip", "nan"]))
def test_scalar_methods_give_the_evaluate_means(frame, opts, empty) -> None:
    ties = opts["ties"]
    if empty == "skip" and not relevant_mask(frame["relevant"], opts["min_relevance"]).any():
        with pytest.raises(InvalidDataError, match="No query is left"):  # nothing to average
            as_pandas(frame.rank_eval.evaluate(columns(ties), empty=empty, **opts))
        return
    means = as_pandas(frame.rank_eval.evaluate(columns(ties), empty=empty, **opts)).iloc[0]
    ev = frame.rank_eval
    for metric in (m for m in all_metrics((3,)) if takes(m, ties)):
        method = getattr(ev, metric.name)
        kwargs = {"empty": empty, "ties": opts["ties"], "min_relevance": opts["min_relevance"]}
        kwargs.update({o: opts[o] for o in METRICS[metric.name].options if o in opts})
        value = as_float(method(**kwargs) if metric.k is None else method(metric.k, **kwargs))
        assert value == pytest.approx(means[str(metric)], abs=1e-12, nan_ok=True), str(metric)


# -- metric names --------------------------------------------------------------------------

SPELLINGS = [(d.name, s) for d in METRICS.values() for s in d.spellings()]
TREC_CUTS = [(d.name, d.trec_cut) for d in METRICS.values() if d.trec_cut is not None]
CASES: dict[str, Callable[[str], str]] = {
    "as is": str,
    "lower": str.lower,
    "upper": str.upper,
    "title": str.title,
}


def _canonical(name: str, k: int | float | None) -> str:
    return name if k is None else f"{name}@{k!r}"


def _check_round_trip(text: str, name: str, k: int | float | None) -> None:
    metric = parse_metric(text)
    assert metric == Metric(name, k), text
    assert str(metric) == _canonical(name, k), text
    assert parse_metric(str(metric)) == metric, text


@settings(max_examples=200, deadline=None)
@given(
    spelling=st.sampled_from(SPELLINGS),
    k=st.one_of(st.none(), st.integers(1, 10**6)),
    case=st.sampled_from(list(CASES)),
    space=st.sampled_from(["", " "]),
)
def test_metric_spellings_round_trip(spelling, k, case, space) -> None:
    name, text = spelling
    text = CASES[case](text)
    param = METRICS[name].param
    if not param.integer and k is not None:
        k = NUMBERS[name][k % len(NUMBERS[name])]
        _check_round_trip(f"{text}{space}@{space}{k}", name, k)
    elif k is None and param.required:
        with pytest.raises(RankEvalError, match=f"takes a {param.what}"):
            parse_metric(f"{space}{text}{space}")
    elif k is None:
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
            values = [v for v in parameters(name, (1, 10, 1000)) if v is not None]
            if None in parameters(name):
                _check_round_trip(case(text), name, None)
            for k in values:
                _check_round_trip(f"{case(text)}@{k}", name, k)
                assert parse_metric(case(text), k=k) == Metric(name, k)
    for name, cut in TREC_CUTS:
        param = METRICS[name].param
        for case in CASES.values():
            for k in (1, 5, 10, 100, 1000) if param.integer else NUMBERS[name]:
                _check_round_trip(case(f"{cut}_{param.label(k)}"), name, k)


# -- the same invariances on every frame kind ----------------------------------------------


def _numpy_frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    queries, items, scores, grades = [], [], [], []
    for q in range(24):
        n = int(rng.integers(1, 10))
        for item in rng.choice(ITEMS, size=n, replace=False):
            queries.append(f"q{q}")
            items.append(str(item))
            scores.append(None if rng.random() < 0.2 else float(rng.choice(SCORES)))
            grades.append(int(rng.choice(GRADES)))
    return build(queries, items, scores, grades)


# one generated frame of 24 queries per tie rule (each kind's cost is per call, not per row)
@pytest.mark.parametrize("ties", [*ORDER_FREE_TIES, "average"])
@pytest.mark.parametrize("seed", [0])
def test_invariances_on_every_frame_kind(seed, ties, make_frame) -> None:
    frame = _numpy_frame(seed)
    rng = np.random.default_rng(seed + 100)
    shuffled = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    labels = {q: f"renamed-{rng.integers(10**6)}-{q}" for q in frame["query"].unique()}
    renamed = shuffled.assign(query=shuffled["query"].map(labels))

    base = as_dict(make_frame(frame).rank_eval.per_query(columns(ties), ties=ties))
    assert as_dict(make_frame(shuffled).rank_eval.per_query(columns(ties), ties=ties)) == base
    after = as_dict(make_frame(renamed).rank_eval.per_query(columns(ties), ties=ties))
    assert after == {labels[q]: v for q, v in base.items()}

    # and on every kind, the mean of per_query is evaluate, and both match pandas
    means = as_pandas(make_frame(shuffled).rank_eval.evaluate(columns(ties), ties=ties)).iloc[0]
    pandas_means = as_pandas(frame.rank_eval.evaluate(columns(ties), ties=ties)).iloc[0]
    for column in columns(ties):
        want = aggregate(column, pd.Series([v[column] for v in base.values()]))
        assert means[column] == pytest.approx(want, abs=1e-12), column
        assert means[column] == pytest.approx(pandas_means[column], abs=1e-12), column


def test_a_plan_cut_after_rankframe_keeps_the_whole_frames_values(make_frame: Any) -> None:
    # a LazyFrame's head, filter or select after rank() or per_query() never reaches into
    # rankframe's step (polars 1.36 pushes them into map_batches unless told not to)
    frame = make_frame(
        {
            "query": ["a"] * 4 + ["b"] * 2,
            "item": list("wxyzwx"),
            "score": [0.1, 0.9, 0.5, 0.7, 0.2, 0.8],
            "relevant": [1, 0, 0, 0, 0, 1],
        }
    )
    ranked = frame.rank_eval.rank()
    table = helpers.as_pandas(ranked)
    assert table["rank"].tolist() == [4, 1, 3, 2, 2, 1]
    per_query = frame.rank_eval.per_query("mrr")
    assert as_dict(per_query) == {"a": {"mrr": 0.25}, "b": {"mrr": 1.0}}
    if make_frame.is_lazy:
        assert ranked.head(1).collect()["rank"].to_list() == [4]
        assert ranked.filter(pl.col("item") == "w").collect()["rank"].to_list() == [4, 2]
        assert ranked.select("rank").collect()["rank"].to_list() == [4, 1, 3, 2, 2, 1]
        assert per_query.filter(pl.col("query") == "a").collect()["mrr"].to_list() == [0.25]
        assert per_query.select("mrr").collect()["mrr"].to_list() == [0.25, 1.0]
