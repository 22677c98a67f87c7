"""The settings of the statistics, each an object built and checked once, at the public
boundary, and read under the same names down to :mod:`rankframe.stats`.

:class:`Tests` holds what ``compare()`` (and ``check()``'s drop rules, the report's
comparison) tests with; :class:`Intervals` what ``evaluate(confidence_level=...)`` resamples
with. Building one checks every field with the declarations of
:mod:`rankframe.settings.options` (:data:`~rankframe.settings.options.TEST`, ...,
:func:`~rankframe.settings.options.check_level`), so the code below the boundary reads
values that are known to be good and checks none of them again.
"""

from __future__ import annotations

from dataclasses import dataclass

from rankframe.settings.options import (
    CORRECTION,
    FAMILY,
    TEST,
    Correction,
    Family,
    Test,
    check_count,
    check_level,
    check_seed,
)

__all__ = ["Intervals", "Tests"]


@dataclass(frozen=True)
class Tests:
    """The settings of ``compare()``'s tests and intervals, as every comparison reads them
    (against a baseline column, a reference frame or the previous window).

    ``test``, ``correction`` over the ``family`` of tests, ``alpha`` of the ``significant``
    column, ``confidence_level`` of the interval of the delta, ``n_permutations`` of the
    permutation test, ``n_resamples`` of the bootstrap interval, ``seed`` of both.

    Raises
    ------
    InvalidOptionError
        A field is no allowed value; the fields are checked in the order above, but
        ``seed`` before ``n_resamples`` (the order ``compare()`` has always checked them in).
    """

    test: Test
    correction: Correction
    family: Family
    alpha: float
    confidence_level: float
    n_permutations: int
    n_resamples: int
    seed: int | None

    def __post_init__(self) -> None:
        TEST.validate(self.test)
        CORRECTION.validate(self.correction)
        FAMILY.validate(self.family)
        check_level("alpha", self.alpha)
        check_level("confidence_level", self.confidence_level)
        check_count("n_permutations", self.n_permutations)
        check_seed(self.seed)
        check_count("n_resamples", self.n_resamples)


@dataclass(frozen=True)
class Intervals:
    """The settings of the percentile bootstrap intervals of means (``evaluate``).

    ``confidence_level`` of the intervals (``None``: no intervals), ``n_resamples`` of the
    bootstrap, ``seed`` of the resampling.

    Raises
    ------
    InvalidOptionError
        A field is no allowed value (checked in the order ``n_resamples``, ``seed``,
        ``confidence_level``).
    """

    confidence_level: float | None = None
    n_resamples: int = 1000
    seed: int | None = 0

    def __post_init__(self) -> None:
        check_count("n_resamples", self.n_resamples)
        check_seed(self.seed)
        if self.confidence_level is not None:
            check_level("confidence_level", self.confidence_level)
