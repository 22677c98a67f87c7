"""Labels name every option that moved a metric from its defaults (issue 25, item 3).

``evaluate(["f1@5"], beta=2)`` is labelled ``f1@5(beta=2)``; ``parse_metric`` reads a label
back to the same metric and options, and evaluating the label alone gives the values of the
metric evaluated with the options. The properties run over the whole registry: every metric
with every non-default value of every option its label may name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

import helpers
import rankframe
from helpers import FrameMaker, as_float, as_pandas
from rankframe import METRICS, parse_metric, parse_metrics
from rankframe.exceptions import InvalidOptionError, RankEvalError, UnknownArgumentError
from rankframe.metrics.registry import Metric, MetricDef, bind_options, labels
from rankframe.pipeline.steps import reads_shared_ranks
from rankframe.settings.options import OPTIONS, OptionDef, Options

# The option and error grid: every frame kind but Dask, whose one-call-per-case tests in
# tests/backends/test_dask.py stand in for it (helpers.GRID_KINDS)
pytestmark = pytest.mark.frame_kinds(*helpers.GRID_KINDS)

# A value other than the default of each option without fixed choices; the options with
# choices take each of theirs (``OptionDef.choices``).
SAMPLES: dict[str, tuple[Any, ...]] = {
    "min_relevance": (2, 0.5, -1),
    "beta": (2, 0.5, 1e-3),
    "judged_only": (True,),
    "patience": (0.5, 0.95),
    "stop": (0.25, 1.0),
    "group": ("small",),  # a group of INPUTS' item_groups, below
}


def values_of(option: OptionDef[Any]) -> tuple[Any, ...]:
    """Every value of ``option`` other than its default."""
    values = option.choices or SAMPLES[option.name]
    return tuple(v for v in values if v != option.default)


def parameter_of(definition: MetricDef) -> int | float | None:
    """A parameter for a metric: a cut-off of 3, or its example number (a recall level)."""
    if not definition.takes_k:
        return None
    return 3 if definition.param.integer else float(definition.param.example)


CASES = [
    (definition.name, option.name, value)
    for definition in METRICS.values()
    for option in definition.label_options().values()
    for value in values_of(option)
]


def test_every_labelled_option_has_values() -> None:
    # every option a label may name gets a value here: choices, or a sample
    for option in OPTIONS.values():
        if option.labelled:
            assert values_of(option), option.name
    assert {d.name for d in METRICS.values()} == {name for name, _, _ in CASES}


def bound(name: str, option: str, value: Any) -> Metric:
    """The metric as a call with ``option=value`` labels it."""
    metric = Metric(name, parameter_of(METRICS[name]))
    metrics, _ = bind_options([metric], Options(**{option: value}), [option])
    return metrics[0]


@pytest.mark.parametrize("name", list(METRICS))
def test_every_label_round_trips(name: str) -> None:
    """Pure Python, over the whole registry: the label names the option and its value, and
    parse_metric reads it back to the same metric and options."""
    definition = METRICS[name]
    for option in definition.label_options().values():
        for value in values_of(option):
            metric = bound(name, option.name, value)
            label = str(metric)
            assert metric.options == ((option.name, value),), label
            assert label == f"{metric.bare}({option.name}={option.write(value)})"
            parsed = parse_metric(label)
            assert parsed == metric, label
            assert dict(parsed.options)[option.name] == value, label
            assert str(parsed) == label
            assert parse_metrics([label, label.upper()]) == [metric], label
            # the tidy spelling, name(options)@k, reads the same
            if metric.k is not None:
                assert parse_metric(f"{metric.tidy_name}@{metric.k}") == metric


def test_default_options_add_nothing() -> None:
    for definition in METRICS.values():
        metric = Metric(definition.name, parameter_of(definition))
        defaults = {o.name: o.default for o in definition.label_options().values()}
        metrics, _ = bind_options([metric], Options(**defaults), list(defaults))
        assert str(metrics[0]) == str(metric) == metric.bare
        assert "(" not in str(metric)


def test_inputs_are_not_labelled() -> None:
    # catalog, popularity and item_features are data, as the frame: never in a label
    assert labels(
        ["arp@3", "coverage@3", "ild@3"],
        {
            "popularity": POPULARITY,
            "catalog": list("abcdef"),
            "item_features": FEATURES,
        },
    ) == ["arp@3", "coverage@3", "ild@3"]


def test_options_sorted_and_typed() -> None:
    label = "MAP@10( ties = first , min_relevance=2 , denominator=min_k)"
    metric = parse_metric(label)
    assert metric.options == (("denominator", "min_k"), ("min_relevance", 2.0), ("ties", "first"))
    assert isinstance(dict(metric.options)["min_relevance"], float)
    assert str(metric) == "map@10(denominator=min_k,min_relevance=2,ties=first)"
    assert str(parse_metric("ndcg@5(discount=log2(max(rank,2)),gain=exponential)")) == (
        "ndcg@5(discount=log2(max(rank,2)),gain=exponential)"
    )
    assert parse_metric("f1(beta=0.5)@5") == parse_metric("f1@5(beta=0.5)")
    assert dict(parse_metric("bpref(judged_only=true)").options) == {"judged_only": True}
    # commas inside a label's parentheses do not separate metrics
    assert [str(m) for m in parse_metrics("ndcg@5(discount=log2(max(rank,2))), P.1,2")] == [
        "ndcg@5(discount=log2(max(rank,2)))",
        "precision@1",
        "precision@2",
    ]
    # an option's default, written, is no option
    assert parse_metric("ndcg@10(gain=linear,ties=trec)") == parse_metric("ndcg@10")


@pytest.mark.parametrize(
    ("label", "message"),
    [
        ("mrr@5(beta=2)", "mrr does not take the option 'beta' (it changes f1)"),
        ("ndcg@10(gian=exponential)", "unknown option 'gian'. Did you mean 'gain'?"),
        ("ndcg@10(gain=expo)", "The 'gain' option must be one of 'linear', 'exponential'"),
        ("f1@5(beta=-1)", "The 'beta' option must be a positive finite number"),
        ("f1@5(beta=x)", "The 'beta' option must be a positive finite number"),
        ("f1@5(beta)", "'beta' is not an option; write name=value"),
        ("f1@5(beta=2,beta=3)", "names the option 'beta' twice"),
        ("f1@5(beta=2", "unbalanced parentheses"),
        ("f1@5(beta=2)x", "after its options"),
        ("arp@5(popularity=x)", "an input (data, as the frame itself) that labels do not hold"),
        ("map@5(convention=lenskt)", "Did you mean 'lenskit'?"),
        ("ndcg@5(judged_only=yes)", "The 'judged_only' option must be True or False"),
    ],
)
def test_bad_labels(label: str, message: str) -> None:
    with pytest.raises(InvalidOptionError, match=_literal(message)) as error:
        parse_metric(label)
    assert repr(label) in str(error.value)  # the message names the label


def _literal(text: str) -> str:
    import re

    return re.escape(text)


# -- presets ---------------------------------------------------------------------------------


def test_a_preset_is_named_instead_of_its_options() -> None:
    # LensKit's preset sets, among others, ties="first", denominator="min_k",
    # ap_denominator="min_retrieved", empty="nan", empty_list="nan" for map
    got = labels(["map@10", "ndcg@10", "f1@5"], {"convention": "lenskit"})
    assert got == [
        "map@10(convention=lenskit)",
        "ndcg@10(convention=lenskit)",
        "f1@5(convention=lenskit)",
    ]
    preset = rankframe.settings.conventions.CONVENTIONS["lenskit"].options
    parsed = parse_metric(got[0])
    expected = {n: v for n, v in preset.items() if n in METRICS["map"].label_options()}
    assert dict(parsed.options) == expected
    # an option beside the preset is written after it, and wins over the preset's
    assert labels(["f1@5"], {"convention": "lenskit", "beta": 2}) == [
        "f1@5(convention=lenskit,beta=2)"
    ]
    # an option set back to its default is written after the preset, at its default
    overridden = labels(["map@10"], {"convention": "lenskit", "ties": "trec"})[0]
    assert overridden == "map@10(convention=lenskit,ties=trec)"
    assert (
        parse_metric(overridden)
        == bind_options(
            [Metric("map", 10)],
            Options(**{**preset, "ties": "trec"}),
            [*preset, "ties"],
        )[0][0]
    )
    # a preset that changes nothing of a metric adds nothing
    assert labels(["mrr@5"], {"convention": "trec_eval"}) == ["mrr@5"]
    assert labels(["mrr@5"], {"convention": "torchmetrics"}) == ["mrr@5"]
    # the same options given one by one are written one by one
    spelled = labels(["map@10"], dict(preset.items()))[0]
    assert spelled.startswith("map@10(ap_denominator=min_retrieved,")
    assert parse_metric(spelled) == parsed


# -- evaluating a label is evaluating the metric with its options ----------------------------

DATA = pd.DataFrame(
    {
        "query": ["q1"] * 5 + ["q2"] * 5 + ["q3"] * 4 + ["q4"] * 3,
        "item": ["a", "b", "c", "d", "e"] * 2 + ["a", "b", "c", "d"] + ["a", "b", "c"],
        # ties within q1 and q3; q2 has a relevant item it did not retrieve (no score)
        "score": [
            0.9,
            0.5,
            0.5,
            0.2,
            0.1,
            0.8,
            0.7,
            0.6,
            0.5,
            None,
            0.4,
            0.4,
            0.4,
            0.1,
            0.3,
            0.2,
            0.1,
        ],
        # graded, with negative grades; q4 has no relevant item
        "relevant": [0, 2, 1, 3, -1, 1, 0, 0, 2, 3, 1, 0, 2, -2, 0, -1, 0],
        # a judged column: unjudged rows have grade 0
        "judged": [
            True,
            True,
            True,
            True,
            True,
            True,
            False,
            True,
            True,
            True,
            True,
            False,
            True,
            True,
            True,
            True,
            False,
        ],
    }
)
POPULARITY = {"a": 10, "b": 5, "c": 3, "d": 1, "e": 8}
FEATURES = pd.DataFrame(
    {"f1": [1.0, 0.0, 0.5, 0.2, 0.9], "f2": [0.0, 1.0, 0.5, 0.7, 0.1]},
    index=["a", "b", "c", "d", "e"],
)
# the exposure metrics: a column per group ("small", "large"), each labelled with it
GROUPS_OF_ITEMS = {"a": "small", "b": "large", "c": "small", "d": "large", "e": "small"}
INPUTS = {"popularity": POPULARITY, "item_features": FEATURES, "item_groups": GROUPS_OF_ITEMS}
# top1_f1 needs exactly one relevant item per query: its own frame, below
GROUPED = [d for d in METRICS.values() if d.name != "top1_f1"]


def takes(definition: MetricDef, option: str, value: Any) -> bool:
    """Whether a metric is evaluated with ``option=value`` (some refuse a ties order)."""
    if option != "ties":
        return True
    if value == "average":
        return definition.tie_average is not None
    if value == "truncated_average":
        return reads_shared_ranks(definition)
    return True


def outcome(call: Callable[[], Any]) -> Any:
    """A table's values, or the error it raises (type and message)."""
    try:
        return as_pandas(call())
    except RankEvalError as error:
        return type(error), str(error)


