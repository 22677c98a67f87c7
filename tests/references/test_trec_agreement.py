"""Every trec_eval measure agrees with pytrec_eval to 1e-9, per query, on generated TREC files.

A seeded generator writes a run file and a qrels file with what trips up an evaluation: tied
scores, grades -1..3 (-1: in the pool, not judged, as infAP reads it), documents retrieved but
not judged, documents judged but not retrieved, queries without any relevant document, docnos
of different lengths (ties are broken by docno as strings: "d9" > "d10" > "d1"), a query only
in the run and one only in the qrels. rankframe reads them with ``read_trec_run``,
``read_trec_qrels`` and ``join_trec`` and evaluates the joined frame on every frame kind,
asking for each measure by the name trec_eval prints (``P_5``, ``iprec_at_recall_0.10``).
pytrec_eval gets the same judgments and scores as dicts built from the generator's lines,
never from rankframe's reading.

The comparisons:

- per query, every measure pytrec_eval computes (``all_trec``, and the same measures at
  parameters other than the defaults), at trec_eval's default relevance level and at ``-l 2``;
  iprec_at_recall and 11pt_avg, where trec_eval 10 (rankframe's reference) rounds differently
  from the trec_eval 9 of pytrec_eval, against a reference written from trec_eval's files
  and checked to give pytrec_eval's values with trec_eval 9's rounding;
- the ``all`` values through ``evaluate``, aggregated as trec_eval does (independently of the
  registry: written here): the mean; the sum of the ``num_*`` counts; the geometric means
  ``gm_map`` and ``gm_bpref``, for which pytrec_eval's per-query value is trec_eval's
  ``log(max(value, 0.00001))`` and the ``all`` value ``exp`` of their mean;
- rbp, rbp_resid and unj (newer than pytrec_eval): against a reference written below from
  trec_eval's m_rbp.c, m_rbp_resid.c and m_unjudged.c (their values on trec_eval's own test
  files are in test_trec_eval_outputs.py).

pytrec_eval keeps scores as float32: the generated scores are multiples of 1/4, exact in
float32, so both see the same ties.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

import rankframe
from helpers import as_dict, as_pandas, unlabelled
from rankframe import parse_metric

TOLERANCE = 1e-9
SEEDS = (0, 1)
LEVELS = (None, 2)  # trec_eval's -l: the default (grade >= 1) and grade >= 2
# pytrec_eval's measures: all_trec with its default parameters, then other parameters
MEASURES = (
    {"all_trec"},
    {
        "P.1,3,7",
        "recall.2,7",
        "ndcg_cut.1,3,7",
        "map_cut.1,3,7",
        "relative_P.2,7",
        "success.2,3",
        "iprec_at_recall.0.15,0.5,0.95",
        "Rprec_mult.0.5,1.5,3",
    },
)
NOT_METRICS = {"runid", "num_q", "relstring"}  # pytrec_eval prints 0 for them
GEOMETRIC = {"gm_map", "gm_bpref"}
MIN_GEO_MEAN = 0.00001  # trec_eval's floor of a geometric mean's values


@dataclass(frozen=True)
class Generated:
    """A run and qrels as the generator wrote them: (query, docno, score) and
    (query, docno, grade)."""

    run: tuple[tuple[str, str, float], ...]
    qrels: tuple[tuple[str, str, int], ...]

    def write(self, folder: Path) -> tuple[Path, Path]:
        run, qrels = folder / "run.txt", folder / "qrels.txt"
        # rank fields that are not the score's order: trec_eval ignores them
        run.write_text(
            "".join(f"{q} Q0 {d} {i} {s!r} gen\n" for i, (q, d, s) in enumerate(self.run))
        )
        qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in self.qrels))
        return run, qrels


def generate(seed: int) -> Generated:
    """About 40 queries and a few hundred lines; see the module docstring."""
    rng = np.random.default_rng(seed)
    run: list[tuple[str, str, float]] = []
    qrels: list[tuple[str, str, int]] = []
    for q in range(40):
        query = f"q{q}"
        pool = [f"d{n}" for n in rng.choice(300, size=24, replace=False)]
        n_judged, n_retrieved = int(rng.integers(1, 16)), int(rng.integers(1, 16))
        # judged: the first n_judged of the pool; retrieved: a window that overlaps them
        start = int(rng.integers(0, 10))
        judged, retrieved = pool[:n_judged], pool[start : start + n_retrieved]
        grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=n_judged)
        kind = q % 8
        if kind == 0:  # no relevant document (judged non-relevant or unjudged in the pool)
            grades = rng.choice([-1, 0], size=n_judged)
        elif kind == 2:  # every judged document retrieved, and more
            retrieved = pool[: n_judged + 3]
        if q == 5:  # only in the run: no judgments, not evaluated
            judged = []
        if q == 6:  # only in the qrels: not retrieved, not evaluated (trec_eval without -c)
            retrieved = []
        scores = rng.integers(-2, 4, size=len(retrieved)) / 4  # heavy ties, negatives
        if kind == 1:  # every score tied
            scores[:] = 0.5
        qrels += [(query, d, int(g)) for d, g in zip(judged, grades, strict=False)]
        run += [(query, d, float(s)) for d, s in zip(retrieved, scores, strict=True)]
    order = rng.permutation(len(run))  # lines in no particular order
    return Generated(tuple(run[i] for i in order), tuple(qrels))


@functools.cache
def generated(seed: int) -> Generated:
    return generate(seed)


@functools.cache
def pytrec(seed: int, level: int | None, judged_only: bool = False) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query values, from dicts of the generator's lines (``judged_only``:
    its ``judged_docs_only_flag``, trec_eval's ``-J``)."""
    data = generated(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for query, docno, grade in data.qrels:
        qrels.setdefault(query, {})[docno] = grade
    for query, docno, score in data.run:
        run.setdefault(query, {})[docno] = score
    options: dict[str, object] = {} if level is None else {"relevance_level": level}
    if judged_only:
        options["judged_docs_only_flag"] = True
    out: dict[str, dict[str, float]] = {}
    for measures in MEASURES:
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, **options)
        for query, values in evaluator.evaluate(run).items():
            out.setdefault(query, {}).update(
                (name, value) for name, value in values.items() if name not in NOT_METRICS
            )
    return out


