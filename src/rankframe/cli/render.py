"""Result frames as text: an aligned table, CSV, JSON records or a Markdown table."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rankframe.cli.errors import CliError

#: The columns shown as percentages: the same for every row, or per row (a function of the
#: row, column name -> value).
Percent = Collection[str] | Callable[[Mapping[str, Any]], Collection[str]]

#: The columns of changes, shown with their sign.
SIGNED = frozenset({"delta", "delta_relative"})
#: Counts of queries that a float column holds (inf: never enough; NaN: no answer), shown
#: as whole numbers.
WHOLE = frozenset({"n_needed", "queries_to_decide"})


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cell(value: Any, column: str, percent: Collection[str], nan: str) -> str:
    """A value as shown in the table and markdown formats."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if column in WHOLE and isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"  # a count in a float column (for its inf and NaN): 1618
    if isinstance(value, float):
        if math.isnan(value):
            return nan
        if column.startswith("p_"):  # p_value, p_adjusted: as every output writes them
            from rankframe.report.verdict import p_text  # the report package: only here

            return p_text(value)
        signed = "+" if column in SIGNED else ""
        if column in percent:
            return f"{value * 100:{signed}.2f}%"
        if column == "k":  # a cut-off or a parameter as written: 10, 0.2 (a float column
            return f"{value:g}"  # once one metric's parameter is a fraction)
        return f"{value:{signed}.4f}"
    return str(value)


def _csv_cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def render(result: Any, fmt: str, *, percent: Percent = (), nan: str = "NaN") -> str:
    """A result frame as text: an aligned table, CSV, JSON records or a Markdown table.

    ``percent`` names the columns shown times 100 with a ``%`` in the table and Markdown
    formats, or gives them per row (a function of the row); ``nan`` is how they show NaN.
    CSV and JSON always hold the raw values, NaN as an empty field and as null.
    """
    # imported here: ``rankframe trec`` writes its text through this module without pandas
    from rankframe.adapters.results import table_rows

    columns, rows = table_rows(result)
    if fmt == "json":
        # JSON has no NaN: a NaN value (empty="nan") is written as null
        records = [
            {
                c: None if isinstance(v, float) and math.isnan(v) else v
                for c, v in zip(columns, row, strict=True)
            }
            for row in rows
        ]
        return json.dumps(records, indent=2, ensure_ascii=False, default=str) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([_csv_cell(v) for v in row] for row in rows)
        return out.getvalue()
    if callable(percent):
        per_row = percent
    else:
        same = set(percent)

        def per_row(_: Mapping[str, Any]) -> Collection[str]:
            return same

    cells = []
    for row in rows:
        shown = set(per_row(dict(zip(columns, row, strict=True))))
        cells.append([_cell(v, c, shown, nan) for v, c in zip(row, columns, strict=True)])
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
            v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    rule = ["-" * w for w in widths]
    return "\n".join([aligned(columns), aligned(rule), *(aligned(r) for r in cells)]) + "\n"


def write_parts(parts: Iterable[str], output: str | None) -> None:
    """Write ``parts`` one after the other to the file ``output``, or to standard output:
    a long text (``rankframe trec -q``'s) written as it is made, never held whole."""
    if output is None:
        for part in parts:
            sys.stdout.write(part)
        sys.stdout.flush()
        return
    try:
        with Path(output).open("w", encoding="utf-8") as file:
            for part in parts:
                file.write(part)
    except OSError as error:
        raise CliError(f"cannot write {output!r}: {error.strerror or error}") from None


def write(text: str, output: str | None) -> None:
    """Write ``text`` to the file ``output``, or to standard output."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as error:
        raise CliError(f"cannot write {output!r}: {error.strerror or error}") from None
