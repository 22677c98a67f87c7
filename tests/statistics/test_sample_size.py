"""sample_size() (issue 36): the queries a t-test needs, against statsmodels' solve_power on
the per-query values, on every frame kind; bad arguments named."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import TTestIndPower, TTestPower

from rankframe import ColumnNotFoundError, InvalidOptionError

ALTERNATIVES = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


def _data(seed: int, n_queries: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        for i in range(6):
            rows.append(
                (
                    f"q{q}",
                    f"i{i}",
                    rng.random(),
                    rng.random() + 0.1 * (i < 2),
                    int(rng.random() < 0.3),
                )
            )
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
def test_paired_is_statsmodels_ttestpower(
    make_frame: Any, alternative: str, relative: bool
) -> None:
    data = _data(1)
    delta = 0.05 if alternative != "less" else -0.05
    out = (
        make_frame(data)
        .rank_eval(score=["a", "b"])
        .sample_size("mrr", delta=delta, baseline="a", relative=relative, alternative=alternative)
    )
    a, b = _reciprocal_ranks(data, "a"), _reciprocal_ranks(data, "b")
    diff = (b - a).to_numpy()
    change = delta * abs(a.mean()) if relative else delta
    effect = change / diff.std(ddof=1)
    want = TTestPower().solve_power(
        effect, alpha=0.05, power=0.8, alternative=ALTERNATIVES[alternative]
    )
    row = out.iloc[0]
    assert (row["system"], row["metric"]) == ("b", "mrr")
    assert row["effect_size"] == pytest.approx(effect, rel=1e-12)
    assert row["n_needed"] == math.ceil(want)
    assert row["n_queries"] == len(diff)
    assert row["enough"] == (len(diff) >= math.ceil(want))


def test_without_a_baseline_is_statsmodels_ttestindpower(make_frame: Any) -> None:
    data = _data(2)
    out = (
        make_frame(data)
        .rank_eval(score=["a", "b"])
        .sample_size(["mrr"], delta=0.1, alpha=0.01, power=0.9)
    )
    assert out["system"].tolist() == ["a", "b"]
    for system, row in zip(("a", "b"), out.to_dict("records"), strict=True):
        values = _reciprocal_ranks(data, system).to_numpy()
        effect = 0.1 / values.std(ddof=1)
        want = TTestIndPower().solve_power(effect, alpha=0.01, power=0.9, ratio=1.0)
        assert row["n_needed"] == math.ceil(want)
        assert row["test"] == "two-sample t-test"


def test_a_one_sided_test_that_looks_the_other_way_needs_infinitely_many(make_frame: Any) -> None:
    out = (
        make_frame(_data(3))
        .rank_eval(score=["a", "b"])
        .sample_size("mrr", delta=0.05, baseline="a", alternative="less")
    )
    assert out["n_needed"].tolist() == [math.inf]
    assert out["enough"].tolist() == [False]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"delta": 0}, "delta=0 is no change"),
        ({"delta": float("nan")}, "delta=nan must be a finite number"),
        ({"delta": 0.1, "alpha": 1.5}, "alpha=1.5 must lie strictly between 0 and 1"),
        ({"delta": 0.1, "power": 0}, "power=0 must lie strictly between 0 and 1"),
        ({"delta": 0.1, "alternative": "larger"}, "alternative='larger' is not one of"),
        ({"delta": 0.1, "baseline": "c"}, "baseline='c' is not one of the score columns"),
    ],
)
def test_bad_arguments_are_named(make_frame: Any, kwargs: dict[str, Any], message: str) -> None:
    ev = make_frame(_data(4, n_queries=3)).rank_eval(score=["a", "b"])
    with pytest.raises(InvalidOptionError, match=message.replace("(", r"\(")):
        ev.sample_size("mrr", **kwargs)


def _pooled_sd(x: np.ndarray, y: np.ndarray) -> float:
    """The pooled standard deviation, written out: the sum of squared deviations from each
    sample's own mean, over n1 + n2 - 2."""
    squares = ((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()
    return float(math.sqrt(squares / (len(x) + len(y) - 2)))


@pytest.mark.parametrize("relative", [False, True])
def test_against_a_reference_is_statsmodels_ttestindpower(make_frame: Any, relative: bool) -> None:
    data, other = _data(5), _data(6, n_queries=30)
    out = (
        make_frame(data)
        .rank_eval(score=["a", "b"])
        .sample_size("mrr", delta=0.05, reference=make_frame(other), relative=relative, power=0.9)
    )
    assert list(out.columns) == [
        "system",
        "metric",
        "n_needed",
        "n_queries",
        "n_reference",
        "enough",
        "delta",
        "effect_size",
        "sd",
        "test",
    ]
    assert out["system"].tolist() == ["a", "b"]
    for system, row in zip(("a", "b"), out.to_dict("records"), strict=True):
        x = _reciprocal_ranks(data, system).to_numpy()
        y = _reciprocal_ranks(other, system).to_numpy()
        change = 0.05 * y.mean() if relative else 0.05
        sd = _pooled_sd(x, y)
        want = TTestIndPower().solve_power(change / sd, alpha=0.05, power=0.9, ratio=1.0)
        assert row["sd"] == pytest.approx(sd, rel=1e-12)
        assert row["delta"] == pytest.approx(change, rel=1e-12)
        assert row["n_needed"] == math.ceil(want)
        assert (row["n_queries"], row["n_reference"]) == (40, 30)
        assert row["enough"] == (math.ceil(want) <= 30)
        assert row["test"] == "two-sample t-test"


def test_against_a_reference_of_many_queries_is_enough(make_frame: Any) -> None:
    data, other = _data(7, n_queries=60), _data(8, n_queries=50)
    out = (
        make_frame(data)
        .rank_eval(score="b")
        .sample_size("mrr", delta=0.5, reference=make_frame(other))
    )
    x = _reciprocal_ranks(data, "b").to_numpy()
    y = _reciprocal_ranks(other, "b").to_numpy()
    want = TTestIndPower().solve_power(0.5 / _pooled_sd(x, y), alpha=0.05, power=0.8)
    assert out["n_needed"].tolist() == [math.ceil(want)]
    assert out["enough"].tolist() == [True]  # 50 and 60 both hold it


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (
            {"baseline": "a"},
            InvalidOptionError,
            "sample_size() takes baseline= or reference=, not both",
        ),
        ({"drop": "b"}, ColumnNotFoundError, "The reference frame has no score column 'b'"),
        (
            {"drop": "relevant"},
            ColumnNotFoundError,
            "The reference frame has no column 'relevant' (relevant)",
        ),
        ({"reference": [1, 2]}, InvalidOptionError, "reference= takes a frame rankframe reads"),
    ],
)
def test_a_bad_reference_is_named(
    make_frame: Any, change: dict[str, Any], error: type[Exception], message: str
) -> None:
    ev = make_frame(_data(9, n_queries=3)).rank_eval(score=["a", "b"])
    other = _data(10, n_queries=3)
    reference = change.get("reference", make_frame(other.drop(columns=change.get("drop", []))))
    with pytest.raises(error, match=re.escape(message)):
        ev.sample_size("mrr", delta=0.1, reference=reference, baseline=change.get("baseline"))


