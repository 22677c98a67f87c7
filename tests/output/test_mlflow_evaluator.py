"""rankframe's MLflow evaluator, found by MLflow through its ``mlflow.model_evaluator`` entry
point and run by ``mlflow.models.evaluate`` against a file store: what it logs equals what
the public API computes from the same frame, read back through ``MlflowClient``; the data it
cannot read is declined with a message naming what is missing and the fix.

The inputs are pandas frames: ``mlflow.models.evaluate`` takes pandas (or Spark, numpy, its
own datasets) and hands the evaluator pandas, whatever the frame kind rankframe reads."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path
from typing import Any

import mlflow
import numpy as np
import pandas as pd
import pytest
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

import rankframe.mlflow as rm
from rankframe.exceptions import InvalidOptionError, RankEvalWarning

pytestmark = pytest.mark.usefixtures("file_store")

METRICS = ["mrr@3", "ndcg@3"]
RULES = ["mrr@3 >= 0.9", "mrr@3 drop <= 1%"]
CONFIG: dict[str, Any] = {
    "metrics": METRICS,
    "baseline": "bm25",
    "by": "theme",
    "rules": RULES,
    "time": "t",
    "every": "1w",
    "n_resamples": 20,
    "min_queries": 2,
}


def _frame(n: int = 24) -> pd.DataFrame:
    """n queries of four items: two systems' scores, two themes, a day each (four weeks)."""
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "query": np.repeat([f"q{i}" for i in range(n)], 4),
            "item": np.tile(["a", "b", "c", "d"], n),
            "model": rng.random(4 * n),
            "bm25": rng.random(4 * n),
            "relevant": (rng.random(4 * n) < 0.4).astype(float),
            "theme": np.repeat(np.where(np.arange(n) % 2, "news", "sport"), 4),
            "t": np.repeat(pd.date_range("2024-01-01", periods=n, freq="D"), 4),
        }
    )


def _evaluate(*args: Any, config: dict[str, Any], **kwargs: Any) -> Any:
    with mlflow.start_run():
        return mlflow.models.evaluate(
            *args,
            model_type="ranker",
            evaluators=["rankframe"],
            evaluator_config={"rankframe": config},
            **kwargs,
        )


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_mlflow_finds_the_evaluator_by_its_entry_point() -> None:
    assert "rankframe" in mlflow.models.list_evaluators(), (
        "MLflow reads rankframe's `mlflow.model_evaluator` entry point from the installed "
        "package's metadata: reinstall it (`pip install -e .`; make test does when "
        "pyproject.toml changed)"
    )


def test_predictions_in_the_data_log_what_the_api_computes() -> None:
    frame = _frame()
    before = frame.copy()
    result = _evaluate(data=frame, config=CONFIG, predictions="model", targets="relevant")
    pd.testing.assert_frame_equal(frame, before)  # the user's frame is never modified
    expected = frame.rank_eval(score=["model", "bm25"], time="t").report(
        METRICS,
        by="theme",
        baseline="bm25",
        rules=RULES,
        every="1w",
        n_resamples=20,
        min_queries=2,
        fingerprint=True,
        title="rankframe: model",
    )
    data = expected.data
    tables = {
        "": data.summary,
        "comparison/": data.comparison,
        "segments/": data.segments,
        "segment_comparison/": data.segment_comparison,
        "windows/": data.trend,
        "gates/": data.gates,
    }
    run_id = result.run_id
    client = MlflowClient()
    run = client.get_run(run_id)
    keys = set()
    for prefix, table in tables.items():
        assert table is not None, prefix
        pd.testing.assert_frame_equal(rm.load(run_id, prefix=prefix), table, check_exact=True)
        keys |= set(rm.keys_of(table, prefix))
    assert set(run.data.metrics) == keys
    assert set(result.metrics) == keys  # the EvaluationResult: each key's last value
    assert all(_same(result.metrics[k], v) for k, v in run.data.metrics.items())
    weeks = client.get_metric_history(run_id, "windows/mrr-a3/value/system:model")
    assert [m.step for m in weeks] == list(range(data.trend["window"].nunique()))
    assert (data.gates["status"] == "fail").any()  # data built to name failing gates
    verdict = run.data.tags["gates/rankframe.verdict"]
    assert verdict == rm.verdict(data.gates)
    failed = int((data.gates["status"] == "fail").sum())
    assert verdict.startswith(f"{failed} of {len(data.gates)} rules failed: mrr@3 >= 0.9 (theme=")
    page = Path(client.download_artifacts(run_id, "rankframe/report.html")).read_text()
    made = re.compile(r"<time [^>]*>[^<]*</time>")  # when each page was made
    assert made.sub("", page) == made.sub("", expected.html())
    assert result.artifacts["rankframe_report"].content == page
    assert run.data.tags["rankframe.fingerprint"] in page


