"""Gates: rules on metrics, each row of their table a decision (``check``).

A rule is a string (:func:`parse_rule`):

- an **absolute** rule, ``"ndcg@10 >= 0.30"`` (``>=``, ``<=``, ``>``, ``<``), reads the
  metric's value per system and segment from ``evaluate`` with bootstrap intervals;
- a **drop** rule, ``"ndcg@10 drop <= 0.01"`` (an absolute decrease) or ``"ndcg@10 drop <= 1%"``
  (relative to the baseline's statistic), reads ``compare``: each system against the
  baseline score column, the reference frame, or the previous window.

:func:`check` evaluates every rule and gives one row per rule, system and segment (and
window), the answer first: ``rule``, ``window`` (with ``every=``), the ``by`` columns,
``system``, then :data:`COLUMNS` (``metric``, ``k``, ``status`` of :data:`STATUSES`,
``value``, ``delta``, ``delta_relative``, the bound and the interval in the rule's own
unit, ``p_value``, ``p_adjusted``, then the relative bound and interval, ``paired``,
``n_queries``, ``queries_to_decide``: :func:`queries_to_decide`), the same columns
whatever the rules; per rule (in their order), per system (in the order of the score
columns), the windows and segments in their order. The statuses, the units of the columns
and the defaults are documented in ``docs/monitoring.md`` ("Gates").

This module sits above the accessor's public methods: it calls ``evaluate`` and
``compare`` on the accessor it is given and reads their tables; nothing below calls it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from rankframe.adapters import results
from rankframe.api.rules import GRAMMAR, Rule, parse_rule, parse_rules
from rankframe.exceptions import InvalidRuleError
from rankframe.metrics.registry import GEOMETRIC_FLOOR, Metric, labels, parse_metric
from rankframe.pipeline import provenance
from rankframe.pipeline.analysis import MDE_POWER, SYSTEM, k_type, relative_change
from rankframe.pipeline.binding import Binding, Frame
from rankframe.settings.options import Correction, Family, Test
from rankframe.settings.params import GATE_MODES, as_columns
from rankframe.settings.statistics import Tests
from rankframe.stats.power import t_test_detectable_effect, t_test_sample_size

__all__ = [
    "COLUMNS",
    "FAIL",
    "GRAMMAR",
    "MODES",
    "NO_BASELINE",
    "PASS",
    "STATUSES",
    "TOO_FEW",
    "UNCERTAIN",
    "WINDOW",
    "Rule",
    "check",
    "parse_rule",
    "parse_rules",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Mode = Literal["interval", "point"]

PASS = "pass"
FAIL = "fail"
UNCERTAIN = "uncertain"
TOO_FEW = "too few queries"
NO_BASELINE = "no baseline"
#: Every status a row of ``check`` may have; only ``"fail"`` (and, when asked,
#: ``"uncertain"``) fails a gate.
STATUSES = (PASS, FAIL, UNCERTAIN, TOO_FEW, NO_BASELINE)
MODES: tuple[Mode, ...] = GATE_MODES  # check()'s modes, as params checks them
WINDOW = "window"  # the column of time windows (evaluate/compare with every=)
#: The gate table's columns after ``rule`` and its keys (``window``, ``by``, ``system``),
#: the same whatever the rules: the answer first (``status``, the value, the change, the
#: bound, the interval, the p-values), then the columns only a relative drop rule fills and
#: the bookkeeping. A rule's interval and bound are in its own unit, and the names say which:
#: ``bound``/``ci_low``/``ci_high`` on the metric's scale (the value for an absolute rule,
#: ``delta`` for an absolute drop rule), ``*_relative`` of ``delta_relative`` for a relative
#: drop rule (``drop <= 1%``); the other unit's are NaN.
COLUMNS = (
    "metric",
    "k",
    "status",
    "value",
    "delta",
    "delta_relative",
    "bound",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "bound_relative",
    "ci_low_relative",
    "ci_high_relative",
    "paired",
    "n_queries",
    "queries_to_decide",
)
#: The power at which ``queries_to_decide`` decides an uncertain row: even odds
#: (:func:`queries_to_decide`)
DECIDE_POWER = 0.5


# -- reading result tables -------------------------------------------------------------------


def _floats(values: Any) -> FloatArray:
    array = np.asarray(values)
    if array.dtype.kind in "biuf":
        return array.astype(np.float64)
    return np.array([_float_or_nan(v) for v in array], dtype=np.float64)


def _float_or_nan(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):  # None, pandas' NA
        return math.nan


def _keys(backend: Any) -> list[tuple[str, float | None]]:
    """Per row of a tidy or compare table, its (metric, k) (``k`` None where null)."""
    metric = [str(m) for m in backend.column("metric")]
    k = _floats(backend.column("k"))
    return [(m, None if math.isnan(v) else float(v)) for m, v in zip(metric, k, strict=True)]


def _rule_key(
    metric: Metric, others: Sequence[Metric], chosen: Mapping[str, Any]
) -> tuple[str, float | None]:
    """The (metric, k) that the tables write for ``metric`` evaluated beside ``others`` with
    the call's options (its label names the options that moved it)."""
    label = labels([metric, *others], chosen)[0]
    bound = parse_metric(label)
    return bound.tidy_name, None if bound.k is None else float(bound.k)


