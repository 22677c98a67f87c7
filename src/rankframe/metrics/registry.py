"""The one registry of metrics, and the parser of metric strings.

Each metric is declared once, as a :class:`MetricDef` in a module of
:mod:`rankframe.metrics` (whose ``__init__`` registers them all with :func:`register`): its
canonical name, aliases, trec_eval spellings, whether it takes a cut-off ``k``, which options
change it (declarations of :mod:`rankframe.settings.options`), its per-query computation, what it
allows (shared ranks, a tie-averaged form) and its documentation. Parsing (``"ndcg@10"``,
``"P_10"``), the "did you mean" of an unknown name, the accessor's metric methods
(``df.rank_eval.ndcg(k, **options)``, generated in :mod:`rankframe.api.accessor`), the docs and
the test matrix all read this registry.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rankframe._suggest import closest, did_you_mean
from rankframe.exceptions import InvalidOptionError, Keyword, UnknownMetricError
from rankframe.metrics.params import CUTOFF, Param
from rankframe.settings.conventions import CONVENTION, CONVENTIONS, preset_options
from rankframe.settings.options import COMMON, OPTIONS, OptionDef, Options

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from rankframe.engine import Lists

    PerQuery = Callable[[Lists, Any, Options], npt.NDArray[np.float64]]

__all__ = [
    "AGGREGATES",
    "CUTOFF",
    "GEOMETRIC_FLOOR",
    "METRICS",
    "NAMED_SETS",
    "Metric",
    "MetricDef",
    "Param",
    "bind_options",
    "labels",
    "on_register",
    "parse_metric",
    "parse_metrics",
    "register",
    "register_set",
    "register_spelling",
    "set_trec_defaults",
    "trec_label",
    "unregister",
]

#: How a metric's per-query values become one number (``MetricDef.aggregate``): the mean
#: over queries; the geometric mean, each value floored at :data:`GEOMETRIC_FLOOR` (trec_eval's
#: ``gm_map``, ``gm_bpref``); the sum (trec_eval's counts ``num_ret``, ...).
AGGREGATES = ("mean", "geometric", "sum", "set")
#: trec_eval's ``MIN_GEO_MEAN``: a geometric mean takes ``log(max(value, 1e-5))`` per query.
GEOMETRIC_FLOOR = 1e-5


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
        The keyword options that change this metric's values, beyond the common ones
        (``min_relevance``, ``empty``, ``ties``, ``unjudged``, ``judged_only``): name →
        declaration (their choices, defaults and docs), as ir_measures'
        ``SUPPORTED_PARAMS``.
    compute
        ``compute(lists, k, options)`` returns one float per query; ``None`` for a metric
        of the items themselves (``items``), which the finish step computes. A metric
        declares exactly one of the two.
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
        (``rankframe.engine.ties``). ``None``: the metric has no tie-averaged form, and
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
        ``rankframe.metrics.item_values.ItemMetric``): computed in the finish step from every
        query's top-k items, by item id, instead of ``compute``; ``None`` for the others.
    param
        What ``@x`` is (a ``Param``): a cut-off (``CUTOFF``) unless declared.
    depends_on_relevant
        Whether the metric's value depends on the query's relevant items, so that the
        ``empty=`` option (queries without relevant items) applies to it. ``False`` for
        counts and the metrics of the items themselves, which keep their values.
    shared_ranks
        Whether the metric is defined when tied rows share one rank
        (``ties="truncated_average"``, Evidently's convention): ``True`` for the metrics
        of the list's relevance, which read the shared ranks; ``False`` (the default) for
        those that read one position per row (trec_eval's other measures, the metrics of
        the items), which that option then refuses with an error naming them.
    nan_if_nothing_retrieved
        The values of ``empty_list`` under which a query that retrieved nothing (every
        score null) gets NaN for this metric, left out of its mean (the metric then takes
        the option): ``("nan", "nan_except_ndcg")`` for precision and AP, ``()`` for ndcg
        and dcg, which count such a query 0 under every value.
    counts_rated
        ``(option, value)``: under that option's value the metric counts a query without a
        relevant item but with a negative grade, which ``empty="skip"``/``"nan"`` then keep
        (the others give it NaN): ndcg, dcg with ``empty_ndcg="no_relevant_or_negative"``.
    bounded
        Whether every value (per query, and its mean or geometric mean, or its value over
        a set) lies in [0, 1], a share or a score of that scale: the command line's
        ``--percent`` shows only such values as percentages. ``False`` for the counts
        (summed over queries: ``aggregate="sum"`` requires it), sums of gains (``dcg``),
        a difference (``utility``), entropies, popularities and distances.
    expand
        For a metric with a value per group (the exposure metrics):
        ``expand(metric, options)`` gives the metrics a call evaluates in its place, one
        per group of the call's inputs (their labels name the group), when the metric
        names none; ``None`` for the others.
    """

    name: str
    aliases: tuple[str, ...]
    trec_name: str | None
    trec_cut: str | None
    takes_k: bool
    options: Mapping[str, OptionDef[Any]] = field(compare=False)
    compute: PerQuery | None = field(default=None, repr=False, compare=False)
    summary: str = ""
    doc: str = field(default="", repr=False, compare=False)
    examples: str = field(default="", repr=False, compare=False)
    tie_average: PerQuery | None = field(default=None, repr=False, compare=False)
    aggregate: str = "mean"
    items: Any = field(default=None, repr=False, compare=False)
    param: Param = field(default=CUTOFF, repr=False, compare=False)
    depends_on_relevant: bool = field(default=True, repr=False, compare=False)
    shared_ranks: bool = field(default=False, repr=False, compare=False)
    nan_if_nothing_retrieved: tuple[str, ...] = field(default=(), repr=False, compare=False)
    counts_rated: tuple[str, object] | None = field(default=None, repr=False, compare=False)
    bounded: bool = field(default=True, repr=False, compare=False)
    expand: Callable[[Metric, Options], list[Metric]] | None = field(
        default=None, repr=False, compare=False
    )

    def spellings(self) -> tuple[str, ...]:
        """Every lower-case name that selects this metric."""
        names = [self.name, *self.aliases]
        names += [n.lower() for n in (self.trec_name, self.trec_cut) if n is not None]
        return tuple(dict.fromkeys(names))

    def parameters(self) -> tuple[OptionDef[Any], ...]:
        """Every option this metric takes: its own, then the ones every metric takes."""
        return (*self.options.values(), *COMMON.values())

    def label_options(self) -> dict[str, OptionDef[Any]]:
        """The options a label of this metric may name (``f1@5(beta=2)``): its own and the
        common ones, except the inputs (``catalog``, ``popularity``, ``item_features``:
        data, not written in labels) and ``empty`` for a metric that does not depend on
        relevant items (``depends_on_relevant``: ``empty=`` does not touch it)."""
        return {
            o.name: o
            for o in self.parameters()
            if o.labelled and (o.name != "empty" or self.depends_on_relevant)
        }


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


