"""What differs between the oldest supported versions of rankframe's dependencies and the newest
ones.

Each name is found by a feature check (an attribute or a keyword the library has or not),
never by parsing a version string. The floors are in pyproject.toml; ``make test-floors``
runs the frame-kind tests on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

# -- pandas ---------------------------------------------------------------------------------------
# pandas 3's default ``str`` dtype: strings in Arrow, NaN for missing. pandas 2.3 names it
# ``StringDtype("pyarrow", na_value=np.nan)``; pandas 2.2 has it as ``"pyarrow_numpy"``.
STR: Any
try:
    STR = pd.StringDtype("pyarrow", na_value=np.nan)
except TypeError:  # pandas < 2.3: no na_value=
    STR = pd.StringDtype("pyarrow_numpy")
