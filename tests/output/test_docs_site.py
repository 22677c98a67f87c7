"""The documentation site builds with ``mkdocs build --strict`` and documents the public API.

The build runs in a subprocess (``python -m mkdocs``, as ``make docs`` runs it) into a
temporary directory, once for the module. ``--strict`` turns every mkdocs warning into a
failure: a broken link or anchor between pages, a page of docs/ missing from the nav, a
docstring that mkdocstrings cannot parse. mkdocs and mkdocstrings-python come with the test
extra (``rankframe[docs]``), so a missing mkdocs fails here rather than skipping.

The examples on the pages are not run here: every ``.md`` under docs/ is a doctest of its
own (``--doctest-glob=*.md``), and the docstrings' examples run with ``--doctest-modules``.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import mkdocs  # noqa: F401  (the docs extra is part of the test extra: fail, do not skip)
import mkdocstrings_handlers.python  # noqa: F401
import pytest

from helpers import ROOT
from rankframe import RankEval

CONFIG = ROOT / "mkdocs.yml"

# The accessor's public methods: each must have its own entry on the API page. The list
# names the ones the docs rely on; any other public method of RankEval is required too.
ACCESSOR_METHODS = [
    "mrr",
    "ndcg",
    "map",
    "acc",
    "precision",
    "recall",
    "r_precision",
    "per_query",
    "evaluate",
    "rank",
]
ACCESSOR_METHODS += sorted(
    {
        name
        for base in RankEval.__mro__  # its own methods and its bases' (api/searches.py)
        for name, member in vars(base).items()
        if not name.startswith("_") and callable(member) and name not in ACCESSOR_METHODS
    }
)
# Other public objects of the API page, by the anchor mkdocstrings gives them.
API_OBJECTS = [
    "rankframe.RankEval",
    "rankframe.parse_metric",
    "rankframe.Metric",
    "rankframe.schemas.pandas_schema",
    "rankframe.schemas.polars_schema",
    "rankframe.exceptions.RankEvalError",
    "rankframe.exceptions.ColumnNotFoundError",
    "rankframe.exceptions.InvalidDataError",
    "rankframe.exceptions.UnknownMetricError",
    "rankframe.exceptions.InvalidOptionError",
    "rankframe.exceptions.EmptyQueryError",
    "rankframe.exceptions.StoreError",
    "rankframe.History",
    "rankframe.trec.read_trec_run",
    "rankframe.trec.read_trec_qrels",
    "rankframe.trec.join_trec",
    "rankframe.datasets.recommendations",
]


def _text(page: Path) -> str:
    """The visible text of a built page (tags removed, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    command = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "--config-file",
        str(CONFIG),
        "--site-dir",
        str(out),
    ]
    result = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    log = f"{result.stdout}\n{result.stderr}"
    assert result.returncode == 0, f"`mkdocs build --strict` failed:\n{log}"
    assert "WARNING" not in log, log
    return out


def test_every_page_of_docs_is_built(site: Path) -> None:
    # --strict with `validation.omitted_files: warn` already fails on a page left out of the
    # nav; this checks that each Markdown file became a page.
    for source in sorted((ROOT / "docs").glob("*.md")):
        built = site / "index.html" if source.stem == "index" else site / source.stem / "index.html"
        assert built.is_file(), f"docs/{source.name} was not built into {built}"


def test_api_page_documents_the_accessor_methods(site: Path) -> None:
    page = site / "api" / "index.html"
    source = page.read_text(encoding="utf-8")
    missing = [name for name in ACCESSOR_METHODS if f'id="rankframe.RankEval.{name}"' not in source]
    assert not missing, f"no entry for RankEval methods {missing} on the API page"
    text = _text(page)
    for name in ("per_query", "evaluate"):
        assert name in text
    # the NumPy-style sections are parsed, not shown as raw underlined headings
    assert "Parameters" in text
    assert "----------" not in text


def test_api_page_documents_the_public_objects(site: Path) -> None:
    source = (site / "api" / "index.html").read_text(encoding="utf-8")
    missing = [name for name in API_OBJECTS if f'id="{name}"' not in source]
    assert not missing, f"no entry for {missing} on the API page"


def test_api_page_shows_no_sphinx_roles(site: Path) -> None:
    # The docstrings are rendered as Markdown: a Sphinx role such as :class:`Metric` shows
    # up as ":class:Metric". Write ``Metric`` (a code span) instead.
    text = _text(site / "api" / "index.html")
    roles = sorted(set(re.findall(r":(?:class|func|meth|mod|attr|math|data|ref):\s*\S+", text)))
    assert not roles, f"Sphinx roles in the API page (use ``code`` instead): {roles}"


def test_the_index_links_to_the_slices_page(site: Path) -> None:
    # docs/slices.md, "Finding where a model fails", is reached from the home page
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="slices/"' in index
    assert "Finding where a model fails" in _text(site / "slices" / "index.html")
