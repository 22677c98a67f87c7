"""The exceptions rankframe raises.

Every error about the user's input or arguments is a ``RankEvalError``, which is a
``ValueError``, so ``except ValueError`` keeps working:

    ValueError
    └── RankEvalError                 any bad input, option or metric name
        ├── ColumnNotFoundError       a column named by the accessor is missing
        ├── InvalidDataError          a value in the frame breaks the input contract
        │   │                           (null id or grade, non-numeric score,
        │   │                           duplicate item, `by` varying within a query,
        │   │                           a score column without any score)
        │   └── TrecFormatError       a line of a TREC run or qrels file (.path, .line)
        ├── UnknownMetricError        a metric string that names no metric
        ├── InvalidOptionError        a bad keyword value (k, ties, gain, empty, ...)
        │   ├── UnknownArgumentError  a keyword the method does not take, or one
        │   │                           positional argument too many (also a TypeError,
        │   │                           which Python raises for those)
        │   └── InvalidRuleError      a rule of check() that does not parse (.rule)
        ├── EmptyQueryError           empty="error" and some queries have no relevant item
        └── StoreError                a history store (rankframe.History) refuses: not a
                                        store, a newer schema, busy, a run id taken (.store,
                                        .problem)

Warnings about the input that leave the numbers as they are: a ``RankEvalWarning``, which is a
``UserWarning`` (so ``warnings.filterwarnings`` and ``pytest.warns`` select it):

    UserWarning
    └── RankEvalWarning               a score column with null scores (.column, .count,
                                        .rows), counted as not retrieved

A score column without any score is no such warning but an error (``InvalidDataError``,
``problem="nothing_retrieved"``): the system retrieved nothing, which the contract calls an
error (a query that retrieved nothing is 0 for every metric; a whole system that did is a
join that matched no row, or scores that failed to compute).

Each message names the culprit (column, value, query; a file and its line) and the fix.
``excerpt`` quotes a user's value in a message, escaped and cut short, so that a message stays
short whatever the input. The keyword options a message names are parts of it
(``Keyword``, ``OptionName`` in ``RankEvalError.parts``), so that the command line
says them as its flags (``--ties average``) without reading the text.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import sys
import types
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ColumnNotFoundError",
    "EmptyQueryError",
    "InvalidDataError",
    "InvalidOptionError",
    "InvalidRuleError",
    "Keyword",
    "OptionName",
    "RankEvalError",
    "RankEvalWarning",
    "StoreError",
    "TrackingError",
    "TrecFormatError",
    "UnknownArgumentError",
    "UnknownMetricError",
]

EXCERPT_CHARACTERS = 60
"""The longest piece of the user's input that a message quotes."""


def excerpt(value: object, limit: int = EXCERPT_CHARACTERS) -> str:
    """``repr()`` of a value for a message: escaped, and cut to ``limit`` characters.

    Bytes that are not UTF-8 show as ``\\xff``.

    Examples
    --------
    >>> print(excerpt("q\\x00" + "x" * 100, limit=5))
    'q\\x00xxx'... (102 characters)
    >>> print(excerpt(b"d\\xff1"), excerpt(7))
    'd\\xff1' 7
    """
    if isinstance(value, bytes):
        text = excerpt(value.decode("utf-8", errors="backslashreplace"), limit)
        return text.replace("\\\\x", "\\x")
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= limit else f"{text[:limit]}..."
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value):,} characters)"


@dataclass(frozen=True)
class Keyword:
    """A keyword argument that a message names, as the call would pass it: ``ties='average'``;
    with ``call``, in that call: ``df.rank_eval(score=['old'])``."""

    name: str
    value: object
    call: str | None = None

    def __str__(self) -> str:
        keyword = f"{self.name}={self.value!r}"
        return keyword if self.call is None else f"{self.call}({keyword})"


@dataclass(frozen=True)
class OptionName:
    """A keyword option that a message names without a value: ``ties option``, as in "pass
    another ties option"."""

    name: str

    def __str__(self) -> str:
        return f"{self.name} option"


