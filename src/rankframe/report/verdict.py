"""The answer in words: a check's verdict in one line, and p-values as they are written.

Shared by the CLI (``rankframe check``'s line on stderr) and the report's headline.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import pandas as pd

__all__ = ["NAMED", "P_FLOOR", "p_text", "verdict"]

#: The failed rows the verdict line names; it counts the others ("and 3 more").
NAMED = 5

#: The smallest p-value written as a number. Below it a p-value means nothing more (and one
#: below the smallest double has underflowed to 0): it is written ``< 1e-300``.
P_FLOOR = 1e-300


def verdict(
    rows: Sequence[Mapping[str, Any]], keys: Sequence[str], failing: Collection[str]
) -> str:
    """The check's decision in one line: how many of the rows (a rule on one system and
    segment each) failed, and the first :data:`NAMED` of them, each with its segment (and
    its system when the table has several; its status when it is not ``"fail"``, with
    ``--fail-on uncertain``); on a pass, the count of each status.

    >>> rows = [{"rule": "mrr >= 0.5", "system": "a", "theme": "news", "status": "fail"},
    ...         {"rule": "mrr >= 0.5", "system": "a", "theme": "sport", "status": "pass"}]
    >>> verdict(rows, ["theme", "system"], {"fail"})
    '1 of 2 rules failed: mrr >= 0.5 (theme=news)'
    >>> verdict(rows[1:], ["theme", "system"], {"fail"})
    '0 of 1 rules failed (1 pass)'
    """
    failed = [row for row in rows if row["status"] in failing]
    head = f"{len(failed)} of {len(rows)} rules failed"
    if not failed:
        counts = Counter(str(row["status"]) for row in rows)
        return f"{head} ({', '.join(f'{n} {status}' for status, n in counts.items())})"
    shown = [k for k in keys if k != "system" or len({row["system"] for row in rows}) > 1]
    named = []
    for row in failed[:NAMED]:
        where = [f"{k}={_shown(row[k])}" for k in shown]
        if row["status"] != "fail":
            where.append(str(row["status"]))
        named.append(f"{row['rule']} ({', '.join(where)})" if where else str(row["rule"]))
    more = f", and {len(failed) - NAMED} more" if len(failed) > NAMED else ""
    return f"{head}: {', '.join(named)}{more}"


def _shown(value: Any) -> str:
    """A segment's value as the line writes it: a window starting at midnight as its date."""
    if isinstance(value, dt.datetime) and value.time() == dt.time(0):
        return value.date().isoformat()
    return str(value)


def p_text(p: Any) -> str:
    """A p-value as every output writes it (the report, the dashboard, the CLI's tables):
    4 decimals, or 1 significant digit in scientific notation below 1e-4 (``3.0e-292``),
    and ``< 1e-300`` below :data:`P_FLOOR` (a p-value that underflowed to 0 included):
    never ``0.0000`` nor ``0.0e+00``. Empty when there is none.

    >>> p_text(0.12345), p_text(3e-292), p_text(0.0), p_text(5e-324), p_text(float("nan"))
    ('0.1235', '3.0e-292', '< 1e-300', '< 1e-300', '')
    """
    if p is None or pd.isna(p):
        return ""
    value = float(p)
    if value < P_FLOOR:
        return f"< {P_FLOOR:.0e}"
    return f"{value:.1e}" if value < 1e-4 else f"{value:.4f}"
