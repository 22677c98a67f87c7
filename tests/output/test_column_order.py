"""Tables people can read (issue 35): in ``compare``, ``check`` and ``evaluate(tidy=True)``
the keys and the answer come first (``system``, ``metric``, ``k``, the value, ``delta``,
``delta_relative``, the interval, ``p_value``, ``significant``, ``status``), the
bookkeeping after; every frame kind gives the same order, declared (a LazyFrame's schema
before it is collected) and collected. ``delta`` is absolute and ``delta_relative``
relative in both ``compare`` and ``check``, for the same pair of systems.

The values of ``delta_relative`` over the whole registry are tested against scipy in
``tests/statistics/test_statistics_scope.py``; the units of each rule in
``tests/statistics/test_gates.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from conftest import FrameMaker
from gates_data import RANKS, N, frame_data
from helpers import as_pandas

#: the answer of a comparison, in its order
COMPARE_ANSWER = ["system", "metric", "k", "mean", "delta", "delta_relative", "ci_low",
                  "ci_high", "mde", "p_value", "significant"]
COMPARE = [*COMPARE_ANSWER, "p_adjusted", "statistic", "paired", "wins", "ties", "losses",
           "n_queries"]
#: against a reference frame or the previous window: the reference's statistic and queries
COMPARE_REFERENCE = [*COMPARE_ANSWER, "p_adjusted", "statistic", "reference_mean", "paired",
                     "wins", "ties", "losses", "n_queries", "n_reference"]
CHECK = ["rule", "system", "metric", "k", "value", "delta", "delta_relative", "ci_low",
         "ci_high", "ci_low_relative", "ci_high_relative", "bound", "bound_relative",
         "p_value", "status", "p_adjusted", "paired", "n_queries", "queries_to_decide"]


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
    data["served_at"] = [pd.Timestamp("2024-03-06", tz="UTC")
                         + pd.Timedelta(weeks=int(q[1:]) % 2) for q in data["query"]]
    return make_frame(data).rank_eval(score=["base", "bad"], time="served_at")


def test_tidy_evaluate_value_then_interval_then_count(make_frame: FrameMaker) -> None:
    ev = make_frame(frame_data()).rank_eval(score=["base", "bad"])
    plain = ev.evaluate(["mrr", "acc@1"], tidy=True)
    assert _columns(plain) == ["system", "metric", "k", "value", "n_queries"]
    within = ev.evaluate(["mrr"], tidy=True, by="theme", confidence_level=0.9, n_resamples=50)
    assert _columns(within) == ["theme", "system", "metric", "k", "value", "ci_low",
                                "ci_high", "n_queries"]


def test_compare_answer_first(make_frame: FrameMaker) -> None:
    ev = make_frame(frame_data()).rank_eval(score=["base", "bad"])
    assert _columns(ev.compare(["mrr", "acc@1"])) == COMPARE
    assert _columns(ev.compare("mrr", by="theme")) == ["theme", *COMPARE]


def test_compare_against_a_reference_and_the_previous_window(make_frame: FrameMaker) -> None:
    frame = make_frame(frame_data())
    ev = frame.rank_eval(score=["base", "bad"])
    assert _columns(ev.compare("mrr", reference=make_frame(frame_data()))) == COMPARE_REFERENCE
    weekly = _weekly(make_frame).compare("mrr", every="1w")
    assert _columns(weekly) == ["window", *COMPARE_REFERENCE, "reference_window"]


def test_check_answer_first(make_frame: FrameMaker) -> None:
    ev = make_frame(frame_data()).rank_eval(score=["base", "bad"])
    rules = ["mrr >= 0.5", "mrr drop <= 0.05", "mrr drop <= 5%"]
    assert _columns(ev.check(rules, min_queries=5)) == CHECK
    assert _columns(ev.check(rules, by="theme", min_queries=5)) == [
        "rule", "theme", *CHECK[1:]]
    weekly = _weekly(make_frame).check(["mrr drop <= 5%"], every="1w", by="theme",
                                       min_queries=1)
    assert _columns(weekly) == ["rule", "window", "theme", *CHECK[1:]]


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
