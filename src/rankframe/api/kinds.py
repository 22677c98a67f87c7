"""The types of the accessor's results, by frame kind: the type parameters of
:class:`rankframe.api.accessor.RankEval`.

A ``RankEval[Table, Decision, Value]`` gives

- ``Table`` from the table methods (``per_query``, ``evaluate``, ``compare``, ``slices``,
  ``gaps``, ``rank``): the input's kind, a LazyFrame or a Dask frame staying lazy;
- ``Decision`` from ``check()``: a gate is taken now, so an eager frame (a polars DataFrame
  for a LazyFrame, pandas for Dask);
- ``Value`` from the metric methods (``mrr()``, ``ndcg()``, ...): a float, or per segment
  or system a Series (pandas) or a DataFrame (polars); lazy objects for lazy kinds.

``rankframe.rank_eval(obj)`` (``docs/api.md``, "Types") picks them from the frame's type.
The type variables only: the frame libraries are named in annotations, never imported here.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["DecisionT", "TableT", "ValueT"]

#: The tables' type (``per_query``, ``evaluate``, ``compare``, ``slices``, ``gaps``, ``rank``).
TableT = TypeVar("TableT")
#: ``check()``'s table: an eager frame.
DecisionT = TypeVar("DecisionT")
#: A metric method's value: a float, or a Series or a frame per segment or system.
ValueT = TypeVar("ValueT")
