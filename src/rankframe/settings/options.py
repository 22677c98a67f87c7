"""The keyword options, each declared once, and the options of one evaluation.

Peers disagree on these conventions; each is an explicit keyword-only option whose default is
trec_eval's (see ``docs/conventions.md``). Each option is an :class:`OptionDef`: its name, its
default, its choices (or a validator), the type shown in signatures, and the line that
documents it. :class:`Options`, the metric methods of the accessor (their signatures and
docstrings), the docs and the command line read these declarations; a metric declares which
of them change it in the registry (``MetricDef.options``), as ir_measures'
``SUPPORTED_PARAMS`` does.

The statistics of ``compare`` declare their choices here too (:data:`TEST`,
:data:`CORRECTION`, :data:`FAMILY`); :mod:`rankframe.settings.statistics` checks them, with
the levels, counts and seeds, in the objects it builds once at the public boundary.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, Literal, TypeVar, get_args

from rankframe._suggest import closest_choice, did_you_mean
from rankframe.exceptions import InvalidOptionError
from rankframe.settings import option_checks as checks

__all__ = [
    "AP_DENOMINATOR",
    "BETA",
    "BROWSING",
    "CATALOG",
    "CHOICE_ALIASES",
    "CLASS_AVERAGE",
    "COMMON",
    "CORRECTION",
    "DENOMINATOR",
    "DISCOUNT",
    "EMPTY",
    "EMPTY_LIST",
    "EMPTY_NDCG",
    "FAMILY",
    "GAIN",
    "GROUP",
    "ITEM_FEATURES",
    "ITEM_GROUPS",
    "JSD_UNIT",
    "JUDGED_ONLY",
    "MIN_RELEVANCE",
    "NEGATIVE_GAINS",
    "OPTIONS",
    "PATIENCE",
    "POPULARITY",
    "PRECISION_DENOMINATOR",
    "STOP",
    "TARGET",
    "TEST",
    "TIES",
    "UNJUDGED",
    "UNKNOWN_GROUP",
    "ApDenominator",
    "Browsing",
    "ClassAverage",
    "Correction",
    "Denominator",
    "Discount",
    "Empty",
    "EmptyList",
    "EmptyNdcg",
    "Family",
    "Gain",
    "JsdUnit",
    "NegativeGains",
    "OptionDef",
    "Options",
    "PrecisionDenominator",
    "Test",
    "Ties",
    "Unjudged",
    "check_choice",
    "check_count",
    "check_flag",
    "check_level",
    "check_seed",
    "none_or_choice",
    "options_of",
]

# The choices of each option are spelled once, here; everything else reads them through
# ``OptionDef.choices`` (``typing.get_args``).
Ties = Literal[
    "trec",
    "first",
    "optimistic",
    "pessimistic",
    "item_ascending",
    "truncated_average",
    "average",
]
Gain = Literal["linear", "exponential"]
Denominator = Literal["relevant", "min_k"]
Empty = Literal["zero", "skip", "nan", "error", "one"]
# conventions of other tools (docs/conventions.md)
ApDenominator = Literal["relevant", "min_k", "hits", "min_retrieved"]
PrecisionDenominator = Literal["k", "retrieved"]
EmptyList = Literal["zero", "nan", "nan_except_ndcg"]
EmptyNdcg = Literal["no_relevant", "no_relevant_or_negative"]
Discount = Literal["log2(rank+1)", "log2(max(rank,2))"]
NegativeGains = Literal["zero", "keep"]
Test = Literal["t-test", "permutation", "wilcoxon"]
Correction = Literal["holm", "bonferroni", "fdr_bh", "none"]
Family = Literal["systems", "table"]
ClassAverage = Literal["weighted", "macro", "micro"]
Unjudged = Literal["error", "nonrelevant", "condense"]
Browsing = Literal["log", "rbp", "cascade"]
JsdUnit = Literal["bits", "nats"]

T = TypeVar("T")


#: The common names of an option's choices, for the did-you-mean of a value spelt another
#: way (keys in lower case, ``_`` for spaces and hyphens; ``_suggest.closest_choice``)
CHOICE_ALIASES: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "correction": MappingProxyType(
            {
                "bh": "fdr_bh",
                "fdr": "fdr_bh",
                "benjamini_hochberg": "fdr_bh",
                "benjamini": "fdr_bh",
                "fdr_benjamini_hochberg": "fdr_bh",
                "bonf": "bonferroni",
                "holm_bonferroni": "holm",
                "step_down": "holm",
                "no": "none",
                "null": "none",
            }
        ),
        "unjudged": MappingProxyType(
            {
                "condensed": "condense",
                "judged_only": "condense",
                "judged": "condense",
                "drop": "condense",
            }
        ),
        "test": MappingProxyType(
            {
                "t": "t-test",
                "ttest": "t-test",
                "ttest_rel": "t-test",
                "paired_t_test": "t-test",
                "signed_rank": "wilcoxon",
                "randomization": "permutation",
                "randomisation": "permutation",
            }
        ),
    }
)


def check_choice(option: str, value: object, allowed: tuple[str, ...]) -> None:
    """Raise :class:`InvalidOptionError` unless ``value`` is one of ``allowed``; the
    message suggests the choice meant (another case, a common name, a close spelling)."""
    if isinstance(value, str) and value in allowed:
        return
    hint = did_you_mean(closest_choice(str(value), allowed, CHOICE_ALIASES.get(option)))
    msg = (
        f"The '{option}' option must be one of {', '.join(map(repr, allowed))}. "
        f"Got {value!r} instead.{hint}"
    )
    raise InvalidOptionError(msg)


#: How :func:`check_level` and :func:`check_count` word a bad keyword option of the public
#: API (``name`` is the option); ``check()``'s ``min_queries`` passes its own count wording.
LEVEL_MESSAGE = "The '{name}' option must be a number between 0 and 1, e.g. 0.95. Got {value!r}."
COUNT_MESSAGE = "The '{name}' option must be a positive integer, e.g. 1000. Got {value!r} instead."


def check_level(name: str, value: object) -> float:
    """``value`` as a float when it is a number strictly between 0 and 1 (a confidence or
    significance level; a bool is not one); else :class:`InvalidOptionError` with
    ``LEVEL_MESSAGE.format(name=name, value=value)``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise InvalidOptionError(LEVEL_MESSAGE.format(name=name, value=value))
    return float(value)


