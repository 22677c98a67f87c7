"""Several systems on the same judgments: ``df.rank_eval(score=[...])``, ``evaluate(tidy=...,
confidence_level=...)`` and ``compare()``.

References: a hand-computed example written out here; the single-system path (itself checked
against trec_eval and pytrec_eval) for each score column; ``scipy.stats`` for the tests'
p-values and t intervals on the per-query vectors; the normal-theory width for bootstrap
intervals.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats

import rankframe
from helpers import as_pandas, collect

# Three queries, two items each. Reciprocal ranks by hand:
#   a: q1 0.5 (y relevant, ranked 2nd), q2 1, q3 0.5  -> mean 2/3
#   b: q1 1,  q2 1, q3 1                                -> mean 1
#   c: q1 0.5, q2 0.5, q3 1                             -> mean 2/3
HAND = {
    "query": [1, 1, 2, 2, 3, 3],
    "item": ["x", "y"] * 3,
    "theme": ["t", "t", "u", "u", "t", "t"],
    "a": [0.9, 0.1, 0.9, 0.1, 0.9, 0.1],
    "b": [0.1, 0.9, 0.9, 0.1, 0.1, 0.9],
    "c": [0.9, 0.1, 0.1, 0.9, 0.1, 0.9],
    "relevant": [0, 1, 1, 0, 0, 1],
}
HAND_RR = {"a": [0.5, 1.0, 0.5], "b": [1.0, 1.0, 1.0], "c": [0.5, 0.5, 1.0]}
METRICS = ["mrr@10", "ndcg@10", "map@100", "acc@5", "precision@10", "recall@100"]


def generated(seed: int = 0, n_queries: int = 300) -> pd.DataFrame:
    """Queries of 1..40 items; three systems with ties and unretrieved rows; a theme."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 40, size=n_queries)
    query = np.repeat(np.arange(n_queries), lengths)
    n = len(query)
    grade = rng.choice([0, 0, 0, 1, 2], size=n)
    grade[(rng.random(n_queries) < 0.1)[query]] = 0
    good = grade + rng.normal(0, 1.5, n)  # a system that knows something
    frame = pd.DataFrame(
        {
            "query": np.char.add("q", query.astype(str)),
            "item": np.arange(n) % 997,
            "relevant": grade,
            "good": np.round(good, 1),
            "noise": np.round(rng.random(n), 1),
            "better": np.round(good + grade * 0.5, 1),
            "theme": np.array(["news", "sport", "tech"])[query % 3],
        }
    )
    frame.loc[rng.random(n) < 0.05, "noise"] = np.nan
    return frame.iloc[rng.permutation(n)].reset_index(drop=True)


def per_query_vectors(frame: pd.DataFrame, metric: str, systems: list[str]) -> pd.DataFrame:
    """Per-query values of each system, one column per system, from the single-system path."""
    columns = {
        s: frame.rank_eval(score=s).per_query(metric).set_index("query")[metric] for s in systems
    }
    return pd.DataFrame(columns)


# -- several systems in one pass -------------------------------------------------------------


def test_hand_example_per_system(make_frame: Any) -> None:
    ev = make_frame(HAND).rank_eval(score=["b", "a", "c"])
    table = as_pandas(ev.per_query("mrr"))
    assert list(table.columns) == ["query", "system", "mrr"]
    assert table["query"].tolist() == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert table["system"].tolist() == ["b", "a", "c"] * 3  # the order given
    for system, rr in HAND_RR.items():
        assert table.loc[table["system"] == system, "mrr"].tolist() == rr
    means = as_pandas(ev.mrr())
    assert means["system"].tolist() == ["b", "a", "c"]
    assert means["mrr"].tolist() == pytest.approx([1.0, 2 / 3, 2 / 3])
    # by theme: t has queries 1 and 3, u has query 2
    themed = as_pandas(ev.evaluate("mrr", by="theme"))
    assert themed[["theme", "system"]].to_numpy().tolist() == [
        ["t", "b"],
        ["t", "a"],
        ["t", "c"],
        ["u", "b"],
        ["u", "a"],
        ["u", "c"],
    ]
    assert themed["mrr"].tolist() == pytest.approx([1.0, 0.5, 0.75, 1.0, 1.0, 0.5])
    assert themed["n_queries"].tolist() == [2, 2, 2, 1, 1, 1]


