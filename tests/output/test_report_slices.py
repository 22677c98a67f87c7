"""The report's sections of issues 36 and 37: "Where it fails" (``report(slices=[...])``,
``slices()``'s table) and "Exposure of item groups" (``report(item_groups=...)``), on every
frame kind, read back from the HTML and checked against ``slices()``, ``evaluate()``, scipy
and values computed in the test by a plain loop; hostile strings as text.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from test_report_sections import HOSTILE, QUOTED, cells, section, tags

import rankframe  # noqa: F401  (registers the accessors)
from rankframe.adapters.results import as_pandas as eager  # what a report reads a table as
from rankframe.exceptions import ColumnNotFoundError, InvalidOptionError

# Sixteen queries of two items (x, y), one relevant each: a reciprocal rank of 1 or 1/2 per
# system. The themes and devices are constant within a query; b ranks the relevant item
# second in every "news" query, so news is where b loses against a.
N = 16
_RNG = np.random.default_rng(7)
_A_FIRST = _RNG.random(N) < 0.7  # a ranks the relevant item first
_THEME = np.array(["news", "sport"] * (N // 2))
_DEVICE = np.array(
    ["ios"] * (N // 4) + ["web"] * (N // 4) + ["ios"] * (N // 4) + ["web"] * (N // 4)
)
_B_FIRST = (_THEME != "news") & (_RNG.random(N) < 0.8)
_RELEVANT_X = _RNG.random(N) < 0.5  # which item is the relevant one


def _data(theme: np.ndarray = _THEME) -> dict[str, list[Any]]:
    rel_x = np.repeat(_RELEVANT_X, 2)
    item = np.tile(["x", "y"], N)
    relevant = np.where(item == "x", rel_x, ~rel_x).astype(int)

    def score(first: np.ndarray) -> list[float]:
        # 0.9 for the item the system ranks first: the relevant one when `first`
        top = np.where(np.repeat(first, 2), relevant == 1, relevant == 0)
        return np.where(top, 0.9, 0.1).tolist()

    return {
        "query": np.repeat(np.arange(N), 2).tolist(),
        "item": item.tolist(),
        "a": score(_A_FIRST),
        "b": score(_B_FIRST),
        "relevant": relevant.tolist(),
        "theme": np.repeat(theme, 2).tolist(),
        "device": np.repeat(_DEVICE, 2).tolist(),
    }


def _rr(first: np.ndarray) -> np.ndarray:
    """Each query's reciprocal rank: 1 when the relevant item is first, else 1/2."""
    return np.where(first, 1.0, 0.5)


def _slice_cells(html: str) -> list[dict[str, dict[str, str]]]:
    """The rows of the slices' table: per row, its cells' attributes by data-kind."""
    rows: list[dict[str, dict[str, str]]] = []
    for tag, a in tags(section(html, "slices")).tags:
        if tag == "tr" and "data-row" in a:
            rows.append({})
        elif tag == "td" and rows and a.get("data-kind", "").startswith("slices:"):
            rows[-1][a["data-kind"].removeprefix("slices:")] = a
    return rows


def _same(shown: str, expected: Any) -> bool:
    value, want = float(shown), float(expected)
    return (math.isnan(value) and math.isnan(want)) or value == pytest.approx(want, abs=1e-12)


def test_where_it_fails_is_slices_table_against_the_baseline(make_frame: Any) -> None:
    ev = make_frame(_data()).rank_eval(score=["a", "b"])
    report = ev.report(
        ["mrr"], slices=["theme", "device"], slice_min_queries=3, slice_top=4, n_resamples=20
    )
    html = report.html()
    shown = _slice_cells(html)
    expected = eager(ev.slices(["mrr"], ["theme", "device"], baseline="a", min_queries=3, top=4))
    assert len(shown) == len(expected) == 4
    for row, want in zip(shown, expected.to_dict("records"), strict=True):
        assert row["slice"]["data-slice"] == want["slice"]
        assert int(row["n_queries"]["data-value"]) == want["n_queries"]
        for name in ("mean", "baseline_mean", "delta", "p_value", "p_adjusted"):
            assert _same(row[name]["data-value"], want[name]), name
        assert _same(row["delta"]["data-ci-low"], want["ci_low"])
        assert _same(row["delta"]["data-ci-high"], want["ci_high"])
        assert row["delta"]["data-significant"] == str(bool(want["significant"])).lower()
    n_tested = int(expected["n_tested"].iloc[0])
    assert f'data-n-tested="{n_tested}"' in section(html, "slices")
    # every row shown by a plain loop: b - a inside the slice, the paired t-test of scipy;
    # Holm over every test: no adjusted p-value below the raw one times... at most n_tested
    columns = {"theme": _THEME, "device": _DEVICE}
    a, b = _rr(_A_FIRST), _rr(_B_FIRST)
    for row in shown:
        inside = np.ones(N, dtype=bool)
        for predicate in row["slice"]["data-slice"].split(" & "):
            column, value = predicate.split("=")
            inside &= columns[column] == value
        assert int(row["n_queries"]["data-value"]) == inside.sum()
        assert float(row["delta"]["data-value"]) == pytest.approx(
            (b[inside] - a[inside]).mean(), abs=1e-12
        )
        if np.std(b[inside] - a[inside]) > 0:  # scipy's test (constant differences: none)
            assert _same(row["p_value"]["data-value"], stats.ttest_rel(b[inside], a[inside]).pvalue)
        p = float(row["p_value"]["data-value"])
        assert p <= float(row["p_adjusted"]["data-value"]) <= min(1.0, n_tested * p) + 1e-12
    # the worst slice is inside news, where b ranks every relevant item second
    assert shown[0]["slice"]["data-slice"].startswith("theme=news")
    assert "holm correction" in section(html, "slices")


