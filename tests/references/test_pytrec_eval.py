"""rankframe agrees with pytrec_eval to 1e-9, per query and on the mean, on generated data.

The frames are generated with a seeded NumPy generator and contain what trips up ranking
code: heavy ties in the scores, graded relevance 0..3 and TREC's negative grades (-1, -2),
relevant rows with a null score (judged, not retrieved), queries without any relevant item,
queries that retrieved nothing, ±inf and -0.0 scores, and string item ids of different
lengths (so trec_eval's "item id descending" tie order is a string comparison:
"d9" > "d10" > "d1").

Every metric of the registry is compared, without cut-off and at every cut-off of ``KS``.
The pytrec_eval measure comes from the registry's ``trec_name`` (no cut-off) and
``trec_cut`` (``ndcg_cut_10``); the few rankframe values trec_eval has no measure for are
derived from other pytrec_eval measures in ``DERIVED``.

pytrec_eval is fed the same data as trec_eval would be: qrels from every judged row (every row
of the frame, grade as int) and the run from the rows with a score.

pytrec_eval facts the comparison has to respect:

* It stores scores as float32. The generated scores are exactly representable in float32
  (multiples of 1/1024, or values rounded to one decimal and cast through ``np.float32``), so
  both libraries see the same ties.
* It evaluates only queries that appear in the run: a query whose rows all have null scores
  (nothing retrieved) is absent from its output. By the SPEC (§1) rankframe gives 0 for every
  metric of such a query, and trec_eval's own ``-c`` (complete) mode does the same; so those
  queries are compared as 0, and the mean is compared against
  sum of pytrec_eval's values / number of queries of the frame.
* A query retrieved but without any relevant item is in pytrec_eval's qrels (its rows are
  judged, with grades <= 0), and pytrec_eval evaluates it: every measure is 0 except that NDCG
  uses the grades themselves, whatever ``relevance_level`` (a query whose items all have a
  grade below ``relevance_level`` still has an NDCG). rankframe does the same.
* ``relevance_level`` must be a positive integer for pytrec_eval (it rejects 0 and negative
  levels), so ``min_relevance`` is compared at 2 and 3.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

import helpers
from helpers import unlabelled
from rankframe import METRICS, Metric, engine
from rankframe.engine import frame as engine_frame


# Tables are read without the options their labels name (``map(ties=first)`` as ``map``):
# the values are compared by metric; tests/metrics/test_labels.py tests the labels.
def as_pandas(result: Any) -> pd.DataFrame:
    return unlabelled(result)


def as_dict(result: Any, key: str = "query") -> dict[Any, dict[str, float]]:
    return helpers.as_dict(unlabelled(result), key)


# The metrics of relevance; the beyond-accuracy metrics (MetricDef.items), which pytrec_eval
# does not have, are tested in tests/metrics/test_beyond.py.
RELEVANCE = {name: d for name, d in METRICS.items() if d.items is None}


KS = (1, 3, 5, 10, 20, 100)
SEEDS = (0, 1, 2, 3)
TOLERANCE = 1e-9

# rankframe's `min_relevance` and pytrec_eval's `relevance_level` (None: pytrec_eval's default
# level 1, i.e. grade > 0 for integer grades, which is rankframe's default).
LEVELS = (None, 2, 3)
# the (seed, level) pairs compared on every frame kind: every seed and every level, each once
# or more (the seeds are alike by construction, test_generated_frames_cover_the_awkward_cases)
SEED_LEVELS = [(seed, LEVELS[seed % len(LEVELS)]) for seed in SEEDS]

# Values trec_eval has no measure for, derived from measures it has. Keyed by (name, has k).
#   mrr@k: trec_eval's recip_rank has no cut-off; RR@k = RR when the first relevant item is at
#     rank <= k, i.e. when 1/rank >= 1/k (division is correctly rounded, so monotone), else 0.
#   precision (no k): hits over the number retrieved is trec_eval's set_P.
#   recall (no k): hits over R is trec_eval's set_recall.
#   acc (no k): 1 when any relevant item was retrieved, from num_rel_ret.
#   f1 (no k): trec_eval's set_F (its default parameter 1; set_F.x is (x + 1) P R / (R + x P),
#     so x is beta squared).
#   f1@k: 2 P_k recall_k / (P_k + recall_k), 0 when both are 0.
DERIVED: dict[tuple[str, bool], tuple[str, Callable[[dict[str, float], int | None], float]]] = {
    ("mrr", True): (
        "recip_rank",
        lambda t, k: t["recip_rank"] if k is not None and t["recip_rank"] >= 1.0 / k else 0.0,
    ),
    ("precision", False): ("set_P", lambda t, _k: t["set_P"]),
    ("recall", False): ("set_recall", lambda t, _k: t["set_recall"]),
    ("acc", False): ("num_rel_ret", lambda t, _k: float(t["num_rel_ret"] > 0)),
    ("f1", False): ("set_F", lambda t, _k: t["set_F"]),
    ("f1", True): ("P." + ",".join(map(str, KS)), lambda t, k: _f1(t[f"P_{k}"], t[f"recall_{k}"])),
    ("relative_precision", False): ("set_relative_P", lambda t, _k: t["set_relative_P"]),
    # hit_count@k: hits@k = P_k * k (a whole number); without k, trec_eval's num_rel_ret
    ("hit_count", True): (
        "P." + ",".join(map(str, KS)),
        lambda t, k: float(round(t[f"P_{k}"] * (k or 1))),
    ),
    ("hit_count", False): ("num_rel_ret", lambda t, _k: float(t["num_rel_ret"])),
}

# Metrics trec_eval (pytrec_eval) has no measure for and none can be derived from; each is
# compared with another reference where named.
ELSEWHERE = {
    "dcg": "tests/metrics/test_conventions.py: ranx's dcg, dcg_burges and LensKit's DCG",
    "judged": "tests/metrics/test_judged.py: ir_measures' Judged@k",
}

# Not compared here (tests/references/test_trec_measures.py compares them with trec_eval's outputs):
# measures newer than pytrec_eval (rbp, rbp_resid, unj); those whose parameter is a number
# or that are not means (the counts, gm_*); and 11pt_avg, which pytrec_eval computes with
# trec_eval 9's rounding of the recall levels (trec_eval 10 rounds to the nearest).
SKIPPED = {"rbp", "rbp_resid", "unjudged", "eleven_point_avg"}


def _compared(name: str) -> bool:
    definition = METRICS[name]
    return name not in SKIPPED and definition.aggregate == "mean" and definition.param.integer


def _f1(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def _metrics() -> list[Metric]:
    """Every metric of the registry (but ``SKIPPED``), without cut-off and at every k of KS
    if it takes one."""
    out = []
    for definition in RELEVANCE.values():
        if not _compared(definition.name) or definition.name in ELSEWHERE:
            continue
        out.append(Metric(definition.name))
        if definition.takes_k:
            out += [Metric(definition.name, k) for k in KS]
    return out


def _trec_key(metric: Metric) -> str | None:
    """pytrec_eval's output key of the same measure, or None if it has none."""
    d = metric.definition
    if metric.k is None:
        return d.trec_name
    return None if d.trec_cut is None else f"{d.trec_cut}_{metric.k}"


