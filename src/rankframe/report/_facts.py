"""Facts of the data that the report counts in its one per-query pass, beside the metrics.

The data section shows, per system, the share of ranked rows whose score ties another row's
in the same query. The ranking that every metric reads has each query's rows in score order,
so a tied row is one whose score equals its neighbour's there: counting them is one
comparison per row of that ranking, where a group-by of (query, score) over the frame costs
as much as a ranking of its own. The two counts per query (tied rows, ranked rows) are
declared as per-query values of the pass (:class:`Fact`, a ``Metric`` with its own
declaration, never registered: no user sees or spells them); they cross the seam of a
partitioned frame as the metrics do, in the per-query table.

The rows counted are the rows the metrics rank: those with a score (not null, not NaN), and
only the judged ones in condensed lists (``unjudged="condense"``, ``judged_only=True``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe.engine.lists import Lists
from rankframe.metrics.registry import Metric, MetricDef
from rankframe.settings.options import Options

FloatArray = npt.NDArray[np.float64]


def tied_rows(lists: Lists, _k: object, _options: Options) -> FloatArray:
    """Per query, the ranked rows whose score equals another ranked row's of the query
    (neighbours in the ranking's score order)."""
    if lists.source is None:  # pragma: no cover (the engine's lists know their ranking)
        msg = "These lists do not know their ranking."
        raise RuntimeError(msg)
    data, ranking, _ = lists.source
    order, starts = ranking.order, ranking.starts
    n = len(order)
    if n < 2:
        return np.zeros(lists.n_queries)
    score = data.score[order]
    same = score[1:] == score[:-1]  # entry i and i + 1 hold the same score
    inner = starts[1:-1]  # where queries 1.. begin: pairs across them are no tie
    same[inner[(inner > 0) & (inner < n)] - 1] = False
    tied = np.zeros(n, dtype=bool)
    tied[1:] = same
    tied[:-1] |= same
    running = np.concatenate(([0], np.cumsum(tied, dtype=np.int64)))
    out: FloatArray = (running[starts[1:]] - running[starts[:-1]]).astype(np.float64)
    return out


def ranked_rows(lists: Lists, _k: object, _options: Options) -> FloatArray:
    """Per query, the rows the metrics rank (score not null)."""
    out: FloatArray = lists.n_retrieved.astype(np.float64)
    return out


def _declared(name: str, compute: Any, summary: str) -> MetricDef:
    return MetricDef(
        name=name,
        aliases=(),
        trec_name=None,
        trec_cut=None,
        takes_k=False,
        options={},
        compute=compute,
        summary=summary,
        tie_average=compute,  # no position is read: the same count under ties="average"
        aggregate="sum",
        depends_on_relevant=False,
        bounded=False,  # counts of rows
        shared_ranks=True,  # and under ties="truncated_average"
    )


@dataclass(frozen=True, order=True, repr=False)
class Fact(Metric):
    """A ``Metric`` whose declaration it carries itself instead of reading the registry's:
    a count per query of the report's pass, or a metric read back as plain values
    (``as_values``)."""

    declaration: MetricDef | None = field(default=None, compare=False)

    @property
    def definition(self) -> MetricDef:
        if self.declaration is None:  # pragma: no cover (every Fact is made with one)
            msg = f"the fact {self.name!r} has no declaration"
            raise RuntimeError(msg)
        return self.declaration


TIED_ROWS = Fact(
    "__rankframe_tied_rows__",
    declaration=_declared(
        "__rankframe_tied_rows__", tied_rows, "ranked rows whose score ties another's"
    ),
)
RANKED_ROWS = Fact(
    "__rankframe_ranked_rows__",
    declaration=_declared("__rankframe_ranked_rows__", ranked_rows, "ranked rows"),
)
FACTS = (TIED_ROWS, RANKED_ROWS)


def as_values(metric: Metric) -> Metric:
    """``metric`` as a column of final per-query values: a metric of the items themselves
    (``MetricDef.items``), whose per-query table already holds its values (the finish step
    of ``per_query`` computed them), is read as any other metric's column (same label)."""
    if metric.definition.items is None:
        return metric
    return Fact(
        name=metric.name,
        k=metric.k,
        options=metric.options,
        convention=metric.convention,
        given=metric.given,
        declaration=replace(metric.definition, items=None),
    )
