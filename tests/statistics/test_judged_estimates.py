"""``evaluate``/``compare`` with ``estimate=``: a judge's grades on every query corrected by
the queries people judged (``docs/judgments.md``), against ``ppi_py`` (the ppi_python
package) and scipy computed from per-query values of ``tests/reference.py`` (a reference
written from the SPEC's formulas, sharing no code with the library); the rule of which
queries people judged; the registry; the refusals.

ppi_py is imported in a fixture (see tests/statistics/test_ppi.py: its import silences
every warning, undone here).
"""

from __future__ import annotations

import math
import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankframe
from helpers import (
    JUDGED_LABELS as LABELS,
)
from helpers import (
    JUDGED_QUERIES as N_QUERIES,
)
from helpers import (
    PEOPLE,
    FrameMaker,
    as_pandas,
    collect,
    judged_frame,
    people_and_judge,
    reference_values,
)
from rankframe import METRICS
from rankframe.exceptions import InvalidDataError, InvalidOptionError, RankEvalError
from rankframe.settings.params import ESTIMATES
from rankframe.stats import ppi


@pytest.fixture(scope="module")
def ppi_py() -> ModuleType:
    with warnings.catch_warnings():  # ppi_py's import silences every warning: undone here
        import ppi_py as module
    return module


def expected(ppi_py: ModuleType, estimate: str, y: Any, f: Any, g: Any) -> np.ndarray:
    """Mean, low and high per column (rows) by ppi_py and scipy."""
    if estimate in ("ppi", "ppi++"):
        lam = 1 if estimate == "ppi" else None
        mode = {} if lam == 1 else {"lam_optim_mode": "element"}
        mean = ppi_py.ppi_mean_pointestimate(y, f, g, lam=lam, **mode)
        low, high = ppi_py.ppi_mean_ci(y, f, g, alpha=0.05, lam=lam, **mode)
        return np.array([mean, low, high])
    x = y if estimate == "gold" else np.concatenate([f, g])
    mean, sem = x.mean(axis=0), stats.sem(x, axis=0)
    half = stats.t.ppf(0.975, len(x) - 1) * sem
    return np.array([mean, mean - half, mean + half])


def test_evaluate_estimates_equal_ppi_py_and_scipy(
    make_frame: FrameMaker, ppi_py: ModuleType
) -> None:
    data = judged_frame()
    ev = make_frame(data).rank_eval(score=["a", "b"], relevant="llm", gold="human")
    values = {system: people_and_judge(data, system) for system in ("a", "b")}
    # every estimate on pandas; on the other kinds (the same finish step) a z and a t one
    every = ("ppi", "ppi++", "gold", "judge")
    for estimate in every if make_frame.kind == "pandas" else ("ppi++", "judge"):
        table = as_pandas(ev.evaluate([*LABELS], estimate=estimate))
        assert table["estimate"].tolist() == [estimate] * 2
        assert table["n_queries"].tolist() == [N_QUERIES] * 2
        assert table["n_gold"].tolist() == [len(PEOPLE)] * 2
        for row, system in enumerate(["a", "b"]):
            want = expected(ppi_py, estimate, *values[system])
            got = np.array(
                [[table[f"{m}{e}"][row] for m in LABELS] for e in ("", "_ci_low", "_ci_high")]
            )
            np.testing.assert_allclose(got, want.reshape(3, -1), rtol=1e-10, atol=1e-12)


def test_estimates_per_segment(make_frame: FrameMaker, ppi_py: ModuleType) -> None:
    """``by=``: each segment's queries alone, people's among them."""
    data = judged_frame()
    ev = make_frame(data).rank_eval(score="a", relevant="llm", gold="human")
    table = as_pandas(ev.evaluate(LABELS, by="theme", estimate="ppi", confidence_level=0.9))
    assert table["theme"].tolist() == ["x", "y"]
    for row, theme in enumerate(["x", "y"]):
        part = data[data["theme"] == theme]
        y, f, g = split_within(part)
        low, high = ppi_py.ppi_mean_ci(y, f, g, alpha=0.1, lam=1)
        np.testing.assert_allclose([table[f"{m}_ci_low"][row] for m in LABELS], low, rtol=1e-10)
        np.testing.assert_allclose([table[f"{m}_ci_high"][row] for m in LABELS], high, rtol=1e-10)
        assert table["n_gold"][row] == len(y)
        assert table["n_queries"][row] == len(y) + len(g)


