"""The house keeps its shape: the layers of docs/architecture.md (import-linter's contracts in
pyproject.toml) and a light ``import rankframe``, which imports no frame library (the
accessor whichever of a frame's library and rankframe is imported first:
tests/backends/test_import_order.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> str:
    """Run ``code`` in a fresh interpreter; its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_layer_contracts_hold() -> None:
    """A cycle, or an import from a lower layer up to a higher one, fails here (and in
    `make lint`); the contracts are in pyproject.toml."""
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint), "--config", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_import_rankframe_loads_no_optional_library() -> None:
    """pandas, polars, pyarrow, NumPy, Dask, scipy, pyspark, duckdb, pandera, matplotlib,
    the engine, the report and the history store load when first used, not with `import
    rankframe`."""
    loaded = _python(
        "import sys, rankframe\n"
        "heavy = ['pandas', 'polars', 'pyarrow', 'numpy', 'dask', 'scipy', 'pyspark', "
        "'duckdb', 'sqlalchemy', 'pandera', 'matplotlib', 'rankframe.engine', "
        "'rankframe.report', 'rankframe.history', 'rankframe.trec.measures']\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    assert loaded == "[]"


def test_the_outputs_load_on_first_use() -> None:
    assert (
        _python(
            "import rankframe, sys\n"
            "print(rankframe.Report.__module__, rankframe.History.__module__,\n"
            "      rankframe.to_latex.__name__, 'rankframe.report' in sys.modules)"
        )
        == "rankframe.report rankframe.api.store to_latex True"
    )
    import rankframe

    with pytest.raises(AttributeError, match="no attribute 'Reprot'"):
        rankframe.Reprot  # noqa: B018
