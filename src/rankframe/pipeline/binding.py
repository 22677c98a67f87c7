"""A frame bound to its column names: the checks of a call's columns, and its one request.

:class:`Binding` is what the public accessor holds (an adapter's frame and the column names
the user bound) and what the outputs read (``check()``, the report): it checks the columns a
call reads, builds the call's :class:`~rankframe.pipeline.steps.Request` once every check has
passed, and runs it through the adapter, remembering what made the result
(:mod:`rankframe.pipeline.provenance`). The adapter is asked only through the methods of
the one contract, :class:`~rankframe.pipeline.contract.FrameAdapter` (declared in this
layer, implemented by the adapters), so this layer imports no adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rankframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidOptionError
from rankframe.metrics.registry import Metric
from rankframe.pipeline import provenance, steps, windows
from rankframe.pipeline.analysis import SYSTEM
from rankframe.pipeline.contract import FrameAdapter
from rankframe.pipeline.reference import Side
from rankframe.pipeline.steps import ColumnNames, Request, Result, shown_key
from rankframe.pipeline.validation import missing_columns_message
from rankframe.settings.options import Options, Ties

if TYPE_CHECKING:
    pass

__all__ = ["Binding", "Bound", "Frame"]


#: The contract's old name here: what a call asks of its frame's adapter.
Frame = FrameAdapter


@dataclass(frozen=True)
class Binding:
    """One frame (through its adapter) and the column names bound to it."""

    frame: FrameAdapter
    names: ColumnNames

    @property
    def multi(self) -> bool:
        """Several score columns: outputs gain a ``system`` column."""
        return self.names.systems is not None

    def check_columns(self, by: Sequence[str]) -> None:
        """The bound columns and ``by`` exist, differ, and clash with no output column."""
        available = self.frame.columns()
        nested = [c for c in available if isinstance(c, tuple)]
        if nested:
            msg = (
                f"The frame has MultiIndex columns (e.g. {nested[0]!r}); rank_eval needs one "
                "name per column. Flatten them first, e.g. df.columns = ['_'.join(map(str, c)) "
                "for c in df.columns], or select one level with df.droplevel(...)."
            )
            raise InvalidDataError(msg)
        names = self.names
        _check_gold(names)
        roles = names.roles()
        wanted = [*roles.items(), *((b, "by") for b in by)]
        bound = (names.judged is not None) + (names.time is not None) + (names.sample is not None)
        bound += names.gold is not None
        keys = len(names.query_key) + len(names.item_key)
        if len(roles) < keys + 1 + len(names.scores) + bound:
            score = names.score if names.systems is None else list(names.systems)
            msg = (
                "The query, item, score and relevant columns must be four different columns "
                "(and every score column, every column of a composite key and the sample column, "
                "different); "
                f"got query={shown_key(names.query_key)!r}, item={shown_key(names.item_key)!r}, "
                f"score={score!r}, relevant={names.relevant!r}"
                f"{'' if names.sample is None else f', sample={names.sample!r}'}."
            )
            raise InvalidOptionError(msg)
        missing = [(name, role) for name, role in wanted if name not in available]
        levels = self.frame.index_levels() if missing else []
        for name, role in missing:
            if name in levels:
                msg = (
                    f"Column {name!r} ({role}) is an index level of the frame, not a "
                    "column; call reset_index() first, e.g. df.reset_index().rank_eval."
                )
                raise ColumnNotFoundError(msg)
        if missing:  # every missing column in one error
            raise ColumnNotFoundError(missing_columns_message(missing, available))
        # a column of a composite query key describes the query: a segment (by="day")
        part_of_query = set(names.query_key) if len(names.query_key) > 1 else set()
        for name in by:
            if name in roles and name not in part_of_query:
                msg = (
                    f"by={name!r} is the {roles[name]} column; group by a column "
                    "that describes the query (a user segment, a theme)."
                )
                raise InvalidOptionError(msg)
        if self.multi and SYSTEM in [*names.query_key, *by]:
            msg = (
                f"Column {SYSTEM!r} clashes with the output column {SYSTEM!r} that names each "
                "score column; rename it first, e.g. df.rename(columns={'system': 'cohort'})."
            )
            raise InvalidOptionError(msg)

    def window(self, every: str | None, by: Sequence[str]) -> windows.Window | None:
        """The windows of ``every=`` (``None``: none), once the arguments are checked."""
        if every is None:
            return None
        every = windows.check_every(every)
        names = self.names
        if names.time is None:
            raise windows.no_time_column(every)
        window = windows.WINDOW
        if window in [*names.query_key, *by] or (self.multi and window == SYSTEM):
            msg = (
                f"Column {window!r} clashes with the output column {window!r} of every= "
                "(each window's start); rename it first, e.g. "
                "df.rename(columns={'window': 'period'})."
            )
            raise InvalidOptionError(msg)
        return windows.Window(every, names.time, names.time_unit)

    def resolved(self, by: Sequence[str], options: Options) -> ColumnNames:
        """The column names of one request: the default ``judged`` column when the frame
        has one (and does not use it otherwise), and whether null grades are unjudged."""
        names = self.names
        default = steps.JUDGED
        if (
            names.judged is None
            and default in self.frame.columns()
            and default not in [*names.roles(), *by]
        ):
            names = replace(names, judged=default)
        return replace(names, null_grades=options.unjudged != "error")

    def request(
        self,
        metrics: Sequence[Metric],
        by: Sequence[str],
        options: Options,
        result: Result,
        every: str | None = None,
    ) -> Request:
        """The call's one request, built once every check has passed."""
        window = self.window(every, by)
        steps.check_request(list(metrics), options, result, self.names.sample)
        names = self.resolved(by, options)
        if window is None:  # the time column is read only for windows
            names = replace(names, time=None, time_unit=None)
        return Request(names, tuple(metrics), tuple(by), options, result, window)

    def run(self, request: Request) -> Any:
        """``request`` on the frame: the user's result, which remembers what made it."""
        return provenance.remember(self.frame.run(request), request, self.frame.source)

    def side(self, request: Request) -> Side:
        """This frame's side of ``compare(reference=...)``."""
        return self.frame.side(request)

    def rank(self, columns: list[str], ties: Ties) -> Any:
        """The frame plus a rank column per system."""
        return self.frame.rank(self.names, columns, ties)


def _check_gold(names: ColumnNames) -> None:
    """People's grade column differs from every other bound column."""
    gold = names.gold
    if gold is None:
        return
    taken = replace(names, gold=None).roles().get(gold)
    if taken is not None:
        msg = (
            f"gold={gold!r} is also the {taken} column; gold names the column of people's "
            "grades, beside the judge's in relevant=: pass two different columns, e.g. "
            "df.rank_eval(relevant='llm', gold='human')."
        )
        raise InvalidOptionError(msg)


@runtime_checkable
class Bound(Protocol):
    """An object bound to a frame and column names (the accessor), which the outputs read
    through this one declared attribute (``History.record(data=df.rank_eval(...))``)."""

    @property
    def __rankframe_binding__(self) -> Binding: ...
