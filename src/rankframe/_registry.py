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
import math
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

    PerQuery = Callable[[Lists, Any, Options], npt.NDArray[np.float64]]

__all__ = [
    "AGGREGATES", "CUTOFF", "GEOMETRIC_FLOOR", "METRICS", "NAMED_SETS", "Metric", "MetricDef",
    "Param", "closest", "on_register", "parse_metric", "parse_metrics", "register",
    "register_set", "register_spelling", "set_trec_defaults", "trec_label",
]

#: How a metric's per-query values become one number (``MetricDef.aggregate``): the mean
#: over queries; the geometric mean, each value floored at :data:`GEOMETRIC_FLOOR` (trec_eval's
#: ``gm_map``, ``gm_bpref``); the sum (trec_eval's counts ``num_ret``, ...).
AGGREGATES = ("mean", "geometric", "sum", "set")
#: trec_eval's ``MIN_GEO_MEAN``: a geometric mean takes ``log(max(value, 1e-5))`` per query.
GEOMETRIC_FLOOR = 1e-5


@dataclass(frozen=True)
class Param:
    """What the parameter ``@x`` of a metric is: a cut-off (a positive integer) for most, a
    number for a few (a recall level, a multiple of R, a persistence).

    Attributes
    ----------
    what
        Its name in messages (``"cut-off"``, ``"recall level"``).
    integer
        Whether it is an integer (a cut-off) or a float.
    allowed
        The values allowed, in words (``"a positive integer"``).
    example
        A value for messages (``"10"``).
    check
        Whether a value (already an int or a float) is allowed.
    required
        The metric has no meaning without it: a bare name gives every one of trec_eval's
        default values (``"iprec_at_recall"`` is 11 metrics).
    """

    what: str
    integer: bool
    allowed: str
    example: str
    check: Callable[[float], bool] = field(repr=False, compare=False)
    required: bool = False

    def label(self, value: float) -> str:
        """The value as trec_eval prints it in a measure name: ``10``, ``0.20``."""
        return str(int(value)) if self.integer else f"{value:.2f}"


#: The parameter of most metrics: a cut-off k.
CUTOFF = Param("cut-off", True, "a positive integer", "10", check=lambda k: k > 0)


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
    tie_average
        ``tie_average(lists, k, options)``: one float per query under ``ties="average"``, the
        expected value over every order of tied rows, from the tie groups of the lists
        (``rankframe._engine.ties``). ``None``: the metric has no tie-averaged form, and
        ``ties="average"`` raises an error naming it.
    aggregate
        How per-query values become one value per segment: ``"mean"`` (the mean over
        queries), ``"geometric"`` (each value floored at ``GEOMETRIC_FLOOR``, 1e-5), ``"sum"``,
        or ``"set"``: a set-level metric, which has no per-query value and is computed over a
        set of queries (the frame, or a ``by`` segment) in the finish step (``per_query`` and
        ``compare`` refuse it). Segments, intervals and ``compare``'s tests use the per-query
        values of the others.
    items
        For a metric of the recommended items themselves (beyond accuracy,
        ``rankframe._items.ItemMetric``): computed in the finish step from every query's
        top-k items, by item id, instead of ``compute``; ``None`` for the others.
    param
        What ``@x`` is (a ``Param``): a cut-off (``CUTOFF``) unless declared.
    depends_on_relevant
        Whether the metric's value depends on the query's relevant items, so that the
        ``empty=`` option (queries without relevant items) applies to it. ``False`` for
        counts and the metrics of the items themselves, which keep their values.
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
    tie_average: PerQuery | None = field(default=None, repr=False, compare=False)
    aggregate: str = "mean"
    items: Any = field(default=None, repr=False, compare=False)
    param: Param = field(default=CUTOFF, repr=False, compare=False)
    depends_on_relevant: bool = field(default=True, repr=False, compare=False)

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
        if (spelling in _LOOKUP and _LOOKUP[spelling].name != definition.name) or (
            spelling in _FIXED or spelling in NAMED_SETS
        ):
            used = _LOOKUP[spelling].name if spelling in _LOOKUP else "a trec_eval name"
            msg = f"Metric name {spelling!r} is already used by {used!r}."
            raise ValueError(msg)
    if definition.aggregate not in AGGREGATES:
        msg = f"aggregate={definition.aggregate!r}: must be one of {AGGREGATES}."
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
    """A metric with its parameter, as parsed from ``"ndcg@10"``.

    ``str(metric)`` is the canonical spelling used for output columns and round-trips
    through ``parse_metric``. The parameter ``k`` is a cut-off for most metrics, a number
    for a few (``iprec@0.1``, a recall level).

    Examples
    --------
    >>> from rankframe import parse_metric
    >>> str(parse_metric("P_10")), str(parse_metric("recip_rank")), str(parse_metric("NDCG@5"))
    ('precision@10', 'mrr', 'ndcg@5')
    """

    name: str
    k: int | float | None = None

    def __str__(self) -> str:
        if self.k is None:
            return self.name
        return f"{self.name}@{self.k if isinstance(self.k, int) else float(self.k)!r}"

    @property
    def definition(self) -> MetricDef:
        """The registry entry of this metric."""
        return METRICS[self.name]