GROUPS = sorted({(o, v) for name, o, v in CASES if name != "top1_f1"}, key=repr)


@pytest.mark.parametrize(("option", "value"), GROUPS, ids=[f"{o}={v}" for o, v in GROUPS])
def test_a_label_evaluates_as_its_options(make_frame: FrameMaker, option: str, value: Any) -> None:
    """Every metric that takes ``option``, evaluated with the keyword and as the labels of
    that call with no keyword: the same columns, the same values (or the same error)."""
    ev = make_frame(DATA).rank_eval
    metrics = [
        str(Metric(d.name, parameter_of(d)))
        for d in GROUPED
        if option in d.label_options() and takes(d, option, value)
    ]
    with_keyword = outcome(lambda: ev.evaluate(metrics, **{option: value}, **INPUTS))
    names = labels(metrics, {option: value, **INPUTS})
    assert all(f"{option}=" in n for n in names), names
    from_labels = outcome(lambda: ev.evaluate(names, **INPUTS))
    if isinstance(with_keyword, pd.DataFrame):
        assert list(with_keyword.columns) == [*names, "n_queries"]
        pd.testing.assert_frame_equal(from_labels, with_keyword)
    else:
        assert from_labels == with_keyword
        assert option == "empty"
        assert value == "error"  # q4 has no relevant item


