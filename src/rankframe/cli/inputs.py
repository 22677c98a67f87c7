"""What the commands that read a long-format file share, from the parsed arguments to the
library's call: the metrics and the metric options checked, the columns by role and the
options that name them, the time column, the accessor bound to the columns, and the
library's refusal of the data said in the file's terms."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import polars as pl

import rankframe  # noqa: F401  (registers the accessors)
from rankframe.cli.checks import Roles, explain
from rankframe.cli.errors import CliError, in_cli_terms
from rankframe.cli.names import DEFAULT_METRICS
from rankframe.cli.reading import input_format, read_table
from rankframe.cli.source import Source
from rankframe.cli.status import Status
from rankframe.exceptions import RankEvalError
from rankframe.metrics.registry import parse_metrics
from rankframe.settings.conventions import CONVENTION
from rankframe.settings.options import OPTIONS, Options


def metrics(specs: Sequence[str] | None) -> list[str]:
    """The -m arguments (repeatable, or comma-separated; a label's options in parentheses,
    ``f1@5(beta=2)``), checked against the registry."""
    try:
        return [str(m) for m in parse_metrics(list(specs or DEFAULT_METRICS))]
    except RankEvalError as error:
        raise CliError(str(error), code=2) from None


def options(args: argparse.Namespace) -> dict[str, Any]:
    """The metric options given on the command line, checked."""
    given = {name: getattr(args, name) for name in OPTIONS if getattr(args, name, None) is not None}
    try:
        Options(**given)
        CONVENTION.validate(args.convention)
    except RankEvalError as error:
        raise CliError(in_cli_terms(error), code=2) from None
    if args.convention is not None:
        given["convention"] = args.convention
    return given


def estimate(args: argparse.Namespace, method: str) -> dict[str, Any]:
    """``estimate=`` of --estimate (none without it), which needs --gold; evaluate's not
    with --per-query (a mean, not a value per query)."""
    chosen = getattr(args, "estimate", None)
    if chosen is None:
        return {}
    if args.gold is None:
        msg = (
            f"--estimate {chosen} corrects the judge's grades (--relevant {args.relevant}) by "
            "people's: pass --gold COL, the column of people's grades (empty where no person "
            "judged the row)"
        )
        raise CliError(msg, code=2)
    if getattr(args, "per_query", False):
        msg = f"--estimate {chosen} gives {method}'s means and intervals; drop --per-query"
        raise CliError(msg, code=2)
    if getattr(args, "record", None) is not None:
        msg = (
            f"--record stores {method}'s plain tables, not --estimate {chosen}'s (a history "
            "store has no column for the estimate); drop one of them"
        )
        raise CliError(msg, code=2)
    return {"estimate": chosen}


def roles(args: argparse.Namespace, scores: Sequence[str]) -> Roles:
    """The columns by role; a --by column that has another role is a usage error."""
    by = list(dict.fromkeys(args.by or []))
    gold = getattr(args, "gold", None)
    roles = Roles(args.query, args.item, scores, args.relevant, by, gold=gold)
    taken = {roles.query: "--query", roles.item: "--item", roles.relevant: "--relevant"}
    taken.update(dict.fromkeys(scores, "--score"))
    if gold is not None and gold in taken:
        msg = (
            f"--gold {gold} is the {taken[gold]} column; pass --gold with the column of "
            "people's grades (empty where no person judged the row), beside the judge's "
            "in --relevant"
        )
        raise CliError(msg, code=2)
    for column in roles.by:
        if column in taken:
            msg = (
                f"--by {column} is the {taken[column]} column; pass --by with a column that "
                "describes the query (a user segment, a theme)"
            )
            raise CliError(msg, code=2)
    return roles


def columns(roles: Roles, args: argparse.Namespace | None = None) -> dict[str, str]:
    """Every column the command reads → the option that names it (--time with windows)."""
    columns = {roles.query: "--query", roles.item: "--item"}
    columns.update(dict.fromkeys(roles.scores, "--score"))
    columns[roles.relevant] = "--relevant"
    if roles.gold is not None:
        columns[roles.gold] = "--gold"
    columns.update({b: "--by" for b in roles.by if b not in columns})
    time = getattr(args, "time", None)
    if time is not None:
        columns.setdefault(time, "--time")
    return columns


def check_time_options(args: argparse.Namespace) -> None:
    """--every needs --time; --time-unit is for an integer --time column."""
    if args.every is not None and args.time is None:
        raise CliError("--every needs --time COL, the time column of the queries", code=2)
    if getattr(args, "time_unit", None) is not None and args.time is None:
        raise CliError("--time-unit needs --time COL, an integer column of epochs", code=2)


def with_times(frame: pl.DataFrame, source: Source, args: argparse.Namespace) -> pl.DataFrame:
    """The --time column of a text file (CSV, TSV, JSON lines: text) parsed as ISO 8601
    datetimes (polars ``str.to_datetime``: with an offset or ``Z``, UTC datetimes; without,
    naive ones; a date, midnight); other types as they are."""
    time = getattr(args, "time", None)
    if time is None or frame.schema[time] != pl.String:
        return frame
    try:
        # a Series, not an expression: polars infers the format and the offset from its values
        return frame.with_columns(frame.get_column(time).str.to_datetime())
    except pl.exceptions.PolarsError:
        first = frame.get_column(time).drop_nulls().head(1).to_list()
        example = f" (first value {first[0]!r})" if first else ""
        msg = (
            f"--time {time}: the column of {source.name} holds text that is not an ISO 8601 "
            f"datetime{example}; write it as 2024-01-31T12:00:00Z or 2024-01-31, or pass "
            "integer epochs with --time-unit"
        )
        raise CliError(msg, code=2) from None


def timed(ev: Any, args: argparse.Namespace) -> Any:
    """The accessor bound to the --time column (and --time-unit)."""
    if getattr(args, "time", None) is None:
        return ev
    return ev(time=args.time, time_unit=args.time_unit)


def accessor(frame: pl.DataFrame, roles: Roles) -> Any:
    """The frame's ``rank_eval`` accessor, bound to the columns by role."""
    scores = list(roles.scores)
    score: str | list[str] = scores[0] if len(scores) == 1 else scores
    # polars does not know registered namespaces
    return cast("Any", frame).rank_eval(
        query=roles.query, item=roles.item, score=score, relevant=roles.relevant, gold=roles.gold
    )


