"""rankframe as an MLflow evaluator: ``mlflow.models.evaluate(..., model_type="ranker",
evaluators=["rankframe"], evaluator_config={"metrics": [...]})``.

MLflow finds the evaluator through the ``mlflow.model_evaluator`` entry point that
rankframe's ``pyproject.toml`` declares (``rankframe = rankframe.mlflow_evaluator:Evaluator``),
so it is there once rankframe is installed, and this module is imported by MLflow alone
(it loads ``mlflow``). The evaluator reads a long-format frame (one row per query and item,
the relevance labels as MLflow's ``targets``, the scores as its ``predictions`` or a model's
output), builds one ``Report`` of it, and logs with ``rankframe.mlflow.log``: the means and
intervals, the comparison with a baseline, the segments, the time windows, the gates (as
metrics and the verdict tag) and the report's page. See docs/mlflow.md.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from mlflow.data.evaluation_dataset import EvaluationDataset
from mlflow.models.evaluation import EvaluationResult, ModelEvaluator
from mlflow.models.evaluation.artifacts import TextEvaluationArtifact
from mlflow.tracking import MlflowClient

from rankframe import mlflow as rankframe_mlflow
from rankframe import tracking
from rankframe.adapters.results import eager_table
from rankframe.api.accessor import rank_eval
from rankframe.exceptions import InvalidOptionError, RankEvalWarning

__all__ = ["MODEL_TYPE", "OPTIONS", "Evaluator"]

#: The ``model_type`` the evaluator takes (MLflow has no ranking type of its own).
MODEL_TYPE = "ranker"

#: The keys of ``evaluator_config`` and what each means.
OPTIONS: Mapping[str, str] = {
    "metrics": "the metrics, as for evaluate() (required): 'ndcg@10' or a list",
    "query": "the query column (default 'query')",
    "item": "the item column (default 'item')",
    "relevant": "the relevance column when MLflow's targets= is not given (default 'relevant')",
    "score": "the name of the system the predictions are (default: predictions=, or 'prediction')",
    "baseline": "a column of the data holding a baseline system's scores, compared with",
    "by": "segment columns, as for evaluate(by=)",
    "time": "the time column of every= windows",
    "every": "time windows, as for evaluate(every=) (needs time)",
    "rules": "gates, as for check(): 'ndcg@10 >= 0.3' or a list",
    "min_queries": "the gates' least number of queries (default 20)",
    "mode": "the gates' mode, 'interval' (default) or 'point', as for check()",
    "confidence_level": "the intervals' level (default 0.95)",
    "n_resamples": "the intervals' bootstrap resamples (default 1000)",
    "seed": "the resamples' seed (default 0)",
    "prefix": "put before every key, tag and artifact path (default '')",
}
#: Keys MLflow itself reads from ``evaluator_config``.
_MLFLOW_KEYS = frozenset({"col_mapping"})
_REPORT_OPTIONS = (
    "rules",
    "min_queries",
    "mode",
    "confidence_level",
    "n_resamples",
    "seed",
    "every",
)


def _config(evaluator_config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The config, its keys checked: an unknown key is refused, naming the known ones."""
    config = dict(evaluator_config or {})
    unknown = sorted(set(config) - set(OPTIONS) - _MLFLOW_KEYS)
    if unknown:
        msg = (
            f"The rankframe evaluator does not know evaluator_config key(s) {unknown}: it "
            f"takes {', '.join(OPTIONS)} (docs/mlflow.md)."
        )
        raise InvalidOptionError(msg)
    if not config.get("metrics"):
        msg = (
            "The rankframe evaluator needs the metrics to compute: "
            "evaluator_config={'metrics': ['ndcg@10', 'mrr@10']}."
        )
        raise InvalidOptionError(msg)
    return config


