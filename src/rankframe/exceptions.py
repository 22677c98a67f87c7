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

from collections.abc import Sequence

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
    """``empty="error"`` was requested and some queries have no relevant item.

    Attributes
    ----------
    count
        How many queries have no relevant item (over the whole frame).
    queries
        The first of them (at most five) in sorted order of the query ids.
    """

    def __init__(self, message: str, *, count: int = 0, queries: Sequence[object] = ()) -> None:
        super().__init__(message)
        self.count = count
        self.queries = list(queries)

    def __reduce__(self) -> tuple[object, ...]:  # keeps the fields through pickling (Dask)
        return (_empty_query_error, (str(self), self.count, self.queries))

    @classmethod
    def of(cls, queries: Sequence[object], count: int) -> EmptyQueryError:
        """The error for ``count`` queries without relevant items, the first ``queries``."""
        shown = ", ".join(repr(_plain(q)) for q in queries)
        more = f" and {count - len(queries)} more" if count > len(queries) else ""
        which = "query has" if count == 1 else "queries have"
        msg = (
            f"{count} {which} no relevant item: {shown}{more}. Their metrics are "
            "undefined; pass empty='zero' (count 0, as trec_eval), 'skip' or 'nan' instead, "
            "or lower min_relevance."
        )
        return cls(msg, count=count, queries=[_plain(q) for q in queries])


def _empty_query_error(message: str, count: int, queries: list[object]) -> EmptyQueryError:
    return EmptyQueryError(message, count=count, queries=queries)


def _plain(value: object) -> object:
    """A NumPy scalar as the Python value it holds (``20``, not ``np.int64(20)``)."""
    item = getattr(value, "item", None)
    return item() if callable(item) and type(value).__module__ == "numpy" else value
