"""The one data path: rows of whole queries → a per-query table → one finish step.

Every method of the accessor is a :class:`Request`: which metrics, which ``by`` columns,
which options, and what to make of the per-query values (:class:`Result`), checked once
before it is built (:func:`check_request`). Every backend runs a request the same way, in
one direction (neither step calls back into the one before it):

1. :func:`per_query` turns the rows of whole queries (one eager frame, or one part of a
   partitioned frame) into :class:`~rankframe.pipeline.analysis.PerQuery`: one value per (query,
   system, metric), whether each query has a relevant item, its segment.
2. A partitioned backend lays each part's values out as a small native frame
   (:func:`part_table`: the query and ``by`` columns, ``system``, one column per metric and
   :data:`EMPTY`), concatenates the parts, and reads them back with :func:`from_parts`.
3. :func:`finish` is the one finish step: the ``empty`` option and its error (raised from
   the facts of every query), means, segments, intervals, tidy layout, ``compare``. It
   returns the output's rows and columns; the backend builds its kind of frame from them.

Nothing about means, nulls or empty queries lives in an adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal, Protocol

import numpy as np
import numpy.typing as npt

from rankframe import engine as _engine
from rankframe.exceptions import (
    EmptyQueryError,
    InvalidDataError,
    InvalidOptionError,
    Keyword,
)
from rankframe.metrics import item_codes, item_values
from rankframe.metrics.registry import Metric
from rankframe.pipeline import analysis, item_finish, item_record, keys, nulls, request_checks
from rankframe.pipeline import windows as _windows
from rankframe.pipeline.analysis import SYSTEM
from rankframe.pipeline.backend import Backend, ColumnNames
from rankframe.pipeline.keys import key_codes, key_labels, shown_key
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.request_checks import reads_shared_ranks
from rankframe.pipeline.windows import TIME, WINDOW, Window
from rankframe.settings.options import Options, Ties
from rankframe.settings.statistics import Intervals, Tests

__all__ = [
    "EMPTY",
    "Backend",
    "ColumnNames",
    "Comparison",
    "Means",
    "PerQueryRows",
    "Request",
    "Result",
    "check_request",
    "completed",
    "composite_items",
    "finish",
    "from_parts",
    "key_codes",
    "key_labels",
    "part_table",
    "per_query",
    "ranks",
    "reads_shared_ranks",
    "run",
    "shown_key",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Kind = Literal["scalar", "segments", "table"]
# (name, "float" | "float?" | "int" | "int?" | "str" | "bool"): an output column and its
# type, for the schema a lazy backend declares before it runs
ValueColumns = list[tuple[str, str]]

JUDGED = "judged"  # the judged column used when the frame has one and none is named
# per-query tables of parts: does empty= apply to the query (no relevant item; PerQuery.empty)?
EMPTY = "__rankframe_empty__"


# -- what a request makes of the per-query values -------------------------------------------


class Result(Protocol):
    """What a request makes of the per-query values: :class:`Means`, :class:`PerQueryRows`
    or :class:`Comparison`. Each answers the same questions, and the pipeline asks each at
    one place: which metrics it refuses (:meth:`check`, before the request is built), the
    output's leading columns (:meth:`keys`) and other columns (:meth:`value_columns`), and
    the output's rows and columns from every query's values (:meth:`finish`)."""

    @property
    def kind(self) -> Kind:
        """``"scalar"``, ``"segments"`` or ``"table"``: the shape of the user's result."""
        ...

    @property
    def per_query_rows(self) -> bool:
        """Whether the output has a row per query (as large as the frame's queries): a
        backend whose frames live elsewhere (Spark) returns it as its own kind of frame."""
        ...

    def check(self, metric: Metric) -> None:
        """Raise for a metric this result cannot give."""
        ...

    def keys(self, request: Request) -> list[str]:
        """The output's leading columns, taken from the input (or per-query) rows."""
        ...

    def value_columns(self, request: Request) -> ValueColumns:
        """The output's other columns, with their types."""
        ...

    def finish(
        self, backend: Backend, pq: PerQuery, request: Request
    ) -> tuple[IntArray, dict[str, Any]]:
        """The output's rows (positions of the ``keys`` rows) and its other columns, from
        every query's values as the per-query step gave them (segmented by window first
        with ``every=``); ``backend``: the frame's, whose rows ``pq`` refers to (the
        comparisons of two sides read the ids and segments of this one)."""
        ...