# -- statuses --------------------------------------------------------------------------------


def _absolute_status(
    rule: Rule, value: FloatArray, low: FloatArray, high: FloatArray, mode: Mode
) -> npt.NDArray[np.object_]:
    """Per row: pass / fail / uncertain of an absolute rule (point: pass / fail)."""
    ops = {">=": np.greater_equal, ">": np.greater, "<=": np.less_equal, "<": np.less}
    holds = ops[rule.operator]
    if mode == "point":
        good, bad = holds(value, rule.bound), ~holds(value, rule.bound)
    else:
        # the whole interval on the right side passes; on the wrong side fails
        worst, best = (low, high) if rule.operator in (">=", ">") else (high, low)
        good, bad = holds(worst, rule.bound), ~holds(best, rule.bound)
        bad &= ~np.isnan(best)
    status = np.full(len(value), UNCERTAIN, dtype=object)
    status[good] = PASS
    status[bad & ~good] = FAIL
    status[np.isnan(value)] = UNCERTAIN
    return status


def _drop_status(
    rule: Rule, delta: FloatArray, significant: BoolArray, mode: Mode
) -> npt.NDArray[np.object_]:
    """Per row of a drop rule: fail when the decrease exceeds the tolerance and is
    significant (point: exceeds it), uncertain when it exceeds it without being
    significant, pass otherwise; no baseline where there is no change to read."""
    bound = -rule.bound
    with np.errstate(invalid="ignore"):
        beyond = delta < bound if rule.operator == "<=" else delta <= bound
    status = np.full(len(delta), PASS, dtype=object)
    if mode == "point":
        status[beyond] = FAIL
    else:
        status[beyond & significant & (delta < 0)] = FAIL
        status[beyond & ~(significant & (delta < 0))] = UNCERTAIN
    status[np.isnan(delta)] = NO_BASELINE
    return status


# -- check -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Part:
    """The rows of one result table that the rules read, and their columns."""

    backend: Any
    table: Any
    rows: list[int]
    values: dict[str, Any]


def _no_baseline_error(rule: Rule) -> InvalidRuleError:
    msg = (
        f"Rule {rule.text!r} is a drop rule: it compares each system with a baseline, and "
        "there is none. Pass several score columns and a baseline "
        "(df.rank_eval(score=['new', 'old']).check(rules, baseline='old')), a reference "
        "frame (reference=last_week), or windows (every='1w': each window against the "
        "previous one)."
    )
    return InvalidRuleError(msg, rule=rule.text)


