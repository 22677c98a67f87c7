"""``rankframe trec`` prints trec_eval's four test outputs, every line, byte for byte.

The files are trec_eval's test data (../shared/conformance/trec_eval, see its README), with
the command lines that made them:

- ``out.test``: ``trec_eval qrels.test results.test`` (the ``official`` measures);
- ``out.test.aq``: ``trec_eval -m all_trec -q qrels.test results.test``;
- ``out.test.aqc``: ``trec_eval -m all_trec -q -c qrels.test results.trunc``;
- ``out.test.aql``: ``trec_eval -m all_trec -mrelstring.20 -q -l2 qrels.rel_level
  results.test``.

The command line is called in-process (``rankframe.cli.main``) with trec_eval's own
arguments. The accessor side is checked too: on every frame kind, ``per_query`` and
``evaluate`` of the frame ``join_trec`` returns give every per-query and ``all`` value of the
files, asked for by the names trec_eval prints (``P_5``, ``iprec_at_recall_0.10``).
"""

from __future__ import annotations

import difflib
import re

import pytest

import rankframe
from helpers import CONFORMANCE, DOCS, Run, as_dict, unlabelled
from rankframe import parse_metric

# output file: trec_eval's arguments (files relative to the conformance folder)
COMMANDS = {
    "out.test": ["qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aql": [
        "-m",
        "all_trec",
        "-mrelstring.20",
        "-q",
        "-l2",
        "qrels.rel_level",
        "results.test",
    ],
}
# lines per file: 30 official lines; 96 per query (3 queries) and 99 `all` lines for all_trec
LINES = {"out.test": 30, "out.test.aq": 387, "out.test.aqc": 387, "out.test.aql": 387}
# the same cases for the accessor: (qrels, run, complete, min_relevance)
FRAMES = {
    "out.test.aq": ("qrels.test", "results.test", False, None),
    "out.test.aqc": ("qrels.test", "results.trunc", True, None),
    "out.test.aql": ("qrels.rel_level", "results.test", False, 2),
}
# printed lines that are not metrics of the accessor
NOT_METRICS = re.compile(r"^(runid|num_q|relstring(_\d+)?)$")


def argv(args: list[str]) -> list[str]:
    """trec_eval's arguments, its two files (the last two) in the conformance folder."""
    return [*args[:-2], *(str(CONFORMANCE / a) for a in args[-2:])]


def expected_text(output: str) -> str:
    path = CONFORMANCE / output
    if not path.exists():
        pytest.fail(
            f"trec_eval conformance data not found at {path}; the tests expect the "
            "project's shared/ folder beside the repository (../shared)."
        )
    return path.read_text()


@pytest.mark.parametrize("output", list(COMMANDS))
def test_every_line_is_trec_eval_s(run: Run, output: str) -> None:
    expected = expected_text(output)
    assert len(expected.splitlines()) == LINES[output]
    code, out, err = run("trec", *argv(COMMANDS[output]))
    assert (code, err) == (0, "")
    if out != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), out.splitlines(), "trec_eval", "rankframe", lineterm="", n=0
        )
        shown = list(diff)
        pytest.fail(f"{output}: {len(shown)} diff lines\n" + "\n".join(shown[:80]))
    assert out == expected


def test_long_options_and_nosummary(run: Run) -> None:
    # trec_eval's long spellings of the same options give the same lines
    short = run("trec", *argv(COMMANDS["out.test.aql"]))[1]
    long = run(
        "trec",
        "--measure",
        "all_trec",
        "--measure",
        "relstring.20",
        "--query_eval_wanted",
        "--level_for_rel",
        "2",
        *argv(["qrels.rel_level", "results.test"]),
    )[1]
    assert long == short
    # -n (--nosummary): the per-query lines alone, as trec_eval prints them
    per_query = [line for line in short.splitlines() if "\tall\t" not in line]
    for flag in ("-n", "--nosummary"):
        code, out, _ = run("trec", flag, *argv(COMMANDS["out.test.aql"]))
        assert code == 0
        assert out.splitlines() == per_query
    # -c without -q: the `all` lines of out.test.aqc
    expected = [line for line in expected_text("out.test.aqc").splitlines() if "\tall\t" in line]
    code, out, _ = run("trec", "-c", "-m", "all_trec", *argv(["qrels.test", "results.trunc"]))
    assert out.splitlines() == expected


