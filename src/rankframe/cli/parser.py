"""The argument parser of the ``rankframe`` command: its subcommands assembled, with the
flag groups they share (``options``); ``check``'s in ``gate``, ``report``'s in ``report``,
``slices``, ``gaps``, ``sample-size`` and ``dashboard``'s in their modules, and
``evaluate``, ``compare``, ``trec`` and ``demo``'s here, a function each."""

from __future__ import annotations

import argparse
from importlib.metadata import PackageNotFoundError, version
from typing import Any, NoReturn

from rankframe.cli import dashboard, gaps, gate, report, sample_size, slices
from rankframe.cli.commands import run_compare, run_demo, run_evaluate, run_trec
from rankframe.cli.errors import CliError
from rankframe.cli.options import (
    add_input,
    add_item_group_options,
    add_metric_options,
    add_output,
    add_test_options,
    add_time_options,
)
from rankframe.cli.recording import add_record_options
from rankframe.trec.measures import measure_names


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one ``rankframe: error:`` line (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message}; see '{self.prog} --help'", code=2)


def _measure_help() -> str:
    """The -m help of trec: the trec_eval measures rankframe computes, from the registry."""
    return (
        f"a trec_eval measure: {measure_names()}; parameters as trec_eval takes them "
        "(P.5,10, iprec_at_recall.0.25, relstring.20) or as it prints them (P_10); "
        "nicknames 'official' (the default), 'all_trec' and 'set'; repeatable"
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``rankframe`` command: its subcommands in the order
    ``--help`` lists them, each added by its own function."""
    try:
        release = version("rankframe")
    except PackageNotFoundError:  # pragma: no cover
        release = "unknown"
    parser = _Parser(
        prog="rankframe", description="Ranking metrics inside pandas and polars DataFrames."
    )
    parser.add_argument("--version", action="version", version=f"rankframe {release}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_parser in (
        _add_evaluate,
        _add_compare,
        report.add_parser,
        slices.add_parser,
        gaps.add_parser,
        sample_size.add_parser,
        dashboard.add_parser,
        _add_trec,
        gate.add_parser,
        _add_demo,
    ):
        add_parser(commands)
    return parser


def _add_evaluate(commands: Any) -> None:
    """``rankframe evaluate``: the metrics of a long-format file."""
    evaluate = commands.add_parser(
        "evaluate",
        help="metrics of a long-format file, overall, by segment or per query",
        description="Ranking metrics of a long-format file: one row per (query, item) with a "
        "score (empty: judged but not retrieved) and a relevance grade.",
    )
    add_input(
        evaluate,
        several_scores="score column (default: score); repeat to evaluate "
        "several systems, one row each",
    )
    add_metric_options(evaluate)
    add_item_group_options(evaluate)
    add_time_options(
        evaluate.add_argument_group("time windows"),
        every="one row per window, its start in a leading 'window' column",
    )
    add_output(evaluate, per_query=True)
    add_record_options(evaluate)
    evaluate.set_defaults(handler=run_evaluate)


def _add_compare(commands: Any) -> None:
    """``rankframe compare``: score columns against a baseline (or a reference file)."""
    compare = commands.add_parser(
        "compare",
        help="systems (score columns) against a baseline, with significance tests",
        description="Compare score columns of one file against a baseline: means, deltas, "
        "confidence intervals and p-values of paired tests over queries.",
    )
    add_input(
        compare,
        several_scores="a system's score column; give two or more (one is "
        "enough with --reference; default there: score)",
    )
    add_metric_options(compare)
    add_item_group_options(compare)
    tests = compare.add_argument_group("tests")
    tests.add_argument(
        "--baseline",
        metavar="COL",
        help="the score column the others are compared to (default: the first)",
    )
    tests.add_argument(
        "--reference",
        metavar="FILE2",
        help="compare each --score column with the same column of FILE2 "
        "(same columns; paired where the query ids match, two-sample "
        "otherwise) instead of with a baseline column",
    )
    # --confidence-level without a default: the library's (a --convention may set it)
    add_test_options(
        tests,
        family="the tests one correction covers: the systems compared on one metric "
        "in one segment, or every test of the table (default: %(default)s)",
        confidence_level="level of the delta's confidence interval (default: 0.95)",
        confidence_default=None,
        permutations=True,
        resamples="resamples of the bootstrap interval of the permutation and Wilcoxon tests",
    )
    add_time_options(
        compare.add_argument_group("time windows"),
        every="each window against the previous one (with --baseline: the "
        "systems within each window; with --reference: the same window of "
        "FILE2)",
    )
    add_output(compare, paper=True)
    add_record_options(compare)
    compare.set_defaults(handler=run_compare)


def _add_trec(commands: Any) -> None:
    """``rankframe trec``: a drop-in for trec_eval, with its options."""
    trec = commands.add_parser(
        "trec",
        help="a drop-in for trec_eval: its options, measures and output",
        description="Evaluate a TREC run against qrels and print trec_eval's output "
        "(measure<TAB>query<TAB>value), line for line as trec_eval prints it; the options "
        "are trec_eval's.",
    )
    trec.add_argument("qrels", metavar="QRELS", help="qrels file: query 0 docno grade")
    trec.add_argument("run", metavar="RUN", help="run file: query Q0 docno rank score runid")
    trec.add_argument(
        "-q",
        "--query_eval_wanted",
        dest="q",
        action="store_true",
        help="print each query's values too, before the summary",
    )
    trec.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        dest="c",
        action="store_true",
        help="average over every judged query; queries missing from the run count 0",
    )
    trec.add_argument(
        "-l",
        "--level_for_rel",
        dest="l",
        type=int,
        metavar="LEVEL",
        help="lowest grade that counts as relevant (default: 1)",
    )
    trec.add_argument(
        "-m", "--measure", dest="measure", action="append", metavar="MEASURE", help=_measure_help()
    )
    trec.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        dest="M",
        type=int,
        metavar="N",
        help="at most N documents per query: each query's first N by score (ties by docno), "
        "the rest dropped before evaluation",
    )
    trec.add_argument(
        "-n",
        "--nosummary",
        dest="n",
        action="store_true",
        help="no summary: only the per-query lines",
    )
    trec.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    trec.set_defaults(handler=run_trec)


def _add_demo(commands: Any) -> None:
    """``rankframe demo``: the embedded sample data, evaluated or written out."""
    demo_parser = commands.add_parser("demo", help="evaluate the embedded sample data")
    demo_parser.add_argument("--seed", type=int, default=0, help="seed of the sample data")
    demo_parser.add_argument(
        "--write",
        metavar="FILE",
        help="write the sample data to FILE (.csv or .parquet) "
        "instead of evaluating it, e.g. to try `rankframe compare` on it",
    )
    demo_parser.set_defaults(handler=run_demo)
