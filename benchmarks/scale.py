"""Scaling out: rankframe on a partitioned parquet dataset larger than a Dask worker's memory.

``make bench-scale`` (``python benchmarks/scale.py``) writes the dataset once (50M rows by
default, into ``benchmarks/data/scale-<rows>/``), then times ``evaluate`` on it, every path
in a fresh process:

- pandas, in memory: ``pd.read_parquet`` of the whole dataset, then the accessor;
- polars eager: ``pl.read_parquet``, then the namespace;
- polars streaming: ``pl.scan_parquet(...).rank_eval.evaluate(...).collect(engine="streaming")``:
  the plan runs the engine on ``ceil(rows / rows_per_part)`` parts of whole queries (4 at
  50M rows), one at a time; ``--paths polars-streaming-one-part`` also times it with
  ``set_option("query_buckets", 1)`` (the engine sees every row at once);
- Dask on a ``LocalCluster`` of 2 worker processes with a memory limit of 4 GiB each:
  ``dd.read_parquet(...).rank_eval.evaluate(...).compute()``, on the dataset whose queries
  are spread over many files (shuffled on the query column), and on the same rows written
  partitioned by query (``read_parquet(index="query", calculate_divisions=True)``: no shuffle).

The dataset is ``benchmarks/data.py``'s workload, generated in chunks of 50,000 queries so
that generating it fits in memory. Scattered copy: each chunk's rows (in random order) are
cut into 10 files, so every query's rows lie in ~10 files. By-query copy: each chunk sorted by
query and cut into 10 files at query boundaries.

Peak memory is each process's ``VmHWM`` (peak resident set) from ``/proc/<pid>/status``: the
worker processes' (through ``client.run``) and the client's (which also runs the scheduler).
The results go between the ``<!-- scale:start -->`` and ``<!-- scale:end -->`` markers of
``benchmarks/RESULTS.md``; the rest of that file is ``benchmarks/run.py``'s.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from sections import markers, write_section

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"
RESULTS = HERE / "RESULTS.md"
START, END = markers("scale")

METRICS = ["mrr@10", "ndcg@10", "map@100", "acc@5", "precision@10", "recall@100"]
CHUNK_QUERIES = 50_000  # ~5M rows: one chunk of the workload in memory at a time
FILES_PER_CHUNK = 10
WORKERS, WORKER_MEMORY = 2, "4GiB"
GIB = 2**30

PATHS = {  # name: description in the table
    "pandas": "pandas, in memory (`pd.read_parquet`, then the accessor)",
    "polars": "polars eager (`pl.read_parquet`, then the namespace)",
    "polars-streaming": 'polars streaming (`scan_parquet`, `collect(engine="streaming")`)',
    "polars-streaming-one-part": "polars streaming in one part (`query_buckets` = 1)",
    "dask": f"Dask, {WORKERS} workers x {WORKER_MEMORY}, queries spread over files (shuffle)",
    "dask-by-query": f"Dask, {WORKERS} workers x {WORKER_MEMORY}, files partitioned by query "
    "(no shuffle)",
}

DEFAULT_PATHS = [name for name in PATHS if name != "polars-streaming-one-part"]


def log(message: str) -> None:
    print(f"[scale {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def vmhwm(pid: int | str = "self") -> int:
    """Peak resident set of a process, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/status")  # pragma: no cover - Linux only


# -- the dataset ------------------------------------------------------------------------------


def generate(root: Path, rows: int) -> dict[str, Any]:
    """Write both copies of the dataset (if not there yet); their description."""
    import pandas as pd

    sys.path.insert(0, str(HERE))
    from data import workload

    info_file = root / "info.json"
    if info_file.exists():
        info: dict[str, Any] = json.loads(info_file.read_text())
        return info
    chunks = max(1, round(rows / 100 / CHUNK_QUERIES))  # 50-150 items: ~100 rows per query
    (root / "scattered").mkdir(parents=True, exist_ok=True)
    (root / "by-query").mkdir(parents=True, exist_ok=True)
    n_rows = 0
    for c in range(chunks):
        log(f"generating chunk {c + 1}/{chunks}")
        frame = workload(CHUNK_QUERIES, 50, 150, seed=c)
        frame["query"] = f"c{c:03d}-" + frame["query"]  # ids unique over the chunks
        n_rows += len(frame)
        # rows in random order (as generated): each file gets a slice of every query
        for i, part in enumerate(np.array_split(np.arange(len(frame)), FILES_PER_CHUNK)):
            frame.iloc[part].to_parquet(
                root / "scattered" / f"part-{c:03d}-{i:02d}.parquet", index=False
            )
        # sorted by query and cut at query boundaries: each file holds whole queries
        frame = frame.sort_values(["query", "item"], ignore_index=True)
        codes = pd.factorize(frame["query"])[0]
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        targets = np.linspace(0, len(frame), FILES_PER_CHUNK + 1)[1:-1]
        at = np.minimum(np.searchsorted(starts, targets), len(starts) - 1)
        cuts = sorted({0, *starts[at].tolist(), len(frame)})  # at query starts, each once
        for i, (a, b) in enumerate(itertools.pairwise(cuts)):
            frame.iloc[a:b].to_parquet(
                root / "by-query" / f"part-{c:03d}-{i:02d}.parquet", index=False
            )
        del frame
    info = {
        "rows": n_rows,
        "queries": chunks * CHUNK_QUERIES,
        "files": chunks * FILES_PER_CHUNK,
        "bytes_scattered": sum(p.stat().st_size for p in (root / "scattered").iterdir()),
    }
    info_file.write_text(json.dumps(info))
    return info