Message = str | Sequence[str | Keyword | OptionName]
"""A message: its text, or its parts (text, and the keyword options it names)."""


class RankEvalError(ValueError):
    """Base class of every error raised for bad input, options or metric names.

    Attributes
    ----------
    parts
        The message as text and the keyword options it names (``Keyword``,
        ``OptionName``); ``str(error)`` joins them, and ``spelled`` says the
        keywords otherwise (the command line's flags).
    """

    def __init__(self, message: Message) -> None:
        self.parts: tuple[str | Keyword | OptionName, ...] = (
            (message,) if isinstance(message, str) else tuple(message)
        )
        super().__init__(self.spelled(str))

    def spelled(self, keyword: Callable[[Keyword | OptionName], str]) -> str:
        """The message with each keyword option it names said by ``keyword``."""
        return "".join(p if isinstance(p, str) else keyword(p) for p in self.parts)

    def detached(self) -> RankEvalError:
        """The error without the one it was raised from: raised on a worker (a part of a
        LazyFrame, a Dask partition), it may be pickled to reach the caller, and the error
        it was raised from (its ``__context__``) says nothing more."""
        self.__context__ = self.__cause__ = None
        return self


class ColumnNotFoundError(RankEvalError):
    """A column the accessor was told to use is not in the frame."""


class InvalidDataError(RankEvalError):
    """A value in the frame breaks the input contract (its rules: ``rankframe.schemas``).

    Attributes
    ----------
    column
        The column at fault, when one is (``None`` otherwise).
    problem
        What is wrong with it, for a broken rule of the input contract: ``"null"`` (nulls
        where there must be none), ``"not_numeric"``, ``"infinite"`` (a grade),
        ``"not_boolean"`` (the ``judged`` column), ``"not_temporal"`` (a ``time`` column
        holding no times), ``"no_time_unit"`` (an integer ``time`` column without
        ``time_unit``), ``"duplicate"`` (an item repeated in a
        query; ``column`` is the item column), ``"varying"`` (a ``by`` column that varies
        within a query) or ``"nothing_retrieved"`` (a score column whose every score is
        null: the system retrieved nothing; with several such columns, ``column`` is the
        first and the message names each); ``None`` for other errors.
    count
        How many null values the column holds (``problem="null"``; for
        ``"nothing_retrieved"``, every row of the frame), over the whole frame, or
        how many times the item appears in its query (``"duplicate"``).
    row
        The 0-based position of the first offending row in the frame's order, when known.
    query
        That row's query id (``None`` for nulls of the query column itself).
    dtype
        The column's dtype, for ``"not_numeric"``, ``"not_boolean"``, ``"not_temporal"``
        and ``"no_time_unit"``.
    """

    def __init__(
        self,
        message: Message,
        *,
        column: str | None = None,
        problem: str | None = None,
        count: int | None = None,
        row: int | None = None,
        query: object = None,
        dtype: object = None,
    ) -> None:
        super().__init__(message)
        self.column = column
        self.problem = problem
        self.count = count
        self.row = row
        self.query = query
        self.dtype = dtype

    def __reduce__(self) -> tuple[Any, tuple[Message]]:
        """Pickle with the fields (an error may cross processes, as in Dask and Spark)."""
        rebuild = functools.partial(
            type(self),
            column=self.column,
            problem=self.problem,
            count=self.count,
            row=self.row,
            query=self.query,
            dtype=self.dtype,
        )
        return rebuild, (self.parts,)


class TrecFormatError(InvalidDataError):
    """A TREC run or qrels file breaks its format.

    Attributes
    ----------
    path
        The file.
    kind
        ``"run"`` or ``"qrels"``.
    line
        The 1-based number of the offending line; ``None`` when the whole file is at fault
        (it has no lines).
    n_fields
        The number of fields on that line when it has too few, else ``None``.
    """

    def __init__(
        self,
        message: Message,
        *,
        path: str | os.PathLike[str],
        kind: str,
        line: int | None = None,
        n_fields: int | None = None,
    ) -> None:
        super().__init__(message)
        self.path = os.fspath(path)
        self.kind = kind
        self.line = line
        self.n_fields = n_fields

    def __reduce__(self) -> tuple[Any, tuple[Message]]:
        """Pickle with the fields (an error may cross processes, as in Dask)."""
        rebuild = functools.partial(
            type(self), path=self.path, kind=self.kind, line=self.line, n_fields=self.n_fields
        )
        return rebuild, (self.parts,)


