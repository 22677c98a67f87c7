"""Thin adapters between each frame library and the engine.

Each module implements the one contract of :mod:`rankframe.pipeline.contract` for its frame
kind: a :class:`~rankframe.pipeline.contract.FrameAdapter` that turns the frame into
:class:`rankframe.engine.FrameData` (validating it with the facts of
:mod:`rankframe.pipeline.validation`) and builds its own kind of output frame. No ranking,
metric or validation logic lives here, and nothing here imports the public API: the accessor
holds an adapter.

The frame kinds are a registry (:func:`register_kind`): :func:`adapt`, the one place that
maps a native object to its adapter, asks each registered kind, the latest first; the kinds
of the libraries rankframe supports are registered below, in this module, and a new kind (a
library's, or a test's) is one :func:`register_kind` call beside its adapter module.
:func:`register` puts the accessor on every kind that takes one (Dask's when
``dask.dataframe`` is imported, modin's when ``modin.pandas`` is, before or after rankframe).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pandas as pd
import polars as pl

from rankframe.adapters import pandas as pandas_adapter
from rankframe.adapters import polars as polars_adapter
from rankframe.adapters.arrow import ArrowAdapter
from rankframe.adapters.mappings import READER, kind_of
from rankframe.adapters.pandas import PandasAdapter
from rankframe.adapters.polars import LazyPolarsAdapter, PolarsAdapter
from rankframe.metrics import item_inputs
from rankframe.pipeline.contract import FrameAdapter
from rankframe.settings import option_checks

__all__ = ["FrameAdapter", "FrameKind", "adapt", "kinds", "register", "register_kind"]

# the options that map items to values are read by their kind here (adapters/mappings.py)
item_inputs.use_reader(READER)
# ... and the option checks ask them what kind of frame an option's value is
option_checks.use_kind_of(kind_of)


@dataclass(frozen=True)
class FrameKind:
    """One registered frame kind: its ``name``, ``claims(obj)`` (whether an object is a frame
    of this kind: a cheap test that imports nothing), ``adapter(obj)`` (its
    :class:`FrameAdapter`) and ``accessor(accessor)`` (puts ``rank_eval`` on the kind's
    class; ``None`` for a kind without accessors, read through ``rankframe.rank_eval``)."""

    name: str
    claims: Callable[[Any], bool]
    adapter: Callable[[Any], FrameAdapter]
    accessor: Callable[[type], None] | None = None


_KINDS: list[FrameKind] = []
_ACCESSOR: list[type] = []  # the accessor of register(), once called


def register_kind(
    name: str,
    claims: type | tuple[type, ...] | Callable[[Any], bool],
    adapter: Callable[[Any], FrameAdapter],
    *,
    accessor: Callable[[type], None] | None = None,
) -> FrameKind:
    """Register a frame kind: :func:`adapt` gives ``adapter(obj)`` for every object that
    ``claims(obj)`` (or, for a class or a tuple of classes, that is an instance of it),
    asking the kinds registered last first (so a kind may claim objects of a kind
    registered before it). ``accessor(RankEval)``, if given, puts the ``rank_eval``
    accessor on the kind's frames: at once if rankframe has registered its accessor already
    (it has, once ``import rankframe`` returns), else when it does. Registering a name again
    replaces that kind. Returns the kind."""
    test = _instance_of(claims) if isinstance(claims, type | tuple) else claims
    kind = FrameKind(name, test, adapter, accessor)
    _KINDS[:] = [k for k in _KINDS if k.name != name]
    _KINDS.append(kind)
    if accessor is not None and _ACCESSOR:
        accessor(_ACCESSOR[0])
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
    return ArrowAdapter(obj)  # raises TypeError for anything that is not an Arrow frame


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


# -- registration ------------------------------------------------------------------------------

_DASK = "dask.dataframe"
_MODIN = "modin.pandas"


def _register_dask(accessor: type) -> None:
    # Dask's adapter imports dask.dataframe: only once that is imported anyway
    from rankframe.adapters import dask

    dask.register(accessor)


def _register_modin(accessor: type) -> None:
    # modin's adapter imports modin.pandas: only once that is imported anyway
    from rankframe.adapters import modin

    modin.register(accessor)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Registers an optional library's accessor as soon as its module (``dask.dataframe``,
    ``modin.pandas``) finishes importing, so that ``import rankframe`` does not import Dask
    (0.4 s) or modin for users who never use them."""

    def __init__(self, accessor: type, module: str, then: Callable[[type], None]) -> None:
        self.accessor = accessor
        self.module = module
        self.then = then

    def find_spec(
        self,
        name: str,
        path: Sequence[str] | None,  # noqa: ARG002  (the
        target: ModuleType | None = None,  # noqa: ARG002  protocol's arguments)
    ) -> importlib.machinery.ModuleSpec | None:
        if name != self.module:
            return None
        sys.meta_path.remove(self)  # find the real spec, and run once
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        accessor, then = self.accessor, self.then

        class Registering(importlib.abc.Loader):
            def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
                return loader.create_module(spec)

            def exec_module(self, module: ModuleType) -> None:
                loader.exec_module(module)
                then(accessor)

            def __getattr__(self, name: str) -> Any:  # the real loader's other methods
                return getattr(loader, name)

        spec.loader = Registering()
        return spec


def _after_import(
    library: str, module: str, then: Callable[[type], None]
) -> Callable[[type], None]:
    """An optional library's accessor registration: ``then(accessor)`` now when ``module``
    is imported already, else when it is (nothing if ``library`` is not installed)."""

    def registered(accessor: type) -> None:
        if sys.modules.get(module) is not None:
            then(accessor)
        elif _installed(library):
            sys.meta_path.insert(0, _AfterImport(accessor, module, then))

    return registered


def register(accessor: type) -> None:
    """Register ``accessor`` (called with a frame) as ``rank_eval`` on the frames of every
    registered kind that takes one (pandas DataFrames, polars DataFrames and LazyFrames, Dask
    and modin DataFrames; a kind registered later gets it when registered)."""
    _ACCESSOR[:] = [accessor]
    for kind in _KINDS:
        if kind.accessor is not None:
            kind.accessor(accessor)


def _installed(name: str) -> bool:
    """Whether ``name`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules: not installed
        return False


# -- the kinds of the libraries rankframe supports (the Arrow frames: adapt's fallback) --------

register_kind("pandas", pd.DataFrame, PandasAdapter, accessor=pandas_adapter.register)
# the polars accessor: the DataFrame and LazyFrame namespaces
register_kind("polars", pl.DataFrame, PolarsAdapter, accessor=polars_adapter.register)
register_kind("polars-lazy", pl.LazyFrame, LazyPolarsAdapter)
register_kind(
    "dask",
    lambda obj: _library(obj) == "dask" and hasattr(obj, "npartitions"),
    _dask_adapter,
    accessor=_after_import("dask", _DASK, _register_dask),
)
register_kind(
    "modin",
    lambda obj: _library(obj) == "modin" and hasattr(obj, "columns"),
    _modin_adapter,
    accessor=_after_import("modin", _MODIN, _register_modin),
)
register_kind(
    "spark", lambda obj: _library(obj) == "pyspark" and hasattr(obj, "sparkSession"), _spark_adapter
)
