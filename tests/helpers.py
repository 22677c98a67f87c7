"""Helpers for tests: the frames of every kind (``FrameMaker``, the ``make_frame`` fixture's), and
results of any frame kind read back as plain Python / pandas."""

from __future__ import annotations

import math
import os
import shutil
import struct
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
from dask.base import tokenize

import rankframe
from backends import numpy_dict_kind
from backends.numpy_dict_kind import NumpyDictFrame
from rankframe import METRICS, Metric, tracking
from reference import Row, per_query

ROOT = Path(__file__).resolve().parents[1]  # the repository
DOCS = ROOT / "docs"
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance" / "trec_eval"
SEEDS = SHARED / "seeds"

Run = Callable[..., tuple[int, str, str]]
"""The ``run`` fixture (conftest.py): ``run("trec", ...)`` → (exit status, stdout, stderr)."""


def collect(result: Any) -> Any:
    """A LazyFrame's result collected, a Dask result computed, a modin result as pandas';
    anything else unchanged."""
    if isinstance(result, pl.LazyFrame):
        return result.collect()
    if is_modin(result):
        return result.modin.to_pandas()
    if hasattr(result, "dask") and hasattr(result, "compute"):  # any Dask collection
        computed = result.compute()
        # rank() of a shuffled frame gives each query's rows together, each row under its
        # input label: the input's order is the order of the labels
        return (
            computed.sort_index(kind="stable") if isinstance(computed, pd.DataFrame) else (computed)
        )
    return result


def as_float(result: Any) -> float:
    """A scalar metric from any frame kind (a LazyFrame gives a 1x1 frame)."""
    result = collect(result)
    if isinstance(result, pl.DataFrame):
        assert result.shape == (1, 1), result
        return float(result.item())
    assert isinstance(result, float), type(result)
    return result


def as_pandas(result: Any) -> pd.DataFrame:
    """A table from any frame kind as a pandas frame with NumPy dtypes."""
    result = collect(result)
    if isinstance(result, pl.DataFrame):
        result = result.to_pandas()
    if isinstance(result, pd.Series):
        result = result.reset_index()
    out = result.copy()
    for column in out.columns:
        if out[column].dtype.kind not in "biufc":
            out[column] = out[column].astype(object)
    return out


def as_dict(result: Any, key: str = "query") -> dict[Any, dict[str, float]]:
    """A per-query table as {query: {metric: value}}."""
    table = as_pandas(result)
    return {
        row[key]: {c: row[c] for c in table.columns if c != key} for row in table.to_dict("records")
    }


def unlabelled(result: Any) -> pd.DataFrame:
    """A table from any frame kind (``as_pandas``) with each metric column named without
    the options its label names (``f1@5(beta=2)`` → ``f1@5``; ``_ci_low`` and ``_ci_high``
    columns too), and a tidy ``metric`` column likewise: for tests that compare values
    with a reference keyed by metric; ``tests/metrics/test_labels.py`` tests the labels."""
    table = as_pandas(result)

    def bare(label: Any) -> Any:
        text = str(label)
        start = text.find("(")
        if start < 0 or ")" not in text:
            return label
        end = text.rindex(")")
        return text[:start] + text[end + 1 :]

    table = table.rename(columns=bare)
    if "metric" in table.columns:
        table["metric"] = table["metric"].map(bare)
    return table


# -- the metrics of relevance at their parameters (tests/metrics/test_properties.py,
# tests/backends/test_spark.py) ------------------------------------------------------------

KS = (1, 2, 3, 5, 10)
# the values of the parameters that are numbers rather than cut-offs
NUMBERS = {"iprec": (0.0, 0.3, 0.5, 1.0), "rprec_mult": (0.2, 1.0, 1.4, 2.0), "rbp": (0.5, 0.95)}
#: the metrics of relevance: the beyond-accuracy metrics (``MetricDef.items``: they read
#: popularity, features, the catalog) have their own tests (tests/metrics/test_beyond.py)
RELEVANCE = {name: d for name, d in METRICS.items() if d.items is None}


