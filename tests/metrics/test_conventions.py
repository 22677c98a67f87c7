"""``convention=`` presets reproduce the tools they are named after.

Two kinds of evidence, each through the preset and on every frame kind (``make_frame``):

1. Each peer's own published test values, transcribed (the data and the expected numbers,
   never their code): ranx ``tests/unit/ranx/metrics_test.py``, torchmetrics' retrieval
   docstring examples (its doctested reference values), LensKit ``tests/eval/test_rank_*.py``,
   Microsoft Recommenders ``tests/unit/recommenders/evaluation/test_python_evaluation.py``,
   scikit-learn ``sklearn/metrics/tests/test_ranking.py`` (NDCG/DCG) and Evidently
   ``tests/metrics/recsys/test_*.py``.
2. Seeded random cross-checks against the peers the test extra installs: pytrec_eval
   (``trec_eval``), ranx, ir_measures and scikit-learn. torchmetrics needs torch, which CI does
   not install: its values come from (1) only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import helpers
import rankframe
from helpers import DOCS, as_float, as_pandas, unlabelled
from rankframe.pipeline.steps import reads_shared_ranks
from rankframe.settings.conventions import CONVENTION, CONVENTIONS, ConventionName
from rankframe.settings.options import OPTIONS

TOL = 1e-9

# The option and error grid: every frame kind but Dask, whose one-call-per-case tests in
# tests/backends/test_dask.py stand in for it (helpers.GRID_KINDS); ranx compiles its metrics
# with numba, which warns about its own casts
pytestmark = [
    pytest.mark.frame_kinds(*helpers.GRID_KINDS),
    pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning"),
]


def as_dict(result: Any, key: str = "query") -> dict[Any, dict[str, float]]:
    """The table without the preset or options its labels name (``map@2(convention=
    lenskit)`` is read as ``map@2``): the values are compared with each tool's own."""
    return helpers.as_dict(unlabelled(result), key)


def _per_query(frame: Any, metrics: Sequence[str], **options: Any) -> dict[Any, dict[str, float]]:
    return as_dict(frame.rank_eval.per_query(list(metrics), **options))


def _lists(
    cases: Sequence[tuple[Sequence[Any], Sequence[Any]]],
    grades: Sequence[dict[Any, float]] | None = None,
) -> pd.DataFrame:
    """One query per (recommended list, truth) case, named q00, q01, ...: the list's items in
    order with descending scores, then the truth items not in the list with a null score;
    relevant is 1 for a truth item (or its grade from ``grades``), 0 otherwise."""
    rows = []
    for n, (recs, truth) in enumerate(cases):
        query = f"q{n:02d}"
        gain = grades[n] if grades is not None else dict.fromkeys(truth, 1.0)
        for position, item in enumerate(recs):
            rows.append((query, item, float(len(recs) - position), gain.get(item, 0.0)))
        rows += [(query, item, math.nan, g) for item, g in gain.items() if item not in recs]
    return pd.DataFrame(rows, columns=["query", "item", "score", "relevant"])


def _values(result: dict[Any, dict[str, float]], column: str) -> list[float]:
    return [result[q][column] for q in sorted(result)]


def _same(actual: Sequence[float], expected: Sequence[float], tol: float = TOL) -> None:
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        if math.isnan(e):
            assert math.isnan(a), (actual, expected)
        else:
            assert a == pytest.approx(e, rel=tol, abs=tol), (actual, expected)


# -- the presets are declared data --------------------------------------------------------


def test_presets_set_declared_options_to_allowed_values() -> None:
    assert set(CONVENTIONS) == set(ConventionName.__args__)  # type: ignore[attr-defined]
    for convention in CONVENTIONS.values():
        for name, value in convention.options.items():
            OPTIONS[name].validate(value)
    with pytest.raises(rankframe.InvalidOptionError, match="Did you mean 'lenskit'"):
        CONVENTION.validate("lenskt")


def test_docs_table_of_each_preset_is_the_declaration() -> None:
    text = (DOCS / "conventions.md").read_text(encoding="utf-8")
    table = text.split("| preset |", 1)[1].split("\n\n", 1)[0]
    rows = [r for r in table.splitlines()[2:] if r.startswith("|")]
    listed = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        name = re.findall(r"`([^`]*)`", cells[0])[0]
        listed[name] = dict(re.findall(r'`(\w+)="?([^`"]*)"?`', cells[1]))
    assert list(listed) == list(CONVENTIONS)
    for name, convention in CONVENTIONS.items():
        declared = {k: str(v) for k, v in convention.options.items()}
        documented = {k: v for k, v in listed[name].items() if k != "ties" or k in declared}
        assert documented == declared, name


def test_explicit_options_win_over_the_preset(make_frame: Any) -> None:
    # q1: relevant items at ranks 2 and 4 of 4, one more never retrieved (R = 3)
    frame = make_frame(_lists([(["a", "b", "c", "d"], ["b", "d", "e"])]))
    ev = frame.rank_eval
    # torchmetrics: AP@2 over the hits in the top 2 (one hit, at rank 2): 1/2
    assert as_float(ev.map(k=2, convention="torchmetrics")) == pytest.approx(0.5)
    assert as_float(ev.map(k=2)) == pytest.approx(0.5 / 3)
    assert as_float(
        ev.map(k=2, convention="torchmetrics", ap_denominator="relevant")
    ) == pytest.approx(0.5 / 3)
    table = _per_query(frame, ["map@2"], convention="torchmetrics", ap_denominator="min_k")
    assert table["q00"]["map@2"] == pytest.approx(0.25)
    # recommenders' map_at_k: min(R, k) = 2; recall stays over R = 3
    table = _per_query(frame, ["map@2", "recall@2"], convention="recommenders")
    assert table["q00"] == {"map@2": pytest.approx(0.25), "recall@2": pytest.approx(1 / 3)}


