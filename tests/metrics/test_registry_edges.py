"""The registry drives every edge it owns: the options, the metric methods, the docs table.

Each option is declared once (``rankframe.settings.options``); ``Options``, the accessor's generated
metric methods (their signatures and docstrings) and the tables of ``docs/metrics.md`` must
agree with the declarations. Adding a metric to the registry adds its method.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

import rankframe
import rankframe.metrics.trec
from helpers import DOCS, as_float, as_pandas
from rankframe import METRICS, MetricDef, Options, RankEval
from rankframe.metrics.registry import register, unregister
from rankframe.metrics.trec_tables import TREC_EVAL_ORDER
from rankframe.settings.options import COMMON, CORRECTION, OPTIONS, TEST, options_of

# -- Options and the declarations ------------------------------------------------------------


def test_options_fields_are_the_declarations() -> None:
    fields = dataclasses.fields(Options)
    assert [f.name for f in fields] == list(OPTIONS)
    assert {f.name: f.default for f in fields} == {n: o.default for n, o in OPTIONS.items()}
    assert Options() == Options(**{n: o.default for n, o in OPTIONS.items()})
    for name, option in OPTIONS.items():
        assert name in (Options.__doc__ or ""), f"Options' docstring does not describe {name}"
        for choice in option.choices:  # every choice is accepted ...
            Options(**{name: choice})
    with pytest.raises(rankframe.InvalidOptionError, match="Did you mean 'min_k'"):
        Options(denominator="min-k")  # ... and nothing else


def test_table_methods_take_the_declared_defaults() -> None:
    # per_query, evaluate and compare are written by hand; their option keywords must carry
    # the declared defaults (the CLI and the docs read the declarations).
    for method in ("per_query", "evaluate", "compare"):
        parameters = inspect.signature(getattr(RankEval, method)).parameters
        for name, option in OPTIONS.items():
            assert parameters[name].default == option.default, (method, name)
            assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY, (method, name)
    parameters = inspect.signature(RankEval.compare).parameters
    assert parameters["test"].default == TEST.default
    assert parameters["correction"].default == CORRECTION.default
    assert TEST.choices == ("t-test", "permutation", "wilcoxon")
    assert CORRECTION.choices == ("holm", "bonferroni", "fdr_bh", "none")


# -- the metric methods ----------------------------------------------------------------------


@pytest.mark.parametrize("name", list(METRICS))
def test_metric_method_is_built_from_its_declaration(name: str) -> None:
    definition = METRICS[name]
    method = getattr(RankEval, name)
    parameters = inspect.signature(method).parameters
    expected = [
        "self",
        *(["k"] if definition.takes_k else []),
        "by",
        *definition.options,
        *COMMON,
        "every",
        "convention",
    ]
    assert list(parameters) == expected
    for option in definition.parameters():
        assert parameters[option.name].default == option.default
        assert parameters[option.name].kind is inspect.Parameter.KEYWORD_ONLY
    if definition.takes_k:
        assert parameters["k"].default is None
    # the bound method of an accessor drops `self`, as help() shows it
    frame = pd.DataFrame({"query": [1], "item": [1], "score": [1.0], "relevant": [1]})
    assert list(inspect.signature(getattr(frame.rank_eval, name)).parameters) == expected[1:]
    doc = inspect.getdoc(method) or ""
    assert doc.startswith(inspect.cleandoc(definition.doc).splitlines()[0])
    sections = ["Parameters\n----------", "Returns\n-------", "Examples\n--------"]
    assert all(section in doc for section in sections), name
    for option in definition.parameters():
        assert f"\n{option.name}\n    " in doc, (name, option.name)
    assert f"df.rank_eval.{name}(" in doc, "the example calls the method"


def test_every_metric_option_is_declared_once() -> None:
    for definition in METRICS.values():
        for name, option in definition.options.items():
            assert OPTIONS[name] is option, (definition.name, name)


@pytest.fixture
def toy_metric() -> Iterator[MetricDef]:
    """A metric added to the registry for one test: 1 / k for a query with a relevant item
    in the top k, 0 otherwise (so its mean is acc@k / k)."""
    import numpy as np

    def compute(lists: Any, k: int | None, _: Options) -> Any:
        cut = 1 if k is None else k
        return (lists.hits_at(cut) > 0).astype(np.float64) / cut

    definition = MetricDef(
        name="toy_hit",
        aliases=("toy",),
        trec_name=None,
        trec_cut=None,
        takes_k=True,
        options=options_of(OPTIONS["denominator"]),
        compute=compute,
        summary="a test metric",
        doc="Toy: 1/k if a relevant item is in the top k.",
        examples="""
        >>> 1 + 1
        2
        """,
    )
    register(definition)
    yield definition
    unregister("toy_hit")
    delattr(RankEval, "toy_hit")


@pytest.mark.usefixtures("toy_metric")
def test_a_new_metric_gets_its_method(make_frame: Any) -> None:
    # q1's first relevant item is at rank 2, q2's at rank 1
    frame = make_frame(
        {
            "query": ["q1", "q1", "q2", "q2"],
            "item": ["a", "b", "a", "b"],
            "score": [0.9, 0.5, 0.9, 0.5],
            "relevant": [0, 1, 1, 0],
        }
    )
    ev = frame.rank_eval
    assert as_float(ev.toy_hit(2)) == pytest.approx((1 / 2 + 1 / 2) / 2)
    assert as_float(ev.toy_hit(k=1, denominator="min_k")) == pytest.approx(0.5)
    table = as_pandas(ev.evaluate("toy@1, acc@1"))
    assert table["toy_hit@1"].iloc[0] == pytest.approx(0.5)
    signature = inspect.signature(RankEval.toy_hit)
    assert list(signature.parameters) == [
        "self",
        "k",
        "by",
        "denominator",
        *COMMON,
        "every",
        "convention",
    ]
    with pytest.raises(rankframe.UnknownArgumentError, match="'gain' changes only ndcg"):
        ev.toy_hit(1, gain="linear")


def test_a_trec_eval_measure_is_one_declaration_in_its_family() -> None:
    """Each module of ``rankframe.metrics.trec`` that declares measures (``DEFINITIONS``) is
    registered as declared, with no other list to extend: the registry holds every one of
    them, in the order trec_eval prints them (``TREC_EVAL_ORDER``)."""
    families = [
        importlib.import_module(f"rankframe.metrics.trec.{module.name}")
        for module in pkgutil.iter_modules(rankframe.metrics.trec.__path__)
    ]
    declared = [d for family in families for d in getattr(family, "DEFINITIONS", ())]
    assert len(declared) >= 20
    assert all(METRICS[d.name] is d for d in declared)
    registered = [d for d in METRICS.values() if any(d is other for other in declared)]
    positions = [TREC_EVAL_ORDER.index(d.trec_name or d.trec_cut) for d in registered]
    assert positions == sorted(positions)


@pytest.mark.usefixtures("toy_metric")
def test_a_metric_without_a_tie_average_refuses_it(make_frame: Any) -> None:
    # toy_hit declares no `average`: ties="average" names it and the choices that work,
    # before any data is read, on every frame kind and in every method
    ev = make_frame(
        {"query": ["q", "q"], "item": ["a", "b"], "score": 1.0, "relevant": [1, 0]}
    ).rank_eval
    # the metrics whose declaration has a tie-averaged form, in the registry's order
    averaged = ", ".join(name for name, d in METRICS.items() if d.tie_average is not None)
    message = (
        "ties='average' (the expected value over the orders of tied items) is not defined "
        f"for 'toy_hit@2'. It is defined for {averaged}; for this pass another "
        "ties option ('trec', 'first', 'optimistic', 'pessimistic', 'item_ascending', "
        "'truncated_average'), or evaluate it in a separate call."
    )
    assert "mrr, ndcg" in averaged
    assert "toy_hit" not in averaged
    for call in (
        lambda: ev.toy_hit(2, ties="average"),
        lambda: ev.evaluate(["mrr", "toy@2"], ties="average"),
        lambda: ev.per_query(["toy@2"], ties="average"),
    ):
        with pytest.raises(rankframe.InvalidOptionError) as caught:
            call()
        assert str(caught.value) == message
    assert as_float(ev.mrr(ties="average")) == pytest.approx(0.75)  # (1 + 1/2) / 2


@pytest.fixture
def rated_metric(toy_metric: MetricDef) -> Iterator[MetricDef]:
    """``toy_hit`` declared again, as ``toy_rated``, counting a query without a relevant
    item but with a negative grade (``counts_rated``) when ``empty_ndcg`` says so."""
    definition = dataclasses.replace(
        toy_metric,
        name="toy_rated",
        aliases=(),
        counts_rated=("empty_ndcg", "no_relevant_or_negative"),
    )
    register(definition)
    yield definition
    unregister("toy_rated")
    delattr(RankEval, "toy_rated")


def test_a_metric_declares_which_empty_queries_it_counts(
    make_frame: Any, rated_metric: MetricDef
) -> None:
    # q1: its relevant item at rank 2 (toy@2 = 1/2, rr = 1/2); q2: no relevant item, a
    # rated one (grade -1): toy@2 = 0 there. Under empty="skip" the metric that declares
    # counts_rated keeps q2 when its option says so (mean 1/4), the others leave it out.
    frame = make_frame(
        {
            "query": ["q1", "q1", "q2", "q2"],
            "item": ["a", "b", "a", "b"],
            "score": [0.9, 0.5, 0.9, 0.5],
            "relevant": [0, 1, 0, -1],
        }
    )
    ev = frame.rank_eval

    def by_metric(table: Any) -> Any:  # labels name empty=: columns by metric name
        return table.rename(columns=lambda c: c.split("(")[0])

    counted = by_metric(
        as_pandas(
            ev.evaluate(
                ["toy_rated@2", "toy@2", "mrr"], empty="skip", empty_ndcg="no_relevant_or_negative"
            )
        )
    )
    assert counted["toy_rated@2"].iloc[0] == pytest.approx(1 / 4)
    assert counted["toy_hit@2"].iloc[0] == pytest.approx(1 / 2)  # declares nothing
    assert counted["mrr"].iloc[0] == pytest.approx(1 / 2)
    rows = by_metric(
        as_pandas(
            ev.per_query(["toy_rated@2", "mrr"], empty="nan", empty_ndcg="no_relevant_or_negative")
        )
    )
    rows = rows.set_index("query")
    assert rows.loc["q2", "toy_rated@2"] == 0.0
    assert pd.isna(rows.loc["q2", "mrr"])
    # its option at the default: q2 is left out of every metric, as without the field
    alone = by_metric(as_pandas(ev.evaluate(["toy_rated@2", "mrr"], empty="skip")))
    assert alone["toy_rated@2"].iloc[0] == pytest.approx(1 / 2)
    assert rated_metric.counts_rated is not None
    assert METRICS["ndcg"].counts_rated is not None  # ndcg and dcg declare it
    assert [n for n, d in METRICS.items() if d.counts_rated] == ["ndcg", "dcg", "toy_rated"]


def test_a_metric_cannot_shadow_a_method() -> None:
    definition = MetricDef(
        name="rank",
        aliases=(),
        trec_name=None,
        trec_cut=None,
        takes_k=False,
        options=options_of(),
        compute=METRICS["mrr"].compute,
    )
    with pytest.raises(ValueError, match="already has a method 'rank'"):
        register(definition)
    assert "rank" not in METRICS
    with pytest.raises(rankframe.UnknownMetricError):  # no spelling of it either
        rankframe.parse_metric("rank")


def test_a_sum_over_queries_must_be_declared_unbounded() -> None:
    definition = MetricDef(
        name="toy_count",
        aliases=(),
        trec_name=None,
        trec_cut=None,
        takes_k=False,
        options=options_of(),
        compute=METRICS["num_ret"].compute,
        aggregate="sum",
    )
    with pytest.raises(
        ValueError, match="toy_count: a sum over queries is not bounded by 1; declare bounded=False"
    ):
        register(definition)
    assert "toy_count" not in METRICS
    with pytest.raises(rankframe.UnknownMetricError):  # no spelling of it either
        rankframe.parse_metric("toy_count")


# -- docs/metrics.md -------------------------------------------------------------------------


def _backticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def _table(markdown: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with ``header``."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _trec_names(definition: MetricDef) -> list[str]:
    names = [definition.trec_name] if definition.trec_name else []
    return names + ([f"{definition.trec_cut}_k"] if definition.trec_cut else [])


def test_docs_names_table_is_the_registry() -> None:
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    rows = _table(text, "| canonical |")
    assert [_backticked(r[0]) for r in rows] == [[name] for name in METRICS]
    for cells in rows:
        definition = METRICS[_backticked(cells[0])[0]]
        name = definition.name
        assert _backticked(cells[1]) == list(definition.spellings()[1:]), name
        assert cells[2] == ("yes" if definition.takes_k else "no"), name
        assert _backticked(cells[3]) == list(definition.options), name
        trec = _backticked(cells[4])
        assert trec[: len(_trec_names(definition))] == _trec_names(definition), name
        assert cells[5] == ("yes" if definition.depends_on_relevant else "no"), name


def test_docs_metric_sections_list_the_spellings_and_options() -> None:
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    for name, definition in METRICS.items():
        section = text.split(f"## `{name}`:", 1)[1].split("\n## ", 1)[0]
        spellings = re.search(r"^- Spellings: (.*)$", section, re.MULTILINE)
        options = re.search(r"^- Options: (.*)$", section, re.MULTILINE)
        assert spellings, name
        assert options, name
        listed = _backticked(re.split(r"\(|\. Takes", spellings[1])[0])
        assert listed == list(definition.spellings()), name
        assert _backticked(options[1]) == [o.name for o in definition.parameters()], name


def test_docs_options_table_is_the_declarations() -> None:
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    rows = {_backticked(r[0])[0]: r for r in _table(text, "| option | default |")}
    assert list(rows) == list(OPTIONS)
    for name, option in OPTIONS.items():
        assert _backticked(rows[name][1])[0] == repr(option.default).replace("'", '"'), name
        if option.choices:
            assert _backticked(rows[name][2]) == [f'"{c}"' for c in option.choices], name
