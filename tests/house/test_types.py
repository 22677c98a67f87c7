"""Types a reader can trust (issue 46): the public API typed by frame kind, and the metric
methods visible to mypy and IDEs.

- ``rankframe.rank_eval(obj)`` gives ``RankEval[Table, Decision, Value]`` from the frame's
  type (``rankframe.api.accessor``'s aliases ``PandasEval``, ``PolarsEval``, ``LazyEval``,
  ``DaskEval``): mypy checks a snippet of ``assert_type`` on every kind, and the results of
  every kind of the shared fixture are instances of the types its alias declares;
- the metric methods, generated at run time from the registry, are written for type
  checkers in ``src/rankframe/api/metric_methods.py`` by ``make metric-methods``: a method
  per registered metric, with the generated method's parameters, and the file as the
  script writes it today.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from rankframe import METRICS, MetricDef, RankEval
from rankframe.api import accessor
from rankframe.metrics.registry import register, unregister
from rankframe.settings.options import OPTIONS, Options, options_of

ROOT = Path(__file__).resolve().parents[2]
STUBS = ROOT / "src" / "rankframe" / "api" / "metric_methods.py"
SCRIPT = ROOT / "scripts" / "metric_methods.py"

# -- mypy on a snippet of every kind -----------------------------------------------------------

SNIPPET = """
from typing import Any, assert_type

import dask.dataframe as dd
import pandas as pd
import polars as pl
import pyarrow as pa

import rankframe


def pandas_results(frame: pd.DataFrame) -> None:
    ev = rankframe.rank_eval(frame)
    assert_type(ev.evaluate("mrr"), pd.DataFrame)
    assert_type(ev.per_query("mrr"), pd.DataFrame)
    assert_type(ev(score=["a", "b"]).compare("mrr"), pd.DataFrame)
    assert_type(ev.slices("mrr", "theme"), pd.DataFrame)
    assert_type(ev.gaps("mrr", "theme"), pd.DataFrame)
    assert_type(ev.rank(), pd.DataFrame)
    assert_type(ev.check("mrr >= 0.5"), pd.DataFrame)
    assert_type(ev.sample_size("mrr", delta=0.1), pd.DataFrame)
    assert_type(ev.mrr(5), float | pd.Series[float])
    assert_type(ev.ndcg(10, gain="exponential", by="theme"), float | pd.Series[float])
    assert_type(ev.report("mrr"), rankframe.Report)


def polars_results(frame: pl.DataFrame) -> None:
    ev = rankframe.rank_eval(frame)
    assert_type(ev.evaluate("mrr"), pl.DataFrame)
    assert_type(ev(query="user").compare("mrr"), pl.DataFrame)
    assert_type(ev.check("mrr >= 0.5"), pl.DataFrame)
    assert_type(ev.sample_size("mrr", delta=0.1), pd.DataFrame)
    assert_type(ev.mrr(), float | pl.DataFrame)


def lazy_results(frame: pl.LazyFrame) -> None:
    ev = rankframe.rank_eval(frame)
    assert_type(ev.evaluate("mrr"), pl.LazyFrame)
    assert_type(ev.slices("mrr", "theme"), pl.LazyFrame)
    assert_type(ev.rank(), pl.LazyFrame)
    assert_type(ev.check("mrr >= 0.5"), pl.DataFrame)
    assert_type(ev.mrr(), pl.LazyFrame)


def dask_results(frame: dd.DataFrame) -> None:
    ev = rankframe.rank_eval(frame)
    assert_type(ev.evaluate("mrr"), dd.DataFrame)
    assert_type(ev.gaps("mrr", "theme"), dd.DataFrame)
    assert_type(ev.check("mrr >= 0.5"), pd.DataFrame)
    assert_type(ev.sample_size("mrr", delta=0.1), pd.DataFrame)
    assert_type(ev.mrr(), dd.Scalar | dd.Series)


def arrow_results(table: pa.Table) -> None:
    assert_type(rankframe.rank_eval(table).evaluate("mrr"), Any)


def refusals(frame: pd.DataFrame) -> None:
    ev = rankframe.rank_eval(frame)
    ev.mrrr()  # E: no such metric
    ev.mrr(gian="linear")  # E: no such option
    ev.ndcg(ties="random")  # E: no such choice
    ev.evaluate("mrr", tidy="yes")  # E: not a bool