@dataclass(frozen=True, order=True, repr=False)
class Metric:
    """A metric with its parameter and its options, as parsed from ``"ndcg@10"`` or
    ``"f1@5(beta=2)"``.

    ``str(metric)`` is the canonical spelling used for output columns (the label) and
    round-trips through ``parse_metric``: the name, ``@`` and the parameter, then in
    parentheses every option whose value is not its default, sorted by name. The parameter
    ``k`` is a cut-off for most metrics, a number for a few (``iprec@0.1``, a recall level).

    Attributes
    ----------
    name, k
        The canonical name and the parameter (``None``: the whole list).
    options
        ``(option, value)`` pairs sorted by option name: only the options of
        ``MetricDef.label_options()`` and only values other than the default.
    convention
        The ``convention=`` preset the options came from (a label then names the preset
        instead of the options it sets, when they all hold); not part of equality.
    given
        The options a label wrote, even at their default (``mrr(ties=trec)``), so that a
        call can tell them from the ones it leaves to the call; not part of equality.

    Examples
    --------
    >>> from rankframe import parse_metric
    >>> str(parse_metric("P_10")), str(parse_metric("recip_rank")), str(parse_metric("NDCG@5"))
    ('precision@10', 'mrr', 'ndcg@5')
    >>> str(parse_metric("map@10(TIES=first, min_relevance=2)"))
    'map@10(min_relevance=2,ties=first)'
    """

    name: str
    k: int | float | None = None
    options: tuple[tuple[str, Any], ...] = ()
    convention: str | None = field(default=None, compare=False, repr=False)
    given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def __str__(self) -> str:
        suffix = self._options_text()
        return f"{self.bare}({suffix})" if suffix else self.bare

    def __repr__(self) -> str:
        options = f", options={self.options!r}" if self.options else ""
        return f"Metric(name={self.name!r}, k={self.k!r}{options})"

    @property
    def bare(self) -> str:
        """The name and the parameter without options (``f1@5``), for messages."""
        if self.k is None:
            return self.name
        return f"{self.name}@{self.k if isinstance(self.k, int) else float(self.k)!r}"

    @property
    def tidy_name(self) -> str:
        """The label without its parameter, for the ``metric`` column of tidy tables
        (``f1(beta=2)``, its ``k`` in the ``k`` column); ``name(options)@k`` parses back."""
        suffix = self._options_text()
        return f"{self.name}({suffix})" if suffix else self.name

    def _options_text(self) -> str:
        """``beta=2,ties=first``; with the preset it came from named instead of the options
        it sets (when it sets any of this metric's): ``convention=lenskit``, then the
        options that differ from the preset's, at any value (``empty=zero``)."""
        declared = self.definition.label_options()
        own = dict(self.options)
        rest = list(self.options)
        named = []
        preset = {} if self.convention is None else preset_of(self.definition, self.convention)
        if preset:
            named = [f"convention={self.convention}"]
            rest = sorted(
                (n, own.get(n, declared[n].default))
                for n in {*own, *preset}
                if own.get(n, declared[n].default) != preset.get(n, declared[n].default)
            )
        return ",".join([*named, *(f"{n}={declared[n].write(v)}" for n, v in rest)])

    @property
    def definition(self) -> MetricDef:
        """The registry entry of this metric."""
        return METRICS[self.name]

    def options_in(self, call: Options) -> Options:
        """The options this metric is computed with: the call's, with this metric's own
        (``f1@5(beta=2)``'s beta) in place."""
        own = self.definition.options
        mine = {n: v for n, v in self.options if n in own}
        return dataclasses.replace(call, **mine) if mine else call


