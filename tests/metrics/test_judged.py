"""``judged@k``, the share of the top k that is judged: ir_measures' ``Judged@k`` on random
frames (unjudged rows, lists shorter than k, k beyond every list, no k), a hand-computed
example, the null grades of ``unjudged="nonrelevant"``, and the two documented departures
from ir_measures (negative grades are unjudged; a query without judgments is kept)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd
import pytest

import rankframe
from helpers import DOCS, as_dict, as_float, as_pandas

pytestmark = pytest.mark.filterwarnings("ignore::rankframe.RankEvalWarning")

TOL = 1e-12
KS = (1, 3, 5, 50)  # 50: beyond every list of the random frames (at most 12 rows)


def _random_frame(seed: int) -> pd.DataFrame:
    """12 queries of 0 to 12 rows: distinct scores within a query (ir_measures breaks ties by
    item id, rankframe by its own rule), a third of the rows unjudged (grade 0), some rows not
    retrieved (null score); q0 retrieves nothing, q1 has no judged row."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(12):
        n = 0 if q == 0 else int(rng.integers(1, 13))
        for i, score in enumerate(rng.permutation(n)):
            judged = q != 1 and bool(rng.random() > 1 / 3)
            retrieved = q != 0 and bool(rng.random() > 0.15)
            rows.append(
                {
                    "query": f"q{q}",
                    "item": f"d{i}",
                    "score": float(score) if retrieved else math.nan,
                    "relevant": int(rng.integers(0, 4)) if judged else 0,
                    "judged": judged,
                }
            )
    rows.append({"query": "q0", "item": "d0", "score": math.nan, "relevant": 1, "judged": True})
    return pd.DataFrame(rows)


def _ir_measures(data: pd.DataFrame, ks: tuple[int | None, ...]) -> dict[str, dict[str, float]]:
    """ir_measures' Judged@k per query (``judged`` for k=None), from the judged rows as
    qrels and the retrieved rows as the run."""
    import ir_measures  # here, not at the top: a worker imports it only to run this

    qrels = [
        ir_measures.Qrel(r.query, r.item, int(r.relevant))
        for r in data.itertuples(index=False)
        if r.judged
    ]
    run = [
        ir_measures.ScoredDoc(r.query, r.item, float(r.score))
        for r in data.itertuples(index=False)
        if not math.isnan(r.score)
    ]
    measures = {
        ("judged" if k is None else f"judged@{k}"): (
            ir_measures.Judged if k is None else ir_measures.Judged @ k
        )
        for k in ks
    }
    names = {str(measure): name for name, measure in measures.items()}
    theirs: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc(list(measures.values()), qrels, run):
        theirs.setdefault(metric.query_id, {})[names[str(metric.measure)]] = metric.value
    return theirs


@pytest.mark.parametrize("seed", [0, 1])
def test_judged_matches_ir_measures(make_frame: Any, seed: int) -> None:
    data = _random_frame(seed)
    ks: tuple[int | None, ...] = (*KS, None)
    theirs = _ir_measures(data, ks)
    metrics = [f"judged@{k}" if k else "judged" for k in ks]
    ours = as_dict(make_frame(data).rank_eval.per_query(metrics))
    # ir_measures gives no value for a query without a judged row (q1, maybe others): 0 here
    unjudged = set(data["query"]) - set(data.loc[data["judged"], "query"])
    assert "q1" in unjudged
    assert set(theirs) == set(ours) - unjudged
    assert all(ours[q][m] == 0 for q in unjudged for m in metrics)
    # q0 retrieved nothing: 0 in both (ir_measures gives 0 to a query of the qrels that the
    # run lacks)
    assert "q0" in theirs
    for query, values in theirs.items():
        for metric, value in values.items():
            assert ours[query][metric] == pytest.approx(value, abs=TOL), (query, metric)
    # the data trips what matters: unjudged rows in the top k, lists shorter than k
    assert any(values["judged@5"] < 1 for values in theirs.values())
    retrieved = data[data["score"].notna()].groupby("query").size()
    assert (retrieved < 5).any()
    assert (retrieved < 50).all()