def _docs_frame() -> pd.DataFrame:
    """docs/compare.md's four queries: reciprocal ranks of a 1, 1, 1/2, 1/2; of b 1/2, 1, 1,
    1/2."""
    return pd.DataFrame(
        {
            "query": [1, 1, 2, 2, 3, 3, 4, 4],
            "item": ["x", "y"] * 4,
            "a": [0.9, 0.1] * 4,
            "b": [0.1, 0.9, 0.9, 0.1] * 2,
            "relevant": [1, 0, 1, 0, 0, 1, 0, 1],
        }
    )


def test_the_docs_reference_example(make_frame: Any) -> None:
    # docs/compare.md "Against another frame": each side's values 1, 1, 1/2, 1/2 deviate by
    # +-1/4 from 3/4, so the pooled SD is sqrt(8 * (1/4)**2 / (4 + 4 - 2)) = sqrt(1/12)
    data = _docs_frame()
    last_week = data.assign(query=data["query"] + 10)
    out = (
        make_frame(data)
        .rank_eval(score=["a", "b"])
        .sample_size("mrr", delta=0.1, reference=make_frame(last_week))
    )
    sd = math.sqrt(8 * 0.25**2 / 6)
    assert sd == pytest.approx(math.sqrt(1 / 12))
    want = TTestIndPower().solve_power(0.1 / sd, alpha=0.05, power=0.8, ratio=1.0)
    assert want == pytest.approx(131.8, abs=0.05)
    assert out["n_needed"].tolist() == [132.0, 132.0] == [math.ceil(want)] * 2
    assert out["sd"].tolist() == pytest.approx([sd, sd])
    assert out["n_reference"].tolist() == [4, 4]