def _scores(
    dataset: Any, model: Any, predictions: str | None, name: str, rows: int
) -> np.ndarray[Any, Any]:
    """The scores of each row: the data's predictions, or the model's output."""
    if model is None:
        if dataset.predictions_data is None:
            msg = (
                "The rankframe evaluator needs scores: pass a model, or the column of scores "
                "as mlflow.models.evaluate(..., predictions='score')."
            )
            raise InvalidOptionError(msg)
        output: Any = dataset.predictions_data
    else:
        output = model.predict(dataset.features_data)
    table = eager_table(output)  # a model may give a table (pandas or polars)
    if table is not None:
        columns = table[2]
        if predictions is None and columns.shape[1] != 1:
            msg = (
                f"The model gives {columns.shape[1]} columns ({list(columns.columns)}): name "
                "the one holding the scores, mlflow.models.evaluate(..., predictions='score')."
            )
            raise InvalidOptionError(msg)
        output = columns[predictions] if predictions is not None else columns.iloc[:, 0]
    values = np.asarray(output)
    if values.ndim != 1 or len(values) != rows:
        msg = (
            f"The scores of {name!r} have shape {values.shape}, not one number per row of the "
            f"data ({rows} rows): the model must give one score per (query, item) row."
        )
        raise InvalidOptionError(msg)
    return values


def _warn_if_cut(rows: int) -> None:
    """Warn when the data has exactly as many rows as MLflow keeps of a Spark DataFrame:
    ``mlflow.models.evaluate`` hands an evaluator the first rows of a larger one (cutting
    its last query's list), which the evaluator cannot tell from a frame of that size."""
    limit = int(EvaluationDataset.SPARK_DATAFRAME_LIMIT)
    if rows == limit:
        msg = (
            f"The data has {rows:,} rows, as many as mlflow.models.evaluate keeps of a Spark "
            f"DataFrame: if the data is a Spark DataFrame of more rows, these values are of "
            f"its first {limit:,} rows only (the last query's list may be cut). Evaluate the "
            "whole frame with rankframe (`import rankframe.spark`, then "
            "rankframe.mlflow.log(df.rank_eval.report(...))) or pass spark_df.toPandas()."
        )
        warnings.warn(msg, RankEvalWarning, stacklevel=3)


def long_frame(
    dataset: Any, model: Any, predictions: str | None, config: Mapping[str, Any]
) -> tuple[pd.DataFrame, str]:
    """The frame rankframe reads, rebuilt from MLflow's dataset (features, targets and
    predictions apart), and the name of the scores' column; or a clear refusal of data it
    cannot read."""
    features = eager_table(dataset.features_data)  # MLflow's: pandas, or a NumPy array
    if features is None:
        msg = (
            "The rankframe evaluator reads a long-format frame (a pandas DataFrame, one row "
            f"per query and item); got {type(dataset.features_data).__name__}: pass a "
            "DataFrame as data."
        )
        raise InvalidOptionError(msg)
    frame = features[2].copy()  # a copy of MLflow's features, never the user's frame
    _warn_if_cut(len(frame))
    relevant = dataset.targets_name if dataset.has_targets else config.get("relevant", "relevant")
    if dataset.has_targets:
        frame[relevant] = np.asarray(dataset.labels_data)
    needed = {"query": config.get("query", "query"), "item": config.get("item", "item")}
    needed["relevant"] = relevant
    if config.get("baseline") is not None:
        needed["baseline"] = config["baseline"]
    missing = {role: column for role, column in needed.items() if column not in frame.columns}
    if missing:
        roles = ", ".join(f"{role} {column!r}" for role, column in missing.items())
        msg = (
            f"The rankframe evaluator reads a long-format frame, one row per query and item; "
            f"the data has no column for {roles} (its columns: {list(map(str, frame.columns))}). "
            "Name the columns with evaluator_config={'query': ..., 'item': ...}, the relevance "
            "labels with mlflow.models.evaluate(..., targets='relevant')."
        )
        raise InvalidOptionError(msg)
    name = str(config.get("score") or dataset.predictions_name or predictions or "prediction")
    if name in frame.columns:
        msg = (
            f"The scores would be named {name!r}, a column the data already has: name "
            "them otherwise with evaluator_config={'score': 'model'}."
        )
        raise InvalidOptionError(msg)
    frame[name] = _scores(dataset, model, predictions, name, len(frame))
    return frame, name


