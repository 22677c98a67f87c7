"""``rankframe check``: gates for CI jobs and scheduled checks.

It reads a long-format file (and a reference file), runs ``check(rules)`` and writes one row
per rule, system and segment (and window). Its exit status is the decision: 0 when no row
fails, 1 when one does (``--fail-on uncertain``: an uncertain row too), 2 when the input
cannot be checked (a bad rule or option, a file that cannot be read, data that break the
input contract: every error of this command is 2, so that 1 always means a gate failed).
"too few queries" and "no baseline" rows fail nothing. After the table, one verdict line on
stderr says how many rows failed and which (:func:`verdict`), on a pass too.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankframe.cli.errors import CliError, in_cli_terms
from rankframe.cli.flags import Flag, add_flags, check_flags
from rankframe.cli.names import OUTPUT_FORMATS, RULE_GRAMMAR
from rankframe.cli.options import (
    add_convention_options,
    add_input,
    add_test_options,
    add_time_options,
)
from rankframe.cli.recording import add_record_options, check_record_options, record
from rankframe.cli.status import Status
from rankframe.exceptions import RankEvalError
from rankframe.settings import params
from rankframe.settings.options import OPTIONS

FAIL_ON = ("fail", "uncertain")
#: The gate table's relative columns (a relative drop rule's, ``drop <= 1%``), shown as
#: percentages in the table and Markdown formats, as the rule writes its tolerance.
RELATIVE_COLUMNS = ("delta_relative", "ci_low_relative", "ci_high_relative", "bound_relative")
#: check's flags that pass an argument of ``check()``, checked by its constraints, in its order
CHECK_CHECKS = {
    "--baseline": params.BASELINE,
    "--min-queries": params.GATE_MIN_QUERIES,
    "--alpha": params.LEVEL,
    "--confidence-level": params.LEVEL,
    "--resamples": params.COUNT,
    "--seed": params.SEED,
}


#: The rules group: the rules
RULE_FLAGS = (
    Flag(
        "--rule",
        action="append",
        required=True,
        metavar="RULE",
        help="a rule, repeatable. " + RULE_GRAMMAR.replace("%", "%%"),
    ),
)

#: What drop rules compare with (exclusive)
AGAINST_FLAGS = (
    Flag(
        "--baseline",
        metavar="COL",
        help="drop rules: the score column the others are compared with "
        "(default: the first --score)",
    ),
    Flag(
        "--reference",
        metavar="FILE",
        help="drop rules: a file whose systems are the baselines (same columns and format options)",
    ),
)

#: The segments of the rules
SEGMENT_FLAGS = (
    Flag(
        "--by",
        action="append",
        metavar="COL",
        help="segment column, constant within a query (repeatable)",
    ),
)

#: How a row is decided, and which status fails the check
DECISION_FLAGS = (
    Flag(
        "--mode",
        choices=params.GATE_MODES,
        default="interval",
        help="interval: the interval or the test decides; point: the value "
        "alone (default: %(default)s)",
    ),
    Flag(
        "--min-queries",
        type=int,
        default=20,
        metavar="N",
        help="segments with fewer queries are 'too few queries' (default: %(default)s)",
    ),
    Flag(
        "--fail-on",
        choices=FAIL_ON,
        default="fail",
        help="the status that fails the check; 'uncertain' fails uncertain "
        "rows too (default: %(default)s)",
    ),
)

#: The metric options group: the options of the rules' metrics
METRIC_OPTION_FLAGS = (
    Flag(
        "--min-relevance",
        type=float,
        metavar="GRADE",
        help="lowest grade that counts as relevant (default: grade > 0)",
    ),
    *(
        Flag(
            "--" + name,
            choices=OPTIONS[name].choices,
            help=f"as for evaluate (default: {OPTIONS[name].default})",
        )
        for name in ("ties", "empty", "gain", "denominator")
    ),
    Flag("--beta", type=float, metavar="BETA", help="f1: F-beta's weight of recall (default: 1)"),
)

#: The output group
OUTPUT_FLAGS = (
    Flag(
        "--format",
        choices=OUTPUT_FORMATS,
        default="table",
        help="output format (default: %(default)s; json: an array of "
        "objects, one per row, NaN as null)",
    ),
    Flag("-o", "--output", metavar="FILE", help="write to FILE, not stdout"),
)


def add_parser(commands: Any) -> None:
    """The ``check`` subcommand's arguments."""
    check = commands.add_parser(
        "check",
        description="Check rules on the metrics of a long-format file, one row per rule, "
        "system and segment, with the interval, the test and a status (pass, fail, "
        "uncertain, too few queries, no baseline). Exit status: 0 when no row fails, 1 "
        "when one does, 2 on bad input.",
    )
    add_input(
        check,
        several_scores="score column (default: score); repeat for several "
        "systems (drop rules compare them with --baseline)",
    )
    gates = check.add_argument_group("rules")
    add_flags(gates, RULE_FLAGS)
    add_flags(gates.add_mutually_exclusive_group(), AGAINST_FLAGS)
    add_flags(gates, SEGMENT_FLAGS)
    add_time_options(
        gates,
        every="absolute rules per window, drop rules each window "
        "against the previous one (with --baseline: the baseline within each "
        "window; with --reference: the same window of FILE)",
    )
    add_flags(gates, DECISION_FLAGS)
    add_test_options(
        check.add_argument_group("intervals and tests"),
        test="test of drop rules",
        alpha="significance level of drop rules",
        family="the tests one correction covers (default: %(default)s, every test of the "
        "drop rules)",
        family_default="table",
    )
    options = check.add_argument_group("metric options")
    add_flags(options, METRIC_OPTION_FLAGS)
    add_convention_options(options)
    add_flags(check.add_argument_group("output"), OUTPUT_FLAGS)
    add_record_options(check)
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace, status: Status) -> int:
    """``rankframe check``: the table, and the exit status of the decision."""
    try:
        return _run(args, status)
    except CliError as error:
        raise CliError(str(error), code=2) from None
    except RankEvalError as error:
        raise CliError(in_cli_terms(error), code=2) from None


