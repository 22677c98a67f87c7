"""The flags of a subcommand as declarations, and their checks.

A subcommand declares its flags as a table of :class:`Flag` (one per ``add_argument``,
the same keywords) that :func:`add_flags` adds to a group of its parser, and the flags that
pass an argument of a public method as a table flag → that parameter's constraint
(:mod:`rankframe.settings.params`), which :func:`check_flags` applies before the file is
read: the command line says what the library says for the same mistake, naming the flag
(exit status 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from rankframe.cli.errors import CliError, in_cli_terms
from rankframe.exceptions import InvalidOptionError
from rankframe.settings.params import Arg, Constraint, check_arg

__all__ = ["Flag", "add_flags", "check_flags"]


@dataclass(frozen=True, init=False)
class Flag:
    """One flag: its names (``"-o", "--output"``) and ``add_argument``'s keywords; a
    keyword left at ``None`` is not passed (argparse's default holds)."""

    names: tuple[str, ...]
    help: str | None
    type: Callable[[str], Any] | None
    default: Any
    metavar: str | None
    choices: Sequence[Any] | None
    action: str | None
    required: bool | None
    dest: str | None

    def __init__(
        self,
        *names: str,
        help: str | None = None,
        type: Callable[[str], Any] | None = None,
        default: Any = None,
        metavar: str | None = None,
        choices: Sequence[Any] | None = None,
        action: str | None = None,
        required: bool | None = None,
        dest: str | None = None,
    ) -> None:
        object.__setattr__(self, "names", names)
        for name, value in zip(
            ("help", "type", "default", "metavar", "choices", "action", "required", "dest"),
            (help, type, default, metavar, choices, action, required, dest),
            strict=True,
        ):
            object.__setattr__(self, name, value)

    def keywords(self) -> dict[str, Any]:
        """The keywords given, for ``add_argument``."""
        given = {f.name: getattr(self, f.name) for f in fields(self)[1:]}
        return {name: value for name, value in given.items() if value is not None}


def add_flags(group: argparse._ActionsContainer, flags: Sequence[Flag]) -> None:
    """Add each of ``flags`` to ``group`` (a parser, a group of it or an exclusive group),
    in their order."""
    for flag in flags:
        group.add_argument(*flag.names, **flag.keywords())


def check_flags(
    args: argparse.Namespace,
    constraints: Mapping[str, Constraint],
    method: str,
    systems: Sequence[str] = (),
) -> None:
    """Check each flag of ``constraints`` (``"--max-depth"`` → the constraint of the
    parameter it passes to ``method``) in their order, with the ``--score`` columns as
    ``systems``; the first bad one is a usage error in the library's words."""
    for flag, constraint in constraints.items():
        value = getattr(args, flag.lstrip("-").replace("-", "_"))
        try:
            check_arg(constraint, Arg(flag, value, method, systems))
        except InvalidOptionError as error:
            raise CliError(in_cli_terms(error), code=2) from None
