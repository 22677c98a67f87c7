"""Settings of rankframe, like pandas' options (placeholder until the options module lands)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_VALUES: dict[str, Any] = {"rows_per_part": 12_500_000, "query_buckets": None}


def get_option(name: str) -> Any:
    return _VALUES[name]


def set_option(name: str, value: Any) -> None:
    _VALUES[name] = value


@contextmanager
def option_context(name: str, value: Any) -> Iterator[None]:
    old = _VALUES[name]
    _VALUES[name] = value
    try:
        yield
    finally:
        _VALUES[name] = old
