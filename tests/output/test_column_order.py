"""Tables people can read (issues 35 and 45): in ``compare``, ``check`` and
``evaluate(tidy=True)`` the keys and the answer come first, the bookkeeping after, and the
columns are the same whatever the rules or metrics; every frame kind gives the same order,
declared (a LazyFrame's schema before it is collected) and collected. ``delta`` is absolute
and ``delta_relative`` relative in both ``compare`` and ``check``, for the same pair of
systems.

Rows read in blocks: ``compare`` per system (in the order of the score columns), per metric,
then the segments (and windows) in their order, the baseline's own rows left out with
``baseline_rows=False``; ``check`` per rule, per system, then the segments.

The values of ``delta_relative`` over the whole registry are tested against scipy in
``tests/statistics/test_statistics_scope.py``; the units of each rule in
``tests/statistics/test_gates.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from gates_data import RANKS, N, frame_data
from helpers import FrameMaker, as_pandas
from rankframe import METRICS

#: the keys and the answer of a comparison, in their order
COMPARE_ANSWER = [
    "system",
    "metric",
    "k",
    "mean",
    "delta",
    "delta_relative",
    "ci_low",
    "ci_high",
    "p_adjusted",
    "significant",
]
COMPARE = [
    *COMPARE_ANSWER,
    "p_value",
    "mde",
    "statistic",
    "paired",
    "wins",
    "ties",
    "losses",
    "n_queries",
]
#: against a reference frame or the previous window: the reference's statistic and queries
COMPARE_REFERENCE = [
    *COMPARE_ANSWER,
    "p_value",
    "mde",
    "statistic",
    "reference_mean",
    "paired",
    "wins",
    "ties",
    "losses",
    "n_queries",
    "n_reference",
]
#: check()'s columns after ``rule`` and the keys (``window``, ``by``, ``system``)
CHECK_COLUMNS = [
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
CHECK = ["rule", "system", *CHECK_COLUMNS]

#: every kind of rule: absolute (each operator), drop (absolute and relative, <= and <)
RULE_KINDS = {
    ">=": ["mrr >= 0.5"],
    ">": ["acc@1 > 0.2"],
    "<=": ["mrr <= 0.99"],
    "<": ["acc@1 < 0.9"],
    "drop": ["mrr drop <= 0.05"],
    "drop <": ["mrr drop < 0.05"],
    "drop %": ["mrr drop <= 5%"],
    "drop < %": ["acc@1 drop < 5%"],
    "all": ["mrr >= 0.5", "acc@1 < 0.9", "mrr drop <= 0.05", "acc@1 drop <= 5%"],
}


def rr(system: str) -> np.ndarray:
    """A system's reciprocal ranks: the relevant item is at ``RANKS[system]``."""
    return 1.0 / np.array(RANKS[system], dtype=float)


def _declared(result: Any) -> list[str]:
    """The columns a result declares before it runs (a LazyFrame's schema, a Dask frame's
    meta), else its columns."""
    if hasattr(result, "collect_schema"):
        return list(result.collect_schema().names())
    if isinstance(result, pd.Series):
        return list(result.reset_index().columns)
    return [str(c) for c in result.columns]


def _columns(result: Any) -> list[str]:
    declared = _declared(result)
    assert list(as_pandas(result).columns) == declared  # collected as declared
    return declared


def _weekly(make_frame: FrameMaker) -> Any:
    data = frame_data()
    data["served_at"] = [
        pd.Timestamp("2024-03-06", tz="UTC") + pd.Timedelta(weeks=int(q[1:]) % 2)
        for q in data["query"]
    ]
    return make_frame(data).rank_eval(score=["base", "bad"], time="served_at")


def test_tidy_evaluate_value_then_interval_then_count(make_frame: FrameMaker) -> None:
    ev = make_frame(frame_data()).rank_eval(score=["base", "bad"])
    plain = ev.evaluate(["mrr", "acc@1"], tidy=True)
    assert _columns(plain) == ["system", "metric", "k", "value", "n_queries"]
    within = ev.evaluate(["mrr"], tidy=True, by="theme", confidence_level=0.9, n_resamples=50)
    assert _columns(within) == [
        "theme",
        "system",
        "metric",
        "k",
        "value",
        "ci_low",
        "ci_high",
        "n_queries",
    ]


