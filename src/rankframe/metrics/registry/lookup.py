"""The registry's tables: registering a declaration, its spellings, trec_eval's spellings,
default parameters and named sets, and looking a spelling up.

:mod:`rankframe.metrics` fills them, once (a module that declares metrics registers
nothing); :mod:`.parsing` reads them through the functions at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rankframe.metrics.registry.declaration import AGGREGATES, METRICS, Metric, MetricDef

__all__ = [
    "NAMED_SETS",
    "definition_of",
    "fixed_metric",
    "fixed_metrics",
    "known_spellings",
    "on_register",
    "register",
    "register_set",
    "register_spelling",
    "set_trec_defaults",
    "trec_defaults_of",
    "unregister",
]

# every lower-case spelling of a registered metric → its declaration
_LOOKUP: dict[str, MetricDef] = {}
_LISTENERS: list[Callable[[MetricDef], None]] = []
# trec_eval names of a metric at one parameter (``set_P`` is ``precision`` over the whole
# list): lower-case spelling → (the metric, trec_eval's spelling)
_FIXED: dict[str, tuple[Metric, str]] = {}
NAMED_SETS: dict[str, tuple[str, ...]] = {}
"""Names of several metrics (``"official"``, ``"all_trec"``) → the metric strings they stand
for, in order."""
# canonical name → trec_eval's default parameters, for a bare trec_eval name (``-m P``)
_DEFAULTS: dict[str, tuple[float, ...]] = {}


def register(definition: MetricDef) -> MetricDef:
    """Add a metric to the registry; every spelling must be new.

    The listeners of :func:`on_register` run for it (the accessor gains its method).
    """
    for spelling in definition.spellings():
        if (spelling in _LOOKUP and _LOOKUP[spelling].name != definition.name) or (
            spelling in _FIXED or spelling in NAMED_SETS
        ):
            used = _LOOKUP[spelling].name if spelling in _LOOKUP else "a trec_eval name"
            msg = f"Metric name {spelling!r} is already used by {used!r}."
            raise ValueError(msg)
    if (definition.compute is None) == (definition.items is None):
        msg = (
            f"Metric {definition.name!r} must declare exactly one of compute= (from the "
            "ranked lists, per query) and items= (from the items of the top k)."
        )
        raise ValueError(msg)
    if definition.aggregate not in AGGREGATES:
        msg = f"aggregate={definition.aggregate!r}: must be one of {AGGREGATES}."
        raise ValueError(msg)
    if definition.bounded and definition.aggregate == "sum":
        msg = f"{definition.name}: a sum over queries is not bounded by 1; declare bounded=False."
        raise ValueError(msg)
    if definition.nan_if_nothing_retrieved and "empty_list" not in definition.options:
        msg = (
            f"{definition.name}: nan_if_nothing_retrieved names values of empty_list; "
            "declare the option among its options."
        )
        raise ValueError(msg)
    for listener in _LISTENERS:  # may refuse the metric, before anything is recorded
        listener(definition)
    for spelling in definition.spellings():
        _LOOKUP[spelling] = definition
    METRICS[definition.name] = definition
    return definition


def unregister(name: str) -> MetricDef:
    """Take the metric ``name`` (its canonical name) out of the registry, with every spelling
    of it, and return its declaration: for a metric registered for a while (a test, a
    notebook). What the listeners of :func:`on_register` made of it is theirs to undo (the
    accessor's method stays until deleted)."""
    definition = METRICS.pop(name)
    for spelling in definition.spellings():
        del _LOOKUP[spelling]
    return definition


def on_register(listener: Callable[[MetricDef], None]) -> None:
    """Call ``listener`` for every metric registered so far and every one registered later."""
    _LISTENERS.append(listener)
    for definition in METRICS.values():
        listener(definition)


def register_spelling(spelling: str, metric: Metric) -> None:
    """Make trec_eval's ``spelling`` (any case) name ``metric``: ``set_P`` is
    ``precision`` with k=None."""
    key = spelling.lower()
    if key in _LOOKUP or key in NAMED_SETS:
        msg = f"Metric name {spelling!r} is already used."
        raise ValueError(msg)
    _FIXED[key] = (metric, spelling)


def register_set(name: str, specs: Iterable[str]) -> None:
    """Name several metric strings at once (``"official"``); they are parsed when used."""
    key = name.lower()
    if key in _LOOKUP or key in _FIXED:
        msg = f"Metric name {name!r} is already used."
        raise ValueError(msg)
    NAMED_SETS[key] = tuple(specs)


def set_trec_defaults(name: str, values: Iterable[float]) -> None:
    """trec_eval's default parameters of a metric (``P``: 5, 10, ..., 1000): what a bare
    trec_eval name gives in :func:`parse_metrics` with ``trec=True`` (and, for a metric whose
    parameter is required, always)."""
    _DEFAULTS[name] = tuple(values)


# -- looking a spelling up ---------------------------------------------------------------------


def definition_of(spelling: str) -> MetricDef | None:
    """The declaration of the metric a lower-case spelling names (``"ndcg_cut"``), or None."""
    return _LOOKUP.get(spelling)


def fixed_metric(spelling: str) -> tuple[Metric, str] | None:
    """The metric a trec_eval name of one parameter names (lower case: ``"set_p"``) and
    trec_eval's spelling of it (``"set_P"``), or None."""
    return _FIXED.get(spelling)


def fixed_metrics() -> list[tuple[Metric, str]]:
    """Every metric named by a trec_eval name of one parameter, with that name."""
    return list(_FIXED.values())


def trec_defaults_of(name: str) -> tuple[float, ...] | None:
    """trec_eval's default parameters of the metric ``name`` (its canonical name), or None."""
    return _DEFAULTS.get(name)


def known_spellings() -> list[str]:
    """Every name that parses: the metrics' spellings, trec_eval's names of one parameter
    and the named sets (for did-you-mean)."""
    return [*_LOOKUP, *_FIXED, *NAMED_SETS]