def _refuse_set_level(metric: Metric, what: str, where: str = "") -> None:
    """A set-level metric has no value per query: a result made of those refuses it."""
    if metric.definition.aggregate != "set":
        return
    msg = (
        f"{metric} is a set-level metric: it has one value per set of queries (the "
        f"frame, or a `by` segment), not one per query, and {what}. Use "
        f"evaluate([{str(metric)!r}], by=...){where} for it."
    )
    raise InvalidOptionError(msg)


@dataclass(frozen=True)
class Means:
    """Means over queries per segment (``evaluate``, and the metric methods).

    ``kind``: ``"scalar"`` (one float), ``"segments"`` (one value per segment, indexed by the
    ``by`` columns and ``system``) or ``"table"`` (``evaluate``'s frame). ``tidy``: a row
    per metric rather than a column. ``intervals``: the settings of bootstrap intervals
    (none without a ``confidence_level``).
    """

    kind: Kind = "table"
    per_query_rows: bool = False
    tidy: bool = False
    intervals: Intervals = field(default_factory=Intervals)

    def check(self, metric: Metric) -> None:
        """Every metric has a mean (or a set-level value) per segment."""

    def keys(self, request: Request) -> list[str]:
        return list(request.by)

    def finish(
        self,
        backend: Backend,  # noqa: ARG002
        pq: PerQuery,
        request: Request,
    ) -> tuple[IntArray, dict[str, Any]]:
        pq = completed(pq, request.options)
        if self.tidy:
            return analysis.tidy(pq, intervals=self.intervals)
        return analysis.wide(pq, multi=request.multi, intervals=self.intervals)

    def value_columns(self, request: Request) -> ValueColumns:
        metrics = request.metrics
        bounds = ["_ci_low", "_ci_high"] if self.intervals.confidence_level is not None else []
        if self.tidy:
            tidy_bounds = [(b.lstrip("_"), "float") for b in bounds]
            return [
                (SYSTEM, "str"),
                ("metric", "str"),
                ("k", analysis.k_type(metrics)),
                *analysis.group_column(metrics),
                ("value", "float"),
                *tidy_bounds,
                ("n_queries", "int"),
            ]
        system = [(SYSTEM, "str")] if request.multi else []
        floats = [(f"{m}{e}", "float") for m in metrics for e in ["", *bounds]]
        return [*system, *floats, ("n_queries", "int")]


@dataclass(frozen=True)
class PerQueryRows:
    """One row per query (and system): ``per_query``."""

    kind: Kind = "table"
    per_query_rows: bool = True

    def check(self, metric: Metric) -> None:
        _refuse_set_level(metric, "per_query() gives one value per query")

    def keys(self, request: Request) -> list[str]:
        return list(dict.fromkeys([*request.names.query_key, *request.by]))

    def finish(
        self,
        backend: Backend,  # noqa: ARG002
        pq: PerQuery,
        request: Request,
    ) -> tuple[IntArray, dict[str, Any]]:
        pq = completed(pq, request.options)
        return analysis.per_query(
            pq, skip_empty=request.options.empty == "skip", multi=request.multi
        )

    def value_columns(self, request: Request) -> ValueColumns:
        system = [(SYSTEM, "str")] if request.multi else []
        return [*system, *((str(m), "float") for m in request.metrics)]


class Compared:
    """What the comparisons share (against a baseline column, a reference frame, the
    previous window): their tests' settings (``tests``, which they pass on to
    :mod:`rankframe.pipeline.analysis`), one row per ``by`` segment, and the refusal of set-level
    metrics, whose message says what the comparison tests (``refuses``) and, for two
    frames, where to evaluate them (``evaluate_where``)."""

    tests: Tests
    refuses: ClassVar[str]
    evaluate_where: ClassVar[str] = ""

    def check(self, metric: Metric) -> None:
        _refuse_set_level(metric, self.refuses, self.evaluate_where)

    def keys(self, request: Request) -> list[str]:
        return list(request.by)


