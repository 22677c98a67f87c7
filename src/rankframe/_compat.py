"""What differs between the oldest supported versions of rankframe's dependencies and the newest
ones.

Each name is found by a feature check (an attribute or a keyword the library has or not),
never by parsing a version string. The floors are in pyproject.toml; ``make test-floors``
runs the frame-kind tests on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

# -- pandas ---------------------------------------------------------------------------------------
# pandas 3's default ``str`` dtype: strings in Arrow, NaN for missing. pandas 2.3 names it
# ``StringDtype("pyarrow", na_value=np.nan)``; pandas 2.2 has it as ``"pyarrow_numpy"``.
# ``STR`` is made when first read (``__getattr__``): importing this module imports no pandas.
if TYPE_CHECKING:
    STR: Any


def _string_dtype() -> Any:
    import pandas as pd

    try:
        return pd.StringDtype("pyarrow", na_value=np.nan)
    except TypeError:  # pandas < 2.3: no na_value=
        return pd.StringDtype("pyarrow_numpy")


def __getattr__(name: str) -> Any:
    if name == "STR":
        value = globals()["STR"] = _string_dtype()
        return value
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


# -- polars ---------------------------------------------------------------------------------------
# ``LazyFrame.map_batches`` runs a function on the whole frame as one opaque step of a plan. Up to
# polars 1.36 it lets the optimizer push a later ``select``, ``filter`` or ``head`` into the
# function's input by default (the function then sees only the selected columns or rows); later
# versions push nothing by default. rankframe's steps reshape their input (one row per query or
# item, ranks over all rows), so nothing may be pushed into them: said explicitly, in every version.


def map_batches(
    frame: pl.LazyFrame, function: Callable[[pl.DataFrame], pl.DataFrame], schema: Any
) -> pl.LazyFrame:
    """``frame.map_batches(function, schema=schema)``: one step that gets all of the frame's
    rows and columns at once, whatever is done with its output."""
    return frame.map_batches(
        function,
        schema=schema,
        streamable=False,
        predicate_pushdown=False,
        projection_pushdown=False,
        slice_pushdown=False,
    )
