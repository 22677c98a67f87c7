"""The numbers of a report, from one per-query pass over the frame.

One request (``PerQueryRows``, as ``per_query``) holds the report's metrics, the same
metrics at the other cut-offs of the metric@k curves, ``num_rel`` (which says which queries
have no relevant item), ``judged@k`` at the top k of each metric that counts unjudged rows
as non-relevant (the data section's holes) and two counts of the data section
(``rankframe.report._facts``: tied and ranked rows per query). The engine ranks each system
once for all of them and shares the lists across the metrics, so the curves and the tie
counts add a few array passes to the ranking, not a ranking each. On one eager frame
(pandas, polars, an Arrow source) the per-query step gives its ``PerQuery`` directly, as
``evaluate()``'s does; a partitioned frame (LazyFrame, Dask, Spark) runs the request and
its per-query table is read back as its parts' tables are
(``rankframe.pipeline.steps.from_parts``). The one finish step
(``rankframe.pipeline.steps.finish``) then makes the means with their intervals (overall
and per segment) and the comparisons with the baseline: the same code on the same per-query
values as ``evaluate()`` and ``compare()``, so the same numbers. The curves are the means
of their per-query values (``PerQuery.means``, what ``evaluate()`` computes); win/tie/loss,
the distributions and the worst queries come from the same values. The rows, unjudged rows
and the worst queries' lists read the bound columns once more.

The renderer's records (``Settings``, ``Facts``, ``ReportData`` ...) are in
``rankframe.report._records``, the figures made from the per-query values (win/tie/loss,
distributions, curves, worst queries, t intervals) in ``rankframe.report._figures``, and
the answer's findings in ``rankframe.report._answer``; this module runs the pass and puts
them together (``compute``), with the sections asked for by keyword (slices, exposure).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rankframe.adapters.pandas import PandasBackend
from rankframe.exceptions import InvalidOptionError
from rankframe.metrics import item_inputs
from rankframe.metrics.registry import Metric, bind_options, parse_metrics
from rankframe.pipeline import item_finish, steps
from rankframe.pipeline.binding import Binding
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.windows import TIME, WINDOW, Window, segmented
from rankframe.report import _figures
from rankframe.report._answer import segment_answer
from rankframe.report._facts import FACTS, RANKED_ROWS, TIED_ROWS, as_values
from rankframe.report._records import (
    Curve,
    Exposure,
    FloatArray,
    ReportData,
    Settings,
    WinTieLoss,
    WorstQuery,
    eager,
)
from rankframe.settings import params
from rankframe.settings.conventions import preset_options
from rankframe.settings.options import OPTIONS, Options
from rankframe.settings.statistics import Intervals, Tests

if TYPE_CHECKING:
    import polars as pl

#: the groups of ``item_groups`` the About section names; it counts the others
NAMED_GROUPS = 5


def option_text(name: str, value: Any) -> str:
    """An option's value as the About section writes it: ``item_groups`` summarized
    (``5,000 items in 2 groups: head, tail``; at most :data:`NAMED_GROUPS` names), any
    other as its ``str``."""
    if name != "item_groups" or value is None:
        return str(value)
    keys, _, groups = item_inputs.read_item_groups(value)
    names = ", ".join(str(g) for g in groups[:NAMED_GROUPS])
    more = f" and {len(groups) - NAMED_GROUPS:,} more" if len(groups) > NAMED_GROUPS else ""
    plural = "" if len(groups) == 1 else "s"
    return f"{len(keys):,} items in {len(groups):,} group{plural}: {names}{more}"


def _bound(metrics: Any, chosen: dict[str, Any]) -> tuple[list[Metric], Options, dict[str, Any]]:
    """The metrics with the call's options bound (labels as ``evaluate`` writes them)."""
    given = dict(chosen)
    given.update(preset_options(given.get("convention"), given, list(OPTIONS)))
    options = Options(**{n: given[n] for n in OPTIONS if n in given})
    explicit = [n for n in given if n in OPTIONS]
    parsed, options = bind_options(
        parse_metrics(metrics), options, explicit, given.get("convention")
    )
    return parsed, options, given


def _without_empty(metric: Metric) -> Metric:
    return replace(metric, options=tuple((n, v) for n, v in metric.options if n != "empty"))