def test_the_command_line_takes_a_convention(tmp_path: Path) -> None:
    from rankframe.cli import main

    path = tmp_path / "run.csv"
    _lists([(["a", "b", "c"], ["b", "z"]), ([], ["x"])]).to_csv(path, index=False)
    out = tmp_path / "out.json"
    assert (
        main(
            [
                "evaluate",
                str(path),
                "-m",
                "map@2,precision@5",
                "--convention",
                "lenskit",
                "--per-query",
                "--format",
                "json",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    rows = unlabelled(pd.read_json(out))
    assert list(pd.read_json(out).columns) == [
        "query",
        "map@2(convention=lenskit)",
        "precision@5(convention=lenskit)",
    ]
    # LensKit: AP@2 = (1/2) / min(R=2, 2 listed) ; P@5 = 1 / min(5, 3 listed); the empty list
    # gives NaN
    assert rows["map@2"].iloc[0] == pytest.approx(0.25)
    assert rows["precision@5"].iloc[0] == pytest.approx(1 / 3)
    assert rows["map@2"].isna().iloc[1]
    assert (
        main(
            [
                "evaluate",
                str(path),
                "-m",
                "map@2",
                "--convention",
                "lenskit",
                "--empty-list",
                "zero",
                "--per-query",
                "--format",
                "json",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert pd.read_json(out)["map@2(convention=lenskit,empty_list=zero)"].iloc[1] == 0
    # issue 35: --empty-ndcg; a query of negative grades: LensKit's NDCG 0, or left out
    path.write_text("query,item,score,relevant\nu,a,2,-1\nv,a,2,1\n")
    assert (
        main(
            [
                "evaluate",
                str(path),
                "-m",
                "ndcg",
                "--convention",
                "lenskit",
                "--empty-ndcg",
                "no_relevant",
                "--per-query",
                "--format",
                "json",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    column = pd.read_json(out)["ndcg(convention=lenskit,empty_ndcg=no_relevant)"]
    assert column.isna().tolist() == [True, False]


# -- 1. the peers' own test values --------------------------------------------------------


def test_ranx_published_values(make_frame: Any) -> None:
    # ranx's arrays are already in rank order (every score 1): ranx keeps that order, and the
    # preset's ties="first" keeps the frame's
    def frame(cases: list[tuple[list[int], dict[int, float]]]) -> Any:
        rows = []
        for n, (pred, truth) in enumerate(cases):
            rows += [(f"q{n}", i, 1.0, truth.get(i, 0.0)) for i in pred]
            rows += [(f"q{n}", i, math.nan, g) for i, g in truth.items() if i not in pred]
        return make_frame(pd.DataFrame(rows, columns=["query", "item", "score", "relevant"]))

    ones = dict.fromkeys
    hits = frame(
        [([1, 2, 3, 4, 5, 7], ones([1, 4, 5, 6], 1.0)), ([1, 2, 4, 3, 5, 7], ones([1, 4, 6], 1.0))]
    ).rank_eval
    assert as_float(hits.hit_count(k=5, convention="ranx")) == 2.5
    rate = frame(
        [([1, 2, 3, 4, 5, 7], ones([9, 6, 8], 1.0)), ([1, 2, 4, 3, 5, 7], ones([1, 2, 4], 1.0))]
    ).rank_eval
    assert as_float(rate.acc(k=5, convention="ranx")) == 0.5
    rr = frame([([2, 3, 1, 4, 5], {3: 1.0}), ([2, 1, 4, 5], {3: 1.0})])
    assert _values(_per_query(rr, ["mrr@5"], convention="ranx"), "mrr@5") == [0.5, 0.0]
    pred = [2, 4, 3, 1, 5, 6, 7]
    two = frame([(pred, ones([1, 2, 3], 1.0)), (pred, ones([1, 2], 1.0))]).rank_eval
    assert as_float(two.r_precision(convention="ranx")) == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert as_float(two.recall(k=2, convention="ranx")) == pytest.approx((1 / 3 + 1 / 2) / 2)

    graded = {2: 5.0, 4: 4.0, 5: 3.0, 10: 2.0}
    lists = frame(
        [([1, 2, 3, 4, 5], graded), ([10, 5, 2, 4, 3], graded), ([1, 3, 6, 7, 8], graded)]
    )
    log2 = np.log2
    dcg = [
        5 / log2(3) + 4 / log2(5) + 3 / log2(6),
        2 / log2(2) + 3 / log2(3) + 5 / log2(4) + 4 / log2(5),
        0.0,
    ]
    idcg = 5 / log2(2) + 4 / log2(3) + 3 / log2(4) + 2 / log2(5)
    burges = [
        31 / log2(3) + 15 / log2(5) + 7 / log2(6),
        3 / log2(2) + 7 / log2(3) + 31 / log2(4) + 15 / log2(5),
        0.0,
    ]
    iburges = 31 / log2(2) + 15 / log2(3) + 7 / log2(4) + 3 / log2(5)
    linear = _per_query(lists, ["dcg@10", "ndcg@10"], convention="ranx")
    _same(_values(linear, "dcg@10"), dcg)
    _same(_values(linear, "ndcg@10"), [d / idcg for d in dcg])
    exponential = _per_query(lists, ["dcg@10", "ndcg@10"], convention="ranx", gain="exponential")
    _same(_values(exponential, "dcg@10"), burges)
    _same(_values(exponential, "ndcg@10"), [d / iburges for d in burges])


def test_torchmetrics_published_values(make_frame: Any) -> None:
    # the example of every torchmetrics.retrieval class (indexes 0 and 1)
    frame = make_frame(
        {
            "query": [0, 0, 0, 1, 1, 1, 1],
            "item": list("abcdefg"),
            "score": [0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2],
            "relevant": [False, False, True, False, True, False, True],
        }
    )
    ev = frame.rank_eval
    published = {"map": 0.7917, "precision@2": 0.5, "recall@2": 0.75, "mrr": 0.75, "ndcg": 0.8467}
    table = as_dict(ev.evaluate(list(published), convention="torchmetrics"), key="n_queries")
    for metric, value in published.items():
        assert table[2][metric] == pytest.approx(value, abs=5e-5), metric
    # top_k: AP over the hits in the top k. Query 1 ranks f (0.5), e (0.3, relevant),
    # g (0.2, relevant): AP@2 = (1/2) / 1 hit; query 0's first item is relevant: 1
    _same(_values(_per_query(frame, ["map@2"], convention="torchmetrics"), "map@2"), [1.0, 0.5])
    # adaptive_k: P@5 over min(5, list length) = 1/3 and 2/4; by default over 5
    adaptive = _per_query(
        frame, ["precision@5"], convention="torchmetrics", precision_denominator="retrieved"
    )
    _same(_values(adaptive, "precision@5"), [1 / 3, 2 / 4])
    _same(
        _values(_per_query(frame, ["precision@5"], convention="torchmetrics"), "precision@5"),
        [1 / 5, 2 / 5],
    )


def test_torchmetrics_empty_target_pos(make_frame: Any) -> None:
    # a query without a positive target scores 1 under empty_target_action="pos"
    frame = make_frame(
        {
            "query": [0, 0, 1, 1],
            "item": ["a", "b", "a", "b"],
            "score": [0.9, 0.1, 0.9, 0.1],
            "relevant": [0, 1, 0, 0],
        }
    )
    table = _per_query(frame, ["mrr", "map", "ndcg"], convention="torchmetrics", empty="one")
    assert table[1] == {"mrr": 1.0, "map": 1.0, "ndcg": 1.0}
    assert as_float(frame.rank_eval.mrr(convention="torchmetrics", empty="one")) == 0.75


LENSKIT_AP = [  # (recommended, truth, k, value)
    ([], [1, 2, 3], None, math.nan),
    ([1, 3, 5], [1, 3, 5], None, 1.0),
    ([1, 2, 3], [1, 3], None, (1.0 + 2 / 3) / 2),
    ([1, 2, 3], [2, 4], None, 0.25),
    ([10, 20, 30], [1, 2, 3], None, 0.0),
    ([1, 4, 6], [2, 3, 5], None, 0.0),
]
LENSKIT_AP_AT_K = [
    ([1, 2, 3, 4, 5], [1, 3, 5], 3, (1.0 + 2 / 3) / 3),
    ([1, 2, 3, 4, 5], [4, 5, 6], 2, 0.0),
]
LENSKIT_PRECISION = [
    ([], [1, 3], None, math.nan),
    ([1, 3], [1, 3], None, 1.0),
    ([1], [1, 3], None, 1.0),
    ([1, 2, 3, 4], [1, 3], None, 0.5),
    ([1, 2, 3, 4], [1, 3, 5], None, 0.5),
    ([1, 2, 3, 4], list(range(5, 10)), None, 0.0),
    ([1, 2, 3, 4], list(range(4, 10)), None, 0.25),
    ([1, 0, 150, 3, 10], list(range(100)), 5, 0.8),
    ([1, 0, 150, 3, 10, 30, 120, 4, 17], list(range(100)), 5, 0.8),
    ([1, 0, 150], list(range(100)), 5, 2 / 3),
]
LENSKIT_RECALL = [
    ([], [1, 3], None, 0.0),
    ([1, 3], [], None, math.nan),
    ([1, 3], [1, 3], None, 1.0),
    ([1], [1, 3], None, 0.5),
    ([1, 2, 3, 4], [1, 3], None, 1.0),
    ([1, 2, 3, 4], [1, 3, 5], None, 2 / 3),
    ([1, 2, 3, 4], list(range(5, 10)), None, 0.0),
    ([1, 2, 3, 4], list(range(4, 9)), None, 0.2),
    ([1, 0, 150, 3, 10], list(range(100)), 5, 0.8),
    ([1, 0, 150, 3, 10, 30, 120, 4, 17], list(range(100)), 5, 0.8),
    ([1, 0, 150, 3, 10], list(range(100)), 10, 0.4),
]
LENSKIT_RR = [
    ([], [1, 3], None, 0.0),
    ([1, 2, 3], [4, 5], None, 0.0),
    ([1, 2, 3], [1, 4], None, 1.0),
    ([1, 2, 3], [5, 2, 3], None, 0.5),
    (list(range(1, 21)), [20, 10], None, 0.1),
    (list(range(1, 21)), [20, 10], 5, 0.0),
    (list(range(1, 21)), [20, 10, 5], 5, 0.2),
    ([1, 2, 3, 4], [2], 10, 0.5),
]
LENSKIT_HIT = [
    ([], [1, 3], None, 0.0),
    ([1, 3], [], None, math.nan),
    ([1, 3], [1, 3], None, 1.0),
    ([1], [1, 3], None, 1.0),
    ([1, 2, 3, 4], list(range(5, 10)), None, 0.0),
    ([1, 2, 3, 4], list(range(4, 9)), None, 1.0),
    ([1, 0, 150, 3, 10, 30, 120, 4, 17], list(range(100)), 5, 1.0),
    ([1, 0, 150, 3, 10], list(range(100)), 10, 1.0),
]


@pytest.mark.parametrize(
    ("metric", "cases"),
    [
        ("map", LENSKIT_AP + LENSKIT_AP_AT_K),
        ("precision", LENSKIT_PRECISION),
        ("recall", LENSKIT_RECALL),
        ("mrr", LENSKIT_RR),
        ("acc", LENSKIT_HIT),
    ],
)
def test_lenskit_published_values(make_frame: Any, metric: str, cases: list[Any]) -> None:
    for k in dict.fromkeys(case[2] for case in cases):
        chosen = [c for c in cases if c[2] == k]
        frame = make_frame(_lists([(recs, truth) for recs, truth, _, _ in chosen]))
        name = metric if k is None else f"{metric}@{k}"
        values = _values(_per_query(frame, [name], convention="lenskit"), name)
        _same(values, [c[3] for c in chosen])


def test_lenskit_published_dcg_values(make_frame: Any) -> None:
    ratings = {1: 3.0, 2: 5.0, 3: 4.0}
    binary = dict.fromkeys(ratings, 1.0)
    cases = [
        ([], list(ratings)),
        ([4], list(ratings)),
        ([2, 3, 1], list(ratings)),
        ([1, 2], list(ratings)),
        ([1, 3], list(ratings)),
    ]
    two = 1 / np.log2(3)  # LensKit's discount: ranks 1 and 2 weigh 1, rank 3 1/log2(3)
    fixed = {1: 1.0, 2: 2.0, 3: 2.0 + two}  # DCG of n items of gain 1

    flat = make_frame(_lists(cases, [binary] * len(cases)))
    table = _per_query(flat, ["ndcg", "ndcg@2", "dcg", "dcg@2"], convention="lenskit")
    _same(_values(table, "ndcg"), [0.0, 0.0, 1.0, fixed[2] / fixed[3], 1.0 * 2 / fixed[3]])
    _same(_values(table, "ndcg@2"), [0.0, 0.0, 1.0, 1.0, 1.0])
    _same(_values(table, "dcg"), [0.0, 0.0, fixed[3], fixed[2], 2.0])
    _same(_values(table, "dcg@2"), [0.0, 0.0, 2.0, 2.0, 2.0])

    graded = make_frame(_lists(cases, [ratings] * len(cases)))
    table = _per_query(graded, ["ndcg", "ndcg@2", "dcg"], convention="lenskit")
    ideal = 5 + 4 + 3 * two
    _same(_values(table, "ndcg"), [0.0, 0.0, 1.0, (3 + 5) / ideal, (3 + 4) / ideal])
    _same(_values(table, "ndcg@2")[-1:], [(3 + 4) / (5 + 4)])
    _same(_values(table, "dcg"), [0.0, 0.0, ideal, 3 + 5, 3 + 4])
    # no truth: NaN
    none = make_frame(_lists([([1, 2, 3], [])]))
    assert math.isnan(_values(_per_query(none, ["ndcg"], convention="lenskit"), "ndcg")[0])


def test_lenskit_clips_negative_gains_since_2026_1(make_frame: Any) -> None:
    # issue 25: LensKit 2026.1's NDCG clips negative gains to 0 (in the list and the ideal).
    # Ratings -6, -2, 3, 1, -3 in list order: LensKit gives 0.5982, i.e. DCG 3/log2(3) +
    # 1/log2(4) (its discount leaves ranks 1 and 2 alone) over the ideal 3 + 1
    frame = make_frame(
        {
            "query": "u",
            "item": list("abcde"),
            "score": [5.0, 4, 3, 2, 1],
            "relevant": [-6, -2, 3, 1, -3],
        }
    )
    ndcg = as_float(frame.rank_eval.ndcg(convention="lenskit"))
    assert ndcg == pytest.approx(0.5982, abs=5e-5)
    assert ndcg == pytest.approx((3 / np.log2(3) + 1 / 2) / 4)
    # LensKit 2025 summed them: its ideal 3 + 1 - 2/log2(3) - 3/2 - 6/log2(5) is below 0,
    # which rankframe counts 0 (the preset's number before issue 25)
    assert as_float(frame.rank_eval.ndcg(convention="lenskit", negative_gains="keep")) == 0.0


def test_lenskit_all_negative_ratings(make_frame: Any) -> None:
    # issue 35: LensKit >= 2026.1 (_dcg.py) clips test ratings below 0 to 0; a user with test
    # items whose ideal DCG is then 0 gets NDCG 0.0 (DCG 0), and only an empty test list NaN.
    # u: test ratings -1, -3; v: b rated 2 at rank 2, a not a test item (0); w: no test item.
    frame = make_frame(
        {
            "query": ["u", "u", "v", "v", "w", "w"],
            "item": ["a", "b", "a", "b", "a", "b"],
            "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
            "relevant": [-1, -3, 0, 2, 0, 0],
        }
    )
    table = _per_query(frame, ["ndcg", "dcg", "precision@2"], convention="lenskit")
    # u: DCG = max(-1, 0)/1 + max(-3, 0)/1 = 0, ideal 0 -> 0. v: DCG = 2 / log2(max(2, 2))
    # = 2, ideal 2 / log2(max(1, 2)) = 2 -> 1. P@2: u has no relevant item (NaN, left out),
    # v 1 hit / min(2, 2 listed) = 1/2. w: NaN everywhere
    assert table["u"]["ndcg"] == 0.0
    assert table["u"]["dcg"] == 0.0
    assert math.isnan(table["u"]["precision@2"])
    assert table["v"] == {
        "ndcg": pytest.approx(1.0),
        "dcg": pytest.approx(2.0),
        "precision@2": pytest.approx(0.5),
    }
    assert all(math.isnan(v) for v in table["w"].values())
    # LensKit's means over its users with test items: NDCG (0 + 1) / 2, P@2 over v alone
    means = as_dict(
        frame.rank_eval.evaluate(["ndcg", "precision@2"], convention="lenskit"), key="n_queries"
    )
    assert means == {2: {"ndcg": pytest.approx(0.5), "precision@2": pytest.approx(0.5)}}
    # empty="skip" keeps u's row (ndcg counts it), w's goes
    skipped = _per_query(frame, ["ndcg", "precision@2"], convention="lenskit", empty="skip")
    assert list(skipped) == ["u", "v"]
    assert skipped["u"]["ndcg"] == 0.0
    assert math.isnan(skipped["u"]["precision@2"])
    # explicit: "no_relevant" leaves u out, as the preset did before issue 35: v alone
    assert as_float(frame.rank_eval.ndcg(convention="lenskit", empty_ndcg="no_relevant")) == (
        pytest.approx(1.0)
    )


def test_lenskit_keeps_negative_gains_on_request(make_frame: Any) -> None:
    # LensKit 2025: test ratings 3 and -1 (both test items), list [b, a, x]: DCG = -1 + 3 = 2
    # (ranks 1 and 2 are not discounted); the ideal puts 3 first and -1 second: 3 - 1 = 2
    frame = make_frame(_lists([(["b", "a", "x"], ["a", "b"])], [{"a": 3.0, "b": -1.0}]))
    table = _per_query(frame, ["dcg", "ndcg"], convention="lenskit", negative_gains="keep")
    assert table["q00"] == {"dcg": pytest.approx(2.0), "ndcg": pytest.approx(1.0)}
    # LensKit 2026.1: -1 counts 0; DCG 3 (rank 2, undiscounted), the ideal 3
    table = _per_query(frame, ["dcg", "ndcg"], convention="lenskit")
    assert table["q00"] == {"dcg": pytest.approx(3.0), "ndcg": pytest.approx(1.0)}
    default = _per_query(frame, ["dcg", "ndcg"])  # trec_eval: no gain below 0
    assert default["q00"]["dcg"] == pytest.approx(3 / np.log2(3))


RECOMMENDERS_TRUE = {
    "user": [1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1],
    "item": [3, 1, 4, 5, 6, 7, 2, 5, 6, 8, 9, 10, 11, 12, 13, 14, 1, 2],
    "rating": [3, 5, 5, 3, 3, 1, 5, 5, 5, 4, 4, 3, 3, 3, 2, 1, 5, 4],
}
RECOMMENDERS_PRED = {
    "user": [1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1],
    "item": [12, 10, 3, 5, 11, 13, 4, 10, 7, 13, 1, 3, 5, 2, 11, 14, 3, 10],
    "prediction": [12, 14, 13, 12, 11, 10, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 14, 13],
}


def _recommenders_frame(prediction: dict[str, list[int]]) -> pd.DataFrame:
    """Recommenders' fixtures as one long frame: every true item is relevant (its rating as
    the grade), predicted items not in the truth have grade 0, true items not predicted have
    a null score."""
    true, pred = pd.DataFrame(RECOMMENDERS_TRUE), pd.DataFrame(prediction)
    frame = pred.merge(true, on=["user", "item"], how="outer")
    return pd.DataFrame(
        {
            "query": frame["user"],
            "item": frame["item"],
            "score": frame["prediction"].astype(float),
            "relevant": frame["rating"].fillna(0),
        }
    )


def test_recommenders_published_values(make_frame: Any) -> None:
    frame = _recommenders_frame(RECOMMENDERS_PRED)
    binary = make_frame(frame.assign(relevant=frame["relevant"] > 0)).rank_eval
    published = {
        "precision@10": 0.26666,
        "recall@10": 0.37777,
        "map@10": 0.23613,
        "ndcg@10": 0.38172,
    }
    table = as_dict(binary.evaluate(list(published), convention="recommenders"), key="n_queries")
    for metric, value in published.items():
        assert table[3][metric] == pytest.approx(value, rel=1e-4), metric
    # the truth as the prediction: every relevant item first (ratings tie within users;
    # every true item is relevant, so the order among them does not matter)
    perfect = _recommenders_frame(
        {
            "user": RECOMMENDERS_TRUE["user"],
            "item": RECOMMENDERS_TRUE["item"],
            "prediction": RECOMMENDERS_TRUE["rating"],
        }
    )
    ideal = make_frame(perfect.assign(relevant=perfect["relevant"] > 0)).rank_eval
    table = as_dict(
        ideal.evaluate(
            ["precision@10", "map@10", "recall@10", "ndcg@10"], convention="recommenders"
        ),
        key="n_queries",
    )
    assert table[3] == {
        "precision@10": pytest.approx(0.6),
        "map@10": 1.0,
        "recall@10": 1.0,
        "ndcg@10": pytest.approx(1.0),
    }
    # Wikipedia's DCG example with raw grades: ndcg_at_k(k=6, score_type="raw") = 0.785
    wiki = make_frame(
        {
            "query": 0,
            "item": list(range(8)),
            "score": [6, 5, 4, 3, 2, 1, None, None],
            "relevant": [3, 2, 3, 0, 1, 2, 3, 2],
        }
    )
    assert as_float(wiki.rank_eval.ndcg(k=6, convention="recommenders")) == pytest.approx(
        0.785, rel=1e-3
    )


def test_recommenders_users_without_predictions(make_frame: Any) -> None:
    # issue 35, python_evaluation.py: rating_true has user 1 (items 1, 2) and user 2 (item 1);
    # rating_pred has user 1's items 1, 5, 2 (scores 3, 2, 1) and user 3's item 4, who has no
    # truth. merge_ranking_true_pred keeps the common users: n_users = 1 (user 1); user 1's
    # hits are item 1 at rank 1 and item 2 at rank 3. k = 3:
    frame = make_frame(
        {
            "query": [1, 1, 1, 2, 3],
            "item": [1, 5, 2, 1, 4],
            "score": [3.0, 2.0, 1.0, math.nan, 1.0],
            "relevant": [True, False, True, True, False],
        }
    )
    metrics = ["ndcg@3", "precision@3", "recall@3", "map@3", "r_precision"]
    means = as_dict(frame.rank_eval.evaluate(metrics, convention="recommenders"), key="n_queries")[
        2
    ]
    # precision_at_k: (hit / k).sum() / n_users = (2/3) / 1
    assert means["precision@3"] == pytest.approx(2 / 3)
    # recall_at_k: (hit / actual).sum() / n_users = (2/2) / 1
    assert means["recall@3"] == pytest.approx(1.0)
    # map_at_k: rr = cumcount / rank = 1/1 + 2/3, over min(actual=2, k=3), / n_users 1
    assert means["map@3"] == pytest.approx((1 + 2 / 3) / 2)
    # r_precision_at_k: hits at rank <= actual (2): item 1 only, 1/2, mean over user 1
    assert means["r_precision"] == pytest.approx(0.5)
    # ndcg_at_k: the outer merge with all of rating_true brings user 2 in with rank NaN:
    # its DCG sums to 0 over an ideal 1/ln 2 (0); user 1: (1/ln 2 + 1/ln 4) / (1/ln 2 +
    # 1/ln 3); the mean over both users
    user1 = (1 / np.log(2) + 1 / np.log(4)) / (1 / np.log(2) + 1 / np.log(3))
    assert means["ndcg@3"] == pytest.approx((user1 + 0) / 2)
    # per user: 2 counts 0 in ndcg, is left out (NaN) by the others; 3 is gone (no truth)
    table = _per_query(frame, metrics, convention="recommenders")
    assert list(table) == [1, 2]
    assert table[2]["ndcg@3"] == 0.0
    assert all(math.isnan(table[2][m]) for m in metrics[1:])
    # empty_list="zero" counts user 2 as 0 everywhere (the preset before issue 35)
    zero = frame.rank_eval.precision(k=3, convention="recommenders", empty_list="zero")
    assert as_float(zero) == pytest.approx((2 / 3 + 0) / 2)


def test_sklearn_published_values(make_frame: Any) -> None:
    # test_ndcg_toy_examples: five samples of seven items, scores 6..0, sample i's only
    # relevant item (grade 3) at position i
    rows = [(q, i, 6 - i, 3.0 if i == q else 0.0) for q in range(5) for i in range(7)]
    frame = make_frame(pd.DataFrame(rows, columns=["query", "item", "score", "relevant"]))
    discounts = 1 / np.log2(np.arange(2, 7))
    table = _per_query(frame, ["ndcg", "dcg"], convention="sklearn")
    _same(_values(table, "ndcg"), list(discounts))
    _same(_values(table, "dcg"), list(3 * discounts))
    assert as_float(frame.rank_eval.ndcg(convention="sklearn")) == pytest.approx(discounts.mean())
    flat = make_frame(
        pd.DataFrame(
            [(q, i, 6 - i, 3.0) for q in range(5) for i in range(7)],
            columns=["query", "item", "score", "relevant"],
        )
    )
    assert as_float(flat.rank_eval.ndcg(convention="sklearn")) == pytest.approx(1.0)
    assert as_float(flat.rank_eval.dcg(convention="sklearn")) == pytest.approx(
        (3 / np.log2(np.arange(2, 9))).sum()
    )


EVIDENTLY = {
    "query": list("aaabbbccc"),
    "item": [1, 2, 3] * 3,
    "score": [1.25, 1.0, 0.3, 0.9, 0.8, 0.7, 1.0, 0.5, 0.3],
    "relevant": [1, 0, 0, 0, 0, 0, 0, 0, 1],
}


@pytest.mark.parametrize(
    ("k", "precision", "map_", "ndcg"),
    [
        (1, 0.5, 0.5, 0.5),
        (2, 0.25, 0.5, 0.5),
        (3, 1 / 3, 2 / 3, 0.75),
    ],
)
def test_evidently_published_values(
    make_frame: Any, k: int, precision: float, map_: float, ndcg: float
) -> None:
    ev = make_frame(EVIDENTLY).rank_eval
    metrics = [f"precision@{k}", f"map@{k}", f"mrr@{k}", f"ndcg@{k}"]
    table = as_dict(ev.evaluate(metrics, convention="evidently"), key="n_queries")[2]
    assert table[f"precision@{k}"] == pytest.approx(precision)
    assert table[f"map@{k}"] == pytest.approx(map_)
    assert table[f"mrr@{k}"] == pytest.approx(map_)
    assert table[f"ndcg@{k}"] == pytest.approx(ndcg)
    # no_feedback_users=True keeps user b (0): empty="zero"
    judged = as_dict(
        ev.evaluate(metrics[:3], convention="evidently", empty="zero"), key="n_queries"
    )[3]
    included = {1: (1 / 3, 1 / 3), 2: (1 / 6, 1 / 3), 3: (2 / 9, 4 / 9)}[k]
    assert judged[f"precision@{k}"] == pytest.approx(included[0])
    assert judged[f"map@{k}"] == pytest.approx(included[1])


def test_evidently_ties_share_their_truncated_average_rank(make_frame: Any) -> None:
    # Evidently ranks with pandas' rank(method="average").astype(int): b and c tie for ranks
    # 2 and 3, both get rank 2; d, e, f tie for 4..6 and get 5
    frame = make_frame(
        {
            "query": "q",
            "item": list("abcdef"),
            "score": [9.0, 5.0, 5.0, 1.0, 1.0, 1.0],
            "relevant": [0, 0, 1, 0, 0, 1],
        }
    )
    ranked = as_dict(frame.rank_eval.rank(ties="truncated_average"), key="item")
    assert [ranked[i]["rank"] for i in "abcdef"] == [1, 2, 2, 5, 5, 5]
    table = _per_query(frame, ["mrr", "precision@2", "ndcg@5"], convention="evidently")["q"]
    assert table["mrr"] == pytest.approx(1 / 2)
    assert table["precision@2"] == pytest.approx(1 / 2)
    # DCG: c at rank 2 (1/log2(3)) and f at rank 5 (1/log2(6)); ideal: ranks 1 and 2
    assert table["ndcg@5"] == pytest.approx(
        (1 / np.log2(3) + 1 / np.log2(6)) / (1 + 1 / np.log2(3))
    )


def test_evidently_ap_never_exceeds_one_under_shared_ranks(make_frame: Any) -> None:
    # issue 25: a and b tie at the top, both relevant, and share rank 1. Evidently's AP@2,
    # (1/R) sum over j <= 2 of P@j * rel(last row ranked at or above j), is
    # (2/1 * 1 + 2/2 * 1) / 2 = 1.5 (Evidently's own value); either order of the pair gives
    # the standard AP@2 = (1/1 + 2/2) / 2 = 1, the preset's value (was 2.0)
    frame = make_frame(
        {"query": "u", "item": ["a", "b", "c"], "score": [1.0, 1.0, 0.5], "relevant": [1, 1, 0]}
    )
    assert as_float(frame.rank_eval.map(k=2, convention="evidently")) == pytest.approx(1.0)
    # b (relevant) ties with c for ranks 2 and 3 (shared rank 2), after a (not relevant):
    # Evidently's AP@2 reads the last of b and c in the frame's order: 0 if c comes last,
    # (2 rows at or above 2: P@2 = 1/2) 1/2 if b does. The standard AP@2 averaged over the
    # two orders: b at rank 2 with chance 1/2, precision 1/2 there: 1/4, in either row order
    rows = {"query": "u", "item": ["a", "b", "c"], "score": [2.0, 1.0, 1.0], "relevant": [0, 1, 0]}
    swapped = {**rows, "item": ["a", "c", "b"], "relevant": [0, 0, 1]}
    for data in (rows, swapped):
        ev = make_frame(data).rank_eval
        assert as_float(ev.map(k=2, convention="evidently")) == pytest.approx(0.25)
    # a list shorter than k: Evidently counts its relevant last row again at every cut-off
    # past the list (u's one item at j = 1 and 2: (1 + 1) / 1 = 2 when v's list reaches 2);
    # the preset gives the standard AP@2 of u, 1, and v's (1/2) / 1
    short = make_frame(
        {
            "query": ["u", "v", "v"],
            "item": ["a", "a", "b"],
            "score": [1.0, 2.0, 1.0],
            "relevant": [1, 0, 1],
        }
    )
    table = _per_query(short, ["map@2"], convention="evidently")
    assert table == {"u": {"map@2": 1.0}, "v": {"map@2": pytest.approx(0.5)}}


@pytest.mark.parametrize("seed", [0, 1])
def test_evidently_ap_is_the_tie_averaged_ap(make_frame: Any, seed: int) -> None:
    # the rule on random frames with many ties: the preset's AP is the standard AP averaged
    # over the orders of the tied rows, taken here by brute force over every order
    import itertools

    data = _random_frame(seed, items=6, queries=8)
    frame = make_frame(data)
    for k in (1, 3, 6):
        ours = _per_query(frame, [f"map@{k}"], convention="evidently")
        for query, rows in data.groupby("query"):
            ranked = rows.dropna(subset=["score"])
            n_relevant = int((rows["relevant"] > 0).sum())
            if n_relevant == 0:
                assert query not in ours  # empty="skip"
                continue
            groups = [list(g["relevant"] > 0) for _, g in ranked.groupby("score", sort=True)][
                ::-1
            ]  # score descending
            values = []
            for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
                flat = [r for order in orders for r in order][:k]
                hits = np.cumsum(flat)
                values.append(
                    sum(h / (i + 1) for i, (h, r) in enumerate(zip(hits, flat, strict=True)) if r)
                    / n_relevant
                )
            assert ours[query][f"map@{k}"] == pytest.approx(np.mean(values), abs=TOL), query


# -- 2. seeded random cross-checks against the installed peers -----------------------------


def _random_frame(
    seed: int,
    *,
    ties: bool = True,
    unretrieved: bool = True,
    items: int = 10,
    queries: int = 12,
    negative: bool = False,
) -> pd.DataFrame:
    """A small frame: lists of up to ``items`` items, grades 0..3 (and -1 with ``negative``),
    scores with ties (``ties``), relevant rows never retrieved (``unretrieved``), a query
    without relevant items, rows in random order."""
    rng = np.random.default_rng(seed)
    parts = []
    for q in range(queries):
        n = int(rng.integers(2, items + 1))
        item = np.char.add("d", rng.choice(60, size=n, replace=False).astype(str))
        score = rng.integers(0, 4, n) / 4 if ties else rng.permutation(n) / n + rng.random()
        grades = [-1, 0, 1, 2, 3] if negative else [0, 0, 1, 2, 3]
        grade = rng.choice(grades, size=n).astype(float)
        if q == 0:
            grade[:] = 0
        if unretrieved:
            score = np.where(rng.random(n) < 0.15, np.nan, score)
        parts.append(
            pd.DataFrame({"query": f"q{q:02d}", "item": item, "score": score, "relevant": grade})
        )
    frame = pd.concat(parts, ignore_index=True)
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


SEEDS = (0, 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_preset_is_the_defaults_and_pytrec_eval(make_frame: Any, seed: int) -> None:
    import pytrec_eval

    data = _random_frame(seed, negative=True)
    frame = make_frame(data)
    metrics = [
        "mrr",
        "ndcg",
        "ndcg@5",
        "map",
        "map@5",
        "precision@5",
        "recall@5",
        "acc@3",
        "r_precision",
        "hit_count@5",
    ]
    preset = _per_query(frame, metrics, convention="trec_eval")
    assert preset == _per_query(frame, metrics)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for query, item, score, grade in data.itertuples(index=False):
        qrels.setdefault(query, {})[item] = int(grade)
        if not math.isnan(score):
            run.setdefault(query, {})[item] = float(score)
    measures = {
        "recip_rank",
        "ndcg",
        "ndcg_cut.5",
        "map",
        "map_cut.5",
        "P.5",
        "recall.5",
        "success.3",
        "Rprec",
    }
    trec = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = {
        "mrr": "recip_rank",
        "ndcg": "ndcg",
        "ndcg@5": "ndcg_cut_5",
        "map": "map",
        "map@5": "map_cut_5",
        "precision@5": "P_5",
        "recall@5": "recall_5",
        "acc@3": "success_3",
        "r_precision": "Rprec",
    }
    for query, values in preset.items():
        for metric, name in names.items():
            expected = trec[query][name] if query in trec else 0.0
            assert values[metric] == pytest.approx(expected, abs=TOL), (query, metric)
        expected_hits = round(trec[query]["P_5"] * 5) if query in trec else 0
        assert values["hit_count@5"] == expected_hits


@pytest.mark.parametrize("seed", SEEDS)
def test_ranx_preset_matches_ranx(make_frame: Any, seed: int) -> None:
    import ranx  # here, not at the top: importing its numba code takes seconds a worker

    data = _random_frame(seed)
    frame = make_frame(data)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for query, item, score, grade in data.itertuples(index=False):
        if grade > 0:
            qrels.setdefault(query, {})[item] = int(grade)
        if not math.isnan(score):
            run.setdefault(query, {})[item] = float(score)  # the frame's order
    pairs = {
        "mrr@5": "mrr@5",
        "ndcg@5": "ndcg@5",
        "map@5": "map@5",
        "map": "map",
        "precision@3": "precision@3",
        "recall@5": "recall@5",
        "hit_count@5": "hits@5",
        "acc@3": "hit_rate@3",
        "r_precision": "r-precision",
        "dcg@5": "dcg@5",
    }
    exponential = {"ndcg@5": "ndcg_burges@5", "dcg@5": "dcg_burges@5"}
    ranx_values = ranx.evaluate(
        ranx.Qrels(qrels),
        ranx.Run(run),
        [*pairs.values(), *exponential.values()],
        return_mean=False,
        make_comparable=True,
    )
    order = sorted(qrels)  # ranx evaluates the judged queries, in their order
    ours = _per_query(frame, list(pairs), convention="ranx")
    burges = _per_query(frame, list(exponential), convention="ranx", gain="exponential")
    qrels_order = list(ranx.Qrels(qrels).keys())
    for metric, name in pairs.items():
        theirs = dict(zip(qrels_order, ranx_values[name], strict=True))
        _same([ours[q][metric] for q in order], [theirs[q] for q in order])
    for metric, name in exponential.items():
        theirs = dict(zip(qrels_order, ranx_values[name], strict=True))
        _same([burges[q][metric] for q in order], [theirs[q] for q in order])


@pytest.mark.parametrize("seed", SEEDS)
def test_ir_measures_preset_matches_ir_measures(make_frame: Any, seed: int) -> None:
    import ir_measures  # here, not at the top: a worker imports it only to run this

    data = _random_frame(seed, negative=True)
    frame = make_frame(data)
    qrels = [ir_measures.Qrel(q, i, int(g)) for q, i, _, g in data.itertuples(index=False)]
    run = [
        ir_measures.ScoredDoc(q, i, float(s))
        for q, i, s, _ in data.itertuples(index=False)
        if not math.isnan(s)
    ]
    measures = {
        "map": ir_measures.AP,
        "map@5": ir_measures.AP @ 5,
        "ndcg": ir_measures.nDCG,
        "ndcg@5": ir_measures.nDCG @ 5,
        "precision@3": ir_measures.P @ 3,
        "recall@5": ir_measures.R @ 5,
        "mrr": ir_measures.RR,
        "acc@3": ir_measures.Success @ 3,
        "r_precision": ir_measures.Rprec,
    }
    theirs: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc(list(measures.values()), qrels, run):
        theirs.setdefault(metric.query_id, {})[str(metric.measure)] = metric.value
    ours = _per_query(frame, list(measures), convention="ir_measures")
    for query, values in ours.items():
        for metric, measure in measures.items():
            expected = theirs.get(query, {}).get(str(measure), 0.0)
            assert values[metric] == pytest.approx(expected, abs=TOL), (query, metric)
    # RR@k comes from its msmarco provider, which orders ties by item id ascending
    rr = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.RR @ 5], qrels, run)}
    ascending = _per_query(frame, ["mrr@5"], convention="ir_measures", ties="item_ascending")
    for query, values in ascending.items():
        assert values["mrr@5"] == pytest.approx(rr.get(query, 0.0), abs=TOL), query


@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_preset_matches_sklearn(make_frame: Any, seed: int) -> None:
    from sklearn.metrics import dcg_score, ndcg_score  # as ranx and ir_measures above

    # scikit-learn scores every item of a sample (no null scores) and averages NDCG over tied
    # scores: untied scores here
    data = _random_frame(seed, ties=False, unretrieved=False)
    frame = make_frame(data)
    ours = _per_query(frame, ["ndcg", "ndcg@3", "dcg", "dcg@3"], convention="sklearn")
    for query, rows in data.groupby("query"):
        truth, score = [rows["relevant"].to_numpy()], [rows["score"].to_numpy()]
        expected = {
            "ndcg": ndcg_score(truth, score),
            "ndcg@3": ndcg_score(truth, score, k=3),
            "dcg": dcg_score(truth, score),
            "dcg@3": dcg_score(truth, score, k=3),
        }
        for metric, value in expected.items():
            assert ours[query][metric] == pytest.approx(value, abs=TOL), (query, metric)


def test_every_preset_runs_on_every_metric(make_frame: Any) -> None:
    # every metric with a value per query (the beyond-accuracy ones need inputs of their
    # own: tests/metrics/test_beyond.py); a preset of ties="average" takes the metrics that have a
    # tie-averaged form, one of "truncated_average" those that read shared ranks (the others
    # refuse them: test_presets_refuse_what_their_ties_cannot_give)
    frame = make_frame(_random_frame(3, negative=True))
    relevance = {m: d for m, d in rankframe.METRICS.items() if d.items is None}

    def spelled(m: str, d: Any) -> str:
        if not d.takes_k:
            return m
        return f"{m}@{3 if d.param.integer else d.param.example}"

    for name in CONVENTIONS:
        ties = CONVENTIONS[name].options.get("ties")
        names = [
            spelled(m, d)
            for m, d in relevance.items()
            if d.aggregate != "set"
            and (d.tie_average is not None or ties != "average")
            and (reads_shared_ranks(d) or ties != "truncated_average")
        ]
        table = _per_query(frame, names, convention=name)
        skipped = CONVENTIONS[name].options.get("empty") == "skip"  # q00 has no relevant item
        assert len(table) == (11 if skipped else 12)
        for values in table.values():
            assert all(isinstance(v, float) for v in values.values())


def test_counts_and_the_report_take_shared_ranks(make_frame: Any) -> None:
    # the counts read no rank, so ties="truncated_average" is theirs too; the report, which
    # adds num_rel to find the queries without a relevant item, takes it
    frame = make_frame(
        {
            "query": [1, 1, 1, 2, 2],
            "item": [1, 2, 3, 1, 2],
            "score": [0.5, 0.5, None, 0.3, 0.3],
            "relevant": [1, 0, 2, 0, 1],
        }
    )
    counts = ["num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]
    shared = as_pandas(frame.rank_eval.evaluate(counts, ties="truncated_average")).iloc[0]
    # by hand: retrieved 2 + 2, relevant 2 + 1, relevant retrieved 1 + 1, judged 0 retrieved 1 + 1
    assert [shared[f"{c}(ties=truncated_average)"] for c in counts] == [4.0, 3.0, 2.0, 2.0]
    summary = as_pandas(frame.rank_eval.report(["mrr"], ties="truncated_average").summary)
    # the tied pairs share rank trunc((1 + 2) / 2) = 1: RR 1 in both queries (trec's order
    # would put item 2 first in query 1: RR 1/2)
    assert summary["mrr(ties=truncated_average)"].tolist() == [1.0]


def test_presets_refuse_what_their_ties_cannot_give(make_frame: Any) -> None:
    ev = make_frame(_lists([(["a", "b"], ["b"])])).rank_eval
    with pytest.raises(
        rankframe.InvalidOptionError,
        match=r"ties='truncated_average' .* is not defined for 'bpref'",
    ):
        ev.evaluate(["mrr", "bpref"], convention="evidently")
    with pytest.raises(
        rankframe.InvalidOptionError, match=r"ties='average' .* is not defined for 'bpref'"
    ):
        ev.evaluate(["ndcg", "bpref"], convention="sklearn")
    with pytest.raises(
        rankframe.InvalidOptionError,
        match="ties='average' cannot be combined with ap_denominator='hits'",
    ):
        ev.map(convention="torchmetrics", ties="average")
    # explicit options win over the preset: bpref with the frame's order
    assert as_float(ev.bpref(convention="evidently", ties="first")) == pytest.approx(0.0)


def test_bad_values_of_the_new_options_are_refused(make_frame: Any) -> None:
    ev = make_frame(_lists([(["a", "b"], ["b"])])).rank_eval
    with pytest.raises(rankframe.InvalidOptionError, match="Did you mean 'hits'"):
        ev.map(ap_denominator="hit")
    with pytest.raises(rankframe.InvalidOptionError, match="'discount' option must be one of"):
        ev.ndcg(discount="log2")
    with pytest.raises(rankframe.InvalidOptionError, match="Did you mean 'ranx'"):
        ev.evaluate(["mrr"], convention="ranks")
    # the discount is also the exposure metrics' attention under browsing="log"
    with pytest.raises(
        rankframe.UnknownArgumentError,
        match=r"'discount' changes only ndcg, exposure, .*, dcg; mrr does not",
    ):
        ev.mrr(discount="log2(rank+1)")


def test_compare_takes_a_convention(make_frame: Any) -> None:
    # two systems on one query: a ranks the relevant b second, c ranks it first; LensKit's
    # NDCG does not discount rank 2, so both score 1 there, while trec_eval's does not
    frame = make_frame(
        {"query": "q", "item": ["a", "b"], "x": [2.0, 1.0], "y": [1.0, 2.0], "relevant": [0, 1]}
    )
    ev = frame.rank_eval(score=["x", "y"])
    lenskit = as_dict(ev.compare("ndcg", convention="lenskit"), key="system")
    assert lenskit["y"]["delta"] == 0.0
    trec = as_dict(ev.compare("ndcg"), key="system")
    assert trec["y"]["delta"] == pytest.approx(1 - 1 / np.log2(3))
