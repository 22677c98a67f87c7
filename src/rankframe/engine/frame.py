"""What the engine reads: :class:`FrameData` (a frame's columns as NumPy arrays, built by an
adapter), and the small helpers every step shares (blocks, runs, dense ranks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from rankframe.engine.sorting import sort_keys
from rankframe.exceptions import InvalidDataError, plain

IntArray = npt.NDArray[np.int64]
# codes of a column (queries, `by` values): int32 when an adapter can (half the memory)
CodeArray = npt.NDArray[np.int32] | npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

BLOCK = 1 << 15  # entries per block of the passes over all rows (see blocks)

#: Integers up to this magnitude are exact in float64; beyond it, neighbours share a float.
EXACT_INTEGER = 2**53
#: Decimals of at most this many digits stay distinct and in order as float64 numbers.
EXACT_DIGITS = 15


class ItemSource(Protocol):
    """What an adapter's item column answers, by row position of its frame: the typed
    record an adapter implements (a class with these methods, not closures), which
    :meth:`ItemColumn.of` reads. The methods are those of :class:`ItemColumn`'s fields of
    the same names; ``hashed_ranks`` may return :meth:`dense_ranks`' answer, and
    ``code_labels`` ``None`` where the adapter keeps no sorted distinct values."""

    def dense_ranks(self, rows: IntArray) -> IntArray: ...

    def hash(self) -> npt.NDArray[np.uint64]: ...

    def value(self, row: int) -> object: ...

    def values(self, rows: IntArray) -> list[object]: ...

    def first_of_each(self) -> IntArray: ...

    def encode(self) -> tuple[CodeArray, int]: ...

    def hashed_ranks(self, rows: IntArray) -> IntArray: ...

    def code_labels(self, codes: IntArray) -> list[object] | None: ...


@dataclass(frozen=True)
class ItemColumn:
    """The item column as the engine reads it: a few operations by row position, built by
    an adapter over its own column (the callbacks, each over the frame's rows).

    Row positions are the frame's; a block of queries (:func:`query_blocks`) reads the same
    column through :meth:`at`, with its own positions from 0 mapped to the frame's.

    Attributes
    ----------
    dense_ranks
        ``dense_ranks(rows)``: the dense ranks of the items at those rows in ascending
        order of the ids (strings compare as strings, numbers as numbers, Python objects
        by type, then value: :func:`rankframe.engine.encoding.object_ranks`).
    hash
        ``hash()``: per row a 64-bit hash of the item, equal for equal items (the
        duplicate-item check).
    value
        ``value(row)``: the item at a row, for messages.
    values
        ``values(rows)``: the items at those rows as Python objects (the ids of the
        beyond-accuracy metrics' lookups, :mod:`rankframe.metrics.item_inputs`).
    first_of_each
        ``first_of_each()``: the row of each distinct item's first occurrence.
    encode
        ``encode()``: per row the dense rank of its item (by hashing) and the number of
        distinct items.
    hashed_ranks
        ``hashed_ranks(rows)``: :attr:`dense_ranks` computed by hashing (faster on many
        rows, for the dtypes whose hash and order agree, strings); ``None``: the same as
        ``dense_ranks``.
    rows
        A block's rows, as positions in the frame (``None``: the frame's own column).
    code_labels
        ``code_labels(codes)``: the items of codes of :attr:`encode`, read from its sorted
        distinct values (no row needed), once ``encode()`` has run; ``None`` (the field, or
        its result) where the adapter has no such values: the ids are then read at rows.
    """

    dense_ranks: Callable[[IntArray], IntArray]
    hash: Callable[[], npt.NDArray[np.uint64]]
    value: Callable[[int], object]
    values: Callable[[IntArray], list[object]]
    first_of_each: Callable[[], IntArray]
    encode: Callable[[], tuple[CodeArray, int]]
    hashed_ranks: Callable[[IntArray], IntArray] | None = None
    rows: IntArray | None = None
    code_labels: Callable[[IntArray], list[object] | None] | None = None

    @classmethod
    def of(cls, source: ItemSource) -> ItemColumn:
        """The column an adapter's :class:`ItemSource` answers for."""
        return cls(
            dense_ranks=source.dense_ranks,
            hash=source.hash,
            value=source.value,
            values=source.values,
            first_of_each=source.first_of_each,
            encode=source.encode,
            hashed_ranks=source.hashed_ranks,
            code_labels=source.code_labels,
        )

    @classmethod
    def of_codes(
        cls, codes: IntArray, first: IntArray, labels: Callable[[IntArray], list[object]]
    ) -> ItemColumn:
        """The column of a composite item key from its codes (per row, numbered in sorted
        order of the ids: :func:`~rankframe.engine.encoding.composite_codes`), the first
        row of each code and ``labels(rows)``, the ids at rows (tuples)."""

        def dense_ranks(rows: IntArray) -> IntArray:
            return np.unique(codes[rows], return_inverse=True)[1].astype(np.int64).reshape(-1)

        def hashes() -> npt.NDArray[np.uint64]:  # one to one, spread over the high bits
            return codes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)

        return cls(
            dense_ranks=dense_ranks,
            hash=hashes,
            value=lambda row: labels(np.array([row], dtype=np.int64))[0],
            values=labels,
            first_of_each=lambda: np.sort(first),
            encode=lambda: (codes, len(first)),
        )

    def _frame_rows(self, at: IntArray) -> IntArray:
        return at if self.rows is None else self.rows[at]

    def at(self, rows: IntArray) -> ItemColumn:
        """The column at ``rows`` (positions in this column), positions from 0."""
        return replace(self, rows=self._frame_rows(rows))

    def ranks(self, at: IntArray) -> IntArray:
        """The dense ranks of the items at ``at`` in ascending order of the ids."""
        return self.dense_ranks(self._frame_rows(at))

    def codes(self, at: IntArray) -> IntArray:
        """:meth:`ranks`, by hashing where the adapter can."""
        return (self.hashed_ranks or self.dense_ranks)(self._frame_rows(at))

    def hashes(self) -> npt.NDArray[np.uint64]:
        """Per row a 64-bit hash of the item."""
        hashes = self.hash()
        return hashes if self.rows is None else hashes[self.rows]

    def label(self, row: int) -> object:
        """The item at ``row``, for messages."""
        return self.value(int(self._frame_rows(np.asarray(row))))

    def labels(self, at: IntArray) -> list[object]:
        """The items at ``at`` as Python objects."""
        return self.values(self._frame_rows(at))

    def dictionary(self) -> tuple[CodeArray, int]:
        """Per row the dense rank of its item, and the number of distinct items."""
        codes, n = self.encode()
        if self.rows is None:
            return codes, n
        present = np.bincount(codes[self.rows], minlength=n) > 0
        dense = (np.cumsum(present) - 1)[codes[self.rows]]
        return dense.astype(np.int64), int(present.sum())

    def labels_of_codes(self, codes: IntArray) -> list[object] | None:
        """The items of codes of :meth:`dictionary` (after it ran), or ``None`` when they
        can only be read at rows (a block's column, or an adapter without the values)."""
        if self.rows is not None or self.code_labels is None:
            return None
        return self.code_labels(codes)

    def distinct(self) -> IntArray:
        """A row of each distinct item: its first."""
        if self.rows is None:
            return self.first_of_each()
        first = np.unique(self.dictionary()[0], return_index=True)[1]
        return np.sort(first).astype(np.int64)


