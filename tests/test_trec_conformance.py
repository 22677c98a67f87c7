"""rankframe reproduces trec_eval's own test outputs to the printed digits.

The files are trec_eval's test data (../shared/conformance/trec_eval, see its README):
``out.test.aq`` is ``trec_eval -m all_trec -q qrels.test results.test``, ``out.test.aql`` the
same with ``-l2`` on the graded ``qrels.rel_level``, and ``out.test.aqc`` is ``-c`` on the
truncated run. Every per-query and ``all`` value of the measures rankframe implements is
compared as printed, with 4 decimals.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rankframe
import rankframe._encoding
from helpers import CONFORMANCE, as_dict, as_pandas, unlabelled
from rankframe import parse_metric

# trec_eval measure names that rankframe implements: recip_rank, P_k, recall_k, map,
# map_cut_k, ndcg, ndcg_cut_k, success_k, Rprec.
IMPLEMENTED = re.compile(
    r"^(recip_rank|P_\d+|recall_\d+|map|map_cut_\d+|ndcg|ndcg_cut_\d+|success_\d+|Rprec)$"
)

CASES = {
    # output file: (qrels, run, options of join_trec, options of rankframe)
    "out.test.aq": ("qrels.test", "results.test", {}, {}),
    "out.test.aql": ("qrels.rel_level", "results.test", {}, {"min_relevance": 2}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"complete": True}, {}),
    "out.test": ("qrels.test", "results.test", {}, {}),
}


def _expected(path: Path) -> dict[str, dict[str, str]]:
    """{measure: {query or 'all': printed value}} for the implemented measures."""
    if not path.exists():
        pytest.fail(
            f"trec_eval conformance data not found at {path}; the tests expect the "
            "project's shared/ folder beside the repository (../shared)."
        )
    table: dict[str, dict[str, str]] = {}
    for line in path.read_text().splitlines():
        measure, query, value = line.split()
        if IMPLEMENTED.match(measure):
            table.setdefault(measure, {})[query] = value
    return table


@pytest.fixture(scope="module")
def frames() -> dict[str, object]:
    out = {}
    for name, (qrels, run, join_options, _) in CASES.items():
        out[name] = rankframe.join_trec(
            rankframe.read_trec_run(CONFORMANCE / run),
            rankframe.read_trec_qrels(CONFORMANCE / qrels),
            **join_options,
        )
    return out


@pytest.mark.parametrize("output", list(CASES))
def test_per_query_and_all_match_trec_eval(output, frames, make_frame) -> None:
    _check_against_trec_eval(output, frames, make_frame)


@pytest.mark.parametrize("output", ["out.test.aq", "out.test.aqc"])
def test_two_thread_encoding_matches_trec_eval(output, frames, make_frame, monkeypatch) -> None:
    # large frames encode their query ids in two threads (two dictionaries, merged): force
    # that path on trec_eval's small test data
    monkeypatch.setattr(rankframe._encoding, "THREAD_VALUES", 2)
    _check_against_trec_eval(output, frames, make_frame)


def _check_against_trec_eval(output: str, frames, make_frame) -> None:
    expected = _expected(CONFORMANCE / output)
    assert len(expected) >= (9 if output == "out.test" else 40), sorted(expected)
    *_, options = CASES[output]
    frame = make_frame(frames[output])
    ev = frame.rank_eval
    metrics = {measure: str(parse_metric(measure)) for measure in expected}
    # the columns without the option their labels name (min_relevance for -l2)
    per_query = as_dict(unlabelled(ev.per_query(list(metrics.values()), **options)))
    means = unlabelled(ev.evaluate(list(metrics.values()), **options)).iloc[0]

    mismatches = []
    compared = 0
    for measure, values in expected.items():
        column = metrics[measure]
        for query, printed in values.items():
            ours = means[column] if query == "all" else per_query[query][column]
            compared += 1
            if f"{ours:.4f}" != printed:
                mismatches.append(f"{measure} {query}: trec_eval {printed}, rankframe {ours:.6f}")
    assert not mismatches, "\n".join(mismatches)
    queries_per_measure = 1 if output == "out.test" else 4
    assert compared == len(expected) * queries_per_measure


def test_queries_evaluated_as_trec_eval(frames) -> None:
    # num_q of trec_eval: 3 queries in each case (302 counts 0 under -c).
    for name in ("out.test.aq", "out.test.aqc", "out.test.aql"):
        table = as_pandas(frames[name].rank_eval.evaluate(["map"]))
        assert table["n_queries"].iloc[0] == 3, name
