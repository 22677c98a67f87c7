"""Reading the columns of a long-format input file (CSV, TSV, Parquet, JSON lines) with
polars: its format, the columns the options name, and the errors of a file that cannot be
read, which name the line at fault (see ``source``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rankframe._suggest import closest_one
from rankframe.cli.errors import CliError
from rankframe.cli.names import INPUT_FORMATS
from rankframe.cli.source import FORMAT_NAMES, SEPARATORS, Source, diagnose_text, header_not_utf8
from rankframe.cli.status import Status
from rankframe.exceptions import excerpt

# polars infers CSV and JSON-lines column types from this many rows, then from all of them
# if a later value does not fit
INFER_ROWS = 10_000
# the longest list of column names a message shows
SHOWN_COLUMNS = 300
#: The texts of a score field read as null, as ``pd.read_csv`` reads them (its default
#: ``na_values``; an empty field is null already), besides the numbers Python's ``float``
#: reads (``nan``, ``NaN``, ``inf``): a null score is an item judged but not retrieved.
NULL_TEXTS = (
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
)


def input_format(path: str, given: str | None) -> str:
    """The format of ``path``: ``given``, else told from the extension."""
    if given is not None:
        return given
    if path == "-":
        return "csv"
    suffix = Path(path).suffix.lower()
    if suffix not in INPUT_FORMATS:
        msg = (
            f"cannot tell the format of {excerpt(path, 200)} from its extension; pass "
            f"--input-format csv, tsv, parquet or jsonl (extensions: {', '.join(INPUT_FORMATS)})"
        )
        raise CliError(msg, code=2)
    return INPUT_FORMATS[suffix]


def check_exists(path: str) -> None:
    """A missing file is a usage error (exit status 2)."""
    if path != "-" and not os.path.exists(path):
        raise CliError(f"file {excerpt(path, 200)} not found; check the path", code=2)


def _scan(source: Any, fmt: str, infer: int | None) -> pl.LazyFrame:
    if fmt in SEPARATORS:
        return pl.scan_csv(source, separator=SEPARATORS[fmt], infer_schema_length=infer)
    if fmt == "parquet":
        return pl.scan_parquet(source)
    return pl.scan_ndjson(source, infer_schema_length=infer)


def read_table(
    path: str, fmt: str, columns: dict[str, str], status: Status
) -> tuple[pl.DataFrame, Source]:
    """Read the ``columns`` (name → the option that named it) of a CSV/TSV/Parquet/JSONL file.

    ``path`` ``-`` reads standard input. A missing column raises ``CliError`` naming the
    option to change and the closest column name; a file that cannot be read, the line at
    fault where it can be found.
    """
    check_exists(path)
    source = Source(path, fmt, sys.stdin.buffer.read() if path == "-" else None)
    status.show(f"reading {'standard input' if path == '-' else path}...")

    def failed(error: Exception) -> CliError:
        try:
            found = diagnose_text(source) if fmt != "parquet" else None
        except OSError as unreadable:  # a directory, no permission
            return CliError(f"cannot read {source.name}: {unreadable.strerror or unreadable}")
        if found is not None:
            return CliError(found)
        detail = " ".join(str(error).split("\n\n")[0].split()) or type(error).__name__
        detail = detail if len(detail) <= 200 else f"{detail[:200]}..."
        return CliError(
            f"cannot read {source.name} as {FORMAT_NAMES[fmt]}: {detail}; "
            "check the file, or pass --input-format if it is in another format"
        )

    try:
        names = _scan(source.scannable(), fmt, INFER_ROWS).collect_schema().names()
    except (pl.exceptions.PolarsError, OSError) as error:
        raise failed(error) from None
    missing = [(column, option) for column, option in columns.items() if column not in names]
    if missing:  # every missing column in one error
        found = header_not_utf8(source) if fmt != "parquet" else None
        raise CliError(found or _missing_columns(missing, names, source.name))
    wanted = list(dict.fromkeys(columns))
    try:
        try:
            frame = _scan(source.scannable(), fmt, INFER_ROWS).select(wanted).collect()
        except pl.exceptions.ComputeError:
            if fmt == "parquet":
                raise
            # a value after the first INFER_ROWS rows does not fit the inferred type
            frame = _scan(source.scannable(), fmt, None).select(wanted).collect()
    except (pl.exceptions.PolarsError, OSError) as error:
        raise failed(error) from None
    # people's grades (--gold) are null where no person judged: a column of empty fields
    # (or of null texts) alone is text to polars, and numbers here
    numbers = [column for column, option in columns.items() if option in ("--score", "--gold")]
    return _scores_as_numbers(frame, numbers), source


def null_text(values: pl.Series) -> pl.Series:
    """Per value of a text column, whether it is a null score's text (:data:`NULL_TEXTS`)."""
    return values.is_in(NULL_TEXTS)


def _scores_as_numbers(frame: pl.DataFrame, scores: Sequence[str]) -> pl.DataFrame:
    """The score columns that a text file holds as text because of ``nan``, ``NaN`` or
    another null's text (polars infers a column of those as text) as float64 numbers,
    those texts null, as ``pd.read_csv`` reads them. A column with any other text stays
    text, for the check that names its line (``checks.check_rows``)."""
    for name in scores:
        values = frame.get_column(name)
        if values.dtype != pl.String:
            continue
        written = values.set(null_text(values), None)
        parsed = written.cast(pl.Float64, strict=False)
        if (parsed.is_null() & written.is_not_null()).any():
            continue
        frame = frame.with_columns(parsed.alias(name))
    return frame


def _missing_columns(missing: Sequence[tuple[str, str]], names: Sequence[str], where: str) -> str:
    """One message for every (column, option) not in the file, each with a did-you-mean."""
    close = {column: closest_one(column, names, cutoff=0.5) for column, _ in missing}
    listed = ", ".join(
        f"{excerpt(column)} ({option}"
        + (f"; did you mean {excerpt(close[column][0])}?)" if close[column] else ")")
        for column, option in missing
    )
    # the message stays one short line: the longer the list of missing columns, the fewer
    # of the file's columns it shows
    budget = SHOWN_COLUMNS if len(missing) == 1 else max(60, SHOWN_COLUMNS - len(listed) - 60)
    shown = ", ".join(excerpt(n, 40) for n in names)
    if len(shown) > budget:  # many columns, or long names: as many as fit, then "..."
        shown = shown[: shown.rfind(", ", 0, budget) + 1] + " ..."
    if len(missing) == 1:
        ((column, option),) = missing
        hint = f" Did you mean {excerpt(close[column][0])}?" if close[column] else ""
        return (
            f"column {excerpt(column)} ({option}) not found in {where}.{hint} "
            f"Pass {option} COLUMN to use another column; the columns are {shown}"
        )
    flags = list(dict.fromkeys(option for _, option in missing))
    options = flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"
    return (
        f"{len(missing)} columns not found in {where}: {listed}. Pass {options} with "
        f"columns of the file; the columns are {shown}"
    )
