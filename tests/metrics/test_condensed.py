"""Condensed lists (Sakai's; trec_eval's ``-J``) in one word: ``unjudged="condense"`` ranks
only the judged rows, for every metric of the registry, on every frame kind. It equals the
two-option spelling ``unjudged="nonrelevant", judged_only=True`` and the frame with its
unjudged rows (and those of a negative grade) dropped by hand; a query left with no judged
row stays, as a query that retrieved nothing; ``judged_only=False`` said with it is an error
naming both options."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import rankframe
from helpers import FrameMaker, as_float, as_pandas, unlabelled
from rankframe import METRICS, InvalidOptionError

pytestmark = pytest.mark.filterwarnings("ignore::rankframe.RankEvalWarning")

TOL = 1e-12
ITEMS = [f"i{n}" for n in range(10)]
INPUTS: dict[str, Any] = {
    "catalog": [*ITEMS, "never-shown"],
    "popularity": {item: float(2 * n + 1) for n, item in enumerate(ITEMS)},
    "item_features": pd.DataFrame(
        np.random.default_rng(5).integers(0, 3, size=(len(ITEMS), 3)).astype(float),
        index=ITEMS,
        columns=["f0", "f1", "f2"],
    ),
    "item_groups": {item: "g" if n % 3 else "h" for n, item in enumerate(ITEMS)},
}


def _spec(name: str, k: int = 3) -> str:
    definition = METRICS[name]
    if not definition.takes_k:
        return name
    return f"{name}@{k if definition.param.integer else definition.param.example}"


#: every registered metric at one parameter (a cut-off of 3 where it takes one): those with
#: per-query values, compared per query; the set-level ones (no per-query values), compared
#: in ``evaluate`` with ``min_relevance=3`` for top1_f1, which needs one relevant item per
#: query (one grade 3 per query; the others do not read the grades)
PER_QUERY = [_spec(n) for n, d in METRICS.items() if d.aggregate != "set"]
SET_LEVEL = [_spec(n) for n, d in METRICS.items() if d.aggregate == "set"]


def _frame(marking: str) -> pd.DataFrame:
    """10 queries of 4 to 7 rows, distinct scores, grades -1 to 2 and one 3 per query, a
    third of the rows unjudged (a null grade, or ``judged`` False and grade 0), some judged
    rows not retrieved (a null score); every query keeps a judged row and a relevant one."""
    rng = np.random.default_rng(11)
    rows = []
    for q in range(10):
        n = int(rng.integers(4, 8))
        items = rng.choice(ITEMS, n, replace=False)
        for position, (item, score) in enumerate(zip(items, rng.permutation(n), strict=True)):
            judged = position < 2 or bool(rng.random() > 1 / 3)
            grade = 3 - 2 * position if position < 2 else int(rng.integers(-1, 3))
            rows.append(
                {
                    "query": f"q{q}",
                    "item": item,
                    "score": float(score) if position == 0 or rng.random() > 0.1 else np.nan,
                    "relevant": float(grade) if judged else 0.0,
                    "judged": judged,
                }
            )
    data = pd.DataFrame(rows)
    if marking == "null grades":
        data["relevant"] = data["relevant"].where(data.pop("judged"))
    return data


def _judged_by_hand(data: pd.DataFrame) -> pd.DataFrame:
    """The rows trec_eval's ``-J`` keeps: judged, of a grade 0 or more."""
    judged = data["judged"] if "judged" in data else data["relevant"].notna()
    return data.loc[judged & (data["relevant"] >= 0)].reset_index(drop=True)


def test_the_frame_holds_what_the_test_needs() -> None:
    for marking in ("null grades", "judged column"):
        data = _frame(marking)
        dropped = len(data) - len(_judged_by_hand(data))
        assert dropped >= len(data) // 5, marking  # many rows condensed away
        assert (data["relevant"] < 0).any()  # negative grades, which -J drops too
        assert data["score"].isna().any()  # judged rows not retrieved
    assert _frame("null grades")["relevant"].isna().any()