@contextmanager
def in_file_terms(
    frame: pl.DataFrame, source: Source, roles: Roles, args: argparse.Namespace
) -> Iterator[None]:
    """The library's refusal of the data, said with the file's lines and the options."""
    try:
        yield
    except RankEvalError as error:
        explained = explain(error, frame, source, roles, args.min_relevance)
        if explained is None:
            raise
        raise explained from None


def item_groups(args: argparse.Namespace, roles: Roles, status: Status) -> dict[str, Any]:
    """The options of --item-groups FILE (the item column named as FILE's, --item, and
    --group-column) and --unknown-group: ``item_groups=`` a two-column polars frame."""
    path = getattr(args, "item_groups_file", None)
    if path is None:
        if getattr(args, "unknown_group_name", None) is not None:
            raise CliError("--unknown-group needs --item-groups FILE", code=2)
        for metric in parse_metrics(list(args.metric or DEFAULT_METRICS)):
            items = metric.definition.items
            if items is not None and items.needs == "item_groups":
                msg = (
                    f"{metric} needs --item-groups FILE: a file of each item's group "
                    "(the item column, as --item, and --group-column)"
                )
                raise CliError(msg, code=2)
        return {}
    if args.group_column == roles.item:
        msg = (
            f"--group-column {args.group_column} is the --item column; pass the column of "
            "the groups"
        )
        raise CliError(msg, code=2)
    columns = {roles.item: "--item", args.group_column: "--group-column"}
    frame, _ = read_table(path, input_format(path, None), columns, status)
    chosen: dict[str, Any] = {"item_groups": frame.select(roles.item, args.group_column)}
    if args.unknown_group_name is not None:
        chosen["unknown_group"] = args.unknown_group_name
    return chosen
