"""The command line starts without loading what it does not run: ``rankframe --version`` and
``rankframe --help`` import no command module and nothing of the library beyond ``import
rankframe``, which imports no frame library; a subcommand imports its own module alone, and
every subcommand's ``--help`` and usage error import no frame library (they load when a file
is read). Each case in a fresh interpreter (``sys.modules`` read there). The lists the help
texts show without the library (``rankframe.cli.names``) equal their owners'. The start time
itself is measured in benchmarks/trec_cli.py, never here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rankframe
from rankframe.api.rules import GRAMMAR
from rankframe.cli import names, trec
from rankframe.cli.parser import COMMANDS
from rankframe.metrics.registry import METRICS
from rankframe.pipeline.gaps import GAP_TESTS
from rankframe.pipeline.windows import TIME_UNITS
from rankframe.trec.measures import TREC_MEASURES

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
#: what a subcommand's help and usage errors leave out: the frame libraries and Dask
NOT_FOR_HELP = (*FRAME_LIBRARIES, "dask")

LOADED = """
import contextlib, io, json, sys
{before}
before = set(sys.modules)
from rankframe.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main({argv!r})
print(json.dumps(sorted(set(sys.modules) - before)))
"""


#: each command line of ``argvs`` in turn in one interpreter, with its exit status and the
#: libraries of ``libraries`` loaded after it
LOADED_IN_TURN = """
import contextlib, io, json, sys
from rankframe.cli import main
found = []
for argv in {argvs!r}:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = main(argv)
    found.append([argv, status, [m for m in {libraries!r} if m in sys.modules]])
print(json.dumps(found))
"""


def fresh(code: str) -> str:
    """The standard output of ``code`` run in a fresh interpreter (which must succeed)."""
    env = {**os.environ, "PYTHONPATH": str(Path(rankframe.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def loaded(argv: list[str], before: str = "") -> set[str]:
    """The modules that ``rankframe ARGV`` loads in a fresh interpreter, beyond those loaded
    by ``before`` (code run first)."""
    return set(json.loads(fresh(LOADED.format(before=before, argv=argv))))


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


def test_no_subcommand_help_nor_usage_error_loads_a_frame_library() -> None:
    """Every subcommand of the parser, in one interpreter: its ``--help`` (status 0), then
    an unknown flag (argparse's usage error, status 2), each followed by the libraries
    loaded so far: none."""
    argvs = [[name, *flag] for name, *_ in COMMANDS for flag in (["--help"], ["--no-such"])]
    found = json.loads(fresh(LOADED_IN_TURN.format(argvs=argvs, libraries=NOT_FOR_HELP)))
    assert [argv for argv, _, _ in found] == argvs
    assert [status for _, status, _ in found] == [0, 2] * len(COMMANDS)
    assert {" ".join(argv): libraries for argv, _, libraries in found if libraries} == {}


def test_the_lists_of_the_help_equal_their_owners() -> None:
    """``rankframe.cli.names`` copies what the help lists from modules that import the
    frame libraries: each copy equals its owner (a new metric or measure is added there)."""
    assert tuple(METRICS) == names.METRICS
    assert tuple(m.name for m in TREC_MEASURES) == names.TREC_MEASURES
    assert names.RULE_GRAMMAR == GRAMMAR
    assert tuple(TIME_UNITS) == names.TIME_UNITS
    assert tuple(GAP_TESTS) == names.GAP_TESTS


def test_a_flag_checked_before_the_file_loads_no_frame_library() -> None:
    """A command whose flags are wrong (``gaps`` without ``--by``, ``slices`` with ``--by``
    instead of ``--column``) says so (status 2) before anything reads the file: no frame
    library loaded, and a file that does not exist is never looked at."""
    argvs = [
        ["gaps", "missing.csv"],
        ["slices", "missing.csv", "--column", "theme", "--by", "theme"],
        ["gaps", "missing.csv", "--by", "group", "--permutations", "0"],
    ]
    found = json.loads(fresh(LOADED_IN_TURN.format(argvs=argvs, libraries=NOT_FOR_HELP)))
    assert [status for _, status, _ in found] == [2, 2, 2]
    assert {" ".join(argv): libraries for argv, _, libraries in found if libraries} == {}


def test_trec_on_plain_files_loads_neither_pandas_nor_pyarrow(tmp_path: Path) -> None:
    """``rankframe trec`` reads plain files with polars into codes and evaluates them on
    NumPy: pandas and pyarrow stay unloaded, with every option that changes the path (the
    per-query lines of all_trec, ``-c``, ``-l``, ``-M``, ``-J``); polars did the reading."""
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("1 Q0 a 1 2.5 r\n1 Q0 b 2 2.5 r\n1 Q0 c 3 1 r\n2 Q0 a 1 3 r\n")
    qrels.write_text("1 0 b 2\n1 0 d 1\n2 0 a 0\n3 0 a 1\n")
    argvs = [
        ["trec", str(qrels), str(run)],
        ["trec", "-q", "-m", "all_trec", str(qrels), str(run)],
        ["trec", "-q", "-c", "-l", "2", "-M", "2", "-J", "-m", "all_trec", str(qrels), str(run)],
    ]
    libraries = ("pandas", "pyarrow", "polars")
    found = json.loads(fresh(LOADED_IN_TURN.format(argvs=argvs, libraries=libraries)))
    assert [(status, loaded) for _, status, loaded in found] == [(0, ["polars"])] * len(argvs)


TREC_ALLOCATOR = """
import contextlib, io, json, os
{before}
from rankframe.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main({argv!r})
print(json.dumps(os.environ.get("_RJEM_MALLOC_CONF")))
"""


def test_trec_has_polars_allocator_return_freed_pages_unless_told_otherwise(
    tmp_path: Path,
) -> None:
    """``rankframe trec`` starts polars' allocator without its decay (the peak memory of a
    large run); a value of the user's is kept, and a process that loaded polars before
    is left as it is (polars reads the variable when it is imported)."""
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("1 Q0 a 1 2.5 r\n")
    qrels.write_text("1 0 a 1\n")
    argv = ["trec", str(qrels), str(run)]
    unset = "os.environ.pop('_RJEM_MALLOC_CONF', None)"
    told = "os.environ['_RJEM_MALLOC_CONF'] = 'narenas:2'"
    polars_first = f"{unset}; import polars"
    found = [
        json.loads(fresh(TREC_ALLOCATOR.format(before=before, argv=argv)))
        for before in (unset, told, polars_first)
    ]
    # polars puts its own defaults first, and the value found after them (jemalloc reads
    # the options in turn: the last of each wins)
    assert trec.ALLOCATOR[0] == "_RJEM_MALLOC_CONF"
    assert found[0].endswith(f",{trec.ALLOCATOR[1]}")
    assert found[1].endswith(",narenas:2")
    assert trec.ALLOCATOR[1] not in found[1] + found[2]
