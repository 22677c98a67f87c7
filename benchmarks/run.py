"""rankframe against its peers on the issue's workload; writes benchmarks/RESULTS.md.

    python benchmarks/run.py --size S        # everything (what `make bench SIZE=S` runs)
    python benchmarks/run.py --size L --only floor,rankframe_pandas   # a partial run
    python benchmarks/run.py --worker ranx --size S --repeat 3    # one approach, prints JSON

    python benchmarks/run.py --short-lists-only   # only the scaling of many short lists:
                                                  # replaces its section of RESULTS.md
    python benchmarks/run.py --all-trec-only --size M   # only every measure of trec_eval's
                                                  # all_trec: replaces its section

A partial run (``--only``, ``--skip-shapes``, ``--skip-scaling``, ``--skip-short-lists``,
``--skip-all-trec``)
writes its report to
``benchmarks/data/RESULTS-<size>-partial.md`` and leaves RESULTS.md alone (unless
``--write-results``); its agreement check compares only the approaches it times, plus
pytrec_eval per query.

The main process generates the data once per size (seeded, ``data.make``) and caches it as
parquet in ``benchmarks/data/``. It then checks that the tools agree on the values (one
subprocess, ``--worker agree``), and times every approach in a fresh subprocess of its own:
the worker loads the data, records its resident memory, runs the approach once to warm up and
``--repeat`` times measured, end to end from the frame (building a peer's own input structures
included), and prints JSON. Peak memory comes from ``/proc/self/status``: the high-water mark
``VmHWM`` is reset before every run (``echo 5 > /proc/self/clear_refs``) and the memory resident
after loading is subtracted. Everything is reported as ratios measured within one run, because
the machine is shared and its absolute speed varies.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import hashlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from data import SIZES, make
from sections import carried_sections, markers, write_section

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"
RESULTS = HERE / "RESULTS.md"
SEED = 0
GIB = 2**30

METRICS = ["mrr@10", "ndcg@10", "map@100", "acc@5", "precision@10", "recall@100"]
# pytrec_eval's measure for each metric; its recip_rank has no cut-off (see agree()).
TREC = {
    "mrr@10": "recip_rank",
    "ndcg@10": "ndcg_cut_10",
    "map@100": "map_cut_100",
    "acc@5": "success_5",
    "precision@10": "P_10",
    "recall@100": "recall_100",
}
RANX = {
    "mrr@10": "mrr@10",
    "ndcg@10": "ndcg@10",
    "map@100": "map@100",
    "acc@5": "hit_rate@5",
    "precision@10": "precision@10",
    "recall@100": "recall@100",
}
TOLERANCE = 1e-9  # per query, rankframe vs pytrec_eval
SHAPES = ("long", "short")  # list shapes timed against their own floor
# many short lists: 1M then 5M queries x 2 items, timed for the ratio of their times
SHORT_LISTS = ("pairs-1M", "pairs-5M")
SHORT_LIST_APPROACHES = ("floor", "rankframe_pandas", "rankframe_polars")
SHORT_LIST_LIMIT = 6.0  # the time ratio for 5x the rows
# fresh processes per approach and size: on this VM the cost of a fresh page varies from
# process to process (system time 0.15-1.0 s for the same run at 5M queries)
SHORT_LIST_PROCESSES = 3
# ties="average" (expected values over the orders of tied items) against the default
AVERAGE_APPROACHES = ("rankframe_pandas", "rankframe_average")
AVERAGE_LIMIT = 1.5
# every measure of trec_eval's all_trec at once, against the six metrics and pytrec_eval
ALL_TREC_APPROACHES = ("rankframe_pandas", "rankframe_all_trec", "pytrec_eval_all_trec")
ALL_TREC_LIMIT = 3.0  # all_trec's time over the six metrics'
ALL_TREC_SPEEDUP = 30.0  # pytrec_eval's time over rankframe's, for all_trec
NOT_METRICS = ("runid", "num_q", "relstring")  # trec_eval measures that are not metrics
GEOMETRIC = ("gm_map", "gm_bpref")  # pytrec_eval's per-query value: log(max(value, 1e-5))
# trec_eval 10 turns recall levels into ranks with lround(level * R), the trec_eval 9 of
# pytrec_eval with (long)(level * R + 0.9): rankframe follows trec_eval 10 (its test outputs);
# tests/test_trec_agreement.py checks both roundings against a reference
ROUNDED_LEVELS = ("iprec_at_recall", "11pt_avg")

Values = dict[str, float]


# -- data -------------------------------------------------------------------------------------


def data_path(size: str) -> Path:
    """The parquet cache of a size; its name changes whenever data.py changes."""
    digest = hashlib.sha256((HERE / "data.py").read_bytes()).hexdigest()[:10]
    return DATA_DIR / f"{size}-seed{SEED}-{digest}.parquet"


def ensure_data(size: str) -> Path:
    path = data_path(size)
    if path.exists():
        return path
    DATA_DIR.mkdir(exist_ok=True)
    for stale in DATA_DIR.glob(f"{size}-seed{SEED}-*.parquet"):
        stale.unlink()
    started = time.perf_counter()
    frame = make(size, seed=SEED)
    partial = path.with_suffix(".partial")
    frame.to_parquet(partial, index=False)
    partial.rename(path)
    log(f"  generated {size}: {len(frame):,} rows in {time.perf_counter() - started:.1f} s")
    return path


def load_pandas(size: str) -> pd.DataFrame:
    """The pandas frame, with pandas 3 ``str`` ids as the issue's workload has."""
    frame = pd.read_parquet(data_path(size))
    for column in ("query", "item"):
        if not isinstance(frame[column].dtype, pd.StringDtype):
            frame[column] = frame[column].astype("str")
    return frame


def load_polars(size: str) -> Any:
    import polars as pl

    return pl.read_parquet(data_path(size))


def deep_size_gib(frame: Any) -> float:
    if isinstance(frame, pd.DataFrame):
        return float(frame.memory_usage(deep=True).sum()) / GIB
    return float(frame.estimated_size()) / GIB


# -- memory -----------------------------------------------------------------------------------


def proc_status(field_name: str) -> int:
    """A field of /proc/self/status in bytes (VmRSS: resident now, VmHWM: peak)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field_name)


def reset_peak() -> bool:
    """Reset VmHWM to the current resident size; False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        return False
    return True


def settle() -> int:
    """Hand freed memory back to the system, then return the resident size.

    Reading parquet leaves freed buffers in pyarrow's memory pool and in glibc's heap, which
    the allocators return later, possibly during a measured run: without this, the resident
    size after loading overstates what the input holds and the peak above it understates a
    run's extra memory.
    """
    gc.collect()
    try:
        import pyarrow

        pyarrow.default_memory_pool().release_unused()
    except ImportError:
        pass
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return proc_status("VmRSS")


# -- measuring --------------------------------------------------------------------------------


@dataclass
class Laps:
    """Phases inside one run (e.g. building pytrec_eval's dicts, then evaluating)."""

    started: float = field(default_factory=time.perf_counter)
    phases: dict[str, float] = field(default_factory=dict)

    def mark(self, phase: str) -> None:
        now = time.perf_counter()
        self.phases[phase] = self.phases.get(phase, 0.0) + now - self.started
        self.started = now


Run = Callable[[Laps], Values]


#: s: a fast approach is run more than --repeat times, until this much is measured. 5 s: at
#: size L, 3 runs of 0.65 s gave medians of rankframe between 0.54 and 0.65 s from run to run
#: (one of three runs at 0.99 s on this shared machine); 7-10 runs settle it.
MIN_TIME = 5.0
MAX_RUNS = 30


def timed(run: Run, repeat: int, baseline: int) -> dict[str, Any]:
    """Warm up once, then measured runs: times, phases, peak memory above baseline.

    At least ``repeat`` runs, more (up to MAX_RUNS) until MIN_TIME seconds are measured: the
    median of a handful of short runs on a shared machine is mostly noise.

    ``baseline`` is the resident memory after loading the input (settled): memory that a run
    leaves allocated (caches, JIT code, freed blocks an allocator keeps) counts as its extra
    memory. The peak above the resident size at the start of each run is kept too.
    """
    run(Laps())  # warm-up: imports, JIT compilation, first-touch of pages
    times: list[float] = []
    peaks: list[int] = []
    above_start: list[int] = []
    phases: dict[str, list[float]] = defaultdict(list)
    peak_reset = True
    values: Values = {}
    while len(times) < repeat or (sum(times) < MIN_TIME and len(times) < MAX_RUNS):
        start_rss = settle()
        peak_reset = reset_peak() and peak_reset
        laps = Laps()
        started = time.perf_counter()
        values = run(laps)
        times.append(time.perf_counter() - started)
        high = proc_status("VmHWM")
        peaks.append(high - baseline)
        above_start.append(high - start_rss)
        for phase, seconds in laps.phases.items():
            phases[phase].append(seconds)
    return {
        "times": times,
        "median": statistics.median(times),
        "peak_extra_gib": max(peaks) / GIB,
        "peak_above_run_start_gib": max(above_start) / GIB,
        "peak_reset": peak_reset,
        "phases": {phase: statistics.median(s) for phase, s in phases.items()},
        "values": values,
    }


