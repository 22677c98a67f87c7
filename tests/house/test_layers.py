"""The house keeps its shape: the layers of docs/architecture.md (import-linter's contracts in
pyproject.toml), a light ``import rankframe``, and Dask's accessor whichever of Dask and
rankframe is imported first."""

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
    """Dask, scipy, pyspark, duckdb, pandera, matplotlib, the report and the history store
    load when first used, not with `import rankframe`."""
    loaded = _python(
        "import sys, rankframe\n"
        "heavy = ['dask', 'scipy', 'pyspark', 'duckdb', 'sqlalchemy', 'pandera', "
        "'matplotlib', 'rankframe.report', 'rankframe.history', 'rankframe.trec.measures']\n"
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


DASK_CHECK = (
    "import pandas as pd\n"
    "df = pd.DataFrame({'query': [1, 1, 2, 2], 'item': ['x', 'y', 'x', 'y'],\n"
    "                   'score': [0.9, 0.1, 0.9, 0.1], 'relevant': [0, 1, 1, 0]})\n"
    "ddf = dd.from_pandas(df, npartitions=2)\n"
    "print(type(ddf.rank_eval).__name__, ddf.rank_eval.mrr().compute())\n"
)


@pytest.mark.parametrize(
    "imports",
    [
        "import rankframe\nimport dask.dataframe as dd\n",
        "import dask.dataframe as dd\nimport rankframe\n",
    ],
    ids=["rankframe-first", "dask-first"],
)
def test_dask_frames_get_the_accessor_in_either_import_order(imports: str) -> None:
    # query 1's relevant item is second (RR 1/2), query 2's first (1): mean 0.75
    assert _python(imports + DASK_CHECK) == "RankEval 0.75"
