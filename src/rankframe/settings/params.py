"""The public API's parameter constraints: one declaration per concept, one message each,
applied by one decorator at the public boundary (scikit-learn's ``validate_params`` is the
model).

Each constraint below checks one concept (a baseline among the score columns, a side of a
test, a flag, a count of a search) and words its one error. A public method lists the
constraint of each of its parameters in :func:`validate_params`; the decorator binds the
call's arguments and checks them, in the order listed, before the method's body runs. The
outputs below the public layer that take the same argument (the report's baseline) call
the same constraint (:func:`check_baseline`). The settings of the statistics
(``confidence_level``, ``correction``, ``n_resamples``, ...) are checked where they are
built, by :class:`rankframe.settings.statistics.Tests` and ``Intervals``; metric options
by :class:`rankframe.settings.options.Options`; ``k`` by the registry's ``parse_metric``.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

from rankframe.exceptions import InvalidOptionError
from rankframe.settings.options import (
    check_choice,
    check_count,
    check_flag,
    check_level,
    check_seed,
)

__all__ = [
    "ALTERNATIVES",
    "ESTIMATES",
    "GATE_MODES",
    "Arg",
    "Constraint",
    "as_columns",
    "check_baseline",
    "check_baseline_or_reference",
    "key_columns",
    "score_columns",
    "validate_params",
]

_F = TypeVar("_F", bound=Callable[..., Any])

#: The sides of a test (``slices()``, ``sample_size()``), scipy's names
ALTERNATIVES = ("two-sided", "less", "greater")
#: The estimates of ``estimate=`` (``evaluate``, ``compare``: ``rankframe.stats.ppi``'s)
ESTIMATES = ("ppi", "ppi++", "gold", "judge")
#: How ``check()`` decides a row: the interval (or the test), or the value alone
GATE_MODES: tuple[Literal["interval", "point"], ...] = ("interval", "point")


def as_columns(by: str | Sequence[str] | None) -> list[str]:
    """``by`` (a column name, a list of them or ``None``) as a list; a repeated column
    counts once."""
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(dict.fromkeys(by))


def check_baseline(baseline: str | None, systems: Sequence[str]) -> str:
    """The baseline of a comparison (``compare()``, ``check()``'s drop rules,
    ``sample_size()``, the report): ``baseline`` when it is one of the score columns,
    the first score column when it is ``None``."""
    base = systems[0] if baseline is None else baseline
    if base not in systems:
        msg = (
            f"baseline={base!r} is not one of the score columns {list(systems)}; pass one of them."
        )
        raise InvalidOptionError(msg)
    return base


def _column_list(role: str, value: Any, example: str, each: str) -> list[str]:
    """``value`` as a non-empty list of distinct column names; ``role=`` names the argument
    in the errors, ``example`` shows a good value, ``each`` names the columns."""
    columns = list(value) if isinstance(value, Iterable) else [value]
    if not columns or not all(isinstance(c, str) for c in columns):
        msg = (
            f"{role}= takes a column name or a list of column names{example}. Got "
            f"{value!r} instead."
        )
        raise InvalidOptionError(msg)
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        msg = f"{role}= lists {repeated[0]!r} more than once; list each {each} column once."
        raise InvalidOptionError(msg)
    return columns


def score_columns(score: str | Sequence[str]) -> tuple[str, tuple[str, ...] | None]:
    """The first score column, and every one of them when a list was given."""
    if isinstance(score, str):
        return score, None
    columns = _column_list(
        "score", score, " (one per system), e.g. score=['model_a', 'model_b']", "score"
    )
    return columns[0], tuple(columns)


def key_columns(
    role: str, key: str | Sequence[str] | None, bound: tuple[str, ...]
) -> tuple[str, tuple[str, ...]]:
    """The first column of a query or item key, and every column of a composite one
    (``()`` for one column); ``bound``: the key bound so far, kept for ``None``."""
    if key is None:
        return bound[0], bound if len(bound) > 1 else ()
    if isinstance(key, str):
        return key, ()
    columns = _column_list(role, key, f" (a composite key, e.g. {role}=['user_id', 'day'])", "key")
    return columns[0], tuple(columns) if len(columns) > 1 else ()


@dataclass(frozen=True)
class Arg:
    """One argument of a public call: the parameter's ``name``, its ``value``, the
    ``method`` called and the bound score columns (``systems``, for the constraints that
    read them)."""

    name: str
    value: Any
    method: str
    systems: Sequence[str]


@dataclass(frozen=True)
class Constraint:
    """The constraint of one parameter: ``check(arg)`` raises :class:`InvalidOptionError`
    (its one message) for a bad ``arg.value``."""

    check: Callable[[Arg], None]
    #: ``None`` passes without a check (an optional parameter left out)
    optional: bool = False


def _baseline(arg: Arg) -> None:
    check_baseline(arg.value, arg.systems)


def _paired_baseline(arg: Arg) -> None:
    """A baseline that turns a call paired (``slices()``, ``gaps()``, ``sample_size()``):
    one of the score columns (:func:`check_baseline`), of which there are two or more."""
    check_baseline(arg.value, arg.systems)
    if len(arg.systems) < 2:
        raise InvalidOptionError(
            "baseline= needs two score columns or more: rank_eval(score=['model_a', 'model_b'])."
        )


def check_baseline_or_reference(method: str, baseline: str | None) -> None:
    """``baseline=`` and ``reference=`` together: an error (``reference`` is given)."""
    if baseline is not None:
        msg = (
            f"{method}() takes baseline= or reference=, not both: baseline={baseline!r} "
            "compares the score columns of this frame with one of them, reference= compares "
            "each score column with the same column of another frame. Drop one of them."
        )
        raise InvalidOptionError(msg)


def _alternative(arg: Arg) -> None:
    if arg.value not in ALTERNATIVES:
        msg = (
            f"alternative={arg.value!r} is not one of 'two-sided', 'less', 'greater'; pass "
            "one of them."
        )
        raise InvalidOptionError(msg)


def _flag(arg: Arg) -> None:
    check_flag(arg.name, arg.value, arg.method)


def _finite(arg: Arg) -> None:
    """A finite number (``sample_size()``'s ``delta``, ``alpha``, ``power``)."""
    value = arg.value
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(float(value))
    ):
        msg = f"{arg.name}={arg.value!r} must be a finite number, e.g. {arg.name}=0.01."
        raise InvalidOptionError(msg)