@dataclass(frozen=True)
class Comparison(Compared):
    """Each system against a baseline on paired per-query values: ``compare``;
    ``baseline_rows=False`` leaves out the baseline's own rows."""

    baseline: int
    tests: Tests
    baseline_rows: bool = True
    kind: Kind = "table"
    per_query_rows: bool = False
    refuses: ClassVar[str] = "compare() tests paired per-query values"

    def finish(
        self,
        backend: Backend,  # noqa: ARG002
        pq: PerQuery,
        request: Request,
    ) -> tuple[IntArray, dict[str, Any]]:
        pq = completed(pq, request.options)
        return analysis.compare(
            pq, baseline=self.baseline, tests=self.tests, baseline_rows=self.baseline_rows
        )

    def value_columns(self, request: Request) -> ValueColumns:
        return analysis.comparison_columns(request.metrics, reference=False)


# -- before the request: what no data can fix ------------------------------------------------


def check_request(
    metrics: Sequence[Metric], options: Options, result: Result, sample: str | None = None
) -> None:
    """Raise at call time, before the request is built, for what no data can fix: a metric
    the result cannot give (a set-level metric in ``per_query`` or ``compare``), a metric of
    the items without its input option or cut-off, a ``ties`` option a metric does not
    define, a metric that does not read the bound ``sample`` column."""
    request_checks.check_samples(metrics, sample, options)
    for metric in metrics:
        result.check(metric)
        item_values.check(metric, options)
    if options.ties == "average":
        request_checks.check_average(metrics, options)
    if options.ties == "truncated_average":
        request_checks.check_shared_ranks(metrics)


@dataclass(frozen=True)
class Request:
    """One evaluation: the columns, metrics, segments and options, and the result wanted
    (checked before it is built: :func:`check_request`)."""

    names: ColumnNames
    metrics: tuple[Metric, ...]
    by: tuple[str, ...]
    options: Options
    result: Result
    window: Window | None = None  # every=: the window is the first segment key
    # people's pass of a judged estimate: only the queries every row of which has a grade
    # are ranked (graded_queries_only); the judge's pass checked the items and null scores
    graded_only: bool = False
    # several tables of one call over the same frame, metrics, by and options (agreement()):
    # their per-query pass, computed once (:func:`run`; a frame in parts runs its own)
    shared_pass: Callable[[Backend, Request], PerQuery] | None = field(default=None, compare=False)

    @property
    def multi(self) -> bool:
        """Several score columns: outputs gain a ``system`` column."""
        return self.names.systems is not None

    @property
    def kind(self) -> Kind:
        return self.result.kind

    @property
    def keys(self) -> list[str]:
        """The output's leading columns, taken from the input (or per-query) rows."""
        return self.result.keys(self)

    @property
    def leading(self) -> list[str]:
        """The output's columns before the ``keys`` (made by the finish step): ``window``
        with ``every=``."""
        return [WINDOW] if self.window is not None else []

    def value_columns(self) -> ValueColumns:
        """The output's other columns, with their types (``"window"``: the window start, of
        the time column's type; see :mod:`rankframe.pipeline.windows`)."""
        window = [(WINDOW, "window")] if self.window is not None else []
        return [*window, *self.result.value_columns(self)]

    def shape(self) -> tuple[list[str], str]:
        """For a ``"segments"`` result, the columns of its index (the ``by`` columns and
        ``system``) and its one metric column; for a ``"scalar"`` result, that metric."""
        columns = self.value_columns()
        labels = [name for name, t in columns if t == "str"]
        metric = next((name for name, t in columns if t == "float"), "")
        index = [*self.leading, *self.by, *labels]
        return (index if self.kind == "segments" else []), metric

    # what every part of a partitioned frame gives: its per-query table

    @property
    def items(self) -> item_values.Plan | None:
        """The entries the beyond-accuracy metrics read (``None``: none requested)."""
        return item_values.plan(self.metrics, self.options)

    def part_keys(self) -> list[str]:
        item = list(self.names.item_key) if self.items is not None else []
        return list(dict.fromkeys([*self.names.query_key, *self.by, *item]))

    def part_columns(self) -> ValueColumns:
        floats = [(str(m), "float") for m in self.metrics]
        items = self.items
        entry = [(item_codes.ENTRY, "int")] if items is not None else []
        if items is not None and items.grades:
            entry.append((item_codes.GRADE, "float"))
        time = [(TIME, "time")] if self.window is not None else []
        counts = [(nulls.NULLS, "float"), (nulls.ROWS, "float")]
        return [(SYSTEM, "str"), *floats, (EMPTY, "bool"), *counts, *entry, *time]


