"""The numbers of docs/slices.md's worked example, recomputed independently.

The page's doctests check that rankframe prints what the page says; this test checks that
what the page says is right, from the sample data's rows and independent references:

- each user's NDCG@10 of both models: pytrec_eval (trec_eval's code) on qrels from every
  row and runs from the rows with a score;
- every slice of depth 1 and 2 over ``device`` and ``genre`` with at least 30 users,
  enumerated with pandas; Welch's t-test (``scipy.stats.ttest_ind(equal_var=False)``) of
  each slice against the other users, the paired t-test (``scipy.stats.ttest_rel``) and its
  t interval against the baseline; Holm's correction written out;
- the sample size: statsmodels' ``TTestIndPower().solve_power``.

The printed tables are read back from the page (its output blocks, in order), and each
printed number must equal the reference rounded as printed.
"""

from __future__ import annotations

import ast
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from scipy import stats
from statsmodels.stats.power import TTestIndPower

from helpers import doctest_outputs
from rankframe.datasets import WEAK_SLICE, recommendations

PAGE = Path(__file__).resolve().parents[2] / "docs" / "slices.md"
COLUMNS = ("device", "genre")
MIN_QUERIES = 30


#: The page's sections whose doctests are on the sample data, in order (the page's other
#: examples, on frames of their own, are checked by their doctests)
SECTIONS = ("A worked example", "How many queries a slice needs")


def _outputs() -> list[list[str]]:
    """The output blocks of the doctests of the page's sections on the sample data."""
    sections = PAGE.read_text(encoding="utf-8").split("\n## ")
    chosen = [s for s in sections if s.startswith(SECTIONS)]
    assert [s.split("\n", 1)[0] for s in chosen] == list(SECTIONS)
    return doctest_outputs("\n".join(chosen))


def _table(lines: list[str]) -> pd.DataFrame:
    """A printed pandas frame whose first column is a slice (``a=b & c=d``: spaces)."""
    header = lines[0].split()
    rows = []
    for line in lines[1:]:
        fields = line.split(maxsplit=len(header))[1:]  # the index; the last field may hold
        if "slice" in header:  # spaces ("two-sample t-test"), a slice too
            fields = line.split()[1:]
            end = next(i for i, f in enumerate(fields) if "=" not in f and f != "&")
            fields = [" ".join(fields[:end]), *fields[end:]]
        rows.append(fields)
    frame = pd.DataFrame(rows, columns=header)
    for column in header:
        if column not in ("slice", "significant", "test"):
            frame[column] = frame[column].astype(float)
    return frame


@pytest.fixture(scope="module")
def users() -> pd.DataFrame:
    """Per user: device, genre, and NDCG@10 of each model by pytrec_eval."""
    data = recommendations(seed=0, n_users=2000, weak_slice=True)
    qrels: dict[str, dict[str, int]] = {}
    for user, item, grade in zip(data["user_id"], data["item_id"], data["relevant"], strict=True):
        qrels.setdefault(user, {})[item] = int(grade)
    per_user = data.groupby("user_id")[list(COLUMNS)].first()
    for model in ("model_a", "model_b"):
        run: dict[str, dict[str, float]] = {}
        for user, item, score in zip(data["user_id"], data["item_id"], data[model], strict=True):
            if not math.isnan(score):
                run.setdefault(user, {})[item] = float(score)
        measures = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
        assert set(measures) == set(per_user.index)  # every user retrieved something
        per_user[model] = [measures[u]["ndcg_cut_10"] for u in per_user.index]
    return per_user


def _slices(users: pd.DataFrame) -> list[tuple[str, np.ndarray]]:
    """Every tested slice (its text, its users as a mask), by enumeration: one predicate
    per column, up to two, at least 30 users, not every user, and not a slice of two
    predicates with exactly the users of one of its parents."""
    values = {c: sorted(users[c].unique()) for c in COLUMNS}
    single = {(c, v): (users[c] == v).to_numpy() for c in COLUMNS for v in values[c]}
    found = [(f"{c}={v}", m) for (c, v), m in single.items() if MIN_QUERIES <= m.sum() < len(users)]
    for (c1, v1), (c2, v2) in itertools.product(
        [(COLUMNS[0], v) for v in values[COLUMNS[0]]], [(COLUMNS[1], v) for v in values[COLUMNS[1]]]
    ):
        mask = single[(c1, v1)] & single[(c2, v2)]
        parents = (single[(c1, v1)], single[(c2, v2)])
        if mask.sum() >= MIN_QUERIES and not any((mask == p).all() for p in parents):
            found.append((f"{c1}={v1} & {c2}={v2}", mask))
    return found