def test_metric_of_several_systems_is_indexed_by_system() -> None:
    frame = pd.DataFrame(HAND)
    result = frame.rank_eval(score=["a", "b"]).mrr(by="theme")
    assert isinstance(result, pd.Series)
    assert result.index.names == ["theme", "system"]
    assert result.loc[("t", "a")] == 0.5
    polars = pl.DataFrame(HAND).rank_eval(score=["a", "b"]).mrr()
    assert polars.columns == ["system", "mrr"]


# each option set once, by= with two of them (by= is one more key column on every path)
@pytest.mark.parametrize(
    ("by", "options"),
    [(None, {}), ("theme", {"empty": "skip"}), ("theme", {"empty": "nan", "ties": "first"})],
    ids=["plain", "by-skip", "by-nan-first"],
)
def test_several_systems_equal_one_at_a_time(
    make_frame: Any, by: str | None, options: dict[str, Any]
) -> None:
    data = generated(1)
    systems = ["noise", "good", "better"]
    both = as_pandas(make_frame(data).rank_eval(score=systems).evaluate(METRICS, by=by, **options))
    for system in systems:
        one = as_pandas(
            make_frame(data).rank_eval(score=system).evaluate(METRICS, by=by, **options)
        )
        rows = both[both["system"] == system].drop(columns="system").reset_index(drop=True)
        pd.testing.assert_frame_equal(rows, one, check_exact=True)
    per_query = as_pandas(
        make_frame(data).rank_eval(score=systems).per_query(METRICS, by=by, **options)
    )
    for system in systems:
        one = as_pandas(
            make_frame(data).rank_eval(score=system).per_query(METRICS, by=by, **options)
        )
        rows = per_query[per_query["system"] == system].drop(columns="system")
        pd.testing.assert_frame_equal(rows.reset_index(drop=True), one, check_exact=True)


def test_rank_adds_a_column_per_system(make_frame: Any) -> None:
    ranked = as_pandas(make_frame(HAND).rank_eval(score=["a", "b"]).rank())
    assert ranked["rank_a"].tolist() == [1, 2, 1, 2, 1, 2]
    assert ranked["rank_b"].tolist() == [2, 1, 1, 2, 2, 1]


def test_a_list_of_one_score_column_gives_a_system_column() -> None:
    table = pd.DataFrame(HAND).rank_eval(score=["a"]).evaluate("mrr")
    assert table.columns.tolist() == ["system", "mrr", "n_queries"]


# -- tidy output -----------------------------------------------------------------------------


def test_tidy_rows(make_frame: Any) -> None:
    ev = make_frame(HAND).rank_eval(score=["a", "b"])
    tidy = collect(ev.evaluate(["mrr", "acc@1"], by="theme", tidy=True))
    table = as_pandas(tidy)
    assert table.columns.tolist() == ["theme", "system", "metric", "k", "value", "n_queries"]
    # theme t: queries 1 and 3. a: RR 0.5, 0.5; acc@1 0, 0. b: RR 1, 1; acc@1 1, 1.
    expected = [
        ["t", "a", "mrr", None, 0.5, 2],
        ["t", "a", "acc", 1, 0.0, 2],
        ["t", "b", "mrr", None, 1.0, 2],
        ["t", "b", "acc", 1, 1.0, 2],
        ["u", "a", "mrr", None, 1.0, 1],
        ["u", "a", "acc", 1, 1.0, 1],
        ["u", "b", "mrr", None, 1.0, 1],
        ["u", "b", "acc", 1, 1.0, 1],
    ]
    got = [
        [
            r["theme"],
            r["system"],
            r["metric"],
            None if pd.isna(r["k"]) else int(r["k"]),
            r["value"],
            r["n_queries"],
        ]
        for r in table.to_dict("records")
    ]
    assert got == expected
    if isinstance(tidy, pl.DataFrame):
        assert tidy.schema["k"] == pl.Int64
        assert tidy.schema["metric"] == pl.String
    else:
        assert tidy["k"].dtype == "Int64"