@functools.cache
def reference(seed: int, level: int | None) -> dict[str, dict[str, float]]:
    """The expected per-query values: pytrec_eval's, but trec_eval 10's for
    iprec_at_recall and 11pt_avg (see :data:`TREC_EVAL_10`)."""
    out = {query: dict(values) for query, values in pytrec(seed, level).items()}
    for query, values in interpolated(seed, level, lround).items():
        out[query].update(values)
    return out


def family(name: str) -> str:
    """The measure of a printed name: ``P_5`` → ``P``, ``iprec_at_recall_0.10`` → its root."""
    return re.sub(r"_[0-9.]+$", "", name)


def joined(seed: int, folder: Path) -> pd.DataFrame:
    run, qrels = generated(seed).write(folder)
    return rankframe.join_trec(rankframe.read_trec_run(run), rankframe.read_trec_qrels(qrels))


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_files_cover_the_awkward_cases(seed: int) -> None:
    data = generated(seed)
    judged = {(q, d): g for q, d, g in data.qrels}
    retrieved = {(q, d) for q, d, _ in data.run}
    assert set(range(-1, 4)) == set(judged.values())
    assert retrieved - set(judged)  # retrieved, not judged
    assert {k for k, g in judged.items() if g > 0} - retrieved  # relevant, not retrieved
    run_queries, judged_queries = {q for q, _ in retrieved}, {q for q, _ in judged}
    assert run_queries - judged_queries
    assert judged_queries - run_queries
    relevant = {q for (q, _), g in judged.items() if g > 0}
    assert (run_queries & judged_queries) - relevant  # evaluated, nothing relevant
    scores = pd.DataFrame(list(data.run), columns=["query", "docno", "score"])
    assert scores.duplicated(["query", "score"]).sum() > 50  # ties
    assert 200 < len(data.run) + len(data.qrels) < 1000
    # the evaluated queries: those with both judgments and results
    assert set(reference(seed, None)) == run_queries & judged_queries