class UnknownMetricError(RankEvalError):
    """A metric string does not name any registered metric."""


class InvalidOptionError(RankEvalError):
    """A keyword argument has a value outside its allowed set."""


class UnknownArgumentError(InvalidOptionError, TypeError):
    """A method got a keyword it does not take (or too many positional arguments).

    Also a ``TypeError``, the exception Python raises for an unexpected keyword, so code
    that catches ``TypeError`` keeps working; the message suggests the keyword meant.
    """


class InvalidRuleError(InvalidOptionError):
    """A rule of ``check()`` does not parse, or cannot be checked (a drop rule without a
    baseline); the message names the rule and shows the grammar.

    Attributes
    ----------
    rule
        The rule as written (``None`` when the rules argument itself is wrong).
    """

    def __init__(self, message: Message, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule

    def __reduce__(self) -> tuple[Any, tuple[Message]]:
        """Pickle with the field."""
        return functools.partial(type(self), rule=self.rule), (self.parts,)


class EmptyQueryError(RankEvalError):
    """``empty="error"`` was requested and some queries have no relevant item.

    Attributes
    ----------
    count
        How many queries have no relevant item (over the whole frame).
    queries
        The first of them (at most five) in sorted order of the query ids.
    """

    def __init__(self, message: Message, *, count: int = 0, queries: Sequence[object] = ()) -> None:
        super().__init__(message)
        self.count = count
        self.queries = list(queries)

    def __reduce__(self) -> tuple[object, ...]:  # keeps the fields through pickling (Dask)
        return (_empty_query_error, (self.parts, self.count, self.queries))

    @classmethod
    def of(cls, queries: Sequence[object], count: int) -> EmptyQueryError:
        """The error for ``count`` queries without relevant items, the first ``queries``."""
        shown = ", ".join(repr(plain(q)) for q in queries)
        more = f" and {count - len(queries)} more" if count > len(queries) else ""
        which = "query has" if count == 1 else "queries have"
        msg = (
            f"{count} {which} no relevant item: {shown}{more}. Their metrics are undefined; pass ",
            Keyword("empty", "zero"),
            " (count 0, as trec_eval), 'skip' or 'nan' instead, or lower min_relevance.",
        )
        return cls(msg, count=count, queries=[plain(q) for q in queries])


class StoreError(RankEvalError):
    """A history store (``rankframe.History``) cannot be used as asked.

    Attributes
    ----------
    store
        The store's path, or its URL without the password.
    problem
        ``"not_a_store"`` (a file or database that holds no rankframe store: a text file, a
        database of other tables), ``"newer_schema"`` (written by a newer rankframe),
        ``"busy"`` (another process held the store longer than the timeout) or
        ``"run_exists"`` (a run of that id is already recorded: runs are never
        overwritten).
    """

    def __init__(self, message: Message, *, store: str, problem: str) -> None:
        super().__init__(message)
        self.store = store
        self.problem = problem

    def __reduce__(self) -> tuple[Any, tuple[Message]]:
        """Pickle with the fields."""
        return functools.partial(type(self), store=self.store, problem=self.problem), (self.parts,)


class TrackingError(RankEvalError):
    """An MLflow tracking server cannot take or give a result (``rankframe.mlflow``): no
    active run, an unreachable server, a refused write, or a run without a complete log.

    Attributes
    ----------
    tracking_uri
        The tracking URI the call used (``mlflow.get_tracking_uri()``).
    """

    def __init__(self, message: Message, *, tracking_uri: str) -> None:
        super().__init__(message)
        self.tracking_uri = tracking_uri

    def __reduce__(self) -> tuple[Any, tuple[Message]]:
        """Pickle with the field."""
        return functools.partial(type(self), tracking_uri=self.tracking_uri), (self.parts,)


class RankEvalWarning(UserWarning):
    """Something in the input that a reader of the numbers should know, which changes
    nothing in them: a score column with null scores (counted as not retrieved).

    Select it with ``warnings.filterwarnings(..., category=rankframe.RankEvalWarning)``; the
    message starts with the column it is about.

    Attributes
    ----------
    column
        The column it is about (``None`` when it is about no one column).
    count
        How many of its values it counts (the null scores).
    rows
        Out of how many rows.
    problem
        What it is about: ``"null_scores"`` (some null scores; a column without any score
        is an error, ``InvalidDataError(problem="nothing_retrieved")``).
    """

    def __init__(
        self,
        message: str,
        *,
        column: str | None = None,
        count: int | None = None,
        rows: int | None = None,
        problem: str | None = None,
    ) -> None:
        super().__init__(message)
        self.column = column
        self.count = count
        self.rows = rows
        self.problem = problem


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_WARNED: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar(
    "rankframe_warned", default=None
)


_SILENT: contextvars.ContextVar[bool] = contextvars.ContextVar("rankframe_silent", default=False)


def warn(warning: RankEvalWarning) -> None:
    """Issue ``warning`` from the first caller outside rankframe (the user's line, as
    pandas does), once per ``warned_once`` block; nothing in a ``silenced`` one."""
    if _SILENT.get():
        return
    seen = _WARNED.get()
    if seen is not None:
        if str(warning) in seen:
            return
        seen.add(str(warning))
    frame: types.FrameType | None = sys._getframe()
    level = 1  # warnings.warn's stacklevel: 1 is this function, the first frame above
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(warning, stacklevel=level)


@contextlib.contextmanager
def warned_once() -> Iterator[None]:
    """Within the block, a warning of the same text is issued once: a method that runs
    several of the accessor's own (``check()``: ``evaluate`` and ``compare``) warns once."""
    if _WARNED.get() is not None:  # an outer block already counts
        yield
        return
    token = _WARNED.set(set())
    try:
        yield
    finally:
        _WARNED.reset(token)


@dataclass(frozen=True, eq=False)
class WarningState:
    """The caller's ``warned_once`` and ``silenced`` blocks, for a step that runs in
    another thread (a Dask task): the texts warned so far (the same set, shared) and
    whether rankframe is silenced."""

    seen: set[str] | None
    silent: bool


def warning_state() -> WarningState:
    """The ``warned_once`` and ``silenced`` blocks the caller is in (see :class:`WarningState`)."""
    return WarningState(_WARNED.get(), _SILENT.get())


@contextlib.contextmanager
def within(state: WarningState) -> Iterator[None]:
    """Within the block, the caller's ``state``: a step run in a worker thread (which does
    not inherit the caller's context variables) warns as the caller would, once per the
    caller's ``warned_once`` block."""
    warned, silent = _WARNED.set(state.seen), _SILENT.set(state.silent)
    try:
        yield
    finally:
        _SILENT.reset(silent)
        _WARNED.reset(warned)


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """Within the block, rankframe issues no ``RankEvalWarning``: for a frame whose
    null scores are its format's own (a TREC run joined with its judgments, the sample
    data's items that a model did not recommend). Thread-safe, unlike
    ``warnings.catch_warnings``; errors are raised as ever."""
    token = _SILENT.set(True)
    try:
        yield
    finally:
        _SILENT.reset(token)


def _empty_query_error(message: Message, count: int, queries: list[object]) -> EmptyQueryError:
    return EmptyQueryError(message, count=count, queries=queries)


def plain(value: object) -> object:
    """A NumPy scalar as the Python value it holds, for messages (``20``, not
    ``np.int64(20)``); anything else as it is."""
    item = getattr(value, "item", None)
    return item() if callable(item) and type(value).__module__ == "numpy" else value