# -- keys: one column, or the tuple of several (a composite key: pipeline/keys.py) ---------


def composite_items(backend: Backend, key: Sequence[str]) -> _engine.ItemColumn | None:
    """The item column of a composite item key (``None`` for one column, which the
    backend reads itself)."""
    if len(key) == 1:
        return None
    codes, first = _engine.composite_codes([backend.codes(c) for c in key])
    return _engine.ItemColumn.of_codes(codes, first, lambda rows: key_labels(backend, key, rows))


# -- 1. rows of whole queries → per-query values --------------------------------------------


def per_query(backend: Backend, request: Request, *, part: bool = False) -> PerQuery:
    """Every metric of every system for every query, in one pass over the frame; a row of
    each query when the output takes columns from them (``request.keys``) or for a ``part``.

    The beyond-accuracy metrics (``MetricDef.items``) are computed in the finish step: their
    columns hold NaN here, and ``top`` the entries they read
    (:mod:`rankframe.pipeline.item_record`), as rows of the frame for a ``part`` of a
    partitioned frame, else with their item codes.
    """
    names, options, metrics = request.names, request.options, list(request.metrics)
    wanted = request.items
    # sampled rankings: each (query, sample) is ranked as a list of its own
    ranked = (
        names
        if names.sample is None
        else replace(names, query_columns=(*names.query_key, names.sample))
    )
    data, graded = _graded(backend.extract(ranked, list(request.by)), request, part=part)
    times = None
    if request.window is not None and names.time is not None:  # each query's earliest
        rows = _windows.column_times(backend.arrow(names.time))
        times = _windows.earliest(rows, data.query_codes, data.n_queries)
    data, null_counts, count_ranked = _ranked_rows(data, options, counted=graded is None)
    systems = data.systems or [(names.score, data.score)]
    values = np.empty((data.n_queries, len(systems), len(metrics)), dtype=np.float64)
    # the entries of the item metrics: their codes encoded beside the ranking
    recorder = (
        None if wanted is None else item_record.Recorder.start(data, wanted, options, part=part)
    )
    # the items' codes, where the item metrics encode them anyway: the check reads them
    codes = recorder.dictionary if recorder is not None else lambda: None
    checked = _engine.unique_items_checked(data, ranked.query_key, names.item_key, codes)
    with checked if graded is None else nullcontext():
        # a row of each query, for the output's query and `by` columns
        first = (
            data.first_rows()
            if part or request.keys or request.by or times is not None or names.sample is not None
            else None
        )
        segment, segment_rows, n_segments = _engine.segment_of_queries(data, first)
        empty = np.zeros(data.n_queries, dtype=bool)
        # one block of every query when the item metrics need the whole frame's ranking;
        # none without a metric (agreement()'s grade tables)
        blocks = _engine.query_blocks(data) if wanted is None else [(0, data.n_queries, data)]
        blocks = blocks if metrics else []
        spare: npt.NDArray[np.float64] | None = None  # a block's metrics, side by side: one buffer
        for begin, end, block in blocks:
            if spare is None or spare.shape[1] < end - begin:
                spare = np.empty((len(metrics), end - begin), dtype=np.float64)
            out = (values[begin:end], empty[begin:end], spare[:, : end - begin])
            _block_values(block, request, out, begin, count_ranked, recorder)
        # the item metrics' entries, while the check may still sort (its error, if any,
        # takes the place of theirs)
        top = (
            recorder.result(len(systems)) if recorder is not None and names.sample is None else None
        )
    pq = PerQuery(
        values=values,
        include=np.ones(data.n_queries, dtype=bool),
        empty=empty,
        segment=segment,
        segment_rows=segment_rows,
        n_segments=n_segments,
        first_rows=first,
        systems=[name for name, _ in systems],
        metrics=metrics,
        query_labels=data.query_labels,
        top=None,
        time=times,
        by_codes=None if first is None else [codes[first] for _, codes in data.segments],
        nulls=null_counts,
        graded=graded,
    )
    if names.sample is None or first is None:
        pq = replace(pq, top=top)
    else:
        queries = keys.sampled_queries(backend, names.query_key, first)
        keys.one_grade(data, queries, names)
        pq = keys.of_queries(pq, queries, first)
        pq = replace(pq, top=None if recorder is None else recorder.result(len(systems), queries))
    if not part and graded is None:  # the whole frame's counts: said once, here
        nulls.check(pq.systems, pq.nulls)
    return pq


