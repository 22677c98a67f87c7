"""The item codes of the beyond-accuracy metrics: the records that carry the items of every
list from the per-query step to the finish step.

:class:`Entries` are rows of a frame (or of the per-query tables of parts) that carry items:
each list's top-k rows, each query's relevant rows (:data:`TRUTH`), a row of each distinct
item of the frame (:data:`CATALOG`). :class:`TopK` is what the metrics read: every list's
top-k items as item codes in ascending id order, in the order (system, query, rank), so
one frame and a frame in parts give the same codes, the same sums and the same messages.
:class:`WholeLists` is every retrieved row of one frame's lists (``ndkl``'s default
target). The per-query step that records the entries is
:mod:`rankframe.pipeline.item_record`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from rankframe.engine import segments
from rankframe.exceptions import excerpt, plain

__all__ = [
    "CATALOG",
    "ENTRY",
    "GRADE",
    "SHOWN",
    "TRUTH",
    "Entries",
    "TopK",
    "WholeLists",
    "lists_at",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

ENTRY = "__rankframe_entry__"  # per-query tables of parts: 0 a query's row, else an entry
GRADE = "__rankframe_grade__"  # per-query tables of parts: an entry's grade (Plan.grades)
TRUTH = -1  # the entry of a relevant row (top1_f1's true class)
CATALOG = -2  # the entry of a distinct item of the frame (the default catalog)
SHOWN = 5  # items named in a message


@dataclass
class Entries:
    """Rows of a frame that carry items to the finish step: their query position, system,
    rank (>= 1; :data:`TRUTH` or :data:`CATALOG` for the other kinds) and row position."""

    query: IntArray
    system: IntArray
    rank: IntArray
    row: IntArray
    n_frame_items: int | None = None  # one frame: the default catalog's size, counted
    codes: IntArray | None = None  # one frame with its items encoded: the entries' codes
    n_top: int | None = None  # one frame: its top-k entries come first, in (system, query,
    # rank) order
    grade: FloatArray | None = None  # Plan.grades: each entry's grade (0 for an unjudged row)
    whole: WholeLists | None = None  # one frame, Plan.whole_list with a depth: every list


_WHOLE_BLOCK = 1 << 20  # rows per block of WholeLists.counts


@dataclass
class WholeLists:
    """Every retrieved row of one frame's lists, not only the top-k entries (``ndkl``'s
    default target): per row of the frame its query position and item code (the codes of
    :class:`TopK`), and per system its retrieved rows (``None``: every row of the frame).
    Only counted per (list, group), never made entries."""

    query: IntArray
    codes: IntArray
    retrieved: list[IntArray | None]
    n_queries: int
    labels_at: Callable[[IntArray], list[object]]
    n_codes: int = 0  # the distinct items of the frame (codes 0 .. n_codes - 1)
    code_labels: Callable[[IntArray], list[object] | None] = lambda _codes: None
    _first: list[IntArray] = field(default_factory=list, repr=False)

    def _of(self, system: int) -> tuple[IntArray, IntArray]:
        rows = self.retrieved[system]
        if rows is None:
            return self.query, self.codes
        return self.query[rows], self.codes[rows]

    def items(self) -> IntArray:
        """The codes of the items in some list."""
        if self.n_codes and all(rows is None for rows in self.retrieved):
            return np.arange(self.n_codes, dtype=np.int64)  # every row is in a list
        return np.flatnonzero(self._rows_of_codes() >= 0)

    def _rows_of_codes(self) -> IntArray:
        """Per code, a row of the frame listing it (-1: in no list)."""
        if not self._first:
            n = len(self.codes)
            first = np.full(int(self.codes.max()) + 1 if n else 0, -1, dtype=np.int64)
            for s in range(len(self.retrieved)):  # a row of each listed item
                rows = self.retrieved[s]
                first[self._of(s)[1]] = np.arange(n, dtype=np.int64) if rows is None else rows
            self._first.append(first)
        return self._first[0]

    def labels(self, codes: IntArray) -> list[object]:
        """The ids of item codes of :meth:`items` (from the item dictionary's values where
        the adapter has them, else at a row of each)."""
        named = self.code_labels(codes)
        if named is not None:
            return named
        return self.labels_at(self._rows_of_codes()[codes])

    def counts(self, per_code: IntArray, n_groups: int) -> tuple[IntArray, IntArray]:
        """Per list (``system * n_queries + query``) and group, its retrieved items (flat,
        list-major), and per list its length."""
        counts = []
        size = self.n_queries * n_groups
        per_code = per_code.astype(np.int64, copy=False)
        for s in range(len(self.retrieved)):
            query, codes = self._of(s)
            count = np.zeros(size, dtype=np.int64)
            # block by block: the keys and groups of a block stay in the cache
            key = np.empty(min(len(query), _WHOLE_BLOCK), dtype=np.int64)
            group = np.empty_like(key)
            for start in range(0, len(query), _WHOLE_BLOCK):
                part = slice(start, start + _WHOLE_BLOCK)
                n = len(query[part])
                np.multiply(query[part], n_groups, out=key[:n], dtype=np.int64)
                np.take(per_code, codes[part], out=group[:n])
                key[:n] += group[:n]
                count += np.bincount(key[:n], minlength=size)
            counts.append(count)
        flat = np.concatenate(counts)
        return flat, segments.row_sums(flat.reshape(-1, n_groups))


@dataclass
class TopK:
    """Every list's top-k items as item codes (ascending id order), in the order (system,
    query, rank); each query's relevant items (``top1_f1``); the default catalog's size.

    ``labels(codes)`` gives the ids of item codes, ``query_labels(positions)`` those of
    query positions (for lookups and messages).
    """

    n_queries: int
    n_systems: int
    query: IntArray
    system: IntArray
    rank: IntArray
    item: IntArray
    truth_query: IntArray
    truth_item: IntArray
    n_frame_items: int
    n_codes: int
    labels: Callable[[IntArray], list[object]]
    query_labels: Callable[[IntArray], list[object]]
    grade: FloatArray | None = None  # Plan.grades: the grade of each top-k entry
    truth_grade: FloatArray | None = None  # and of each relevant entry
    whole: WholeLists | None = None  # one frame: every retrieved row (Plan.whole_list)
    _lists: dict[int | None, tuple[IntArray, IntArray, BoolArray | slice]] = field(
        default_factory=dict, repr=False
    )

    @classmethod
    def build(
        cls,
        found: Entries,
        codes: IntArray,
        labels_at: Callable[[IntArray], list[object]],
        n_queries: int,
        n_systems: int,
        query_labels: Callable[[IntArray], list[object]],
        *,
        n_codes: int | None = None,
        code_labels: Callable[[IntArray], list[object] | None] = lambda _codes: None,
    ) -> TopK:
        """From entries and their item codes (any numbering that follows the ids' order;
        with ``n_codes``, codes in 0 .. n_codes - 1 already): codes renumbered 0.. in that
        order, entries in their canonical order (so every path adds up the same numbers in
        the same order). ``code_labels(codes)``: the ids of codes without a row, where
        known (:meth:`~rankframe.engine.ItemColumn.labels_of_codes`)."""
        if n_codes is not None:
            item = codes.astype(np.int64, copy=False)
        else:
            present = np.bincount(codes) > 0 if len(codes) else np.zeros(0, dtype=bool)
            item = (np.cumsum(present) - 1)[codes] if len(codes) else codes
            item = item.astype(np.int64, copy=False)
            n_codes = int(present.sum())
        rows_of_codes: list[IntArray] = []

        def labels(chosen: IntArray) -> list[object]:
            named = code_labels(chosen)
            if named is not None:
                return named
            if not rows_of_codes:  # a row of each code, when ids are first needed
                rows_of_codes.append(np.zeros(n_codes, dtype=np.int64))
                rows_of_codes[0][item] = found.row
            return labels_at(rows_of_codes[0][chosen])

        if found.n_top is not None:  # one frame: in order already, no gather
            top: IntArray | slice = slice(0, found.n_top)
            rest = np.arange(found.n_top, len(found.rank))
        else:  # the entries of parts, in any order
            top = np.flatnonzero(found.rank > 0)
            key = found.system[top] * max(n_queries, 1) + found.query[top]
            top = top[np.lexsort((found.rank[top], key))]
            rest = np.flatnonzero(found.rank <= 0)
        truth = rest[found.rank[rest] == TRUTH]
        truth = truth[_pair_order(found.query[truth], item[truth], n_codes)]
        grade = found.grade
        n_frame_items = found.n_frame_items
        if n_frame_items is None:
            n_frame_items = len(np.unique(item[rest[found.rank[rest] == CATALOG]]))
        return cls(
            n_queries=n_queries,
            n_systems=n_systems,
            query=found.query[top],
            system=found.system[top],
            rank=found.rank[top],
            item=item[top],
            truth_query=found.query[truth],
            truth_item=item[truth],
            n_frame_items=n_frame_items,
            n_codes=n_codes,
            labels=labels,
            query_labels=query_labels,
            grade=None if grade is None else grade[top],
            truth_grade=None if grade is None else grade[truth],
            whole=found.whole,
        )

    @property
    def n_lists(self) -> int:
        return self.n_queries * self.n_systems

    def list_of(self, keep: BoolArray | slice) -> IntArray:
        """The list of each entry (``system * n_queries + query``): lists in order."""
        list_id: IntArray = self.system[keep] * self.n_queries + self.query[keep]
        return list_id

    def per_query(self, per_list: FloatArray) -> FloatArray:
        """Values per list as (n_queries, n_systems)."""
        return per_list.reshape(self.n_systems, self.n_queries).T.copy()

    def whole_counts(self, per_code: IntArray, n_groups: int) -> tuple[IntArray, IntArray]:
        """Per list and group, the retrieved items of the whole list (flat, list-major), and
        per list its length: from :class:`WholeLists`, or from the entries when they hold
        every retrieved row (parts, or a metric without a cut-off)."""
        if self.whole is not None:
            return self.whole.counts(per_code, n_groups)
        every, length, _ = lists_at(self, None)
        counts = np.bincount(
            every * n_groups + per_code[self.item], minlength=self.n_lists * n_groups
        )
        return counts, length

    def at_most(self, k: int | None) -> BoolArray | slice:
        """The entries ranked at or above ``k`` (a slice when that is every entry)."""
        if k is None or not len(self.rank) or int(self.rank.max()) <= k:
            return slice(None)
        return self.rank <= k

    def named(self, codes: IntArray) -> str:
        """The first few items of ``codes`` for a message."""
        shown = ", ".join(excerpt(plain(v)) for v in self.labels(codes[:SHOWN]))
        return shown + (", ..." if len(codes) > SHOWN else "")


def _pair_order(major: IntArray, minor: IntArray, n_minor: int) -> IntArray:
    """The order of entries by (``major``, ``minor``), ``minor`` in ``0 .. n_minor - 1``;
    equal pairs in any order. One sort of ``major * n_minor + minor`` where that fits 63
    bits (a few times faster than a two-key ``lexsort``), else the ``lexsort``."""
    if not len(major):
        return np.zeros(0, dtype=np.int64)
    if (int(major.max()) + 1) * max(n_minor, 1) < 2**62:
        order: IntArray = np.argsort(major * np.int64(max(n_minor, 1)) + minor)
        return order
    return np.lexsort((minor, major))


def lists_at(top: TopK, k: int | None) -> tuple[IntArray, IntArray, BoolArray | slice]:
    """Per entry at or above k, its list (:meth:`TopK.list_of`); per list, its length;
    which entries those are (computed once per k)."""
    if k not in top._lists:
        keep = top.at_most(k)
        lists = top.list_of(keep)
        top._lists[k] = lists, np.bincount(lists, minlength=top.n_lists), keep
    return top._lists[k]
