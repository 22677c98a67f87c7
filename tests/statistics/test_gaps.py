"""``gaps()``: the gaps between user groups against plain pandas/numpy/scipy references on
small frames, on every frame kind; the bad inputs; the error rate on data without an effect.

References: reciprocal ranks and precision@2 computed here with pandas; the group means,
gaps, ratios and lowest/highest groups by ``pandas.groupby``; the permutation p-value and
the bootstrap interval by plain loops over the resamples, drawn as the docstrings of
``rankframe.stats.groups.group_permutation_test`` and ``group_gap_interval`` say;
``scipy.stats.kruskal`` and ``scipy.stats.f_oneway``; Holm written out here.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankframe
from helpers import as_pandas, collect, unlabelled
from rankframe import METRICS
from rankframe.stats import groups

SYSTEMS = ("a", "b")


def frame(seed: int = 0, n_queries: int = 48) -> pd.DataFrame:
    """Queries of 3 items, two systems, an age band (3 groups: system a serves "old" worse)
    and a device (2 values), constant within each query."""
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(n_queries), 3)
    age = np.array(["young", "mid", "old"])[rng.integers(0, 3, n_queries)]
    device = np.array(["ios", "web"])[rng.integers(0, 2, n_queries)]
    relevant = (rng.random(len(query)) < 0.4).astype(int)
    a = rng.random(len(query)) + relevant * np.where(age[query] == "old", 0.0, 0.7)
    b = rng.random(len(query)) + relevant * 0.4
    return pd.DataFrame(
        {
            "query": query,
            "item": np.tile([1, 2, 3], n_queries),
            "relevant": relevant,
            "a": a.round(3),
            "b": b.round(3),
            "age": age[query],
            "device": device[query],
        }
    )


def per_query_table(data: pd.DataFrame) -> pd.DataFrame:
    """One row per query, sorted by query: age, device, and per system its reciprocal rank
    (1 / rank of the first relevant row by descending score, 0 if none) and precision@2
    (relevant rows among the top 2, over 2)."""
    out = data.groupby("query")[["age", "device"]].first().sort_index()
    for score in SYSTEMS:
        rank = data.groupby("query")[score].rank(ascending=False, method="first")
        hit = data["relevant"] > 0
        first = rank[hit].groupby(data.loc[hit, "query"]).min()
        out[f"mrr_{score}"] = (1.0 / first).reindex(out.index, fill_value=0.0)
        top2 = (hit & (rank <= 2)).groupby(data["query"]).sum()
        out[f"precision@2_{score}"] = top2.reindex(out.index) / 2.0
    return out


def group_of(table: pd.DataFrame, by: list[str]) -> pd.Series:
    """Each query's group name as gaps() writes it: the value, or ``a=x & b=y``."""
    if len(by) == 1:
        return table[by[0]].astype(str)
    return table[by].apply(lambda r: " & ".join(f"{c}={r[c]}" for c in by), axis=1)


