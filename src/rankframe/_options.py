"""The keyword options shared by every metric, validated once.

Peers disagree on these conventions; each is an explicit keyword-only option whose default is
trec_eval's (see ``docs/conventions.md``).
"""

from __future__ import annotations

import difflib
import math
import numbers
from dataclasses import dataclass
from typing import Literal, get_args

from rankframe.exceptions import InvalidOptionError

__all__ = ["Denominator", "Empty", "Gain", "Options", "Ties", "check_choice"]

Ties = Literal["trec", "first", "optimistic", "pessimistic"]
Gain = Literal["linear", "exponential"]
Denominator = Literal["relevant", "min_k"]
Empty = Literal["zero", "skip", "nan", "error"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "ties": get_args(Ties),
    "gain": get_args(Gain),
    "denominator": get_args(Denominator),
    "empty": get_args(Empty),
}


def check_choice(option: str, value: object, allowed: tuple[str, ...]) -> None:
    """Raise :class:`InvalidOptionError` unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        close = difflib.get_close_matches(str(value), allowed, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        msg = (
            f"The '{option}' option must be one of {', '.join(map(repr, allowed))}. "
            f"Got {value!r} instead.{hint}"
        )
        raise InvalidOptionError(msg)


@dataclass(frozen=True)
class Options:
    """The options of one evaluation.

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
    """

    min_relevance: float | None = None
    gain: Gain = "linear"
    denominator: Denominator = "relevant"
    empty: Empty = "zero"
    ties: Ties = "trec"

    def __post_init__(self) -> None:
        for option, allowed in _CHOICES.items():
            check_choice(option, getattr(self, option), allowed)
        level = self.min_relevance
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
