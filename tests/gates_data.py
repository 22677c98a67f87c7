"""The hand-made frame of the gates' tests (``statistics/test_gates.py``,
``cli/test_check_cli.py``): 24 queries of four items ``a``..``d``, ``a`` the one relevant
item, and five systems, each putting ``a`` at a rank chosen per query (``RANKS``), so
that a query's reciprocal rank is 1/rank and its acc@1 is 1 at rank 1; a ``theme`` segment.
"""

from __future__ import annotations

from typing import Any

N = 24
ITEMS = ["a", "b", "c", "d"]
# the rank of item a (the relevant one) in each query, per system
RANKS = {
    "base": [1 if q % 4 != 3 else 2 for q in range(N)],  # RR 1 x18, 0.5 x6: mean 0.875
    "bad": [2 if q % 4 != 3 else 3 for q in range(N)],  # RR 0.5 x18, 1/3 x6
    "noisy": [
        2 if q in (0, 1, 2, 4, 5) else 1 if q in (3, 7) else (1 if q % 4 != 3 else 2)
        for q in range(N)
    ],
    "same": [1 if q % 4 != 3 else 2 for q in range(N)],
    "better": [1] * N,
}
SYSTEMS = list(RANKS)
SMALL = 3  # queries q0..q2 form the segment "small", the others "big"


def _scores(rank: int) -> list[float]:
    """Scores of items a, b, c, d that put a at ``rank`` (the others keep their order)."""
    order = ["b", "c", "d"]
    order.insert(rank - 1, "a")
    return [float(4 - order.index(item)) for item in ITEMS]


def frame_data() -> dict[str, list[Any]]:
    data: dict[str, list[Any]] = {
        "query": [f"q{q:02d}" for q in range(N) for _ in ITEMS],
        "item": ITEMS * N,
        "relevant": [1, 0, 0, 0] * N,
        "theme": ["small" if q < SMALL else "big" for q in range(N) for _ in ITEMS],
    }
    for system, ranks in RANKS.items():
        data[system] = [s for r in ranks for s in _scores(r)]
    return data