CLASSES = pd.DataFrame(
    {
        "query": [1, 1, 2, 2, 3, 3],
        "item": ["x", "y"] * 3,
        "score": [0.9, 0.1, 0.1, 0.9, 0.2, 0.8],
        "relevant": [2, 0, 2, 1, 0, 2],
    }
)


# query 2 has two relevant items at the default threshold, one from grade 2
@pytest.mark.parametrize(
    "options",
    [
        {"min_relevance": 2},
        {"min_relevance": 2, "class_average": "macro"},
        {"min_relevance": 2, "class_average": "micro"},
        {"min_relevance": 2, "ties": "first", "class_average": "micro"},
    ],
    ids=repr,
)
def test_top1_f1_label_evaluates_as_its_options(
    make_frame: FrameMaker, options: dict[str, Any]
) -> None:
    ev = make_frame(CLASSES).rank_eval
    names = labels(["top1_f1"], options)
    with_keyword = as_pandas(ev.evaluate(["top1_f1"], **options))
    assert list(with_keyword.columns) == [*names, "n_queries"]
    pd.testing.assert_frame_equal(as_pandas(ev.evaluate(names)), with_keyword)


# -- the outputs -----------------------------------------------------------------------------


def test_every_output_names_the_options(make_frame: FrameMaker) -> None:
    ev = make_frame(DATA).rank_eval
    # (the intervals' columns are named after the label too: tests/metrics/test_beyond.py)
    wide = as_pandas(ev.evaluate(["f1@2", "mrr", "ndcg@3"], beta=2, gain="exponential"))
    assert list(wide.columns) == [
        "f1@2(beta=2)",
        "mrr",
        "ndcg@3(gain=exponential)",
        "n_queries",
    ]
    tidy = as_pandas(ev.evaluate(["f1@2", "mrr"], beta=2, tidy=True))
    assert tidy["metric"].tolist() == ["f1(beta=2)", "mrr"]
    per_query = as_pandas(ev.per_query(["f1@2", "map"], ties="first"))
    assert list(per_query.columns) == ["query", "f1@2(ties=first)", "map(ties=first)"]
    two = make_frame(DATA.assign(other=DATA["score"][::-1].to_numpy())).rank_eval(
        score=["score", "other"]
    )
    compared = as_pandas(two.compare(["f1@2"], beta=0.5))
    assert set(compared["metric"]) == {"f1(beta=0.5)"}


