"""The argument parser of the ``rankframe`` command: its subcommands in the order ``--help``
lists them, each with the line ``--help`` shows for it and the function that declares its
arguments (``evaluate``, ``compare`` and ``demo``'s in ``commands``, the others in their
modules: ``check``'s in ``gate``, ``trec``'s in ``trec``, ``report``'s in ``report``...).

A subcommand's module is imported, and its arguments declared, only when that subcommand is
parsed: ``rankframe --version`` and ``rankframe --help`` import none of them, nor the library
they call; ``rankframe trec ...`` imports ``trec`` alone, and the library when it runs. This
module imports nothing but ``argparse``, the command line's error and the version.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from typing import Any, NoReturn

from rankframe._version import __version__
from rankframe.cli.errors import CliError

#: the subcommands in ``--help``'s order: name, the line ``--help`` shows, and the module
#: and function (``function(commands)``) that declare its arguments
COMMANDS: tuple[tuple[str, str, str, str], ...] = (
    (
        "evaluate",
        "metrics of a long-format file, overall, by segment or per query",
        "rankframe.cli.commands",
        "add_evaluate",
    ),
    (
        "compare",
        "systems (score columns) against a baseline, with significance tests",
        "rankframe.cli.commands",
        "add_compare",
    ),
    (
        "report",
        "one self-contained HTML report: summary, segments, curves, distributions, "
        "win/tie/loss, worst queries",
        "rankframe.cli.report",
        "add_parser",
    ),
    (
        "slices",
        "where a model fails: the worst slices of the queries, tested",
        "rankframe.cli.slices",
        "add_parser",
    ),
    (
        "gaps",
        "is every user group served alike: the gap between the groups' means, tested",
        "rankframe.cli.gaps",
        "add_parser",
    ),
    (
        "agreement",
        "a judge's grades (an LLM's) checked against people's: kappa, alpha, bias",
        "rankframe.cli.agreement",
        "add_parser",
    ),
    (
        "sample-size",
        "how many queries a t-test needs to detect a change of --delta",
        "rankframe.cli.sample_size",
        "add_parser",
    ),
    (
        "dashboard",
        "one self-contained HTML page of a history store's runs",
        "rankframe.cli.dashboard",
        "add_parser",
    ),
    (
        "trec",
        "a drop-in for trec_eval: its options, measures and output",
        "rankframe.cli.trec",
        "add_parser",
    ),
    (
        "check",
        "gates: rules on metrics; exit 1 when one fails",
        "rankframe.cli.gate",
        "add_parser",
    ),
    ("demo", "evaluate the embedded sample data", "rankframe.cli.commands", "add_demo"),
)


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one ``rankframe: error:`` line (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message}; see '{self.prog} --help'", code=2)


class _Command(_Parser):
    """A subcommand's parser whose arguments are declared when it is first used (parsed or
    its help written): its module is imported then."""

    declare: tuple[str, str] | None = None

    def declared(self) -> _Command:
        """The parser with its arguments (declared now if they were not yet)."""
        if self.declare is not None:
            module, function = self.declare
            self.declare = None
            getattr(importlib.import_module(module), function)(_Declaring(self))
        return self

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        return super(_Command, self.declared()).parse_known_args(args, namespace)

    def format_help(self) -> str:
        return super(_Command, self.declared()).format_help()

    def format_usage(self) -> str:
        return super(_Command, self.declared()).format_usage()


class _Declaring:
    """What a subcommand's declaring function gets: ``add_parser(name, description=...)``
    gives the subcommand's parser (made with its ``--help`` line by :func:`build_parser`),
    its description set."""

    def __init__(self, parser: _Command) -> None:
        self.parser = parser

    def add_parser(self, name: str, **settings: Any) -> _Command:
        expected = self.parser.prog.rpartition(" ")[2]
        if name != expected:  # pragma: no cover  (a declaring function of another command)
            msg = f"the arguments of {name!r} declared for {expected!r}"
            raise AssertionError(msg)
        for key, value in settings.items():
            setattr(self.parser, key, value)
        return self.parser


def build_parser(*, every_command: bool = False) -> argparse.ArgumentParser:
    """The argument parser of the ``rankframe`` command. Each subcommand's arguments are
    declared when it is parsed; ``every_command=True`` declares them all now (for what
    reads the whole parser: the tests of every command's flags)."""
    parser = _Parser(
        prog="rankframe", description="Ranking metrics inside pandas and polars DataFrames."
    )
    # the package's version (its metadata's, by pyproject.toml), without importlib.metadata
    parser.add_argument("--version", action="version", version=f"rankframe {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Command
    )
    for name, line, module, function in COMMANDS:
        command: _Command = commands.add_parser(name, help=line)
        command.declare = (module, function)
        if every_command:
            command.declared()
    return parser
