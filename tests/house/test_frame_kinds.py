"""Frame-kind knowledge lives in ``rankframe/adapters/`` only (issue 46): no module outside it
tells frame kinds apart by their types. An :mod:`ast` scan of ``src/rankframe`` finds, outside
``adapters/``:

- an ``isinstance``/``issubclass`` test against a frame type of a frame library (a
  ``DataFrame`` or ``LazyFrame`` of ``pd``/``pandas``, ``pl``/``polars``, ``dd``/``dask``,
  ``pyspark``, ``modin``), or ``type(x) is`` / ``==`` such a type;
- a test of a value's module name: ``__module__`` read inside a comparison or a
  ``startswith`` call, or a comparison with a string naming a frame library or one of its
  types (``"polars"``, ``"pandas.Series"``: what ``type(x).__module__`` gives).

Naming a library in a message or a docstring is a word, not a test, and is left alone; so
are the tests of a column's dtype or of a column's own type (``pd.ArrowDtype``,
``pl.Series`` in ``engine/encoding.py``): the adapters hand those columns to the layers
below, which read them. The scan is tried on sources built to trip it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "rankframe"
LIBRARIES = {"pd", "pandas", "pl", "polars", "dd", "dask", "pyspark", "ps", "modin", "mpd"}
FRAMES = {"DataFrame", "LazyFrame"}
NAMES = re.compile(r"^(pandas|polars|dask|pyspark|modin)(\.|$)")


def _root(node: ast.expr) -> str | None:
    """The first name of a dotted attribute (``pd`` of ``pd.api.types.X``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _library_types(node: ast.expr) -> list[ast.expr]:
    """The frame-library types among an isinstance's second argument (a type or a tuple or
    ``|`` union of them)."""
    if isinstance(node, ast.Tuple):
        return [t for e in node.elts for t in _library_types(e)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _library_types(node.left) + _library_types(node.right)
    if isinstance(node, ast.Attribute) and _root(node) in LIBRARIES and node.attr in FRAMES:
        return [node]
    return []


def _reads_module(node: ast.AST) -> bool:
    """Whether an expression reads a ``__module__`` attribute."""
    return any(isinstance(n, ast.Attribute) and n.attr == "__module__" for n in ast.walk(node))


def _names_a_library(nodes: list[ast.expr]) -> bool:
    """Whether a string constant of ``nodes`` names a frame library or one of its types."""
    found = [c for n in nodes for c in ast.walk(n) if isinstance(c, ast.Constant)]
    return any(isinstance(c.value, str) and NAMES.match(c.value) for c in found)


def _module_names(tree: ast.AST) -> set[str]:
    """The names that hold a module's name: variables assigned from an expression reading
    ``__module__``, and functions returning one."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _reads_module(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        if isinstance(node, ast.FunctionDef | ast.Lambda):
            body = node.body if isinstance(node, ast.FunctionDef) else [node.body]
            returns = [n for b in body for n in ast.walk(b) if isinstance(n, ast.Return)]
            if any(r.value is not None and _reads_module(r.value) for r in returns):
                names.add(getattr(node, "name", ""))
    return names


def _is_module_name(node: ast.expr, names: set[str]) -> bool:
    """Whether an expression is a module's name (see :func:`_module_names`)."""
    if _reads_module(node):
        return True
    if isinstance(node, ast.Call):
        node = node.func
    return isinstance(node, ast.Name) and node.id in names


def _is_kind_test(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` tells a frame kind by its type or by its module's name."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        is_type_test = node.func.id in ("isinstance", "issubclass") and len(node.args) == 2
        return is_type_test and bool(_library_types(node.args[1]))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        starts = node.func.attr == "startswith" and _is_module_name(node.func.value, names)
        return starts and _names_a_library(node.args)
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        same_type = (
            any(isinstance(op, ast.Is | ast.Eq) for op in node.ops)
            and any(_library_types(o) for o in operands)
            and any(isinstance(o, ast.Call) for o in operands)
        )
        by_name = any(_is_module_name(o, names) for o in operands)
        return same_type or (by_name and _names_a_library(operands))
    return False


def kind_tests(source: str) -> list[str]:
    """Each frame-kind test of ``source``: ``line: text``."""
    tree = ast.parse(source)
    names = _module_names(tree)
    return [
        f"{node.lineno}: {ast.unparse(node)}"  # type: ignore[attr-defined]
        for node in ast.walk(tree)
        if _is_kind_test(node, names)
    ]


def _outside_adapters() -> dict[str, str]:
    return {
        p.relative_to(SRC).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(SRC.rglob("*.py"))
        if p.relative_to(SRC).parts[0] != "adapters"
    }


def test_no_frame_kind_test_outside_the_adapters() -> None:
    found = {path: kind_tests(text) for path, text in _outside_adapters().items()}
    assert {path: hits for path, hits in found.items() if hits} == {}


@pytest.mark.parametrize(
    "source",
    [
        "isinstance(x, pd.DataFrame)",
        "isinstance(x, (list, pl.DataFrame))",
        "isinstance(x, pd.Series | pl.LazyFrame)",
        "issubclass(t, dd.DataFrame)",
        "type(x) is pl.LazyFrame",
        "type(x).__module__.split('.')[0] == 'polars'",
        "kind = f'{type(value).__module__}.{type(value).__name__}' in ('pandas.Series',)",
        "kind = f'{type(v).__module__}.{type(v).__name__}'\nkind in ('pandas.Series',)",
        "def library(x):\n    return type(x).__module__\nlibrary(x) == 'dask'",
        "type(x).__module__.startswith('pyspark')",
        "x.__class__.__module__ in {'dask.dataframe'}",
    ],
)
def test_the_scan_finds_each_form(source: str) -> None:
    assert len(kind_tests(source)) == 1, source


@pytest.mark.parametrize(
    "source",
    [
        "isinstance(x, Mapping)",
        "isinstance(x, np.ndarray)",
        "isinstance(dtype, pd.ArrowDtype)",
        "type(x).__module__ == 'numpy'",
        "flavour == 'polars'",
        "pd.DataFrame({'a': [1]})",
        "msg = f'a {type(x).__module__}.{type(x).__qualname__} cannot be read'",
        "'''A pandas or polars DataFrame, a Dask frame.'''",
        "warnings.filterwarnings('ignore', module=r'pyspark')",
    ],
)
def test_words_and_other_types_are_left_alone(source: str) -> None:
    assert kind_tests(source) == [], source