def test_beta_2_is_not_labelled_as_f1(make_frame: FrameMaker) -> None:
    """The issue's example: f1@5 with beta=2 and with beta=1 in one table, each under its
    own label. q1 ranks a, (b, c tied: trec order c before b), d, e; relevant: b, c, d
    (R = 3). At k=2 (a, c): P = 1/2, R = 1/3; F1 = 2PR/(P+R) = 0.4 and F2 = 5PR/(4P+R)
    = (5/6)/(7/3) = 5/14."""
    ev = make_frame(DATA[DATA["query"] == "q1"]).rank_eval
    table = as_pandas(ev.evaluate(["f1@2(beta=2)", "f1@2"]))
    assert list(table.columns) == ["f1@2(beta=2)", "f1@2", "n_queries"]
    assert table["f1@2"].iloc[0] == pytest.approx(0.4, abs=1e-12)
    assert table["f1@2(beta=2)"].iloc[0] == pytest.approx(5 / 14, abs=1e-12)
    # and a call's keyword applies to the bare label, not to the one that names beta
    table = as_pandas(ev.evaluate(["f1@2(beta=1)", "f1@2"], beta=2))
    assert list(table.columns) == ["f1@2", "f1@2(beta=2)", "n_queries"]
    assert table["f1@2(beta=2)"].iloc[0] == pytest.approx(5 / 14, abs=1e-12)
    # the metric's method: the Series of a segment is named by the label
    assert as_float(ev.f1(2, beta=2)) == pytest.approx(5 / 14, abs=1e-12)


