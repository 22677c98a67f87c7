"""The per-query step's part of the beyond-accuracy metrics: which rows carry items.

For every system the rows ranked at or above the deepest cut-off the request's item
metrics read (``item_values.Plan``), and, where a metric needs them, each query's relevant
rows (``top1_f1``) and a row of each distinct item of the frame (the default catalog), are
recorded as :class:`~rankframe.metrics.item_codes.Entries` by a :class:`Recorder` while
the frame is ranked. Item codes are per frame, and a partitioned frame's parts each number
their own items, so on parts the entries cross the seam as rows of the per-query table
(:func:`with_entries`) carrying the item column itself: its id, not a code; the finish
step numbers the ids of every part at once (:func:`of_table`). One frame gives its
:class:`~rankframe.metrics.item_codes.TopK` at once (:func:`of_frame`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rankframe.engine import THREAD_ROWS, segments
from rankframe.metrics.item_codes import CATALOG, ENTRY, GRADE, TRUTH, Entries, TopK, WholeLists

if TYPE_CHECKING:
    from rankframe.engine import FrameData, Ranking
    from rankframe.metrics.item_values import Plan
    from rankframe.settings.options import Options

__all__ = [
    "ItemDictionary",
    "Queries",
    "Recorder",
    "encode_items",
    "entries",
    "of_frame",
    "of_table",
    "positive_entries",
    "top_rows",
    "with_entries",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


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
    if (
        wanted is None
        or part
        or not (wanted.frame_items or wanted.depth is None or wanted.whole_list)
    ):
        return lambda: None
    if data.n_rows < THREAD_ROWS:
        encoded = data.item.dictionary()
        return lambda: encoded
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe")
    encoding = pool.submit(data.item.dictionary)
    pool.shutdown(wait=False)  # the thread ends with its one task
    return encoding.result


def entries(
    data: FrameData,
    tops: Sequence[tuple[IntArray, IntArray, IntArray]],
    wanted: Plan,
    options: Options,
    *,
    part: bool,
    dictionary: ItemDictionary = lambda: None,
    retrieved: Sequence[IntArray | None] = (),
    positives: Sequence[tuple[IntArray, IntArray]] = (),
    every: tuple[IntArray, IntArray] | None = None,
) -> Entries:
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
    found = Entries(
        query=np.concatenate(query),
        system=np.concatenate(system),
        rank=np.concatenate(rank),
        row=np.concatenate(row),
        n_top=sum(len(q) for q, _, _ in tops),
    )
    if wanted.grades:
        found.grade = _grades(data, found, options, tops, positives)
    encoded = dictionary()
    if encoded is not None:
        found.codes = encoded[0][found.row].astype(np.int64)
        found.n_frame_items = encoded[1]
        if wanted.whole_list and wanted.depth is not None:
            found.whole = WholeLists(
                np.asarray(data.query_codes),
                np.asarray(encoded[0]),
                list(retrieved),
                data.n_queries,
                data.item.labels,
                encoded[1],
                data.item.labels_of_codes,
            )
    return found


def positive_entries(
    ranking: Ranking, depth: int | None, rows: IntArray
) -> tuple[IntArray, IntArray]:
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


def _relevant_rows(
    data: FrameData, options: Options, every: tuple[IntArray, IntArray] | None
) -> tuple[IntArray, IntArray | None]:
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


def _grades(
    data: FrameData,
    found: Entries,
    options: Options,
    tops: Sequence[tuple[IntArray, IntArray, IntArray]],
    positives: Sequence[tuple[IntArray, IntArray]],
) -> FloatArray:
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
        found = entries(
            self.data,
            self.tops,
            self.wanted,
            self.options,
            part=self.part,
            dictionary=self.dictionary,
            retrieved=self.retrieved,
            positives=self.positives,
            every=self.every,
        )
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


def with_entries(
    rows: IntArray,
    columns: dict[str, Any],
    found: Entries,
    systems: Sequence[str],
    system_column: str,
) -> tuple[IntArray, dict[str, Any]]:
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


def of_table(
    table: Any,
    item_codes: IntArray,
    item_labels: Callable[[IntArray], list[object]],
    entry: IntArray,
    query_position: IntArray,
    n_queries: int,
    systems: Sequence[str],
    system_column: str,
    query_labels: Callable[[IntArray], list[object]],
    *,
    grades: bool = False,
) -> TopK:
    """:class:`TopK` of the per-query tables of every part (``table``: a backend over them;
    ``item_codes`` and ``item_labels(rows)`` its item key's codes, numbered in sorted
    order, and ids; ``entry`` its :data:`ENTRY` column, ``query_position`` each row's
    query position; ``grades``: it has a :data:`GRADE` column, ``Plan.grades``)."""
    rows = np.flatnonzero(entry != 0).astype(np.int64)
    codes = item_codes[rows]
    system_codes = table.codes(system_column)[rows]
    names = sorted(set(systems))  # codes follow the sorted names
    to_index = np.array([list(systems).index(name) for name in names], dtype=np.int64)
    found = Entries(
        query=query_position[rows], system=to_index[system_codes], rank=entry[rows], row=rows
    )
    if grades:
        found.grade = np.asarray(table.column(GRADE), dtype=np.float64)[rows]
    return TopK.build(found, codes, item_labels, n_queries, len(systems), query_labels)


def of_frame(
    data: FrameData, found: Entries, n_systems: int, queries: Queries | None = None
) -> TopK:
    """:class:`TopK` of one frame's entries (of ``queries`` when its lists are samples)."""
    n_queries, query_labels = (
        (data.n_queries, data.query_labels)
        if queries is None
        else (queries.n_queries, queries.labels)
    )
    if found.codes is not None:  # codes among every item of the frame
        return TopK.build(
            found,
            found.codes,
            data.item.labels,
            n_queries,
            n_systems,
            query_labels,
            n_codes=found.n_frame_items,
            code_labels=data.item.labels_of_codes,
        )
    codes = data.item.codes(found.row) if len(found.row) else np.zeros(0, dtype=np.int64)
    n_codes = int(codes.max()) + 1 if len(codes) else 0  # dense ranks
    return TopK.build(
        found, codes, data.item.labels, n_queries, n_systems, query_labels, n_codes=n_codes
    )
