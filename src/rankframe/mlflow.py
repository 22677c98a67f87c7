"""rankframe results in MLflow: ``rankframe.mlflow.log(result)`` and ``load(run_id)``.

``import rankframe.mlflow`` (the ``rankframe[mlflow]`` extra); ``import rankframe`` does not
load it. ``log`` writes a result of ``evaluate``, ``compare``, ``check``, ``slices``,
``gaps``, ``sample_size`` or a ``Report`` to the active MLflow run (or ``run_id=``): each
value as a metric under the key scheme of docs/mlflow.md (:func:`metric_key`,
:func:`parse_key`), time windows as steps with their timestamps, the whole table with
``mlflow.log_table``, the exact frame as Parquet (what :func:`load` reads back), a report as
an HTML artifact, a check's verdict line and rankframe's version as tags.

The key scheme and the reading of a result's values are ``rankframe.tracking``'s, shared
with ``rankframe.wandb``; they are named here too. It sits beside the other outputs
(``report``, ``history``) and imports none of them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import tempfile
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from rankframe._version import __version__
from rankframe.exceptions import TrackingError
from rankframe.tracking import (
    STATUS_CODES,
    Key,
    check_key,
    check_prefix,
    escape,
    fingerprint_of,
    json_safe,
    kind_of,
    long_label,
    metric_key,
    parse_key,
    tables_of,
    tag_key,
    unescape,
    values_of,
    verdict,
)

__all__ = [
    "SOURCE_TAG",
    "STATUS_CODES",
    "Key",
    "Mirrored",
    "TrackingError",
    "check_key",
    "escape",
    "keys_of",
    "kind_of",
    "load",
    "log",
    "long_label",
    "metric_key",
    "mirror",
    "parse_key",
    "tag_key",
    "unescape",
    "values_of",
    "verdict",
]

_TAG = "rankframe."
_DONE = "complete"
#: MLflow's client retries an unreachable server for minutes; for a log, a few seconds.
_HTTP = {
    "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2",
    "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
    "MLFLOW_HTTP_REQUEST_BACKOFF_JITTER": "0",
    "MLFLOW_HTTP_REQUEST_TIMEOUT": "10",
    "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false",
}
_BATCH = 1000  # MLflow's most metrics per log_batch request


# -- MLflow -----------------------------------------------------------------------------


@contextlib.contextmanager
def _quick_http() -> Iterator[None]:
    """MLflow's HTTP retries cut to give up on an unreachable server in about half a
    minute, for this call only (a variable the user set is kept)."""
    saved = {name: os.environ.get(name) for name in _HTTP}
    for name, value in _HTTP.items():
        os.environ.setdefault(name, value)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


def _tracking_uri() -> str:
    import mlflow  # the extra: loaded when used

    return str(mlflow.get_tracking_uri())


def _failed(action: str, error: BaseException) -> TrackingError:
    uri = _tracking_uri()
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    msg = (
        f"Could not {action} on the MLflow tracking server {uri}: {first[:300]}. "
        "Nothing was logged as complete; check that the server runs and the run is active "
        "(MLFLOW_TRACKING_URI, mlflow.set_tracking_uri)."
    )
    return TrackingError(msg, tracking_uri=uri)


def _run_id(run_id: str | None) -> str:
    import mlflow

    if run_id is not None:
        return run_id
    active = mlflow.active_run()
    if active is None:
        uri = _tracking_uri()
        msg = (
            f"No active MLflow run (tracking URI {uri}): call rankframe.mlflow.log() inside "
            "`with mlflow.start_run():`, or pass run_id=."
        )
        raise TrackingError(msg, tracking_uri=uri)
    return str(active.info.run_id)


def log(result: Any, *, run_id: str | None = None, prefix: str = "") -> str:
    """Log a rankframe result to MLflow: the active run, or ``run_id``.

    Parameters
    ----------
    result
        A table of ``evaluate``, ``compare``, ``check``, ``slices``, ``gaps`` or
        ``sample_size`` (pandas or polars), or a ``Report`` (its summary, its comparison
        under ``comparison/``, its page as ``rankframe/report.html``).
    run_id
        The run to log to; by default the active run (``mlflow.start_run()``).
    prefix
        Put before every metric key, tag and artifact path (``"offline/"``): one table per
        prefix in a run.

    Returns
    -------
    str
        The run's id.

    Raises
    ------
    TrackingError
        No active run and no ``run_id``, an unreachable tracking server (after about half a
        minute), or a refused write (a deleted run): named with the tracking URI. The run is
        then not marked complete, and :func:`load` refuses it.
    InvalidOptionError
        A value whose key MLflow would refuse (too long a name), before anything is logged.
    """
    check_prefix(prefix)
    tables, page = tables_of(result)
    now = int(dt.datetime.now(dt.UTC).timestamp() * 1000)
    plans = [(prefix + sub, frame, kind) for sub, frame, kind, _ in tables]
    natives = [native for *_, native in tables]
    values = [v for p, frame, _ in plans for v in values_of(frame, p, now)]
    tags = {f"{prefix}{_TAG}version": __version__}
    for p, frame, kind in plans:
        tags[f"{p}{_TAG}kind"] = "report" if page is not None and p == prefix else kind_of(frame)
        tags[f"{p}{_TAG}frame"] = kind
        if kind_of(frame) == "check":
            tags[f"{p}{_TAG}verdict"] = verdict(frame)
    if page is not None:
        found = fingerprint_of(page)
        if found:
            tags[f"{prefix}{_TAG}fingerprint"] = found
    for tag in tags:
        check_key(tag)
    import mlflow
    from mlflow.entities import Metric, RunTag
    from mlflow.tracking import MlflowClient

    run = _run_id(run_id)
    with _quick_http():
        client = MlflowClient()
        try:
            started = [RunTag(f"{p}{_TAG}logged", "started") for p, _, _ in plans]
            client.log_batch(run, tags=started)
            # a key's steps together: the server updates a key's latest value once a batch
            # (MLflow's SQL store), not once a window (benchmarks/mlflow_log.py: 36,400
            # values of 52 windows in 9 s, where window after window took 32 s)
            ordered = sorted(values, key=lambda v: (v.key, v.step))
            metrics = [Metric(v.key, v.value, v.timestamp, v.step) for v in ordered]
            for start in range(0, len(metrics), _BATCH):
                client.log_batch(run, metrics=metrics[start : start + _BATCH])
            client.log_batch(run, tags=[RunTag(k, v) for k, v in tags.items()])
            with tempfile.TemporaryDirectory() as tmp:
                for (p, frame, kind), native in zip(plans, natives, strict=True):
                    folder = f"{p}rankframe"
                    with warnings.catch_warnings():  # pandas 3 warns in log_table
                        warnings.filterwarnings("ignore", message=".*'str' dtypes are included")
                        mlflow.log_table(json_safe(frame), f"{folder}/table.json", run_id=run)
                    path = Path(tmp) / folder.replace("/", "_")
                    path.mkdir()
                    _write_parquet(native, kind, path / "result.parquet")
                    client.log_artifact(run, str(path / "result.parquet"), folder)
            if page is not None:
                client.log_text(run, page, f"{prefix}rankframe/report.html")
            client.log_batch(run, tags=[RunTag(f"{p}{_TAG}logged", _DONE) for p, _, _ in plans])
        except TrackingError:
            raise
        except Exception as error:  # MLflow's and requests' errors, an unwritable root
            raise _failed("log the result", error) from error
    return run


def _write_parquet(frame: Any, kind: str, path: Path) -> None:
    if kind == "polars":
        frame.write_parquet(path)
    else:
        frame.to_parquet(path)


def load(run_id: str, *, prefix: str = "") -> Any:
    """The result :func:`log` logged to the run (under ``prefix``), as the frame it was:
    pandas or polars, the same columns, dtypes and values, bit for bit (a ``Report``: its
    summary; its comparison with ``prefix="comparison/"``).

    Raises
    ------
    TrackingError
        The server cannot be reached, or the run holds no complete rankframe log there.
    """
    from mlflow.tracking import MlflowClient

    with _quick_http():
        client = MlflowClient()
        try:
            run = client.get_run(run_id)
            if run.data.tags.get(f"{prefix}{_TAG}logged") != _DONE:
                uri = _tracking_uri()
                msg = (
                    f"The MLflow run {run_id} (tracking URI {uri}) holds no complete rankframe "
                    f"log under prefix={prefix!r}: it was never logged, or its log failed "
                    "half-way; log the result again."
                )
                raise TrackingError(msg, tracking_uri=uri)
            kind = run.data.tags.get(f"{prefix}{_TAG}frame", "pandas")
            with tempfile.TemporaryDirectory() as tmp:
                local = client.download_artifacts(run_id, f"{prefix}rankframe/result.parquet", tmp)
                if kind == "polars":
                    import polars as pl

                    return pl.read_parquet(local)
                return pd.read_parquet(local)
        except TrackingError:
            raise
        except Exception as error:
            raise _failed(f"read run {run_id}", error) from error


def keys_of(result: Any, prefix: str = "") -> Sequence[str]:
    """The metric keys :func:`log` would write for ``result`` (checked against MLflow's
    rules), in the table's order."""
    check_prefix(prefix)
    tables, _ = tables_of(result)
    return [v.key for sub, frame, *_ in tables for v in values_of(frame, prefix + sub, 0)]