def _one_pass(
    binding: Binding, metrics: Sequence[Metric], by: list[str], options: Options, every: str | None
) -> tuple[PerQuery, steps.Backend, list[Metric]]:
    """The one per-query pass: every value of ``metrics`` (at ``empty="zero"``: the finish
    step applies ``empty=``), ``num_rel`` and the counts of ``rankframe.report._facts``;
    the backend whose rows the table's ``first_rows`` and ``segment_rows`` name; the
    metrics of its values, in order. With ``every``, each query's time too (``PerQuery.time``,
    the time column's earliest value of the query, read in the same pass), from which the
    trend's windows are made.

    One eager frame runs the per-query step itself, as ``evaluate()`` does; a partitioned
    one runs ``per_query``'s request and its table is read back as the parts' tables are
    (``steps.from_parts``): the same values either way."""
    num_rel = parse_metrics("num_rel")[0]
    wanted = list(dict.fromkeys([*(_without_empty(m) for m in metrics), num_rel, *FACTS]))
    binding.check_columns(by)
    request = binding.request(
        wanted, by, replace(options, empty="zero"), steps.PerQueryRows(), every
    )
    backend = binding.frame.one_pass(request)
    if backend is not None:
        pq = steps.per_query(backend, request)
        if pq.top is not None:  # the metrics of the items: their per-query values, once
            item_finish.complete(
                _figures.values_of(pq), pq.top, wanted, options, pq.segment, pq.n_segments
            )
            pq = replace(pq, top=None)
        return pq, backend, wanted
    table = eager(binding.run(request))
    table[steps.EMPTY] = table[str(num_rel)].to_numpy() == 0
    if request.window is not None:  # its window start stands for each query's time: the
        # start of a window lies in that window (truncating it again gives itself)
        table = table.rename(columns={WINDOW: TIME})
    backend = PandasBackend(table)
    # the table holds every metric's final per-query value, the items' too: read as values
    read = replace(request, metrics=tuple(as_values(m) for m in wanted))
    return steps.from_parts(backend, read, counted=False), backend, wanted


def compute(
    binding: Binding,
    metrics: Any,
    *,
    by: str | Sequence[str] | None,
    baseline: str | None,
    tests: Tests,
    worst: int,
    top_k: int,
    curves: bool,
    chosen: dict[str, Any],
    every: str | None = None,
) -> ReportData:
    """Every number of the report (see the module), with the statistics of ``tests``."""
    by_list = params.as_columns(by)
    parsed, options, given = _bound(metrics, chosen)
    _refuse_set_metrics(parsed)
    systems = list(binding.names.scores)
    base = _baseline(systems, baseline)
    curve = _figures.curve_metrics(parsed) if curves else []
    window = binding.window(every, by_list)  # checked before the pass
    # every per-query value: the metrics, their curves, the facts, the holes' judged@k
    holes = _figures.hole_metrics(parsed, options)
    judged = [_figures.judged_at(k) for k in holes]
    values = _Values.of(binding, parsed, [*curve, *judged], by_list, options, every, window)
    tables = values.tables
    summary, segments, trend, segment_trend = _means(tables, parsed, tests)
    comparison, segment_comparison, wtl = (
        _comparisons(tables, systems.index(base), tests) if len(systems) > 1 else (None, None, [])
    )
    against, segment_tests = segment_answer(comparison, segment_comparison, by_list, base, tests)
    # the rows, unjudged rows and lists of the worst queries: no time column read for them
    bound = replace(values.resolved, time=None, time_unit=None)
    data = binding.frame.polars_columns([*bound.roles(), *by_list])
    worst_queries = (
        values.worst(data, binding.names.query_key, systems.index(base), worst, top_k)
        if len(systems) > 1
        else []
    )
    settings = _settings(
        binding,
        values.resolved,
        parsed,
        given,
        by_list,
        base,
        tests,
        worst=worst,
        top_k=top_k,
        every=every,
        trend=window is not None,
    )
    return ReportData(
        settings=settings,
        facts=_figures.facts(
            data,
            values.resolved,
            tables.pq,
            values.counts(),
            _figures.holes(values.everything, holes, values.positions),
        ),
        summary=summary,
        segments=segments,
        comparison=comparison,
        segment_comparison=segment_comparison,
        wtl=wtl,
        curves=values.curves(curve),
        distributions=_figures.distributions(tables.included),
        worst=worst_queries,
        segment_labels=_segment_labels(tables),
        trend=trend,
        segment_trend=segment_trend,
        against=against,
        segment_tests=segment_tests,
    )


