"""The engine: rank every query of a frame in one pass, then compute metrics per query.

One module per job: :mod:`.frame` (what the engine reads), :mod:`.ranking`, :mod:`.sorting`
(the sort of packed 64-bit keys), :mod:`.lists` (per-query lists and segments),
:mod:`.checks` (each item once per query), :mod:`.segments` (the scans over entries grouped
by a key that all of them share).

Adapters (pandas, polars, ...) turn a frame into :class:`FrameData`: the query column as
integer codes numbered in sorted order of the query values, scores as float64, grades as the
numbers they are (float, integer or bool: no float64 copy of an integer column), and the item
column as an :class:`ItemColumn` (ranks, hashes and ids by row position). Everything below
works on NumPy arrays, with no Python loop over rows or queries.

Ranking (:func:`rank`) is one in-place sort (:func:`.sorting.sort_keys`: NumPy's or polars'
kernel, whichever a first timing finds faster here) of a packed 64-bit key per row,
``query code | score bucket (descending) | row position | grade > 0``: the row position makes
every key unique, so the sorted keys *are* the permutation, and the flag in the lowest bit
marks the positively graded rows without a lookup through the permutation. Score buckets are
an order-preserving quantisation of the scores, so rows that share a bucket within a query
are adjacent after the sort; only those few runs are then re-ordered exactly, by the exact
score and the tie policy (item id descending for ``ties="trec"``), and of those only the runs
that hold a positively graded row at once (the others matter only to the full order, see
:class:`Ranking`). When the bits do not suffice (a huge number of rows times queries), a
lexsort does the same job.

Passes over every row go block by block through small reused buffers (:func:`.frame.blocks`) and
work in place where they can: on millions of rows, memory (allocations, page faults, traffic)
costs more than the arithmetic. For the same reason a frame of more than
:data:`~rankframe.engine.frame.QUERY_BLOCK_ROWS` rows and millions of queries is ranked and
scored in blocks of whole queries (:func:`query_blocks`), each a :class:`FrameData` of its own.

Metrics (:mod:`rankframe.metrics`) then need only the relevant retrieved rows, in rank
order, and per-query counts: :class:`Lists` holds them.
"""

from rankframe.engine.checks import THREAD_ROWS, check_unique_items, unique_items_checked
from rankframe.engine.encoding import ShortIds, composite_codes
from rankframe.engine.frame import (
    EXACT_DIGITS,
    EXACT_INTEGER,
    BoolArray,
    CodeArray,
    FloatArray,
    FrameData,
    IntArray,
    ItemColumn,
    ItemSource,
    graded_queries_only,
    judged_rows_only,
    query_blocks,
    scores_in_order,
    with_judged,
)
from rankframe.engine.lists import Lists, combine_segments, lists, segment_of_queries
from rankframe.engine.ranking import Ranking, rank
from rankframe.exceptions import plain

__all__ = [
    "EXACT_DIGITS",
    "EXACT_INTEGER",
    "THREAD_ROWS",
    "BoolArray",
    "CodeArray",
    "FloatArray",
    "FrameData",
    "IntArray",
    "ItemColumn",
    "ItemSource",
    "Lists",
    "Ranking",
    "ShortIds",
    "check_unique_items",
    "combine_segments",
    "composite_codes",
    "graded_queries_only",
    "judged_rows_only",
    "lists",
    "plain",
    "query_blocks",
    "rank",
    "scores_in_order",
    "segment_of_queries",
    "unique_items_checked",
    "with_judged",
]
