"""Shared fixtures and hooks: every test that takes a frame runs on every frame kind.

``make_frame`` is parametrised over :data:`helpers.FRAME_KINDS` (the frames themselves are
built in tests/helpers.py: :class:`helpers.FrameMaker`): pandas (NumPy dtypes), pandas with
pyarrow dtypes, polars eager, polars lazy (one step), polars lazy forced into three parts of
whole queries, Dask (three partitions, Dask's default threaded scheduler) and a pyarrow Table;
with ``--frame-kind modin`` (``make test-modin``, in modin's own venv), a modin frame alone.
It builds the frame from a dict or a pandas frame, remembers a copy, and after the test checks
that rankframe left the frame unchanged. A module marked ``pytest.mark.frame_kinds(*kinds)``
takes the fixture over those kinds only (the option and error grids: ``helpers.GRID_KINDS``).

Tests import their helpers from tests/helpers.py, never from this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import rankframe
from helpers import FRAME_KINDS, OWN_VENV_KINDS, TEST_KINDS, FrameMaker, chromium, frames_of

# Test modules import pandera themselves: first through rankframe, which silences what
# pyspark's modules warn while pandera imports them (schemas.pandera_ready)
rankframe.schemas.pandera_ready()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--frame-kind-tests",
        action="store_true",
        help="only the tests that take make_frame (every frame kind); the others are "
        "deselected (make test-floors)",
    )
    parser.addoption(
        "--frame-kind",
        action="append",
        default=[],
        choices=[*FRAME_KINDS, *OWN_VENV_KINDS],
        help="make_frame takes this kind alone (repeatable), in every test that takes it: "
        "the kinds of helpers.OWN_VENV_KINDS (modin: make test-modin) are taken only so",
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


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test of a module marked ``frame_kinds(*kinds)`` takes ``make_frame`` over ``kinds``:
    the mark becomes a ``parametrize`` mark of the test (indirect, the fixture's own ids), which
    pytest reads in place of the fixture's parameters. ``--frame-kind`` does the same for every
    test that takes ``make_frame``, over the kinds it names (a mark's too)."""
    if "make_frame" not in metafunc.fixturenames:
        return
    chosen = metafunc.config.getoption("--frame-kind")
    if chosen:
        metafunc.definition.add_marker(
            pytest.mark.parametrize("make_frame", list(dict.fromkeys(chosen)), indirect=True)
        )
        return
    mark = metafunc.definition.get_closest_marker("frame_kinds")
    if mark is None:
        return
    unknown = set(mark.args) - {*FRAME_KINDS, *TEST_KINDS}
    if not mark.args or unknown:
        raise pytest.UsageError(f"frame_kinds{mark.args}: not frame kinds: {sorted(unknown)}")
    metafunc.definition.add_marker(
        pytest.mark.parametrize("make_frame", list(mark.args), indirect=True)
    )


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
    # one `mlflow server` (its session fixture) for the module's tests
    "tests/output/test_mlflow.py": "mlflow-server",
    # ranx compiles its numba kernels in each process that builds a Qrels (10-20 s): the
    # tests that compare with it share one worker
    "tests/metrics/test_conventions.py::test_ranx_preset_matches_ranx": "ranx",
    "tests/metrics/test_ties_average.py::test_f1_as_ranx": "ranx",
    "tests/backends/test_numpy_dict_kind.py::test_ties_average__f1_as_ranx": "ranx",
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
    config.addinivalue_line(
        "markers",
        "frame_kinds(*kinds): the frame kinds a module's make_frame takes "
        "(helpers.GRID_KINDS: the option and error grids, without Dask)",
    )
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


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for every browser test of the session (the report's and the
    dashboard's: Playwright's sync API runs one instance per thread, so a second would fail
    inside the first; a launch costs more than a page). Under pytest-xdist those modules run
    on one worker (WORKER_GROUPS)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium())
        yield launched
        launched.close()
