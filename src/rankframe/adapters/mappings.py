"""The options that map items to values, read by their kind: ``item_groups``,
``popularity``, ``item_features`` and ``catalog`` as a pandas Series or DataFrame, a polars
DataFrame or Series, or a dict; and awrf's ``target`` (group -> share), a pandas Series or
a dict.

Only the ids and the values are taken out here (:class:`Mappings`, the reader that
:mod:`rankframe.metrics.item_inputs` asks through its ``MappingReader``); every check of
what they hold and every lookup is that module's, the same for every kind.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from rankframe.exceptions import InvalidOptionError

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pandas as pd

__all__ = ["READER", "Mappings", "kind_of"]


def _kinds() -> dict[type, str]:
    """The frame types the data options take, by the name the option checks use
    (:func:`rankframe.settings.option_checks.kind_of`); a subclass is its base's kind (a
    pandas DataFrame subclass is a pandas DataFrame). pandas' only once it is imported: no
    value is a pandas object before (``rankframe trec`` runs without pandas)."""
    kinds: dict[type, str] = {pl.DataFrame: "polars DataFrame"}
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        kinds |= {pandas.Series: "pandas Series", pandas.DataFrame: "pandas DataFrame"}
    return kinds


def kind_of(value: object) -> str | None:
    """Which of the frame kinds the data options take ``value`` is (``None``: none)."""
    kinds = _kinds()
    return next((kinds[c] for c in type(value).__mro__ if c in kinds), None)


class Mappings:
    """The reader of the options' mappings (``rankframe.metrics.item_inputs.MappingReader``)."""

    def item_groups(self, value: Any) -> tuple[Any, Any]:
        """The item ids and the groups of the ``item_groups`` option, unchecked."""
        import pandas as pd

        if isinstance(value, pd.DataFrame):
            if value.shape[1] == 2:  # (item, group) columns
                keys, values = pd.Index(value.iloc[:, 0]), _values(value.iloc[:, 1])
            elif value.shape[1] == 1:  # one column indexed by item
                keys, values = value.index, _values(value.iloc[:, 0])
            else:
                msg = (
                    "The 'item_groups' option, as a pandas DataFrame, must have one column "
                    "(the group, indexed by item) or two (item, group). Got "
                    f"{value.shape[1]} columns."
                )
                raise InvalidOptionError(msg)
        elif isinstance(value, pd.Series):
            keys, values = value.index, _values(value)
        elif hasattr(value, "columns"):  # polars: (item, group)
            keys, column = _polars_mapping(value, "item_groups", "its group")
            values = np.asarray(column.to_list(), dtype=object)
        else:
            keys = pd.Index(list(value.keys()))
            values = np.asarray(list(value.values()), dtype=object)
        return keys, values

    def popularity(self, value: Any) -> tuple[Any, Any]:
        """The item ids and the counts of the ``popularity`` option, unchecked."""
        import pandas as pd

        if isinstance(value, pd.DataFrame):  # one column, indexed by item
            value = value.iloc[:, 0]
        if isinstance(value, pd.Series):
            keys, values = value.index, value.to_numpy()
        elif hasattr(value, "columns"):  # polars: (item, count)
            keys, column = _polars_mapping(value, "popularity", "its count")
            values = column.to_numpy()
        else:
            keys = pd.Index(list(value.keys()))
            values = np.asarray(list(value.values()), dtype=object)
        return keys, values

    def item_features(self, value: Any) -> tuple[Any, Any]:
        """The item ids and the feature matrix of the ``item_features`` option, unchecked."""
        import pandas as pd

        if isinstance(value, pd.DataFrame):
            return value.index, value.to_numpy()
        # polars: the first column is the item
        return pd.Index(value[:, 0].to_list()), value[:, 1:].to_numpy()

    def target(self, value: Any) -> pd.Series:
        """awrf's ``target`` option (group -> share) as a pandas Series, unchecked."""
        import pandas as pd

        return value if isinstance(value, pd.Series) else pd.Series(dict(value), dtype=object)

    def catalog(self, value: Any) -> Any:
        """The ids of the ``catalog`` option as a collection pandas reads."""
        import pandas as pd

        if hasattr(value, "to_list") and not isinstance(value, pd.Index | pd.Series):
            return value.to_list()  # polars
        return value


#: The one reader, given to :mod:`rankframe.metrics.item_inputs` by ``rankframe.adapters``.
READER = Mappings()


def _values(column: pd.Series) -> Any:
    """The values of a pandas column: strings as they are stored (no Python object per
    value), others as a NumPy array."""
    import pandas as pd

    return column.array if isinstance(column.dtype, pd.StringDtype) else column.to_numpy()


def _polars_mapping(frame: Any, option: str, value: str) -> tuple[pd.Index, Any]:
    """A polars DataFrame option of two columns (item, ``value``): the items as a pandas
    Index, and the second column (a polars Series)."""
    import pandas as pd

    if len(frame.columns) != 2:
        msg = (
            f"The '{option}' option, as a polars DataFrame, must have two columns: the "
            f"item, then {value}. Got {len(frame.columns)} columns."
        )
        raise InvalidOptionError(msg)
    return pd.Index(frame[:, 0].to_list()), frame[:, 1]