def _model(inputs: pd.DataFrame) -> pd.DataFrame:
    """A model that scores each (query, item) row: two columns out."""
    return pd.DataFrame({"score": inputs["bm25"] * 0.5 + 0.25, "other": 0.0})


def test_a_models_scores_are_evaluated() -> None:
    frame = _frame().drop(columns="model")
    config = {"metrics": ["mrr@3"], "n_resamples": 20, "prefix": "offline/"}
    result = _evaluate(_model, frame, config=config, targets="relevant", predictions="score")
    scored = frame.assign(score=_model(frame)["score"])
    expected = scored.rank_eval(score="score").report(["mrr@3"], n_resamples=20)
    assert "system" not in expected.summary.columns  # one model: keys without a system
    back = rm.load(result.run_id, prefix="offline/")
    pd.testing.assert_frame_equal(back, expected.summary, check_exact=True)
    assert "offline/mrr-a3/value" in result.metrics
    assert "offline/rankframe_report" in result.artifacts


def _no_scores(frame: pd.DataFrame) -> dict[str, Any]:
    return {"data": frame.drop(columns="model"), "targets": "relevant"}


# (what evaluate() gets, evaluator_config, the message)
DECLINED = [
    pytest.param(
        lambda f: {"data": f.drop(columns="query"), "predictions": "model", "targets": "relevant"},
        {"metrics": "mrr"},
        r"the data has no column for query 'query' \(its columns: \['item', ",
        id="no query column",
    ),
    pytest.param(
        lambda f: {"data": f.to_numpy()[:, 2:4].astype(float), "targets": np.zeros(len(f))},
        {"metrics": "mrr"},
        r"reads a long-format frame \(a pandas DataFrame, one row per query and item\); got "
        "ndarray: pass a DataFrame as data",
        id="a numpy array",
    ),
    pytest.param(
        _no_scores,
        {"metrics": "mrr"},
        "needs scores: pass a model, or the column of scores",
        id="no scores",
    ),
    pytest.param(
        lambda f: {"data": f, "predictions": "model", "targets": "relevant"},
        {},
        r"needs the metrics to compute: evaluator_config=\{'metrics'",
        id="no metrics",
    ),
    pytest.param(
        lambda f: {"data": f, "predictions": "model", "targets": "relevant"},
        {"metrics": "mrr", "metric_prefix": "x/"},
        r"does not know evaluator_config key\(s\) \['metric_prefix'\]: it takes metrics, ",
        id="unknown key",
    ),
    pytest.param(
        lambda f: {"data": f, "predictions": "model", "targets": "relevant"},
        {"metrics": "mrr", "score": "bm25"},
        "would be named 'bm25', a column the data already has",
        id="scores named as a column",
    ),
    pytest.param(
        lambda f: {"model": _model, **_no_scores(f)},
        {"metrics": "mrr"},
        r"The model gives 2 columns \(\['score', 'other'\]\): name the one holding the scores",
        id="two columns out",
    ),
]


@pytest.mark.parametrize(("call", "config", "message"), DECLINED)
def test_data_it_cannot_read_is_declined(call: Any, config: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        _evaluate(**call(_frame(4)), config=config)
    runs = mlflow.search_runs(output_format="list")
    assert all("rankframe.logged" not in run.data.tags for run in runs)  # nothing logged


def test_other_model_types_are_mlflows() -> None:
    frame = _frame(4)
    with mlflow.start_run(), pytest.raises(MlflowException, match="could not be evaluated"):
        mlflow.models.evaluate(
            data=frame,
            model_type="retriever",
            evaluators=["rankframe"],
            predictions="model",
            targets="relevant",
            evaluator_config={"rankframe": {"metrics": "mrr"}},
        )


@pytest.mark.parametrize("queries", [2500, 2499])
def test_data_of_exactly_mlflows_spark_limit_warns(queries: int) -> None:
    """MLflow hands an evaluator the first 10,000 rows of a Spark DataFrame: data of exactly
    that many rows (2,500 queries of four) is warned about, one query fewer is not."""
    frame = _frame(queries)
    config = {"metrics": ["mrr@3"]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _evaluate(data=frame, config=config, predictions="model", targets="relevant")
    ours = [w for w in caught if issubclass(w.category, RankEvalWarning)]
    if queries * 4 == 10_000:
        assert len(ours) == 1, [str(w.message) for w in caught]
        text = str(ours[0].message)
        assert text.startswith("The data has 10,000 rows, as many as mlflow.models.evaluate")
        assert "import rankframe.spark" in text
        assert "spark_df.toPandas()" in text
    else:
        assert ours == []