def check(
    ev: Any,
    rules: str | Iterable[str],
    *,
    baseline: str | None,
    reference: Any,
    every: str | None,
    by: str | Sequence[str] | None,
    mode: Mode,
    min_queries: int,
    confidence_level: float,
    alpha: float,
    test: Test,
    correction: Correction,
    family: Family,
    n_resamples: int,
    n_permutations: int,
    seed: int | None,
    options: dict[str, Any],
) -> Any:
    """The gate table of ``rules`` on the accessor ``ev`` (``RankEval.check`` documents
    the arguments and checks them: ``rankframe.settings.params``), whose binding
    (``ev.__rankframe_binding__``) gives its frame's adapter and score columns: read
    through the adapter's methods, and a pandas or polars frame as that adapter builds
    them. The steps: parse the rules, resolve what they compare with, read the tables
    (``evaluate`` for absolute rules, ``compare`` for drop rules), the rows of each rule,
    then the table in the order of the rules."""
    parsed = parse_rules(rules)
    binding: Binding = ev.__rankframe_binding__
    frame, scores = binding.frame, binding.names.scores
    tests = Tests(
        test=test,
        correction=correction,
        family=family,
        alpha=alpha,
        confidence_level=confidence_level,
        n_permutations=n_permutations,
        n_resamples=n_resamples,
        seed=seed,
    )
    call = _resolve(
        ev,
        frame,
        parsed,
        tests,
        baseline=baseline,
        reference=reference,
        every=every,
        by=by,
        mode=mode,
        min_queries=min_queries,
        options=options,
        scores=scores,
    )
    parts, made = _read_tables(call)
    frames = [row for part in parts for row in _part_rows(call, *part)]
    # in the order of the rules, whichever table each one read
    result = frame.concat([table for _, table in sorted(frames, key=lambda pair: pair[0])])
    if made is None:
        return result
    # History.record reads the options and the input of the tables it read, every rule's
    # metric, and the settings of check itself
    settings = {
        "rules": [rule.text for rule in parsed],
        "baseline": baseline,
        "mode": mode,
        "min_queries": min_queries,
        "confidence_level": confidence_level,
        "alpha": alpha,
        "test": test,
        "correction": correction,
        "family": family,
        "every": every,
        "reference": reference is not None,
    }
    request = replace(made.request, metrics=tuple(call.every_metric))
    return provenance.remember(result, request, frame.source, kind="Check", settings=settings)


@dataclass(frozen=True)
class _Call:
    """One ``check()`` call, resolved: its rules, the accessor and frame it reads, the
    settings every step reads, and what drop rules compare with (``base_system``: the
    baseline column when they compare with one, else ``None``)."""

    ev: Any
    frame: Frame
    parsed: list[Rule]
    tests: Tests
    mode: Mode
    min_queries: int
    baseline: str | None
    reference: Any
    by: str | Sequence[str] | None
    by_list: list[str]
    windows: dict[str, Any]
    options: dict[str, Any]
    scores: Sequence[str]
    base_system: str | None
    every_metric: list[Metric]
    k_arrow: pa.DataType


def _resolve(
    ev: Any,
    frame: Frame,
    parsed: list[Rule],
    tests: Tests,
    *,
    baseline: str | None,
    reference: Any,
    every: str | None,
    by: str | Sequence[str] | None,
    mode: Mode,
    min_queries: int,
    options: dict[str, Any],
    scores: Sequence[str],
) -> _Call:
    """What the rules compare with: drop rules against a baseline column (without
    ``every=`` and ``reference=``, or ``every=`` with a baseline) need two score columns."""
    against_base = reference is None and (every is None or baseline is not None)
    drops = [r for r in parsed if r.drop]
    if drops and against_base and len(scores) < 2:
        raise _no_baseline_error(drops[0])
    every_metric = list(dict.fromkeys(r.metric for r in parsed))
    return _Call(
        ev=ev,
        frame=frame,
        parsed=parsed,
        tests=tests,
        mode=mode,
        min_queries=min_queries,
        baseline=baseline,
        reference=reference,
        by=by,
        by_list=as_columns(by),
        windows={} if every is None else {"every": every},
        options=options,
        scores=scores,
        base_system=(baseline if baseline is not None else scores[0]) if against_base else None,
        every_metric=every_metric,
        k_arrow=pa.float64() if k_type(every_metric) == "float?" else pa.int64(),
    )


def _read_tables(
    call: _Call,
) -> tuple[list[tuple[list[Rule], Any, bool]], provenance.Provenance | None]:
    """The tables the rules read, each with its rules and whether they are drop rules:
    ``evaluate``'s (tidy, with intervals unless ``mode="point"``) for absolute rules,
    ``compare``'s for drop rules; and what made the first (its provenance)."""
    absolute = [r for r in call.parsed if not r.drop]
    drops = [r for r in call.parsed if r.drop]
    parts: list[tuple[list[Rule], Any, bool]] = []
    made: provenance.Provenance | None = None  # what made the tables: the run's options
    tests = call.tests
    if absolute:
        metrics = list(dict.fromkeys(r.metric for r in absolute))
        interval = {} if call.mode == "point" else {"confidence_level": tests.confidence_level}
        table = call.ev.evaluate(
            metrics,
            by=call.by,
            tidy=True,
            n_resamples=tests.n_resamples,
            seed=tests.seed,
            **interval,
            **call.windows,
            **call.options,
        )
        made = made or provenance.recall(table)
        parts.append((absolute, call.frame.eager(table), False))
    if drops:
        metrics = list(dict.fromkeys(r.metric for r in drops))
        extra: dict[str, Any] = dict(call.windows)
        if call.reference is not None:
            extra["reference"] = call.reference
        if call.baseline is not None:
            extra["baseline"] = call.baseline
        table = call.ev.compare(metrics, by=call.by, **asdict(tests), **extra, **call.options)
        made = made or provenance.recall(table)
        parts.append((drops, call.frame.eager(table), True))
    return parts, made