# -- iprec_at_recall and 11pt_avg: trec_eval 10 against pytrec_eval's trec_eval 9 ----------
#
# trec_eval 10 turns a recall level into a number of relevant documents with lround(level *
# R) (m_iprec_at_recall.c, m_11pt_avg.c); trec_eval 9, which pytrec_eval bundles, with
# (long)(level * R + 0.9). rankframe follows trec_eval 10, as its own test outputs do. Both
# are written below from those files; the one with trec_eval 9's rounding gives pytrec_eval's
# values exactly (which checks the reference), the one with trec_eval 10's gives rankframe's.
TREC_EVAL_10 = ("iprec_at_recall", "11pt_avg")
ELEVEN_POINTS = tuple(i / 10 for i in range(11))


def lround(x: float) -> int:
    """C's lround of a non-negative number: halves away from zero."""
    return math.floor(x + 0.5)


def trec_eval_9(x: float) -> int:
    """trec_eval 9's cut-off: (long) (x + 0.9)."""
    return int(x + 0.9)


def interpolated_precision(
    rels: list[int],
    num_rel: int,
    levels: tuple[float, ...],
    relevant_from: int,
    cut: Callable[[float], int],
) -> list[float]:
    """m_iprec_at_recall.c: at each recall level, the highest precision at or after the rank
    where that many relevant documents (``cut(level * R)``) have been retrieved; 0 for a level
    never reached."""
    cutoffs = [cut(level * num_rel) for level in levels]
    relevant = [r >= relevant_from for r in rels]
    rel_ret = sum(relevant)
    values = [0.0] * len(levels)
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > rel_ret:
        current -= 1
    best = rel_ret / len(rels)
    rel_so_far = rel_ret
    for i in range(len(rels), 0, -1):
        if rel_so_far == 0:
            break
        best = max(best, rel_so_far / i)
        if relevant[i - 1]:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = best
                current -= 1
            rel_so_far -= 1
    while current >= 0:
        values[current] = best
        current -= 1
    return values


def interpolated(
    seed: int, level: int | None, cut: Callable[[float], int]
) -> dict[str, dict[str, float]]:
    """Per query, every iprec_at_recall and 11pt_avg value of pytrec_eval's output, computed
    by :func:`interpolated_precision` with the rounding ``cut``."""
    data = generated(seed)
    relevant_from = 1 if level is None else level
    num_rel: dict[str, int] = {}
    for query, _, grade in data.qrels:
        num_rel[query] = num_rel.get(query, 0) + (grade >= relevant_from)
    # the levels in increasing order, as trec_eval sorts them
    names = sorted(
        (n for n in next(iter(pytrec(seed, level).values())) if n.startswith("iprec_")),
        key=lambda n: float(n.rpartition("_")[2]),
    )
    levels = tuple(float(n.rpartition("_")[2]) for n in names)
    out = {}
    for query, rels in ranked_judgments(data).items():
        values = interpolated_precision(rels, num_rel[query], levels, relevant_from, cut)
        eleven = interpolated_precision(rels, num_rel[query], ELEVEN_POINTS, relevant_from, cut)
        out[query] = {**dict(zip(names, values, strict=True)), "11pt_avg": sum(eleven) / 11}
    return out


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_reference_of_iprec_at_recall_is_pytrec_eval_s_with_its_rounding(seed, level) -> None:
    theirs = pytrec(seed, level)
    nine, ten = interpolated(seed, level, trec_eval_9), interpolated(seed, level, lround)
    assert set(nine) == set(theirs)
    compared = 0
    for query, values in nine.items():
        for name, value in values.items():
            assert value == pytest.approx(theirs[query][name], abs=TOLERANCE), (query, name)
            compared += 1
    assert compared == len(theirs) * 14  # 11 default levels, 0.15 and 0.95, 11pt_avg
    # the two roundings differ on these data: the choice of trec_eval 10 is tested
    assert any(ten[q][n] != nine[q][n] for q in nine for n in nine[q])


def per_query_names(seed: int, level: int | None) -> list[str]:
    names = next(iter(reference(seed, level).values()))
    return sorted(n for n in names if n not in GEOMETRIC)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", SEEDS)
def test_per_query_matches_pytrec_eval(seed, level, make_frame, tmp_path) -> None:
    expected = reference(seed, level)
    names = per_query_names(seed, level)
    assert len({family(n) for n in names}) == 29  # every family pytrec_eval computes
    frame = make_frame(joined(seed, tmp_path))
    check_per_query(frame, expected, names, "pytrec_eval", level)


