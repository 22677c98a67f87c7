"""The command line starts without loading what it does not run: ``rankframe --version`` and
``rankframe --help`` import no command module and nothing of the library beyond ``import
rankframe``, which imports no frame library; a subcommand imports its own module alone. Each
case in a fresh interpreter (``sys.modules`` read there). The start time itself is measured
in benchmarks/trec_cli.py, never here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rankframe

#: the command line's modules that every command loads: the entry, the parser, the error
#: line, the status line and the demo's function (``rankframe.cli.demo``, a name of the
#: entry)
ENTRY = {
    "rankframe.cli",
    "rankframe.cli.demo",
    "rankframe.cli.parser",
    "rankframe.cli.errors",
    "rankframe.cli.status",
}
COMMAND_MODULES = {
    "rankframe.cli.commands",
    "rankframe.cli.trec",
    "rankframe.cli.gate",
    "rankframe.cli.report",
    "rankframe.cli.slices",
    "rankframe.cli.gaps",
    "rankframe.cli.agreement",
    "rankframe.cli.sample_size",
    "rankframe.cli.dashboard",
}
FRAME_LIBRARIES = ("pandas", "polars", "pyarrow", "numpy")

LOADED = """
import contextlib, io, json, sys
{before}
before = set(sys.modules)
from rankframe.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main({argv!r})
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def loaded(argv: list[str], before: str = "") -> set[str]:
    """The modules that ``rankframe ARGV`` loads in a fresh interpreter, beyond those loaded
    by ``before`` (code run first)."""
    env = {**os.environ, "PYTHONPATH": str(Path(rankframe.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", LOADED.format(before=before, argv=argv)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_version_and_help_load_no_command_nor_the_library(argv: list[str]) -> None:
    new = loaded(argv, before="import rankframe")
    assert {m for m in new if m.startswith("rankframe")} == ENTRY


def test_a_subcommand_loads_its_own_module_alone() -> None:
    new = loaded(["trec", "--help"], before="import rankframe")
    assert new & COMMAND_MODULES == {"rankframe.cli.trec"}
    new = loaded(["check", "--help"], before="import rankframe")
    assert new & COMMAND_MODULES == {"rankframe.cli.gate"}


def test_version_loads_no_frame_library() -> None:
    new = loaded(["--version"])
    assert not new & set(FRAME_LIBRARIES)
