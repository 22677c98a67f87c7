"""The one registry of metrics, and the parser of metric strings.

Each metric is declared once (in :mod:`rankframe._metrics`) with :func:`register`: its
canonical name, aliases, trec_eval spellings, whether it takes a cut-off ``k``, which options
change it, and its per-query computation. Parsing (``"ndcg@10"``, ``"P_10"``), the "did you
mean" of an unknown name, the docs and the test matrix all read this registry.
"""

from __future__ import annotations

import difflib
import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rankframe.exceptions import InvalidOptionError, UnknownMetricError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from rankframe._engine import Lists
    from rankframe._options import Options

    PerQuery = Callable[[Lists, int | None, Options], npt.NDArray[np.float64]]

__all__ = ["METRICS", "Metric", "MetricDef", "parse_metric", "parse_metrics", "register"]


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
        ``empty`` and ``ties`` which apply to every metric.
    compute
        ``compute(lists, k, options)`` returns one float per query.
    summary
        One line for the docs and ``help``.
    """

    name: str
    aliases: tuple[str, ...]
    trec_name: str | None
    trec_cut: str | None
    takes_k: bool
    options: frozenset[str]
    compute: PerQuery = field(repr=False, compare=False)
    summary: str = ""

    def spellings(self) -> tuple[str, ...]:
        """Every lower-case name that selects this metric."""
        names = [self.name, *self.aliases]
        names += [n.lower() for n in (self.trec_name, self.trec_cut) if n is not None]
        return tuple(dict.fromkeys(names))


METRICS: dict[str, MetricDef] = {}
"""Canonical name → declaration, in declaration order."""

_LOOKUP: dict[str, MetricDef] = {}


def register(definition: MetricDef) -> MetricDef:
    """Add a metric to the registry; every spelling must be new."""
    for spelling in definition.spellings():
        if spelling in _LOOKUP and _LOOKUP[spelling].name != definition.name:
            msg = f"Metric name {spelling!r} is already used by {_LOOKUP[spelling].name!r}."
            raise ValueError(msg)
        _LOOKUP[spelling] = definition
    METRICS[definition.name] = definition
    return definition


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
    """Parse one metric string or a list of them, dropping exact repeats."""
    if isinstance(specs, str | Metric):
        specs = [specs]
    parsed = [parse_metric(s) for s in specs]
    if not parsed:
        msg = "No metric was requested; pass at least one, e.g. ['mrr@10', 'ndcg@10']."
        raise UnknownMetricError(msg)
    return list(dict.fromkeys(parsed))


def _unknown_message(spec: str) -> str:
    base = _AT.sub(r"\g<name>", spec.strip().lower())
    close = difflib.get_close_matches(base, list(_LOOKUP), n=3, cutoff=0.5)
    suggestion = ", ".join(repr(c) for c in dict.fromkeys(close))
    hint = f" Did you mean {suggestion}?" if suggestion else ""
    known = ", ".join(METRICS)
    return f"Unknown metric {spec!r}.{hint} Known metrics: {known} (with '@k' for a cut-off)."


def describe() -> Mapping[str, MetricDef]:
    """The registry, canonical name → declaration (read-only view)."""
    from types import MappingProxyType

    return MappingProxyType(METRICS)
