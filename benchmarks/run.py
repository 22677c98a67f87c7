"""rankframe against its peers on the issue's workload; writes benchmarks/RESULTS.md.

    python benchmarks/run.py --size S        # everything (what `make bench SIZE=S` runs)
    python benchmarks/run.py --size L --only floor,rankframe_pandas   # a partial run
    python benchmarks/run.py --worker ranx --size S --repeat 3    # one approach, prints JSON

    python benchmarks/run.py --short-lists-only   # only the scaling of many short lists:
                                                  # replaces its section of RESULTS.md
    python benchmarks/run.py --all-trec-only --size M   # only every measure of trec_eval's
                                                  # all_trec: replaces its section

A partial run (``--only``, ``--skip-shapes``, ``--skip-scaling``, ``--skip-short-lists``,
``--skip-all-trec``)
writes its report to
``benchmarks/data/RESULTS-<size>-partial.md`` and leaves RESULTS.md alone (unless
``--write-results``); its agreement check compares only the approaches it times, plus
pytrec_eval per query.

The main process generates the data once per size (seeded, ``data.make``) and caches it as
parquet in ``benchmarks/data/``. It then checks that the tools agree on the values (one
subprocess, ``--worker agree``), and times every approach in a fresh subprocess of its own:
the worker loads the data, records its resident memory, runs the approach once to warm up and
``--repeat`` times measured, end to end from the frame (building a peer's own input structures
included), and prints JSON. Peak memory comes from ``/proc/self/status``: the high-water mark
``VmHWM`` is reset before every run (``echo 5 > /proc/self/clear_refs``) and the memory resident
after loading is subtracted. Everything is reported as ratios measured within one run, because
the machine is shared and its absolute speed varies.

This file is the entry point and the main process (which workers to spawn, in what order,
and where the report goes); the harness (data, memory, timing) is ``harness.py``, the timed
approaches ``peers.py``, the agreement check ``check.py``, a worker's job ``workers.py`` and
the Markdown of RESULTS.md ``report.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from check import report_agreement
from harness import (
    ALL_TREC_APPROACHES,
    AVERAGE_APPROACHES,
    DATA_DIR,
    GIB,
    HERE,
    RESULTS,
    SHAPES,
    SHORT_LIST_APPROACHES,
    SHORT_LIST_PROCESSES,
    SHORT_LISTS,
    ensure_data,
    log,
)
from peers import APPROACHES, SECTION_ONLY, all_trec_measures, missing_modules
from report import render, render_all_trec, render_short_lists, render_ties_average
from sections import carried_sections, write_section
from workers import worker

from data import SIZES


def spawn(
    name: str, size: str, repeat: int, timeout: float, extra: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Run one worker in a fresh interpreter and return its JSON (or why there is none)."""
    if name in APPROACHES and (missing := missing_modules(APPROACHES[name])):
        log(f"  {name} on {size}: not installed ({', '.join(missing)})")
        return {"status": "not installed", "missing": missing}
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        name,
        "--size",
        size,
        "--repeat",
        str(repeat),
        *extra,
    ]
    log(f"  {name} on {size} ...")
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        log(f"    timed out after {timeout:.0f} s")
        return {"status": f"timed out after {timeout:.0f} s"}
    if done.returncode != 0:
        log(f"    failed:\n{done.stderr[-3000:]}")
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"status": f"failed: {tail[0][:200]}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if "median" in result:
        log(
            f"    median {result['median']:.3f} s, peak extra {result['peak_extra_gib']:.2f} GiB"
            f" ({time.perf_counter() - started:.0f} s with loading and warm-up)"
        )
    return result


