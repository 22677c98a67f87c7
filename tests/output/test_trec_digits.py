"""The digits of ``rankframe trec``'s lines, written by columns (``rankframe.trec.text``):
every value as Python's ``format`` writes it one by one (``%6.4f``, which rounds the exact
binary value half to even, as C's ``printf`` does), counts as ``round`` writes them: on
exact ties, values a hair from a tie, negatives and negative zero, huge values, infinities
and NaN, and on fractions of small integers (every measure's values)."""

from __future__ import annotations

import numpy as np
import pytest

from rankframe.trec.text import counts, decimals

TIES = [0.09375, 0.03125, 0.00005, 0.00015, 0.00025, 1.00005, 0.99995, 2.5e-5, 1 / 32]
NEAR = [np.nextafter(v, side) for v in (0.09375, 0.00005, 0.99995) for side in (0.0, 1.0)]
ODD = [-0.0, 0.0, -1e-9, -0.5, -0.00005, 1e20, 123456.78905, 4.5e15, np.inf, -np.inf, np.nan]


def fractions() -> np.ndarray:
    """i / j for small integers: precision, recall, reciprocal ranks and their means."""
    i, j = np.meshgrid(np.arange(0, 400), np.arange(1, 400))
    return (i / j).ravel()


@pytest.mark.parametrize(
    "values",
    [TIES, NEAR, ODD, fractions(), np.random.default_rng(48).random(20_000)],
    ids=["ties", "near ties", "odd values", "fractions", "random"],
)
def test_decimals_are_python_s_format(values: list[float]) -> None:
    # but NaN, which trec_eval prints as "  -nan" (only -J makes one: its 0.0 / 0.0 has the
    # sign bit set, and C's %6.4f writes the sign)
    expected = [
        "  -nan" if np.isnan(v) else f"{v:6.4f}"
        for v in np.asarray(values, dtype=np.float64).tolist()
    ]
    assert decimals(np.asarray(values, dtype=np.float64)).to_list() == expected


def test_counts_are_python_s_round() -> None:
    values = np.array([0.0, 1.0, 2.5, 3.5, -2.5, 1e6, 2.0**53 + 2, 7.0])
    assert counts(values).to_list() == [str(round(v)) for v in values.tolist()]
