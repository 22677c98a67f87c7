"""``rankframe trec QRELS RUN``: a drop-in for trec_eval, with its options (``-q``, ``-c``,
``-l``, ``-m``, ``-M``, ``-N``, ``-J``, ``-n``) and its output, from ``rankframe.trec``."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from rankframe.cli.errors import CliError
from rankframe.cli.names import TREC_MEASURES
from rankframe.cli.status import Status


def _measure_help() -> str:
    """The -m help of trec: the trec_eval measures rankframe computes (``names``', equal to
    the registry's)."""
    return (
        f"a trec_eval measure: {', '.join(TREC_MEASURES)}; parameters as trec_eval takes them "
        "(P.5,10, iprec_at_recall.0.25, relstring.20) or as it prints them (P_10); "
        "nicknames 'official' (the default), 'all_trec' and 'set'; repeatable"
    )


def add_parser(commands: Any) -> None:
    """The ``trec`` subcommand and its arguments: trec_eval's options."""
    trec = commands.add_parser(
        "trec",
        description="Evaluate a TREC run against qrels and print trec_eval's output "
        "(measure<TAB>query<TAB>value), line for line as trec_eval prints it; the options "
        "are trec_eval's.",
    )
    trec.add_argument("qrels", metavar="QRELS", help="qrels file: query 0 docno grade")
    trec.add_argument("run", metavar="RUN", help="run file: query Q0 docno rank score runid")
    trec.add_argument(
        "-q",
        "--query_eval_wanted",
        dest="q",
        action="store_true",
        help="print each query's values too, before the summary",
    )
    trec.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        dest="c",
        action="store_true",
        help="average over every judged query; queries missing from the run count 0",
    )
    trec.add_argument(
        "-l",
        "--level_for_rel",
        dest="l",
        type=int,
        metavar="LEVEL",
        help="lowest grade that counts as relevant (default: 1)",
    )
    trec.add_argument(
        "-m", "--measure", dest="measure", action="append", metavar="MEASURE", help=_measure_help()
    )
    trec.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        dest="M",
        type=int,
        metavar="N",
        help="at most N documents per query: each query's first N by score (ties by docno), "
        "the rest dropped before evaluation",
    )
    trec.add_argument(
        "-N",
        "--Number_docs_in_coll",
        dest="N",
        type=int,
        metavar="N",
        help="the number of documents in the collection, as trec_eval takes it: only "
        "utility with a non-zero fourth coefficient reads it, and rankframe computes "
        "utility with trec_eval's default coefficients (1,-1,0,0), so no value changes",
    )
    trec.add_argument(
        "-J",
        "--Judged_docs_only",
        dest="J",
        action="store_true",
        help="judged documents only: each query's documents without a judgment, or with a "
        "negative grade, removed from its ranking (after -M) before anything is counted",
    )
    trec.add_argument(
        "-n",
        "--nosummary",
        dest="n",
        action="store_true",
        help="no summary: only the per-query lines",
    )
    trec.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    trec.set_defaults(handler=run_trec)


#: polars' allocator (jemalloc) without its decay: the pages polars frees after reading the
#: files go back to the system at once, not over the next second (polars' own default,
#: ``dirty_decay_ms:500,muzzy_decay_ms:1000``), before the evaluation reaches its peak: ~60 MB
#: less on 2M lines, in no more time (benchmarks/RESULTS.md, "trec-speed-before-after")
ALLOCATOR = ("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")


def _return_freed_pages() -> None:
    """:data:`ALLOCATOR`, in a process that has not loaded polars yet: ``import polars``
    passes the variable, after its own defaults, to jemalloc; a value set by the user is
    kept."""
    if "polars" not in sys.modules:
        os.environ.setdefault(*ALLOCATOR)


def run_trec(args: argparse.Namespace, status: Status) -> int:
    """``rankframe trec``: trec_eval's output format."""
    _return_freed_pages()
    from rankframe.cli.reading import check_exists
    from rankframe.cli.render import write_parts
    from rankframe.exceptions import RankEvalError, TrecFormatError
    from rankframe.trec import parse_trec_measures
    from rankframe.trec.report import report_texts

    try:
        parse_trec_measures(args.measure)
    except RankEvalError as error:
        raise CliError(str(error), code=2) from None
    if args.M is not None and args.M < 1:
        msg = f"-M takes a positive number of documents per query; got {args.M}"
        raise CliError(msg, code=2)
    for path in (args.qrels, args.run):
        check_exists(path)
    status.show(f"evaluating {args.run} against {args.qrels}...")
    try:
        texts = report_texts(
            args.run,
            args.qrels,
            args.measure,
            per_query=args.q,
            summary=not args.n,
            complete=args.c,
            min_relevance=args.l,
            max_per_query=args.M,
            judged_only=args.J,
        )
    except OSError as error:
        raise CliError(f"cannot read {error.filename!r}: {error.strerror or error}") from None
    except TrecFormatError as error:
        # four fields where a run has six: most likely the qrels, given second
        swapped = error.kind == "run" and error.n_fields == 4
        hint = " The arguments are QRELS, then RUN, as for trec_eval." if swapped else ""
        raise CliError(f"{error}{hint}") from None
    status.clear()
    write_parts(texts, args.output)
    return 0
