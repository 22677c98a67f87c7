"""The one registry of metrics, and the parser of metric strings.

Each metric is declared once (in :mod:`rankframe._metrics`) with :func:`register`: its
canonical name, aliases, trec_eval spellings, whether it takes a cut-off ``k``, which options
change it (declarations of :mod:`rankframe._options`), its per-query computation and its
documentation. Parsing (``"ndcg@10"``, ``"P_10"``), the "did you mean" of an unknown name, the
accessor's metric methods (``df.rank_eval.ndcg(k, **options)``, generated in
:mod:`rankframe._accessor`), the docs and the test matrix all read this registry.
"""

from __future__ import annotations

import difflib
import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rankframe._options import COMMON, OptionDef
from rankframe.exceptions import InvalidOptionError, UnknownMetricError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from rankframe._engine import Lists
    from rankframe._options import Options

    PerQuery = Callable[[Lists, int | None, Options], npt.NDArray[np.float64]]

__all__ = [
    "METRICS", "Metric", "MetricDef", "closest", "on_register", "parse_metric", "parse_metrics",
    "register",
]


@dataclass(frozen=True)
class MetricDef:
    """The declaration of one metric.

    Attributes
    ----------
    name
        Canonical name, used in output columns (``"ndcg"``).
    aliases
        Other accepted names, lower case (``("ndcg_cut",)``).
    trec_name
        trec_eval's name without cut-off (``"ndcg"``) and ``trec_cut`` its cut-off prefix
        (``"ndcg_cut"``, so ``ndcg_cut_10``), or ``None`` where trec_eval has none.
    takes_k
        Whether ``name@k`` is allowed.
    options
        The keyword options that change this metric's values, beyond ``min_relevance``,
        ``empty`` and ``ties`` which apply to every metric: name → declaration (their
        choices, defaults and docs), as ir_measures' ``SUPPORTED_PARAMS``.
    compute
        ``compute(lists, k, options)`` returns one float per query.
    summary
        One line for the docs and the command line's help.
    doc
        The docstring of the accessor's method ``df.rank_eval.<name>``, before its
        ``Parameters``: a first line, then the formula, its trec_eval name and reference.
    examples
        The ``Examples`` section of that docstring: doctests (run by the test suite).
    average
        ``average(lists, k, options)``: one float per query under ``ties="average"``, the
        expected value over every order of tied rows, from the tie groups of the lists
        (``rankframe._engine.ties``). ``None``: the metric has no tie-averaged form, and
        ``ties="average"`` raises an error naming it.
    aggregate
        How per-query values become one value per segment: ``"mean"`` (the mean over
        queries), ``"geometric"``, ``"sum"``, ``"none"``, or ``"set"``: a set-level metric,
        which has no per-query value and is computed over a set of queries (the frame, or a
        ``by`` segment) in the finish step (``per_query`` and ``compare`` refuse it).
    items
        For a metric of the recommended items themselves (beyond accuracy,
        ``rankframe._items.ItemMetric``): computed in the finish step from every query's
        top-k items, by item id, instead of ``compute``; ``None`` for the others.
    """

    name: str
    aliases: tuple[str, ...]
    trec_name: str | None
    trec_cut: str | None
    takes_k: bool
    options: Mapping[str, OptionDef[Any]] = field(compare=False)
    compute: PerQuery = field(repr=False, compare=False)
    summary: str = ""
    doc: str = field(default="", repr=False, compare=False)
    examples: str = field(default="", repr=False, compare=False)
    average: PerQuery | None = field(default=None, repr=False, compare=False)
    aggregate: str = "mean"
    items: Any = field(default=None, repr=False, compare=False)

    def spellings(self) -> tuple[str, ...]:
        """Every lower-case name that selects this metric."""
        names = [self.name, *self.aliases]
        names += [n.lower() for n in (self.trec_name, self.trec_cut) if n is not None]
        return tuple(dict.fromkeys(names))

    def parameters(self) -> tuple[OptionDef[Any], ...]:
        """Every option this metric takes: its own, then the ones every metric takes."""
        return (*self.options.values(), *COMMON.values())