def _part_rows(
    call: _Call, part_rules: list[Rule], table: Any, is_drop: bool
) -> list[tuple[int, Any]]:
    """The gate rows of each rule that reads ``table``, with the rule's position."""
    backend = call.frame.backend(table)
    spreads = _Spreads(call.ev, table, call.by, call.windows, call.options, part_rules)
    columns = list(table.columns)
    keys = [
        *(c for c in columns if c == WINDOW and WINDOW not in call.by_list),
        *(c for c in call.by_list if c in columns),
        *(c for c in columns if c == SYSTEM),
    ]
    row_keys = _keys(backend)
    systems = [str(s) for s in backend.column(SYSTEM)]
    place = {str(system): i for i, system in enumerate(call.scores)}
    metrics = list(dict.fromkeys(r.metric for r in part_rules))
    frames: list[tuple[int, Any]] = []
    for rule in part_rules:
        others = [m for m in metrics if m != rule.metric]
        key = _rule_key(rule.metric, others, call.options)
        # per system in the order of the score columns, then its windows and segments
        rows = sorted(
            (
                i
                for i, k in enumerate(row_keys)
                if k == key and not (is_drop and systems[i] == call.base_system)
            ),
            key=lambda i: place.get(systems[i], len(place)),
        )
        columns_of = _rule_columns(
            call, rule, backend, rows, is_drop, spreads, "n_reference" in columns
        )
        head = {
            "rule": _repeated(rule.text, len(rows)),
            "metric": _repeated(key[0], len(rows)),
            "k": pa.array([rule.metric.k] * len(rows), type=call.k_arrow),
        }
        index = np.asarray(rows, dtype=np.int64)
        rows_table = backend.table(keys, index, {**head, **columns_of})
        frames.append((call.parsed.index(rule), rows_table[["rule", *keys, *COLUMNS]]))
    return frames


def _repeated(value: str, n: int) -> npt.NDArray[np.object_]:
    """``value`` ``n`` times, as an object array."""
    out = np.empty(n, dtype=object)
    out[:] = value
    return out


def _rule_columns(
    call: _Call,
    rule: Rule,
    backend: Any,
    rows: list[int],
    is_drop: bool,
    spreads: _Spreads,
    two_tables: bool,
) -> dict[str, Any]:
    """One rule's columns on its ``rows``: its values (per rule kind), the status (too
    few queries where a segment has fewer than ``min_queries``), and the queries that
    would decide an uncertain row."""
    values = (
        _drop_values(rule, backend, rows, call.tests.alpha, call.mode)
        if is_drop
        else _absolute_values(rule, backend, rows, call.mode)
    )
    n_queries = _floats(backend.column("n_queries"))[rows]
    status = values.pop("status")
    status[n_queries < call.min_queries] = TOO_FEW
    uncertain = status == UNCERTAIN
    decide = np.full(len(rows), np.nan)
    if uncertain.any():
        chosen = np.asarray(rows, dtype=np.int64)[uncertain]
        decide[uncertain] = (
            _drop_decide(backend, chosen, call.tests, two_tables)
            if is_drop
            else _absolute_decide(rule, backend, chosen, call.tests, spreads)
        )
    return {
        **values,
        "n_queries": n_queries.astype(np.int64),
        "status": status,
        "queries_to_decide": decide,
    }


