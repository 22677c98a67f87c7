"""The ``rank_eval`` accessor of Dask DataFrames.

Every method returns a lazy Dask object: a ``Scalar`` for a metric, a ``Series`` for a metric
``by=`` segments, a ``DataFrame`` for ``per_query``, ``evaluate`` and ``rank``. ``.compute()``
gives what the pandas accessor returns for the same rows.

The engine needs all rows of a query together. The frame is shuffled on the query column, so
each partition holds whole queries; each partition then runs the single-machine engine through
the pandas adapter; the small per-partition results are combined last: per-query rows are
gathered into one partition and sorted by query, means are weighted by each partition's
``n_queries``. No rows travel to the client and nothing loops over queries in Python.

The shuffle is skipped when the frame is already partitioned by query: it has one partition,
or its index is the query column with known divisions (``set_index("query")``,
``read_parquet(..., index="query", calculate_divisions=True)``). Only here may the query
column be the index.

Column names, metric names and options are checked at call time. Checks of the data run when
the result is computed and raise the pandas accessor's errors; a null value is counted and
located over the whole frame, as pandas does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

try:
    import dask.dataframe as dd
    from dask.dataframe.extensions import register_dataframe_accessor
except ImportError as error:
    msg = "The Dask accessor needs dask: pip install 'rankframe[dask]'"
    raise ImportError(msg) from error

from rankframe import schemas
from rankframe._api import SYSTEM, Backend, ColumnNames, Combine, Kind, RankEval, Whole, shape_of
from rankframe.adapters.pandas import PandasBackend
from rankframe.exceptions import RankEvalError

__all__ = ["DaskRankEval", "register"]

_DTYPES: dict[str, Any] = {"float": "float64", "int": "int64", "int?": "Int64", "str": "str",
                           "bool": "bool"}
# The shuffle keeps the frame's row order through a column of 64-bit positions:
# the input partition number above bit 40, the row within that partition below.
_POSITION_BITS = 40


# -- before the shuffle: row positions and the null check of the whole frame ----------------


def _with_position(
    part: pd.DataFrame, name: str, partition_info: dict[str, Any] | None = None
) -> pd.DataFrame:
    """The partition plus a column ``name``: each row's position in the frame's order."""
    number = partition_info["number"] if partition_info else 0
    position = np.arange(len(part), dtype=np.int64) + (np.int64(number) << _POSITION_BITS)
    return part.assign(**{name: position})


def _never_null(names: ColumnNames) -> list[str]:
    """The columns that must not hold nulls, in the order the schema checks them."""
    return [names.query, names.item, names.relevant]


def _null_counts(part: pd.DataFrame, names: ColumnNames) -> pd.DataFrame:
    """One row for an input partition: its length and, for each column that must not be
    null, the number of nulls, the position of the first one and that row's query."""
    row: dict[str, pd.Series] = {"rows": pd.Series([len(part)], dtype=np.int64)}
    for i, column in enumerate(_never_null(names)):
        nulls = part[column].isna().to_numpy()
        count = int(nulls.sum())
        first = int(np.argmax(nulls)) if count else -1
        query = part[names.query].iloc[first] if count and column != names.query else None
        row[f"nulls{i}"] = pd.Series([count], dtype=np.int64)
        row[f"first{i}"] = pd.Series([first], dtype=np.int64)
        row[f"query{i}"] = pd.Series([query], dtype=object)  # the value as pandas gives it
    numeric = all(schemas._is_numeric_pandas(part[s]) for s in names.scores)
    row["numeric_score"] = pd.Series([numeric], dtype=bool)
    return pd.DataFrame(row)


def _null_error(column: str, names: ColumnNames, report: tuple[int, int, object]) -> Exception:
    """The pandas accessor's error for nulls in ``column``, with counts of the whole frame."""
    import pandera.pandas as pa
    from pandera.errors import SchemaError, SchemaErrorReason

    failure = SchemaError(  # type: ignore[no-untyped-call]
        schema=pa.Column(name=column),
        data=None,
        message=f"column {column!r} contains null values",
        reason_code=SchemaErrorReason.SERIES_CONTAINS_NULLS,
    )
    return schemas.translate(
        failure, roles=names.roles(), dtype_of=lambda _: None, null_report=lambda _: report
    )


def _check_nulls(reports: pd.DataFrame, names: ColumnNames) -> int:
    """Raise the error pandas raises for nulls, from the rows of :func:`_null_counts` (one
    per input partition, in order); 0 when there are none."""
    reports = reports.reset_index(drop=True)
    rows = reports["rows"].to_numpy()
    offsets = np.cumsum(rows) - rows
    for i, column in enumerate(_never_null(names)):
        counts = reports[f"nulls{i}"].to_numpy()
        if not counts.any():
            continue
        if column == names.relevant and not reports["numeric_score"].all():
            break  # the schema reports the score's dtype first; every partition raises it
        at = int(np.flatnonzero(counts)[0])
        first = int(offsets[at] + reports[f"first{i}"].iloc[at])
        raise _null_error(column, names, (int(counts.sum()), first, reports[f"query{i}"].iloc[at]))
    return 0


