"""The trec_eval measures rankframe prints, and the parser of trec_eval's ``-m`` arguments.

Which trec_eval measures rankframe computes, and as which metric, comes from the metric
registry (each ``MetricDef``'s ``trec_name`` and ``trec_cut``). Only trec_eval's own facts are
written here: the order in which it prints its measures, its default cut-offs, its
``official`` set, and the counts (``num_ret``, ...) that are not metrics.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rankframe import _metrics as _metrics  # fills the registry
from rankframe._registry import METRICS, Metric, parse_metric
from rankframe.exceptions import InvalidOptionError, RankEvalError, UnknownMetricError

__all__ = ["TREC_MEASURES", "TrecMeasure", "parse_trec_measures"]

# trec_eval's measures in the order it prints them (te_trec_measures in its measures.c), then
# the later ones of trec_eval 10; every name here is recognised by -m
TREC_EVAL_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss",
    "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
    "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
    "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid",
    "ndcg_p", "unj", "Runj", "num_nonjudged_ret",
)
# trec_eval's `official` nickname (its default output)
_OFFICIAL = frozenset({
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P",
})
# trec_eval's default cut-offs of its measures with cut-offs
_LONG_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_DEFAULT_CUTOFFS = {
    "P": _LONG_CUTOFFS, "recall": _LONG_CUTOFFS, "relative_P": _LONG_CUTOFFS,
    "ndcg_cut": _LONG_CUTOFFS, "map_cut": _LONG_CUTOFFS, "Rndcg": _LONG_CUTOFFS,
    "success": (1, 5, 10), "unj": (5, 10, 20),
}
# trec_eval's measures that are not metrics: printed from counts of the joined files
_COUNTS: dict[str, Literal["runid", "num_q", "count"]] = {
    "runid": "runid", "num_q": "num_q", "num_ret": "count", "num_rel": "count",
    "num_rel_ret": "count",
}


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure that rankframe prints.

    Attributes
    ----------
    name
        trec_eval's name (the root of ``P_10``: ``P``).
    kind
        ``"metric"``: a rankframe metric (``P_10`` is ``precision@10``); ``"count"``: a number
        of documents per query, summed over queries; ``"runid"`` and ``"num_q"``: the run's
        name and the number of queries, printed only for ``all``.
    cutoffs
        trec_eval's default cut-offs; empty for a measure without cut-offs.
    official
        Whether trec_eval prints it by default (its ``official`` set).
    metric
        The canonical name of the registry's metric (``"precision"``) for a ``"metric"``.
    """

    name: str
    kind: Literal["metric", "count", "runid", "num_q"] = "metric"
    cutoffs: tuple[int, ...] = ()
    official: bool = False
    metric: str | None = None

    def line_names(self, cutoffs: tuple[int, ...]) -> list[str]:
        """The names printed for these cut-offs (``P_5``, ``P_10``), or the bare name."""
        return [f"{self.name}_{k}" for k in cutoffs] if self.cutoffs else [self.name]

    def metric_at(self, k: int | None) -> str:
        """The column name of this measure at cut-off ``k``: ``P`` at 10 is ``precision@10``."""
        if self.metric is None:
            msg = f"trec_eval measure {self.name!r} is a count, not a metric."
            raise ValueError(msg)
        return str(Metric(self.metric, k))


def _from_registry() -> tuple[TrecMeasure, ...]:
    """The counts, and each trec_eval name that a registry metric declares, in trec_eval's
    order."""
    metric_of: dict[str, tuple[str, bool]] = {}
    for definition in METRICS.values():
        if definition.compute.__module__ == "rankframe._metrics_trec":
            continue  # not yet printed by `rankframe trec` (sums, geometric means, numbers)
        if definition.trec_name is not None:
            metric_of[definition.trec_name] = (definition.name, False)
        if definition.trec_cut is not None:
            metric_of[definition.trec_cut] = (definition.name, True)
    unknown = sorted(set(metric_of) - set(TREC_EVAL_ORDER))
    no_cutoffs = sorted(n for n, (_, cut) in metric_of.items() if cut and n not in _DEFAULT_CUTOFFS)
    if unknown or no_cutoffs:  # pragma: no cover (a registry declaration to fix)
        msg = (
            f"The metric registry names trec_eval measures {unknown} that trec_eval does not "
            f"have, or {no_cutoffs} without trec_eval's default cut-offs in rankframe.trec."
        )
        raise RuntimeError(msg)
    measures = []
    for name in TREC_EVAL_ORDER:
        official = name in _OFFICIAL
        if name in _COUNTS:
            measures.append(TrecMeasure(name, _COUNTS[name], official=official))
        elif name in metric_of:
            metric, cut = metric_of[name]
            cutoffs = _DEFAULT_CUTOFFS[name] if cut else ()
            measures.append(TrecMeasure(name, "metric", cutoffs, official, metric))
    return tuple(measures)


TREC_MEASURES: tuple[TrecMeasure, ...] = _from_registry()
"""The trec_eval measures rankframe computes, in the order trec_eval prints them."""

_BY_NAME = {m.name.lower(): m for m in TREC_MEASURES}
_NICKNAMES = {
    "official": tuple(m.name for m in TREC_MEASURES if m.official),
    "all_trec": tuple(m.name for m in TREC_MEASURES),
}
# trec_eval's other measures: recognised, to say that rankframe does not compute them
_NOT_COMPUTED = frozenset(n.lower() for n in TREC_EVAL_ORDER) - set(_BY_NAME)
_TRAILING_CUT = re.compile(r"^(?P<name>.+)_(?P<k>[0-9]+)$")