@dataclass
class FrameData:
    """A frame's columns as the engine needs them (built by an adapter).

    Attributes
    ----------
    query_codes
        Per row, the query's code in ``0 .. n_queries - 1`` (int32 or int64); codes follow
        the sorted order of the query values, so outputs come out sorted by query.
    n_queries
        Number of distinct queries.
    score
        Per row, the score as float64, in the order of the scores (:func:`scores_in_order`);
        NaN means judged but not retrieved.
    relevant
        Per row, the grade: float, integer or bool (never null). Only the few rows that a
        metric reads are converted to float64.
    item
        The item column (:class:`ItemColumn`): ranks, hashes and ids by row position.
    query_labels
        ``query_labels(codes)`` gives the query values of those codes, for messages.
    segments
        For each ``by`` column: its name and per row an integer code of its value (int32 or
        int64).
    flavour
        ``"pandas"`` or ``"polars"``: the library whose spelling the fixes in messages use.
    systems
        With several score columns (systems judged on the same grades): each column's name
        and its scores; ``score`` is the first. Empty for one score column.
    judged
        Per row, whether it is judged; ``None`` when every row is (the usual case, which
        costs nothing). An unjudged row has grade 0 (see :func:`with_judged`).
    """

    query_codes: CodeArray
    n_queries: int
    score: FloatArray
    relevant: npt.NDArray[Any]
    item: ItemColumn
    query_labels: Callable[[IntArray], list[object]]
    segments: list[tuple[str, CodeArray]] = field(default_factory=list)
    systems: list[tuple[str, FloatArray]] = field(default_factory=list)
    flavour: str = "pandas"
    judged: BoolArray | None = None

    @property
    def n_rows(self) -> int:
        return len(self.query_codes)

    def first_rows(self) -> IntArray:
        """Per query, the position of its first row."""
        first = np.empty(self.n_queries, dtype=np.int64)
        positions = np.arange(self.n_rows - 1, -1, -1, dtype=np.int64)
        first[self.query_codes[::-1]] = positions
        return first


