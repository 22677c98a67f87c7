"""A column encoded in two halves, in two threads at once (:func:`by_halves`).

NumPy's gathers and sorts of numbers and Arrow's hash table let go of the GIL: on millions
of rows, a second thread halves the time of the passes bound by the memory's latency.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

from rankframe.engine.encoding.columns import Words

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = ["THREAD_VALUES", "by_halves", "each", "in_two"]

#: From this many values ``dictionary_codes(threads=True)`` encodes in two threads; below
#: it one thread is faster (measured on the benchmark's workload: docs/performance.md).
THREAD_VALUES = 1_500_000

_Part = TypeVar("_Part")
_Item = TypeVar("_Item")


def in_two(values: int, threads: bool) -> bool:
    """Whether ``values`` values are encoded in two threads: with ``threads=True``, from
    :data:`THREAD_VALUES` of them."""
    return threads and values >= THREAD_VALUES


def each(encode: Callable[[_Item], _Part], items: list[_Item]) -> list[_Part]:
    """``encode`` of each of (at most two) items, the second in another thread at once."""
    if len(items) < 2:
        return [encode(item) for item in items]
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe") as pool:
        later = pool.submit(encode, items[1])
        return [encode(items[0]), later.result()]


def by_halves(
    encode: Callable[..., _Part],
    values: pa.Array | pa.ChunkedArray,
    *,
    threads: bool,
    out: Words | None = None,
) -> list[_Part]:
    """``[encode(values)]``; with ``threads=True`` and :data:`THREAD_VALUES` values or more,
    ``encode`` of its two halves (zero-copy slices), in two threads at once. With ``out``
    (arrays of a value each), ``encode`` also gets the part's slices of them."""
    if not in_two(len(values), threads):
        return [encode(values) if out is None else encode(values, out)]
    middle = len(values) // 2
    if out is None:
        return each(encode, [values.slice(0, middle), values.slice(middle)])
    halves = [
        (values.slice(0, middle), (out[0][:middle], out[1][:middle])),
        (values.slice(middle), (out[0][middle:], out[1][middle:])),
    ]
    return each(lambda half: encode(*half), halves)
