"""``slices()``: every candidate slice against a plain pandas/scipy enumeration of the same
conjunctions on small frames, on every frame kind; the bad inputs; the error control,
measured on data with no effect.

References: reciprocal ranks computed here with pandas (the first relevant row by score);
``scipy.stats.ttest_ind(equal_var=False)`` and ``ttest_rel`` with their
``confidence_interval``; ``pandas.qcut`` for the bins; Holm written out here and
``scipy.stats.false_discovery_control`` for Benjamini-Hochberg.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankframe
from helpers import as_pandas, collect


def frame(seed: int = 0, n_queries: int = 90) -> pd.DataFrame:
    """Queries of 3 items, two systems, a theme (3 values), a device (2) and an age
    (numeric, many values: binned); system a does worse on news."""
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(n_queries), 3)
    theme = np.array(["news", "sport", "tech"])[rng.integers(0, 3, n_queries)]
    device = np.array(["ios", "web"])[rng.integers(0, 2, n_queries)]
    age = rng.integers(18, 70, n_queries).astype(float)
    relevant = (rng.random(len(query)) < 0.4).astype(int)
    a = rng.random(len(query)) + relevant * np.where(theme[query] == "news", 0.0, 0.6)
    b = rng.random(len(query)) + relevant * 0.3
    return pd.DataFrame(
        {
            "query": query,
            "item": np.tile([1, 2, 3], n_queries),
            "relevant": relevant,
            "a": a.round(3),
            "b": b.round(3),
            "theme": theme[query],
            "device": device[query],
            "age": age[query],
        }
    )


def reciprocal_ranks(data: pd.DataFrame, score: str) -> pd.Series:
    """Per query, 1 / rank of its first relevant row by descending score (0 if none)."""
    ranked = data.assign(rank=data.groupby("query")[score].rank(ascending=False, method="first"))
    first = ranked[ranked.relevant > 0].groupby("query")["rank"].min()
    return (1.0 / first).reindex(data["query"].unique(), fill_value=0.0).sort_index()


def per_query_table(data: pd.DataFrame, bins: int = 4) -> pd.DataFrame:
    """One row per query: its slice columns (age as pandas.qcut's bin label) and the
    reciprocal rank of each system."""
    queries = data.groupby("query")[["theme", "device", "age"]].first().sort_index()
    cut, edges = pd.qcut(queries["age"], bins, labels=False, retbins=True, duplicates="drop")
    labels = [
        f"{'[' if i == 0 else '('}{edges[i]:g}, {edges[i + 1]:g}]" for i in range(len(edges) - 1)
    ]
    queries["age"] = [labels[int(c)] for c in cut]
    for score in ("a", "b"):
        queries[score] = reciprocal_ranks(data, score)
    return queries


def enumerate_slices(
    table: pd.DataFrame,
    columns: list[str],
    *,
    max_depth: int,
    min_queries: int,
    baseline: str | None,
) -> dict[tuple[str, str], Any]:
    """Every conjunction of up to ``max_depth`` predicates, by brute force: its queries'
    mask, skipped below ``min_queries``, as the whole frame, or as its parent's queries."""
    out: dict[tuple[str, str], Any] = {}
    masks: dict[tuple[tuple[str, Any], ...], np.ndarray] = {(): np.ones(len(table), bool)}
    for depth in range(1, max_depth + 1):
        for combo in itertools.combinations(columns, depth):
            for values, group in table.groupby(list(combo)):
                preds = tuple(zip(combo, values, strict=True))
                mask = np.zeros(len(table), bool)
                mask[table.index.get_indexer(group.index)] = True
                masks[preds] = mask
                parents = [preds[:i] + preds[i + 1 :] for i in range(depth)]
                if mask.sum() < min_queries or any(
                    p in masks and masks[p].sum() == mask.sum() for p in parents
                ):
                    continue
                label = " & ".join(f"{c}={v}" for c, v in preds)
                systems = [s for s in ("a", "b") if s != baseline]
                for system in systems:
                    inside = table.loc[mask, system].to_numpy()
                    if baseline is None:
                        outside = table.loc[~mask, system].to_numpy()
                        test = stats.ttest_ind(inside, outside, equal_var=False)
                        other = outside.mean()
                        delta = inside.mean() - other
                    else:
                        base = table.loc[mask, baseline].to_numpy()
                        test = stats.ttest_rel(inside, base)
                        other = base.mean()
                        delta = (inside - base).mean()
                    ci = test.confidence_interval(0.95)
                    out[label, system] = {
                        "mask": mask,
                        "n": int(mask.sum()),
                        "mean": inside.mean(),
                        "other": other,
                        "delta": delta,
                        "p": float(test.pvalue),
                        "low": float(ci.low),
                        "high": float(ci.high),
                    }
    return out


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment, written out."""
    order = np.argsort(p)
    k = len(p)
    out = np.empty(k)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (k - i) * p[j]))
        out[j] = running
    return out


@pytest.mark.parametrize("baseline", [None, "b"])
def test_every_slice_equals_a_brute_force_enumeration(make_frame: Any, baseline: Any) -> None:
    data = frame()
    table = per_query_table(data)
    expected = enumerate_slices(
        table, ["theme", "device", "age"], max_depth=2, min_queries=8, baseline=baseline
    )
    got = as_pandas(
        collect(
            make_frame(data)
            .rank_eval(score=["a", "b"])
            .slices(
                "mrr",
                ["theme", "device", "age"],
                baseline=baseline,
                min_queries=8,
            )
        )
    )
    assert len(got) == len(expected)
    assert got["n_tested"].iloc[0] == len(expected)
    keyed = got.set_index(["slice", "system"])
    for key, want in expected.items():
        row = keyed.loc[key]
        other = "mean_outside" if baseline is None else "baseline_mean"
        assert row["n_queries"] == want["n"]
        np.testing.assert_allclose(
            [row["mean"], row[other], row["delta"], row["p_value"], row["ci_low"], row["ci_high"]],
            [want["mean"], want["other"], want["delta"], want["p"], want["low"], want["high"]],
            rtol=1e-9,
            atol=1e-12,
        )
    p = np.array([v["p"] for v in expected.values()])
    adjusted = dict(zip(expected, holm(p), strict=True))
    for key, value in adjusted.items():
        assert keyed.loc[key, "p_adjusted"] == pytest.approx(value, rel=1e-9)
        assert keyed.loc[key, "significant"] == (value < 0.05)
    # worst first within each system and metric; a column per slice column, null unconstrained
    for _, group in got.groupby("system", sort=False):
        assert group["delta"].is_monotonic_increasing
    first = got.iloc[0]
    constrained = [c for c in ("theme", "device", "age") if pd.notna(first[c])]
    assert first["slice"] == " & ".join(f"{c}={first[c]}" for c in constrained)
    assert first["depth"] == len(constrained)
    make_frame.check_unchanged()


def permutation_p_values(
    table: pd.DataFrame,
    expected: dict[tuple[str, str], Any],
    *,
    baseline: str | None,
    alternative: str,
    n_permutations: int,
    seed: int,
) -> dict[tuple[str, str], float]:
    """Each candidate's permutation p-value by a plain loop over the resamples, drawn as
    the docstrings of ``subset_permutation_test`` and ``subset_sign_flip_test`` say (one
    task: ``2**20 // n_queries`` is above ``n_permutations`` here): the candidate against
    a shuffle's first ``n_queries`` queries (its mean minus the others'), or its
    differences with the resample's signs (their mean)."""
    n = len(table)
    assert n_permutations <= 2**20 // n
    rng = np.random.default_rng(seed).spawn(1)[0]
    if baseline is None:
        draws = rng.permuted(np.tile(np.arange(n), (n_permutations, 1)), axis=1)
    else:
        draws = np.where(rng.integers(0, 2, size=(n_permutations, n)) == 1, 1.0, -1.0)
    out = {}
    for (label, system), want in expected.items():
        mask, k = want["mask"], want["n"]
        values = table[system].to_numpy()
        if baseline is not None:
            values = values - table[baseline].to_numpy()
        observed = values[mask].mean() - (0.0 if baseline else values[~mask].mean())
        hits = 0
        for b in range(n_permutations):
            if baseline is None:
                inside = np.zeros(n, bool)
                inside[draws[b, :k]] = True
                resampled = values[inside].mean() - values[~inside].mean()
            else:
                resampled = (draws[b, mask] * values[mask]).mean()
            if alternative == "less":
                hits += resampled <= observed + 1e-9
            elif alternative == "greater":
                hits += resampled >= observed - 1e-9
            else:
                hits += abs(resampled) >= abs(observed) - 1e-9
        out[label, system] = (1 + hits) / (1 + n_permutations)
    return out


@cache
def permutation_reference(baseline: str | None, alternative: str) -> tuple[Any, Any]:
    """The slices of frame() and the loop's p-values (computed once per process: the loop is
    slow, and every frame kind is compared with the same numbers)."""
    table = per_query_table(frame())
    columns = ["theme", "device", "age"]
    expected = enumerate_slices(table, columns, max_depth=2, min_queries=8, baseline=baseline)
    want = permutation_p_values(
        table, expected, baseline=baseline, alternative=alternative, n_permutations=400, seed=11
    )
    return expected, want


@pytest.mark.parametrize(
    ("baseline", "alternative"), [(None, "two-sided"), (None, "less"), ("b", "greater")]
)
def test_permutation_test_equals_a_loop_over_the_resamples(
    make_frame: Any, baseline: Any, alternative: str
) -> None:
    data = frame()
    columns = ["theme", "device", "age"]
    expected, want = permutation_reference(baseline, alternative)
    got = as_pandas(
        collect(
            make_frame(data)
            .rank_eval(score=["a", "b"])
            .slices(
                "mrr",
                columns,
                baseline=baseline,
                min_queries=8,
                test="permutation",
                alternative=alternative,
                n_permutations=400,
                seed=11,
                correction="holm",
            )
        )
    )
    assert len(got) == len(want)
    keyed = got.set_index(["slice", "system"])
    for key, p in want.items():
        assert keyed.loc[key, "p_value"] == pytest.approx(p, rel=1e-12)
        # the other columns are the t-test's: the same slices, moments and intervals
        assert keyed.loc[key, "delta"] == pytest.approx(expected[key]["delta"], rel=1e-9)
    p = np.array(list(want.values()))
    for key, value in zip(want, holm(p), strict=True):
        assert keyed.loc[key, "p_adjusted"] == pytest.approx(value, rel=1e-12)
    assert 0.0 < min(want.values()) < 0.05 < max(want.values())  # the test can fail
    make_frame.check_unchanged()


def bootstrap_tests(
    table: pd.DataFrame,
    expected: dict[tuple[str, str], Any],
    *,
    baseline: str | None,
    alternative: str,
    level: float,
    n_resamples: int,
    seed: int,
) -> dict[tuple[str, str], tuple[float, float, float]]:
    """Each candidate's percentile bootstrap (p-value, low, high) by a plain loop over the
    resamples, drawn as ``compare()``'s bootstrap intervals draw them (one task: ``2**20 //
    n_queries`` is above ``n_resamples`` here; every candidate from the same ``seed``): its
    ``n1`` queries and the other ``n2`` each resampled on their own,
    ``rng.integers(0, n1, size=(B, n1))`` then ``rng.integers(0, n2, size=(B, n2))``, or,
    with a baseline, its differences, position ``floor(u * n1)`` for ``u =
    rng.random((B, n1))``; ``rng = default_rng(seed).spawn(1)[0]``. The interval is the
    quantiles of the resampled deltas ``d*`` (one-sided for "less" and "greater"), the
    p-value ``(1 + #{d* >= 0}) / (1 + B)`` for "less", ``(1 + #{d* <= 0}) / (1 + B)`` for
    "greater", twice the smaller (at most 1) two-sided."""
    out = {}
    for (label, system), want in expected.items():
        mask, k = want["mask"], want["n"]
        assert n_resamples <= 2**20 // (len(table) if baseline is None else k)
        values = table[system].to_numpy()
        rng = np.random.default_rng(seed).spawn(1)[0]
        deltas = []
        if baseline is None:
            inside, outside = values[mask], values[~mask]
            ix = rng.integers(0, len(inside), size=(n_resamples, len(inside)))
            iy = rng.integers(0, len(outside), size=(n_resamples, len(outside)))
            for b in range(n_resamples):
                deltas.append(inside[ix[b]].mean() - outside[iy[b]].mean())
        else:
            diff = values[mask] - table[baseline].to_numpy()[mask]
            u = rng.random((n_resamples, k))
            for b in range(n_resamples):
                position = np.minimum((u[b] * k).astype(int), k - 1)
                deltas.append(diff[position].mean())
        d = np.array(deltas)
        above = (1 + np.sum(d >= -1e-12)) / (1 + n_resamples)
        below = (1 + np.sum(d <= 1e-12)) / (1 + n_resamples)
        if alternative == "less":
            out[label, system] = (above, -np.inf, float(np.quantile(d, level)))
        elif alternative == "greater":
            out[label, system] = (below, float(np.quantile(d, 1 - level)), np.inf)
        else:
            low, high = np.quantile(d, [(1 - level) / 2, (1 + level) / 2])
            out[label, system] = (min(1.0, 2 * min(above, below)), float(low), float(high))
    return out


@cache
def bootstrap_reference(baseline: str | None, alternative: str) -> tuple[Any, Any]:
    """The slices of frame() and the loop's tests (computed once per process)."""
    table = per_query_table(frame())
    columns = ["theme", "device"]
    expected = enumerate_slices(table, columns, max_depth=2, min_queries=8, baseline=baseline)
    want = bootstrap_tests(
        table,
        expected,
        baseline=baseline,
        alternative=alternative,
        level=0.9,
        n_resamples=300,
        seed=5,
    )
    return expected, want


@pytest.mark.parametrize(
    ("baseline", "alternative"),
    [(None, "two-sided"), ("b", "two-sided"), (None, "less"), ("b", "greater")],
)
def test_bootstrap_equals_a_loop_over_the_resamples(
    make_frame: Any, baseline: Any, alternative: str
) -> None:
    data = frame()
    columns = ["theme", "device"]
    expected, want = bootstrap_reference(baseline, alternative)
    got = as_pandas(
        collect(
            make_frame(data)
            .rank_eval(score=["a", "b"])
            .slices(
                "mrr",
                columns,
                baseline=baseline,
                min_queries=8,
                test="bootstrap",
                alternative=alternative,
                n_resamples=300,
                seed=5,
                confidence_level=0.9,
            )
        )
    )
    assert len(got) == len(want)
    keyed = got.set_index(["slice", "system"])
    for key, (p, low, high) in want.items():
        np.testing.assert_allclose(
            keyed.loc[key, ["p_value", "ci_low", "ci_high", "delta"]].to_numpy(float),
            [p, low, high, expected[key]["delta"]],
            rtol=1e-9,
            atol=1e-12,
        )
    p = np.array(list(want.values()))[:, 0]
    for key, value in zip(want, holm(p), strict=True):
        assert keyed.loc[key, "p_adjusted"] == pytest.approx(value, rel=1e-12)
        assert keyed.loc[key, "significant"] == (value < 1 - 0.9)
    assert min(p) < 0.1 < max(p)  # the test can fail
    make_frame.check_unchanged()


def test_bootstrap_slices_are_compare_on_the_same_queries(make_frame: Any) -> None:
    """A slice's bootstrap interval is compare()'s on the slice's queries: paired against
    the baseline, and two-sample (reference=) against the other queries."""
    data = frame()
    news = data[data.theme == "news"]
    others = data[data.theme != "news"]
    ev = make_frame(data).rank_eval(score=["a", "b"])
    options = {"n_resamples": 200, "seed": 3}
    sliced = {"test": "bootstrap", "min_queries": 8, **options}
    paired = as_pandas(collect(ev.slices("mrr", "theme", baseline="b", **sliced)))
    paired = paired.set_index("slice")
    two = as_pandas(collect(ev.slices("mrr", "theme", **sliced)))
    two = two.set_index(["slice", "system"])
    vs_b = as_pandas(
        collect(
            make_frame(news)
            .rank_eval(score=["a", "b"])
            .compare("mrr", baseline="b", test="permutation", n_permutations=10, **options)
        )
    )
    row = vs_b.set_index("system").loc["a"]
    assert paired.loc["theme=news", ["ci_low", "ci_high"]].tolist() == pytest.approx(
        [row["ci_low"], row["ci_high"]], rel=1e-12
    )
    vs_rest = as_pandas(
        collect(
            make_frame(news)
            .rank_eval(score=["a", "b"])
            .compare(
                "mrr",
                reference=make_frame(others),
                test="permutation",
                n_permutations=10,
                **options,
            )
        )
    ).set_index("system")
    for system in ("a", "b"):
        assert two.loc[("theme=news", system), ["ci_low", "ci_high"]].tolist() == (
            pytest.approx(
                [vs_rest.loc[system, "ci_low"], vs_rest.loc[system, "ci_high"]], rel=1e-12
            )
        )
    make_frame.check_unchanged()


def test_bootstrap_refuses_bad_resamples_as_compare_does(make_frame: Any) -> None:
    ev = make_frame(frame()).rank_eval(score=["a", "b"])
    for bad in (0, "many", True):
        with pytest.raises(rankframe.RankEvalError) as compared:
            collect(ev.compare("mrr", n_resamples=bad))
        with pytest.raises(rankframe.RankEvalError, match="n_resamples") as sliced:
            collect(ev.slices("mrr", "theme", test="bootstrap", n_resamples=bad))
        assert str(sliced.value) == str(compared.value)


def test_bootstrap_tests_edge_cases() -> None:
    """No difference at all: every resampled delta is 0, counted on both sides (p = 1, a
    zero-width interval at 0); a NaN value or an empty side: NaN."""
    from rankframe.stats import intervals, two_sample

    p, low, high = intervals.bootstrap_test(np.zeros((5, 2)), n_resamples=50, seed=1)
    assert p.tolist() == [1.0, 1.0]
    assert low.tolist() == [0.0, 0.0] == high.tolist()
    p, low, high = two_sample.two_sample_bootstrap_test(
        np.full((4, 1), 0.1), np.full((7, 1), 0.1), n_resamples=50, seed=1
    )
    assert p.tolist() == [1.0]
    p, low, high = intervals.bootstrap_test([[1.0, np.nan], [2.0, 3.0]], n_resamples=20)
    assert not np.isnan(p[0])
    assert np.isnan([p[1], low[1], high[1]]).all()
    p, low, high = two_sample.two_sample_bootstrap_test(np.ones((3, 1)), np.ones((0, 1)))
    assert np.isnan([p[0], low[0], high[0]]).all()
    # one-sided: all resamples below 0 give the smallest p for "less", 1 for "greater"
    p_less, low, high = intervals.bootstrap_test(
        [-1.0, -2.0, -3.0], n_resamples=99, alternative="less"
    )
    assert (p_less, low) == (0.01, -np.inf)
    assert high < 0
    assert intervals.bootstrap_test([-1.0, -2.0], n_resamples=99, alternative="greater")[0] == 1.0


def test_fdr_bh_top_and_one_sided(make_frame: Any) -> None:
    data = frame(seed=3)
    table = per_query_table(data)
    expected = enumerate_slices(
        table, ["theme", "device"], max_depth=2, min_queries=5, baseline=None
    )
    ev = make_frame(data).rank_eval(score=["a", "b"])
    got = as_pandas(
        collect(ev.slices("mrr", ["theme", "device"], min_queries=5, correction="fdr_bh", top=3))
    )
    keys = list(expected)
    bh = dict(
        zip(keys, stats.false_discovery_control([expected[k]["p"] for k in keys]), strict=True)
    )
    assert len(got) == 6
    assert list(got.system) == ["a"] * 3 + ["b"] * 3
    for _, row in got.iterrows():
        assert row["p_adjusted"] == pytest.approx(bh[row["slice"], row["system"]], rel=1e-9)
        assert row["n_tested"] == len(keys)
    for system in ("a", "b"):  # the three lowest deltas of each system
        worst = sorted(v["delta"] for k, v in expected.items() if k[1] == system)[:3]
        np.testing.assert_allclose(got[got.system == system]["delta"], worst, rtol=1e-9)
    less = as_pandas(
        collect(ev.slices("mrr", "theme", min_queries=5, alternative="less", correction=None))
    )
    for _, row in less.iterrows():
        mask = (table["theme"] == row["theme"]).to_numpy()
        test = stats.ttest_ind(
            table.loc[mask, row["system"]],
            table.loc[~mask, row["system"]],
            equal_var=False,
            alternative="less",
        )
        ci = test.confidence_interval(0.95)
        assert row["p_value"] == pytest.approx(test.pvalue, rel=1e-9)
        assert row["p_adjusted"] == pytest.approx(test.pvalue, rel=1e-9)
        assert row["ci_low"] == -np.inf
        assert row["ci_high"] == pytest.approx(ci.high, rel=1e-9)


def planted_frame(seed: int, n_queries: int = 600) -> tuple[pd.DataFrame, np.ndarray]:
    """Queries of 4 items with one relevant item, three segment columns (3, 4 and 5 values);
    the relevant item scores highest (mostly) except in the planted slice ``c3=b & c4=y``
    (about 1/12 of the queries), where it mostly scores low: its reciprocal rank drops there.
    Also: per query, whether it is in the planted slice."""
    rng = np.random.default_rng(seed)
    per = 4
    query = np.repeat(np.arange(n_queries), per)
    columns = {
        f"c{size}": np.array(list("abcde"[:size] if size != 4 else "wxyz"))[
            rng.integers(0, size, n_queries)
        ]
        for size in (3, 4, 5)
    }
    planted = (columns["c3"] == "b") & (columns["c4"] == "y")
    relevant = np.zeros(n_queries * per, dtype=int)
    relevant[np.arange(n_queries) * per + rng.integers(0, per, n_queries)] = 1
    noise = rng.random(n_queries * per)
    lift = np.where(planted[query], -0.5, 0.8)
    return pd.DataFrame(
        {
            "query": query,
            "item": np.tile(np.arange(per), n_queries),
            "relevant": relevant,
            "score": (noise + relevant * lift).round(4),
            **{name: values[query] for name, values in columns.items()},
        }
    ), planted


@pytest.mark.parametrize("seed", [0, 1])
def test_a_planted_slice_comes_first(make_frame: Any, seed: int) -> None:
    data, planted = planted_frame(seed)
    rr = reciprocal_ranks(data, "score").to_numpy()
    got = as_pandas(
        collect(make_frame(data).rank_eval(score="score").slices("mrr", ["c3", "c4", "c5"]))
    )
    first = got.iloc[0]
    assert first["slice"] == "c3=b & c4=y"
    assert first["n_queries"] == planted.sum()
    inside, outside = rr[planted], rr[~planted]
    assert first["delta"] == pytest.approx(inside.mean() - outside.mean(), rel=1e-9)
    test = stats.ttest_ind(inside, outside, equal_var=False)
    assert first["p_value"] == pytest.approx(test.pvalue, rel=1e-6)
    assert first["significant"]
    make_frame.check_unchanged()


@pytest.mark.parametrize(
    ("change", "kwargs", "message"),
    [
        ("vary", {}, "varies within query"),
        (None, {"max_depth": 0}, "'max_depth' parameter of slices() must be an integer"),
        (None, {"min_queries": 1000}, "min_queries=1000 is above the frame's 90 queries"),
        (None, {"correction": "fdr"}, "fdr"),
        (None, {"bins": 1}, "'bins' parameter"),
        (None, {"test": "wilcoxon"}, "test='t-test', test='permutation' or test='bootstrap'"),
        (None, {"alternative": "lower"}, "alternative='lower'"),
        (None, {"baseline": "c"}, "baseline='c' is not one of the score columns"),
        ("slice", {}, "clashes with the output column 'slice'"),
    ],
)
def test_bad_input_names_it(make_frame: Any, change: Any, kwargs: Any, message: str) -> None:
    data = frame()
    columns = ["theme"]
    if change == "vary":
        data["theme"] = np.resize(["news", "sport"], len(data))
    if change == "slice":
        data["slice"] = data["theme"]
        columns = ["slice"]
    with pytest.raises(
        rankframe.RankEvalError, match=message.replace("(", r"\(").replace(")", r"\)")
    ):
        collect(make_frame(data).rank_eval(score=["a", "b"]).slices("mrr", columns, **kwargs))


@pytest.mark.load
def test_error_control_on_data_without_an_effect() -> None:
    """Random segment labels, no effect, 200 seeds, the permutation test: with holm, the
    share of runs with any significant slice is at most alpha plus twice its Monte Carlo
    error; with fdr_bh the mean false discovery proportion (every discovery is false here,
    so a run's proportion is 0 or 1) is at most the same bound. Small frames per seed: 400
    queries of 4 items, random scores and grades (NDCG@4 takes many values), four columns
    of 3 random values, the default min_queries=30 (depth 2: about 44 queries per slice).
    One call per seed without a correction; Holm written out here and scipy's
    Benjamini-Hochberg on its p-values (the corrections are checked against the same above).
    3,000 resamples (the default is 10,000): a permutation p-value is valid at any number
    of resamples, and Holm's first threshold here, 0.05 / 66, is 2.3 / 3,001, so a test too
    liberal in the tail would still show. (The t-test, measured the same way: 0.095 and
    0.105, above the bound; see docs/compare.md.)"""
    seeds, alpha = 200, 0.05
    any_holm = np.zeros(seeds, bool)
    any_bh = np.zeros(seeds, bool)
    tested = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        n, per = 400, 4
        labels = {f"c{j}": np.repeat(rng.integers(0, 3, n), per).astype(str) for j in range(4)}
        data = pd.DataFrame(
            {
                "query": np.repeat(np.arange(n), per),
                "item": np.tile(np.arange(per), n),
                "score": rng.random(n * per),
                "relevant": rng.integers(0, 3, n * per),
                **labels,
            }
        )
        out = data.rank_eval.slices(
            "ndcg@4",
            list(labels),
            test="permutation",
            n_permutations=3000,
            seed=seed,
            correction=None,
        )
        p = out["p_value"].to_numpy()
        tested.append(len(p))
        any_holm[seed] = (holm(p) < alpha).any()
        any_bh[seed] = (stats.false_discovery_control(p) < alpha).any()
    error = 2 * np.sqrt(alpha * (1 - alpha) / seeds)
    assert min(tested) > 50  # many tests per run: uncorrected, some would pass by chance
    assert any_holm.mean() <= alpha + error
    assert any_bh.mean() <= alpha + error