def check_count(name: str, value: object, message: str = COUNT_MESSAGE) -> int:
    """``value`` when it is a positive int (a number of resamples; a bool is not one); else
    :class:`InvalidOptionError` with ``message.format(name=name, value=value)``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidOptionError(message.format(name=name, value=value))
    return value


def _numpy_bool(value: object) -> bool:
    """Whether ``value`` is NumPy's bool (``np.True_``), as a mask's element is. NumPy is
    not imported for it (the options load without it, as the command line's help does): a
    value of NumPy's means NumPy is loaded."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.bool_)


def check_flag(name: str, value: object, method: str | None = None) -> bool:
    """``value`` as a bool when it is one (Python's or NumPy's); else
    :class:`InvalidOptionError` naming the parameter (and ``method``): a string such as
    ``"yes"`` or ``"false"``, a number, ``None`` are no flag (``bool("false")`` is True)."""
    if isinstance(value, bool) or _numpy_bool(value):
        return bool(value)
    where = f" of {method}()" if method else ""
    msg = (
        f"The '{name}' parameter{where} must be True or False. Got {value!r} instead; "
        f"pass {name}=True or {name}=False."
    )
    raise InvalidOptionError(msg)


def check_seed(value: object, name: str = "seed") -> None:
    """A random seed of the public API: a non-negative int (not a bool) or None (numpy's
    random generators take no negative seed); ``name`` as the caller spells it."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        msg = f"The '{name}' option must be an integer or None. Got {value!r} instead."
        raise InvalidOptionError(msg)
    if value is not None and value < 0:
        msg = f"The '{name}' option must be a non-negative integer or None, e.g. 0. Got {value}."
        raise InvalidOptionError(msg)


@dataclass(frozen=True)
class OptionDef(Generic[T]):
    """The declaration of one keyword option.

    Attributes
    ----------
    name
        The keyword (``"gain"``).
    default
        Its default, trec_eval's convention where trec_eval has one.
    annotation
        The type shown in signatures (``Literal["linear", "exponential"]``).
    doc
        What it does, for the docstrings of the methods that take it (NumPy style, one short
        paragraph).
    choices
        The allowed values, for an option with a fixed set of them (and ``None`` too when it
        is the default); empty otherwise.
    check
        For an option without fixed choices: raises ``InvalidOptionError`` for a bad value.
    kind
        How a value is written in a metric's label (``f1@5(beta=2)``, see
        :meth:`write` and :meth:`read`): ``"choice"`` (one of ``choices``), ``"number"``,
        ``"flag"`` (True or False), or ``"data"``: an input such as a catalog, which a label
        never names (it is data, as the frame itself).
    per_call
        The ranking or the per-query lists read it (``ties``, ``min_relevance``, ...), so one
        call has one value of it for every metric; the others enter only a metric's own
        computation and may differ between the metrics of one call.
    """

    name: str
    default: T
    annotation: Any
    doc: str
    choices: tuple[str, ...] = ()
    check: Callable[[object], None] | None = field(default=None, repr=False, compare=False)
    kind: Literal["choice", "number", "flag", "data"] = "choice"
    per_call: bool = False

    def validate(self, value: object) -> None:
        """Raise :class:`InvalidOptionError` unless ``value`` is allowed."""
        if self.choices and not (value is None and self.default is None):
            check_choice(self.name, value, self.choices)
        if self.check is not None:
            self.check(value)

    @property
    def labelled(self) -> bool:
        """Whether a value other than the default is written in a metric's label."""
        return self.kind != "data"

    def write(self, value: object) -> str:
        """``value`` as a label writes it: ``2`` (a number, shortest round-tripping
        spelling), ``true``, ``exponential``, ``none``."""
        if value is None:
            return "none"
        if self.kind == "flag":
            return "true" if value else "false"
        if self.kind == "number":
            text = repr(float(value))  # type: ignore[arg-type]
            return text[:-2] if text.endswith(".0") else text
        return str(value)

    def read(self, text: str) -> object:
        """The value a label's ``text`` writes (the inverse of :meth:`write`), validated.

        Raises
        ------
        InvalidOptionError
            The text is no value of this option (the message lists the allowed ones).
        """
        value: object = text
        if text == "none" and self.default is None:
            value = None
        elif self.kind == "flag":
            value = {"true": True, "false": False}.get(text, text)
        elif self.kind == "number":
            try:
                value = float(text)
            except ValueError:
                value = text
        self.validate(value)
        return value

    def parameter(self) -> inspect.Parameter:
        """The keyword-only parameter of a signature."""
        return inspect.Parameter(
            self.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=self.default,
            annotation=self.annotation,
        )

    def docstring(self) -> str:
        """Its entry in a NumPy-style ``Parameters`` section."""
        return f"{self.name}\n" + textwrap.fill(
            self.doc,
            88,
            initial_indent="    ",
            subsequent_indent="    ",
            break_long_words=False,
            break_on_hyphens=False,
        )


