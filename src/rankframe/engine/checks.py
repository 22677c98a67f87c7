"""Checks of the data that the schema cannot make: each item once per query."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt

from rankframe.engine.frame import (
    BLOCK,
    FrameData,
    bits,
    blocks,
    runs,
)
from rankframe.engine.sorting import sort_keys
from rankframe.exceptions import InvalidDataError, plain

THREAD_ROWS = 200_000  # from this many rows the duplicate check runs in a second thread

#: Per row the code of its item and the number of items, when another step of the call
#: encodes them anyway (``None``: it does not)
Encoded = Callable[[], "tuple[npt.NDArray[np.integer], int] | None"]


def _item_keys(
    data: FrameData, query_bits: int, encoded: tuple[npt.NDArray[np.integer], int] | None = None
) -> npt.NDArray[np.uint64]:
    """Per row the key ``query code | item hash`` (the hash's top bits give way), or
    ``query code | item code`` when the items' codes are ``encoded`` and both fit 64 bits
    (one to one: no hash of the items to compute)."""
    if encoded is not None and query_bits + bits(encoded[1]) <= 64:
        key = np.empty(len(encoded[0]), dtype=np.uint64)
        _with_query(key, data, query_bits, encoded[0])
        return key
    hashes = data.item.hashes()
    # shifted in place when the hashes are ours to modify (a polars view is read-only)
    key = np.right_shift(
        hashes, np.uint64(query_bits), out=hashes if hashes.flags.writeable else None
    )
    del hashes
    _with_query(key, data, query_bits)
    return key


def _with_query(
    key: npt.NDArray[np.uint64],
    data: FrameData,
    query_bits: int,
    codes: npt.NDArray[np.integer] | None = None,
) -> None:
    """Set the top ``query_bits`` of each row's key to its query code, block by block
    (``codes``: first set each key to its row's item code, in the same pass)."""
    spare = np.empty(min(len(key), BLOCK), dtype=np.uint64)
    query_shift = np.uint64(64 - query_bits)
    for start, stop in blocks(len(key)):
        m = stop - start
        if codes is not None:
            np.copyto(key[start:stop], codes[start:stop], casting="unsafe")
        np.copyto(spare[:m], data.query_codes[start:stop], casting="unsafe")
        spare[:m] <<= query_shift
        key[start:stop] |= spare[:m]


def _has_equal_neighbours(values: npt.NDArray[np.uint64]) -> bool:
    """Whether two consecutive entries are equal (block by block: no full-size mask)."""
    for start, stop in blocks(len(values) - 1):
        if (values[start + 1 : stop + 1] == values[start:stop]).any():
            return True
    return False


def check_unique_items(
    data: FrameData, query: Sequence[str], item: Sequence[str], codes: Encoded = lambda: None
) -> None:
    """Raise if an item appears more than once in a query (``query``, ``item``: the
    columns of each key, several for a composite one).

    One in-place sort of packed (query code, item hash) keys finds every candidate; equal
    items always share a hash, so only the candidates' values are compared exactly. The usual
    outcome, no candidate, needs no more memory than the keys. When another step encodes
    the items anyway (``codes()``: the beyond-accuracy metrics that read every row's item),
    their codes take the place of the hashes.
    """
    query_bits = bits(data.n_queries)
    try:
        encoded = codes()
    except Exception:  # the step that encodes them raises it again, in the body
        encoded = None  # hashes, so that a duplicate is still the error the call raises
    key = _item_keys(data, query_bits, encoded)
    sort_keys(key)
    if not _has_equal_neighbours(key):
        return
    # candidates (duplicates, or different items that share a hash): the keys again, this
    # time with the rows they come from
    key = _item_keys(data, query_bits, encoded)
    order = np.argsort(key, kind="stable")
    positions, run_id = runs(key[order][1:] == key[order][:-1])
    rows = order[positions]
    value = data.item.ranks(rows)
    by_value = np.lexsort((value, run_id))
    same = (run_id[by_value][1:] == run_id[by_value][:-1]) & (
        value[by_value][1:] == value[by_value][:-1]
    )
    if not same.any():
        return  # different items that share a hash
    at = int(np.flatnonzero(same)[0])
    first = by_value[at]
    count = int(((run_id == run_id[first]) & (value == value[first])).sum())
    row = int(rows[first])
    code = data.query_codes[row : row + 1].astype(np.int64)
    query_value = plain(data.query_labels(code)[0])
    msg = (
        f"Item {plain(data.item.label(row))!r} appears {count} times in query {query_value!r} "
        f"(columns {', '.join(map(repr, [*item, *query]))}); each item may appear once per "
        f"query. Drop the duplicates, e.g. {_drop_duplicates(data.flavour, [*query, *item])}."
    )
    raise InvalidDataError(msg, column=item[0], problem="duplicate", count=count, query=query_value)


def _drop_duplicates(flavour: str, columns: Sequence[str]) -> str:
    """The call that keeps one row per (query, item), in the user's library."""
    listed = ", ".join(map(repr, columns))
    if flavour == "polars":
        return f"df.unique(subset=[{listed}], keep='first')"
    return f"df.drop_duplicates([{listed}])"


@contextmanager
def unique_items_checked(
    data: FrameData, query: Sequence[str], item: Sequence[str], codes: Encoded = lambda: None
) -> Iterator[None]:
    """Check that items are unique per query while the body of the ``with`` runs
    (``codes``: the items' codes where another step encodes them, see
    :func:`check_unique_items`).

    On large frames the check (hashing and one sort) runs in a second thread, beside the
    ranking: NumPy's sorts and ufuncs and polars release the GIL, so two cores share the work.
    On leaving the block the check is awaited, and a duplicate raises
    :class:`InvalidDataError` in place of any result or other error of the body.
    """
    if data.n_rows < THREAD_ROWS:
        check_unique_items(data, query, item, codes)
        yield
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe") as pool:
        check = pool.submit(check_unique_items, data, query, item, codes)
        try:
            yield
        finally:
            check.result()
