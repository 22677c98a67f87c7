"""Metrics of the recommended items themselves (beyond accuracy): what each query's top k
holds, by item id, whatever its relevance.

A metric of the registry with ``items`` (an :class:`ItemMetric`) is computed in the one
finish step, from every query's top-k items, not in the per-query step. The rooms of its
path:

- here, the declaration (:class:`ItemMetric`; :func:`check`, before the request is built;
  :func:`plan`, the entries a request reads) and the metrics: the per-query values of
  ``arp``, ``novelty`` and ``ild``, and the set-level ones, which read weighted counts of
  (set, key) pairs (:class:`Tally`): item counts c_i for coverage, gini, entropy and
  personalization (Σ c_i(c_i - 1)/2 lists share an item, never a loop over pairs of lists),
  class counts for ``top1_f1``; :class:`SetValues` gives them as a function of query
  weights;
- :mod:`rankframe.metrics.item_codes`, the records the two steps share (``Entries``,
  ``TopK``: item codes in ascending id order, so every path gives the same codes, sums and
  messages);
- :mod:`rankframe.metrics.item_inputs`, the user's ``catalog``, ``popularity``,
  ``item_features`` and ``item_groups`` (read out of their objects by the adapters);
- :mod:`rankframe.pipeline.item_record`, the per-query step's recording of the entries,
  and :mod:`rankframe.pipeline.item_finish`, the finish step.

Nothing loops over queries or entries in Python; ``ild`` multiplies a sparse (list x item)
matrix by the unit feature vectors, a block of lists at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from rankframe.engine import segments
from rankframe.exceptions import InvalidOptionError
from rankframe.metrics.item_codes import TopK, lists_at
from rankframe.metrics.item_inputs import Inputs

if TYPE_CHECKING:
    from rankframe.metrics.registry import Metric
    from rankframe.settings.options import Options

__all__ = [
    "Classes",
    "ItemMetric",
    "Plan",
    "SetValues",
    "Sets",
    "Tally",
    "average_popularity",
    "check",
    "coverage",
    "entropy",
    "gini",
    "intra_list_diversity",
    "item_of",
    "k_of",
    "novelty",
    "personalization",
    "plan",
    "top1_f1",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

_LISTS_PER_BLOCK = 1 << 16  # ild: lists per sparse product


# -- the declaration --------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemMetric:
    """How a beyond-accuracy metric is computed (``MetricDef.items``).

    Attributes
    ----------
    per_query
        For a metric with a value per query: ``per_query(top, k, inputs)`` gives the values,
        shape (n_queries, n_systems).
    per_set
        For a set-level metric: ``per_set(sets, k, inputs)`` gives one value per (segment,
        system) from the weighted counts of :class:`Sets`.
    needs
        The option that must be given (``"popularity"``, ``"item_features"``), if any.
    catalog
        Whether it reads the catalog (its size, and that every listed item is in it).
    truth
        Whether it reads each query's relevant items (``top1_f1``: its one true class; the
        exposure metrics: the merit and the default target of each group).
    grades
        Whether it reads the grade of each entry (the top-k rows and the relevant rows):
        the cascade browsing model, the merit of the exposure metrics.
    depth
        The cut-off it reads when it is not the metric's own ``k`` (``top1_f1``: 1).
    cutoff
        Why it needs a cut-off, when it has no value for the whole list (``None``: it has
        one); ``k=None`` then raises at call time with this reason.
    per_group
        Whether it has a value per group of ``item_groups`` (``MetricDef.expand``).
    whole_list
        Whether it reads every retrieved entry of each list, whatever its ``k`` (``ndkl``:
        its default target is the groups' shares of the whole ranked list).
    samples
        Whether it reads several sampled rankings per query (``rank_eval(sample=...)``:
        expected exposure averages each item's attention over them); the other metrics
        refuse a bound ``sample`` column.
    """

    per_query: Callable[[TopK, int | None, Inputs], FloatArray] | None = None
    per_set: Callable[[Sets, int | None, Inputs], FloatArray] | None = None
    needs: str | None = None
    catalog: bool = False
    truth: bool = False
    grades: bool = False
    depth: int | None = None
    cutoff: str | None = None
    per_group: bool = False
    whole_list: bool = False
    samples: bool = False


def k_of(metric: Metric) -> int | None:
    """The metric's cut-off k (an item metric's parameter is always a whole number)."""
    return None if metric.k is None else int(metric.k)


def item_of(metric: Metric) -> ItemMetric | None:
    """The metric's :class:`ItemMetric` (``None``: not a metric of the items)."""
    item: ItemMetric | None = metric.definition.items
    return item


def check(metric: Metric, options: Options) -> None:
    """Raise at call time for what no data can fix: an item metric without its input
    option (``ItemMetric.needs``) or without the cut-off it needs (``ItemMetric.cutoff``)."""
    item = item_of(metric)
    if item is None:
        return
    if item.needs is not None and getattr(options, item.needs) is None:
        msg = (
            f"{metric} needs the '{item.needs}' option: {_NEEDS[item.needs]}. "
            f"Pass {item.needs}=... to the method."
        )
        raise InvalidOptionError(msg)
    if item.cutoff is not None and metric.k is None:
        msg = f"{metric.name} needs a cut-off ({item.cutoff}); pass one, e.g. '{metric.name}@10'."
        raise InvalidOptionError(msg)


_NEEDS = {
    "popularity": "item -> number of interactions, e.g. "
    "train['item'].value_counts() (a pandas Series)",
    "item_features": "a frame of numeric features indexed by item",
    "item_groups": "item -> group, e.g. a pandas Series indexed by item, or a dict",
}


# -- the entries a request reads ------------------------------------------


@dataclass(frozen=True)
class Plan:
    """The entries a request's item metrics read: the top ``depth`` rows of every list
    (``None``: every retrieved row), each query's relevant rows (``truth``), a row of each
    distinct item of the frame (``frame_items``: the default catalog), and whether a metric
    reads every retrieved row of each list, whatever its ``k`` (``whole_list``: ``ndkl``'s
    default target; one frame hands them over as :class:`WholeLists`, parts as entries)."""

    depth: int | None
    truth: bool
    frame_items: bool
    grades: bool = False
    whole_list: bool = False


def plan(metrics: Sequence[Metric], options: Options) -> Plan | None:
    """The entries ``metrics`` need, or ``None`` when none is an item metric."""
    items = [(m, item) for m in metrics if (item := item_of(m)) is not None]
    if not items:
        return None
    depths = [item.depth if item.depth is not None else k_of(m) for m, item in items]
    depth = None if any(d is None for d in depths) else max(d for d in depths if d)
    return Plan(
        depth=depth,
        truth=any(item.truth for _, item in items),
        frame_items=options.catalog is None and any(item.catalog for _, item in items),
        grades=any(item.grades for _, item in items),
        whole_list=any(item.whole_list for _, item in items),
    )


# -- per-query item metrics --------------------------------------------------------------------


def _per_list_mean(top: TopK, k: int | None, per_code: FloatArray) -> FloatArray:
    """The mean of a per-item value over each list (0 for an empty list)."""
    lists, length, keep = lists_at(top, k)
    sums = segments.sums(lists, per_code[top.item[keep]], len(length))
    out = np.zeros(len(length))
    np.divide(sums, length, out=out, where=length > 0)
    return top.per_query(out)


def average_popularity(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """Mean popularity of the items of each list."""
    return _per_list_mean(top, k, inputs.popularity()[0])


def novelty(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """Mean self-information -log2(popularity / total) of the items of each list."""
    per_code, total = inputs.popularity()
    _, _, keep = lists_at(top, k)
    listed = np.flatnonzero(np.bincount(top.item[keep], minlength=top.n_codes))
    zero = listed[per_code[listed] <= 0]
    if len(zero):
        msg = (
            f"{len(zero)} item(s) of the top-k lists have popularity 0, so infinite novelty "
            f"(-log2 of their share of the interactions): {top.named(zero)}. Smooth the "
            "counts (e.g. add 1 to every count) or leave novelty out."
        )
        raise InvalidOptionError(msg)
    with np.errstate(divide="ignore", invalid="ignore"):
        information = -np.log2(per_code / total)
    return _per_list_mean(top, k, information)


def intra_list_diversity(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """Mean over the pairs of each list's items of 1 - cos(f_i, f_j) (0 for a list of
    fewer than two items).

    With unit vectors u_i, the sum of cos over the pairs of a list is
    (‖Σ u_i‖² - Σ ‖u_i‖²) / 2: one sparse (list x item) product with the vectors gives
    every list's Σ u_i, a block of lists at a time.
    """
    from scipy import sparse  # heavy (about 0.4 s): loaded when ild is computed, not on import

    used, vectors = inputs.features()
    local = np.full(top.n_codes, -1, dtype=np.int64)
    local[used] = np.arange(len(used))
    lists, length, keep = lists_at(top, k)
    item = local[top.item[keep]]
    squares = np.einsum("ij,ij->i", vectors, vectors)  # 1, or 0 for a zero vector
    own = segments.sums(lists, squares[item], len(length))
    pointer = np.concatenate([[0], np.cumsum(length)])  # entries run by list
    total = np.empty(len(length))
    for start in range(0, len(length), _LISTS_PER_BLOCK):
        stop = min(start + _LISTS_PER_BLOCK, len(length))
        lo, hi = pointer[start], pointer[stop]
        block = sparse.csr_matrix(
            (np.ones(hi - lo), item[lo:hi], pointer[start : stop + 1] - lo),
            shape=(stop - start, len(used)),
        )
        sums = block @ vectors
        total[start:stop] = np.einsum("ij,ij->i", sums, sums)
    pairs = length * (length - 1) / 2.0
    cosines = (total - own) / 2.0
    out = np.zeros(len(length))
    np.divide(cosines, pairs, out=out, where=pairs > 0)
    return top.per_query(np.where(pairs > 0, 1.0 - out, 0.0))


# -- set-level metrics -------------------------------------------------------------------------


@dataclass
class Tally:
    """Weighted counts of (set, key) pairs: each entry belongs to a query (whose weight it
    adds) and to a set (a (segment, system) pair) and has a key (an item, a class). The
    pairs are found once; :meth:`counts` is one ``bincount`` per set of weights."""

    set: IntArray
    key: IntArray
    inverse: IntArray
    query: IntArray

    @classmethod
    def of(cls, sets: IntArray, keys: IntArray, query: IntArray, n_keys: int) -> Tally:
        width = max(n_keys, 1)
        pair = sets * width + keys
        span = (int(sets.max()) + 1) * width if len(sets) else 0
        if span <= max(4 * len(pair), 1 << 20):  # a count per possible pair: no sort
            present = np.bincount(pair, minlength=span) > 0
            uniques = np.flatnonzero(present)
            inverse = (np.cumsum(present) - 1)[pair]
        else:
            uniques, inverse = np.unique(pair, return_inverse=True)
        return cls(uniques // width, uniques % width, inverse.astype(np.int64).reshape(-1), query)

    def counts(self, weights: FloatArray, scale: FloatArray | None = None) -> FloatArray:
        """Per pair, the sum of its entries' query weights (times ``scale`` per entry)."""
        w = weights[self.query] if scale is None else weights[self.query] * scale
        return segments.sums(self.inverse, w, len(self.set))


@dataclass
class Sets:
    """What a set-level metric reads for one set of query weights: per (segment, system)
    set ``g = segment * n_systems + system``, the weighted number of lists ``n_lists``, and
    the weighted item counts (:class:`Tally` ``items`` and ``counts``); for top1_f1 the
    class counts."""

    n_sets: int
    n_lists: FloatArray
    items: Tally
    counts: FloatArray
    classes: Tally | None = None
    true: FloatArray | None = None
    predicted: FloatArray | None = None
    hits: FloatArray | None = None
    total: FloatArray | None = None


def coverage(sets: Sets, _k: int | None, inputs: Inputs) -> FloatArray:
    """|union of the L_q| / n."""
    listed = np.bincount(sets.items.set, weights=sets.counts > 0, minlength=sets.n_sets)
    return listed / inputs.catalog_size()


def gini(sets: Sets, _k: int | None, inputs: Inputs) -> FloatArray:
    """Σ_i (2i - n - 1) c_(i) / (n Σ c), counts sorted ascending over the n catalog items
    (the items no list holds first, with c = 0); NaN when no list holds an item."""
    n = inputs.catalog_size()
    c = sets.counts
    g = sets.items.set
    order = np.lexsort((c, g))
    g_sorted, c_sorted = g[order], c[order]
    listed = np.bincount(g, minlength=sets.n_sets)
    first = segments.offsets(listed)
    position = np.arange(len(order)) - first[g_sorted] + 1  # 1-based within the set
    i = (n - listed[g_sorted]) + position  # after the n - listed zeros
    numerator = np.bincount(g_sorted, weights=(2.0 * i - n - 1.0) * c_sorted, minlength=sets.n_sets)
    total = np.bincount(g, weights=c, minlength=sets.n_sets)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, numerator / (n * total), np.nan)


def entropy(sets: Sets, _k: int | None, _inputs: Inputs) -> FloatArray:
    """-Σ p_i ln p_i, p_i = c_i / Σ c, over the items some list holds."""
    g, c = sets.items.set, sets.counts
    total = np.bincount(g, weights=c, minlength=sets.n_sets)
    p = np.zeros(len(c))
    np.divide(c, total[g], out=p, where=c > 0)
    terms = np.zeros(len(c))
    np.multiply(p, np.log(p, out=np.zeros(len(c)), where=p > 0), out=terms)
    return 0.0 - segments.sums(g, terms, sets.n_sets)


def personalization(sets: Sets, k: int | None, _inputs: Inputs) -> FloatArray:
    """1 - (Σ_i c_i (c_i - 1) / 2) / (k · Q (Q - 1) / 2) over Q lists: one minus the mean
    share of k items two lists have in common; NaN for fewer than two lists."""
    assert k is not None  # ItemMetric.cutoff: check asks for one
    c = sets.counts
    shared = np.bincount(sets.items.set, weights=c * (c - 1.0) / 2.0, minlength=sets.n_sets)
    q = sets.n_lists
    pairs = q * (q - 1.0) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, 1.0 - shared / (k * pairs), np.nan)


def top1_f1(sets: Sets, _k: int | None, inputs: Inputs) -> FloatArray:
    """scikit-learn's ``f1_score(y_true, y_pred, average=class_average)`` with y_true each
    query's relevant item and y_pred its rank-1 item, per set."""
    assert sets.classes is not None
    assert sets.true is not None
    assert sets.predicted is not None
    assert sets.hits is not None
    assert sets.total is not None
    g = sets.classes.set
    true, predicted, hits = sets.true, sets.predicted, sets.hits
    present = (true + predicted) > 0  # the classes of y_true and y_pred
    f1 = np.zeros(len(g))
    np.divide(2.0 * hits, true + predicted, out=f1, where=present)
    average = inputs.options.class_average
    with np.errstate(invalid="ignore", divide="ignore"):
        if average == "micro":  # accuracy
            return np.bincount(g, weights=hits, minlength=sets.n_sets) / sets.total
        if average == "macro":
            n_classes = np.bincount(g, weights=present, minlength=sets.n_sets)
            return np.bincount(g, weights=f1, minlength=sets.n_sets) / n_classes
        support = np.bincount(g, weights=true, minlength=sets.n_sets)
        return np.bincount(g, weights=f1 * true, minlength=sets.n_sets) / support


@dataclass
class Classes:
    """top1_f1's (set, class) pairs: ``tally`` counts each list's true class (its entries
    are the lists, in (query, system) order), ``predicted`` is the pair of each list's
    predicted class, ``hit`` whether the two agree."""

    tally: Tally
    predicted: IntArray
    hit: FloatArray


@dataclass
class SetValues:
    """The set-level metrics of a request as a function of query weights.

    ``columns``: their positions among the request's metrics; ``self(weights)`` gives their
    values, shape (n_segments, n_systems, len(columns)), for per-query weights (the
    included queries' 1s, or a bootstrap resample's multiplicities).
    """

    columns: list[int]
    metrics: list[Metric]
    inputs: Inputs
    n_segments: int
    n_systems: int
    segment: IntArray
    items: dict[int | None, Tally]
    classes: Classes | None

    def __call__(self, weights: FloatArray) -> FloatArray:
        n_sets = self.n_segments * self.n_systems
        per_segment = np.bincount(self.segment, weights=weights, minlength=self.n_segments)
        n_lists = np.repeat(per_segment, self.n_systems).astype(np.float64)
        out = np.empty((self.n_segments, self.n_systems, len(self.columns)))
        for j, metric in enumerate(self.metrics):
            item = item_of(metric)
            assert item is not None
            assert item.per_set is not None
            tally = self.items[item.depth or k_of(metric)]
            sets = Sets(n_sets, n_lists, tally, tally.counts(weights))
            if item.truth and self.classes is not None:
                classes = self.classes.tally
                sets.classes = classes
                sets.true = classes.counts(weights)
                sets.predicted = segments.sums(
                    self.classes.predicted, weights[classes.query], len(classes.set)
                )
                sets.hits = classes.counts(weights, self.classes.hit)
                sets.total = n_lists
            out[:, :, j] = item.per_set(sets, k_of(metric), self.inputs.of(metric)).reshape(
                self.n_segments, self.n_systems
            )
        return out