def _graded(
    data: _engine.FrameData, request: Request, *, part: bool
) -> tuple[_engine.FrameData, BoolArray | None]:
    """People's pass of a judged estimate over the whole frame (``Request.graded_only``):
    only the queries people judged are ranked, and which they are; else ``data`` as is."""
    if request.graded_only and not part:
        return _engine.graded_queries_only(data)
    return data, None


def _ranked_rows(
    data: _engine.FrameData, options: Options, *, counted: bool = True
) -> tuple[_engine.FrameData, nulls.NullScores, nulls.NullScores | None]:
    """The rows the per-query step ranks (condensed lists: ``judged_only=True`` or
    ``unjudged="condense"``, the judged ones) and the counts of null scores: of the frame as
    given, read from the scores (condensing makes more of them, not counted), or else zeros
    that the ranking of each block fills (it finds them anyway), given again as the third
    value; zeros, unfilled, where they are not ``counted`` (people's pass of an estimate)."""
    if options.condensed:
        found = _null_scores(data)
        return _engine.judged_rows_only(data), found, None
    n_systems = len(data.systems) or 1
    counts = nulls.NullScores(
        np.zeros((data.n_queries, n_systems), dtype=np.int64),
        np.zeros(data.n_queries, dtype=np.int64),
    )
    return data, counts, counts if counted else None


def _block_values(
    block: _engine.FrameData,
    request: Request,
    out: tuple[npt.NDArray[np.float64], BoolArray, npt.NDArray[np.float64]],
    begin: int,
    count_ranked: nulls.NullScores | None,
    recorder: item_record.Recorder | None,
) -> None:
    """One block of whole queries, from query ``begin`` on: every metric of every system
    into its slice of the values and whether each query is empty (``out``: those slices,
    and a buffer of the block's metrics), the null scores the ranking finds into
    ``count_ranked``, and each ranking to the item metrics' ``recorder``."""
    names, options, metrics = request.names, request.options, list(request.metrics)
    own = [m.options_in(options) for m in metrics]  # each metric's own options (beta=...)
    others = _left_out_of_rated(metrics, options)
    values, empty, columns = out
    end = begin + len(empty)
    # the queries with a negative grade, which a metric may count (counts_rated)
    negative = None if others is None else _negative_grade(block)
    for s, (_, score) in enumerate(block.systems or [(names.score, block.score)]):
        system = replace(block, score=score, systems=[])
        ranking = _engine.rank(system, options.ties)
        if count_ranked is not None:
            _count_unranked(count_ranked, system, ranking, begin, end, s)
        table = _engine.lists(system, ranking, options)
        for j, m in enumerate(metrics):
            d = m.definition
            averaged = d.tie_average if options.ties == "average" else None
            compute = averaged or d.compute
            # a metric of the items has no compute: the finish step computes it
            columns[j] = np.nan if compute is None else compute(table, m.k, own[j])
            if own[j].empty_list in d.nan_if_nothing_retrieved:
                columns[j, table.n_retrieved == 0] = np.nan
        if negative is not None and others is not None:  # some metric counts them
            counted = np.flatnonzero((table.n_relevant == 0) & negative)
            columns[np.ix_(others, counted)] = np.nan
        # the block's metrics into the table at once (a column at a time would write every
        # page of the table once per metric)
        values[:, s, :] = columns.T
        if recorder is not None:
            recorder.add(ranking)
    empty[:] = table.n_relevant == 0
    if negative is not None:
        empty &= ~negative


