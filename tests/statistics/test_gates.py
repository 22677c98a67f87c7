"""Gates: ``check(rules)``, every status on every frame kind.

References: per-query values written out here (each system ranks the one relevant item
``a`` of a query at a rank chosen below, so its reciprocal rank is 1/rank and acc@1 is 1
for rank 1); interval bounds that follow from them (a percentile bootstrap interval of a mean
lies between the smallest and the largest per-query value), a plain bootstrap written here
for the interval that contains its bound; ``scipy.stats.ttest_rel`` on the per-query
reciprocal ranks for the drop rules' p-values, and Holm's correction written out here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.power import TTestIndPower, TTestPower

import rankframe
from gates_data import ITEMS, RANKS, SMALL, SYSTEMS, N, frame_data  # noqa: F401
from helpers import as_pandas, is_modin
from rankframe import METRICS, InvalidOptionError, InvalidRuleError
from rankframe.api.gates import parse_rule


def rr(system: str, queries: slice = slice(None)) -> np.ndarray:
    return 1.0 / np.array(RANKS[system], dtype=float)[queries]


def acc1(system: str) -> np.ndarray:
    return (np.array(RANKS[system]) == 1).astype(float)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment over the non-NaN p-values (NaN stays NaN)."""
    out = np.full(len(p), np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    order = tested[np.argsort(p[tested])]
    m = len(order)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        out[j] = running
    return out


def native_kind(make_frame: Any, result: Any) -> None:
    """pandas (and Dask, Arrow) give pandas; polars eager and lazy give a polars DataFrame;
    modin gives modin."""
    if make_frame.is_modin:
        assert is_modin(result), type(result)
        return
    polars_kind = make_frame.kind.startswith("polars")
    assert isinstance(result, pl.DataFrame if polars_kind else pd.DataFrame), type(result)


def test_the_hand_made_values() -> None:
    # the systems are what the comments say: mean RR of base 0.875, acc@1 of base 0.75
    assert rr("base").mean() == 0.875
    assert acc1("base").mean() == 0.75
    assert rr("bad").max() == 0.5


def test_absolute_rules_every_status(make_frame: Any) -> None:
    df = make_frame(frame_data())
    ev = df.rank_eval(score=SYSTEMS)
    rules = ["mrr >= 0.5", "mrr >= 0.6", "acc@1 >= 0.75", "mrr < 0.3"]
    result = ev.check(rules, min_queries=5)
    native_kind(make_frame, result)
    table = as_pandas(result)
    assert list(table.columns) == [
        "rule",
        "system",
        "metric",
        "k",
        "status",
        "value",
        "delta",
        "delta_relative",
        "bound",
        "ci_low",
        "ci_high",
        "p_value",
        "p_adjusted",
        "bound_relative",
        "ci_low_relative",
        "ci_high_relative",
        "paired",
        "n_queries",
        "queries_to_decide",
    ]
    assert table["rule"].tolist() == [r for r in rules for _ in SYSTEMS]
    assert table["system"].tolist() == SYSTEMS * len(rules)
    status = {(r["rule"], r["system"]): r["status"] for r in table.to_dict("records")}
    # every per-query RR is >= 0.5 except bad's (0.5 and 1/3): the interval of a mean lies
    # between the extreme per-query values
    for system in ["base", "noisy", "same", "better"]:
        assert status["mrr >= 0.5", system] == "pass"
        assert status["mrr >= 0.6", system] in ("pass", "uncertain")
        assert status["mrr < 0.3", system] == "fail"
    assert status["mrr >= 0.6", "bad"] == "fail"  # bad's interval is at most 0.5
    assert status["mrr >= 0.6", "better"] == "pass"  # RR 1 everywhere: [1, 1]
    assert status["mrr < 0.3", "bad"] == "fail"  # at least 1/3
    # acc@1 of base is 18 ones and 6 zeros: the bound 0.75 is the mean, inside the interval
    assert status["acc@1 >= 0.75", "base"] == "uncertain"
    assert status["acc@1 >= 0.75", "bad"] == "fail"  # acc@1 is 0 for every query
    assert status["acc@1 >= 0.75", "better"] == "pass"
    rows = table.set_index(["rule", "system"])
    assert rows.loc[("mrr >= 0.5", "base"), "value"] == pytest.approx(0.875)
    assert rows.loc[("mrr >= 0.5", "bad"), "value"] == pytest.approx(rr("bad").mean())
    assert rows.loc[("acc@1 >= 0.75", "base"), "k"] == 1
    assert pd.isna(rows.loc[("mrr >= 0.5", "base"), "k"])
    assert rows["bound"].tolist() == [0.5] * 5 + [0.6] * 5 + [0.75] * 5 + [0.3] * 5
    assert rows["n_queries"].tolist() == [N] * 20
    assert (
        rows[
            [
                "delta",
                "delta_relative",
                "ci_low_relative",
                "ci_high_relative",
                "bound_relative",
                "p_value",
                "p_adjusted",
            ]
        ]
        .isna()
        .all()
        .all()
    )
    # a plain bootstrap of base's acc@1 gives about the same interval, the bound inside
    rng = np.random.default_rng(1)
    values = acc1("base")
    means = values[rng.integers(0, N, size=(4000, N))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    assert low < 0.7
    assert high > 0.8
    got = rows.loc[("acc@1 >= 0.75", "base")]
    assert got["ci_low"] == pytest.approx(low, abs=0.05)
    assert got["ci_high"] == pytest.approx(high, abs=0.05)


def test_point_mode_compares_the_value(make_frame: Any) -> None:
    df = make_frame(frame_data())
    ev = df.rank_eval(score=["base", "bad"])
    table = as_pandas(
        ev.check(["acc@1 >= 0.75", "acc@1 > 0.75", "mrr <= 0.875"], mode="point", min_queries=5)
    )
    # base: acc@1 = 18/24 = 0.75 exactly, mrr = 0.875; bad: acc@1 = 0, mrr = 11/24
    assert table["status"].tolist() == ["pass", "fail", "fail", "fail", "pass", "pass"]
    assert table[["ci_low", "ci_high"]].isna().all().all()
    assert table["value"].tolist() == pytest.approx([0.75, 0.0, 0.75, 0.0, 0.875, 11 / 24])


def test_segments_with_too_few_queries(make_frame: Any) -> None:
    df = make_frame(frame_data())
    ev = df.rank_eval(score=["base", "bad"])
    table = as_pandas(ev.check("mrr >= 0.2", by="theme", min_queries=5))
    assert list(table.columns[:5]) == ["rule", "theme", "system", "metric", "k"]
    got = {
        (r["theme"], r["system"]): (r["status"], r["n_queries"]) for r in table.to_dict("records")
    }
    # every RR is >= 1/3 > 0.2; the small segment has 3 queries
    assert got == {
        ("small", "base"): ("too few queries", 3),
        ("small", "bad"): ("too few queries", 3),
        ("big", "base"): ("pass", N - SMALL),
        ("big", "bad"): ("pass", N - SMALL),
    }
    small = table[table["theme"] == "small"].set_index("system")
    assert small.loc["base", "value"] == pytest.approx(rr("base", slice(0, SMALL)).mean())
    # the default min_queries is 20: 24 queries pass it, 21 in the big segment too
    assert set(as_pandas(ev.check("mrr >= 0.2"))["status"]) == {"pass"}


def _drop_reference(tolerance: float, relative: bool) -> dict[str, tuple[float, float, float, str]]:
    """Per system: delta, relative delta, p (Holm over the table's tests) and the status,
    from scipy."""
    others = [s for s in SYSTEMS if s != "base"]
    p = np.array([stats.ttest_rel(rr(s), rr("base")).pvalue for s in others])
    adjusted = holm(p)
    out = {}
    for s, q in zip(others, adjusted, strict=True):
        delta = rr(s).mean() - rr("base").mean()
        change = delta / rr("base").mean() if relative else delta
        beyond = change < -tolerance
        significant = q < 0.05 and delta < 0
        status = "fail" if beyond and significant else "uncertain" if beyond else "pass"
        out[s] = (delta, delta / rr("base").mean(), q, status)
    return out


@pytest.mark.parametrize(
    ("rule", "tolerance", "relative", "statuses"),
    [
        # bad drops 0.417 (p ~ 1e-12), noisy 0.0625 (p = 0.27), same 0, better gains 0.125
        ("mrr drop <= 0.05", 0.05, False, ["fail", "uncertain", "pass", "pass"]),
        ("mrr drop <= 5%", 0.05, True, ["fail", "uncertain", "pass", "pass"]),  # noisy -7.1%
        ("mrr drop <= 10%", 0.10, True, ["fail", "pass", "pass", "pass"]),
    ],
)
def test_drop_rules_against_scipy(
    make_frame: Any, rule: str, tolerance: float, relative: bool, statuses: list[str]
) -> None:
    df = make_frame(frame_data())
    result = df.rank_eval(score=SYSTEMS).check(rule, baseline="base", min_queries=5)
    native_kind(make_frame, result)
    table = as_pandas(result)
    reference = _drop_reference(tolerance, relative)
    assert table["system"].tolist() == ["bad", "noisy", "same", "better"]  # no baseline row
    assert table["status"].tolist() == statuses
    assert [reference[s][3] for s in table["system"]] == statuses
    # the rule's own unit: the interval and the bound of a relative rule are relative
    own, other = ("_relative", "") if relative else ("", "_relative")
    for row in table.to_dict("records"):
        delta, delta_relative, q, _ = reference[row["system"]]
        # delta is absolute and delta_relative relative, whatever the rule's unit
        assert row["delta"] == pytest.approx(delta)
        assert row["delta_relative"] == pytest.approx(delta_relative)
        assert row[f"bound{own}"] == -tolerance
        for column in (f"bound{other}", f"ci_low{other}", f"ci_high{other}"):
            assert np.isnan(row[column]), column
        change = row["delta_relative" if relative else "delta"]
        assert row[f"ci_low{own}"] <= change <= row[f"ci_high{own}"]
        if relative:  # the absolute interval over the baseline's mean, held fixed
            scale = rr("base").mean()
            absolute = as_pandas(df.rank_eval(score=SYSTEMS).compare("mrr", baseline="base"))
            got = absolute.set_index("system").loc[row["system"]]
            assert row["ci_low_relative"] == pytest.approx(got["ci_low"] / scale)
            assert row["ci_high_relative"] == pytest.approx(got["ci_high"] / scale)
        assert row["value"] == pytest.approx(rr(row["system"]).mean())
        p = stats.ttest_rel(rr(row["system"]), rr("base")).pvalue
        if np.isnan(q):
            assert np.isnan(row["p_value"])
            assert np.isnan(row["p_adjusted"])
        else:
            assert row["p_value"] == pytest.approx(p)
            assert row["p_adjusted"] == pytest.approx(q)
        assert row["n_queries"] == N


def test_drop_rules_point_mode_and_too_few(make_frame: Any) -> None:
    df = make_frame(frame_data())
    ev = df.rank_eval(score=["base", "noisy", "bad"])
    table = as_pandas(ev.check("mrr drop <= 0.05", mode="point", min_queries=5))
    # the first score column is the baseline; noisy drops 0.0625 > 0.05
    assert table["status"].tolist() == ["fail", "fail"]
    few = as_pandas(ev.check(["mrr drop <= 0.05", "mrr >= 0"], min_queries=N + 1))
    assert few["status"].tolist() == ["too few queries"] * 5


def test_absolute_and_drop_rules_together(make_frame: Any) -> None:
    df = make_frame(frame_data())
    ev = df.rank_eval(score=["base", "bad"])
    rules = ["mrr@10 drop <= 0.05", "mrr@10 >= 0.6", "acc@1 drop <= 0.5"]
    table = as_pandas(ev.check(rules, min_queries=5))
    # in the order of the rules; bad drops acc@1 by 0.75 (base 0.75, bad 0)
    assert table["rule"].tolist() == [rules[0], rules[1], rules[1], rules[2]]
    assert table["status"].tolist() == ["fail", "pass", "fail", "fail"]
    assert table["k"].tolist() == [10, 10, 10, 1]


def test_options_and_labels(make_frame: Any) -> None:
    # a label with options, and an option of the call: the metric column names them
    df = make_frame(frame_data())
    ev = df.rank_eval(score="base")
    table = as_pandas(
        ev.check(
            ["f1@1(beta=2) >= 0.5", "ndcg@2 >= 0.5"],
            mode="point",
            min_queries=5,
            gain="exponential",
        )
    )
    assert table["metric"].tolist() == ["f1(beta=2)", "ndcg(gain=exponential)"]
    # F-beta at 1 with one relevant item: precision = recall = acc@1, so F = acc@1 = 0.75;
    # ndcg@2 with one relevant item: 1 at rank 1, 1/log2(3) at rank 2
    assert table["value"].tolist() == pytest.approx([0.75, (18 + 6 / np.log2(3)) / 24])
    assert table["status"].tolist() == ["pass", "pass"]


def test_every_metric_of_the_registry_parses_in_a_rule() -> None:
    for definition in METRICS.values():
        param = f"@{definition.param.example}" if definition.param.required else ""
        for spelling in (definition.name, *definition.aliases):
            rule = parse_rule(f"{spelling}{param} >= -inf")
            assert rule.metric.name == definition.name
            assert rule.bound == -np.inf
            assert not rule.drop
        if definition.takes_k:
            rule = parse_rule(f"{definition.name}@{definition.param.example} drop <= 1%")
            assert rule.drop
            assert rule.relative
            assert rule.bound == pytest.approx(0.01)


def test_metrics_of_every_kind_in_rules(make_frame: Any) -> None:
    # a cut-off, a number parameter (a recall level: a float k column), a sum, a geometric
    # mean and a set-level metric: each row is the rule's own
    df = make_frame(frame_data())
    ev = df.rank_eval(score="base")
    rules = [
        "ndcg@10 >= -inf",
        "iprec@0.5 >= -inf",
        "num_rel_ret >= -inf",
        "gm_map >= -inf",
        "coverage@2 >= -inf",
    ]
    table = as_pandas(ev.check(rules, mode="point", min_queries=1))
    assert table["metric"].tolist() == ["ndcg", "iprec", "num_rel_ret", "gm_map", "coverage"]
    assert table["k"].tolist()[:2] == [10.0, 0.5]
    assert table["status"].tolist() == ["pass"] * 5
    # num_rel_ret: one relevant item retrieved per query
    assert table["value"].tolist()[2] == N


# -- errors: the same on every frame kind -----------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "words"),
    [
        ("ndcg@10 0.3", ["no comparison operator", "A rule reads"]),
        ("ndcg@10 == 0.3", ["'==' is not an operator", "A rule reads"]),
        ("ndgc@10 >= 0.3", ["unknown metric 'ndgc@10'", "Did you mean 'ndcg'", "A rule reads"]),
        ("ndcg@10 >= 30%", ["only drop rules take one", "ndcg@10 drop <= 30%"]),
        ("ndcg@10 drop >= 0.01", ["not 'drop >='"]),
        ("ndcg@10 drop <= -0.01", ["tolerance must be a finite number >= 0"]),
        ("ndcg@10 >= high", ["the bound 'high' is not a number"]),
        ("ndcg@10 >= nan", ["the bound is NaN"]),
        (">= 0.3", ["no metric before the operator"]),
        ("0.1 < mrr < 0.9", ["one comparison per rule"]),
        ("ndcg@0 >= 0.3", ["Rule 'ndcg@0 >= 0.3'", "positive integer"]),
        ("mrr@5(beta=2) >= 0.3", ["Rule 'mrr@5(beta=2) >= 0.3'", "does not take the option"]),
        ([], ["No rule was given"]),
        ([0.3], ["A rule is a string"]),
    ],
)
def test_bad_rules(make_frame: Any, rules: Any, words: list[str]) -> None:
    df = make_frame(frame_data())
    with pytest.raises(InvalidRuleError) as error:
        df.rank_eval(score=["base", "bad"]).check(rules)
    for word in words:
        assert word in str(error.value)
    if isinstance(rules, str):
        assert error.value.rule == rules


def test_a_drop_rule_needs_a_baseline(make_frame: Any) -> None:
    df = make_frame(frame_data())
    with pytest.raises(
        InvalidRuleError,
        match=r"'mrr drop <= 0.01' is a drop rule.*"
        r"several score columns.*reference=.*every=",
    ):
        df.rank_eval(score="base").check(["mrr >= 0.1", "mrr drop <= 0.01"])


@pytest.mark.parametrize(
    ("keywords", "words"),
    [
        ({"mode": "points"}, ["mode", "Did you mean 'point'"]),
        ({"min_queries": 0}, ["'min_queries' option must be a positive integer"]),
        ({"confidence_level": 95}, ["confidence_level"]),
        ({"alpha": 0}, ["alpha"]),
        ({"family": "tables"}, ["family"]),
        ({"baseline": "nope"}, ["baseline='nope' is not one of the score columns"]),
    ],
)
def test_bad_arguments(make_frame: Any, keywords: dict[str, Any], words: list[str]) -> None:
    df = make_frame(frame_data())
    with pytest.raises(InvalidOptionError) as error:
        df.rank_eval(score=["base", "bad"]).check("mrr drop <= 0.01", **keywords)
    for word in words:
        assert word in str(error.value)


def test_an_unknown_keyword(make_frame: Any) -> None:
    df = make_frame(frame_data())
    with pytest.raises(rankframe.UnknownArgumentError, match="min_queries"):
        df.rank_eval(score="base").check("mrr >= 0", min_query=3)


def test_drop_rules_of_a_geometric_mean(make_frame: Any) -> None:
    # one relevant item per query: AP = RR; gm_map is the geometric mean of the APs, tested
    # on their logs (compare's statistic), the change read on the geometric means themselves
    df = make_frame(frame_data())
    ev = df.rank_eval(score=["base", "bad"])
    table = as_pandas(ev.check(["gm_map drop <= 0.01", "gm_map drop <= 10%"], min_queries=5))
    base, bad = stats.gmean(rr("base")), stats.gmean(rr("bad"))
    p = stats.ttest_rel(np.log(rr("bad")), np.log(rr("base"))).pvalue
    assert table["value"].tolist() == pytest.approx([bad, bad])
    assert table["delta"].tolist() == pytest.approx([bad - base, bad - base])
    assert table["delta_relative"].tolist() == pytest.approx([bad / base - 1] * 2)
    assert table["p_value"].tolist() == pytest.approx([p, p])
    assert table["status"].tolist() == ["fail", "fail"]
    absolute, relative = table.to_dict("records")
    assert absolute["ci_low"] <= absolute["delta"] <= absolute["ci_high"]
    assert relative["ci_low_relative"] <= relative["delta_relative"] <= relative["ci_high_relative"]


# -- drop rules against the previous window and against a reference frame -------------------

HALF = N // 2  # queries q00..q11 are served in the week of 2024-03-04, the others a week later


def _weekly(make_frame: Any) -> Any:
    """Two systems over two weeks: `drift` ranks as `base` in week 1 and as `bad` in week 2;
    `steady` ranks as `base` in both."""
    data = frame_data()
    queries = [int(q[1:]) for q in data["query"]]
    data["drift"] = [
        b if q < HALF else w for q, b, w in zip(queries, data["base"], data["bad"], strict=True)
    ]
    data["steady"] = data["base"]
    data["served_at"] = [
        pd.Timestamp("2024-03-06 12:00", tz="UTC") + pd.Timedelta(weeks=int(q >= HALF))
        for q in queries
    ]
    return make_frame(data)


def _weeks(system: str) -> tuple[np.ndarray, np.ndarray]:
    """A system's reciprocal ranks in week 1 and week 2."""
    ranks = RANKS["base"][:HALF] + RANKS["bad"][HALF:] if system == "drift" else RANKS["base"]
    values = 1.0 / np.array(ranks, dtype=float)
    return values[:HALF], values[HALF:]


def test_drop_rules_against_the_previous_window(make_frame: Any) -> None:
    ev = _weekly(make_frame).rank_eval(score=["drift", "steady"], time="served_at")
    result = ev.check("mrr drop <= 0.05", every="1w", min_queries=5)
    native_kind(make_frame, result)
    table = as_pandas(result)
    # per system, its windows in order
    assert [pd.Timestamp(w) for w in table["window"]] == [
        pd.Timestamp("2024-03-04", tz="UTC"),
        pd.Timestamp("2024-03-11", tz="UTC"),
    ] * 2
    assert table["system"].tolist() == ["drift", "drift", "steady", "steady"]
    # week 1 has no previous window
    assert table["status"].tolist() == ["no baseline", "fail", "no baseline", "pass"]
    assert table["delta"].iloc[[0, 2]].isna().all()
    # week 2 against week 1: other queries, Welch's t-test; Holm over the two tests
    p = np.array(
        [
            stats.ttest_ind(_weeks(s)[1], _weeks(s)[0], equal_var=False).pvalue
            for s in ["drift", "steady"]
        ]
    )
    # drift: RR 1 x9 and 1/2 x3 (mean 0.875), then 1/2 x9 and 1/3 x3 (mean 0.4583)
    assert table["delta"].iloc[1] == pytest.approx(0.375 + 1 / 12 - 0.875)
    assert table["delta"].iloc[3] == 0.0  # steady: the same values both weeks (p = 1)
    np.testing.assert_allclose(table["p_value"].iloc[[1, 3]].to_numpy(float), p, rtol=1e-9)
    np.testing.assert_allclose(table["p_adjusted"].iloc[[1, 3]].to_numpy(float), holm(p), rtol=1e-9)
    assert not table["paired"].any()
    assert table["n_queries"].tolist() == [HALF] * 4


def test_drop_rules_against_a_baseline_within_each_window(make_frame: Any) -> None:
    ev = _weekly(make_frame).rank_eval(score=["drift", "steady"], time="served_at")
    table = as_pandas(ev.check("mrr drop <= 0.05", every="1w", baseline="steady", min_queries=5))
    assert table["system"].tolist() == ["drift", "drift"]  # no baseline row
    # week 1: drift equals steady (no difference, no test); week 2: paired, ttest_rel
    assert table["status"].tolist() == ["pass", "fail"]
    drift, steady = _weeks("drift")[1], _weeks("steady")[1]
    assert table["p_value"].iloc[1] == pytest.approx(stats.ttest_rel(drift, steady).pvalue)
    assert table["paired"].all()


def test_drop_rules_against_a_reference_frame(make_frame: Any) -> None:
    # the reference holds the same query ids, each system ranking as `base`: paired
    current = _weekly(make_frame)
    data = frame_data()
    data["drift"] = data["steady"] = data["base"]
    data["served_at"] = [
        pd.Timestamp("2024-03-06", tz="UTC") + pd.Timedelta(weeks=int(int(q[1:]) >= HALF))
        for q in data["query"]
    ]
    reference = make_frame(data)
    ev = current.rank_eval(score=["drift", "steady"], time="served_at")
    table = as_pandas(ev.check("mrr drop <= 0.05", reference=reference, min_queries=5))
    base = 1.0 / np.array(RANKS["base"], dtype=float)
    drift = np.concatenate(_weeks("drift"))
    assert table["system"].tolist() == ["drift", "steady"]
    assert table["status"].tolist() == ["fail", "pass"]  # steady: no difference at all
    assert table["paired"].all()
    assert table["p_value"].iloc[0] == pytest.approx(stats.ttest_rel(drift, base).pvalue)
    # per window: week 1 holds no difference, week 2 the whole drop
    weekly = as_pandas(ev.check("mrr drop <= 0.05", reference=reference, every="1w", min_queries=5))
    assert weekly["status"].tolist() == ["pass", "fail", "pass", "pass"]  # drift, steady
    assert weekly["p_value"].iloc[1] == pytest.approx(
        stats.ttest_rel(_weeks("drift")[1], base[HALF:]).pvalue
    )
    assert weekly["paired"].all()


# -- queries_to_decide: how many queries would decide an uncertain row ----------------------


def _to_decide(effect: float, alpha: float = 0.05, *, two_sample: bool = False) -> float:
    """statsmodels' size at power 0.5 (even odds of deciding), rounded up."""
    solver = TTestIndPower() if two_sample else TTestPower()
    return float(math.ceil(solver.solve_power(abs(effect), alpha=alpha, power=0.5)))


def _leaves_out(effect: float, alpha: float = 0.05) -> int:
    """Brute force: the fewest queries at which the t interval around an estimate as far
    from the bound as the one observed (with the observed SD) leaves the bound out."""
    n = 2
    while stats.t.ppf(1 - alpha / 2, n - 1) / math.sqrt(n) >= abs(effect):
        n += 1
    return n


def test_queries_to_decide_an_absolute_rule(make_frame: Any) -> None:
    ev = make_frame(frame_data()).rank_eval(score=SYSTEMS)
    rules = ["acc@1 >= 0.7", "gm_map >= 0.8", "acc@1 >= 0.75", "mrr >= 0.5"]
    table = as_pandas(ev.check(rules, min_queries=5, confidence_level=0.9))
    rows = table.set_index(["rule", "system"])
    checked = 0
    for (rule, system), row in rows.iterrows():
        if row["status"] != "uncertain":
            assert np.isnan(row["queries_to_decide"]), (rule, system)
            continue
        if rule.startswith("gm_map"):  # the geometric mean's logs, from log(bound)
            values, line = np.log(rr(system)), math.log(0.8)
        else:
            values, line = acc1(system), float(rule.split()[-1])
        effect = (values.mean() - line) / values.std(ddof=1)
        if effect == 0:  # the value on the bound: no number of queries moves it off
            assert row["queries_to_decide"] == math.inf
            continue
        want = _to_decide(effect, 0.1)
        assert row["queries_to_decide"] == want, (rule, system)
        # the meaning: about where the interval, at the observed value, leaves the bound
        # out (the noncentral t's median lies a little above its noncentrality)
        assert _leaves_out(effect, 0.1) - 1 <= want <= _leaves_out(effect, 0.1)
        checked += 1
    assert checked >= 4
    assert rows.loc[("acc@1 >= 0.75", "base"), "queries_to_decide"] == math.inf


def test_queries_to_decide_within_segments(make_frame: Any) -> None:
    ev = make_frame(frame_data()).rank_eval(score=["base", "noisy"])
    table = as_pandas(ev.check("acc@1 >= 0.7", by="theme", min_queries=1))
    big = slice(SMALL, None)  # the segment "big": queries q03..q23
    for row in table.to_dict("records"):
        if row["status"] != "uncertain":
            assert np.isnan(row["queries_to_decide"])
            continue
        assert row["theme"] == "big"
        values = acc1(row["system"])[big]
        effect = (values.mean() - 0.7) / values.std(ddof=1)
        assert row["queries_to_decide"] == _to_decide(effect)


def test_queries_to_decide_a_drop_rule_in_either_unit(make_frame: Any) -> None:
    ev = make_frame(frame_data()).rank_eval(score=SYSTEMS)
    table = as_pandas(
        ev.check(["mrr drop <= 0.05", "mrr drop <= 5%"], baseline="base", min_queries=5, alpha=0.1)
    )
    # noisy drops 0.0625 (7.1%) without significance: uncertain under both rules. The
    # drop turns "fail" once significant: the distance is from no change, at alpha
    diff = rr("noisy") - rr("base")
    want = _to_decide(diff.mean() / diff.std(ddof=1), 0.1)
    for rule in ["mrr drop <= 0.05", "mrr drop <= 5%"]:
        rows = table[table["rule"] == rule].set_index("system")
        assert rows.loc["noisy", "status"] == "uncertain"
        assert rows.loc["noisy", "queries_to_decide"] == want
        assert rows.drop(index="noisy")["queries_to_decide"].isna().all()


def test_queries_to_decide_against_a_reference_of_other_queries(make_frame: Any) -> None:
    # this frame's noisy against a reference whose noisy ranks as base, on other query ids
    data = frame_data()
    other = dict(data, query=[f"r{q[1:]}" for q in data["query"]], noisy=data["base"])
    ev = make_frame(data).rank_eval(score="noisy")
    table = as_pandas(ev.check("mrr drop <= 0.05", reference=make_frame(other), min_queries=5))
    x, y = rr("noisy"), rr("base")
    squares = ((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()
    pooled = math.sqrt(squares / (2 * N - 2))
    row = table.iloc[0]
    assert (row["status"], bool(row["paired"])) == ("uncertain", False)
    assert row["queries_to_decide"] == _to_decide((x.mean() - y.mean()) / pooled, two_sample=True)


def test_the_docs_example_of_queries_to_decide(make_frame: Any) -> None:
    # docs/monitoring.md: new's reciprocal ranks 0.5, 1, 0.5 (mean 2/3), old's 1, 1, 1
    data = pd.DataFrame(
        {
            "query": [1, 1, 2, 2, 3, 3],
            "item": ["x", "y"] * 3,
            "new": [0.9, 0.1, 0.9, 0.1, 0.9, 0.1],
            "old": [0.1, 0.9, 0.9, 0.1, 0.1, 0.9],
            "relevant": [0, 1, 1, 0, 0, 1],
        }
    )
    ev = make_frame(data).rank_eval(score=["new", "old"])
    table = as_pandas(
        ev.check(["mrr >= 0.5", "mrr >= 0.75", "mrr drop <= 0.05"], baseline="old", min_queries=3)
    )
    # the values deviate from 2/3 by -1/6, 1/3, -1/6: SD sqrt((1/36 + 1/9 + 1/36) / 2)
    sd = math.sqrt((1 / 36 + 1 / 9 + 1 / 36) / 2)
    assert sd == pytest.approx(math.sqrt(1 / 12))
    bound = TTestPower().solve_power((0.75 - 2 / 3) / sd, alpha=0.05, power=0.5)
    drop = TTestPower().solve_power((1 / 3) / sd, alpha=0.05, power=0.5)  # the same SD
    assert (bound, drop) == (pytest.approx(48.04, abs=5e-3), pytest.approx(4.99, abs=5e-3))
    decide = table["queries_to_decide"].tolist()
    assert decide[2] == math.ceil(bound) == 49
    assert decide[4] == math.ceil(drop) == 5
    assert np.isnan([decide[i] for i in (0, 1, 3)]).all()
