"""Settings of the library, as pandas' options: ``set_option``, ``get_option``,
``option_context`` and ``reset_option``.

Each setting is declared once in :data:`SETTINGS` with its default, its validator and the line
that documents it. Settings are process-wide (every thread sees them, as polars' and Dask's
worker threads must); a lock keeps a change atomic, and ``option_context`` restores the
previous values on exit.

These are settings of how rankframe runs, never of what it computes: no setting changes a
number. The options that change a metric (``ties``, ``gain``, ...) are keywords of each call.
"""

from __future__ import annotations

import numbers
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rankframe._suggest import closest, did_you_mean
from rankframe.exceptions import InvalidOptionError

__all__ = ["SETTINGS", "Setting", "get_option", "option_context", "reset_option", "set_option"]


@dataclass(frozen=True)
class Setting:
    """The declaration of one setting: its name, default, validator and documentation."""

    name: str
    default: Any
    doc: str
    check: Callable[[str, object], None]


def _positive_int(name: str, value: object, *, none: bool = False) -> None:
    if none and value is None:
        return
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) > 0:
        return
    allowed = "a positive integer or None" if none else "a positive integer"
    msg = f"The option {name!r} must be {allowed}. Got {value!r} instead."
    raise InvalidOptionError(msg)


def _positive_int_or_none(name: str, value: object) -> None:
    _positive_int(name, value, none=True)


SETTINGS: Mapping[str, Setting] = MappingProxyType(
    {
        s.name: s
        for s in (
            Setting(
                "rows_per_part",
                12_500_000,
                check=_positive_int,
                doc="Rows per part of a partitioned polars plan (a LazyFrame): larger inputs are "
                "split into about rows / rows_per_part parts of whole queries, evaluated one "
                "after the other, so memory holds one part's rows at a time.",
            ),
            Setting(
                "query_buckets",
                None,
                check=_positive_int_or_none,
                doc="A fixed number of parts for a partitioned polars plan, overriding "
                "rows_per_part; None (the default) derives it from the row count.",
            ),
        )
    }
)
"""Every setting, by name."""

_LOCK = threading.RLock()
_VALUES: dict[str, Any] = {name: s.default for name, s in SETTINGS.items()}


def _setting(name: object) -> Setting:
    if isinstance(name, str) and name in SETTINGS:
        return SETTINGS[name]
    hint = did_you_mean(closest(name, SETTINGS)[:1]) if isinstance(name, str) else ""
    known = ", ".join(map(repr, SETTINGS))
    msg = f"Unknown option {name!r}.{hint} The options are {known}."
    raise InvalidOptionError(msg)


def get_option(name: str) -> Any:
    """The current value of the setting ``name``.

    Examples
    --------
    >>> import rankframe
    >>> rankframe.get_option("rows_per_part")
    12500000
    """
    _setting(name)
    with _LOCK:
        return _VALUES[name]


def set_option(name: str, value: Any) -> None:
    """Set the setting ``name`` to ``value``, for the whole process, until changed.

    Raises
    ------
    InvalidOptionError
        ``name`` is not a setting (the message suggests the closest one), or ``value`` is
        not allowed for it.
    """
    setting = _setting(name)
    setting.check(name, value)
    with _LOCK:
        _VALUES[name] = value


def reset_option(name: str) -> None:
    """Set the setting ``name`` back to its default."""
    setting = _setting(name)
    with _LOCK:
        _VALUES[name] = setting.default


@contextmanager
def option_context(*pairs: Any) -> Iterator[None]:
    """Set settings within a ``with`` block; the previous values come back on exit.

    Takes pairs of name and value, as ``pandas.option_context``:
    ``option_context("rows_per_part", 1_000_000, "query_buckets", None)``. Every name and
    value is checked before any is set.

    Examples
    --------
    >>> import rankframe
    >>> with rankframe.option_context("rows_per_part", 1_000):
    ...     rankframe.get_option("rows_per_part")
    1000
    >>> rankframe.get_option("rows_per_part")
    12500000
    """
    if len(pairs) % 2:
        msg = (
            "option_context takes pairs of a name and a value, e.g. "
            f"option_context('rows_per_part', 1_000_000); got {len(pairs)} arguments."
        )
        raise InvalidOptionError(msg)
    changes = dict(zip(pairs[::2], pairs[1::2], strict=True))
    for name, value in changes.items():
        _setting(name).check(name, value)
    with _LOCK:
        previous = {name: _VALUES[name] for name in changes}
        _VALUES.update(changes)
    try:
        yield
    finally:
        with _LOCK:
            _VALUES.update(previous)