def _absolute_values(rule: Rule, backend: Any, rows: list[int], mode: Mode) -> dict[str, Any]:
    """An absolute rule's columns from ``evaluate``'s rows: the value, its interval and
    the bound on the metric's scale; no change and no test."""
    value = _floats(backend.column("value"))[rows]
    nan = np.full(len(rows), np.nan)
    if mode == "point":
        low, high = nan, nan.copy()
    else:
        low = _floats(backend.column("ci_low"))[rows]
        high = _floats(backend.column("ci_high"))[rows]
    return {
        "value": value,
        "delta": nan.copy(),
        "delta_relative": nan.copy(),
        "ci_low": low,
        "ci_high": high,
        "ci_low_relative": nan.copy(),
        "ci_high_relative": nan.copy(),
        "bound": np.full(len(rows), rule.bound),
        "bound_relative": nan.copy(),
        "p_value": nan.copy(),
        "status": _absolute_status(rule, value, low, high, mode),
        "p_adjusted": nan.copy(),
        "paired": np.zeros(len(rows), dtype=bool),
    }


def _drop_values(
    rule: Rule, backend: Any, rows: list[int], alpha: float, mode: Mode
) -> dict[str, Any]:
    """A drop rule's columns from ``compare``'s rows: the change of the statistic, absolute
    (``delta``) and relative to the baseline's statistic (``delta_relative``); the interval
    and the bound (minus the tolerance) in the rule's unit, the interval with the
    baseline's statistic held fixed; the other unit's NaN."""
    mean = _floats(backend.column("mean"))[rows]
    delta = _floats(backend.column("delta"))[rows]
    low = _floats(backend.column("ci_low"))[rows]
    high = _floats(backend.column("ci_high"))[rows]
    p_value = _floats(backend.column("p_value"))[rows]
    p_adjusted = _floats(backend.column("p_adjusted"))[rows]
    geometric = np.array(
        [str(s) == "geometric mean" for s in np.asarray(backend.column("statistic"))[rows]],
        dtype=bool,
    )
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        # compare's delta of a geometric mean is the log of the ratio of the statistics
        base = np.where(geometric, mean * np.exp(-delta), mean - delta)

        def absolute(change: FloatArray) -> FloatArray:
            return np.asarray(np.where(geometric, base * np.expm1(change), change))

        def relative(change: FloatArray) -> FloatArray:
            return relative_change(change, base, geometric)

        change, change_relative = absolute(delta), relative(delta)
        unit = relative if rule.relative else absolute
        interval = (unit(low), unit(high))
    nan = np.full(len(rows), np.nan)
    bound = np.full(len(rows), -rule.bound)
    own, other = ("_relative", "") if rule.relative else ("", "_relative")
    significant = np.asarray(p_adjusted < alpha, dtype=bool)
    return {
        "value": mean,
        "delta": change,
        "delta_relative": change_relative,
        f"ci_low{own}": interval[0],
        f"ci_high{own}": interval[1],
        f"ci_low{other}": nan,
        f"ci_high{other}": nan.copy(),
        f"bound{own}": bound,
        f"bound{other}": nan.copy(),
        "p_value": p_value,
        "status": _drop_status(
            rule, change_relative if rule.relative else change, significant, mode
        ),
        "p_adjusted": p_adjusted,
        "paired": np.asarray(backend.column("paired"), dtype=bool)[rows],
    }


# -- how many queries would decide an uncertain row ------------------------------------------