def versions() -> dict[str, str]:
    names = [
        "rankframe",
        "numpy",
        "pandas",
        "polars",
        "pyarrow",
        "pandera",
        "pytrec-eval-terrier",
        "ranx",
        "numba",
        "torchmetrics",
        "torch",
        "ir-measures",
    ]
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def machine() -> dict[str, Any]:
    cpu = "unknown"
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem_total = 0
    with open("/proc/meminfo") as info:
        for line in info:
            if line.startswith("MemTotal:"):
                mem_total = int(line.split()[1]) * 1024
    try:
        commit = subprocess.run(
            ["git", "-C", str(HERE), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "ram_gib": mem_total / GIB,
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
        "commit": commit or "unknown",
    }


def time_short_lists(repeat: int, timeout: float) -> dict[str, dict[str, Any]]:
    """Each short-list size, each approach of SHORT_LIST_APPROACHES: its workers' JSON, from
    SHORT_LIST_PROCESSES fresh processes (:func:`of_processes`)."""
    for s in SHORT_LISTS:
        ensure_data(s)
    return {
        s: {
            n: of_processes([spawn(n, s, repeat, timeout) for _ in range(SHORT_LIST_PROCESSES)])
            for n in SHORT_LIST_APPROACHES
        }
        for s in SHORT_LISTS
    }


def of_processes(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Several workers' JSON of one approach and size as one: the median of their medians
    (``median``), each of them (``process_medians``) and every run's time; the first
    result without a median (a failure) as it is."""
    failed = next((r for r in results if "median" not in r), None)
    if failed is not None:
        return failed
    medians = [r["median"] for r in results]
    return {
        **results[0],
        "median": statistics.median(medians),
        "process_medians": medians,
        "times": [t for r in results for t in r["times"]],
    }


def section_run(
    name: str,
    args: argparse.Namespace,
    time_it: Callable[[], Any],
    render_it: Callable[[Any, dict[str, Any]], str],
    **facts: Any,
) -> None:
    """Time what one section of RESULTS.md reports (``time_it``) and replace that section
    (``render_it`` of the timings and the run's facts: machine, date, command, ...)."""
    started = time.perf_counter()
    info = {
        "machine": machine(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "repeat": args.repeat,
        "command": " ".join(sys.argv),
        **facts,
    }
    timings = time_it()
    info["machine"]["load_average_end"] = os.getloadavg()
    info["elapsed_s"] = time.perf_counter() - started
    section = render_it(timings, info)
    write_section(name, section, RESULTS)
    print(section)
    log(f"wrote its section of {RESULTS}")


def short_lists_run(args: argparse.Namespace) -> None:
    """Only the scaling of many short lists: its section of RESULTS.md, replaced."""
    log(f"many short lists ({', '.join(SHORT_LISTS)}) in {DATA_DIR}")
    section_run(
        "short-lists", args, lambda: time_short_lists(args.repeat, args.timeout), render_short_lists
    )


def ties_average_run(args: argparse.Namespace) -> None:
    """Only ties="average" against the default ties="trec": its section of RESULTS.md."""
    ensure_data(args.size)
    section_run(
        "ties-average",
        args,
        lambda: {n: spawn(n, args.size, args.repeat, args.timeout) for n in AVERAGE_APPROACHES},
        render_ties_average,
        size=args.size,
    )


def time_all_trec(size: str, repeat: int, timeout: float) -> dict[str, Any]:
    """all_trec's agreement with pytrec_eval, then each approach of ALL_TREC_APPROACHES."""
    log(f"all_trec on {size}: agreement with pytrec_eval, then timing")
    agreement = spawn("agree_all_trec", size, 1, timeout)
    timings = {n: spawn(n, size, repeat, timeout) for n in ALL_TREC_APPROACHES}
    return {
        "size": size,
        "agreement": agreement,
        "timings": timings,
        "n_metrics": len(all_trec_measures()),
    }


def all_trec_run(args: argparse.Namespace) -> None:
    """Only every measure of all_trec: its section of RESULTS.md, replaced."""
    started = time.perf_counter()
    ensure_data(args.size)
    info = {
        "machine": machine(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "repeat": args.repeat,
        "command": " ".join(sys.argv),
    }
    timed_all = time_all_trec(args.size, args.repeat, args.timeout)
    info["machine"]["load_average_end"] = os.getloadavg()
    info["elapsed_s"] = time.perf_counter() - started
    DATA_DIR.mkdir(exist_ok=True)
    (DATA_DIR / f"all-trec-{args.size}.json").write_text(
        json.dumps({"info": info, **timed_all}, indent=1, default=str)
    )
    section = render_all_trec(timed_all, info)
    write_section("all-trec", section, RESULTS)
    print(section)
    log(f"wrote its section of {RESULTS}")


def main_run(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    size = args.size
    names = args.only.split(",") if args.only else [n for n in APPROACHES if n not in SECTION_ONLY]
    unknown = [n for n in names if n not in APPROACHES]
    if unknown:
        raise SystemExit(f"unknown approach(es): {unknown}; known: {list(APPROACHES)}")
    extra_sizes = [] if args.skip_shapes else list(SHAPES)
    scaling = size != "S" and not args.skip_scaling
    log(
        f"data ({size}{', ' + ', '.join(extra_sizes) if extra_sizes else ''}"
        f"{', S for scaling' if scaling else ''}) in {DATA_DIR}"
    )
    for s in [size, *extra_sizes, *(["S"] if scaling else [])]:
        ensure_data(s)
    info = {
        "machine": machine(),
        "versions": versions(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "size": size,
        "repeat": args.repeat,
        "command": " ".join(sys.argv),
    }

    log("agreement check")
    agreement = spawn("agree", size, 1, args.timeout, ("--only", args.only) if args.only else ())
    report_agreement(agreement)

    log(f"timing (warm-up + {args.repeat} runs each, every approach in a fresh process)")
    results = {name: spawn(name, size, args.repeat, args.timeout) for name in names}
    validation = spawn("validation", size, args.repeat, args.timeout)
    shapes = {
        s: {n: spawn(n, s, args.repeat, args.timeout) for n in ("floor", "rankframe_pandas")}
        for s in extra_sizes
    }
    small = (
        {n: spawn(n, "S", args.repeat, args.timeout) for n in ("floor", "rankframe_pandas")}
        if scaling
        else {}
    )
    short_lists = {} if args.skip_short_lists else time_short_lists(args.repeat, args.timeout)
    all_trec = {} if args.skip_all_trec else time_all_trec(size, args.repeat, args.timeout)
    info["machine"]["load_average_end"] = os.getloadavg()
    info["elapsed_s"] = time.perf_counter() - started
    raw = {
        "info": info,
        "agreement": agreement,
        "results": results,
        "validation": validation,
        "shapes": shapes,
        "scaling_small": small,
        "short_lists": short_lists,
        "all_trec": all_trec,
    }
    DATA_DIR.mkdir(exist_ok=True)
    # a partial run (--only, --skip-*) does not replace the full report unless asked to
    partial = bool(
        args.only
        or args.skip_shapes
        or args.skip_short_lists
        or args.skip_all_trec
        or (args.skip_scaling and size != "S")
    )
    suffix = "-partial" if partial else ""
    (DATA_DIR / f"results-{size}{suffix}.json").write_text(json.dumps(raw, indent=1, default=str))
    text = render(raw)
    out = RESULTS if not partial or args.write_results else DATA_DIR / f"RESULTS-{size}-partial.md"
    if out == RESULTS:
        out.write_text(carried_sections(text, RESULTS))
        if short_lists:  # a section of its own, which --short-lists-only replaces alone
            write_section("short-lists", render_short_lists(short_lists, info), RESULTS)
        if all_trec:  # the same, --all-trec-only
            write_section("all-trec", render_all_trec(all_trec, info), RESULTS)
    else:
        out.write_text(
            text
            + ("\n" + render_short_lists(short_lists, info) + "\n" if short_lists else "")
            + ("\n" + render_all_trec(all_trec, info) + "\n" if all_trec else "")
        )
    print(text)
    log(f"wrote {out} ({info['elapsed_s']:.0f} s in all)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="S", choices=sorted(SIZES))
    parser.add_argument(
        "--repeat", type=int, default=3, help="at least this many measured runs (after a warm-up)"
    )
    parser.add_argument("--only", help="comma-separated approaches (default: all)")
    parser.add_argument(
        "--skip-shapes", action="store_true", help="do not time the long and short list shapes"
    )
    parser.add_argument(
        "--skip-scaling", action="store_true", help="with SIZE=M or L, do not also time S"
    )
    parser.add_argument(
        "--skip-short-lists",
        action="store_true",
        help="do not time the scaling of many short lists (1M and 5M queries x 2 items)",
    )
    parser.add_argument(
        "--short-lists-only",
        action="store_true",
        help="time only the scaling of many short lists and replace its section of RESULTS.md",
    )
    parser.add_argument(
        "--ties-average-only",
        action="store_true",
        help='time only ties="average" against ties="trec" at --size and '
        "replace its section of RESULTS.md",
    )
    parser.add_argument(
        "--skip-all-trec",
        action="store_true",
        help="do not time every measure of trec_eval's all_trec",
    )
    parser.add_argument(
        "--all-trec-only",
        action="store_true",
        help="time only every measure of all_trec (at --size) and replace its "
        "section of RESULTS.md",
    )
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per worker")
    parser.add_argument(
        "--write-results",
        action="store_true",
        help="write RESULTS.md even for a partial run (--only, --skip-*); by "
        "default a partial run writes data/RESULTS-<size>-partial.md",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.worker:
        print(json.dumps(worker(args), default=float))
    elif args.short_lists_only:
        short_lists_run(args)
    elif args.ties_average_only:
        ties_average_run(args)
    elif args.all_trec_only:
        all_trec_run(args)
    else:
        main_run(args)


if __name__ == "__main__":
    main()
