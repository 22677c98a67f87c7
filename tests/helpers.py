"""Helpers for tests: read results of any frame kind back as plain Python / pandas."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl

from rankframe import METRICS, Metric

ROOT = Path(__file__).resolve().parents[1]  # the repository
DOCS = ROOT / "docs"
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance" / "trec_eval"
SEEDS = SHARED / "seeds"

Run = Callable[..., tuple[int, str, str]]
"""The ``run`` fixture (conftest.py): ``run("trec", ...)`` → (exit status, stdout, stderr)."""


def collect(result: Any) -> Any:
    """A LazyFrame's result collected, a Dask result computed; anything else unchanged."""
    if isinstance(result, pl.LazyFrame):
        return result.collect()
    if hasattr(result, "dask") and hasattr(result, "compute"):  # any Dask collection
        computed = result.compute()
        # rank() of a shuffled frame gives each query's rows together, each row under its
        # input label: the input's order is the order of the labels
        return computed.sort_index(kind="stable") if isinstance(computed, pd.DataFrame) else (
            computed
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
    return {row[key]: {c: row[c] for c in table.columns if c != key}
            for row in table.to_dict("records")}




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
        return text[:start] + text[end + 1:]

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


def planted(ranks: dict[str, list[int]], columns: dict[str, list[Any]] | None = None, *,
            items: int = 3, prefix: str = "q") -> dict[str, list[Any]]:
    """A long frame's columns with planted reciprocal ranks: query ``i`` (``f"{prefix}{i}"``)
    holds ``items`` items, ``"r"`` its one relevant item, which the score column ``s`` ranks
    at ``ranks[s][i]`` (scores ``items, ..., 1``, no tie: its reciprocal rank is
    ``1 / ranks[s][i]``); ``columns[c][i]`` is query ``i``'s value of column ``c``."""
    columns = columns or {}
    n = len(next(iter(ranks.values())))
    out: dict[str, list[Any]] = {"query": [], "item": [], **{s: [] for s in ranks},
                                 "relevant": [], **{c: [] for c in columns}}
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