def _holm(p: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, written out."""
    order = np.argsort(p, kind="stable")
    m, adjusted, running = len(p), [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def _printed(shown: pd.Series, expected: list[float]) -> None:
    for got, want in zip(shown.tolist(), expected, strict=True):
        assert got == round(want, 4), (got, want)


def test_the_page_has_its_outputs() -> None:
    assert len(_outputs()) == 5


def test_each_slice_against_the_other_users(users: pd.DataFrame) -> None:
    ndcg = users["model_b"].to_numpy()
    rows = []
    for text, inside in _slices(users):
        p = float(stats.ttest_ind(ndcg[inside], ndcg[~inside], equal_var=False).pvalue)
        rows.append(
            {
                "slice": text,
                "n": int(inside.sum()),
                "delta": ndcg[inside].mean() - ndcg[~inside].mean(),
                "p": p,
            }
        )
    table = pd.DataFrame(rows)
    table["p_adjusted"] = _holm(table["p"].tolist())
    table = table.sort_values("delta", kind="stable").reset_index(drop=True)
    outputs = _outputs()
    printed = _table(outputs[0])
    top = table.head(len(printed))
    assert printed["slice"].tolist() == top["slice"].tolist()
    assert printed["n_queries"].tolist() == top["n"].tolist()
    _printed(printed["delta"], top["delta"].tolist())
    _printed(printed["p_adjusted"], top["p_adjusted"].tolist())
    assert printed["significant"].tolist() == [str(p < 0.05) for p in top["p_adjusted"]]
    assert ast.literal_eval(outputs[1][0]) == [f"{p:.1e}" for p in table["p_adjusted"][:3]]
    assert int(outputs[2][0]) == len(table) == 19  # 3 devices + 4 genres + 12 pairs
    # the planted slice leads; its parents hold it, with a fifth of its delta or so
    planted = f"device={WEAK_SLICE['device']} & genre={WEAK_SLICE['genre']}"
    assert table["slice"].iloc[0] == planted
    for parent in table["delta"].iloc[1:3]:
        assert 0.15 < parent / table["delta"].iloc[0] < 0.25
    text = PAGE.read_text(encoding="utf-8")
    assert f"{-table['delta'].iloc[0]:.2f} below" in text
    assert f"({top['n'].iloc[0]} of their {top['n'].iloc[1]} and {top['n'].iloc[2]} users)" in text
    assert f"{-table['delta'].iloc[0]:.2f} is found with {top['n'].iloc[0]} users" in text


def test_against_the_baseline(users: pd.DataFrame) -> None:
    a, b = users["model_a"].to_numpy(), users["model_b"].to_numpy()
    rows = []
    for text, inside in _slices(users):
        diff = b[inside] - a[inside]
        low, high = stats.t.interval(0.95, len(diff) - 1, loc=diff.mean(), scale=stats.sem(diff))
        rows.append(
            {
                "slice": text,
                "mean": b[inside].mean(),
                "baseline_mean": a[inside].mean(),
                "delta": diff.mean(),
                "ci_low": low,
                "ci_high": high,
            }
        )
    table = pd.DataFrame(rows).sort_values("delta", kind="stable").reset_index(drop=True)
    printed = _table(_outputs()[3])
    top = table.head(len(printed))
    assert printed["slice"].tolist() == top["slice"].tolist()
    for column in ("mean", "baseline_mean", "delta", "ci_low", "ci_high"):
        _printed(printed[column], top[column].tolist())
    text = PAGE.read_text(encoding="utf-8")
    assert f"NDCG@10 is {b.mean():.4f}\nagainst {a.mean():.4f}" in text


def test_the_sample_size(users: pd.DataFrame) -> None:
    sd = float(np.std(users["model_b"], ddof=1))
    power = TTestIndPower()
    equal = power.solve_power(0.05 / sd, alpha=0.05 / 19, power=0.8, ratio=1.0)
    printed = _table(_outputs()[4])
    assert printed["n_needed"].tolist() == [math.ceil(equal)]
    assert printed["n_queries"].tolist() == [len(users)]
    # a slice against a rest a thousand times larger: about half
    small = power.solve_power(0.05 / sd, alpha=0.05 / 19, power=0.8, ratio=1000.0)
    assert f"{math.ceil(small)} queries (statsmodels'" in PAGE.read_text(encoding="utf-8")
    assert 0.45 < small / equal < 0.55