def _change(arg: Arg) -> None:
    """``sample_size()``'s ``delta``: a finite number other than 0."""
    _finite(arg)
    if arg.value == 0:
        raise InvalidOptionError(
            "delta=0 is no change to detect; pass the smallest "
            "change that matters, e.g. delta=0.01."
        )


def _probability(arg: Arg) -> None:
    """``sample_size()``'s ``alpha`` and ``power``: finite, strictly between 0 and 1."""
    _finite(arg)
    if not 0 < float(arg.value) < 1:
        msg = f"{arg.name}={arg.value!r} must lie strictly between 0 and 1, e.g. {arg.name}=0.05."
        raise InvalidOptionError(msg)


def _at_least(least: int) -> Callable[[Arg], None]:
    """An integer of a search of at least ``least`` (``slices()``'s counts)."""

    def check(arg: Arg) -> None:
        if (
            isinstance(arg.value, bool)
            or not isinstance(arg.value, numbers.Integral)  # NumPy's integers too
            or (arg.value < least)
        ):
            msg = (
                f"The {arg.name!r} parameter of {arg.method}() must be an integer of at "
                f"least {least}. Got {arg.value!r} instead."
            )
            raise InvalidOptionError(msg)

    return check


def _gate_count(arg: Arg) -> None:
    """``check()``'s ``min_queries``: a positive integer."""
    check_count(
        arg.name,
        arg.value,
        "The 'min_queries' option must be a positive integer. Got {value!r} instead.",
    )


def _choice(*allowed: str) -> Callable[[Arg], None]:
    """One of ``allowed`` (with a did-you-mean: ``check_choice``)."""

    def check(arg: Arg) -> None:
        check_choice(arg.name, arg.value, allowed)

    return check


def _slice_test(arg: Arg) -> None:
    if arg.value not in ("t-test", "permutation", "bootstrap"):
        msg = (
            "slices() tests with test='t-test', test='permutation' or test='bootstrap'; "
            f"got test={arg.value!r}. Pass one of them."
        )
        raise InvalidOptionError(msg)


def _gap_test(arg: Arg) -> None:
    if arg.value not in ("permutation", "rank", "anova"):
        msg = (
            "gaps() tests with test='permutation', test='rank' (Kruskal-Wallis) or "
            f"test='anova' (one-way F); got test={arg.value!r}. Pass one of them."
        )
        raise InvalidOptionError(msg)


