"""The accessor of a frame kind whose library ``import rankframe`` does not load (Dask,
modin: registered when ``dask.dataframe`` or ``modin.pandas`` is imported), whichever of the
library and rankframe is imported first, each order in a fresh interpreter.

The frame is made by ``make_frame`` and pickled; the fresh interpreter imports the frame's
library and rankframe in the order under test, then unpickles it and evaluates it. The main
suite runs the Dask kind; ``make test-modin`` (``--frame-kind modin``) the modin kind.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import FrameMaker

pytestmark = pytest.mark.frame_kinds("dask")

#: query 1's relevant item is second (reciprocal rank 1/2), query 2's first (1): mean 0.75
DATA = {
    "query": [1, 1, 2, 2],
    "item": ["x", "y", "x", "y"],
    "score": [0.9, 0.1, 0.9, 0.1],
    "relevant": [0, 1, 1, 0],
}

CHECK = """
import pickle
with open({path!r}, "rb") as file:
    frame = pickle.load(file)
mrr = frame.rank_eval.mrr()
print(type(frame.rank_eval).__name__, mrr.compute() if hasattr(mrr, "compute") else mrr)
"""


@pytest.mark.parametrize("first", ["rankframe", "library"])
def test_the_accessor_whichever_import_comes_first(
    make_frame: FrameMaker, first: str, tmp_path: Path
) -> None:
    frame = make_frame(DATA)
    library = type(frame).__module__  # dask.dataframe...., modin.pandas.dataframe
    path = tmp_path / "frame.pickle"
    path.write_bytes(pickle.dumps(frame))
    imports = [f"import {library}", "import rankframe"]
    code = "\n".join(imports[::-1] if first == "rankframe" else imports)
    done = subprocess.run(
        [sys.executable, "-c", code + CHECK.format(path=str(path))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "RankEval 0.75"