# -- after the shuffle: the engine on each partition ---------------------------------------


def _nulls_reported(part: pd.DataFrame, names: ColumnNames) -> bool:
    """Whether :func:`_check_nulls` raises for the nulls of this partition (the same rule)."""
    if part[names.query].isna().any() or part[names.item].isna().any():
        return True
    relevant = bool(part[names.relevant].isna().any())
    return relevant and all(schemas._is_numeric_pandas(part[s]) for s in names.scores)


def _run_partition(
    part: pd.DataFrame,
    produce: Callable[[Backend], Any],
    names: ColumnNames,
    position: str | None,
    index: str | None,
    nulls: pd.DataFrame | None,
    _checked: int | None = None,
) -> pd.DataFrame:
    """``produce`` on one partition of whole queries, its rows back in the frame's order.

    The error for nulls names their count and first row in the whole frame, so
    :func:`_check_nulls` raises it, not this partition. Metrics pass ``nulls``, the empty
    table to give back for a partition with such nulls (their final step waits for the check).
    ``rank`` passes the check's result as ``_checked`` instead: each of its partitions waits
    for the check. ``index``: a column to set back as the index (``rank``'s input index).
    """
    if position is not None:
        order = part[position].to_numpy()
        if (order[1:] < order[:-1]).any():
            part = part.take(np.argsort(order, kind="stable"))
        part = part.drop(columns=position)
    if nulls is not None and _nulls_reported(part, names):
        return nulls
    try:
        result: pd.DataFrame = produce(PandasBackend(part))
    except RankEvalError as error:
        # The error is pickled to reach the client; the pandera error it was raised from
        # (its __context__) would not unpickle cleanly, and says nothing more.
        error.__context__ = error.__cause__ = None
        raise
    return result.set_index(index) if index is not None else result


# -- the per-partition results combined -----------------------------------------------------


def _shape(
    result: pd.DataFrame, kind: Kind, keys: list[str], value_columns: Sequence[tuple[str, str]]
) -> Any:
    """What the pandas accessor returns, from its summary table."""
    index, metric = shape_of(kind, keys, value_columns)
    if kind == "scalar":
        return float(result[metric].iloc[0])
    if kind == "segments":
        return result.set_index(index)[metric]
    return result


def _combine_means(
    tables: pd.DataFrame, keys: list[str], metrics: list[str], meta: pd.DataFrame
) -> pd.DataFrame:
    """Summary tables of disjoint sets of queries (``keys``, means, ``n_queries``) as one:
    per segment, the means weighted by ``n_queries`` over every table."""
    tables = tables.reset_index(drop=True)
    counts = tables["n_queries"].to_numpy(dtype=np.int64)
    means = tables[metrics].to_numpy(dtype=np.float64)
    # a table's mean is NaN when none of its queries counted (n_queries 0)
    sums = pd.DataFrame(
        np.where(counts[:, None] > 0, means, 0.0) * counts[:, None], columns=metrics
    ).assign(n_queries=counts)
    if keys:
        if tables.empty:
            return meta
        groups = [tables[k] for k in keys]
        sums = sums.groupby(groups, sort=True, dropna=False, observed=True).sum()
    else:
        sums = sums.sum().to_frame().T.astype({"n_queries": np.int64})
    n = sums["n_queries"]
    out = sums[metrics].div(n.where(n > 0), axis=0).assign(n_queries=n)
    return out.reset_index(drop=not keys)


def _summary(
    tables: pd.DataFrame,
    _checked: int,
    kind: Kind,
    keys: list[str],
    value_columns: Sequence[tuple[str, str]],
    systems: Sequence[str],
    meta: pd.DataFrame,
) -> Any:
    """The summary of every partition's table (``_checked``: once the null check passed)."""
    labels = [name for name, t in value_columns if t == "str"]  # the system column
    metrics = [name for name, t in value_columns if t == "float"]
    if labels:  # systems in the order given, not sorted by name
        tables = tables.assign(**{SYSTEM: pd.Categorical(tables[SYSTEM], categories=list(systems))})
    result = _combine_means(tables, [*keys, *labels], metrics, meta)
    if labels and SYSTEM in result:
        result = result.astype({SYSTEM: "str"})
    return result if kind == "scalar" else _shape(result, kind, keys, value_columns)


def _sorted_by(tables: pd.DataFrame, _checked: int, column: str) -> pd.DataFrame:
    """Per-query tables of disjoint sets of queries as one, sorted by query like pandas."""
    return tables.sort_values(column, kind="stable", ignore_index=True)


