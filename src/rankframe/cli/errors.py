"""The command line's errors: one line on stderr, with an exit status."""

from __future__ import annotations

import shlex
import sys

from rankframe.exceptions import Keyword, OptionName, RankEvalError

# the longest message printed; longer ones (a library message quoting a huge value) are cut
MAX_MESSAGE = 1_000


# the library's keyword options that the command line takes as flags (cli/options.py)
FLAGS = frozenset(
    {
        "min_relevance",
        "ties",
        "empty",
        "gain",
        "denominator",
        "beta",
        "ap_denominator",
        "precision_denominator",
        "empty_list",
        "discount",
        "negative_gains",
        "empty_ndcg",
        "convention",
        "every",
        "time",
        "time_unit",
        "unknown_group",
    }
)

# the accessor's columns that the command line takes as flags (--score repeated: a list)
COLUMN_FLAGS = frozenset({"score"})


def _as_flag(keyword: Keyword | OptionName) -> str:
    """A keyword option as the command line says it: ``ties='average'`` as ``--ties average``
    and the ``ties option`` as the ``--ties value``; a column binding
    (``df.rank_eval(score=['a', 'b'])``) as its flags (``--score a --score b``); options the
    command line has no flag for, and values that are not words, as the library says them."""
    if keyword.name in COLUMN_FLAGS and isinstance(keyword, Keyword):
        values = [keyword.value] if isinstance(keyword.value, str) else keyword.value
        if isinstance(values, list | tuple) and all(isinstance(v, str) for v in values):
            return " ".join(f"--{keyword.name} {shlex.quote(v)}" for v in values)
    if keyword.name not in FLAGS:
        return str(keyword)
    flag = "--" + keyword.name.replace("_", "-")
    if not isinstance(keyword, Keyword):
        return f"{flag} value"
    return f"{flag} {keyword.value}" if isinstance(keyword.value, str) else str(keyword)


def in_cli_terms(error: RankEvalError) -> str:
    """A library error's message, with the keyword options it names (its
    :class:`~rankframe.exceptions.Keyword` and ``OptionName`` parts) said as the command
    line's flags."""
    return error.spelled(_as_flag)


class CliError(Exception):
    """An error reported as one line on stderr; ``code`` is the exit status (1 or 2)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, code: int) -> int:
    """Print ``rankframe: error: MESSAGE`` as one line of bounded length; return ``code``."""
    text = " ".join(message.split())
    if len(text) > MAX_MESSAGE:
        text = f"{text[:MAX_MESSAGE]}... (message cut)"
    print(f"rankframe: error: {text}", file=sys.stderr)
    return code