@pytest.mark.parametrize("marking", ["null grades", "judged column"])
def test_condense_is_the_two_options_and_the_rows_dropped_by_hand(
    make_frame: FrameMaker, marking: str
) -> None:
    """For every registered metric: ``unjudged="condense"`` == ``unjudged="nonrelevant",
    judged_only=True`` == the frame without its unjudged and negative rows, per query and
    aggregated (the set-level metrics too)."""
    data = _frame(marking)
    ev = make_frame(data).rank_eval
    by_hand = make_frame(_judged_by_hand(data)).rank_eval

    def per_query(ev: Any, **options: Any) -> pd.DataFrame:
        table = unlabelled(ev.per_query(PER_QUERY, **options, **INPUTS))
        return table.sort_values("query", ignore_index=True)

    one_word = per_query(ev, unjudged="condense")
    two = per_query(ev, unjudged="nonrelevant", judged_only=True)
    dropped = per_query(by_hand)
    kept = per_query(ev, unjudged="nonrelevant")  # the unjudged rows ranked, as non-relevant
    moved = [m for m in PER_QUERY if not np.allclose(one_word[m], kept[m], equal_nan=True)]
    assert {"map@3", "precision@3", "num_ret", "unjudged@3"} <= set(moved)
    assert set(one_word.columns) == {"query", *PER_QUERY}  # a per-group metric: a column each
    pd.testing.assert_frame_equal(one_word, two, check_exact=True)
    pd.testing.assert_frame_equal(one_word, dropped, rtol=TOL, atol=TOL, check_dtype=False)

    def evaluate(ev: Any, **options: Any) -> pd.DataFrame:
        return unlabelled(ev.evaluate(SET_LEVEL, min_relevance=3, **options, **INPUTS))

    means = evaluate(ev, unjudged="condense")
    assert set(means.columns) == {*SET_LEVEL, "n_queries"}
    assert "top1_f1" in SET_LEVEL
    two = evaluate(ev, unjudged="nonrelevant", judged_only=True)
    pd.testing.assert_frame_equal(means, two, check_exact=True)
    pd.testing.assert_frame_equal(means, evaluate(by_hand), rtol=TOL, atol=TOL)


# -- coverage under condense, a query condensed to nothing ---------------------------------------


def test_coverage_and_a_query_left_without_judged_rows(make_frame: FrameMaker) -> None:
    """As trec_eval's ``-J``: the metrics read the condensed list, so ``unjudged@k`` is 0 and
    ``judged@k`` 1 wherever a judged row is left; q2, whose rows are all unjudged (b2's grade
    is null, c2's -1), stays a query that retrieved nothing: 0 everywhere, ``judged@k`` too
    (0 for an empty list), and it counts in ``n_queries``."""
    data = pd.DataFrame(
        {
            "query": ["q1"] * 4 + ["q2"] * 2,
            "item": ["a", "b", "c", "d", "b2", "c2"],
            "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
            "relevant": [np.nan, 0.0, np.nan, 1.0, np.nan, -1.0],
        }
    )
    ev = make_frame(data).rank_eval
    metrics = ["map", "precision@2", "num_ret", "judged@2", "unjudged@2", "judged"]
    got = unlabelled(ev.per_query(metrics, unjudged="condense")).sort_values("query")
    # q1's condensed list is b (0), d (1): AP 1/2, P@2 1/2, two retrieved, wholly judged
    assert got.set_index("query").to_dict("index") == {
        "q1": dict(zip(metrics, [0.5, 0.5, 2, 1.0, 0.0, 1.0], strict=True)),
        "q2": dict.fromkeys(metrics, 0.0),
    }
    means = unlabelled(ev.evaluate(["map", "judged@2"], unjudged="condense"))
    assert means.to_dict("records") == [{"map": 0.25, "judged@2": 0.5, "n_queries": 2}]
    # not condensed: q1's top 2 is a (null grade), b: half judged; q2's b2 (null), c2 (-1)
    full = unlabelled(ev.per_query(["judged@2", "unjudged@2"], unjudged="nonrelevant"))
    assert full.sort_values("query")[["judged@2", "unjudged@2"]].to_numpy().tolist() == [
        [0.5, 0.5],
        [0.0, 1.0],
    ]


