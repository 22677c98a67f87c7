"""``compare(metrics, reference=other_frame)`` (issue 27) and the ``wins``/``ties``/``losses``
columns of ``compare()`` (issue 28), on every frame kind.

The frames are built so that each query's reciprocal rank is known by construction: three
items scored 0.9, 0.5 and 0.1, one of them relevant, at rank r, so RR = 1/r. The p-values
and intervals are checked against scipy on those vectors written out here (``ttest_rel``
when the query ids match, ``ttest_ind(equal_var=False)`` and ``mannwhitneyu`` otherwise),
the permutation p-value against an exact enumeration of the splits, the bootstrap interval
against a plain independent bootstrap written out here, and wins/ties/losses against counts
by hand.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats
from test_statistics_scope import INPUTS, PER_QUERY, _frame

import rankframe
from helpers import FrameMaker, as_pandas, collect, is_modin
from helpers import unlabelled as by_metric

SCORES = [0.9, 0.5, 0.1]


def _ranked(
    ranks: dict[str, list[int]], prefix: str = "q", segment: list[str] | None = None
) -> pd.DataFrame:
    """One query per position, three items; system s puts the relevant item (i0) at rank
    ranks[s][q], so its reciprocal rank is 1 / ranks[s][q]; rank 4: not retrieved (a null
    score; the others at ranks 1 and 2)."""
    n = len(next(iter(ranks.values())))
    rows = []
    for q in range(n):
        for i in range(3):
            row: dict[str, Any] = {
                "query": f"{prefix}{q}",
                "item": f"i{i}",
                "relevant": int(i == 0),
            }
            for system, r in ranks.items():
                # item i0 at rank r: the scores of the others fill the other ranks
                order = [1, 2, 3, 4]
                order.remove(r[q])
                rank_of = {0: r[q], 1: order[0], 2: order[1]}
                row[system] = SCORES[rank_of[i] - 1] if rank_of[i] <= 3 else None
            if segment is not None:
                row["segment"] = segment[q]
            rows.append(row)
    return pd.DataFrame(rows)


def _rows(table: Any) -> pd.DataFrame:
    return as_pandas(table).reset_index(drop=True)


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# -- paired: the same query ids on both sides ---------------------------------------------

CURRENT = {"a": [1, 2, 3, 1, 2]}  # RR 1, 1/2, 1/3, 1, 1/2
REFERENCE = {"a": [2, 2, 1, 3, 1]}  # RR 1/2, 1/2, 1, 1/3, 1


def _rr(ranks: list[int]) -> np.ndarray:
    return 1.0 / np.array(ranks, dtype=float)


def test_same_ids_are_paired(make_frame: FrameMaker) -> None:
    current = make_frame(_ranked(CURRENT))
    reference = make_frame(_ranked(REFERENCE))
    row = _rows(current.rank_eval(score="a").compare("mrr", reference=reference)).iloc[0]
    x, y = _rr(CURRENT["a"]), _rr(REFERENCE["a"])
    assert row["system"] == "a"
    assert bool(row["paired"]) is True
    assert row["mean"] == pytest.approx(x.mean(), rel=1e-12)
    assert row["reference_mean"] == pytest.approx(y.mean(), rel=1e-12)
    assert row["delta"] == pytest.approx((x - y).mean(), rel=1e-12)
    assert row["p_value"] == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-9)
    interval = stats.ttest_rel(x, y).confidence_interval(0.95)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((interval.low, interval.high), rel=1e-9)
    # by hand: q0 1 > 1/2, q3 1 > 1/3 win; q1 1/2 = 1/2 ties; q2 1/3 < 1, q4 1/2 < 1 lose
    assert (row["wins"], row["ties"], row["losses"]) == (2, 1, 2)
    assert (row["n_queries"], row["n_reference"]) == (5, 5)


def test_paired_equals_a_baseline_comparison(make_frame: FrameMaker) -> None:
    # the same queries and tests as compare(baseline=) on one frame holding both columns
    both = _ranked({"ref": REFERENCE["a"], "a": CURRENT["a"]})
    current = make_frame(both.drop(columns="ref"))
    reference = make_frame(both.drop(columns="a").rename(columns={"ref": "a"}))
    for test in ["t-test", "permutation", "wilcoxon"]:
        got = _rows(
            current.rank_eval(score="a").compare(
                ["mrr", "ndcg@2"],
                reference=reference,
                test=test,
                n_permutations=300,
                n_resamples=300,
            )
        )
        want = _rows(
            make_frame(both)
            .rank_eval(score=["ref", "a"])
            .compare(["mrr", "ndcg@2"], test=test, n_permutations=300, n_resamples=300)
        )
        want = want[want["system"] == "a"].reset_index(drop=True)
        for column in ["delta", "p_value", "ci_low", "ci_high", "wins", "ties", "losses"]:
            np.testing.assert_array_equal(
                got[column].to_numpy(float), want[column].to_numpy(float), err_msg=column
            )


# -- two samples: other query ids ---------------------------------------------------------

OTHER = {"a": [3, 3, 1, 2, 3, 2, 3]}  # RR 1/3, 1/3, 1, 1/2, 1/3, 1/2, 1/3


def _two_frames(make_frame: FrameMaker) -> tuple[Any, Any]:
    return make_frame(_ranked(CURRENT)), make_frame(_ranked(OTHER, prefix="r"))


def test_other_ids_are_two_samples_welch(make_frame: FrameMaker) -> None:
    current, reference = _two_frames(make_frame)
    row = _rows(current.rank_eval(score="a").compare("mrr", reference=reference)).iloc[0]
    x, y = _rr(CURRENT["a"]), _rr(OTHER["a"])
    welch = stats.ttest_ind(x, y, equal_var=False)
    assert bool(row["paired"]) is False
    assert row["delta"] == pytest.approx(x.mean() - y.mean(), rel=1e-12)
    assert row["p_value"] == pytest.approx(welch.pvalue, rel=1e-9)
    interval = welch.confidence_interval(0.95)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((interval.low, interval.high), rel=1e-9)
    assert pd.isna(row["wins"])
    assert pd.isna(row["ties"])
    assert pd.isna(row["losses"])
    assert (row["n_queries"], row["n_reference"]) == (5, 7)


def _exact_permutation_p(x: np.ndarray, y: np.ndarray) -> float:
    """Every split of the pooled values into len(x) and len(y): the share whose |difference
    of the means| reaches the observed one."""
    pooled = np.concatenate([x, y])
    observed = abs(x.mean() - y.mean())
    splits = list(itertools.combinations(range(len(pooled)), len(x)))
    hits = 0
    for chosen in splits:
        mask = np.zeros(len(pooled), dtype=bool)
        mask[list(chosen)] = True
        hits += abs(pooled[mask].mean() - pooled[~mask].mean()) >= observed - 1e-12
    return hits / len(splits)


def _plain_bootstrap(
    x: np.ndarray, y: np.ndarray, level: float, r: int, seed: int
) -> tuple[float, float]:
    """Each side resampled with replacement, r times, from the documented stream (one task:
    the first stream spawned from the seed); the percentile interval of the difference."""
    rng = np.random.default_rng(seed).spawn(1)[0]
    ix = rng.integers(0, len(x), size=(r, len(x)))
    iy = rng.integers(0, len(y), size=(r, len(y)))
    values = [x[ix[i]].mean() - y[iy[i]].mean() for i in range(r)]
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def test_other_ids_permutation_and_bootstrap(make_frame: FrameMaker) -> None:
    current, reference = _two_frames(make_frame)
    r = 4000
    row = _rows(
        current.rank_eval(score="a").compare(
            "mrr",
            reference=reference,
            test="permutation",
            n_permutations=r,
            n_resamples=500,
            seed=3,
            confidence_level=0.9,
        )
    ).iloc[0]
    x, y = _rr(CURRENT["a"]), _rr(OTHER["a"])
    exact = _exact_permutation_p(x, y)  # 792 splits of 12 queries into 5 and 7
    assert row["p_value"] == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / r))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        _plain_bootstrap(x, y, 0.9, 500, 3), rel=1e-12
    )
    assert row["ci_low"] <= row["delta"] <= row["ci_high"]


def test_other_ids_wilcoxon_is_mann_whitney(make_frame: FrameMaker) -> None:
    current, reference = _two_frames(make_frame)
    row = _rows(
        current.rank_eval(score="a").compare("mrr", reference=reference, test="wilcoxon")
    ).iloc[0]
    x, y = _rr(CURRENT["a"]), _rr(OTHER["a"])
    expected = _quiet(stats.mannwhitneyu, x, y, method="asymptotic").pvalue
    assert row["p_value"] == pytest.approx(expected, rel=1e-9)
    assert bool(row["paired"]) is False


def test_paired_per_segment(make_frame: FrameMaker) -> None:
    # segment s: q0, q1 on both sides (paired); segment t: q2, q3, q4 here, r2, r3 there
    current = _ranked({"a": [1, 2, 3, 1, 2]}, segment=["s", "s", "t", "t", "t"])
    other = _ranked({"a": [2, 1, 1, 2]}, segment=["s", "s", "t", "t"])
    other["query"] = other["query"].replace({"q2": "r2", "q3": "r3"})
    table = _rows(
        make_frame(current)
        .rank_eval(score="a")
        .compare("mrr", reference=make_frame(other), by="segment", family="table")
    )
    assert table["segment"].tolist() == ["s", "t"]
    assert table["paired"].tolist() == [True, False]
    s, t = table.iloc[0], table.iloc[1]
    # s: 1 - 1/2 and 1/2 - 1: a win and a loss
    assert (s["wins"], s["ties"], s["losses"]) == (1, 0, 1)
    assert s["p_value"] == pytest.approx(stats.ttest_rel([1, 0.5], [0.5, 1]).pvalue)
    assert t["p_value"] == pytest.approx(
        stats.ttest_ind([1 / 3, 1, 0.5], [1, 0.5], equal_var=False).pvalue, rel=1e-9
    )
    # family="table": Holm over both rows
    p = sorted([s["p_value"], t["p_value"]])
    holm = [min(1, 2 * p[0]), max(min(1, 2 * p[0]), p[1])]
    assert sorted(table["p_adjusted"].tolist()) == pytest.approx(holm)


def test_sum_and_geometric_mean_two_samples(make_frame: FrameMaker) -> None:
    current, reference = _two_frames(make_frame)
    table = by_metric(
        current.rank_eval(score="a").compare(["num_rel_ret", "gm_map"], reference=reference)
    ).set_index("metric")
    # num_rel_ret: 1 where the relevant item is retrieved (rank 4: not retrieved)
    cur, ref = [1, 4, 2, 4, 3], [4, 1, 4, 4, 4, 4, 2]
    sums = make_frame(_ranked({"a": cur})), make_frame(_ranked({"a": ref}, prefix="r"))
    row = by_metric(sums[0].rank_eval(score="a").compare("num_rel_ret", reference=sums[1])).iloc[0]
    x = np.array([1.0, 0, 1, 0, 1])  # a sum of 3
    y = np.array([0.0, 1, 0, 0, 0, 0, 1])  # a sum of 2
    assert (row["mean"], row["reference_mean"]) == (3, 2)
    assert row["delta"] == 3 - 2  # the difference of the sums
    a1, a2 = len(x) * np.var(x, ddof=1), len(y) * np.var(y, ddof=1)
    t = 1 / math.sqrt(a1 + a2)
    df = (a1 + a2) ** 2 / (a1**2 / 4 + a2**2 / 6)
    assert row["p_value"] == pytest.approx(2 * stats.t.sf(t, df), rel=1e-9)
    assert row["ci_low"] <= row["delta"] <= row["ci_high"]
    assert table.loc["num_rel_ret", "delta"] == 5 - 7  # every relevant item retrieved
    # gm_map: AP = RR here (one relevant item); tests of log(max(AP, 1e-5))
    row = table.loc["gm_map"]
    lx, ly = np.log(_rr(CURRENT["a"])), np.log(_rr(OTHER["a"]))
    assert row["delta"] == pytest.approx(lx.mean() - ly.mean(), rel=1e-12)
    assert row["delta_relative"] == pytest.approx(math.exp(lx.mean() - ly.mean()) - 1, rel=1e-12)
    assert row["p_value"] == pytest.approx(
        stats.ttest_ind(lx, ly, equal_var=False).pvalue, rel=1e-9
    )


def test_result_kind_follows_the_current_frame(make_frame: FrameMaker) -> None:
    current, reference = _two_frames(make_frame)
    result = current.rank_eval(score="a").compare("mrr", reference=reference)
    if make_frame.is_lazy:
        assert isinstance(result, pl.LazyFrame)  # nothing collected yet
    elif make_frame.is_dask:
        assert isinstance(result, dd.DataFrame)
    elif make_frame.kind == "polars":
        assert isinstance(result, pl.DataFrame)
    elif make_frame.is_modin:
        assert is_modin(result), type(result)
    else:
        assert isinstance(result, pd.DataFrame)
    assert len(collect(result)) == 1


@pytest.mark.parametrize("other", ["pandas", "polars", "polars-lazy", "dask", "arrow"])
def test_a_reference_of_another_kind(make_frame: FrameMaker, other: str) -> None:
    from helpers import frames_of

    current = make_frame(_ranked(CURRENT))
    with frames_of(other) as make_other:
        reference = make_other(_ranked(OTHER, prefix="r"))
        row = _rows(current.rank_eval(score="a").compare("mrr", reference=reference)).iloc[0]
    x, y = _rr(CURRENT["a"]), _rr(OTHER["a"])
    assert row["p_value"] == pytest.approx(stats.ttest_ind(x, y, equal_var=False).pvalue, rel=1e-9)


# -- errors ------------------------------------------------------------------------------


def test_a_system_missing_from_the_reference(make_frame: FrameMaker) -> None:
    current = make_frame(_ranked({"a": [1, 2], "b": [2, 1]}))
    reference = make_frame(_ranked({"a": [1, 1]}))
    with pytest.raises(rankframe.ColumnNotFoundError, match="no score column 'b'"):
        current.rank_eval(score=["a", "b"]).compare("mrr", reference=reference)


def test_baseline_and_reference_together(make_frame: FrameMaker) -> None:
    current = make_frame(_ranked({"a": [1, 2], "b": [2, 1]}))
    reference = make_frame(_ranked({"a": [1, 1], "b": [1, 1]}))
    with pytest.raises(rankframe.InvalidOptionError, match="baseline= or reference=, not both"):
        current.rank_eval(score=["a", "b"]).compare("mrr", baseline="a", reference=reference)


def test_reference_must_be_a_frame(make_frame: FrameMaker) -> None:
    current = make_frame(_ranked({"a": [1, 2]}))
    with pytest.raises(rankframe.InvalidOptionError, match="reference= takes a frame"):
        current.rank_eval(score="a").compare("mrr", reference=[1, 2])


def test_reference_refuses_set_level_metrics(make_frame: FrameMaker) -> None:
    current, reference = _two_frames(make_frame)
    with pytest.raises(rankframe.InvalidOptionError, match="set-level"):
        current.rank_eval(score="a").compare("coverage@2", reference=reference)


# -- wins, ties and losses of compare(baseline=) (issue 28) -------------------------------


def test_wins_ties_losses_against_the_baseline(make_frame: FrameMaker) -> None:
    # RR by hand: a 1, 1/2, 1/3, 1; b 1/2, 1/2, 1, 1; c 1, 1, 1, 1/3
    frame = make_frame(_ranked({"a": [1, 2, 3, 1], "b": [2, 2, 1, 1], "c": [1, 1, 1, 3]}))
    table = _rows(frame.rank_eval(score=["a", "b", "c"]).compare("mrr", baseline="a"))
    counts = {
        row["system"]: (row["wins"], row["ties"], row["losses"]) for row in table.to_dict("records")
    }
    assert all(pd.isna(v) for v in counts["a"])  # the baseline's own row
    assert counts["b"] == (1, 2, 1)  # q2 wins; q1, q3 tie; q0 loses
    assert counts["c"] == (2, 1, 1)  # q1, q2 win; q0 ties; q3 loses
    assert table["paired"].tolist() == [True, True, True]


# -- every per-query metric of the registry ------------------------------------------------


@pytest.mark.parametrize("test", ["t-test", "permutation"])
def test_every_metric_keeps_its_delta_in_its_interval(make_frame: FrameMaker, test: str) -> None:
    data = _frame(7, n_queries=24)
    other = _frame(8, n_queries=30).assign(query=lambda f: "r" + f["query"])
    ev = make_frame(data).rank_eval(score="a")
    for reference, paired in [(make_frame(other), False), (make_frame(_frame(9, 24)), True)]:
        table = by_metric(
            ev.compare(
                PER_QUERY,
                reference=reference,
                test=test,
                n_permutations=200,
                n_resamples=200,
                **INPUTS,
            )
        )
        assert len(table) == len(PER_QUERY)
        assert table["paired"].tolist() == [paired] * len(PER_QUERY)
        for spec, row in zip(PER_QUERY, table.to_dict("records"), strict=True):
            if math.isnan(row["ci_low"]):  # no variation on either side: nothing to test
                continue
            assert row["ci_low"] <= row["delta"] + 1e-9, spec
            assert row["delta"] <= row["ci_high"] + 1e-9, spec
