"""What the parameter ``@x`` of a metric is (``MetricDef.param``): a cut-off for most."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["CUTOFF", "Param"]


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
