"""The value grid on a frame kind the tests define (tests/backends/numpy_dict_kind.py: a dict
of NumPy arrays, registered with ``rankframe.adapters.register_kind``): docs/architecture.md's
"a new frame kind is 2 files", proved with no change to ``src/``.

The cases are the value tests' own: every test of :data:`VALUE_MODULES` that takes
``make_frame`` is collected here again, with ``make_frame`` over the test-only kind alone
(``frame_kinds``), so the shared fixture's kinds stay as they are (and the suite as fast).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd
import pytest

import rankframe
from backends.numpy_dict_kind import NAME, NumpyDictAdapter, NumpyDictFrame, register
from helpers import ROOT, as_pandas

pytestmark = pytest.mark.frame_kinds(NAME)

#: The value tests of the metrics (each metric's values against hand-computed and peers'
#: examples, its options and ties, the properties over the whole registry).
VALUE_MODULES = [
    "tests/metrics/test_seed_examples.py",
    "tests/metrics/test_properties.py",
    "tests/metrics/test_ties_average.py",
    "tests/metrics/test_beyond.py",
    "tests/metrics/test_fairness.py",
    "tests/metrics/test_registry_edges.py",
]


def _load(path: str) -> ModuleType:
    """A value test module, loaded under a name of its own (beside pytest's copy of it)."""
    name = "numpy_dict_grid_" + Path(path).stem
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses of the module look it up there
    spec.loader.exec_module(module)
    return module


def _grid() -> dict[str, Any]:
    """Every test of the value modules that takes ``make_frame`` (named ``test_<module>__
    <test>``), and the fixtures of their modules."""
    found: dict[str, Any] = {}
    for path in VALUE_MODULES:
        module = _load(path)
        stem = Path(path).stem.removeprefix("test_")
        for name, value in vars(module).items():
            if name.startswith("test_") and callable(value):
                code = getattr(value, "__code__", None)
                if code is not None and "make_frame" in code.co_varnames[: code.co_argcount]:
                    found[f"test_{stem}__{name.removeprefix('test_')}"] = value
            elif hasattr(value, "_fixture_function_marker") or type(value).__name__ in (
                "FixtureFunctionDefinition",
            ):
                assert name not in found or found[name] is value, f"two fixtures {name}"
                found[name] = value
    return found


GRID = _grid()
globals().update(GRID)


def test_the_grid_is_collected() -> None:
    """Each value module gives tests here (a module renamed or emptied fails)."""
    for path in VALUE_MODULES:
        stem = Path(path).stem.removeprefix("test_")
        assert any(name.startswith(f"test_{stem}__") for name in GRID), path


def test_the_kind_is_registered_and_adapted() -> None:
    """The kind is asked before the built-in ones, its frames get its adapter, and the
    accessor."""
    kinds = rankframe.adapters.kinds()
    assert kinds.index(NAME) < kinds.index("pandas")  # asked before the built-in kinds
    frame = NumpyDictFrame.of(pd.DataFrame({"query": ["q"], "item": ["a"]}))
    assert isinstance(rankframe.adapters.adapt(frame), NumpyDictAdapter)
    assert isinstance(frame.rank_eval, rankframe.RankEval)  # type: ignore[attr-defined]


def test_results_equal_pandas(make_frame: Any) -> None:
    """The kind's results are the pandas accessor's (its adapter delegates to pandas)."""
    data = {
        "query": ["a", "a", "b", "b"],
        "item": ["x", "y", "x", "z"],
        "score": [1.0, 0.5, 0.2, 0.9],
        "relevant": [0, 1, 0, 1],
        "theme": ["t", "t", "u", "u"],
    }
    frame = make_frame(data)
    assert isinstance(frame, NumpyDictFrame)
    got = frame.rank_eval.evaluate(["mrr@5", "ndcg@10"], by="theme")
    expected = pd.DataFrame(data).rank_eval.evaluate(["mrr@5", "ndcg@10"], by="theme")
    pd.testing.assert_frame_equal(as_pandas(got), as_pandas(expected))
    assert got["mrr@5"].tolist() == [0.5, 1.0]  # by hand: b's item at rank 2 in t, z first in u


def test_registering_a_name_again_replaces_it() -> None:
    """The registration is idempotent: the kind once in ``kinds()``, asked first."""
    before = rankframe.adapters.kinds()
    register()
    assert rankframe.adapters.kinds() == before
    assert before.count(NAME) == 1


def test_the_built_in_kinds_are_registered_the_same_way() -> None:
    """pandas, polars (eager and lazy), Dask and Spark are kinds of the one registry; an
    object no kind claims is read as an Arrow frame, or refused by name."""
    assert {"pandas", "polars", "polars-lazy", "dask", "spark"} <= set(rankframe.adapters.kinds())
    with pytest.raises(TypeError, match="list"):
        rankframe.adapters.adapt([1, 2])
