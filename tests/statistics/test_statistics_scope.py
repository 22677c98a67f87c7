"""Every statistic of the metric it reports, and every option only where it applies (issue 25).

Properties over the whole registry, on every frame kind:

- ``compare()``'s delta, p-value and interval are of one statistic, the one the metric
  aggregates with (the mean; the geometric mean, tested on ``log(max(v, 1e-5))``; the sum,
  with the mean difference's interval times the number of queries), checked against scipy
  on the per-query values, and ``ci_low <= delta <= ci_high``;
- ``empty=`` changes only the metrics declared to depend on relevant items
  (``MetricDef.depends_on_relevant``); counts and the metrics of the items keep their values;
- ``family="table"`` corrects over every test of the table;
- the renamed statistics keywords point to their new names.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankframe
from helpers import FrameMaker
from helpers import unlabelled as as_pandas  # values by metric; test_labels.py tests labels
from rankframe import METRICS, UnknownArgumentError

ITEMS = [f"i{n}" for n in range(12)]
POPULARITY = {item: float(3 * n + 1) for n, item in enumerate(ITEMS)}
FEATURES = pd.DataFrame(
    np.random.default_rng(3).integers(0, 3, size=(len(ITEMS), 3)).astype(float),
    index=ITEMS,
    columns=["f0", "f1", "f2"],
)
# the exposure metrics: one group, so one column each (their label names it)
INPUTS = {
    "popularity": POPULARITY,
    "item_features": FEATURES,
    "item_groups": dict.fromkeys(ITEMS, "g"),
}


def _spec(name: str) -> str:
    definition = METRICS[name]
    if not definition.takes_k:
        return name
    return f"{name}@{3 if definition.param.integer else definition.param.example}"


#: every metric of the registry once, with a parameter where it takes one; top1_f1 needs
#: exactly one relevant item in every query, whatever empty= says (tests/metrics/test_beyond.py)
EVERY = [_spec(name) for name in METRICS if name != "top1_f1"]
#: the metrics with per-query values (compare, per_query): all but the set-level ones
PER_QUERY = [_spec(n) for n, d in METRICS.items() if d.aggregate != "set"]


def _frame(seed: int, n_queries: int = 40, empty_share: float = 0.3) -> pd.DataFrame:
    """Two systems over queries of 2-7 items, some without relevant items, tied and null
    scores, graded relevance, and a segment."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        n = int(rng.integers(2, 8))
        empty = rng.random() < empty_share
        for item in rng.choice(ITEMS, size=n, replace=False):
            a = None if rng.random() < 0.1 else float(rng.choice([0.2, 0.5, 0.5, 0.9, 1.4]))
            b = float(rng.choice([0.1, 0.4, 0.6, 0.6, 1.1]))
            grade = 0 if empty else int(rng.choice([0, 0, 1, 2]))
            rows.append(
                {
                    "query": f"q{q:02d}",
                    "item": str(item),
                    "a": a,
                    "b": b,
                    "relevant": grade,
                    "segment": f"s{q % 2}",
                }
            )
    frame = pd.DataFrame(rows)
    frame["a"] = frame["a"].astype(float)
    return frame


def _transform(values: np.ndarray, aggregate: str) -> np.ndarray:
    """The per-query values a statistic averages: trec_eval's floored logs for a geometric
    mean, the values themselves otherwise."""
    if aggregate == "geometric":
        return np.log(np.maximum(values, 1e-5))
    return values


# -- compare: one statistic for the delta, the test and the interval -----------------------


