"""The keyword options, each declared once, and the options of one evaluation.

Peers disagree on these conventions; each is an explicit keyword-only option whose default is
trec_eval's (see ``docs/conventions.md``). Each option is an :class:`OptionDef`: its name, its
default, its choices (or a validator), the type shown in signatures, and the line that
documents it. :class:`Options`, the metric methods of the accessor (their signatures and
docstrings), the docs and the command line read these declarations; a metric declares which
of them change it in the registry (``MetricDef.options``), as ir_measures'
``SUPPORTED_PARAMS`` does.

The statistics of ``compare`` declare their choices here too (:data:`TEST`,
:data:`CORRECTION`).
"""

from __future__ import annotations

import difflib
import inspect
import math
import numbers
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, Literal, TypeVar, get_args

from rankframe.exceptions import InvalidOptionError

__all__ = [
    "COMMON",
    "CORRECTION",
    "DENOMINATOR",
    "EMPTY",
    "GAIN",
    "JUDGED_ONLY",
    "MIN_RELEVANCE",
    "OPTIONS",
    "TEST",
    "TIES",
    "UNJUDGED",
    "Correction",
    "Denominator",
    "Empty",
    "Gain",
    "OptionDef",
    "Options",
    "Test",
    "Ties",
    "Unjudged",
    "check_choice",
    "options_of",
]

# The choices of each option are spelled once, here; everything else reads them through
# ``OptionDef.choices`` (``typing.get_args``).
Ties = Literal["trec", "first", "optimistic", "pessimistic"]
Gain = Literal["linear", "exponential"]
Denominator = Literal["relevant", "min_k"]
Empty = Literal["zero", "skip", "nan", "error"]
Test = Literal["t-test", "permutation", "wilcoxon"]
Correction = Literal["holm", "bonferroni", "none"]
Unjudged = Literal["error", "nonrelevant"]

T = TypeVar("T")


