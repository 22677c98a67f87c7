"""A rankframe result as the keys and values of an experiment tracker (MLflow, Weights &
Biases): the one key scheme of docs/mlflow.md (:func:`metric_key`, :func:`parse_key`),
each number of a table as a :class:`Value` (a key, a step and a timestamp), a check's
verdict line. ``rankframe.mlflow`` and ``rankframe.wandb`` log what this module reads; it
imports neither tracker.

It reads results through their documented columns only. The keys keep MLflow's rules (the
stricter tracker's), so both trackers take the same keys.
"""

from __future__ import annotations

import datetime as dt
import math
import posixpath
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import pandas as pd

from rankframe.adapters.results import eager_table
from rankframe.exceptions import InvalidOptionError, RankEvalError
from rankframe.metrics.registry import parse_metric

__all__ = [
    "MAX_KEY",
    "STATUS_CODES",
    "Key",
    "Value",
    "as_pandas",
    "check_key",
    "check_prefix",
    "escape",
    "fingerprint_of",
    "json_safe",
    "key_columns",
    "kind_of",
    "long_label",
    "metric_key",
    "parse_key",
    "tables_of",
    "tag_key",
    "unescape",
    "values_of",
    "verdict",
]

#: A check's ``status`` as the value of its ``status`` metric.
STATUS_CODES: Mapping[str, float] = {
    "fail": 0.0,
    "uncertain": 0.5,
    "pass": 1.0,
    "too few queries": -1.0,
    "no baseline": -2.0,
}

#: MLflow's rules for a key: these characters, at most this long, no path that
#: ``posixpath.normpath`` changes.
_ALLOWED = re.compile(r"^[/\w.\- :]*$")
MAX_KEY = 250

#: The characters a key part keeps as they are; ``-`` starts every escape.
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
#: The escapes of the characters metric labels and names use most, one letter each.
_NAMED = {
    "@": "a",
    "(": "o",
    ")": "c",
    "=": "e",
    ",": "m",
    " ": "s",
    "-": "d",
    "/": "f",
    ":": "k",
    ".": "p",
    "'": "q",
}
_UNNAMED = {code: char for char, code in _NAMED.items()}
_EMPTY = "-z"  # the empty string: a part is never empty (no ``//`` in a key)

#: Columns before the metric that are no key: the window (a step), a slice's text and depth.
_NOT_KEYS = frozenset({"window", "slice", "depth"})
#: The columns of a long table that name the metric: folded into the key's label.
_LABEL_COLUMNS = ("metric", "k")
_CI = ("ci_low", "ci_high")


def escape(text: str) -> str:
    """One part of a key: letters, digits, ``_`` and ``.`` as they are, every other
    character as ``-`` and a letter (``@`` ``-a``, ``(`` ``-o``, ``)`` ``-c``, ``=``
    ``-e``, ``,`` ``-m``, space ``-s``, ``-`` ``-d``, ``/`` ``-f``, ``:`` ``-k``, ``'``
    ``-q``), ``-x`` and two hex digits, or ``-u`` and six; a part of dots only has its
    dots escaped (``-p``), the empty string is ``-z``.

    >>> escape("mrr(ties=first)@10"), escape(".."), escape("")
    ('mrr-oties-efirst-c-a10', '-p-p', '-z')
    """
    if not text:
        return _EMPTY
    if set(text) == {"."}:
        return "-p" * len(text)
    out = []
    for char in text:
        if char in _SAFE:
            out.append(char)
        elif char in _NAMED:
            out.append("-" + _NAMED[char])
        elif ord(char) < 256:
            out.append(f"-x{ord(char):02x}")
        else:
            out.append(f"-u{ord(char):06x}")
    return "".join(out)