def test_compare_answer_first(make_frame: FrameMaker) -> None:
    ev = make_frame(frame_data()).rank_eval(score=["base", "bad"])
    assert _columns(ev.compare(["mrr", "acc@1"])) == COMPARE
    assert _columns(ev.compare("mrr", by="theme")) == ["theme", *COMPARE]
    # without the baseline's rows: the same columns
    assert _columns(ev.compare("mrr", by="theme", baseline_rows=False)) == ["theme", *COMPARE]


def test_compare_against_a_reference_and_the_previous_window(make_frame: FrameMaker) -> None:
    frame = make_frame(frame_data())
    ev = frame.rank_eval(score=["base", "bad"])
    assert _columns(ev.compare("mrr", reference=make_frame(frame_data()))) == COMPARE_REFERENCE
    weekly = _weekly(make_frame).compare("mrr", every="1w")
    assert _columns(weekly) == ["window", *COMPARE_REFERENCE, "reference_window"]


def test_check_the_same_columns_whatever_the_rules(make_frame: FrameMaker) -> None:
    ev = make_frame(frame_data()).rank_eval(score=["base", "bad"])
    for kind, rules in RULE_KINDS.items():
        assert _columns(ev.check(rules, min_queries=5)) == CHECK, kind
        assert _columns(ev.check(rules, min_queries=5, mode="point")) == CHECK, kind
    assert _columns(ev.check(RULE_KINDS["all"], by="theme", min_queries=5)) == [
        "rule",
        "theme",
        *CHECK[1:],
    ]
    weekly = _weekly(make_frame).check(["mrr drop <= 5%"], every="1w", by="theme", min_queries=1)
    assert _columns(weekly) == ["rule", "window", "theme", *CHECK[1:]]


# -- the whole registry ------------------------------------------------------------------------

ITEMS = [f"i{n}" for n in range(8)]
#: what the metrics of the items read: popularity, features, one group of items
INPUTS = {
    "popularity": {item: float(2 * n + 1) for n, item in enumerate(ITEMS)},
    "item_features": pd.DataFrame(
        np.eye(len(ITEMS))[:, :3], index=ITEMS, columns=["f0", "f1", "f2"]
    ),
    "item_groups": dict.fromkeys(ITEMS, "g"),
}


def _spec(name: str) -> str:
    definition = METRICS[name]
    if not definition.takes_k:
        return name
    return f"{name}@{3 if definition.param.integer else definition.param.example}"


#: the metrics with per-query values, which compare() and drop rules take; top1_f1 needs
#: exactly one relevant item per query (tests/metrics/test_beyond.py)
PER_QUERY = [_spec(n) for n, d in METRICS.items() if d.aggregate != "set" and n != "top1_f1"]
EVERY = [_spec(n) for n in METRICS if n != "top1_f1"]


def _registry_frame() -> pd.DataFrame:
    """Two systems over 12 queries of 4-6 items with graded relevance, a segment."""
    rng = np.random.default_rng(45)
    rows = []
    for q in range(12):
        for item in rng.choice(ITEMS, size=int(rng.integers(4, 7)), replace=False):
            rows.append(
                {
                    "query": f"q{q:02d}",
                    "item": str(item),
                    "a": float(rng.random()),
                    "b": float(rng.random()),
                    "relevant": int(rng.choice([0, 0, 1, 2])),
                    "segment": f"s{q % 2}",
                }
            )
    return pd.DataFrame(rows)


def _with_group(expected: list[str], got: list[str]) -> list[str]:
    """``expected`` with the ``group`` column after ``k`` where a metric of the table has a
    value per group (its label names the group)."""
    if "group" not in got:
        return expected
    at = expected.index("k") + 1
    return [*expected[:at], "group", *expected[at:]]


