"""``rankframe slices``: where a model fails, the slices of the queries over a few columns,
each tested, with the p-values corrected over every test (issue 36; ``RankEval.slices``)."""

from __future__ import annotations

import argparse
from typing import Any

from rankframe.cli.errors import CliError
from rankframe.cli.flags import Flag, add_flags, check_flags
from rankframe.cli.options import (
    add_input,
    add_item_group_options,
    add_metric_options,
    add_output,
)
from rankframe.cli.percent import SLICES
from rankframe.cli.status import Status
from rankframe.settings import params
from rankframe.settings.options import CORRECTION

TESTS = ("t-test", "permutation", "bootstrap")


#: The slices group: the columns, the baseline and the bounds of the search
SLICE_FLAGS = (
    Flag(
        "--column",
        action="append",
        required=True,
        metavar="COL",
        help="a slice column, constant within a query (repeatable)",
    ),
    Flag(
        "--baseline",
        metavar="COL",
        help="a --score column: test each other system's difference from it inside each slice",
    ),
    Flag(
        "--max-depth",
        type=int,
        default=2,
        metavar="N",
        help="the most predicates in one slice (default: %(default)s)",
    ),
    Flag(
        "--min-queries",
        type=int,
        default=30,
        metavar="N",
        help="the fewest queries a slice needs to be tested (default: %(default)s)",
    ),
    Flag(
        "--bins",
        type=int,
        default=4,
        metavar="N",
        help="quantile bins of a numeric column of more distinct values (default: %(default)s)",
    ),
    Flag(
        "--top",
        type=int,
        metavar="N",
        help="print the first N rows of each system and metric (every test "
        "still counts in the correction)",
    ),
)

#: The tests group: the test, its side, the correction and the resampling
TEST_FLAGS = (
    Flag(
        "--test",
        choices=TESTS,
        default="t-test",
        help="Welch's or the paired t-test, a permutation test, or a "
        "percentile bootstrap (its p-value and interval; default: "
        "%(default)s)",
    ),
    Flag(
        "--alternative",
        choices=params.ALTERNATIVES,
        default="two-sided",
        help="less: the slice (or the system) is worse (default: %(default)s)",
    ),
    Flag(
        "--correction",
        choices=CORRECTION.choices,
        default=CORRECTION.default,
        help="over every test of the call: holm and bonferroni keep the "
        "family-wise error, fdr_bh the false discovery rate (default: "
        "%(default)s)",
    ),
    Flag(
        "--confidence-level",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="level of the intervals; a slice is significant when its "
        "adjusted p is below 1 - LEVEL (default: %(default)s)",
    ),
    Flag(
        "--permutations",
        type=int,
        default=10_000,
        metavar="N",
        help="resamples of the permutation test (default: %(default)s)",
    ),
    Flag(
        "--resamples",
        type=int,
        default=1000,
        metavar="N",
        help="resamples of the bootstrap (default: %(default)s)",
    ),
    Flag(
        "--seed",
        type=int,
        default=0,
        help="seed of the permutation test or the bootstrap (default: %(default)s)",
    ),
)


def add_parser(commands: Any) -> None:
    """The ``slices`` subcommand and its arguments."""
    parser = commands.add_parser(
        "slices",
        description="Every slice of the queries made of up to --max-depth predicates "
        "column == value over the --column columns (each constant within a query), with at "
        "least --min-queries queries, tested: each system's mean inside against the other "
        "queries (Welch's t-test), or with --baseline each other system's difference from "
        "the baseline inside the slice (the paired t-test; or --test permutation or bootstrap). "
        "The p-values are corrected over "
        "every test (the n_tested column); worst first within each system and metric.",
    )
    add_input(
        parser,
        several_scores="a system's score column (default: score); repeat for several systems",
    )
    add_metric_options(parser)
    add_flags(parser.add_argument_group("slices"), SLICE_FLAGS)
    add_flags(parser.add_argument_group("tests"), TEST_FLAGS)
    add_item_group_options(parser)
    add_output(parser)
    parser.set_defaults(handler=run_slices)


#: slices' flags that pass an argument of ``slices()``, checked by its constraints
SLICES_CHECKS = {
    "--baseline": params.PAIRED_BASELINE,
    "--max-depth": params.AT_LEAST_ONE,
    "--min-queries": params.AT_LEAST_ONE,
    "--bins": params.AT_LEAST_TWO,
    "--top": params.OPTIONAL_AT_LEAST_ONE,
    "--confidence-level": params.LEVEL,
    "--permutations": params.COUNT,
    "--resamples": params.COUNT,
    "--seed": params.SEED,
}


def _check(args: argparse.Namespace, scores: list[str]) -> None:
    """The flags, checked before the file is read (exit status 2)."""
    if args.by:
        raise CliError("slices takes its columns as --column COL, not --by", code=2)
    check_flags(args, SLICES_CHECKS, "slices", scores)


def run_slices(args: argparse.Namespace, status: Status) -> int:
    """``rankframe slices``: the table of ``slices()``; 2 on a bad command line, 1 on data
    that cannot be evaluated (a slice column varying within a query, as --by)."""
    scores = list(dict.fromkeys(args.score or ["score"]))
    _check(args, scores)
    # the input and the output: polars, pandas and the library, only once the flags hold
    from rankframe.cli import inputs
    from rankframe.cli.checks import Roles, check_rows
    from rankframe.cli.reading import input_format, read_table
    from rankframe.cli.render import render, write

    metrics = inputs.metrics(args.metric)
    options = inputs.options(args)
    slice_columns = list(dict.fromkeys(args.column))
    base = inputs.roles(args, scores)
    taken = {
        base.query: "--query",
        base.item: "--item",
        base.relevant: "--relevant",
        **dict.fromkeys(scores, "--score"),
    }
    for column in slice_columns:
        if column in taken:
            msg = (
                f"--column {column} is the {taken[column]} column; pass a column that "
                "describes the query (a theme, a device)"
            )
            raise CliError(msg, code=2)
    roles = Roles(base.query, base.item, scores, base.relevant, slice_columns, by_option="--column")
    options.update(inputs.item_groups(args, roles, status))
    columns = inputs.columns(roles)
    columns.update(dict.fromkeys(slice_columns, "--column"))
    frame, source = read_table(
        args.file, input_format(args.file, args.input_format), columns, status
    )
    check_rows(frame, source, roles)
    queries = frame.select(roles.query).n_unique()
    if args.min_queries > queries:
        msg = (
            f"--min-queries {args.min_queries} is above the {queries:,} queries of "
            f"{source.name}: no slice can be that large; pass a smaller --min-queries"
        )
        raise CliError(msg, code=2)
    ev = inputs.accessor(frame, roles)
    status.show(f"looking for slices in {frame.height:,} rows...")
    with inputs.in_file_terms(frame, source, roles, args):
        result = ev.slices(
            metrics,
            slice_columns,
            baseline=args.baseline,
            max_depth=args.max_depth,
            min_queries=args.min_queries,
            bins=args.bins,
            test=args.test,
            alternative=args.alternative,
            confidence_level=args.confidence_level,
            correction=None if args.correction == "none" else args.correction,
            top=args.top,
            n_permutations=args.permutations,
            n_resamples=args.resamples,
            seed=args.seed,
            **options,
        )
    status.clear()
    write(render(result, args.format, percent=SLICES if args.percent else ()), args.output)
    return 0
