"""rankframe in several threads at once: Dask's default threaded scheduler, a thread pool.

pandera is imported on first use; several threads importing it at once used to deadlock in
Python's import locks (``_DeadlockError`` in 5 of 12 fresh processes). Each case runs in
fresh processes, where nothing is imported yet: the deadlock needs a cold interpreter.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

FRAME = """
import numpy as np, pandas as pd
rng = np.random.default_rng(0)
n = 4000
df = pd.DataFrame({"query": rng.integers(0, 200, n).astype(str),
                   "item": np.arange(n).astype(str), "score": rng.random(n),
                   "relevant": rng.integers(0, 2, n)})
"""

DASK_DEFAULT_SCHEDULER = (
    FRAME
    + """
import dask.dataframe as dd
import rankframe
print(repr(dd.from_pandas(df, npartitions=4).rank_eval.mrr(k=5).compute()))
print(repr(df.rank_eval.mrr(k=5)))
"""
)

THREAD_POOL = (
    FRAME
    + """
from concurrent.futures import ThreadPoolExecutor
import polars as pl
import rankframe
frames = [df.iloc[i::4] for i in range(4)] + [pl.from_pandas(df.iloc[i::4]) for i in range(4)]
with ThreadPoolExecutor(8) as pool:
    values = list(pool.map(lambda f: f.rank_eval.mrr(k=5), frames))
print(repr(values[:4]))
print(repr(values[4:]))
"""
)

RUNS = 6  # fresh processes per case, two at a time


def _run(script: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


@pytest.mark.load
@pytest.mark.parametrize(
    "script", [DASK_DEFAULT_SCHEDULER, THREAD_POOL], ids=["dask-threaded-scheduler", "thread-pool"]
)
def test_first_use_in_many_threads_in_fresh_processes(script: str) -> None:
    with ThreadPoolExecutor(2) as pool:
        outputs = list(pool.map(_run, [script] * RUNS))
    for lines in outputs:
        # the partitioned (or threaded) value equals the one-thread value
        assert lines[0] == lines[1], lines
