"""Every measure of trec_eval's ``-m all_trec``: against trec_eval's own test outputs, per
query and for all queries, on every frame kind (and with the query ids encoded in two
threads); trec_eval's default output (``official``); unjudged rows; trec_eval's parameters
as metric strings; the aggregations (sums, geometric means).

``out.test.aq`` is ``trec_eval -m all_trec -q qrels.test results.test``, ``out.test.aql`` the
same with ``-l2`` on the graded ``qrels.rel_level``, ``out.test.aqc`` is ``-c`` on the
truncated run, and ``out.test`` is ``trec_eval qrels.test results.test``.

The outputs are trec_eval's (../shared/conformance/trec_eval, see its README); the small
examples are computed by hand from trec_eval's definitions (its ``m_*.c``), written out in
each test.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

import helpers
import rankframe
import rankframe.engine.encoding
from helpers import CONFORMANCE, as_float, unlabelled
from rankframe import InvalidDataError, InvalidOptionError, UnknownMetricError
from rankframe.metrics.registry import METRICS, Metric, parse_metric, parse_metrics, trec_label


# Tables are read without the options their labels name (``map(ties=first)`` as ``map``):
# the values are compared by metric; tests/metrics/test_labels.py tests the labels.
def as_pandas(result: Any) -> pd.DataFrame:
    return unlabelled(result)


def as_dict(result: Any, key: str = "query") -> dict[Any, dict[str, float]]:
    return helpers.as_dict(unlabelled(result), key)


CASES = {
    # output file: (qrels, run, options of join_trec, options of rankframe)
    "out.test.aq": ("qrels.test", "results.test", {}, {}),
    "out.test.aql": ("qrels.rel_level", "results.test", {}, {"min_relevance": 2}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"complete": True}, {}),
}


def _printed(path: Any) -> dict[tuple[str, str], str]:
    """{(measure, query or 'all'): value as printed} of a trec_eval output file."""
    table = {}
    for line in path.read_text().splitlines():
        measure, query, value = line.split()
        table[measure, query] = value
    return table


@pytest.fixture(scope="module")
def joined() -> dict[str, pd.DataFrame]:
    return {
        name: rankframe.join_trec(
            rankframe.read_trec_run(CONFORMANCE / run),
            rankframe.read_trec_qrels(CONFORMANCE / qrels),
            **join_options,
        )
        for name, (qrels, run, join_options, _) in CASES.items()
    }


@pytest.mark.parametrize("output", list(CASES))
def test_all_trec_matches_trec_eval(output: str, joined, make_frame) -> None:
    _check_all_trec(output, joined, make_frame)


@pytest.mark.parametrize("output", ["out.test.aq", "out.test.aqc"])
def test_two_thread_encoding_matches_trec_eval(
    output: str, joined, make_frame, monkeypatch: pytest.MonkeyPatch
) -> None:
    # large frames encode their query ids in two threads (two dictionaries, merged): force
    # that path on trec_eval's small test data
    monkeypatch.setattr(rankframe.engine.encoding.halves, "THREAD_VALUES", 2)
    _check_all_trec(output, joined, make_frame)


def _check_all_trec(output: str, joined: dict[str, pd.DataFrame], make_frame: Any) -> None:
    # every measure of -m all_trec but relstring (a string per query, printed by the CLI),
    # every query and `all`, on every frame kind, from the frame join_trec gives
    expected = _printed(CONFORMANCE / output)
    options = CASES[output][3]
    metrics = parse_metrics("all_trec")
    frame = make_frame(joined[output]).rank_eval
    per_query = as_dict(frame.per_query(metrics, **options))
    means = as_pandas(frame.evaluate(metrics, **options)).iloc[0]
    queries = sorted({q for _, q in expected if q != "all"})
    mismatches, compared = [], 0
    for metric in metrics:
        label = trec_label(metric)
        assert label is not None, metric
        for query in [*queries, "all"]:
            printed = expected.get((label, query))
            if printed is None:  # gm_map and gm_bpref are printed only for all
                assert query != "all", label
                assert label.startswith("gm_"), (label, query)
                continue
            ours = means[str(metric)] if query == "all" else per_query[query][str(metric)]
            text = f"{ours:.4f}" if "." in printed else f"{round(ours)}"
            compared += 1
            if text != printed:
                mismatches.append(f"{label} {query}: trec_eval {printed}, rankframe {ours!r}")
    assert not mismatches, "\n".join(mismatches)
    printed_measures = {m for m, _ in expected} - {"runid", "num_q", "relstring", "relstring_20"}
    assert {trec_label(m) for m in metrics} == printed_measures
    assert compared == len(metrics) * 4 - 2 * 3  # gm_* per query are not printed


def test_official_matches_trec_eval(joined, make_frame) -> None:
    # trec_eval's default output (-m official, no -q): the `all` value of each measure, on
    # the inputs of out.test.aq (qrels.test, results.test, no option)
    expected = _printed(CONFORMANCE / "out.test")
    metrics = parse_metrics("official")
    means = as_pandas(make_frame(joined["out.test.aq"]).rank_eval.evaluate(metrics)).iloc[0]
    mismatches = []
    for metric in metrics:
        label = trec_label(metric)
        printed = expected[label, "all"]
        ours = means[str(metric)]
        text = f"{ours:.4f}" if "." in printed else f"{round(ours)}"
        if text != printed:
            mismatches.append(f"{label} all: trec_eval {printed}, rankframe {ours!r}")
    assert not mismatches, "\n".join(mismatches)
    assert {trec_label(m) for m in metrics} == {m for m, _ in expected} - {"runid", "num_q"}


def test_queries_evaluated_as_trec_eval(joined) -> None:
    # num_q of trec_eval: 3 queries in each case (302 counts 0 under -c)
    for name in ("out.test.aq", "out.test.aqc", "out.test.aql"):
        table = as_pandas(joined[name].rank_eval.evaluate(["map"]))
        assert table["n_queries"].iloc[0] == 3, name


def test_all_trec_is_trec_eval_s_order() -> None:
    lines = (CONFORMANCE / "out.test.aq").read_text().splitlines()
    order = list(dict.fromkeys(line.split()[0] for line in lines if "\tall\t" in line))
    order.remove("runid")
    order.remove("num_q")
    assert [trec_label(m) for m in parse_metrics("all_trec")] == order
    official = [line.split()[0] for line in (CONFORMANCE / "out.test").read_text().splitlines()][2:]
    assert [trec_label(m) for m in parse_metrics("official")] == official


# -- unjudged rows ---------------------------------------------------------------------------

# One query, ranked a..f by score; g and h judged, not retrieved.
#   a rel | b unjudged | c judged non-rel | d rel | e grade -1 (pool, unjudged) | f rel
# R = 4 (a, d, f, h); judged non-relevant J = 2 (c, g); N = 6; relevant retrieved 3.
UNJUDGED = {
    "query": "q",
    "item": list("abcdefgh"),
    "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0, None, None],
    "relevant": [1, 0, 0, 1, -1, 1, 0, 1],
    "judged": [True, False, True, True, True, True, True, True],
}
EPS = 1e-5
BY_HAND = {
    # a: no judged non-relevant above → 1; d and f: one (c) above → 1 - 1/min(2, 4)
    "bpref": (1 + 0.5 + 0.5) / 4,
    "gm_bpref": (1 + 0.5 + 0.5) / 4,
    # a: 1; d (r=4, h=2, n=1, u=0); f (r=6, h=3, n=1, u=1: e)
    "infap": (
        1
        + (1 / 4 + (3 / 4) * (2 / 3) * ((1 + EPS) / (2 + 2 * EPS)))
        + (1 / 6 + (5 / 6) * (4 / 5) * ((2 + EPS) / (3 + 2 * EPS)))
    )
    / 4,
    "unjudged@2": 1 / 2,  # b
    "unjudged@5": 2 / 5,  # b, e
    "unjudged@10": 2 / 10,
    "unjudged": 2 / 6,
    "num_nonrel_judged_ret": 1.0,  # c
    "rbp_resid": 0.9**6 + 0.1 * (0.9**1 + 0.9**4),
    # every other metric reads b as grade 0
    "rbp": 0.1 * (1 + 0.9**3 + 0.9**5),
    "map": (1 / 1 + 2 / 4 + 3 / 6) / 4,
    "precision@2": 0.5,
    "num_ret": 6.0,
    "num_rel": 4.0,
}


def test_unjudged_rows_by_hand(make_frame) -> None:
    frame = make_frame(UNJUDGED).rank_eval
    table = as_pandas(frame.evaluate(list(BY_HAND)))
    for name, value in BY_HAND.items():
        assert table[name].iloc[0] == pytest.approx(value, rel=1e-12), name


def test_mostly_unjudged(make_frame) -> None:
    # a judged, b c d not: rbp_resid sums over the judged rows' complement
    frame = make_frame(
        {
            "query": "q",
            "item": list("abcd"),
            "score": [4.0, 3.0, 2.0, 1.0],
            "relevant": [1, 0, 0, 0],
            "judged": [True, False, False, False],
        }
    )
    table = as_pandas(frame.rank_eval.evaluate(["rbp_resid", "unj_3", "bpref", "infAP"]))
    assert table["rbp_resid"].iloc[0] == pytest.approx(0.9**4 + 0.1 * (0.9 + 0.9**2 + 0.9**3))
    assert table["unjudged@3"].iloc[0] == pytest.approx(2 / 3)
    assert table["bpref"].iloc[0] == 1.0
    assert table["infap"].iloc[0] == 1.0


def test_null_grades_read_as_unjudged_on_request(make_frame) -> None:
    data = pd.DataFrame(UNJUDGED).drop(columns="judged").astype({"relevant": "float64"})
    data.loc[1, "relevant"] = np.nan  # b: no grade
    frame = make_frame(data).rank_eval
    table = as_pandas(frame.evaluate(list(BY_HAND), unjudged="nonrelevant"))
    for name, value in BY_HAND.items():
        assert table[name].iloc[0] == pytest.approx(value, rel=1e-12), name
    assert as_float(frame.bpref(unjudged="nonrelevant")) == pytest.approx(0.5)
    with pytest.raises(InvalidDataError, match=r"unjudged='nonrelevant'.*'judged' column"):
        as_float(frame.map())


def test_every_row_judged_without_flags(make_frame) -> None:
    # without the judged column, b is a judged non-relevant row: J = 3 (b, c, g), and above
    # d and f are b and c (e, of grade -1, is skipped)
    data = pd.DataFrame(UNJUDGED).drop(columns="judged")
    frame = make_frame(data).rank_eval
    assert as_float(frame.bpref()) == pytest.approx((1 + (1 - 2 / 3) + (1 - 2 / 3)) / 4)
    assert as_float(frame.unjudged(5)) == pytest.approx(1 / 5)  # e only (grade -1)
    assert as_float(frame.map()) == pytest.approx(BY_HAND["map"])


def test_judged_only_removes_unjudged_rows(make_frame) -> None:
    # b and e leave the ranking: a, c, d, f
    frame = make_frame(UNJUDGED).rank_eval
    table = as_pandas(frame.evaluate(["map", "P_2", "num_ret", "unj_5"], judged_only=True))
    assert table["map"].iloc[0] == pytest.approx((1 + 2 / 3 + 3 / 4) / 4)
    assert table["precision@2"].iloc[0] == pytest.approx(0.5)
    assert table["num_ret"].iloc[0] == 4
    assert table["unjudged@5"].iloc[0] == 0


def test_a_named_judged_column(make_frame) -> None:
    data = pd.DataFrame(UNJUDGED).rename(columns={"judged": "in_pool"})
    frame = make_frame(data)
    assert as_float(frame.rank_eval.bpref()) != pytest.approx(BY_HAND["bpref"])
    assert as_float(frame.rank_eval(judged="in_pool").bpref()) == pytest.approx(BY_HAND["bpref"])
    with pytest.raises(rankframe.ColumnNotFoundError, match=r"'pool' \(judged\) not found"):
        frame.rank_eval(judged="pool").bpref()


def test_unjudged_rows_with_a_grade_are_an_error(make_frame) -> None:
    data = pd.DataFrame(UNJUDGED)
    data.loc[1, "relevant"] = 2
    frame = make_frame(data).rank_eval
    with pytest.raises(
        InvalidDataError,
        match=r"1 row\(s\) are unjudged \(column 'judged' is "
        r"False\) but have a grade, first item 'b' \(column 'item'\) of query "
        r"'q' with grade 2",
    ):
        as_float(frame.bpref())


def test_judged_column_must_be_boolean(make_frame) -> None:
    data = pd.DataFrame(UNJUDGED).assign(judged=[1, 0, 1, 1, 1, 1, 1, 1])
    with pytest.raises(InvalidDataError, match=r"Column 'judged' \(judged\) must be boolean"):
        as_float(make_frame(data).rank_eval.bpref())


def test_unjudged_option_is_checked() -> None:
    frame = pd.DataFrame(UNJUDGED)
    with pytest.raises(InvalidOptionError, match="Did you mean 'nonrelevant'"):
        frame.rank_eval.bpref(unjudged="non-relevant")
    with pytest.raises(InvalidOptionError, match="'judged_only' option must be True or False"):
        frame.rank_eval.evaluate("map", judged_only="yes")


def test_join_trec_marks_unjudged_rows(joined) -> None:
    frame = joined["out.test.aq"]
    qrels = rankframe.read_trec_qrels(CONFORMANCE / "qrels.test")
    assert frame["judged"].dtype == bool
    assert int(frame["judged"].sum()) == len(qrels)  # every qrels row of queries run
    assert (frame.loc[~frame["judged"], "relevant"] == 0).all()


# -- trec_eval's parameters as metric strings -------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("P.1,3,5", ["precision@1", "precision@3", "precision@5"]),
        ("ndcg_cut.5,10", ["ndcg@5", "ndcg@10"]),
        ("Rprec_mult.0.5", ["rprec_mult@0.5"]),
        ("success.1,5,10", ["acc@1", "acc@5", "acc@10"]),
        ("iprec_at_recall", [f"iprec@{i / 10!r}" for i in range(11)]),
        ("Rprec_mult", [f"rprec_mult@{i / 10!r}" for i in range(2, 21, 2)]),
        ("iprec_at_recall_0.10, P.5,10, map", ["iprec@0.1", "precision@5", "precision@10", "map"]),
        ("set_P, set_recall, set_relative_P", ["precision", "recall", "relative_precision"]),
        ("P", ["precision"]),
        ("unj_5, unj", ["unjudged@5", "unjudged"]),
    ],
)
def test_trec_eval_parameters_expand(spec: str, expected: list[str]) -> None:
    assert [str(m) for m in parse_metrics(spec)] == expected


def test_trec_mode_gives_trec_eval_s_defaults() -> None:
    assert [trec_label(m) for m in parse_metrics(["P", "success", "map"], trec=True)] == [
        "P_5",
        "P_10",
        "P_15",
        "P_20",
        "P_30",
        "P_100",
        "P_200",
        "P_500",
        "P_1000",
        "success_1",
        "success_5",
        "success_10",
        "map",
    ]
    assert [trec_label(m) for m in parse_metrics("unj", trec=True)] == ["unj_5", "unj_10", "unj_20"]


def test_parameter_lists_in_the_accessor(make_frame) -> None:
    frame = make_frame(UNJUDGED).rank_eval
    table = as_pandas(frame.evaluate("P.1,3,5"))
    assert list(table.columns) == ["precision@1", "precision@3", "precision@5", "n_queries"]
    assert table.iloc[0, :3].tolist() == pytest.approx([1.0, 1 / 3, 2 / 5])
    tidy = as_pandas(frame.evaluate(["iprec_at_recall_0.50", "P_5"], tidy=True))
    assert tidy["k"].tolist() == [0.5, 5.0]
    # iprec@0.5: c = round(0.5 * 4) = 2, the second relevant row is d at rank 4; P@6 = 3/6
    assert tidy["value"].tolist() == pytest.approx([0.5, 2 / 5])


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("P.5,x", UnknownMetricError, r"Unknown metric 'x'"),
        ("P.x", InvalidOptionError, r"cut-off in metric 'P.x' must be a positive integer"),
        ("P.5,0", InvalidOptionError, r"'k' parameter of precision must be a positive integer"),
        (
            "iprec_at_recall_1.5",
            InvalidOptionError,
            r"'k' parameter of iprec must be a number from 0 to 1",
        ),
        (
            "Rprec_mult.x",
            InvalidOptionError,
            r"multiple of R in metric 'Rprec_mult.x' must be a "
            r"positive number, as in 'rprec_mult@0.2'",
        ),
        ("bpref.5", InvalidOptionError, "bpref takes no cut-off"),
        ("set_P_5", UnknownMetricError, "Unknown metric 'set_P_5'"),
        ("bpreff", UnknownMetricError, "Did you mean 'bpref'"),
        ("all_trek", UnknownMetricError, "Did you mean 'all_trec'"),
        ("infap.5,10", InvalidOptionError, "infap takes no cut-off"),
    ],
)
def test_bad_parameters(spec: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        parse_metrics(spec)


def test_a_required_parameter() -> None:
    with pytest.raises(
        InvalidOptionError,
        match=r"iprec takes a recall level: a number from "
        r"0 to 1, as in 'iprec@0.1' \(trec_eval: 'iprec_at_recall_0.10'\)",
    ):
        parse_metric("iprec")
    frame = pd.DataFrame(UNJUDGED)
    with pytest.raises(InvalidOptionError, match="iprec takes a recall level"):
        frame.rank_eval.iprec()
    assert frame.rank_eval.iprec(0.5) == pytest.approx(0.5)
    assert parse_metric("iprec", k=0.5) == Metric("iprec", 0.5)
    assert parse_metric(str(Metric("rprec_mult", 1.2))) == Metric("rprec_mult", 1.2)


# -- aggregations ----------------------------------------------------------------------------

TWO_QUERIES = {
    "query": ["q1", "q1", "q2", "q2", "q3", "q3"],
    "item": ["a", "b"] * 3,
    "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
    "relevant": [0, 1, 1, 0, 0, 0],
    "theme": ["x", "x", "x", "x", "y", "y"],
}


def test_geometric_mean_and_sums(make_frame) -> None:
    # AP: q1 1/2, q2 1, q3 0 (floored at 1e-5 in the geometric mean)
    frame = make_frame(TWO_QUERIES).rank_eval
    table = as_pandas(frame.evaluate(["gm_map", "map", "num_ret", "num_rel_ret"]))
    assert table["gm_map"].iloc[0] == pytest.approx(
        math.exp((math.log(0.5) + math.log(1.0) + math.log(1e-5)) / 3)
    )
    assert table["map"].iloc[0] == pytest.approx(0.5)
    assert table["num_ret"].iloc[0] == 6
    assert table["num_rel_ret"].iloc[0] == 2
    by = as_pandas(frame.evaluate(["gm_map", "num_ret"], by="theme")).set_index("theme")
    assert by.loc["x", "gm_map"] == pytest.approx(math.sqrt(0.5))
    assert by.loc["y", "gm_map"] == pytest.approx(1e-5)
    assert by["num_ret"].tolist() == [4, 2]
    per_query = as_dict(frame.per_query(["gm_map", "num_ret"]))
    assert [per_query[q]["gm_map"] for q in ("q1", "q2", "q3")] == [0.5, 1.0, 0.0]
    assert as_float(frame.num_ret()) == 6


def test_intervals_and_compare_of_aggregates(make_frame) -> None:
    data = pd.DataFrame(TWO_QUERIES).assign(other=[1.0, 2.0, 2.0, 1.0, 2.0, 1.0])
    frame = make_frame(data).rank_eval(score=["score", "other"])
    table = as_pandas(frame.evaluate(["num_ret", "gm_map"], confidence_level=0.9, seed=1))
    for _, row in table.iterrows():
        assert row["num_ret_ci_low"] <= row["num_ret"] <= row["num_ret_ci_high"]
        assert row["gm_map_ci_low"] <= row["gm_map"] <= row["gm_map_ci_high"]
        assert row["num_ret_ci_high"] <= 6 + 1e-9  # a resampled sum of 3 queries of 2 rows
    both = as_pandas(frame.compare(["gm_map", "iprec_at_recall_0.50"]))
    assert both["k"].isna().tolist() == [True, False] * 2
    assert both["k"].dropna().tolist() == [0.5, 0.5]
    compared = as_pandas(frame.compare("gm_map")).set_index("system")
    # other: AP q1 1, q2 1, q3 0
    assert compared.loc["other", "mean"] == pytest.approx(math.exp(math.log(1e-5) / 3))
    # score: AP q1 0.5, q2 1, q3 0. A geometric mean's delta is the mean difference of the
    # floored logs, (log 1 - log 0.5 + 0 + 0) / 3, and its relative delta the geometric
    # means' ratio minus 1
    assert compared.loc["other", "statistic"] == "geometric mean"
    assert compared.loc["other", "delta"] == pytest.approx(math.log(2) / 3)
    assert compared.loc["other", "delta_relative"] == pytest.approx(
        math.exp(math.log(1e-5) / 3) / math.exp((math.log(0.5) + math.log(1e-5)) / 3) - 1
    )


def test_every_trec_metric_has_its_trec_name() -> None:
    for metric in parse_metrics("all_trec"):
        assert parse_metric(trec_label(metric) or "") == metric
    assert {d.aggregate for d in METRICS.values()} <= {"mean", "geometric", "sum", "set"}
