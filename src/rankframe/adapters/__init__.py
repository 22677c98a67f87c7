"""Thin adapters between each frame library and the engine.

Each module turns its frame kind into :class:`rankframe.engine.FrameData` (validating it with
the facts of :mod:`rankframe.pipeline.validation`) and builds its own kind of output frame,
behind the methods of :class:`~rankframe.adapters.base.FrameAdapter`. No ranking, metric or
validation logic lives here, and nothing here imports the public API: the accessor holds an
adapter. :func:`adapt` is the one place that maps a native object to its adapter;
:func:`register` puts an accessor on the frame libraries (Dask's when ``dask.dataframe`` is
imported, modin's when ``modin.pandas`` is, before or after rankframe).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import pandas as pd
import polars as pl

from rankframe.adapters import pandas as pandas_adapter
from rankframe.adapters import polars as polars_adapter
from rankframe.adapters.arrow import ArrowAdapter
from rankframe.adapters.base import FrameAdapter
from rankframe.adapters.mappings import READER
from rankframe.adapters.pandas import PandasAdapter
from rankframe.adapters.polars import LazyPolarsAdapter, PolarsAdapter
from rankframe.metrics import item_inputs

__all__ = ["FrameAdapter", "adapt", "register"]

# the options that map items to values are read by their kind here (adapters/mappings.py)
item_inputs.use_reader(READER)


def _library(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def adapt(obj: Any) -> FrameAdapter:
    """The adapter of a native frame: pandas, polars (eager or lazy), Dask, modin, PySpark
    (classic or Connect), or an Arrow frame (a pyarrow Table, a DuckDB relation, an Ibis table,
    anything with ``__arrow_c_stream__``). An adapter is its own adapter. Anything else
    raises ``TypeError`` (naming what was given)."""
    if isinstance(obj, FrameAdapter):
        return obj
    if isinstance(obj, pd.DataFrame):
        return PandasAdapter(obj)
    if isinstance(obj, pl.DataFrame):
        return PolarsAdapter(obj)
    if isinstance(obj, pl.LazyFrame):
        return LazyPolarsAdapter(obj)
    library = _library(obj)
    if library == "modin" and hasattr(obj, "columns"):
        # modin and its adapter load only for a modin frame (a heavy optional library)
        from rankframe.adapters.modin import ModinAdapter

        return ModinAdapter(obj)
    if library == "dask" and hasattr(obj, "npartitions"):
        # Dask and its adapter load only for a Dask frame (a heavy optional library)
        from rankframe.adapters.dask import DaskAdapter

        return DaskAdapter(obj)
    if library == "pyspark" and hasattr(obj, "sparkSession"):
        # pyspark loads only for a Spark frame (a heavy optional library)
        from rankframe.adapters.spark import SparkAdapter

        return SparkAdapter(obj)
    return ArrowAdapter(obj)  # raises TypeError for anything that is not an Arrow frame


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


def register(accessor: type) -> None:
    """Register ``accessor`` (called with a frame) as ``rank_eval`` on pandas DataFrames,
    polars DataFrames and LazyFrames, Dask DataFrames and modin DataFrames: now when
    ``dask.dataframe`` (``modin.pandas``) is imported already, else when it is."""
    pandas_adapter.register(accessor)
    polars_adapter.register(accessor)
    for library, module, then in (
        ("dask", _DASK, _register_dask),
        ("modin", _MODIN, _register_modin),
    ):
        if sys.modules.get(module) is not None:
            then(accessor)
        elif _installed(library):
            sys.meta_path.insert(0, _AfterImport(accessor, module, then))


def _installed(name: str) -> bool:
    """Whether ``name`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules: not installed
        return False
