"""``agreement()``: a judge's grades checked against people's on every frame kind, against
scikit-learn's ``cohen_kappa_score`` and ``confusion_matrix``, the krippendorff package,
scipy's ``kendalltau`` and ``ttest_rel`` on per-query values of ``tests/reference.py``;
and its refusals.

The krippendorff package is imported in a fixture (see tests/statistics/test_agreement.py).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from helpers import (
    JUDGED_LABELS,
    FrameMaker,
    as_pandas,
    collect,
    judged_frame,
    people_and_judge,
)
from rankframe.exceptions import InvalidDataError, InvalidOptionError

SYSTEMS = ["a", "b", "c"]


@pytest.fixture(scope="module")
def krippendorff() -> ModuleType:
    import krippendorff as module

    return module


def both_graded(data: pd.DataFrame) -> pd.DataFrame:
    return data.dropna(subset=["llm", "human"])


def test_grade_tables_equal_scikit_learn_and_krippendorff(
    make_frame: FrameMaker, krippendorff: ModuleType
) -> None:
    data = judged_frame()
    ev = make_frame(data).rank_eval(score="a", relevant="llm", gold="human")
    found = ev.agreement(by="theme")
    grades, confusion = as_pandas(found.grades), as_pandas(found.confusion)
    assert (found.bias, found.orders, found.conclusions) == (None, None, None)
    assert grades["theme"].tolist() == ["x", "y"]
    for row, theme in enumerate(["x", "y"]):
        pairs = both_graded(data[data["theme"] == theme])
        judge, gold = pairs["llm"].to_numpy(int), pairs["human"].to_numpy(int)
        assert grades["n_pairs"][row] == len(pairs)
        for column, weights in [("kappa", None), ("kappa_linear", "linear")]:
            want = cohen_kappa_score(judge, gold, weights=weights)
            assert grades[column][row] == pytest.approx(want, rel=1e-12)
        want = cohen_kappa_score(judge, gold, weights="quadratic")
        assert grades["kappa_quadratic"][row] == pytest.approx(want, rel=1e-12)
        want = krippendorff.alpha(
            np.array([judge, gold], dtype=float), level_of_measurement="ordinal"
        )
        assert grades["krippendorff_alpha"][row] == pytest.approx(want, rel=1e-12)
        cells = confusion[confusion["theme"] == theme]
        labels = sorted(set(judge) | set(gold))
        assert cells["judge"].tolist() == [float(g) for g in labels for _ in labels]
        assert cells["gold"].tolist() == [float(g) for _ in labels for g in labels]
        want_matrix = confusion_matrix(judge, gold, labels=labels)
        assert cells["count"].tolist() == want_matrix.ravel().tolist()


def test_metric_tables_equal_scipy_on_the_queries_people_judged(make_frame: FrameMaker) -> None:
    data = judged_frame()
    ev = make_frame(data).rank_eval(score=SYSTEMS, relevant="llm", gold="human")
    found = ev.agreement(JUDGED_LABELS, alpha=0.4)
    bias, orders = as_pandas(found.bias), as_pandas(found.orders)
    conclusions = as_pandas(found.conclusions)
    values = {s: people_and_judge(data, s)[:2] for s in SYSTEMS}  # (people's, judge's)
    n = len(values["a"][0])
    half = stats.t.ppf(0.975, n - 1)
    for row, (system, j) in enumerate((s, j) for s in SYSTEMS for j in range(4)):
        y, f = values[system][0][:, j], values[system][1][:, j]
        assert (bias["system"][row], bias["n_gold"][row]) == (system, n)
        assert bias["judge_mean"][row] == pytest.approx(f.mean(), rel=1e-12)
        assert bias["gold_mean"][row] == pytest.approx(y.mean(), rel=1e-12)
        assert bias["bias"][row] == pytest.approx((f - y).mean(), rel=1e-12, abs=1e-15)
        spread = half * stats.sem(f - y)
        assert bias["ci_low"][row] == pytest.approx((f - y).mean() - spread, abs=1e-12)
        if spread > 0:
            want_p = stats.ttest_rel(f, y).pvalue
            assert bias["p_value"][row] == pytest.approx(want_p, rel=1e-9)
    for j in range(4):
        # means equal to 12 decimals are tied (recall@2: b and c under the judge)
        judge = [round(values[s][1][:, j].mean(), 12) for s in SYSTEMS]
        gold = [round(values[s][0][:, j].mean(), 12) for s in SYSTEMS]
        want = stats.kendalltau(judge, gold).statistic
        assert orders["kendall_tau"][j] == pytest.approx(want, rel=1e-12, nan_ok=True)
    assert orders["n_systems"].tolist() == [3] * 4
    pairs = [("b", "a"), ("c", "a"), ("c", "b")]
    assert list(zip(conclusions["system"], conclusions["other"], strict=True)) == [
        p for p in pairs for _ in range(4)
    ]
    for row, ((system, other), j) in enumerate((p, j) for p in pairs for j in range(4)):
        said = []
        for side, name in ((1, "judge"), (0, "gold")):
            x, z = values[system][side][:, j], values[other][side][:, j]
            assert conclusions[f"{name}_delta"][row] == pytest.approx((x - z).mean(), abs=1e-12)
            p = stats.ttest_rel(x, z).pvalue if np.std(x - z) > 0 else np.nan
            got = conclusions[f"{name}_p_value"][row]
            assert got == pytest.approx(p, rel=1e-9, nan_ok=True)
            higher = "higher" if (x - z).mean() > 0 else "lower"
            said.append(higher if p < 0.4 else "no difference")
        assert [conclusions["judge_conclusion"][row], conclusions["gold_conclusion"][row]] == said
        assert conclusions["same_conclusion"][row] == (said[0] == said[1])
    assert set(conclusions["judge_conclusion"]) > {"no difference"}  # the data says some


def small(human: list[Any]) -> dict[str, Any]:
    return {
        "query": ["q1", "q1", "q2", "q2"],
        "item": ["a", "b"] * 2,
        "score": [0.9, 0.1, 0.8, 0.2],
        "llm": [1, 0, 0, 1],
        "human": human,
    }


def test_agreement_refusals_name_what_to_fix(make_frame: FrameMaker) -> None:
    frame = make_frame(small([1.0, 0.0, 0.0, 1.0]))
    with pytest.raises(InvalidOptionError, match=r"no gold column is bound; name it, e\.g\."):
        frame.rank_eval(relevant="llm").agreement()
    ev = frame.rank_eval(relevant="llm", gold="human")
    geometric = r"gm_map is a geometric mean .*, and agreement\(\) compares under both sets"
    with pytest.raises(InvalidOptionError, match=geometric):
        ev.agreement(["gm_map"])
    with pytest.raises(InvalidOptionError, match=r"empty='nan' .* but agreement\(\) pairs"):
        ev.agreement(["mrr"], empty="nan")
    with pytest.raises(InvalidOptionError, match=r"alpha"):
        ev.agreement(alpha=1.5)
    nobody = make_frame(small([float("nan")] * 4))
    with pytest.raises(InvalidDataError, match=r"No row has both a judge's grade \(column 'llm'\)"):
        collect(nobody.rank_eval(relevant="llm", gold="human").agreement().grades)
    scaled = make_frame(small([0.25, 0.5, 0.75, 0.5]))
    with pytest.raises(InvalidDataError, match=r"share no value: they are on different scales"):
        collect(scaled.rank_eval(relevant="llm", gold="human").agreement().grades)
