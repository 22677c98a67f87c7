"""The answer in words: a check's verdict in one line, and p-values as they are written.

Shared by the CLI (``rankframe check``'s line on stderr) and the report's headline.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

__all__ = ["NAMED", "p_text", "verdict"]

#: The failed rows the verdict line names; it counts the others ("and 3 more").
NAMED = 5


def verdict(rows: Sequence[Mapping[str, Any]], keys: Sequence[str],
            failing: Collection[str]) -> str:
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
    """A p-value as the CLI writes it: 4 decimals, or 1 significant digit in scientific
    notation below 1e-4 (``3.0e-292``, never ``0.0000``); empty when there is none.

    >>> p_text(0.12345), p_text(3e-292), p_text(float("nan"))
    ('0.1235', '3.0e-292', '')
    """
    if p is None:
        return ""
    value = float(p)
    if math.isnan(value):
        return ""
    return f"{value:.1e}" if 0 < value < 1e-4 else f"{value:.4f}"
