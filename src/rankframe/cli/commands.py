"""The commands: ``evaluate``, ``compare``, ``trec`` and ``demo``, each from parsed arguments
to the text it writes."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rankframe.cli.checks import Roles, check_rows, explain
from rankframe.cli.errors import CliError, fail, in_cli_terms
from rankframe.cli.reading import check_exists, input_format, read_table
from rankframe.cli.recording import check_record_options, record
from rankframe.cli.render import render, write
from rankframe.cli.source import Source
from rankframe.cli.status import Status
from rankframe.exceptions import RankEvalError, TrecFormatError

if TYPE_CHECKING:
    import polars as pl

DEFAULT_METRICS = [
    "mrr@10", "ndcg@10", "map@100", "acc@1", "acc@10", "precision@10", "recall@100",
]
# compare()'s columns on the scale of the row's metric, shown as percentages by --percent
# when the metric is bounded (MetricDef.bounded): its statistic (a mean or a geometric
# mean of values in [0, 1] is in [0, 1])...
COMPARE_STATISTIC_COLUMNS = ("mean", "reference_mean")
# ... and the difference and its interval, except for a geometric mean, whose delta and
# interval are of logs (the log of the ratio). `ratio` is never on the metric's scale.
COMPARE_DIFFERENCE_COLUMNS = ("delta", "ci_low", "ci_high")

Command = Callable[[argparse.Namespace, Status], int]


def _metrics(specs: Sequence[str] | None) -> list[str]:
    """The -m arguments (repeatable, or comma-separated; a label's options in parentheses,
    ``f1@5(beta=2)``), checked against the registry."""
    from rankframe.metrics.registry import parse_metrics

    try:
        return [str(m) for m in parse_metrics(list(specs or DEFAULT_METRICS))]
    except RankEvalError as error:
        raise CliError(str(error), code=2) from None


def _labels(metrics: Sequence[str], options: dict[str, Any]) -> list[str]:
    """The output's metric columns: each metric's label with the options given."""
    from rankframe.metrics.registry import labels

    try:
        return labels(metrics, options)
    except RankEvalError as error:
        raise CliError(in_cli_terms(error), code=2) from None


def _percent_labels(labels: Sequence[str]) -> list[str]:
    """The metric columns --percent shows as percentages: those of the metrics declared
    bounded (``MetricDef.bounded``: values in [0, 1]); the others are plain numbers."""
    from rankframe.metrics.registry import parse_metric

    return [label for label in labels if parse_metric(label).definition.bounded]


def _percent_of_compare(row: Mapping[str, Any]) -> tuple[str, ...]:
    """The columns of a row of compare()'s result that --percent shows as percentages,
    from the declaration of the row's metric (its ``metric`` column, a label without its
    parameter, and ``k``): none for a metric not bounded, not the difference of a geometric
    mean (a difference of logs)."""
    from rankframe.metrics.registry import parse_metric

    label, k = str(row["metric"]), row.get("k")
    if k is not None and k == k:  # not null, not NaN: name(options)@k parses back
        label += f"@{int(k) if float(k).is_integer() else k}"
    definition = parse_metric(label).definition
    if not definition.bounded:
        return ()
    if definition.aggregate == "geometric":
        return COMPARE_STATISTIC_COLUMNS
    return COMPARE_STATISTIC_COLUMNS + COMPARE_DIFFERENCE_COLUMNS


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The metric options given on the command line, checked."""
    from rankframe.settings.conventions import CONVENTION
    from rankframe.settings.options import OPTIONS, Options

    given = {
        name: getattr(args, name)
        for name in OPTIONS
        if getattr(args, name, None) is not None
    }
    try:
        Options(**given)
        CONVENTION.validate(args.convention)
    except RankEvalError as error:
        raise CliError(in_cli_terms(error), code=2) from None
    if args.convention is not None:
        given["convention"] = args.convention
    return given


def _roles(args: argparse.Namespace, scores: Sequence[str]) -> Roles:
    """The columns by role; a --by column that has another role is a usage error."""
    roles = Roles(args.query, args.item, scores, args.relevant, list(dict.fromkeys(args.by or [])))
    taken = {roles.query: "--query", roles.item: "--item", roles.relevant: "--relevant"}
    taken.update(dict.fromkeys(scores, "--score"))
    for column in roles.by:
        if column in taken:
            msg = (
                f"--by {column} is the {taken[column]} column; pass --by with a column that "
                "describes the query (a user segment, a theme)"
            )
            raise CliError(msg, code=2)
    return roles