def means_of(result: Any) -> Values:
    """The metric means of a one-row pandas or polars result of ``evaluate``."""
    if isinstance(result, pd.DataFrame):
        row = result.iloc[0].to_dict()
    else:
        row = result.row(0, named=True)
    return {m: float(row[m]) for m in METRICS}


# -- the approaches ---------------------------------------------------------------------------
# Each prepares its input (outside the measurement) and returns a run: frame in, means out.


def order_preserving_bits(score: np.ndarray) -> np.ndarray:
    """uint64 keys whose unsigned order is the float64 order of ``score``."""
    bits = score.view(np.uint64)
    negative = (bits >> np.uint64(63)).astype(bool)
    return np.where(negative, ~bits, bits | np.uint64(1 << 63))


def floor(size: str) -> tuple[Any, Run]:
    """The floor: factorize the query column, one np.sort of a packed (query, score) key."""
    frame = load_pandas(size)

    def run(laps: Laps) -> Values:
        codes, uniques = pd.factorize(frame["query"])
        laps.mark("factorize")
        query_bits = max(1, (len(uniques) - 1).bit_length())
        descending = ~order_preserving_bits(frame["score"].to_numpy())
        key = codes.astype(np.uint64) << np.uint64(64 - query_bits)
        key |= descending >> np.uint64(query_bits)
        np.sort(key)
        laps.mark("pack and sort")
        return {}

    return frame, run


def rankframe_pandas(size: str) -> tuple[Any, Run]:
    import rankframe  # noqa: F401  (registers .rank_eval)

    frame = load_pandas(size)
    return frame, lambda _: means_of(frame.rank_eval.evaluate(METRICS))


def rankframe_average(size: str) -> tuple[Any, Run]:
    import rankframe  # noqa: F401

    frame = load_pandas(size)
    return frame, lambda _: means_of(frame.rank_eval.evaluate(METRICS, ties="average"))


def rankframe_polars(size: str) -> tuple[Any, Run]:
    import rankframe  # noqa: F401

    frame = load_polars(size)
    return frame, lambda _: means_of(frame.rank_eval.evaluate(METRICS))


def rankframe_lazy(size: str) -> tuple[Any, Run]:
    """Scan, evaluate and collect: the data are read inside every run."""
    import polars as pl

    import rankframe  # noqa: F401

    path = data_path(size)

    def run(_: Laps) -> Values:
        lazy: Any = pl.scan_parquet(path)  # .rank_eval is registered at run time
        return means_of(lazy.rank_eval.evaluate(METRICS).collect())

    return None, run


Nested = dict[str, dict[str, Any]]


def polars_read(size: str) -> tuple[Any, Run]:
    """For reference: reading the parquet file, the part of the lazy run before the engine."""
    import polars as pl

    path = data_path(size)

    def run(_: Laps) -> Values:
        pl.read_parquet(path)
        return {}

    return None, run


def pytrec_dicts(frame: pd.DataFrame) -> tuple[Nested, Nested]:
    """qrels from every row (all rows are judged) and the run from every row (all scored)."""
    qrels: Nested = defaultdict(dict)
    run: Nested = defaultdict(dict)
    columns = (frame[c].tolist() for c in ("query", "item", "relevant", "score"))
    for query, item, grade, score in zip(*columns, strict=True):
        qrels[query][item] = grade
        run[query][item] = score
    return qrels, run


def pytrec_measures(per_query: dict[str, dict[str, float]]) -> dict[str, np.ndarray]:
    """Per metric, pytrec_eval's per-query values in sorted query order.

    ``mrr@10`` is derived from ``recip_rank``, which has no cut-off: RR@10 = RR when the first
    relevant item is at rank <= 10, i.e. when 1/rank >= 1/10, else 0.
    """
    queries = sorted(per_query)
    out = {m: np.array([per_query[q][TREC[m]] for q in queries]) for m in METRICS}
    out["mrr"] = out["mrr@10"]
    out["mrr@10"] = np.where(out["mrr"] >= 1 / 10, out["mrr"], 0.0)
    return out


def pytrec_eval_run(size: str) -> tuple[Any, Run]:
    import pytrec_eval

    frame = load_pandas(size)
    measures = {"recip_rank", "ndcg_cut.10", "map_cut.100", "success.5", "P.10", "recall.100"}

    def run(laps: Laps) -> Values:
        qrels, trec_run = pytrec_dicts(frame)
        laps.mark("build dicts")
        per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(trec_run)
        laps.mark("evaluate")
        return {m: float(v.mean()) for m, v in pytrec_measures(per_query).items() if m in METRICS}

    return frame, run


def all_trec_measures() -> list[str]:
    """The printed names of every measure of trec_eval's ``-m all_trec`` that is a metric
    (``P_5``, ``iprec_at_recall_0.10``, ``gm_map``, ...), as rankframe's metric strings."""
    from rankframe.trec import parse_trec_measures

    return [name for measure, params in parse_trec_measures(["all_trec"])
            if measure.kind == "metric" for name in measure.line_names(params)]


def rankframe_all_trec(size: str) -> tuple[Any, Run]:
    """Every measure of all_trec in one ``evaluate`` (their `all` values)."""
    import rankframe  # noqa: F401

    frame = load_pandas(size)
    metrics = all_trec_measures()

    def run(_: Laps) -> Values:
        frame.rank_eval.evaluate(metrics)
        return {}

    return frame, run


def pytrec_eval_all_trec(size: str) -> tuple[Any, Run]:
    """pytrec_eval's all_trec from the same frame: its dicts, its per-query values, and the
    `all` value of each measure (the mean over queries; trec_eval's sums and geometric means
    are as cheap)."""
    import pytrec_eval

    frame = load_pandas(size)

    def run(laps: Laps) -> Values:
        qrels, trec_run = pytrec_dicts(frame)
        laps.mark("build dicts")
        per_query = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(trec_run)
        laps.mark("evaluate")
        names = list(next(iter(per_query.values())))
        table = np.array([[values[n] for n in names] for values in per_query.values()])
        table.mean(axis=0)
        laps.mark("means")
        return {}

    return frame, run


def ranx_run(size: str) -> tuple[Any, Run]:
    import ranx

    frame = load_pandas(size)

    def run(laps: Laps) -> Values:
        # ranx's from_df asserts object dtype: pandas 3 `str` ids are converted here
        objects = frame.astype({"query": object, "item": object})
        qrels = ranx.Qrels.from_df(objects, q_id_col="query", doc_id_col="item",
                                   score_col="relevant")
        ranx_run = ranx.Run.from_df(objects, q_id_col="query", doc_id_col="item",
                                    score_col="score")
        laps.mark("build Qrels and Run")
        means = ranx.evaluate(qrels, ranx_run, list(RANX.values()))
        laps.mark("evaluate")
        return {m: float(means[RANX[m]]) for m in METRICS}

    return frame, run


def torchmetrics_run(size: str) -> tuple[Any, Run]:
    import torch
    from torchmetrics import retrieval

    frame = load_pandas(size)
    metrics = {
        "mrr@10": retrieval.RetrievalMRR(top_k=10),
        "ndcg@10": retrieval.RetrievalNormalizedDCG(top_k=10),
        "map@100": retrieval.RetrievalMAP(top_k=100),
        "acc@5": retrieval.RetrievalHitRate(top_k=5),
        "precision@10": retrieval.RetrievalPrecision(top_k=10),
        "recall@100": retrieval.RetrievalRecall(top_k=100),
    }

    def run(laps: Laps) -> Values:
        indexes = torch.from_numpy(pd.factorize(frame["query"])[0].astype(np.int64))
        preds = torch.from_numpy(frame["score"].to_numpy())
        grades = torch.from_numpy(frame["relevant"].to_numpy())
        binary = grades > 0  # all but NDCG take binary targets
        laps.mark("build tensors")
        values = {}
        for name, metric in metrics.items():
            metric.reset()
            metric.update(preds, grades if name == "ndcg@10" else binary, indexes=indexes)
            values[name] = float(metric.compute())
        laps.mark("update and compute")
        return values

    return frame, run


