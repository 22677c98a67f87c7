"""Keys of one column or of several (a composite key: ``query=["user_id", "day"]``) read
through a backend, and the sampled rankings of a query (``sample=``), ranked as lists of
their own and folded back into their queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from rankframe import engine as _engine
from rankframe.engine import segments
from rankframe.exceptions import InvalidDataError, plain
from rankframe.pipeline import item_record
from rankframe.pipeline import windows as _windows
from rankframe.pipeline.backend import Backend, ColumnNames
from rankframe.pipeline.per_query import PerQuery

__all__ = [
    "key_codes",
    "key_labels",
    "of_queries",
    "one_grade",
    "sampled_queries",
    "shown_key",
]

IntArray = npt.NDArray[np.int64]


def key_codes(backend: Backend, key: Sequence[str]) -> IntArray:
    """Per row an integer code of the key's value, numbered in sorted order: the column's
    own codes, or for a composite key those of the tuples of its columns' values."""
    if len(key) == 1:
        return backend.codes(key[0])
    return _engine.composite_codes([backend.codes(c) for c in key])[0]


def shown_key(key: Sequence[str]) -> str | list[str]:
    """A key's column(s) as a call passes them: a name, or a list of names."""
    return key[0] if len(key) == 1 else list(key)


def key_labels(backend: Backend, key: Sequence[str], rows: IntArray) -> list[object]:
    """The key's values at ``rows`` as Python objects: tuples for a composite key."""
    if len(key) == 1:
        return backend.labels(key[0], rows)
    return list(zip(*(backend.labels(c, rows) for c in key), strict=True))


def sampled_queries(backend: Backend, key: Sequence[str], first: IntArray) -> item_record.Queries:
    """The queries of a frame ranked by (query, sample): per list (``first``: its first
    row), its query."""
    codes = key_codes(backend, key)
    of_list = np.asarray(codes, dtype=np.int64)[first]
    n_queries = int(of_list.max()) + 1 if len(of_list) else 0
    query_first = first_of(of_list, n_queries)

    def labels(positions: IntArray) -> list[object]:
        return key_labels(backend, key, first[query_first[positions]])

    return item_record.Queries(of_list, n_queries, labels)


def one_grade(data: _engine.FrameData, queries: item_record.Queries, names: ColumnNames) -> None:
    """Raise when an item has two grades in the samples of a query: its sampled rankings
    rank the same judged items (the target exposure reads one grade per item)."""
    if not data.n_rows:
        return
    rows = np.arange(data.n_rows, dtype=np.int64)
    query = queries.of_list[np.asarray(data.query_codes, dtype=np.int64)]
    item = data.item.codes(rows)
    grade = np.nan_to_num(np.asarray(data.relevant, dtype=np.float64))
    order = np.lexsort((grade, item, query))
    head = segments.heads(query[order], item[order])
    sorted_grade = grade[order]
    first = sorted_grade[head][np.cumsum(head) - 1]  # each (query, item)'s lowest grade
    differ = np.flatnonzero(first != sorted_grade)
    if not len(differ):
        return
    row = order[differ[:1]]
    item_id = plain(data.item.labels(row)[0])
    query_id = plain(queries.labels(query[row])[0])
    msg = (
        f"Item {item_id!r} has the grades {plain(first[differ[0]])} and "
        f"{plain(grade[row][0])} in the samples ({names.sample!r}) of query {query_id!r}: "
        "the sampled rankings of a query rank the same judged items. Give each (query, "
        "item) one grade in every sample."
    )
    raise InvalidDataError(msg, column=names.relevant, problem="varying", query=query_id)


def first_of(of_list: IntArray, n_queries: int) -> IntArray:
    """Per query, its first list."""
    out = np.zeros(n_queries, dtype=np.int64)
    out[of_list[::-1]] = np.arange(len(of_list) - 1, -1, -1, dtype=np.int64)
    return out


def of_queries(pq: PerQuery, queries: item_record.Queries, first: IntArray) -> PerQuery:
    """The per-query values of the lists of sampled rankings as those of their queries:
    a query is empty when every sample of it is; its segment and first row are its first
    sample's (``by`` columns describe the query), its time its earliest sample's."""
    of_list, n = queries.of_list, queries.n_queries
    at = first_of(of_list, n)
    time = None if pq.time is None else _windows.earliest(pq.time, of_list, n)
    return replace(
        pq,
        values=pq.values[at],
        include=np.ones(n, dtype=bool),
        empty=np.bincount(of_list, weights=~pq.empty, minlength=n) == 0,
        segment=pq.segment[at],
        first_rows=first[at],
        query_labels=queries.labels,
        time=time,
        by_codes=None if pq.by_codes is None else [codes[at] for codes in pq.by_codes],
        nulls=None if pq.nulls is None else pq.nulls.folded(of_list, n),
    )
