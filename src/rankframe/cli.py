"""The ``rankframe`` command line.

Commands (``rankframe COMMAND --help`` for each):

- ``rankframe evaluate FILE``: ranking metrics of a long-format file (CSV, TSV, Parquet or JSON
  lines), overall, by segment (``--by``) or per query (``--per-query``), for one score column or
  several (``--score`` repeated).
- ``rankframe compare FILE --score a --score b``: systems against a baseline, with significance
  tests corrected for multiple comparisons.
- ``rankframe trec QRELS RUN``: trec_eval's output format for the measures rankframe computes,
  with trec_eval's ``-q``, ``-c``, ``-l`` and ``-m``.
- ``rankframe demo``: the embedded sample data (:func:`rankframe.datasets.recommendations`)
  overall and by user segment, for two models.

Errors print one line on stderr, ``rankframe: error: ...``, and exit with 2 when the command line
is wrong (an unknown option or metric, a missing file, a format that cannot be told from the
extension) or 1 when the data cannot be evaluated (an unreadable file, a missing column, values
that break the input contract). Status lines ("reading FILE...") go to stderr only when it is a
terminal, and are erased when the work is done.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, cast

if TYPE_CHECKING:
    import polars as pl

DEMO_METRICS = ["mrr@10", "ndcg@10", "map@10", "acc@1", "acc@5", "precision@5", "recall@10"]
DEFAULT_METRICS = [
    "mrr@10", "ndcg@10", "map@100", "acc@1", "acc@10", "precision@10", "recall@100",
]
INPUT_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
OUTPUT_FORMATS = ("table", "csv", "json", "markdown")
# columns of compare()'s result on the scale of a metric (shown as percentages by --percent)
COMPARE_VALUE_COLUMNS = ("mean", "delta", "ci_low", "ci_high")
# polars infers CSV and JSON-lines column types from this many rows, then from all of them
# if a later value does not fit
INFER_ROWS = 10_000


class CliError(Exception):
    """An error reported as one line on stderr; ``code`` is the exit status (1 or 2)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one ``rankframe: error:`` line (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message}; see '{self.prog} --help'", code=2)


class Status:
    """Status lines on a terminal's stderr ("reading FILE..."), each erasing the previous.

    Writes nothing unless the stream is a terminal, so pipes and log files stay clean.
    """

    def __init__(self, stream: TextIO | None) -> None:
        isatty = getattr(stream, "isatty", None)
        self.stream = stream if callable(isatty) and isatty() else None
        self.width = 0

    def show(self, text: str) -> None:
        """Replace the current status line with ``text``."""
        if self.stream is None:
            return
        line = f"rankframe: {text}"
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def clear(self) -> None:
        """Erase the status line."""
        if self.stream is None or not self.width:
            return
        self.stream.write("\r" + " " * self.width + "\r")
        self.stream.flush()
        self.width = 0


# -- reading a long-format file ----------------------------------------------------------------


def input_format(path: str, given: str | None) -> str:
    """The format of ``path``: ``given``, else told from the extension."""
    if given is not None:
        return given
    if path == "-":
        return "csv"
    suffix = Path(path).suffix.lower()
    if suffix not in INPUT_FORMATS:
        msg = (
            f"cannot tell the format of {path!r} from its extension; pass --input-format "
            "csv, tsv, parquet or jsonl (extensions: "
            f"{', '.join(INPUT_FORMATS)})"
        )
        raise CliError(msg, code=2)
    return INPUT_FORMATS[suffix]


def _check_exists(path: str) -> None:
    if path != "-" and not os.path.exists(path):
        raise CliError(f"file {path!r} not found; check the path", code=2)


def _scan(source: Any, fmt: str, infer: int | None) -> pl.LazyFrame:
    import polars as pl

    if fmt in ("csv", "tsv"):
        separator = "," if fmt == "csv" else "\t"
        return pl.scan_csv(source, separator=separator, infer_schema_length=infer)
    if fmt == "parquet":
        return pl.scan_parquet(source)
    return pl.scan_ndjson(source, infer_schema_length=infer)


_FORMAT_NAMES = {"csv": "CSV", "tsv": "TSV", "parquet": "Parquet", "jsonl": "JSON lines"}


