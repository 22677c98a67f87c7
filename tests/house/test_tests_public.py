"""The tests read only what users read: no private name of rankframe, no import of conftest.

A test that reads a private name (a leading underscore: ``registry._LOOKUP``,
``rankframe.report._compute``) breaks when the code is rearranged without any change a user
sees, and hides what the public API lacks. So no test file imports a private module or a
private name from rankframe, reads or patches a private attribute of an object it imported
from rankframe (``encoding._BUCKET``, ``monkeypatch.setattr(module, "_BUCKET", ...)``), or
imports from tests/conftest.py, which keeps only fixtures and hooks: shared helpers are in
tests/helpers.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers import ROOT

TESTS = ROOT / "tests"
FILES = sorted(path for path in TESTS.rglob("*.py") if path.name != "conftest.py")


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _dotted_private(name: str) -> bool:
    return any(_private(part) for part in name.split("."))


def _base_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def findings(source: str) -> list[str]:
    """What ``source`` (a test module) reads of rankframe's private names, or of conftest:
    one line each, with its line number."""
    tree = ast.parse(source)
    found: list[str] = []
    bound: set[str] = set()  # the names bound to rankframe or something imported from it
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            if top == "conftest":
                found.append(f"{node.lineno}: imports from conftest")
            if top != "rankframe":
                continue
            if _dotted_private(node.module):
                found.append(f"{node.lineno}: imports the private module {node.module}")
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{node.lineno}: imports {node.module}.{alias.name}")
                bound.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top == "conftest":
                    found.append(f"{node.lineno}: imports conftest")
                if top == "rankframe":
                    if _dotted_private(alias.name):
                        found.append(f"{node.lineno}: imports the private module {alias.name}")
                    bound.add(alias.asname or top)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and (_base_name(node.value) in bound)
        ):
            found.append(f"{node.lineno}: reads {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            # monkeypatch.setattr(module, "_name", ...), mock.patch.object(module, "_name")
            target, name = node.args[0], node.args[1]
            if (
                isinstance(name, ast.Constant)
                and isinstance(name.value, str)
                and _private(name.value)
                and _base_name(target) in bound
            ):
                found.append(f"{node.lineno}: patches {ast.unparse(target)}.{name.value}")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("rankframe.")
            and " " not in node.value
            and _dotted_private(node.value)
        ):
            found.append(f"{node.lineno}: names {node.value}")  # monkeypatch.setattr("...")
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(TESTS)))
def test_tests_read_only_public_names(path: Path) -> None:
    found = findings(path.read_text(encoding="utf-8"))
    assert not found, (
        f"{path.relative_to(ROOT)} reads what users do not: "
        + "; ".join(found)
        + ". Test through a public name (or make the name public where it is a real API); "
        "shared test helpers live in tests/helpers.py."
    )


def test_the_check_finds_each_kind_of_private_read() -> None:
    source = """
import rankframe
import rankframe.report._compute
from conftest import FrameMaker
from rankframe.metrics.registry import _LOOKUP, register
from rankframe.engine import encoding
from rankframe import plot as drawing

def test(monkeypatch):
    rankframe.engine.encoding._SAMPLE
    drawing._eager(None)
    monkeypatch.setattr(encoding, "_BUCKET", 2)
    monkeypatch.setattr("rankframe.engine.encoding._BUCKET", 2)
    register.__name__, encoding.THREAD_VALUES, rankframe.__version__  # public: not found
"""
    assert sorted(int(line.split(":")[0]) for line in findings(source)) == [3, 4, 5, 10, 11, 12, 13]
    assert findings("import helpers\nfrom rankframe import METRICS\nMETRICS._x = 1\n") == [
        "3: reads METRICS._x"
    ]
