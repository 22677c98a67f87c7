"""``rankframe report``: one self-contained HTML file of a long-format file (issue 28)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rankframe.cli.errors import CliError, in_cli_terms
from rankframe.cli.flags import Flag, add_flags, check_flags
from rankframe.cli.options import (
    add_input,
    add_item_group_options,
    add_judgment_options,
    add_metric_options,
    add_test_options,
    add_time_options,
)
from rankframe.cli.status import Status
from rankframe.exceptions import InvalidRuleError, RankEvalError
from rankframe.settings import params

#: The report group, before the tests' flags: the baseline
BASELINE_FLAGS = (
    Flag(
        "--baseline",
        metavar="COL",
        help="the score column the others are compared to (default: the first)",
    ),
)

#: What the page shows of the worst queries, and its title
SHOWN_FLAGS = (
    Flag(
        "--worst",
        type=int,
        default=10,
        metavar="N",
        help="worst queries shown (default: %(default)s)",
    ),
    Flag(
        "--top-k",
        type=int,
        default=10,
        metavar="K",
        help="items shown of each worst query's list (default: %(default)s)",
    ),
    Flag("--title", default="rankframe report", help="the report's title"),
)

#: The sections of the page (a reference, gates, slices, the exposure of item groups) and the output
SECTION_FLAGS = (
    Flag(
        "--reference",
        metavar="FILE",
        help="a reference file: each system against the same system there",
    ),
    Flag(
        "--rule",
        action="append",
        metavar="RULE",
        help="a gate, e.g. 'ndcg@10 >= 0.30' (repeatable); the gates section "
        "shows each rule's status (the exit status stays 0: rankframe check "
        "decides)",
    ),
    Flag(
        "--min-queries",
        type=int,
        default=20,
        metavar="N",
        help="gates: segments with fewer queries are 'too few queries' (default: %(default)s)",
    ),
    Flag(
        "--mode",
        choices=("interval", "point"),
        default="interval",
        help="gates: the interval or the test decides, or the value alone (default: %(default)s)",
    ),
    Flag(
        "--slice",
        action="append",
        metavar="COL",
        help="a column of a section 'Where it fails' (repeatable): the worst "
        "slices of the queries over these columns, as rankframe slices "
        "--column finds them",
    ),
    Flag(
        "--slice-min-queries",
        type=int,
        default=30,
        metavar="N",
        help="with --slice: the fewest queries a slice needs to be tested (default: %(default)s)",
    ),
    Flag(
        "--exposure-k",
        type=int,
        default=10,
        metavar="K",
        help="with --item-groups: the cut-off of the section on the exposure "
        "of item groups (default: %(default)s)",
    ),
    Flag(
        "--fingerprint",
        action="store_true",
        help="show the input's fingerprint under the title: the hash of the "
        "query, item, score and relevance columns that --record stores with "
        "a run (the same whatever the file's format and row order; it reads "
        "the rows once more)",
    ),
    Flag(
        "-o",
        "--output",
        metavar="FILE",
        default="report.html",
        help="the HTML file to write (default: %(default)s)",
    ),
)


def add_parser(commands: Any) -> None:
    """The ``report`` subcommand and its arguments."""
    report = commands.add_parser(
        "report",
        description="Write one self-contained HTML file (no network request, no script) "
        "of the metrics of a long-format file: the data, each system with its interval and "
        "significance marks against the baseline, segments, metric@k curves, per-query "
        "distributions, win/tie/loss and the worst queries.",
    )
    add_input(
        report, several_scores="a system's score column (default: score); repeat to compare systems"
    )
    add_metric_options(report)
    add_item_group_options(report)
    add_judgment_options(report, estimate=False)  # --gold: the section "Judgments"
    group = report.add_argument_group("report")
    add_flags(group, BASELINE_FLAGS)
    add_test_options(group)
    add_flags(group, SHOWN_FLAGS)
    add_time_options(group, every="windows of a trend section")
    add_flags(group, SECTION_FLAGS)
    report.set_defaults(handler=run_report)


#: report's flags that pass an argument of ``report()``, checked by its constraints (and
#: ``--min-queries``, ``check()``'s, with --rule)
REPORT_CHECKS = {
    "--baseline": params.BASELINE,
    "--alpha": params.LEVEL,
    "--confidence-level": params.LEVEL,
    "--resamples": params.COUNT,
    "--seed": params.SEED,
    "--slice-min-queries": params.AT_LEAST_ONE,
    "--exposure-k": params.AT_LEAST_ONE,
}


def _check(args: argparse.Namespace, scores: list[str]) -> None:
    """The flags, checked before the file is read (exit status 2): those of report()'s
    arguments, the time window, the rules."""
    # the rules' parser and the inputs: the library, only when the command runs
    from rankframe.api.rules import parse_rules
    from rankframe.cli import inputs

    check_flags(args, REPORT_CHECKS, "report", scores)
    inputs.check_time_options(args)  # --every needs --time, --time-unit an integer --time
    if (args.every is None) != (args.time is None):
        raise CliError("--every and --time go together, e.g. --time served_at --every 1w", code=2)
    if args.rule:
        check_flags(args, {"--min-queries": params.GATE_MIN_QUERIES}, "report")
        try:  # a bad rule is reported before the file is read
            parse_rules(args.rule)
        except RankEvalError as error:
            raise CliError(in_cli_terms(error), code=2) from None


def _sections(args: argparse.Namespace, options: dict[str, Any], reference: Any) -> dict[str, Any]:
    """report()'s keywords of the sections the flags ask for: a trend (--every), a
    reference (FILE read), gates (--rule), slices (--slice) and the exposure of item groups
    (--item-groups)."""
    extra: dict[str, Any] = {}
    if args.time is not None:
        extra["every"] = args.every
    if reference is not None:
        extra["reference"] = reference
    if args.rule:
        extra.update(rules=list(args.rule), min_queries=args.min_queries, mode=args.mode)
    if args.slice:
        extra.update(
            slices=list(dict.fromkeys(args.slice)), slice_min_queries=args.slice_min_queries
        )
    if "item_groups" in options:
        extra["exposure_k"] = args.exposure_k
    return extra


def run_report(args: argparse.Namespace, status: Status) -> int:
    """``rankframe report``: writes the file, says so on stderr (``rankframe: wrote
    PATH``, as ``rankframe dashboard``) and exits 0; 2 on a bad command line (a bad
    rule, ``--every`` without ``--time``, an unknown baseline), 1 on data that cannot be
    evaluated (as ``rankframe evaluate``)."""
    # the input: polars and the library, only when the command runs
    from rankframe.cli import inputs
    from rankframe.cli.checks import check_rows
    from rankframe.cli.reading import input_format, read_table

    scores = list(dict.fromkeys(args.score or ["score"]))
    _check(args, scores)
    metrics = inputs.metrics(args.metric)
    options = inputs.options(args)
    roles = inputs.roles(args, scores)
    options.update(inputs.item_groups(args, roles, status))
    columns = inputs.columns(roles)
    columns.update({c: "--slice" for c in args.slice or [] if c not in columns})
    if args.time is not None:
        columns.setdefault(args.time, "--time")
    frame, source = read_table(
        args.file, input_format(args.file, args.input_format), columns, status
    )
    check_rows(frame, source, roles)
    frame = inputs.with_times(frame, source, args)
    ev = inputs.timed(inputs.accessor(frame, roles), args)
    reference = None
    if args.reference is not None:
        reference, ref_source = read_table(  # the same columns, the time column too
            args.reference, input_format(args.reference, None), columns, status
        )
        check_rows(reference, ref_source, roles)
        reference = inputs.with_times(reference, ref_source, args)
    extra = _sections(args, options, reference)
    status.show(f"reporting on {frame.height:,} rows...")
    with _rules_on_the_command_line(), inputs.in_file_terms(frame, source, roles, args):
        report = ev.report(
            metrics,
            by=roles.by or None,
            baseline=args.baseline,
            test=args.test,
            correction=args.correction,
            alpha=args.alpha,
            confidence_level=args.confidence_level,
            n_resamples=args.resamples,
            seed=args.seed,
            worst=args.worst,
            top_k=args.top_k,
            title=args.title,
            name=None if str(args.file) == "-" else Path(str(args.file)).name,
            fingerprint=args.fingerprint,
            **extra,
            **options,
        )
    status.clear()
    try:
        report.save(args.output)
    except OSError as error:
        raise CliError(f"cannot write {args.output!r}: {error.strerror or error}") from None
    print(f"rankframe: wrote {args.output}", file=sys.stderr)  # as `rankframe dashboard`
    return 0


@contextmanager
def _rules_on_the_command_line() -> Iterator[None]:
    """A rule the report cannot gate once the data is known (a drop rule of one score
    column over windows) is a bad command line, as a rule that does not parse: exit 2."""
    try:
        yield
    except InvalidRuleError as error:
        raise CliError(in_cli_terms(error), code=2) from None
