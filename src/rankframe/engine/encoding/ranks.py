"""Dense ranks of ids: the order of the few tied rows, which ties break by item id.

Arrow ranks strings as strings and numbers as numbers, in C++; ids of at most 8 bytes (most
ids) are ranked as the 64-bit numbers their bytes make, by NumPy; composite ids as tuples,
by polars; Python objects by family of type, then by value (:func:`object_ranks`).
"""

from __future__ import annotations

import datetime
import decimal
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rankframe.engine.encoding.columns import (
    IntArray,
    decoded,
    in_row_order,
    take_rows,
    without_views,
)
from rankframe.engine.encoding.composite import composite_ranks, is_composite

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = ["UnorderedIdsError", "dense_ranks", "object_ranks", "ranks_at", "table_codes"]


def _prefix_keys(values: pa.Array) -> npt.NDArray[np.uint64] | None:
    """Per string, its bytes as a big-endian 64-bit number (zero-padded), or None.

    Those numbers order the strings as strings (byte-wise) when every string has at most 8
    bytes and none holds a NUL byte (a string would then equal itself plus trailing NULs):
    short ids, the usual kind, are then ranked by a NumPy sort of numbers instead of a sort
    of strings. None when that does not hold.
    """
    import pyarrow as pa

    kind = values.type
    wide = pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)
    if not (wide or pa.types.is_string(kind) or pa.types.is_binary(kind)):
        return None
    if len(values) == 0 or values.null_count:
        return None
    _, offset_buffer, data_buffer = values.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int64 if wide else np.int32)
    offsets = offsets[values.offset : values.offset + len(values) + 1].astype(np.int64)
    lengths = np.diff(offsets)
    first, last = int(offsets[0]), int(offsets[-1])
    data = np.frombuffer(data_buffer, dtype=np.uint8)[first:last] if last > first else None
    if int(lengths.max()) > 8 or (data is not None and not data.all()):
        return None
    padded = np.zeros(last - first + 8, dtype=np.uint8)  # 8 bytes readable at every start
    if data is not None:
        padded[: last - first] = data
    windows = np.lib.stride_tricks.sliding_window_view(padded, 8)
    keys: npt.NDArray[np.uint64] = (
        windows[offsets[:-1] - first].view(">u8").reshape(-1).astype(np.uint64)
    )
    # keep each string's own bytes only: the window also covers the next strings
    all_bits = np.uint64(2**64 - 1)
    masks = np.array(
        [0] + [all_bits << np.uint64(8 * (8 - n)) for n in range(1, 9)], dtype=np.uint64
    )
    keys &= masks[lengths]
    return keys


def _table_ranks(values: pa.Array) -> IntArray | None:
    """Dense ranks of integers without nulls whose range is small (at most a few times
    their number: codes, such as ``rankframe trec``'s), by a table of that range instead
    of a sort; None otherwise."""
    import pyarrow as pa

    if not pa.types.is_integer(values.type) or len(values) == 0 or values.null_count:
        return None
    coded = table_codes(np.asarray(values))
    return None if coded is None else coded[0]


def table_codes(numbers: npt.NDArray[np.integer[Any]]) -> tuple[IntArray, npt.NDArray[Any]] | None:
    """Dense ranks (0-based, int64) of NumPy integers whose range is small (at most a few
    times their number), by a table of that range instead of a sort, and the distinct
    values in ascending order (the values the ranks index); None otherwise (no value, or a
    wide range). The ranks are Arrow's sorted dictionary codes of the same integers."""
    if len(numbers) == 0:
        return None
    low, high = int(numbers.min()), int(numbers.max())
    span = high - low + 1
    if span > 4 * len(numbers) + 1024:
        return None
    shifted = numbers - numbers.dtype.type(low)  # in 0 .. span, in their own type
    present = np.zeros(span, dtype=bool)
    present[shifted] = True
    distinct = np.flatnonzero(present)
    rank: IntArray = np.cumsum(present, dtype=np.int64)
    rank -= 1
    ranks: IntArray = rank[shifted]
    return ranks, distinct.astype(numbers.dtype) + numbers.dtype.type(low)