def read_table(path: str, fmt: str, columns: dict[str, str], status: Status) -> pl.DataFrame:
    """Read the ``columns`` (name → the option that named it) of a CSV/TSV/Parquet/JSONL file.

    ``path`` ``-`` reads standard input. A missing column raises :class:`CliError` naming the
    option to change and the closest column name.
    """
    import polars as pl

    _check_exists(path)
    name = "standard input" if path == "-" else path
    status.show(f"reading {name}...")
    data = sys.stdin.buffer.read() if path == "-" else None

    def source() -> Any:
        return io.BytesIO(data) if data is not None else path

    def failed(error: Exception) -> CliError:
        detail = " ".join(str(error).split("\n\n")[0].split()) or type(error).__name__
        return CliError(
            f"cannot read {name!r} as {_FORMAT_NAMES[fmt]}: {detail}; check the file, or pass "
            "--input-format if it is in another format"
        )

    try:
        names = _scan(source(), fmt, INFER_ROWS).collect_schema().names()
    except (pl.exceptions.PolarsError, OSError) as error:
        raise failed(error) from None
    for column, option in columns.items():
        if column not in names:
            raise CliError(_missing_column(column, option, names, name))
    wanted = list(dict.fromkeys(columns))
    try:
        try:
            return _scan(source(), fmt, INFER_ROWS).select(wanted).collect()
        except pl.exceptions.ComputeError:
            if fmt == "parquet":
                raise
            # a value after the first INFER_ROWS rows does not fit the inferred type
            return _scan(source(), fmt, None).select(wanted).collect()
    except (pl.exceptions.PolarsError, OSError) as error:
        raise failed(error) from None


