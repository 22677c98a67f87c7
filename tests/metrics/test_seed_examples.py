"""The worked examples of the seed documents (../shared/seeds), one named test each.

Every test encodes a document's example data in the long format (one row per query and item)
and compares rankframe with the numbers the document prints, at the precision it prints them.
The printed lines are also looked up in the document itself (``_printed``), so a test cannot
drift from its source. Where a document leaves data out, prints a wrong number or uses a
convention other than rankframe's default, a comment says so next to the test.

Documents:

- ``000_*``  MRR Calculation Method Comparison and Correction (tourist spots, two themes)
- ``001_*``  추천시스템 평가지표 3. RR과 MRR (Korean recommender-systems blog)
- ``002_*``  Mean Reciprocal Rank (MRR) explained (Evidently AI)
- ``003_*``  Evaluation Metrics Deep Dive: next location prediction (Acc@k, MRR, NDCG)
- ``004_*``  O Que é Mean Reciprocal Rank? (Portuguese article; RR vs NDCG vs AP table)

Ranked lists are encoded with descending integer scores (the first item of a list gets the
highest score), so no ties occur unless the document has them. Relevant items that a document
names but that are not in the ranked list get a null score: judged but not retrieved.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pytest

from helpers import SEEDS, as_dict, as_float, as_pandas

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


@cache
def _document(prefix: str) -> str:
    """The text of the seed document whose file name starts with ``prefix``."""
    found = sorted(SEEDS.glob(f"{prefix}_*.txt"))
    if len(found) != 1:
        pytest.fail(
            f"expected one seed document {prefix}_*.txt in {SEEDS}, found {found}; the tests "
            "expect the project's shared/ folder beside the repository (../shared)."
        )
    return found[0].read_text(encoding="utf-8")


def _printed(prefix: str, *lines: str) -> None:
    """Each of ``lines`` appears verbatim in document ``prefix``: the expected values below
    are the ones the document prints."""
    text = _document(prefix)
    missing = [line for line in lines if line not in text]
    assert not missing, f"not found in seed document {prefix}: {missing}"


Truth = Sequence[Any] | Mapping[Any, float]


def _long(cases: Mapping[Any, tuple[Sequence[Any], Truth]]) -> dict[str, list[Any]]:
    """Long-format columns from ``{query: (ranked items, relevant items or {item: grade})}``.

    The ranked items get scores n, n-1, ..., 1 in list order; relevant items missing from the
    list get a null score (judged, not retrieved); other items are non-relevant (grade 0).
    """
    rows: dict[str, list[Any]] = {"query": [], "item": [], "score": [], "relevant": []}

    def add(query: Any, item: Any, score: float, grade: float) -> None:
        rows["query"].append(query)
        rows["item"].append(item)
        rows["score"].append(score)
        rows["relevant"].append(grade)

    for query, (ranked, truth) in cases.items():
        grades = dict(truth) if isinstance(truth, Mapping) else dict.fromkeys(truth, 1.0)
        for position, item in enumerate(ranked):
            add(query, item, float(len(ranked) - position), float(grades.get(item, 0.0)))
        for item, grade in grades.items():
            if item not in ranked:
                add(query, item, math.nan, float(grade))
    return rows


def _correct_at(
    ranks: Mapping[Any, int], correct: Mapping[Any, str] | None = None
) -> dict[str, list[Any]]:
    """One query per entry, a single correct item at the given rank (next-location style).

    The items above it are non-relevant fillers ``loc1``, ``loc2``, ...; nothing is needed
    below it for the metrics of these examples (NDCG's ideal is 1 with one relevant item).
    """
    cases = {}
    for query, rank in ranks.items():
        answer = correct[query] if correct else "correct"
        fillers = [f"loc{i}" for i in range(1, rank)]
        cases[query] = ([*fillers, answer], [answer])
    return _long(cases)


# --------------------------------------------------------------------------------------------
# 000: MRR Calculation Method Comparison and Correction (tourist spots)
# --------------------------------------------------------------------------------------------

# The document's data file (/mnt/data/Spot3.csv: SpotID, Check, weighted_sentiment_score,
# normalized_sentiment_score) is NOT reproduced in the document; it gives only the spot IDs,
# the two themes and the results table. The scores and Check values below are CONSTRUCTED:
# the smallest data, with no ties, that reproduces every number of the document's table with
# the document's own code. Check follows the order in which the document lists each theme's
# spots ("'S001', 'S003', 'S004', 'S002'" and "'S005', 'S007', 'S006', 'S008'").
STEINS_GATE = ["S001", "S003", "S004", "S002"]
LOVE_LIVE = ["S005", "S007", "S006", "S008"]
SPOTS = pd.DataFrame(
    {
        "SpotID": [*STEINS_GATE, *LOVE_LIVE],
        "theme": ["Steins;Gate"] * 4 + ["LoveLive"] * 4,
        "Check": [100, 80, 60, 40, 90, 70, 50, 30],
        "weighted_sentiment_score": [0.80, 0.90, 0.50, 0.30, 0.60, 0.85, 0.75, 0.55],
        "normalized_sentiment_score": [0.20, 0.65, 0.95, 0.70, 0.50, 0.80, 0.90, 0.30],
    }
)


def _spots_original() -> pd.DataFrame:
    """The document's "original" method as a long frame: a query per theme, holding only that
    theme's four spots; the relevant spot is the first spot of the standard ranking (all spots
    by Check, descending) that belongs to the theme, as in ``calculate_mrr_original``."""
    standard_ranking = SPOTS.sort_values("Check", ascending=False)["SpotID"].tolist()
    frames = []
    for _, spots in SPOTS.groupby("theme", sort=False):
        first = next(spot for spot in standard_ranking if spot in set(spots["SpotID"]))
        frames.append(spots.assign(standard_first=(spots["SpotID"] == first).astype(int)))
    return pd.concat(frames, ignore_index=True).drop(columns="Check")


def _spots_corrected() -> pd.DataFrame:
    """The "corrected" method as a long frame: a query per theme ranking all eight spots
    (the global sort); the spots of that theme are the relevant ones
    (``calculate_mrr_corrected(top_weighted, steins_gate_spots)``)."""
    frames = [
        SPOTS.drop(columns="Check").assign(
            query_theme=theme, in_theme=(SPOTS["theme"] == theme).astype(int)
        )
        for theme in ("Steins;Gate", "LoveLive")
    ]
    return pd.concat(frames, ignore_index=True).drop(columns="theme")


# 000, "## Calculation Results Comparison": the table, 4 decimals.
SPOTS_TABLE = {
    "weighted_sentiment_score": (
        [
            "| Steins Gate MRR (Weighted) | 0.5000 | 1.0000 |",
            "| Love Live MRR (Weighted) | 0.3333 | 0.5000 |",
            "| Average MRR (Weighted) | 0.4167 | 0.7500 |",
        ],
        # (original, corrected) per theme and the average
        {"Steins;Gate": (0.5000, 1.0000), "LoveLive": (0.3333, 0.5000)},
        (0.4167, 0.7500),
    ),
    "normalized_sentiment_score": (
        [
            "| Steins Gate MRR (Normalized) | 0.2500 | 1.0000 |",
            "| Love Live MRR (Normalized) | 0.3333 | 0.5000 |",
            "| Average MRR (Normalized) | 0.2917 | 0.7500 |",
        ],
        {"Steins;Gate": (0.2500, 1.0000), "LoveLive": (0.3333, 0.5000)},
        (0.2917, 0.7500),
    ),
}


def test_spots_constructed_data_gives_the_table_with_the_document_code() -> None:
    # The constructed SPOTS stand in for the missing Spot3.csv: the document's own code
    # ("## Complete Verification Code", without rankframe) must print its table from them.
    data = SPOTS
    standard_ranking = data.sort_values("Check", ascending=False)["SpotID"].tolist()

    def rank_spots(spots: list[str], score_column: str) -> list[str]:
        chosen = data[data["SpotID"].isin(spots)]
        return chosen.sort_values(score_column, ascending=False)["SpotID"].tolist()

    def calculate_mrr_original(ranking: list[str], standard_ranking: list[str]) -> float:
        for spot in standard_ranking:
            if spot in ranking:
                return 1 / (ranking.index(spot) + 1)
        return 0

    def calculate_mrr_corrected(recommendation: list[str], relevant_spots: list[str]) -> float:
        for rank, spot in enumerate(recommendation, start=1):
            if spot in relevant_spots:
                return 1 / rank
        return 0

    for score, (lines, _, _) in SPOTS_TABLE.items():
        top = data.sort_values(score, ascending=False)["SpotID"].tolist()
        original = [
            calculate_mrr_original(rank_spots(spots, score), standard_ranking)
            for spots in (STEINS_GATE, LOVE_LIVE)
        ]
        corrected = [calculate_mrr_corrected(top, spots) for spots in (STEINS_GATE, LOVE_LIVE)]
        printed = [
            f"| {name} | {a:.4f} | {b:.4f} |"
            for name, a, b in zip(
                ["Steins Gate MRR", "Love Live MRR", "Average MRR"],
                [*original, sum(original) / 2],
                [*corrected, sum(corrected) / 2],
                strict=True,
            )
        ]
        kind = "(Weighted)" if score.startswith("weighted") else "(Normalized)"
        printed = [line.replace(" |", f" {kind} |", 1) for line in printed]
        assert printed == lines


@pytest.mark.parametrize("score", list(SPOTS_TABLE))
def test_spots_original_vs_corrected_mrr_table(make_frame, score) -> None:
    lines, per_theme, (average_original, average_corrected) = SPOTS_TABLE[score]
    _printed("000", *lines)

    original = make_frame(_spots_original()).rank_eval(
        query="theme", item="SpotID", score=score, relevant="standard_first"
    )
    rr = as_dict(original.per_query("mrr"), key="theme")
    assert {theme: rr[theme]["mrr"] for theme in per_theme} == {
        theme: pytest.approx(values[0], abs=5e-5) for theme, values in per_theme.items()
    }
    assert as_float(original.mrr()) == pytest.approx(average_original, abs=5e-5)

    corrected = make_frame(_spots_corrected()).rank_eval(
        query="query_theme", item="SpotID", score=score, relevant="in_theme"
    )
    rr = as_dict(corrected.per_query("mrr"), key="query_theme")
    assert {theme: rr[theme]["mrr"] for theme in per_theme} == {
        theme: pytest.approx(values[1], abs=5e-5) for theme, values in per_theme.items()
    }
    assert as_float(corrected.mrr()) == pytest.approx(average_corrected, abs=5e-5)


# --------------------------------------------------------------------------------------------
# 001: 추천시스템 평가지표 3. RR과 MRR (Korean blog)
# --------------------------------------------------------------------------------------------

# 001, "### 코드" under RR and under MRR: the two cases, literally. Ground-truth items that
# are not in predict_list ("K" of case 1, "E" of case 2) are judged but not retrieved.
RECSYS_CASES: dict[int, tuple[list[str], dict[str, float]]] = {
    1: (["A", "B", "C", "L", "Y", "U", "F", "Z"], {"C": 1.0, "K": 1.0, "B": 1.0, "Z": 1.0}),
    2: (["N", "X", "Y", "B", "M"], {"E": 1.0, "B": 1.0}),
}


def test_recsys_blog_rr_at_5(make_frame) -> None:
    # 001, RR code: "calc_rr(predict_list, list(ground_truth.keys()), 5)" -> "# >> 0.5"
    # (the first case alone, top 5: "B" at rank 2).
    _printed("001", "calc_rr(predict_list, list(ground_truth.keys()), 5)\n\n# >> 0.5")
    frame = make_frame(_long({1: RECSYS_CASES[1]}))
    assert as_float(frame.rank_eval.mrr(k=5)) == pytest.approx(0.5)
    assert as_float(frame.rank_eval.mrr(k=5, ties="first")) == pytest.approx(0.5)


def test_recsys_blog_rr_mrr(make_frame) -> None:
    # 001, MRR code: "calc_mrr(cases)" -> "# >> 0.375" (k=None: the whole list), and the
    # bullets below it: case 1 RR "0.5 (1/2)", case 2 RR "0.25 (1/4)", "(3/4)/2 = 0.375".
    _printed(
        "001",
        "calc_mrr(cases)\n# >> 0.375",
        "RR 은 0.5 (1/2)",
        "RR 은 0.25 (1/4)",
        "두 케이스의 평균 = (3/4)/2 = 0.375",
    )
    ev = make_frame(_long(RECSYS_CASES)).rank_eval
    per_case = as_dict(ev.per_query("mrr"))
    assert {case: row["mrr"] for case, row in per_case.items()} == {
        1: pytest.approx(0.5),
        2: pytest.approx(0.25),
    }
    assert as_float(ev.mrr()) == pytest.approx(0.375)
    # The document's calc_rr clips k to the list length, as rankframe does (k beyond the list
    # behaves as if non-relevant items filled it), so a large k changes nothing.
    assert as_float(ev.mrr(k=100)) == pytest.approx(0.375)


# --------------------------------------------------------------------------------------------
# 002: Mean Reciprocal Rank (MRR) explained (Evidently AI)
# --------------------------------------------------------------------------------------------


def test_evidently_top5_rr_and_precision(make_frame) -> None:
    # 002, "Identify relevant items" ... "Calculate the Reciprocal Rank": a top-5 list where
    # "the user listened to songs 2 and 3". The document calls hits/5 "traditional accuracy":
    # "it equals 40% - 2 out of 5 recommendations were correct"; that is precision@5.
    # "the first relevant item is in 2nd place. Thus, the reciprocal rank ... is 0.5."
    _printed(
        "002",
        "it equals 40% - 2 out of 5 recommendations were correct",
        "the reciprocal rank of a given user list is 0.5.",
    )
    songs = [f"song {i}" for i in range(1, 6)]
    ev = make_frame(_long({"user": (songs, ["song 2", "song 3"])})).rank_eval
    assert as_float(ev.precision(k=5)) == pytest.approx(0.40)
    assert as_float(ev.mrr(k=5)) == pytest.approx(0.5)


def test_four_user_mrr(make_frame) -> None:
    # 002, "Compute the MRR": first relevant item at positions 1, 3, 6, 2 for users 1-4;
    # RR "1", "1/3 ≈ 0.33", "1/6 ≈ 0.17", "1/2 = 0.5"; MRR "(1+0.33+0.17+0.5)/4 = 2/4 = 0.5".
    # The image with the full lists is not in the text; only the position of each user's
    # first relevant item is given, and that is all RR depends on. The lists below end at it.
    _printed(
        "002",
        "For user 1, the first relevant item is in position 1, so the RR is 1.",
        "For user 2, the first relevant item is in position 3, so the RR is 1/3 ≈ 0.33.",
        "For user 3, the first relevant item is in position 6, so the RR is 1/6 ≈ 0.17.",
        "For user 4, the first relevant item is in position 2, so the RR is 1/2 = 0.5.",
        "(1+0.33+0.17+0.5)/4 = 2/4 = 0.5",
    )
    ev = make_frame(_correct_at({1: 1, 2: 3, 3: 6, 4: 2})).rank_eval
    per_user = as_dict(ev.per_query("mrr"))
    assert {user: row["mrr"] for user, row in per_user.items()} == {
        1: pytest.approx(1.0, abs=5e-3),
        2: pytest.approx(0.33, abs=5e-3),
        3: pytest.approx(0.17, abs=5e-3),
        4: pytest.approx(0.5, abs=5e-3),
    }
    # 1 + 1/3 + 1/6 + 1/2 = 2 exactly, so the mean is exactly 0.5.
    assert as_float(ev.mrr()) == pytest.approx(0.5)


# --------------------------------------------------------------------------------------------
# 003: Evaluation Metrics Deep Dive (next location prediction)
# --------------------------------------------------------------------------------------------
# The document's MRR (get_mrr) has no cut-off; its NDCG (get_ndcg) is NDCG@10 with one
# correct location, i.e. 1/log2(rank + 1), 0 beyond rank 10: rankframe's ndcg(k=10), whose
# ideal DCG is 1 with a single relevant item. Acc@k is printed in percent.


def test_next_location_summary_example(make_frame) -> None:
    # 003, "### 1.2 Metric Summary": ranking [Cafe, Work, Home, Gym, Mall, ...], correct answer
    # "Home" (rank 3): Acc@1 0, Acc@3 1, Acc@5 1, MRR 1/3 = 0.333, NDCG 1/log2(3+1) = 0.5.
    _printed(
        "003",
        "Prediction Ranking: [Cafe, Work, Home, Gym, Mall, ...]",
        "- Acc@1: 0 (not in top 1)\n- Acc@3: 1 (in top 3)\n- Acc@5: 1 (in top 5)\n"
        "- MRR: 1/3 = 0.333",
    )
    ranking = ["Cafe", "Work", "Home", "Gym", "Mall"]
    ev = make_frame(_long({"sample": (ranking, ["Home"])})).rank_eval
    result = as_pandas(ev.evaluate(["acc@1", "acc@3", "acc@5", "mrr", "ndcg@10"])).iloc[0]
    assert result["acc@1"] == 0
    assert result["acc@3"] == 1
    assert result["acc@5"] == 1
    assert result["mrr"] == pytest.approx(0.333, abs=5e-4)
    assert result["ndcg@10"] == pytest.approx(0.5)


# 003, "### 2.3 Calculation Example" (Acc@k), literally: scores as printed.
NEXT_LOCATION_ACC_SAMPLES = {
    "query": [1] * 4 + [2] * 4,
    "item": ["Cafe", "Work", "Home", "Gym", "Home", "Work", "Cafe", "Gym"],
    "score": [0.4, 0.3, 0.2, 0.1, 0.5, 0.3, 0.1, 0.1],
    "relevant": [0, 1, 0, 0, 1, 0, 0, 0],  # Ground Truth = Work; Ground Truth = Home
}


def test_next_location_acc_at_k(make_frame) -> None:
    # 003, 2.3: "Acc@1 = (0 + 1) / 2 = 50%", "Acc@3 = (1 + 1) / 2 = 100%", with the
    # per-sample contributions 0/1 (sample 1) and 1/1 (sample 2).
    _printed("003", "Acc@1 = (0 + 1) / 2 = 50%", "Acc@3 = (1 + 1) / 2 = 100%")
    ev = make_frame(NEXT_LOCATION_ACC_SAMPLES).rank_eval
    per_sample = as_dict(ev.per_query(["acc@1", "acc@3"]))
    assert per_sample == {1: {"acc@1": 0.0, "acc@3": 1.0}, 2: {"acc@1": 1.0, "acc@3": 1.0}}
    assert as_float(ev.acc(k=1)) == pytest.approx(0.50)
    assert as_float(ev.acc(k=3)) == pytest.approx(1.00)


def test_next_location_acc_example_tie_order(make_frame) -> None:
    # 003, 2.3, sample 2 has a tie (Cafe:0.1, Gym:0.1) and the document prints
    # "Top-3 = {Home, Work, Cafe}": it breaks the tie by list order (torch.topk), which is
    # rankframe's ties="first". rankframe's default ties="trec" orders equal scores by item id
    # descending and puts Gym third instead; Acc@k of the example is the same either way.
    _printed("003", "Top-3 = {Home, Work, Cafe}")
    frame = make_frame(NEXT_LOCATION_ACC_SAMPLES)
    ranked = as_pandas(frame.rank_eval.rank(ties="first"))
    sample_2 = ranked[ranked["query"] == 2]
    assert set(sample_2.loc[sample_2["rank"] <= 3, "item"]) == {"Home", "Work", "Cafe"}
    ranked = as_pandas(frame.rank_eval.rank())
    sample_2 = ranked[ranked["query"] == 2]
    assert set(sample_2.loc[sample_2["rank"] <= 3, "item"]) == {"Home", "Work", "Gym"}
    assert as_float(frame.rank_eval.acc(k=3, ties="first")) == pytest.approx(1.0)


def test_next_location_mrr_example(make_frame) -> None:
    # 003, "### 3.3 Calculation Example": correct "Work" at rank 2, "Home" at rank 1, "Gym"
    # at rank 5: RR 0.5, 1.0, 0.2 and "MRR = (0.5 + 1.0 + 0.2) / 3 = 0.567". Only the ranks
    # are given; the locations above each correct one are fillers.
    _printed(
        "003",
        'Sample 1: Correct = "Work", Rank = 2\n          RR = 1/2 = 0.5',
        'Sample 2: Correct = "Home", Rank = 1\n          RR = 1/1 = 1.0',
        'Sample 3: Correct = "Gym", Rank = 5\n          RR = 1/5 = 0.2',
        "MRR = (0.5 + 1.0 + 0.2) / 3 = 0.567",
    )
    frame = make_frame(_correct_at({1: 2, 2: 1, 3: 5}, {1: "Work", 2: "Home", 3: "Gym"}))
    ev = frame.rank_eval
    per_sample = as_dict(ev.per_query("mrr"))
    assert {sample: row["mrr"] for sample, row in per_sample.items()} == {
        1: pytest.approx(0.5),
        2: pytest.approx(1.0),
        3: pytest.approx(0.2),
    }
    assert as_float(ev.mrr()) == pytest.approx(0.567, abs=5e-4)


def test_next_location_ndcg_discount_table(make_frame) -> None:
    # 003, "### 4.2 Intuition": NDCG of a single correct location at rank 1, 2, 3, 5, 10 and
    # beyond 10 (rank 11 here): "1.000", "0.631", "0.500", "0.387", "0.289", "0.000".
    _printed(
        "003",
        "| 1 | 1/log",
        "| 1.000 |",
        "| 2 | 1/log",
        "| 0.631 |",
        "| 0.387 |",
        "| 0.289 |",
        "| >10 | - | 0.000 |",
    )
    expected = {1: 1.000, 2: 0.631, 3: 0.500, 5: 0.387, 10: 0.289, 11: 0.000}
    ev = make_frame(_correct_at({rank: rank for rank in expected})).rank_eval
    ndcg = as_dict(ev.per_query("ndcg@10"))
    assert {rank: row["ndcg@10"] for rank, row in ndcg.items()} == {
        rank: pytest.approx(value, abs=5e-4) for rank, value in expected.items()
    }


def test_next_location_ndcg_example(make_frame) -> None:
    # 003, "### 4.3 Calculation Example": correct at rank 1, 3, 7 and 15 (beyond k=10):
    # NDCG 1.0, 0.5, 0.333, 0 and "Average NDCG@10 = (1.0 + 0.5 + 0.333 + 0) / 4 = 0.458".
    _printed(
        "003",
        "Sample 4: Correct at rank 15 (beyond k=10)",
        "Average NDCG@10 = (1.0 + 0.5 + 0.333 + 0) / 4 = 0.458",
    )
    ev = make_frame(_correct_at({1: 1, 2: 3, 3: 7, 4: 15})).rank_eval
    per_sample = as_dict(ev.per_query("ndcg@10"))
    assert {sample: row["ndcg@10"] for sample, row in per_sample.items()} == {
        1: pytest.approx(1.0, abs=5e-4),
        2: pytest.approx(0.5, abs=5e-4),
        3: pytest.approx(0.333, abs=5e-4),
        4: 0.0,
    }
    assert as_float(ev.ndcg(k=10)) == pytest.approx(0.458, abs=5e-4)
    # The same with the exponential gain: 2^1 - 1 = 1 for a binary grade.
    assert as_float(ev.ndcg(k=10, gain="exponential")) == pytest.approx(0.458, abs=5e-4)


def test_next_location_ndcg_vs_mrr_table(make_frame) -> None:
    # 003, "### 4.4 NDCG vs MRR": a single correct location at rank 1, 2, 3, 5, 10;
    # MRR 1.00, 0.50, 0.33, 0.20, 0.10 and NDCG 1.00, 0.63, 0.50, 0.39, 0.29 (2 decimals).
    _printed(
        "003",
        "| Rank 1 | 1.00 | 1.00 |",
        "| Rank 2 | 0.50 | 0.63 |",
        "| Rank 3 | 0.33 | 0.50 |",
        "| Rank 5 | 0.20 | 0.39 |",
        "| Rank 10 | 0.10 | 0.29 |",
    )
    expected = {
        1: (1.00, 1.00),
        2: (0.50, 0.63),
        3: (0.33, 0.50),
        5: (0.20, 0.39),
        10: (0.10, 0.29),
    }
    ev = make_frame(_correct_at({rank: rank for rank in expected})).rank_eval
    table = as_dict(ev.per_query(["mrr", "ndcg@10"]))
    assert {rank: (row["mrr"], row["ndcg@10"]) for rank, row in table.items()} == {
        rank: (pytest.approx(rr, abs=5e-3), pytest.approx(ndcg, abs=5e-3))
        for rank, (rr, ndcg) in expected.items()
    }


def test_next_location_random_baseline(make_frame) -> None:
    # 003, "### 8.4 Baseline Comparisons": "Random Acc@1 = 1 / num_locations" and
    # "MRR ≈ 1 / log(num_locations)"; for GeoLife (1187 locations) "Random Acc@1 ≈ 0.08%"
    # and "Random MRR ≈ 14%".
    # A uniformly random ranking puts the correct location at each rank 1..V with
    # probability 1/V, so the expected metric is the mean over V queries, one per rank.
    # Acc@1 = 1/1187 = 0.084% matches the document. Its MRR does NOT: the expected
    # reciprocal rank is H_V / V (H_V the V-th harmonic number) = 0.645%, not
    # 1/ln(1187) = 14.1%. The document's formula is wrong (for V = 2 it gives 1/ln 2 = 1.44,
    # above the maximum of 1). The test pins the correct value.
    _printed("003", "For GeoLife (1187 locations):", "Random Acc@1 ")
    locations = 1187
    ranks = np.arange(1, locations + 1)
    query = np.repeat(ranks, ranks)  # query r holds r items, the correct one at rank r
    position = np.arange(len(query)) - np.repeat(np.cumsum(ranks) - ranks, ranks) + 1
    frame = make_frame(
        pd.DataFrame(
            {
                "query": query,
                "item": position,
                "score": (query - position).astype(float),
                "relevant": (position == query).astype(int),
            }
        )
    )
    ev = frame.rank_eval
    assert as_float(ev.acc(k=1)) == pytest.approx(0.0008, abs=5e-5)  # "≈ 0.08%"
    harmonic = sum(Fraction(1, r) for r in range(1, locations + 1))
    assert as_float(ev.mrr()) == pytest.approx(float(harmonic / locations), rel=1e-12)
    assert as_float(ev.mrr()) < 0.01  # far from the document's "≈ 14%"


# --------------------------------------------------------------------------------------------
# 004: O Que é Mean Reciprocal Rank? (Portuguese article)
# --------------------------------------------------------------------------------------------


def test_mrr_article_python_example(make_frame) -> None:
    # 004, "Como Calcular o Mean Reciprocal Rank em Python?": recommendation_lists
    # [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]] and relevance_lists [[2], [5, 6], [11]].
    # The document does NOT print the output of its print(mrr); the expected value is its loop
    # worked by hand: (1/2 + 1/1 + 1/3) / 3 = 11/18 = 0.6111...
    _printed(
        "004",
        "recommendation_lists = [ [1, 2, 3, 4], \n                         [5, 6, 7, 8], \n"
        "                         [9, 10, 11, 12]]",
        "relevance_lists = [ [2], \n                    [5, 6], \n                    [11]]",
    )
    recommendation_lists = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    relevance_lists = [[2], [5, 6], [11]]
    cases = {
        user: (ranked, relevant)
        for user, (ranked, relevant) in enumerate(
            zip(recommendation_lists, relevance_lists, strict=True), start=1
        )
    }
    ev = make_frame(_long(cases)).rank_eval
    per_user = as_dict(ev.per_query("mrr"))
    assert {user: row["mrr"] for user, row in per_user.items()} == {
        1: pytest.approx(1 / 2),
        2: pytest.approx(1.0),
        3: pytest.approx(1 / 3),
    }
    assert as_float(ev.mrr()) == pytest.approx(11 / 18)


def test_ndcg_vs_ap_table(make_frame) -> None:
    # 004, "Qual a Diferença Entre Mean Reciprocal Rank e Mean Average Precision?": the
    # table "Usuário Recomendações Itens Relevantes Reciprocal Rank NDCG Average Precision"
    # (its first three columns also form the earlier RR-vs-NDCG table), 6 decimals:
    _printed(
        "004",
        "1 [1, 2, 3, 4] [1, 2] 1 1 1",
        "2 [1, 2, 3, 4] [1, 3] 1 0.919721 0.833333",
        "3 [1, 2, 3, 4] [1, 4] 1 0.877215 0.75",
    )
    expected = {1: (1, 1, 1), 2: (1, 0.919721, 0.833333), 3: (1, 0.877215, 0.75)}
    cases = {1: ([1, 2, 3, 4], [1, 2]), 2: ([1, 2, 3, 4], [1, 3]), 3: ([1, 2, 3, 4], [1, 4])}
    ev = make_frame(_long(cases)).rank_eval
    table = as_dict(ev.per_query(["mrr", "ndcg", "map"]))
    assert {user: (row["mrr"], row["ndcg"], row["map"]) for user, row in table.items()} == {
        user: tuple(pytest.approx(value, abs=5e-7) for value in values)
        for user, values in expected.items()
    }
    # The article's "MRR ... igual a 1" for all three users.
    assert as_float(ev.mrr()) == pytest.approx(1.0)