def _reference(metric: Metric, trec: dict[str, float]) -> float:
    """The value pytrec_eval gives (directly or derived) for one query's measures."""
    key = _trec_key(metric)
    if key is not None:
        return trec[key]
    _, derive = DERIVED[(metric.name, metric.k is not None)]
    return derive(trec, metric.k)


def _trec_measures() -> set[str]:
    """The measures to request from pytrec_eval (with KS as cut-offs)."""
    cuts = ",".join(map(str, KS))
    measures = set()
    for metric in _metrics():
        d = metric.definition
        if _trec_key(metric) is None:
            measures.add(DERIVED[(metric.name, metric.k is not None)][0])
        elif metric.k is None:
            measures.add(str(d.trec_name))
        else:
            measures.add(f"{d.trec_cut}.{cuts}")
    return measures


def generate(seed: int) -> pd.DataFrame:
    """A long frame of ~40 queries with every awkward case; see the module docstring."""
    rng = np.random.default_rng(seed)
    grades = np.array([-2, -1, 0, 1, 2, 3])
    grade_p = np.array([0.05, 0.05, 0.5, 0.2, 0.12, 0.08])
    parts = []
    for q in range(40):
        n = int(rng.integers(1, 45))
        # string ids of different lengths: "d9" > "d10" > "d1" as strings, not as numbers
        items = np.char.add("d", rng.choice(300, size=n, replace=False).astype(str))
        if rng.random() < 0.5:
            # heavy ties: one decimal, cast through float32 as pytrec_eval stores them
            score = np.round(rng.random(n), 1).astype(np.float32).astype(np.float64)
        else:
            # exact in float32: multiples of 1/1024, still with some ties
            score = rng.integers(-512, 512, size=n) / 1024.0
        # a few extremes: ±inf sort first / last, -0.0 ties with 0.0 (as floats compare)
        extreme = rng.random(n)
        score[extreme < 0.03] = np.inf
        score[extreme > 0.97] = -np.inf
        score[(extreme > 0.5) & (extreme < 0.53)] = -0.0
        score[(extreme > 0.6) & (extreme < 0.63)] = 0.0
        grade = rng.choice(grades, size=n, p=grade_p)
        score[rng.random(n) < 0.2] = np.nan  # judged, not retrieved
        kind = q % 8
        if kind == 0:  # nothing retrieved, relevant items judged
            score[:] = np.nan
            grade[0] = 2
        elif kind == 1:  # no relevant item (negative and zero grades)
            grade = rng.choice([-2, -1, 0], size=n)
        elif kind == 2:  # nothing retrieved and nothing relevant
            score[:] = np.nan
            grade[:] = 0
        elif kind == 3:  # every relevant item unretrieved, the rest retrieved
            grade[0] = 1
            score[grade > 0] = np.nan
            score[grade <= 0] = 0.5
        elif kind == 4:  # everything retrieved, all scores tied
            score[:] = 0.25
        if grade.max() < -1:
            # pytrec-eval-terrier 0.5.11 segfaults when a retrieved query's judgments are all
            # <= -2 and another query precedes it: qrels {"a": {"x": 1}, "b": {"y": -2}},
            # run {"a": {"x": 1.0}, "b": {"y": 1.0}}. Keep one -1 (still non-relevant);
            # rankframe's handling of such queries is covered in test_properties.py.
            grade[0] = -1
        parts.append(
            pd.DataFrame(
                {
                    "query": f"q{q}",
                    "item": items,
                    "score": score,
                    "relevant": grade,
                }
            )
        )
    frame = pd.concat(parts, ignore_index=True)
    # rows in random order: the result must not depend on it (ties="trec")
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


