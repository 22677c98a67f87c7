"""A result as the rows of a history store, read from its columns.

Any result table (``evaluate`` wide or tidy, ``per_query``, ``compare``, a table with a
``status`` column, windows) becomes long rows: one per (result row, value). Its columns are
read by what they hold, not by which method made them:

- **typed keys**, by name: ``window`` (stored as ``window_start``, UTC), ``system``,
  ``metric``, ``k``, ``statistic``, ``status``, a gate's ``rule`` (never a segment key);
- **metric columns** of a wide table: a number column whose name is a metric's label
  (``ndcg@10``, ``f1@5(beta=2)``), or a label and a suffix (``ndcg@10_ci_low``: value
  ``ci_low``);
- **segment keys**: the result's ``by`` columns and ``per_query``'s query column (known from
  the request that made it), the columns given by ``keys=``, and every other column that is
  not a number (strings, categories, dates): stored as ``segment`` (``"theme=news"``) and
  ``segment_json`` (``{"theme": "news"}``);
- **values**: every other number or boolean column (``value``, ``n_queries``, ``delta``,
  ``p_value``, ``significant`` as 0/1).

A wide table gives one row per (result row, metric, value name); its values that belong to
no metric (``n_queries``) are repeated for each metric of the row. A tidy table (a
``metric`` column) gives one row per (result row, value column), labelled ``metric@k``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rankframe.adapters import results
from rankframe.adapters.fingerprint import fingerprint
from rankframe.exceptions import RankEvalError
from rankframe.history.schema import VALUE_COLUMNS
from rankframe.metrics.registry import parse_metric
from rankframe.settings.statistics import Intervals, Tests

if TYPE_CHECKING:
    from rankframe.pipeline.steps import Request

__all__ = [
    "as_pandas",
    "fingerprint",
    "key_text",
    "kind_of",
    "long_values",
    "options_json",
    "segment_keys",
]

#: Key columns with a column of their own in ``rankframe_values`` (result name → store name).
TYPED_KEYS = {
    "window": "window_start",
    "system": "system",
    "metric": "metric",
    "k": "k",
    "statistic": "statistic",
    "status": "status",
    "rule": "rule",
}

#: What a run's rows are (``rankframe_runs.kind``), by the result that made them.
KIND_OF_RESULT = {
    "Means": "evaluation",
    "PerQueryRows": "per_query",
    "Comparison": "comparison",
    "ReferenceComparison": "comparison",
    "PreviousWindow": "comparison",
    "Check": "gate",
    "Slices": "slices",
    "Gaps": "gaps",
}

#: The calls that make the results ``record()`` refuses, in a user's words (by result type).
REFUSED_CALLS = {
    "JudgedMeans": "evaluate(estimate=...)",
    "JudgedComparison": "compare(estimate=...)",
}

#: What ``record()`` takes, in words (its error for a rankframe result of another kind).
RECORDED = (
    "evaluate() (wide or tidy) and a metric method's value per segment, per_query(), "
    "compare(), check(), slices(), gaps() and sample_size()"
)

#: The columns that tell a table's kind when no rankframe method is known to have made it.
KIND_COLUMNS = {
    "sample_size": {"n_needed", "effect_size"},
    "slices": {"slice", "depth", "n_tested"},
    "gaps": {"gap", "worst_group", "best_group"},
}

#: Text columns that are values of a kind, not segment keys (``rankframe_values.value_text``).
TEXT_VALUES = {"gaps": ("worst_group", "best_group"), "sample_size": ("test",)}

#: A slices() table's column naming each slice (its keys are the other text columns).
SLICE = "slice"


def kind_of(
    result: str | None, *, gate: bool, comparison: bool, columns: Sequence[str] = ()
) -> str:
    """A run's kind: by the result that made it, else by what its table holds (a sample
    size's, slices' or gaps' columns; a gate's ``status`` or ``rule``; a comparison's
    ``statistic``); an evaluation otherwise."""
    if result in KIND_OF_RESULT:
        return KIND_OF_RESULT[result]
    found = set(columns)
    for kind, marks in KIND_COLUMNS.items():
        if marks <= found:
            return kind
    if gate:
        return "gate"
    return "comparison" if comparison else "evaluation"


def key_text(value: object) -> str | None:
    """A segment key's value as ``rankframe_segments`` holds it (as in ``segment``)."""
    return None if value is None else str(value)