def check_choice(option: str, value: object, allowed: tuple[str, ...]) -> None:
    """Raise :class:`InvalidOptionError` unless ``value`` is one of ``allowed``."""
    if isinstance(value, str) and value in allowed:
        return
    close = difflib.get_close_matches(str(value), allowed, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    msg = (
        f"The '{option}' option must be one of {', '.join(map(repr, allowed))}. "
        f"Got {value!r} instead.{hint}"
    )
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
        The allowed values, for an option with a fixed set of them; empty otherwise.
    check
        For an option without fixed choices: raises ``InvalidOptionError`` for a bad value.
    """

    name: str
    default: T
    annotation: Any
    doc: str
    choices: tuple[str, ...] = ()
    check: Callable[[object], None] | None = field(default=None, repr=False, compare=False)

    def validate(self, value: object) -> None:
        """Raise :class:`InvalidOptionError` unless ``value`` is allowed."""
        if self.choices:
            check_choice(self.name, value, self.choices)
        if self.check is not None:
            self.check(value)

    def parameter(self) -> inspect.Parameter:
        """The keyword-only parameter of a signature."""
        return inspect.Parameter(
            self.name, inspect.Parameter.KEYWORD_ONLY, default=self.default,
            annotation=self.annotation,
        )

    def docstring(self) -> str:
        """Its entry in a NumPy-style ``Parameters`` section."""
        return f"{self.name}\n" + textwrap.fill(
            self.doc, 88, initial_indent="    ", subsequent_indent="    ",
            break_long_words=False, break_on_hyphens=False,
        )


def options_of(*declared: OptionDef[Any]) -> Mapping[str, OptionDef[Any]]:
    """Name → declaration, read-only (``MetricDef.options``)."""
    return MappingProxyType({o.name: o for o in declared})


def _check_min_relevance(level: object) -> None:
    if level is not None and (
        isinstance(level, bool)
        or not isinstance(level, numbers.Real)
        or not math.isfinite(float(level))
    ):
        msg = (
            "The 'min_relevance' option must be a finite number (the lowest grade that "
            f"counts as relevant) or None for grade > 0. Got {level!r} instead."
        )
        raise InvalidOptionError(msg)


MIN_RELEVANCE: OptionDef[float | None] = OptionDef(
    "min_relevance", None, float | None, check=_check_min_relevance,
    doc="Lowest grade that counts as relevant (trec_eval ``-l``); ``None``: grade > 0.",
)
GAIN: OptionDef[Gain] = OptionDef(
    "gain", "linear", Gain, choices=get_args(Gain),
    doc="NDCG gain of a grade: ``\"linear\"`` (the grade) or ``\"exponential\"`` "
        "(``2**grade - 1``).",
)
DENOMINATOR: OptionDef[Denominator] = OptionDef(
    "denominator", "relevant", Denominator, choices=get_args(Denominator),
    doc="AP and recall divide by R, the query's number of relevant items "
        "(``\"relevant\"``, trec_eval) or by min(R, k) (``\"min_k\"``).",
)
EMPTY: OptionDef[Empty] = OptionDef(
    "empty", "zero", Empty, choices=get_args(Empty),
    doc="Queries without relevant items: ``\"zero\"`` counts 0 (trec_eval), ``\"skip\"`` "
        "leaves them out of the mean, ``\"nan\"`` gives NaN per query and leaves them out of "
        "the mean, ``\"error\"`` raises ``EmptyQueryError`` naming them.",
)
TIES: OptionDef[Ties] = OptionDef(
    "ties", "trec", Ties, choices=get_args(Ties),
    doc="Order among equal scores: ``\"trec\"`` (item id descending, as trec_eval), "
        "``\"first\"`` (frame order), ``\"optimistic\"`` (higher grade first) or "
        "``\"pessimistic\"`` (lower grade first).",
)

# -- unjudged rows (trec-measures) ---------------------------------------------------------


def _check_bool(option: str) -> Callable[[object], None]:
    def check(value: object) -> None:
        if not isinstance(value, bool):
            msg = f"The '{option}' option must be True or False. Got {value!r} instead."
            raise InvalidOptionError(msg)

    return check


UNJUDGED: OptionDef[Unjudged] = OptionDef(
    "unjudged", "error", Unjudged, choices=get_args(Unjudged),
    doc="A null grade: ``\"error\"`` raises (every row needs a grade), ``\"nonrelevant\"`` reads "
        "it as an unjudged row, which counts as grade 0 for every metric and as unjudged for "
        "``bpref``, ``infap``, ``unjudged`` and ``num_nonrel_judged_ret``. A boolean "
        "``judged`` column says the same without nulls.",
)
JUDGED_ONLY: OptionDef[bool] = OptionDef(
    "judged_only", False, bool, check=_check_bool("judged_only"),
    doc="Remove the unjudged rows (and those of a negative grade) before ranking, as "
        "trec_eval's ``-J`` and ir_measures' ``judged_only``.",
)

OPTIONS: Mapping[str, OptionDef[Any]] = options_of(
    MIN_RELEVANCE, GAIN, DENOMINATOR, EMPTY, TIES, UNJUDGED, JUDGED_ONLY
)
"""Every option of :class:`Options`, in its field order."""

COMMON: Mapping[str, OptionDef[Any]] = options_of(
    MIN_RELEVANCE, EMPTY, TIES, UNJUDGED, JUDGED_ONLY
)
"""The options that apply to every metric; a metric declares the others it takes."""

TEST: OptionDef[Test] = OptionDef(
    "test", "t-test", Test, choices=get_args(Test),
    doc="``\"t-test\"`` (paired t-test, as ``scipy.stats.ttest_rel``; t interval), "
        "``\"permutation\"`` (paired randomization test flipping the signs of the per-query "
        "differences ``n_resamples`` times from ``seed``; bootstrap interval) or "
        "``\"wilcoxon\"`` (signed-rank test, as ``scipy.stats.wilcoxon``; bootstrap interval).",
)
CORRECTION: OptionDef[Correction] = OptionDef(
    "correction", "holm", Correction, choices=get_args(Correction),
    doc="For several systems: ``\"holm\"`` (step-down), ``\"bonferroni\"`` or ``\"none\"``.",
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
        Order among equal scores: ``"trec"``, ``"first"``, ``"optimistic"``, ``"pessimistic"``.
    unjudged
        A null grade: ``"error"``, or ``"nonrelevant"`` (an unjudged row of grade 0).
    judged_only
        Remove unjudged rows (and rows of a negative grade) before ranking.
    """

    min_relevance: float | None = MIN_RELEVANCE.default
    gain: Gain = GAIN.default
    denominator: Denominator = DENOMINATOR.default
    empty: Empty = EMPTY.default
    ties: Ties = TIES.default
    unjudged: Unjudged = UNJUDGED.default
    judged_only: bool = JUDGED_ONLY.default

    def __post_init__(self) -> None:
        for option in OPTIONS.values():
            option.validate(getattr(self, option.name))