def options_of(*declared: OptionDef[Any]) -> Mapping[str, OptionDef[Any]]:
    """Name → declaration, read-only (``MetricDef.options``)."""
    return MappingProxyType({o.name: o for o in declared})


MIN_RELEVANCE: OptionDef[float | None] = OptionDef(
    "min_relevance",
    None,
    float | None,
    check=checks.check_min_relevance,
    kind="number",
    per_call=True,
    doc="Lowest grade that counts as relevant (trec_eval ``-l``); ``None``: grade > 0.",
)
GAIN: OptionDef[Gain] = OptionDef(
    "gain",
    "linear",
    Gain,
    choices=get_args(Gain),
    doc='NDCG gain of a grade: ``"linear"`` (the grade) or ``"exponential"`` (``2**grade - 1``).',
)
DENOMINATOR: OptionDef[Denominator] = OptionDef(
    "denominator",
    "relevant",
    Denominator,
    choices=get_args(Denominator),
    doc="AP and recall divide by R, the query's number of relevant items "
    '(``"relevant"``, trec_eval) or by min(R, k) (``"min_k"``).',
)
EMPTY: OptionDef[Empty] = OptionDef(
    "empty",
    "zero",
    Empty,
    choices=get_args(Empty),
    per_call=True,
    doc="Queries without relevant items, for the metrics whose value depends on relevant "
    "items (counts and the metrics of the items themselves keep every query): "
    '``"zero"`` counts 0 (trec_eval), ``"skip"`` leaves them out of the mean, '
    '``"nan"`` gives NaN per query and leaves them out of the mean, ``"error"`` '
    'raises ``EmptyQueryError`` naming them, ``"one"`` counts 1 (torchmetrics\' '
    '``empty_target_action="pos"``).',
)
TIES: OptionDef[Ties] = OptionDef(
    "ties",
    "trec",
    Ties,
    choices=get_args(Ties),
    per_call=True,
    doc='Order among equal scores: ``"trec"`` (item id descending, as trec_eval), '
    '``"first"`` (frame order), ``"optimistic"`` (higher grade first), '
    '``"pessimistic"`` (lower grade first), ``"item_ascending"`` (item id '
    'ascending, as ir_measures\' msmarco provider), ``"truncated_average"`` (tied '
    "items share their average rank truncated to an integer, as Evidently) or "
    '``"average"`` (the expected value over every order of tied items, equally likely).',
)