def test_every_metric_gives_the_same_columns(make_frame: FrameMaker) -> None:
    ev = make_frame(_registry_frame()).rank_eval(score=["a", "b"])
    compared = _columns(ev.compare(PER_QUERY, by="segment", **INPUTS))
    assert compared == _with_group(["segment", *COMPARE], compared)
    # an absolute rule on every metric, a drop rule on every metric with per-query values
    rules = [
        *(f"{m} >= 0" for m in EVERY),
        *(f"{m} drop <= 5%" for m in PER_QUERY[::2]),
        *(f"{m} drop <= 0.01" for m in PER_QUERY[1::2]),
    ]
    checked = _columns(ev.check(rules, mode="point", min_queries=1, **INPUTS))
    assert checked == CHECK


# -- rows that read in blocks --------------------------------------------------------------

#: Simpson-like segments: new beats old overall and in three segments, but loses in
#: tablet & free; (device, plan) → (queries, old's rank of the relevant item, new's)
SEGMENTS = {
    ("phone", "free"): (6, 2, 1),
    ("phone", "paid"): (5, 3, 2),
    ("tablet", "free"): (6, 1, 3),
    ("tablet", "paid"): (4, 2, 1),
}


def _scores(rank: int) -> dict[str, float]:
    """Scores of items x, y, z that put x at ``rank`` (y before z)."""
    order = ["y", "z"]
    order.insert(rank - 1, "x")
    return {item: float(3 - order.index(item)) for item in order}


def _simpson() -> pd.DataFrame:
    """Three items per query, ``x`` the relevant one, placed at each system's rank; the
    first query of each segment puts it one rank lower for new, so the differences vary."""
    rows = []
    for (device, plan), (n, old, new) in SEGMENTS.items():
        for q in range(n):
            ranks = {"old": old, "new": min(new + 1, 3) if q == 0 else new}
            scores = {system: _scores(rank) for system, rank in ranks.items()}
            for item in ["x", "y", "z"]:
                rows.append(
                    {
                        "query": f"{device}-{plan}-{q}",
                        "item": item,
                        "device": device,
                        "plan": plan,
                        "relevant": int(item == "x"),
                        **{system: scores[system][item] for system in ranks},
                    }
                )
    return pd.DataFrame(rows)


def _reciprocal_ranks(frame: pd.DataFrame, system: str) -> pd.Series:
    """Per query, 1 / the rank of ``x`` under ``system``: by hand, with pandas."""
    ranks = frame.groupby("query")[system].rank(ascending=False, method="first")
    return (1.0 / ranks[frame["item"] == "x"]).set_axis(frame.loc[frame["item"] == "x", "query"])


def test_compare_rows_per_system_then_metric_then_segment(make_frame: FrameMaker) -> None:
    data = _simpson()
    ev = make_frame(data).rank_eval(score=["old", "new"])
    by = ["device", "plan"]
    segments = list(
        dict.fromkeys(  # evaluate()'s order of the segments
            tuple(r) for r in as_pandas(ev.evaluate("mrr", by=by))[by].itertuples(index=False)
        )
    )
    assert sorted(segments) == sorted(SEGMENTS)
    table = as_pandas(ev.compare(["mrr", "acc@1"], by=by))
    assert len(table) == 2 * 2 * len(SEGMENTS)
    blocks = [(s, m) for s in ["old", "new"] for m in ["mrr", "acc@1"]]
    for i, (system, metric) in enumerate(blocks):
        block = table.iloc[4 * i : 4 * i + 4]
        assert block["system"].tolist() == [system] * 4
        assert (
            block["metric"].astype(str).str.replace("@1", "").tolist()
            == [metric.replace("@1", "")] * 4
        )
        assert [tuple(r) for r in block[by].itertuples(index=False)] == segments
    # without the baseline's rows: new's blocks alone, the same rows
    changes = as_pandas(ev.compare(["mrr", "acc@1"], by=by, baseline_rows=False))
    pd.testing.assert_frame_equal(
        changes, table.iloc[8:].reset_index(drop=True), check_dtype=False
    )  # wins: nulls in the full table
    # new's change in each segment, by hand; the reversal sits in tablet & free
    old, new = _reciprocal_ranks(data, "old"), _reciprocal_ranks(data, "new")
    segment = data[data["item"] == "x"].set_index("query")[by]
    by_hand = (new - old).groupby([segment["device"], segment["plan"]]).mean()
    mrr = changes[changes["metric"] == "mrr"]
    for row in mrr.to_dict("records"):
        assert row["delta"] == pytest.approx(by_hand[(row["device"], row["plan"])])
    assert mrr.set_index(by)["delta"].lt(0).to_dict() == {
        s: s == ("tablet", "free") for s in SEGMENTS
    }
    overall = as_pandas(ev.compare("mrr", baseline_rows=False))
    assert overall["delta"].iloc[0] == pytest.approx((new - old).mean())
    assert overall["delta"].iloc[0] > 0  # better overall