def check_per_query(
    frame: object,
    expected: dict[str, dict[str, float]],
    names: list[str],
    reference: str,
    level: int | None = None,
) -> None:
    """``per_query`` of the measures ``names`` (as trec_eval prints them) is ``expected``."""
    column = {name: str(parse_metric(name)) for name in names}
    options = {} if level is None else {"min_relevance": level}
    # the columns without the options their labels name (min_relevance for -l)
    ours = as_dict(unlabelled(frame.rank_eval.per_query(list(column.values()), **options)))
    assert set(ours) == set(expected)
    mismatches = [
        f"{query} {name}: {reference} {expected[query][name]!r}, rankframe "
        f"{ours[query][column[name]]!r}"
        for query in sorted(expected)
        for name in names
        if not abs(ours[query][column[name]] - expected[query][name]) <= TOLERANCE
    ]
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:60])


@pytest.mark.parametrize("seed", SEEDS)
def test_condensed_lists_are_pytrec_eval_s_judged_docs_only(seed, make_frame, tmp_path) -> None:
    """``unjudged="condense"`` is pytrec_eval's ``judged_docs_only_flag`` (trec_eval's -J),
    per query, on every measure but iprec_at_recall and 11pt_avg (trec_eval 9's rounding
    there; tests/references/test_trec_eval_binary.py compares them with trec_eval 10's -J)."""
    expected = pytrec(seed, None, judged_only=True)
    names = [n for n in per_query_names(seed, None) if family(n) not in TREC_EVAL_10]
    assert {family(n) for n in names} >= {"map", "P", "bpref", "num_ret", "infAP"}
    column = {name: str(parse_metric(name)) for name in names}
    frame = make_frame(joined(seed, tmp_path))
    table = frame.rank_eval.per_query(list(column.values()), unjudged="condense")
    ours = as_dict(unlabelled(table))
    assert set(ours) == set(expected)
    mismatches = [
        (query, name, expected[query][name], ours[query][column[name]])
        for query in sorted(expected)
        for name in names
        if not abs(ours[query][column[name]] - expected[query][name]) <= TOLERANCE
    ]
    assert not mismatches, mismatches[:20]
    # -J moves the numbers: the comparison is not the one without it
    plain = pytrec(seed, None)
    assert any(plain[q]["num_ret"] != expected[q]["num_ret"] for q in expected)


def trec_eval_all(name: str, values: list[float]) -> float:
    """trec_eval's `all` value from the per-query values (as pytrec_eval gives them)."""
    if name in GEOMETRIC:  # per query: log(max(value, MIN_GEO_MEAN))
        return math.exp(math.fsum(values) / len(values))
    if name.startswith("num_"):
        return math.fsum(values)
    return math.fsum(values) / len(values)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", SEEDS)
def test_all_values_match_trec_eval_s_aggregates(seed, level, make_frame, tmp_path) -> None:
    expected = reference(seed, level)
    names = sorted(next(iter(expected.values())))
    assert set(names) >= GEOMETRIC
    column = {name: str(parse_metric(name)) for name in names}
    options = {} if level is None else {"min_relevance": level}
    ev = make_frame(joined(seed, tmp_path)).rank_eval
    means = unlabelled(ev.evaluate(list(column.values()), **options)).iloc[0]
    assert means["n_queries"] == len(expected)
    mismatches = []
    for name in names:
        want = trec_eval_all(name, [values[name] for values in expected.values()])
        if not abs(means[column[name]] - want) <= TOLERANCE:
            mismatches.append(f"{name}: trec_eval {want!r}, rankframe {means[column[name]]!r}")
    assert not mismatches, "\n".join(mismatches)


def test_geometric_means_floor_zero_values(make_frame, tmp_path) -> None:
    # a query with AP 0 counts as 0.00001 in gm_map (trec_eval's MIN_GEO_MEAN): with AP
    # 1 and 0, gm_map = sqrt(1 * 0.00001)
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n2 Q0 a 1 2 r\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    frame = make_frame(rankframe.join_trec(run, qrels))
    means = as_pandas(frame.rank_eval.evaluate(["map", "gm_map"])).iloc[0]
    assert means[str(parse_metric("map"))] == pytest.approx(0.5, abs=TOLERANCE)
    assert means[str(parse_metric("gm_map"))] == pytest.approx(
        math.sqrt(MIN_GEO_MEAN), abs=TOLERANCE
    )


