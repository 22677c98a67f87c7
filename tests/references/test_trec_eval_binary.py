"""``rankframe trec`` against trec_eval's own binary, byte for byte.

The binary is trec_eval 10.0 built from its source in ``../shared/peers`` into ``.cache/``
(``make trec-eval``; tests/trec_eval_binary.py). The files are random
(``write_random_files``): ties, negative scores and grades, queries without a relevant
document, judged documents not retrieved, lists of up to 3,000 documents; 100,000 run lines
here (the ``make test`` budget), 1,000,000 in ``make bench`` (benchmarks/trec_cli.py).

Two differences found on such runs are reproduced on the smallest files that show them: the
order in which 11pt_avg adds its levels, and in which the mean of a measure asked for alone
adds its queries (both now trec_eval's). ``-J`` (judged documents only) is compared on small
random files with every option it meets, in the fast tests, and once on the large one.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from helpers import Run
from rankframe import InvalidOptionError
from rankframe.trec import trec_eval_report
from trec_eval_binary import TrecFiles, trec_eval, write_random_files

LINES = 100_000

#: trec_eval's arguments before the two files; the -c ones read the qrels with judged
#: queries that the run misses (without -c, trec_eval 10.0 stops at them)
ARGUMENTS = {
    "default": [],
    "all_trec": ["-q", "-m", "all_trec"],
    "all_trec, -l 2": ["-q", "-m", "all_trec", "-l", "2", "-m", "relstring.20"],
    "all_trec, -c": ["-q", "-m", "all_trec", "-c"],
    "all_trec, -M 40": ["-q", "-m", "all_trec", "-M", "40"],
    "all_trec, -c -M 3, relstring": ["-q", "-m", "all_trec", "-c", "-M3", "-m", "relstring.5"],
    "default, -M 1": ["-M", "1"],
    "all_trec, -J -c -l 2": ["-q", "-m", "all_trec", "-J", "-c", "-l", "2"],
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> TrecFiles:
    return write_random_files(tmp_path_factory.mktemp("trec"), LINES, seed=48)


def differences(expected: str, got: str) -> str:
    """The first differing lines, trec_eval's (-) and rankframe's (+)."""
    diff = difflib.unified_diff(
        expected.splitlines(), got.splitlines(), "trec_eval", "rankframe", lineterm="", n=0
    )
    return "\n".join(list(diff)[:40])


def compare(run: Run, args: list[str], qrels: Path, run_file: Path) -> None:
    expected = trec_eval(*args, qrels, run_file)
    code, out, err = run("trec", *args, qrels, run_file)
    assert (code, err) == (0, "")
    assert out == expected, differences(expected, out)


@pytest.mark.load
@pytest.mark.parametrize("name", list(ARGUMENTS))
def test_every_line_is_the_binary_s_on_a_random_run(run: Run, files: TrecFiles, name: str) -> None:
    args = ARGUMENTS[name]
    assert files.lines >= LINES
    qrels = files.qrels_complete if "-c" in args else files.qrels
    compare(run, args, qrels, files.run)


def test_the_random_files_hold_what_they_are_built_to(files: TrecFiles) -> None:
    """The cases the comparison needs are in the files (else a pass would prove little)."""
    run_lines = [line.split() for line in files.run.read_text().splitlines()]
    qrels = [line.split() for line in files.qrels.read_text().splitlines()]
    complete = [line.split() for line in files.qrels_complete.read_text().splitlines()]
    per_query: dict[str, list[float]] = {}
    for query, _, _, _, score, _ in run_lines:
        per_query.setdefault(query, []).append(float(score))
    judged = {(q, d) for q, _, d, _ in qrels}
    retrieved = {(q, d) for q, _, d, _, _, _ in run_lines}
    grades = {int(g) for *_, g in qrels}
    relevant = {q for q, _, _, g in qrels if int(g) > 0}
    assert len(run_lines) == files.lines
    assert any(len(set(s)) < len(s) for s in per_query.values())  # ties
    assert any(min(s) < 0 for s in per_query.values())  # negative scores
    assert max(len(s) for s in per_query.values()) >= 1000  # long lists
    assert {-1, 0, 1, 2, 3, 4} <= grades  # graded, negative grades
    assert {q for q, *_ in qrels} - relevant  # a judged query without a relevant document
    assert judged - retrieved  # judged, not retrieved
    assert retrieved - judged  # retrieved, not judged
    assert set(per_query) - {q for q, *_ in qrels}  # a query of the run without qrels
    assert {q for q, *_ in complete} - set(per_query)  # a judged query the run misses (-c)


# -- the differences found, on the smallest files that show them ------------------------------


def write(folder: Path, run_lines: list[str], qrels_lines: list[str]) -> tuple[Path, Path]:
    run_file, qrels = folder / "run", folder / "qrels"
    run_file.write_text("".join(f"{line}\n" for line in run_lines))
    qrels.write_text("".join(f"{line}\n" for line in qrels_lines))
    return qrels, run_file


def test_11pt_avg_adds_the_levels_in_trec_eval_s_order(run: Run, tmp_path: Path) -> None:
    # one query, 96 documents ranked by score; relevant at these ranks, 27 relevant in all:
    # the 11 levels' precisions add up to 1.71875 = 11 x 0.15625 in trec_eval's order only
    ranks = [3, 6, 33, 43, 44, 48, 52, 56, 58, 59, 65, 68, 82, 84, 85, 88, 92, 93, 96]
    run_lines = [f"1 Q0 d{r:03d} {r} {100 - r} r" for r in range(1, 97)]
    missed = [f"1 0 m{j} 1" for j in range(27 - len(ranks))]
    qrels, run_file = write(tmp_path, run_lines, [f"1 0 d{r:03d} 1" for r in ranks] + missed)
    assert trec_eval("-q", "-m", "11pt_avg", qrels, run_file).splitlines()[0].endswith("0.1562")
    compare(run, ["-q", "-m", "11pt_avg"], qrels, run_file)


def test_a_measure_alone_adds_the_queries_in_trec_eval_s_order(run: Run, tmp_path: Path) -> None:
    # 16 queries, each's one relevant document at these ranks: recip_rank 1/r, whose sum
    # is 5.1 = 16 x 0.31875 one by one, a hair less pairwise
    ranks = [4, 2, 2, 10, 2, 10, 3, 3, 10, 10, 4, 1, 2, 6, 5, 6]
    run_lines = [
        f"q{q:02d} Q0 d{k} {k} {20 - k} r"
        for q, r in enumerate(ranks, start=1)
        for k in range(1, r + 1)
    ]
    qrels_lines = [f"q{q:02d} 0 d{r} 1" for q, r in enumerate(ranks, start=1)]
    qrels, run_file = write(tmp_path, run_lines, qrels_lines)
    assert trec_eval("-m", "recip_rank", qrels, run_file) == "recip_rank            \tall\t0.3188\n"
    # with a second measure the queries are added one by one, as trec_eval does
    _, out, _ = run("trec", "-m", "recip_rank", "-m", "P.5", qrels, run_file)
    assert out.splitlines()[0].endswith("0.3188")
    compare(run, ["-m", "recip_rank"], qrels, run_file)


# -- -M: at most N documents per query ---------------------------------------------------------


def test_max_per_query_cuts_by_trec_eval_s_ranking(run: Run, tmp_path: Path) -> None:
    # file order is not score order, and the tie at 2.0 is broken by docno, descending (b
    # before a): -M 2 keeps c (3.0) and b; a, judged relevant, is then not retrieved
    qrels, run_file = write(
        tmp_path,
        ["1 Q0 a 1 2.0 r", "1 Q0 c 2 3.0 r", "1 Q0 b 3 2.0 r", "1 Q0 d 4 1.0 r"],
        ["1 0 a 1", "1 0 b 1"],
    )
    args = ["-q", "-m", "num_ret", "-m", "num_rel_ret", "-m", "relstring.3", "-M", "2"]
    code, out, err = run("trec", *args, qrels, run_file)
    assert (code, err) == (0, "")
    assert out == trec_eval(*args, qrels, run_file)
    assert "num_ret               \t1\t2\n" in out
    assert "relstring_3           \t1\t'-1'\n" in out


@pytest.mark.parametrize("value", ["0", "-3"])
def test_max_per_query_below_one_is_a_usage_error(run: Run, tmp_path: Path, value: str) -> None:
    qrels, run_file = write(tmp_path, ["1 Q0 a 1 2.0 r"], ["1 0 a 1"])
    code, out, err = run("trec", "-M", value, qrels, run_file)
    assert (code, out) == (2, "")
    assert err == (
        f"rankframe: error: -M takes a positive number of documents per query; got {value}\n"
    )


@pytest.mark.parametrize("value", [0, True, 2.5])
def test_max_per_query_of_the_library_is_checked(tmp_path: Path, value: object) -> None:
    qrels, run_file = write(tmp_path, ["1 Q0 a 1 2.0 r"], ["1 0 a 1"])
    with pytest.raises(InvalidOptionError, match=r"^max_per_query must be a positive integer"):
        trec_eval_report(run_file, qrels, max_per_query=value)  # type: ignore[arg-type]


def test_relstring_of_a_judged_query_the_run_misses(run: Run, tmp_path: Path) -> None:
    # -c keeps query 2: trec_eval clears `relstring` (''), not `relstring_5` ('-')
    qrels, run_file = write(tmp_path, ["1 Q0 a 1 2.0 r"], ["1 0 a 1", "2 0 b 1"])
    for measure, line in (
        ("relstring", "relstring             \t2\t''\n"),
        ("relstring.5", "relstring_5           \t2\t'-'\n"),
    ):
        args = ["-q", "-c", "-m", measure, "-m", "num_ret"]
        _, out, _ = run("trec", *args, qrels, run_file)
        assert out == trec_eval(*args, qrels, run_file)
        assert line in out


# -- -J: judged documents only -----------------------------------------------------------------

#: -J alone and with each option it meets: -q, -m all_trec, -l, -c, -M, relstring, iprec levels
JUDGED_ONLY = {
    "-J": ["-J"],
    "-J -q all_trec": ["-J", "-q", "-m", "all_trec", "-m", "relstring.5"],
    "-J -l 2 -M 6": ["-J", "-q", "-m", "all_trec", "-l", "2", "-M", "6", "-m", "relstring.8"],
    "-J -c -M 3 -l 3": ["-J", "-q", "-c", "-m", "all_trec", "-M3", "-l3", "-m", "relstring"],
    "-J -c iprec": ["-J", "-c", "-q", "-m", "iprec_at_recall.0.04,0.15,0.5", "-m", "relstring.4"],
}


@pytest.fixture(scope="module")
def small_files(tmp_path_factory: pytest.TempPathFactory) -> TrecFiles:
    return write_random_files(tmp_path_factory.mktemp("trec-small"), 1_500, seed=2)


@pytest.mark.parametrize("name", list(JUDGED_ONLY))
def test_judged_only_is_the_binary_s(run: Run, small_files: TrecFiles, name: str) -> None:
    args = JUDGED_ONLY[name]
    qrels = small_files.qrels_complete if "-c" in args else small_files.qrels
    compare(run, args, qrels, small_files.run)


def test_the_small_files_hold_queries_left_without_documents(small_files: TrecFiles) -> None:
    """-J empties a query whose retrieved documents are all unjudged: trec_eval's -nan (and
    '' for its relstring) must be in the comparison, with -c's judged query the run misses."""
    out = trec_eval("-J", "-q", "-c", "-m", "all_trec", small_files.qrels_complete, small_files.run)
    emptied = {
        line.split("\t")[1]
        for line in out.splitlines()
        if line.startswith("num_ret ") and line.endswith("\t0")
    }
    missed = set(small_files.qrels_complete.read_text().split()[::4]) - set(
        small_files.run.read_text().split()[::6]
    )
    assert "11pt_avg              \tall\t  -nan" in out
    assert missed  # a judged query the run misses (-c)
    assert emptied - missed  # a query of the run that -J empties