def _refuse_set_metrics(parsed: Sequence[Metric]) -> None:
    """A set-level metric has no per-query values: refused, pointing to ``evaluate``."""
    for metric in parsed:
        if metric.definition.aggregate == "set":
            msg = (
                f"{metric} is a set-level metric: the report needs per-query values; "
                "evaluate it with evaluate([...], by=...) instead."
            )
            raise InvalidOptionError(msg)


def _baseline(systems: list[str], baseline: str | None) -> str:
    """The baseline system: ``baseline``, or the first score column."""
    return params.check_baseline(baseline, systems)


@dataclass(frozen=True)
class _Tables:
    """The report's per-query values and what finishes them: ``pq`` (the report's metrics,
    per segment), ``overall`` (the same, every query one segment), their included queries
    (``empty=`` applied), the backend whose rows they name, the finish step's request and
    the trend's windows (``None``: no trend)."""

    backend: steps.Backend
    request: steps.Request
    pq: PerQuery
    overall: PerQuery
    included: PerQuery
    overall_included: PerQuery
    window: Window | None

    @classmethod
    def of(
        cls,
        everything: PerQuery,
        backend: steps.Backend,
        parsed: Sequence[Metric],
        positions: list[int],
        request: steps.Request,
        window: Window | None,
    ) -> _Tables:
        """From the pass's values (``everything``): the columns of ``parsed``
        (``positions``)."""
        pq = replace(
            everything, values=_figures.values_of(everything)[:, :, positions], metrics=list(parsed)
        )
        included = steps.included(pq, request.options)
        overall = replace(
            pq, segment=np.zeros_like(pq.segment), segment_rows=pq.segment_rows[:1], n_segments=1
        )
        overall_included = replace(
            included, segment=overall.segment, segment_rows=overall.segment_rows, n_segments=1
        )
        return cls(backend, request, pq, overall, included, overall_included, window)

    @property
    def by(self) -> tuple[str, ...]:
        return self.request.by

    def finish(self, result: steps.Result, by_segment: bool) -> pd.DataFrame:
        """The finish step of ``result`` over every query (``by_segment``: per segment)."""
        r = replace(self.request, by=self.by if by_segment else (), result=result)
        return eager(steps.finish(self.backend, self.pq if by_segment else self.overall, r))

    def windowed(self, result: steps.Result, by_segment: bool = False) -> pd.DataFrame:
        """Every query's means per window (``by_segment``: per segment and window):
        ``evaluate(every=...)``'s finish step."""
        r = replace(
            self.request, by=self.by if by_segment else (), result=result, window=self.window
        )
        return eager(steps.finish(self.backend, self.pq if by_segment else self.overall, r))

    def kept(self, table: PerQuery) -> PerQuery:
        """The segments the finish step keeps: with ``empty="skip"``, not those it leaves
        without a query (as ``steps.completed``), so the intervals match its rows."""
        return table.without_empty_segments() if self.request.options.empty == "skip" else table


@dataclass(frozen=True)
class _Values:
    """The one pass's values and what is read from them: every per-query value
    (``everything``: the report's metrics, the curves' and the facts', each metric's column
    at ``positions``), the columns by role, and the report's metrics' tables (``tables``)."""

    everything: PerQuery
    positions: dict[Metric, int]
    resolved: steps.ColumnNames
    tables: _Tables

    @classmethod
    def of(
        cls,
        binding: Binding,
        parsed: Sequence[Metric],
        more: Sequence[Metric],
        by: list[str],
        options: Options,
        every: str | None,
        window: Window | None,
    ) -> _Values:
        """The pass of ``parsed`` and ``more`` (the curves' metrics, the holes' ``judged@k``;
        :func:`_one_pass`) and its tables."""
        everything, backend, wanted = _one_pass(binding, [*parsed, *more], by, options, every)
        resolved = binding.resolved(by, options)
        positions = {m: i for i, m in enumerate(wanted)}
        tables = _Tables.of(
            everything,
            backend,
            parsed,
            [positions[_without_empty(m)] for m in parsed],
            steps.Request(resolved, tuple(parsed), tuple(by), options, steps.PerQueryRows()),
            window,
        )
        return cls(everything, positions, resolved, tables)

    def curves(self, curve: Sequence[Metric]) -> list[Curve]:
        """The curves: every query (``empty=`` applied), the metric's own k from its own
        column."""
        overall = self.tables.overall
        every_query = replace(
            self.everything,
            segment=overall.segment,
            segment_rows=overall.segment_rows,
            n_segments=1,
            metrics=list(self.positions),
        )
        return _figures.curves(
            steps.included(every_query, self.tables.request.options),
            curve,
            [self.positions[_without_empty(m)] for m in curve],
        )

    def counts(self) -> FloatArray:
        """Per query and system, its tied and its ranked rows (``rankframe.report._facts``)."""
        columns = [self.positions[TIED_ROWS], self.positions[RANKED_ROWS]]
        return np.asarray(_figures.values_of(self.everything)[:, :, columns])

    def worst(
        self, data: pl.DataFrame, key: Sequence[str], baseline: int, count: int, top_k: int
    ) -> list[WorstQuery]:
        """The ``count`` worst queries against the ``baseline`` system, with their top-k
        lists from ``data`` (the bound columns)."""
        tables = self.tables
        return _figures.worst_queries(
            tables.included,
            data,
            self.resolved,
            _query_ids(tables, key),
            baseline,
            tables.request.options,
            count,
            top_k,
        )