def queries_to_decide(
    distance: FloatArray, sd: FloatArray, alpha: float, *, two_sample: npt.ArrayLike = False
) -> FloatArray:
    """The queries (per side for two samples) at which a two-sided t-test at ``alpha``
    against an effect of ``distance / sd`` has even odds (power :data:`DECIDE_POWER`): the
    size at which the interval around an estimate as far from the line as the one observed
    just leaves it out. The ceiling of statsmodels' ``TTestPower`` / ``TTestIndPower``
    (``ratio=1``) ``solve_power(power=0.5)``: ``sample_size(delta=distance, power=0.5)``.
    ``inf`` for no distance; NaN without a standard deviation."""
    sizes = np.broadcast_to(np.asarray(two_sample, dtype=bool), np.shape(distance))
    out = np.full(np.shape(distance), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        effect = np.abs(distance) / sd
    for i in np.flatnonzero((sd > 0) & ~np.isnan(effect)):
        n = t_test_sample_size(
            float(effect[i]), alpha, DECIDE_POWER, "two-sided", two_sample=bool(sizes[i])
        )
        out[i] = math.ceil(n - 1e-9) if math.isfinite(n) else n
    return out


def _drop_decide(
    backend: Any, rows: npt.NDArray[np.int64], tests: Tests, two_tables: bool
) -> FloatArray:
    """``queries_to_decide`` of uncertain rows of a drop rule. Such a row is beyond the
    tolerance without being significant; at the observed change it turns ``"fail"`` once
    the change is significant: the distance is ``compare``'s ``delta`` from no change, at
    the rule's ``alpha`` (before the correction), paired or two samples as ``compare``
    tested it. The standard deviation is the one of ``compare``'s ``mde`` (its detectable
    effect at the same sizes times it), so the per-query values are not read again;
    ``two_tables``: the table has ``n_reference`` (a reference frame, the previous
    window)."""
    delta = _floats(backend.column("delta"))[rows]
    mde = _floats(backend.column("mde"))[rows]
    paired = np.asarray(backend.column("paired"), dtype=bool)[rows]
    n = _floats(backend.column("n_queries"))[rows]
    n2 = _floats(backend.column("n_reference"))[rows] if two_tables else np.full(len(rows), np.nan)
    level = 1.0 - tests.confidence_level
    effect = np.where(
        paired,
        t_test_detectable_effect(n, level, MDE_POWER),
        t_test_detectable_effect(n, level, MDE_POWER, n2=np.where(paired, 1.0, n2)),
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = mde / effect
    return queries_to_decide(delta, sd, tests.alpha, two_sample=~paired)


def _absolute_decide(
    rule: Rule, backend: Any, rows: npt.NDArray[np.int64], tests: Tests, spreads: _Spreads
) -> FloatArray:
    """``queries_to_decide`` of uncertain rows of an absolute rule: the interval (at the
    rule's ``confidence_level``) holds the bound; at the observed value it leaves it out
    at :func:`queries_to_decide` of the distance from the value to the bound and the
    standard deviation of the per-query values (one sample). A geometric mean's on the
    logs (``log(max(v, 1e-5))``, the distance from ``log(bound)``); NaN for a sum, whose
    value grows with the queries themselves."""
    aggregate = rule.metric.definition.aggregate
    value = _floats(backend.column("value"))[rows]
    if aggregate == "sum":
        return np.full(len(rows), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        if aggregate != "geometric":
            distance = value - rule.bound
        elif rule.bound > 0:
            distance = np.log(value) - math.log(rule.bound)
        else:  # no geometric mean is at or below 0: no distance to read
            distance = np.full(len(rows), np.nan)
    return queries_to_decide(distance, spreads.of(rule, rows), 1.0 - tests.confidence_level)


class _Spreads:
    """The standard deviation of each row's per-query values in an ``evaluate`` table,
    read (with one ``per_query`` pass) the first time an uncertain row asks."""

    def __init__(
        self,
        ev: Any,
        table: Any,
        by: Any,
        windows: dict[str, Any],
        options: dict[str, Any],
        rules: Sequence[Rule],
    ) -> None:
        self._ev, self._table, self._by, self._windows = ev, table, by, windows
        self._options = options
        self._metrics = list(dict.fromkeys(r.metric for r in rules))
        self._sd: Any = None

    def of(self, rule: Rule, rows: npt.NDArray[np.int64]) -> FloatArray:
        if self._sd is None:
            self._sd = self._read()
        column = self._metrics.index(rule.metric)
        return np.asarray(self._sd.iloc[rows, column], dtype=np.float64)

    def _read(self) -> Any:
        per_query: Any = results.as_pandas(
            self._ev.per_query(self._metrics, by=self._by, **self._windows, **self._options)
        )
        table: Any = results.as_pandas(self._table)
        table = table.reset_index(drop=True)
        names = list(per_query.columns[-len(self._metrics) :])
        values = per_query[names].astype(float)
        for name, metric in zip(names, self._metrics, strict=True):
            if metric.definition.aggregate == "geometric":
                values[name] = np.log(np.maximum(values[name], GEOMETRIC_FLOOR))
        keys = [
            c
            for c in table.columns
            if c in per_query.columns and c not in names and c not in ("metric", "k")
        ]
        values[keys] = per_query[keys]
        if not keys:
            sd = values[names].std(ddof=1).to_frame().T
            return sd.iloc[np.zeros(len(table), dtype=np.int64)].reset_index(drop=True)
        sd = values.groupby(keys, dropna=False, sort=False)[names].std(ddof=1).reset_index()
        return table[keys].merge(sd, how="left", on=keys)[names]