def test_tidy_with_one_score_column_names_it() -> None:
    table = pd.DataFrame(HAND).rank_eval(score="b").evaluate("mrr", tidy=True)
    assert table["system"].tolist() == ["b"]


# -- bootstrap intervals ---------------------------------------------------------------------


def test_intervals_bracket_the_mean_with_the_normal_width(make_frame: Any) -> None:
    data = generated(2, n_queries=2000)
    ev = make_frame(data).rank_eval(score="good")
    table = as_pandas(ev.evaluate(["ndcg@10", "acc@1"], confidence_level=0.95, n_resamples=2000))
    values = as_pandas(ev.per_query(["ndcg@10", "acc@1"]))
    for metric in ["ndcg@10", "acc@1"]:
        v = values[metric].to_numpy()
        mean = table[metric].iloc[0]
        low, high = table[f"{metric}_ci_low"].iloc[0], table[f"{metric}_ci_high"].iloc[0]
        assert low < mean < high
        normal = 2 * 1.959964 * v.std(ddof=1) / np.sqrt(len(v))
        assert high - low == pytest.approx(normal, rel=0.1)


def test_intervals_are_reproducible_and_zero_wide_for_constant_values() -> None:
    frame = pd.DataFrame(HAND)
    ev = frame.rank_eval(score=["a", "b"])
    first = ev.evaluate("mrr", by="theme", confidence_level=0.9, seed=3)
    again = ev.evaluate("mrr", by="theme", confidence_level=0.9, seed=3)
    pd.testing.assert_frame_equal(first, again)
    b = first[first["system"] == "b"]  # b's reciprocal ranks are all 1
    assert b["mrr_ci_low"].tolist() == [1.0, 1.0]
    assert b["mrr_ci_high"].tolist() == [1.0, 1.0]
    tidy = ev.evaluate("mrr", by="theme", confidence_level=0.9, seed=3, tidy=True)
    assert tidy["ci_low"].tolist() == first["mrr_ci_low"].tolist()


# -- compare ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return generated(3)


def test_t_test_equals_scipy(make_frame: Any, data: pd.DataFrame) -> None:
    systems = ["good", "noise", "better"]
    table = as_pandas(
        make_frame(data)
        .rank_eval(score=systems)
        .compare(["ndcg@10", "mrr"], baseline="good", test="t-test", correction="none")
    )
    for metric, name, k in [("ndcg@10", "ndcg", 10), ("mrr", "mrr", None)]:
        vectors = per_query_vectors(data, metric, systems)
        for other in ["noise", "better"]:
            row = table[(table["system"] == other) & (table["metric"] == name)].iloc[0]
            assert (pd.isna(row["k"]) and k is None) or row["k"] == k
            result = stats.ttest_rel(vectors[other], vectors["good"])
            assert row["p_value"] == pytest.approx(result.pvalue, rel=1e-10)
            assert row["p_adjusted"] == pytest.approx(result.pvalue, rel=1e-10)
            diff = vectors[other] - vectors["good"]
            assert row["delta"] == pytest.approx(diff.mean(), rel=1e-12)
            assert row["mean"] == pytest.approx(vectors[other].mean(), rel=1e-12)
            low, high = stats.t.interval(
                0.95, len(diff) - 1, loc=diff.mean(), scale=stats.sem(diff)
            )
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-10)
            assert row["significant"] == (result.pvalue < 0.05)
            assert row["n_queries"] == len(diff)
        base = table[(table["system"] == "good") & (table["metric"] == name)].iloc[0]
        assert base["delta"] == 0
        assert pd.isna(base["p_value"])
        assert not base["significant"]