def parameters(name: str, ks: tuple[int, ...] = KS) -> list[int | float | None]:
    """None (unless the metric needs a parameter), then its cut-offs or numbers."""
    d = RELEVANCE[name]
    if not d.takes_k:
        return [None]
    values = list(ks) if d.param.integer else list(NUMBERS[name])
    return values if d.param.required else [None, *values]


def all_metrics(ks: tuple[int, ...] = KS) -> list[Metric]:
    """Every registered metric of relevance without cut-off, and at every k if it takes one."""
    return [Metric(d.name, k) for d in RELEVANCE.values() for k in parameters(d.name, ks)]


def doctest_outputs(text: str) -> list[list[str]]:
    """The output blocks of the doctests of a docs page (or of a section of one): the lines
    after each run of ``>>>``/``...`` lines, up to a blank line or the end of the code
    block; what the page says rankframe prints, for tests that recompute it."""
    blocks: list[list[str]] = []
    in_output = previous_code = False
    for line in text.splitlines():
        code = line.startswith((">>> ", "... "))
        ends = not line.strip() or line.startswith("```")
        if code:
            in_output = False
        elif previous_code and not ends:
            blocks.append([line])
            in_output = True
        elif in_output:
            if ends:
                in_output = False
            else:
                blocks[-1].append(line)
        previous_code = code
    return blocks


def planted(
    ranks: dict[str, list[int]],
    columns: dict[str, list[Any]] | None = None,
    *,
    items: int = 3,
    prefix: str = "q",
) -> dict[str, list[Any]]:
    """A long frame's columns with planted reciprocal ranks: query ``i`` (``f"{prefix}{i}"``)
    holds ``items`` items, ``"r"`` its one relevant item, which the score column ``s`` ranks
    at ``ranks[s][i]`` (scores ``items, ..., 1``, no tie: its reciprocal rank is
    ``1 / ranks[s][i]``); ``columns[c][i]`` is query ``i``'s value of column ``c``."""
    columns = columns or {}
    n = len(next(iter(ranks.values())))
    out: dict[str, list[Any]] = {
        "query": [],
        "item": [],
        **{s: [] for s in ranks},
        "relevant": [],
        **{c: [] for c in columns},
    }
    names = ["r", *(f"n{j}" for j in range(1, items))]
    for i in range(n):
        for j, item in enumerate(names):
            out["query"].append(f"{prefix}{i}")
            out["item"].append(item)
            out["relevant"].append(int(j == 0))
            for c, values in columns.items():
                out[c].append(values[i])
            for s, r in ranks.items():  # the relevant item at rank r, the others around it
                rank = r[i] if j == 0 else (j if j < r[i] else j + 1)
                out[s].append(float(items + 1 - rank))
    return out


# -- the frames of the shared frame-kind fixture (``make_frame``, tests/conftest.py) --------
#
# Every kind of frame rankframe takes, built from a dict or a pandas frame: pandas (NumPy
# dtypes), pandas with pyarrow dtypes, polars eager, polars lazy (one step), polars lazy forced
# into three parts of whole queries (``query_buckets``), Dask (three partitions cut by row
# position, so queries straddle partitions and are shuffled; Dask's default threaded
# scheduler) and a pyarrow Table (``arrow``: ``rankframe.rank_eval(table)``, pandas results).
# A :class:`FrameMaker` remembers a copy of each frame it makes; ``frames_of`` checks on exit
# that rankframe left them unchanged.

FRAME_KINDS = ["pandas", "pandas-pyarrow", "polars", "polars-lazy", "polars-parts", "dask", "arrow"]
#: The frame kinds whose library has a venv of its own, not the main one's: a run names them
#: with ``--frame-kind`` (tests/conftest.py), which makes ``make_frame`` take them alone.
#: ``modin``: a ``modin.pandas.DataFrame`` on modin's single-process engine
#: (``MODIN_ENGINE=python``), pandas results as modin's (``make test-modin``, .venv-modin).
OWN_VENV_KINDS = ["modin"]
LAZY_POLARS = ("polars-lazy", "polars-parts")
PARTS = 3  # the parts of "polars-parts" and the partitions of "dask"