"""


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """mypy --strict's report on :data:`SNIPPET`, with this checkout's ``src`` first."""
    from mypy import api

    folder = tmp_path_factory.mktemp("types")
    snippet = folder / "snippet.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    (folder / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")  # not this project's files=
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MYPYPATH", str(ROOT / "src"))
        stdout, stderr, _ = api.run(
            [
                "--strict",
                "--ignore-missing-imports",
                "--config-file",
                str(folder / "mypy.ini"),
                "--cache-dir",  # the project's: `make lint` fills it with the libraries'
                str(ROOT / ".mypy_cache"),
                str(snippet),
            ]
        )
    output = stdout + stderr
    assert re.search(r"Found \d+ errors? in 1 file \(checked 1 source file\)", output), output
    return output


def test_mypy_sees_each_kind_of_result(mypy_output: str) -> None:
    """Every ``assert_type`` of the snippet holds: no error but the four it provokes."""
    lines = SNIPPET.splitlines()
    errors = re.findall(r"snippet\.py:(\d+): error: (.*)", mypy_output)
    unexpected = [
        f"{lines[int(n) - 1]!r}: {m}" for n, m in errors if "# E:" not in lines[int(n) - 1]
    ]
    assert not unexpected, mypy_output


def test_mypy_refuses_what_the_api_refuses(mypy_output: str) -> None:
    """A misspelt metric method, an option the metric does not take, a choice no option has
    and a non-bool flag are mypy errors: the signatures are the run time's."""
    lines = SNIPPET.splitlines()
    flagged = {int(n) for n, _ in re.findall(r"snippet\.py:(\d+): error: (.*)", mypy_output)}
    provoked = {n for n, line in enumerate(lines, 1) if "# E:" in line}
    assert provoked == flagged & provoked, mypy_output
    assert '"mrrr"' in mypy_output
    assert '"gian"' in mypy_output


# -- the declared types are the run time's --------------------------------------------------

ALIASES = {
    pd.DataFrame: accessor.PandasEval,
    pl.DataFrame: accessor.PolarsEval,
    pl.LazyFrame: accessor.LazyEval,
    dd.DataFrame: accessor.DaskEval,
    pa.Table: accessor.PandasEval,  # an Arrow frame: pandas results
}
NAMES = {"pd": pd, "pl": pl, "dd": dd}


def _classes(declared: Any) -> tuple[type, ...]:
    """The run-time classes of a declared type argument, a string such as
    ``"float | pd.Series[float]"``."""
    text = declared.__forward_arg__ if isinstance(declared, typing.ForwardRef) else declared
    names = [re.sub(r"\[.*\]", "", part.strip()) for part in text.split("|")]
    return tuple(eval(name, {"float": float}, NAMES) for name in names)


def test_results_are_of_the_declared_types(make_frame: Any) -> None:
    frame = make_frame(
        {
            "query": [1, 1, 2, 2, 3, 3],
            "item": ["x", "y"] * 3,
            "score": [0.9, 0.1, 0.2, 0.8, 0.5, 0.4],
            "b": [0.1, 0.9, 0.9, 0.1, 0.3, 0.7],
            "relevant": [0, 1, 1, 0, 1, 0],
            "g": ["a", "a", "b", "b", "c", "c"],
        }
    )
    native = getattr(frame, "table", frame)  # the Arrow kind's table
    alias = next(alias for kind, alias in ALIASES.items() if isinstance(native, kind))
    table, decision, value = (_classes(a) for a in typing.get_args(alias))
    ev = frame.rank_eval
    two = ev(score=["score", "b"])
    tables = [
        ev.evaluate("mrr"),
        ev.per_query("mrr"),
        two.compare("mrr"),
        ev.slices("mrr", "g", min_queries=1),
        ev.gaps("mrr", "g", n_permutations=10),
    ]
    if not make_frame.is_arrow:  # rank() adds a column to the frame: not an Arrow frame's
        tables.append(ev.rank())
    assert all(isinstance(t, table) for t in tables), [type(t) for t in tables]
    assert isinstance(ev.check("mrr >= 0.1", min_queries=1), decision)
    assert isinstance(two.sample_size("mrr", delta=0.1, baseline="score"), pd.DataFrame)
    values = [ev.mrr(), ev.mrr(by="g"), two.ndcg(3)]
    assert all(isinstance(v, value) for v in values), [type(v) for v in values]
    assert isinstance(ev(score="b"), RankEval)