_AT = re.compile(r"^(?P<name>.+?)\s*@\s*(?P<k>[^@]*)$")
_CUT = re.compile(r"^(?P<name>.+?)_(?P<k>[0-9]*\.?[0-9]+)$")
_NUMBER = re.compile(r"^[0-9]*\.?[0-9]+$")

# trec_eval names of a metric at one parameter (``set_P`` is ``precision`` over the whole
# list): lower-case spelling → (the metric, trec_eval's spelling)
_FIXED: dict[str, tuple[Metric, str]] = {}
NAMED_SETS: dict[str, tuple[str, ...]] = {}
"""Names of several metrics (``"official"``, ``"all_trec"``) → the metric strings they stand
for, in order."""
# canonical name → trec_eval's default parameters, for a bare trec_eval name (``-m P``)
_DEFAULTS: dict[str, tuple[float, ...]] = {}


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


def check_k(k: object, metric: str) -> int | float | None:
    """Validate a metric's parameter (a positive integer cut-off for most) or ``None``."""
    if k is None:
        return None
    param = METRICS[metric].param if metric in METRICS else CUTOFF
    if param.integer:
        if isinstance(k, numbers.Integral) and not isinstance(k, bool) and param.check(int(k)):
            return int(k)
    elif (
        isinstance(k, numbers.Real) and not isinstance(k, bool) and math.isfinite(float(k))
        and param.check(float(k))
    ):
        return float(k)
    msg = f"The 'k' parameter of {metric} must be {param.allowed} or None. Got {k!r} instead."
    raise InvalidOptionError(msg)


def _parameter(spec: str, definition: MetricDef, text: str) -> int | float:
    """The parameter written in ``spec`` (``text``: ``"10"``, ``"0.20"``), checked."""
    param = definition.param
    if text.isascii() and (text.isdigit() if param.integer else bool(_NUMBER.match(text))):
        value = check_k(int(text) if param.integer else float(text), definition.name)
        assert value is not None  # a number was given
        return value
    msg = (
        f"The {param.what} in metric {spec!r} must be {param.allowed}, as in "
        f"'{definition.name}@{param.example}'. Got {text!r} instead."
    )
    raise InvalidOptionError(msg)


def _required(spec: str, definition: MetricDef) -> InvalidOptionError:
    param = definition.param
    trec = f" (trec_eval: '{definition.trec_cut}_{param.label(float(param.example))}')"
    return InvalidOptionError(
        f"{definition.name} takes a {param.what}: {param.allowed}, as in "
        f"'{definition.name}@{param.example}'{trec if definition.trec_cut else ''}; got "
        f"{spec!r}. evaluate, per_query and compare expand {spec.strip()!r} into trec_eval's "
        f"default {param.what}s."
    )