#: The frame kinds of the option and error grids (tests/input/test_errors.py,
#: tests/metrics/test_options_reference.py, test_labels.py, test_conventions.py; their
#: ``pytestmark = pytest.mark.frame_kinds(*GRID_KINDS)``): every kind but Dask, whose
#: one-call-per-case tests in tests/backends/test_dask.py stand in for it there, as
#: tests/backends/test_spark.py's do for Spark (issue 46). They cover every registered metric,
#: every option and every error class on Dask:
#: ``test_dask_cases_cover_every_metric_option_and_error_class`` asserts it.
GRID_KINDS = [kind for kind in FRAME_KINDS if kind != "dask"]

#: A frame kind the tests define and register themselves (tests/backends/numpy_dict_kind.py:
#: a dict of NumPy arrays), not in the shared fixture's kinds: tests/backends/
#: test_numpy_dict_kind.py runs the value grid on it (``frame_kinds("numpy-dict")``).
NUMPY_DICT = numpy_dict_kind.NAME
TEST_KINDS = [NUMPY_DICT]
numpy_dict_kind.register()


def _arrow_lists(data: pd.DataFrame) -> pd.DataFrame:
    """Object columns of lists (or tuples) as pyarrow list columns, as parquet gives them (and
    as Dask keeps them: it turns object columns of lists into strings). Other columns, and
    columns of dicts, as they are."""
    out = data.copy()
    for position in range(out.shape[1]):  # by position: column names may repeat
        column = out.iloc[:, position]
        if column.dtype != object:
            continue
        first = next((v for v in column if v is not None), None)
        if isinstance(first, (list, tuple)):
            array = pa.array(column.to_numpy(), from_pandas=True)
            out.isetitem(position, pd.Series(pd.arrays.ArrowExtensionArray(array), index=out.index))
    return out


def _pyarrow_dtypes(data: pd.DataFrame) -> pd.DataFrame:
    """Every column in a pyarrow dtype: ``convert_dtypes(dtype_backend="pyarrow")``, with the
    columns that already have one kept as they are (pandas 2.2 turns a date32 column into
    timestamp[ms]; later versions keep it)."""
    out = data.convert_dtypes(dtype_backend="pyarrow")
    for position in range(data.shape[1]):  # by position: column names may repeat
        if isinstance(data.dtypes.iloc[position], pd.ArrowDtype):
            out.isetitem(position, data.iloc[:, position])
    return out


