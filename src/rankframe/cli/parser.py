"""The argument parser of the ``rankframe`` command."""

from __future__ import annotations

import argparse
from typing import NoReturn

from rankframe.cli.commands import (
    DEFAULT_METRICS,
    run_compare,
    run_demo,
    run_evaluate,
    run_trec,
)
from rankframe.cli.errors import CliError
from rankframe.cli.reading import INPUT_FORMATS
from rankframe.cli.recording import add_record_options
from rankframe.cli.render import OUTPUT_FORMATS


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one ``rankframe: error:`` line (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message}; see '{self.prog} --help'", code=2)


def _metric_help() -> str:
    """The -m help of evaluate and compare: the metrics of the registry."""
    from rankframe.metrics.registry import METRICS

    return (
        f"a metric: {', '.join(METRICS)}, with @k for a cut-off (mrr@10, ndcg@10), or "
        "trec_eval's names (P_10, recip_rank); repeat, or separate with commas (default: "
        f"{' '.join(DEFAULT_METRICS)})"
    )


def _measure_help() -> str:
    """The -m help of trec: the trec_eval measures rankframe computes, from the registry."""
    from rankframe.trec.measures import measure_names

    return (
        f"a trec_eval measure: {measure_names()}; parameters as trec_eval takes them "
        "(P.5,10, iprec_at_recall.0.25, relstring.20) or as it prints them (P_10); "
        "nicknames 'official' (the default), 'all_trec' and 'set'; repeatable"
    )


def _add_input(parser: argparse.ArgumentParser, *, several_scores: str) -> None:
    data = parser.add_argument_group("input")
    data.add_argument(
        "file", metavar="FILE",
        help="long-format data, one row per (query, item): .csv, .tsv, .parquet/.pq, "
        ".jsonl/.ndjson; '-' reads CSV from standard input",
    )
    data.add_argument(
        "--input-format", choices=sorted(set(INPUT_FORMATS.values())),
        help="format of FILE when its extension does not tell",
    )
    data.add_argument("--query", default="query", metavar="COL",
                      help="query column (default: %(default)s)")
    data.add_argument("--item", default="item", metavar="COL",
                      help="item column (default: %(default)s)")
    data.add_argument("--score", action="append", metavar="COL", help=several_scores)
    data.add_argument("--relevant", default="relevant", metavar="COL",
                      help="relevance grade column (default: %(default)s)")


def _add_metric_options(parser: argparse.ArgumentParser) -> None:
    from rankframe.settings.options import OPTIONS

    group = parser.add_argument_group("metrics")
    group.add_argument(
        "-m", "--metric", action="append", metavar="METRIC",
        help=_metric_help(),
    )
    group.add_argument("--by", action="append", metavar="COL",
                       help="segment column, constant within a query (repeatable)")
    group.add_argument("--min-relevance", type=float, metavar="GRADE",
                       help="lowest grade that counts as relevant (default: grade > 0)")
    group.add_argument("--ties", choices=OPTIONS["ties"].choices,
                       help="order among equal scores (default: trec, item id descending)")
    group.add_argument("--empty", choices=OPTIONS["empty"].choices,
                       help="queries without relevant items (default: zero)")
    group.add_argument("--gain", choices=OPTIONS["gain"].choices,
                       help="NDCG gain (default: linear)")
    group.add_argument("--denominator", choices=OPTIONS["denominator"].choices,
                       help="AP and recall divide by R or min(R, k) (default: relevant)")
    group.add_argument("--beta", type=float, metavar="BETA",
                       help="f1: F-beta's weight of recall (default: 1, F1)")
    _add_convention_options(group)


def _add_convention_options(group: argparse._ArgumentGroup) -> None:
    """The options of other tools' conventions, and --convention (docs/conventions.md)."""
    from typing import get_args

    from rankframe.settings.conventions import CONVENTIONS
    from rankframe.settings.options import OPTIONS, ApDenominator

    group.add_argument("--ap-denominator", choices=get_args(ApDenominator),
                       help="AP's own denominator (default: as --denominator)")
    helps = {
        "precision_denominator": "P@k divides by k or min(k, number retrieved) (default: k)",
        "empty_list": "precision and AP of a query that retrieved nothing (default: zero)",
        "discount": "(N)DCG discount (default: log2(rank+1))",
        "negative_gains": "(N)DCG gain of negative grades (default: zero)",
    }
    for name, text in helps.items():
        group.add_argument("--" + name.replace("_", "-"), choices=OPTIONS[name].choices,
                           help=text)
    group.add_argument("--convention", choices=tuple(CONVENTIONS),
                       help="set the options that reproduce another tool's numbers; options "
                       "given explicitly win (default: none, trec_eval's defaults)")


