"""The sort of packed 64-bit keys that ranking and the duplicate-item check rest on
(:func:`sort_keys`).

Two kernels are at hand: NumPy's ``ndarray.sort`` and polars' sort through a zero-copy
Series. Which is faster depends on the processor, not on the keys: NumPy dispatches to a
vectorised sort (x86-simd-sort with AVX-512, about 11 ns a key for 10M keys on the benchmark
machine, where polars takes 28-36 ns), while a NumPy build or processor without it sorts at
65-140 ns a key, three times polars' single-threaded sort. An LSD radix sort written in
NumPy (a stable ``argsort`` of 16-bit digits and a gather per digit) was measured too: 1.2 s
for 10M keys, slower than either (benchmarks/RESULTS.md, "The sort kernel"). So the first
sort of many keys in a process times both kernels on the same few keys and keeps the faster;
the sorted keys are the same whichever runs (a sort of integers has one result), so only the
time depends on it.

polars sorts single-threaded here: the ranking and the duplicate check each sort in their own
thread, and on a machine of two cores two multi-threaded sorts only fight over them.
"""

from __future__ import annotations

import threading
import time
from typing import Literal

import numpy as np
import numpy.typing as npt
import polars as pl

Kernel = Literal["numpy", "polars"]

#: From this many keys :func:`sort_keys` may use polars; below, NumPy always does (the
#: Series' set-up and the copy back would cost more than any kernel saves).
POLARS_FROM = 1 << 20
_SAMPLE = 1 << 17  # keys each kernel sorts to be timed (about 1.5 ms and 5 ms here)

#: The kernel :func:`kernel` chose on this machine (``None`` until its first call); set it
#: to use one kernel.
CHOSEN_KERNEL: Kernel | None = None
_choosing = threading.Lock()  # the ranking and the check may both sort first


def _sort_with(kernel: Kernel, key: npt.NDArray[np.uint64]) -> None:
    if kernel == "numpy":
        key.sort()
        return
    # a Series over the keys' own memory (no copy); polars' result is a new buffer
    ordered = pl.Series(values=key).sort(multithreaded=False).to_numpy()
    np.copyto(key, ordered)


def _timed(kernel: Kernel, sample: npt.NDArray[np.uint64]) -> float:
    best = float("inf")
    for _ in range(2):
        keys = sample.copy()
        start = time.perf_counter()
        _sort_with(kernel, keys)
        best = min(best, time.perf_counter() - start)
    return best


def kernel() -> Kernel:
    """The faster kernel on this machine, timed on the first call in a process."""
    global CHOSEN_KERNEL
    with _choosing:
        if CHOSEN_KERNEL is None:
            sample = np.random.default_rng(0).integers(0, 2**63, _SAMPLE, dtype=np.uint64)
            faster = _timed("polars", sample) < _timed("numpy", sample)
            CHOSEN_KERNEL = "polars" if faster else "numpy"
        return CHOSEN_KERNEL


def sort_keys(key: npt.NDArray[np.uint64], using: Kernel | None = None) -> None:
    """Sort 64-bit unsigned keys in place, ascending, with the faster kernel (``using``:
    that kernel instead, whatever the size)."""
    if using is None:
        using = kernel() if len(key) >= POLARS_FROM else "numpy"
    _sort_with(using, key)
