"""Thin adapters between each frame library and the engine.

Each module implements the one contract of :mod:`rankframe.pipeline.contract` for its frame
kind: a :class:`~rankframe.pipeline.contract.FrameAdapter` that turns the frame into
:class:`rankframe.engine.FrameData` (validating it with the facts of
:mod:`rankframe.pipeline.validation`) and builds its own kind of output frame. No ranking,
metric or validation logic lives here, and nothing here imports the public API: the accessor
holds an adapter.

The frame kinds are a registry (:func:`register_kind`, in :mod:`rankframe.adapters.registry`):
:func:`adapt`, the one place that maps a native object to its adapter, asks each registered
kind, the latest first; a new kind (a library's, or a test's) is one :func:`register_kind`
call beside its adapter module. :func:`register` puts the accessor on every kind that takes
one, each library's frames as soon as the library is imported, before or after rankframe
(:mod:`rankframe.adapters.accessors`).

This package imports no frame library: ``import rankframe`` does not load pandas, polars or
pyarrow. It gives the layers below what they ask of the frame kinds (what kind of frame an
option's value is; the reader of the options that map items to values, when
:mod:`rankframe.metrics.item_inputs` is imported). The registry and the adapters load when
one of their names is first read here (:func:`adapt`, :func:`register_kind`, :func:`kinds`,
``FrameKind``, ``FrameAdapter``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rankframe.adapters.accessors import register
from rankframe.adapters.after_import import when_imported
from rankframe.settings import option_checks

if TYPE_CHECKING:
    from rankframe.adapters.registry import (
        FrameAdapter,
        FrameKind,
        adapt,
        kinds,
        register_kind,
    )

__all__ = ["FrameAdapter", "FrameKind", "adapt", "kinds", "register", "register_kind"]

#: the names that load the registry (and with it pandas, polars and their adapters)
_REGISTRY = frozenset(__all__) - {"register"}


def __getattr__(name: str) -> Any:
    if name not in _REGISTRY:
        msg = f"module 'rankframe.adapters' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module("rankframe.adapters.registry"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _kind_of(value: object) -> str | None:
    """What kind of frame a data option's value is (``adapters/mappings.py``'s answer): only
    a pandas or polars object (or one of a subclass) is one, and then its library is imported."""
    libraries = {cls.__module__.split(".")[0] for cls in type(value).__mro__}
    if not libraries & {"pandas", "polars"}:
        return None
    # the answer imports pandas, polars and NumPy: only for a value of one of them
    from rankframe.adapters.mappings import kind_of

    return kind_of(value)


def _give_reader() -> None:
    """The options that map items to values are read by their kind here
    (``adapters/mappings.py``: it imports pandas, polars and NumPy, as the metrics do)."""
    import rankframe.metrics.item_inputs as item_inputs  # imported: this runs once it is
    from rankframe.adapters.mappings import READER

    item_inputs.use_reader(READER)


# the option checks ask the adapters what kind of frame an option's value is
option_checks.use_kind_of(_kind_of)
# ... and the metrics ask them for the options' mappings, once they are imported, in any
# process (the finish step of a Dask frame runs on a worker)
when_imported("rankframe.metrics.item_inputs", _give_reader)