# -- mirroring a store's runs ------------------------------------------------------------

#: The tag of a mirrored run that names the run of the store it mirrors.
SOURCE_TAG = "rankframe.history.run_id"


@dataclass(frozen=True)
class Mirrored:
    """A run of a history store to mirror: its id (the tag :data:`SOURCE_TAG`), name,
    time (milliseconds since the epoch), the MLflow tags to give it, and its table."""

    run_id: str
    name: str | None
    start: int
    tags: Mapping[str, str]
    table: pd.DataFrame


def mirror(runs: Sequence[Mirrored], *, experiment: str) -> dict[str, str]:
    """Each run as a run of the MLflow experiment ``experiment`` (created when missing),
    started at the run's time, named as it, tagged, its table logged with :func:`log`
    (ended ``FINISHED``); a run the experiment already holds complete (a run tagged with
    its id and ``rankframe.logged = complete``) is left as it is, one whose log failed
    half-way is deleted and logged again. Returns the MLflow run id of each run by its id.

    Raises
    ------
    TrackingError
        The server cannot be reached or refuses a write, or the experiment is deleted.
    """
    from mlflow.tracking import MlflowClient

    with _quick_http():
        client = MlflowClient()
        try:
            found = client.get_experiment_by_name(experiment)
            if found is not None and found.lifecycle_stage == "deleted":
                uri = _tracking_uri()
                msg = (
                    f"The MLflow experiment {experiment!r} (tracking URI {uri}) is deleted: "
                    "restore it (MlflowClient().restore_experiment) or name another."
                )
                raise TrackingError(msg, tracking_uri=uri)
            if found is None:
                experiment_id = client.create_experiment(experiment)
            else:
                experiment_id = found.experiment_id
            held = _mirrored(client, experiment_id)
            out = {}
            for run in runs:
                old = held.get(run.run_id)
                if old is not None and old.data.tags.get(f"{_TAG}logged") == _DONE:
                    out[run.run_id] = str(old.info.run_id)
                    continue
                if old is not None:  # a mirror whose log failed half-way
                    client.delete_run(old.info.run_id)
                tags = {tag_key(k): v for k, v in run.tags.items()} | {SOURCE_TAG: run.run_id}
                created = client.create_run(
                    experiment_id, start_time=run.start, tags=tags, run_name=run.name
                )
                run_id = str(created.info.run_id)
                log(run.table, run_id=run_id)
                client.set_terminated(run_id, "FINISHED", end_time=run.start)
                out[run.run_id] = run_id
        except TrackingError:
            raise
        except Exception as error:
            raise _failed(f"mirror runs into the experiment {experiment!r}", error) from error
    return out


def _mirrored(client: Any, experiment_id: str) -> dict[str, Any]:
    """The active runs of the experiment that mirror a store's run, by that run's id."""
    held: dict[str, Any] = {}
    token = None
    while True:
        page = client.search_runs([experiment_id], max_results=1000, page_token=token)
        for run in page:
            source = run.data.tags.get(SOURCE_TAG)
            if source is not None:
                held[source] = run
        token = page.token
        if not token:
            return held
