"""``rankframe gaps``: the gaps between user groups, per system and metric, each tested, the
p-values corrected over every (system, metric) (``RankEval.gaps``, docs/fairness.md)."""

from __future__ import annotations

import argparse
from typing import Any

from rankframe.cli.errors import CliError
from rankframe.cli.flags import Flag, add_flags, check_flags
from rankframe.cli.names import GAP_TESTS
from rankframe.cli.options import (
    add_input,
    add_item_group_options,
    add_metric_options,
    add_output,
)
from rankframe.cli.percent import GAPS, GAPS_AGAINST_BASELINE
from rankframe.cli.status import Status
from rankframe.settings import params
from rankframe.settings.options import CORRECTION

#: The gaps group: the baseline, the test and its correction, the resampling
GAPS_FLAGS = (
    Flag(
        "--baseline",
        metavar="COL",
        help="a --score column: test whether each other system's change from "
        "it is the same in every group",
    ),
    Flag(
        "--test",
        choices=GAP_TESTS,
        default="permutation",
        help="permutation: of the gap itself; rank: Kruskal-Wallis; anova: "
        "the one-way F test (default: %(default)s)",
    ),
    Flag(
        "--correction",
        choices=CORRECTION.choices,
        default=CORRECTION.default,
        help="over every (system, metric): holm and bonferroni keep the "
        "family-wise error, fdr_bh the false discovery rate (default: "
        "%(default)s)",
    ),
    Flag(
        "--confidence-level",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="level of the interval of the gap; a gap is significant when "
        "its adjusted p is below 1 - LEVEL (default: %(default)s)",
    ),
    Flag(
        "--permutations",
        type=int,
        default=10_000,
        metavar="N",
        help="shuffles of the permutation test (default: %(default)s)",
    ),
    Flag(
        "--resamples",
        type=int,
        default=1000,
        metavar="N",
        help="resamples of the bootstrap interval (default: %(default)s)",
    ),
    Flag(
        "--seed",
        type=int,
        default=0,
        help="seed of the shuffles and the resamples (default: %(default)s)",
    ),
)


def add_parser(commands: Any) -> None:
    """The ``gaps`` subcommand and its arguments."""
    parser = commands.add_parser(
        "gaps",
        description="Per system and metric, the means of the groups of queries that --by "
        "names (every combination of several --by columns), the gap between the highest and "
        "the lowest with a bootstrap interval, and a test that every group is served alike "
        "(a permutation test of the gap, Kruskal-Wallis or the one-way ANOVA); with "
        "--baseline, whether each other system's change from it is the same in every group. "
        "The p-values are corrected over every (system, metric) (the n_tested column). See "
        "docs/fairness.md.",
    )
    add_input(
        parser,
        several_scores="a system's score column (default: score); repeat for several systems",
    )
    add_metric_options(parser)  # --by: the groups (required)
    add_flags(parser.add_argument_group("gaps"), GAPS_FLAGS)
    add_item_group_options(parser)
    add_output(parser)
    parser.set_defaults(handler=run_gaps)


#: gaps' flags that pass an argument of ``gaps()``, checked by its constraints
GAPS_CHECKS = {
    "--baseline": params.PAIRED_BASELINE,
    "--confidence-level": params.LEVEL,
    "--permutations": params.COUNT,
    "--resamples": params.COUNT,
    "--seed": params.SEED,
}


def _check(args: argparse.Namespace, scores: list[str]) -> None:
    """The flags, checked before the file is read (exit status 2)."""
    if not args.by:
        msg = (
            "gaps needs --by COL, the column naming each query's group (an age band, a "
            "country); repeat it for intersectional groups"
        )
        raise CliError(msg, code=2)
    check_flags(args, GAPS_CHECKS, "gaps", scores)


def run_gaps(args: argparse.Namespace, status: Status) -> int:
    """``rankframe gaps``: the table of ``gaps()``; 2 on a bad command line, 1 on data that
    cannot be evaluated (a --by column varying within a query)."""
    scores = list(dict.fromkeys(args.score or ["score"]))
    _check(args, scores)
    # the input and the output: polars, pandas and the library, only once the flags hold
    from rankframe.cli import inputs
    from rankframe.cli.checks import check_rows
    from rankframe.cli.reading import input_format, read_table
    from rankframe.cli.render import render, write

    metrics = inputs.metrics(args.metric)
    options = inputs.options(args)
    roles = inputs.roles(args, scores)
    options.update(inputs.item_groups(args, roles, status))
    frame, source = read_table(
        args.file, input_format(args.file, args.input_format), inputs.columns(roles), status
    )
    check_rows(frame, source, roles)
    ev = inputs.accessor(frame, roles)
    status.show(f"measuring the gaps between groups in {frame.height:,} rows...")
    with inputs.in_file_terms(frame, source, roles, args):
        result = ev.gaps(
            metrics,
            roles.by,
            baseline=args.baseline,
            test=args.test,
            correction=None if args.correction == "none" else args.correction,
            confidence_level=args.confidence_level,
            n_permutations=args.permutations,
            n_resamples=args.resamples,
            seed=args.seed,
            **options,
        )
    status.clear()
    scaled = GAPS if args.baseline is None else GAPS_AGAINST_BASELINE
    write(render(result, args.format, percent=scaled if args.percent else ()), args.output)
    return 0
