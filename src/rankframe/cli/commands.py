"""The commands ``evaluate``, ``compare`` and ``demo``: each one's arguments (``add_*``, called
by ``parser`` when the command is parsed) and its run, from parsed arguments to the text it
writes. The runs import what reads a file and writes a table (``inputs``, ``checks``,
``reading``, ``render``, the registry: polars, pandas and the library) when they run:
``rankframe evaluate --help`` imports none of it."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankframe.cli.errors import CliError, fail, in_cli_terms
from rankframe.cli.flags import check_flags
from rankframe.cli.options import (
    add_input,
    add_item_group_options,
    add_judgment_options,
    add_metric_options,
    add_output,
    add_test_options,
    add_time_options,
)
from rankframe.cli.percent import COMPARE, bounded_labels
from rankframe.cli.recording import add_record_options, check_record_options, record
from rankframe.cli.status import Status
from rankframe.exceptions import RankEvalError
from rankframe.settings import params

if TYPE_CHECKING:
    import polars as pl

    from rankframe.cli.checks import Roles
    from rankframe.cli.source import Source


def _labels(metrics: Sequence[str], options: dict[str, Any]) -> list[str]:
    """The output's metric columns: each metric's label with the options given."""
    # the registry imports the frame libraries: only when the command runs
    from rankframe.metrics.registry import labels as metric_labels

    try:
        return metric_labels(metrics, options)
    except RankEvalError as error:
        raise CliError(in_cli_terms(error), code=2) from None


def _read(args: argparse.Namespace, roles: Roles, status: Status) -> tuple[pl.DataFrame, Source]:
    """The file's columns, checked row by row in the file's terms."""
    # reading a file: polars and the library, only when the command runs
    from rankframe.cli import inputs
    from rankframe.cli.checks import check_rows
    from rankframe.cli.reading import input_format, read_table

    inputs.check_time_options(args)
    fmt = input_format(args.file, args.input_format)
    frame, source = read_table(args.file, fmt, inputs.columns(roles, args), status)
    check_rows(frame, source, roles)
    return inputs.with_times(frame, source, args), source


def add_evaluate(commands: Any) -> None:
    """``rankframe evaluate``: the metrics of a long-format file."""
    evaluate = commands.add_parser(
        "evaluate",
        description="Ranking metrics of a long-format file: one row per (query, item) with a "
        "score (empty: judged but not retrieved) and a relevance grade.",
    )
    add_input(
        evaluate,
        several_scores="score column (default: score); repeat to evaluate "
        "several systems, one row each",
    )
    add_metric_options(evaluate)
    add_judgment_options(evaluate, estimate=True)
    add_item_group_options(evaluate)
    add_time_options(
        evaluate.add_argument_group("time windows"),
        every="one row per window, its start in a leading 'window' column",
    )
    add_output(evaluate, per_query=True)
    add_record_options(evaluate)
    evaluate.set_defaults(handler=run_evaluate)


def run_evaluate(args: argparse.Namespace, status: Status) -> int:
    """``rankframe evaluate``."""
    # the input and the output: polars, pandas and the library, only when the command runs
    from rankframe.cli import inputs
    from rankframe.cli.render import render, write

    check_record_options(args)
    estimate = inputs.estimate(args, "evaluate")
    metrics = inputs.metrics(args.metric)
    options = inputs.options(args)
    roles = inputs.roles(args, list(dict.fromkeys(args.score or ["score"])))
    options.update(inputs.item_groups(args, roles, status))
    frame, source = _read(args, roles, status)
    status.show(f"evaluating {frame.height:,} rows...")
    ev = inputs.timed(inputs.accessor(frame, roles), args)
    method = ev.per_query if args.per_query else ev.evaluate
    windows = {} if args.every is None else {"every": args.every}
    with inputs.in_file_terms(frame, source, roles, args):
        result = method(metrics, by=roles.by or None, **windows, **estimate, **options)
    status.clear()
    record(args, result)
    percent = bounded_labels(_labels(metrics, options)) if args.percent else ()
    write(render(result, args.format, percent=percent), args.output)
    return 0


#: compare's flags that pass an argument of ``compare()``, checked by its constraints
COMPARE_CHECKS = {
    "--baseline": params.BASELINE,
    "--alpha": params.LEVEL,
    "--confidence-level": params.OPTIONAL_LEVEL,
    "--permutations": params.COUNT,
    "--resamples": params.COUNT,
    "--seed": params.SEED,
}


def _check_compare(args: argparse.Namespace, scores: Sequence[str]) -> str | None:
    """The tests' options, checked; the baseline (``None`` with --reference)."""
    if args.reference is not None:
        try:
            params.check_baseline_or_reference("compare", args.baseline)
        except RankEvalError as error:
            raise CliError(in_cli_terms(error), code=2) from None
    # --every without --baseline: each window against the previous one, per system
    window_over_window = args.every is not None and args.baseline is None
    if args.reference is None and not window_over_window and len(scores) < 2:
        msg = (
            "compare needs at least two score columns, e.g. --score model_a --score model_b "
            "(or one with --reference FILE2, or with --time COL --every 1w: each window "
            "against the previous one)"
        )
        raise CliError(msg, code=2)
    check_flags(args, COMPARE_CHECKS, "compare", scores)
    if args.reference is not None or window_over_window:
        return None
    return args.baseline if args.baseline is not None else scores[0]


