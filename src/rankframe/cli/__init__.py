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

Errors print one line on stderr, ``rankframe: error: ...``, and exit with 2 when the command line
is wrong (an unknown option or metric, a missing file, a format that cannot be told from the
extension) or 1 when the data cannot be evaluated (an unreadable file, a missing column, values
that break the input contract). An error about the data names the file, the 1-based line of the
offending record and the option to pass, and quotes at most a short excerpt of the input.
Status lines ("reading FILE...") go to stderr only when it is a terminal, and are erased when
the work is done.

The modules: ``parser`` (the subcommands assembled), ``options`` (the flag groups they share),
``commands`` (one function per command; ``gate``: ``check``'s arguments and command;
``report``, ``slices``, ``gaps``, ``sample_size`` and ``dashboard``: theirs), ``inputs``
(what the commands share, from the arguments to the library's call), ``reading`` (the columns
of an input file), ``source`` (where a row is in its file, and why a text file cannot be
read), ``checks`` (the input contract in the file's terms), ``render`` (result tables as
text), ``percent`` (what ``--percent`` shows as percentages), ``recording`` (``--record``),
``demo``, ``status`` and ``errors``.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence

from rankframe.cli.commands import Command
from rankframe.cli.demo import demo
from rankframe.cli.errors import CliError, fail, in_cli_terms
from rankframe.cli.inputs import DEFAULT_METRICS
from rankframe.cli.parser import build_parser
from rankframe.cli.status import Status
from rankframe.exceptions import RankEvalError

__all__ = ["DEFAULT_METRICS", "demo", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rankframe`` console script; returns the exit status."""
    status = Status(sys.stderr)
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