def _missing_column(column: str, option: str, names: Sequence[str], where: str) -> str:
    import difflib

    close = difflib.get_close_matches(column, names, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    shown = ", ".join(repr(n) for n in names[:20]) + (", ..." if len(names) > 20 else "")
    return (
        f"column {column!r} ({option}) not found in {where!r}.{hint} "
        f"Pass {option} COLUMN to use another column; the columns are {shown}"
    )


# -- rendering a result table ------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A Python scalar: NumPy scalars unwrapped; pandas' missing values as None."""
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    return value


def table_rows(result: Any) -> tuple[list[str], list[list[Any]]]:
    """Column names and rows of a pandas or polars frame (a LazyFrame is collected)."""
    import pandas as pd

    if hasattr(result, "collect"):
        result = result.collect()
    if isinstance(result, pd.Series):
        result = result.reset_index()
    if isinstance(result, pd.DataFrame):
        columns = [str(c) for c in result.columns]
        rows = [[_plain(v) for v in row] for row in result.itertuples(index=False, name=None)]
        return columns, rows
    columns = [str(c) for c in result.columns]
    return columns, [[_plain(v) for v in row] for row in result.rows()]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cell(value: Any, column: str, percent: set[str], nan: str) -> str:
    """A value as shown in the table and markdown formats."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return nan
        signed = "+" if column == "delta" else ""
        if column in percent:
            return f"{value * 100:{signed}.2f}%"
        if column.startswith("p_") and 0 < value < 1e-4:
            return f"{value:.1e}"
        return f"{value:{signed}.4f}"
    return str(value)


def _csv_cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def render(result: Any, fmt: str, *, percent: Sequence[str] = (), nan: str = "NaN") -> str:
    """A result frame as text: an aligned table, CSV, JSON records or a Markdown table.

    ``percent`` names the columns shown times 100 with a ``%`` in the table and Markdown formats;
    ``nan`` is how they show NaN. CSV and JSON always hold the raw values, NaN as an empty
    field and as null.
    """
    columns, rows = table_rows(result)
    if fmt == "json":
        # JSON has no NaN: a NaN value (empty="nan") is written as null
        records = [
            {c: None if isinstance(v, float) and math.isnan(v) else v
             for c, v in zip(columns, row, strict=True)}
            for row in rows
        ]
        return json.dumps(records, indent=2, ensure_ascii=False, default=str) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([_csv_cell(v) for v in row] for row in rows)
        return out.getvalue()
    shown = set(percent)
    cells = [
        [_cell(v, c, shown, nan) for v, c in zip(row, columns, strict=True)] for row in rows
    ]
    numeric = [
        all(_is_number(row[i]) or row[i] is None for row in rows)
        and any(_is_number(row[i]) for row in rows)
        for i in range(len(columns))
    ]
    if fmt == "markdown":
        def line(values: Sequence[str]) -> str:
            return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"

        rule = ["---:" if n else "---" for n in numeric]
        return "\n".join([line(columns), line(rule), *(line(r) for r in cells)]) + "\n"
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]

    def aligned(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if n else v.ljust(w)
            for v, w, n in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    rule = ["-" * w for w in widths]
    return "\n".join([aligned(columns), aligned(rule), *(aligned(r) for r in cells)]) + "\n"


def _write(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as error:
        raise CliError(f"cannot write {output!r}: {error.strerror or error}") from None


# -- commands ----------------------------------------------------------------------------------


def _metrics(specs: Sequence[str] | None) -> list[str]:
    """The -m arguments (repeatable, or comma-separated), checked against the registry."""
    from rankframe._registry import parse_metrics
    from rankframe.exceptions import RankEvalError

    names = [s.strip() for spec in specs or DEFAULT_METRICS for s in spec.split(",")]
    try:
        return [str(m) for m in parse_metrics([n for n in names if n])]
    except RankEvalError as error:
        raise CliError(str(error), code=2) from None


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The metric options given on the command line, checked."""
    from rankframe._options import Options
    from rankframe.exceptions import RankEvalError

    given = {
        name: getattr(args, name)
        for name in ("min_relevance", "gain", "denominator", "empty", "ties")
        if getattr(args, name) is not None
    }
    try:
        Options(**given)
    except RankEvalError as error:
        raise CliError(str(error), code=2) from None
    return given


def _columns(args: argparse.Namespace, scores: Sequence[str]) -> dict[str, str]:
    """Every column the command reads → the option that names it."""
    columns = {args.query: "--query", args.item: "--item"}
    columns.update(dict.fromkeys(scores, "--score"))
    columns[args.relevant] = "--relevant"
    columns.update({b: "--by" for b in args.by or [] if b not in columns})
    return columns


def _accessor(frame: pl.DataFrame, args: argparse.Namespace, scores: Sequence[str]) -> Any:
    import rankframe  # noqa: F401  (registers the accessors)

    score: str | list[str] = scores[0] if len(scores) == 1 else list(scores)
    # polars does not know registered namespaces
    return cast("Any", frame).rank_eval(
        query=args.query, item=args.item, score=score, relevant=args.relevant
    )


def _by(args: argparse.Namespace) -> list[str] | None:
    return list(dict.fromkeys(args.by)) if args.by else None


def run_evaluate(args: argparse.Namespace, status: Status) -> int:
    """``rankframe evaluate``."""
    metrics = _metrics(args.metric)
    options = _options(args)
    scores = list(dict.fromkeys(args.score or ["score"]))
    fmt = input_format(args.file, args.input_format)
    frame = read_table(args.file, fmt, _columns(args, scores), status)
    status.show(f"evaluating {frame.height:,} rows...")
    ev = _accessor(frame, args, scores)
    method = ev.per_query if args.per_query else ev.evaluate
    result = method(metrics, by=_by(args), **options)
    status.clear()
    _write(render(result, args.format, percent=metrics if args.percent else ()), args.output)
    return 0


def run_compare(args: argparse.Namespace, status: Status) -> int:
    """``rankframe compare``."""
    scores = list(dict.fromkeys(args.score or []))
    if len(scores) < 2:
        msg = "compare needs at least two score columns, e.g. --score model_a --score model_b"
        raise CliError(msg, code=2)
    baseline = args.baseline if args.baseline is not None else scores[0]
    if baseline not in scores:
        msg = (
            f"--baseline {baseline!r} is not one of the --score columns "
            f"({', '.join(map(repr, scores))}); pass one of them"
        )
        raise CliError(msg, code=2)
    if not 0 < args.alpha < 1:
        raise CliError(f"--alpha must be between 0 and 1; got {args.alpha}", code=2)
    if args.confidence is not None and not 0 < args.confidence < 1:
        raise CliError(f"--confidence must be between 0 and 1; got {args.confidence}", code=2)
    if args.resamples < 1:
        raise CliError(f"--resamples must be a positive integer; got {args.resamples}", code=2)
    metrics = _metrics(args.metric)
    options = _options(args)
    fmt = input_format(args.file, args.input_format)
    frame = read_table(args.file, fmt, _columns(args, scores), status)
    ev = _accessor(frame, args, scores)
    compare = getattr(ev, "compare", None)
    if compare is None:
        msg = "this version of rankframe has no compare(); upgrade rankframe"
        raise CliError(msg)
    if args.confidence is not None:
        options["confidence"] = args.confidence
    status.show(f"comparing {len(scores)} systems on {frame.height:,} rows...")
    result = compare(
        metrics,
        baseline=baseline,
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        n_resamples=args.resamples,
        seed=args.seed,
        by=_by(args),
        **options,
    )
    status.clear()
    percent = COMPARE_VALUE_COLUMNS if args.percent else ()
    # the baseline's rows have no test: blank rather than NaN
    _write(render(result, args.format, percent=percent, nan=""), args.output)
    return 0


def run_trec(args: argparse.Namespace, status: Status) -> int:
    """``rankframe trec``: trec_eval's output format."""
    from rankframe.exceptions import RankEvalError
    from rankframe.trec import parse_trec_measures, read_trec_qrels, read_trec_run, trec_eval_report

    measures = args.measure
    try:
        parse_trec_measures(measures)
    except RankEvalError as error:
        raise CliError(str(error), code=2) from None
    for path in (args.qrels, args.run):
        _check_exists(path)
    try:
        status.show(f"reading {args.run}...")
        run = read_trec_run(args.run)
        status.show(f"reading {args.qrels}...")
        qrels = read_trec_qrels(args.qrels)
    except OSError as error:
        raise CliError(f"cannot read {error.filename!r}: {error.strerror or error}") from None
    except RankEvalError as error:
        # four fields where a run has six: most likely the qrels, given second
        swapped = " has 4 fields " in str(error) and "run file" in str(error)
        hint = " The arguments are QRELS, then RUN, as for trec_eval." if swapped else ""
        raise CliError(f"{error}{hint}") from None
    status.show(f"evaluating {len(run):,} results...")
    text = trec_eval_report(
        run,
        qrels,
        measures,
        per_query=args.q,
        summary=not args.n,
        complete=args.c,
        min_relevance=args.l,
    )
    status.clear()
    _write(text, args.output)
    return 0


def demo(seed: int = 0, out: TextIO | None = None) -> None:
    """Evaluate the sample data overall and by segment, compare the two models, and print
    readable tables."""
    import rankframe  # noqa: F401  (registers the accessor)
    from rankframe.datasets import recommendations

    stream = out if out is not None else sys.stdout
    data = recommendations(seed=seed)
    n_users = data["user_id"].nunique()
    retrieved = int(data["model_a"].notna().sum())
    print(
        f"Sample data: {len(data):,} rows, {n_users} users, {retrieved:,} recommended "
        f"(user, item) pairs; judged-but-not-recommended items have a null score.\n",
        file=stream,
    )
    # pandas-stubs do not know registered accessors
    ev = cast("Any", data).rank_eval(
        query="user_id", item="item_id", score=["model_a", "model_b"]
    )
    for title, by in (("Overall", None), ("By segment", "segment")):
        table = ev.evaluate(DEMO_METRICS, by=by)
        keys = ["system"] if by is None else [by, "system"]
        print(f"{title} (mean over users; ties broken as trec_eval):", file=stream)
        print(table.set_index(keys).to_string(float_format=lambda v: f"{v:.4f}"), file=stream)
        print(file=stream)
    comparison = ev.compare(DEMO_METRICS, baseline="model_a", test="t-test")
    comparison = comparison[comparison["system"] != "model_a"].drop(columns="system")
    print("model_b against model_a (paired t-test over users):", file=stream)
    print(comparison.to_string(index=False, float_format=lambda v: f"{v:.4g}"), file=stream)
    print(file=stream)


def run_demo(args: argparse.Namespace, status: Status) -> int:
    """``rankframe demo``; with ``--write FILE``, write the sample data to FILE instead."""
    if args.write is not None:
        from rankframe.datasets import recommendations

        path = Path(args.write)
        frame = recommendations(seed=args.seed)
        suffix = path.suffix.lower()
        if suffix not in (".csv", ".parquet", ".pq"):
            return _fail(f"cannot write {str(path)!r}: use a .csv or .parquet file name.", 2)
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
    _write(out.getvalue(), None)
    return 0


# -- the parser --------------------------------------------------------------------------------


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
    from typing import get_args

    from rankframe._options import Denominator, Empty, Gain, Ties

    group = parser.add_argument_group("metrics")
    group.add_argument(
        "-m", "--metric", action="append", metavar="METRIC",
        help="a metric such as mrr@10, ndcg@10, P_10, recip_rank (repeat, or separate with "
        f"commas; default: {' '.join(DEFAULT_METRICS)})",
    )
    group.add_argument("--by", action="append", metavar="COL",
                       help="segment column, constant within a query (repeatable)")
    group.add_argument("--min-relevance", type=float, metavar="GRADE",
                       help="lowest grade that counts as relevant (default: grade > 0)")
    group.add_argument("--ties", choices=get_args(Ties),
                       help="order among equal scores (default: trec, item id descending)")
    group.add_argument("--empty", choices=get_args(Empty),
                       help="queries without relevant items (default: zero)")
    group.add_argument("--gain", choices=get_args(Gain), help="NDCG gain (default: linear)")
    group.add_argument("--denominator", choices=get_args(Denominator),
                       help="AP and recall divide by R or min(R, k) (default: relevant)")


def _add_output(parser: argparse.ArgumentParser, *, per_query: bool = False) -> None:
    group = parser.add_argument_group("output")
    if per_query:
        group.add_argument("--per-query", action="store_true",
                           help="one row per query instead of the means")
    group.add_argument("--format", choices=OUTPUT_FORMATS, default="table",
                       help="output format (default: %(default)s; json: a list of records)")
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
    _add_output(evaluate, per_query=True)
    evaluate.set_defaults(handler=run_evaluate)

    compare = commands.add_parser(
        "compare", help="systems (score columns) against a baseline, with significance tests",
        description="Compare score columns of one file against a baseline: means, deltas, "
        "confidence intervals and p-values of paired tests over queries.",
    )
    _add_input(compare, several_scores="a system's score column; give two or more")
    _add_metric_options(compare)
    tests = compare.add_argument_group("tests")
    tests.add_argument("--baseline", metavar="COL",
                       help="the score column the others are compared to (default: the first)")
    tests.add_argument("--test", choices=("t-test", "permutation", "wilcoxon"),
                       default="t-test", help="paired test over queries (default: %(default)s)")
    tests.add_argument("--correction", choices=("holm", "bonferroni", "none"), default="holm",
                       help="multiple-comparison correction (default: %(default)s)")
    tests.add_argument("--alpha", type=float, default=0.05,
                       help="significance level (default: %(default)s)")
    tests.add_argument("--confidence", type=float, metavar="LEVEL",
                       help="level of the delta's confidence interval (default: 0.95)")
    tests.add_argument("--resamples", type=int, default=10_000, metavar="N",
                       help="resamples of the permutation test and the bootstrap "
                       "(default: %(default)s)")
    tests.add_argument("--seed", type=int, default=0,
                       help="random seed of the resampling (default: %(default)s)")
    _add_output(compare)
    compare.set_defaults(handler=run_compare)

    trec = commands.add_parser(
        "trec", help="trec_eval's output for the measures rankframe computes",
        description="Evaluate a TREC run against qrels and print trec_eval's output "
        "(measure<TAB>query<TAB>value) for the measures rankframe computes, line for line "
        "as trec_eval prints them.",
    )
    trec.add_argument("qrels", metavar="QRELS", help="qrels file: query 0 docno grade")
    trec.add_argument("run", metavar="RUN", help="run file: query Q0 docno rank score runid")
    trec.add_argument("-q", action="store_true", help="print each query's values too")
    trec.add_argument("-c", action="store_true",
                      help="average over every judged query; queries missing from the run "
                      "count 0")
    trec.add_argument("-l", type=int, metavar="LEVEL",
                      help="lowest grade that counts as relevant (default: 1)")
    trec.add_argument("-m", dest="measure", action="append", metavar="MEASURE",
                      help="a trec_eval measure: map, Rprec, recip_rank, P.5,10, recall.100, "
                      "ndcg, ndcg_cut.10, map_cut.100, success.1,5,10, num_ret, ...; also "
                      "P_10 style, 'official' and 'all_trec' (default: all that rankframe "
                      "computes)")
    trec.add_argument("-n", action="store_true", help="no summary ('all') lines")
    trec.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    trec.set_defaults(handler=run_trec)

    demo_parser = commands.add_parser("demo", help="evaluate the embedded sample data")
    demo_parser.add_argument("--seed", type=int, default=0, help="seed of the sample data")
    demo_parser.add_argument(
        "--write", metavar="FILE", help="write the sample data to FILE (.csv or .parquet) "
        "instead of evaluating it, e.g. to try `rankframe compare` on it",
    )
    demo_parser.set_defaults(handler=run_demo)
    return parser


def _fail(message: str, code: int) -> int:
    print(f"rankframe: error: {' '.join(message.split())}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rankframe`` console script; returns the exit status."""
    status = Status(sys.stderr)
    try:
        args = build_parser().parse_args(argv)
        command: Callable[[argparse.Namespace, Status], int] = args.handler
        return command(args, status)
    except CliError as error:
        status.clear()
        return _fail(str(error), error.code)
    except ValueError as error:
        from rankframe.exceptions import RankEvalError

        if not isinstance(error, RankEvalError):
            raise
        status.clear()
        return _fail(str(error), 1)
    except SystemExit as exit_:  # --help and --version
        return exit_.code if isinstance(exit_.code, int) else 0
    except KeyboardInterrupt:
        status.clear()
        return 130
    except BrokenPipeError:
        # the reader went away (`rankframe trec ... | head`): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):
            pass
        return 1
    finally:
        status.clear()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