# -- one path, in a child process -------------------------------------------------------------


def run_pandas(root: Path) -> dict[str, Any]:
    import pandas as pd

    import rankframe  # noqa: F401

    started = time.perf_counter()
    frame = pd.read_parquet(root / "scattered")
    read = time.perf_counter()
    result = frame.rank_eval.evaluate(METRICS)
    done = time.perf_counter()
    return {
        "seconds": done - started,
        "phases": {"read": read - started, "evaluate": done - read},
        "peak": {"process": vmhwm()},
        "result": result.iloc[0].to_dict(),
    }


def run_polars(root: Path, *, streaming: bool, parts: int | None = None) -> dict[str, Any]:
    import polars as pl

    import rankframe
    from rankframe.adapters import polars as adapter

    if parts is not None:
        rankframe.set_option("query_buckets", parts)
    files = str(root / "scattered" / "*.parquet")
    started = time.perf_counter()
    if streaming:
        plan = pl.scan_parquet(files).rank_eval.evaluate(METRICS)
        result = plan.collect(engine="streaming")
        phases: dict[str, float] = {}
    else:
        frame = pl.read_parquet(files)
        read = time.perf_counter()
        result = frame.rank_eval.evaluate(METRICS)
        phases = {"read": read - started, "evaluate": time.perf_counter() - read}
    done = time.perf_counter()
    return {
        "seconds": done - started,
        "phases": phases,
        "peak": {"process": vmhwm()},
        "result": result.row(0, named=True),
        "parts": adapter._part_count(pl.scan_parquet(files)) if streaming else None,
    }


def _worker_state(dask_worker: Any) -> dict[str, Any]:
    """Run on each worker: its peak memory and what it spilled to disk."""
    spilled = getattr(dask_worker.data, "spilled_total", None)
    return {"vmhwm": vmhwm(), "spilled_bytes": int(spilled.disk) if spilled else 0}


