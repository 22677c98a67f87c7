"""The checks of the options whose values are more than a choice: numbers (``min_relevance``,
``beta``, shares), names of groups, and the data options (``catalog``, ``popularity``,
``item_features``, ``item_groups``, ``target``), which :mod:`rankframe.settings.options`
declares.

A data option is a mapping or a frame of the user's library. This layer, below the adapters,
never tests a frame library's types: it asks :func:`kind_of`, which the adapters answer
(``rankframe.adapters.mappings.kind_of``, given by :func:`use_kind_of` when
``rankframe.adapters`` is imported).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping

from rankframe.exceptions import InvalidOptionError

#: What the adapters say an option's value is: ``"pandas Series"``, ``"pandas DataFrame"``,
#: ``"polars DataFrame"``, or ``None`` for anything else (a mapping, a list).
KindOf = Callable[[object], str | None]

_KIND_OF: list[KindOf] = []


def use_kind_of(answer: KindOf) -> None:
    """The adapters' answer to :func:`kind_of` (``rankframe.adapters`` gives it on import)."""
    _KIND_OF[:] = [answer]


def kind_of(value: object) -> str | None:
    """Which of the frame kinds the data options take ``value`` is, as the adapters say."""
    return _KIND_OF[0](value) if _KIND_OF else None


def check_min_relevance(level: object) -> None:
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


def check_beta(beta: object) -> None:
    if (
        isinstance(beta, bool)
        or not isinstance(beta, numbers.Real)
        or not math.isfinite(float(beta))
        or float(beta) <= 0
    ):
        msg = (
            "The 'beta' option must be a positive finite number (the weight of recall in "
            f"F-beta: 1 for F1, 2 weighs recall more, 0.5 precision). Got {beta!r} instead."
        )
        raise InvalidOptionError(msg)


def is_frame(value: object) -> bool:
    return hasattr(value, "columns") and hasattr(value, "shape")


def check_catalog(value: object) -> None:
    if value is None:
        return
    if (
        isinstance(value, str | bytes | Mapping)
        or is_frame(value)
        or not hasattr(value, "__iter__")
    ):
        msg = (
            "The 'catalog' option must be a collection of item ids (a list, set, array, "
            f"pandas Index or Series, polars Series), or None for the items of the frame. "
            f"Got {type(value).__name__} instead."
        )
        raise InvalidOptionError(msg)


def check_popularity(value: object) -> None:
    if value is None or isinstance(value, Mapping):
        return
    kind = kind_of(value)
    if kind in ("pandas Series", "polars DataFrame") or (
        kind == "pandas DataFrame" and getattr(value, "shape", (0, 0))[1] == 1
    ):
        return
    msg = (
        "The 'popularity' option must map each item to its number of interactions: a pandas "
        "Series indexed by item, a polars DataFrame of two columns (item, count) or a dict. "
        f"Got {type(value).__name__} instead."
    )
    raise InvalidOptionError(msg)


def check_item_features(value: object) -> None:
    if value is None:
        return
    if kind_of(value) in ("pandas DataFrame", "polars DataFrame"):
        return
    msg = (
        "The 'item_features' option must be a frame of numeric features per item: a pandas "
        "DataFrame indexed by item, or a polars DataFrame whose first column is the item. "
        f"Got {type(value).__name__} instead."
    )
    raise InvalidOptionError(msg)


def check_item_groups(value: object) -> None:
    if value is None or isinstance(value, Mapping):
        return
    if kind_of(value) in ("pandas Series", "pandas DataFrame", "polars DataFrame"):
        return
    msg = (
        "The 'item_groups' option must map each item to its group: a pandas Series indexed "
        "by item, a pandas DataFrame of one column indexed by item, a polars DataFrame of "
        f"two columns (item, group) or a dict. Got {type(value).__name__} instead."
    )
    raise InvalidOptionError(msg)


def check_target(value: object) -> None:
    if value is None or isinstance(value, Mapping):
        return
    if kind_of(value) == "pandas Series":
        return
    msg = (
        "The 'target' option must map each group to its target share (shares summing to 1): "
        f"a dict or a pandas Series indexed by group, or None. Got {type(value).__name__} "
        "instead."
    )
    raise InvalidOptionError(msg)


def check_unknown_group(value: object) -> None:
    if value is None or (
        isinstance(value, str | int) and not isinstance(value, bool) and value != ""
    ):
        return
    msg = (
        "The 'unknown_group' option must be the name of the group of the items that "
        f"item_groups does not list (a non-empty string or an int), or None. Got {value!r}."
    )
    raise InvalidOptionError(msg)


def check_share(option: str, what: str, *, closed: bool) -> Callable[[object], None]:
    def check(value: object) -> None:
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not (0 < float(value) <= 1 if closed else 0 < float(value) < 1)
        ):
            bounds = "0 < value <= 1" if closed else "0 < value < 1"
            msg = f"The '{option}' option must be a number with {bounds} ({what}). Got {value!r}."
            raise InvalidOptionError(msg)

    return check


def check_group(value: object) -> None:
    if value is not None and not isinstance(value, str):
        msg = (
            "The 'group' option must be the name of one group of item_groups, as a string "
            f"(e.g. group='small'), or None for every group. Got {value!r}."
        )
        raise InvalidOptionError(msg)