def segment_keys(values: pd.DataFrame) -> pd.DataFrame:
    """The ``rankframe_segments`` rows (without ``run_id``) of a run's value rows."""
    pairs = values.loc[values["segment_json"].notna(), ["result_row", "segment_json"]]
    pairs = pairs.drop_duplicates("result_row")
    found = [
        (int(r), k, key_text(v))
        for r, text in zip(pairs["result_row"], pairs["segment_json"], strict=True)
        for k, v in json.loads(text).items()
    ]
    return pd.DataFrame(found, columns=["result_row", "key", "value"]).astype(
        {"result_row": "int64", "key": object, "value": object}
    )


def as_pandas(result: Any) -> pd.DataFrame:
    """A result of any frame kind as an eager pandas frame
    (:func:`rankframe.adapters.results.as_pandas`; an index becomes columns)."""
    frame = results.as_pandas(result)
    if frame is not None:
        return frame.reset_index() if any(n is not None for n in frame.index.names) else frame
    msg = (
        "History.record() takes a result table: what evaluate(), per_query() or compare() "
        "return (pandas, polars, LazyFrame, Dask or Spark), or a metric method's value per "
        "segment. "
        f"Got {type(result).__module__}.{type(result).__qualname__}; for one number, record "
        "evaluate([...]) instead."
    )
    raise TypeError(msg)


# -- the columns of a result -----------------------------------------------------------------


def _is_number(column: pd.Series) -> bool:
    return bool(
        pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype)
    )


def _is_time(column: pd.Series) -> bool:
    if pd.api.types.is_datetime64_any_dtype(column.dtype):
        return True
    first = next((v for v in column if v is not None and v == v), None)
    return isinstance(first, date)


@functools.lru_cache(maxsize=4096)
def _label(name: str) -> str | None:
    """``name`` if it is a metric's label as rankframe writes it, else ``None``."""
    try:
        return name if str(parse_metric(name)) == name else None
    except (RankEvalError, TypeError):
        return None


def metric_column(name: object) -> tuple[str, str] | None:
    """A wide table's column as (metric label, value name): ``ndcg@10`` → (``ndcg@10``,
    ``value``), ``ndcg@10_ci_low`` → (``ndcg@10``, ``ci_low``); ``None`` for other names."""
    if not isinstance(name, str):
        return None
    if _label(name) is not None:
        return name, "value"
    cut = name.rfind("_")
    while cut > 0:
        if _label(name[:cut]) is not None and name[cut + 1 :]:
            return name[:cut], name[cut + 1 :]
        cut = name.rfind("_", 0, cut)
    return None


def _tidy_label(metric: object, k: object) -> str | None:
    """The label of a tidy row's metric and k: ``("ndcg", 10)`` → ``ndcg@10``,
    ``("f1(beta=2)", 5)`` → ``f1@5(beta=2)``; a name rankframe does not know, as it is
    (with ``@k``)."""
    if _missing(metric):
        return None
    has_k = not _missing(k)
    cut: Any = None
    if has_k:
        number = float(k)  # type: ignore[arg-type]
        cut = int(number) if number.is_integer() else number
    try:
        return str(parse_metric(str(metric), cut))
    except (RankEvalError, TypeError):
        return f"{metric}@{cut}" if has_k else str(metric)


def _missing(value: object) -> bool:
    """None, NaN, NaT or pd.NA."""
    return (
        value is None
        or value is pd.NA
        or value is pd.NaT
        or (isinstance(value, float | np.floating) and math.isnan(value))
    )


def _text(value: object) -> object:
    """A key's value for JSON: a Python scalar; a time as ISO text."""
    if _missing(value):
        return None
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__ == "numpy":
        value = item()
    if isinstance(value, datetime | date | pd.Timestamp):
        return value.isoformat()
    return value if isinstance(value, str | int | float | bool) else str(value)


def _as_float(column: pd.Series) -> np.ndarray[Any, np.dtype[np.float64]]:
    if pd.api.types.is_bool_dtype(column.dtype) or column.dtype == object:
        column = column.astype("float64")
    return column.to_numpy(dtype="float64", na_value=np.nan)


def _objects(column: pd.Series) -> np.ndarray[Any, np.dtype[np.object_]]:
    """The values as an object array, every kind of null as None."""
    values: np.ndarray[Any, np.dtype[np.object_]] = column.to_numpy(dtype=object, na_value=None)  # type: ignore[call-overload]
    return values


def _as_objects(column: pd.Series) -> np.ndarray[Any, np.dtype[np.object_]]:
    """A column as Python scalars for JSON (strings as they are, null as None)."""
    values = _objects(column)
    if pd.api.types.is_string_dtype(column):  # strings throughout: nothing to convert
        return values
    out = np.empty(len(values), dtype=object)
    out[:] = [_text(v) for v in values]
    return out