@pytest.mark.parametrize("test", ["t-test", "permutation"])
def test_compare_tests_the_statistic_it_reports(make_frame: FrameMaker, test: str) -> None:
    data = _frame(1)
    ev = make_frame(data).rank_eval(score=["a", "b"])
    table = as_pandas(
        ev.compare(PER_QUERY, test=test, n_permutations=400, n_resamples=400, **INPUTS)
    )
    per_query = as_pandas(ev.per_query(PER_QUERY, **INPUTS))
    a = per_query[per_query["system"] == "a"].set_index("query").sort_index()
    b = per_query[per_query["system"] == "b"].set_index("query").sort_index()
    rows = table[table["system"] == "b"].reset_index(drop=True)
    assert len(rows) == len(PER_QUERY)
    for spec, row in zip(PER_QUERY, rows.to_dict("records"), strict=True):
        metric = rankframe.parse_metric(spec)
        aggregate = metric.definition.aggregate
        assert (
            row["statistic"]
            == {"mean": "mean", "geometric": "geometric mean", "sum": "sum"}[aggregate]
        )
        x = _transform(b[str(metric)].to_numpy(float), aggregate)
        y = _transform(a[str(metric)].to_numpy(float), aggregate)
        diff = x - y
        n = len(diff)
        scale = n if aggregate == "sum" else 1
        assert row["delta"] == pytest.approx(diff.mean() * scale, rel=1e-9, abs=1e-12), spec
        if aggregate == "geometric":  # the ratio of the geometric means, minus 1
            assert row["delta_relative"] == pytest.approx(
                math.exp(x.mean()) / math.exp(y.mean()) - 1, rel=1e-9, abs=1e-12
            ), spec
        else:  # the change over the baseline's statistic
            base, change = y.mean() * scale, diff.mean() * scale
            # from a statistic of 0: no change is 0, any other change is infinite
            want = (
                change / abs(base)
                if base != 0
                else 0.0
                if change == 0
                else math.copysign(math.inf, change)
            )
            assert row["delta_relative"] == pytest.approx(want, rel=1e-9, abs=1e-12), spec
        if np.all(diff == diff[0]):  # no variation: scipy's test is undefined
            continue
        assert row["ci_low"] <= row["delta"] + 1e-12, spec
        assert row["delta"] <= row["ci_high"] + 1e-12, spec
        if test == "t-test":
            assert row["p_value"] == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-9), spec
            sem = np.std(diff, ddof=1) / math.sqrt(n)
            low, high = stats.t.interval(0.95, n - 1, loc=diff.mean(), scale=sem)
            assert row["ci_low"] == pytest.approx(low * scale, rel=1e-9, abs=1e-12), spec
            assert row["ci_high"] == pytest.approx(high * scale, rel=1e-9, abs=1e-12), spec


def test_gm_map_is_not_tested_as_map(make_frame: FrameMaker) -> None:
    # the report: gm_map had map's p-value and interval
    ev = make_frame(_frame(5, n_queries=60)).rank_eval(score=["a", "b"])
    table = as_pandas(ev.compare(["gm_map", "map", "num_rel_ret"])).set_index("metric")
    b = table[table["system"] == "b"]
    assert b.loc["gm_map", "p_value"] != pytest.approx(b.loc["map", "p_value"])
    for metric in ["gm_map", "map", "num_rel_ret"]:
        assert b.loc[metric, "ci_low"] <= b.loc[metric, "delta"] <= b.loc[metric, "ci_high"]


def test_compare_refuses_set_level_metrics(make_frame: FrameMaker) -> None:
    ev = make_frame(_frame(2)).rank_eval(score=["a", "b"])
    sets = [_spec(n) for n, d in METRICS.items() if d.aggregate == "set"]
    for spec in sets:
        with pytest.raises(rankframe.InvalidOptionError, match="set-level"):
            as_pandas(ev.compare([spec], **INPUTS))


def _holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment, written out."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted = [0.0] * len(p)
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - step) * p[i]))
        adjusted[i] = running
    return adjusted


def test_family_table_corrects_over_every_test(make_frame: FrameMaker) -> None:
    data = _frame(3).assign(c=lambda f: f["b"] * 0.5 + 0.1 * (f["item"].str.len()))
    ev = make_frame(data).rank_eval(score=["a", "b", "c"])
    metrics = ["mrr", "ndcg@3", "precision@2"]
    table = as_pandas(ev.compare(metrics, by="segment", family="table"))
    tested = table[table["system"] != "a"]
    assert len(tested) == 2 * 2 * 3  # segments x systems x metrics
    p = tested["p_value"].tolist()
    assert tested["p_adjusted"].tolist() == pytest.approx(_holm(p), rel=1e-12)
    # the default family: the two systems compared on one metric in one segment
    default = as_pandas(ev.compare(metrics, by="segment"))
    default = default[default["system"] != "a"]
    for _, group in default.groupby(["segment", "metric", "k"], dropna=False):
        assert group["p_adjusted"].tolist() == pytest.approx(
            _holm(group["p_value"].tolist()), rel=1e-12
        )


# -- empty=: only the metrics that depend on relevant items ----------------------------------


def _values(ev, metrics, **options) -> dict[str, float]:  # type: ignore[no-untyped-def]
    row = as_pandas(ev.evaluate(metrics, **INPUTS, **options)).iloc[0]
    return {
        str(rankframe.parse_metric(m)): float(row[str(rankframe.parse_metric(m))]) for m in metrics
    }