def _finish_whole(table: pd.DataFrame, finish: Callable[[Backend], Any]) -> pd.DataFrame:
    """A result computed from every query's values (see ``rankframe._api.Whole``)."""
    result: pd.DataFrame = finish(PandasBackend(table))
    return result


def _identity(part: pd.DataFrame) -> pd.DataFrame:
    return part


def _scalar(table: pd.DataFrame, value_columns: Sequence[tuple[str, str]]) -> float:
    return float(_shape(table, "scalar", [], value_columns))


def _unused_name(columns: Sequence[object], stem: str) -> str:
    name = stem
    while name in columns:
        name = f"_{name}_"
    return name


class DaskRankEval(RankEval):
    __doc__ = RankEval.__doc__

    def _backend(self, frame: Any) -> Backend:
        return PandasBackend(frame)

    def _index_name(self) -> str | None:
        """The name of the frame's index when it is not also a column."""
        name = self._frame.index.name
        return name if isinstance(name, str) and name not in self._frame.columns else None

    def _column_names(self) -> list[str]:
        index = self._index_name()
        return [*self._frame.columns, *([index] if index is not None else [])]

    def _deliver(
        self,
        produce: Callable[[Backend], Any],
        kind: Kind,
        keys: Sequence[str],
        value_columns: Sequence[tuple[str, str]],
        *,
        combine: Combine = None,
        whole: Whole | None = None,
    ) -> Any:
        if whole is not None:
            # per-query values on the workers, gathered in one partition (one row per query
            # and system); the result from all of them at once
            per_query = self._deliver(
                whole.per_query, "table", whole.keys, whole.value_columns, combine="rows"
            )
            meta = per_query._meta[list(keys)].assign(
                **{name: pd.Series([], dtype=_DTYPES[t]) for name, t in value_columns}
            )
            return per_query.map_partitions(_finish_whole, whole.finish, meta=meta)
        names = self._names
        frame: Any = self._frame  # dask.dataframe.DataFrame (dask has no type annotations)
        rank = list(keys) == ["*"]
        used = list(dict.fromkeys([*names.roles(), *([] if rank else keys)]))
        index = self._index_name() if self._index_name() in used else None
        if not rank:  # only the columns the engine reads travel through the shuffle
            frame = frame[[c for c in used if c != index]]
        # already partitioned by query: one partition, or the query as index with divisions
        presorted = frame.npartitions == 1 or (index == names.query and frame.known_divisions)
        if index is not None:
            frame = frame.reset_index()
        checked = frame.reduction(
            _null_counts,
            aggregate=_check_nulls,
            split_every=False,
            meta=int,
            chunk_kwargs={"names": names},
            aggregate_kwargs={"names": names},
        )
        position = None
        if not presorted:
            position = _unused_name(list(frame.columns), "__rankframe_position__")
            meta = frame._meta.assign(**{position: np.zeros(0, dtype=np.int64)})
            frame = frame.map_partitions(_with_position, position, meta=meta).shuffle(
                on=names.query
            )

        if rank:
            name = value_columns[0][0]
            meta = frame._meta.drop(columns=[position] if position else [])
            meta = meta.assign(**{name: pd.array([], dtype="Int64")})
            if index is not None:
                meta = meta.set_index(index)
            # each partition waits for the null check: without a shuffle, the input
            # partitions stay in memory until then
            return frame.map_partitions(
                _run_partition, produce, names, position, index, None, checked, meta=meta
            )

        key_list = list(keys)
        meta = frame._meta[key_list].reset_index(drop=True)
        meta = meta.assign(
            **{name: pd.Series([], dtype=_DTYPES[t]) for name, t in value_columns}
        )
        # the partitions run without waiting for the null check (so that each input
        # partition is released once read); the final step, on one partition, waits for it
        tables = frame.map_partitions(
            _run_partition, produce, names, position, None, meta, meta=meta
        ).repartition(npartitions=1)
        if combine == "rows":  # per_query
            return tables.map_partitions(_sorted_by, checked, names.query, meta=meta)
        table_kind: Kind = "table" if kind == "scalar" else kind
        summary = tables.map_partitions(
            _summary, checked, kind, key_list, value_columns, list(names.scores), meta,
            meta=_shape(meta, table_kind, key_list, value_columns),
        )
        if kind != "scalar":
            return summary
        return summary.reduction(
            _identity,
            aggregate=_scalar,
            split_every=False,
            meta=float,
            aggregate_kwargs={"value_columns": value_columns},
        )


def register() -> None:
    """Register ``rank_eval`` on ``dask.dataframe.DataFrame``."""
    if "rank_eval" not in getattr(dd.DataFrame, "_accessors", set()):
        register_dataframe_accessor("rank_eval")(DaskRankEval)  # type: ignore[no-untyped-call]