@functools.cache
def _frame(seed: int) -> pd.DataFrame:
    return generate(seed)


@functools.cache
def _pytrec(seed: int, level: int | None, sign: float = 1.0) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query values for a generated frame (its scores times ``sign``)."""
    frame = _frame(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for query, item, score, grade in frame.itertuples(index=False):
        qrels.setdefault(query, {})[item] = int(grade)
        if not math.isnan(score):
            run.setdefault(query, {})[item] = sign * float(score)
    kwargs = {} if level is None else {"relevance_level": level}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, _trec_measures(), **kwargs)
    return evaluator.evaluate(run)


def _options(level: int | None) -> dict[str, object]:
    return {} if level is None else {"min_relevance": level}


def _expected_per_query(
    seed: int, level: int | None, sign: float = 1.0
) -> dict[str, dict[str, float]]:
    """{query: {metric: value}} for every query of the frame, 0 where nothing retrieved."""
    trec = _pytrec(seed, level, sign)
    out = {}
    for query in _frame(seed)["query"].unique():
        values = trec.get(query)
        out[query] = {str(m): 0.0 if values is None else _reference(m, values) for m in _metrics()}
    return out


def _assert_agrees(
    ours: dict[str, dict[str, float]],
    expected: dict[str, dict[str, float]],
    columns: list[str],
    label: str = "",
) -> None:
    """Every query of ``expected`` and no other, each column within TOLERANCE."""
    assert set(ours) == set(expected)
    mismatches = [
        f"{label}{query} {column}: pytrec_eval {expected[query][column]!r}, "
        f"rankframe {ours[query][column]!r}"
        for query in sorted(expected)
        for column in columns
        if not abs(ours[query][column] - expected[query][column]) <= TOLERANCE
    ]
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:40])


def test_every_metric_is_compared() -> None:
    # A metric added to the registry without a trec_eval name needs an entry in DERIVED.
    for metric in _metrics():
        if _trec_key(metric) is None:
            assert (metric.name, metric.k is not None) in DERIVED, str(metric)
    assert {m.name for m in _metrics()} == {
        n for n in RELEVANCE if _compared(n) and n not in ELSEWHERE
    }


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_frames_cover_the_awkward_cases(seed) -> None:
    frame = _frame(seed)
    by_query = frame.groupby("query")
    retrieved = by_query["score"].count()
    relevant = frame.assign(r=frame["relevant"] > 0).groupby("query")["r"].sum()
    assert (retrieved == 0).any()  # queries that retrieved nothing
    assert ((relevant == 0) & (retrieved > 0)).any()  # retrieved, nothing relevant
    assert (frame["score"].isna() & (frame["relevant"] > 0)).any()  # relevant, unretrieved
    assert (frame["relevant"] < 0).any()
    assert frame.duplicated(["query", "score"]).sum() > 100  # heavy ties
    assert np.isinf(frame["score"]).any()
    assert (np.signbit(frame["score"]) & (frame["score"] == 0)).any()  # -0.0
    assert (by_query.size() > 20).any()  # lists longer than most cut-offs
    # scores are exact in float32, so pytrec_eval sees the same ties
    scores = frame["score"].dropna().to_numpy()
    np.testing.assert_array_equal(scores.astype(np.float32).astype(np.float64), scores)
    # pytrec_eval evaluates exactly the queries with at least one retrieved row: the
    # others are the ones compared as 0
    assert set(_pytrec(seed, None)) == set(retrieved[retrieved > 0].index)


@pytest.mark.parametrize(("seed", "level"), SEED_LEVELS)
def test_per_query_matches_pytrec_eval(seed, level, make_frame) -> None:
    expected = _expected_per_query(seed, level)
    frame = make_frame(_frame(seed))
    columns = [str(m) for m in _metrics()]
    ours = as_dict(frame.rank_eval.per_query(columns, **_options(level)))
    _assert_agrees(ours, expected, columns)


@pytest.mark.parametrize(("seed", "rows"), [(0, 10), (1, 200)])
def test_blocks_of_queries_match_pytrec_eval(seed, rows, make_frame, monkeypatch) -> None:
    # A frame of more rows than a block is ranked and scored in blocks of whole queries
    # (rankframe.engine.query_blocks). With blocks of about 10 rows (a query per block,
    # 40 blocks: their rows found by a radix sort) and of 200 (a few blocks: by scans),
    # every query of two systems, the scores and their negation, still agrees with
    # pytrec_eval.
    monkeypatch.setattr(engine_frame, "QUERY_BLOCK_ROWS", rows)
    monkeypatch.setattr(engine_frame, "QUERY_BLOCK_QUERIES", 2)
    blocks = []  # how many blocks each evaluation used, where it runs in this process
    real = engine.query_blocks

    def spy(data, rows_per_block=None):
        cut = list(real(data, rows_per_block))
        blocks.append(len(cut))
        yield from cut

    monkeypatch.setattr(engine, "query_blocks", spy)
    data = _frame(seed).assign(reversed=lambda f: -f["score"])
    columns = [str(m) for m in _metrics()]
    table = as_pandas(make_frame(data).rank_eval(score=["score", "reversed"]).per_query(columns))
    for system, sign in (("score", 1.0), ("reversed", -1.0)):
        expected = _expected_per_query(seed, None, sign)
        ours = as_dict(table[table["system"] == system].drop(columns="system"))
        _assert_agrees(ours, expected, columns, f"{system} ")
    if not make_frame.is_dask:  # Dask evaluates its partitions in worker processes
        assert max(blocks, default=0) > 1
    if rows == 10 and not (make_frame.is_dask or make_frame.kind == "polars-parts"):
        assert max(blocks) > engine_frame.SCANNED_BLOCKS  # whole frames: the radix sort


@pytest.mark.parametrize(("seed", "level"), SEED_LEVELS)
def test_mean_matches_pytrec_eval(seed, level, make_frame) -> None:
    expected = _expected_per_query(seed, level)
    frame = make_frame(_frame(seed))
    columns = [str(m) for m in _metrics()]
    n_queries = len(expected)

    # empty="zero" (the default, trec_eval -c): every query counts, unretrieved ones as 0,
    # so the mean is pytrec_eval's sum over the queries it evaluated / all queries.
    means = as_pandas(frame.rank_eval.evaluate(columns, **_options(level))).iloc[0]
    assert means["n_queries"] == n_queries
    for column in columns:
        total = sum(values[column] for values in expected.values())
        assert means[column] == pytest.approx(total / n_queries, abs=TOLERANCE), column

    # empty="skip": the mean over queries with at least one relevant item (retrieved or not).
    grades = _frame(seed)
    level_ = 1 if level is None else level
    with_relevant = set(grades.loc[grades["relevant"] >= level_, "query"])
    skipped = as_pandas(frame.rank_eval.evaluate(columns, empty="skip", **_options(level))).iloc[0]
    assert skipped["n_queries"] == len(with_relevant)
    for column in columns:
        total = sum(expected[q][column] for q in with_relevant)
        assert skipped[column] == pytest.approx(total / len(with_relevant), abs=TOLERANCE), column


@pytest.mark.parametrize("seed", SEEDS)
def test_scalar_methods_match_pytrec_eval(seed) -> None:
    # The per-metric methods (ev.ndcg(k=10), ...) agree with the same pytrec_eval means.
    expected = _expected_per_query(seed, None)
    ev = _frame(seed).rank_eval
    n_queries = len(expected)
    for metric in _metrics():
        method = getattr(ev, metric.name)
        ours = method() if metric.k is None else method(k=metric.k)
        total = sum(values[str(metric)] for values in expected.values())
        assert ours == pytest.approx(total / n_queries, abs=TOLERANCE), str(metric)