def _split(spec: str) -> tuple[str, str | None, list[str] | None]:
    """``spec`` (lower case) as (name, parameter after ``@`` or ``_``, parameters after
    ``.``): ``"ndcg@10"``, ``"p_10"``, ``"p.5,10"``."""
    at = _AT.match(spec)
    if at:
        return at["name"], at["k"], None
    name, dot, params = spec.partition(".")
    if dot and (name in _LOOKUP or name in _FIXED):
        return name, None, [p.strip() for p in params.split(",")]
    if spec not in _LOOKUP and spec not in _FIXED:
        cut = _CUT.match(spec)
        if cut and cut["name"] in _LOOKUP:
            return cut["name"], cut["k"], None
    return spec, None, None


def parse_metric(spec: str | Metric, k: int | float | None = None) -> Metric:
    """Parse a metric string into a ``Metric``.

    Accepts ``name`` and ``name@k`` in any case, every alias, and trec_eval's spellings
    (``ndcg_cut_10``, ``P_10``, ``P.10``, ``success_5``, ``recip_rank``, ``map_cut_100``,
    ``Rprec``, ``set_P``, ``iprec_at_recall_0.10``).

    Parameters
    ----------
    spec
        The metric string, or an already parsed ``Metric``.
    k
        A parameter for a bare name (``parse_metric("ndcg", k=10)``); conflicts with one
        inside ``spec``.

    Raises
    ------
    UnknownMetricError
        The name matches no metric; the message suggests the closest names.
    InvalidOptionError
        The parameter is not allowed (a cut-off must be a positive integer), the metric
        takes none, or it needs one.

    Examples
    --------
    >>> parse_metric("map_cut_100")
    Metric(name='map', k=100)
    >>> parse_metric("hit_rate@5")
    Metric(name='acc', k=5)
    >>> parse_metric("iprec_at_recall_0.10")
    Metric(name='iprec', k=0.1)
    """
    if isinstance(spec, Metric):
        return spec if k is None else Metric(spec.name, check_k(k, spec.name))
    if not isinstance(spec, str):
        msg = f"A metric must be given as a string such as 'ndcg@10'; got {spec!r}."
        raise UnknownMetricError(msg)
    text = spec.strip().lower()
    name, k_text, dotted = _split(text)
    if dotted is not None and len(dotted) > 1:
        msg = (
            f"Metric {spec!r} names {len(dotted)} metrics; evaluate, per_query and compare "
            "expand it (or rankframe.parse_metrics)."
        )
        raise UnknownMetricError(msg)
    if "," in text:
        listed = [s.strip() for s in spec.split(",")]
        msg = (
            f"Metric {spec!r} names several metrics; pass them as a list, e.g. {listed!r}, "
            "to evaluate, per_query or compare (which also split a comma-separated string)."
        )
        raise UnknownMetricError(msg)
    if dotted is not None:
        k_text = dotted[0]
    if name in _FIXED:
        fixed, trec_name = _FIXED[name]
        if k_text is not None or k is not None:
            msg = f"{trec_name} takes no parameter; got {spec!r}. Use {trec_name!r}."
            raise InvalidOptionError(msg)
        return fixed
    definition = _LOOKUP.get(name)
    if definition is None:
        raise UnknownMetricError(_unknown_message(spec))
    parsed_k = None if k_text is None else _parameter(spec, definition, k_text)
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
    if parsed_k is None and definition.param.required:
        raise _required(spec, definition)
    return Metric(definition.name, parsed_k)


def _pieces(spec: str) -> list[str]:
    """A comma-separated string as metric strings: ``"P.5,10, map"`` is ``["P.5,10",
    "map"]`` (a number after a ``name.x`` piece is one more of its parameters)."""
    pieces: list[str] = []
    for part in spec.split(","):
        part = part.strip()
        if pieces and _NUMBER.match(part) and "." in pieces[-1] and "@" not in pieces[-1]:
            pieces[-1] = f"{pieces[-1]},{part}"
        elif part:
            pieces.append(part)
    return pieces