def test_one_system_tests_each_slice_against_the_other_queries(make_frame: Any) -> None:
    ev = make_frame(_data()).rank_eval(score="a")
    report = ev.report(
        ["mrr"], slices="theme", slice_min_queries=2, correction="fdr_bh", n_resamples=20
    )
    shown = _slice_cells(report.html())
    rr = _rr(_A_FIRST)
    # by a plain loop: two themes, each against the other (the same Welch test twice),
    # the worse one first
    means = {t: rr[t == _THEME].mean() for t in ("news", "sport")}
    order = sorted(means, key=lambda t: means[t] - means[({"news", "sport"} - {t}).pop()])
    welch = stats.ttest_ind(rr[_THEME == "news"], rr[_THEME == "sport"], equal_var=False)
    assert [r["slice"]["data-slice"] for r in shown] == [f"theme={t}" for t in order]
    for row, theme in zip(shown, order, strict=True):
        other = ({"news", "sport"} - {theme}).pop()
        assert float(row["mean"]["data-value"]) == pytest.approx(means[theme])
        assert float(row["mean_outside"]["data-value"]) == pytest.approx(means[other])
        assert float(row["p_value"]["data-value"]) == pytest.approx(welch.pvalue, abs=1e-12)
        # Benjamini-Hochberg of two equal p-values leaves them as they are
        assert float(row["p_adjusted"]["data-value"]) == pytest.approx(welch.pvalue, abs=1e-12)
    assert "false discovery rate" in section(report.html(), "slices")


def test_no_slice_large_enough_says_so(make_frame: Any) -> None:
    ev = make_frame(_data()).rank_eval(score=["a", "b"])
    html = ev.report(["mrr"], slices=["theme"], slice_min_queries=10, n_resamples=20).html()
    assert 'data-kind="slices:none"' in section(html, "slices")
    assert 'data-n-tested="0"' in section(html, "slices")


def test_without_the_keywords_there_are_no_such_sections(make_frame: Any) -> None:
    html = make_frame(_data()).rank_eval(score=["a", "b"]).report(["mrr"], n_resamples=20).html()
    assert '<section id="slices">' not in html
    assert '<section id="fairness">' not in html


def test_bad_slice_columns_are_slices_errors(make_frame: Any) -> None:
    ev = make_frame(_data()).rank_eval(score=["a", "b"])
    with pytest.raises(ColumnNotFoundError, match="them"):
        ev.report(["mrr"], slices=["them"], n_resamples=20)
    with pytest.raises(InvalidOptionError, match="at least one slice column"):
        ev.report(["mrr"], slices=[], n_resamples=20)


def test_hostile_slice_values_and_groups_are_text(make_frame: Any) -> None:
    theme = np.where(_THEME == "news", HOSTILE, QUOTED)
    ev = make_frame(_data(theme)).rank_eval(score=["a", "b"])
    groups = {"x": HOSTILE, "y": QUOTED}
    html = ev.report(
        ["mrr"],
        slices=["theme"],
        slice_min_queries=2,
        item_groups=groups,
        exposure_k=2,
        n_resamples=20,
    ).html()
    assert "<script" not in html
    assert 'onerror="' not in html
    rows = _slice_cells(html)
    assert {r["slice"]["data-slice"] for r in rows} == {f"theme={HOSTILE}", f"theme={QUOTED}"}
    shown = {
        a["data-metric"] for a in cells(section(html, "fairness"), "exposure:exposure").values()
    }
    assert shown == {HOSTILE, QUOTED}


