"""The input contract in the terms of the file: each error names the file, the 1-based line
of the offending record and the option to pass.

``check_rows`` runs before the library, on the input contract's facts of the file
(:mod:`rankframe.pipeline.validation`: the row count, the column types, the null counts). The facts
that cost a pass over the data (a repeated item, a ``--by`` column varying within a query,
queries without a relevant item, also found by ``_validation``) are read only after the
library has refused the data, through ``explain``, to say where in the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from rankframe.cli.errors import CliError
from rankframe.cli.reading import null_text
from rankframe.cli.source import Source
from rankframe.exceptions import EmptyQueryError, InvalidDataError, RankEvalError, excerpt
from rankframe.pipeline import validation
from rankframe.pipeline.steps import ColumnNames

# names of a list that a message shows before "and N more"
SHOWN = 5


@dataclass(frozen=True)
class Roles:
    """The columns the command reads, by role."""

    query: str
    item: str
    scores: Sequence[str]
    relevant: str
    by: Sequence[str]
    by_option: str = "--by"  # the flag that names the ``by`` columns (slices: --column)
    gold: str | None = None  # --gold: people's grades beside the judge's (--relevant)


def _first(mask: pl.Series) -> int:
    return int(mask.arg_true()[0])


def _names(roles: Roles) -> ColumnNames:
    scores = tuple(roles.scores)
    return ColumnNames(
        query=roles.query,
        item=roles.item,
        score=scores[0],
        relevant=roles.relevant,
        systems=scores if len(scores) > 1 else None,
    )


def check_rows(frame: pl.DataFrame, source: Source, roles: Roles) -> None:
    """Rows, nulls and numbers, from the input contract's facts of the file
    (:mod:`rankframe.pipeline.validation`); raise the first problem found, in the file's terms."""
    if frame.height == 0:
        msg = f"{source.subject} has no rows, only a header; it needs one row per (query, item)"
        raise CliError(msg)
    facts = validation.polars_facts(frame, _names(roles))
    if facts.clean:
        return
    for column, option, what in (
        (roles.query, "--query", "query"),
        (roles.item, "--item", "item"),
        (roles.relevant, "--relevant", "grade"),
    ):
        nulls = facts.nulls[column]
        if nulls.count:
            fix = "write 0 for an item that is not relevant" if what == "grade" else "fill it in"
            msg = (
                f"{source.at_start([nulls.first])} has no {what} (column "
                f"{excerpt(column)}); every row needs one: {fix} or delete the row, or pass "
                f"{option} with another column"
            )
            raise CliError(msg)
    for column in dict.fromkeys(roles.scores):
        if column in facts.dtypes:
            _check_numbers(
                frame[column],
                source,
                "--score",
                "score",
                "leave the cell empty for an item judged but not retrieved",
            )
    grades = frame[roles.relevant]
    if roles.relevant in facts.dtypes:
        _check_numbers(
            grades, source, "--relevant", "grade", "write 0 for an item that is not relevant"
        )
    if facts.infinite >= 0:
        raise _bad_value(
            source,
            grades,
            facts.infinite,
            "grade",
            "not a finite number",
            "write the grade",
            "--relevant",
        )


def _bad_value(
    source: Source, values: pl.Series, row: int, what: str, problem: str, fix: str, option: str
) -> CliError:
    """The error of one value, by its line."""
    return CliError(
        f"{source.at_start([row])} has the {what} {excerpt(values[row])} (column "
        f"{excerpt(values.name)}), which is {problem}; {fix}, or pass {option} with another column"
    )


def _check_numbers(values: pl.Series, source: Source, option: str, what: str, fix: str) -> None:
    """Raise for a column that is not numeric: its first value that is not a number, in a
    column of text; else its dtype."""
    dtype = values.dtype
    if dtype == pl.String:
        parsed = values.cast(pl.Float64, strict=False)
        bad = values.is_not_null() & ~null_text(values) & parsed.is_null()
        if bad.any():
            raise _bad_value(
                source, values, _first(bad), what, "not a number", f"write a number ({fix})", option
            )
    msg = (
        f"column {excerpt(values.name)} ({option}) of {source.name} holds {dtype}, not "
        f"numbers; pass {option} with a numeric column"
    )
    raise CliError(msg)


def explain(
    error: RankEvalError,
    frame: pl.DataFrame,
    source: Source,
    roles: Roles,
    min_relevance: float | None,
) -> CliError | None:
    """The library's refusal of the data, said in the file's terms; None if not found."""
    if isinstance(error, EmptyQueryError):
        return _empty_queries(frame, source, roles, min_relevance)
    if isinstance(error, InvalidDataError):
        return _repeated_item(frame, source, roles) or _varying_by(frame, source, roles)
    return None


def _repeated_item(frame: pl.DataFrame, source: Source, roles: Roles) -> CliError | None:
    found = validation.first_duplicate(frame, roles.query, roles.item)
    if found is None:
        return None
    query, item, rows = found
    more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
    msg = (
        f"Item {excerpt(item)} appears {len(rows)} times in query {excerpt(query)} of "
        f"{source.name} ({source.numbered(rows[:3])}{more}); each item may appear "
        "once per query: delete the repeated rows, or pass --item with the column that tells "
        "the items apart"
    )
    return CliError(msg)


def _varying_by(frame: pl.DataFrame, source: Source, roles: Roles) -> CliError | None:
    for column in roles.by:
        found = validation.first_varying(frame, roles.query, column)
        if found is None:
            continue
        query, first, other = found
        values = frame[column]
        msg = (
            f"Column {excerpt(column)} ({roles.by_option}) varies within query "
            f"{excerpt(query)} of {source.name}: {excerpt(values[first])} on "
            f"{source.numbered([first])}, {excerpt(values[other])} on "
            f"{source.numbered([other])}; a {roles.by_option} column must be constant within "
            f"a query (a user, a theme, a cohort): pass {roles.by_option} with such a column"
        )
        return CliError(msg)
    return None


def _empty_queries(
    frame: pl.DataFrame, source: Source, roles: Roles, min_relevance: float | None
) -> CliError | None:
    empty = validation.empty_queries(frame, roles.query, roles.relevant, min_relevance)
    if empty.height == 0:
        return None
    lines = source.lines(empty["row"][:SHOWN].to_list())
    shown = ", ".join(
        f"{excerpt(q)} ({source.unit} {n:,})"
        for q, n in zip(empty[roles.query][:SHOWN].to_list(), lines, strict=True)
    )
    more = f" and {empty.height - SHOWN} more" if empty.height > SHOWN else ""
    count = "1 query has" if empty.height == 1 else f"{empty.height:,} queries have"
    threshold = "grade > 0" if min_relevance is None else f"grade >= {min_relevance:g}"
    return CliError(
        f"{count} no relevant item ({threshold}) in {source.name}: {shown}{more}; their "
        "metrics are undefined: pass --empty zero (count 0, as trec_eval), --empty skip or "
        "--empty nan, or a lower --min-relevance"
    )