def _columns(roles: Roles, args: argparse.Namespace | None = None) -> dict[str, str]:
    """Every column the command reads → the option that names it (--time with windows)."""
    columns = {roles.query: "--query", roles.item: "--item"}
    columns.update(dict.fromkeys(roles.scores, "--score"))
    columns[roles.relevant] = "--relevant"
    columns.update({b: "--by" for b in roles.by if b not in columns})
    time = getattr(args, "time", None)
    if time is not None:
        columns.setdefault(time, "--time")
    return columns


def check_time_options(args: argparse.Namespace) -> None:
    """--every needs --time; --time-unit is for an integer --time column."""
    if args.every is not None and args.time is None:
        raise CliError("--every needs --time COL, the time column of the queries", code=2)
    if getattr(args, "time_unit", None) is not None and args.time is None:
        raise CliError("--time-unit needs --time COL, an integer column of epochs", code=2)


def with_times(frame: pl.DataFrame, source: Source, args: argparse.Namespace) -> pl.DataFrame:
    """The --time column of a text file (CSV, TSV, JSON lines: text) parsed as ISO 8601
    datetimes (polars ``str.to_datetime``: with an offset or ``Z``, UTC datetimes; without,
    naive ones; a date, midnight); other types as they are."""
    import polars as pl

    time = getattr(args, "time", None)
    if time is None or frame.schema[time] != pl.String:
        return frame
    try:
        # a Series, not an expression: polars infers the format and the offset from its values
        return frame.with_columns(frame.get_column(time).str.to_datetime())
    except pl.exceptions.PolarsError:
        first = frame.get_column(time).drop_nulls().head(1).to_list()
        example = f" (first value {first[0]!r})" if first else ""
        msg = (
            f"--time {time}: the column of {source.name} holds text that is not an ISO 8601 "
            f"datetime{example}; write it as 2024-01-31T12:00:00Z or 2024-01-31, or pass "
            "integer epochs with --time-unit"
        )
        raise CliError(msg, code=2) from None


def timed(ev: Any, args: argparse.Namespace) -> Any:
    """The accessor bound to the --time column (and --time-unit)."""
    if getattr(args, "time", None) is None:
        return ev
    return ev(time=args.time, time_unit=args.time_unit)


def _read(args: argparse.Namespace, roles: Roles, status: Status) -> tuple[pl.DataFrame, Source]:
    """The file's columns, checked row by row in the file's terms."""
    check_time_options(args)
    fmt = input_format(args.file, args.input_format)
    frame, source = read_table(args.file, fmt, _columns(roles, args), status)
    check_rows(frame, source, roles)
    return with_times(frame, source, args), source


def _accessor(frame: pl.DataFrame, roles: Roles) -> Any:
    import rankframe  # noqa: F401  (registers the accessors)

    scores = list(roles.scores)
    score: str | list[str] = scores[0] if len(scores) == 1 else scores
    # polars does not know registered namespaces
    return cast("Any", frame).rank_eval(
        query=roles.query, item=roles.item, score=score, relevant=roles.relevant
    )


@contextmanager
def _in_file_terms(
    frame: pl.DataFrame, source: Source, roles: Roles, args: argparse.Namespace
) -> Iterator[None]:
    """The library's refusal of the data, said with the file's lines and the options."""
    try:
        yield
    except RankEvalError as error:
        explained = explain(error, frame, source, roles, args.min_relevance)
        if explained is None:
            raise
        raise explained from None


def run_evaluate(args: argparse.Namespace, status: Status) -> int:
    """``rankframe evaluate``."""
    check_record_options(args)
    metrics = _metrics(args.metric)
    options = _options(args)
    roles = _roles(args, list(dict.fromkeys(args.score or ["score"])))
    frame, source = _read(args, roles, status)
    status.show(f"evaluating {frame.height:,} rows...")
    ev = timed(_accessor(frame, roles), args)
    method = ev.per_query if args.per_query else ev.evaluate
    windows = {} if args.every is None else {"every": args.every}
    with _in_file_terms(frame, source, roles, args):
        result = method(metrics, by=roles.by or None, **windows, **options)
    status.clear()
    record(args, result)
    percent = _percent_labels(_labels(metrics, options)) if args.percent else ()
    write(render(result, args.format, percent=percent), args.output)
    return 0


