"""``rankframe agreement``: a judge's grades (--relevant) checked against people's (--gold),
one of ``agreement()``'s tables (``RankEval.agreement``, docs/judgments.md)."""

from __future__ import annotations

import argparse
from typing import Any

from rankframe.cli.errors import CliError
from rankframe.cli.flags import Flag, add_flags, check_flags
from rankframe.cli.options import add_input, add_judgment_options, add_metric_options, add_output
from rankframe.cli.status import Status
from rankframe.settings import params

#: the tables of ``agreement()``: those of the grades, then those of the metrics (-m)
GRADE_TABLES = ("grades", "confusion")
METRIC_TABLES = ("bias", "orders", "conclusions")

AGREEMENT_FLAGS = (
    Flag(
        "--table",
        choices=(*GRADE_TABLES, *METRIC_TABLES),
        default="grades",
        help="grades: kappas and alpha of the rows both graded; confusion: their confusion "
        "matrix; with -m, on the queries people judged: bias (the judge's mean minus "
        "people's), orders (Kendall's tau of the systems), conclusions (each pair of "
        "systems under both sets of grades) (default: %(default)s)",
    ),
    Flag(
        "--alpha",
        type=float,
        default=0.05,
        help="significance level of the conclusions (default: %(default)s)",
    ),
    Flag(
        "--confidence-level",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="level of the bias's interval (default: %(default)s)",
    ),
)

#: agreement's flags that pass an argument of ``agreement()``, checked by its constraints
AGREEMENT_CHECKS = {"--alpha": params.LEVEL, "--confidence-level": params.LEVEL}


def add_parser(commands: Any) -> None:
    """The ``agreement`` subcommand and its arguments."""
    parser = commands.add_parser(
        "agreement",
        description="How well a judge's grades (--relevant, e.g. an LLM's) agree with "
        "people's (--gold, empty where no person judged the row): Cohen's kappa and "
        "Krippendorff's alpha of the rows both graded, their confusion matrix, and with -m "
        "the judge's bias, the systems' orders and conclusions on the queries people judged "
        "(every row graded by people). See docs/judgments.md.",
    )
    add_input(
        parser,
        several_scores="a system's score column (default: score); repeat for several systems",
    )
    add_metric_options(parser)
    add_judgment_options(parser, estimate=False)
    add_flags(parser.add_argument_group("agreement"), AGREEMENT_FLAGS)
    add_output(parser, percent=False)  # kappas, counts, differences
    parser.set_defaults(handler=run_agreement)


def _check(args: argparse.Namespace, scores: list[str]) -> None:
    """The flags, checked before the file is read (exit status 2)."""
    if args.gold is None:
        msg = (
            f"agreement compares the judge's grades (--relevant {args.relevant}) with "
            "people's: pass --gold COL, the column of people's grades (empty where no "
            "person judged the row)"
        )
        raise CliError(msg, code=2)
    if args.table in METRIC_TABLES and not args.metric:
        msg = f"--table {args.table} compares metrics under both sets of grades: pass -m METRIC"
        raise CliError(msg, code=2)
    check_flags(args, AGREEMENT_CHECKS, "agreement", scores)


def run_agreement(args: argparse.Namespace, status: Status) -> int:
    """``rankframe agreement``: one table of ``agreement()``; 2 on a bad command line, 1 on
    data that cannot be compared (no row graded by both, grades on different scales)."""
    # the input and the output: polars, pandas and the library, only when the command runs
    from rankframe.cli import inputs
    from rankframe.cli.checks import check_rows
    from rankframe.cli.reading import input_format, read_table
    from rankframe.cli.render import render, write

    scores = list(dict.fromkeys(args.score or ["score"]))
    _check(args, scores)
    metrics = inputs.metrics(args.metric) if args.metric else None
    options = inputs.options(args)
    roles = inputs.roles(args, scores)
    frame, source = read_table(
        args.file, input_format(args.file, args.input_format), inputs.columns(roles), status
    )
    check_rows(frame, source, roles)
    ev = inputs.accessor(frame, roles)
    status.show(f"comparing the judge's grades with people's in {frame.height:,} rows...")
    with inputs.in_file_terms(frame, source, roles, args):
        found = ev.agreement(
            metrics,
            by=roles.by or None,
            alpha=args.alpha,
            confidence_level=args.confidence_level,
            **options,
        )
        table = getattr(found, args.table)
    status.clear()
    write(render(table, args.format), args.output)
    return 0