# -- the weight of recall in F-measures (f1@k) ---------------------------------------------


BETA: OptionDef[float] = OptionDef(
    "beta",
    1.0,
    float,
    check=checks.check_beta,
    kind="number",
    doc="F-measure weight: ``(1 + beta**2) P R / (beta**2 P + R)``; 1 gives F1 (the "
    "harmonic mean of precision and recall).",
)

# -- the inputs of the beyond-accuracy metrics (rankframe.metrics.item_values) -------------


CATALOG: OptionDef[Any] = OptionDef(
    "catalog",
    None,
    Any,
    check=checks.check_catalog,
    kind="data",
    doc="The item ids of the catalog (coverage, gini): a collection of ids; ``None``: the "
    "distinct items of the whole frame. Every item of a top-k list must be in it.",
)
POPULARITY: OptionDef[Any] = OptionDef(
    "popularity",
    None,
    Any,
    check=checks.check_popularity,
    kind="data",
    doc="Item → number of interactions (arp, novelty): a pandas Series indexed by item, a "
    "polars DataFrame of two columns (item, count) or a dict. Every item of a top-k "
    "list must have one.",
)
ITEM_FEATURES: OptionDef[Any] = OptionDef(
    "item_features",
    None,
    Any,
    check=checks.check_item_features,
    kind="data",
    doc="Numeric features per item (ild): a pandas DataFrame indexed by item, or a polars "
    "DataFrame whose first column is the item and the others the features. Every item "
    "of a top-k list must have a row.",
)
CLASS_AVERAGE: OptionDef[ClassAverage] = OptionDef(
    "class_average",
    "weighted",
    ClassAverage,
    choices=get_args(ClassAverage),
    doc='top1_f1 over classes, as scikit-learn\'s ``f1_score``: ``"weighted"`` (by each '
    'class\'s number of queries), ``"macro"`` (unweighted) or ``"micro"`` (accuracy).',
)

# -- the inputs and the browsing model of the exposure metrics (metrics/exposure.py) --------


ITEM_GROUPS: OptionDef[Any] = OptionDef(
    "item_groups",
    None,
    Any,
    check=checks.check_item_groups,
    kind="data",
    doc="Item → group (exposure, exposure_ratio, exposure_gap, awrf): a pandas Series "
    "indexed by item, a pandas DataFrame of one column indexed by item, a polars "
    "DataFrame of two columns (item, group) or a dict. Every item of a top-k list and "
    "every relevant item must have a group, unless ``unknown_group`` names a bucket.",
)
UNKNOWN_GROUP: OptionDef[Any] = OptionDef(
    "unknown_group",
    None,
    Any,
    check=checks.check_unknown_group,
    kind="data",
    doc="The group of the items ``item_groups`` does not list; ``None``: such an item is an error.",
)
TARGET: OptionDef[Any] = OptionDef(
    "target",
    None,
    Any,
    check=checks.check_target,
    kind="data",
    doc="awrf's target distribution: group → share (a dict or a pandas Series; shares >= 0 "
    "summing to 1, groups left out have 0); ``None``: per query, the groups' shares "
    "among its relevant items.",
)
BROWSING: OptionDef[Browsing] = OptionDef(
    "browsing",
    "log",
    Browsing,
    choices=get_args(Browsing),
    doc='The attention a user gives rank i (exposure metrics), cut at k: ``"log"`` '
    '(``1 / log2(1 + i)``, as DCG), ``"rbp"`` (``patience**(i - 1)``) or '
    '``"cascade"`` (``(1 - stop)**r``, r the relevant items above rank i: the user '
    "stops after a relevant item with probability ``stop``).",
)
PATIENCE: OptionDef[float] = OptionDef(
    "patience",
    0.8,
    float,
    check=checks.check_share("patience", "RBP's persistence", closed=False),
    kind="number",
    doc='``browsing="rbp"``: the probability of looking at the next rank (0 < p < 1).',
)
STOP: OptionDef[float] = OptionDef(
    "stop",
    0.5,
    float,
    check=checks.check_share("stop", "the probability of stopping", closed=True),
    kind="number",
    doc='``browsing="cascade"``: the probability of stopping after a relevant item '
    "(0 < stop <= 1).",
)
JSD_UNIT: OptionDef[JsdUnit] = OptionDef(
    "jsd_unit",
    "bits",
    JsdUnit,
    choices=get_args(JsdUnit),
    doc='awrf\'s Jensen-Shannon divergence in ``"bits"`` (log2, so awrf is in [0, 1]) or '
    '``"nats"`` (natural log, as scipy\'s ``jensenshannon`` by default and the TREC Fair '
    "Ranking scripts).",
)
GROUP: OptionDef[str | None] = OptionDef(
    "group",
    None,
    str | None,
    check=checks.check_group,
    doc="The group whose value a per-group metric gives (exposure, exposure_ratio, "
    "exposure_gap); ``None``: every group of ``item_groups``, a column each.",
)