def _estimate(arg: Arg) -> None:
    if arg.value not in ESTIMATES:
        shown = ", ".join(repr(e) for e in ESTIMATES)
        msg = (
            f"{arg.name}={arg.value!r} is no estimate; pass one of {shown}: 'ppi' corrects "
            "the judge's mean by the queries people judged, 'ppi++' also tunes the judge's "
            "weight (never much wider than people alone), 'gold' is people's mean alone, "
            "'judge' the judge's alone."
        )
        raise InvalidOptionError(msg)


#: Every constraint, by concept: a method's parameter of that concept names it in
#: :func:`validate_params`
BASELINE = Constraint(_baseline, optional=True)
PAIRED_BASELINE = Constraint(_paired_baseline, optional=True)
ALTERNATIVE = Constraint(_alternative)
FLAG = Constraint(_flag)
CHANGE = Constraint(_change)
PROBABILITY = Constraint(_probability)
AT_LEAST_ONE = Constraint(_at_least(1))
AT_LEAST_TWO = Constraint(_at_least(2))
OPTIONAL_AT_LEAST_ONE = Constraint(_at_least(1), optional=True)
GATE_MODE = Constraint(_choice(*GATE_MODES))
GATE_MIN_QUERIES = Constraint(_gate_count)
SLICE_TEST = Constraint(_slice_test)
GAP_TEST = Constraint(_gap_test)
ESTIMATE = Constraint(_estimate, optional=True)


def validate_params(
    constraints: Mapping[str, Constraint],
    systems: Callable[[Any], Sequence[str]] = lambda _: (),
) -> Callable[[_F], _F]:
    """Check a public method's arguments against ``constraints`` (parameter → its
    constraint), in their order, before the method runs; ``systems(self)`` gives the bound
    score columns. A parameter left out of the call is checked at its default; a keyword of
    ``**kwargs`` (``report()``'s) when it is passed."""

    def decorate(function: _F) -> _F:
        signature = inspect.signature(function)
        method = "rank_eval" if function.__name__ == "__call__" else function.__name__
        var = next(
            (
                p.name
                for p in signature.parameters.values()
                if p.kind is inspect.Parameter.VAR_KEYWORD
            ),
            None,
        )

        @functools.wraps(function)
        def validated(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = dict(bound.arguments)
            values.update(values.pop(var, {}) if var else {})
            scores = systems(args[0]) if args else ()
            for name, constraint in constraints.items():
                if name not in values or (constraint.optional and values[name] is None):
                    continue
                constraint.check(Arg(name, values[name], method, scores))
            return function(*args, **kwargs)

        return cast("_F", validated)

    return decorate


# The command line (``rankframe.cli``) checks its flags with these same constraints, one
# argument at a time and before it reads a file, naming each argument by its flag
# (``Arg("--alpha", ...)``): the constraints that word their message with ``arg.name`` then
# say ``--alpha=1.5`` where the call says ``alpha=1.5``. The levels and counts of the tests
# (``alpha``, ``confidence_level``, ``n_permutations``, ``n_resamples``), which the public
# methods check by building :class:`~rankframe.settings.statistics.Tests`, are the same
# ``check_level`` and ``check_count`` as constraints.


def _level(arg: Arg) -> None:
    """A level strictly between 0 and 1 (``check_level``, as ``Tests`` checks it)."""
    check_level(arg.name, arg.value)


def _count(arg: Arg) -> None:
    """A positive count of resamples (``check_count``, as ``Tests`` checks it)."""
    check_count(arg.name, arg.value)


def _seed(arg: Arg) -> None:
    """A seed of the resampling (``check_seed``, as ``Tests`` checks it)."""
    check_seed(arg.value, arg.name)


LEVEL = Constraint(_level)
OPTIONAL_LEVEL = Constraint(_level, optional=True)
COUNT = Constraint(_count)
SEED = Constraint(_seed, optional=True)


def check_arg(constraint: Constraint, arg: Arg) -> None:
    """One argument against its constraint, as :func:`validate_params` checks each of a
    call's (``None`` passes an optional one): for the arguments that reach a public method
    another way (the command line's flags)."""
    if constraint.optional and arg.value is None:
        return
    constraint.check(arg)