def test_compare_baseline_rows_false_keeps_every_other_system(make_frame: FrameMaker) -> None:
    ev = make_frame(frame_data()).rank_eval(score=["bad", "base", "better"])
    table = as_pandas(ev.compare("mrr", baseline="base", by="theme", baseline_rows=False))
    # bad's segments, then better's: the baseline's rows alone are left out
    assert table["system"].tolist() == ["bad", "bad", "better", "better"]
    full = as_pandas(ev.compare("mrr", baseline="base", by="theme"))
    assert full["system"].tolist() == ["bad", "bad", "base", "base", "better", "better"]
    kept = full[full["system"] != "base"].reset_index(drop=True)
    # (wins, ties, losses: integers with nulls in the full table, a float in pandas)
    pd.testing.assert_frame_equal(table, kept, check_dtype=False)
    # a reference frame has no baseline rows to leave out
    reference = ev.compare("mrr", reference=make_frame(frame_data()), baseline_rows=False)
    assert as_pandas(reference)["system"].tolist() == ["bad", "base", "better"]


def test_check_rows_per_rule_then_system_then_segment(make_frame: FrameMaker) -> None:
    ev = make_frame(_simpson()).rank_eval(score=["old", "new"])
    by = ["device", "plan"]
    table = as_pandas(ev.check(["mrr >= 0.5", "mrr drop <= 0.01"], by=by, min_queries=1))
    segments = list(
        dict.fromkeys(  # evaluate()'s order of the segments
            tuple(r) for r in as_pandas(ev.evaluate("mrr", by=by))[by].itertuples(index=False)
        )
    )
    assert table["rule"].tolist() == ["mrr >= 0.5"] * 8 + ["mrr drop <= 0.01"] * 4
    assert table["system"].tolist() == ["old"] * 4 + ["new"] * 8
    for start in (0, 4, 8):
        rows = table.iloc[start : start + 4]
        assert [tuple(r) for r in rows[by].itertuples(index=False)] == segments
    # the drop rule fails in tablet & free alone (new's drop there is beyond 0.01)
    drops = table[table["rule"] == "mrr drop <= 0.01"].set_index(by)
    assert drops.loc[("tablet", "free"), "delta"] < -0.01
    assert (drops.drop(index=[("tablet", "free")])["delta"] > 0).all()


def test_delta_is_absolute_and_delta_relative_relative_everywhere(
    make_frame: FrameMaker,
) -> None:
    # the same pair of systems: bad's mean RR (0.5 x18, 1/3 x6) against base's (0.875)
    ev = make_frame(frame_data()).rank_eval(score=["base", "bad"])
    base, bad = rr("base").mean(), rr("bad").mean()
    assert (base, bad) == (pytest.approx(0.875), pytest.approx((9 + 2) / N))
    compared = as_pandas(ev.compare("mrr")).set_index("system").loc["bad"]
    checked = as_pandas(ev.check(["mrr drop <= 0.05", "mrr drop <= 5%"], min_queries=5))
    for row in [compared, *checked.to_dict("records")]:
        assert row["delta"] == pytest.approx(bad - base)
        assert row["delta_relative"] == pytest.approx(bad / base - 1)
    absolute, relative = checked.to_dict("records")
    # each rule's bound and interval in its own unit, named by it
    assert (absolute["bound"], relative["bound_relative"]) == (-0.05, -0.05)
    assert absolute["ci_low"] == pytest.approx(compared["ci_low"])
    assert relative["ci_low_relative"] == pytest.approx(compared["ci_low"] / base)
    assert relative["ci_high_relative"] == pytest.approx(compared["ci_high"] / base)
