"""``compare()``'s ``mde`` column (issue 36): the smallest change the t-test at ``1 -
confidence_level`` (two-sided) detects with 80% power with the queries in hand, in the
units of ``delta``.

The reference is statsmodels' ``solve_power(effect_size=None, ...)`` times a standard
deviation computed here from the per-query values: ``TTestPower`` and the differences' SD
for a paired comparison (a baseline, or a reference frame of the same queries);
``TTestIndPower`` with ``ratio = n_reference / n_queries`` and the pooled SD, written out,
for two samples (a reference frame of other queries, the previous window). Over the whole
registry on one small frame, and on every frame kind for a few metrics.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import TTestIndPower, TTestPower
from test_reference import _ranked
from test_statistics_scope import INPUTS, PER_QUERY, _frame, _transform
from test_window_compare import frame_data, rr

import rankframe
from helpers import FrameMaker, as_pandas
from helpers import unlabelled as by_metric


def paired_mde(n: int, sd: float, level: float = 0.95) -> float:
    return (
        float(TTestPower().solve_power(effect_size=None, nobs=n, alpha=1 - level, power=0.8)) * sd
    )


def two_sample_mde(x: np.ndarray, y: np.ndarray, level: float = 0.95) -> float:
    """statsmodels' detectable effect of two samples of len(x) and len(y), times their
    pooled standard deviation (squared deviations from each sample's mean over n1 + n2 - 2)."""
    squares = ((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()
    sd = math.sqrt(squares / (len(x) + len(y) - 2))
    effect = TTestIndPower().solve_power(
        effect_size=None, nobs1=len(x), ratio=len(y) / len(x), alpha=1 - level, power=0.8
    )
    return float(effect) * sd


def test_mde_over_the_registry_is_statsmodels(make_frame: FrameMaker) -> None:
    data = _frame(1)
    ev = make_frame(data).rank_eval(score=["a", "b"])
    table = by_metric(ev.compare(PER_QUERY, confidence_level=0.9, **INPUTS))
    per_query = by_metric(ev.per_query(PER_QUERY, **INPUTS))
    a = per_query[per_query["system"] == "a"].set_index("query").sort_index()
    b = per_query[per_query["system"] == "b"].set_index("query").sort_index()
    # the baseline's rows: nothing compared, no mde
    assert table.loc[table["system"] == "a", "mde"].isna().all()
    rows = table[table["system"] == "b"].reset_index(drop=True)
    checked = 0
    for spec, row in zip(PER_QUERY, rows.to_dict("records"), strict=True):
        aggregate = rankframe.parse_metric(spec).definition.aggregate
        label = str(rankframe.parse_metric(spec))
        diff = _transform(b[label].to_numpy(float), aggregate) - _transform(
            a[label].to_numpy(float), aggregate
        )
        diff = diff[~np.isnan(diff)]  # the queries empty= leaves out of this metric
        sd = float(np.std(diff, ddof=1))
        if sd == 0:  # nothing varies: the t-test is undefined, and so is its resolution
            assert math.isnan(row["mde"]), spec
            continue
        scale = len(diff) if aggregate == "sum" else 1  # a sum's: n times the mean's
        assert row["n_queries"] == len(diff), spec
        assert row["mde"] == pytest.approx(paired_mde(len(diff), sd, 0.9) * scale, rel=1e-5), spec
        checked += 1
    assert checked > len(PER_QUERY) // 2


# reciprocal ranks by construction (test_reference._ranked): 1 / rank
MINE = {"a": [1, 2, 1, 3, 4, 1], "b": [2, 1, 1, 1, 2, 3]}
THEIRS = {"a": [2, 2, 1, 4, 3], "b": [1, 1, 3, 2, 2]}


def _rr(ranks: list[int]) -> np.ndarray:
    return np.array([0.0 if r == 4 else 1.0 / r for r in ranks])


def test_mde_against_a_baseline_on_every_kind(make_frame: FrameMaker) -> None:
    ev = make_frame(_ranked(MINE)).rank_eval(score=["a", "b"])
    row = as_pandas(ev.compare("mrr", baseline="a")).set_index("system").loc["b"]
    diff = _rr(MINE["b"]) - _rr(MINE["a"])
    assert row["mde"] == pytest.approx(paired_mde(6, float(np.std(diff, ddof=1))), rel=1e-5)


def test_mde_against_a_reference_of_other_queries_is_two_sample(
    make_frame: FrameMaker,
) -> None:
    ev = make_frame(_ranked(MINE)).rank_eval(score=["a", "b"])
    other = make_frame(_ranked(THEIRS, prefix="r"))
    table = as_pandas(ev.compare(["mrr", "acc@1"], reference=other))
    for row in table.to_dict("records"):
        assert not row["paired"]
        x, y = _rr(MINE[row["system"]]), _rr(THEIRS[row["system"]])
        if row["metric"] == "acc":
            x, y = (x == 1).astype(float), (y == 1).astype(float)
        assert (row["n_queries"], row["n_reference"]) == (6, 5)
        assert row["mde"] == pytest.approx(two_sample_mde(x, y), rel=1e-5), row["metric"]


def test_mde_against_a_reference_of_the_same_queries_is_paired(
    make_frame: FrameMaker,
) -> None:
    same = {"a": THEIRS["a"] + [1], "b": THEIRS["b"] + [4]}
    ev = make_frame(_ranked(MINE)).rank_eval(score=["a", "b"])
    table = as_pandas(ev.compare("mrr", reference=make_frame(_ranked(same))))
    for row in table.to_dict("records"):
        assert row["paired"]
        diff = _rr(MINE[row["system"]]) - _rr(same[row["system"]])
        assert row["mde"] == pytest.approx(paired_mde(6, float(np.std(diff, ddof=1))), rel=1e-5)


def test_mde_against_the_previous_window_is_two_sample(make_frame: FrameMaker) -> None:
    frame = make_frame(frame_data())
    table = as_pandas(
        frame.rank_eval(score="a", time="served_at").compare(
            "mrr", every="1w", confidence_level=0.9
        )
    ).reset_index(drop=True)
    assert math.isnan(table.loc[0, "mde"])  # the first week: nothing to compare with
    for i, (week, previous) in enumerate([(2, 1), (4, 2)], start=1):
        assert table.loc[i, "mde"] == pytest.approx(
            two_sample_mde(rr(week), rr(previous), 0.9), rel=1e-5
        )


def test_mde_of_a_lone_query_is_nan(make_frame: FrameMaker) -> None:
    one = pd.DataFrame(
        {
            "query": ["q", "q"],
            "item": ["x", "y"],
            "a": [0.9, 0.1],
            "b": [0.1, 0.9],
            "relevant": [1, 0],
        }
    )
    table = as_pandas(make_frame(one).rank_eval(score=["a", "b"]).compare("mrr"))
    assert table["mde"].isna().all()


def test_the_docs_example(make_frame: FrameMaker) -> None:
    # docs/compare.md: the differences b - a are -1/2, 0, 1/2, 0, whose SD is sqrt(1/6)
    data = pd.DataFrame(
        {
            "query": [1, 1, 2, 2, 3, 3, 4, 4],
            "item": ["x", "y"] * 4,
            "a": [0.9, 0.1] * 4,
            "b": [0.1, 0.9, 0.9, 0.1] * 2,
            "relevant": [1, 0, 1, 0, 0, 1, 0, 1],
        }
    )
    table = as_pandas(
        make_frame(data).rank_eval(score=["a", "b"]).compare("mrr", baseline="a")
    ).set_index("system")
    effect = TTestPower().solve_power(None, nobs=4, alpha=0.05, power=0.8)
    assert effect == pytest.approx(2.128, abs=5e-4)
    assert table.loc["b", "mde"] == pytest.approx(effect * math.sqrt(1 / 6), rel=1e-5)
    assert table.loc["b", "mde"] == pytest.approx(0.868732, abs=5e-7)
    assert math.isnan(table.loc["a", "mde"])
