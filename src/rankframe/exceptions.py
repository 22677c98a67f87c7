"""The exceptions rankframe raises.

Every error about the user's input or arguments is a ``RankEvalError``, which is a
``ValueError``, so ``except ValueError`` keeps working:

    ValueError
    └── RankEvalError                 any bad input, option or metric name
        ├── ColumnNotFoundError       a column named by the accessor is missing
        ├── InvalidDataError          a value in the frame breaks the input contract
        │                               (null id or grade, non-numeric score,
        │                               duplicate item, `by` varying within a query)
        ├── UnknownMetricError        a metric string that names no metric
        ├── InvalidOptionError        a bad keyword value (k, ties, gain, empty, ...)
        │   └── UnknownArgumentError  a keyword the method does not take, or one
        │                               positional argument too many (also a TypeError,
        │                               which Python raises for those)
        └── EmptyQueryError           empty="error" and some queries have no relevant item

Each message names the culprit (column, value, query) and the fix.
"""

from __future__ import annotations

__all__ = [
    "ColumnNotFoundError",
    "EmptyQueryError",
    "InvalidDataError",
    "InvalidOptionError",
    "RankEvalError",
    "UnknownArgumentError",
    "UnknownMetricError",
]


class RankEvalError(ValueError):
    """Base class of every error raised for bad input, options or metric names."""


class ColumnNotFoundError(RankEvalError):
    """A column the accessor was told to use is not in the frame."""


class InvalidDataError(RankEvalError):
    """A value in the frame breaks the input contract of SPEC §1."""


class UnknownMetricError(RankEvalError):
    """A metric string does not name any registered metric."""


class InvalidOptionError(RankEvalError):
    """A keyword argument has a value outside its allowed set."""


class UnknownArgumentError(InvalidOptionError, TypeError):
    """A method got a keyword it does not take (or too many positional arguments).

    Also a ``TypeError``, the exception Python raises for an unexpected keyword, so code
    that catches ``TypeError`` keeps working; the message suggests the keyword meant.
    """


class EmptyQueryError(RankEvalError):
    """``empty="error"`` was requested and some queries have no relevant item."""
