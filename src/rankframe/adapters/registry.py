"""The registry of frame kinds (:func:`register_kind`) and :func:`adapt`, the one place that
maps a native object to its adapter: it asks each registered kind, the latest first. The
kinds of the libraries rankframe supports are registered below, in this module, and a new
kind (a library's, or a test's) is one :func:`register_kind` call beside its adapter module.

This module loads with the first frame (``rankframe.adapters`` gives its names when first
read): it imports polars and its adapter; pandas, pyarrow and their adapters load with the
first pandas or Arrow frame (a polars frame, ``rankframe trec``'s, needs neither). The
accessor on the libraries' frames does not wait for it (``rankframe.adapters.accessors``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankframe.adapters import accessors
from rankframe.adapters.accessors import Attribute
from rankframe.adapters.polars import LazyPolarsAdapter, PolarsAdapter
from rankframe.pipeline.contract import FrameAdapter

__all__ = ["FrameAdapter", "FrameKind", "adapt", "kinds", "register_kind"]


@dataclass(frozen=True)
class FrameKind:
    """One registered frame kind: its ``name``, ``claims(obj)`` (whether an object is a frame
    of this kind: a cheap test that imports nothing), ``adapter(obj)`` (its
    :class:`FrameAdapter`) and ``accessor(attribute)`` (puts ``rank_eval`` on the kind's
    class: ``attribute(frame)`` is the frame's accessor; ``None`` for a kind without
    accessors, read through ``rankframe.rank_eval``, or whose accessor is put there when
    its library is imported: ``rankframe.adapters.accessors``)."""

    name: str
    claims: Callable[[Any], bool]
    adapter: Callable[[Any], FrameAdapter]
    accessor: Callable[[Attribute], None] | None = None


_KINDS: list[FrameKind] = []


def register_kind(
    name: str,
    claims: type | tuple[type, ...] | Callable[[Any], bool],
    adapter: Callable[[Any], FrameAdapter],
    *,
    accessor: Callable[[Attribute], None] | None = None,
) -> FrameKind:
    """Register a frame kind: :func:`adapt` gives ``adapter(obj)`` for every object that
    ``claims(obj)`` (or, for a class or a tuple of classes, that is an instance of it),
    asking the kinds registered last first (so a kind may claim objects of a kind
    registered before it). ``accessor(attribute)``, if given, puts the ``rank_eval``
    accessor on the kind's frames (``attribute(frame)`` is a frame's accessor, a
    ``RankEval``): at once if rankframe has registered its accessor already (it has, once
    ``import rankframe`` returns), else when it does. Registering a name again
    replaces that kind. Returns the kind."""
    test = _instance_of(claims) if isinstance(claims, type | tuple) else claims
    kind = FrameKind(name, test, adapter, accessor)
    _KINDS[:] = [k for k in _KINDS if k.name != name]
    _KINDS.append(kind)
    if accessor is not None:
        accessors.when_registered(name, accessor)
    return kind


def _instance_of(types: type | tuple[type, ...]) -> Callable[[Any], bool]:
    return lambda obj: isinstance(obj, types)


def kinds() -> list[str]:
    """The names of the registered frame kinds, in the order :func:`adapt` asks them."""
    return [k.name for k in reversed(_KINDS)]


def _library(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def adapt(obj: Any) -> FrameAdapter:
    """The adapter of a native frame: of the registered kinds (:func:`register_kind`), the
    last one that claims it: pandas, polars (eager or lazy), Dask, modin, PySpark (classic
    or Connect); else an Arrow frame (a pyarrow Table, a DuckDB relation, an Ibis table,
    anything with ``__arrow_c_stream__``). An adapter is its own adapter. Anything else
    raises ``TypeError`` (naming what was given)."""
    if isinstance(obj, FrameAdapter):
        return obj
    for kind in reversed(_KINDS):
        if kind.claims(obj):
            return kind.adapter(obj)
    from rankframe.adapters.arrow import ArrowAdapter

    return ArrowAdapter(obj)  # raises TypeError for anything that is not an Arrow frame


def _is_pandas_frame(obj: Any) -> bool:
    """Whether ``obj`` is a pandas DataFrame (or of a subclass): never before pandas is
    imported."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(obj, pandas.DataFrame)


def _pandas_adapter(obj: Any) -> FrameAdapter:
    from rankframe.adapters.pandas import PandasAdapter

    return PandasAdapter(obj)


def _dask_adapter(obj: Any) -> FrameAdapter:
    # Dask and its adapter load only for a Dask frame (a heavy optional library)
    from rankframe.adapters.dask import DaskAdapter

    return DaskAdapter(obj)


def _modin_adapter(obj: Any) -> FrameAdapter:
    # modin and its adapter load only for a modin frame (a heavy optional library)
    from rankframe.adapters.modin import ModinAdapter

    return ModinAdapter(obj)


def _spark_adapter(obj: Any) -> FrameAdapter:
    # pyspark loads only for a Spark frame (a heavy optional library)
    from rankframe.adapters.spark import SparkAdapter

    return SparkAdapter(obj)


# -- the kinds of the libraries rankframe supports (the Arrow frames: adapt's fallback) --------
# (their accessors are put on their frames when each library is imported: adapters/accessors.py)

register_kind("pandas", _is_pandas_frame, _pandas_adapter)
register_kind("polars", pl.DataFrame, PolarsAdapter)
register_kind("polars-lazy", pl.LazyFrame, LazyPolarsAdapter)
register_kind(
    "dask", lambda obj: _library(obj) == "dask" and hasattr(obj, "npartitions"), _dask_adapter
)
register_kind(
    "modin", lambda obj: _library(obj) == "modin" and hasattr(obj, "columns"), _modin_adapter
)
register_kind(
    "spark", lambda obj: _library(obj) == "pyspark" and hasattr(obj, "sparkSession"), _spark_adapter
)
