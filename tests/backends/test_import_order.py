"""The accessor of every frame kind that has one, whichever of the frame's library and
rankframe is imported first: ``import rankframe`` imports no frame library
(tests/house/test_layers.py), and puts ``rank_eval`` on a library's frames when the library
is imported (at once if it is). Each order in a fresh interpreter.

The frame is made by ``make_frame`` and pickled; the fresh interpreter imports the frame's
library and rankframe in the order under test, then unpickles the frame, evaluates it and
pickles the result back, read here as every result is (``helpers.as_float``). The main suite
runs pandas, polars (eager and lazy) and Dask; ``make test-modin`` (``--frame-kind modin``)
the modin kind.

The public names (``rankframe.__all__``, ``from rankframe import *``) load their modules
when first read: each is checked here to be the object its module defines.
"""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import rankframe
from helpers import FrameMaker, as_float

pytestmark = pytest.mark.frame_kinds("pandas", "polars", "polars-lazy", "dask")

#: query 1's relevant item is second (reciprocal rank 1/2), query 2's first (1): mean 0.75
DATA = {
    "query": [1, 1, 2, 2],
    "item": ["x", "y", "x", "y"],
    "score": [0.9, 0.1, 0.9, 0.1],
    "relevant": [0, 1, 1, 0],
}

#: the orders: the code that imports rankframe and the frame's library ({library})
ORDERS = {
    "rankframe first": "import rankframe\nimport {library}",
    "library first": "import {library}\nimport rankframe",
    # the library imported by rankframe's own modules (the accessor's), then by the user
    "rankframe loads the library": "import rankframe\nrankframe.RankEval\nimport {library}",
    # the library imported by other threads while rankframe is
    "threads": (
        "import threading\n"
        "threads = [threading.Thread(target=__import__, args=({library!r},)) for _ in range(4)]\n"
        "for thread in threads: thread.start()\n"
        "import rankframe\n"
        "for thread in threads: thread.join()\n"
        "import {library}"
    ),
}

CHECK = """
import pickle, sys
with open({path!r}, "rb") as file:
    frame = pickle.load(file)
accessor = frame.rank_eval
assert type(accessor).__name__ == "RankEval", type(accessor)
sys.stdout.buffer.write(pickle.dumps(accessor.mrr()))
"""


def in_fresh_interpreter(code: str) -> subprocess.CompletedProcess[bytes]:
    """``python -c code`` in a fresh interpreter that imports this rankframe."""
    env = {**os.environ, "PYTHONPATH": str(Path(rankframe.__file__).parents[1])}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, check=False, env=env)


@pytest.mark.parametrize("order", ORDERS)
def test_the_accessor_whichever_import_comes_first(
    make_frame: FrameMaker, order: str, tmp_path: Path
) -> None:
    frame = make_frame(DATA)
    library = type(frame).__module__  # pandas.core.frame, dask.dataframe...., modin.pandas....
    path = tmp_path / "frame.pickle"
    path.write_bytes(pickle.dumps(frame))
    imports = ORDERS[order].format(library=library)
    done = in_fresh_interpreter(imports + CHECK.format(path=str(path)))
    assert done.returncode == 0, done.stderr.decode()
    assert as_float(pickle.loads(done.stdout)) == 0.75


def test_every_public_name_is_its_modules_object() -> None:
    """Each name of ``rankframe.__all__`` is defined where the docs say: as an attribute of
    ``rankframe`` it is the object of the module that defines it (``__module__``), and ``dir``
    lists it."""
    for name in rankframe.__all__:
        value = getattr(rankframe, name)
        module = getattr(value, "__module__", None)
        if module is not None and name != "__version__":
            assert getattr(importlib.import_module(module), name) is value, name
    assert set(rankframe.__all__) <= set(dir(rankframe))
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        rankframe.no_such_name  # noqa: B018  (the attribute read is the test)
    # the adapters' names load on first use too
    assert {"adapt", "kinds", "register_kind"} <= set(dir(rankframe.adapters))
    with pytest.raises(AttributeError, match=r"'rankframe\.adapters' has no attribute 'adaptt'"):
        rankframe.adapters.adaptt  # noqa: B018


def test_star_import_gives_every_public_name() -> None:
    """``from rankframe import *`` in a fresh interpreter binds every name of ``__all__``,
    each loaded from its module."""
    done = in_fresh_interpreter(
        "import rankframe\n"
        "names = set(globals())\n"
        "from rankframe import *\n"
        "print(sorted(set(rankframe.__all__) - set(globals())))\n"
        "print(type(rank_eval).__name__, RankEval.__name__, METRICS is rankframe.METRICS)"
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split("\n")[:2] == ["[]", "function RankEval True"]