def _expand(spec: str, trec: bool, seen: tuple[str, ...] = ()) -> list[Metric]:
    """The metrics one metric string stands for: a named set, ``name.x,y``, a bare name of
    a metric that needs a parameter (with ``trec``: any bare trec_eval name with default
    parameters) give several."""
    text = spec.strip().lower()
    if text in NAMED_SETS and text not in seen:
        return [m for s in NAMED_SETS[text] for m in _expand(s, trec, (*seen, text))]
    name, k_text, dotted = _split(text)
    definition = _LOOKUP.get(name)
    if dotted is not None and len(dotted) > 1 and definition is not None:
        if not definition.takes_k:  # the error of a parameter for a metric that takes none
            return [parse_metric(spec.split(",", 1)[0])]
        return [Metric(definition.name, _parameter(spec, definition, p)) for p in dotted]
    if definition is not None and k_text is None and dotted is None:
        bare_trec = trec and definition.trec_cut is not None and name == definition.trec_cut.lower()
        if (definition.param.required or bare_trec) and definition.name in _DEFAULTS:
            return [Metric(definition.name, check_k(v, definition.name))
                    for v in _DEFAULTS[definition.name]]
    return [parse_metric(spec)]


def parse_metrics(
    specs: str | Metric | Iterable[str | Metric], *, trec: bool = False
) -> list[Metric]:
    """Parse one metric string or a list of them, dropping exact repeats.

    A string may list several metrics separated by commas (``"mrr@5,ndcg@10"``), as the
    command line's ``-m`` does. trec_eval's parameter lists expand: ``"P.1,3,5"`` is three
    metrics, ``"iprec_at_recall"`` the 11 recall levels trec_eval prints, and the named sets
    ``"official"`` (trec_eval's default output) and ``"all_trec"`` (``-m all_trec``) their
    metrics in trec_eval's order.

    Parameters
    ----------
    specs
        Metric strings or parsed metrics.
    trec
        Read bare trec_eval names as trec_eval's ``-m`` does: ``"P"`` is P_5, P_10, ...,
        P_1000 (trec_eval's default cut-offs). Otherwise ``"P"`` is precision over the
        whole list.

    Examples
    --------
    >>> [str(m) for m in parse_metrics("mrr@5, ndcg_cut_10")]
    ['mrr@5', 'ndcg@10']
    >>> [str(m) for m in parse_metrics("P.1,3,5")]
    ['precision@1', 'precision@3', 'precision@5']
    >>> [str(m) for m in parse_metrics("success", trec=True)]
    ['acc@1', 'acc@5', 'acc@10']
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
        for piece in (_pieces(spec) if isinstance(spec, str) else [spec])
    ]
    parsed = [
        m
        for s in pieces
        for m in (_expand(s, trec) if isinstance(s, str) else [parse_metric(s)])
    ]
    if not parsed:
        msg = "No metric was requested; pass at least one, e.g. ['mrr@10', 'ndcg@10']."
        raise UnknownMetricError(msg)
    return list(dict.fromkeys(parsed))


def trec_label(metric: Metric) -> str | None:
    """The name trec_eval prints for ``metric`` (``P_10``, ``iprec_at_recall_0.10``,
    ``set_P``), or ``None`` when trec_eval has no such measure (``mrr@5``).

    Examples
    --------
    >>> [trec_label(m) for m in parse_metrics(["P_10", "precision", "ndcg", "mrr@5"])]
    ['P_10', 'set_P', 'ndcg', None]
    """
    for fixed, spelling in _FIXED.values():
        if fixed == metric:
            return spelling
    definition = metric.definition
    if metric.k is None:
        return definition.trec_name
    if definition.trec_cut is None:
        return None
    return f"{definition.trec_cut}_{definition.param.label(metric.k)}"


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
    base = _AT.sub(r"\g<name>", spec.strip().lower()).split(".", 1)[0]
    suggestion = ", ".join(repr(c) for c in closest(base, [*_LOOKUP, *_FIXED, *NAMED_SETS]))
    hint = f" Did you mean {suggestion}?" if suggestion else ""
    known = ", ".join(METRICS)
    return f"Unknown metric {spec!r}.{hint} Known metrics: {known} (with '@k' for a cut-off)."


def describe() -> Mapping[str, MetricDef]:
    """The registry, canonical name → declaration (read-only view)."""
    from types import MappingProxyType

    return MappingProxyType(METRICS)
