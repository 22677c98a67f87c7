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

from rankframe.adapters.spark import SparkRankEval, rank_eval, register

__all__ = ["SparkRankEval", "rank_eval", "register"]

register()
