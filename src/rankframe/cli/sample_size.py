"""``rankframe sample-size``: how many queries a t-test needs to detect a change, and how
many the file holds (``RankEval.sample_size``, docs/compare.md)."""

from __future__ import annotations

import argparse
from typing import Any

from rankframe.cli.flags import Flag, add_flags, check_flags
from rankframe.cli.options import (
    add_input,
    add_item_group_options,
    add_metric_options,
    add_output,
)
from rankframe.cli.percent import SAMPLE_SIZE
from rankframe.cli.status import Status
from rankframe.settings import params

#: The sample size group: the change to detect
CHANGE_FLAGS = (
    Flag(
        "--delta",
        type=float,
        required=True,
        metavar="D",
        help="the smallest change that matters: absolute (0.01 of NDCG), or "
        "with --relative a fraction of the baseline's (or the reference's, "
        "or this file's) mean",
    ),
    Flag(
        "--relative",
        action="store_true",
        help="--delta is a fraction of the mean (0.05: a 5%% change)",
    ),
)

#: What the change is measured against (exclusive)
AGAINST_FLAGS = (
    Flag(
        "--baseline",
        metavar="COL",
        help="a --score column: the paired t-test of each other system's differences from it",
    ),
    Flag(
        "--reference",
        metavar="FILE2",
        help="each --score column against the same column of FILE2 (same "
        "columns and format options): two samples of equal size",
    ),
)

#: The test's level, power and side
TEST_FLAGS = (
    Flag("--alpha", type=float, default=0.05, help="level of the test (default: %(default)s)"),
    Flag(
        "--power",
        type=float,
        default=0.8,
        help="the chance to detect a change of --delta (default: %(default)s)",
    ),
    Flag(
        "--alternative",
        choices=params.ALTERNATIVES,
        default="two-sided",
        help="less or greater: a one-sided test (default: %(default)s)",
    ),
)


def add_parser(commands: Any) -> None:
    """The ``sample-size`` subcommand and its arguments."""
    parser = commands.add_parser(
        "sample-size",
        description="Per system and metric (and --by segment), the smallest number of "
        "queries at which a t-test at --alpha detects a change of --delta with --power, from "
        "the spread of the file's per-query values, and how many queries the file holds: "
        "with --baseline, each other system's paired differences from it; with --reference "
        "FILE2, each system against the same system of FILE2 (two samples); otherwise a "
        "sample like this one against another of its size. See docs/compare.md.",
    )
    add_input(
        parser,
        several_scores="a system's score column (default: score); repeat for several systems",
    )
    add_metric_options(parser)
    group = parser.add_argument_group("sample size")
    add_flags(group, CHANGE_FLAGS)
    add_flags(group.add_mutually_exclusive_group(), AGAINST_FLAGS)
    add_flags(group, TEST_FLAGS)
    add_item_group_options(parser)
    add_output(parser)
    parser.set_defaults(handler=run_sample_size)


#: sample-size's flags that pass an argument of ``sample_size()``, checked by its
#: constraints, in its order
SAMPLE_SIZE_CHECKS = {
    "--delta": params.CHANGE,
    "--alpha": params.PROBABILITY,
    "--power": params.PROBABILITY,
    "--baseline": params.PAIRED_BASELINE,
}


def run_sample_size(args: argparse.Namespace, status: Status) -> int:
    """``rankframe sample-size``: the table of ``sample_size()``; 2 on a bad command line,
    1 on data that cannot be evaluated (as ``rankframe evaluate``)."""
    # the input and the output: polars, pandas and the library, only when the command runs
    from rankframe.cli import inputs
    from rankframe.cli.checks import check_rows
    from rankframe.cli.reading import input_format, read_table
    from rankframe.cli.render import render, write

    scores = list(dict.fromkeys(args.score or ["score"]))
    check_flags(args, SAMPLE_SIZE_CHECKS, "sample_size", scores)
    metrics = inputs.metrics(args.metric)
    options = inputs.options(args)
    roles = inputs.roles(args, scores)
    options.update(inputs.item_groups(args, roles, status))
    columns = inputs.columns(roles)
    frame, source = read_table(
        args.file, input_format(args.file, args.input_format), columns, status
    )
    check_rows(frame, source, roles)
    if args.reference is not None:  # the same columns, read and checked as FILE
        reference, reference_source = read_table(
            args.reference, input_format(args.reference, args.input_format), columns, status
        )
        check_rows(reference, reference_source, roles)
        options["reference"] = reference
    if roles.by:
        options["by"] = roles.by
    ev = inputs.accessor(frame, roles)
    status.show(f"measuring the spread of {frame.height:,} rows...")
    with inputs.in_file_terms(frame, source, roles, args):
        result = ev.sample_size(
            metrics,
            delta=args.delta,
            baseline=args.baseline,
            relative=args.relative,
            alpha=args.alpha,
            power=args.power,
            alternative=args.alternative,
            **options,
        )
    status.clear()
    write(render(result, args.format, percent=SAMPLE_SIZE if args.percent else ()), args.output)
    return 0
