"""Compile ranx's numba kernels into ranx's own cache, once per environment.

ranx (a peer the tests compare with: the ``convention="ranx"`` preset, f1) compiles its
metrics with numba ``cache=True``: the first process that evaluates them compiles and writes
them next to ranx's modules (60-80 s on 2 cores), every later process loads them in seconds.
The Makefile runs this right after installing the test peers, as ``pip`` compiles bytecode at
install time, so that the test run itself does not pay the compilation on a fresh environment.
The metrics are those the tests ask ranx for; both the per-query and the mean paths.
"""

from __future__ import annotations

import ranx

METRICS = [
    "mrr@5",
    "ndcg@5",
    "map@5",
    "map",
    "precision@3",
    "recall@5",
    "hits@5",
    "hit_rate@3",
    "r-precision",
    "dcg@5",
    "ndcg_burges@5",
    "dcg_burges@5",
    "f1@3",
    "f1",
]

# numba compiles ranx's dictionary code once per length of the longest document id (its
# arrays of ids are fixed-width strings): the tests' ids are 1 to 4 characters long
for length in range(1, 5):
    a, b, c, d, e = (letter * length for letter in "abcde")
    qrels = ranx.Qrels({"q1": {a: 1, b: 2}, "q2": {c: 1}})
    run = ranx.Run({"q1": {a: 0.9, b: 0.8, d: 0.1}, "q2": {c: 0.5, e: 0.7}})
    for mean in (False, True):
        ranx.evaluate(qrels, run, METRICS, return_mean=mean, make_comparable=True)