def preset_of(definition: MetricDef, convention: str) -> dict[str, Any]:
    """The options the preset ``convention`` sets for a metric: those its label may name,
    at values other than their defaults."""
    declared = definition.label_options()
    return {
        n: v
        for n, v in CONVENTIONS[convention].options.items()
        if n in declared and v != declared[n].default
    }


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
        isinstance(k, numbers.Real)
        and not isinstance(k, bool)
        and math.isfinite(float(k))
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


def _top_level(text: str) -> list[str]:
    """``text`` split at its commas outside parentheses: ``"ndcg(discount=log2(max(rank,2))),
    map"`` is two pieces."""
    pieces, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return pieces


def _unbalanced(spec: str) -> InvalidOptionError:
    return InvalidOptionError(
        f"Metric {spec!r} has unbalanced parentheses; a label writes its options in one pair "
        "after the metric, as in 'f1@5(beta=2)' or 'ndcg@10(gain=exponential,ties=first)'."
    )


def _without_options(text: str, spec: str) -> tuple[str, str | None]:
    """``text`` (lower case) without its options in parentheses, and the text inside them
    (``None``: none): ``"f1@5(beta=2)"`` and ``"f1(beta=2)@5"`` (the tidy ``metric``
    column and its ``k``) are both ``("f1@5", "beta=2")``."""
    start = text.find("(")
    if start < 0:
        if ")" in text:
            raise _unbalanced(spec)
        return text, None
    depth = 0
    for end in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        if depth == 0:
            break
    else:
        raise _unbalanced(spec)
    rest = text[end + 1 :].strip()
    if "(" in rest or ")" in rest:
        raise _unbalanced(spec)
    if rest and not rest.startswith("@"):
        msg = (
            f"Metric {spec!r} has {rest!r} after its options; write the options last, as in "
            "'f1@5(beta=2)'."
        )
        raise InvalidOptionError(msg)
    return text[:start].rstrip() + rest, text[start + 1 : end]