def unescape(part: str) -> str:
    """The text of a key part: :func:`escape` undone.

    >>> unescape("mrr-oties-efirst-c-a10")
    'mrr(ties=first)@10'
    """
    out = []
    i = 0
    while i < len(part):
        char = part[i]
        if char != "-":
            out.append(char)
            i += 1
            continue
        code = part[i + 1 : i + 2]
        if code == "x":
            out.append(chr(int(part[i + 2 : i + 4], 16)))
            i += 4
        elif code == "u":
            out.append(chr(int(part[i + 2 : i + 8], 16)))
            i += 8
        elif code == "z":
            i += 2
        elif code in _UNNAMED:
            out.append(_UNNAMED[code])
            i += 2
        else:
            msg = f"Not a rankframe key part: {part!r} (a '-' followed by {code!r})."
            raise InvalidOptionError(msg)
    return "".join(out)


class Key(NamedTuple):
    """What a metric key says: the metric's label (``ndcg@10``; a column of a table without
    a ``metric`` column, such as ``n_queries``), the field (``value``, ``ci_low``,
    ``p_value``, ...: a column of the table) and the keys of its row (``system``, the
    segment's columns, a check's ``rule``), in the table's order; ``None`` for a missing
    one."""

    label: str
    field: str
    where: tuple[tuple[str, str | None], ...]


def metric_key(key: Key, prefix: str = "") -> str:
    """The MLflow key of a value: ``prefix``, then ``label/field``, then one part per key
    column, ``column:value`` (``column`` alone for a missing value), each escaped
    (:func:`escape`), joined by ``/``.

    >>> metric_key(Key("ndcg@10", "ci_low", (("theme", "news"), ("system", "bm25"))))
    'ndcg-a10/ci_low/theme:news/system:bm25'
    """
    parts = [escape(key.label), escape(key.field)]
    for column, value in key.where:
        parts.append(escape(column) if value is None else f"{escape(column)}:{escape(value)}")
    return prefix + "/".join(parts)


def parse_key(text: str, prefix: str = "") -> Key:
    """:func:`metric_key` undone.

    >>> parse_key("ndcg-a10/ci_low/theme:news/system:bm25")
    Key(label='ndcg@10', field='ci_low', where=(('theme', 'news'), ('system', 'bm25')))
    """
    if not text.startswith(prefix):
        msg = f"The key {text!r} does not start with the prefix {prefix!r}."
        raise InvalidOptionError(msg)
    label, field, *rest = text[len(prefix) :].split("/")
    where = []
    for part in rest:
        column, sep, value = part.partition(":")
        where.append((unescape(column), unescape(value) if sep else None))
    return Key(unescape(label), unescape(field), tuple(where))


def check_key(key: str) -> None:
    """Refuse a key MLflow would refuse, naming the rule it breaks."""
    problem = None
    if not _ALLOWED.match(key):
        problem = "has characters MLflow refuses (it takes letters, digits, '_-. :/')"
    elif len(key) > MAX_KEY:
        problem = f"is {len(key)} characters long; MLflow takes at most {MAX_KEY}"
    elif posixpath.normpath(key) != key:
        problem = "is a path MLflow refuses ('//', a '.' or '..' part, or a '/' at the end)"
    if problem:
        msg = (
            f"The MLflow key {key!r} {problem}: shorten the segment or system names, "
            "or pass another prefix="
        )
        raise InvalidOptionError(msg)


# -- a result as keys and values ----------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """One metric to log."""

    key: str
    value: float
    step: int
    timestamp: int  # milliseconds since the epoch


def as_pandas(result: Any) -> tuple[pd.DataFrame, str, Any]:
    """A result table as pandas, its kind (``pandas`` or ``polars``) and the eager frame
    itself (a LazyFrame collected)."""
    table = eager_table(result)
    if table is not None:
        library, frame, pandas = table
        return pandas, library, frame
    msg = (
        f"log() takes a result of rankframe (a pandas or polars table of "
        f"evaluate, compare, check, slices, gaps, sample_size, or a Report); got "
        f"{type(result).__name__}."
    )
    raise InvalidOptionError(msg)