def with_judged(
    data: FrameData,
    judged: npt.NDArray[Any] | None,
    *,
    null_grades: bool,
    columns: tuple[str, str, str],
) -> FrameData:
    """``data`` with its judged flags: from a boolean column (``judged``, or ``None``) and,
    with ``null_grades``, from the null (NaN) grades, which become 0. ``columns``: the names
    of the item, relevant and judged columns, for the error.

    Raises :class:`~rankframe.exceptions.InvalidDataError` for an unjudged row whose grade
    is not 0 (an unjudged row counts as grade 0 for every metric). The flags are ``None``
    when every row is judged.
    """
    grade = data.relevant
    flags = None if judged is None else np.asarray(judged, dtype=bool)
    if flags is not None and not flags.all():
        graded = ~flags & (grade != 0)
        if grade.dtype.kind == "f":
            graded &= ~np.isnan(grade)
        if graded.any():
            raise _graded_unjudged(data, graded, columns)
    if null_grades and grade.dtype.kind == "f":
        missing = np.isnan(grade)
        if missing.any():
            grade = np.where(missing, 0.0, grade)
            flags = ~missing if flags is None else flags & ~missing
    if flags is not None and flags.all():
        flags = None
    if flags is None and grade is data.relevant and data.judged is None:
        return data
    return replace(data, relevant=grade, judged=flags)


def _graded_unjudged(
    data: FrameData, graded: BoolArray, columns: tuple[str, str, str]
) -> InvalidDataError:
    """The error for unjudged rows with a grade: names the first of the first query."""
    item, relevant, judged = columns
    rows = np.flatnonzero(graded)
    row = int(rows[np.argmin(data.query_codes[rows])])  # the first of the lowest query
    code = data.query_codes[row : row + 1].astype(np.int64)
    msg = (
        f"{len(rows):,} row(s) are unjudged (column {judged!r} is False) but have a grade, "
        f"first item {plain(data.item.label(row))!r} (column {item!r}) of query "
        f"{plain(data.query_labels(code)[0])!r} with grade "
        f"{plain(data.relevant[row])!r} (column {relevant!r}); an unjudged row counts as "
        f"grade 0. Set the grade of unjudged rows to 0, or mark the row judged (True)."
    )
    return InvalidDataError(msg)


def judged_rows_only(data: FrameData) -> FrameData:
    """``data`` without its unjudged rows and rows of a negative grade, as trec_eval's
    ``-J`` (``judged_only=True``): their scores become null (not retrieved), so they take
    no rank; they count nowhere else (grade 0 or below)."""
    drop = (data.relevant < 0) if data.relevant.dtype.kind != "b" else None
    if data.judged is not None:
        drop = ~data.judged if drop is None else drop | ~data.judged
    if drop is None or not drop.any():
        return data

    def kept(score: FloatArray) -> FloatArray:
        return np.where(drop, np.nan, score)

    return replace(data, score=kept(data.score), systems=[(n, kept(s)) for n, s in data.systems])


