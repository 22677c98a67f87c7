"""The trec_eval measures rankframe prints, and the parser of trec_eval's ``-m`` arguments.

trec_eval's own facts (the order in which it prints its measures, how each takes parameters
and its defaults, the nicknames ``official``, ``all_trec`` and ``set``, the measures that are
not metrics) are in :mod:`rankframe.metrics.trec_tables`. Which measures rankframe computes, and as
which metric, comes from the metric registry: a measure is computed when its printed name
(``P_10``, ``iprec_at_recall_0.10``, ``gm_map``) parses as a registry metric.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rankframe._suggest import closest, did_you_mean
from rankframe.exceptions import InvalidOptionError, RankEvalError, UnknownMetricError
from rankframe.metrics.registry import Metric, parse_metric
from rankframe.metrics.registry.lookup import known_spellings
from rankframe.metrics.trec_tables import (
    DEFAULTS_ONLY,
    NICKNAMES,
    NOT_METRICS,
    TREC_EVAL,
    TREC_EVAL_ORDER,
    Kind,
    Params,
)

__all__ = ["TREC_MEASURES", "TrecMeasure", "parse_trec_measures"]


def _level(value: float) -> str:
    """trec_eval's printed real parameter: ``%3.2f``."""
    return f"{value:3.2f}"


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure that rankframe prints.

    Attributes
    ----------
    name
        trec_eval's name (the root of ``P_10``: ``P``).
    kind
        ``"metric"``: a registry metric per printed name (``P_10`` is ``precision@10``);
        ``"runid"`` and ``"num_q"``: the run's name and the number of queries, printed only
        for ``all``; ``"relstring"``: the grades of the first documents as a string,
        printed only per query.
    params
        How trec_eval takes its parameters: ``"none"``, ``"cutoffs"`` (integers, printed
        ``P_10``), ``"levels"`` (real numbers, printed ``iprec_at_recall_0.10``) or
        ``"length"`` (``relstring.20``, printed ``relstring_20``).
    cutoffs
        trec_eval's default cut-offs or levels; empty for a measure without any.
    official
        Whether trec_eval prints it by default (its ``official`` set).
    """

    name: str
    kind: Kind = "metric"
    params: Params = "none"
    cutoffs: tuple[float, ...] = ()
    official: bool = False

    def line_names(self, params: tuple[float, ...] | tuple[str, ...]) -> list[str]:
        """The names printed for these parameters (``P_5``, ``P_10``), or the bare name."""
        if self.params == "cutoffs":
            return [f"{self.name}_{int(k)}" for k in params]
        if self.params == "levels":
            return [f"{self.name}_{_level(float(v))}" for v in params]
        if self.params == "length" and params:
            return [f"{self.name}_{params[0]}"]
        return [self.name]

    def metric_of(self, line_name: str) -> Metric:
        """The registry metric of one printed name: ``P_10`` is ``precision@10``."""
        if self.kind != "metric":
            msg = f"trec_eval measure {self.name!r} is not a metric."
            raise ValueError(msg)
        return parse_metric(line_name)


def _computed(name: str, params: Params, defaults: tuple[float, ...]) -> bool:
    """Whether the registry computes every default line of a trec_eval measure. A line
    parses only where the registry knows its measure's name, or the line's own: the others
    are not parsed (the error of each would look for the closest name, 0.08 s of the
    command line's start)."""
    measure = TrecMeasure(name, params=params)
    lines = measure.line_names(defaults)
    spellings = set(known_spellings())
    if not any(spelling.lower() in spellings for spelling in (name, *lines)):
        return False
    try:
        for line in lines:
            parse_metric(line)
    except RankEvalError:
        return False
    return True


def _from_registry() -> tuple[TrecMeasure, ...]:
    """The trec_eval measures rankframe prints, in trec_eval's order."""
    official = set(NICKNAMES["official"])
    return tuple(
        TrecMeasure(
            name,
            NOT_METRICS.get(name, "metric"),
            params,
            defaults if params != "length" else (),
            name in official,
        )
        for name, params, defaults in TREC_EVAL
        if name in NOT_METRICS or _computed(name, params, defaults)
    )


TREC_MEASURES: tuple[TrecMeasure, ...] = _from_registry()
"""The trec_eval measures rankframe computes, in the order trec_eval prints them."""

_BY_NAME = {m.name.lower(): m for m in TREC_MEASURES}
_NICKNAMES = {
    nickname: tuple(name for name in members if name.lower() in _BY_NAME)
    for nickname, members in NICKNAMES.items()
}
# trec_eval's other measures: recognised, to say that rankframe does not compute them
_NOT_COMPUTED = frozenset(n.lower() for n in TREC_EVAL_ORDER) - set(_BY_NAME)
_PRINTED = re.compile(r"^(?P<name>.+)_(?P<k>[0-9]+(?:\.[0-9]+)?)$")

Selection = list[tuple[TrecMeasure, tuple[float, ...] | tuple[str, ...]]]


def measure_names() -> str:
    """The trec_eval measures rankframe computes, as a comma-separated list (for help texts)."""
    return ", ".join(m.name for m in TREC_MEASURES)


def _parameters(measure: TrecMeasure, spec: str, text: str) -> set[float] | str:
    """The parameters after the dot of ``P.5,10``: cut-offs or levels, or relstring's length."""
    if measure.params == "length":
        if not (text.isascii() and text.isdigit()):
            msg = (
                f"The length of trec_eval measure {spec!r} must be a non-negative integer, as "
                f"in '{measure.name}.20'. Got {text!r} instead."
            )
            raise InvalidOptionError(msg)
        return text
    values: set[float] = set()
    for part in text.split(","):
        part = part.strip()
        if measure.params == "cutoffs":
            if not (part.isascii() and part.isdigit() and int(part) > 0):
                msg = (
                    f"The cut-offs of trec_eval measure {spec!r} must be positive integers "
                    f"separated by commas, as in '{measure.name}.5,10'. Got {part!r} instead."
                )
                raise InvalidOptionError(msg)
            values.add(int(part))
            continue
        try:
            level = float(part)
        except ValueError:
            level = float("nan")
        if not 0 <= level < float("inf"):
            msg = (
                f"The parameters of trec_eval measure {spec!r} must be non-negative numbers "
                f"separated by commas, as in '{measure.name}.0.5,1.5'. Got {part!r} instead."
            )
            raise InvalidOptionError(msg)
        values.add(level)
    return values


def _unknown(spec: str) -> UnknownMetricError:
    base = spec.split(".", 1)[0]
    printed = _PRINTED.match(spec)
    try:
        metric = str(parse_metric(spec))
    except RankEvalError:
        metric = None
    if base.lower() in _NOT_COMPUTED or (printed and printed["name"].lower() in _NOT_COMPUTED):
        reason = f"trec_eval measure {spec!r} is not computed by rankframe."
    elif metric is not None:
        reason = (
            f"{spec!r} is rankframe's {metric}, which trec_eval does not compute; "
            "'rankframe evaluate' computes it."
        )
    else:
        candidates = [*(m.name for m in TREC_MEASURES), *_NICKNAMES]
        hint = did_you_mean(closest(base, candidates))
        reason = f"Unknown trec_eval measure {spec!r}.{hint}"
    return UnknownMetricError(
        f"{reason} rankframe computes the trec_eval measures {measure_names()} (parameters as "
        "'P.5,10' or 'P_10'; 'official', 'all_trec' and 'set' select several)."
    )


def _from_rankframe_name(spec: str) -> tuple[TrecMeasure, set[float]] | None:
    """rankframe's spelling of a trec_eval measure: ``ndcg@10`` is ``ndcg_cut`` at 10."""
    try:
        metric = parse_metric(spec)
    except RankEvalError:
        return None
    definition = metric.definition
    if metric.k is not None and definition.trec_cut is not None:
        measure = _BY_NAME.get(definition.trec_cut.lower())
        return None if measure is None else (measure, {metric.k})
    if metric.k is None and definition.trec_name is not None:
        measure = _BY_NAME.get(definition.trec_name.lower())
        return None if measure is None else (measure, set())
    return None


def _no_parameters(measure: TrecMeasure, spec: str, values: set[float]) -> InvalidOptionError:
    sibling = _BY_NAME.get(f"{measure.name}_cut".lower())
    if sibling is not None and values:
        shown = ",".join(f"{v:g}" for v in sorted(values))
        return InvalidOptionError(
            f"trec_eval measure {measure.name!r} takes no cut-offs; got {spec!r}. Use "
            f"{sibling.name}.{shown}."
        )
    if measure.name in DEFAULTS_ONLY:
        detail = "with trec_eval's default parameters only"
        return InvalidOptionError(
            f"rankframe computes trec_eval measure {measure.name!r} {detail}; got {spec!r}. "
            f"Use {measure.name}."
        )
    return InvalidOptionError(
        f"trec_eval measure {measure.name!r} takes no parameters; got {spec!r}. Use {measure.name}."
    )


def _parse_one(spec: str) -> tuple[TrecMeasure, set[float] | str] | tuple[str, None]:
    """One ``-m`` argument: a nickname, or a measure with its explicit parameters (an empty
    set: trec_eval's defaults)."""
    name, dot, text = spec.partition(".")
    if name.lower() in _NICKNAMES and not dot:
        return name.lower(), None
    measure = _BY_NAME.get(name.lower())
    params: set[float] | str = set()
    if measure is not None and dot:
        if measure.params == "none":
            raise _no_parameters(measure, spec, _numbers(text))
        params = _parameters(measure, spec, text)
    elif measure is None:
        printed = _PRINTED.match(spec)
        measure = _BY_NAME.get(printed["name"].lower()) if printed else None
        if measure is not None and printed is not None and measure.params != "none":
            params = _parameters(measure, spec, printed["k"])
            if measure.params == "cutoffs" and not params:  # pragma: no cover (regex)
                raise _unknown(spec)
        elif measure is not None and printed is not None:
            raise _no_parameters(measure, spec, _numbers(printed["k"]))
        elif (alias := _from_rankframe_name(spec)) is not None:
            measure, params = alias
    if measure is None:
        raise _unknown(spec)
    return measure, params


def _numbers(text: str) -> set[float]:
    numbers: set[float] = set()
    for part in text.split(","):
        try:
            numbers.add(float(part))
        except ValueError:
            continue
    return numbers


def parse_trec_measures(specs: Iterable[str] | None = None) -> Selection:
    """Parse trec_eval ``-m`` arguments into measures and parameters, in trec_eval's order.

    Accepts trec_eval's syntax (``P``, ``P.5,10``, ``ndcg_cut.10``, ``iprec_at_recall``,
    ``Rprec_mult.0.5``, ``relstring.20``, ``recip_rank``, the nicknames ``official``,
    ``all_trec`` and ``set``), the printed names (``P_10``, ``iprec_at_recall_0.10``,
    ``map_cut_100``), and rankframe's spelling where it names a trec_eval measure
    (``ndcg@10``). As in trec_eval, a measure named without parameters takes trec_eval's
    defaults, and parameters replace the defaults; unlike trec_eval, the parameters of several
    requests for one measure add up (``P.5`` and ``P.10`` print both). ``None`` selects
    trec_eval's default, ``official``.

    Returns
    -------
    list of (TrecMeasure, tuple)
        Each measure with its cut-offs or levels, sorted (``()`` for a measure without
        parameters; relstring's length as written, or ``()`` for its default of 10).

    Raises
    ------
    UnknownMetricError
        A name that is not a trec_eval measure rankframe computes.
    InvalidOptionError
        A bad parameter, or a parameter for a measure without any.

    Examples
    --------
    >>> [(m.name, k) for m, k in parse_trec_measures(["P.10,5", "recip_rank", "ndcg_cut_10"])]
    [('recip_rank', ()), ('P', (5, 10)), ('ndcg_cut', (10,))]
    >>> [(m.name, k) for m, k in parse_trec_measures(["Rprec_mult.0.5", "relstring.20"])]
    [('relstring', ('20',)), ('Rprec_mult', (0.5,))]
    """
    marked: set[str] = set()
    explicit: dict[str, set[float]] = {}
    lengths: dict[str, str] = {}
    for raw in ["official"] if specs is None else specs:
        spec = raw.strip()
        measure, params = _parse_one(spec)
        if isinstance(measure, str):
            marked.update(_NICKNAMES[measure])
            continue
        marked.add(measure.name)
        if isinstance(params, str):
            lengths.setdefault(measure.name, params)  # trec_eval keeps the first
        elif params:
            explicit.setdefault(measure.name, set()).update(params)
    if not marked:
        msg = "No trec_eval measure was requested; pass at least one, e.g. -m map."
        raise UnknownMetricError(msg)
    selection: Selection = []
    for measure in TREC_MEASURES:
        if measure.name not in marked:
            continue
        if measure.params == "length":
            selection.append((measure, (lengths[measure.name],) if measure.name in lengths else ()))
        else:
            values = explicit.get(measure.name) or set(measure.cutoffs)
            selection.append((measure, tuple(sorted(values))))
    return selection
