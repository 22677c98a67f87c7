"""The beyond-accuracy metrics (coverage, gini, entropy, personalization, arp, novelty, ild)
and top1_f1, on every frame kind.

References: brute force written here from the issue's formulas (each query's top-k list
built by sorting its rows in Python, pairs of lists and pairs of items enumerated), the
anchors' own published test fixtures (RecBole's tests/metrics/test_topk_metrics.py,
Evidently's tests/metrics/recsys/test_personalisation.py, Microsoft Recommenders'
tests/unit/recommenders/evaluation conftest ``diversity_data``), and scikit-learn's
``f1_score`` for top1_f1.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.metrics import f1_score

import rankframe
from helpers import FrameMaker, as_float, as_pandas, collect, unlabelled
from rankframe import METRICS, InvalidDataError, InvalidOptionError

BEYOND = ("coverage", "gini", "entropy", "personalization", "arp", "novelty", "ild")
SET_LEVEL = ("coverage", "gini", "entropy", "personalization", "top1_f1")


# -- the reference: top-k lists and the formulas, by brute force ---------------------------------


def top_lists(frame: pd.DataFrame, k: int | None) -> dict[Any, list[Any]]:
    """Each query's top-k items: scored rows by score descending, ties by item id
    descending (trec_eval's rule), one query at a time."""
    lists = {}
    for query, rows in frame.groupby("query", sort=True):
        scored = [
            (s, i) for s, i in zip(rows["score"], rows["item"], strict=True) if not pd.isna(s)
        ]
        ranked = [i for _, i in sorted(scored, reverse=True)]
        lists[query] = ranked if k is None else ranked[:k]
    return lists


def ref_coverage(lists: dict[Any, list[Any]], n: int) -> float:
    return len(set().union(*lists.values())) / n


def item_counts(lists: dict[Any, list[Any]]) -> Counter[Any]:
    return Counter(item for items in lists.values() for item in items)


def ref_gini(lists: dict[Any, list[Any]], catalog: list[Any]) -> float:
    counts = item_counts(lists)
    c = sorted(counts.get(item, 0) for item in catalog)
    n = len(c)
    total = sum(c)
    return sum((2 * i - n - 1) * ci for i, ci in enumerate(c, start=1)) / (n * total)


def ref_entropy(lists: dict[Any, list[Any]]) -> float:
    counts = item_counts(lists)
    total = sum(counts.values())
    return -sum(c / total * math.log(c / total) for c in counts.values())


def ref_personalization(lists: dict[Any, list[Any]], k: int) -> float:
    pairs = list(itertools.combinations(lists.values(), 2))
    if not pairs:
        return math.nan
    return 1 - sum(len(set(a) & set(b)) / k for a, b in pairs) / len(pairs)


def ref_mean(lists: dict[Any, list[Any]], value: Callable[[Any], float]) -> float:
    per_query = [
        sum(value(i) for i in items) / len(items) if items else 0.0 for items in lists.values()
    ]
    return sum(per_query) / len(per_query)


def ref_ild_one(items: list[Any], features: dict[Any, np.ndarray]) -> float:
    pairs = list(itertools.combinations(items, 2))
    if not pairs:
        return 0.0
    distances = []
    for a, b in pairs:
        fa, fb = features[a], features[b]
        norms = np.linalg.norm(fa) * np.linalg.norm(fb)
        cosine = float(fa @ fb / norms) if norms > 0 else 0.0
        distances.append(1 - cosine)
    return sum(distances) / len(distances)


def ref_ild(lists: dict[Any, list[Any]], features: dict[Any, np.ndarray]) -> float:
    return float(np.mean([ref_ild_one(items, features) for items in lists.values()]))


# -- frames --------------------------------------------------------------------------------------

ITEMS = [f"i{n}" for n in range(12)]


def random_frame(seed: int, n_queries: int = 14) -> pd.DataFrame:
    """Queries of 1-8 items from a catalog of 12, tied scores, some null scores, a segment."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        n = int(rng.integers(1, 9))
        for item in rng.choice(ITEMS[:10], size=n, replace=False):  # i10, i11 never listed
            score = None if rng.random() < 0.15 else float(rng.choice([0.1, 0.5, 0.5, 0.9, 1.3]))
            rows.append(
                {
                    "query": f"q{q:02d}",
                    "item": str(item),
                    "score": score,
                    "relevant": int(rng.random() < 0.3),
                    "segment": q % 3,
                }
            )
    frame = pd.DataFrame(rows)
    frame["score"] = frame["score"].astype(float)
    return frame


POPULARITY = {item: float(n + 1) for n, item in enumerate(ITEMS)}  # all positive
FEATURES = pd.DataFrame(
    np.random.default_rng(7).integers(0, 3, size=(len(ITEMS), 4)).astype(float),
    index=ITEMS,
    columns=["f0", "f1", "f2", "f3"],
)
FEATURES.loc["i3"] = 0.0  # a zero vector: cosine 0 with every vector


def references(frame: pd.DataFrame, k: int) -> dict[str, float]:
    lists = top_lists(frame, k)
    frame_items = sorted(frame["item"].unique())
    features = {i: FEATURES.loc[i].to_numpy() for i in ITEMS}
    total = sum(POPULARITY.values())
    return {
        f"coverage@{k}": ref_coverage(lists, len(frame_items)),
        f"gini@{k}": ref_gini(lists, frame_items),
        f"entropy@{k}": ref_entropy(lists),
        f"personalization@{k}": ref_personalization(lists, k),
        f"arp@{k}": ref_mean(lists, POPULARITY.__getitem__),
        f"novelty@{k}": ref_mean(lists, lambda i: -math.log2(POPULARITY[i] / total)),
        f"ild@{k}": ref_ild(lists, features),
    }


def evaluate(frame: Any, metrics: list[str], **options: Any) -> pd.DataFrame:
    options.setdefault("popularity", POPULARITY)
    options.setdefault("item_features", FEATURES)
    # read without the options their labels name (tests/metrics/test_labels.py tests those)
    return unlabelled(frame.rank_eval.evaluate(metrics, **options))


# -- the formulas, on every frame kind -----------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_against_the_formulas(make_frame: FrameMaker, seed: int, k: int) -> None:
    data = random_frame(seed)
    want = references(data, k)
    got = evaluate(make_frame(data), list(want)).iloc[0]
    for column, value in want.items():
        assert got[column] == pytest.approx(value, abs=1e-12), column
    assert got["n_queries"] == data["query"].nunique()


def test_by_segments_against_the_formulas(make_frame: FrameMaker) -> None:
    data = random_frame(2, n_queries=20)
    k = 3
    got = evaluate(make_frame(data), [f"{m}@{k}" for m in BEYOND], by="segment")
    got = got.set_index("segment")
    frame_items = sorted(data["item"].unique())  # the catalog of the whole frame
    for segment, rows in data.groupby("segment"):
        lists = top_lists(rows, k)
        assert got.loc[segment, "coverage@3"] == pytest.approx(
            ref_coverage(lists, len(frame_items)), abs=1e-12
        )
        assert got.loc[segment, "gini@3"] == pytest.approx(ref_gini(lists, frame_items), abs=1e-12)
        assert got.loc[segment, "entropy@3"] == pytest.approx(ref_entropy(lists), abs=1e-12)
        assert got.loc[segment, "personalization@3"] == pytest.approx(
            ref_personalization(lists, k), abs=1e-12
        )
        assert got.loc[segment, "arp@3"] == pytest.approx(
            ref_mean(lists, POPULARITY.__getitem__), abs=1e-12
        )
        assert got.loc[segment, "n_queries"] == len(lists)


def test_whole_lists_and_a_given_catalog(make_frame: FrameMaker) -> None:
    data = random_frame(3)
    lists = top_lists(data, None)
    catalog = [*ITEMS, "never"]  # 13 items, 3 of them in no frame
    got = evaluate(
        make_frame(data), ["coverage", "gini", "entropy", "arp", "ild"], catalog=catalog
    ).iloc[0]
    assert got["coverage"] == pytest.approx(ref_coverage(lists, 13), abs=1e-12)
    assert got["gini"] == pytest.approx(ref_gini(lists, catalog), abs=1e-12)
    assert got["entropy"] == pytest.approx(ref_entropy(lists), abs=1e-12)
    assert got["arp"] == pytest.approx(ref_mean(lists, POPULARITY.__getitem__), abs=1e-12)
    features = {i: FEATURES.loc[i].to_numpy() for i in ITEMS}
    assert got["ild"] == pytest.approx(ref_ild(lists, features), abs=1e-12)


def test_per_query_values_of_the_per_query_metrics(make_frame: FrameMaker) -> None:
    data = random_frame(4)
    table = as_pandas(
        make_frame(data).rank_eval.per_query(
            ["arp@2", "novelty@2", "ild@2"], popularity=POPULARITY, item_features=FEATURES
        )
    )
    lists = top_lists(data, 2)
    features = {i: FEATURES.loc[i].to_numpy() for i in ITEMS}
    total = sum(POPULARITY.values())
    for row in table.to_dict("records"):
        items = lists[row["query"]]
        n = max(len(items), 1)
        assert row["arp@2"] == pytest.approx(sum(POPULARITY[i] for i in items) / n)
        assert row["novelty@2"] == pytest.approx(
            sum(-math.log2(POPULARITY[i] / total) for i in items) / n
        )
        assert row["ild@2"] == pytest.approx(ref_ild_one(items, features), abs=1e-12)


def test_several_systems(make_frame: FrameMaker) -> None:
    data = random_frame(5)
    other = np.random.default_rng(9).random(len(data))
    data["other"] = other
    table = as_pandas(
        make_frame(data)
        .rank_eval(score=["score", "other"])
        .evaluate(["coverage@2", "personalization@2", "novelty@2"], popularity=POPULARITY)
    )
    for system in ("score", "other"):
        lists = top_lists(data.assign(score=data[system]), 2)
        row = table[table["system"] == system].iloc[0]
        assert row["coverage@2"] == pytest.approx(
            ref_coverage(lists, data["item"].nunique()), abs=1e-12
        )
        assert row["personalization@2"] == pytest.approx(ref_personalization(lists, 2), abs=1e-12)


def test_tidy_layout(make_frame: FrameMaker) -> None:
    data = random_frame(6)
    tidy = evaluate(make_frame(data), ["coverage@3", "arp@3"], by="segment", tidy=True)
    wide = evaluate(make_frame(data), ["coverage@3", "arp@3"], by="segment")
    assert len(tidy) == 2 * len(wide)
    for row in tidy.to_dict("records"):
        metric = f"{row['metric']}@{row['k']}"
        expected = wide.loc[wide["segment"] == row["segment"], metric].iloc[0]
        assert row["value"] == pytest.approx(expected, abs=0)


def test_empty_skip_leaves_the_item_metrics_alone(make_frame: FrameMaker) -> None:
    # empty= is about queries without relevant items; the set-level metrics of the items
    # themselves do not read relevance, so every query's list enters them (issue 25)
    data = random_frame(8)
    has_relevant = data.groupby("query")["relevant"].transform("max") > 0
    assert not has_relevant.all()  # the frame has queries that skip would leave out
    kept = data
    got = evaluate(
        make_frame(data), ["coverage@2", "entropy@2", "personalization@2"], empty="skip"
    ).iloc[0]
    lists = top_lists(kept, 2)
    assert got["coverage@2"] == pytest.approx(
        ref_coverage(lists, data["item"].nunique()), abs=1e-12
    )
    assert got["entropy@2"] == pytest.approx(ref_entropy(lists), abs=1e-12)
    assert got["personalization@2"] == pytest.approx(ref_personalization(lists, 2), abs=1e-12)
    assert got["n_queries"] == kept["query"].nunique()


# -- the anchors' own fixtures -------------------------------------------------------------------

# RecBole tests/metrics/test_topk_metrics.py: five users' top-3 items, 8 items (0..7),
# item popularity {1: 0, ..., 6: 5} (RecBole reads item 7, absent there, as 0)
RECBOLE_LISTS = [[5, 7, 3], [4, 5, 2], [2, 3, 5], [1, 4, 6], [5, 3, 7]]
RECBOLE_COUNT = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 0}


def lists_frame(lists: list[list[Any]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"query": u, "item": item, "score": float(len(items) - r), "relevant": 0}
            for u, items in enumerate(lists, start=1)
            for r, item in enumerate(items)
        ]
    )


def test_recbole_fixture(make_frame: FrameMaker) -> None:
    frame = make_frame(lists_frame(RECBOLE_LISTS))
    ev = frame.rank_eval
    catalog = range(8)
    assert as_float(ev.coverage(3, catalog=catalog)) == pytest.approx(7 / 8)
    gini = ((-7) * 0 + (-5) * 1 + (-3) * 1 + (-1) * 2 + 1 * 2 + 3 * 2 + 5 * 3 + 7 * 4) / (
        8 * (3 * 5)
    )
    assert as_float(ev.gini(3, catalog=catalog)) == pytest.approx(gini, abs=1e-12)
    # RecBole's ShannonEntropy is the mean over the 7 recommended items of -p ln p; ours
    # is the sum (the definition), 7 times RecBole's value
    p = np.array([1, 2, 3, 2, 4, 1, 2]) / 15
    recbole_entropy = -np.mean(p * np.log(p))
    assert as_float(ev.entropy(3)) == pytest.approx(7 * recbole_entropy, abs=1e-12)
    # AveragePopularity per user at k = 1, 2, 3 (RecBole's metric_info rows)
    expected = [
        [4 / 1, 4 / 2, 6 / 3],
        [3 / 1, 7 / 2, 8 / 3],
        [1 / 1, 3 / 2, 7 / 3],
        [0 / 1, 3 / 2, 8 / 3],
        [4 / 1, 6 / 2, 6 / 3],
    ]
    table = as_pandas(ev.per_query(["arp@1", "arp@2", "arp@3"], popularity=RECBOLE_COUNT))
    np.testing.assert_allclose(
        table[["arp@1", "arp@2", "arp@3"]].to_numpy(), expected, rtol=0, atol=1e-12
    )


def test_evidently_personalization_fixture(make_frame: FrameMaker) -> None:
    # Evidently tests/metrics/recsys/test_personalisation.py: k=4, value 0.16666666
    data = pd.DataFrame(
        {
            "query": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
            "item": [1, 2, 3, 4, 1, 2, 3, 4, 1, 3, 2, 5],
            "score": [10, 9, 8, 4, 10, 9, 8, 4, 10, 9, 8, 4],
            "relevant": 0,
        }
    )
    assert as_float(make_frame(data).rank_eval.personalization(4)) == pytest.approx(
        0.16666666, abs=1e-8
    )


def msr_fixture() -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    """Microsoft Recommenders' ``diversity_data``: interactions, recommendations, features."""
    train = pd.DataFrame({"UserId": [1, 1, 1, 2, 2, 3, 3, 3], "ItemId": [1, 2, 4, 3, 4, 3, 4, 5]})
    reco = pd.DataFrame(
        {
            "query": [1, 1, 2, 2, 3, 3],
            "item": [3, 5, 2, 5, 1, 2],
            "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
            "relevant": [1, 0, 1, 1, 1, 0],
        }
    )
    features = pd.DataFrame(
        [[0, 1, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 1, 1, 0], [0, 0, 1, 0, 1], [0, 0, 0, 1, 1]],
        index=[1, 2, 3, 4, 5],
        dtype=float,
    )
    return reco, train["ItemId"].value_counts(), features


def test_microsoft_recommenders_fixture(make_frame: FrameMaker) -> None:
    reco, popularity, features = msr_fixture()
    ev = make_frame(reco).rank_eval
    # catalog_coverage 0.8: the recommended items over the distinct items of train
    assert as_float(ev.coverage(2, catalog=popularity.index)) == pytest.approx(0.8)
    # distributional_coverage 1.9183: the entropy of the recommended items, in bits
    assert as_float(ev.entropy(2)) / math.log(2) == pytest.approx(1.9183, abs=1e-4)
    # novelty 2.83333 (historical item novelty -log2(count / interactions))
    assert as_float(ev.novelty(2, popularity=popularity)) == pytest.approx(2.83333, abs=1e-4)
    # diversity with item_feature_vector: 0.5 per user and overall
    assert as_float(ev.ild(2, item_features=features)) == pytest.approx(0.5, abs=1e-12)
    per_user = as_pandas(ev.per_query("ild@2", item_features=features))
    np.testing.assert_allclose(per_user["ild@2"], [0.5, 0.5, 0.5], atol=1e-12)


# -- the inputs in every form --------------------------------------------------------------------


def test_popularity_and_features_in_every_form(make_frame: FrameMaker) -> None:
    reco, popularity, features = msr_fixture()
    frame = make_frame(reco)
    forms = [
        popularity,
        popularity.to_dict(),
        pl.DataFrame({"item": popularity.index.to_list(), "n": popularity.to_list()}),
        popularity.to_frame(),
    ]
    values = [as_float(frame.rank_eval.arp(2, popularity=p)) for p in forms]
    # per user (2 + 1)/2, (1 + 1)/2, (1 + 1)/2 (counts: 3 -> 2, 5 -> 1, 2 -> 1, 1 -> 1)
    assert values == [pytest.approx((1.5 + 1 + 1) / 3)] * len(forms)
    as_polars = pl.from_pandas(features.reset_index(names="item"))
    assert as_float(frame.rank_eval.ild(2, item_features=as_polars)) == pytest.approx(0.5)


# -- top1_f1 against scikit-learn ----------------------------------------------------------------


def classification_frame(seed: int, n_queries: int = 40) -> pd.DataFrame:
    """Each query: one true class among 5, scores over the 5 classes (some ties)."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        true = int(rng.integers(0, 5))
        scores = rng.choice([0.1, 0.2, 0.5, 0.7, 0.9], size=5)
        for c in range(5):
            rows.append(
                {
                    "query": q,
                    "item": f"c{c}",
                    "score": float(scores[c]),
                    "relevant": int(c == true),
                    "segment": q % 2,
                    "other": float(rng.random()),
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("class_average", ["weighted", "macro", "micro"])
def test_top1_f1_is_sklearns(make_frame: FrameMaker, class_average: str) -> None:
    data = classification_frame(0)
    frame = make_frame(data)
    table = as_pandas(
        frame.rank_eval(score=["score", "other"]).evaluate(
            ["top1_f1"], by="segment", class_average=class_average
        )
    )
    for (segment, system), row in table.set_index(["segment", "system"]).iterrows():
        rows = data[data["segment"] == segment]
        lists = top_lists(rows.assign(score=rows[system]), 1)
        truth = rows[rows["relevant"] == 1].set_index("query")["item"]
        y_true = [truth[q] for q in lists]
        y_pred = [lists[q][0] for q in lists]
        want = f1_score(y_true, y_pred, average=class_average)
        # the label names the option when it is not the default
        label = f"top1_f1(class_average={class_average})"
        if class_average == "weighted":
            label = "top1_f1"
        assert row[label] == pytest.approx(want, abs=1e-12), (segment, system)


def test_top1_f1_interval_is_deterministic(make_frame: FrameMaker) -> None:
    frame = make_frame(classification_frame(1))
    first = as_pandas(
        frame.rank_eval.evaluate(["top1_f1", "acc@1"], confidence_level=0.9, n_resamples=60, seed=3)
    )
    again = as_pandas(
        frame.rank_eval.evaluate(["top1_f1", "acc@1"], confidence_level=0.9, n_resamples=60, seed=3)
    )
    pd.testing.assert_frame_equal(first, again)
    row = first.iloc[0]
    # micro F1 is acc@1; the weighted F1's interval holds its value
    assert row["top1_f1_ci_low"] <= row["top1_f1"] <= row["top1_f1_ci_high"]


def test_top1_f1_micro_is_accuracy_at_1(make_frame: FrameMaker) -> None:
    frame = make_frame(classification_frame(2))
    table = as_pandas(
        frame.rank_eval.evaluate(
            ["top1_f1", "acc@1"], class_average="micro", confidence_level=0.9, n_resamples=50
        )
    )
    row = table.iloc[0]
    micro = "top1_f1(class_average=micro)"
    assert row[micro] == pytest.approx(row["acc@1"], abs=1e-12)
    # the same resampled queries: the same interval
    assert row[f"{micro}_ci_low"] == pytest.approx(row["acc@1_ci_low"], abs=1e-12)
    assert row[f"{micro}_ci_high"] == pytest.approx(row["acc@1_ci_high"], abs=1e-12)


# -- intervals -----------------------------------------------------------------------------------


def test_bootstrap_intervals(make_frame: FrameMaker) -> None:
    # every item in many lists: the resamples' values straddle the value of the frame
    rng = np.random.default_rng(11)
    data = pd.DataFrame(
        {
            "query": np.repeat(np.arange(60), 4),
            "item": np.tile(["a", "b", "c", "d"], 60),
            "score": rng.random(240),
            "relevant": 0,
        }
    )
    metrics = ["gini@2", "entropy@2", "personalization@2", "arp@2"]
    options = {
        "confidence_level": 0.9,
        "n_resamples": 200,
        "seed": 5,
        "popularity": dict.fromkeys("abcd", 3.0),
    }
    first = evaluate(make_frame(data), metrics, **options)
    again = evaluate(make_frame(data), metrics, **options)
    pd.testing.assert_frame_equal(first, again)
    other = evaluate(make_frame(data), metrics, **{**options, "seed": 6})
    assert not first.equals(other)
    row = first.iloc[0]
    for metric in ["gini@2", "entropy@2", "personalization@2"]:
        assert row[f"{metric}_ci_low"] < row[metric] < row[f"{metric}_ci_high"], metric


def test_intervals_per_segment_are_the_same_on_every_frame_kind(make_frame: FrameMaker) -> None:
    data = random_frame(12, n_queries=24)
    got = evaluate(
        make_frame(data),
        ["coverage@3", "novelty@3"],
        by="segment",
        confidence_level=0.8,
        n_resamples=40,
    )
    want = evaluate(
        data, ["coverage@3", "novelty@3"], by="segment", confidence_level=0.8, n_resamples=40
    )
    pd.testing.assert_frame_equal(got, want, check_dtype=False, atol=1e-12, rtol=0)


# -- invariances ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_row_order_and_item_names_do_not_matter(seed: int) -> None:
    data = random_frame(seed)
    metrics = [
        "coverage@3",
        "gini@3",
        "entropy@3",
        "personalization@3",
        "arp@3",
        "novelty@3",
        "ild@3",
    ]
    base = evaluate(data, metrics)
    shuffled = data.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    pd.testing.assert_frame_equal(evaluate(shuffled, metrics), base, atol=1e-12, rtol=0)
    # renaming items (another sorted order) changes nothing when the inputs follow;
    # equal scores are ordered by item id (ties="trec"), so the scores are made distinct
    data = data.assign(score=data["score"] + np.arange(len(data)) * 1e-6)
    rename = {item: f"z{99 - n}" for n, item in enumerate(ITEMS)}
    renamed = data.assign(item=data["item"].map(rename))
    features = FEATURES.rename(index=rename)
    popularity = {rename[i]: v for i, v in POPULARITY.items()}
    pd.testing.assert_frame_equal(
        evaluate(renamed, metrics, popularity=popularity, item_features=features),
        evaluate(data, metrics),
        atol=1e-12,
        rtol=0,
    )


# -- errors, the same on every frame kind --------------------------------------------------------


def run(frame: Any, call: Callable[[Any], Any]) -> Any:
    return collect(call(frame.rank_eval))


def test_set_level_metrics_have_no_per_query_value(make_frame: FrameMaker) -> None:
    frame = make_frame(random_frame(0))
    for name in SET_LEVEL:
        assert METRICS[name].aggregate == "set"
        metric = "top1_f1" if name == "top1_f1" else f"{name}@3"
        with pytest.raises(
            InvalidOptionError,
            match=rf"{metric} is a set-level metric.*"
            r"per_query\(\) gives one value",
        ):
            run(frame, lambda ev, m=metric: ev.per_query([m, "mrr"]))
    data = random_frame(0).assign(other=1.0)
    two = make_frame(data)
    with pytest.raises(InvalidOptionError, match=r"coverage@3 is a set-level metric.*compare"):
        collect(two.rank_eval(score=["score", "other"]).compare(["mrr", "coverage@3"]))
    # the per-query metrics compare as any metric
    table = as_pandas(
        two.rank_eval(score=["score", "other"]).compare("arp@3", popularity=POPULARITY)
    )
    assert list(table["metric"]) == ["arp", "arp"]


@pytest.mark.parametrize(
    ("metric", "option"),
    [("arp@3", "popularity"), ("novelty@3", "popularity"), ("ild@3", "item_features")],
)
def test_a_missing_input_names_the_option(make_frame: FrameMaker, metric: str, option: str) -> None:
    frame = make_frame(random_frame(0))
    with pytest.raises(InvalidOptionError, match=f"{metric} needs the '{option}' option"):
        run(frame, lambda ev: ev.evaluate([metric]))


def test_personalization_needs_a_cut_off(make_frame: FrameMaker) -> None:
    frame = make_frame(random_frame(0))
    with pytest.raises(InvalidOptionError, match="personalization needs a cut-off"):
        run(frame, lambda ev: ev.personalization())


def test_items_missing_from_the_inputs_are_named(make_frame: FrameMaker) -> None:
    frame = make_frame(random_frame(0))
    partial = {i: 1.0 for i in ITEMS if i not in ("i2", "i4", "i5")}
    with pytest.raises(
        InvalidOptionError,
        match=r"3 item\(s\) of the top-k lists have no popularity: "
        r"'i2', 'i4', 'i5'\. Give every",
    ):
        run(frame, lambda ev: ev.evaluate(["arp"], popularity=partial))
    with pytest.raises(InvalidOptionError, match=r"have no item_features: 'i0'"):
        run(frame, lambda ev: ev.ild(item_features=FEATURES.drop(index="i0")))
    with pytest.raises(
        InvalidOptionError, match=r"item\(s\) of the top-k lists are not in the catalog: 'i0'"
    ):
        run(frame, lambda ev: ev.coverage(3, catalog=ITEMS[1:]))
    zero = {**POPULARITY, "i1": 0.0}
    with pytest.raises(InvalidOptionError, match=r"have popularity 0, so infinite novelty"):
        run(frame, lambda ev: ev.novelty(popularity=zero))


def test_bad_inputs(make_frame: FrameMaker) -> None:
    frame = make_frame(random_frame(0))
    with pytest.raises(InvalidOptionError, match="'popularity' option must map each item"):
        frame.rank_eval.arp(popularity=[1, 2, 3])
    with pytest.raises(InvalidOptionError, match="'catalog' option must be a collection"):
        frame.rank_eval.coverage(catalog="abc")
    with pytest.raises(InvalidOptionError, match="'item_features' option must be a frame"):
        frame.rank_eval.ild(item_features={"a": [1, 2]})
    with pytest.raises(InvalidOptionError, match="holds a negative count"):
        run(frame, lambda ev: ev.arp(popularity={**POPULARITY, "i0": -1}))
    repeated = pd.Series([1.0, 2.0], index=["i0", "i0"])
    with pytest.raises(InvalidOptionError, match="lists item 'i0' more than once"):
        run(frame, lambda ev: ev.arp(popularity=repeated))
    with pytest.raises(InvalidOptionError, match="Did you mean 'macro'"):
        frame.rank_eval.top1_f1(class_average="makro")


def test_top1_f1_needs_one_relevant_item_per_query(make_frame: FrameMaker) -> None:
    data = classification_frame(3, n_queries=8)
    data.loc[(data["query"] == 5) & (data["item"] == "c0"), "relevant"] = 1
    data.loc[(data["query"] == 2), "relevant"] = 0
    data.loc[(data["query"] == 2) & (data["item"] == "c1"), "relevant"] = 1
    data.loc[(data["query"] == 5) & (data["item"] == "c1"), "relevant"] = 1
    truth = data.groupby("query")["relevant"].sum()
    wrong = sorted(q for q, n in truth.items() if n != 1)
    frame = make_frame(data)
    with pytest.raises(
        InvalidDataError,
        match="top1_f1 needs exactly one relevant item per "
        rf"query.*{len(wrong)} quer",
    ):
        run(frame, lambda ev: ev.top1_f1())


# Six queries, two systems; q2 and q5 have no relevant item (q5 retrieved nothing either).
#   query  items (score, other)                  true  rank 1: score  other
#   q1     a (.9, .1) rel, b (.5, .9)             a             a      b
#   q2     a (.8, .5), c (.1, .6)                 -             -      -
#   q3     a (.7, .1), b (.6, .9) rel             b             a      b
#   q4     b (.9, .1) rel, c (.3, .9)             b             b      c
#   q5     c (null, null), a (null, null)         -             -      -
#   q6     c (.1, .9) rel, a (.9, .1)             c             a      c
SKIPPED_TOP1 = pd.DataFrame(
    {
        "query": ["q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4", "q5", "q5", "q6", "q6"],
        "item": ["a", "b", "a", "c", "a", "b", "b", "c", "c", "a", "c", "a"],
        "score": [0.9, 0.5, 0.8, 0.1, 0.7, 0.6, 0.9, 0.3, np.nan, np.nan, 0.1, 0.9],
        "other": [0.1, 0.9, 0.5, 0.6, 0.1, 0.9, 0.1, 0.9, np.nan, np.nan, 0.9, 0.1],
        "relevant": [1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0],
        "segment": ["x", "x", "y", "y", "x", "x", "x", "x", "y", "y", "x", "x"],
    }
)
# Over q1, q3, q4, q6 (true a, b, b, c), per class: F1 = 2·hits / (true + predicted).
#   score, predicted a, a, b, a: a 2·1/(1+3) = 1/2, b 2·1/(2+1) = 2/3, c 2·0/(1+0) = 0;
#     macro (1/2 + 2/3 + 0)/3 = 7/18, weighted (1/2·1 + 2/3·2 + 0·1)/4 = 11/24, micro 2/4.
#   other, predicted b, b, c, c: a 0/(1+0) = 0, b 2·1/(2+2) = 1/2, c 2·1/(1+2) = 2/3;
#     macro (0 + 1/2 + 2/3)/3 = 7/18, weighted (0·1 + 1/2·2 + 2/3·1)/4 = 5/12, micro 2/4.
SKIPPED_TOP1_F1 = {
    "weighted": {"score": 11 / 24, "other": 5 / 12},
    "macro": {"score": 7 / 18, "other": 7 / 18},
    "micro": {"score": 1 / 2, "other": 1 / 2},
}


@pytest.mark.parametrize("empty", ["skip", "nan"])
@pytest.mark.parametrize("class_average", ["weighted", "macro", "micro"])
def test_top1_f1_leaves_out_queries_without_a_relevant_item(
    make_frame: FrameMaker, empty: str, class_average: str
) -> None:
    frame = make_frame(SKIPPED_TOP1)
    ev = frame.rank_eval(score=["score", "other"])
    table = unlabelled(ev.evaluate(["top1_f1"], empty=empty, class_average=class_average))
    column = "top1_f1"
    for system, want in SKIPPED_TOP1_F1[class_average].items():
        row = table[table["system"] == system].iloc[0]
        assert row[column] == pytest.approx(want, abs=1e-12), system
        assert row["n_queries"] == 4
    # by segment: every query of y is left out, so y has no value
    by = unlabelled(
        ev.evaluate(["top1_f1"], empty=empty, class_average=class_average, by="segment")
    ).set_index(["segment", "system"])
    for system, want in SKIPPED_TOP1_F1[class_average].items():
        assert by.loc[("x", system), column] == pytest.approx(want, abs=1e-12)
        assert math.isnan(by.loc[("y", system), column])
        assert by.loc[("y", system), "n_queries"] == 0


def test_skip_is_leaving_the_queries_out_for_every_metric(make_frame: FrameMaker) -> None:
    # over the registry: with empty="skip", a metric that empty= applies to
    # (depends_on_relevant) has its value on the frame without q2 and q5, top1_f1 too;
    # the others keep every query (their value with the default, empty="zero")
    data = SKIPPED_TOP1.drop(columns="other")
    inputs = {
        "popularity": {"a": 3.0, "b": 2.0, "c": 1.0},
        "item_features": pd.DataFrame(
            {"x": [1.0, 0.0, 1.0], "y": [0.0, 1.0, 1.0]}, index=["a", "b", "c"]
        ),
        # one group: one column per exposure metric
        "item_groups": dict.fromkeys("abc", "g"),
    }
    specs = {
        d.name: f"{d.name}@{d.param.example}" if d.takes_k else d.name for d in METRICS.values()
    }
    applies = [specs[n] for n, d in METRICS.items() if d.depends_on_relevant]
    others = [specs[n] for n, d in METRICS.items() if not d.depends_on_relevant]
    assert "top1_f1" in applies
    skipped = unlabelled(
        make_frame(data).rank_eval.evaluate(list(specs.values()), empty="skip", **inputs)
    ).iloc[0]
    kept = data[data["query"].isin(["q1", "q3", "q4", "q6"])]
    without = unlabelled(make_frame(kept).rank_eval.evaluate(applies, **inputs)).iloc[0]
    every = unlabelled(make_frame(data).rank_eval.evaluate(others, **inputs)).iloc[0]
    assert len(skipped) == len(specs) + 1
    for column, want in [*without.items(), *every.items()]:
        if column != "n_queries":
            assert skipped[column] == pytest.approx(want, abs=1e-12, nan_ok=True), column
    assert skipped["n_queries"] == without["n_queries"] == 4


def test_top1_f1_under_the_other_empty_values(make_frame: FrameMaker) -> None:
    frame = make_frame(SKIPPED_TOP1)
    # "error": the option's own error, naming the queries
    with pytest.raises(
        rankframe.EmptyQueryError,
        match=r"2 queries have no relevant item: "
        r"'q2', 'q5'",
    ):
        run(frame, lambda ev: ev.evaluate(["top1_f1"], empty="error"))
    # "zero" (the default) and "one": a query without a true class has no F1; the error
    # says how to leave it out
    for empty in ("zero", "one"):
        with pytest.raises(
            InvalidDataError,
            match=r"2 queries have another number \(the "
            r"first has 0\): 'q2', 'q5'.*pass "
            r"empty='skip' to leave",
        ):
            run(frame, lambda ev, e=empty: ev.evaluate(["top1_f1"], empty=e))
    # two relevant items stay an error under "skip"
    two = SKIPPED_TOP1.assign(
        relevant=np.where(SKIPPED_TOP1["item"] == "b", 1, SKIPPED_TOP1["relevant"])
    )
    with pytest.raises(
        InvalidDataError,
        match=r"1 query has another number \(the first "
        r"has 2\): 'q1'\. Keep one relevant row per "
        r"query, or set min_relevance to the grade of "
        r"the true item\.$",
    ):
        run(make_frame(two), lambda ev: ev.evaluate(["top1_f1"], empty="skip"))


def test_top1_f1_needs_a_rank_1_item(make_frame: FrameMaker) -> None:
    data = classification_frame(4, n_queries=6)
    data.loc[data["query"] == 3, "score"] = np.nan
    with pytest.raises(InvalidDataError, match=r"1 list\(s\) retrieved nothing: 3\."):
        run(make_frame(data), lambda ev: ev.top1_f1())


def test_one_query_has_no_personalization(make_frame: FrameMaker) -> None:
    data = random_frame(0)
    one = data[data["query"] == "q00"]
    assert math.isnan(as_float(make_frame(one).rank_eval.personalization(3)))


def test_the_demo_frame_of_the_docs() -> None:
    # the worked example of docs/beyond.md, by the formulas
    data = pd.DataFrame(
        {
            "query": ["u1", "u1", "u1", "u2", "u2", "u2", "u3", "u3"],
            "item": ["a", "b", "c", "a", "c", "b", "b", "d"],
            "score": [0.9, 0.8, 0.1, 0.9, 0.8, 0.1, 0.9, 0.5],
            "relevant": 0,
        }
    )
    lists = top_lists(data, 2)
    assert lists == {"u1": ["a", "b"], "u2": ["a", "c"], "u3": ["b", "d"]}
    assert ref_gini(lists, list("abcd")) == pytest.approx(1 / 6)
    assert ref_entropy(lists) == pytest.approx(2 / 3 * math.log(3) + 1 / 3 * math.log(6))
    assert rankframe.parse_metric("avg_pop@5") == rankframe.Metric("arp", 5)


def test_the_catalog_counted_in_a_second_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # large frames count their distinct items beside the ranking
    data = random_frame(13)
    want = references(data, 3)["coverage@3"]
    monkeypatch.setattr("rankframe.pipeline.item_record.THREAD_ROWS", 0)
    for frame in (data, pl.from_pandas(data)):
        assert as_float(frame.rank_eval.coverage(3)) == pytest.approx(want, abs=1e-12)


def catalog_references(data: pd.DataFrame) -> dict[str, float]:
    lists = top_lists(data, 3)
    items = list(data["item"].unique())
    return {
        "coverage@3": ref_coverage(lists, len(items)),
        "gini@3": ref_gini(lists, items),
        "personalization@3": ref_personalization(lists, 3),
    }


def test_the_default_catalog_of_integer_ids(make_frame: FrameMaker) -> None:
    data = random_frame(14)
    number = {item: n * 10 for n, item in enumerate(ITEMS)}  # 10 > 9 as numbers
    data = data.assign(item=data["item"].map(number))
    want = catalog_references(data)
    got = evaluate(make_frame(data), list(want)).iloc[0]
    for column, value in want.items():
        assert got[column] == pytest.approx(value, abs=1e-12), column


def test_the_default_catalog_of_mixed_object_ids() -> None:
    # pandas only: an object column of ints and strings (Arrow and polars hold one type)
    data = random_frame(15)
    data = data.assign(
        item=[n if n % 2 else i for n, i in enumerate(data["item"])],
        score=data["score"] + np.arange(len(data)) * 1e-6,  # no ties: no order of ids needed
    ).astype({"item": object})
    want = catalog_references(data)
    got = evaluate(data, list(want)).iloc[0]
    for column, value in want.items():
        assert got[column] == pytest.approx(value, abs=1e-12), column
