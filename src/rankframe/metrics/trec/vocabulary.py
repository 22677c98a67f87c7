"""What the registry learns of trec_eval once every metric is declared, from its tables
(:mod:`rankframe.metrics.trec_tables`): its spellings of the other metrics (``set_P`` is
``precision`` over the whole list, :func:`whole_list_spellings`), its default parameters
(:func:`trec_defaults`), the named sets ``official`` and ``all_trec`` (:data:`NAMED_SETS`),
and the order it prints its measures in (:func:`in_printed_order`)."""

from __future__ import annotations

from collections.abc import Iterable

from rankframe.metrics.registry import Metric, MetricDef
from rankframe.metrics.trec_tables import (
    NICKNAMES,
    NOT_METRICS,
    TREC_EVAL_ORDER,
    WHOLE_LIST,
    defaults_of,
    params_of,
)

__all__ = ["NAMED_SETS", "in_printed_order", "trec_defaults", "whole_list_spellings"]


def in_printed_order(definitions: Iterable[MetricDef]) -> tuple[MetricDef, ...]:
    """trec_eval's measures in the order trec_eval prints them (``TREC_EVAL_ORDER``), by
    their trec_eval name (``trec_name``, else ``trec_cut``)."""
    order = {name: i for i, name in enumerate(TREC_EVAL_ORDER)}

    def position(definition: MetricDef) -> int:
        name = definition.trec_name or definition.trec_cut
        if name not in order:
            msg = f"{definition.name}: {name!r} is not one of trec_eval's measures."
            raise ValueError(msg)
        return order[name]

    return tuple(sorted(definitions, key=position))


def _by_trec_cut(definitions: Iterable[MetricDef]) -> dict[str, str]:
    """trec_eval's name with cut-offs or levels (``trec_cut``) → the metric's name."""
    return {d.trec_cut: d.name for d in definitions if d.trec_cut is not None}


def trec_defaults(definitions: Iterable[MetricDef]) -> dict[str, tuple[float, ...]]:
    """trec_eval's default parameters of each metric it names with cut-offs or levels."""
    return {
        name: tuple(defaults_of(trec_cut))
        for trec_cut, name in _by_trec_cut(definitions).items()
        if params_of(trec_cut) in ("cutoffs", "levels")
    }


def whole_list_spellings(definitions: Iterable[MetricDef]) -> dict[str, Metric]:
    """trec_eval's set measures (``set_P``): each names a metric over the whole list."""
    by_trec_cut = _by_trec_cut(definitions)
    return {
        spelling: Metric(by_trec_cut[trec_cut], None) for spelling, trec_cut in WHOLE_LIST.items()
    }


def _spec(measure: str) -> str:
    """The metric string of a trec_eval measure at trec_eval's default parameters: the
    cut-offs are listed (a bare ``P`` is precision over the whole list); a bare measure of
    levels (``iprec_at_recall``) takes its defaults already."""
    if params_of(measure) == "cutoffs":
        return f"{measure}.{','.join(str(v) for v in defaults_of(measure))}"
    return measure


#: trec_eval's nicknames ``official`` and ``all_trec``, as lists of metric strings.
NAMED_SETS = {
    nickname: tuple(_spec(measure) for measure in NICKNAMES[nickname] if measure not in NOT_METRICS)
    for nickname in ("official", "all_trec")
}
