"""``rank_eval`` on the frames of every library rankframe supports, put there without
importing the libraries: each library's frames get it as soon as the library is imported,
before or after rankframe (:mod:`rankframe.adapters.after_import`): pandas DataFrames,
polars DataFrames and LazyFrames, Dask DataFrames (``dask.dataframe``) and modin DataFrames
(``modin.pandas``). A kind registered with an ``accessor`` (``register_kind``) gets it when
registered.

What is registered is the accessor's *attribute*: called with a frame, it gives the frame's
accessor (``rankframe.api.attribute``, which loads the library's engine at the first call).
This module imports nothing but the standard library; a library's registration imports the
library, once it is imported anyway, and nothing of rankframe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from rankframe.adapters.after_import import when_imported

__all__ = ["Attribute", "register", "registered", "when_registered"]

#: called with a frame: the frame's accessor (``frame.rank_eval``)
Attribute = Callable[[Any], Any]

_ATTRIBUTE: list[Attribute] = []  # the attribute of register(), once called
#: the accessor of each kind registered with one (register_kind), by the kind's name
_TAKERS: dict[str, Callable[[Attribute], None]] = {}


def register(attribute: Attribute) -> None:
    """Register ``attribute`` (called with a frame) as ``rank_eval`` on the frames of every
    library rankframe supports, each as soon as it is imported (at once if it is), and on the
    frames of every kind registered with an ``accessor`` (:func:`when_registered`)."""
    _ATTRIBUTE[:] = [attribute]
    for module, put in _LIBRARIES:
        when_imported(module, _putting(put, attribute))
    for take in list(_TAKERS.values()):
        take(attribute)


def registered() -> Attribute | None:
    """The attribute of :func:`register`, or ``None`` before it is called."""
    return _ATTRIBUTE[0] if _ATTRIBUTE else None


def when_registered(name: str, take: Callable[[Attribute], None]) -> None:
    """Call ``take(attribute)`` (the accessor of the kind ``name``, which puts ``rank_eval``
    on its frames) now if :func:`register` has been called, else when it is. A name given
    again replaces its accessor."""
    _TAKERS[name] = take
    if _ATTRIBUTE:
        take(_ATTRIBUTE[0])


def _putting(put: Callable[[Attribute], None], attribute: Attribute) -> Callable[[], None]:
    return lambda: put(attribute)


# -- each library's own registration: it runs once the library is imported -------------------


def _as_class(attribute: Attribute) -> type[Any]:
    # the libraries type their accessor as a class; they only call it with the frame
    return cast(type[Any], attribute)


def _pandas(attribute: Attribute) -> None:
    import pandas as pd  # imported already (this runs once it is)

    if "rank_eval" not in getattr(pd.DataFrame, "_accessors", set()):
        pd.api.extensions.register_dataframe_accessor("rank_eval")(_as_class(attribute))


def _polars(attribute: Attribute) -> None:
    import polars as pl  # imported already (this runs once it is)

    pl.api.register_dataframe_namespace("rank_eval")(_as_class(attribute))
    pl.api.register_lazyframe_namespace("rank_eval")(_as_class(attribute))


def _dask(attribute: Attribute) -> None:
    # imported already (this runs once dask.dataframe is)
    import dask.dataframe as dd
    from dask.dataframe.extensions import register_dataframe_accessor

    if "rank_eval" not in getattr(dd.DataFrame, "_accessors", set()):
        register_dataframe_accessor("rank_eval")(attribute)  # type: ignore[no-untyped-call]


def _modin(attribute: Attribute) -> None:
    # imported already (this runs once modin.pandas is)
    from modin.pandas.api.extensions import register_dataframe_accessor

    # modin's extension API takes a property for an attribute (a callable would be taken
    # as a method); registering again replaces it, without a warning
    register_dataframe_accessor("rank_eval")(property(attribute))


#: the module each library's registration waits for
_LIBRARIES: tuple[tuple[str, Callable[[Attribute], None]], ...] = (
    ("pandas", _pandas),
    ("polars", _polars),
    ("dask.dataframe", _dask),
    ("modin.pandas", _modin),
)