def _run(args: argparse.Namespace, status: Status) -> int:
    # the rules, the input, the output and the verdict: polars, pandas and the library,
    # only when the command runs
    from rankframe.api.gates import COLUMNS, FAIL, UNCERTAIN, parse_rules
    from rankframe.cli import inputs
    from rankframe.cli.checks import check_rows
    from rankframe.cli.reading import input_format, read_table
    from rankframe.cli.render import render, write
    from rankframe.report.verdict import verdict

    parse_rules(args.rule)  # a bad rule is reported before the file is read
    check_record_options(args)
    scores = list(dict.fromkeys(args.score or ["score"]))
    check_flags(args, CHECK_CHECKS, "check", scores)
    inputs.check_time_options(args)
    options = inputs.options(args)
    roles = inputs.roles(args, scores)
    columns = inputs.columns(roles, args)
    fmt = input_format(args.file, args.input_format)
    frame, source = read_table(args.file, fmt, columns, status)
    check_rows(frame, source, roles)
    frame = inputs.with_times(frame, source, args)
    reference = None
    if args.reference is not None:
        reference, ref_source = read_table(
            args.reference, input_format(args.reference, None), columns, status
        )
        check_rows(reference, ref_source, roles)
        reference = inputs.with_times(reference, ref_source, args)
    ev = inputs.timed(inputs.accessor(frame, roles), args)
    status.show(f"checking {len(args.rule)} rules on {frame.height:,} rows...")
    with inputs.in_file_terms(frame, source, roles, args):
        result = ev.check(
            args.rule,
            baseline=args.baseline,
            reference=reference,
            every=args.every,
            by=roles.by or None,
            mode=args.mode,
            min_queries=args.min_queries,
            confidence_level=args.confidence_level,
            alpha=args.alpha,
            test=args.test,
            correction=args.correction,
            family=args.family,
            n_resamples=args.resamples,
            seed=args.seed,
            **options,
        )
    status.clear()
    record(args, result)
    write(render(result, args.format, nan="", percent=RELATIVE_COLUMNS), args.output)
    failing = {FAIL, UNCERTAIN} if args.fail_on == "uncertain" else {FAIL}
    rows = result.rows(named=True)
    keys = [c for c in result.columns if c not in ("rule", *COLUMNS)]
    print(f"rankframe: {verdict(rows, keys, failing)}", file=sys.stderr)
    return 1 if failing & set(result["status"].to_list()) else 0