# -- the spellings, and a contradiction ----------------------------------------------------------

SMALL = {
    "query": ["q"] * 4,
    "item": ["a", "b", "c", "d"],
    "score": [4.0, 3.0, 2.0, 1.0],
    "relevant": [1.0, np.nan, 0.0, 1.0],
}


def test_labels_name_the_spelling_used(make_frame: FrameMaker) -> None:
    """The values are the same, the labels say what was written; ``judged_only=True`` with
    it says the same twice, no contradiction. b leaves the ranking: AP is (1 + 2/3) / 2."""
    ev = make_frame(SMALL).rank_eval
    tables = [
        as_pandas(ev.evaluate(["map"], unjudged="condense")),
        as_pandas(ev.evaluate(["map"], unjudged="nonrelevant", judged_only=True)),
        as_pandas(ev.evaluate(["map"], unjudged="condense", judged_only=True)),
        as_pandas(ev.evaluate(["map(unjudged=condense)"])),
    ]
    assert [t.columns[0] for t in tables] == [
        "map(unjudged=condense)",
        "map(judged_only=true,unjudged=nonrelevant)",
        "map(judged_only=true,unjudged=condense)",
        "map(unjudged=condense)",
    ]
    assert [t.iloc[0, 0] for t in tables] == [pytest.approx((1 + 2 / 3) / 2, abs=TOL)] * 4
    assert as_float(ev.map(unjudged="condense")) == pytest.approx((1 + 2 / 3) / 2, abs=TOL)


CONTRADICTION = (
    "unjudged='condense' ranks only the judged rows (it is judged_only=True), but {said}, "
    "which keeps the unjudged rows. Drop judged_only=False to condense the lists, or pass "
    "unjudged='nonrelevant' to keep the unjudged rows as non-relevant."
)


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (
            lambda ev: ev.map(unjudged="condense", judged_only=False),
            "the call passes judged_only=False",
        ),
        (
            lambda ev: ev.evaluate(["map(unjudged=condense)"], judged_only=False),
            "the call passes judged_only=False",
        ),
        (
            lambda ev: ev.evaluate(["map(judged_only=false)", "mrr"], unjudged="condense"),
            "metric 'map' says judged_only=false",
        ),
        (
            lambda ev: ev.compare(["ndcg@2(judged_only=false)", "map(unjudged=condense)"]),
            "metric 'ndcg@2' says judged_only=false",
        ),
    ],
)
def test_condense_with_judged_only_false_is_an_error(
    make_frame: FrameMaker, call: Any, said: str
) -> None:
    ev = make_frame({**SMALL, "other": [1.0, 2.0, 3.0, 4.0]}).rank_eval(score=["score", "other"])
    with pytest.raises(InvalidOptionError) as caught:
        call(ev)
    assert str(caught.value) == CONTRADICTION.format(said=said)


def test_a_spelling_of_condense_is_suggested(make_frame: FrameMaker) -> None:
    ev = make_frame(SMALL).rank_eval
    for spelling in ("condensed", "judged_only", "Condense"):
        with pytest.raises(InvalidOptionError, match=r"Did you mean 'condense'\?"):
            ev.map(unjudged=spelling)


def test_the_null_grade_error_names_condense(make_frame: FrameMaker) -> None:
    ev = make_frame(SMALL).rank_eval
    with pytest.raises(
        rankframe.InvalidDataError,
        match=r"or unjudged='condense' to rank only the judged rows \(condensed lists\)",
    ):
        as_float(ev.map())