class ArrowFrame:
    """A pyarrow Table as the tests use a frame: ``.rank_eval`` is
    ``rankframe.rank_eval(table)`` (pyarrow's classes take no accessor); every other
    attribute is the table's."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table

    @property
    def rank_eval(self) -> Any:
        return rankframe.rank_eval(self.table)

    def __getattr__(self, name: str) -> Any:
        if name == "table":  # not set yet (while unpickling): no attribute, no recursion
            raise AttributeError(name)
        return getattr(self.table, name)

    def __len__(self) -> int:
        return len(self.table)


#: Dask's string type: with ``dataframe.convert-string`` on (its default), Dask turns every
#: column of strings that is not already ``string[pyarrow]`` (object, and pandas 3's ``str``)
#: into this type, each time it builds a graph of a frame made by ``from_pandas``
DASK_STRING = pd.StringDtype("pyarrow")


def _dask_strings(data: pd.DataFrame) -> pd.DataFrame:
    """The columns Dask would convert to :data:`DASK_STRING`, converted before
    ``dd.from_pandas``: the partitions are the same, and Dask no longer converts them again in
    every graph of every test (a third of the Dask frame kind's time)."""
    out = data.copy()
    for position in range(out.shape[1]):  # by position: column names may repeat
        dtype = out.dtypes.iloc[position]
        if (
            pd.api.types.is_string_dtype(dtype)
            and dtype != DASK_STRING
            and not (isinstance(dtype, pd.ArrowDtype))
        ):
            out.isetitem(position, out.iloc[:, position].astype(DASK_STRING))
    return out


def _dask(source: pd.DataFrame) -> dd.DataFrame:
    return dd.from_pandas(source, npartitions=max(1, min(PARTS, len(source))), sort=False)


@dataclass(frozen=True)
class DaskSnapshot:
    """What a Dask frame of the tests was when made: the pandas frame its partitions are cut
    from (``source``, kept, and a deep ``copy``) and the collection's token
    (``dask.base.tokenize``: its expression's name, which every operation that rebinds it
    changes). rankframe leaves the frame unchanged when both hold on exit: no computation
    (Dask's partitions are slices of ``source``; pandas' copy-on-write keeps a change to a
    partition out of it, so the only way to change what the frame computes is through
    ``source`` itself or by rebinding the collection)."""

    source: pd.DataFrame
    copy: pd.DataFrame
    token: str


def is_modin(obj: Any) -> bool:
    """A modin DataFrame or Series (modin is imported only by the modin kind)."""
    return type(obj).__module__.startswith("modin.") and hasattr(obj, "modin")


def _native(data: pd.DataFrame, kind: str) -> Any:
    if kind == NUMPY_DICT:
        return NumpyDictFrame.of(data)
    if kind == "modin":  # only in modin's venv (OWN_VENV_KINDS): a missing modin fails
        from modin.pandas.io import from_pandas

        return from_pandas(data.copy())
    if kind == "arrow":
        return ArrowFrame(pa.Table.from_pandas(_arrow_lists(data), preserve_index=False))
    if kind == "pandas":
        return data.copy()
    if kind == "pandas-pyarrow":
        return _pyarrow_dtypes(_arrow_lists(data))
    if kind == "dask":
        return _dask(_dask_strings(_arrow_lists(data)))
    frame = pl.from_pandas(data, nan_to_null=True)
    if kind in LAZY_POLARS:
        return frame.lazy()
    # in two chunks, as a frame read from parquet or concatenated is held: the engine reads
    # the chunks as they are (no join of them into one array)
    half = frame.height // 2
    return pl.concat([frame[:half], frame[half:]], rechunk=False) if half else frame


def assert_unchanged(before: Any, after: Any) -> None:
    """``after`` (a frame a test made) is still ``before`` (its snapshot when made)."""
    if isinstance(after, NumpyDictFrame):
        assert after.equals(before), "rankframe modified the input arrays"
    elif isinstance(after, ArrowFrame):
        assert after.table.equals(before), "rankframe modified the input table"
    elif isinstance(before, DaskSnapshot):
        assert tokenize(after) == before.token, "rankframe rebound the input Dask frame"
        pd.testing.assert_frame_equal(before.source, before.copy)
    elif is_modin(after):
        pd.testing.assert_frame_equal(after.modin.to_pandas(), before)
    elif isinstance(after, dd.DataFrame):
        pd.testing.assert_frame_equal(after.compute(scheduler="sync"), before)
    elif isinstance(after, pd.DataFrame):
        pd.testing.assert_frame_equal(after, before)
    else:
        if isinstance(after, pl.LazyFrame):
            before, after = before.collect(), after.collect()
        assert after.equals(before), "rankframe modified the input frame"


class FrameMaker:
    """Builds frames of one kind; ``kind`` tells which."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.made: list[tuple[Any, Any]] = []

    def __call__(self, data: dict[str, Any] | pd.DataFrame) -> Any:
        if self.kind == "dask":
            source = _dask_strings(_arrow_lists(pd.DataFrame(data)))
            dask_frame = _dask(source)
            self.made.append(
                (DaskSnapshot(source, source.copy(deep=True), tokenize(dask_frame)), dask_frame)
            )
            return dask_frame
        frame = _native(pd.DataFrame(data), self.kind)
        if isinstance(frame, NumpyDictFrame):
            snapshot: Any = frame.copy()
        elif isinstance(frame, ArrowFrame):  # Arrow arrays are immutable: the table itself
            snapshot = frame.table
        elif is_modin(frame):
            snapshot = frame.modin.to_pandas()
        elif isinstance(frame, pl.DataFrame):
            snapshot = frame.clone()
        elif isinstance(frame, pd.DataFrame):
            snapshot = frame.copy(deep=True)
        else:
            snapshot = frame.collect()
        self.made.append((snapshot, frame))
        return frame

    @property
    def is_lazy(self) -> bool:
        """A polars LazyFrame (one step or parts)."""
        return self.kind in LAZY_POLARS

    @property
    def is_dask(self) -> bool:
        return self.kind == "dask"

    @property
    def is_arrow(self) -> bool:
        """A pyarrow Table: results are the pandas accessor's."""
        return self.kind == "arrow"

    @property
    def is_modin(self) -> bool:
        """A modin frame: the pandas accessor's values and errors, results as modin's."""
        return self.kind == "modin"

    @property
    def is_deferred(self) -> bool:
        """Results are plans: data errors surface when they are collected or computed."""
        return self.is_lazy or self.is_dask

    def check_unchanged(self) -> None:
        for snapshot, frame in self.made:
            before = snapshot.lazy() if isinstance(frame, pl.LazyFrame) else snapshot
            assert_unchanged(before, frame)


@contextmanager
def frames_of(kind: str) -> Iterator[FrameMaker]:
    """A :class:`FrameMaker` of one kind; on exit, checks that its frames are unchanged."""
    maker = FrameMaker(kind)
    buckets = PARTS if kind == "polars-parts" else None
    with rankframe.option_context("query_buckets", buckets):
        yield maker
    maker.check_unchanged()


def chromium() -> str:
    """Chromium: RANKFRAME_CHROMIUM, else chromium or chromium-browser on the PATH (the
    Makefile's `chromium` target installs it); a missing browser is a failure, not a skip."""
    given = os.environ.get("RANKFRAME_CHROMIUM")
    found = given or shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, (
        "Chromium not found: `make chromium`, apt-get install chromium, or set RANKFRAME_CHROMIUM"
    )
    return found


def mlflow_ui(version: str) -> Path:
    """The ``mlflow`` command of the MLflow UI's venv: ``make mlflow-ui``'s .venv-mlflow-ui (the
    full ``mlflow`` package, which holds the UI's build), or the venv RANKFRAME_MLFLOW_UI names;
    of ``version``, the tests' mlflow-skinny's (one schema for the store both servers use). A
    missing one is a failure, not a skip."""
    given = os.environ.get("RANKFRAME_MLFLOW_UI")
    venv = Path(given) if given else Path(__file__).resolve().parents[1] / ".venv-mlflow-ui"
    command = venv / "bin" / "mlflow"
    assert command.exists(), f"The MLflow UI's venv {venv} is missing: `make mlflow-ui`"
    infos = venv.glob("lib/python*/site-packages/mlflow-*.dist-info")
    found = [d.name.removeprefix("mlflow-").removesuffix(".dist-info") for d in infos]
    assert found == [version], (
        f"{venv} holds mlflow {found}, the tests' MLflow is {version}: `make mlflow-ui`"
    )
    return command


# -- a judge's grades and people's (tests/statistics/test_judged_estimates.py,
# test_judge_agreement.py): per-query values from tests/reference.py -------------------------

JUDGED_METRICS = [("ndcg", 3), ("mrr", None), ("recall", 2), ("precision", 2)]
JUDGED_LABELS = ["ndcg@3", "mrr", "recall@2", "precision@2"]
JUDGED_QUERIES, N_ITEMS = 24, 5
PEOPLE = list(range(8))  # the queries every row of which people graded


def judged_frame() -> pd.DataFrame:
    """24 queries of 5 items, three systems, a judge's grades (0-2) on every row and people's
    on queries 0-7 (they disagree on a quarter of the rows); query 8 has one row graded by
    nobody among people that no system retrieves (null scores) and query 9 one ungraded
    retrieved row: both count as judged by the judge alone."""
    rng = np.random.default_rng(47)
    n = JUDGED_QUERIES * N_ITEMS
    query = np.repeat(np.arange(JUDGED_QUERIES), N_ITEMS)
    llm = rng.integers(0, 3, n).astype(float)
    human = np.where(rng.random(n) < 0.75, llm, rng.integers(0, 3, n)).astype(float)
    human[query >= 8] = np.nan
    human[(query == 8) | (query == 9)] = llm[(query == 8) | (query == 9)]
    a, b, c = (rng.permutation(n) / n for _ in range(3))
    last_of_8 = 8 * N_ITEMS + 4
    a[last_of_8] = b[last_of_8] = np.nan
    human[last_of_8] = np.nan
    human[9 * N_ITEMS + 1] = np.nan
    return pd.DataFrame(
        {
            "query": [f"q{q:02d}" for q in query],
            "item": np.tile(np.arange(N_ITEMS), JUDGED_QUERIES),
            "a": a,
            "b": b,
            "c": c,
            "llm": llm,
            "human": human,
            "theme": np.where(query % 3 == 0, "x", "y"),
        }
    )


def reference_values(data: pd.DataFrame, system: str, grade: str) -> dict[Hashable, list[float]]:
    """Per query, the metrics' values under ``grade`` (``tests/reference.py``); queries with
    a null grade under it are left out."""
    rows = [
        Row(r["query"], r["item"], None if math.isnan(r[system]) else r[system], r[grade])
        for r in data.to_dict("records")
    ]
    graded = {r.query for r in rows} - {r.query for r in rows if math.isnan(r.relevant)}
    values = per_query([r for r in rows if r.query in graded], JUDGED_METRICS)
    return {q: [v[label] for label in JUDGED_LABELS] for q, v in values.items()}


def people_and_judge(data: pd.DataFrame, system: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """People's values (Y), the judge's on the same queries (F), the judge's on the others
    (G), columns in ``JUDGED_LABELS``' order."""
    people = [f"q{q:02d}" for q in PEOPLE]
    gold, judge = reference_values(data, system, "human"), reference_values(data, system, "llm")
    assert sorted(gold) == people  # the rule: query 8 and 9 are not people's
    others = [q for q in sorted(judge) if q not in people]
    y = np.array([gold[q] for q in people])
    f = np.array([judge[q] for q in people])
    g = np.array([judge[q] for q in others])
    return y, f, g


# -- experiment trackers (MLflow, W&B) ------------------------------------------------------


def same_bits(a: Any, b: Any) -> bool:
    """Bit for bit: the same double (NaN as NaN), as a tracker must give a value back."""
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return struct.pack("<d", a) == struct.pack("<d", b)


def tracking_rows(n: int, seed: int) -> dict[str, list[Any]]:
    """n queries of four items, two systems' scores (``a``, ``b``), two themes, a day each
    (tests/output/test_mlflow*.py: what a team logs to a tracker)."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list[Any]] = {c: [] for c in ("query", "item", "a", "b", "relevant")}
    rows |= {"theme": [], "t": []}
    for q in range(n):
        for item in range(4):
            rows["query"].append(q)
            rows["item"].append(item)
            rows["a"].append(float(rng.random()))
            rows["b"].append(float(rng.random()))
            rows["relevant"].append(int(item == q % 4 or item == (q + 1) % 3))
            rows["theme"].append("news" if q % 2 else "sport")
            rows["t"].append(pd.Timestamp("2024-01-01") + pd.Timedelta(days=q))
    return rows


def tracked_cell(frame: pd.DataFrame, key: tracking.Key) -> Any:
    """The cells of a result table that a parsed tracker key names (``rankframe.tracking``:
    the key's row columns, its label, its field), as numbers (a status as its code)."""
    rows = frame
    for column, value in key.where:
        kept = rows[column].isna() if value is None else rows[column].astype(str).eq(value)
        rows = rows[kept.to_numpy(dtype=bool)]
    if "metric" in frame.columns:
        ks = rows["k"] if "k" in rows.columns else [None] * len(rows)
        labels = [tracking.long_label(m, k) for m, k in zip(rows["metric"], ks, strict=True)]
        rows = rows[np.array([label == key.label for label in labels], dtype=bool)]
        column = key.field
    else:
        column = key.label if key.field == "value" else f"{key.label}_{key.field}"
    assert len(rows) >= 1, key
    values = rows[column]
    if column == "status":
        return [tracking.STATUS_CODES[str(v)] for v in values]
    return [math.nan if pd.isna(v) else float(v) for v in values]
