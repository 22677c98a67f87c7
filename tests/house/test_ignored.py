"""What pytest's configuration leaves out of the main suite hides no test.

``adapters/modin.py`` is ignored by ``addopts`` (pyproject.toml): it imports modin, which lives
in its own venv (``make test-modin``). Its doctests would be the only tests lost there, so it
must hold none.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ignored() -> list[Path]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    options = config["tool"]["pytest"]["ini_options"]["addopts"]
    return [ROOT / o.removeprefix("--ignore=") for o in options if o.startswith("--ignore=")]


def test_only_the_modin_adapter_is_ignored() -> None:
    assert [p.relative_to(ROOT).as_posix() for p in _ignored()] == [
        "src/rankframe/adapters/modin.py"
    ]


def test_an_ignored_module_holds_no_doctest() -> None:
    for path in _ignored():
        text = path.read_text(encoding="utf-8")
        assert ">>>" not in text, f"{path.name} holds a doctest that the main suite never runs"
