"""The numbers of trec_eval's output, from one per-query pass over the joined run and qrels.

One request (``PerQueryRows``, as ``per_query``) holds every measure printed, per query and
in the summary: the engine ranks the frame once for all of them, and the per-query values
and the ``all`` values come from the same per-query table through the finish steps of
``per_query`` and ``evaluate`` (each measure aggregated as its registry declaration says: a
mean in the queries' order, ``gm_map``'s geometric mean, the sums of the ``num_*``
counts). So the values are those of ``df.rank_eval.per_query(...)`` and
``df.rank_eval.evaluate(...)`` on the frame ``join_trec`` returns, computed once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from rankframe.adapters import adapt
from rankframe.exceptions import silenced
from rankframe.metrics.registry import bind_options, labels, parse_metrics
from rankframe.pipeline import steps
from rankframe.pipeline.binding import Binding
from rankframe.settings.options import Options

__all__ = ["Values", "values"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Values:
    """Per query (the frame's query codes, sorted) each metric's value, and each metric's
    aggregate over the queries; both by the metric's name as asked."""

    queries: npt.NDArray[np.integer[Any]]
    per_query: dict[str, FloatArray]
    means: dict[str, float]


def values(frame: pl.DataFrame, metrics: list[str], options: Mapping[str, Any]) -> Values:
    """The values of ``metrics`` (names the registry parses) on ``frame`` (``query``,
    ``item``, ``score``, ``relevant`` and ``judged`` columns) with the keyword ``options``.
    Null scores are the format's own (judged documents not retrieved): no warning."""
    chosen = dict(options)
    names = list(dict.fromkeys(metrics))
    binding = Binding(adapt(frame), steps.ColumnNames())
    backend = binding.frame.backend(frame)
    codes = frame["query"].to_numpy()
    per_query: dict[str, FloatArray] = {}
    means: dict[str, float] = {}
    queries = np.flatnonzero(np.bincount(codes)).astype(codes.dtype)  # the codes, sorted
    if names:
        parsed, bound = bind_options(parse_metrics(names), Options(**chosen), list(chosen))
        request = binding.request(parsed, [], bound, steps.PerQueryRows())
        with silenced():
            pq = steps.per_query(backend, request)
        rows, columns = request.result.finish(backend, pq, request)
        _, aggregates = steps.Means().finish(backend, pq, request)
        queries = codes[rows]
        label_of = dict(zip(names, labels(names, chosen), strict=True))
        per_query = {n: np.asarray(columns[label_of[n]], dtype=np.float64) for n in names}
        means = {n: float(aggregates[label_of[n]][0]) for n in names}
    return Values(queries, per_query, means)