def add_compare(commands: Any) -> None:
    """``rankframe compare``: score columns against a baseline (or a reference file)."""
    compare = commands.add_parser(
        "compare",
        description="Compare score columns of one file against a baseline: means, deltas, "
        "confidence intervals and p-values of paired tests over queries.",
    )
    add_input(
        compare,
        several_scores="a system's score column; give two or more (one is "
        "enough with --reference; default there: score)",
    )
    add_metric_options(compare)
    add_judgment_options(compare, estimate=True)
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


def run_compare(args: argparse.Namespace, status: Status) -> int:
    """``rankframe compare``."""
    # the input and the output: polars, pandas and the library, only when the command runs
    from rankframe.cli import inputs
    from rankframe.cli.checks import check_rows
    from rankframe.cli.reading import input_format, read_table
    from rankframe.cli.render import render, write

    default = ["score"] if args.reference is not None or args.every is not None else []
    scores = list(dict.fromkeys(args.score or default))
    baseline = _check_compare(args, scores)
    estimate = inputs.estimate(args, "compare")
    check_record_options(args)
    metrics = inputs.metrics(args.metric)
    options = inputs.options(args)
    roles = inputs.roles(args, scores)
    options.update(inputs.item_groups(args, roles, status))
    frame, source = _read(args, roles, status)
    reference = None
    if args.reference is not None:  # the same columns, read and checked as FILE
        fmt = input_format(args.reference, args.input_format)
        reference, reference_source = read_table(
            args.reference, fmt, inputs.columns(roles, args), status
        )
        check_rows(reference, reference_source, roles)
        reference = inputs.with_times(reference, reference_source, args)
    ev = inputs.timed(inputs.accessor(frame, roles), args)
    compare = getattr(ev, "compare", None)
    if compare is None:
        msg = "this version of rankframe has no compare(); upgrade rankframe"
        raise CliError(msg)
    if args.confidence_level is not None:
        options["confidence_level"] = args.confidence_level
    status.show(f"comparing {len(scores)} systems on {frame.height:,} rows...")
    with inputs.in_file_terms(frame, source, roles, args):
        result = compare(
            metrics,
            baseline=baseline,
            test=args.test,
            correction=args.correction,
            family=args.family,
            alpha=args.alpha,
            n_permutations=args.permutations,
            n_resamples=args.resamples,
            seed=args.seed,
            by=roles.by or None,
            **({} if reference is None else {"reference": reference}),
            **({} if args.every is None else {"every": args.every}),
            **estimate,
            **options,
        )
    status.clear()
    record(args, result)
    if args.format in ("latex", "paper"):
        from rankframe.report import to_latex, to_markdown  # the report package: only here

        paper = to_latex if args.format == "latex" else to_markdown
        write(paper(result), args.output)
        return 0
    percent = COMPARE if args.percent else ()
    # the baseline's rows have no test: blank rather than NaN
    write(render(result, args.format, percent=percent, nan=""), args.output)
    return 0


def add_demo(commands: Any) -> None:
    """``rankframe demo``: the embedded sample data, evaluated or written out."""
    demo_parser = commands.add_parser("demo")
    demo_parser.add_argument("--seed", type=int, default=0, help="seed of the sample data")
    demo_parser.add_argument(
        "--write",
        metavar="FILE",
        help="write the sample data to FILE (.csv or .parquet) "
        "instead of evaluating it, e.g. to try `rankframe compare` on it",
    )
    demo_parser.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace, status: Status) -> int:
    """``rankframe demo``; with ``--write FILE``, write the sample data to FILE instead."""
    # the sample data and the output: pandas and the library, only when the command runs
    from rankframe.cli.demo import demo
    from rankframe.cli.render import write
    from rankframe.datasets import recommendations

    if not 0 <= args.seed < 2**64:
        raise CliError(f"--seed must be an integer from 0 to 2**64 - 1; got {args.seed}", code=2)
    if args.write is not None:
        path = Path(args.write)
        frame = recommendations(seed=args.seed)
        suffix = path.suffix.lower()
        if suffix not in (".csv", ".parquet", ".pq"):
            return fail(f"cannot write {str(path)!r}: use a .csv or .parquet file name.", 2)
        try:
            if suffix == ".csv":
                frame.to_csv(path, index=False)
            else:
                frame.to_parquet(path, index=False)
        except OSError as error:  # a missing directory, no permission: as `write` says it
            raise CliError(f"cannot write {str(path)!r}: {error.strerror or error}") from None
        print(f"wrote {len(frame):,} rows to {path}", file=sys.stderr)
        return 0
    status.show("evaluating the sample data...")
    out = io.StringIO()
    demo(seed=args.seed, out=out)
    status.clear()
    write(out.getvalue(), None)
    return 0