_Frame = pd.DataFrame | None


def _means(
    tables: _Tables, parsed: Sequence[Metric], tests: Tests
) -> tuple[pd.DataFrame, _Frame, _Frame, _Frame]:
    """The means with their intervals: overall, per segment, per window (the trend) and
    per segment and window. The t-test's: t intervals (as compare()'s of the deltas);
    otherwise evaluate()'s percentile bootstrap."""
    confidence_level = tests.confidence_level
    window, by = tables.window, bool(tables.by)
    trend = segment_trend = None
    if tests.test == "t-test":  # t intervals of the means, as compare()'s of the deltas
        plain = steps.Means()
        summary = _figures.with_t_intervals(
            tables.finish(plain, False), tables.overall_included, parsed, confidence_level
        )
        if window is not None:  # per window: the windows as the segments of the t intervals
            trend = _figures.with_t_intervals(
                tables.windowed(plain),
                tables.kept(segmented(tables.overall_included, window)[0]),
                parsed,
                confidence_level,
            )
            if by:
                segment_trend = _figures.with_t_intervals(
                    tables.windowed(plain, True),
                    tables.kept(segmented(tables.included, window)[0]),
                    parsed,
                    confidence_level,
                )
        segments = (
            _figures.with_t_intervals(
                tables.finish(plain, True), tables.kept(tables.included), parsed, confidence_level
            )
            if by
            else None
        )
        return summary, segments, trend, segment_trend
    # evaluate()'s percentile bootstrap
    means = steps.Means(
        intervals=Intervals(
            confidence_level=confidence_level, n_resamples=tests.n_resamples, seed=tests.seed
        )
    )
    summary = tables.finish(means, False)
    segments = tables.finish(means, True) if by else None
    trend = tables.windowed(means) if window is not None else None
    segment_trend = tables.windowed(means, True) if window is not None and by else None
    return summary, segments, trend, segment_trend


def _comparisons(
    tables: _Tables, baseline: int, tests: Tests
) -> tuple[_Frame, _Frame, list[WinTieLoss]]:
    """compare()'s tables against the ``baseline`` system (overall and per segment) and
    win/tie/loss (two systems or more)."""
    by = bool(tables.by)
    compared = steps.Comparison(baseline=baseline, tests=tests)
    comparison = tables.finish(compared, False)
    segment_comparison = tables.finish(compared, True) if by else None
    wtl = _figures.wtl(tables.included, baseline, False) + (
        _figures.wtl(tables.included, baseline, True) if by else []
    )
    return comparison, segment_comparison, wtl


def _query_ids(tables: _Tables, key: Sequence[str]) -> Callable[[list[int]], list[object]]:
    """The queries' ids of query codes; a composite key's as tuples of its columns' values."""
    pq = tables.pq
    first_rows = pq.first_rows if pq.first_rows is not None else np.zeros(0, dtype=np.int64)

    def query_ids(codes: list[int]) -> list[object]:
        rows = first_rows[np.asarray(codes, dtype=np.int64)]
        labels = [tables.backend.labels(c, rows) for c in key]
        return labels[0] if len(labels) == 1 else list(zip(*labels, strict=True))

    return query_ids