def kind_of(frame: pd.DataFrame) -> str:
    """Which method made the table, from its documented columns."""
    columns = set(frame.columns)
    if {"rule", "status"} <= columns:
        return "check"
    if "slice" in columns:
        return "slices"
    if "gap" in columns:
        return "gaps"
    if "n_needed" in columns:
        return "sample_size"
    if {"metric", "mean", "delta"} <= columns:
        return "compare"
    return "evaluate"


def _is_label(column: Any) -> bool:
    """Whether a wide table's column is a metric's (its label parses)."""
    try:
        parse_metric(str(column))
    except RankEvalError:
        return False
    return True


def key_columns(frame: pd.DataFrame) -> list[str]:
    """The columns that say which row a value belongs to: those before ``metric`` in a long
    table, before the first metric's column in a wide one (the ``by`` segments, ``system``,
    a check's ``rule``), of any dtype; not the window (a step), nor a slice's ``slice`` and
    ``depth``, which its columns say."""
    names = list(frame.columns)
    if "metric" in names:
        lead = names[: names.index("metric")]
    else:
        first = next((i for i, c in enumerate(names) if _is_label(c)), len(names))
        lead = names[:first]
    return [str(c) for c in lead if c not in _NOT_KEYS]


def _text(value: Any) -> str | None:
    if value is None or (not isinstance(value, str) and bool(pd.isna(value))):
        return None
    return str(value)


def _number(value: Any, column: str) -> float | None:
    """A cell as a metric value (``None``: not a number, not logged)."""
    if column == "status":
        return STATUS_CODES.get(str(value), math.nan)
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return math.nan
    if isinstance(value, bool | int | float) or hasattr(value, "dtype"):
        try:
            return float(value)
        except (TypeError, ValueError):
            return None
    return None