METRICS: dict[str, MetricDef] = {}
"""Canonical name → declaration, in declaration order."""

_LOOKUP: dict[str, MetricDef] = {}


_LISTENERS: list[Callable[[MetricDef], None]] = []


def register(definition: MetricDef) -> MetricDef:
    """Add a metric to the registry; every spelling must be new.

    The listeners of :func:`on_register` run for it (the accessor gains its method).
    """
    for spelling in definition.spellings():
        if spelling in _LOOKUP and _LOOKUP[spelling].name != definition.name:
            msg = f"Metric name {spelling!r} is already used by {_LOOKUP[spelling].name!r}."
            raise ValueError(msg)
    for listener in _LISTENERS:  # may refuse the metric, before anything is recorded
        listener(definition)
    for spelling in definition.spellings():
        _LOOKUP[spelling] = definition
    METRICS[definition.name] = definition
    return definition


def on_register(listener: Callable[[MetricDef], None]) -> None:
    """Call ``listener`` for every metric registered so far and every one registered later."""
    _LISTENERS.append(listener)
    for definition in METRICS.values():
        listener(definition)


@dataclass(frozen=True, order=True)
class Metric:
    """A metric with its cut-off, as parsed from ``"ndcg@10"``.

    ``str(metric)`` is the canonical spelling used for output columns and round-trips
    through ``parse_metric``.

    Examples
    --------
    >>> from rankframe import parse_metric
    >>> str(parse_metric("P_10")), str(parse_metric("recip_rank")), str(parse_metric("NDCG@5"))
    ('precision@10', 'mrr', 'ndcg@5')
    """

    name: str
    k: int | None = None

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"

    @property
    def definition(self) -> MetricDef:
        """The registry entry of this metric."""
        return METRICS[self.name]


_AT = re.compile(r"^(?P<name>.+?)\s*@\s*(?P<k>[^@]*)$")
_CUT = re.compile(r"^(?P<name>.+?)_(?P<k>[0-9]+)$")


def check_k(k: object, metric: str) -> int | None:
    """Validate a cut-off: a positive integer or ``None``."""
    if k is None:
        return None
    if isinstance(k, numbers.Integral) and not isinstance(k, bool) and int(k) > 0:
        return int(k)
    msg = f"The 'k' parameter of {metric} must be a positive integer or None. Got {k!r} instead."
    raise InvalidOptionError(msg)


def parse_metric(spec: str | Metric, k: int | None = None) -> Metric:
    """Parse a metric string into a ``Metric``.

    Accepts ``name`` and ``name@k`` in any case, every alias, and trec_eval's spellings
    (``ndcg_cut_10``, ``P_10``, ``success_5``, ``recip_rank``, ``map_cut_100``, ``Rprec``).

    Parameters
    ----------
    spec
        The metric string, or an already parsed ``Metric``.
    k
        A cut-off for a bare name (``parse_metric("ndcg", k=10)``); conflicts with a
        cut-off inside ``spec``.

    Raises
    ------
    UnknownMetricError
        The name matches no metric; the message suggests the closest names.
    InvalidOptionError
        The cut-off is not a positive integer, or the metric takes none.

    Examples
    --------
    >>> parse_metric("map_cut_100")
    Metric(name='map', k=100)
    >>> parse_metric("hit_rate@5")
    Metric(name='acc', k=5)
    """
    if isinstance(spec, Metric):
        return spec if k is None else Metric(spec.name, check_k(k, spec.name))
    if not isinstance(spec, str):
        msg = f"A metric must be given as a string such as 'ndcg@10'; got {spec!r}."
        raise UnknownMetricError(msg)
    if "," in spec:
        listed = [s.strip() for s in spec.split(",")]
        msg = (
            f"Metric {spec!r} names several metrics; pass them as a list, e.g. {listed!r}, "
            "to evaluate, per_query or compare (which also split a comma-separated string)."
        )
        raise UnknownMetricError(msg)
    text = spec.strip().lower()
    name, k_text = text, None
    at = _AT.match(text)
    if at:
        name, k_text = at["name"], at["k"]
    elif text not in _LOOKUP:
        cut = _CUT.match(text)
        if cut and cut["name"] in _LOOKUP:
            name, k_text = cut["name"], cut["k"]
    definition = _LOOKUP.get(name)
    if definition is None:
        raise UnknownMetricError(_unknown_message(spec))
    parsed_k: int | None = None
    if k_text is not None:
        if not (k_text.isascii() and k_text.isdigit()):
            msg = (
                f"The cut-off in metric {spec!r} must be a positive integer, as in "
                f"'{definition.name}@10'. Got {k_text!r} instead."
            )
            raise InvalidOptionError(msg)
        parsed_k = check_k(int(k_text), definition.name)
    if k is not None:
        if parsed_k is not None and parsed_k != k:
            msg = f"Metric {spec!r} already has the cut-off {parsed_k}; got k={k!r} as well."
            raise InvalidOptionError(msg)
        parsed_k = check_k(k, definition.name)
    if parsed_k is not None and not definition.takes_k:
        msg = (
            f"{definition.name} takes no cut-off (it is defined on the whole list); "
            f"got {spec!r}. Use {definition.name!r}."
        )
        raise InvalidOptionError(msg)
    return Metric(definition.name, parsed_k)