class _RunFrame(pd.DataFrame):
    """A pandas DataFrame subclass, as a user's own frame type may be."""

    @property
    def _constructor(self) -> type[_RunFrame]:
        return _RunFrame


def test_frames_of_a_pandas_subclass_are_frames_not_paths() -> None:
    # join_trec takes a pandas DataFrame subclass as a frame (it was read as a path: a
    # TypeError from os.fspath); by hand: a ranks b first, relevant a is at rank 2
    run = _RunFrame({"query": ["1", "1"], "item": ["a", "b"], "score": [1.0, 2.0]})
    qrels = _RunFrame({"query": ["1"], "item": ["a"], "relevant": [1]})
    joined = rankframe.join_trec(run, qrels)
    assert joined["item"].tolist() == ["a", "b"]
    assert joined.rank_eval.mrr() == 0.5
    groups = _RunFrame({"item": ["a", "b"], "group": ["x", "y"]})  # an option's mapping too
    assert joined.rank_eval.evaluate(["ndkl@2"], item_groups=groups).shape[0] == 1


# -- rbp, rbp_resid, unj: a reference from trec_eval's definitions ---------------------------

P = 0.9  # trec_eval's persistence of rbp and rbp_resid
NONPOOL, UNJUDGED = -1, -2  # trec_eval's RELVALUE_NONPOOL and RELVALUE_UNJUDGED


def ranked_judgments(data: Generated) -> dict[str, list[int]]:
    """Per evaluated query, trec_eval's judgment of each retrieved document in rank order
    (form_res_rels.c): the grade; NONPOOL when not in the qrels; UNJUDGED for a negative
    grade (in the pool, not judged). Ranked by score, then docno, both descending."""
    grades = {(q, d): g for q, d, g in data.qrels}
    judged_queries = {q for q, _, _ in data.qrels}
    lists: dict[str, list[tuple[float, str]]] = {}
    for query, docno, score in data.run:
        if query in judged_queries:
            lists.setdefault(query, []).append((score, docno))
    out = {}
    for query, docs in lists.items():
        ranked = sorted(docs, reverse=True)  # score, then docno, descending
        rels = []
        for _, docno in ranked:
            grade = grades.get((query, docno))
            rels.append(NONPOOL if grade is None else UNJUDGED if grade < 0 else grade)
        out[query] = rels
    return out


def rbp(rels: list[int], top_grade: int) -> float:
    """m_rbp.c: (1 - p) * sum of gain * p^(rank - 1); the gain of a grade is the grade, 0
    below 0, divided by the query's top grade when that is above 1."""
    scale = max(top_grade, 1)
    return (1 - P) * math.fsum(max(r, 0) / scale * P**i for i, r in enumerate(rels))


def rbp_resid(rels: list[int]) -> float:
    """m_rbp_resid.c: when some retrieved document is unjudged, p^n + (1 - p) * the sum of
    p^(rank - 1) over the unjudged ones; else 0."""
    unjudged = [P**i for i, r in enumerate(rels) if r < 0]
    return P ** len(rels) + (1 - P) * math.fsum(unjudged) if unjudged else 0.0


def unj(rels: list[int], k: int) -> float:
    """m_unjudged.c: the unjudged documents among the first k, over k."""
    return sum(r < 0 for r in rels[:k]) / k


@pytest.mark.parametrize("seed", SEEDS)
def test_rbp_and_unj_match_trec_eval_s_definitions(seed, make_frame, tmp_path) -> None:
    data = generated(seed)
    rels = ranked_judgments(data)
    top = {}
    for query, _, grade in data.qrels:
        top[query] = max(top.get(query, 0), grade)
    expected = {
        query: {
            "rbp": rbp(r, top[query]),
            "rbp_resid": rbp_resid(r),
            **{f"unj_{k}": unj(r, k) for k in (1, 5, 10, 20)},
        }
        for query, r in rels.items()
    }
    assert any(v["rbp_resid"] > 0 for v in expected.values())
    assert any(v["unj_5"] > 0 for v in expected.values())
    names = list(next(iter(expected.values())))
    frame = make_frame(joined(seed, tmp_path))
    check_per_query(frame, expected, names, "trec_eval's definition")
