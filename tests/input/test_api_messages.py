"""Messages of the accessor's API for mistakes in the call (issue 14): a metric list that is
not one, a comma list, a misspelt metric, an unknown keyword, the base class, index levels,
MultiIndex columns; and the settings (``set_option``, ``get_option``, ``option_context``).

Each error is a ``RankEvalError`` (so a ``ValueError``); an unknown keyword raises
``UnknownArgumentError``, which is also a ``TypeError`` as Python's own error for it.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np
import pandas as pd
import pytest

import rankframe
from helpers import as_float, as_pandas, collect
from rankframe import (
    ColumnNotFoundError,
    InvalidDataError,
    InvalidOptionError,
    UnknownArgumentError,
    UnknownMetricError,
)
from rankframe.settings import statistics as settings
from rankframe.stats import corrections


def frame_data() -> dict[str, list[Any]]:
    # q1: the relevant b at rank 2; q2: the relevant a at rank 1 of 2.
    return {
        "query": ["q1", "q1", "q2", "q2"],
        "item": ["a", "b", "a", "b"],
        "score": [0.9, 0.5, 0.8, 0.1],
        "relevant": [0, 1, 1, 0],
    }


def raises(error: type[Exception], *fragments: str) -> Any:
    pattern = "(?s)" + "".join(f"(?=.*{re.escape(f)})" for f in fragments)
    return pytest.raises(error, match=pattern)


# -- metric lists ----------------------------------------------------------------------------


@pytest.mark.parametrize("metrics", [None, 5, 2.5])
@pytest.mark.parametrize("method", ["evaluate", "per_query"])
def test_metrics_that_are_not_a_list(make_frame: Any, method: str, metrics: Any) -> None:
    frame = make_frame(frame_data())
    with raises(UnknownMetricError, f"got {metrics!r}", "'ndcg@10'", "a list of them"):
        getattr(frame.rank_eval, method)(metrics)


def test_comma_list_in_one_string(make_frame: Any) -> None:
    frame = make_frame(frame_data())
    # mrr@5: (1/2 + 1) / 2; precision@1: (0 + 1) / 2
    table = as_pandas(frame.rank_eval.evaluate("mrr@5, precision@1"))
    assert list(table.columns) == ["mrr@5", "precision@1", "n_queries"]
    assert table.iloc[0].tolist() == [0.75, 0.5, 2]
    listed = as_pandas(frame.rank_eval.per_query(["mrr", "P_1,recip_rank"]))
    assert list(listed.columns) == ["query", "mrr", "precision@1"]
    # parse_metric takes one metric and says where a list goes
    with raises(
        UnknownMetricError, "'mrr@5,ndcg@10' names several metrics", "['mrr@5', 'ndcg@10']"
    ):
        rankframe.parse_metric("mrr@5,ndcg@10")


def test_misspelt_metric_suggests_the_closest_only(make_frame: Any) -> None:
    frame = make_frame(frame_data())
    with raises(UnknownMetricError, "Unknown metric 'mmr'. Did you mean 'mrr'? Known"):
        frame.rank_eval.evaluate("mmr")


# -- arguments -------------------------------------------------------------------------------

ARGUMENT_CASES = [
    (
        lambda ev: ev.evaluate(["ndcg@10"], k=10),
        [
            "evaluate() got an unexpected keyword argument 'k'",
            "Put the cut-off in the metric name: 'ndcg@10'",
            "It takes: metrics, by,",
        ],
    ),
    (
        lambda ev: ev.per_query("ndcg", k=10),
        ["per_query() got an unexpected keyword argument 'k'", "'ndcg@10'"],
    ),
    (
        lambda ev: ev(scores="score"),
        [
            "rank_eval() got an unexpected keyword argument 'scores'",
            "Did you mean 'score'?",
            "It takes: query, item, score, relevant",
        ],
    ),
    (
        lambda ev: ev.mrr(5, tie="first"),
        ["mrr() got an unexpected keyword argument 'tie'", "Did you mean 'ties'?"],
    ),
    (
        lambda ev: ev.mrr(gain="exponential"),
        [
            "'gain' changes only ndcg, dcg; mrr does not take it",
            "It takes: k, by, empty_list, min_relevance",
        ],
    ),
    (
        lambda ev: ev.precision(denominator="min_k"),
        ["'denominator' changes only map, recall; precision does not take it"],
    ),
    (lambda ev: ev.evaluate("mrr", tidyy=True), ["Did you mean 'tidy'?"]),
    (lambda ev: ev.compare("mrr", baselin="a"), ["Did you mean 'baseline'?"]),
    (lambda ev: ev.rank(tie="first"), ["rank() got an unexpected keyword", "'ties'"]),
    (
        lambda ev: ev.mrr(5, "theme"),
        [
            "mrr() got 2 positional arguments; it takes only 'k' by position",
            "Pass the others by keyword",
        ],
    ),
    (
        lambda ev: ev.r_precision(5),
        ["r_precision() got 1 positional arguments; it takes none by position"],
    ),
    (lambda ev: ev.mrr(5, k=5), ["mrr(): multiple values for argument 'k'"]),
]


@pytest.mark.parametrize(
    ("call", "fragments"),
    ARGUMENT_CASES,
    ids=[f[0].split("(")[0] + str(i) for i, (_, f) in enumerate(ARGUMENT_CASES)],
)
def test_unknown_argument(make_frame: Any, call: Any, fragments: list[str]) -> None:
    frame = make_frame(frame_data())
    with raises(UnknownArgumentError, *fragments) as info:
        call(frame.rank_eval)
    assert isinstance(info.value, InvalidOptionError)
    assert isinstance(info.value, TypeError)  # as Python's error for an unexpected keyword


def test_a_checked_call_still_works(make_frame: Any) -> None:
    # the argument check passes every accepted spelling through
    frame = make_frame(frame_data())
    ev = frame.rank_eval(query="query", score="score")
    assert as_float(ev.mrr(None, ties="first")) == 0.75
    assert as_float(ev.mrr(k=1)) == 0.5
    assert as_float(ev.r_precision(empty="skip")) == 0.5  # q1: 0 of top 1, q2: 1 of top 1


def test_rank_eval_is_the_accessor_of_every_frame_kind(make_frame: Any) -> None:
    """``rankframe.RankEval(frame)`` is what ``frame.rank_eval`` gives (it holds the frame's
    adapter): reciprocal ranks 1/2 and 1, mean 0.75."""
    frame = make_frame(
        {
            "query": [1, 1, 2, 2],
            "item": ["x", "y", "x", "y"],
            "score": [0.9, 0.1, 0.9, 0.1],
            "relevant": [0, 1, 1, 0],
        }
    )
    native = frame.table if hasattr(frame, "table") else frame  # the arrow kind's table
    assert as_float(rankframe.RankEval(native).mrr()) == 0.75
    assert type(frame.rank_eval) is rankframe.RankEval


def test_rank_eval_of_something_else_names_what_it_takes() -> None:
    with raises(
        TypeError, "takes a pandas, polars or Dask frame, or an Arrow frame", "Got builtins.list"
    ):
        rankframe.RankEval([1, 2, 3])


# -- index levels and MultiIndex columns (pandas only: polars frames have neither) ----------


@pytest.mark.parametrize("levels", [["query", "item"], ["query"], ["item"]])
def test_an_index_level_is_not_a_column(levels: list[str]) -> None:
    frame = pd.DataFrame(frame_data()).set_index(levels)
    missing = next(c for c in ["query", "item"] if c in levels)
    with raises(
        ColumnNotFoundError,
        f"Column {missing!r} ({missing}) is an index level",
        "call reset_index() first",
    ):
        frame.rank_eval.mrr()
    assert frame.reset_index().rank_eval.mrr() == 0.75


def test_multiindex_columns() -> None:
    frame = pd.DataFrame(frame_data())
    frame.columns = pd.MultiIndex.from_tuples([(c, "x") for c in frame.columns])
    with raises(InvalidDataError, "MultiIndex columns", "('query', 'x')", "Flatten them"):
        frame.rank_eval.evaluate("mrr")


def test_polars_frames_have_no_index(make_frame: Any) -> None:
    # the index-level hint is for pandas: a polars frame's missing column is just missing
    frame = make_frame({k: v for k, v in frame_data().items() if k != "query"})
    with raises(ColumnNotFoundError, "Column 'query' (query) not found"):
        collect(frame.rank_eval.mrr())


# -- statistics ------------------------------------------------------------------------------


def test_stats_raise_invalid_option_error() -> None:
    # the statistics' settings are checked once, when their objects are built
    tests = {
        "test": "t-test",
        "correction": "holm",
        "family": "systems",
        "alpha": 0.05,
        "confidence_level": 0.95,
        "n_permutations": 10_000,
        "n_resamples": 1000,
        "seed": 0,
    }
    with raises(
        InvalidOptionError,
        "'method' option",
        "'holm', 'bonferroni', 'fdr_bh', 'none'",
        "Did you mean 'holm'?",
    ):
        corrections.adjust([0.01, 0.02], method="holms")  # type: ignore[arg-type]
    with raises(
        InvalidOptionError,
        "'correction' option",
        "'holm', 'bonferroni', 'fdr_bh', 'none'",
        "Did you mean 'holm'?",
    ):
        settings.Tests(**tests | {"correction": "holms"})
    with raises(InvalidOptionError, "confidence"):
        settings.Intervals(confidence_level=1.5)
    with raises(InvalidOptionError, "confidence"):
        settings.Tests(**tests | {"confidence_level": 1.5})
    with raises(InvalidOptionError, "n_resamples"):
        settings.Intervals(n_resamples="many")  # type: ignore[arg-type]
    with raises(InvalidOptionError, "n_permutations"):
        settings.Tests(**tests | {"n_permutations": "many"})


def test_compare_checks_the_declared_choices(make_frame: Any) -> None:
    data = frame_data() | {"other": [0.1, 0.9, 0.8, 0.1]}
    ev = make_frame(data).rank_eval(score=["score", "other"])
    with raises(InvalidOptionError, "'test' option", "'t-test', 'permutation', 'wilcoxon'"):
        ev.compare("mrr", test="ttest")
    with raises(InvalidOptionError, "'correction' option", "Did you mean 'bonferroni'?"):
        ev.compare("mrr", correction="bonferoni")


# -- settings --------------------------------------------------------------------------------


def test_settings_defaults_set_and_reset() -> None:
    assert rankframe.get_option("rows_per_part") == 12_500_000
    assert rankframe.get_option("query_buckets") is None
    try:
        rankframe.set_option("rows_per_part", 1_000)
        rankframe.set_option("query_buckets", np.int64(3))
        assert rankframe.get_option("rows_per_part") == 1_000
        assert rankframe.get_option("query_buckets") == 3
    finally:
        rankframe.reset_option("rows_per_part")
        rankframe.reset_option("query_buckets")
    assert rankframe.get_option("rows_per_part") == 12_500_000
    assert rankframe.get_option("query_buckets") is None


def test_option_context_restores_on_exit_and_on_error() -> None:
    with rankframe.option_context("rows_per_part", 10, "query_buckets", 2):
        assert rankframe.get_option("rows_per_part") == 10
        assert rankframe.get_option("query_buckets") == 2
        with rankframe.option_context("query_buckets", None):
            assert rankframe.get_option("query_buckets") is None
        assert rankframe.get_option("query_buckets") == 2
    assert rankframe.get_option("rows_per_part") == 12_500_000
    assert rankframe.get_option("query_buckets") is None
    with pytest.raises(KeyError), rankframe.option_context("rows_per_part", 7):
        raise KeyError
    assert rankframe.get_option("rows_per_part") == 12_500_000


def test_settings_are_seen_by_other_threads() -> None:
    # polars and Dask run a plan's parts in worker threads: they must see the value
    seen: list[Any] = []
    with rankframe.option_context("rows_per_part", 123):
        worker = threading.Thread(target=lambda: seen.append(rankframe.get_option("rows_per_part")))
        worker.start()
        worker.join()
    assert seen == [123]


@pytest.mark.parametrize(
    ("call", "fragments"),
    [
        (
            lambda: rankframe.get_option("rows_per_parts"),
            [
                "Unknown option 'rows_per_parts'. Did you mean 'rows_per_part'?",
                "'rows_per_part', 'query_buckets'",
            ],
        ),
        (lambda: rankframe.set_option("query_bucket", 2), ["Did you mean 'query_buckets'?"]),
        (lambda: rankframe.reset_option("ties"), ["Unknown option 'ties'"]),
        (
            lambda: rankframe.set_option("rows_per_part", 0),
            ["'rows_per_part' must be a positive integer. Got 0 instead."],
        ),
        (lambda: rankframe.set_option("rows_per_part", None), ["Got None instead"]),
        (lambda: rankframe.set_option("rows_per_part", 2.5), ["Got 2.5 instead"]),
        (lambda: rankframe.set_option("rows_per_part", True), ["Got True instead"]),
        (
            lambda: rankframe.set_option("query_buckets", -1),
            ["'query_buckets' must be a positive integer or None. Got -1 instead."],
        ),
        (
            lambda: rankframe.option_context("rows_per_part").__enter__(),
            ["pairs of a name and a value", "got 1 arguments"],
        ),
        (
            lambda: rankframe.option_context("rows_per_part", 5, "query_buckets", 0).__enter__(),
            ["'query_buckets' must be a positive integer or None"],
        ),
    ],
)
def test_settings_errors(call: Any, fragments: list[str]) -> None:
    with raises(InvalidOptionError, *fragments):
        call()
    assert rankframe.get_option("rows_per_part") == 12_500_000  # nothing was set
    assert rankframe.get_option("query_buckets") is None


def test_keywords_a_message_names_are_parts_of_it(make_frame: Any) -> None:
    # the command line says ties='average' as --ties average by reading these parts, never
    # the text; they survive pickling (an error raised on a worker)
    import pickle

    from rankframe.exceptions import Keyword, OptionName

    frame = make_frame(
        {"query": ["q1", "q1"], "item": ["a", "b"], "score": [0.5, 0.5], "relevant": [1, 0]}
    )
    with pytest.raises(rankframe.InvalidOptionError) as info:
        collect(frame.rank_eval.evaluate(["bpref"], ties="average"))
    for error in (info.value, pickle.loads(pickle.dumps(info.value))):
        assert error.parts[0] == Keyword("ties", "average")
        assert OptionName("ties") in error.parts
        assert str(error).startswith("ties='average' (the expected value")
        assert "pass another ties option" in str(error)
