"""A stored run as one table, a row per result row and metric: what ``History.to_mlflow``
logs (``rankframe.mlflow.log`` reads a table's keys before its ``metric`` column)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from rankframe.exceptions import InvalidOptionError

__all__ = ["run_table"]

_FIXED = ("rule", "window", "system", "metric", "statistic", "status")


def _segment(text: Any) -> dict[str, Any]:
    return json.loads(text) if isinstance(text, str) else {}


def run_table(long: pd.DataFrame) -> pd.DataFrame:
    """One run's stored rows (``History.load(long=True, kind=None)``'s, pandas) as a table:
    ``rule`` (gates), ``window`` (the window's start, of windowed runs), each segment key
    (read from ``segment_json``, in order of appearance), ``system``, ``metric``,
    ``statistic`` (comparisons), ``status`` (gates), then each stored value name in its
    first row's order (a number, or the text of a text value such as a gap's
    ``worst_group``); a column no row holds is left out. The rows keep the stored order."""
    present = {
        "rule": long["rule"].notna().any(),
        "window": long["window_start"].notna().any(),
        "system": long["system"].notna().any(),
        "metric": True,
        "statistic": long["statistic"].notna().any(),
        "status": long["status"].notna().any(),
    }
    segments = [_segment(text) for text in long["segment_json"]]
    keys = list(dict.fromkeys(k for segment in segments for k in segment))
    names = list(dict.fromkeys(long["value_name"]))
    clash = sorted((set(keys) & {*_FIXED, *names}) | (set(names) & set(_FIXED)))
    if clash:
        msg = (
            f"The stored run {long['run_id'].iloc[0]!r} has segment keys or values named "
            f"{clash}, as the columns of its table: it cannot be mirrored as one table."
        )
        raise InvalidOptionError(msg)
    texts = set(long.loc[long["value_text"].notna(), "value_name"])
    long = long.assign(window=long["window_start"])
    rows = []
    for _, part in long.groupby(["result_row", "metric"], sort=False, dropna=False):
        first = part.iloc[0]
        row: dict[str, Any] = {}
        for column in ("rule", "window"):
            if present[column]:
                row[column] = first[column]
        segment = _segment(first["segment_json"])
        row |= {key: segment.get(key) for key in keys}
        row |= {c: first[c] for c in ("system", "metric", "statistic", "status") if present[c]}
        for name, value, text in zip(
            part["value_name"], part["value"], part["value_text"], strict=True
        ):
            row[name] = text if name in texts else value
        rows.append(row)
    order = [c for c in ("rule", "window") if present[c]] + keys
    order += [c for c in ("system", "metric", "statistic", "status") if present[c]] + names
    return pd.DataFrame(rows, columns=order)
