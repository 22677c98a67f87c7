"""The ``rankframe`` command line.

Commands (``rankframe COMMAND --help`` for each):

- ``rankframe evaluate FILE``: ranking metrics of a long-format file (CSV, TSV, Parquet or JSON
  lines), overall, by segment (``--by``) or per query (``--per-query``), for one score column or
  several (``--score`` repeated).
- ``rankframe compare FILE --score a --score b``: systems against a baseline, with significance
  tests corrected for multiple comparisons.
- ``rankframe check FILE --rule 'ndcg@10 >= 0.30'``: gates; one row per rule, system and
  segment with a status; exits 0 when no row fails, 1 when one does, 2 on bad input.
- ``rankframe slices FILE --column COL``: where a model fails, every slice of the queries
  over a few columns, tested, the p-values corrected over every test.
- ``rankframe gaps FILE --by COL``: the gaps between user groups per system and metric,
  tested (with ``--baseline``: whether a change is shared by every group).
- ``rankframe sample-size FILE --delta D``: the queries a t-test needs to detect a change of
  D, and the queries in hand.
- ``rankframe report FILE``: one self-contained HTML report; ``rankframe dashboard STORE``:
  the HTML page of a history store. Both say "wrote PATH" on stderr.
- ``rankframe trec QRELS RUN``: trec_eval's output format for the measures rankframe computes,
  with trec_eval's ``-q``, ``-c``, ``-l`` and ``-m``.
- ``rankframe demo``: the embedded sample data (``rankframe.datasets.recommendations``)
  overall and by user segment, for two models.

Warnings about the data (null scores, counted as not retrieved: ``rankframe.RankEvalWarning``)
print one line each on stderr, ``rankframe: warning: ...``, once per command, and change
nothing else; a score column without any score is an error of the data (the library's
``InvalidDataError``, ``problem="nothing_retrieved"``). Errors print one line on stderr,
``rankframe: error: ...``, and exit with 2 when the command line is wrong (an unknown option
or metric, a missing file, a format that cannot be told from the extension) or 1 when the data
cannot be evaluated (an unreadable file, a missing column, values that break the input
contract, a score column without a score). An error about the data names the file, the 1-based
line of the offending record and the option to pass, and quotes at most a short excerpt of the
input.
Status lines ("reading FILE...") go to stderr only when it is a terminal, and are erased when
the work is done.

The modules: ``parser`` (the subcommands, each declared when it is parsed: ``rankframe
--version`` and ``--help`` import no command module nor the library), ``options`` (the flag
groups they share), ``names`` (what their help texts list, without the library: ``rankframe
COMMAND --help`` imports no frame library), ``commands`` (``evaluate``, ``compare`` and
``demo``: their arguments and runs; ``gate``: ``check``'s; ``trec``, ``report``,
``slices``, ``gaps``, ``sample_size`` and ``dashboard``: theirs), ``inputs``
(what the commands share, from the arguments to the library's call), ``reading`` (the columns
of an input file), ``source`` (where a row is in its file, and why a text file cannot be
read), ``checks`` (the input contract in the file's terms), ``render`` (result tables as
text), ``percent`` (what ``--percent`` shows as percentages), ``recording`` (``--record``),
``demo``, ``status`` and ``errors``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from rankframe.cli.demo import demo
from rankframe.cli.errors import CliError, fail, in_cli_terms
from rankframe.cli.parser import build_parser
from rankframe.cli.status import Status
from rankframe.exceptions import RankEvalError, RankEvalWarning, warned_once

if TYPE_CHECKING:
    from rankframe.cli.names import DEFAULT_METRICS

__all__ = ["DEFAULT_METRICS", "demo", "main"]

Command = Callable[[argparse.Namespace, Status], int]
"""A subcommand's run (its parser's ``handler``): the parsed arguments to the exit status."""

# loaded when first used, not with the command line: `rankframe --version` and `--help`
# import no command and none of the library they call (the name: its module). `demo` is
# imported (its module is light): a lazy name would be shadowed by its submodule once
# `rankframe demo` imports that
_ON_FIRST_USE = {"DEFAULT_METRICS": "rankframe.cli.names"}


def __getattr__(name: str) -> Any:
    if name not in _ON_FIRST_USE:
        msg = f"module 'rankframe.cli' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(_ON_FIRST_USE[name]), name)
    globals()[name] = value
    return value


@contextlib.contextmanager
def _warnings_on_stderr(status: Status) -> Iterator[None]:
    """The library's warnings about the data as lines on stderr, ``rankframe: warning:
    ...``, once each; other warnings as Python shows them."""
    shown = warnings.showwarning

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if not issubclass(category, RankEvalWarning):
            shown(message, category, filename, lineno, file, line)
            return
        status.clear()
        print(f"rankframe: warning: {_cli_words(message)}", file=sys.stderr)

    with warnings.catch_warnings(), warned_once():
        warnings.simplefilter("always", RankEvalWarning)
        warnings.showwarning = show
        yield


def _cli_words(warning: Warning | str) -> str:
    """A warning of the library in the command line's words: null scores without Python's
    way to silence them."""
    if isinstance(warning, RankEvalWarning) and warning.problem == "null_scores":
        from rankframe.pipeline import nulls  # only once the library has warned

        column, count, rows = warning.column, warning.count, warning.rows
        if column is not None and count is not None and rows is not None:
            return nulls.message(column, count, rows, silence=None)
    return str(warning)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rankframe`` console script; returns the exit status."""
    status = Status(sys.stderr)
    with _warnings_on_stderr(status):
        return _main(argv, status)


def _main(argv: Sequence[str] | None, status: Status) -> int:
    try:
        args = build_parser().parse_args(argv)
        command: Command = args.handler
        return command(args, status)
    except CliError as error:
        status.clear()
        return fail(str(error), error.code)
    except RankEvalError as error:
        status.clear()
        return fail(in_cli_terms(error), 1)
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
