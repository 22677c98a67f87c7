"""The command line against trec_eval's own binary (``make bench``): its start, its output
byte for byte on a random run of 1,000,000 lines, and its wall time and peak memory on runs
of 200,000 and 2,000,000 lines, beside pytrec_eval on the same files.

The binary is trec_eval 10.0 built from ``../shared/peers`` into ``.cache/`` (``make
trec-eval``); the random files are the slow test's (tests/trec_eval_binary.py:
``write_random_files``), larger. Each timing is a fresh process (``rankframe`` as a user runs
it: ``python -m rankframe.cli``), its output written to a file, the median of ``--repeat``
runs, the binary, rankframe and pytrec_eval alternating; the peak memory is the process's
maximum resident set (``wait4``, in a fresh process between: see ``_MEASURE``), the median
too. pytrec_eval runs as a user of its Python API would (this file with
``--pytrec-eval``): ``parse_qrel`` and ``parse_run`` read the files,
``RelevanceEvaluator`` evaluates trec_eval's default measures (``-q -m all_trec``: every
measure it supports) and the values are printed as trec_eval prints them. Writes the
"command line" section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import compileall
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
#: the timed runs: their lines and seeds
TIMED_LINES = ((200_000, 2), (2_000_000, 3))
#: trec_eval's default measures, as pytrec_eval names them
OFFICIAL = {"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref"}
OFFICIAL |= {"recip_rank", "iprec_at_recall", "P"}


def wall(command: Sequence[str | Path]) -> tuple[float, str]:
    """Wall time of one run and its standard output."""
    began = time.perf_counter()
    done = subprocess.run(list(map(str, command)), capture_output=True, text=True, check=True)
    return time.perf_counter() - began, done.stdout


def cpu_of_children() -> float:
    """The CPU time (user and system) of this process's finished children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


#: runs a command and writes its wall time and peak memory: a fresh process between this
#: one and the measured one, whose peak would otherwise count this one's (Linux hands a
#: process's peak on through fork and exec)
_MEASURE = """
import os, sys, time
began = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{time.perf_counter() - began} {usage.ru_maxrss} {status} "
              f"{usage.ru_utime + usage.ru_stime}")
"""


def measured(command: Sequence[str | Path], output: Path) -> tuple[float, float, float]:
    """Wall time (s), peak resident memory (MB) and CPU time (user and system, s) of one
    run, its output to ``output``."""
    errors, facts = output.with_suffix(".err"), output.with_suffix(".facts")
    with output.open("wb") as out, errors.open("wb") as err:
        subprocess.run(
            [sys.executable, "-c", _MEASURE, facts, *map(str, command)],
            stdout=out,
            stderr=err,
            check=True,
        )
    elapsed, peak, status, cpu = facts.read_text().split()
    if status != "0":
        msg = f"{command} failed ({status}): {errors.read_text()[-2000:]}"
        raise RuntimeError(msg)
    return float(elapsed), int(peak) / 1024, float(cpu)


def pytrec_eval_main(qrels: str, run: str, per_query: bool) -> None:
    """What a pytrec_eval user runs: both files parsed, the measures evaluated, the values
    printed as trec_eval prints them (per query with ``per_query``, then the means)."""
    import pytrec_eval

    with open(qrels) as file:
        judged = pytrec_eval.parse_qrel(file)
    with open(run) as file:
        ranked = pytrec_eval.parse_run(file)
    measures = set(pytrec_eval.supported_measures) if per_query else OFFICIAL
    values = pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(ranked)
    names = sorted({name for query in values.values() for name in query})
    lines = []
    if per_query:
        for query in sorted(values):
            lines += [f"{n:<22}\t{query}\t{values[query][n]:.4f}" for n in names]
    for n in names:
        mean = sum(values[q][n] for q in values) / len(values)
        lines.append(f"{n:<22}\tall\t{mean:.4f}")
    sys.stdout.write("\n".join(lines) + "\n")


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
    parser.add_argument("--timed-sizes", type=int, default=len(TIMED_LINES), help="of 200k, 2M")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--pytrec-eval", nargs=3, metavar=("QRELS", "RUN", "PER_QUERY"))
    args = parser.parse_args()
    if args.pytrec_eval:
        qrels, run, per_query = args.pytrec_eval
        pytrec_eval_main(qrels, run, per_query == "1")
        return
    began = time.perf_counter()
    trec_eval = binary()
    # rankframe's bytecode written first, as an installed package has it: with
    # PYTHONDONTWRITEBYTECODE set (as on the project's machine) every fresh process would
    # otherwise compile its ~110 modules again (0.25-0.4 s of each run)
    compileall.compile_dir(ROOT / "src" / "rankframe", quiet=1)
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
        for lines, seed in TIMED_LINES[: args.timed_sizes]:
            timed += timings(Path(folder), trec_eval, lines, seed, args.repeat)
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
        "Wall time, CPU time (user and system: steadier than the wall time on a shared "
        f"machine) and peak memory (median of {args.repeat}; ratios to trec_eval's):",
        "",
        "| run lines | arguments | trec_eval, s | `rankframe trec`, s | ratio "
        "| trec_eval CPU, s | `rankframe trec` CPU, s | ratio | pytrec_eval, s "
        "| trec_eval, MB | `rankframe trec`, MB | ratio | pytrec_eval, MB |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *(timed_row(row) for row in timed),
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


def timings(
    folder: Path, trec_eval: Path, lines: int, seed: int, repeat: int
) -> list[tuple[int, str, list[tuple[float, float, float]]]]:
    """Per timed arguments, the run's lines and the median wall time and memory of
    trec_eval, rankframe and pytrec_eval on a random run of ``lines`` lines."""
    where = folder / f"timed{lines}"
    where.mkdir()
    files = write_random_files(where, lines, seed=seed)
    out = where / "out.txt"
    rows = []
    for name, options in TIMED:
        per_query = "1" if "-q" in options else "0"
        commands = [
            [trec_eval, *options, files.qrels, files.run],
            [*RANKFRAME, "trec", *options, files.qrels, files.run],
            [sys.executable, __file__, "--pytrec-eval", files.qrels, files.run, per_query],
        ]
        runs: list[list[tuple[float, float, float]]] = [[] for _ in commands]
        for _ in range(repeat):
            for command, kept in zip(commands, runs, strict=True):
                kept.append(measured(command, out))
        medians = [
            (
                statistics.median(t for t, _, _ in kept),
                statistics.median(m for _, m, _ in kept),
                statistics.median(c for _, _, c in kept),
            )
            for kept in runs
        ]
        rows.append((files.lines, name, medians))
        print(rows[-1], flush=True)
    return rows


def timed_row(row: tuple[int, str, list[tuple[float, float, float]]]) -> str:
    lines, name, ((c, c_mb, c_cpu), (r, r_mb, r_cpu), (p, p_mb, _)) = row
    return (
        f"| {lines:,} | {name} | {c:.2f} | {r:.2f} | {r / c:.2f}x | {c_cpu:.2f} | {r_cpu:.2f} "
        f"| {r_cpu / c_cpu:.2f}x | {p:.2f} | {c_mb:.0f} | {r_mb:.0f} | {r_mb / c_mb:.2f}x "
        f"| {p_mb:.0f} |"
    )


if __name__ == "__main__":
    main()