def _millis(window: Any) -> int:
    """A window's start as MLflow's timestamp: milliseconds since 1970-01-01 UTC (a naive
    start read as UTC)."""
    stamp = pd.Timestamp(window)
    if stamp.tzinfo is None:
        stamp = stamp.tz_localize("UTC")
    return int(stamp.value // 1_000_000)


def labels_of(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """(label, field) of each value column of a wide table (no ``metric`` column): a
    metric's column is ``(label, "value")``, its interval bounds ``(label, "ci_low")`` and
    ``(label, "ci_high")``, any other number column ``(column, "value")``."""
    names = [str(c) for c in frame.columns]
    out = []
    for column in names:
        stem = next(
            (column[: -len(b) - 1] for b in _CI if column.endswith("_" + b)),
            None,
        )
        if stem is not None and stem in names:
            out.append((stem, column[len(stem) + 1 :]))
        else:
            out.append((column, "value"))
    return out


def long_label(metric: Any, k: Any) -> str:
    """The label of a long table's row (its ``metric`` and ``k``) as a wide table's column
    writes it: the cut-off before the options, ``f1@5(beta=2)``."""
    name, paren, options = str(metric).partition("(")
    if k is None or pd.isna(k):
        return str(metric)
    return f"{name}@{k}{paren}{options}"


def values_of(frame: pd.DataFrame, prefix: str, now: int) -> list[Value]:
    """Every number of the table as a metric: its key, value, step and timestamp."""
    keys = key_columns(frame)
    long = "metric" in frame.columns
    value_columns = [
        c
        for c in frame.columns
        if c not in keys and c not in _LABEL_COLUMNS and c not in ("window", "slice")
    ]
    fields = dict(zip(frame.columns, labels_of(frame), strict=True))
    windows: dict[Any, int] = {}
    if "window" in frame.columns:
        windows = {w: i for i, w in enumerate(sorted(frame["window"].dropna().unique()))}
    out = []
    seen: set[tuple[str, int]] = set()
    for row in frame.to_dict("records"):
        where = tuple((c, _text(row[c])) for c in keys)
        step, stamp = 0, now
        if windows:
            step, stamp = windows[row["window"]], _millis(row["window"])
        label = long_label(row["metric"], row.get("k")) if long else ""
        for column in value_columns:
            number = _number(row[column], column)
            if number is None:
                continue
            if long:
                key = metric_key(Key(label, str(column), where), prefix)
            else:
                name, field = fields[column]
                key = metric_key(Key(name, field, where), prefix)
            if (key, step) in seen:
                msg = (
                    f"Two values of the table would have the same MLflow key {key!r}: "
                    "log each table under its own prefix=."
                )
                raise InvalidOptionError(msg)
            seen.add((key, step))
            out.append(Value(key, number, step, stamp))
    for value in out:
        check_key(value.key)
    return out


def verdict(frame: pd.DataFrame) -> str:
    """A check table's verdict, the line ``rankframe check`` writes on stderr (without its
    ``rankframe:``): how many rows failed and the first five, or the count of each
    status."""
    rows = frame.to_dict("records")
    keys = [c for c in frame.columns if c not in ("rule", "metric", "k", "status")]
    keys = [c for c in keys if c == "window" or c in key_columns(frame)]
    failed = [row for row in rows if row["status"] == "fail"]
    head = f"{len(failed)} of {len(rows)} rules failed"
    if not failed:
        counts = Counter(str(row["status"]) for row in rows)
        return f"{head} ({', '.join(f'{n} {status}' for status, n in counts.items())})"
    shown = [k for k in keys if k != "system" or len({row["system"] for row in rows}) > 1]
    named = []
    for row in failed[:5]:
        where = [f"{k}={_shown(row[k])}" for k in shown]
        named.append(f"{row['rule']} ({', '.join(where)})" if where else str(row["rule"]))
    more = f", and {len(failed) - 5} more" if len(failed) > 5 else ""
    return f"{head}: {', '.join(named)}{more}"


def _shown(value: Any) -> str:
    if isinstance(value, dt.datetime) and value.time() == dt.time(0):
        return value.date().isoformat()
    return str(value)


def check_prefix(prefix: str) -> None:
    """Refuse a prefix that cannot start a key."""
    if prefix and (not _ALLOWED.match(prefix) or prefix.startswith("/") or "//" in prefix):
        msg = (
            f"prefix={prefix!r} cannot start a key: use letters, digits and "
            "'_-. :/' (no '/' first, no '//'), such as prefix='offline/'."
        )
        raise InvalidOptionError(msg)


def tables_of(result: Any) -> tuple[list[tuple[str, pd.DataFrame, str, Any]], str | None]:
    """The tables of a result (prefix, pandas frame, frame kind, the frame as it was) and a
    report's HTML."""
    if hasattr(result, "html") and hasattr(result, "summary"):  # a Report
        tables = [("", result.summary, "pandas", result.summary)]
        if getattr(result, "comparison", None) is not None:
            tables.append(("comparison/", result.comparison, "pandas", result.comparison))
        return tables, str(result.html())
    frame, kind, native = as_pandas(result)
    return [("", frame, kind, native)], None


def json_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as a tracker's table takes it (``mlflow.log_table``, ``wandb.Table``):
    text of any date, ``None`` for a missing value."""
    out = frame.copy()
    for column in out.columns:
        if not (pd.api.types.is_numeric_dtype(out[column]) or out[column].dtype == bool):
            out[column] = out[column].astype(object).where(out[column].notna(), None)
            out[column] = [v if v is None else str(v) for v in out[column]]
    return out


def tag_key(name: str) -> str:
    """A tag's MLflow key: the name itself when MLflow takes it, else escaped
    (:func:`escape`)."""
    try:
        check_key(name)
    except InvalidOptionError:
        return escape(name)
    return name


_FINGERPRINT = re.compile(r'data-fingerprint="([0-9a-f]+)"')


def fingerprint_of(page: str) -> str | None:
    """The input's fingerprint a report's page holds (``report(..., fingerprint=True)``)."""
    found = _FINGERPRINT.search(page)
    return found.group(1) if found else None
