"""PySpark DataFrames: ``import rankframe.spark`` registers ``rank_eval`` on them.

::

    import rankframe.spark
    sdf.rank_eval.evaluate(["mrr@10", "ndcg@10"], by="theme")      # a pandas frame
    sdf.rank_eval(query="user_id", score="pred").per_query("map")  # a Spark DataFrame
    rankframe.spark.rank_eval(sdf, partitioned=True).mrr()         # laid out by query already

``rankframe.spark.rank_eval(sdf)`` gives the same accessor without the registration. Needs
pyspark (``pip install 'rankframe[spark]'``, Spark >= 4.0); see ``docs/scaling.md``.
"""

from __future__ import annotations

from typing import Any

from rankframe.adapters import spark as _adapter
from rankframe.api.accessor import RankEval

__all__ = ["rank_eval", "register"]


def rank_eval(frame: Any, *, partitioned: bool = False) -> RankEval[Any, Any, Any]:
    """The ``rank_eval`` accessor of a Spark DataFrame, without registering it.

    ``partitioned=True``: every query's rows (nearly always) lie in one partition of
    ``frame`` (rows written query by query, bucketed by query, or
    ``frame.repartition("query")``): no shuffle. Queries found in two partitions are
    computed again from all their rows, so the values are right whatever the layout.
    """
    return RankEval(_adapter.SparkAdapter(frame, partitioned=partitioned))


def register() -> None:
    """Register ``rank_eval`` on ``pyspark.sql.DataFrame`` (and Spark Connect's); done when
    this module is imported."""
    _adapter.register(RankEval)


register()
