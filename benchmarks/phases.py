"""Where the time of six metrics on 10M rows goes, phase by phase, this checkout against
another one, in alternating processes.

    python benchmarks/phases.py --before ../before/src [--size L] [--rounds 5]

Each process loads the frame (pandas or polars, outside the timing), evaluates once to warm
up, then three times with the duplicate check run in the main thread (so that phases do not
overlap) and the engine's steps timed from outside, by wrapping functions that both trees
have:

- encode: the adapter's ``extract`` (query codes, scores, grades, the item column);
- rank: ``engine.rank``; of it, sort: from the packed keys' return to the start of the
  scan of the sorted keys (``_packed_keys`` → ``_query_starts``: the sort and nothing else);
- lists: ``engine.lists``;
- checks: ``check_unique_items``; of it, sort: ``_item_keys`` → ``_has_equal_neighbours``;
- metrics: the rest of the per-query step (the metrics' ``compute`` and the table).

It prints each phase's median over the rounds for each tree and the ratio after / before; the
end-to-end times with the check in its thread are ``before_after.py``'s.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
PHASES = ("encode", "rank", "rank: sort", "lists", "metrics", "checks", "checks: sort", "total")

CHILD = r"""
import json, statistics, sys, time
from collections import defaultdict
import pandas as pd, polars as pl
import rankframe
from rankframe.adapters import pandas as pandas_adapter, polars as polars_adapter
from rankframe.engine import checks, ranking
from rankframe.pipeline import steps

checks.THREAD_ROWS = 1 << 62  # the check in the main thread: phases do not overlap
spent = defaultdict(float)
marks = {}

def timed(owner, name, phase, *, start=None, stop=None):
    inner = getattr(owner, name)
    def wrapper(*args, **kwargs):
        began = time.perf_counter()
        if stop is not None and stop in marks:
            spent[stop.split("@")[0]] += began - marks.pop(stop)
        try:
            return inner(*args, **kwargs)
        finally:
            ended = time.perf_counter()
            if phase:
                spent[phase] += ended - began
            if start is not None:
                marks[start] = ended
    setattr(owner, name, wrapper)

timed(pandas_adapter.PandasBackend, "extract", "encode")
timed(polars_adapter.PolarsBackend, "extract", "encode")
timed(steps._engine, "rank", "rank")
timed(steps._engine, "lists", "lists")
timed(ranking, "_packed_keys", None, start="rank: sort@")
timed(ranking, "_query_starts", None, stop="rank: sort@")
timed(checks, "check_unique_items", "checks")
timed(checks, "_item_keys", None, start="checks: sort@")
timed(checks, "_has_equal_neighbours", None, stop="checks: sort@")

path, kind, metrics = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
frame = pd.read_parquet(path) if kind == "pandas" else pl.read_parquet(path)
frame.rank_eval.evaluate(metrics)  # warm-up
runs = []
for _ in range(3):
    spent.clear()
    began = time.perf_counter()
    frame.rank_eval.evaluate(metrics)
    total = time.perf_counter() - began
    # _item_keys runs twice only when a duplicate is suspected: not on this data
    phases = dict(spent, total=total)
    steps_timed = ("encode", "rank", "lists", "checks")
    phases["metrics"] = total - sum(phases.get(p, 0.0) for p in steps_timed)
    runs.append(phases)
medians = {p: statistics.median(r.get(p, 0.0) for r in runs) for p in runs[0]}
print(json.dumps({"where": rankframe.__file__, "phases": medians}))
"""


def _run(src: Path, path: Path, kind: str, metrics: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, "-c", CHILD, str(path), kind, ",".join(metrics)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(out["where"]).resolve().is_relative_to(src.resolve()), (out["where"], src)
    return dict(out["phases"])


def main() -> None:
    sys.path.insert(0, str(HERE))
    from before_after import METRICS, alternate, arguments

    args = arguments(__doc__)

    times = alternate(
        args.before, args.size, args.rounds, lambda src, path, kind: _run(src, path, kind, METRICS)
    )
    print("| frame | phase | before s | after s | after / before |")
    print("|---|---|---:|---:|---:|")
    for kind in ("pandas", "polars"):
        for phase in PHASES:
            before = statistics.median(r.get(phase, 0.0) for r in times["before", kind])
            after = statistics.median(r.get(phase, 0.0) for r in times["after", kind])
            ratio = f"{after / before:.2f}" if before else "-"
            print(f"| {kind} | {phase} | {before:.3f} | {after:.3f} | {ratio} |")


if __name__ == "__main__":
    main()
