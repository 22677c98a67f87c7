"""``rankframe.from_lists`` on a Dask DataFrame: each partition by the pandas step of
:mod:`rankframe.inputs.lists` (a query is one row).

Imported by :func:`rankframe.from_lists` only when it is given a Dask frame, so that
``import rankframe`` does not import Dask.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pyarrow as pa

from rankframe.inputs.lists import (
    ListNames,
    check_list_type,
    check_names,
    check_queries,
    pandas_long,
)

__all__ = ["DASK_HINT", "dask_long"]

DASK_HINT = (
    " (Dask turns object columns of lists into strings: keep lists in a pyarrow list dtype, "
    "pd.ArrowDtype(pa.list_(...)), or set dask.config 'dataframe.convert-string' to False.)"
)


def dask_long(frame: Any, names: ListNames) -> Any:
    """Each partition on its own (a query is one row); a query id on two rows of different
    partitions is found by a count over the whole frame, when the result is computed."""
    check_names([str(c) for c in frame.columns], names)
    counts = frame[names.query].value_counts()
    # one partition, given whole to every partition of the frame (a Dask collection, not
    # Delayed objects: Dask 2025.1 hands a Delayed argument of map_partitions to the function
    # uncomputed)
    repeated = counts[counts > 1].repartition(npartitions=1)

    for role, column in names.roles().items():
        dtype = frame._meta[column].dtype
        if role != "query" and not pd.api.types.is_object_dtype(dtype):
            check_list_type(pa.array(frame._meta[column]).type, column, role, DASK_HINT)

    def part(data: pd.DataFrame, repeated: pd.Series) -> pd.DataFrame:
        if len(repeated):
            check_queries(pd.Series([repeated.index[0]] * int(repeated.iloc[0])), names.query)
        return pandas_long(data, names, keep_index=True)

    meta = pandas_long(frame._meta, names, keep_index=True)
    return frame.map_partitions(part, repeated, meta=meta, align_dataframes=False)