def add_time_options(group: argparse._ArgumentGroup, *, every: str) -> None:
    """--time, --time-unit and --every (time windows; ``every``: what a window does)."""
    from rankframe.pipeline.windows import TIME_UNITS

    group.add_argument("--time", metavar="COL",
                       help="time column of the queries: datetimes, dates, ISO 8601 text, "
                       "or integer epochs with --time-unit; a query's time is its earliest "
                       "row's")
    group.add_argument("--time-unit", choices=TIME_UNITS,
                       help="unit of an integer --time column (seconds since 1970 UTC: s)")
    group.add_argument("--every", metavar="DURATION",
                       help=f"time windows (1d, 1w, 1mo, 1q; weeks start on Monday): {every}; "
                       "needs --time")


def add_test_options(
    group: argparse._ArgumentGroup, *, test: str = "paired test over queries",
    alpha: str = "significance level", family: str | None = None,
    family_default: str | None = None, confidence_level: str = "level of the intervals",
    confidence_default: float | None = 0.95, permutations: bool = False,
    resamples: str = "bootstrap resamples",
) -> None:
    """The flags of the tests and intervals (``compare``, ``check``, ``report``): --test,
    --correction, --alpha, --family (with ``family``, its help), --confidence-level,
    --permutations (with ``permutations``), --resamples and --seed. What differs per
    command are the help texts (what the test or level is of) and two defaults:
    ``family_default`` (the library's when ``None``) and ``confidence_default`` (``None``:
    the library's, which ``confidence_level`` then names)."""
    from rankframe.settings.options import CORRECTION, FAMILY, TEST

    group.add_argument("--test", choices=TEST.choices, default=TEST.default,
                       help=f"{test} (default: %(default)s)")
    group.add_argument("--correction", choices=CORRECTION.choices, default=CORRECTION.default,
                       help="multiple-comparison correction (default: %(default)s)")
    group.add_argument("--alpha", type=float, default=0.05,
                       help=f"{alpha} (default: %(default)s)")
    if family is not None:
        group.add_argument("--family", choices=FAMILY.choices,
                           default=FAMILY.default if family_default is None else family_default,
                           help=family)
    level = confidence_level if confidence_default is None else (
        f"{confidence_level} (default: %(default)s)")
    group.add_argument("--confidence-level", type=float, default=confidence_default,
                       metavar="LEVEL", help=level)
    if permutations:
        group.add_argument("--permutations", type=int, default=10_000, metavar="N",
                           help="sign flips of the permutation test (default: %(default)s)")
    group.add_argument("--resamples", type=int, default=1000, metavar="N",
                       help=f"{resamples} (default: %(default)s)")
    group.add_argument("--seed", type=int, default=0,
                       help="random seed of the resampling (default: %(default)s)")


