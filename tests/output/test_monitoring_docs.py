"""The numbers of docs/monitoring.md's "Weekly monitoring" example, recomputed independently.

The page's doctests check that rankframe prints what the page says; this test checks that
what the page says is right, from the sample data's rows and independent references:

- the weeks: each user's ``served_at`` floored to its Monday with pandas (UTC);
- each user's NDCG@10 and recall@20: pytrec_eval (trec_eval's code) on qrels from every row
  and a run from the rows with a score (every user retrieves 20 items and is in the run);
- the means per week; Welch's t-test between consecutive weeks:
  ``scipy.stats.ttest_ind(equal_var=False)``; Holm's correction written out;
- the point statuses of ``ndcg@10 >= 0.6`` from the weekly means.

The printed tables are read back from the page (its output blocks, in order), and each
printed number must equal the reference rounded as printed.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from scipy import stats

from helpers import doctest_outputs
from rankframe.datasets import recommendations

PAGE = Path(__file__).resolve().parents[2] / "docs" / "monitoring.md"


def _outputs() -> list[list[str]]:
    """The output blocks of the doctests of the page's "Weekly monitoring" section."""
    text = PAGE.read_text(encoding="utf-8")
    return doctest_outputs(text.split("## Weekly monitoring", 1)[1].split("\n## ", 1)[0])


def _table(lines: list[str]) -> pd.DataFrame:
    """A printed pandas frame (a header, then an index and values per row)."""
    header = lines[0].split()
    # the last column may hold spaces ("no baseline")
    rows = [line.split(maxsplit=len(header))[1:] for line in lines[1:]]
    frame = pd.DataFrame(rows, columns=header)
    for column in header:
        if column not in ("window", "reference_window", "status"):
            frame[column] = frame[column].astype(float)
    return frame


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    """Per user: the week start (a date), NDCG@10 and recall@20 of model_b by pytrec_eval."""
    data = recommendations(seed=0)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for user, item, score, grade in zip(
        data["user_id"], data["item_id"], data["model_b"], data["relevant"], strict=True
    ):
        qrels.setdefault(user, {})[item] = int(grade)
        if not math.isnan(score):
            run.setdefault(user, {})[item] = float(score)
    measures = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.20"}).evaluate(run)
    served = data.groupby("user_id")["served_at"].min()
    monday = (served.dt.normalize() - pd.to_timedelta(served.dt.day_of_week, unit="D")).dt.date
    users = sorted(qrels)
    assert set(measures) == set(users)  # every user retrieved something
    return pd.DataFrame(
        {
            "user": users,
            "week": [monday[u] for u in users],
            "ndcg": [measures[u]["ndcg_cut_10"] for u in users],
            "recall": [measures[u]["recall_20"] for u in users],
        }
    )


def _weeks(reference: pd.DataFrame) -> list[pd.DataFrame]:
    return [group for _, group in reference.groupby("week", sort=True)]


def _same(printed: pd.Series, expected: list[float]) -> None:
    """Printed values equal the reference rounded to 4 decimals (NaN printed as NaN)."""
    for got, want in zip(printed.tolist(), expected, strict=True):
        if math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == round(want, 4), (got, want)


def test_the_page_has_the_four_outputs() -> None:
    assert len(_outputs()) == 4


def test_weekly_means(reference: pd.DataFrame) -> None:
    printed = _table(_outputs()[0])
    weeks = _weeks(reference)
    assert printed["window"].tolist() == [str(w["week"].iloc[0]) for w in weeks]
    # eight weeks from Monday 2024-01-01
    assert printed["window"].tolist()[0] == "2024-01-01"
    assert len(weeks) == 8
    _same(printed["ndcg@10"], [w["ndcg"].mean() for w in weeks])
    _same(printed["recall@20"], [w["recall"].mean() for w in weeks])
    assert printed["n_queries"].tolist() == [len(w) for w in weeks]


def _welch(reference: pd.DataFrame) -> tuple[list[float], list[float], list[float]]:
    """Per week: the mean, the change from the previous week, Welch's p (NaN for week 1)."""
    weeks = _weeks(reference)
    means = [w["ndcg"].mean() for w in weeks]
    delta = [math.nan] + [b - a for a, b in itertools.pairwise(means)]
    p = [math.nan] + [
        float(stats.ttest_ind(b["ndcg"], a["ndcg"], equal_var=False).pvalue)
        for a, b in itertools.pairwise(weeks)
    ]
    return means, delta, p


def test_each_week_against_the_previous(reference: pd.DataFrame) -> None:
    printed = _table(_outputs()[1])
    means, delta, p = _welch(reference)
    _same(printed["mean"], means)
    _same(printed["reference_mean"], [math.nan, *means[:-1]])
    _same(printed["delta"], delta)
    _same(printed["p_value"], p)
    sizes = [len(w) for w in _weeks(reference)]
    assert printed["n_queries"].tolist() == sizes
    assert printed["n_reference"].tolist() == [0, *sizes[:-1]]


def _holm(p: list[float]) -> list[float]:
    values = np.array(p)
    out = np.full(len(values), np.nan)
    tested = np.flatnonzero(~np.isnan(values))
    order = tested[np.argsort(values[tested])]
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (len(order) - i) * values[j]))
        out[j] = running
    return out.tolist()


def test_the_drop_rule(reference: pd.DataFrame) -> None:
    printed = _table(_outputs()[2])
    means, delta, p = _welch(reference)
    relative = [math.nan] + [d / m for d, m in zip(delta[1:], means, strict=False)]
    adjusted = _holm(p)
    _same(printed["value"], means)
    _same(printed["delta"], delta)  # absolute, whatever the rule's unit
    _same(printed["delta_relative"], relative)
    _same(printed["p_value"], p)
    _same(printed["p_adjusted"], adjusted)
    # fail: beyond -5% and a significant decrease; uncertain: beyond, not significant
    status = [
        "no baseline"
        if math.isnan(r)
        else ("fail" if q < 0.05 else "uncertain")
        if r < -0.05
        else "pass"
        for r, q in zip(relative, adjusted, strict=True)
    ]
    assert printed["status"].tolist() == status
    # the page's story: a large drop that is significant, others that are not
    assert "fail" in status
    assert "uncertain" in status
    # the prose's numbers: the largest drop (a failure), and the uncertain rows
    text = PAGE.read_text(encoding="utf-8")
    week = int(np.nanargmin(relative))
    assert status[week] == "fail"
    assert f"{delta[week]:.4f} / {means[week - 1]:.4f} = {relative[week]:.1%}" in text
    assert f"7 \u00d7 {p[week]:.5f} = {adjusted[week]:.4f}" in text  # 7 times
    for row in (i for i, s in enumerate(status) if s == "uncertain"):
        assert f"{printed['window'][row]} ({relative[row]:.1%}" in " ".join(text.split())


def test_the_point_rule(reference: pd.DataFrame) -> None:
    (line,) = _outputs()[3]
    printed = ast.literal_eval(line)
    means = [w["ndcg"].mean() for w in _weeks(reference)]
    assert printed == ["pass" if m >= 0.6 else "fail" for m in means]
    weeks = [str(w["week"].iloc[0]) for w in _weeks(reference)]
    failing = [w for w, status in zip(weeks, printed, strict=True) if status == "fail"]
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert re.search(rf"fails the weeks of {failing[0]} and {failing[1]}, whose means", text)
    assert len(failing) == 2
