"""``rankframe evaluate FILE`` on a 1M-row Parquet file against reading the file with polars
and calling ``evaluate`` in Python (``make bench``): the whole command, and its part after
the start-up (the imports), which is the command's own work.

    python benchmarks/evaluate_cli.py [--repeat 5]

The file is the benchmark's size S (10,000 queries, 1M rows, ``data.make``), the six metrics
of ``run.py``. Each timing is a fresh process, the two ways alternating, medians of
``--repeat`` rounds:

- the command: ``python -m rankframe.cli evaluate FILE -m ...``, wall time of the process;
- Python: ``python -c`` that imports polars and rankframe, ``pl.read_parquet`` and
  ``df.rank_eval.evaluate(...)``, wall time of the process;
- after the start-up: inside a fresh process, from after the imports to the end, the command
  (``rankframe.cli.main``) and the read plus the call: the command's own work against
  Python's, without the start-up both pay.

Writes the "evaluate-cli" section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from harness import METRICS, ensure_data
from sections import markers, write_section

START, END = markers("evaluate-cli")
#: the command's own work (after the imports) at most this many times read + call
LIMIT = 1.5

# a fresh process: the imports, then the timed part; prints the seconds after the imports
INSIDE = {
    "command": (
        "import contextlib, io, sys, time\n"
        "import rankframe.cli\n"
        "t = time.perf_counter()\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    rankframe.cli.main(['evaluate', sys.argv[1], '-m', sys.argv[2]])\n"
        "print(time.perf_counter() - t)\n"
    ),
    "python": (
        "import sys, time\n"
        "import polars as pl, rankframe\n"
        "t = time.perf_counter()\n"
        "pl.read_parquet(sys.argv[1]).rank_eval.evaluate(sys.argv[2].split(','))\n"
        "print(time.perf_counter() - t)\n"
    ),
}
WHOLE = {
    "command": ["-m", "rankframe.cli", "evaluate", "{file}", "-m", "{metrics}"],
    "python": [
        "-c",
        "import sys, polars as pl, rankframe\n"
        "pl.read_parquet(sys.argv[1]).rank_eval.evaluate(sys.argv[2].split(','))",
        "{file}",
        "{metrics}",
    ],
}


def wall(arguments: list[str]) -> tuple[float, str]:
    """Wall time of a fresh interpreter with ``arguments``, and its standard output."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, *arguments], capture_output=True, text=True, check=True)
    return time.perf_counter() - began, done.stdout


def measure(file: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Medians of the whole process and of the part after the imports, per way."""
    metrics = ",".join(METRICS)
    times: dict[str, dict[str, list[float]]] = {
        way: {"whole": [], "after start-up": []} for way in WHOLE
    }
    for _ in range(repeat):
        for way in WHOLE:  # the two ways alternating
            arguments = [a.format(file=file, metrics=metrics) for a in WHOLE[way]]
            times[way]["whole"].append(wall(arguments)[0])
            inside = float(wall(["-c", INSIDE[way], str(file), metrics])[1].split()[-1])
            times[way]["after start-up"].append(inside)
    return {
        way: {part: statistics.median(t) for part, t in parts.items()}
        for way, parts in times.items()
    }


def render(medians: dict[str, dict[str, float]], repeat: int, load: tuple[float, float]) -> str:
    """The section: the table and the verdict on the command's own work."""
    ratio = {
        part: medians["command"][part] / medians["python"][part]
        for part in ("whole", "after start-up")
    }
    verdict = "within" if ratio["after start-up"] <= LIMIT else "OVER"
    own, read_call = medians["command"]["after start-up"], medians["python"]["after start-up"]
    start_up = medians["command"]["whole"] - own
    label = {"whole": "the whole process", "after start-up": "after the start-up"}
    rows = [
        f"| {label[part]} | {medians['command'][part]:.3f} | {medians['python'][part]:.3f} "
        f"| {ratio[part]:.2f}x |"
        for part in ("whole", "after start-up")
    ]
    # the measure: the whole command against Python's read + call alone
    whole = medians["command"]["whole"] / medians["python"]["after start-up"]
    rows.append(
        f"| the whole command against read + call | {medians['command']['whole']:.3f} "
        f"| {medians['python']['after start-up']:.3f} | {whole:.2f}x |"
    )
    return "\n".join(
        [
            START,
            "## `rankframe evaluate FILE` against Python, 1M rows of Parquet",
            "",
            f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, `python benchmarks/evaluate_cli.py "
            f"--repeat {repeat}`: size S (10,000 queries, 1,000,103 rows), the six metrics; "
            "fresh processes, the two ways alternating, medians (wall seconds). Python: "
            "`pl.read_parquet(FILE).rank_eval.evaluate(...)`. After start-up: from after "
            "the imports to the end, in a fresh process (the command's own work: reading "
            "the columns it names, checking them, the call and the table). "
            f"Load average {load[0]:.1f} at the start, {load[1]:.1f} at the end (2 cores).",
            "",
            "| | `rankframe evaluate` | Python | ratio |",
            "|---|---:|---:|---:|",
            *rows,
            "",
            f"The command's own work at {ratio['after start-up']:.2f}x read + call: {verdict} "
            f"the limit of {LIMIT}x. The whole command adds the start-up (the interpreter and "
            f"the imports, {start_up:.2f} s here), which `rankframe --version` times in the "
            f"command line section: the whole command is within {LIMIT}x read + call only "
            f"once the start-up is under {LIMIT * read_call - own:.2f} s.",
            END,
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds of the two ways")
    args = parser.parse_args()
    file = ensure_data("S")
    start_load = os.getloadavg()[0]
    medians = measure(file, args.repeat)
    section = render(medians, args.repeat, (start_load, os.getloadavg()[0]))
    print(section)
    write_section("evaluate-cli", section)


if __name__ == "__main__":
    main()