def test_judged_only_on_a_query_left_without_documents(run: Run, tmp_path: Path) -> None:
    # query 1: R = 3 (a, b, c); the run retrieves x (not judged) and d (grade -1), which -J
    # removes: num_ret 0. trec_eval's precision starts at 0 / 0: iprec at a level whose
    # lround(level x 3) is 0 (0.0, 0.1: 0.3) is -nan, at 0.2 (0.6, rounded to 1) 0; 11pt_avg
    # -nan, and the mean over the queries too. Query 2 keeps e (relevant) and f (0).
    qrels, run_file = write(
        tmp_path,
        ["1 Q0 x 1 2.0 r", "1 Q0 d 2 1.0 r", "2 Q0 f 1 3.0 r", "2 Q0 g 2 2.0 r", "2 Q0 e 3 1.0 r"],
        ["1 0 a 1", "1 0 b 1", "1 0 c 1", "1 0 d -1", "2 0 e 1", "2 0 f 0"],
    )
    args = ["-J", "-q", "-m", "num_ret", "-m", "iprec_at_recall.0,0.1,0.2", "-m", "11pt_avg"]
    code, out, err = run("trec", *args, "-m", "relstring.3", qrels, run_file)
    assert (code, err) == (0, "")
    assert out == trec_eval(*args, "-m", "relstring.3", qrels, run_file)
    assert out.splitlines()[:6] == [
        "num_ret               \t1\t0",
        "iprec_at_recall_0.00  \t1\t  -nan",
        "iprec_at_recall_0.10  \t1\t  -nan",
        "iprec_at_recall_0.20  \t1\t0.0000",
        "relstring_3           \t1\t''",
        "11pt_avg              \t1\t  -nan",
    ]
    # query 2's condensed list is f (0), e (1): precision 1/2 at every recall level
    assert "iprec_at_recall_0.20  \t2\t0.5000\n" in out
    assert "num_ret               \tall\t2\n" in out
    assert "iprec_at_recall_0.20  \tall\t0.2500\n" in out
    assert "11pt_avg              \tall\t  -nan\n" in out


