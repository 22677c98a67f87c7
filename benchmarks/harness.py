"""The benchmark's harness: the workload, its data, and how one run is timed and measured.

The workload (the six metrics, the sizes of each section, the targets); the data of a size,
generated once (``data.make``, seeded) and cached as parquet in ``benchmarks/data/``; the
memory of a process (``/proc/self/status``: ``VmHWM`` reset before every run, freed memory
handed back first); and :func:`timed`, a warm-up then measured runs with their phases and
peak memory.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import hashlib
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from data import make

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"
RESULTS = HERE / "RESULTS.md"
SEED = 0
GIB = 2**30

METRICS = ["mrr@10", "ndcg@10", "map@100", "acc@5", "precision@10", "recall@100"]
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

Values = dict[str, float]


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


def bare(label: str) -> str:
    """A metric column's name without the options its label names: ``mrr@10(ties=first)``
    is ``mrr@10`` (the benchmarks compare values by metric)."""
    start = label.find("(")
    return label if start < 0 else label[:start] + label[label.rindex(")") + 1 :]


def means_of(result: Any) -> Values:
    """The metric means of a one-row pandas or polars result of ``evaluate``."""
    if isinstance(result, pd.DataFrame):
        row = result.iloc[0].to_dict()
    else:
        row = result.row(0, named=True)
    row = {bare(str(name)): value for name, value in row.items()}
    return {m: float(row[m]) for m in METRICS}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