def test_wilcoxon_equals_scipy_per_segment(data: pd.DataFrame) -> None:
    systems = ["good", "better"]
    table = data.rank_eval(score=systems).compare("ndcg@10", test="wilcoxon", by="theme")
    for theme in ["news", "sport", "tech"]:
        subset = data[data["theme"] == theme]
        vectors = per_query_vectors(subset, "ndcg@10", systems)
        expected = stats.wilcoxon(vectors["better"], vectors["good"]).pvalue
        row = table[(table["theme"] == theme) & (table["system"] == "better")].iloc[0]
        assert row["p_value"] == pytest.approx(expected, rel=1e-10)


def test_holm_and_bonferroni_over_the_systems_of_one_metric(data: pd.DataFrame) -> None:
    systems = ["noise", "good", "better"]
    ev = data.rank_eval(score=systems)
    vectors = per_query_vectors(data, "map@100", systems)
    p = {s: stats.ttest_rel(vectors[s], vectors["noise"]).pvalue for s in ["good", "better"]}
    # Holm by hand: the smaller p times 2, the larger times 1, made monotone, capped at 1
    low, high = sorted(p, key=p.get)
    holm = {low: min(1.0, 2 * p[low])}
    holm[high] = min(1.0, max(holm[low], p[high]))
    table = ev.compare("map@100", test="t-test").set_index("system")
    for s in ["good", "better"]:
        assert table.loc[s, "p_adjusted"] == pytest.approx(holm[s], rel=1e-10)
    bonferroni = ev.compare("map@100", correction="bonferroni").set_index("system")
    for s in ["good", "better"]:
        assert bonferroni.loc[s, "p_adjusted"] == pytest.approx(min(1.0, 2 * p[s]), rel=1e-10)


def test_permutation_test_is_reproducible_and_matches_exact_enumeration() -> None:
    # 10 queries: enumerate all 2**10 sign flips of the per-query differences by hand
    rng = np.random.default_rng(5)
    n = 10
    frame = pd.DataFrame(
        {
            "query": np.repeat(np.arange(n), 4),
            "item": np.tile(np.arange(4), n),
            "relevant": rng.choice([0, 1], size=4 * n, p=[0.6, 0.4]),
            "a": rng.random(4 * n),
            "b": rng.random(4 * n),
        }
    )
    frame.loc[frame.index % 4 == 0, "relevant"] = 1
    ev = frame.rank_eval(score=["a", "b"])
    table = ev.compare("ndcg", test="permutation", n_permutations=20_000, seed=11)
    p = table.set_index("system").loc["b", "p_value"]
    again = ev.compare("ndcg", test="permutation", n_permutations=20_000, seed=11)
    assert again.set_index("system").loc["b", "p_value"] == p
    vectors = per_query_vectors(frame, "ndcg", ["a", "b"])
    diff = (vectors["b"] - vectors["a"]).to_numpy()
    signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
    observed = abs(diff.sum())
    exact = np.mean(np.abs(signs @ diff) >= observed - 1e-12)
    assert p == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-4)


@pytest.mark.parametrize("engine", ["auto", "streaming"])
@pytest.mark.parametrize(
    "call",
    [
        lambda ev: ev.compare(
            ["mrr", "ndcg@10"], by="theme", test="permutation", n_permutations=500
        ),
        lambda ev: ev.evaluate(["mrr", "acc@1"], by="theme", confidence_level=0.9, tidy=True),
    ],
    ids=["compare", "ci-tidy"],
)
def test_lazy_whole_frame_summaries_equal_pandas(
    data: pd.DataFrame, call: Any, engine: str
) -> None:
    """The lazy plan computes per-query values part by part (hash buckets of queries) and
    the statistics from all of them: the same numbers as pandas, seeds included."""
    systems = ["good", "better", "noise"]
    lazy = call(pl.from_pandas(data).lazy().rank_eval(score=systems))
    got = lazy.collect(engine=engine).to_pandas()
    expected = call(data.rank_eval(score=systems))
    pd.testing.assert_frame_equal(as_pandas(got), as_pandas(expected), check_dtype=False)