def values_of(table: pd.DataFrame, metric: str, system: str, baseline: str | None) -> np.ndarray:
    values = table[f"{metric}_{system}"].to_numpy(float)
    return values if baseline is None else values - table[f"{metric}_{baseline}"].to_numpy(float)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment, written out."""
    order = np.argsort(p)
    out = np.empty(len(p))
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (len(p) - i) * p[j]))
        out[j] = running
    return out


def gaps(make_frame: Any, data: pd.DataFrame, *args: Any, **kwargs: Any) -> pd.DataFrame:
    return as_pandas(collect(make_frame(data).rank_eval(score=list(SYSTEMS)).gaps(*args, **kwargs)))


@pytest.mark.parametrize(("baseline", "by"), [(None, ["age"]), ("a", ["age", "device"])])
def test_gap_ratio_and_groups_equal_a_pandas_groupby(
    make_frame: Any, baseline: Any, by: list[str]
) -> None:
    data = frame()
    table = per_query_table(data)
    group = group_of(table, by)
    got = gaps(make_frame, data, ["mrr", "P_2"], by, baseline=baseline, test="anova")
    systems = [s for s in SYSTEMS if s != baseline]
    assert list(got["system"]) == [s for s in systems for _ in range(2)]
    assert list(got["metric"]) == ["mrr", "precision"] * len(systems)
    value = "mean" if baseline is None else "delta"
    assert list(got.columns) == [
        "system",
        "metric",
        "k",
        "gap",
        "ci_low",
        "ci_high",
        "p_value",
        "significant",
        "ratio",
        "worst_group",
        f"worst_{value}",
        "best_group",
        f"best_{value}",
        "p_adjusted",
        "n_groups",
        "n_queries",
        "n_tested",
    ]
    for row in got.to_dict("records"):
        metric = "mrr" if row["metric"] == "mrr" else "precision@2"
        means = (
            pd.Series(values_of(table, metric, row["system"], baseline), index=table.index)
            .groupby(group.to_numpy())
            .mean()
        )
        assert row["gap"] == pytest.approx(means.max() - means.min(), rel=1e-12)
        assert row["worst_group"] == means.idxmin()
        assert row["best_group"] == means.idxmax()
        assert row[f"worst_{value}"] == pytest.approx(means.min(), rel=1e-12)
        assert row[f"best_{value}"] == pytest.approx(means.max(), rel=1e-12)
        if baseline is None:
            assert row["ratio"] == pytest.approx(means.max() / means.min(), rel=1e-12)
        else:  # a ratio of changes of either sign means nothing
            assert np.isnan(row["ratio"])
        assert row["n_groups"] == len(means)
        assert row["n_queries"] == len(table)
        assert row["n_tested"] == len(got)
    if baseline is None:  # system a serves the old worst
        assert got.loc[0, "worst_group"] == "old"
    make_frame.check_unchanged()


def permutation_p_value(
    values: np.ndarray, group: np.ndarray, n_permutations: int, seed: int
) -> float:
    """The permutation p-value by a plain loop, drawn as ``group_permutation_test`` says
    (one task: ``2**20 // n_queries`` is above ``n_permutations`` here): in each shuffle,
    the value of query ``order[i]`` goes to group ``group[i]``; a shuffle counts when its
    gap between the group means is at least the observed one."""
    n = len(values)
    assert n_permutations <= 2**20 // n
    rng = np.random.default_rng(seed).spawn(1)[0]
    draws = rng.permuted(np.tile(np.arange(n), (n_permutations, 1)), axis=1)

    def gap(v: np.ndarray) -> float:
        means = pd.Series(v).groupby(group).mean()
        return float(means.max() - means.min())

    observed = gap(values)
    hits = sum(gap(values[draws[b]]) >= observed - 1e-9 for b in range(n_permutations))
    return (1 + hits) / (1 + n_permutations)


@cache
def loop_p_value(metric: str, system: str, baseline: str | None) -> float:
    """The loop's p-value of a gap in ``age`` on frame() (computed once per process: every
    frame kind is compared with the same number)."""
    table = per_query_table(frame())
    values = values_of(table, metric, system, baseline)
    return permutation_p_value(values, table["age"].to_numpy(), 300, seed=7)


@pytest.mark.parametrize("baseline", [None, "a"])
def test_permutation_p_value_equals_a_loop_over_the_shuffles(
    make_frame: Any, baseline: Any
) -> None:
    data = frame()
    got = gaps(
        make_frame, data, ["mrr", "P_2"], "age", baseline=baseline, n_permutations=300, seed=7
    )
    want = []
    for row in got.to_dict("records"):
        metric = "mrr" if row["metric"] == "mrr" else "precision@2"
        want.append(loop_p_value(metric, row["system"], baseline))
        assert row["p_value"] == pytest.approx(want[-1], rel=1e-12)
    np.testing.assert_allclose(got["p_adjusted"], holm(np.array(want)), rtol=1e-12)
    np.testing.assert_array_equal(got["significant"], holm(np.array(want)) < 0.05)
    assert min(want) < 0.05 < max(want)  # the test can fail: a gap and no gap
    make_frame.check_unchanged()


def group_test_by_a_loop(
    values: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    n_resamples: int,
    seed: int,
    exponentiate: np.ndarray,
) -> np.ndarray:
    """``group_permutation_test``'s p-values by a plain loop over its documented shuffles:
    tasks of ``2**20 // n`` resamples, each a row of ``rng.permuted(tile(arange(n)))``
    drawn from its own spawned stream; per column, its present queries in shuffled order
    take the group labels of the present queries in query order."""
    n, m = values.shape
    size = max(1, 2**20 // n)
    starts = range(0, n_resamples, size)
    streams = np.random.default_rng(seed).spawn(len(starts))
    orders = np.concatenate(
        [
            rng.permuted(np.tile(np.arange(n), (min(size, n_resamples - start), 1)), axis=1)
            for start, rng in zip(starts, streams, strict=True)
        ]
    )
    p_values = []
    for j in range(m):
        present = np.isfinite(values[:, j])
        labels = group[present]

        def statistics(v: np.ndarray, j: int = j, labels: np.ndarray = labels) -> np.ndarray:
            means = np.array([v[labels == k].mean() for k in range(n_groups) if any(labels == k)])
            return np.exp(means) if exponentiate[j] else means

        observed = statistics(values[present, j])
        bar = observed.max() - observed.min() - 1e-9 * np.abs(observed).max()
        hits = 0
        for order in orders:
            stat = statistics(values[order[present[order]], j])
            hits += stat.max() - stat.min() >= bar
        p_values.append((1 + hits) / (1 + n_resamples))
    return np.array(p_values)


def test_permutation_test_over_tasks_blocks_and_masks_equals_a_loop() -> None:
    """``group_permutation_test`` on 5,000 queries: 450 shuffles in three tasks (209 each)
    of several blocks; columns of tied values, with a group effect, with missing and
    infinite values (another mask), a geometric mean, and a group code without queries.
    The p-values are the loop's, to the last bit."""
    rng = np.random.default_rng(3)
    n, n_groups = 5000, 6
    group = rng.integers(0, n_groups - 1, n)  # the last group has no query
    values = np.stack(
        [
            rng.integers(1, 5, n) / 4,  # four values, tied
            1 / rng.integers(1, 11, n) + 0.1 * (group == 2),  # group 2 is served better
            np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 3, n) / 2),
            np.log(np.maximum(rng.random(n), 1e-5)),  # exponentiated: geometric means
        ],
        axis=1,
    )
    values[rng.random(n) < 0.05, 2] = np.inf
    exponentiate = np.array([False, False, False, True])
    got = groups.group_permutation_test(values, group, n_groups, 450, 11, exponentiate)
    want = group_test_by_a_loop(values, group, n_groups, 450, 11, exponentiate)
    np.testing.assert_array_equal(got, want)
    assert want[1] < 0.01 < want.max()  # the test can fail: an effect and none


