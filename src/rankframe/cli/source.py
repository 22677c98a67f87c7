"""An input file, and where its records are: data rows to 1-based lines (rows, for
Parquet), and why a text file cannot be read, found from its bytes on the error path only.

Lines are the file's: a CSV header is line 1, a quoted cell that holds a line break spans two
lines, a blank CSV line is a record (of nulls, for polars) and a blank JSON line is none.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe.exceptions import excerpt

FORMAT_NAMES = {"csv": "CSV", "tsv": "TSV", "parquet": "Parquet", "jsonl": "JSON lines"}
SEPARATORS = {"csv": ",", "tsv": "\t"}


@dataclass
class Source:
    """An input file (or standard input) and the way from its rows to its lines."""

    path: str
    fmt: str
    stdin: bytes | None = None
    _bytes: bytes | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        """The file as a message names it, quoted."""
        return "standard input" if self.path == "-" else excerpt(self.path, 200)

    @property
    def subject(self) -> str:
        """The file as the subject of a sentence: ``The file 'd.csv'``."""
        return "Standard input" if self.path == "-" else f"The file {self.name}"

    def scannable(self) -> Any:
        """What polars reads: the path, or standard input's bytes."""
        return io.BytesIO(self.stdin) if self.stdin is not None else self.path

    def data(self) -> bytes:
        """The file's bytes (read once, on the error path only)."""
        if self.stdin is not None:
            return self.stdin
        if self._bytes is None:
            self._bytes = Path(self.path).read_bytes()
        return self._bytes

    def lines(self, rows: Sequence[int]) -> list[int]:
        """The 1-based line numbers of 0-based data rows (for Parquet: 1-based row numbers)."""
        if self.fmt == "parquet":
            return [row + 1 for row in rows]
        starts = _record_lines(self.data(), self.fmt)
        return [int(starts[min(row, len(starts) - 1)]) for row in rows]

    @property
    def unit(self) -> str:
        """What ``lines()`` counts: ``"line"``, or ``"row"`` for Parquet."""
        return "row" if self.fmt == "parquet" else "line"

    def numbered(self, rows: Sequence[int]) -> str:
        """The lines of rows, for a message: ``line 3``, ``lines 2, 5 and 9``."""
        numbers = [f"{n:,}" for n in self.lines(rows)]
        if len(numbers) == 1:
            return f"{self.unit} {numbers[0]}"
        return f"{self.unit}s {', '.join(numbers[:-1])} and {numbers[-1]}"

    def at(self, rows: Sequence[int]) -> str:
        """Where rows are, for a message: ``line 3 of 'd.csv'``."""
        return f"{self.numbered(rows)} of {self.name}"

    def at_start(self, rows: Sequence[int]) -> str:
        """``at()`` to start a sentence: ``Line 3 of 'd.csv'``."""
        where = self.at(rows)
        return where[0].upper() + where[1:]


def _record_lines(data: bytes, fmt: str) -> npt.NDArray[np.int64]:
    """The 1-based line on which each data row of a CSV, TSV or JSON-lines text starts."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buffer == ord("\n"))
    if fmt == "jsonl":  # a record per line that is not blank
        starts = np.concatenate([[0], newlines + 1])
        ends = np.concatenate([newlines, [len(buffer)]])
        return np.flatnonzero(ends > starts).astype(np.int64) + 1
    # CSV: a record per line, but a quoted cell may hold line breaks; the header is record 0
    ends = np.flatnonzero(_outside_quotes(buffer, newlines))
    return (ends + 2).astype(np.int64)


def _outside_quotes(buffer: npt.NDArray[np.uint8], positions: npt.NDArray[np.intp]) -> Any:
    """Whether each position is outside a quoted CSV cell (an even number of quotes before)."""
    quotes = np.flatnonzero(buffer == ord('"'))
    return np.searchsorted(quotes, positions) % 2 == 0


def _line_text(data: bytes, line: int) -> bytes:
    """The bytes of a 1-based line, without its line break."""
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
    start = 0 if line == 1 else int(newlines[line - 2]) + 1
    end = int(newlines[line - 1]) if line <= len(newlines) else len(data)
    return data[start:end].rstrip(b"\r")


def _not_utf8(source: Source, data: bytes) -> str | None:
    """The line of the first byte of ``data`` (the file's start) that is not UTF-8, if any."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return (
            f"Line {line:,} of {source.name} is not UTF-8 text (byte 0x{data[error.start]:02x} "
            f"in {excerpt(_line_text(data, line))}); save the file as UTF-8"
        )
    return None


def diagnose_text(source: Source) -> str | None:
    """Why a CSV, TSV or JSON-lines file cannot be read, naming the line; None if unknown."""
    data = source.data()
    kind = FORMAT_NAMES[source.fmt]
    if not data.strip():
        return (
            f"{source.subject} is empty; a {kind} file needs a header and a row per (query, item)"
        )
    not_utf8 = _not_utf8(source, data)
    if not_utf8 is not None:
        return not_utf8
    if source.fmt not in SEPARATORS:
        return None
    separator = SEPARATORS[source.fmt]
    buffer = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buffer == ord("\n"))
    ends = newlines[_outside_quotes(buffer, newlines)]
    separators = np.flatnonzero(buffer == ord(separator))
    separators = separators[_outside_quotes(buffer, separators)]
    # fields per record (the header is record 0): the separators before its end, plus one
    fields = np.bincount(np.searchsorted(ends, separators), minlength=len(ends) + 1) + 1
    extra = np.flatnonzero(fields > fields[0])
    if not len(extra):
        return None
    record = int(extra[0])
    line = int(_record_lines(data, source.fmt)[record - 1])
    shown = "','" if separator == "," else "a tab"
    return (
        f"Line {line:,} of {source.name} has {fields[record]} fields where the header has "
        f"{fields[0]} ({excerpt(_line_text(data, line))}); remove the extra fields, or quote "
        f"a value that holds {shown}"
    )


def header_not_utf8(source: Source) -> str | None:
    """Why the header's names are garbage, if its first line is not UTF-8 (reads that line
    only: a typo in a column option must not read a large file)."""
    if source.stdin is not None:
        return _not_utf8(source, source.stdin.split(b"\n", 1)[0])
    with open(source.path, "rb") as file:
        return _not_utf8(source, file.readline())
