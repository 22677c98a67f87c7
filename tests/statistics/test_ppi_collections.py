"""Honest intervals, measured through the frame path (issue 47, "What must hold"): 500
simulated collections, each a segment of one frame, with a judge of known bias and noise;
``evaluate(estimate=..., by="collection")`` gives every collection's estimate in one call.

Each query is one row whose grade is its per-query value: ``dcg@1(negative_gains=keep)`` of
one item at rank 1 with a linear gain is its grade, so the metric's per-query values are the
simulated ones exactly (the judge's can be negative). People's grade column is NaN outside
the queries they judged. The figures are in docs/judgments.md and benchmarks/RESULTS.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from helpers import as_pandas

pytestmark = [pytest.mark.load, pytest.mark.frame_kinds("polars")]

COLLECTIONS, QUERIES, PEOPLE = 500, 500, 100  # people judge a fifth of each collection
BETA = (2.0, 3.0)  # people's per-query values: mean 0.4, standard deviation 0.2
MU = BETA[0] / sum(BETA)
SD = float(np.sqrt(BETA[0] * BETA[1] / (sum(BETA) ** 2 * (sum(BETA) + 1))))
BIAS = 0.1  # the judge adds 0.1 to every value, and noise scaled to the correlation
METRIC = "dcg@1(negative_gains=keep)"

FloatArray = npt.NDArray[np.float64]


def _simulated(rho: float) -> tuple[FloatArray, FloatArray]:
    """People's values and the judge's (collections x queries): ``F = Y + BIAS + sigma e``,
    ``sigma = SD sqrt(1 / rho**2 - 1)``, so that F correlates with Y at ``rho``."""
    rng = np.random.default_rng(20261129)
    y = rng.beta(*BETA, (COLLECTIONS, QUERIES))
    noise = rng.standard_normal((COLLECTIONS, QUERIES))
    return y, y + BIAS + SD * np.sqrt(1.0 / rho**2 - 1.0) * noise


def _estimates(make_frame: Any, y: FloatArray, f: FloatArray) -> dict[str, Any]:
    """Per estimate, every collection's (mean, low, high), in collection order."""
    judged = np.arange(QUERIES)[None, :] < PEOPLE  # queries are iid: the first are a sample
    n = COLLECTIONS * QUERIES
    frame = make_frame(
        {
            "collection": np.repeat(np.arange(COLLECTIONS), QUERIES),
            "query": np.arange(n),
            "item": np.zeros(n, dtype=np.int64),
            "score": np.ones(n),
            "llm": f.ravel(),
            "human": np.where(judged, y, np.nan).ravel(),
        }
    )
    ev = frame.rank_eval(relevant="llm", gold="human")
    out = {}
    for estimate in ("ppi", "ppi++", "gold", "judge"):
        table = as_pandas(ev.evaluate(METRIC, by="collection", estimate=estimate))
        table = table.sort_values("collection")
        assert table["n_gold"].eq(PEOPLE).all()
        assert table["n_queries"].eq(QUERIES).all()
        out[estimate] = tuple(
            table[c].to_numpy(dtype=np.float64)
            for c in (METRIC, f"{METRIC}_ci_low", f"{METRIC}_ci_high")
        )
    return out


def _covers(estimate: tuple[FloatArray, FloatArray, FloatArray], target: Any) -> float:
    _, low, high = estimate
    return float(np.mean((low <= target) & (target <= high)))


def _width(estimate: tuple[FloatArray, FloatArray, FloatArray]) -> FloatArray:
    return estimate[2] - estimate[1]


@pytest.mark.parametrize(("rho", "plain_wider"), [(0.3, True), (0.5, True), (0.9, False)])
def test_intervals_cover_people_mean_and_ppi_plus_plus_is_narrower(
    make_frame: Any, rho: float, plain_wider: bool
) -> None:
    """At every correlation, PPI's and PPI++'s 95% intervals cover people's mean (the mean
    of the distribution the queries come from, and each collection's own mean over all its
    queries) in at least 93% of the collections; the biased judge alone covers it in few.
    From a correlation of 0.5, PPI++'s interval is narrower than people's alone in every
    collection. Plain PPI pays the judge's noise in full: it is wider than people's alone
    on average unless ``sigma**2 (1/n + 1/N) < var(Y) (1/n - 1/N)``, here a correlation
    above 0.79 (docs/judgments.md)."""
    y, f = _simulated(rho)
    # the judge's per-query values correlate with people's at rho (each collection's
    # sample correlation, on average)
    yc, fc = y - y.mean(axis=1, keepdims=True), f - f.mean(axis=1, keepdims=True)
    r = (yc * fc).sum(axis=1) / np.sqrt((yc**2).sum(axis=1) * (fc**2).sum(axis=1))
    assert float(r.mean()) == pytest.approx(rho, abs=0.01)
    est = _estimates(make_frame, y, f)
    own = y.mean(axis=1)
    for name in ("ppi", "ppi++", "gold"):
        assert _covers(est[name], MU) >= 0.93, name
        assert _covers(est[name], own) >= 0.93, name
        # the point estimate is unbiased: its mean over the collections is near MU
        assert float(est[name][0].mean()) == pytest.approx(MU, abs=0.005), name
    assert _covers(est["judge"], MU) < 0.2
    if rho >= 0.5:
        assert np.all(_width(est["ppi++"]) < _width(est["gold"]))
    assert bool(np.mean(_width(est["ppi"])) > np.mean(_width(est["gold"]))) == plain_wider