@pytest.mark.parametrize("empty", ["one", "skip", "nan"])
def test_empty_touches_only_the_metrics_about_relevant_items(
    make_frame: FrameMaker, empty: str
) -> None:
    data = _frame(4, empty_share=0.5)
    with_relevant = data.groupby("query")["relevant"].transform("max") > 0
    assert 0 < with_relevant.mean() < 1
    ev = make_frame(data).rank_eval(score="a")
    default = _values(ev, EVERY)
    chosen = _values(ev, EVERY, empty=empty)
    # the frame without its empty queries, as skip and nan read it
    kept = _values(make_frame(data[with_relevant]).rank_eval(score="a"), EVERY)
    per_query = as_pandas(ev.per_query([m for m in EVERY if m in PER_QUERY], **INPUTS))
    per_query = per_query.sort_values("query").reset_index(drop=True)
    empty_query = ~per_query["query"].isin(data.loc[with_relevant, "query"]).to_numpy()
    for spec in EVERY:
        label = str(rankframe.parse_metric(spec))
        definition = rankframe.parse_metric(spec).definition
        if not definition.depends_on_relevant:
            assert chosen[label] == pytest.approx(default[label], rel=1e-12, nan_ok=True), spec
        elif empty in ("skip", "nan"):
            assert chosen[label] == pytest.approx(kept[label], rel=1e-12, nan_ok=True), spec
        else:  # one: each empty query counts 1, the others keep their values
            values = np.where(empty_query, 1.0, per_query[label].to_numpy(float))
            want = {
                "mean": np.mean,
                "sum": np.sum,
                "geometric": lambda v: math.exp(np.mean(np.log(np.maximum(v, 1e-5)))),
            }
            assert chosen[label] == pytest.approx(want[definition.aggregate](values), rel=1e-9), (
                spec
            )


def test_empty_one_keeps_counts_and_item_metrics(make_frame: FrameMaker) -> None:
    # the report: 200 queries x 10 items, half without relevant items; empty="one"
    # gave num_ret 1,091 instead of 2,000 and halved arp@5
    rng = np.random.default_rng(0)
    n_queries, n_items = 200, 10
    query = np.repeat(np.arange(n_queries), n_items)
    item = np.tile(np.arange(n_items), n_queries)
    relevant = ((query % 2 == 0) & (rng.random(len(query)) < 0.3)).astype(int)
    data = pd.DataFrame(
        {"query": query, "item": item, "score": rng.random(len(query)), "relevant": relevant}
    )
    popularity = {i: float(10 * i + 5) for i in range(n_items)}
    top5 = data.sort_values(["query", "score"], ascending=[True, False]).groupby("query").head(5)
    arp = top5["item"].map(popularity).groupby(top5["query"]).mean().mean()
    got = as_pandas(
        make_frame(data).rank_eval.evaluate(
            ["num_ret", "arp@5"], empty="one", popularity=popularity
        )
    ).iloc[0]
    assert got["num_ret"] == n_queries * n_items
    assert got["arp@5"] == pytest.approx(arp, rel=1e-12)


def test_per_query_nan_leaves_counts_alone(make_frame: FrameMaker) -> None:
    data = pd.DataFrame(
        {
            "query": ["a", "a", "b", "b"],
            "item": [1, 2, 1, 2],
            "score": [0.9, 0.1, 0.9, 0.1],
            "relevant": [0, 1, 0, 0],
        }
    )
    table = as_pandas(make_frame(data).rank_eval.per_query(["mrr", "num_ret"], empty="nan"))
    # query a: the relevant item at rank 2; query b has none: NaN for mrr, 2 rows for num_ret
    assert table["mrr"].tolist()[0] == 0.5
    assert math.isnan(table["mrr"].tolist()[1])
    assert table["num_ret"].tolist() == [2.0, 2.0]


def test_empty_error_only_for_metrics_about_relevant_items(make_frame: FrameMaker) -> None:
    data = pd.DataFrame(
        {
            "query": ["a", "a", "b", "b"],
            "item": [1, 2, 1, 2],
            "score": [0.9, 0.1, 0.9, 0.1],
            "relevant": [0, 1, 0, 0],
        }
    )
    ev = make_frame(data).rank_eval
    assert as_pandas(ev.evaluate(["num_ret"], empty="error")).iloc[0]["num_ret"] == 4
    with pytest.raises(rankframe.EmptyQueryError):
        as_pandas(ev.evaluate(["num_ret", "mrr"], empty="error"))


# -- one name per concept ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "old", "new"),
    [
        (lambda ev: ev.evaluate("mrr", ci=0.9), "ci", "confidence_level"),
        (lambda ev: ev.compare("mrr", confidence=0.9), "confidence", "confidence_level"),
        (lambda ev: ev.compare("mrr", n_bootstrap=100), "n_bootstrap", "n_resamples"),
    ],
)
def test_old_statistics_keywords_point_to_the_new(
    make_frame: FrameMaker,
    call,
    old: str,
    new: str,  # type: ignore[no-untyped-def]
) -> None:
    data = pd.DataFrame(
        {"query": [1, 1], "item": [1, 2], "a": [0.1, 0.2], "b": [0.3, 0.1], "relevant": [1, 0]}
    )
    ev = make_frame(data).rank_eval(score=["a", "b"])
    with pytest.raises(UnknownArgumentError, match=f"'{old}'.*Did you mean '{new}'"):
        call(ev)
