"""``rankframe.History``: the history store (``rankframe.history``) with its dashboard.

The store's tables live in ``rankframe.history``; the dashboard page is drawn with the
report's charts (``rankframe.report.dashboard``). The two are outputs of one layer, which
never import each other, so the class that offers both lives here, above them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from rankframe import mlflow as rankframe_mlflow  # MLflow itself is loaded when used
from rankframe.adapters.results import as_pandas
from rankframe.exceptions import InvalidOptionError
from rankframe.history import History as Store
from rankframe.history import export
from rankframe.report import dashboard

__all__ = ["History"]


class History(Store):
    __doc__ = Store.__doc__

    def dashboard(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        run: str | None = None,
        tags: Mapping[str, str] | None = None,
        since: datetime | date | str | None = None,
        until: datetime | date | str | None = None,
        title: str | None = None,
        last: int = 100,
    ) -> str:
        """One self-contained HTML page of the store's runs: the verdict in words (each
        value of an evaluation, a metric of a segment, system and window, against the latest
        earlier run of its name that holds it, naming the pairs of runs compared and every
        value that moved beyond its interval; the latest gates), the latest run's values, a
        trend per metric and segment with its interval (a line per system; runs over their
        time, windowed runs over their windows' start, apart; each point's value in its
        tooltip and in a folded table), the latest slices, gaps and sample sizes recorded,
        the gates' latest statuses and their history, and the runs (name, time, tags,
        version, input fingerprint). No script, no request; every user string escaped. See
        ``docs/monitoring.md``.

        Parameters
        ----------
        path
            Where to write the page (UTF-8); ``None`` writes nothing.
        run, tags, since, until
            Only the runs of this name, with these tags, in this time range (as ``runs``).
        title
            The page's title (default: the store's file or database name).
        last
            Charts and tables show the latest ``last`` runs (the verdict reads them all).

        Returns
        -------
        str
            The page.
        """
        if isinstance(last, bool) or not isinstance(last, int) or last < 1:
            raise InvalidOptionError(f"last= takes a positive number of runs; got {last!r}.")
        filters: dict[str, Any] = {"run": run, "tags": tags, "since": since, "until": until}
        runs = _pandas(self.runs(**filters))
        # the values of the runs the page shows: the latest `last`, and the latest gate run
        # (and all between); then, for the verdict, earlier evaluations while a series of
        # the latest values has no earlier run read yet
        first = _first_shown(runs, last)
        values = _pandas(self.load(kind=None, **{**filters, "since": first}))
        if first is not None and _unpaired(values) and bool((runs["recorded_at"] < first).any()):
            older = _pandas(self.load(kind="evaluation", **{**filters, "until": first}))
            values = pd.concat([older, values], ignore_index=True) if len(older) else values
        said = [f"{k}={v!r}" for k, v in filters.items() if v is not None]
        page = dashboard.render(
            runs,
            values,
            title=title or f"rankframe dashboard: {Path(self.store).name}",
            selection=f" ({', '.join(said)})" if said else "",
            last=last,
        )
        if path is not None:
            Path(os.fspath(path)).write_text(page, encoding="utf-8")
        return page

    def to_mlflow(
        self,
        *,
        experiment: str,
        run: str | None = None,
        tags: Mapping[str, str] | None = None,
        since: datetime | date | str | None = None,
        until: datetime | date | str | None = None,
    ) -> dict[str, str]:
        """Mirror the store's runs into the MLflow experiment ``experiment`` (created when
        missing; the tracking URI is MLflow's, ``mlflow.set_tracking_uri``): one MLflow run
        per stored run, named as it, started and ended at its ``recorded_at``, with its tags
        and the tags ``rankframe.history.run_id``, ``rankframe.history.kind``,
        ``rankframe.history.store`` and ``rankframe.fingerprint`` (the input's), and its
        values logged by ``rankframe.mlflow.log`` (a table per run: ``history.export``).
        Idempotent: a stored run the experiment already holds (its run tagged with the
        run's id) is not logged again, so a second call adds nothing and a later one adds
        the runs recorded since. Filters as ``runs``. Needs ``rankframe[mlflow]``; see
        docs/mlflow.md.

        Returns
        -------
        dict
            The MLflow run id of each stored run, by the stored run's id, oldest first.
        """
        filters: dict[str, Any] = {"run": run, "tags": tags, "since": since, "until": until}
        runs = _pandas(self.runs(**filters))
        values = _pandas(self.load(long=True, kind=None, **filters))
        by_run = dict(iter(values.groupby("run_id", sort=False)))
        mirrored = []
        for row in runs.to_dict("records"):
            labels = {
                **json.loads(row["tags"]),
                "rankframe.history.kind": str(row["kind"]),
                "rankframe.history.store": self.store,
            }
            if isinstance(row["input_hash"], str):
                labels["rankframe.fingerprint"] = row["input_hash"]
            table = export.run_table(by_run[row["run_id"]]) if row["run_id"] in by_run else None
            mirrored.append(
                rankframe_mlflow.Mirrored(
                    run_id=str(row["run_id"]),
                    name=None if pd.isna(row["run_name"]) else str(row["run_name"]),
                    start=int(pd.Timestamp(row["recorded_at"]).value // 1_000_000),
                    tags=labels,
                    table=pd.DataFrame() if table is None else table,
                )
            )
        return rankframe_mlflow.mirror(mirrored, experiment=experiment)


def _first_shown(runs: pd.DataFrame, last: int) -> Any:
    """The time of the earliest run whose values the page reads (``None``: no run)."""
    if runs.empty:
        return None
    needed = [len(runs) - min(last, len(runs))]
    gates = runs.index[runs["kind"] == "gate"]
    if len(gates):
        needed.append(gates[-1])
    return runs.loc[min(needed), "recorded_at"]


def _unpaired(values: pd.DataFrame) -> bool:
    """Whether a series (run name, metric, segment, system, window) of evaluations has one
    run only among ``values``: its earlier run, if any, is older."""
    rows = values[values["kind"] == "evaluation"]
    if rows.empty:
        return False
    keys = ["run_name", "metric", "segment", "system", "window_start"]
    table = rows[[*keys, "run_id"]].astype(object).fillna("").astype(str)
    counts = table.drop_duplicates().groupby(keys, dropna=False).size()
    return bool((counts < 2).any())


def _pandas(table: Any) -> pd.DataFrame:
    """A frame the store read (pandas or polars, as the store was opened) as pandas."""
    frame = as_pandas(table)
    assert frame is not None  # the store's own frames
    return frame
