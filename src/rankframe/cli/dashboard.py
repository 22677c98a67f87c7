"""``rankframe dashboard STORE -o dashboard.html``: the history store's HTML page."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankframe.cli.errors import CliError
from rankframe.cli.recording import parse_tag
from rankframe.cli.status import Status


def add_parser(commands: Any) -> None:
    """The ``dashboard`` subcommand and its arguments."""
    parser = commands.add_parser(
        "dashboard",
        description="Write one self-contained HTML page (no network request, no script) of "
        "the runs of a history store: the verdict in words, the latest run's values, a trend "
        "per metric and segment with intervals, the gates' statuses and their history, and "
        "the runs. See docs/monitoring.md.",
    )
    parser.add_argument(
        "store",
        metavar="STORE",
        help="the store: a DuckDB file or a SQLAlchemy URL (sqlite:///m.db)",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", required=True, help="the HTML file to write"
    )
    parser.add_argument("--run-name", metavar="NAME", help="only the runs of this name")
    parser.add_argument(
        "--tag",
        action="append",
        type=parse_tag,
        metavar="KEY=VALUE",
        help="only the runs with this tag (repeatable: every one)",
    )
    parser.add_argument("--since", metavar="TIME", help="only runs recorded at or after (UTC)")
    parser.add_argument("--until", metavar="TIME", help="only runs recorded before (UTC)")
    parser.add_argument(
        "--last",
        type=int,
        default=100,
        metavar="N",
        help="charts and tables show the latest N runs (default: 100)",
    )
    parser.add_argument("--title", metavar="TEXT", help="the page's title")
    parser.set_defaults(handler=run_dashboard)


def run_dashboard(args: argparse.Namespace, _status: Status) -> int:
    """Write the page; say where on stderr."""
    from rankframe.api.store import History  # the store and the page: only when run

    try:
        store = History(args.store)
    except ImportError as error:
        raise CliError(str(error), code=1) from None
    store.dashboard(
        args.output,
        run=args.run_name,
        tags=dict(args.tag or []) or None,
        since=args.since,
        until=args.until,
        title=args.title,
        last=args.last,
    )
    print(f"rankframe: wrote {args.output}", file=sys.stderr)
    return 0
