"""``--percent`` of every command that takes it (``evaluate``, ``compare``, ``slices``,
``gaps``, ``sample-size``): every value on the [0, 1] scale of a metric declared bounded
(``MetricDef.bounded``) is shown as a percentage, and every relative change, for every
metric of the registry; counts, sums of gains, entropies, ratios, effect sizes and the log
differences of a geometric mean are plain numbers."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest

from helpers import Run
from rankframe import METRICS
from rankframe.api.accessor import RankEval
from rankframe.metrics.registry import MetricDef, labels, parse_metrics

# The metrics whose values are not in [0, 1], and why: an independent list, which the
# declarations must match.
NOT_BOUNDED = {
    "entropy": "nats: up to ln(number of items)",
    "arp": "a mean popularity, a count of interactions",
    "novelty": "bits: -log2 of a popularity share",
    "ild": "1 - cos(f_i, f_j) reaches 2 for opposite feature vectors",
    "dcg": "a sum of gains: grade 5 at rank 1 alone is 5",
    "exposure_ratio": "a share of attention over a share of merit: 0.9 / 0.1 is 9",
    "exposure_gap": "a difference of two shares: from -1 to 1",
    "ndkl": "a KL divergence: +inf when a target share is 0 (nats)",
    "expected_exposure": "a squared distance: a wrong item at rank 1, the right one unranked: 2",
    "ee_disparity": "a sum of squared attentions: 1 + 1/log2(3)^2 + ... passes 1",
    "ee_relevance": "a dot product of attentions: 1 + 0.63^2 + ... passes 1",
    "hit_count": "a number of items",
    "num_ret": "a count, summed over queries",
    "num_rel": "a count, summed over queries",
    "num_rel_ret": "a count, summed over queries",
    "num_nonrel_judged_ret": "a count, summed over queries",
    "utility": "relevant minus non-relevant retrieved rows: -n to n",
}
# compare()'s delta and interval of these are differences of logs (their statistic is a
# geometric mean): not on the metric's scale, even though the metric is bounded.
LOG_DIFFERENCE = {"gm_map", "gm_bpref"}

COLUMNS = ["--query", "qid", "--item", "doc", "--relevant", "grade"]
# the exposure metrics need an item -> group file (--item-groups): one group, so each
# per-group metric has one label, as without groups
GROUPS = {"a": "g"}


def groups_file(tmp_path: Path) -> list[str]:
    path = tmp_path / "groups.csv"
    pd.DataFrame({"doc": list(GROUPS), "group": list(GROUPS.values())}).to_csv(path, index=False)
    return ["--item-groups", str(path)]


def spec(definition: MetricDef) -> str:
    """A metric string of every metric: with its example parameter where it takes one."""
    if definition.takes_k:
        return f"{definition.name}@{definition.param.example}"
    return definition.name


SPECS = [spec(d) for d in METRICS.values()]


def test_the_declarations_are_the_list() -> None:
    assert {name for name, d in METRICS.items() if not d.bounded} == set(NOT_BOUNDED)
    assert {name for name, d in METRICS.items() if d.aggregate == "geometric"} == LOG_DIFFERENCE
    # a count summed over queries is never bounded
    assert all(not d.bounded for d in METRICS.values() if d.aggregate == "sum")


def cells(text: str) -> dict[str, str]:
    """The one data row of a table, by column."""
    header, _rule, row = text.splitlines()
    return dict(zip(header.split(), row.split(), strict=True))


def test_evaluate_percent_over_the_registry(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def evaluate(_: RankEval, metrics: Any, **options: Any) -> pl.DataFrame:
        names = labels(metrics, {k: v for k, v in options.items() if k != "by"})
        return pl.DataFrame({**{label: [0.25] for label in names}, "n_queries": [4]})

    monkeypatch.setattr(RankEval, "evaluate", evaluate)
    path = tmp_path / "d.csv"
    pd.DataFrame({"qid": ["q"], "doc": ["a"], "score": [1.0], "grade": [1]}).to_csv(
        path, index=False
    )
    code, out, err = run(
        "evaluate", path, *COLUMNS, "-m", ",".join(SPECS), "--percent", *groups_file(tmp_path)
    )
    assert code == 0, err
    row = cells(out)
    assert len(row) == len(SPECS) + 1
    expected = labels(SPECS, {"item_groups": GROUPS})
    for metric, label in zip(parse_metrics(SPECS), expected, strict=True):
        want = "25.00%" if metric.definition.bounded else "0.2500"
        assert row[label] == want, label
    assert row["n_queries"] == "4"


def test_compare_percent_over_the_registry(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    metrics = parse_metrics(SPECS)

    def compare(_: RankEval, specs: Any, **_options: Any) -> pl.DataFrame:
        assert parse_metrics(specs) == metrics
        n = len(metrics)
        return pl.DataFrame(
            {
                "system": ["sys_b"] * n,
                "metric": [m.tidy_name for m in metrics],
                "k": [None if m.k is None else float(m.k) for m in metrics],
                "mean": [0.25] * n,
                "reference_mean": [0.5] * n,
                "delta": [0.125] * n,
                "ratio": [1.25] * n,
                "p_value": [0.03] * n,
                "ci_low": [0.0625] * n,
                "ci_high": [0.1875] * n,
                "mde": [0.375] * n,
                "n_queries": [4] * n,
            }
        )

    monkeypatch.setattr(RankEval, "compare", compare, raising=False)
    path = tmp_path / "d.csv"
    pd.DataFrame({"qid": ["q"], "doc": ["a"], "sys_a": [1.0], "sys_b": [1.0], "grade": [1]}).to_csv(
        path, index=False
    )
    code, out, err = run(
        "compare",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        "--score",
        "sys_b",
        "-m",
        ",".join(SPECS),
        "--percent",
        "--format",
        "markdown",
        *groups_file(tmp_path),
    )
    assert code == 0, err
    header, _rule, *rows = out.splitlines()
    names = [c.strip() for c in header.strip("|").split("|")]
    assert len(rows) == len(metrics)
    for metric, line in zip(metrics, rows, strict=True):
        row = dict(zip(names, (c.strip() for c in line.strip("|").split("|")), strict=True))
        bounded = metric.definition.bounded
        on_scale = bounded and metric.name not in LOG_DIFFERENCE
        assert row["mean"] == ("25.00%" if bounded else "0.2500"), metric
        assert row["reference_mean"] == ("50.00%" if bounded else "0.5000"), metric
        assert row["delta"] == ("+12.50%" if on_scale else "+0.1250"), metric
        assert row["ci_low"] == ("6.25%" if on_scale else "0.0625"), metric
        assert row["ci_high"] == ("18.75%" if on_scale else "0.1875"), metric
        # the smallest detectable change is a change of the statistic, as delta
        assert row["mde"] == ("37.50%" if on_scale else "0.3750"), metric
        assert row["ratio"] == "1.2500"  # a ratio is never a percentage
        assert row["p_value"] == "0.0300"


@pytest.fixture
def data() -> pd.DataFrame:
    """Four queries, two systems, graded judgments."""
    return pd.DataFrame(
        {
            "qid": ["q1", "q1", "q1", "q2", "q2", "q2", "q3", "q3", "q4", "q4"],
            "doc": ["a", "b", "c", "a", "b", "c", "a", "b", "a", "b"],
            "sys_a": [0.9, 0.5, 0.4, 0.3, 0.8, 0.1, 0.5, 0.4, 0.2, 0.6],
            "sys_b": [0.1, 0.7, 0.4, 0.9, 0.2, 0.3, 0.6, 0.1, 0.9, 0.3],
            "grade": [0, 1, 2, 1, 0, 0, 1, 0, 2, 0],
        }
    )


def test_evaluate_percent_leaves_counts_as_numbers(
    run: Run, data: pd.DataFrame, tmp_path: Path
) -> None:
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    chosen = ["mrr", "num_ret", "num_rel_ret", "dcg@2", "gm_map"]
    code, out, _ = run(
        "evaluate", path, *COLUMNS, "--score", "sys_a", "-m", ",".join(chosen), "--percent"
    )
    assert code == 0
    means = (
        data.rank_eval(query="qid", item="doc", score="sys_a", relevant="grade")
        .evaluate(chosen)
        .iloc[0]
    )
    row = cells(out)
    # 10 rows retrieved, 5 relevant ones: counts, not 1000.00% and 500.00%
    assert row["num_ret"] == "10.0000"
    assert row["num_rel_ret"] == "5.0000"
    assert row["dcg@2"] == f"{means['dcg@2']:.4f}"
    for bounded in ("mrr", "gm_map"):
        assert row[bounded] == f"{means[bounded] * 100:.2f}%"


def test_compare_percent_of_a_geometric_mean_and_a_sum(
    run: Run, data: pd.DataFrame, tmp_path: Path
) -> None:
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    chosen = ["mrr", "gm_map", "num_rel_ret"]
    code, out, _ = run(
        "compare",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        "--score",
        "sys_b",
        "-m",
        ",".join(chosen),
        "--percent",
    )
    assert code == 0
    table = data.rank_eval(
        query="qid", item="doc", score=["sys_a", "sys_b"], relevant="grade"
    ).compare(chosen, baseline="sys_a")
    header, _rule, *lines = out.splitlines()
    names = ("mean", "delta", "delta_relative")
    starts = [header.index(f" {c} ") + 1 for c in names]
    for line, (_, want) in zip(lines, table.iterrows(), strict=True):
        # the columns are right-aligned: each cell ends where its header ends
        mean, delta, relative = (
            line[: s + len(c)].split()[-1] for s, c in zip(starts, names, strict=True)
        )
        if want["metric"] == "mrr":
            assert mean == f"{want['mean'] * 100:.2f}%"
            assert delta == f"{want['delta'] * 100:+.2f}%"
        elif want["metric"] == "gm_map":
            # the geometric mean is on MAP's scale; its delta is a difference of logs
            assert mean == f"{want['mean'] * 100:.2f}%"
            assert delta == f"{want['delta']:+.4f}"
            assert math.isclose(math.expm1(want["delta"]), want["delta_relative"])
        else:  # num_rel_ret: a sum over queries, its difference a number of rows
            assert mean == f"{want['mean']:.4f}"
            assert delta == f"{want['delta']:+.4f}"
        # the relative change is a fraction of the baseline's statistic for every metric
        assert relative == f"{want['delta_relative'] * 100:+.2f}%"


def test_compare_shows_k_as_written(run: Run, data: pd.DataFrame, tmp_path: Path) -> None:
    # iprec@0.2's parameter makes compare()'s k column a float column: map@10's k is still
    # shown as 10, not 10.0000
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    code, out, _ = run(
        "compare", path, *COLUMNS, "--score", "sys_a", "--score", "sys_b", "-m", "iprec@0.2,map@10"
    )
    assert code == 0
    header, _rule, *lines = out.splitlines()
    names = header.split()
    shown = {(row.split()[names.index("metric")], row.split()[names.index("k")]) for row in lines}
    assert shown == {("iprec", "0.2"), ("map", "10")}


# -- every command with --percent --------------------------------------------------------


def markdown_rows(text: str) -> list[dict[str, str]]:
    header, _rule, *lines = text.splitlines()
    names = [c.strip() for c in header.strip("|").split("|")]
    return [
        dict(zip(names, (c.strip() for c in line.strip("|").split("|")), strict=True))
        for line in lines
    ]


def sample_file(tmp_path: Path) -> Path:
    """One query of 31 rows (slices' --min-queries is checked against the queries)."""
    path = tmp_path / "d.csv"
    pd.DataFrame(
        {"qid": ["q"], "doc": ["a"], "sys_a": [1.0], "sys_b": [1.0], "grade": [1], "theme": ["t"]}
    ).to_csv(path, index=False)
    return path


def fake(columns: dict[str, float], *, full_label: bool = False) -> Any:
    """A method returning one row per metric of the registry with these values (the metric
    as ``metric`` and ``k``, or as its label with ``full_label``, as sample_size() has it)."""
    metrics = parse_metrics(SPECS)

    def method(_: RankEval, specs: Any, *_args: Any, **_options: Any) -> pl.DataFrame:
        assert parse_metrics(specs) == metrics
        n = len(metrics)
        keys: dict[str, list[Any]] = (
            {"metric": [str(m) for m in metrics]}
            if full_label
            else {
                "metric": [m.tidy_name for m in metrics],
                "k": [None if m.k is None else float(m.k) for m in metrics],
            }
        )
        return pl.DataFrame(
            {"system": ["sys_b"] * n, **keys, **{c: [v] * n for c, v in columns.items()}}
        )

    return method


def expect(rows: list[dict[str, str]], columns: dict[str, float], shown: Any) -> None:
    """Each row's columns: ``shown(definition)`` ones as percentages, the others plain."""
    for metric, row in zip(parse_metrics(SPECS), rows, strict=True):
        percent = shown(metric.definition)
        for column, value in columns.items():
            signed = "+" if column == "delta" else ""
            want = f"{value * 100:{signed}.2f}%" if column in percent else (f"{value:{signed}.4f}")
            assert row[column] == want, (metric, column)


def scale(definition: MetricDef, statistic: set[str], difference: set[str]) -> set[str]:
    """The rule, written out: a statistic of a bounded metric is on its scale; so is a
    difference of it, unless the statistic is a geometric mean (a difference of logs)."""
    if not definition.bounded:
        return set()
    if definition.aggregate == "geometric":
        return statistic
    return statistic | difference


@pytest.mark.parametrize("baseline", [False, True])
def test_slices_percent_over_the_registry(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, baseline: bool
) -> None:
    other = "baseline_mean" if baseline else "mean_outside"
    columns = {
        "mean": 0.25,
        other: 0.5,
        "delta": -0.25,
        "ci_low": -0.375,
        "ci_high": -0.125,
        "p_value": 0.03,
    }
    monkeypatch.setattr(RankEval, "slices", fake(columns))
    extra = ["--score", "sys_b", "--baseline", "sys_a"] if baseline else []
    code, out, err = run(
        "slices",
        sample_file(tmp_path),
        *COLUMNS,
        "--score",
        "sys_a",
        *extra,
        "--column",
        "theme",
        "--min-queries",
        "1",
        "-m",
        ",".join(SPECS),
        "--percent",
        "--format",
        "markdown",
        *groups_file(tmp_path),
    )
    assert code == 0, err
    expect(
        markdown_rows(out),
        columns,
        lambda d: scale(d, {"mean", other}, {"delta", "ci_low", "ci_high"}),
    )


@pytest.mark.parametrize("baseline", [False, True])
def test_gaps_percent_over_the_registry(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, baseline: bool
) -> None:
    # without a baseline the gap is a difference of the groups' statistics, on the metric's
    # scale even for a geometric mean; with one, of the groups' mean changes (of logs for
    # a geometric mean)
    groups = ["worst_delta", "best_delta"] if baseline else ["worst_mean", "best_mean"]
    columns = {
        "gap": 0.25,
        "ci_low": 0.125,
        "ci_high": 0.375,
        "p_value": 0.03,
        "ratio": 1.5,
        groups[0]: 0.25,
        groups[1]: 0.5,
    }
    monkeypatch.setattr(RankEval, "gaps", fake(columns))
    extra = ["--score", "sys_b", "--baseline", "sys_a"] if baseline else []
    code, out, err = run(
        "gaps",
        sample_file(tmp_path),
        *COLUMNS,
        "--score",
        "sys_a",
        *extra,
        "--by",
        "theme",
        "-m",
        ",".join(SPECS),
        "--percent",
        "--format",
        "markdown",
        *groups_file(tmp_path),
    )
    assert code == 0, err
    on_scale = {"gap", "ci_low", "ci_high", *groups}
    expect(
        markdown_rows(out),
        columns,
        (lambda d: scale(d, set(), on_scale))
        if baseline
        else (lambda d: scale(d, on_scale, set())),
    )


def test_sample_size_percent_over_the_registry(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the change to detect and the standard deviation are of the per-query values (a
    # geometric mean's too: its per-query values are on the metric's scale)
    columns = {"n_needed": 133.0, "delta": 0.125, "effect_size": 0.5, "sd": 0.25}
    monkeypatch.setattr(RankEval, "sample_size", fake(columns, full_label=True))
    code, out, err = run(
        "sample-size",
        sample_file(tmp_path),
        *COLUMNS,
        "--score",
        "sys_a",
        "--delta",
        "0.125",
        "-m",
        ",".join(SPECS),
        "--percent",
        "--format",
        "markdown",
        *groups_file(tmp_path),
    )
    assert code == 0, err
    rows = markdown_rows(out)
    assert {row["n_needed"] for row in rows} == {"133"}
    expect(
        rows,
        {c: v for c, v in columns.items() if c != "n_needed"},
        lambda d: {"delta", "sd"} if d.bounded else set(),
    )


def test_every_command_with_percent_is_tested() -> None:
    import argparse

    from rankframe.cli.parser import build_parser

    top = build_parser(every_command=True)
    (commands,) = (a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    with_percent = {
        name
        for name, parser in commands.choices.items()
        if any("--percent" in a.option_strings for a in parser._actions)
    }
    assert with_percent == {"evaluate", "compare", "slices", "gaps", "sample-size"}


def test_compare_percent_of_the_mde_on_data(run: Run, data: pd.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    data.to_csv(path, index=False)
    code, out, err = run(
        "compare",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        "--score",
        "sys_b",
        "-m",
        "mrr,ndcg@2",
        "--percent",
        "--format",
        "markdown",
    )
    assert code == 0, err
    table = data.rank_eval(
        query="qid", item="doc", score=["sys_a", "sys_b"], relevant="grade"
    ).compare(["mrr", "ndcg@2"], baseline="sys_a")
    tested = table[table["system"] == "sys_b"]
    rows = [r for r in markdown_rows(out) if r["system"] == "sys_b"]
    assert len(rows) == 2
    for row, (_, want) in zip(rows, tested.iterrows(), strict=True):
        assert want["mde"] > 0
        assert row["mde"] == f"{want['mde'] * 100:.2f}%"
        assert row["delta"] == f"{want['delta'] * 100:+.2f}%"
