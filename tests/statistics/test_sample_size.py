"""sample_size() (issue 36): the queries a t-test needs, against statsmodels' solve_power on
the per-query values, on every frame kind; bad arguments named."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import TTestIndPower, TTestPower

from rankframe import InvalidOptionError

ALTERNATIVES = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


def _data(seed: int, n_queries: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        for i in range(6):
            rows.append((f"q{q}", f"i{i}", rng.random(), rng.random() + 0.1 * (i < 2),
                         int(rng.random() < 0.3)))
    return pd.DataFrame(rows, columns=["query", "item", "a", "b", "relevant"])


def _reciprocal_ranks(data: pd.DataFrame, score: str) -> pd.Series:
    """Each query's reciprocal rank, by hand: the first relevant row by descending score
    (no ties in these scores); 0 without a relevant item."""
    def rr(rows: pd.DataFrame) -> float:
        ranked = rows.sort_values(score, ascending=False)["relevant"].to_numpy()
        hits = np.flatnonzero(ranked > 0)
        return 1.0 / (hits[0] + 1) if len(hits) else 0.0
    return data.groupby("query").apply(rr, include_groups=False)


@pytest.mark.parametrize("alternative", list(ALTERNATIVES))
@pytest.mark.parametrize("relative", [False, True])
def test_paired_is_statsmodels_ttestpower(make_frame: Any, alternative: str,
                                          relative: bool) -> None:
    data = _data(1)
    delta = 0.05 if alternative != "less" else -0.05
    out = make_frame(data).rank_eval(score=["a", "b"]).sample_size(
        "mrr", delta=delta, baseline="a", relative=relative, alternative=alternative)
    a, b = _reciprocal_ranks(data, "a"), _reciprocal_ranks(data, "b")
    diff = (b - a).to_numpy()
    change = delta * abs(a.mean()) if relative else delta
    effect = change / diff.std(ddof=1)
    want = TTestPower().solve_power(effect, alpha=0.05, power=0.8,
                                    alternative=ALTERNATIVES[alternative])
    row = out.iloc[0]
    assert (row["system"], row["metric"]) == ("b", "mrr")
    assert row["effect_size"] == pytest.approx(effect, rel=1e-12)
    assert row["n_needed"] == math.ceil(want)
    assert row["n_queries"] == len(diff)
    assert row["enough"] == (len(diff) >= math.ceil(want))


def test_without_a_baseline_is_statsmodels_ttestindpower(make_frame: Any) -> None:
    data = _data(2)
    out = make_frame(data).rank_eval(score=["a", "b"]).sample_size(
        ["mrr"], delta=0.1, alpha=0.01, power=0.9)
    assert out["system"].tolist() == ["a", "b"]
    for system, row in zip(("a", "b"), out.to_dict("records"), strict=True):
        values = _reciprocal_ranks(data, system).to_numpy()
        effect = 0.1 / values.std(ddof=1)
        want = TTestIndPower().solve_power(effect, alpha=0.01, power=0.9, ratio=1.0)
        assert row["n_needed"] == math.ceil(want)
        assert row["test"] == "two-sample t-test"


def test_a_one_sided_test_that_looks_the_other_way_needs_infinitely_many(
        make_frame: Any) -> None:
    out = make_frame(_data(3)).rank_eval(score=["a", "b"]).sample_size(
        "mrr", delta=0.05, baseline="a", alternative="less")
    assert out["n_needed"].tolist() == [math.inf]
    assert out["enough"].tolist() == [False]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"delta": 0}, "delta=0 is no change"),
    ({"delta": float("nan")}, "delta=nan must be a finite number"),
    ({"delta": 0.1, "alpha": 1.5}, "alpha=1.5 must lie strictly between 0 and 1"),
    ({"delta": 0.1, "power": 0}, "power=0 must lie strictly between 0 and 1"),
    ({"delta": 0.1, "alternative": "larger"}, "alternative='larger' is not one of"),
    ({"delta": 0.1, "baseline": "c"}, "baseline='c' is not one of the score columns"),
])
def test_bad_arguments_are_named(make_frame: Any, kwargs: dict[str, Any], message: str) -> None:
    ev = make_frame(_data(4, n_queries=3)).rank_eval(score=["a", "b"])
    with pytest.raises(InvalidOptionError, match=message.replace("(", r"\(")):
        ev.sample_size("mrr", **kwargs)