# -- per segment (issue 45): a row per segment, each from its own queries ----------------------

#: segments of different sizes, and queries without a segment value
SIZES = {"phone": 24, "tablet": 9, "desktop": 15, None: 6}


def _segmented(seed: int) -> pd.DataFrame:
    data = _data(seed, n_queries=sum(SIZES.values()))
    devices = [d for d, n in SIZES.items() for _ in range(n)]
    data["device"] = [devices[int(q[1:])] for q in data["query"]]
    return data


@pytest.mark.parametrize("relative", [False, True])
def test_by_gives_a_row_per_segment_from_its_own_queries(make_frame: Any, relative: bool) -> None:
    data = _segmented(4)
    ev = make_frame(data).rank_eval(score=["a", "b"])
    out = ev.sample_size("mrr", delta=0.05, by="device", baseline="a", relative=relative)
    assert list(out.columns) == [
        "device",
        "system",
        "metric",
        "n_needed",
        "n_queries",
        "enough",
        "delta",
        "effect_size",
        "sd",
        "test",
    ]
    assert out["device"].tolist()[:3] == ["desktop", "phone", "tablet"]  # sorted
    assert pd.isna(out["device"].iloc[3])  # the missing value last
    a, b = _reciprocal_ranks(data, "a"), _reciprocal_ranks(data, "b")
    device = data.groupby("query")["device"].first()
    for row in out.to_dict("records"):
        inside = device.isna() if pd.isna(row["device"]) else device == row["device"]
        diff = (b - a)[inside].to_numpy()
        change = 0.05 * abs(a[inside].mean()) if relative else 0.05
        effect = change / diff.std(ddof=1)
        want = math.ceil(TTestPower().solve_power(effect, alpha=0.05, power=0.8))
        assert row["n_queries"] == SIZES[None if pd.isna(row["device"]) else row["device"]]
        assert row["effect_size"] == pytest.approx(effect, rel=1e-12)
        assert row["n_needed"] == want
        assert row["enough"] == (row["n_queries"] >= want)


def test_by_equals_the_one_segment_call_on_each_segment(make_frame: Any) -> None:
    data = _segmented(5)
    out = (
        make_frame(data)
        .rank_eval(score=["a", "b"])
        .sample_size(["mrr", "ndcg@5"], delta=0.04, by="device")
    )
    for device in ["phone", "tablet", "desktop"]:
        alone = (
            make_frame(data[data["device"] == device])
            .rank_eval(score=["a", "b"])
            .sample_size(["mrr", "ndcg@5"], delta=0.04)
        )
        mine = out[out["device"] == device].drop(columns="device").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone)


def test_by_with_a_reference_matches_each_segment(make_frame: Any) -> None:
    data, other = _segmented(6), _segmented(7)
    out = (
        make_frame(data)
        .rank_eval(score="b")
        .sample_size("mrr", delta=0.05, by="device", reference=make_frame(other))
    )
    for device in ["phone", "tablet"]:
        alone = (
            make_frame(data[data["device"] == device])
            .rank_eval(score="b")
            .sample_size("mrr", delta=0.05, reference=make_frame(other[other["device"] == device]))
        )
        mine = out[out["device"] == device].drop(columns="device").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone)
    assert out["n_reference"].tolist()[:3] == [SIZES["desktop"], SIZES["phone"], SIZES["tablet"]]


def test_by_names_a_missing_column(make_frame: Any) -> None:
    ev = make_frame(_segmented(8)).rank_eval(score=["a", "b"])
    with pytest.raises(ColumnNotFoundError, match="devise"):
        ev.sample_size("mrr", delta=0.05, by="devise", baseline="a")