def _count_unranked(
    counted: nulls.NullScores,
    data: _engine.FrameData,
    ranking: _engine.Ranking,
    begin: int,
    end: int,
    system: int,
) -> None:
    """Per query of a block (``begin .. end - 1``), the rows that ``ranking`` left out
    (null scores) under ``system``, and (for the first system) each query's rows."""
    out = counted.per_query[begin:end, system]
    if int(ranking.starts[-1]) < data.n_rows:  # only then is every score looked at
        out[:] = np.bincount(data.query_codes[np.isnan(data.score)], minlength=end - begin)
    if system == 0:
        counted.rows[begin:end] = ranking.n_retrieved + out


def _null_scores(data: _engine.FrameData) -> nulls.NullScores:
    """Per query, the null scores of each system and the rows, read from the scores."""
    systems = data.systems or [("", data.score)]
    codes = data.query_codes
    per_query = np.zeros((data.n_queries, len(systems)), dtype=np.int64)
    for s, (_, score) in enumerate(systems):
        if data.n_rows and np.isnan(score.min()):
            per_query[:, s] = np.bincount(codes[np.isnan(score)], minlength=data.n_queries)
    return nulls.NullScores(
        per_query, np.bincount(codes, minlength=data.n_queries).astype(np.int64)
    )


def _left_out_of_rated(metrics: list[Metric], options: Options) -> IntArray | None:
    """Under ``empty="skip"`` or ``"nan"``, with a metric requested that counts the queries
    without a relevant item but with a negative grade (``MetricDef.counts_rated``): the
    positions of the metrics that still leave such a query out (those ``empty=`` applies
    to, but for the ones that count it), which give it NaN; else ``None``."""
    rules = [m.definition.counts_rated for m in metrics]
    takes = [rule is not None and getattr(options, rule[0]) == rule[1] for rule in rules]
    if not (options.empty in ("skip", "nan") and any(takes)):
        return None
    return np.array(
        [j for j, m in enumerate(metrics) if m.definition.depends_on_relevant and not takes[j]],
        dtype=np.int64,
    )


def _negative_grade(data: _engine.FrameData) -> BoolArray:
    """Per query, whether a row of it has a negative grade (a rated item, for
    ``MetricDef.counts_rated``)."""
    grade = data.relevant
    if grade.dtype.kind == "b":
        return np.zeros(data.n_queries, dtype=bool)
    return np.bincount(data.query_codes[grade < 0], minlength=data.n_queries) > 0


# -- 2. partitioned frames: per-query tables of the parts, read back as one ------------------


def part_table(backend: Backend, request: Request) -> Any:
    """The per-query table of one part of whole queries: one row per (query, system), the
    query and ``by`` columns, ``system``, a column per metric and :data:`EMPTY`."""
    pq = per_query(backend, request, part=True)
    rows, columns = analysis.per_query(pq, skip_empty=False, multi=True)
    columns[EMPTY] = np.repeat(pq.empty, len(pq.systems))
    if pq.nulls is not None:  # counts as floats: the entries' rows below hold NaN
        columns[nulls.NULLS] = pq.nulls.per_query.reshape(-1).astype(np.float64)
        columns[nulls.ROWS] = np.repeat(pq.nulls.rows, len(pq.systems)).astype(np.float64)
    n_rows = len(rows)
    if pq.top is not None:  # the entries of the beyond-accuracy metrics, as rows
        rows, columns = item_record.with_entries(rows, columns, pq.top, pq.systems, SYSTEM)
    if pq.time is not None:  # each query's earliest time, in the time column's type
        columns[TIME] = _windows.per_query_column(pq.time, len(pq.systems), len(rows) - n_rows)
    return backend.table(request.part_keys(), rows, columns)