def _segment_labels(tables: _Tables) -> list[str]:
    """Per segment code, its values (the row of the per-query table it names)."""
    if not tables.by:
        return []
    values = [tables.backend.labels(c, tables.pq.segment_rows) for c in tables.by]
    return [" / ".join(map(str, key)) for key in zip(*values, strict=True)]


def _settings(
    binding: Binding,
    resolved: steps.ColumnNames,
    parsed: Sequence[Metric],
    given: dict[str, Any],
    by: list[str],
    base: str,
    tests: Tests,
    *,
    worst: int,
    top_k: int,
    every: str | None,
    trend: bool,
) -> Settings:
    """What the report was asked for, as its About section writes it."""
    names = binding.names
    systems = list(names.scores)
    return Settings(
        metrics=[str(m) for m in parsed],
        by=by,
        systems=systems,
        baseline=base if len(systems) > 1 else None,
        test=tests.test,
        correction=tests.correction,
        alpha=tests.alpha,
        confidence_level=tests.confidence_level,
        n_resamples=tests.n_resamples,
        seed=tests.seed,
        worst=worst,
        top_k=top_k,
        options={n: v for n, v in given.items() if n in OPTIONS or n == "convention"},
        columns={
            "query": names.query,
            "item": names.item,
            "relevant": names.relevant,
            **({"judged": resolved.judged} if resolved.judged else {}),
            **({"time": names.time} if trend and names.time else {}),
        },
        every=every,
    )


# -- the sections asked for by keyword: slices and exposure ---------------------------------


def slice_table(
    ev: Any,
    metrics: Any,
    columns: Sequence[str],
    *,
    baseline: str | None,
    tests: Tests,
    max_depth: int,
    min_queries: int,
    top: int,
    chosen: dict[str, Any],
) -> pd.DataFrame:
    """The section "Where it fails": ``ev.slices()``'s own table (its ``top`` rows per
    system and metric, worst first; ``n_tested`` counts every test of the call), with the
    report's correction and confidence level; the permutation test when the report's test
    is one, Welch's or the paired t-test otherwise."""
    return eager(
        ev.slices(
            metrics,
            list(columns),
            baseline=baseline,
            max_depth=max_depth,
            min_queries=min_queries,
            top=top,
            test="permutation" if tests.test == "permutation" else "t-test",
            confidence_level=tests.confidence_level,
            correction=None if tests.correction == "none" else tests.correction,
            seed=tests.seed,
            **chosen,
        )
    )


def exposure(
    ev: Any, k: int, systems: Sequence[str], tests: Tests, chosen: dict[str, Any]
) -> Exposure:
    """The fairness section's numbers (``Exposure``): the per-query values of
    ``exposure@k`` and ``exposure_gap@k`` (with ``empty="skip"``: the queries with a
    relevant item, where the merit share is defined), their means per system, and the merit
    share as their difference, exposure - gap, query by query."""
    given = {**chosen, "empty": "skip"}
    parsed, _, _ = _bound([f"exposure@{k}", f"exposure_gap@{k}"], given)
    # each metric's column per group, as the per-query table labels it (bound: a metric
    # per group of item_groups, MetricDef.expand)
    labels: list[dict[str, str]] = [{}, {}]
    for m in parsed:
        labels[m.name == "exposure_gap"][str(dict(m.options)["group"])] = str(m)
    per_query = eager(ev.per_query([f"exposure@{k}", f"exposure_gap@{k}"], **given))
    system = (
        per_query["system"].astype(str)
        if "system" in per_query.columns
        else pd.Series(systems[0], index=per_query.index)
    )
    rows = []
    for name in systems:
        mine = per_query[(system == name).to_numpy()]
        for group, shown in labels[0].items():
            share = mine[shown].to_numpy(dtype=np.float64)
            gap = mine[labels[1][group]].to_numpy(dtype=np.float64)
            rows.append(
                {
                    "system": name,
                    "group": group,
                    "exposure": _mean(share),
                    "merit": _mean(share - gap),
                    "gap": _mean(gap),
                    "n_queries": len(mine),
                }
            )
    divergences = eager(
        ev.evaluate(
            [f"awrf@{k}", f"ndkl@{k}"],
            confidence_level=tests.confidence_level,
            n_resamples=tests.n_resamples,
            seed=tests.seed,
            **chosen,
        )
    )
    return Exposure(k, pd.DataFrame(rows), divergences)


def _mean(values: FloatArray) -> float:
    return float(values.mean()) if len(values) else math.nan
