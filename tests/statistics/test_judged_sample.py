"""docs/judgments.md's worked example on ``recommendations(judge=True)``: every number it
prints recomputed from the data, the kappas by scikit-learn, alpha by the krippendorff
package, each user's precision@10 by ``tests/reference.py`` and the intervals by ``ppi_py``
and scipy; and the simulated judge and human sample as the sample data documents them."""

from __future__ import annotations

import math
import warnings
from types import ModuleType

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from helpers import DOCS, doctest_outputs
from rankframe.datasets import JUDGE_BIAS, PEOPLE_SHARE, recommendations
from reference import Row, per_query

SYSTEMS = ["model_a", "model_b"]


@pytest.fixture(scope="module")
def ppi_py() -> ModuleType:
    with warnings.catch_warnings():  # ppi_py's import silences every warning: undone here
        import ppi_py as module
    return module


@pytest.fixture(scope="module")
def krippendorff() -> ModuleType:
    import krippendorff as module

    return module


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return recommendations(judge=True)


def section_outputs() -> list[list[str]]:
    page = (DOCS / "judgments.md").read_text(encoding="utf-8")
    start = page.index("## A worked example: the sample data with a simulated judge")
    return doctest_outputs(page[start : page.index("## The statistics", start)])


def precision_at_10(data: pd.DataFrame, system: str, grade: str) -> dict[str, float]:
    """Per user whose every row has a ``grade``, precision@10 (``tests/reference.py``)."""
    rows = [
        Row(r["user_id"], r["item_id"], None if math.isnan(r[system]) else r[system], r[grade])
        for r in data[["user_id", "item_id", system, grade]].to_dict("records")
    ]
    graded = {r.query for r in rows} - {r.query for r in rows if math.isnan(r.relevant)}
    values = per_query([r for r in rows if r.query in graded], [("precision", 10)])
    return {q: v["precision@10"] for q, v in values.items()}


def t_interval(x: np.ndarray) -> tuple[float, float, float]:
    half = stats.t.ppf(0.975, len(x) - 1) * stats.sem(x)
    return x.mean(), x.mean() - half, x.mean() + half


def test_the_grade_table(data: pd.DataFrame, krippendorff: ModuleType) -> None:
    both = data.dropna(subset=["human"])
    judge, gold = both["llm"].to_numpy(int), both["human"].to_numpy(int)
    coders = np.array([judge, gold], dtype=float)
    expected = pd.DataFrame(
        {
            "n_pairs": [len(both)],
            "kappa": [cohen_kappa_score(judge, gold)],
            "kappa_linear": [cohen_kappa_score(judge, gold, weights="linear")],
            "kappa_quadratic": [cohen_kappa_score(judge, gold, weights="quadratic")],
            "krippendorff_alpha": [krippendorff.alpha(coders, level_of_measurement="ordinal")],
        }
    )
    assert section_outputs()[0] == str(expected.round(3)).splitlines()


def test_the_estimates_and_the_truth(data: pd.DataFrame, ppi_py: ModuleType) -> None:
    rows, truths = [], []
    values = {
        s: (precision_at_10(data, s, "llm"), precision_at_10(data, s, "human")) for s in SYSTEMS
    }
    for estimate in ("judge", "gold", "ppi++"):
        for system in SYSTEMS:
            judge, gold = values[system]
            people = sorted(gold)
            y = np.array([gold[q] for q in people])
            f = np.array([judge[q] for q in people])
            g = np.array([judge[q] for q in sorted(judge) if q not in gold])
            if estimate == "ppi++":
                mean = float(ppi_py.ppi_mean_pointestimate(y, f, g, lam=None)[0])
                low, high = (float(b[0]) for b in ppi_py.ppi_mean_ci(y, f, g, alpha=0.05))
            else:
                x = y if estimate == "gold" else np.array(list(judge.values()))
                mean, low, high = t_interval(x)
            rows.append([system, estimate, mean, low, high, len(people)])
    for system in SYSTEMS:
        truths.append([system, np.mean(list(precision_at_10(data, system, "relevant").values()))])
    columns = ["system", "estimate", "P@10", "P@10_ci_low", "P@10_ci_high", "n_gold"]
    expected = pd.DataFrame(rows, columns=columns, index=[0, 1] * 3).round(3)
    truth = pd.DataFrame(truths, columns=["system", "precision@10"]).round(3)
    truth["n_queries"] = data["user_id"].nunique()
    _, shown_estimates, shown_truth = section_outputs()
    assert shown_estimates == str(expected).splitlines()
    assert shown_truth == str(truth).splitlines()


def test_the_simulated_judge_and_human_sample(data: pd.DataFrame) -> None:
    """The judge grades higher than people (its bias), people judged whole users, about
    ``PEOPLE_SHARE`` of them, with the true grade; the other columns are the plain data's."""
    plain = recommendations()
    pd.testing.assert_frame_equal(data[plain.columns], plain)
    assert JUDGE_BIAS > 0
    assert data["llm"].mean() > data["relevant"].mean()
    graded = data["human"].notna()
    per_user = graded.groupby(data["user_id"]).agg(["all", "any"])
    assert (per_user["all"] == per_user["any"]).all()  # whole users, or none of their rows
    assert abs(per_user["all"].mean() - PEOPLE_SHARE) < 0.05
    assert (data.loc[graded, "human"] == data.loc[graded, "relevant"]).all()