def _utc(column: pd.Series) -> pd.Series:
    """A time column as naive UTC timestamps (aware times: their UTC instant)."""
    times = pd.to_datetime(column)
    if getattr(times.dt, "tz", None) is not None:
        times = times.dt.tz_convert("UTC").dt.tz_localize(None)
    return times.astype("datetime64[us]")


#: One value of each row of a result table: its metric label per row, its value name and
#: the column that holds it
Entry = tuple["np.ndarray[Any, Any]", str, str]


@dataclasses.dataclass(frozen=True)
class _Roles:
    """A result table's columns by role: ``typed`` (the store's own columns: system,
    metric, k, window, ...), ``segments`` (the segment's keys), ``metric_columns`` (a wide
    table's: label → its (value name, column)), ``row_values`` (a value of the whole row)
    and ``texts`` (values kept as text)."""

    typed: dict[str, Any]
    segments: list[str]
    metric_columns: dict[str, list[tuple[str, str]]]
    row_values: list[str]
    texts: list[str]


def _roles(frame: pd.DataFrame, keys: Sequence[str], kind: str) -> _Roles:
    """The role of each column of ``frame``, a result table of a run of ``kind``."""
    roles = _Roles({}, [], {}, [], [])
    roles.texts.extend(c for c in TEXT_VALUES.get(kind, ()) if c in frame.columns and c not in keys)
    for name in frame.columns:
        column = frame[name]
        if name in roles.texts or (kind == "slices" and name == SLICE and name not in keys):
            continue  # a text value; the slice's name (its keys are its segment)
        if name in TYPED_KEYS and name not in keys:
            if name == "window" and not _is_time(column):
                roles.segments.append(name)
            else:
                roles.typed[name] = column
        elif name in keys or not _is_number(column):
            roles.segments.append(name)
        elif "metric" not in frame.columns and (found := metric_column(name)) is not None:
            roles.metric_columns.setdefault(found[0], []).append((found[1], name))
        else:
            roles.row_values.append(name)
    return roles


def _entries(roles: _Roles, n: int) -> list[Entry]:
    """One entry per (metric, value name) of a row: its label per row (of ``n``), and the
    value column; a tidy table's labels from its metric and k, a wide table's from its
    columns' names."""
    entries: list[Entry] = []
    if "metric" in roles.typed:
        k = roles.typed.get("k")
        metrics = roles.typed["metric"]
        pairs = [(m, None if k is None else k.iloc[i]) for i, m in enumerate(metrics)]
        label_of = {p: _tidy_label(*p) for p in dict.fromkeys(pairs)}
        per_row = np.array([label_of[p] for p in pairs], dtype=object)
        entries = [(per_row, c, c) for c in roles.row_values]
    elif roles.metric_columns:
        for label, columns in roles.metric_columns.items():
            labelled = np.full(n, label, dtype=object)
            entries += [(labelled, value_name, c) for value_name, c in columns]
            entries += [(labelled, c, c) for c in roles.row_values]
    else:
        entries = [(np.full(n, None, dtype=object), c, c) for c in roles.row_values]
    labels = entries[0][0] if entries else np.full(n, None, dtype=object)
    return entries + [(labels, c, c) for c in roles.texts]