def graded_queries_only(data: FrameData) -> tuple[FrameData, BoolArray]:
    """``data`` ranked on the queries every row of which is judged only (people's grades:
    a query with an ungraded row has no value under them), and per query whether it is.
    The other queries' scores become null (not retrieved): their rows take no rank, and
    their values are not read."""
    if data.judged is None:
        return data, np.ones(data.n_queries, dtype=bool)
    graded = np.bincount(data.query_codes[~data.judged], minlength=data.n_queries) == 0
    drop = ~graded[data.query_codes]

    def kept(score: FloatArray) -> FloatArray:
        return np.where(drop, np.nan, score)

    systems = [(n, kept(s)) for n, s in data.systems]
    return replace(data, score=kept(data.score), systems=systems), graded


def scores_in_order(values: npt.NDArray[Any]) -> FloatArray:
    """Integer scores (without nulls) as float64 numbers that order exactly as they do.

    Every metric depends on the scores through their order only. Integers within
    :data:`EXACT_INTEGER` are their own float64 values; a column beyond it (int64 nanosecond
    timestamps, uint64 hashes) would see distinct scores rounded to one float and tied, so
    it becomes its dense ranks instead (equal scores equal, the order kept).
    """
    if len(values) == 0:
        return values.astype(np.float64)
    if values.dtype != object and values.min() >= -EXACT_INTEGER and values.max() <= EXACT_INTEGER:
        return values.astype(np.float64)
    return dense(values).astype(np.float64)


def bits(n: int) -> int:
    return max(int(n - 1).bit_length(), 1)


