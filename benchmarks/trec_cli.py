"""The command line against trec_eval's own binary (``make bench``): its start, its output
byte for byte on a random run of 1,000,000 lines, and its wall time on 200,000 lines.

The binary is trec_eval 10.0 built from ``../shared/peers`` into ``.cache/`` (``make
trec-eval``); the random files are the slow test's (tests/trec_eval_binary.py:
``write_random_files``), larger. Each timing is a fresh process (``rankframe`` as a user runs
it: ``python -m rankframe.cli``), the median of ``--repeat`` runs, the binary and rankframe
alternating. Writes the "command line" section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import difflib
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from sections import markers, write_section

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from trec_eval_binary import binary, write_random_files  # noqa: E402  (tests/ on the path)

START, END = markers("command-line")
RANKFRAME = [sys.executable, "-m", "rankframe.cli"]
#: the comparisons: name, trec_eval's arguments before the files, whether -c's qrels
COMPARED = (
    ("default measures", [], False),
    ("-q -m all_trec", ["-q", "-m", "all_trec"], False),
    ("-q -m all_trec -l 2", ["-q", "-m", "all_trec", "-l", "2"], False),
    ("-q -m all_trec -c", ["-q", "-m", "all_trec", "-c"], True),
    ("-q -m all_trec -M 50", ["-q", "-m", "all_trec", "-M", "50"], False),
)
TIMED = (("default measures", []), ("-q -m all_trec", ["-q", "-m", "all_trec"]))


def wall(command: Sequence[str | Path]) -> tuple[float, str]:
    """Wall time of one run and its standard output."""
    began = time.perf_counter()
    done = subprocess.run(list(map(str, command)), capture_output=True, text=True, check=True)
    return time.perf_counter() - began, done.stdout


def cpu_of_children() -> float:
    """The CPU time (user and system) of this process's finished children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def start_times(repeat: int) -> list[tuple[str, float, float]]:
    """Median wall and CPU time of a fresh interpreter: nothing, ``import rankframe``, and
    the command line's ``--version`` and ``--help`` (the console script's own import). The
    CPU time is steadier than the wall time on a shared machine."""
    entry = "import sys; from rankframe.cli import main; sys.exit(main())"
    cases = {
        "`python -c pass`": [sys.executable, "-c", "pass"],
        "`import rankframe`": [sys.executable, "-c", "import rankframe"],
        "`rankframe --version`": [sys.executable, "-c", entry, "--version"],
        "`rankframe --help`": [sys.executable, "-c", entry, "--help"],
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, command in cases.items():
            before = cpu_of_children()
            times[name].append(wall(command)[0])
            cpu[name].append(cpu_of_children() - before)
    return [(name, statistics.median(times[name]), statistics.median(cpu[name])) for name in cases]


def differing_lines(expected: str, got: str) -> int:
    diff = difflib.unified_diff(expected.splitlines(), got.splitlines(), lineterm="", n=0)
    return sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=1_000_000, help="the compared run")
    parser.add_argument("--timing-lines", type=int, default=200_000, help="the timed run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    began = time.perf_counter()
    trec_eval = binary()
    starts = start_times(max(args.repeat, 5))
    compared, timed = [], []
    with tempfile.TemporaryDirectory() as folder:
        big = write_random_files(Path(folder), args.lines, seed=1)
        for name, options, complete in COMPARED:
            qrels = big.qrels_complete if complete else big.qrels
            expected = wall([trec_eval, *options, qrels, big.run])[1]
            got = wall([*RANKFRAME, "trec", *options, qrels, big.run])[1]
            compared.append((name, len(expected.splitlines()), differing_lines(expected, got)))
            print(compared[-1], flush=True)
        small_folder = Path(folder) / "timed"
        small_folder.mkdir()
        small = write_random_files(small_folder, args.timing_lines, seed=2)
        for name, options in TIMED:
            theirs, ours = [], []
            for _ in range(args.repeat):
                theirs.append(wall([trec_eval, *options, small.qrels, small.run])[0])
                ours.append(wall([*RANKFRAME, "trec", *options, small.qrels, small.run])[0])
            timed.append((name, statistics.median(theirs), statistics.median(ours)))
            print(timed[-1], flush=True)
    lines = [
        START,
        "## Command line: `rankframe trec` against trec_eval's binary, and the start",
        "",
        f"Written by `benchmarks/trec_cli.py` (`make bench`) on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.node() and 'shared machine'}, "
        f"total time of the run {time.perf_counter() - began:.0f} s. trec_eval 10.0 built "
        "from `../shared/peers` (`make trec-eval`); random runs and qrels "
        "(tests/trec_eval_binary.py); fresh processes, medians, the binary and rankframe "
        "alternating.",
        "",
        f"Output byte for byte on {big.lines:,} run lines:",
        "",
        "| arguments | trec_eval's lines | lines that differ |",
        "|---|---:|---:|",
        *(f"| `{name}` | {n:,} | {d:,} |" for name, n, d in compared),
        "",
        f"Wall time on {small.lines:,} run lines (median of {args.repeat}):",
        "",
        "| arguments | trec_eval, s | `rankframe trec`, s | ratio |",
        "|---|---:|---:|---:|",
        *(f"| {name} | {a:.2f} | {b:.2f} | {b / a:.2f}x |" for name, a, b in timed),
        "",
        f"Start (median of {max(args.repeat, 5)} fresh interpreters):",
        "",
        "| command | wall, s | CPU, s |",
        "|---|---:|---:|",
        *(f"| {name} | {t:.3f} | {c:.3f} |" for name, t, c in starts),
        END,
    ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("command-line", section)


if __name__ == "__main__":
    main()
