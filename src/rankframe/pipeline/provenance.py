"""What each result was made from, for :class:`rankframe.History` to record.

A result is a plain frame of the user's library (pandas, polars eager or lazy, Dask), which
cannot carry rankframe's request. The accessor's binding (``Binding.run``) hands every result to
:func:`remember`, which keeps, under the result's ``id()``, the request (columns, metrics,
``by``, options, the result's settings) and a weak reference to the input frame; a weakref
finalizer forgets the entry when the result is garbage-collected, so an ``id()`` that Python
reuses never finds another result's entry, and nothing here keeps a frame alive.

:func:`recall` gives the entry of a result, or ``None`` for an object that no accessor
returned (a result that was transformed afterwards, ``result.round(3)``, is a new object):
``History.record`` then records NULL options and fingerprint, unless it is given the input
with ``data=``. Results that take no weak reference (a float) are not remembered.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankframe.pipeline.steps import Request

__all__ = ["Provenance", "recall", "remember"]


@dataclass(frozen=True)
class Provenance:
    """A result's request, and its input frame while that frame lives."""

    request: Request
    source: weakref.ref[Any] | None
    # a table assembled from several results (check's): its kind and settings, which the
    # request (of the first result it read) does not say
    kind: str | None = None
    settings: Mapping[str, Any] | None = None

    def input(self) -> Any:
        """The input frame, or ``None`` once it is garbage-collected (or took no weakref)."""
        return None if self.source is None else self.source()


_MEMORY: dict[int, Provenance] = {}


def _forget(key: int) -> None:
    _MEMORY.pop(key, None)


def _weak(obj: Any) -> weakref.ref[Any] | None:
    try:
        return weakref.ref(obj)
    except TypeError:
        return None


def remember(
    result: Any,
    request: Request,
    frame: Any,
    *,
    kind: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> Any:
    """Remember ``request`` and ``frame`` (the user's input object) as what made ``result``;
    return ``result``. ``kind`` and ``settings``: those of a table assembled from several
    results, in place of the request's result's."""
    try:
        weakref.finalize(result, _forget, id(result))
    except TypeError:  # a float, a string: no weak reference, nothing to record later
        return result
    _MEMORY[id(result)] = Provenance(request, _weak(frame), kind, settings)
    return result


def recall(result: Any) -> Provenance | None:
    """What made ``result``, if an accessor returned this very object."""
    return _MEMORY.get(id(result))