def blocks(n: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive blocks of ``BLOCK`` entries covering ``0 .. n``.

    Passes over millions of rows go block by block, into preallocated buffers: the
    temporaries then stay in the CPU cache and no full-size temporary is allocated (a fresh
    large array costs as much in page faults as the arithmetic done in it: docs/performance.md,
    step 5).
    """
    for start in range(0, n, BLOCK):
        yield start, min(start + BLOCK, n)


def runs(same_as_next: BoolArray) -> tuple[IntArray, IntArray]:
    """Positions that belong to runs of equal neighbours, and a run id for each."""
    n = len(same_as_next) + 1
    member = np.zeros(n, dtype=bool)
    member[:-1] |= same_as_next
    member[1:] |= same_as_next
    positions = np.flatnonzero(member).astype(np.int64, copy=False)
    # a run starts where a member does not continue the previous position's run
    starts = np.ones(len(positions), dtype=bool)
    if len(positions) > 1:
        starts[1:] = ~same_as_next[positions[1:] - 1]
    return positions, np.cumsum(starts) - 1


def dense(values: npt.NDArray[Any]) -> IntArray:
    """Dense ranks (0-based) of numbers in ascending order."""
    return np.unique(values, return_inverse=True)[1].astype(np.int64).reshape(-1)


def sort_order(keys: Sequence[IntArray]) -> IntArray:
    """The stable order that sorts entries by ``keys`` (most significant first).

    Keys are non-negative integers. When their bits and a position fit in 64 bits they are
    packed into one key for a single ``np.sort`` (docs/performance.md, step 3).
    When they do not, the two leading keys give way to the dense rank of their pair, which
    sorts the same and needs no more bits than a position (there are at most ``n`` pairs).
    """
    n = len(keys[0])
    index_bits = bits(n)
    keys = list(keys)
    widths = [bits(int(key.max(initial=0)) + 1) for key in keys]
    while (
        index_bits + sum(widths) > 64 and len(keys) > 1 and index_bits < widths[0] + widths[1] <= 64
    ):
        pair = keys[0].astype(np.uint64) << np.uint64(widths[1])
        pair |= keys[1].astype(np.uint64, copy=False)
        merged = dense(pair)
        keys[:2] = [merged]
        widths[:2] = [bits(int(merged.max(initial=0)) + 1)]
    if index_bits + sum(widths) > 64:
        return np.lexsort(list(reversed(keys))).astype(np.int64)
    packed = np.zeros(n, dtype=np.uint64)
    for key, width in zip(keys, widths, strict=True):
        packed <<= np.uint64(width)
        packed |= key.astype(np.uint64, copy=False)
    packed <<= np.uint64(index_bits)
    packed |= np.arange(n, dtype=np.uint64)
    sort_keys(packed)
    return (packed & np.uint64((1 << index_bits) - 1)).view(np.int64)


#: Rows per block of queries that :func:`query_blocks` cuts a large frame into.
QUERY_BLOCK_ROWS = 1 << 21
#: From this many queries :func:`query_blocks` cuts a frame into blocks: with fewer, the
#: per-query arrays are small and blocks only add the cost of finding their rows
#: (docs/performance.md, "How the engine gets there", step 5).
QUERY_BLOCK_QUERIES = 1 << 20
#: Up to this many blocks, each block's rows are found by a scan of every row's block number.
SCANNED_BLOCKS = 16


def query_blocks(
    data: FrameData, rows_per_block: int | None = None
) -> Iterator[tuple[int, int, FrameData]]:
    """``(first, stop, block)``: ``data`` cut into blocks of whole queries (the queries
    ``first .. stop - 1``, renumbered from 0) of about ``rows_per_block`` rows each, when it
    has :data:`QUERY_BLOCK_QUERIES` queries or more (else one block: ``data`` itself).

    Ranking and metrics work per query, so each block is evaluated on its own. A frame of
    many short lists is then evaluated in pieces of the same size whatever its number of
    rows: their arrays stay small (no fresh full-size temporaries, each of which costs as much
    in page faults as the arithmetic done in it), so the cost grows linearly with the rows. A
    block holds a power of two of queries; its rows are found by a scan of the rows' block
    numbers (a byte each), or with many blocks by a radix sort (stable, linear) of them.
    Within a block the rows keep the frame's order.
    """
    n_blocks = -(-data.n_rows // (rows_per_block or QUERY_BLOCK_ROWS))
    if n_blocks <= 1 or data.n_queries < max(QUERY_BLOCK_QUERIES, 2):
        yield 0, data.n_queries, data
        return
    # blocks of 2**shift queries: a row's block is its query code shifted, a byte or two
    shift = max(int(-(-data.n_queries // n_blocks) - 1).bit_length(), 0)
    n_blocks = -(-data.n_queries // (1 << shift))
    width = np.uint8 if n_blocks <= 1 << 8 else np.uint16 if n_blocks <= 1 << 16 else np.uint32
    number = np.empty(data.n_rows, dtype=width)
    np.right_shift(data.query_codes, shift, out=number, casting="unsafe")
    if n_blocks <= SCANNED_BLOCKS:  # a scan of the bytes per block: no full-size order
        found: Iterator[IntArray] = (np.flatnonzero(number == b) for b in range(n_blocks))
    else:  # a stable sort (a radix sort, linear, for 8- and 16-bit keys)
        order = np.argsort(number, kind="stable")
        ends = np.cumsum(np.bincount(number, minlength=n_blocks)).tolist()
        found = (order[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True))
    for b, rows in enumerate(found):
        first, stop = b << shift, min((b + 1) << shift, data.n_queries)
        yield first, stop, _block(data, rows, first, stop)


def _block(data: FrameData, rows: IntArray, first: int, stop: int) -> FrameData:
    """The rows ``rows`` of ``data`` (every row of the queries ``first .. stop - 1``) as a
    frame of their own: queries renumbered from 0, row positions from 0; its item column
    (:meth:`ItemColumn.at`) maps them back to the frame's rows. The ``by`` segments are
    read once, for the whole frame, before the blocks
    (:func:`~rankframe.engine.lists.segment_of_queries`): a block has none."""
    codes = data.query_codes[rows]
    codes -= codes.dtype.type(first)

    return FrameData(
        query_codes=codes,
        n_queries=stop - first,
        score=data.score[rows],
        relevant=data.relevant[rows],
        item=data.item.at(rows),
        query_labels=lambda at: data.query_labels(np.asarray(at, dtype=np.int64) + first),
        systems=[(name, s[rows]) for name, s in data.systems],
        flavour=data.flavour,
        judged=None if data.judged is None else data.judged[rows],
    )
