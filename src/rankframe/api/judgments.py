"""The requests of ``evaluate`` and ``compare`` with ``estimate=``: the judge's grades on
every query corrected by people's (``rankframe.pipeline.judgments``), whose side the finish
step reads from the same frame under the gold column (``docs/judgments.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Literal

from rankframe.api.reference import against_baseline
from rankframe.exceptions import InvalidOptionError, silenced
from rankframe.metrics.registry import Metric
from rankframe.pipeline.binding import Binding
from rankframe.pipeline.judgments import (
    GoldValues,
    JudgedComparison,
    JudgedMeans,
    check_estimate,
    gold_request,
    people_judged,
)
from rankframe.pipeline.steps import Request, Result, completed, per_query
from rankframe.settings.options import Options
from rankframe.settings.statistics import Tests

__all__ = ["Estimate", "estimate_comparison", "estimate_means", "gold_values"]

#: The values of ``estimate=`` (``rankframe.stats.ppi.ESTIMATES``).
Estimate = Literal["ppi", "ppi++", "gold", "judge"]


def gold_values(binding: Binding, mine: list[Request]) -> GoldValues:
    """People's side of the request in ``mine`` (built after its result, which calls
    this when its finish step runs)."""
    theirs = gold_request(mine[0])
    backend = binding.frame.one_pass(theirs)
    if backend is not None:  # one pass over the whole frame: it finds the queries
        with silenced():  # the warnings of the scores: the judge's side said them already
            pq = completed(per_query(backend, theirs), theirs.options)
        if pq.graded is not None:
            return GoldValues(pq, pq.graded)
    with silenced():
        side = binding.side(theirs)
    names = theirs.names  # a frame in parts: its queries read from the gold column
    gold = str(names.gold)
    frame = binding.frame.polars_columns([*names.query_key, gold])
    queries, judged = people_judged(frame, names.query_key, gold)
    return GoldValues.of_side(side, queries, judged)


def _request(
    binding: Binding,
    metrics: Sequence[Metric],
    by: Sequence[str],
    options: Options,
    every: str | None,
    result: Result,
    mine: list[Request],
) -> Request:
    request = binding.request(metrics, by, options, result, every)
    mine.append(request)
    return request


def estimate_means(
    binding: Binding,
    metrics: Sequence[Metric],
    by: Sequence[str],
    options: Options,
    every: str | None,
    *,
    estimate: str,
    level: float | None,
    tidy: bool,
) -> Request:
    """``evaluate(estimate=...)``'s request."""
    check_estimate(estimate, binding.names, options.empty)
    if tidy:
        msg = (
            f"evaluate(estimate={estimate!r}) gives a column per metric and its interval; "
            "tidy=True is not available with estimate= (pass tidy=False)."
        )
        raise InvalidOptionError(msg)
    mine: list[Request] = []
    level = 0.95 if level is None else level
    result = JudgedMeans(
        estimate=estimate, confidence_level=level, gold=partial(gold_values, binding, mine)
    )
    return _request(binding, metrics, by, options, every, result, mine)


def estimate_comparison(
    binding: Binding,
    metrics: Sequence[Metric],
    by: Sequence[str],
    options: Options,
    every: str | None,
    reference: Any,
    *,
    estimate: str,
    against: tuple[str | None, Tests, bool],
) -> Request:
    """``compare(estimate=...)``'s request: each system against the baseline (``against``:
    the baseline, the tests' settings and whether its own rows are kept)."""
    check_estimate(estimate, binding.names, options.empty)
    baseline, tests, baseline_rows = against
    if reference is not None:
        msg = (
            f"compare(estimate={estimate!r}) compares the systems of this frame on the "
            "queries people judged; reference= (another frame) cannot be combined with it."
        )
        raise InvalidOptionError(msg)
    if every is not None and baseline is None:
        msg = (
            f"compare(estimate={estimate!r}, every={every!r}) compares the systems within "
            "each window, not each window with the previous one: pass baseline= (the score "
            "column the others are compared with)."
        )
        raise InvalidOptionError(msg)
    compared = against_baseline(binding.names, baseline, tests, baseline_rows)
    mine: list[Request] = []
    result = JudgedComparison(
        estimate=estimate,
        baseline=compared.baseline,
        tests=tests,
        gold=partial(gold_values, binding, mine),
        baseline_rows=baseline_rows,
    )
    return _request(binding, metrics, by, options, every, result, mine)