def test_judged_only_of_the_library(tmp_path: Path) -> None:
    qrels, run_file = write(tmp_path, ["1 Q0 x 1 2.0 r", "1 Q0 a 2 1.0 r"], ["1 0 a 1"])
    # x, unjudged, leaves the ranking: a is first
    assert trec_eval_report(run_file, qrels, ["recip_rank"]) == (
        "recip_rank            \tall\t0.5000\n"
    )
    assert trec_eval_report(run_file, qrels, ["recip_rank"], judged_only=True) == (
        "recip_rank            \tall\t1.0000\n"
    )


def test_num_rel_of_complete_counts_every_grade_above_0(run: Run, tmp_path: Path) -> None:
    # -c: trec_eval's num_rel `all` counts the qrels' grades above 0 whatever -l (3 here:
    # 1, 2 and 2), while each query's line counts those of -l 2 (query 1: 1; query 2: 1)
    qrels, run_file = write(
        tmp_path,
        ["1 Q0 a 1 2.0 r"],
        ["1 0 a 1", "1 0 b 2", "2 0 c 2", "2 0 d 0", "2 0 e -1"],
    )
    args = ["-c", "-q", "-l", "2", "-m", "num_rel"]
    code, out, err = run("trec", *args, qrels, run_file)
    assert (code, err) == (0, "")
    assert out == trec_eval(*args, qrels, run_file)
    assert out.splitlines() == [
        "num_rel               \t1\t1",
        "num_rel               \t2\t1",
        "num_rel               \tall\t3",
    ]


# -- -N: the number of documents in the collection ----------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["-q", "-m", "all_trec", "-N", "1000000"],
        ["-q", "-c", "-m", "utility", "-N", "3"],
        ["--Number_docs_in_coll", "0", "-m", "set"],
    ],
)
def test_number_of_documents_is_the_binary_s(
    run: Run, small_files: TrecFiles, args: list[str]
) -> None:
    """trec_eval reads -N in utility alone, times its fourth coefficient (0 in the
    coefficients rankframe computes): rankframe takes it, and prints the binary's lines."""
    qrels = small_files.qrels_complete if "-c" in args else small_files.qrels
    compare(run, args, qrels, small_files.run)