def _tables(report: Any) -> list[tuple[str, Any]]:
    """What the evaluator logs besides the report: (prefix, table) of its segments, their
    comparison, the time windows and the gates."""
    data = report.data
    named = [
        ("segments/", data.segments),
        ("segment_comparison/", data.segment_comparison),
        ("windows/", data.trend),
        ("gates/", data.gates),
    ]
    return [(prefix, table) for prefix, table in named if table is not None]


def _last_values(tables: Sequence[tuple[str, Any]]) -> dict[str, float]:
    """Each logged key's value, its last window's for a table of windows."""
    out: dict[str, tuple[int, float]] = {}
    for prefix, table in tables:
        for value in tracking.values_of(table, prefix, 0):
            if value.key not in out or value.step >= out[value.key][0]:
                out[value.key] = (value.step, value.value)
    return {key: number for key, (_, number) in out.items()}


class Evaluator(ModelEvaluator):
    """rankframe's ``ModelEvaluator``: ``model_type="ranker"``, the options of
    :data:`OPTIONS` as ``evaluator_config``."""

    @classmethod
    def can_evaluate(cls, *, model_type: Any, evaluator_config: Any, **kwargs: Any) -> bool:
        """Only rankings: ``model_type="ranker"`` (any other type is MLflow's own)."""
        del evaluator_config, kwargs  # the config is checked by evaluate, with its message
        return bool(model_type == MODEL_TYPE)

    def evaluate(
        self,
        *,
        model_type: Any,
        dataset: Any,
        run_id: str,
        evaluator_config: Mapping[str, Any] | None,
        model: Any = None,
        extra_metrics: Any = None,
        custom_artifacts: Any = None,
        predictions: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """Compute the report of the data and log it to the run (``rankframe.mlflow.log``):
        returns MLflow's ``EvaluationResult`` with every logged key's value and the report's
        page."""
        del model_type, kwargs
        if extra_metrics or custom_artifacts:
            msg = (
                "The rankframe evaluator computes rankframe's metrics only: pass "
                "extra_metrics= and custom_artifacts= to MLflow's own evaluators."
            )
            raise InvalidOptionError(msg)
        config = _config(evaluator_config)
        frame, score = long_frame(dataset, model, predictions, config)
        baseline = config.get("baseline")
        # one system: no `system` column, so the keys of runs of other models are the same
        scores: str | list[str] = score if baseline is None else [score, baseline]
        ev = rank_eval(frame)(
            query=config.get("query", "query"),
            item=config.get("item", "item"),
            score=scores,
            relevant=dataset.targets_name if dataset.has_targets else config.get("relevant"),
            time=config.get("time"),
        )
        options = {k: config[k] for k in _REPORT_OPTIONS if k in config}
        report = ev.report(
            config["metrics"],
            by=config.get("by"),
            baseline=baseline,
            fingerprint=True,
            title=f"rankframe: {score}",
            **options,
        )
        prefix = str(config.get("prefix", ""))
        rankframe_mlflow.log(report, run_id=run_id, prefix=prefix)
        tables = [(prefix + sub, table) for sub, table in _tables(report)]
        for sub, table in tables:
            rankframe_mlflow.log(table, run_id=run_id, prefix=sub)
        summary = [(prefix, report.summary)]
        if report.comparison is not None:
            summary.append((f"{prefix}comparison/", report.comparison))
        root = MlflowClient().get_run(run_id).info.artifact_uri
        uri = f"{root}/{prefix}rankframe/report.html"
        page = TextEvaluationArtifact(uri=uri, content=report.html())  # type: ignore[no-untyped-call]
        metrics = _last_values([*summary, *tables])
        artifacts = {f"{prefix}rankframe_report": page}
        return EvaluationResult(metrics, artifacts, run_id)  # type: ignore[no-untyped-call]