# -- unjudged rows (trec-measures) ---------------------------------------------------------


def _check_bool(option: str) -> Callable[[object], None]:
    def check(value: object) -> None:
        if not isinstance(value, bool) and not _numpy_bool(value):
            msg = f"The '{option}' option must be True or False. Got {value!r} instead."
            raise InvalidOptionError(msg)

    return check


UNJUDGED: OptionDef[Unjudged] = OptionDef(
    "unjudged",
    "error",
    Unjudged,
    choices=get_args(Unjudged),
    per_call=True,
    doc='A null grade: ``"error"`` raises (every row needs a grade), ``"nonrelevant"`` reads '
    "it as an unjudged row, which counts as grade 0 for every metric and as unjudged for "
    "``bpref``, ``infap``, ``unjudged`` and ``num_nonrel_judged_ret``. A boolean "
    '``judged`` column says the same without nulls. ``"condense"`` reads a null grade as '
    "unjudged too, then ranks only the judged rows (Sakai's condensed lists, trec_eval's "
    '``-J``): ``unjudged="nonrelevant", judged_only=True`` in one word.',
)
JUDGED_ONLY: OptionDef[bool] = OptionDef(
    "judged_only",
    False,
    bool,
    check=_check_bool("judged_only"),
    kind="flag",
    per_call=True,
    doc="Remove the unjudged rows (and those of a negative grade) before ranking, as "
    "trec_eval's ``-J`` and ir_measures' ``judged_only``; ``unjudged=\"condense\"`` says "
    "it in one word, null grades admitted.",
)

# -- the conventions of other tools (docs/conventions.md): one block ----------------------


def none_or_choice(option: str, allowed: tuple[str, ...]) -> Callable[[object], None]:
    """The ``check`` of an option whose value is ``None`` or one of ``allowed``."""

    def check(value: object) -> None:
        if value is not None:
            check_choice(option, value, allowed)

    return check