def parse_metrics(specs: str | Metric | Iterable[str | Metric]) -> list[Metric]:
    """Parse one metric string or a list of them, dropping exact repeats.

    A string may list several metrics separated by commas (``"mrr@5,ndcg@10"``), as the
    command line's ``-m`` does.

    Examples
    --------
    >>> [str(m) for m in parse_metrics("mrr@5, ndcg_cut_10")]
    ['mrr@5', 'ndcg@10']
    """
    if isinstance(specs, str | Metric):
        specs = [specs]
    elif not isinstance(specs, Iterable):
        msg = (
            "The metrics must be a metric string such as 'ndcg@10' or a list of them, e.g. "
            f"['mrr@10', 'ndcg@10']; got {specs!r}."
        )
        raise UnknownMetricError(msg)
    pieces = [
        piece
        for spec in specs
        for piece in (spec.split(",") if isinstance(spec, str) and "," in spec else [spec])
        if not isinstance(piece, str) or piece.strip()
    ]
    parsed = [parse_metric(s) for s in pieces]
    if not parsed:
        msg = "No metric was requested; pass at least one, e.g. ['mrr@10', 'ndcg@10']."
        raise UnknownMetricError(msg)
    return list(dict.fromkeys(parsed))


def closest(word: str, candidates: Iterable[str], cutoff: float = 0.5) -> list[str]:
    """The candidates most like ``word``: difflib's close matches, keeping only those about
    as close as the best one (``"mmr"`` gives ``mrr``, not ``mrr`` and ``r``)."""
    scored = []
    for candidate in dict.fromkeys(candidates):
        ratio = difflib.SequenceMatcher(None, word, candidate).ratio()
        if ratio >= cutoff:
            scored.append((ratio, candidate))
    if not scored:
        return []
    best = max(r for r, _ in scored)
    return [c for r, c in sorted(scored, key=lambda rc: -rc[0]) if r >= best - 0.1][:3]


def _unknown_message(spec: str) -> str:
    base = _AT.sub(r"\g<name>", spec.strip().lower())
    suggestion = ", ".join(repr(c) for c in closest(base, _LOOKUP))
    hint = f" Did you mean {suggestion}?" if suggestion else ""
    known = ", ".join(METRICS)
    return f"Unknown metric {spec!r}.{hint} Known metrics: {known} (with '@k' for a cut-off)."


def describe() -> Mapping[str, MetricDef]:
    """The registry, canonical name → declaration (read-only view)."""
    from types import MappingProxyType

    return MappingProxyType(METRICS)