def ir_measures_run(size: str) -> tuple[Any, Run]:
    import ir_measures
    from ir_measures import AP, RR, P, R, Success, nDCG

    frame = load_pandas(size)
    measures = {"mrr@10": RR @ 10, "ndcg@10": nDCG @ 10, "map@100": AP @ 100,
                "acc@5": Success @ 5, "precision@10": P @ 10, "recall@100": R @ 100}

    def run(laps: Laps) -> Values:
        qrels = frame[["query", "item", "relevant"]].rename(
            columns={"query": "query_id", "item": "doc_id", "relevant": "relevance"})
        ir_run = frame[["query", "item", "score"]].rename(
            columns={"query": "query_id", "item": "doc_id"})
        laps.mark("rename columns")
        means = ir_measures.calc_aggregate(list(measures.values()), qrels, ir_run)
        laps.mark("evaluate")
        return {m: float(means[measures[m]]) for m in METRICS}

    return frame, run


def apply_one_query(group: pd.DataFrame) -> pd.Series:
    """The six metrics of one query, as a user would write them (trec ties: item descending)."""
    ranked = group.sort_values(["score", "item"], ascending=False)
    grades = ranked["relevant"].to_numpy()
    relevant = grades > 0
    n_relevant = relevant.sum()
    discount = 1 / np.log2(np.arange(2, 12))
    top10 = grades[:10]
    ideal = np.sort(grades)[::-1][:10]
    idcg = (ideal * discount[: len(ideal)]).sum()
    first = np.flatnonzero(relevant[:10])
    hits = np.cumsum(relevant[:100])
    ranks = np.arange(1, len(hits) + 1)
    return pd.Series({
        "mrr@10": 1 / (first[0] + 1) if len(first) else 0.0,
        "ndcg@10": (top10 * discount[: len(top10)]).sum() / idcg if idcg > 0 else 0.0,
        "map@100": (hits / ranks)[relevant[:100]].sum() / n_relevant if n_relevant else 0.0,
        "acc@5": float(relevant[:5].any()),
        "precision@10": relevant[:10].sum() / 10,
        "recall@100": relevant[:100].sum() / n_relevant if n_relevant else 0.0,
    })


def pandas_apply(size: str) -> tuple[Any, Run]:
    frame = load_pandas(size)

    def run(_: Laps) -> Values:
        per_query = frame.groupby("query")[["item", "score", "relevant"]].apply(apply_one_query)
        return {m: float(per_query[m].mean()) for m in METRICS}

    return frame, run


@dataclass(frozen=True)
class Approach:
    label: str
    prepare: Callable[[str], tuple[Any, Run]]
    needs: tuple[str, ...] = ()  # modules that must be importable
    note: str = ""


APPROACHES = {
    "floor": Approach("floor: factorize query + one sort of a packed key", floor),
    "rankframe_pandas": Approach("rankframe, pandas", rankframe_pandas),
    "rankframe_average": Approach('rankframe, pandas, ties="average"', rankframe_average,
                                  note="expected values over the orders of tied items"),
    "rankframe_polars": Approach("rankframe, polars eager", rankframe_polars, ("polars",),
                                 "the polars frame is the user's: read outside the timing"),
    "rankframe_lazy": Approach("rankframe, polars lazy (scan_parquet)", rankframe_lazy,
                               ("polars",), "reads the parquet file inside every run"),
    "polars_read": Approach("(reference) polars read_parquet alone", polars_read, ("polars",),
                            "the reading part of the lazy row"),
    "pytrec_eval": Approach("pytrec_eval", pytrec_eval_run, ("pytrec_eval",)),
    "ranx": Approach("ranx", ranx_run, ("ranx",)),
    "torchmetrics": Approach("torchmetrics", torchmetrics_run, ("torch", "torchmetrics")),
    "ir_measures": Approach("ir_measures", ir_measures_run, ("ir_measures",)),
    "pandas_apply": Approach("pandas groupby().apply()", pandas_apply),
    "rankframe_all_trec": Approach("rankframe, pandas: every measure of trec_eval's all_trec",
                                   rankframe_all_trec),
    "pytrec_eval_all_trec": Approach("pytrec_eval: all_trec", pytrec_eval_all_trec,
                                     ("pytrec_eval",)),
}
# timed in their own section (all_trec), not in the main table
SECTION_ONLY = ("rankframe_all_trec", "pytrec_eval_all_trec")
PEERS = ("pytrec_eval", "ranx", "torchmetrics", "ir_measures", "pandas_apply")


def missing_modules(approach: Approach) -> list[str]:
    return [m for m in approach.needs if importlib.util.find_spec(m) is None]


# -- workers (one per subprocess) -------------------------------------------------------------


def measure(name: str, size: str, repeat: int) -> dict[str, Any]:
    """Load, then time one approach; the JSON a worker prints."""
    frame, run = APPROACHES[name].prepare(size)
    baseline = settle()
    result = timed(run, repeat, baseline)
    return {
        "approach": name,
        "size": size,
        "shape": SIZES[size],
        "rss_after_load_gib": baseline / GIB,
        "input_gib": None if frame is None else deep_size_gib(frame),
        "n_rows": None if frame is None else len(frame),
        **result,
    }


def measure_validation(size: str, repeat: int) -> dict[str, Any]:
    """What validation costs, two ways, on the same frame.

    Alone: the pandera schema and the duplicate-item check, each timed by itself (their CPU
    cost). In place: ``evaluate`` as shipped and ``evaluate`` with both patched out; the
    difference is what validation adds to the wall-clock time (the engine runs the duplicate
    check in a second thread beside the ranking on large frames). Uses rankframe internals:
    if they change, the worker fails and the report says "not measured".
    """
    from unittest import mock

    import rankframe
    from rankframe import _engine, schemas
    from rankframe._accessor import ColumnNames
    from rankframe.adapters import pandas as pandas_adapter
    from rankframe.adapters.pandas import PandasBackend

    frame = load_pandas(size)
    schema = rankframe.pandas_schema(check_unique=False)
    extracted = PandasBackend(frame).extract(ColumnNames(), [])  # the engine's input arrays

    def unvalidated(_: Laps) -> Values:
        # the adapter starts hashing the items (for the duplicate check) while it encodes
        # the queries: that goes too
        with (
            mock.patch.object(PandasBackend, "_validate", return_value=None),
            mock.patch.object(_engine, "unique_items_checked",
                              return_value=contextlib.nullcontext()),
            mock.patch.object(pandas_adapter, "_hash",
                              return_value=np.zeros(0, dtype=np.uint64)),
        ):
            return means_of(frame.rank_eval.evaluate(METRICS))

    def schema_alone(_: Laps) -> Values:
        schemas.validate(schema, frame)
        return {}

    def duplicates_alone(_: Laps) -> Values:
        _engine.check_unique_items(extracted, "query", "item")
        return {}

    parts: dict[str, Run] = {
        "schema": schema_alone,
        "duplicates": duplicates_alone,
        "evaluate": lambda _: means_of(frame.rank_eval.evaluate(METRICS)),
        "unvalidated": unvalidated,
    }
    baseline = settle()
    return {name: timed(run, repeat, baseline) for name, run in parts.items()}


def rankframe_per_query(frame: pd.DataFrame, ties: str) -> dict[str, np.ndarray]:
    """rankframe's per-query values in sorted query order (plus ``mrr`` without cut-off)."""
    table = frame.rank_eval.per_query([*METRICS, "mrr"], ties=ties).sort_values("query")
    return {m: table[m].to_numpy() for m in [*METRICS, "mrr"]}


TIES = ("trec", "pessimistic", "optimistic")
SLACK = 1e-6  # torchmetrics computes in float32


def tie_range(per_query: dict[str, dict[str, np.ndarray]]) -> dict[str, tuple[float, float]]:
    """Per metric, the lowest and highest mean over the tie policies."""
    means = {m: [float(values[m].mean()) for values in per_query.values()] for m in METRICS}
    return {m: (min(v), max(v)) for m, v in means.items()}


def torchmetrics_convention(frame: pd.DataFrame) -> dict[str, dict[str, np.ndarray]]:
    """rankframe's per-query values in torchmetrics' conventions, for each tie policy.

    torchmetrics (>= 1.7.4) zeroes the target of a row whose score is <= 0 for RR, AP, P and R
    (still counted in R for recall): rankframe's "judged but not retrieved", a null score.
    Its AP@k divides by the hits in the top k, not by R: AP@k * R / hits@k, which is
    map@100 / recall@100.
    """
    unretrieved = frame.assign(score=frame["score"].where(frame["score"] > 0))
    out = {}
    for ties in TIES:
        plain = rankframe_per_query(frame, ties)
        values = rankframe_per_query(unretrieved, ties)
        ap, recall = values["map@100"], values["recall@100"]
        values["map@100"] = np.divide(ap, recall, out=np.zeros_like(ap), where=recall > 0)
        values["ndcg@10"], values["acc@5"] = plain["ndcg@10"], plain["acc@5"]
        out[ties] = values
    return out


