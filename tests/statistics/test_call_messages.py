"""Errors that name the real call, and words people read (issue 45), on every frame kind:

- an unknown keyword names the method called (every public method, every metric method of
  the registry), with the keyword meant;
- a misspelt correction suggests the choice meant (another case, a common name such as
  ``"BH"``), a misspelt ``drop`` in a rule suggests ``drop``;
- every boolean parameter refuses what is not a bool (``"yes"``, ``1``, ``None``), naming
  the parameter, and takes NumPy's bools;
- a missing segment value reads ``(missing)`` in slices() and gaps().
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from gates_data import N, frame_data
from helpers import FrameMaker, as_pandas
from rankframe import METRICS, InvalidOptionError, InvalidRuleError, UnknownArgumentError


def _data() -> dict[str, list[Any]]:
    """The gates' frame with a ``device`` of each query, missing for every fourth query
    (those where ``base`` ranks the relevant item second)."""
    data = frame_data()
    data["device"] = [
        None if int(q[1:]) % 4 == 3 else ("ios" if int(q[1:]) % 2 else "web") for q in data["query"]
    ]
    return data


Call = Callable[[Any], Any]

#: (method, a call with a misspelt keyword, the keyword meant)
TYPOS: list[tuple[str, Call, str]] = [
    ("evaluate", lambda ev: ev.evaluate("mrr", tidyy=True), "tidy"),
    ("per_query", lambda ev: ev.per_query("mrr", byy="theme"), "by"),
    ("compare", lambda ev: ev.compare("mrr", baseline_row=False), "baseline_rows"),
    ("check", lambda ev: ev.check("mrr >= 0.5", min_querys=3), "min_queries"),
    ("slices", lambda ev: ev.slices("mrr", "theme", max_dept=1), "max_depth"),
    ("gaps", lambda ev: ev.gaps("mrr", "theme", n_permutation=10), "n_permutations"),
    ("sample_size", lambda ev: ev.sample_size("mrr", delta=0.1, alpah=0.05), "alpha"),
    ("report", lambda ev: ev.report("mrr", worts=3), "worst"),
    ("rank", lambda ev: ev.rank(tie="first"), "ties"),
    ("mrr", lambda ev: ev.mrr(5, byy="theme"), "by"),
    ("ndcg", lambda ev: ev.ndcg(10, gian="linear"), "gain"),
    ("rank_eval", lambda ev: ev(scores=["base"]), "score"),
]


@pytest.mark.parametrize(("method", "call", "meant"), TYPOS, ids=[t[0] for t in TYPOS])
def test_a_misspelt_keyword_names_the_method_called(
    make_frame: FrameMaker, method: str, call: Call, meant: str
) -> None:
    ev = make_frame(_data()).rank_eval(score=["base", "bad"])
    with pytest.raises(UnknownArgumentError) as caught:
        call(ev)
    message = str(caught.value)
    assert message.startswith(f"{method}() got an unexpected keyword argument"), message
    assert f"Did you mean {meant!r}?" in message
    make_frame.check_unchanged()


def test_sample_size_names_itself_not_per_query(make_frame: FrameMaker) -> None:
    ev = make_frame(_data()).rank_eval(score=["base", "bad"])
    with pytest.raises(UnknownArgumentError) as caught:
        ev.sample_size("mrr", delta=0.1, bogus=1)
    message = str(caught.value)
    assert message.startswith("sample_size() got an unexpected keyword argument 'bogus'.")
    assert "per_query" not in message
    assert "It takes: metrics, delta, by, baseline" in message


def test_every_metric_method_names_itself(make_frame: FrameMaker) -> None:
    ev = make_frame(_data()).rank_eval()
    for name in METRICS:
        with pytest.raises(
            UnknownArgumentError,
            match=rf"^{name}\(\) got an unexpected "
            "keyword argument 'byy'",
        ):
            getattr(ev, name)(byy="theme")


# -- choices and rule words -------------------------------------------------------------------

CORRECTIONS = {
    "BH": "fdr_bh",
    "bh": "fdr_bh",
    "benjamini-hochberg": "fdr_bh",
    "Benjamini Hochberg": "fdr_bh",
    "Bonferroni": "bonferroni",
    "HOLM": "holm",
    "hlm": "holm",
}
#: each method that takes correction=
CORRECTED: dict[str, Callable[[Any, str], Any]] = {
    "compare": lambda ev, c: ev.compare("mrr", correction=c),
    "check": lambda ev, c: ev.check("mrr drop <= 1%", correction=c),
    "slices": lambda ev, c: ev.slices("mrr", "theme", correction=c),
    "gaps": lambda ev, c: ev.gaps("mrr", "theme", correction=c),
}


@pytest.mark.parametrize("method", list(CORRECTED))
def test_a_correction_by_another_name_suggests_its_name(
    make_frame: FrameMaker, method: str
) -> None:
    ev = make_frame(_data()).rank_eval(score=["base", "bad"])
    for given, meant in CORRECTIONS.items():
        with pytest.raises(InvalidOptionError) as caught:
            CORRECTED[method](ev, given)
        message = str(caught.value)
        assert f"Got {given!r} instead. Did you mean {meant!r}?" in message, message
        assert "'holm', 'bonferroni', 'fdr_bh', 'none'" in message


def test_a_misspelt_drop_suggests_drop(make_frame: FrameMaker) -> None:
    ev = make_frame(_data()).rank_eval(score=["base", "bad"])
    for rule, fixed in [
        ("ndcg@10 drops <= 1%", "ndcg@10 drop <= 1%"),
        ("mrr dorp < 0.01", "mrr drop < 0.01"),
        ("P_10 decrease <= 2%", "precision@10 drop <= 2%"),
    ]:
        with pytest.raises(InvalidRuleError) as caught:
            ev.check(rule)
        message = str(caught.value)
        word = rule.split()[1]
        assert message.startswith(
            f"Rule {rule!r}: {word!r} is not a word of rules. Did you mean 'drop': {fixed!r}?"
        ), message
        assert "cut-off" not in message
    # a misspelt metric comes first
    with pytest.raises(InvalidRuleError, match=r"unknown metric 'nddcg@10'\. Did you mean 'ndcg'"):
        ev.check("nddcg@10 drops <= 1%")
    # the rule as fixed runs
    assert len(as_pandas(ev.check("ndcg@10 drop <= 1%", min_queries=1))) == 1


# -- booleans ---------------------------------------------------------------------------------

#: every boolean parameter of the accessor's methods: (name, method, call with a value)
FLAGS: list[tuple[str, str, Call]] = [
    ("tidy", "evaluate", lambda v: lambda ev: ev.evaluate("mrr", tidy=v)),
    ("baseline_rows", "compare", lambda v: lambda ev: ev.compare("mrr", baseline_rows=v)),
    (
        "relative",
        "sample_size",
        lambda v: lambda ev: ev.sample_size("mrr", delta=0.1, baseline="base", relative=v),
    ),
    ("curves", "report", lambda v: lambda ev: ev.report("mrr", curves=v)),
    ("fingerprint", "report", lambda v: lambda ev: ev.report("mrr", fingerprint=v)),
    ("judged_only", "evaluate", lambda v: lambda ev: ev.evaluate("mrr", judged_only=v)),
]
NOT_BOOLS = ["yes", "False", 1, 0, None, 1.0]


@pytest.mark.parametrize(("name", "method", "call"), FLAGS, ids=[f[0] for f in FLAGS])
def test_a_boolean_parameter_refuses_what_is_not_a_bool(
    make_frame: FrameMaker, name: str, method: str, call: Call
) -> None:
    ev = make_frame(_data()).rank_eval(score=["base", "bad"])
    for value in NOT_BOOLS:
        with pytest.raises(InvalidOptionError) as caught:
            call(value)(ev)
        message = str(caught.value)
        assert f"The {name!r} " in message, message
        assert f"must be True or False. Got {value!r} instead" in message
        if name != "judged_only":  # a metric option: its own message, of every method
            assert f"of {method}()" in message
    make_frame.check_unchanged()


def test_numpy_bools_are_bools(make_frame: FrameMaker) -> None:
    ev = make_frame(_data()).rank_eval(score=["base", "bad"])
    pd.testing.assert_frame_equal(
        as_pandas(ev.evaluate("mrr", tidy=np.True_)), as_pandas(ev.evaluate("mrr", tidy=True))
    )
    pd.testing.assert_frame_equal(
        as_pandas(ev.compare("mrr", baseline_rows=np.False_)),
        as_pandas(ev.compare("mrr", baseline_rows=False)),
    )
    pd.testing.assert_frame_equal(
        ev.sample_size("mrr", delta=0.1, baseline="base", relative=np.True_),
        ev.sample_size("mrr", delta=0.1, baseline="base", relative=True),
    )
    assert as_pandas(ev.evaluate("mrr", judged_only=np.False_)).equals(
        as_pandas(ev.evaluate("mrr"))
    )


# -- the baseline: one check, one message per concept ------------------------------------------

#: Every method that takes ``baseline=``, called with it
BASELINES: list[tuple[str, Callable[[str], Call]]] = [
    ("compare", lambda b: lambda ev: ev.compare("mrr", baseline=b)),
    ("check", lambda b: lambda ev: ev.check("mrr drop <= 0.01", baseline=b)),
    ("slices", lambda b: lambda ev: ev.slices("mrr", "theme", baseline=b)),
    ("gaps", lambda b: lambda ev: ev.gaps("mrr", "theme", baseline=b)),
    ("sample_size", lambda b: lambda ev: ev.sample_size("mrr", delta=0.1, baseline=b)),
    ("report", lambda b: lambda ev: ev.report("mrr", baseline=b)),
]
#: The methods whose baseline makes a paired call of two score columns or more
PAIRED = ["slices", "gaps", "sample_size"]


@pytest.mark.parametrize(("method", "call"), BASELINES, ids=[b[0] for b in BASELINES])
def test_a_baseline_that_is_no_score_column_reads_alike(
    make_frame: FrameMaker, method: str, call: Callable[[str], Call]
) -> None:
    """Every method says the same words of a baseline that is not a score column (the one
    check of ``settings.params``)."""
    ev = make_frame(_data()).rank_eval(score=["base", "bad"])
    with pytest.raises(InvalidOptionError) as caught:
        call("bsae")(ev)
    expected = "baseline='bsae' is not one of the score columns ['base', 'bad']; pass one of them."
    assert str(caught.value) == expected, method
    make_frame.check_unchanged()


@pytest.mark.parametrize("method", PAIRED)
def test_a_paired_baseline_needs_two_score_columns(make_frame: FrameMaker, method: str) -> None:
    """slices(), gaps() and sample_size() with a baseline compare the other score columns
    with it: one score column is an error, in one wording."""
    call = dict(BASELINES)[method]
    ev = make_frame(_data()).rank_eval(score="base")
    with pytest.raises(InvalidOptionError) as caught:
        call("base")(ev)
    expected = "baseline= needs two score columns or more: rank_eval(score=['model_a', 'model_b'])."
    assert str(caught.value) == expected
    make_frame.check_unchanged()


# -- a missing segment value ------------------------------------------------------------------


def test_a_missing_slice_value_reads_missing(make_frame: FrameMaker) -> None:
    ev = make_frame(_data()).rank_eval(score="base")
    table = as_pandas(ev.slices("mrr", "device", min_queries=1))
    assert sorted(table["slice"]) == ["device=(missing)", "device=ios", "device=web"]
    assert sorted(table["device"]) == ["(missing)", "ios", "web"]
    # the queries without a device are base's second-ranked ones: RR 1/2, the worst slice
    worst = table.iloc[0]
    assert (worst["slice"], worst["n_queries"], worst["mean"]) == ("device=(missing)", N // 4, 0.5)
    assert not table["slice"].str.contains("null").any()


def test_a_missing_group_reads_missing(make_frame: FrameMaker) -> None:
    ev = make_frame(_data()).rank_eval(score="base")
    row = as_pandas(ev.gaps("mrr", "device", n_permutations=50)).iloc[0]
    assert (row["worst_group"], row["worst_mean"]) == ("(missing)", 0.5)
    two = as_pandas(ev.gaps("mrr", ["device", "theme"], n_permutations=50)).iloc[0]
    assert two["worst_group"].startswith("device=(missing) & theme=")
