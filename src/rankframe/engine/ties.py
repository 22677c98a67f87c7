"""``ties="average"``: each metric's expected value when every order of tied rows is equally
likely (McSherry and Najork, ECIR 2008), in closed form per tie group.

A tie group is the rows of one query with one score. It holds ``n`` rows ranked
``s + 1 .. s + n`` (``s`` rows above it), of which ``r`` are relevant, with ``H`` relevant rows
above it. Over the ``n!`` orders of the group, equally likely, each relevant row lies at each
of the group's ranks with probability ``1/n``, which gives (``k`` a cut-off):

* hits@k: each relevant row of the group counts ``clip(k - s, 0, n) / n`` (linear, so
  precision, recall, R-precision and F-measures follow exactly): the lists compute it
  themselves (``Lists.hits_at``, ``Lists.expected_hits``);
* success@k: from the first group holding a relevant row, with ``m = clip(k - s, 0, n)`` of
  its places above the cut-off, ``1 - C(n - r, m) / C(n, m)`` (hypergeometric: no relevant
  row among the first ``m``);
* reciprocal rank: from that group, ``Σ_{j=1}^{min(n-r+1, k-s)} P(X = j) / (s + j)`` where
  ``P(X = j) = C(n - j, r - 1) / C(n, r)`` is the chance that the group's first relevant row
  is its j-th;
* the sum of precisions of AP: over the group's places ``j ≤ min(n, k - s)``, place ``s + j``
  holds a relevant row with chance ``r / n``, and then ``H + 1 + (j - 1)(r - 1)/(n - 1)``
  relevant rows on average at or above it: ``Σ_j (r/n)(H + 1 + (j-1)(r-1)/(n-1)) / (s + j)``;
* DCG: each place of the group gets the group's mean gain ``G / n``:
  ``Σ_{j ≤ min(n, k - s)} (G / n) / log2(s + j + 1)``.

Sums over the places of a group run over vectorised expansions (one entry per place that
counts), never a Python loop; a group of one row gives the untied formula's own number.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from rankframe.engine import segments
from rankframe.engine.frame import FloatArray, IntArray

if TYPE_CHECKING:
    from rankframe.engine.lists import Lists

__all__ = ["dcg", "precision_sum", "reciprocal_rank", "success_at"]


def _special() -> ModuleType:
    """``scipy.special``, imported when first needed: it takes about 0.4 s to import, which
    ``import rankframe`` should not pay (a heavy library, imported in this function alone)."""
    import scipy.special

    special: ModuleType = scipy.special
    return special


def _groups(query: IntArray, start: IntArray) -> tuple[IntArray, IntArray]:
    """Entries in rank order, grouped by (query, tie group): each group's first entry and
    number of entries."""
    heads = np.flatnonzero(segments.heads(query, start))
    return heads, np.diff(np.append(heads, len(query)))


def _places(start: IntArray, size: IntArray, k: int | None) -> IntArray:
    """How many places of each group lie at or above the cut-off."""
    return size.copy() if k is None else np.clip(k - start, 0, size)


def _rel(t: Lists) -> tuple[IntArray, IntArray]:
    if t.rel_tie_start is None or t.rel_tie_size is None:
        msg = "the lists carry no tie groups (ranked without ties='average')"
        raise ValueError(msg)
    return t.rel_tie_start, t.rel_tie_size


def _first_groups(t: Lists) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Per query with a relevant retrieved row, the group of its first one: query, ``s``,
    ``n``, ``r``."""
    start, size = _rel(t)
    heads, r = _groups(t.rel_query, start)
    first = t.rel_hits[heads] == 1
    heads, r = heads[first], r[first]
    return t.rel_query[heads], start[heads], size[heads], r


def _none_drawn(n: IntArray, r: IntArray, m: IntArray) -> FloatArray:
    """The chance that the first ``m`` of ``n`` places, ``r`` of them relevant in a random
    order, hold no relevant one: ``C(n - r, m) / C(n, m)``, as the product of ``min(m, r)``
    ratios (``Π_{i<m} (n-r-i)/(n-i)`` or, equal, ``Π_{i<r} (n-m-i)/(n-i)``)."""
    possible = m <= n - r
    by_draws = m <= r
    top = np.where(by_draws, n - r, n - m)
    count = np.where(possible, np.minimum(m, r), 0)
    group, place, offsets = segments.spread(count, 1)
    factors = (top[group] - place + 1) / (n[group] - place + 1)
    product = np.ones(len(n), dtype=np.float64)
    some = count > 0
    if some.any():
        product[some] = np.multiply.reduceat(factors, offsets[some])
    return np.where(possible, product, 0.0)


