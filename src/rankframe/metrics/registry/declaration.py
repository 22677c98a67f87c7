"""What a metric is: its declaration (:class:`MetricDef`), the declarations registered
(:data:`METRICS`), and a metric as a call names it (:class:`Metric`: the name, its parameter
and options, written as its label)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rankframe.metrics.params import CUTOFF, Param
from rankframe.settings.conventions import CONVENTIONS
from rankframe.settings.options import COMMON, OptionDef, Options

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from rankframe.engine import Lists

    PerQuery = Callable[[Lists, Any, Options], npt.NDArray[np.float64]]

__all__ = ["AGGREGATES", "GEOMETRIC_FLOOR", "METRICS", "Metric", "MetricDef", "preset_of"]

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
    reads_unjudged
        Whether the metric tells an unjudged row from a judged non-relevant one (``bpref``,
        ``infap``, ``unjudged``, ``judged``, ...). Every other metric counts an unjudged row
        as grade 0: the report's data section gives, next to those that depend on the
        relevant items, the unjudged share of their top k (the "holes").
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
    reads_unjudged: bool = field(default=False, repr=False, compare=False)
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
"""Canonical name → declaration of every registered metric, in the order of registration
(``lookup.register`` fills it)."""


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