def agree(size: str, only: list[str] | None = None) -> dict[str, Any]:
    """Values of every tool on the same data, compared with rankframe's.

    pytrec_eval per query to 1e-9 (always, when installed: it is the reference). The others
    by the mean of each metric, against the range of rankframe's means under
    ``ties="pessimistic"``, ``"trec"`` and ``"optimistic"``: a peer that orders tied scores
    its own way lands inside it (for torchmetrics, rankframe's values are first put in
    torchmetrics' conventions, see :func:`torchmetrics_convention`). With ``only`` (the
    ``--only`` list), the other approaches are not compared.
    """
    import rankframe  # noqa: F401

    frame = load_pandas(size)
    per_query = {ties: rankframe_per_query(frame, ties) for ties in TIES}
    reference = {m: float(v.mean()) for m, v in per_query["trec"].items()}
    ranges = {"default": tie_range(per_query)}
    if not missing_modules(APPROACHES["torchmetrics"]) and (only is None or "torchmetrics" in only):
        ranges["torchmetrics"] = tie_range(torchmetrics_convention(frame))
    out: dict[str, Any] = {"reference": reference, "n_queries": len(per_query["trec"]["mrr"])}

    if not missing_modules(APPROACHES["pytrec_eval"]):
        import pytrec_eval

        qrels, trec_run = pytrec_dicts(frame)
        measures = {"recip_rank", "ndcg_cut.10", "map_cut.100", "success.5", "P.10", "recall.100"}
        trec = pytrec_measures(pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(trec_run))
        out["pytrec_eval_per_query"] = {
            m: float(np.abs(trec[m] - per_query["trec"][m]).max()) for m in trec
        }
        del qrels, trec_run

    for name in ("rankframe_polars", "rankframe_lazy", *PEERS):
        approach = APPROACHES[name]
        if only is not None and name not in only:
            out[name] = {"status": "not run (--only)"}
            continue
        if missing_modules(approach):
            out[name] = {"status": "not installed"}
            continue
        log(f"  agreement: {name}")
        _, run = approach.prepare(size)
        values = run(Laps())
        del run
        gc.collect()
        bounds = ranges.get(name, ranges["default"])
        out[name] = {
            "values": values,
            "diff": {m: values[m] - reference[m] for m in METRICS},
            "range": bounds,
            "within_ties": {
                m: bounds[m][0] - SLACK <= values[m] <= bounds[m][1] + SLACK for m in METRICS
            },
        }
    return out


def family(name: str) -> str:
    """The trec_eval measure of a printed name: ``P_5`` is ``P``, ``iprec_at_recall_0.10``
    is ``iprec_at_recall``."""
    root, _, parameter = name.rpartition("_")
    return root if root and parameter.replace(".", "", 1).isdigit() else name


def agree_all_trec(size: str) -> dict[str, Any]:
    """pytrec_eval's all_trec against rankframe's, per query and for `all`, by family.

    Per query: every measure with a per-query value (not the geometric means, whose
    per-query value pytrec_eval gives as a logarithm). `all`: rankframe's ``evaluate``
    against trec_eval's aggregates of pytrec_eval's per-query values (the mean; the sum of
    the ``num_*`` counts; ``exp`` of the mean of the logarithms for ``gm_map``, ``gm_bpref``).
    """
    import pytrec_eval

    from rankframe import parse_metric

    frame = load_pandas(size)
    qrels, trec_run = pytrec_dicts(frame)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(trec_run)
    del qrels, trec_run
    queries = sorted(trec)
    names = [n for n in next(iter(trec.values())) if n not in NOT_METRICS]
    column = {n: str(parse_metric(n)) for n in names}
    per_query = [n for n in names if n not in GEOMETRIC]
    ours = frame.rank_eval.per_query([column[n] for n in per_query]).set_index("query")
    ours = ours.loc[queries]
    means = frame.rank_eval.evaluate([column[n] for n in names]).iloc[0]
    families: dict[str, dict[str, float]] = {}
    for name in names:
        theirs = np.array([trec[q][name] for q in queries])
        entry = families.setdefault(family(name), {"values": 0, "per_query": 0.0, "all": 0.0})
        if name in GEOMETRIC:
            want = float(np.exp(theirs.mean()))
        else:
            want = float(theirs.sum() if name.startswith("num_") else theirs.mean())
            diff = float(np.abs(ours[column[name]].to_numpy() - theirs).max())
            entry["values"] += len(queries)
            entry["per_query"] = max(entry["per_query"], diff)
        entry["all"] = max(entry["all"], abs(float(means[column[name]]) - want))
    return {"n_queries": len(queries), "n_measures": len(names), "families": families}


def worker(args: argparse.Namespace) -> dict[str, Any]:
    warnings.filterwarnings("ignore")  # numba's and torch's chatter; results are checked
    if args.worker == "agree":
        return agree(args.size, args.only.split(",") if args.only else None)
    if args.worker == "validation":
        return measure_validation(args.size, args.repeat)
    if args.worker == "agree_all_trec":
        return agree_all_trec(args.size)
    return measure(args.worker, args.size, args.repeat)