AP_DENOMINATOR: OptionDef[ApDenominator | None] = OptionDef(
    "ap_denominator",
    None,
    ApDenominator | None,
    choices=get_args(ApDenominator),
    doc="What AP divides by, when it differs from recall's: ``None`` (as ``denominator``), "
    '``"relevant"`` (R), ``"min_k"`` (min(R, k): Microsoft Recommenders\' '
    '``map_at_k``), ``"hits"`` (the relevant items in the top k: torchmetrics\' '
    '``top_k``) or ``"min_retrieved"`` (min(R, the number of retrieved items within '
    "the top k): LensKit's ``AveragePrecision``).",
)
PRECISION_DENOMINATOR: OptionDef[PrecisionDenominator] = OptionDef(
    "precision_denominator",
    "k",
    PrecisionDenominator,
    choices=get_args(PrecisionDenominator),
    doc='Precision@k divides by k (``"k"``, trec_eval) or by min(k, the number of retrieved '
    'items) (``"retrieved"``: torchmetrics\' ``adaptive_k``, LensKit, Evidently).',
)
EMPTY_LIST: OptionDef[EmptyList] = OptionDef(
    "empty_list",
    "zero",
    EmptyList,
    choices=get_args(EmptyList),
    doc='A query that retrieved nothing (every score null): ``"zero"`` counts 0 '
    '(trec_eval ``-c``); ``"nan"`` gives NaN for precision and AP, the metrics that '
    'divide by the list\'s length (LensKit); ``"nan_except_ndcg"`` gives NaN for every '
    "metric of the list's relevance except ndcg and dcg, which count 0 (Microsoft "
    "Recommenders, whose ``ndcg_at_k`` alone counts a user without predictions). A NaN "
    "is left out of its own metric's mean (its bootstrap interval and paired tests are "
    "then NaN).",
)
DISCOUNT: OptionDef[Discount] = OptionDef(
    "discount",
    "log2(rank+1)",
    Discount,
    choices=get_args(Discount),
    doc='(N)DCG\'s discount of rank i: ``1 / log2(i + 1)`` (``"log2(rank+1)"``, trec_eval) '
    'or ``1 / log2(max(i, 2))`` (``"log2(max(rank,2))"``: LensKit, Järvelin & '
    "Kekäläinen's discount with base 2; ranks 1 and 2 are not discounted); also the "
    'attention of the exposure metrics under ``browsing="log"``.',
)
NEGATIVE_GAINS: OptionDef[NegativeGains] = OptionDef(
    "negative_gains",
    "zero",
    NegativeGains,
    choices=get_args(NegativeGains),
    per_call=True,
    doc='(N)DCG\'s gain of a negative grade: none (``"zero"``, trec_eval) or the negative '
    'gain itself, in the ranking and in the ideal one (``"keep"``, LensKit 2025).',
)
EMPTY_NDCG: OptionDef[EmptyNdcg] = OptionDef(
    "empty_ndcg",
    "no_relevant",
    EmptyNdcg,
    choices=get_args(EmptyNdcg),
    per_call=True,
    doc='The queries ``empty="skip"`` or ``"nan"`` leave out of ndcg and dcg: those '
    'without a relevant item (``"no_relevant"``, as every metric), or only those '
    "without a relevant item and without a negative grade "
    '(``"no_relevant_or_negative"``): a negative grade marks a rated item, so a query '
    "whose ratings are all 0 or less, one of them negative, scores 0, as LensKit ≥ 2026.1 "
    "scores such a user. The other metrics give that query NaN, left out of their means.",
)

OPTIONS: Mapping[str, OptionDef[Any]] = options_of(
    MIN_RELEVANCE,
    GAIN,
    DENOMINATOR,
    EMPTY,
    TIES,
    BETA,
    CATALOG,
    POPULARITY,
    ITEM_FEATURES,
    CLASS_AVERAGE,
    UNJUDGED,
    JUDGED_ONLY,
    AP_DENOMINATOR,
    PRECISION_DENOMINATOR,
    EMPTY_LIST,
    DISCOUNT,
    NEGATIVE_GAINS,
    EMPTY_NDCG,
    ITEM_GROUPS,
    UNKNOWN_GROUP,
    TARGET,
    BROWSING,
    PATIENCE,
    STOP,
    GROUP,
    JSD_UNIT,
)
"""Every option of :class:`Options`, in its field order."""

COMMON: Mapping[str, OptionDef[Any]] = options_of(MIN_RELEVANCE, EMPTY, TIES, UNJUDGED, JUDGED_ONLY)
"""The options that apply to every metric; a metric declares the others it takes."""

TEST: OptionDef[Test] = OptionDef(
    "test",
    "t-test",
    Test,
    choices=get_args(Test),
    doc='``"t-test"`` (paired t-test, as ``scipy.stats.ttest_rel``; t interval), '
    '``"permutation"`` (paired randomization test flipping the signs of the per-query '
    "differences ``n_permutations`` times from ``seed``; bootstrap interval) or "
    '``"wilcoxon"`` (signed-rank test, as ``scipy.stats.wilcoxon``; bootstrap interval).',
)
CORRECTION: OptionDef[Correction] = OptionDef(
    "correction",
    "holm",
    Correction,
    choices=get_args(Correction),
    doc='For several tests: ``"holm"`` (step-down), ``"bonferroni"``, ``"fdr_bh"`` '
    '(Benjamini-Hochberg: the false discovery rate) or ``"none"``.',
)
FAMILY: OptionDef[Family] = OptionDef(
    "family",
    "systems",
    Family,
    choices=get_args(Family),
    doc='The tests one correction covers: ``"systems"``, the systems compared on one '
    'metric in one segment; ``"table"``, every test of the table (every segment, '
    "system and metric), as a dashboard showing them all needs.",
)