def test_one_value_per_call_of_the_ranking_options(make_frame: FrameMaker) -> None:
    ev = make_frame(DATA).rank_eval
    # a label's ranking option applies to the call, and labels every metric taking it
    table = as_pandas(ev.evaluate(["map@3(ties=first)", "mrr"]))
    assert list(table.columns) == ["map@3(ties=first)", "mrr(ties=first)", "n_queries"]
    with pytest.raises(InvalidOptionError, match="'ties' is one per call"):
        ev.evaluate(["map@3(ties=first)", "mrr(ties=optimistic)"])
    with pytest.raises(InvalidOptionError, match="the call passes ties='optimistic'"):
        ev.evaluate(["map@3(ties=first)"], ties="optimistic")
    with pytest.raises(InvalidOptionError, match="separate calls"):
        ev.evaluate(["ndcg@3(negative_gains=keep)", "dcg@3(negative_gains=zero)"])
    # the metric-specific options may differ between the metrics of one call
    table = as_pandas(ev.evaluate(["ndcg@3(gain=exponential)", "ndcg@3"]))
    assert list(table.columns) == ["ndcg@3(gain=exponential)", "ndcg@3", "n_queries"]
    assert table["ndcg@3(gain=exponential)"].iloc[0] != table["ndcg@3"].iloc[0]


def test_cli_writes_and_reads_labels(run: Any, tmp_path: Any) -> None:
    path = tmp_path / "d.csv"
    DATA.drop(columns="judged").to_csv(path, index=False)
    code, out, _ = run(
        "evaluate",
        str(path),
        "-m",
        "f1@2,ndcg@3(gain=exponential)",
        "--beta",
        "2",
        "--format",
        "csv",
    )
    assert code == 0
    assert out.splitlines()[0] == "f1@2(beta=2),ndcg@3(gain=exponential),n_queries"
    code, again, _ = run(
        "evaluate",
        str(path),
        "-m",
        "f1@2(beta=2)",
        "-m",
        "ndcg@3(gain=exponential)",
        "--format",
        "csv",
    )
    assert (code, again) == (0, out)
    code, percent, _ = run("evaluate", str(path), "-m", "f1@2", "--beta", "2", "--percent")
    assert code == 0
    assert "%" in percent.splitlines()[-1]


# -- one name per concept: top1_f1's class_average -------------------------------------------


def test_average_is_now_class_average(make_frame: FrameMaker) -> None:
    ev = make_frame(CLASSES).rank_eval
    for call in (
        lambda: ev.top1_f1(average="micro"),
        lambda: ev.evaluate(["top1_f1"], average="micro"),
        lambda: ev.per_query(["mrr"], average="micro"),
    ):
        with pytest.raises(UnknownArgumentError, match="Did you mean 'class_average'"):
            call()
    assert "average" not in OPTIONS
    assert "class_average" in OPTIONS
    assert not hasattr(METRICS["mrr"], "average")
    assert METRICS["mrr"].tie_average is not None
