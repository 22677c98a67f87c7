"""Status lines on a terminal's stderr ("reading FILE...")."""

from __future__ import annotations

from typing import TextIO


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
