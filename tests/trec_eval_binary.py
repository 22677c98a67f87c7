"""trec_eval's own binary as a reference, and random TREC files to compare it with.

:func:`trec_eval` is trec_eval 10.0 built from ``../shared/peers/trec_eval-10.0-src.tar.gz``
(the peers' folder beside the repository) into ``.cache/trec_eval-10.0/trec_eval`` by
``make trec-eval`` (the system's ``cc`` and ``make``); ``make test`` and ``make bench`` build
it first, and :func:`binary` builds it when it is missing (a test run outside ``make``). Its
code never enters the repository: the cache is ignored by git.

:func:`write_random_files` writes a run and its qrels built to exercise every rule trec_eval
applies: tied scores (broken by docno), negative scores, graded qrels with negative grades,
queries without a relevant document, judged documents the run does not retrieve, retrieved
documents without a judgment, queries of the run without qrels and of the qrels without a
run (in ``qrels_complete`` only: without ``-c`` trec_eval 10.0 stops at such a query,
"result qid '...' not found in qrels", exit status 4), ids that sort differently as
strings and as numbers, and long lists. The benchmarks import this module too
(``benchmarks/trec_cli.py``).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]  # the repository
BINARY = ROOT / ".cache" / "trec_eval-10.0" / "trec_eval"


def binary() -> Path:
    """trec_eval's binary, built by ``make trec-eval`` when missing; a failed build fails
    (it needs ``cc``, ``make`` and ``../shared/peers``), it is never skipped."""
    if not BINARY.exists():
        done = subprocess.run(
            ["make", "-s", "-C", str(ROOT), "trec-eval"],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not BINARY.exists():
            msg = (
                "could not build trec_eval's binary with `make trec-eval` (needs cc, make and "
                f"../shared/peers/trec_eval-10.0-src.tar.gz beside the repository):\n"
                f"{done.stdout}{done.stderr}"
            )
            raise RuntimeError(msg)
    return BINARY


def trec_eval(*args: str | Path) -> str:
    """The binary's standard output for ``args``; a non-zero exit raises with its stderr."""
    done = subprocess.run(
        [str(binary()), *map(str, args)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        msg = f"trec_eval {' '.join(map(str, args))} exited {done.returncode}: {done.stderr}"
        raise RuntimeError(msg)
    return done.stdout


@dataclass(frozen=True)
class TrecFiles:
    """A run and its qrels on disk, and the run's number of lines; ``qrels_complete`` adds
    judged queries that the run misses (for ``-c``)."""

    run: Path
    qrels: Path
    qrels_complete: Path
    lines: int


def _scores(rng: np.random.Generator, length: int) -> np.ndarray:
    """A query's scores: some queries one tied score, some few distinct values (many ties),
    some continuous; negative scores included."""
    style = rng.integers(0, 4)
    if style == 0:
        return np.full(length, float(rng.integers(-3, 4)))
    if style == 1:
        return rng.integers(-5, 6, length).astype(np.float64) / 2
    if style == 2:
        return np.round(rng.normal(0, 1, length), 2)
    return np.round(rng.random(length) * 100, 6)


def _grades(rng: np.random.Generator, count: int) -> np.ndarray:
    """Graded judgments: -1 (in the pool, unjudged) to 4; one query in eight has none above
    0 (no relevant document)."""
    if rng.random() < 0.125:
        return rng.choice([-1, 0], size=count, p=[0.2, 0.8])
    return rng.choice([-1, 0, 1, 2, 3, 4], size=count, p=[0.05, 0.5, 0.2, 0.12, 0.08, 0.05])


def write_random_files(folder: Path, lines: int, seed: int = 0) -> TrecFiles:
    """A random run of at least ``lines`` lines and its qrels in ``folder`` (see the
    module's docstring for what they hold)."""
    rng = np.random.default_rng(seed)
    run_rows: list[str] = []
    qrels_rows: list[str] = []
    missed_queries: list[str] = []
    written = 0
    query = 0
    while written < lines:
        query += 1
        qid = str(query) if query % 3 else f"q{query:05d}"  # "10" sorts before "9"
        long = rng.random() < 0.02
        length = int(rng.integers(1000, 3000)) if long else int(rng.integers(1, 150))
        pool = 2 * length + 20
        docs = rng.choice(pool, size=pool, replace=False)
        retrieved, rest = docs[:length], docs[length:]
        names = np.char.add("d", retrieved.astype(str))  # "d10" sorts before "d9" too
        in_run = rng.random() < 0.95  # else: a judged query the run misses (-c)
        if in_run:
            scores = _scores(rng, length)
            order = rng.permutation(length)  # file order is not score order
            run_rows.extend(
                f"{qid} Q0 {names[i]} {rank} {float(scores[i])!r} run48\n"
                for rank, i in enumerate(order, start=1)
            )
            written += length
        if in_run and rng.random() < 0.04:
            continue  # a query of the run without qrels: trec_eval skips it
        judged_ret = names[rng.random(length) < 0.4]
        missed = np.char.add("d", rest[: int(rng.integers(0, 30))].astype(str))
        judged = np.concatenate([judged_ret, missed])
        grades = _grades(rng, len(judged))
        rows = [f"{qid} 0 {d} {g}\n" for d, g in zip(judged, grades, strict=True)]
        (qrels_rows if in_run else missed_queries).extend(rows)
    run = folder / "run.txt"
    qrels = folder / "qrels.txt"
    qrels_complete = folder / "qrels_complete.txt"
    run.write_text("".join(run_rows))
    qrels.write_text("".join(qrels_rows))
    qrels_complete.write_text("".join(qrels_rows + missed_queries))
    return TrecFiles(run, qrels, qrels_complete, written)
