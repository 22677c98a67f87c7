"""Benchmark of ``rankframe.mlflow.log``: a large ``evaluate`` result to a local MLflow server.

Usage: ``.venv/bin/python benchmarks/mlflow_log.py`` (part of ``make bench``). Writes its
section of ``benchmarks/RESULTS.md``.

The result: ``evaluate`` of six metrics ``by="segment"`` (50 segments), two systems,
``every="1w"`` over 52 weeks: 5,200 rows of six metrics and ``n_queries``, 36,400 values. It
is computed once; timed is ``log(result)`` into a fresh run of an ``mlflow server`` this
script starts on localhost (SQLite store, local artifacts, as the tests do): the values in
batches of 1,000 (``log_batch``), the table (``log_table``), its Parquet copy and the tags.
Median of ``--repeat`` logs after a warm-up. Target (issue 49): under 10 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import markers, write_section

import rankframe  # noqa: F401  (the accessor)

START, END = markers("mlflow")
METRICS = ["mrr@10", "ndcg@10", "map@10", "recall@10", "precision@5", "acc@1"]
SEGMENTS, WEEKS, QUERIES_PER_CELL, ITEMS = 50, 52, 2, 10
TARGET = 10.0


def workload(seed: int = 0) -> pd.DataFrame:
    """QUERIES_PER_CELL queries per segment and week, ITEMS items each, two systems."""
    rng = np.random.default_rng(seed)
    n_queries = SEGMENTS * WEEKS * QUERIES_PER_CELL
    n = n_queries * ITEMS
    query = np.repeat(np.arange(n_queries), ITEMS)
    cell = query // QUERIES_PER_CELL
    return pd.DataFrame(
        {
            "query": query,
            "item": np.tile(np.arange(ITEMS), n_queries),
            "a": rng.random(n),
            "b": rng.random(n),
            "relevant": np.where(rng.random(n) < 0.2, 1, 0),
            "segment": np.char.add("s", (cell % SEGMENTS).astype(str)),
            "t": pd.Timestamp("2024-01-01") + pd.to_timedelta((cell // SEGMENTS) * 7, unit="D"),
        }
    )


def start_server(root: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    command = [
        str(Path(sys.executable).parent / "mlflow"),
        "server",
        "--backend-store-uri",
        f"sqlite:///{root / 'mlflow.db'}",
        "--default-artifact-root",
        str(root / "artifacts"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
    ]
    log = (root / "server.log").open("w")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    uri = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600  # a loaded machine starts it slowly
    while True:
        try:
            with urllib.request.urlopen(f"{uri}/health", timeout=2) as answer:
                if answer.status == 200:
                    return server, uri
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.terminate()  # a server that never came up is not left behind
            server.wait(timeout=30)
            raise RuntimeError((root / "server.log").read_text())
        time.sleep(0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md")
    args = parser.parse_args()
    began = time.perf_counter()
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    import mlflow

    import rankframe.mlflow as rm

    frame = workload()
    ev = frame.rank_eval(score=["a", "b"], time="t")
    result = ev.evaluate(METRICS, by="segment", every="1w")
    n_values = len(rm.keys_of(result))
    with tempfile.TemporaryDirectory() as folder:
        server, uri = start_server(Path(folder))
        try:
            mlflow.set_tracking_uri(uri)
            times = []
            for i in range(args.repeat + 1):
                with mlflow.start_run():
                    start = time.perf_counter()
                    rm.log(result)
                    if i:  # the first: a warm-up
                        times.append(time.perf_counter() - start)
            print(times, flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
    seconds = statistics.median(times)
    lines = [
        START,
        "## MLflow: `rankframe.mlflow.log` of a large `evaluate` result",
        "",
        f"Written by `benchmarks/mlflow_log.py` (`make bench`) on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node() and 'shared machine'}, "
        f"total time of the run {time.perf_counter() - began:.0f} s. `evaluate({METRICS}, "
        f'by="segment", every="1w")` of two systems: {SEGMENTS} segments x {WEEKS} weeks, '
        f"{len(result):,} rows, {n_values:,} values (with `n_queries`). `log(result)` into a "
        f"fresh run of a local `mlflow server` (SQLite store), median of {args.repeat} after a "
        f"warm-up: values in batches of 1,000, the table, its Parquet copy, the tags. "
        f"Target: under {TARGET:.0f} s.",
        "",
        "| values | log, s | values per s |",
        "|---:|---:|---:|",
        f"| {n_values:,} | {seconds:.2f} | {n_values / seconds:,.0f} |",
        END,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("mlflow", section)


if __name__ == "__main__":
    main()