Selection = list[tuple[TrecMeasure, tuple[int, ...]]]


def measure_names() -> str:
    """The trec_eval measures rankframe computes, as a comma-separated list (for help texts)."""
    return ", ".join(m.name for m in TREC_MEASURES)


def _cutoffs(spec: str, text: str) -> set[int]:
    values = set()
    for part in text.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit() and int(part) > 0):
            msg = (
                f"The cut-offs of trec_eval measure {spec!r} must be positive integers "
                f"separated by commas, as in 'P.5,10'. Got {part!r} instead."
            )
            raise InvalidOptionError(msg)
        values.add(int(part))
    return values


def _unknown(spec: str) -> UnknownMetricError:
    base = spec.split(".", 1)[0]
    cut = _TRAILING_CUT.match(base)
    try:
        metric = str(parse_metric(spec))
    except RankEvalError:
        metric = None
    if base.lower() in _NOT_COMPUTED or (cut and cut["name"].lower() in _NOT_COMPUTED):
        reason = f"trec_eval measure {spec!r} is not computed by rankframe."
    elif metric is not None:
        reason = (
            f"{spec!r} is rankframe's {metric}, which trec_eval does not compute; "
            "'rankframe evaluate' computes it."
        )
    else:
        candidates = [*(m.name for m in TREC_MEASURES), *_NICKNAMES]
        close = difflib.get_close_matches(base, candidates, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        reason = f"Unknown trec_eval measure {spec!r}.{hint}"
    return UnknownMetricError(
        f"{reason} rankframe computes the trec_eval measures {measure_names()} (cut-offs as "
        "'P.5,10' or 'P_10'; 'official' and 'all_trec' select several)."
    )


def _from_rankframe_name(spec: str) -> tuple[TrecMeasure, set[int]] | None:
    """rankframe's spelling of a trec_eval measure: ``ndcg@10`` is ``ndcg_cut`` at 10."""
    try:
        metric = parse_metric(spec)
    except RankEvalError:
        return None
    definition = metric.definition
    if metric.k is not None and definition.trec_cut is not None:
        cut = _BY_NAME.get(definition.trec_cut.lower())
        return None if cut is None else (cut, {int(metric.k)})
    if metric.k is None and definition.trec_name is not None:
        whole = _BY_NAME.get(definition.trec_name.lower())
        return None if whole is None else (whole, set())
    return None


def parse_trec_measures(specs: Iterable[str] | None = None) -> Selection:
    """Parse trec_eval ``-m`` arguments into measures and cut-offs, in trec_eval's order.

    Accepts trec_eval's syntax (``P``, ``P.5,10``, ``ndcg_cut.10``, ``recip_rank``, the
    nicknames ``official`` and ``all_trec``), the printed names (``P_10``, ``map_cut_100``),
    and rankframe's spelling where it names a trec_eval measure (``ndcg@10``). A bare name with
    cut-offs takes trec_eval's default cut-offs. Requests for one measure add up. ``None``
    selects every measure rankframe computes (``all_trec``).

    Raises
    ------
    UnknownMetricError
        A name that is not a trec_eval measure rankframe computes.
    InvalidOptionError
        A cut-off that is not a positive integer, or a cut-off for a measure without any.

    Examples
    --------
    >>> [(m.name, k) for m, k in parse_trec_measures(["P.10,5", "recip_rank", "ndcg_cut_10"])]
    [('recip_rank', ()), ('P', (5, 10)), ('ndcg_cut', (10,))]
    """
    wanted: dict[str, set[int]] = {}
    for raw in ["all_trec"] if specs is None else specs:
        spec = raw.strip()
        name, dot, params = spec.partition(".")
        if name.lower() in _NICKNAMES and not dot:
            for member in _NICKNAMES[name.lower()]:
                wanted.setdefault(member, set()).update(_BY_NAME[member.lower()].cutoffs)
            continue
        measure = _BY_NAME.get(name.lower())
        cutoffs: set[int] = set()
        if measure is not None and dot:
            cutoffs = _cutoffs(spec, params)
        elif measure is None and not dot:
            cut = _TRAILING_CUT.match(name)
            measure = _BY_NAME.get(cut["name"].lower()) if cut else None
            if measure is not None and cut is not None:
                cutoffs = {int(cut["k"])}
                if int(cut["k"]) == 0:
                    msg = f"The cut-off of trec_eval measure {spec!r} must be positive."
                    raise InvalidOptionError(msg)
            elif (alias := _from_rankframe_name(spec)) is not None:
                measure, cutoffs = alias
        if measure is None:
            raise _unknown(spec)
        if cutoffs and not measure.cutoffs:
            sibling = _BY_NAME.get(f"{measure.name}_cut".lower())
            hint = f" Use {sibling.name}.{','.join(map(str, sorted(cutoffs)))}." if sibling else ""
            msg = f"trec_eval measure {measure.name!r} takes no cut-offs; got {spec!r}.{hint}"
            raise InvalidOptionError(msg)
        wanted.setdefault(measure.name, set()).update(cutoffs or measure.cutoffs)
    if not wanted:
        msg = "No trec_eval measure was requested; pass at least one, e.g. -m map."
        raise UnknownMetricError(msg)
    return [(m, tuple(sorted(wanted[m.name]))) for m in TREC_MEASURES if m.name in wanted]