def test_compare_on_polars_lazy_stays_lazy(data: pd.DataFrame) -> None:
    lazy = pl.from_pandas(data).lazy().rank_eval(score=["good", "better"]).compare("mrr")
    assert isinstance(lazy, pl.LazyFrame)
    eager = data.rank_eval(score=["good", "better"]).compare("mrr")
    pd.testing.assert_frame_equal(as_pandas(lazy), as_pandas(eager), check_dtype=False)


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "fragments"),
    [
        (lambda f: f.rank_eval(score="a").compare("mrr"), ["at least two score columns"]),
        (
            lambda f: f.rank_eval(score=["a", "b"]).compare("mrr", baseline="z"),
            ["baseline='z'", "['a', 'b']"],
        ),
        (lambda f: f.rank_eval(score=[]), ["score= takes", "score=['model_a'"]),
        (lambda f: f.rank_eval(score=["a", "a"]), ["'a' more than once"]),
        (lambda f: f.rank_eval(score=["a", 3]), ["score= takes"]),
        (
            lambda f: f.rank_eval(score=["a", "b"]).compare("mrr", test="ttest"),
            ["'test' option", "Did you mean 't-test'"],
        ),
        (
            lambda f: f.rank_eval(score=["a", "b"]).compare("mrr", correction="holmes"),
            ["'correction'", "'holm'"],
        ),
        (
            lambda f: f.rank_eval(score=["a", "b"]).compare("mrr", alpha=5),
            ["'alpha'", "between 0 and 1"],
        ),
        (
            lambda f: f.rank_eval.evaluate("mrr", confidence_level=95),
            ["'confidence_level'", "between 0 and 1"],
        ),
        (
            lambda f: f.rank_eval.evaluate("mrr", confidence_level=0.9, n_resamples=0),
            ["'n_resamples'", "positive integer"],
        ),
        (lambda f: f.rank_eval(score=["a", "b"]).compare("mrr", seed="x"), ["'seed'"]),
        (
            lambda f: f.rank_eval(score=["a", "b"]).compare("mrr", seed=-3),
            ["'seed' option must be a non-negative integer or None", "Got -3."],
        ),
        (
            lambda f: f.rank_eval(score=["a", "b"]).gaps("mrr", "theme", seed=-3),
            ["'seed' option must be a non-negative integer or None", "Got -3."],
        ),
        (
            lambda f: f.rank_eval(score=["a", "b"]).compare("mrr", n_resamples=0),
            ["'n_resamples'", "positive integer"],
        ),
        (
            lambda f: f.rank_eval(score=["a", "b"]).compare("mrr", n_permutations=0),
            ["'n_permutations'", "positive integer"],
        ),
        (
            lambda f: (
                f.rename(columns={"theme": "system"}).rank_eval(score=["a", "b"]).mrr(by="system")
            ),
            ["'system' clashes", "rename"],
        ),
        (lambda f: f.rank_eval(score=["a", "relevant"]).mrr(), ["four different columns"]),
    ],
)
def test_bad_options(call: Any, fragments: list[str]) -> None:
    frame = pd.DataFrame(HAND).assign(score=0.5)
    with pytest.raises(rankframe.InvalidOptionError) as info:
        call(frame)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_a_non_numeric_second_score_column_is_named() -> None:
    frame = pd.DataFrame(HAND).assign(b=["x"] * 6)
    with pytest.raises(rankframe.InvalidDataError, match=r"Column 'b' \(score\) must be numeric"):
        frame.rank_eval(score=["a", "b"]).mrr()


def test_a_missing_second_score_column_is_named() -> None:
    with pytest.raises(rankframe.ColumnNotFoundError, match=r"'bb' \(score\) not found"):
        pd.DataFrame(HAND).rank_eval(score=["a", "bb"]).mrr()