# -- the main process -------------------------------------------------------------------------


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def spawn(name: str, size: str, repeat: int, timeout: float,
          extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run one worker in a fresh interpreter and return its JSON (or why there is none)."""
    if name in APPROACHES and (missing := missing_modules(APPROACHES[name])):
        log(f"  {name} on {size}: not installed ({', '.join(missing)})")
        return {"status": "not installed", "missing": missing}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", name,
               "--size", size, "--repeat", str(repeat), *extra]
    log(f"  {name} on {size} ...")
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        log(f"    timed out after {timeout:.0f} s")
        return {"status": f"timed out after {timeout:.0f} s"}
    if done.returncode != 0:
        log(f"    failed:\n{done.stderr[-3000:]}")
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"status": f"failed: {tail[0][:200]}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if "median" in result:
        log(f"    median {result['median']:.3f} s, peak extra {result['peak_extra_gib']:.2f} GiB"
            f" ({time.perf_counter() - started:.0f} s with loading and warm-up)")
    return result


def versions() -> dict[str, str]:
    names = ["rankframe", "numpy", "pandas", "polars", "pyarrow", "pandera",
             "pytrec-eval-terrier", "ranx", "numba", "torchmetrics", "torch", "ir-measures"]
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def machine() -> dict[str, Any]:
    cpu = "unknown"
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem_total = 0
    with open("/proc/meminfo") as info:
        for line in info:
            if line.startswith("MemTotal:"):
                mem_total = int(line.split()[1]) * 1024
    try:
        commit = subprocess.run(["git", "-C", str(HERE), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        commit = ""
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "ram_gib": mem_total / GIB,
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
        "commit": commit or "unknown",
    }


def time_short_lists(repeat: int, timeout: float) -> dict[str, dict[str, Any]]:
    """Each short-list size, each approach of SHORT_LIST_APPROACHES: its workers' JSON, from
    SHORT_LIST_PROCESSES fresh processes (:func:`of_processes`)."""
    for s in SHORT_LISTS:
        ensure_data(s)
    return {s: {n: of_processes([spawn(n, s, repeat, timeout)
                                 for _ in range(SHORT_LIST_PROCESSES)])
                for n in SHORT_LIST_APPROACHES}
            for s in SHORT_LISTS}


def of_processes(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Several workers' JSON of one approach and size as one: the median of their medians
    (``median``), each of them (``process_medians``) and every run's time; the first
    result without a median (a failure) as it is."""
    failed = next((r for r in results if "median" not in r), None)
    if failed is not None:
        return failed
    medians = [r["median"] for r in results]
    return {**results[0], "median": statistics.median(medians), "process_medians": medians,
            "times": [t for r in results for t in r["times"]]}


def section_run(name: str, args: argparse.Namespace, time_it: Callable[[], Any],
                render_it: Callable[[Any, dict[str, Any]], str], **facts: Any) -> None:
    """Time what one section of RESULTS.md reports (``time_it``) and replace that section
    (``render_it`` of the timings and the run's facts: machine, date, command, ...)."""
    started = time.perf_counter()
    info = {"machine": machine(), "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "repeat": args.repeat, "command": " ".join(sys.argv), **facts}
    timings = time_it()
    info["machine"]["load_average_end"] = os.getloadavg()
    info["elapsed_s"] = time.perf_counter() - started
    section = render_it(timings, info)
    write_section(name, section, RESULTS)
    print(section)
    log(f"wrote its section of {RESULTS}")


def short_lists_run(args: argparse.Namespace) -> None:
    """Only the scaling of many short lists: its section of RESULTS.md, replaced."""
    log(f"many short lists ({', '.join(SHORT_LISTS)}) in {DATA_DIR}")
    section_run("short-lists", args, lambda: time_short_lists(args.repeat, args.timeout),
                render_short_lists)


def ties_average_run(args: argparse.Namespace) -> None:
    """Only ties="average" against the default ties="trec": its section of RESULTS.md."""
    ensure_data(args.size)
    section_run(
        "ties-average", args,
        lambda: {n: spawn(n, args.size, args.repeat, args.timeout) for n in AVERAGE_APPROACHES},
        render_ties_average, size=args.size,
    )
def time_all_trec(size: str, repeat: int, timeout: float) -> dict[str, Any]:
    """all_trec's agreement with pytrec_eval, then each approach of ALL_TREC_APPROACHES."""
    log(f"all_trec on {size}: agreement with pytrec_eval, then timing")
    agreement = spawn("agree_all_trec", size, 1, timeout)
    timings = {n: spawn(n, size, repeat, timeout) for n in ALL_TREC_APPROACHES}
    return {"size": size, "agreement": agreement, "timings": timings,
            "n_metrics": len(all_trec_measures())}


def all_trec_run(args: argparse.Namespace) -> None:
    """Only every measure of all_trec: its section of RESULTS.md, replaced."""
    started = time.perf_counter()
    ensure_data(args.size)
    info = {"machine": machine(), "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "repeat": args.repeat, "command": " ".join(sys.argv)}
    timed_all = time_all_trec(args.size, args.repeat, args.timeout)
    info["machine"]["load_average_end"] = os.getloadavg()
    info["elapsed_s"] = time.perf_counter() - started
    DATA_DIR.mkdir(exist_ok=True)
    (DATA_DIR / f"all-trec-{args.size}.json").write_text(
        json.dumps({"info": info, **timed_all}, indent=1, default=str))
    section = render_all_trec(timed_all, info)
    write_section("all-trec", section, RESULTS)
    print(section)
    log(f"wrote its section of {RESULTS}")


def main_run(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    size = args.size
    names = args.only.split(",") if args.only else [
        n for n in APPROACHES if n not in SECTION_ONLY]
    unknown = [n for n in names if n not in APPROACHES]
    if unknown:
        raise SystemExit(f"unknown approach(es): {unknown}; known: {list(APPROACHES)}")
    extra_sizes = [] if args.skip_shapes else list(SHAPES)
    scaling = size != "S" and not args.skip_scaling
    log(f"data ({size}{', ' + ', '.join(extra_sizes) if extra_sizes else ''}"
        f"{', S for scaling' if scaling else ''}) in {DATA_DIR}")
    for s in [size, *extra_sizes, *(["S"] if scaling else [])]:
        ensure_data(s)
    info = {"machine": machine(), "versions": versions(),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "size": size, "repeat": args.repeat, "command": " ".join(sys.argv)}

    log("agreement check")
    agreement = spawn("agree", size, 1, args.timeout,
                      ("--only", args.only) if args.only else ())
    report_agreement(agreement)

    log(f"timing (warm-up + {args.repeat} runs each, every approach in a fresh process)")
    results = {name: spawn(name, size, args.repeat, args.timeout) for name in names}
    validation = spawn("validation", size, args.repeat, args.timeout)
    shapes = {s: {n: spawn(n, s, args.repeat, args.timeout)
                  for n in ("floor", "rankframe_pandas")} for s in extra_sizes}
    small = ({n: spawn(n, "S", args.repeat, args.timeout) for n in ("floor", "rankframe_pandas")}
             if scaling else {})
    short_lists = {} if args.skip_short_lists else time_short_lists(args.repeat, args.timeout)
    all_trec = {} if args.skip_all_trec else time_all_trec(size, args.repeat, args.timeout)
    info["machine"]["load_average_end"] = os.getloadavg()
    info["elapsed_s"] = time.perf_counter() - started
    raw = {"info": info, "agreement": agreement, "results": results, "validation": validation,
           "shapes": shapes, "scaling_small": small, "short_lists": short_lists,
           "all_trec": all_trec}
    DATA_DIR.mkdir(exist_ok=True)
    # a partial run (--only, --skip-*) does not replace the full report unless asked to
    partial = bool(args.only or args.skip_shapes or args.skip_short_lists or args.skip_all_trec
                   or (args.skip_scaling and size != "S"))
    suffix = "-partial" if partial else ""
    (DATA_DIR / f"results-{size}{suffix}.json").write_text(
        json.dumps(raw, indent=1, default=str))
    text = render(raw)
    out = RESULTS if not partial or args.write_results else DATA_DIR / f"RESULTS-{size}-partial.md"
    if out == RESULTS:
        out.write_text(carried_sections(text, RESULTS))
        if short_lists:  # a section of its own, which --short-lists-only replaces alone
            write_section("short-lists", render_short_lists(short_lists, info), RESULTS)
        if all_trec:  # the same, --all-trec-only
            write_section("all-trec", render_all_trec(all_trec, info), RESULTS)
    else:
        out.write_text(text + ("\n" + render_short_lists(short_lists, info) + "\n"
                               if short_lists else "")
                       + ("\n" + render_all_trec(all_trec, info) + "\n" if all_trec else ""))
    print(text)
    log(f"wrote {out} ({info['elapsed_s']:.0f} s in all)")


def report_agreement(agreement: dict[str, Any]) -> None:
    if "reference" not in agreement:
        log(f"  agreement check did not run: {agreement.get('status')}")
        return
    per_query = agreement.get("pytrec_eval_per_query")
    if per_query is not None:
        worst = max(per_query.values())
        verdict = "identical" if worst <= TOLERANCE else "DIFFERENT"
        log(f"  pytrec_eval per query: max abs diff {worst:.2e} -> {verdict}")
    for name in ("rankframe_polars", "rankframe_lazy", *PEERS):
        entry = agreement.get(name, {})
        if "diff" in entry:
            worst = max(abs(d) for d in entry["diff"].values())
            within = all(entry["within_ties"].values())
            log(f"  {name}: max abs diff of the means {worst:.2e}"
                f"{'' if within else ' (outside the range of tie orders)'}")


# -- RESULTS.md -------------------------------------------------------------------------------

EXPLANATIONS = {
    "rankframe_polars": "same engine; must be identical",
    "rankframe_lazy": "same engine; must be identical",
    "pytrec_eval": "same conventions as trec_eval. Its `recip_rank` has no cut-off: MRR@10 is "
    "compared as `recip_rank` zeroed when the first relevant item is below rank 10 (and "
    "rankframe's `mrr` is compared with `recip_rank` itself, per query)",
    "ranx": "breaks ties arbitrarily (unstable sort), not by item id: tied scores around a "
    "cut-off can swap",
    "torchmetrics": "AP@k divides by the relevant items in the top k, not by R; a score "
    "<= 0 counts as not retrieved for RR, AP, P and R; ties in an unspecified order (NDCG "
    "averages over them); float32 results",
    "ir_measures": "RR@10 comes from its msmarco provider, which breaks ties by item id "
    "ascending; the other measures come from pytrec_eval",
    "pandas_apply": "hand-written with trec ties (score, then item id, descending): identical "
    "up to floating-point summation order",
}


def fmt(value: float | None, digits: int = 2, suffix: str = "") -> str:
    return "—" if value is None else f"{value:.{digits}f}{suffix}"


def median_of(result: dict[str, Any]) -> float | None:
    return result.get("median")


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def status_of(result: dict[str, Any]) -> str:
    return str(result.get("status", "not run"))


def render(raw: dict[str, Any]) -> str:
    info, results = raw["info"], raw["results"]
    size = info["size"]
    queries, lo, hi = SIZES[size]
    floor_s = median_of(results.get("floor", {}))
    ours = median_of(results.get("rankframe_pandas", {}))
    frame_gib = results.get("floor", {}).get("input_gib") or results.get(
        "rankframe_pandas", {}).get("input_gib")
    n_rows = results.get("floor", {}).get("n_rows") or results.get(
        "rankframe_pandas", {}).get("n_rows")
    m, v = info["machine"], info["versions"]
    lines = [
        "# Benchmark results",
        "",
        "Written by `benchmarks/run.py` (`make bench SIZE=...`); do not edit by hand. "
        "How to read it: docs/performance.md.",
        "",
        f"- **Size {size}**: {queries:,} queries x {lo}-{hi} items = "
        f"{n_rows:,} rows" if n_rows else f"- **Size {size}**",
        f"- **Date**: {info['date']}; rankframe at `{m['commit']}`; "
        f"total time of the run {info['elapsed_s']:.0f} s",
        f"- **Machine**: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), "
        f"{m['ram_gib']:.1f} GiB RAM, {m['platform']}; load average "
        f"{m['load_average'][0]:.2f} at the start, {m['load_average_end'][0]:.2f} at the end "
        "(a shared machine: compare the ratios, measured in the same run)",
        "- **Versions**: " + ", ".join(f"{k} {val}" for k, val in v.items()),
        f"- **Method**: every approach in a fresh process; warm-up run excluded; median of "
        f"at least {info['repeat']} runs (more, up to {MAX_RUNS}, until {MIN_TIME:g} s are "
        "measured), end to end from the frame (building each tool's own input "
        "included); peak extra memory = highest VmHWM of a run (reset before each run) minus "
        "the resident memory after loading the input, both after handing freed memory back "
        "to the system (pyarrow's pool, malloc_trim); memory a run leaves behind counts.",
        "",
        "Workload: `evaluate(" + json.dumps(METRICS) + ")` with default options "
        '(ties="trec", validation on); string ids (pandas 3 `str`), 10% of scores rounded '
        "to 2 decimals, grades 0-3 with ~5% nonzero, 5% of queries without a relevant item, "
        "rows shuffled, every row scored.",
        "",
        f"Input frame (pandas, deep memory usage): {fmt(frame_gib, 3)} GiB.",
        "",
        "| approach | median s | runs | ratio to floor | rankframe speed-up | "
        "peak extra GiB | input GiB | phases (median s) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, approach in APPROACHES.items():
        r = results.get(name)
        if r is None:
            continue
        if "median" not in r:
            lines.append(f"| {approach.label} | {status_of(r)} | | | | | | |")
            continue
        phases = ", ".join(f"{p} {s:.2f}" for p, s in r["phases"].items())
        note = f" ({approach.note})" if approach.note else ""
        peak = fmt(r["peak_extra_gib"], 2) + ("" if r["peak_reset"] else " (upper bound)")
        lines.append(
            f"| {approach.label}{note} | {r['median']:.3f} | {len(r['times'])} | "
            f"{fmt(ratio(r['median'], floor_s), 2, 'x')} | "
            f"{fmt(ratio(r['median'], ours), 1, 'x')} | {peak} | "
            f"{fmt(r.get('input_gib'), 3)} | {phases} |"
        )
    lines += ["", "Ratio to floor = median / the floor's median; rankframe speed-up = median / "
              "rankframe (pandas)'s median.", ""]
    lines += render_agreement(raw["agreement"])
    lines += render_validation(raw["validation"])
    lines += render_shapes(raw["shapes"], raw["scaling_small"], results, size)
    lines += render_targets(raw)
    return "\n".join(lines) + "\n"


def render_agreement(agreement: dict[str, Any]) -> list[str]:
    lines = ["## Agreement (checked before timing, on the same data)", ""]
    if "reference" not in agreement:
        return [*lines, f"Not run: {status_of(agreement)}", ""]
    lines += [f"{agreement['n_queries']:,} queries. rankframe's means: "
              + ", ".join(f"{m} {agreement['reference'][m]:.6f}" for m in METRICS) + ".", ""]
    per_query = agreement.get("pytrec_eval_per_query")
    if per_query is None:
        lines += ["pytrec_eval: not installed.", ""]
    else:
        worst = max(per_query.values())
        lines += [
            f"**pytrec_eval, per query**: max abs difference {worst:.1e} "
            f"({'identical' if worst <= TOLERANCE else 'DIFFERENT'} at {TOLERANCE:g}): "
            + ", ".join(f"{m} {d:.1e}" for m, d in per_query.items())
            + ". `mrr` = rankframe's MRR without cut-off vs `recip_rank`; `mrr@10` vs "
            "`recip_rank` zeroed below rank 10 (pytrec_eval's recip_rank has no cut-off).",
            "",
        ]
    lines += ["Means: difference to rankframe per metric (peer minus rankframe). "
              "'Explained' = the peer's mean lies within the range of rankframe's means under "
              '`ties="pessimistic"`, `"trec"` and `"optimistic"` (+-1e-6), computed in the '
              "peer's conventions where they differ (torchmetrics: a score <= 0 as a null "
              "score, AP@k divided by the hits in the top k): the difference then comes from "
              "the order of tied scores and those conventions.", "",
              "| tool | " + " | ".join(METRICS) + " | max abs | explained | why |",
              "|---|" + "---:|" * len(METRICS) + "---:|---|---|"]
    for name in ("rankframe_polars", "rankframe_lazy", *PEERS):
        entry = agreement.get(name, {})
        label = APPROACHES[name].label
        if "diff" not in entry:
            lines.append(f"| {label} | {status_of(entry)} |" + " |" * (len(METRICS) + 2))
            continue
        diffs = entry["diff"]
        within = entry["within_ties"]
        outside = [m for m in METRICS if not within[m]]
        lines.append(
            f"| {label} | " + " | ".join(f"{diffs[m]:+.1e}" for m in METRICS)
            + f" | {max(abs(d) for d in diffs.values()):.1e} | "
            + ("yes" if not outside else "no: " + ", ".join(outside))
            + f" | {EXPLANATIONS.get(name, '')} |"
        )
    return [*lines, ""]


def validation_shares(validation: dict[str, Any]) -> tuple[float, float] | None:
    """(wall-clock share, CPU share) of validation in evaluate, or None if not measured."""
    if "evaluate" not in validation:
        return None
    medians = {part: validation[part]["median"] for part in validation}
    evaluate = medians["evaluate"]
    wall = (evaluate - medians["unvalidated"]) / evaluate
    return wall, (medians["schema"] + medians["duplicates"]) / evaluate


def render_validation(validation: dict[str, Any]) -> list[str]:
    lines = ["## What validation costs", ""]
    shares = validation_shares(validation)
    if shares is None:
        return [*lines, f"Not measured: {status_of(validation)}", ""]
    medians = {part: validation[part]["median"] for part in validation}
    evaluate = medians["evaluate"]

    def row(label: str, seconds: float) -> str:
        return f"| {label} | {seconds:.3f} | {seconds / evaluate:.0%} |"

    lines += [
        "Medians on the same frame, as a share of the whole `evaluate`:", "",
        "| measured | median s | share of evaluate |", "|---|---:|---:|",
        row("`evaluate` as shipped (validation on)", evaluate),
        row("`evaluate` with the schema and the duplicate check patched out",
            medians["unvalidated"]),
        row("**validation in place** (the difference: what the user waits for)",
            evaluate - medians["unvalidated"]),
        row("pandera schema alone (`pandas_schema(check_unique=False)`)", medians["schema"]),
        row("duplicate-item check alone (`_engine.check_unique_items`)", medians["duplicates"]),
        row("schema + duplicate check alone (their CPU time)",
            medians["schema"] + medians["duplicates"]),
        "",
        "The in-place cost is lower than the parts' sum when the engine runs the duplicate "
        "check in a second thread beside the ranking (frames of 200k rows and more); on a busy "
        "machine the second core is not free and the in-place cost approaches the sum. The "
        "difference of two medians is noisy on small sizes.",
        "",
    ]
    return lines


def render_shapes(shapes: dict[str, Any], small: dict[str, Any], results: dict[str, Any],
                  size: str) -> list[str]:
    lines = ["## List shapes and scaling", ""]
    if shapes:
        lines += ["Each shape against its own floor:", "",
                  "| shape | rows | floor s | rankframe s | ratio to floor | peak extra GiB | "
                  "input GiB |", "|---|---:|---:|---:|---:|---:|---:|"]
        for shape, runs in shapes.items():
            queries, lo, hi = SIZES[shape]
            f, r = runs["floor"], runs["rankframe_pandas"]
            items = f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"
            lines.append(
                f"| {shape}: {queries:,} queries x {items} items | "
                f"{r.get('n_rows') or 0:,} | {fmt(median_of(f), 3)} | {fmt(median_of(r), 3)} | "
                f"{fmt(ratio(median_of(r), median_of(f)), 2, 'x')} | "
                f"{fmt(r.get('peak_extra_gib'), 2)} | {fmt(r.get('input_gib'), 3)} |")
        lines.append("")
    if small:
        big = results.get("rankframe_pandas", {})
        little = small["rankframe_pandas"]
        rows = ratio(big.get("n_rows"), little.get("n_rows"))
        time_ratio = ratio(median_of(big), median_of(little))
        floor_ratio = ratio(median_of(results.get("floor", {})), median_of(small["floor"]))
        lines += [
            f"Scaling: rankframe (pandas) takes {fmt(median_of(little), 3)} s on S "
            f"({little.get('n_rows') or 0:,} rows) and {fmt(median_of(big), 3)} s on {size} "
            f"({big.get('n_rows') or 0:,} rows): {fmt(time_ratio, 1)}x the time for "
            f"{fmt(rows, 1)}x the rows (the floor: {fmt(floor_ratio, 1)}x).",
            "",
        ]
    else:
        lines += ["Scaling (S to L): run with SIZE=M or L, which also times S.", ""]
    return lines


def render_short_lists(short_lists: dict[str, dict[str, Any]], info: dict[str, Any]) -> str:
    """The section of RESULTS.md on many short lists: each approach's time on 1M and 5M
    queries x 2 items, their ratio, and the target."""
    start, end = markers("short-lists")
    first, last = (short_lists[s] for s in SHORT_LISTS)
    rows = {s: next((r["n_rows"] for r in short_lists[s].values() if r.get("n_rows")), None)
            for s in SHORT_LISTS}
    names = [f"{SIZES[s][0]:,} queries x {SIZES[s][1]} items s" for s in SHORT_LISTS]
    m = info["machine"]
    lines = [
        start,
        "## Many short lists: scaling",
        "",
        "Written by `benchmarks/run.py` (every full run; `--short-lists-only` replaces this "
        "section alone); do not edit by hand. How to read it: docs/performance.md.",
        "",
        f"- **Date**: {info['date']}; rankframe at `{m['commit']}`; `{info['command']}`; "
        f"{info['elapsed_s']:.0f} s; load average {m['load_average'][0]:.2f} at the start, "
        f"{m['load_average_end'][0]:.2f} at the end",
        "- **Workload**: the workload of the main table (six metrics, default options) on "
        f"{SIZES[SHORT_LISTS[0]][0]:,} then {SIZES[SHORT_LISTS[1]][0]:,} queries x 2 items; "
        "the query ids `q0`-`q999999` have 2-7 bytes, then up to 8 (`q4999999`)",
        f"- **Method**: {SHORT_LIST_PROCESSES} fresh processes per approach and size (the "
        "cost of fresh memory pages varies from process to process on this machine), each as "
        f"in the main table: warm-up excluded, median of at least {info['repeat']} runs; a "
        "time is the median of the processes' medians (each in the last column)",
        "",
        f"| approach | {names[0]} | {names[1]} | time ratio for "
        f"{fmt(ratio(rows[SHORT_LISTS[1]], rows[SHORT_LISTS[0]]), 1)}x the rows | "
        "each process's median s |",
        "|---|---:|---:|---:|---|",
    ]
    for name in SHORT_LIST_APPROACHES:
        a, b = median_of(first.get(name, {})), median_of(last.get(name, {}))
        shown = [fmt(v, 3) if v is not None else status_of(r.get(name, {}))
                 for v, r in ((a, first), (b, last))]
        each = "; ".join(
            " / ".join(fmt(v, 3) for v in r.get(name, {}).get("process_medians", []))
            for r in (first, last)
        )
        lines.append(f"| {APPROACHES[name].label} | {shown[0]} | {shown[1]} | "
                     f"{fmt(ratio(b, a), 1, 'x')} | {each} |")
    lines += ["", "| target | measured | verdict |", "|---|---:|---|"]
    lines += [f"| {label} | {value} | {verdict} |"
              for label, value, verdict in short_list_targets(short_lists)]
    return "\n".join([*lines, end])


def render_ties_average(results: dict[str, Any], info: dict[str, Any]) -> str:
    """The section of RESULTS.md on ties="average": its time against ties="trec"'s on the
    main workload, the means of both, and the target."""
    start, end = markers("ties-average")
    m = info["machine"]
    queries, lo, hi = SIZES[info["size"]]
    rows = next((r["n_rows"] for r in results.values() if r.get("n_rows")), None)
    lines = [
        start,
        '## ties="average" against ties="trec"',
        "",
        "Written by `benchmarks/run.py --ties-average-only` (the main table has the same row "
        "after a full run); do not edit by hand.",
        "",
        f"- **Date**: {info['date']}; rankframe at `{m['commit']}`; `{info['command']}`; "
        f"{info['elapsed_s']:.0f} s; load average {m['load_average'][0]:.2f} at the start, "
        f"{m['load_average_end'][0]:.2f} at the end",
        f"- **Machine**: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), "
        f"{m['ram_gib']:.1f} GiB RAM",
        f"- **Workload**: the main table's (`evaluate` of the six metrics) on size "
        f"{info['size']}: {queries:,} queries x {lo}-{hi} items = {rows or 0:,} rows, 10% of "
        "the scores rounded to 2 decimals (ties)",
        f"- **Method**: as in the main table: a fresh process per approach, warm-up excluded, "
        f"median of at least {info['repeat']} runs",
        "",
        "| approach | median s | runs | ratio to ties=\"trec\" | peak extra GiB | "
        + " | ".join(METRICS) + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(METRICS),
    ]
    base = median_of(results.get("rankframe_pandas", {}))
    for name in AVERAGE_APPROACHES:
        r = results.get(name, {})
        median = median_of(r)
        values = r.get("values", {})
        shown = fmt(median, 3) if median is not None else status_of(r)
        lines.append(
            f"| {APPROACHES[name].label} | {shown} | {len(r.get('times', []))} | "
            f"{fmt(ratio(median, base), 2, 'x')} | {fmt(r.get('peak_extra_gib'), 2)} | "
            + " | ".join(fmt(values.get(metric), 6) for metric in METRICS) + " |"
        )
    label, value, verdict = ties_average_target(results)
    lines += ["", "| target | measured | verdict |", "|---|---:|---|",
              f"| {label} | {value} | {verdict} |"]
    return "\n".join([*lines, end])


def ties_average_target(results: dict[str, Any]) -> tuple[str, str, str]:
    """The target row of ties="average": at most AVERAGE_LIMIT times ties="trec"'s time."""
    label = f'ties="average" <= {AVERAGE_LIMIT:g}x the time of the default ties="trec" (pandas)'
    value = ratio(*(median_of(results.get(n, {})) for n in reversed(AVERAGE_APPROACHES)))
    verdict = "not measured" if value is None else (
        "pass" if value <= AVERAGE_LIMIT else "FAIL")
    return label, fmt(value, 2, "x"), verdict


def render_all_trec(data: dict[str, Any], info: dict[str, Any]) -> str:
    """The section of RESULTS.md on every measure of all_trec at once: the six-metric
    evaluate, all_trec's evaluate and pytrec_eval's all_trec, their agreement, the targets."""
    start, end = markers("all-trec")
    size, timings, agreement = data["size"], data["timings"], data["agreement"]
    queries, lo, hi = SIZES[size]
    six, every, theirs = (median_of(timings.get(n, {})) for n in ALL_TREC_APPROACHES)
    m = info["machine"]
    lines = [
        start,
        "## Every measure of trec_eval's all_trec at once",
        "",
        "Written by `benchmarks/run.py` (every full run; `--all-trec-only` replaces this "
        "section alone); do not edit by hand. How to read it: docs/performance.md.",
        "",
        f"- **Size {size}**: {queries:,} queries x {lo}-{hi} items, the main table's "
        f"workload; **date** {info['date']}; rankframe at `{m['commit']}`; "
        f"`{info['command']}`; {info['elapsed_s']:.0f} s",
        f"- **Machine**: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), "
        f"{m['ram_gib']:.1f} GiB RAM; load average {m['load_average'][0]:.2f} at the start, "
        f"{m['load_average_end'][0]:.2f} at the end (shared: compare the ratios)",
        f"- **Workload**: `evaluate` of the {data['n_metrics']} metrics that trec_eval's "
        "`-m all_trec` prints (`P_5` ... `unj_20`, `gm_map`, the `num_*` counts; not `runid`, "
        "`num_q`, `relstring`), against the main table's six-metric `evaluate`, and against "
        "pytrec_eval's `all_trec` from the same frame (its dicts built inside the timing, "
        "then the mean of each measure); pytrec_eval lacks rbp, rbp_resid and unj, which "
        "rankframe computes on top",
        "- **Method**: as in the main table: a fresh process per approach, warm-up "
        f"excluded, median of at least {info['repeat']} runs",
        "",
        "| approach | median s | runs | time / six metrics | peak extra GiB | "
        "phases (median s) |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name in ALL_TREC_APPROACHES:
        r = timings.get(name, {})
        label = APPROACHES[name].label
        if "median" not in r:
            lines.append(f"| {label} | {status_of(r)} | | | | |")
            continue
        phases = ", ".join(f"{p} {v:.2f}" for p, v in r["phases"].items())
        lines.append(f"| {label} | {r['median']:.3f} | {len(r['times'])} | "
                     f"{fmt(ratio(r['median'], six), 2, 'x')} | "
                     f"{fmt(r['peak_extra_gib'], 2)} | {phases} |")
    lines += ["", "Agreement with pytrec_eval (before timing, same data): the largest "
              "absolute difference per query and of the `all` value (trec_eval's aggregate of "
              "pytrec_eval's per-query values), per measure family.", ""]
    families = agreement.get("families")
    worst = None
    if families is None:
        lines.append(f"Not run: {status_of(agreement)}")
    else:
        worst = max(max(e["per_query"], e["all"]) for name, e in families.items()
                    if name not in ROUNDED_LEVELS)
        lines += [f"{agreement['n_queries']:,} queries, {agreement['n_measures']} measures.", "",
                  "| family | values compared per query | max abs diff per query | "
                  "max abs diff of `all` | note |", "|---|---:|---:|---:|---|"]
        lines += [f"| {name} | {int(e['values']):,} | {e['per_query']:.1e} | {e['all']:.1e} | "
                  + ("trec_eval 9's rounding in pytrec_eval (below) |"
                     if name in ROUNDED_LEVELS else " |")
                  for name, e in families.items()]
        lines += ["", f"{' and '.join(ROUNDED_LEVELS)}: trec_eval 10 turns a recall level into "
                  "a number of relevant documents with `lround(level * R)`, the trec_eval 9 "
                  "that pytrec_eval bundles with `(long)(level * R + 0.9)`; rankframe follows "
                  "trec_eval 10, whose own test outputs it matches. "
                  "`tests/test_trec_agreement.py` checks a reference written from trec_eval's "
                  "code against both: trec_eval 9's rounding gives pytrec_eval's values, "
                  "trec_eval 10's gives rankframe's. They are left out of the verdict below."]
    speedup = ratio(theirs, every)
    cost = ratio(every, six)
    rows = [
        (f"all_trec at once <= {ALL_TREC_LIMIT:g}x the six-metric evaluate", fmt(cost, 2, "x"),
         "not measured" if cost is None else "pass" if cost <= ALL_TREC_LIMIT else "FAIL"),
        (f">= {ALL_TREC_SPEEDUP:g}x faster than pytrec_eval on all_trec", fmt(speedup, 1, "x"),
         "not measured" if speedup is None else
         "pass" if speedup >= ALL_TREC_SPEEDUP else "FAIL"),
        (f"identical to pytrec_eval (per query and `all`, {TOLERANCE:g})",
         "—" if worst is None else f"{worst:.1e}",
         "not measured" if worst is None else "pass" if worst <= TOLERANCE else "FAIL"),
    ]
    note = "" if size == "L" else f" Measured on size {size}; the targets are for size L."
    lines += ["", f"Targets, computed from the numbers above.{note}", "",
              "| target | measured | verdict |", "|---|---:|---|"]
    lines += [f"| {label} | {value} | {verdict} |" for label, value, verdict in rows]
    return "\n".join([*lines, end])


def short_list_targets(short_lists: dict[str, dict[str, Any]]) -> list[tuple[str, str, str]]:
    """The target row of the short lists' scaling (rankframe, pandas)."""
    label = (f"many short lists: 1M -> 5M queries x 2 items costs <= {SHORT_LIST_LIMIT:g}x "
             "the time (pandas)")
    if not short_lists:
        return [(label, "—", "not measured (--skip-short-lists)")]
    first, last = (median_of(short_lists[s].get("rankframe_pandas", {})) for s in SHORT_LISTS)
    value = ratio(last, first)
    verdict = "not measured" if value is None else (
        "pass" if value <= SHORT_LIST_LIMIT else "FAIL")
    return [(label, fmt(value, 1, "x"), verdict)]


def render_targets(raw: dict[str, Any]) -> list[str]:
    results, agreement, validation = raw["results"], raw["agreement"], raw["validation"]
    size = raw["info"]["size"]
    floor_s = median_of(results.get("floor", {}))
    ours = median_of(results.get("rankframe_pandas", {}))

    def check(measured: float | None, limit: float, at_least: bool = False) -> str:
        if measured is None:
            return "not measured"
        ok = measured >= limit if at_least else measured <= limit
        return "pass" if ok else "FAIL"

    rows: list[tuple[str, str, str]] = []

    def to_floor(name: str, limit: float, label: str) -> None:
        value = ratio(median_of(results.get(name, {})), floor_s)
        rows.append((label, fmt(value, 2, "x"), check(value, limit)))

    to_floor("rankframe_pandas", 2.0, "pandas input <= 2.0x the floor")
    to_floor("rankframe_polars", 2.0, "polars eager input <= 2.0x the floor")
    to_floor("rankframe_lazy", 2.0, "polars LazyFrame on scan_parquet: <= 2.0x the floor")
    for name, limit in (("pytrec_eval", 20.0), ("ranx", 40.0), ("torchmetrics", 40.0)):
        value = ratio(median_of(results.get(name, {})), ours)
        rows.append((f">= {limit:.0f}x faster than {name}", fmt(value, 1, "x"),
                     check(value, limit, at_least=True)))
    per_query = agreement.get("pytrec_eval_per_query")
    worst = max(per_query.values()) if per_query else None
    rows.append((f"values identical to pytrec_eval's (per query, {TOLERANCE:g})",
                 fmt(worst, 1) if worst is None else f"{worst:.1e}", check(worst, TOLERANCE)))
    r = results.get("rankframe_pandas", {})
    peak, frame = r.get("peak_extra_gib"), r.get("input_gib")
    rows.append(("peak extra memory during evaluate <= the input frame's deep size",
                 f"{fmt(peak, 2)} GiB vs {fmt(frame, 2)} GiB", check(ratio(peak, frame), 1.0)))
    small = raw["scaling_small"]
    if small and size == "L":
        value = ratio(ours, median_of(small["rankframe_pandas"]))
        rows.append(("scaling 1M -> 10M rows costs <= 12x the time", fmt(value, 1, "x"),
                     check(value, 12.0)))
    else:
        rows.append(("scaling 1M -> 10M rows costs <= 12x the time", "—",
                     "not measured (needs SIZE=L)"))
    for shape, runs in raw["shapes"].items():
        value = ratio(median_of(runs["rankframe_pandas"]), median_of(runs["floor"]))
        rows.append((f"{shape} lists within 2.5x their floor", fmt(value, 2, "x"),
                     check(value, 2.5)))
    rows += short_list_targets(raw.get("short_lists", {}))
    rows.append(ties_average_target(results))
    shares = validation_shares(validation)
    rows.append((
        "validation (schema + duplicate check) <= 25% of the total (in place; parts alone)",
        "—" if shares is None else f"{shares[0]:.0%}; {shares[1]:.0%}",
        check(None if shares is None else shares[0], 0.25),
    ))
    note = "" if size == "L" else (
        f" Measured on size {size}; the issue's targets are for size L (10M rows).")
    lines = ["## Targets", "", f"Computed from the numbers above.{note}", "",
             "| target | measured | verdict |", "|---|---:|---|"]
    lines += [f"| {label} | {value} | {verdict} |" for label, value, verdict in rows]
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="S", choices=sorted(SIZES))
    parser.add_argument("--repeat", type=int, default=3,
                        help="at least this many measured runs (after a warm-up)")
    parser.add_argument("--only", help="comma-separated approaches (default: all)")
    parser.add_argument("--skip-shapes", action="store_true",
                        help="do not time the long and short list shapes")
    parser.add_argument("--skip-scaling", action="store_true",
                        help="with SIZE=M or L, do not also time S")
    parser.add_argument("--skip-short-lists", action="store_true",
                        help="do not time the scaling of many short lists (1M and 5M queries "
                        "x 2 items)")
    parser.add_argument("--short-lists-only", action="store_true",
                        help="time only the scaling of many short lists and replace its "
                        "section of RESULTS.md")
    parser.add_argument("--ties-average-only", action="store_true",
                        help='time only ties="average" against ties="trec" at --size and '
                        "replace its section of RESULTS.md")
    parser.add_argument("--skip-all-trec", action="store_true",
                        help="do not time every measure of trec_eval's all_trec")
    parser.add_argument("--all-trec-only", action="store_true",
                        help="time only every measure of all_trec (at --size) and replace its "
                        "section of RESULTS.md")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per worker")
    parser.add_argument("--write-results", action="store_true",
                        help="write RESULTS.md even for a partial run (--only, --skip-*); by "
                        "default a partial run writes data/RESULTS-<size>-partial.md")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.worker:
        print(json.dumps(worker(args), default=float))
    elif args.short_lists_only:
        short_lists_run(args)
    elif args.ties_average_only:
        ties_average_run(args)
    elif args.all_trec_only:
        all_trec_run(args)
    else:
        main_run(args)


if __name__ == "__main__":
    main()
