"""``agreement()``: a judge's grades checked against people's (``docs/judgments.md``).

:class:`Agreements` is a base of :class:`rankframe.api.accessor.RankEval`; its method reads
the accessor's binding (the judge's grades in ``relevant``, people's in ``gold``) and runs
one request per table (:mod:`rankframe.pipeline.judge_agreement`), each of the accessor's
kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rankframe.api.judgments import gold_values
from rankframe.api.kinds import TableT
from rankframe.api.signatures import arguments_checked, bound, option_keywords, options_from
from rankframe.exceptions import InvalidOptionError
from rankframe.metrics.registry import Metric, parse_metrics
from rankframe.pipeline.judge_agreement import (
    Conclusions,
    GradeTables,
    JudgeBias,
    SystemOrders,
    grade_pairs,
)
from rankframe.pipeline.judgments import check_paired_empty
from rankframe.pipeline.per_query import PerQuery
from rankframe.pipeline.steps import Backend, per_query
from rankframe.settings import params
from rankframe.settings.params import as_columns, validate_params

if TYPE_CHECKING:
    from rankframe.pipeline.binding import Binding
    from rankframe.pipeline.steps import Request

__all__ = ["Agreement", "Agreements"]

_V = TypeVar("_V")


@dataclass(frozen=True)
class Agreement(Generic[TableT]):
    """The tables of ``agreement()``, each of the accessor's kind (``docs/judgments.md``).

    Attributes
    ----------
    grades
        Per ``by`` segment, on the rows both graded: ``n_pairs``, Cohen's ``kappa``
        (unweighted), ``kappa_linear``, ``kappa_quadratic`` and Krippendorff's ordinal
        ``krippendorff_alpha``.
    confusion
        Per segment, one row per (``judge``'s grade, ``gold`` grade) of the grades either
        gave on those rows, with its ``count``.
    bias
        With metrics: per segment, system and metric, on the queries people judged, the
        ``judge_mean``, ``gold_mean``, their difference ``bias`` (judge minus people) with
        its t interval (``ci_low``, ``ci_high``) and ``p_value``, and ``n_gold``.
    orders
        With metrics: per segment and metric, ``kendall_tau`` between the systems' means
        under the judge and under people on those queries (NaN for one system).
    conclusions
        With metrics: per segment, pair of systems (``system`` against ``other``, an
        earlier score column) and metric, ``judge_delta`` and ``gold_delta`` (the difference
        of the means), their paired t-tests' p-values, each set of grades' conclusion
        (``"higher"``, ``"lower"`` at ``p < alpha``, else ``"no difference"``) and
        ``same_conclusion``.
    """

    grades: TableT
    confusion: TableT
    bias: TableT | None
    orders: TableT | None
    conclusions: TableT | None


def _shared(first: Request | None) -> Callable[[Backend, Request], PerQuery]:
    """One per-query pass for the tables of one call (the same frame, ``by`` and options):
    ``first``'s (else the first table's own), computed by the first table and kept for the
    others (``Request.shared_pass``)."""
    kept: list[PerQuery] = []

    def compute(backend: Backend, request: Request) -> PerQuery:
        if not kept:
            kept.append(per_query(backend, first or request))
        return kept[0]

    return compute


def _once(compute: Callable[[], _V]) -> Callable[[], _V]:
    """``compute``'s value, computed at the first call and kept for the others (a closure:
    a result's fields are tokenized by Dask, which an ``lru_cache`` refuses)."""
    kept: list[_V] = []

    def value() -> _V:
        if not kept:
            kept.append(compute())
        return kept[0]

    return value


class Agreements(Generic[TableT]):
    """``agreement()`` of the accessor (a base of ``RankEval``)."""

    if TYPE_CHECKING:
        _binding: Binding

        def _table(self, request: Request) -> TableT: ...

    @arguments_checked
    @validate_params({"alpha": params.LEVEL, "confidence_level": params.LEVEL})
    @option_keywords
    def agreement(
        self,
        metrics: str | Metric | Iterable[str | Metric] | None = None,
        *,
        by: str | Sequence[str] | None = None,
        alpha: float = 0.05,
        confidence_level: float = 0.95,
        **chosen: Any,
    ) -> Agreement[TableT]:
        """How well the judge's grades (``relevant``) agree with people's (``gold``).

        Needs a bound gold column: ``df.rank_eval(relevant="llm", gold="human")``. The grade
        tables read the rows both graded; with ``metrics``, the metric tables compare the
        metrics under both sets of grades on the queries people judged (every row graded
        by people; see ``docs/judgments.md``): the judge's bias, the systems' orders
        (Kendall's tau) and, per pair of systems, whether the judge reaches people's
        conclusion (at ``alpha``). ``by``: per segment. Metric options as ``evaluate``'s.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["a", "b", "a", "b"],
        ...                    "score": [2, 1, 2, 1], "llm": [1, 0, 1, 1],
        ...                    "human": [1, 0, 1, 0]})
        >>> df.rank_eval(relevant="llm", gold="human").agreement().grades[["n_pairs", "kappa"]]
           n_pairs  kappa
        0        4    0.5
        """
        binding = self._binding
        names = binding.names
        if names.gold is None:
            msg = (
                "agreement() compares the judge's grades (relevant="
                f"{names.relevant!r}) with people's, but no gold column is bound; name it, "
                f"e.g. df.rank_eval(relevant={names.relevant!r}, gold='human')."
            )
            raise InvalidOptionError(msg)
        options = options_from(chosen)
        parsed, options = bound([] if metrics is None else parse_metrics(metrics), options, chosen)
        by_list = as_columns(by)
        binding.check_columns(by_list)
        if parsed:
            check_paired_empty(options.empty, "agreement()")
        grade_columns = [*by_list, names.relevant, names.gold]

        def read() -> Any:
            rows = binding.frame.polars_columns(grade_columns)
            return grade_pairs(rows, by_list, names.relevant, str(names.gold))

        pairs = _once(read)  # read once for both grade tables

        # the metric tables, which read people's side through one computation
        mine: list[Request] = []
        people = _once(partial(gold_values, binding, mine))
        for kind in (JudgeBias, SystemOrders, Conclusions) if parsed else ():
            result = kind(gold=people, alpha=alpha, confidence_level=confidence_level)
            mine.append(binding.request(parsed, by_list, options, result))
        # one pass under the judge's grades for the five tables: the metric tables' (the
        # grade tables read only its segments), or without metrics one that ranks nothing
        shared = _shared(mine[0] if mine else None)
        grades, confusion = (
            self._table(
                replace(
                    binding.request([], by_list, options, GradeTables(pairs, confusion=c)),
                    shared_pass=shared,
                )
            )
            for c in (False, True)
        )
        if not parsed:
            return Agreement(grades, confusion, None, None, None)
        bias, orders, conclusions = (self._table(replace(r, shared_pass=shared)) for r in mine)
        return Agreement(grades, confusion, bias, orders, conclusions)