def test_judged_by_hand(make_frame: Any) -> None:
    # q1 ranks a b c d e with b and d unjudged; q2 ranks x y with y unjudged; q3 ranks z,
    # judged, and w is judged but not retrieved (it counts nowhere)
    frame = make_frame(
        {
            "query": ["q1"] * 5 + ["q2"] * 2 + ["q3"] * 2,
            "item": ["a", "b", "c", "d", "e", "x", "y", "z", "w"],
            "score": [5, 4, 3, 2, 1, 2, 1, 1, None],
            "relevant": [1, 0, 0, 0, 2, 0, 0, 1, 1],
            "judged": [True, False, True, False, True, True, False, True, True],
        }
    )
    expected = {
        # top 3: q1 a b c (b unjudged) 2/3; q2 has 2 rows, 1 judged: 1/2; q3 1/1
        "judged@3": {"q1": 2 / 3, "q2": 1 / 2, "q3": 1.0},
        # beyond every list: q1's 5 rows, 3 judged (a, c, e); q2 1/2; q3 1/1
        "judged@10": {"q1": 3 / 5, "q2": 1 / 2, "q3": 1.0},
        # no k: the whole list, as k=10 here
        "judged": {"q1": 3 / 5, "q2": 1 / 2, "q3": 1.0},
        # unjudged@3 divides q2's one unjudged row by 3, not by its 2 rows
        "unjudged@3": {"q1": 1 / 3, "q2": 1 / 3, "q3": 0.0},
    }
    ours = as_dict(frame.rank_eval.per_query(list(expected)))
    for metric, values in expected.items():
        for query, value in values.items():
            assert ours[query][metric] == pytest.approx(value, abs=TOL), (query, metric)
    means = as_pandas(frame.rank_eval.evaluate(["judged@3", "judged"])).iloc[0]
    assert means["judged@3"] == pytest.approx((2 / 3 + 1 / 2 + 1) / 3, abs=TOL)
    assert means["judged"] == pytest.approx((3 / 5 + 1 / 2 + 1) / 3, abs=TOL)


def test_judged_reads_null_grades_and_negative_grades_as_unjudged(make_frame: Any) -> None:
    import ir_measures

    # the same ranking three ways: b unjudged by a judged column, by a null grade (with
    # unjudged="nonrelevant"), by a negative grade (trec_eval's "in the pool, not judged")
    base = {"query": "q", "item": ["a", "b", "c", "d"], "score": [4, 3, 2, 1]}
    flagged = make_frame({**base, "relevant": [1, 0, 1, 0], "judged": [True, False, True, True]})
    null = make_frame({**base, "relevant": [1.0, None, 1.0, 0.0]})
    negative = make_frame({**base, "relevant": [1, -1, 1, 0]})
    assert as_float(flagged.rank_eval.judged(2)) == 1 / 2
    assert as_float(null.rank_eval.judged(2, unjudged="nonrelevant")) == 1 / 2
    assert as_float(negative.rank_eval.judged(2)) == 1 / 2
    # where judged departs from ir_measures (docs/metrics.md): it counts a document of any
    # grade in the qrels as judged, b's -1 too
    qrels = [ir_measures.Qrel("q", i, g) for i, g in zip("abcd", [1, -1, 1, 0], strict=True)]
    run = [ir_measures.ScoredDoc("q", i, s) for i, s in zip("abcd", [4, 3, 2, 1], strict=True)]
    theirs = ir_measures.calc_aggregate([ir_measures.Judged @ 2], qrels, run)
    assert theirs[ir_measures.Judged @ 2] == 1.0


def test_docs_name_the_metrics_that_read_unjudged_rows() -> None:
    # docs/metrics.md lists them twice (the notation, "Unjudged items"): the registry's
    # MetricDef.reads_unjudged, which the report's holes leave out
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    flagged = {name for name, d in rankframe.METRICS.items() if d.reads_unjudged}
    notation = text.split("only `bpref`", 1)[1].split("tell it from", 1)[0]
    section = text.split("## Unjudged items", 1)[1].split("A frame says", 1)[0]
    assert {"bpref", *re.findall(r"`([a-z_]+)`", notation)} == flagged
    assert set(re.findall(r"`([a-z_]+)`", section)) == flagged


def test_judged_in_compare(make_frame: Any) -> None:
    # q1: new ranks c (unjudged) first, old a; q2: both rank judged rows first
    #   judged@1: old (1 + 1) / 2 = 1, new (0 + 1) / 2 = 1/2: delta -1/2
    frame = make_frame(
        {
            "query": ["q1"] * 3 + ["q2"] * 3,
            "item": ["a", "b", "c"] * 2,
            "old": [3, 2, 1, 3, 2, 1],
            "new": [2, 1, 3, 3, 2, 1],
            "relevant": [1, 0, 0, 1, 0, 0],
            "judged": [True, True, False, True, True, False],
        }
    )
    table = as_pandas(frame.rank_eval(score=["old", "new"]).compare(["judged@1"], baseline="old"))
    row = table[table["system"] == "new"].iloc[0]
    assert (row["metric"], row["k"]) == ("judged", 1)
    assert row["delta"] == pytest.approx(-1 / 2, abs=TOL)
