"""Shared fixtures: every test that takes a frame runs on every frame kind.

``make_frame`` is parametrised over pandas (NumPy dtypes), pandas with pyarrow dtypes, polars
eager, polars lazy (one step), polars lazy forced into three parts of whole queries
(``query_buckets``), Dask (three partitions cut by row position, so queries straddle
partitions and are shuffled; Dask's default threaded scheduler, the way most people first use
Dask), and a pyarrow Table (``arrow``: ``rankframe.rank_eval(table)``, pandas results). It
builds the frame from a dict or a pandas frame, remembers a copy, and after the test checks
that rankframe left the frame unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import dask.dataframe as dd
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from dask.base import tokenize

import rankframe

# Test modules import pandera themselves: first through rankframe, which silences what
# pyspark's modules warn while pandera imports them (schemas.pandera_ready)
rankframe.schemas.pandera_ready()

FRAME_KINDS = ["pandas", "pandas-pyarrow", "polars", "polars-lazy", "polars-parts", "dask",
               "arrow"]
LAZY_POLARS = ("polars-lazy", "polars-parts")
PARTS = 3  # the parts of "polars-parts" and the partitions of "dask"


def _arrow_lists(data: pd.DataFrame) -> pd.DataFrame:
    """Object columns of lists (or tuples) as pyarrow list columns, as parquet gives them (and
    as Dask keeps them: it turns object columns of lists into strings). Other columns, and
    columns of dicts, as they are."""
    out = data.copy()
    for position in range(out.shape[1]):  # by position: column names may repeat
        column = out.iloc[:, position]
        if column.dtype != object:
            continue
        first = next((v for v in column if v is not None), None)
        if isinstance(first, (list, tuple)):
            array = pa.array(column.to_numpy(), from_pandas=True)
            out.isetitem(position, pd.Series(pd.arrays.ArrowExtensionArray(array),
                                             index=out.index))
    return out


def _pyarrow_dtypes(data: pd.DataFrame) -> pd.DataFrame:
    """Every column in a pyarrow dtype: ``convert_dtypes(dtype_backend="pyarrow")``, with the
    columns that already have one kept as they are (pandas 2.2 turns a date32 column into
    timestamp[ms]; later versions keep it)."""
    out = data.convert_dtypes(dtype_backend="pyarrow")
    for position in range(data.shape[1]):  # by position: column names may repeat
        if isinstance(data.dtypes.iloc[position], pd.ArrowDtype):
            out.isetitem(position, data.iloc[:, position])
    return out


class ArrowFrame:
    """A pyarrow Table as the tests use a frame: ``.rank_eval`` is
    ``rankframe.rank_eval(table)`` (pyarrow's classes take no accessor); every other
    attribute is the table's."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table

    @property
    def rank_eval(self) -> Any:
        return rankframe.rank_eval(self.table)

    def __getattr__(self, name: str) -> Any:
        if name == "table":  # not set yet (while unpickling): no attribute, no recursion
            raise AttributeError(name)
        return getattr(self.table, name)

    def __len__(self) -> int:
        return len(self.table)


#: Dask's string type: with ``dataframe.convert-string`` on (its default), Dask turns every
#: column of strings that is not already ``string[pyarrow]`` (object, and pandas 3's ``str``)
#: into this type, each time it builds a graph of a frame made by ``from_pandas``
DASK_STRING = pd.StringDtype("pyarrow")


def _dask_strings(data: pd.DataFrame) -> pd.DataFrame:
    """The columns Dask would convert to :data:`DASK_STRING`, converted before
    ``dd.from_pandas``: the partitions are the same, and Dask no longer converts them again in
    every graph of every test (a third of the Dask frame kind's time)."""
    out = data.copy()
    for position in range(out.shape[1]):  # by position: column names may repeat
        dtype = out.dtypes.iloc[position]
        if pd.api.types.is_string_dtype(dtype) and dtype != DASK_STRING and not (
                isinstance(dtype, pd.ArrowDtype)):
            out.isetitem(position, out.iloc[:, position].astype(DASK_STRING))
    return out


def _dask(source: pd.DataFrame) -> dd.DataFrame:
    return dd.from_pandas(source, npartitions=max(1, min(PARTS, len(source))), sort=False)


@dataclass(frozen=True)
class DaskSnapshot:
    """What a Dask frame of the tests was when made: the pandas frame its partitions are cut
    from (``source``, kept, and a deep ``copy``) and the collection's token
    (``dask.base.tokenize``: its expression's name, which every operation that rebinds it
    changes). rankframe leaves the frame unchanged when both hold on exit: no computation
    (Dask's partitions are slices of ``source``; pandas' copy-on-write keeps a change to a
    partition out of it, so the only way to change what the frame computes is through
    ``source`` itself or by rebinding the collection)."""

    source: pd.DataFrame
    copy: pd.DataFrame
    token: str


def _native(data: pd.DataFrame, kind: str) -> Any:
    if kind == "arrow":
        return ArrowFrame(pa.Table.from_pandas(_arrow_lists(data), preserve_index=False))
    if kind == "pandas":
        return data.copy()
    if kind == "pandas-pyarrow":
        return _pyarrow_dtypes(_arrow_lists(data))
    if kind == "dask":
        return _dask(_dask_strings(_arrow_lists(data)))
    frame = pl.from_pandas(data, nan_to_null=True)
    if kind in LAZY_POLARS:
        return frame.lazy()
    # in two chunks, as a frame read from parquet or concatenated is held: the engine reads
    # the chunks as they are (no join of them into one array)
    half = frame.height // 2
    return pl.concat([frame[:half], frame[half:]], rechunk=False) if half else frame


def _same(before: Any, after: Any) -> None:
    if isinstance(after, ArrowFrame):
        assert after.table.equals(before), "rankframe modified the input table"
    elif isinstance(before, DaskSnapshot):
        assert tokenize(after) == before.token, "rankframe rebound the input Dask frame"
        pd.testing.assert_frame_equal(before.source, before.copy)
    elif isinstance(after, dd.DataFrame):
        pd.testing.assert_frame_equal(after.compute(scheduler="sync"), before)
    elif isinstance(after, pd.DataFrame):
        pd.testing.assert_frame_equal(after, before)
    else:
        if isinstance(after, pl.LazyFrame):
            before, after = before.collect(), after.collect()
        assert after.equals(before), "rankframe modified the input frame"


class FrameMaker:
    """Builds frames of one kind; ``kind`` tells which."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.made: list[tuple[Any, Any]] = []

    def __call__(self, data: dict[str, Any] | pd.DataFrame) -> Any:
        if self.kind == "dask":
            source = _dask_strings(_arrow_lists(pd.DataFrame(data)))
            dask_frame = _dask(source)
            self.made.append((DaskSnapshot(source, source.copy(deep=True),
                                           tokenize(dask_frame)), dask_frame))
            return dask_frame
        frame = _native(pd.DataFrame(data), self.kind)
        if isinstance(frame, ArrowFrame):  # Arrow arrays are immutable: the table itself
            snapshot: Any = frame.table
        elif isinstance(frame, pl.DataFrame):
            snapshot = frame.clone()
        elif isinstance(frame, pd.DataFrame):
            snapshot = frame.copy(deep=True)
        else:
            snapshot = frame.collect()
        self.made.append((snapshot, frame))
        return frame

    @property
    def is_lazy(self) -> bool:
        """A polars LazyFrame (one step or parts)."""
        return self.kind in LAZY_POLARS

    @property
    def is_dask(self) -> bool:
        return self.kind == "dask"

    @property
    def is_arrow(self) -> bool:
        """A pyarrow Table: results are the pandas accessor's."""
        return self.kind == "arrow"

    @property
    def is_deferred(self) -> bool:
        """Results are plans: data errors surface when they are collected or computed."""
        return self.is_lazy or self.is_dask

    def check_unchanged(self) -> None:
        for snapshot, frame in self.made:
            before = snapshot.lazy() if isinstance(frame, pl.LazyFrame) else snapshot
            _same(before, frame)


@contextmanager
def frames_of(kind: str) -> Iterator[FrameMaker]:
    """A :class:`FrameMaker` of one kind; on exit, checks that its frames are unchanged."""
    maker = FrameMaker(kind)
    buckets = PARTS if kind == "polars-parts" else None
    with rankframe.option_context("query_buckets", buckets):
        yield maker
    maker.check_unchanged()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--frame-kind-tests", action="store_true",
        help="only the tests that take make_frame (every frame kind); the others are "
             "deselected (make test-floors)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--frame-kind-tests``: the tests that take ``make_frame``, the others deselected."""
    if not config.getoption("--frame-kind-tests"):
        return
    kept = [item for item in items if "make_frame" in getattr(item, "fixturenames", ())]
    dropped = [item for item in items if "make_frame" not in getattr(item, "fixturenames", ())]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(params=FRAME_KINDS)
def make_frame(request: pytest.FixtureRequest) -> Iterator[FrameMaker]:
    with frames_of(request.param) as maker:
        yield maker


# -- pytest-xdist ------------------------------------------------------------------------------

#: The test modules (and test functions) that start something costly, each run whole on one
#: worker under pytest-xdist (`make test` runs ``-n auto``), so that each starts once in the
#: run: both Spark
#: sessions (classic, then Connect: one Connect server, on its fixed port), the Dask
#: ``LocalCluster`` of the module's ``client`` fixture, the session's Chromium, the docs site
#: (``mkdocs build``, a module-scoped fixture). Every other
#: test is balanced alone. (The scheduler reads node ids: pytest-xdist's own ``xdist_group``
#: marks rename node ids, which pytest 9 no longer lets a plugin do.)
WORKER_GROUPS = {
    "tests/backends/test_spark.py": "spark",
    "tests/backends/test_dask.py": "dask-cluster",
    "tests/output/test_report.py": "browser",
    "tests/output/test_dashboard.py": "browser",
    "tests/output/test_docs_site.py": "docs-site",
    # ranx compiles its numba kernels in each process that builds a Qrels (10-20 s): the
    # tests that compare with it share one worker
    "tests/metrics/test_conventions.py::test_ranx_preset_matches_ranx": "ranx",
    "tests/metrics/test_ties_average.py::test_f1_as_ranx": "ranx",
}


class _WorkerGroups:
    """The controller's scheduler under ``-n``: pytest-xdist's by-scope scheduling with the
    modules of :data:`WORKER_GROUPS` as scopes and every other test a scope of its own (the
    largest scopes are handed out first)."""

    @staticmethod
    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "load":  # an explicit --dist is left alone
            return None
        from xdist.scheduler import LoadScopeScheduling

        class Grouped(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                test = nodeid.split("[", 1)[0]  # a test function, without its parameters
                module = nodeid.split("::", 1)[0]
                return WORKER_GROUPS.get(test, WORKER_GROUPS.get(module, nodeid))

        return Grouped(config, log)


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_WorkerGroups(), "rankframe-worker-groups")


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """``run("evaluate", path, ...)`` → (exit status, stdout, stderr) of ``rankframe.cli.main``
    called in-process."""
    from rankframe import cli

    def call(*argv: object) -> tuple[int, str, str]:
        code = cli.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return call
