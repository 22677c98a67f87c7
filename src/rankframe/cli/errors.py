"""The command line's errors: one line on stderr, with an exit status."""

from __future__ import annotations

import re
import sys

# the longest message printed; longer ones (a library message quoting a huge value) are cut
MAX_MESSAGE = 1_000


# the library's keyword options that the command line takes as flags (cli/parser.py)
_FLAGS = (
    "min_relevance", "ties", "empty", "gain", "denominator", "beta", "ap_denominator",
    "precision_denominator", "empty_list", "discount", "negative_gains", "convention",
)
_KEYWORD = re.compile(r"\b(" + "|".join(_FLAGS) + r")=(?:'([^']*)'|\"([^\"]*)\")")
_NAMED = re.compile(r"(?:\bthe |\banother )'?(" + "|".join(_FLAGS) + r")'? option\b")


def in_cli_terms(message: str) -> str:
    """A library message about its options, said with the command line's flags:
    ``ties='average'`` becomes ``--ties average`` and "another ties option" "another
    --ties value" (options the command line has no flag for are left as they are)."""

    def flag(name: str) -> str:
        return "--" + name.replace("_", "-")

    message = _KEYWORD.sub(
        lambda m: f"{flag(m.group(1))} {m.group(2) if m.group(2) is not None else m.group(3)}",
        message,
    )
    return _NAMED.sub(lambda m: m.group(0).split(" ", 1)[0] + f" {flag(m.group(1))} value",
                      message)


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