def _values(
    frame: pd.DataFrame, entries: list[Entry], texts: list[str]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The ``value`` and ``value_text`` columns of the entries, one after the other: a text
    value's in ``value_text`` (``value`` NaN), any other's in ``value`` (as float)."""
    if not entries:
        return np.empty(0), np.empty(0, dtype=object)
    n = len(frame)
    value = np.concatenate(
        [np.full(n, np.nan) if e[2] in texts else _as_float(frame[e[2]]) for e in entries]
    )
    value_text = np.concatenate(
        [
            _objects(frame[e[2]].astype(object))
            if e[2] in texts
            else np.full(n, None, dtype=object)
            for e in entries
        ]
    )
    return value, value_text


def _cut_offs(roles: _Roles, metric: np.ndarray[Any, Any], rows: np.ndarray[Any, Any]) -> Any:
    """The ``k`` column: the table's own, a wide table's from each label, else NaN."""
    if "k" in roles.typed:
        return _as_float(roles.typed["k"])[rows]
    if roles.metric_columns:  # a wide table: each label's cut-off
        cuts = {label: _cut_off(label) for label in roles.metric_columns}
        return np.array([cuts.get(label, np.nan) for label in metric], dtype=float)
    return np.full(len(rows), np.nan)


def long_values(
    frame: pd.DataFrame, keys: Sequence[str] = (), kind: str = "evaluation"
) -> pd.DataFrame:
    """The rows of ``rankframe_values`` (without ``run_id``) of one result table of a run of
    ``kind``: a slice's keys are the slice's own (those it constrains), the text values of
    a kind (:data:`TEXT_VALUES`) go to ``value_text``."""
    n = len(frame)
    roles = _roles(frame, keys, kind)
    entries = _entries(roles, n)
    m = len(entries)
    rows = np.tile(np.arange(n, dtype=np.int64), m)
    segment, segment_json = segment_labels(frame, roles.segments, constrained=kind == "slices")
    typed = roles.typed
    value, value_text = _values(frame, entries, roles.texts)
    out: dict[str, Any] = {
        "result_row": rows,
        "segment": segment[rows],
        "segment_json": segment_json[rows],
        "window_start": (
            _utc(typed["window"]).to_numpy()[rows]
            if "window" in typed
            else np.full(n * m, np.datetime64("NaT", "us"))
        ),
        "metric": np.concatenate([e[0] for e in entries]) if entries else np.empty(0, object),
        "value_name": np.repeat(np.array([e[1] for e in entries], dtype=object), n),
        "value": value,
        "value_text": value_text,
    }
    for name in ("system", "statistic", "status", "rule"):
        out[name] = (_as_objects(typed[name]) if name in typed else np.full(n, None, dtype=object))[
            rows
        ]
    out["k"] = _cut_offs(roles, out["metric"], rows)
    table = pd.DataFrame({c: out[c] for c in VALUE_COLUMNS if c != "run_id"})
    return table.sort_values("result_row", kind="stable", ignore_index=True)


def _cut_off(label: str) -> float:
    k = parse_metric(label).k
    return float(k) if isinstance(k, int | float) else math.nan


def segment_labels(
    frame: pd.DataFrame, columns: list[str], *, constrained: bool = False
) -> tuple[np.ndarray[Any, np.dtype[np.object_]], np.ndarray[Any, np.dtype[np.object_]]]:
    """Per row, its segment keys as text (``theme=news, cohort=a``) and as a JSON object;
    ``None`` for a table without segment keys. ``constrained``: a key whose value is null
    is no key of the row (a slice's columns it does not constrain)."""
    n = len(frame)
    text = np.full(n, None, dtype=object)
    as_json = np.full(n, None, dtype=object)
    if not columns:
        return text, as_json
    values = [_as_objects(frame[c]) for c in columns]
    for i in range(n):  # one row of the result (segments, not queries' rows)
        pairs = [
            (str(c), v[i])
            for c, v in zip(columns, values, strict=True)
            if not constrained or v[i] is not None
        ]
        if not pairs:
            continue
        text[i] = ", ".join(f"{c}={'null' if v is None else v}" for c, v in pairs)
        as_json[i] = json.dumps(dict(pairs), ensure_ascii=False)
    return text, as_json


# -- what made the result ----------------------------------------------------------------------


def _json_value(value: object) -> object:
    """An option's value as JSON: scalars as they are; a frame (``catalog=``) by its type."""
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    value = _text(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def _fields(obj: object) -> dict[str, object]:
    """A dataclass's fields as JSON values; the settings of the statistics (``Tests``,
    ``Intervals``) in place, as fields of the result itself; a function
    (``compare(reference=)``'s reference side) as ``true``: there is one (its address would
    differ on every run)."""
    if not dataclasses.is_dataclass(obj):
        return {}
    fields: dict[str, object] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, Tests | Intervals):
            fields.update(_fields(value))
        elif callable(value):  # compare(reference=): the reference frame's side, made later
            fields[f.name] = True
        else:
            fields[f.name] = _json_value(value)
    return fields


def options_json(request: Request, settings: Mapping[str, Any] | None = None) -> str:
    """The request's metrics, ``by``, columns, options and result settings (``settings``
    in place of the result's, for a table assembled from several), as JSON."""
    names = request.names
    columns = {
        "query": names.query if not names.query_columns else list(names.query_key),
        "item": names.item if not names.item_columns else list(names.item_key),
        "score": list(names.scores),
        "relevant": names.relevant,
        "judged": names.judged,
    }
    document = {
        "metrics": [str(m) for m in request.metrics],
        "by": list(request.by),
        "columns": columns,
        "options": _fields(request.options),
        "settings": _fields(request.result)
        if settings is None
        else {key: _json_value(value) for key, value in settings.items()},
    }
    return json.dumps(document, sort_keys=False)