def _add_output(parser: argparse.ArgumentParser, *, per_query: bool = False,
                paper: bool = False) -> None:
    group = parser.add_argument_group("output")
    if per_query:
        group.add_argument("--per-query", action="store_true",
                           help="one row per query instead of the means")
    formats = (*OUTPUT_FORMATS, "latex", "paper") if paper else OUTPUT_FORMATS
    extra = ("; latex and paper: a paper table (LaTeX, Markdown) of the means, best in bold, "
             "significance as superscript letters") if paper else ""
    group.add_argument("--format", choices=formats, default="table",
                       help=f"output format (default: %(default)s; json: a list of "
                       f"records{extra})")
    group.add_argument("--percent", action="store_true",
                       help="show metric values x100 with a %% sign (table and markdown only)")
    group.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``rankframe`` command."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("rankframe")
    except PackageNotFoundError:  # pragma: no cover
        release = "unknown"
    parser = _Parser(
        prog="rankframe", description="Ranking metrics inside pandas and polars DataFrames."
    )
    parser.add_argument("--version", action="version", version=f"rankframe {release}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    evaluate = commands.add_parser(
        "evaluate", help="metrics of a long-format file, overall, by segment or per query",
        description="Ranking metrics of a long-format file: one row per (query, item) with a "
        "score (empty: judged but not retrieved) and a relevance grade.",
    )
    _add_input(evaluate, several_scores="score column (default: score); repeat to evaluate "
               "several systems, one row each")
    _add_metric_options(evaluate)
    add_time_options(evaluate.add_argument_group("time windows"),
                     every="one row per window, its start in a leading 'window' column")
    _add_output(evaluate, per_query=True)
    add_record_options(evaluate)
    evaluate.set_defaults(handler=run_evaluate)

    compare = commands.add_parser(
        "compare", help="systems (score columns) against a baseline, with significance tests",
        description="Compare score columns of one file against a baseline: means, deltas, "
        "confidence intervals and p-values of paired tests over queries.",
    )
    _add_input(compare, several_scores="a system's score column; give two or more (one is "
               "enough with --reference; default there: score)")
    _add_metric_options(compare)
    tests = compare.add_argument_group("tests")
    tests.add_argument("--baseline", metavar="COL",
                       help="the score column the others are compared to (default: the first)")
    tests.add_argument("--reference", metavar="FILE2",
                       help="compare each --score column with the same column of FILE2 "
                       "(same columns; paired where the query ids match, two-sample "
                       "otherwise) instead of with a baseline column")
    # --confidence-level without a default: the library's (a --convention may set it)
    add_test_options(
        tests, family="the tests one correction covers: the systems compared on one metric "
        "in one segment, or every test of the table (default: %(default)s)",
        confidence_level="level of the delta's confidence interval (default: 0.95)",
        confidence_default=None, permutations=True,
        resamples="resamples of the bootstrap interval of the permutation and Wilcoxon tests",
    )
    add_time_options(compare.add_argument_group("time windows"),
                     every="each window against the previous one (with --baseline: the "
                     "systems within each window; with --reference: the same window of "
                     "FILE2)")
    _add_output(compare, paper=True)
    add_record_options(compare)
    compare.set_defaults(handler=run_compare)

    from rankframe.cli.report import add_report

    add_report(commands, _add_input, _add_metric_options)

    trec = commands.add_parser(
        "trec", help="a drop-in for trec_eval: its options, measures and output",
        description="Evaluate a TREC run against qrels and print trec_eval's output "
        "(measure<TAB>query<TAB>value), line for line as trec_eval prints it; the options "
        "are trec_eval's.",
    )
    trec.add_argument("qrels", metavar="QRELS", help="qrels file: query 0 docno grade")
    trec.add_argument("run", metavar="RUN", help="run file: query Q0 docno rank score runid")
    trec.add_argument("-q", "--query_eval_wanted", dest="q", action="store_true",
                      help="print each query's values too, before the summary")
    trec.add_argument("-c", "--complete_rel_info_wanted", dest="c", action="store_true",
                      help="average over every judged query; queries missing from the run "
                      "count 0")
    trec.add_argument("-l", "--level_for_rel", dest="l", type=int, metavar="LEVEL",
                      help="lowest grade that counts as relevant (default: 1)")
    trec.add_argument("-m", "--measure", dest="measure", action="append", metavar="MEASURE",
                      help=_measure_help())
    trec.add_argument("-n", "--nosummary", dest="n", action="store_true",
                      help="no summary: only the per-query lines")
    trec.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    trec.set_defaults(handler=run_trec)

    from rankframe.cli import gate

    gate.add_parser(commands)

    demo_parser = commands.add_parser("demo", help="evaluate the embedded sample data")
    demo_parser.add_argument("--seed", type=int, default=0, help="seed of the sample data")
    demo_parser.add_argument(
        "--write", metavar="FILE", help="write the sample data to FILE (.csv or .parquet) "
        "instead of evaluating it, e.g. to try `rankframe compare` on it",
    )
    demo_parser.set_defaults(handler=run_demo)
    return parser


