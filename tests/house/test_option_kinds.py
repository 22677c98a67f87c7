"""Frame kinds are told apart in ``adapters/`` only: the metrics read the options that map
items to values (``item_groups``, ``popularity``, ``item_features``, ``catalog``, awrf's
``target``) through the adapters' reader, never by testing a pandas or polars type."""

from __future__ import annotations

import ast
from pathlib import Path

import rankframe

SOURCE = Path(rankframe.__file__).parent
KIND_TYPES = {"DataFrame", "Series", "LazyFrame"}


def kind_tests(path: Path) -> list[str]:
    """The ``isinstance`` tests against a frame type and the ``hasattr(x, "columns")``
    duck tests of a module, as ``line: text``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id == "isinstance" and len(node.args) == 2:
            names = {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
            if names & KIND_TYPES:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
        if node.func.id == "hasattr" and len(node.args) == 2:
            attribute = node.args[1]
            if isinstance(attribute, ast.Constant) and attribute.value == "columns":
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_metrics_test_no_frame_kind() -> None:
    found = {
        path.name: tests
        for path in sorted((SOURCE / "metrics").glob("*.py"))
        if (tests := kind_tests(path))
    }
    assert found == {}


def test_the_check_sees_a_kind_test(tmp_path: Path) -> None:
    # the check itself: a module testing a pandas type and a polars duck type is caught
    module = tmp_path / "kinds.py"
    module.write_text(
        "import pandas as pd\n"
        "def f(x):\n"
        "    return isinstance(x, pd.Series) or hasattr(x, 'columns')\n"
    )
    assert kind_tests(module) == ["3: isinstance(x, pd.Series)", "3: hasattr(x, 'columns')"]
    assert kind_tests(SOURCE / "adapters" / "mappings.py")  # the reader does test kinds