def from_parts(table: Backend, request: Request, *, counted: bool = True) -> PerQuery:
    """:class:`PerQuery` of the per-query tables of every part, concatenated in any order
    (``table``: a backend over them). Queries are numbered in sorted order of their ids, as
    the eager path numbers them; each query's rows keep their system order.

    The parts' counts of null scores (:mod:`rankframe.pipeline.nulls`) are said here, once
    for the whole frame; ``counted=False`` for a table without them (a ``per_query()``
    result read back as parts' tables)."""
    names = request.names
    n_systems = len(names.scores)
    codes = key_codes(table, names.query_key)
    entry = None if request.items is None else np.asarray(table.column(item_codes.ENTRY))
    if entry is None:
        order = np.argsort(codes, kind="stable").astype(np.int64, copy=False)
    else:  # only the per-query rows; the others are entries of the item metrics
        rows = np.flatnonzero(entry == 0).astype(np.int64, copy=False)
        order = rows[np.argsort(codes[rows], kind="stable")]
    first_rows = order[::n_systems]
    n_queries = len(first_rows)
    metrics = list(request.metrics)
    columns = [np.asarray(table.column(str(m)), dtype=np.float64)[order] for m in metrics]
    values = np.stack(columns, axis=-1) if columns else np.empty((0, 0))
    null_scores = None
    if counted:  # per (query, system) row, in query order
        per_row = np.asarray(table.column(nulls.NULLS), dtype=np.float64)[order]
        rows_of = np.asarray(table.column(nulls.ROWS), dtype=np.float64)[first_rows]
        null_scores = nulls.NullScores(
            per_row.astype(np.int64).reshape(-1, n_systems), rows_of.astype(np.int64)
        )
        nulls.check(list(names.scores), null_scores)
    per_query_codes = [table.codes(b)[first_rows] for b in request.by]
    segment, segment_rows, n_segments = _engine.combine_segments(per_query_codes, first_rows)

    def query_labels(query_codes: IntArray) -> list[object]:
        return key_labels(table, names.query_key, first_rows[query_codes])

    time = None
    if request.window is not None:
        time = _windows.column_times(table.arrow(TIME)).take(first_rows)
    top = None
    wanted = request.items
    if entry is not None and wanted is not None:
        items = names.item_key
        top = item_record.of_table(
            table,
            key_codes(table, items),
            lambda rows: key_labels(table, items, rows),
            entry,
            codes.astype(np.int64),
            n_queries,
            names.scores,
            SYSTEM,
            query_labels,
            grades=wanted.grades,
        )
    return PerQuery(
        values=values.reshape(n_queries, n_systems, len(metrics)),
        include=np.ones(n_queries, dtype=bool),
        empty=np.asarray(table.column(EMPTY), dtype=bool)[first_rows],
        segment=segment,
        segment_rows=segment_rows,
        n_segments=n_segments,
        first_rows=first_rows,
        systems=list(names.scores),
        metrics=metrics,
        query_labels=query_labels,
        top=top,
        time=time,
        by_codes=per_query_codes,
        nulls=null_scores,
    )


# -- 3. the one finish step ------------------------------------------------------------------


def no_rows() -> InvalidDataError:
    """The error for a frame without rows: no silent NaN (``problem="no_rows"``)."""
    msg = (
        "The frame has no rows, so there is no query to evaluate: a filter before rank_eval "
        "may have matched nothing (check len(df) first), or the query or file that made "
        "the frame returned no rows."
    )
    return InvalidDataError(msg, problem="no_rows", count=0)