# -- the metric methods, written for type checkers ----------------------------------------------


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("metric_methods_script", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _module() -> ast.Module:
    return ast.parse(STUBS.read_text(encoding="utf-8"))


def _written() -> dict[str, ast.FunctionDef]:
    """The methods of ``MetricMethods`` in the checked-in file: name -> definition."""
    (cls,) = [
        n for n in _module().body if isinstance(n, ast.ClassDef) and n.name == "MetricMethods"
    ]
    (block,) = [n for n in cls.body if isinstance(n, ast.If)]  # if TYPE_CHECKING:
    return {f.name: f for f in block.body if isinstance(f, ast.FunctionDef)}


def _common() -> list[str]:
    """The fields of ``CommonOptions``: the ``**options`` every typed method takes."""
    (cls,) = [
        n for n in _module().body if isinstance(n, ast.ClassDef) and n.name == "CommonOptions"
    ]
    return [n.target.id for n in cls.body if isinstance(n, ast.AnnAssign)]


def _parameters(function: ast.FunctionDef) -> list[tuple[str, str, Any]]:
    """(name, kind, default) of each parameter after ``self``; ``**options`` stands for the
    fields of ``CommonOptions`` (their defaults are the run time's: not written)."""
    args = function.args
    positional = args.args[1:]
    defaults = [ast.literal_eval(d) for d in args.defaults]
    kw_defaults = [ast.literal_eval(d) if d is not None else None for d in args.kw_defaults]
    common = [(name, "KEYWORD_ONLY", ...) for name in (_common() if args.kwarg else [])]
    return [
        *((a.arg, "POSITIONAL_OR_KEYWORD", d) for a, d in zip(positional, defaults, strict=True)),
        *((a.arg, "KEYWORD_ONLY", d) for a, d in zip(args.kwonlyargs, kw_defaults, strict=True)),
        *common,
    ]


def _generated(name: str) -> list[tuple[str, str, Any]]:
    """(name, kind, default) of the generated method's parameters after ``self``, with
    ``...`` for the defaults of the common options (``**options``)."""
    signature = inspect.signature(getattr(RankEval, name))
    common = _common()
    return [
        (p.name, p.kind.name, ... if p.name in common else p.default)
        for p in list(signature.parameters.values())[1:]
    ]


def _missing_or_different() -> list[str]:
    """The registered metrics whose typed method is missing or differs from the generated
    method's parameters, and typed methods of no registered metric."""
    written = _written()
    problems = [f"{name}: no typed method" for name in METRICS if name not in written]
    problems += [
        f"{name}: {_parameters(written[name])} != {_generated(name)}"
        for name in METRICS
        if name in written and _parameters(written[name]) != _generated(name)
    ]
    problems += [f"{name}: no such metric" for name in written if name not in METRICS]
    return problems


def test_every_metric_has_its_typed_method() -> None:
    """One typed method per registered metric, with the generated method's parameters (names,
    kinds, defaults), and none of a metric that is not registered."""
    assert not _missing_or_different(), "run `make metric-methods`"
    assert list(_written()) == list(METRICS)


def test_the_typed_methods_are_the_scripts_output() -> None:
    """The checked-in file is what ``make metric-methods`` writes today (annotations and
    summaries included)."""
    assert STUBS.read_text(encoding="utf-8") == _script().render(), "run `make metric-methods`"


@pytest.fixture
def new_metric() -> Iterator[str]:
    """A metric registered for one test, as a user or a contributor adds one."""

    def compute(lists: Any, k: int | None, _: Options) -> Any:
        return lists.hits_at(1 if k is None else k) > 0

    definition = MetricDef(
        name="typed_hit",
        aliases=(),
        trec_name=None,
        trec_cut=None,
        takes_k=True,
        options=options_of(OPTIONS["denominator"]),
        compute=compute,
        summary="a test metric",
        doc="1 if a relevant item is in the top k.",
    )
    register(definition)
    yield definition.name
    unregister(definition.name)
    delattr(RankEval, definition.name)


def test_a_metric_added_without_its_typed_method_is_found(new_metric: str) -> None:
    assert _missing_or_different() == [f"{new_metric}: no typed method"]
    assert f"def {new_metric}(" in _script().render()