def split_within(part: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    gold, judge = reference_values(part, "a", "human"), reference_values(part, "a", "llm")
    people = [q for q in sorted(gold) if q in {f"q{p:02d}" for p in PEOPLE}]
    y = np.array([gold[q] for q in people])
    f = np.array([judge[q] for q in people])
    g = np.array([judge[q] for q in sorted(judge) if q not in people])
    return y, f, g


@pytest.mark.parametrize("estimate", ["ppi", "ppi++"])
def test_compare_estimates_the_paired_differences(
    make_frame: FrameMaker, ppi_py: ModuleType, estimate: str
) -> None:
    data = judged_frame()
    ev = make_frame(data).rank_eval(score=["a", "b"], relevant="llm", gold="human")
    table = as_pandas(ev.compare(LABELS, estimate=estimate, baseline_rows=False))
    assert table["system"].tolist() == ["b"] * len(LABELS)
    assert [str(m) for m in table["metric"]] == ["ndcg", "mrr", "recall", "precision"]
    ya, fa, ga = people_and_judge(data, "a")
    yb, fb, gb = people_and_judge(data, "b")
    lam = 1 if estimate == "ppi" else None
    mode = {} if lam == 1 else {"lam_optim_mode": "element"}
    delta = ppi_py.ppi_mean_pointestimate(yb - ya, fb - fa, gb - ga, lam=lam, **mode)
    low, high = ppi_py.ppi_mean_ci(yb - ya, fb - fa, gb - ga, alpha=0.05, lam=lam, **mode)
    mean = ppi_py.ppi_mean_pointestimate(yb, fb, gb, lam=lam, **mode)
    np.testing.assert_allclose(table["delta"], delta, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(table["ci_low"], low, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(table["ci_high"], high, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(table["mean"], mean, rtol=1e-10, atol=1e-12)
    if estimate == "ppi":  # ppi_py's p-value, of one column at a time
        for j in range(len(LABELS)):
            p = ppi_py.ppi_mean_pval(
                yb[:, j] - ya[:, j], fb[:, j] - fa[:, j], gb[:, j] - ga[:, j], lam=1
            )
            assert table["p_value"][j] == pytest.approx(float(np.ravel(p)[0]), rel=1e-9)
        # Holm over the systems compared on one metric: one system, unchanged
        np.testing.assert_allclose(table["p_adjusted"], table["p_value"])
    assert table["n_gold"].tolist() == [len(PEOPLE)] * len(LABELS)


# -- every metric of the registry ---------------------------------------------------------------


def registry_metric(name: str) -> str:
    """The metric's spelling with a parameter where it needs one."""
    d = METRICS[name]
    if not (d.takes_k and d.param.required):
        return name
    return f"{name}@{2 if d.param.integer else 0.5}"


@pytest.mark.parametrize("name", list(METRICS))
def test_every_metric_gives_an_estimate_or_refuses_naming_it(name: str) -> None:
    """A metric averaged over queries gives the judge's estimate, the plain mean over every
    query; a set-level metric, a geometric mean or a sum refuses, naming ``estimate=``; a
    metric that needs an input refuses as it does without ``estimate=``."""
    ev = judged_frame().rank_eval(score="a", relevant="llm", gold="human")
    metric = registry_metric(name)
    own: RankEvalError | None = None
    try:
        plain = ev.evaluate([metric])
    except RankEvalError as error:  # the metric's own needs (an input option, a grade)
        own = error
    if own is not None:
        with pytest.raises(RankEvalError) as refused:
            ev.evaluate([metric], estimate="judge")
        assert str(refused.value) == str(own) or "estimate='judge'" in str(refused.value)
        return
    if METRICS[name].aggregate != "mean":
        with pytest.raises(InvalidOptionError, match=r"estimate='judge' estimates a mean"):
            ev.evaluate([metric], estimate="judge")
        return
    judge = ev.evaluate([metric], estimate="judge")
    column = next(c for c in plain.columns if c != "n_queries")
    assert judge[column][0] == pytest.approx(plain[column][0], rel=1e-12, nan_ok=True)
    gold = ev.evaluate([metric], estimate="ppi")
    assert gold["n_gold"][0] == len(PEOPLE)


# -- which queries people judged, and the refusals ------------------------------------------


def small(human: list[float | None]) -> dict[str, Any]:
    """Three queries of two items; ``human``: people's grades, row by row."""
    return {
        "query": ["q1", "q1", "q2", "q2", "q3", "q3"],
        "item": ["a", "b"] * 3,
        "s": [0.9, 0.1, 0.8, 0.2, None, 0.3],
        "t": [0.1, 0.9, 0.2, 0.8, 0.7, 0.6],
        "llm": [1, 0, 0, 1, 1, 0],
        "human": human,
    }


def test_a_query_is_judged_by_people_when_every_row_has_a_gold_grade(
    make_frame: FrameMaker,
) -> None:
    """q3's ungraded row is one that ``s`` does not retrieve (a null score): it still counts,
    since recall and ndcg's ideal read it; q2's NaN is no grade either."""
    data = small([1.0, 0.0, 0.0, float("nan"), 1.0, None])
    ev = make_frame(data).rank_eval(score="s", relevant="llm", gold="human")
    with pytest.warns(rankframe.RankEvalWarning, match="null score"):
        table = as_pandas(ev.evaluate("recall", estimate="gold"))
    assert (table["n_gold"][0], table["n_queries"][0]) == (1, 3)
    # q1 alone: its relevant item a ranked first (recall 1), no spread for an interval
    assert table["recall"][0] == 1.0
    assert math.isnan(table["recall_ci_low"][0])


def test_no_query_judged_by_people_is_an_error_naming_the_gold_column(
    make_frame: FrameMaker,
) -> None:
    data = small([1.0, None, None, 1.0, 0.0, None])
    ev = make_frame(data).rank_eval(score="t", relevant="llm", gold="human")
    with pytest.raises(InvalidDataError, match=r"No query is judged by people.*'human'") as error:
        collect(ev.evaluate("mrr", estimate="ppi"))
    assert error.value.column == "human"


def test_estimate_without_a_gold_column_names_the_fix(make_frame: FrameMaker) -> None:
    ev = make_frame(small([1.0] * 6)).rank_eval(score=["s", "t"], relevant="llm")
    fix = r"no gold column is bound; .*df.rank_eval\(relevant='llm', gold='human'\)"
    with pytest.raises(InvalidOptionError, match=fix):
        ev.evaluate("mrr", estimate="ppi")
    with pytest.raises(InvalidOptionError, match=fix):
        ev.compare("mrr", estimate="ppi++")


@pytest.mark.parametrize(
    ("call", "match"),
    [
        ({"estimate": "pp"}, r"estimate='pp' is no estimate; pass one of 'ppi', 'ppi\+\+'"),
        ({"estimate": "ppi", "empty": "skip"}, r"empty='skip' leaves out different queries"),
        ({"estimate": "ppi", "empty": "error"}, r"Pass empty='zero' \(or 'one'\)"),
        ({"estimate": "gold", "tidy": True}, r"tidy=True is not available with estimate="),
    ],
)
def test_estimate_refusals_name_the_argument(
    make_frame: FrameMaker, call: dict[str, Any], match: str
) -> None:
    ev = make_frame(small([1.0] * 6)).rank_eval(score="t", relevant="llm", gold="human")
    with pytest.raises(InvalidOptionError, match=match):
        ev.evaluate("mrr", **call)


def test_compare_with_estimate_refuses_a_reference_frame(make_frame: FrameMaker) -> None:
    frame = make_frame(small([1.0] * 6))
    ev = frame.rank_eval(score=["s", "t"], relevant="llm", gold="human")
    with pytest.raises(InvalidOptionError, match=r"reference= \(another frame\) cannot"):
        ev.compare("mrr", estimate="ppi", reference=frame)


def test_the_gold_column_is_checked_as_a_grade_column(make_frame: FrameMaker) -> None:
    """A gold column that is the judge's, missing, of text or infinite: errors naming it."""
    frame = make_frame(small([1.0] * 6))
    with pytest.raises(InvalidOptionError, match=r"gold='llm' is also the relevant column"):
        frame.rank_eval(score="t", relevant="llm", gold="llm").evaluate("mrr")
    with pytest.raises(rankframe.ColumnNotFoundError, match=r"Column 'people' \(gold\) not found"):
        frame.rank_eval(score="t", relevant="llm", gold="people").evaluate("mrr")
    with pytest.raises(rankframe.ColumnNotFoundError, match=r"Column 'relevant' \(relevant\)"):
        frame.rank_eval(score="t", gold="human").evaluate("mrr")
    text = make_frame({**small([1.0] * 6), "human": ["1", "0", "1", "1", "0", "0"]})
    with pytest.raises(InvalidDataError, match=r"Column 'human' \(gold\) must be numeric") as e:
        collect(text.rank_eval(score="t", relevant="llm", gold="human").evaluate("mrr"))
    assert e.value.column == "human"
    infinite = make_frame(small([1.0, 0.0, math.inf, 1.0, 0.0, 0.0]))
    ev = infinite.rank_eval(score="t", relevant="llm", gold="human")
    with pytest.raises(InvalidDataError, match=r"Column 'human' \(gold\) has an infinite grade"):
        collect(ev.evaluate("mrr", estimate="ppi"))


def test_the_estimates_named_are_the_statistics_ones() -> None:
    """``estimate=``'s constraint (settings) lists ``rankframe.stats.ppi``'s estimates."""
    assert tuple(ppi.ESTIMATES) == ESTIMATES


def test_a_composite_query_key_and_the_binding_shown(make_frame: FrameMaker) -> None:
    data = judged_frame()
    data["user"], data["day"] = data["query"].str[:2], data["query"].str[2:]
    ev = make_frame(data).rank_eval(query=["user", "day"], score="c", relevant="llm", gold="human")
    assert repr(ev).endswith("relevant='llm' gold='human'>")
    table = as_pandas(ev.evaluate("mrr", estimate="ppi"))
    assert (table["n_gold"][0], table["n_queries"][0]) == (len(PEOPLE), N_QUERIES)


def test_windows_are_segments_of_the_estimate(make_frame: FrameMaker, ppi_py: ModuleType) -> None:
    """``every=``: each window's queries alone (a query's time is its earliest row's); a
    comparison over time needs a baseline (the systems within each window)."""
    data = judged_frame()
    day = pd.Timestamp("2024-01-01")
    data["time"] = [day + pd.Timedelta(days=7 * (int(q[1:]) % 2)) for q in data["query"]]
    ev = make_frame(data).rank_eval(score=["a", "b"], relevant="llm", gold="human", time="time")
    table = as_pandas(ev.evaluate(LABELS, estimate="ppi", every="1w"))
    assert table["n_gold"].tolist() == [4, 4, 4, 4]
    for row, parity in [(0, 0), (1, 0), (2, 1), (3, 1)]:
        system = "ab"[row % 2]
        queries = [q for q in sorted(set(data["query"])) if int(q[1:]) % 2 == parity]
        part = data[data["query"].isin(queries)]
        gold = reference_values(part, system, "human")
        judge = reference_values(part, system, "llm")
        people = sorted(gold)
        y = np.array([gold[q] for q in people])
        f = np.array([judge[q] for q in people])
        g = np.array([judge[q] for q in sorted(judge) if q not in gold])
        low, _ = ppi_py.ppi_mean_ci(y, f, g, alpha=0.05, lam=1)
        np.testing.assert_allclose([table[f"{m}_ci_low"][row] for m in LABELS], low, rtol=1e-10)
    with pytest.raises(
        InvalidOptionError, match=r"compares the systems within each window.*baseline="
    ):
        ev.compare("mrr", estimate="ppi", every="1w")