# -- exposure ------------------------------------------------------------------------------

# The worked example of docs/fairness.md, plus a query without a relevant item: q1 ranks a
# (group x, grade 2), b (y, 0), c (y, 1); q2 ranks d (y, 1), then e (x, 1); q3 ranks f (x)
# and g (y), neither relevant. System t ranks each query the other way round.
EXPOSED = {
    "query": ["q1", "q1", "q1", "q2", "q2", "q3", "q3"],
    "item": ["a", "b", "c", "d", "e", "f", "g"],
    "s": [3.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
    "t": [1.0, 2.0, 3.0, 1.0, 2.0, 1.0, 2.0],
    "relevant": [2, 0, 1, 1, 1, 0, 0],
}
GROUPS = {"a": "x", "b": "y", "c": "y", "d": "y", "e": "x", "f": "x", "g": "y"}


def _shares(system: str) -> dict[str, tuple[float, float]]:
    """Per group, the mean exposure and merit shares over the queries with a relevant item,
    by a plain loop: attention 1/log2(1 + rank) over the top 3."""
    frame = pd.DataFrame(EXPOSED)
    exposure: dict[str, list[float]] = {"x": [], "y": []}
    merit: dict[str, list[float]] = {"x": [], "y": []}
    for _, rows in frame.groupby("query"):
        if not (rows["relevant"] > 0).any():
            continue
        ranked = rows.sort_values(system, ascending=False).head(3)
        attention = 1 / np.log2(1 + np.arange(1, len(ranked) + 1))
        for g in ("x", "y"):
            mine = ranked["item"].map(GROUPS).to_numpy() == g
            exposure[g].append(attention[mine].sum() / attention.sum())
            grades = rows["relevant"].to_numpy()
            merit[g].append(grades[rows["item"].map(GROUPS).to_numpy() == g].sum() / grades.sum())
    return {g: (float(np.mean(exposure[g])), float(np.mean(merit[g]))) for g in ("x", "y")}


def test_exposure_section_by_hand(make_frame: Any) -> None:
    ev = make_frame(EXPOSED).rank_eval(score=["s", "t"])
    html = ev.report(["mrr"], item_groups=GROUPS, exposure_k=3, n_resamples=50).html()
    fairness = section(html, "fairness")
    exposure = cells(fairness, "exposure:exposure")
    merit = cells(fairness, "exposure:merit")
    gap = cells(fairness, "exposure:gap")
    # by hand for s (docs/fairness.md): E_x = 1 / (1 + 1/log2 3 + 1/2) in q1, and
    # (1/log2 3) / (1 + 1/log2 3) in q2; M_x = 2/3 and 1/2
    third = 1 / math.log2(3)
    e_x = (1 / (1 + third + 0.5) + third / (1 + third)) / 2
    assert float(exposure[("", "s", "x")]["data-value"]) == pytest.approx(e_x, abs=1e-12)
    assert float(merit[("", "s", "x")]["data-value"]) == pytest.approx(
        (2 / 3 + 1 / 2) / 2, abs=1e-12
    )
    for system in ("s", "t"):
        for group, (e, m) in _shares(system).items():
            assert float(exposure[("", system, group)]["data-value"]) == pytest.approx(e)
            assert float(merit[("", system, group)]["data-value"]) == pytest.approx(m)
            assert float(gap[("", system, group)]["data-value"]) == pytest.approx(e - m)
    counts = [
        text for a, text in tags(fairness).texts if a.get("data-kind") == "exposure:n_queries"
    ]
    assert counts == ["2"] * 4  # q3 has no relevant item: two queries per system and group
    # awrf and ndkl: evaluate()'s means and intervals
    means = cells(fairness, "fairness")
    expected = eager(
        ev.evaluate(
            ["awrf@3", "ndkl@3"], item_groups=GROUPS, confidence_level=0.95, n_resamples=50, seed=0
        )
    )
    for row in expected.to_dict("records"):
        for label in ("awrf@3", "ndkl@3"):
            cell = means[("", row["system"], label)]
            assert _same(cell["data-value"], row[label])
            assert _same(cell["data-ci-low"], row[f"{label}_ci_low"])
            assert _same(cell["data-ci-high"], row[f"{label}_ci_high"])


def test_exposure_groups_need_every_item(make_frame: Any) -> None:
    ev = make_frame(EXPOSED).rank_eval(score=["s", "t"])
    partial = {k: v for k, v in GROUPS.items() if k != "g"}
    with pytest.raises(InvalidOptionError, match="'g'"):
        ev.report(["mrr"], item_groups=partial, exposure_k=3, n_resamples=20)
