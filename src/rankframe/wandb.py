"""rankframe results in Weights & Biases: ``rankframe.wandb.log(result)``.

``import rankframe.wandb`` (the ``rankframe[wandb]`` extra); ``import rankframe`` does not
load it, nor ``wandb``. ``log`` writes a result of ``evaluate``, ``compare``, ``check``,
``slices``, ``gaps``, ``sample_size`` or a ``Report`` to the active W&B run (or ``run=``),
under the key scheme ``rankframe.mlflow`` uses (``rankframe.tracking``): each value in the
run's history and summary, time windows as rows of their own against the axis
``{prefix}window`` (``run.define_metric``), the whole table as a ``wandb.Table``, a report's
page as ``wandb.Html``, and the result's kind, a check's verdict line, rankframe's version
and the input's fingerprint in the run's summary. See docs/mlflow.md.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from rankframe._version import __version__
from rankframe.exceptions import InvalidOptionError
from rankframe.tracking import (
    check_prefix,
    fingerprint_of,
    json_safe,
    kind_of,
    tables_of,
    values_of,
    verdict,
)

__all__ = ["log"]

_TAG = "rankframe."


def _active(run: Any) -> Any:
    import wandb  # the extra: loaded when used

    target = run if run is not None else wandb.run
    if target is None:
        msg = (
            "No active W&B run: call rankframe.wandb.log() after wandb.init() (or inside "
            "`with wandb.init():`), or pass run=."
        )
        raise InvalidOptionError(msg)
    return target


def _cells(frame: Any) -> Any:
    """The table as ``wandb.Table`` takes it: dates as text, every missing value (NaN, a
    nullable integer's NA) as ``None``, so a column keeps one type."""
    out = json_safe(frame).astype(object)
    return out.where(out.notna(), None)


def log(result: Any, *, run: Any = None, prefix: str = "") -> Any:
    """Log a rankframe result to Weights & Biases: the active run, or ``run``.

    Parameters
    ----------
    result
        A table of ``evaluate``, ``compare``, ``check``, ``slices``, ``gaps`` or
        ``sample_size`` (pandas or polars), or a ``Report`` (its summary, its comparison
        under ``comparison/``, its page as ``rankframe/report``).
    run
        The ``wandb`` run to log to; by default the active one (``wandb.run``).
    prefix
        Put before every key (``"offline/"``): one table per prefix in a run.

    Returns
    -------
    wandb.Run
        The run.

    Raises
    ------
    InvalidOptionError
        No active run and no ``run``; a value whose key the scheme refuses (too long a
        name) or two values with one key, before anything is logged.
    """
    check_prefix(prefix)
    tables, page = tables_of(result)
    now = int(dt.datetime.now(dt.UTC).timestamp() * 1000)
    plans = [(prefix + sub, frame, kind) for sub, frame, kind, _ in tables]
    values = [values_of(frame, p, now) for p, frame, _ in plans]  # every key checked first
    target = _active(run)
    import wandb

    summary: dict[str, Any] = {f"{prefix}{_TAG}version": __version__}
    for (p, frame, kind), found in zip(plans, values, strict=True):
        if "window" in frame.columns:
            axis = f"{p}window"
            target.define_metric(axis, hidden=True)
            for key in dict.fromkeys(v.key for v in found):
                target.define_metric(key, step_metric=axis)
            for step in sorted({v.step for v in found}):
                row = {v.key: v.value for v in found if v.step == step}
                start = next(v.timestamp for v in found if v.step == step)
                target.log({axis: step, f"{p}window_start": start / 1000, **row})
        elif found:
            target.log({v.key: v.value for v in found})
        target.log({f"{p}rankframe/table": wandb.Table(dataframe=_cells(frame))})
        summary[f"{p}{_TAG}kind"] = "report" if page is not None and p == prefix else kind_of(frame)
        summary[f"{p}{_TAG}frame"] = kind
        if kind_of(frame) == "check":
            summary[f"{p}{_TAG}verdict"] = verdict(frame)
    if page is not None:
        # inject=False: the page as it is (W&B would add a stylesheet from its site)
        target.log({f"{prefix}rankframe/report": wandb.Html(page, inject=False)})
        fingerprint = fingerprint_of(page)
        if fingerprint:
            summary[f"{prefix}{_TAG}fingerprint"] = fingerprint
    target.summary.update(summary)
    return target