def _not_taken(definition: MetricDef, name: str, spec: str) -> InvalidOptionError:
    """The error of an option a metric's label may not name, with the ones it may."""
    declared = definition.label_options()
    takes = f" Options of {definition.name}: {', '.join([*declared, 'convention'])}."
    option = OPTIONS.get(name)
    if option is not None and not option.labelled:
        return InvalidOptionError(
            f"Metric {spec!r} names the option {name!r}, an input (data, as the frame "
            f"itself) that labels do not hold; pass {name}=... to the method instead.{takes}"
        )
    if option is not None:
        takers = [d.name for d in METRICS.values() if name in d.label_options()]
        return InvalidOptionError(
            f"Metric {spec!r}: {definition.name} does not take the option {name!r} (it "
            f"changes {', '.join(takers)}).{takes}"
        )
    hint = did_you_mean(closest(name, [*declared, "convention"], cutoff=0.6)[:1])
    return InvalidOptionError(f"Metric {spec!r} names an unknown option {name!r}.{hint}{takes}")


def _with_options(metric: Metric, text: str, spec: str) -> Metric:
    """``metric`` with the options a label writes in ``text`` (``"beta=2,ties=first"``,
    lower case): read as each option declares (``OptionDef.read``), checked, a preset
    (``convention=lenskit``) first and the options written beside it over it."""
    definition = metric.definition
    declared = definition.label_options()
    written: dict[str, Any] = {}
    convention: str | None = None
    for piece in _top_level(text) if text.strip() else []:
        name, equals, value = (part.strip() for part in piece.partition("="))
        if not equals or not name or not value:
            msg = (
                f"Metric {spec!r}: {piece.strip()!r} is not an option; write name=value, "
                "separated by commas, as in 'map@10(ties=first,min_relevance=2)'."
            )
            raise InvalidOptionError(msg)
        if name in written or (name == "convention" and convention is not None):
            msg = f"Metric {spec!r} names the option {name!r} twice; name it once."
            raise InvalidOptionError(msg)
        if name not in declared and name != "convention":
            raise _not_taken(definition, name, spec)
        try:
            if name == "convention":
                CONVENTION.validate(value)
                convention = value
            else:
                written[name] = declared[name].read(value)
        except InvalidOptionError as error:
            raise InvalidOptionError((f"Metric {spec!r}: ", *error.parts)) from None
    preset = {} if convention is None else preset_of(definition, convention)
    values = {**preset, **written}
    options = tuple(sorted((n, v) for n, v in values.items() if v != declared[n].default))
    return Metric(metric.name, metric.k, options, convention, frozenset(values))


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

    A label names the options that moved a metric from its defaults, in parentheses after
    it: ``f1@5(beta=2)``, ``ndcg@10(gain=exponential)``,
    ``map@10(min_relevance=2,ties=first)``, or a ``convention=`` preset instead of the
    options it sets (``map@10(convention=lenskit)``, options written beside it win over the
    preset's). This is how every output (columns, the tidy ``metric`` column, the command
    line, plots) writes a metric evaluated with options other than the defaults, and
    ``parse_metric`` reads it back to the same metric and options; default options add
    nothing (``mrr@5``). Each option is one a metric takes (``MetricDef.label_options``)
    and its value is read as the option declares (``beta=2`` a number, ``ties=first`` a
    choice) and checked. ``name(options)@k`` (the tidy ``metric`` column, then its ``k``)
    reads the same.

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
        takes none, or it needs one; an option the metric does not take (with the ones it
        takes, or the one meant), or a value the option does not allow.

    Examples
    --------
    >>> parse_metric("map_cut_100")
    Metric(name='map', k=100)
    >>> parse_metric("hit_rate@5")
    Metric(name='acc', k=5)
    >>> parse_metric("iprec_at_recall_0.10")
    Metric(name='iprec', k=0.1)

    Labels with options: F-beta with beta 2, and map@10 under the LensKit preset (which sets
    ``ties="first"``, ``denominator="min_k"``, ...) with a relevance threshold beside it:

    >>> parse_metric("f1@5(beta=2)")
    Metric(name='f1', k=5, options=(('beta', 2.0),))
    >>> str(parse_metric("F1(BETA=2.0)@5")), str(parse_metric("ndcg@10(gain=linear)"))
    ('f1@5(beta=2)', 'ndcg@10')
    >>> m = parse_metric("map@10(convention=lenskit,min_relevance=2)")
    >>> dict(m.options)["denominator"], str(m)
    ('min_k', 'map@10(convention=lenskit,min_relevance=2)')
    >>> parse_metric("mrr@5(beta=2)")
    Traceback (most recent call last):
    ...
    rankframe.exceptions.InvalidOptionError: Metric 'mrr@5(beta=2)': mrr does not take the
    option 'beta' (it changes f1). Options of mrr: empty_list, min_relevance, empty, ...
    """
    if isinstance(spec, Metric):
        return spec if k is None else dataclasses.replace(spec, k=check_k(k, spec.name))
    if not isinstance(spec, str):
        msg = f"A metric must be given as a string such as 'ndcg@10'; got {spec!r}."
        raise UnknownMetricError(msg)
    text, options_text = _without_options(spec.strip().lower(), spec)
    metric = _parse_bare(spec, text, k)
    return metric if options_text is None else _with_options(metric, options_text, spec)


def _parse_bare(spec: str, text: str, k: int | float | None) -> Metric:
    """:func:`parse_metric` of ``text``, the lower-case ``spec`` without options."""
    name, k_text, dotted = _split(text)
    if dotted is not None and len(dotted) > 1:
        msg = (
            f"Metric {spec!r} names {len(dotted)} metrics; evaluate, per_query and compare "
            "expand it (or rankframe.parse_metrics)."
        )
        raise UnknownMetricError(msg)
    if "," in text:
        listed = [s.strip() for s in _top_level(spec)]
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
        raise UnknownMetricError(_unknown_message(spec, text))
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
    for part in _top_level(spec):
        part = part.strip()
        number = part.split("(", 1)[0].strip()
        if pieces and _NUMBER.match(number) and "." in pieces[-1] and "@" not in pieces[-1]:
            pieces[-1] = f"{pieces[-1]},{part}"
        elif part:
            pieces.append(part)
    return pieces


def _expand(spec: str, trec: bool, seen: tuple[str, ...] = ()) -> list[Metric]:
    """The metrics one metric string stands for: a named set, ``name.x,y``, a bare name of
    a metric that needs a parameter (with ``trec``: any bare trec_eval name with default
    parameters) give several."""
    text, options_text = _without_options(spec.strip().lower(), spec)
    metrics = _expand_bare(spec, text, trec, seen)
    if metrics is None:
        return [parse_metric(spec)]
    if options_text is None:
        return metrics
    return [_with_options(m, options_text, spec) for m in metrics]


def _expand_bare(spec: str, text: str, trec: bool, seen: tuple[str, ...]) -> list[Metric] | None:
    """:func:`_expand` of ``text``, the lower-case ``spec`` without options; ``None``
    when it is one metric (parsed by :func:`parse_metric`)."""
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
            return [
                Metric(definition.name, check_k(v, definition.name))
                for v in _DEFAULTS[definition.name]
            ]
    return None


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
        piece for spec in specs for piece in (_pieces(spec) if isinstance(spec, str) else [spec])
    ]
    parsed = [
        m for s in pieces for m in (_expand(s, trec) if isinstance(s, str) else [parse_metric(s)])
    ]
    if not parsed:
        msg = "No metric was requested; pass at least one, e.g. ['mrr@10', 'ndcg@10']."
        raise UnknownMetricError(msg)
    # a label that writes an option at its default (f1@5(beta=1)) is kept beside the bare
    # one: a call's keyword (beta=2) then applies to the bare one only
    return list({(m, m.given): m for m in parsed}.values())


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


def _unknown_message(spec: str, text: str | None = None) -> str:
    bare = spec.strip().lower() if text is None else text
    base = _AT.sub(r"\g<name>", bare).split(".", 1)[0]
    hint = did_you_mean(closest(base, [*_LOOKUP, *_FIXED, *NAMED_SETS]))
    known = ", ".join(METRICS)
    return f"Unknown metric {spec!r}.{hint} Known metrics: {known} (with '@k' for a cut-off)."


# -- the options of a call, bound into its metrics (their labels) ----------------------------


def _conflict(name: str, first: str, *second: str | Keyword) -> InvalidOptionError:
    return InvalidOptionError(
        (
            f"{first} but ",
            *second,
            f". {name!r} is one per call: the ranking or the per-query "
            "lists that every metric of the call reads depend on it. Evaluate these metrics in "
            "separate calls, or give them the same value.",
        )
    )


def bind_options(
    metrics: Sequence[Metric],
    call: Options,
    explicit: Collection[str] = (),
    convention: str | None = None,
) -> tuple[list[Metric], Options]:
    """Each metric with the options it is computed with, and the call's options.

    A metric's options are those its label wrote, else the call's (``explicit``: the
    keywords passed, or set by the call's ``convention`` preset). An option a metric reads
    alone (``beta``, ``gain``, ``denominator``, ...: ``OptionDef.per_call`` False) may
    differ between the metrics of a call, and a label's value wins over the call's keyword.
    An option of the ranking or the lists (``ties``, ``min_relevance``, ``unjudged``,
    ``judged_only``, ``empty``, ``negative_gains``) is one per call: a label's value
    applies to the whole call (every metric that takes it is then labelled with it), and
    a label that disagrees with the call's keyword or with another label raises
    :class:`InvalidOptionError`.

    Returns the metrics (exact repeats dropped), whose ``str`` is then their label, and the
    call's options with the per-call values, every option a metric reads alone at its
    default (each metric's are in its ``options``: :meth:`Metric.options_in`).
    """
    per_call: dict[str, Any] = {}
    for name, option in OPTIONS.items():
        if not (option.per_call and option.labelled):
            continue
        said: dict[Any, Metric] = {}  # value -> the first label that says it
        for m in metrics:
            if name in _given(m) and name in m.definition.label_options():
                said.setdefault(dict(m.options).get(name, option.default), m)
        if name in explicit:
            value = getattr(call, name)
            for v, m in said.items():
                if v != value:
                    raise _conflict(
                        name,
                        f"Metric {str(m)!r} says {name}={option.write(v)}",
                        "the call passes ",
                        Keyword(name, value),
                    )
        elif len(said) > 1:
            (v1, m1), (v2, m2) = list(said.items())[:2]
            raise _conflict(
                name,
                f"Metric {str(m1)!r} says {name}={option.write(v1)}",
                f"{str(m2)!r} says {name}={option.write(v2)}",
            )
        elif said:
            per_call[name] = next(iter(said))
    call = dataclasses.replace(call, **per_call) if per_call else call
    bound = []
    for m in metrics:
        own, given = dict(m.options), _given(m)
        values = {}
        for name, option in m.definition.label_options().items():
            if option.per_call or name not in given:
                value = getattr(call, name)
            else:
                value = own.get(name, option.default)
            if value != option.default:
                values[name] = value
        bound.append(
            Metric(
                m.name,
                m.k,
                tuple(sorted(values.items())),
                m.convention or convention,
                frozenset(given),
            )
        )
    # a metric with a value per group stands for one metric per group (MetricDef.expand)
    bound = [
        e for m in bound for e in (m.definition.expand(m, call) if m.definition.expand else [m])
    ]
    alone = {n: o.default for n, o in OPTIONS.items() if o.labelled and not o.per_call}
    return list(dict.fromkeys(bound)), dataclasses.replace(call, **alone)


def _given(metric: Metric) -> frozenset[str]:
    """The options a metric's label says (at any value, defaults too)."""
    return metric.given | {n for n, _ in metric.options}


def labels(
    specs: str | Metric | Iterable[str | Metric], chosen: Mapping[str, Any] | None = None
) -> list[str]:
    """The output labels of ``specs`` evaluated with the keyword options ``chosen`` (and
    its ``convention``, whose preset fills the options not given): the column names of
    ``evaluate(specs, **chosen)``.

    Examples
    --------
    >>> labels(["f1@5", "mrr@10", "ndcg@10"], {"beta": 2, "gain": "exponential"})
    ['f1@5(beta=2)', 'mrr@10', 'ndcg@10(gain=exponential)']
    """
    given = {n: v for n, v in (chosen or {}).items() if n in OPTIONS}
    convention = (chosen or {}).get("convention")
    given.update(preset_options(convention, given, OPTIONS))
    bound, _ = bind_options(parse_metrics(specs), Options(**given), given, convention)
    return [str(m) for m in bound]