@pytest.mark.parametrize(
    ("test", "reference"), [("rank", stats.kruskal), ("anova", stats.f_oneway)]
)
@pytest.mark.parametrize("baseline", [None, "a"])
def test_rank_and_anova_equal_scipy(
    make_frame: Any, test: str, reference: Any, baseline: Any
) -> None:
    data = frame(seed=2)
    table = per_query_table(data)
    got = gaps(
        make_frame, data, ["mrr", "P_2"], "age", baseline=baseline, test=test, correction=None
    )
    for row in got.to_dict("records"):
        metric = "mrr" if row["metric"] == "mrr" else "precision@2"
        values = values_of(table, metric, row["system"], baseline)
        samples = [values[(table["age"] == g).to_numpy()] for g in ("mid", "old", "young")]
        p = reference(*samples).pvalue
        assert row["p_value"] == pytest.approx(p, rel=1e-9)
        assert row["p_adjusted"] == row["p_value"]
    make_frame.check_unchanged()


def bootstrap_interval(
    values: np.ndarray, group: np.ndarray, n_resamples: int, seed: int, level: float = 0.95
) -> tuple[float, float]:
    """The percentile interval of the gap by a plain loop, drawn as
    ``group_gap_interval`` says (one task): the queries sorted by group (stably), and in
    each resample the position ``first[g] + floor(u * size[g])`` of a query's group."""
    order = np.argsort(group, kind="stable")
    v, g = values[order], group[order]
    codes, size = np.unique(g, return_counts=True)
    first = dict(zip(codes, np.concatenate([[0], np.cumsum(size)[:-1]]), strict=True))
    sizes = dict(zip(codes, size, strict=True))
    rng = np.random.default_rng(seed).spawn(1)[0]
    u = rng.random((n_resamples, len(v)))
    resampled = []
    for b in range(n_resamples):
        index = [
            first[g[i]] + min(int(u[b, i] * sizes[g[i]]), sizes[g[i]] - 1) for i in range(len(v))
        ]
        means = pd.Series(v[index]).groupby(g).mean()
        resampled.append(means.max() - means.min())
    low, high = np.quantile(resampled, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def test_bootstrap_interval_equals_a_loop_over_the_resamples(make_frame: Any) -> None:
    data = frame()
    table = per_query_table(data)
    codes = table["age"].map({"mid": 0, "old": 1, "young": 2}).to_numpy()
    got = gaps(
        make_frame,
        data,
        "mrr",
        "age",
        baseline="a",
        test="rank",
        n_resamples=200,
        seed=5,
        confidence_level=0.9,
    )
    row = got.iloc[0]
    low, high = bootstrap_interval(values_of(table, "mrr", "b", "a"), codes, 200, 5, level=0.9)
    assert row["ci_low"] == pytest.approx(low, rel=1e-12)
    assert row["ci_high"] == pytest.approx(high, rel=1e-12)
    assert row["ci_low"] < row["gap"] < row["ci_high"]


@pytest.mark.parametrize(
    ("change", "kwargs", "error", "message"),
    [
        (None, {"by": "agee"}, rankframe.ColumnNotFoundError, "Did you mean 'age'"),
        ("vary", {}, rankframe.InvalidDataError, "varies within query"),
        (
            "single",
            {},
            rankframe.InvalidDataError,
            "gaps() needs two groups or more; by=['age'] has one value (young)",
        ),
        (None, {"test": "t-test"}, rankframe.InvalidOptionError, "got test='t-test'"),
        (None, {"by": []}, rankframe.InvalidOptionError, "gaps() needs a by= column"),
        (None, {"n_permutations": 0}, rankframe.InvalidOptionError, "n_permutations"),
        (
            None,
            {"baseline": "c"},
            rankframe.InvalidOptionError,
            "baseline='c' is not one of the score columns",
        ),
        (
            None,
            {"metrics": "coverage@2"},
            rankframe.InvalidOptionError,
            "gaps() compares groups of per-query values",
        ),
    ],
)
def test_bad_input_names_it(
    make_frame: Any, change: Any, kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    data = frame()
    if change == "vary":
        data["age"] = np.resize(["young", "old"], len(data))
    if change == "single":
        data["age"] = "young"
    arguments = {"metrics": "mrr", "by": "age", **kwargs}
    with pytest.raises(
        error,
        match=message.replace("(", r"\(")
        .replace(")", r"\)")
        .replace("[", r"\[")
        .replace("]", r"\]"),
    ):
        collect(make_frame(data).rank_eval(score=list(SYSTEMS)).gaps(**arguments))


ITEMS = [f"i{n}" for n in range(12)]
INPUTS = {
    "popularity": {item: float(3 * n + 1) for n, item in enumerate(ITEMS)},
    "item_features": pd.DataFrame(
        np.random.default_rng(3).integers(0, 3, size=(len(ITEMS), 3)).astype(float),
        index=ITEMS,
        columns=["f0", "f1", "f2"],
    ),
    "item_groups": dict.fromkeys(ITEMS, "g"),
}


def _spec(name: str) -> str:
    definition = METRICS[name]
    if not definition.takes_k:
        return name
    return f"{name}@{3 if definition.param.integer else definition.param.example}"


#: every metric with per-query values (set-level ones are refused, tested above)
PER_QUERY = [_spec(n) for n, d in METRICS.items() if d.aggregate != "set"]


def test_every_metric_of_the_registry_has_a_gap(make_frame: Any) -> None:
    rng = np.random.default_rng(4)
    n_queries, per = 24, 4
    data = pd.DataFrame(
        {
            "query": np.repeat(np.arange(n_queries), per),
            "item": np.concatenate(
                [rng.choice(ITEMS, per, replace=False) for _ in range(n_queries)]
            ),
            "score": rng.random(n_queries * per).round(2),
            "relevant": rng.integers(0, 3, n_queries * per),
            "band": np.repeat(np.array(["x", "y", "z"])[np.arange(n_queries) % 3], per),
        }
    )
    ev = make_frame(data).rank_eval
    got = unlabelled(ev.gaps(PER_QUERY, "band", n_permutations=50, n_resamples=50, **INPUTS))
    per_query = unlabelled(ev.per_query(PER_QUERY, by="band", **INPUTS))
    assert len(got) == len(PER_QUERY)
    for metric, row in zip(per_query.columns[2:], got.to_dict("records"), strict=True):
        values = per_query[metric].astype(float)
        if rankframe.parse_metric(str(metric)).definition.aggregate == "geometric":
            means = np.exp(np.log(np.maximum(values, 1e-5)).groupby(per_query["band"]).mean())
        else:  # the mean, also of a count: per query, not a sum that grows with the group
            means = values.groupby(per_query["band"]).mean()
        assert row["gap"] == pytest.approx(means.max() - means.min(), rel=1e-9, abs=1e-12), metric
        assert 0 < row["p_value"] <= 1, metric


DOCS = Path(__file__).resolve().parents[2] / "docs"


def docs_frame() -> pd.DataFrame:
    """The frame of docs/fairness.md, "Gaps between user groups"."""
    return pd.DataFrame(
        {
            "query": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6],
            "item": ["x", "y"] * 6,
            "old": [0.1, 0.9, 0.1, 0.9, 0.9, 0.1, 0.9, 0.1, 0.9, 0.1, 0.9, 0.1],
            "new": [0.1, 0.9] * 6,
            "relevant": [0, 1] * 5 + [0, 0],
            "age": ["young"] * 6 + ["senior"] * 6,
        }
    )


def test_the_docs_example(make_frame: Any) -> None:
    """docs/fairness.md, "Gaps between user groups": its numbers from the reciprocal ranks
    written there (old: 1, 1, 1/2 | 1/2, 1/2, 0; new: 1, 1, 1 | 1, 1, 0) and scipy; the
    page prints them."""
    page = (DOCS / "fairness.md").read_text()
    old = {"young": [1, 1, 0.5], "senior": [0.5, 0.5, 0.0]}
    new = {"young": [1, 1, 1], "senior": [1, 1, 0.0]}
    ev = make_frame(docs_frame()).rank_eval(score=["old", "new"])
    got = as_pandas(collect(ev.gaps("mrr", by="age", test="rank"))).set_index("system")
    for system, values in (("old", old), ("new", new)):
        young, senior = np.mean(values["young"]), np.mean(values["senior"])
        p = stats.kruskal(values["young"], values["senior"]).pvalue
        row = got.loc[system]
        assert row["gap"] == pytest.approx(young - senior, rel=1e-12)
        assert row["ratio"] == pytest.approx(young / senior, rel=1e-12)
        assert (row["worst_group"], row["best_group"]) == ("senior", "young")
        assert row["p_value"] == pytest.approx(p, rel=1e-9)
        assert f"{p:.4f}" in page
    changes = {g: np.subtract(new[g], old[g]) for g in old}
    assert stats.f_oneway(changes["young"], changes["senior"]).statistic == pytest.approx(0.5)
    p = stats.f_oneway(changes["young"], changes["senior"]).pvalue
    row = as_pandas(collect(ev.gaps("mrr", by="age", baseline="old", test="anova"))).iloc[0]
    assert row["gap"] == pytest.approx(1 / 3 - 1 / 6, rel=1e-12)
    assert (row["worst_group"], row["worst_delta"]) == ("young", pytest.approx(1 / 6))
    assert row["p_value"] == pytest.approx(p, rel=1e-9)
    assert f"{p:.4f}" in page


def test_the_docstring_example() -> None:
    """gaps()'s docstring: reciprocal ranks 1, 1 (young) and 1/2, 1/2 (old); the
    permutation p-value it prints is the loop's over the same shuffles."""
    data = pd.DataFrame(
        {
            "query": [1, 1, 2, 2, 3, 3, 4, 4],
            "item": ["x", "y"] * 4,
            "score": [0.9, 0.1] * 4,
            "relevant": [1, 0, 1, 0, 0, 1, 0, 1],
            "age": ["young"] * 4 + ["old"] * 4,
        }
    )
    row = data.rank_eval.gaps("mrr", "age", n_permutations=2000).iloc[0]
    want = permutation_p_value(
        np.array([1, 1, 0.5, 0.5]), np.array(["young", "young", "old", "old"]), 2000, seed=0
    )
    assert row["p_value"] == pytest.approx(want, rel=1e-12)
    doc = rankframe.RankEval.gaps.__doc__
    assert doc is not None
    assert f'>>> round(float(out["p_value"].iloc[0]), 2)\n        {want:.2f}' in doc


@pytest.mark.load
def test_error_rate_on_data_without_an_effect() -> None:
    """Random group labels (4 groups), no effect, 200 seeds: the permutation test of the gap
    rejects at 5% in at most alpha plus twice its Monte Carlo error of the runs, and so do
    the Kruskal-Wallis and ANOVA tests (on the same frames); NDCG@4 of random rankings."""
    seeds, alpha = 200, 0.05
    rejected = {"permutation": 0, "rank": 0, "anova": 0}
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        n, per = 120, 4
        data = pd.DataFrame(
            {
                "query": np.repeat(np.arange(n), per),
                "item": np.tile(np.arange(per), n),
                "score": rng.random(n * per),
                "relevant": rng.integers(0, 3, n * per),
                "group": np.repeat(rng.integers(0, 4, n), per).astype(str),
            }
        )
        for test in rejected:
            out = data.rank_eval.gaps(
                "ndcg@4", "group", test=test, n_permutations=500, n_resamples=10, seed=seed
            )
            rejected[test] += bool(out["p_value"].iloc[0] < alpha)
    error = 2 * np.sqrt(alpha * (1 - alpha) / seeds)
    for test, count in rejected.items():
        assert count / seeds <= alpha + error, test
