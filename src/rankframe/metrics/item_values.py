"""Metrics of the recommended items themselves (beyond accuracy): what each query's top k
holds, by item id, whatever its relevance.

A metric of the registry with ``items`` (an :class:`ItemMetric`) is computed in the one
finish step, from every query's top-k items, not in the per-query step:

1. The per-query step records :class:`Entries`: for every system, the rows ranked at or
   above the deepest cut-off these metrics read (:class:`Plan`), and, where a metric needs
   them, each query's relevant rows (``top1_f1``) and a row of each distinct item of the
   frame (the default catalog). Item codes are per frame, and a partitioned frame's parts
   each number their own items, so on parts the entries cross the seam as rows of the
   per-query table (:func:`with_entries`) carrying the item column itself: its id, not a
   code. The finish step numbers the ids of every part at once (:meth:`TopK.of_table`).
2. :func:`complete` then computes, from :class:`TopK` (item codes in ascending id order,
   so both paths give the same codes, the same sums and the same messages) and the user's
   ``catalog``, ``popularity`` and ``item_features``: the per-query values of ``arp``,
   ``novelty`` and ``ild`` (into the per-query table, as any metric's), and the set-level
   metrics as a :class:`SetValues`, a function of query weights: the weights of the
   included queries for the value, bootstrap multiplicities for its interval. Every
   set-level metric reads weighted counts of (set, key) pairs (:class:`Tally`): item
   counts c_i for coverage, gini, entropy and personalization (Σ c_i(c_i - 1)/2 lists
   share an item, never a loop over pairs of lists), class counts for ``top1_f1``.

Nothing loops over queries or entries in Python; ``ild`` multiplies a sparse (list x item)
matrix by the unit feature vectors, a block of lists at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from rankframe.engine import THREAD_ROWS, ShortIds, segments
from rankframe.exceptions import InvalidDataError, InvalidOptionError, Keyword, excerpt, plain

if TYPE_CHECKING:
    from rankframe.engine import FrameData, Ranking
    from rankframe.metrics.registry import Metric
    from rankframe.settings.options import Options

__all__ = [
    "CATALOG",
    "ENTRY",
    "GRADE",
    "TRUTH",
    "Entries",
    "ItemMetric",
    "Plan",
    "Queries",
    "Recorder",
    "SetValues",
    "TopK",
    "check",
    "complete",
    "encode_items",
    "entries",
    "group_names",
    "lists_at",
    "plan",
    "read_item_groups",
    "top_rows",
    "with_entries",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

ENTRY = "__rankframe_entry__"  # per-query tables of parts: 0 a query's row, else an entry
GRADE = "__rankframe_grade__"  # per-query tables of parts: an entry's grade (Plan.grades)
TRUTH = -1  # the entry of a relevant row (top1_f1's true class)
CATALOG = -2  # the entry of a distinct item of the frame (the default catalog)
_SHOWN = 5  # items named in a message
_LISTS_PER_BLOCK = 1 << 16  # ild: lists per sparse product
_COUNT_IN_THREAD = THREAD_ROWS  # from this many entries or rows, finish-step work in a thread


# -- the declaration --------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemMetric:
    """How a beyond-accuracy metric is computed (``MetricDef.items``).

    Attributes
    ----------
    per_query
        For a metric with a value per query: ``per_query(top, k, inputs)`` gives the values,
        shape (n_queries, n_systems).
    per_set
        For a set-level metric: ``per_set(sets, k, inputs)`` gives one value per (segment,
        system) from the weighted counts of :class:`Sets`.
    needs
        The option that must be given (``"popularity"``, ``"item_features"``), if any.
    catalog
        Whether it reads the catalog (its size, and that every listed item is in it).
    truth
        Whether it reads each query's relevant items (``top1_f1``: its one true class; the
        exposure metrics: the merit and the default target of each group).
    grades
        Whether it reads the grade of each entry (the top-k rows and the relevant rows):
        the cascade browsing model, the merit of the exposure metrics.
    depth
        The cut-off it reads when it is not the metric's own ``k`` (``top1_f1``: 1).
    cutoff
        Why it needs a cut-off, when it has no value for the whole list (``None``: it has
        one); ``k=None`` then raises at call time with this reason.
    per_group
        Whether it has a value per group of ``item_groups`` (``MetricDef.expand``).
    whole_list
        Whether it reads every retrieved entry of each list, whatever its ``k`` (``ndkl``:
        its default target is the groups' shares of the whole ranked list).
    samples
        Whether it reads several sampled rankings per query (``rank_eval(sample=...)``:
        expected exposure averages each item's attention over them); the other metrics
        refuse a bound ``sample`` column.
    """

    per_query: Callable[[TopK, int | None, Inputs], FloatArray] | None = None
    per_set: Callable[[Sets, int | None, Inputs], FloatArray] | None = None
    needs: str | None = None
    catalog: bool = False
    truth: bool = False
    grades: bool = False
    depth: int | None = None
    cutoff: str | None = None
    per_group: bool = False
    whole_list: bool = False
    samples: bool = False


def _cutoff(metric: Metric) -> int | None:
    """The metric's cut-off k (an item metric's parameter is always a whole number)."""
    return None if metric.k is None else int(metric.k)

def _item(metric: Metric) -> ItemMetric | None:
    item: ItemMetric | None = metric.definition.items
    return item


def check(metric: Metric, options: Options) -> None:
    """Raise at call time for what no data can fix: an item metric without its input
    option (``ItemMetric.needs``) or without the cut-off it needs (``ItemMetric.cutoff``)."""
    item = _item(metric)
    if item is None:
        return
    if item.needs is not None and getattr(options, item.needs) is None:
        msg = (
            f"{metric} needs the '{item.needs}' option: {_NEEDS[item.needs]}. "
            f"Pass {item.needs}=... to the method."
        )
        raise InvalidOptionError(msg)
    if item.cutoff is not None and metric.k is None:
        msg = (
            f"{metric.name} needs a cut-off ({item.cutoff}); pass one, e.g. "
            f"'{metric.name}@10'."
        )
        raise InvalidOptionError(msg)


_NEEDS = {
    "popularity": "item -> number of interactions, e.g. "
                  "train['item'].value_counts() (a pandas Series)",
    "item_features": "a frame of numeric features indexed by item",
    "item_groups": "item -> group, e.g. a pandas Series indexed by item, or a dict",
}


# -- 1. the per-query step: which rows carry items ------------------------------------------


@dataclass(frozen=True)
class Plan:
    """The entries a request's item metrics read: the top ``depth`` rows of every list
    (``None``: every retrieved row), each query's relevant rows (``truth``), a row of each
    distinct item of the frame (``frame_items``: the default catalog), and whether a metric
    reads every retrieved row of each list, whatever its ``k`` (``whole_list``: ``ndkl``'s
    default target; one frame hands them over as :class:`WholeLists`, parts as entries)."""

    depth: int | None
    truth: bool
    frame_items: bool
    grades: bool = False
    whole_list: bool = False


def plan(metrics: Sequence[Metric], options: Options) -> Plan | None:
    """The entries ``metrics`` need, or ``None`` when none is an item metric."""
    items = [(m, item) for m in metrics if (item := _item(m)) is not None]
    if not items:
        return None
    depths = [item.depth if item.depth is not None else _cutoff(m) for m, item in items]
    depth = None if any(d is None for d in depths) else max(d for d in depths if d)
    return Plan(
        depth=depth,
        truth=any(item.truth for _, item in items),
        frame_items=options.catalog is None and any(item.catalog for _, item in items),
        grades=any(item.grades for _, item in items),
        whole_list=any(item.whole_list for _, item in items),
    )


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


def top_rows(ranking: Ranking, depth: int | None) -> tuple[IntArray, IntArray, IntArray]:
    """Query position, rank and row of every entry of a ranking at or above ``depth``."""
    starts = ranking.starts
    if depth is None:  # every retrieved row: the ranking's order itself
        query = np.repeat(np.arange(len(starts) - 1, dtype=np.int64), np.diff(starts))
        rank = np.arange(1, len(query) + 1, dtype=np.int64) - starts[:-1][query]
        return query, rank, np.asarray(ranking.order, dtype=np.int64)
    length = np.minimum(np.diff(starts), depth)
    query, rank, _first = segments.spread(length)
    position = starts[:-1][query] + rank
    return query, rank + 1, ranking.order[position]


ItemDictionary = Callable[[], tuple[npt.NDArray[np.integer[Any]], int] | None]


def encode_items(data: FrameData, wanted: Plan | None, *, part: bool) -> ItemDictionary:
    """Per row the code of its item and the number of distinct items of one frame (the
    default catalog's size), when :func:`entries` will want them (the default catalog, or
    every retrieved row: ``ndkl``'s whole lists): encoded in a second thread on large
    frames, beside the ranking (Arrow releases the GIL), and awaited by calling the result.
    The entries then take their codes from it (for every row, one pass over the column is
    cheaper than taking the rows, then encoding them)."""
    if wanted is None or part or not (
        wanted.frame_items or wanted.depth is None or wanted.whole_list
    ):
        return lambda: None
    if data.n_rows < THREAD_ROWS:
        encoded = data.item.dictionary()
        return lambda: encoded
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe")
    encoding = pool.submit(data.item.dictionary)
    pool.shutdown(wait=False)  # the thread ends with its one task
    return encoding.result


def entries(data: FrameData, tops: Sequence[tuple[IntArray, IntArray, IntArray]],
            wanted: Plan, options: Options, *, part: bool,
            dictionary: ItemDictionary = lambda: None,
            retrieved: Sequence[IntArray | None] = (),
            positives: Sequence[tuple[IntArray, IntArray]] = (),
            every: tuple[IntArray, IntArray] | None = None) -> Entries:
    """The entries of :func:`plan` for one frame of whole queries, from each system's
    :func:`top_rows`. The default catalog is a row per distinct item in a ``part`` (the
    finish step unites the parts' items), else only counted."""
    query, system, rank, row = [], [], [], []
    for s, (q, r, rows) in enumerate(tops):
        query.append(q)
        system.append(np.full(len(q), s, dtype=np.int64))
        rank.append(r)
        row.append(rows)
    extra: list[tuple[IntArray, IntArray | None, int]] = []
    if wanted.truth:
        extra.append((*_relevant_rows(data, options, every), TRUTH))
    if wanted.frame_items and part:
        extra.append((np.asarray(data.item.distinct(), dtype=np.int64), None, CATALOG))
    for rows, of_row, kind in extra:
        rows = rows.astype(np.int64, copy=False)
        query.append(data.query_codes[rows].astype(np.int64) if of_row is None else of_row)
        system.append(np.zeros(len(rows), dtype=np.int64))
        rank.append(np.full(len(rows), kind, dtype=np.int64))
        row.append(rows)
    found = Entries(query=np.concatenate(query), system=np.concatenate(system),
                    rank=np.concatenate(rank), row=np.concatenate(row),
                    n_top=sum(len(q) for q, _, _ in tops))
    if wanted.grades:
        found.grade = _grades(data, found, options, tops, positives)
    encoded = dictionary()
    if encoded is not None:
        found.codes = encoded[0][found.row].astype(np.int64)
        found.n_frame_items = encoded[1]
        if wanted.whole_list and wanted.depth is not None:
            found.whole = WholeLists(np.asarray(data.query_codes), np.asarray(encoded[0]),
                                     list(retrieved), data.n_queries, data.item.labels,
                                     encoded[1], data.item.labels_of_codes)
    return found


def positive_entries(ranking: Ranking, depth: int | None,
                     rows: IntArray) -> tuple[IntArray, IntArray]:
    """Of the entries of :func:`top_rows` (``depth``), those of a positively graded row:
    their positions among the entries and their rows, from the positions the ranking found
    and their ``rows`` (:meth:`Ranking.positive_rows`; no lookup of every entry's grade)."""
    place = ranking.positive - ranking.starts[:-1][ranking.positive_query]  # rank - 1
    if depth is None:  # the entries are the ranking's order itself
        return ranking.positive, rows
    keep = place < depth
    length = np.minimum(np.diff(ranking.starts), depth)
    first = np.cumsum(length) - length  # each query's first entry
    index = first[ranking.positive_query[keep]] + place[keep]
    return index.astype(np.int64, copy=False), rows[keep]


def _relevant_rows(data: FrameData, options: Options,
                   every: tuple[IntArray, IntArray] | None) -> tuple[IntArray, IntArray | None]:
    """The relevant rows of a frame (graded at least ``min_relevance``, or above 0), and
    their query positions when known (else None). ``every``: the positively graded rows of
    a ranking that retrieved every row, and their queries (:attr:`Ranking.positive_rows`):
    those are the rows graded above 0, with no pass over every row's grade."""
    grade = data.relevant
    level = options.min_relevance
    if every is not None and (level is None or level > 0):
        rows, query = every
        if level is None:
            return rows, query
        keep = np.asarray(grade)[rows] >= level
        return rows[keep], query[keep]
    return np.flatnonzero(grade > 0 if level is None else grade >= level), None


def _grades(data: FrameData, found: Entries, options: Options,
            tops: Sequence[tuple[IntArray, IntArray, IntArray]],
            positives: Sequence[tuple[IntArray, IntArray]]) -> FloatArray:
    """Each entry's grade (0 for an unjudged row). The metrics read a grade only when it is
    positive (at or above ``min_relevance``, when that is above 0): then the top-k entries'
    grades are read at their positively graded rows (:func:`positive_entries`), the others
    0, instead of a random read of every entry's row; the other entries' are read."""
    relevant = np.asarray(data.relevant)
    level = options.min_relevance
    if len(positives) != len(tops) or (level is not None and level <= 0):
        every = relevant[found.row].astype(np.float64, copy=False)
        # only float grades hold NaN (an unjudged row: 0)
        return np.nan_to_num(every, copy=False) if relevant.dtype.kind == "f" else every
    grade = np.zeros(len(found.row), dtype=np.float64)
    start = 0
    for (query, _, _), (index, rows) in zip(tops, positives, strict=True):
        grade[start + index] = relevant[rows]
        start += len(query)
    rest = relevant[found.row[start:]].astype(np.float64, copy=False)
    grade[start:] = np.nan_to_num(rest, copy=False) if relevant.dtype.kind == "f" else rest
    return grade


@dataclass
class Recorder:
    """The per-query step's part of the item metrics, for one frame of whole queries: the
    frame's item codes encoded beside the ranking (:func:`encode_items`), each system's
    :func:`top_rows` recorded as it is ranked (:meth:`add`), and the entries of every system
    at the end (:meth:`result`): rows of the frame for a ``part``, else a :class:`TopK`."""

    data: FrameData
    wanted: Plan
    options: Options
    part: bool
    dictionary: ItemDictionary
    tops: list[tuple[IntArray, IntArray, IntArray]] = field(default_factory=list)
    retrieved: list[IntArray | None] = field(default_factory=list)
    positives: list[tuple[IntArray, IntArray]] = field(default_factory=list)
    every: tuple[IntArray, IntArray] | None = None  # a ranking of every row: its relevant

    @classmethod
    def start(cls, data: FrameData, wanted: Plan, options: Options, *, part: bool) -> Recorder:
        return cls(data, wanted, options, part, encode_items(data, wanted, part=part))

    def add(self, ranking: Ranking) -> None:
        """Record one system's ranking of the frame (a part's whole lists, when a metric
        reads them, as entries)."""
        whole = self.wanted.whole_list
        depth = None if whole and self.part else self.wanted.depth
        self.tops.append(top_rows(ranking, depth))
        all_rows = int(ranking.starts[-1]) == self.data.n_rows  # it retrieved every row
        if whole and not self.part:
            self.retrieved.append(None if all_rows else np.asarray(ranking.order, dtype=np.int64))
        relevant = self.wanted.truth and self.every is None and not self.part and all_rows
        if self.wanted.grades or relevant:
            rows = ranking.positive_rows()  # read once for both
            if self.wanted.grades:
                self.positives.append(positive_entries(ranking, depth, rows))
            if relevant:
                self.every = rows, ranking.positive_query

    def result(self, n_systems: int, queries: Queries | None = None) -> Entries | TopK:
        """The entries (``queries``: the frame was ranked by (query, sample), its lists
        become the entries of their query, in the canonical order of parts)."""
        found = entries(self.data, self.tops, self.wanted, self.options, part=self.part,
                        dictionary=self.dictionary, retrieved=self.retrieved,
                        positives=self.positives, every=self.every)
        if queries is not None:
            found.query = queries.of_list[found.query]
            found.n_top = None
        return found if self.part else of_frame(self.data, found, n_systems, queries)


@dataclass(frozen=True)
class Queries:
    """The queries of a frame ranked by (query, sample) (``rank_eval(sample=...)``): per
    list (a sampled ranking), its query; their number; their ids."""

    of_list: IntArray
    n_queries: int
    labels: Callable[[IntArray], list[object]]


def with_entries(rows: IntArray, columns: dict[str, Any], found: Entries,
                 systems: Sequence[str], system_column: str) -> tuple[IntArray, dict[str, Any]]:
    """A part's per-query table (``rows``, ``columns``: one row per (query, system)) with
    its entries appended as rows of their own: taken from their own row of the part (so
    the item column carries their id), :data:`ENTRY` their rank or kind (0 for the
    per-query rows), NaN metrics."""
    n, m = len(rows), len(found.row)
    out: dict[str, Any] = {}
    for name, values in columns.items():
        if name == system_column:
            labels = np.asarray(list(systems), dtype=object)[found.system]
            out[name] = np.concatenate([values, labels])
        elif values.dtype == bool:
            out[name] = np.concatenate([values, np.zeros(m, dtype=bool)])
        else:
            out[name] = np.concatenate([values, np.full(m, np.nan)])
    out[ENTRY] = np.concatenate([np.zeros(n, dtype=np.int64), found.rank])
    if found.grade is not None:
        out[GRADE] = np.concatenate([np.full(n, np.nan), found.grade])
    return np.concatenate([rows, found.row]), out


# -- 2. the finish step: item codes ----------------------------------------------------------


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
    def build(cls, found: Entries, codes: IntArray, labels_at: Callable[[IntArray], list[object]],
              n_queries: int, n_systems: int,
              query_labels: Callable[[IntArray], list[object]], *,
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
        counts = np.bincount(every * n_groups + per_code[self.item],
                             minlength=self.n_lists * n_groups)
        return counts, length

    def at_most(self, k: int | None) -> BoolArray | slice:
        """The entries ranked at or above ``k`` (a slice when that is every entry)."""
        if k is None or not len(self.rank) or int(self.rank.max()) <= k:
            return slice(None)
        return self.rank <= k

    def named(self, codes: IntArray) -> str:
        """The first few items of ``codes`` for a message."""
        shown = ", ".join(excerpt(plain(v)) for v in self.labels(codes[:_SHOWN]))
        return shown + (", ..." if len(codes) > _SHOWN else "")


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


def of_table(table: Any, item_codes: IntArray, item_labels: Callable[[IntArray], list[object]],
             entry: IntArray, query_position: IntArray, n_queries: int,
             systems: Sequence[str], system_column: str,
             query_labels: Callable[[IntArray], list[object]], *,
             grades: bool = False) -> TopK:
    """:class:`TopK` of the per-query tables of every part (``table``: a backend over them;
    ``item_codes`` and ``item_labels(rows)`` its item key's codes, numbered in sorted
    order, and ids; ``entry`` its :data:`ENTRY` column, ``query_position`` each row's
    query position; ``grades``: it has a :data:`GRADE` column, ``Plan.grades``)."""
    rows = np.flatnonzero(entry != 0).astype(np.int64)
    codes = item_codes[rows]
    system_codes = table.codes(system_column)[rows]
    names = sorted(set(systems))  # codes follow the sorted names
    to_index = np.array([list(systems).index(name) for name in names], dtype=np.int64)
    found = Entries(query=query_position[rows], system=to_index[system_codes],
                    rank=entry[rows], row=rows)
    if grades:
        found.grade = np.asarray(table.column(GRADE), dtype=np.float64)[rows]
    return TopK.build(found, codes, item_labels, n_queries, len(systems), query_labels)


def of_frame(data: FrameData, found: Entries, n_systems: int,
             queries: Queries | None = None) -> TopK:
    """:class:`TopK` of one frame's entries (of ``queries`` when its lists are samples)."""
    n_queries, query_labels = ((data.n_queries, data.query_labels) if queries is None
                               else (queries.n_queries, queries.labels))
    if found.codes is not None:  # codes among every item of the frame
        return TopK.build(found, found.codes, data.item.labels, n_queries, n_systems,
                          query_labels, n_codes=found.n_frame_items,
                          code_labels=data.item.labels_of_codes)
    codes = data.item.codes(found.row) if len(found.row) else np.zeros(0, dtype=np.int64)
    n_codes = int(codes.max()) + 1 if len(codes) else 0  # dense ranks
    return TopK.build(found, codes, data.item.labels, n_queries, n_systems,
                      query_labels, n_codes=n_codes)


# -- the user's inputs -----------------------------------------------------------------------


@dataclass
class Inputs:
    """The options' inputs, read once: the catalog's size, each listed item's popularity
    and unit feature vector (by item code); what the metrics of a call share is built once
    (:meth:`cached`)."""

    top: TopK
    options: Options
    _cache: dict[Any, Any] = field(default_factory=dict)

    def of(self, metric: Metric) -> Inputs:
        """The inputs with ``metric``'s own options (``top1_f1(class_average=macro)``);
        the same cache (the inputs are the call's)."""
        options = metric.options_in(self.options)
        return self if options is self.options else replace(self, options=options)

    def cached(self, key: tuple[object, ...], build: Callable[[], Any]) -> Any:
        """``build()``, once per ``key`` for the call (the metrics of one call share it:
        the exposure shares of every group)."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def _used(self) -> IntArray:
        """The codes of the listed items (every code but the relevant-only ones)."""
        codes: IntArray = self._used_and_labels()[0]
        return codes

    def _used_labels(self) -> list[object]:
        labels: list[object] = self._used_and_labels()[1]
        return labels

    def _used_and_labels(self) -> tuple[IntArray, list[object]]:
        def build() -> tuple[IntArray, list[object]]:
            used = np.flatnonzero(np.bincount(self.top.item, minlength=self.top.n_codes))
            return used, self.top.labels(used)

        value: tuple[IntArray, list[object]] = self.cached(("used",), build)
        return value

    def catalog_size(self) -> int:
        """n: the items of the catalog (checked to hold every listed item)."""
        return int(self.cached(("catalog",), self._catalog_size))

    def _catalog_size(self) -> int:
        catalog = self.options.catalog
        if catalog is None:
            return self.top.n_frame_items
        keys = _index(catalog, "catalog")
        used = self._used()
        missing = used[_positions(keys, self._used_labels()) < 0]
        if len(missing):
            msg = (
                f"{len(missing)} item(s) of the top-k lists are not in the catalog: "
                f"{self.top.named(missing)}. The catalog must hold every "
                "recommended item; add them, or pass catalog=None for the items of "
                "the frame."
            )
            raise InvalidOptionError(msg)
        return len(keys)

    def _lookup(self, option: str, keys: Any) -> tuple[IntArray, IntArray]:
        """The listed items' codes and their positions in ``keys``; raises for missing
        ones."""
        used = self._used()
        positions = _positions(keys, self._used_labels(), option)
        missing = used[positions < 0]
        if len(missing):
            msg = (
                f"{len(missing)} item(s) of the top-k lists have no {option}: "
                f"{self.top.named(missing)}. Give every recommended item a value in "
                f"{option}= (rankframe never assumes 0 for a missing item)."
            )
            raise InvalidOptionError(msg)
        return used, positions

    def popularity(self) -> tuple[FloatArray, float]:
        """Per item code, its popularity (NaN for codes not listed), and the total over
        every item of ``popularity``."""
        def build() -> tuple[FloatArray, float]:
            keys, counts = _popularity(self.options.popularity)
            used, positions = self._lookup("popularity", keys)
            per_code = np.full(self.top.n_codes, np.nan)
            per_code[used] = counts[positions]
            return per_code, float(counts.sum())

        value: tuple[FloatArray, float] = self.cached(("popularity",), build)
        return value

    def features(self) -> tuple[IntArray, FloatArray]:
        """The listed items' codes and their unit feature vectors (a row per code; a zero
        vector stays zero)."""
        def build() -> tuple[IntArray, FloatArray]:
            keys, matrix = _features(self.options.item_features)
            used, positions = self._lookup("item_features", keys)
            vectors = matrix[positions]
            norm = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))
            np.divide(vectors, norm[:, None], out=vectors, where=norm[:, None] > 0)
            return used, vectors

        value: tuple[IntArray, FloatArray] = self.cached(("features",), build)
        return value

    def groups(self) -> tuple[IntArray, list[object]]:
        """Per item code, the position of its group in :func:`group_names` (-1 for the
        codes no entry holds), and those groups; an item ``item_groups`` does not list is
        in ``unknown_group``, or an error when that is None."""
        value: tuple[IntArray, list[object]] = self.cached(("groups",), self._groups)
        return value

    def whole_counts(self) -> tuple[IntArray, IntArray]:
        """Per list and group, the retrieved items of the whole list, and per list its
        length (:meth:`TopK.whole_counts`, ``ndkl``'s default target), with the groups of
        :meth:`groups`: on a large frame counted in a second thread as soon as the groups
        are known, while the other metrics of the call run."""
        per_code, names = self.groups()
        found = self._cache.get(("whole_counts",))
        if found is None:
            found = self.top.whole_counts(per_code, len(names))
            self._cache[("whole_counts",)] = found
        elif isinstance(found, Future):
            found = found.result()
            self._cache[("whole_counts",)] = found
        counts: tuple[IntArray, IntArray] = found
        return counts

    def _groups(self) -> tuple[IntArray, list[object]]:
        keys, codes, values = read_item_groups(self.options.item_groups)
        names = _sorted_groups(values, self.options.unknown_group)
        top = self.top
        held = np.zeros(max(top.n_codes, int(top.item.max(initial=-1)) + 1,
                            int(top.truth_item.max(initial=-1)) + 1), dtype=bool)
        held[top.item] = True
        held[top.truth_item] = True
        used = np.flatnonzero(held)
        labels = top.labels(used)
        if top.whole is not None:  # the items of the whole lists beyond the top k
            beyond = np.setdiff1d(top.whole.items(), used, assume_unique=True)
            used, labels = np.concatenate([used, beyond]), labels + top.whole.labels(beyond)
        positions = _positions(keys, labels, "item_groups")
        unknown = self.options.unknown_group
        if (positions < 0).any() and unknown is None:
            missing = np.flatnonzero(positions < 0)
            shown = ", ".join(excerpt(plain(labels[i])) for i in missing[:_SHOWN])
            more = ", ..." if len(missing) > _SHOWN else ""
            # the keyword as a part: the command line says it as its flag
            parts = (
                f"{len(missing)} item(s) of the top-k lists or of the relevant rows have "
                f"no group in item_groups: {shown}{more}. Give every item a group, "
                "or pass ", Keyword("unknown_group", "other"), " to put the unlisted "
                "items in a group of their own.",
            )
            raise InvalidOptionError(parts)
        index = {_group_key(g): i for i, g in enumerate(names)}
        of_unique = np.array([index[_group_key(g)] for g in values], dtype=np.int64)
        of_value = of_unique[codes] if len(codes) else codes
        size = max(top.n_codes, int(used.max()) + 1 if len(used) else 0)
        per_code = np.full(size, -1, dtype=np.int64)
        per_code[used] = np.where(
            positions >= 0, of_value[np.maximum(positions, 0)] if len(of_value) else -1,
            index.get(_group_key(unknown), -1),
        )
        whole = top.whole
        if whole is not None and len(whole.codes) >= _COUNT_IN_THREAD and \
                self.options.target is None:
            # ndkl's default target, one pass over every row: started now, beside the rest
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe")
            self._cache[("whole_counts",)] = pool.submit(top.whole_counts, per_code, len(names))
            pool.shutdown(wait=False)  # the thread ends with its one task
        return per_code, names


def _group_key(group: object) -> tuple[str, object]:
    return (type(group).__name__, group)


def read_item_groups(item_groups: Any) -> tuple[Any, IntArray, list[object]]:
    """Keys (a pandas Index of item ids), per key the position of its group among the
    distinct groups, and those groups (Python objects) of the ``item_groups`` option;
    raises for a null group or an item listed twice."""
    keys, values = _item_group_values(item_groups)
    null = (pd.isna(values) if isinstance(values, pd.api.extensions.ExtensionArray)
            else pd.isna(pd.Series(values, dtype=object)).to_numpy()) if len(values) else values
    if len(values) and null.any():
        msg = (
            f"The 'item_groups' option gives item {excerpt(plain(keys[np.argmax(null)]))} a "
            "null group; every item of item_groups needs a group (drop the item, or pass "
            "unknown_group= to name the group of unlisted items)."
        )
        raise InvalidOptionError(msg)
    keys = pd.Index(keys)
    _unique_keys(keys, "item_groups")
    codes, groups = _distinct(values)
    return keys, codes, groups


def _item_group_values(item_groups: Any) -> tuple[Any, Any]:
    """The item ids and the groups of the ``item_groups`` option, unchecked."""
    if isinstance(item_groups, pd.DataFrame):
        if item_groups.shape[1] == 2:  # (item, group) columns
            keys, values = pd.Index(item_groups.iloc[:, 0]), _values(item_groups.iloc[:, 1])
        elif item_groups.shape[1] == 1:  # one column indexed by item
            keys, values = item_groups.index, _values(item_groups.iloc[:, 0])
        else:
            msg = (
                "The 'item_groups' option, as a pandas DataFrame, must have one column (the "
                "group, indexed by item) or two (item, group). Got "
                f"{item_groups.shape[1]} columns."
            )
            raise InvalidOptionError(msg)
    elif isinstance(item_groups, pd.Series):
        keys, values = item_groups.index, _values(item_groups)
    elif hasattr(item_groups, "columns"):  # polars: (item, group)
        keys, column = _polars_mapping(item_groups, "item_groups", "its group")
        values = np.asarray(column.to_list(), dtype=object)
    else:
        keys = pd.Index(list(item_groups.keys()))
        values = np.asarray(list(item_groups.values()), dtype=object)
    return keys, values


def _values(column: pd.Series) -> Any:
    """The values of a pandas column: strings as they are stored (no Python object per
    value), others as a NumPy array."""
    return column.array if isinstance(column.dtype, pd.StringDtype) else column.to_numpy()


def _distinct(values: Any) -> tuple[IntArray, list[object]]:
    """Per value the position of its group among the distinct ones, and those (Python
    objects: a NumPy scalar as its Python value). Values of one type are hashed at once;
    mixed types (1 and 1.0 and True are different groups) one by one."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), []
    if pd.api.types.infer_dtype(values, skipna=False).startswith("mixed"):
        found: dict[tuple[str, object], int] = {}
        plain_values = [v.item() if isinstance(v, np.generic) else v for v in values]
        codes = np.array([found.setdefault(_group_key(v), len(found)) for v in plain_values],
                         dtype=np.int64)
        return codes, [key[1] for key in found]
    stored: Any = (values if isinstance(values, pd.api.extensions.ExtensionArray)
                   else np.asarray(values))
    codes, uniques = pd.factorize(stored, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), [
        u.item() if isinstance(u, np.generic) else u for u in np.asarray(uniques, dtype=object)
    ]


def group_names(options: Options) -> list[object]:
    """The groups of the ``item_groups`` option (plus ``unknown_group``), sorted (by type
    name, then value), as Python objects. Only the groups are read: the checks of the
    mapping are :func:`read_item_groups`' (when the metrics read it)."""
    values = _item_group_values(options.item_groups)[1]
    return _sorted_groups(_distinct(values)[1], options.unknown_group)


def _sorted_groups(groups: list[object], unknown: object) -> list[object]:
    found = {_group_key(v): v for v in groups}
    if unknown is not None:
        found.setdefault(_group_key(unknown), unknown)
    return [found[key] for key in sorted(found)]


def _positions(keys: Any, labels: list[object], option: str = "catalog") -> IntArray:
    """The position of each id of ``labels`` in ``keys`` (-1 where it is missing); raises
    for ids that ``keys`` lists more than once. Short string ids (the usual kind) by a
    search among their 64-bit keys (:class:`~rankframe.engine.ShortIds`), others by the
    index's hash table."""
    if not labels:
        return np.zeros(0, dtype=np.int64)
    ids = _short_ids(keys)
    if ids is not None and ids.unique() and set(map(type, labels)) == {str}:
        found = ids.positions(pa.array(labels, type=pa.string()))
        if found is not None:
            return found
    wanted = pd.Index(np.asarray(labels, dtype=object) if _mixed(labels) else labels)
    try:
        return np.asarray(keys.get_indexer(wanted), dtype=np.int64)
    except pd.errors.InvalidIndexError:  # only a unique index looks ids up
        _unique_keys(keys, option)
        raise


def _mixed(labels: list[object]) -> bool:
    return len({type(v) for v in labels[:1000]}) > 1


def _index(values: Any, option: str) -> Any:
    """A pandas Index of the ids, each once; raises for null ids."""
    if hasattr(values, "to_list") and not isinstance(values, pd.Index | pd.Series):
        values = values.to_list()  # polars
    index = pd.Index(list(values) if isinstance(values, set | frozenset) else values)
    if index.hasnans:
        msg = f"The '{option}' option holds a null item id; drop it first."
        raise InvalidOptionError(msg)
    return index.unique()


def _short_ids(index: Any) -> ShortIds | None:
    """The ids of a pandas Index of strings, when every one is short (:class:`ShortIds`)."""
    if not isinstance(index.dtype, pd.StringDtype):
        return None
    return ShortIds.of(pa.array(index))


def _unique_keys(index: Any, option: str) -> None:
    ids = _short_ids(index)
    if not (index.is_unique if ids is None else ids.unique()):
        repeated = index[index.duplicated()][0]
        msg = (
            f"The '{option}' option lists item {excerpt(plain(repeated))} more than once; "
            "give each item one value."
        )
        raise InvalidOptionError(msg)


def _numbers(values: Any, option: str, what: str) -> FloatArray:
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"The '{option}' option must hold numbers ({what}); got non-numeric values."
        raise InvalidOptionError(msg) from None
    if not np.isfinite(out).all():
        msg = f"The '{option}' option holds a null, NaN or infinite value; {what} are finite."
        raise InvalidOptionError(msg)
    return out


def _polars_mapping(frame: Any, option: str, value: str) -> tuple[pd.Index, Any]:
    """A polars DataFrame option of two columns (item, ``value``): the items as a pandas
    Index, and the second column (a polars Series)."""
    if len(frame.columns) != 2:
        msg = (
            f"The '{option}' option, as a polars DataFrame, must have two columns: the "
            f"item, then {value}. Got {len(frame.columns)} columns."
        )
        raise InvalidOptionError(msg)
    return pd.Index(frame[:, 0].to_list()), frame[:, 1]


def _popularity(popularity: Any) -> tuple[Any, FloatArray]:
    """Keys (a pandas Index) and counts of the ``popularity`` option."""
    if isinstance(popularity, pd.DataFrame):  # one column, indexed by item
        popularity = popularity.iloc[:, 0]
    if isinstance(popularity, pd.Series):
        keys, values = popularity.index, popularity.to_numpy()
    elif hasattr(popularity, "columns"):  # polars: (item, count)
        keys, column = _polars_mapping(popularity, "popularity", "its count")
        values = column.to_numpy()
    else:
        keys = pd.Index(list(popularity.keys()))
        values = np.asarray(list(popularity.values()), dtype=object)
    counts = _numbers(values, "popularity", "interaction counts")
    if (counts < 0).any():
        msg = "The 'popularity' option holds a negative count; counts are >= 0."
        raise InvalidOptionError(msg)
    return pd.Index(keys), counts


def _features(features: Any) -> tuple[Any, FloatArray]:
    """Keys (a pandas Index) and the matrix of the ``item_features`` option."""
    if isinstance(features, pd.DataFrame):
        keys, values = features.index, features.to_numpy()
    else:  # polars: the first column is the item
        keys = pd.Index(features[:, 0].to_list())
        values = features[:, 1:].to_numpy()
    if values.ndim != 2 or values.shape[1] == 0:
        msg = "The 'item_features' option has no feature column."
        raise InvalidOptionError(msg)
    return pd.Index(keys), np.array(_numbers(values, "item_features", "features"), order="C")


# -- per-query item metrics --------------------------------------------------------------------


def lists_at(top: TopK, k: int | None) -> tuple[IntArray, IntArray, BoolArray | slice]:
    """Per entry at or above k, its list (:meth:`TopK.list_of`); per list, its length;
    which entries those are (computed once per k)."""
    if k not in top._lists:
        keep = top.at_most(k)
        lists = top.list_of(keep)
        top._lists[k] = lists, np.bincount(lists, minlength=top.n_lists), keep
    return top._lists[k]


def _per_list_mean(top: TopK, k: int | None, per_code: FloatArray) -> FloatArray:
    """The mean of a per-item value over each list (0 for an empty list)."""
    lists, length, keep = lists_at(top, k)
    sums = segments.sums(lists, per_code[top.item[keep]], len(length))
    out = np.zeros(len(length))
    np.divide(sums, length, out=out, where=length > 0)
    return top.per_query(out)


def average_popularity(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """Mean popularity of the items of each list."""
    return _per_list_mean(top, k, inputs.popularity()[0])


def novelty(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """Mean self-information -log2(popularity / total) of the items of each list."""
    per_code, total = inputs.popularity()
    _, _, keep = lists_at(top, k)
    listed = np.flatnonzero(np.bincount(top.item[keep], minlength=top.n_codes))
    zero = listed[per_code[listed] <= 0]
    if len(zero):
        msg = (
            f"{len(zero)} item(s) of the top-k lists have popularity 0, so infinite novelty "
            f"(-log2 of their share of the interactions): {top.named(zero)}. Smooth the "
            "counts (e.g. add 1 to every count) or leave novelty out."
        )
        raise InvalidOptionError(msg)
    with np.errstate(divide="ignore", invalid="ignore"):
        information = -np.log2(per_code / total)
    return _per_list_mean(top, k, information)


def intra_list_diversity(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """Mean over the pairs of each list's items of 1 - cos(f_i, f_j) (0 for a list of
    fewer than two items).

    With unit vectors u_i, the sum of cos over the pairs of a list is
    (‖Σ u_i‖² - Σ ‖u_i‖²) / 2: one sparse (list x item) product with the vectors gives
    every list's Σ u_i, a block of lists at a time.
    """
    from scipy import sparse  # heavy (about 0.4 s): loaded when ild is computed, not on import

    used, vectors = inputs.features()
    local = np.full(top.n_codes, -1, dtype=np.int64)
    local[used] = np.arange(len(used))
    lists, length, keep = lists_at(top, k)
    item = local[top.item[keep]]
    squares = np.einsum("ij,ij->i", vectors, vectors)  # 1, or 0 for a zero vector
    own = segments.sums(lists, squares[item], len(length))
    pointer = np.concatenate([[0], np.cumsum(length)])  # entries run by list
    total = np.empty(len(length))
    for start in range(0, len(length), _LISTS_PER_BLOCK):
        stop = min(start + _LISTS_PER_BLOCK, len(length))
        lo, hi = pointer[start], pointer[stop]
        block = sparse.csr_matrix(
            (np.ones(hi - lo), item[lo:hi], pointer[start : stop + 1] - lo),
            shape=(stop - start, len(used)),
        )
        sums = block @ vectors
        total[start:stop] = np.einsum("ij,ij->i", sums, sums)
    pairs = length * (length - 1) / 2.0
    cosines = (total - own) / 2.0
    out = np.zeros(len(length))
    np.divide(cosines, pairs, out=out, where=pairs > 0)
    return top.per_query(np.where(pairs > 0, 1.0 - out, 0.0))


# -- set-level metrics -------------------------------------------------------------------------


@dataclass
class Tally:
    """Weighted counts of (set, key) pairs: each entry belongs to a query (whose weight it
    adds) and to a set (a (segment, system) pair) and has a key (an item, a class). The
    pairs are found once; :meth:`counts` is one ``bincount`` per set of weights."""

    set: IntArray
    key: IntArray
    inverse: IntArray
    query: IntArray

    @classmethod
    def of(cls, sets: IntArray, keys: IntArray, query: IntArray, n_keys: int) -> Tally:
        width = max(n_keys, 1)
        pair = sets * width + keys
        span = (int(sets.max()) + 1) * width if len(sets) else 0
        if span <= max(4 * len(pair), 1 << 20):  # a count per possible pair: no sort
            present = np.bincount(pair, minlength=span) > 0
            uniques = np.flatnonzero(present)
            inverse = (np.cumsum(present) - 1)[pair]
        else:
            uniques, inverse = np.unique(pair, return_inverse=True)
        return cls(uniques // width, uniques % width, inverse.astype(np.int64).reshape(-1),
                   query)

    def counts(self, weights: FloatArray, scale: FloatArray | None = None) -> FloatArray:
        """Per pair, the sum of its entries' query weights (times ``scale`` per entry)."""
        w = weights[self.query] if scale is None else weights[self.query] * scale
        return segments.sums(self.inverse, w, len(self.set))


@dataclass
class Sets:
    """What a set-level metric reads for one set of query weights: per (segment, system)
    set ``g = segment * n_systems + system``, the weighted number of lists ``n_lists``, and
    the weighted item counts (:class:`Tally` ``items`` and ``counts``); for top1_f1 the
    class counts."""

    n_sets: int
    n_lists: FloatArray
    items: Tally
    counts: FloatArray
    classes: Tally | None = None
    true: FloatArray | None = None
    predicted: FloatArray | None = None
    hits: FloatArray | None = None
    total: FloatArray | None = None


def coverage(sets: Sets, _k: int | None, inputs: Inputs) -> FloatArray:
    """|union of the L_q| / n."""
    listed = np.bincount(sets.items.set, weights=sets.counts > 0, minlength=sets.n_sets)
    return listed / inputs.catalog_size()


def gini(sets: Sets, _k: int | None, inputs: Inputs) -> FloatArray:
    """Σ_i (2i - n - 1) c_(i) / (n Σ c), counts sorted ascending over the n catalog items
    (the items no list holds first, with c = 0); NaN when no list holds an item."""
    n = inputs.catalog_size()
    c = sets.counts
    g = sets.items.set
    order = np.lexsort((c, g))
    g_sorted, c_sorted = g[order], c[order]
    listed = np.bincount(g, minlength=sets.n_sets)
    first = segments.offsets(listed)
    position = np.arange(len(order)) - first[g_sorted] + 1  # 1-based within the set
    i = (n - listed[g_sorted]) + position  # after the n - listed zeros
    numerator = np.bincount(g_sorted, weights=(2.0 * i - n - 1.0) * c_sorted,
                            minlength=sets.n_sets)
    total = np.bincount(g, weights=c, minlength=sets.n_sets)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, numerator / (n * total), np.nan)


def entropy(sets: Sets, _k: int | None, _inputs: Inputs) -> FloatArray:
    """-Σ p_i ln p_i, p_i = c_i / Σ c, over the items some list holds."""
    g, c = sets.items.set, sets.counts
    total = np.bincount(g, weights=c, minlength=sets.n_sets)
    p = np.zeros(len(c))
    np.divide(c, total[g], out=p, where=c > 0)
    terms = np.zeros(len(c))
    np.multiply(p, np.log(p, out=np.zeros(len(c)), where=p > 0), out=terms)
    return 0.0 - segments.sums(g, terms, sets.n_sets)


def personalization(sets: Sets, k: int | None, _inputs: Inputs) -> FloatArray:
    """1 - (Σ_i c_i (c_i - 1) / 2) / (k · Q (Q - 1) / 2) over Q lists: one minus the mean
    share of k items two lists have in common; NaN for fewer than two lists."""
    assert k is not None  # ItemMetric.cutoff: check asks for one
    c = sets.counts
    shared = np.bincount(sets.items.set, weights=c * (c - 1.0) / 2.0, minlength=sets.n_sets)
    q = sets.n_lists
    pairs = q * (q - 1.0) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, 1.0 - shared / (k * pairs), np.nan)


def top1_f1(sets: Sets, _k: int | None, inputs: Inputs) -> FloatArray:
    """scikit-learn's ``f1_score(y_true, y_pred, average=class_average)`` with y_true each
    query's relevant item and y_pred its rank-1 item, per set."""
    assert sets.classes is not None
    assert sets.true is not None
    assert sets.predicted is not None
    assert sets.hits is not None
    assert sets.total is not None
    g = sets.classes.set
    true, predicted, hits = sets.true, sets.predicted, sets.hits
    present = (true + predicted) > 0  # the classes of y_true and y_pred
    f1 = np.zeros(len(g))
    np.divide(2.0 * hits, true + predicted, out=f1, where=present)
    average = inputs.options.class_average
    with np.errstate(invalid="ignore", divide="ignore"):
        if average == "micro":  # accuracy
            return np.bincount(g, weights=hits, minlength=sets.n_sets) / sets.total
        if average == "macro":
            n_classes = np.bincount(g, weights=present, minlength=sets.n_sets)
            return np.bincount(g, weights=f1, minlength=sets.n_sets) / n_classes
        support = np.bincount(g, weights=true, minlength=sets.n_sets)
        return np.bincount(g, weights=f1 * true, minlength=sets.n_sets) / support


@dataclass
class Classes:
    """top1_f1's (set, class) pairs: ``tally`` counts each list's true class (its entries
    are the lists, in (query, system) order), ``predicted`` is the pair of each list's
    predicted class, ``hit`` whether the two agree."""

    tally: Tally
    predicted: IntArray
    hit: FloatArray


@dataclass
class SetValues:
    """The set-level metrics of a request as a function of query weights.

    ``columns``: their positions among the request's metrics; ``self(weights)`` gives their
    values, shape (n_segments, n_systems, len(columns)), for per-query weights (the
    included queries' 1s, or a bootstrap resample's multiplicities).
    """

    columns: list[int]
    metrics: list[Metric]
    inputs: Inputs
    n_segments: int
    n_systems: int
    segment: IntArray
    items: dict[int | None, Tally]
    classes: Classes | None

    def __call__(self, weights: FloatArray) -> FloatArray:
        n_sets = self.n_segments * self.n_systems
        per_segment = np.bincount(self.segment, weights=weights, minlength=self.n_segments)
        n_lists = np.repeat(per_segment, self.n_systems).astype(np.float64)
        out = np.empty((self.n_segments, self.n_systems, len(self.columns)))
        for j, metric in enumerate(self.metrics):
            item = _item(metric)
            assert item is not None
            assert item.per_set is not None
            tally = self.items[item.depth or _cutoff(metric)]
            sets = Sets(n_sets, n_lists, tally, tally.counts(weights))
            if item.truth and self.classes is not None:
                classes = self.classes.tally
                sets.classes = classes
                sets.true = classes.counts(weights)
                sets.predicted = segments.sums(self.classes.predicted, weights[classes.query],
                                       len(classes.set))
                sets.hits = classes.counts(weights, self.classes.hit)
                sets.total = n_lists
            out[:, :, j] = item.per_set(sets, _cutoff(metric), self.inputs.of(metric)).reshape(
                self.n_segments, self.n_systems
            )
        return out


# -- the finish step ----------------------------------------------------------------------------


def complete(values: FloatArray, top: TopK, metrics: Sequence[Metric], options: Options,
             segment: IntArray, n_segments: int) -> SetValues | None:
    """Fill ``values`` (n_queries, n_systems, n_metrics) with the per-query item metrics;
    the set-level metrics as a :class:`SetValues` (``None`` without any)."""
    inputs = Inputs(top, options)
    columns, set_metrics = [], []
    aside = _aside(top, metrics, inputs)
    for j, metric in enumerate(metrics):
        item = _item(metric)
        if item is None:
            continue
        if item.catalog:
            inputs.catalog_size()  # checks the catalog
        if j in aside:
            values[:, :, j] = aside[j].result()
        elif item.per_query is not None:
            values[:, :, j] = item.per_query(top, _cutoff(metric), inputs.of(metric))
        else:
            columns.append(j)
            set_metrics.append(metric)
    if not columns:
        return None
    list_set = segment[top.query] * top.n_systems + top.system
    items = {}
    classes = None
    for metric in set_metrics:
        item = _item(metric)
        assert item is not None
        depth = item.depth or _cutoff(metric)
        if depth not in items:
            keep = top.at_most(depth)
            items[depth] = Tally.of(list_set[keep], top.item[keep], top.query[keep],
                                    top.n_codes)
        if item.truth and classes is None:
            classes = _classes(top, segment, left_out=options.empty in _LEFT_OUT)
    return SetValues(columns, set_metrics, inputs, n_segments, top.n_systems, segment, items,
                     classes)


def _aside(top: TopK, metrics: Sequence[Metric], inputs: Inputs) -> dict[int, Future[Any]]:
    """On a large frame, the metrics that read sampled rankings (expected exposure: no
    groups, no catalogue; only the entries, which no metric changes), computed in a second
    thread while the others run: their futures by position. Their values, and errors, are
    taken in the metrics' order."""
    chosen = [(j, item) for j, m in enumerate(metrics)
              if (item := _item(m)) is not None and item.samples and item.per_query]
    others = sum(1 for m in metrics if _item(m) is not None) - len(chosen)
    if not chosen or not others or len(top.rank) < _COUNT_IN_THREAD:
        return {}
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe")
    aside = {j: pool.submit(item.per_query, top, _cutoff(metrics[j]), inputs.of(metrics[j]))
             for j, item in chosen if item.per_query is not None}
    pool.shutdown(wait=False)  # the thread ends with its tasks
    return aside


# The ``empty=`` values under which a query without a relevant item has no class at all
# for top1_f1: "skip" and "nan" leave it out of every mean (its weight is then 0), "error"
# raises EmptyQueryError naming it after this step (``_pipeline._included``). Under "zero"
# and "one" it would enter the set with no true class, which F1 does not define: an error.
_LEFT_OUT = ("skip", "nan", "error")


def _classes(top: TopK, segment: IntArray, *, left_out: bool = False) -> Classes:
    """top1_f1's classes: per (query, system), its true class (its one relevant item) and
    its predicted class (its rank-1 item); raises for a query without exactly one relevant
    item, or a list without a rank-1 item. With ``left_out`` (``empty="skip"``, ``"nan"``,
    ``"error"``) a query without a relevant item has no list here instead of an error."""
    per_query = np.bincount(top.truth_query, minlength=top.n_queries)
    wrong = np.flatnonzero((per_query > 1) if left_out else (per_query != 1))
    if len(wrong):
        names = ", ".join(excerpt(plain(q)) for q in top.query_labels(wrong[:_SHOWN]))
        more = ", ..." if len(wrong) > _SHOWN else ""
        leave_out: tuple[str | Keyword, ...] = ()
        if not left_out and (per_query == 0).any():
            leave_out = (", or pass ", Keyword("empty", "skip"), " to leave the queries "
                         "without a relevant item out")
        parts = (
            "top1_f1 needs exactly one relevant item per query (its true class); "
            f"{len(wrong)} quer{'y has' if len(wrong) == 1 else 'ies have'} another number "
            f"(the first has {per_query[wrong[0]]}): {names}{more}. Keep one relevant row "
            "per query, or set min_relevance to the grade of the true item", *leave_out, ".",
        )
        raise InvalidDataError(parts)
    n_all = top.n_queries * top.n_systems
    first = top.rank == 1
    predicted = np.full(n_all, -1, dtype=np.int64)
    predicted[top.query[first] * top.n_systems + top.system[first]] = top.item[first]
    # the lists of the queries with a true class, in (query, system) order
    lists = np.flatnonzero(np.repeat(per_query == 1, top.n_systems))
    n_lists = len(lists)
    missing = lists[predicted[lists] < 0]
    if len(missing):
        queries = top.query_labels(missing[:_SHOWN] // top.n_systems)
        names = ", ".join(excerpt(plain(q)) for q in queries)
        more = ", ..." if len(missing) > _SHOWN else ""
        msg = (
            f"top1_f1 needs a rank-1 item in every query; {len(missing)} list(s) retrieved "
            f"nothing: {names}{more}. Give those queries a scored row, or leave them out."
        )
        raise InvalidDataError(msg)
    predicted = predicted[lists]
    true = np.repeat(top.truth_item, top.n_systems)  # per list, in (query, system) order
    query = lists // top.n_systems
    system = lists % top.n_systems
    sets = segment[query] * top.n_systems + system
    # one numbering of the (set, class) pairs of the true and the predicted classes
    both = Tally.of(np.concatenate([sets, sets]), np.concatenate([true, predicted]),
                    np.concatenate([query, query]), top.n_codes)
    return Classes(
        tally=Tally(both.set, both.key, both.inverse[:n_lists], query),
        predicted=both.inverse[n_lists:],
        hit=(true == predicted).astype(np.float64),
    )