def dense_ranks(values: pa.Array | pa.ChunkedArray | npt.NDArray[Any]) -> IntArray:
    """Dense ranks (0-based) of the values in ascending order.

    Strings compare as strings and numbers as numbers; composite ids (lists, structs) as
    tuples (:func:`.composite.composite_ranks`); an object array as :func:`object_ranks`
    orders it (by type, then value).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, np.ndarray):
        if values.dtype == object:
            return object_ranks(values)
        values = pa.array(values, from_pandas=True)
    values = decoded(without_views(values))
    if is_composite(values.type):
        return composite_ranks(values)[0]
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    table = _table_ranks(values)
    if table is not None:
        return table
    keys = _prefix_keys(values)
    if keys is not None:
        return np.unique(keys, return_inverse=True)[1].astype(np.int64).reshape(-1)
    ranks = pc.rank(values, sort_keys="ascending", tiebreaker="dense")
    return np.asarray(ranks, dtype=np.int64) - 1


def ranks_at(values: pa.Array | pa.ChunkedArray, rows: IntArray) -> IntArray:
    """:func:`dense_ranks` of the values at positions ``rows`` of a column (taken chunk by
    chunk, :func:`.columns.take_rows`)."""
    taken, ascending = take_rows(values, rows)
    return in_row_order(dense_ranks(taken), ascending)


#: Families of Python types whose values compare with each other (checked in this order);
#: values of any other type form a family of their own type.
_FAMILIES: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("number", (numbers.Real, decimal.Decimal)),
    ("str", (str,)),
    ("bytes", (bytes,)),
    ("datetime", (datetime.datetime,)),
    ("date", (datetime.date,)),
    ("timedelta", (datetime.timedelta,)),
    ("tuple", (tuple,)),
)


def _family(kind: type) -> tuple[str, str]:
    """The family of a Python type (see :func:`object_ranks`): its name, then a module."""
    for name, members in _FAMILIES:
        if issubclass(kind, members):
            return name, ""
    return kind.__name__, kind.__module__


class UnorderedIdsError(TypeError):
    """Ids of one family that neither compare nor have distinct texts (see object_ranks)."""


def object_ranks(values: npt.NDArray[np.object_]) -> IntArray:
    """Dense ranks (0-based) of Python objects, in a total order that never depends on the
    order of the values: by family of type, then by value.

    Numbers (int, float, bool, Decimal, NumPy numbers) are one family and compare as
    numbers, exactly (no float64 conversion); strings, bytes, datetimes, dates, timedeltas
    and tuples are one family each; any other type is its own family. Families follow the
    order of their names (``"number"`` < ``"str"`` < ``"tuple"``; a type's own name, e.g.
    ``"Interval"``, then its module); values within one family compare with Python's ``<``
    (a pandas ``Interval`` by its bounds). A family whose values do not compare (or only
    partly, as sets) is ordered by the values' text, when distinct values have distinct
    texts; otherwise :class:`UnorderedIdsError` names the type.

    One pass of ``type`` over the values (a NumPy ufunc, in C), then one sort per family.
    """
    import pyarrow as pa

    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    kinds = np.asarray(np.frompyfunc(type, 1, 1)(values), dtype=object)
    codes, distinct_kinds = _factorize(kinds)
    families = [_family(kind) for kind in distinct_kinds]
    names = sorted(set(families))
    if names == [("str", "")]:  # the usual case: Arrow ranks strings
        return dense_ranks(pa.array(values, type=pa.large_string()))
    family_of_code = np.array([names.index(f) for f in families], dtype=np.int64)
    family = family_of_code[codes]
    out = np.empty(len(values), dtype=np.int64)
    offset = 0
    for number in range(len(names)):
        rows = np.flatnonzero(family == number)
        ranks = _family_ranks(values[rows], names[number][0])
        out[rows] = ranks + offset
        offset += int(ranks.max()) + 1
    return out


def _family_ranks(values: npt.NDArray[np.object_], name: str) -> IntArray:
    """Dense ranks of values of one family: by ``<``, or by text (see object_ranks).

    ``<`` orders the family when the sorted distinct values each compare below the next;
    a partial order (sets: ``<`` is "subset of") or none at all falls back to the text.
    """
    try:
        distinct, ranks = np.unique(values, return_inverse=True)
        if bool(np.less(distinct[:-1], distinct[1:]).all()):
            return ranks.astype(np.int64).reshape(-1)
    except TypeError:
        pass
    text = values.astype(str)
    n_values = len(_factorize(values)[1])
    if len(np.unique(text)) != n_values:
        msg = f"ids of type {name!r} neither compare with '<' nor have distinct texts"
        raise UnorderedIdsError(msg)
    return np.unique(text, return_inverse=True)[1].astype(np.int64).reshape(-1)


def _factorize(values: npt.NDArray[Any]) -> tuple[IntArray, npt.NDArray[Any]]:
    """pandas' ``factorize`` (by hash and equality) of a NumPy array: codes and uniques."""
    import pandas as pd

    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64, copy=False), np.asarray(uniques)