def success_at(t: Lists, k: int | None, _: Any = None) -> FloatArray:
    """Per query, the chance that a relevant row lies at or above k."""
    query, s, n, r = _first_groups(t)
    out = np.zeros(t.n_queries, dtype=np.float64)
    out[query] = 1.0 - _none_drawn(n, r, _places(s, n, k))
    return out


def _log_choose(a: IntArray, b: IntArray) -> FloatArray:
    gammaln = _special().gammaln
    return np.asarray(gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0))


def _first_relevant_chance(n: IntArray, r: IntArray, j: IntArray) -> FloatArray:
    """``C(n - j, r - 1) / C(n, r)``: the chance that the first of ``r`` relevant rows among
    ``n`` in a random order is the j-th.

    Computed as ``(r / n) (n - j - r + 2)_(r-1) / (n - r + 1)_(r-1)`` with Pochhammer's
    rising factorials (accurate to a few ulps; exactly ``1 / n`` for one relevant row). Where
    they overflow (``(r - 1) log10(n)`` beyond about 300), from log-gamma functions instead,
    whose cancellation costs a relative error up to about ``1e-16 n log(n)``.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        whole = np.asarray(_special().poch(n - r + 1.0, r - 1.0), dtype=np.float64)
        chance: FloatArray = np.asarray(_special().poch(n - j - r + 2.0, r - 1.0), dtype=np.float64)
        chance *= (r / n) / whole
    far = ~np.isfinite(whole)
    if far.any():
        chance[far] = np.exp(_log_choose(n[far] - j[far], r[far] - 1) - _log_choose(n[far], r[far]))
    return chance


def reciprocal_rank(t: Lists, k: int | None, _: Any = None) -> FloatArray:
    """Per query, the expected 1 / rank of the first relevant row (0 below the cut-off)."""
    query, s, n, r = _first_groups(t)
    last = n - r + 1  # the first relevant row is at most the (n - r + 1)-th of its group
    count = last if k is None else np.clip(np.minimum(last, k - s), 0, None)
    group, j, _offsets = segments.spread(count, 1)
    chance = _first_relevant_chance(n[group], r[group], j)
    return segments.sums(query[group], chance / (s[group] + j), t.n_queries)


def precision_sum(t: Lists, k: int | None) -> FloatArray:
    """Per query, the expected sum over relevant rows at or above k of hits@rank / rank
    (AP's numerator)."""
    start, size = _rel(t)
    heads, r = _groups(t.rel_query, start)
    s, n = start[heads], size[heads]
    above = t.rel_hits[heads] - 1  # H
    slope = np.where(n > 1, (r - 1) / np.maximum(n - 1, 1), 0.0)
    group, j, _offsets = segments.spread(_places(s, n, k), 1)
    value = (r / n)[group] * (above[group] + 1 + (j - 1) * slope[group]) / (s[group] + j)
    return segments.sums(t.rel_query[heads][group], value, t.n_queries)


def dcg(
    t: Lists,
    k: int | None,
    gains: FloatArray,
    discount: Callable[[IntArray], FloatArray] | None = None,
) -> FloatArray:
    """Per query, the expected DCG@k of the retrieved graded rows, whose gains are
    ``gains`` (one per entry of ``t.gain_query``); ``discount(rank)`` divides the gain at
    each rank (default ``log2(rank + 1)``)."""
    if t.gain_tie_start is None or t.gain_tie_size is None:
        msg = "the lists carry no tie groups (ranked without ties='average')"
        raise ValueError(msg)
    heads, _count = _groups(t.gain_query, t.gain_tie_start)
    s, n = t.gain_tie_start[heads], t.gain_tie_size[heads]
    mean_gain = np.add.reduceat(gains, heads) / n if len(heads) else np.zeros(0)
    group, j, _offsets = segments.spread(_places(s, n, k), 1)
    rank = s[group] + j
    value = mean_gain[group] / (np.log2(rank + 1.0) if discount is None else discount(rank))
    return segments.sums(t.gain_query[heads][group], value, t.n_queries)
