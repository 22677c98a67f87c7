"""``--record STORE --run-name NAME --tag KEY=VALUE --recorded-at TIME``: a command's result
appended to a history store (``rankframe.History``).

A command adds the flags with :func:`add_record_options` and records its result with
:func:`record` (nothing happens without ``--record``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankframe.cli.errors import CliError
from rankframe.exceptions import InvalidOptionError

__all__ = ["add_record_options", "parse_tag", "record"]


def parse_tag(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        msg = f"--tag takes KEY=VALUE, e.g. --tag branch=main; got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return key, value


def add_record_options(parser: argparse.ArgumentParser) -> None:
    """The flags that record a command's result in a history store."""
    group = parser.add_argument_group("history")
    group.add_argument(
        "--record",
        metavar="STORE",
        help="append the result to a history store: a DuckDB file (metrics.duckdb, created "
        "when missing) or a SQLAlchemy URL (sqlite:///metrics.db); see docs/monitoring.md",
    )
    group.add_argument(
        "--run-name", metavar="NAME", help="the recorded run's name, e.g. nightly (needs --record)"
    )
    group.add_argument(
        "--tag",
        action="append",
        type=parse_tag,
        metavar="KEY=VALUE",
        help="a label of the recorded run, e.g. branch=main (repeatable; needs --record)",
    )
    group.add_argument(
        "--recorded-at",
        metavar="TIME",
        help="the recorded run's time, to backfill a past run: ISO 8601 with "
        "its offset, e.g. 2026-01-05T06:00:00+00:00 (default: now; needs "
        "--record)",
    )


def check_record_options(args: argparse.Namespace) -> None:
    """--run-name and --tag without --record are usage errors (exit status 2)."""
    if getattr(args, "record", None) is None:
        for flag, value in (
            ("--run-name", args.run_name),
            ("--tag", args.tag),
            ("--recorded-at", getattr(args, "recorded_at", None)),
        ):
            if value:
                raise CliError(f"{flag} names a recorded run: add --record STORE", code=2)


def record(args: argparse.Namespace, result: Any, data: Any = None) -> None:
    """Append ``result`` to the store of ``--record`` (if given), with ``--run-name`` and the
    ``--tag`` labels; say so on stderr. ``data``: the input, for a result that no accessor
    method returned as it is (a table assembled from several, as ``check``'s): the accessor
    bound to the file's columns, so that the run records the input's fingerprint."""
    check_record_options(args)
    if args.record is None:
        return
    from rankframe.history import History  # the store's package: only with --record

    try:
        store = History(args.record)
        run_id = store.record(
            result,
            run=args.run_name,
            tags=dict(args.tag or []),
            data=data,
            recorded_at=getattr(args, "recorded_at", None),
        )
    except ImportError as error:
        raise CliError(str(error), code=1) from None
    except InvalidOptionError as error:
        if "recorded_at=" not in str(error):
            raise
        msg = (
            f"--recorded-at takes the run's time with its offset, e.g. "
            f"2026-01-05T06:00:00+00:00 (Z for UTC); got {args.recorded_at!r}"
        )
        raise CliError(msg, code=2) from None
    print(f"rankframe: recorded run {run_id} in {store.store}", file=sys.stderr)
