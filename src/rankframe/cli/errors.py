"""The command line's errors: one line on stderr, with an exit status."""

from __future__ import annotations

import sys

# the longest message printed; longer ones (a library message quoting a huge value) are cut
MAX_MESSAGE = 1_000


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