def _check_compare(args: argparse.Namespace, scores: Sequence[str]) -> str | None:
    """The tests' options, checked; the baseline (``None`` with --reference)."""
    if args.reference is not None and args.baseline is not None:
        msg = (
            "--baseline and --reference cannot be combined: --baseline compares the --score "
            "columns with one of them, --reference each with the same column of FILE2"
        )
        raise CliError(msg, code=2)
    # --every without --baseline: each window against the previous one, per system
    window_over_window = args.every is not None and args.baseline is None
    if args.reference is None and not window_over_window and len(scores) < 2:
        msg = (
            "compare needs at least two score columns, e.g. --score model_a --score model_b "
            "(or one with --reference FILE2, or with --time COL --every 1w: each window "
            "against the previous one)"
        )
        raise CliError(msg, code=2)
    baseline: str | None = args.baseline if args.baseline is not None else scores[0]
    if args.reference is not None or window_over_window:
        baseline = None
    elif baseline not in scores:
        msg = (
            f"--baseline {baseline!r} is not one of the --score columns "
            f"({', '.join(map(repr, scores))}); pass one of them"
        )
        raise CliError(msg, code=2)
    if not 0 < args.alpha < 1:
        raise CliError(f"--alpha must be between 0 and 1; got {args.alpha}", code=2)
    level = args.confidence_level
    if level is not None and not 0 < level < 1:
        raise CliError(f"--confidence-level must be between 0 and 1; got {level}", code=2)
    for flag, value in (("--permutations", args.permutations), ("--resamples", args.resamples)):
        if value < 1:
            raise CliError(f"{flag} must be a positive integer; got {value}", code=2)
    return baseline


def run_compare(args: argparse.Namespace, status: Status) -> int:
    """``rankframe compare``."""
    default = ["score"] if args.reference is not None or args.every is not None else []
    scores = list(dict.fromkeys(args.score or default))
    baseline = _check_compare(args, scores)
    check_record_options(args)
    metrics = _metrics(args.metric)
    options = _options(args)
    roles = _roles(args, scores)
    frame, source = _read(args, roles, status)
    reference = None
    if args.reference is not None:  # the same columns, read and checked as FILE
        fmt = input_format(args.reference, args.input_format)
        reference, reference_source = read_table(args.reference, fmt, _columns(roles, args),
                                                 status)
        check_rows(reference, reference_source, roles)
        reference = with_times(reference, reference_source, args)
    ev = timed(_accessor(frame, roles), args)
    compare = getattr(ev, "compare", None)
    if compare is None:
        msg = "this version of rankframe has no compare(); upgrade rankframe"
        raise CliError(msg)
    if args.confidence_level is not None:
        options["confidence_level"] = args.confidence_level
    status.show(f"comparing {len(scores)} systems on {frame.height:,} rows...")
    with _in_file_terms(frame, source, roles, args):
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
            **options,
        )
    status.clear()
    record(args, result)
    if args.format in ("latex", "paper"):
        from rankframe.report import to_latex, to_markdown

        paper = to_latex if args.format == "latex" else to_markdown
        write(paper(result), args.output)
        return 0
    percent = _percent_of_compare if args.percent else ()
    # the baseline's rows have no test: blank rather than NaN
    write(render(result, args.format, percent=percent, nan=""), args.output)
    return 0


def run_trec(args: argparse.Namespace, status: Status) -> int:
    """``rankframe trec``: trec_eval's output format."""
    from rankframe.trec import parse_trec_measures, trec_eval_report

    try:
        parse_trec_measures(args.measure)
    except RankEvalError as error:
        raise CliError(str(error), code=2) from None
    for path in (args.qrels, args.run):
        check_exists(path)
    status.show(f"evaluating {args.run} against {args.qrels}...")
    try:
        text = trec_eval_report(
            args.run,
            args.qrels,
            args.measure,
            per_query=args.q,
            summary=not args.n,
            complete=args.c,
            min_relevance=args.l,
        )
    except OSError as error:
        raise CliError(f"cannot read {error.filename!r}: {error.strerror or error}") from None
    except TrecFormatError as error:
        # four fields where a run has six: most likely the qrels, given second
        swapped = error.kind == "run" and error.n_fields == 4
        hint = " The arguments are QRELS, then RUN, as for trec_eval." if swapped else ""
        raise CliError(f"{error}{hint}") from None
    status.clear()
    write(text, args.output)
    return 0


def run_demo(args: argparse.Namespace, status: Status) -> int:
    """``rankframe demo``; with ``--write FILE``, write the sample data to FILE instead."""
    from rankframe.cli.demo import demo

    if args.write is not None:
        from rankframe.datasets import recommendations

        path = Path(args.write)
        frame = recommendations(seed=args.seed)
        suffix = path.suffix.lower()
        if suffix not in (".csv", ".parquet", ".pq"):
            return fail(f"cannot write {str(path)!r}: use a .csv or .parquet file name.", 2)
        if suffix == ".csv":
            frame.to_csv(path, index=False)
        else:
            frame.to_parquet(path, index=False)
        print(f"wrote {len(frame):,} rows to {path}", file=sys.stderr)
        return 0
    status.show("evaluating the sample data...")
    out = io.StringIO()
    demo(seed=args.seed, out=out)
    status.clear()
    write(out.getvalue(), None)
    return 0
