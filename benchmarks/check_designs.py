"""Designs of the duplicate (query, item) check, each alone on 10M rows, in alternating
processes (issue 38).

    python benchmarks/check_designs.py [--size L] [--rounds 3]

Every design starts from what the check has: per row the query code (int32) and a 64-bit
hash of the item (the pandas adapter's, :func:`rankframe.engine.encoding.hash_arrow`), made
once from ``data.py``'s frame and saved for the processes. Each design answers "is there a
candidate (query, hash) pair that repeats?"; confirming candidates on the real ids costs the
same in every design and is left out. The designs:

- ``sort64`` (the engine's today): pack query | top hash bits into 64-bit keys, sort them in
  place, compare neighbours;
- ``sort32``: 32-bit keys (query | 15 hash bits at 100k queries), a sorted copy, its repeated
  values, then a table of flags indexed by the keys' low bits picks the rows with a repeated
  key (a few thousand candidates at 10M rows: 15 hash bits always collide);
- ``polars``: ``Series.n_unique`` (a hash table) over the packed 64-bit keys;
- ``table``: a NumPy open-addressing table (scatter the row numbers into 2^25 slots, gather
  them back: the rows that lost their slot are the candidates, 13% of them here);
- ``gather``: only the first step of re-using the ranking's query-grouped order, the hashes
  gathered in that order (a random gather of 10M), before any per-query work.

Each process times its design three times after a warm-up and prints the medians of wall
and CPU (``time.process_time``) seconds; the table gives each design's median over the
rounds and its ratio to ``sort64``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
DESIGNS = ("sort64", "sort32", "polars", "table", "gather")

CHILD = r"""
import json, statistics, sys, time
import numpy as np, polars as pl
from rankframe.engine.sorting import sort_keys

saved = np.load(sys.argv[1])
codes, hashes, n_queries = saved["codes"], saved["hashes"], int(saved["n_queries"])
n, qb, block = len(codes), max(int(n_queries - 1).bit_length(), 1), 1 << 15

def keys64():
    key = hashes >> np.uint64(qb)
    spare = np.empty(block, dtype=np.uint64)
    for a in range(0, n, block):
        b = min(a + block, n); m = b - a
        np.copyto(spare[:m], codes[a:b], casting="unsafe")
        spare[:m] <<= np.uint64(64 - qb)
        key[a:b] |= spare[:m]
    return key

def sort64():
    key = keys64(); sort_keys(key)
    return any((key[a + 1:b + 1] == key[a:b]).any() for a, b in
               ((a, min(a + block, n - 1)) for a in range(0, n - 1, block)))

def sort32():
    key = np.empty(n, dtype=np.uint32)
    high = np.empty(block, dtype=np.uint64); spare = np.empty(block, dtype=np.uint32)
    for a in range(0, n, block):
        b = min(a + block, n); m = b - a
        np.right_shift(hashes[a:b], np.uint64(32 + qb), out=high[:m])
        np.copyto(key[a:b], high[:m], casting="unsafe")
        np.copyto(spare[:m], codes[a:b], casting="unsafe")
        spare[:m] <<= np.uint32(32 - qb)
        key[a:b] |= spare[:m]
    ordered = key.copy(); ordered.sort()
    found = [ordered[a:b][ordered[a + 1:b + 1] == ordered[a:b]]
             for a, b in ((a, min(a + block, n - 1)) for a in range(0, n - 1, block))]
    repeated = np.unique(np.concatenate(found))
    flags = np.zeros(1 << 20, dtype=bool); flags[repeated & np.uint32((1 << 20) - 1)] = True
    slot = np.empty(block, dtype=np.intp); rows = []
    for a in range(0, n, block):
        b = min(a + block, n); m = b - a
        np.bitwise_and(key[a:b], (1 << 20) - 1, out=slot[:m], casting="unsafe")
        rows.append(np.flatnonzero(flags[slot[:m]]) + a)
    rows = np.concatenate(rows)
    return len(rows[np.isin(key[rows], repeated)])

def polars_unique():
    key = keys64()
    return pl.Series(key).n_unique() < n

def table():
    key = keys64()
    bits = 25
    slot = (key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)
    owner = np.empty(1 << bits, dtype=np.int32)
    owner[slot] = np.arange(n, dtype=np.int32)
    winner = owner[slot]
    lost = np.flatnonzero(winner != np.arange(n, dtype=np.int32))
    return bool((key[lost] == key[winner[lost]]).any()), len(lost)

order = np.random.default_rng(0).permutation(n)  # stands for the ranking's order

def gather():
    return hashes[order][:1]

run = {"sort64": sort64, "sort32": sort32, "polars": polars_unique, "table": table,
       "gather": gather}[sys.argv[2]]
run()  # warm-up
wall, cpu = [], []
for _ in range(3):
    w, c = time.perf_counter(), time.process_time()
    run()
    wall.append(time.perf_counter() - w); cpu.append(time.process_time() - c)
print(json.dumps({"wall": statistics.median(wall), "cpu": statistics.median(cpu)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="L")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    sys.path.insert(0, str(HERE))
    from data import SIZES, workload

    sys.path.insert(0, str(SRC))
    from rankframe.engine.encoding import hash_arrow

    frame = workload(*SIZES[args.size])
    codes, uniques = pd.factorize(frame["query"], sort=True)
    hashes = hash_arrow(pa.array(frame["item"].array))
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    times: dict[str, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "inputs.npz"
        np.savez(path, codes=codes.astype(np.int32), hashes=hashes, n_queries=len(uniques))
        del frame
        for _ in range(args.rounds):
            for design in DESIGNS:
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, str(path), design],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                times.setdefault(design, []).append(json.loads(done.stdout.splitlines()[-1]))
    base = {k: statistics.median(t[k] for t in times["sort64"]) for k in ("wall", "cpu")}
    print("| design | wall s | CPU s | CPU / sort64 |")
    print("|---|---:|---:|---:|")
    for design in DESIGNS:
        wall = statistics.median(t["wall"] for t in times[design])
        cpu = statistics.median(t["cpu"] for t in times[design])
        print(f"| {design} | {wall:.3f} | {cpu:.3f} | {cpu / base['cpu']:.2f} |")


if __name__ == "__main__":
    main()
