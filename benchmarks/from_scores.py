"""Benchmark of ``rankframe.from_scores``: a logits matrix into five metrics, end to end.

Usage: ``python benchmarks/from_scores.py`` (``make bench`` runs it after ``run.py``). Writes
its section of ``benchmarks/RESULTS.md``.

A 100,000 x 1,000 float32 matrix (seeded standard normal) and one true column per row, the
shape of a next-location model's output. rankframe: ``from_scores(scores, truth, k=10)``
then ``evaluate(["acc@1", "acc@5", "acc@10", "mrr", "ndcg@10"])``, timed from the matrix to
the table. The floor: ``np.argpartition(scores, V - 10, axis=1)``, the top 10 of the same
matrix and nothing else. Each time is the median of 3 runs after a warm-up, in one process.
The extra memory of ``from_scores`` is traced with ``tracemalloc`` (NumPy reports its
allocations there): the peak above the matrix, against the matrix's size. The values are
checked against ranks computed with NumPy from the full matrix.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import timed  # the same warm-up and median as compare.py
from sections import markers, write_section

import rankframe

START, END = markers("from-scores")
ROWS, COLUMNS, K = 100_000, 1_000, 10
METRICS = ["acc@1", "acc@5", "acc@10", "mrr", "ndcg@10"]
TARGET = 3.0


def reference(scores: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    """The five metrics from each row's rank of its true column (higher scores first; equal
    scores by column descending, trec_eval's rule), on the whole matrix. ``mrr`` of a top-10
    frame is MRR@10."""
    true_score = scores[np.arange(len(truth)), truth][:, None]
    columns = np.arange(scores.shape[1])
    rank = ((scores > true_score) | ((scores == true_score) & (columns > truth[:, None]))).sum(
        axis=1
    ) + 1
    return {
        "acc@1": float(np.mean(rank <= 1)),
        "acc@5": float(np.mean(rank <= 5)),
        "acc@10": float(np.mean(rank <= 10)),
        "mrr": float(np.mean(np.where(rank <= K, 1 / rank, 0.0))),
        "ndcg@10": float(np.mean(np.where(rank <= 10, 1 / np.log2(rank + 1), 0.0))),
    }


def main() -> None:
    rng = np.random.default_rng(0)
    # a model that is right some of the time: the true column gets a boost
    truth = rng.integers(0, COLUMNS, size=ROWS)
    scores = rng.standard_normal((ROWS, COLUMNS), dtype=np.float32)
    scores[np.arange(ROWS), truth] += np.float32(2.0)
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"

    def end_to_end() -> Any:
        return rankframe.from_scores(scores, truth, k=K).rank_eval.evaluate(METRICS)

    floor = timed(lambda: np.argpartition(scores, COLUMNS - K, axis=1))
    ours = timed(end_to_end)
    build = timed(lambda: rankframe.from_scores(scores, truth, k=K))
    frame = rankframe.from_scores(scores, truth, k=K)
    evaluate = timed(lambda: frame.rank_eval.evaluate(METRICS))

    tracemalloc.start()
    rankframe.from_scores(scores, truth, k=K)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    table = end_to_end()
    expected = reference(scores, truth)
    worst = max(abs(float(table.loc[0, name]) - expected[name]) for name in METRICS)
    rows = {
        f"floor: np.argpartition of the matrix (top {K})": floor,
        f"rankframe: from_scores(k={K}) + evaluate, end to end": ours,
        f"  of which from_scores(k={K})": build,
        f"  of which evaluate on its {len(frame):,} rows": evaluate,
    }
    ratio = ours / floor
    section = render(rows, ratio, peak, scores.nbytes, worst, expected, load)
    write_section("from-scores", section)
    print(section)


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def render(
    rows: dict[str, float],
    ratio: float,
    peak: int,
    matrix_bytes: int,
    worst: float,
    expected: dict[str, float],
    load: str,
) -> str:
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    values = ", ".join(f"{name} {expected[name]:.4f}" for name in METRICS)
    lines = [
        START,
        "## A score matrix: `from_scores` (`benchmarks/from_scores.py`)",
        "",
        f"{now}, {platform.node()}, {platform.machine()}, Python "
        f"{platform.python_version()}, NumPy {np.__version__}, rankframe at `{commit()}`; "
        f"load average {load} at the start. A {ROWS:,} x {COLUMNS:,} float32 matrix "
        f"(standard normal, the true column + 2) and the true column of each row; metrics "
        f"{', '.join(METRICS)}. Median of 3 after a warm-up, in one process.",
        "",
        "| step | seconds |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {seconds:.3f} |" for name, seconds in rows.items()]
    verdict = "PASS" if ratio <= TARGET else "FAIL"
    lines += [
        "",
        "| target | measured | verdict |",
        "|---|---:|---|",
        f"| from_scores(k={K}) + evaluate <= {TARGET:.0f}x np.argpartition of the matrix | "
        f"{ratio:.2f}x | {verdict} |",
        "",
        f"Extra memory of from_scores (tracemalloc peak): {peak / 2**20:.1f} MiB, "
        f"{peak / matrix_bytes:.1%} of the matrix ({matrix_bytes / 2**20:.0f} MiB): the "
        "matrix is read in blocks of rows, never copied whole.",
        "",
        f"Values ({values}; mrr is MRR@{K} on a top-{K} frame) agree with ranks computed by "
        f"NumPy on the whole matrix to {worst:.1e}.",
        END,
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