@dataclass(frozen=True)
class Options:
    """The options of one evaluation; each field is declared in ``OPTIONS``.

    Attributes
    ----------
    min_relevance
        Grade from which an item counts as relevant; ``None`` means grade > 0.
    gain
        NDCG gain: ``"linear"`` (the grade) or ``"exponential"`` (2**grade - 1).
    denominator
        AP and recall divide by R (``"relevant"``) or by min(R, k) (``"min_k"``).
    empty
        What a query without relevant items contributes: ``"zero"``, ``"skip"``, ``"nan"``
        or ``"error"``.
    ties
        Order among equal scores: ``"trec"``, ``"first"``, ``"optimistic"``, ``"pessimistic"``,
        ``"item_ascending"``, ``"truncated_average"``; ``"average"``: the expected value over
        every order of tied items.
    beta
        F-measure weight of recall (1: F1).
    catalog, popularity, item_features
        The inputs of the beyond-accuracy metrics (``None``: not given); left out of
        comparisons of options (they may be frames).
    class_average
        How ``top1_f1`` averages over classes: ``"weighted"``, ``"macro"`` or ``"micro"``.
    unjudged
        A null grade: ``"error"``, ``"nonrelevant"`` (an unjudged row of grade 0), or
        ``"condense"`` (an unjudged row, and only the judged rows ranked: ``condensed``).
    judged_only
        Remove unjudged rows (and rows of a negative grade) before ranking.
    ap_denominator
        AP's own denominator (``None``: as ``denominator``).
    precision_denominator
        Precision@k divides by k or by min(k, the number retrieved).
    empty_list
        What a query that retrieved nothing gives: 0, NaN for precision and AP, or NaN for
        every metric of the list's relevance except ndcg and dcg.
    discount
        (N)DCG's discount: ``"log2(rank+1)"`` or ``"log2(max(rank,2))"``.
    negative_gains
        (N)DCG's gain of negative grades: ``"zero"`` or ``"keep"``.
    empty_ndcg
        The queries ``empty=`` leaves out of ndcg and dcg: ``"no_relevant"`` or
        ``"no_relevant_or_negative"``.
    item_groups, unknown_group, target
        The inputs of the exposure metrics: item → group, the group of unlisted items,
        awrf's target shares (left out of comparisons, as the other inputs).
    browsing, patience, stop
        The browsing model of the exposure metrics and its parameters.
    group
        The group a per-group exposure metric gives.
    jsd_unit
        awrf's divergence in bits or nats.
    """

    min_relevance: float | None = MIN_RELEVANCE.default
    gain: Gain = GAIN.default
    denominator: Denominator = DENOMINATOR.default
    empty: Empty = EMPTY.default
    ties: Ties = TIES.default
    beta: float = BETA.default
    catalog: Any = field(default=CATALOG.default, compare=False)
    popularity: Any = field(default=POPULARITY.default, compare=False)
    item_features: Any = field(default=ITEM_FEATURES.default, compare=False)
    class_average: ClassAverage = CLASS_AVERAGE.default
    unjudged: Unjudged = UNJUDGED.default
    judged_only: bool = JUDGED_ONLY.default
    ap_denominator: ApDenominator | None = AP_DENOMINATOR.default
    precision_denominator: PrecisionDenominator = PRECISION_DENOMINATOR.default
    empty_list: EmptyList = EMPTY_LIST.default
    discount: Discount = DISCOUNT.default
    negative_gains: NegativeGains = NEGATIVE_GAINS.default
    empty_ndcg: EmptyNdcg = EMPTY_NDCG.default
    item_groups: Any = field(default=ITEM_GROUPS.default, compare=False)
    unknown_group: Any = UNKNOWN_GROUP.default
    target: Any = field(default=TARGET.default, compare=False)
    browsing: Browsing = BROWSING.default
    patience: float = PATIENCE.default
    stop: float = STOP.default
    group: str | None = GROUP.default
    jsd_unit: JsdUnit = JSD_UNIT.default

    def __post_init__(self) -> None:
        for option in OPTIONS.values():
            option.validate(getattr(self, option.name))

    @property
    def condensed(self) -> bool:
        """Whether only the judged rows are ranked (condensed lists, trec_eval's ``-J``):
        ``unjudged="condense"`` or ``judged_only=True``."""
        return self.judged_only or self.unjudged == "condense"