def no_queries_left(n_queries: int, options: Options) -> InvalidDataError:
    """The error for ``empty="skip"`` leaving no query (``problem="no_queries"``)."""
    which = "the only query has" if n_queries == 1 else f"all {n_queries:,} queries have"
    threshold = (
        "min_relevance is above every grade, or " if options.min_relevance is not None else ""
    )
    msg = (
        f"No query is left to evaluate: {which} no relevant item, and ",
        Keyword("empty", "skip"),
        " leaves such queries out. Likely, "
        f"{threshold}the relevant column holds no positive grade (a join that lost the "
        "grades, or the wrong column). Check the grades, or pass ",
        Keyword("empty", "zero"),
        " to count those queries as 0.",
    )
    return InvalidDataError(msg, problem="no_queries", count=n_queries)


def included(pq: PerQuery, options: Options) -> PerQuery:
    """``pq`` with the queries that enter the means (``empty``); raises for ``"error"``,
    for a frame without rows, and when ``"skip"`` leaves no query.

    The option applies only to the metrics whose value depends on relevant items
    (``MetricDef.depends_on_relevant``, :meth:`PerQuery.applies`): counts and the metrics
    of the items themselves keep every query and their values."""
    if len(pq.empty) == 0:
        raise no_rows()
    applies = pq.applies()
    if not applies.any():
        return pq
    if options.empty == "skip" and pq.empty.all():
        raise no_queries_left(len(pq.empty), options)
    if options.empty == "error" and pq.empty.any():
        codes = np.flatnonzero(pq.empty)
        raise EmptyQueryError.of(pq.query_labels(codes[:5]), len(codes))
    include = ~pq.empty if options.empty in ("skip", "nan") else np.ones_like(pq.empty)
    values = pq.values
    if options.empty == "one":  # torchmetrics' empty_target_action="pos"
        values = np.where(pq.empty[:, None, None] & applies[None, None, :], 1.0, values)
    return replace(pq, include=np.asarray(include, dtype=bool), values=values)


def completed(pq: PerQuery, options: Options) -> PerQuery:
    """The per-query values as the finish step reads them: the beyond-accuracy metrics
    from every query's top k, then the ``empty`` option (and its error); with ``"skip"``,
    without the segments it leaves without a query."""
    if pq.top is not None:  # the beyond-accuracy metrics, from every query's top k
        sets = item_finish.complete(
            pq.values, pq.top, pq.metrics, options, pq.segment, pq.n_segments
        )
        pq = replace(pq, sets=sets)
    pq = included(pq, options)
    # a segment (or window) whose queries "skip" all left out has no row
    return pq.without_empty_segments() if options.empty == "skip" else pq


def finish(backend: Backend, pq: PerQuery, request: Request) -> Any:
    """The result of ``request`` from every query's values: a native frame of the backend
    (its ``keys`` columns taken from the rows ``pq`` refers to)."""
    window_at = None
    if request.window is not None:  # the window: the first segment key
        pq, window_at = _windows.segmented(pq, request.window)
    rows, columns = request.result.finish(backend, pq, request)
    if window_at is not None:  # leads the output's columns (Backend.table)
        columns = {WINDOW: window_at(rows), **columns}
    keys = request.keys
    return backend.table(keys, rows if keys else None, columns)


def run(backend: Backend, request: Request) -> Any:
    """``request`` on one eager frame of whole queries: the finish step's native frame."""
    pq = (request.shared_pass or per_query)(backend, request)
    return finish(backend, pq, request)


def ranks(
    backend: Backend, names: ColumnNames, columns: list[str], ties: Ties
) -> dict[str, IntArray]:
    """Per system, each row's rank in its query (0: no score), keyed by output column."""
    data = backend.extract(names, [])
    systems = data.systems or [(names.score, data.score)]
    out = {}
    with _engine.unique_items_checked(data, names.query_key, names.item_key):
        for column, (_, score) in zip(columns, systems, strict=True):
            ranking = _engine.rank(replace(data, score=score, systems=[]), ties)
            out[column] = ranking.rank_per_row(data.n_rows)
    return out