@pytest.fixture(scope="module")
def joined() -> dict[str, object]:
    return {
        output: rankframe.join_trec(
            rankframe.read_trec_run(CONFORMANCE / run_file),
            rankframe.read_trec_qrels(CONFORMANCE / qrels),
            complete=complete,
        )
        for output, (qrels, run_file, complete, _) in FRAMES.items()
    }


def printed_values(output: str) -> dict[str, dict[str, str]]:
    """{printed measure: {query or 'all': printed value}} of the metrics of a file."""
    table: dict[str, dict[str, str]] = {}
    for line in expected_text(output).splitlines():
        name, query, value = (field.strip() for field in line.split("\t"))
        if not NOT_METRICS.match(name):
            table.setdefault(name, {})[query] = value
    return table


def printed(value: float, template: str) -> str:
    """A value as trec_eval prints it: counts as integers, the rest with 4 decimals."""
    return str(round(value)) if "." not in template else f"{value:6.4f}".strip()


@pytest.mark.parametrize("output", list(FRAMES))
def test_accessor_gives_every_value_of_the_files(output: str, joined, make_frame) -> None:
    expected = printed_values(output)
    assert len(expected) == 97  # 95 per query (relstring aside), gm_map and gm_bpref
    *_, level = FRAMES[output]
    options = {} if level is None else {"min_relevance": level}
    column = {name: str(parse_metric(name)) for name in expected}
    per_query_names = [n for n, values in expected.items() if set(values) != {"all"}]
    ev = make_frame(joined[output]).rank_eval
    # the columns without the option their labels name (min_relevance=2 for -l2)
    per_query = as_dict(unlabelled(ev.per_query([column[n] for n in per_query_names], **options)))
    means = unlabelled(ev.evaluate(list(column.values()), **options)).iloc[0]
    assert means["n_queries"] == 3

    mismatches = []
    for name, values in expected.items():
        for query, value in values.items():
            ours = means[column[name]] if query == "all" else per_query[query][column[name]]
            if printed(ours, value) != value:
                mismatches.append(f"{name} {query}: trec_eval {value}, rankframe {ours!r}")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches)


def test_the_files_hold_what_the_tests_say() -> None:
    # gm_map and gm_bpref have no per-query line; relstring has no `all` line
    aq = printed_values("out.test.aq")
    assert set(aq["gm_map"]) == set(aq["gm_bpref"]) == {"all"}
    assert set(aq["P_5"]) == {"301", "302", "303", "all"}
    lines = expected_text("out.test.aql").splitlines()
    assert [line for line in lines if line.startswith("relstring")] == [
        "relstring_20          \t301\t'0000011000000--10101'",
        "relstring_20          \t302\t'33033303303333333330'",
        "relstring_20          \t303\t'0000.....00..0.0.02.'",
    ]


def test_the_example_of_the_docs_is_true(run: Run) -> None:
    # docs/cli.md shows `rankframe trec -q -m map -m P.5,10 -m relstring.5 qrels.test
    # results.test` and its output: the command prints it, and every line is trec_eval's (the
    # relstring_5 lines: the first 5 characters of out.test.aq's relstring)
    page = (DOCS / "cli.md").read_text()
    shown = page.split("<!-- trec-example:start -->\n```text\n")[1].split("```\n<!-- trec")[0]
    assert "rankframe trec -q -m map -m P.5,10 -m relstring.5 qrels.test results.test" in page
    code, out, _ = run(
        "trec",
        "-q",
        "-m",
        "map",
        "-m",
        "P.5,10",
        "-m",
        "relstring.5",
        *argv(["qrels.test", "results.test"]),
    )
    assert (code, out) == (0, shown)
    trec_eval = expected_text("out.test.aq").splitlines()
    for line in shown.splitlines():
        name, query, value = line.split("\t")
        if name.startswith("relstring_5"):
            full = next(t for t in trec_eval if t.startswith("relstring") and f"\t{query}\t" in t)
            assert value == full.split("\t")[2][:6] + "'"
        else:
            assert line in trec_eval