def run_dask(root: Path, *, by_query: bool) -> dict[str, Any]:
    import dask.dataframe as dd
    import distributed

    import rankframe  # noqa: F401

    with (
        distributed.LocalCluster(
            n_workers=WORKERS,
            threads_per_worker=1,
            processes=True,
            memory_limit=WORKER_MEMORY,
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        workers = sorted(client.scheduler_info()["workers"])
        started = time.perf_counter()
        if by_query:
            frame = dd.read_parquet(root / "by-query", index="query", calculate_divisions=True)
            assert frame.known_divisions, "the by-query files should give divisions"
        else:
            frame = dd.read_parquet(root / "scattered")
        result = frame.rank_eval.evaluate(METRICS).compute()
        done = time.perf_counter()
        states = client.run(_worker_state)
        restarted = sorted(client.scheduler_info()["workers"]) != workers
        partitions = frame.npartitions
    peak = {f"worker {i + 1}": s["vmhwm"] for i, s in enumerate(states.values())}
    peak["client + scheduler"] = vmhwm()
    return {
        "seconds": done - started,
        "phases": {},
        "peak": peak,
        "spilled_bytes": sum(s["spilled_bytes"] for s in states.values()),
        "workers_restarted": restarted,
        "partitions": partitions,
        "result": result.iloc[0].to_dict(),
    }


def child(name: str, root: Path) -> None:
    if name == "pandas":
        out = run_pandas(root)
    elif name == "polars":
        out = run_polars(root, streaming=False)
    elif name.startswith("polars-streaming"):
        out = run_polars(root, streaming=True, parts=1 if name.endswith("one-part") else None)
    else:
        out = run_dask(root, by_query=name == "dask-by-query")
    print(json.dumps(out, default=float))


def spawn(name: str, root: Path, timeout: float) -> dict[str, Any]:
    log(f"running {name}")
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--child", name, "--data", str(root)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return {"error": f"exit code {done.returncode}: {tail[0]}"}
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    log(f"{name}: {out['seconds']:.1f} s")
    return out


# -- RESULTS.md -------------------------------------------------------------------------------


def _agrees(result: dict[str, Any], reference: dict[str, Any]) -> str:
    same = all(
        np.isclose(float(result[c]), float(reference[c]), rtol=1e-9, atol=0)
        for c in [*METRICS, "n_queries"]
    )
    return "yes" if same else "NO"


def render(info: dict[str, Any], results: dict[str, dict[str, Any]]) -> str:
    reference = results.get("pandas", {})
    base_s = reference.get("seconds")
    base_peak = max(reference["peak"].values()) if "peak" in reference else None
    lines = [
        START,
        "## Scaling out (`make bench-scale`)",
        "",
        "Written by `benchmarks/scale.py`; do not edit by hand. See docs/scaling.md.",
        "",
        f"- **Data**: {info['rows']:,} rows, {info['queries']:,} queries x 50-150 items "
        f"(the workload above), {info['files']} parquet files "
        f"({info['bytes_scattered'] / GIB:.2f} GiB); in the shuffled copy every query's rows "
        f"lie in ~{FILES_PER_CHUNK} files, the by-query copy holds whole queries per file",
        f"- **Workload**: `evaluate({METRICS})`, default options",
        f"- **Date**: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: "
        f"{os.cpu_count()} cores, "
        f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / GIB:.1f} GiB RAM, "
        f"{platform.platform()}",
        "- **Method**: each path once, in a fresh process, end to end from the parquet files "
        "(reading included); peak memory = `VmHWM` of each process",
        "",
        "| path | time s | time vs in-memory pandas | peak memory per process (GiB) "
        "| peak vs in-memory pandas | agrees with pandas |",
        "|---|---:|---:|---|---:|---|",
    ]
    for name, label in PATHS.items():
        out = results.get(name)
        if out is None:
            continue
        if "error" in out:
            lines.append(f"| {label} | failed: {out['error']} | | | | |")
            continue
        peaks = ", ".join(f"{p} {v / GIB:.2f}" for p, v in out["peak"].items())
        top = max(out["peak"].values())
        phases = ", ".join(f"{p} {s:.1f}" for p, s in out["phases"].items())
        seconds = f"{out['seconds']:.1f}" + (f" ({phases})" if phases else "")
        time_ratio = f"{out['seconds'] / base_s:.2f}x" if base_s else "—"
        peak_ratio = f"{top / base_peak:.2f}x" if base_peak else "—"
        agrees = _agrees(out["result"], reference["result"]) if reference else "—"
        lines.append(f"| {label} | {seconds} | {time_ratio} | {peaks} | {peak_ratio} | {agrees} |")
    notes = []
    eager = results.get("polars", {})
    for name in ("polars-streaming", "polars-streaming-one-part"):
        out = results.get(name, {})
        if "error" not in out and out:
            line = f"- {name}: the engine ran on {out['parts']} part(s) of whole queries"
            if "peak" in eager:
                ratio = max(out["peak"].values()) / max(eager["peak"].values())
                line += f"; peak memory {ratio:.2f}x that of polars eager"
            notes.append(line)
    for name in ("dask", "dask-by-query"):
        out = results.get(name, {})
        if "error" not in out and out:
            notes.append(
                f"- {name}: {out['partitions']} partitions; spilled to disk "
                f"{out['spilled_bytes'] / GIB:.2f} GiB; workers restarted: "
                f"{'yes' if out['workers_restarted'] else 'no'}"
            )
    lines += [
        "",
        "Peak vs in-memory pandas compares the largest process of each path with the pandas "
        "process. The client process of the Dask paths also runs the scheduler.",
        *notes,
        END,
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000_000)
    parser.add_argument(
        "--paths",
        default=",".join(DEFAULT_PATHS),
        help=f"comma-separated subset of {', '.join(PATHS)}",
    )
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.data)
        return
    root = DATA_DIR / f"scale-{args.rows}"
    info = generate(root, args.rows)
    log(f"dataset: {info['rows']:,} rows in {root}")
    results = {name: spawn(name, root, args.timeout) for name in args.paths.split(",")}
    section = render(info, results)
    write_section("scale", section, RESULTS)
    print(section)


if __name__ == "__main__":
    main()
