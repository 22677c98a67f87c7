"""Fairness of exposure: how a ranking shares the users' attention among groups of items.

The browsing model (:func:`attention`) is declared once and read by every exposure metric:
the attention a_i a user gives the item at rank i of a top-k list (``browsing=``):

- ``"log"``: ``1 / log2(1 + i)``, DCG's discount (the default); ``1 / log2(max(i, 2))``
  under ``discount="log2(max(rank,2))"`` (the TREC Fair Ranking scripts' discount);
- ``"rbp"``: ``patience**(i - 1)``, rank-biased precision's persistence (Moffat & Zobel);
- ``"cascade"``: ``(1 - stop)**r_i``, r_i the relevant items (grade >= ``min_relevance``)
  above rank i: the user reads down and stops after each relevant item with probability
  ``stop``.

Ranks below k get no attention. Per query and group g (``item_groups``), over its top-k list
L and its relevant items R (grade rel > 0, or >= ``min_relevance``):

- exposure share ``E_g = Σ_{i∈L, g(i)=g} a_i / Σ_{i∈L} a_i`` (0 for an empty list);
- merit share ``M_g = Σ_{j∈R, g(j)=g} rel_j / Σ_{j∈R} rel_j`` (Singh & Joachims 2018);
- ``exposure_ratio = E_g / M_g`` (NaN where M_g = 0, left out of its mean) and
  ``exposure_gap = E_g - M_g``;
- ``awrf = 1 - JSD(E, T)``, the Jensen-Shannon divergence in bits (so in [0, 1]; in nats
  under ``jsd_unit="nats"``) between the exposure distribution and the target T
  (``target=``, or the groups' shares among R by count; Sapiezynski et al. 2019);
  ``convention="trec_fair"`` sets the TREC Fair Ranking scripts' discount and nats;
- ``ndkl``: the DCG-weighted mean over i <= k of KL(P_i || T) in nats, P_i the groups'
  shares among the top i, T ``target=`` or the whole ranked list's shares (Geyik et al.
  2019).

Everything is computed in the finish step from :class:`~rankframe.metrics.item_codes.TopK`
(the top-k entries, the relevant entries, their grades), with no loop over queries. See
docs/fairness.md.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rankframe.engine import segments
from rankframe.exceptions import InvalidOptionError, excerpt, plain
from rankframe.metrics.item_codes import TopK, lists_at
from rankframe.metrics.item_inputs import Inputs, group_names, read_target

if TYPE_CHECKING:
    from rankframe.metrics.registry import Metric
    from rankframe.settings.options import Options

__all__ = [
    "attention",
    "awrf",
    "ee_disparity",
    "ee_loss",
    "ee_relevance",
    "exposure_gap",
    "exposure_ratio",
    "exposure_share",
    "ndkl",
    "per_group",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_TOLERANCE = 1e-9  # how far from 1 a target's shares may sum


def _relevant(grade: FloatArray, options: Options) -> npt.NDArray[np.bool_]:
    level = options.min_relevance
    return grade > 0 if level is None else grade >= level


def attention(top: TopK, k: int | None, options: Options) -> tuple[IntArray, FloatArray]:
    """The browsing model: per top-k entry (at or above ``k``), its list and the attention
    its rank receives."""
    lists, length, keep = lists_at(top, k)
    if options.browsing in ("log", "rbp"):  # a value per rank: from a table of the ranks
        rank = np.arange(int(length.max()) + 1 if len(length) else 1, dtype=np.float64)
        if options.browsing == "rbp":
            per_rank = options.patience ** (rank - 1.0)
        elif options.discount == "log2(max(rank,2))":
            per_rank = 1.0 / np.log2(np.maximum(rank, 2.0))
        else:
            with np.errstate(divide="ignore"):  # rank 0: no entry
                per_rank = 1.0 / np.log2(1.0 + rank)
        return lists, per_rank[top.rank[keep]]
    assert top.grade is not None  # ItemMetric.grades
    hits = _relevant(top.grade[keep], options).astype(np.float64)
    before = np.cumsum(hits) - hits  # relevant entries before each one, over every list
    first = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)  # runs by list
    above = before - before[first[lists]] if len(lists) else before
    return lists, (1.0 - options.stop) ** above


def _attention(top: TopK, k: int | None, inputs: Inputs) -> tuple[IntArray, FloatArray]:
    """:func:`attention`, once per cut-off and browsing model for the metrics of a call
    (the exposure shares and expected exposure read the same)."""
    value: tuple[IntArray, FloatArray] = inputs.cached(
        ("attention", k, *_model(inputs.options)), lambda: attention(top, k, inputs.options)
    )
    return value


def _group_of(inputs: Inputs) -> tuple[IntArray, int]:
    per_code, names = inputs.groups()
    return per_code, len(names)


def _exposure(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """Per list (``system * n_queries + query``) and group, the exposure share E_g; once
    per cut-off and browsing model for the metrics of a call."""
    o = inputs.options
    key = ("exposure", k, o.browsing, o.patience, o.stop, o.discount, o.min_relevance)
    shares: FloatArray = inputs.cached(key, lambda: _exposure_shares(top, k, inputs))
    return shares


def _exposure_shares(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    per_code, n_groups = _group_of(inputs)
    lists, weight = _attention(top, k, inputs)
    _, _, keep = lists_at(top, k)
    group = per_code[top.item[keep]]
    totals = np.bincount(
        lists * n_groups + group, weights=weight, minlength=top.n_lists * n_groups
    ).reshape(top.n_lists, n_groups)
    whole = segments.row_sums(totals)[:, None]
    out = np.zeros(totals.shape, dtype=np.float64)
    np.divide(totals, whole, out=out, where=whole > 0)
    return out


def _shares(top: TopK, inputs: Inputs, *, by_grade: bool) -> FloatArray:
    """Per query and group, the group's share of the query's relevant items (by grade:
    the merit; by count: the default target); 0 for a query without relevant items."""
    key = ("shares", by_grade)  # the relevant entries are the call's (min_relevance)
    shares: FloatArray = inputs.cached(key, lambda: _relevant_shares(top, inputs, by_grade))
    return shares


def _relevant_shares(top: TopK, inputs: Inputs, by_grade: bool) -> FloatArray:
    per_code, n_groups = _group_of(inputs)
    assert top.truth_grade is not None  # ItemMetric.grades
    weight = top.truth_grade if by_grade else np.ones(len(top.truth_item))
    totals = np.bincount(
        top.truth_query * n_groups + per_code[top.truth_item],
        weights=weight,
        minlength=top.n_queries * n_groups,
    )
    totals = totals.reshape(top.n_queries, n_groups)
    whole = segments.row_sums(totals)[:, None]
    out = np.zeros(totals.shape, dtype=np.float64)
    np.divide(totals, whole, out=out, where=whole > 0)
    return out


def _selected(inputs: Inputs) -> int:
    """The position of the metric's ``group`` among the groups."""
    names = inputs.groups()[1]
    wanted = inputs.options.group
    exact = [i for i, g in enumerate(names) if str(g) == wanted]
    # a label is read in lower case (parse_metric): "group=Small" names Small
    found = exact or [i for i, g in enumerate(names) if str(g).casefold() == str(wanted).casefold()]
    if len(found) != 1:
        shown = ", ".join(excerpt(plain(g)) for g in names[:10])
        msg = (
            f"group={wanted!r} is not a group of item_groups (its groups: {shown}). Pass "
            "one of them, or group=None for a value per group."
        )
        raise InvalidOptionError(msg)
    return found[0]


def _per_list_to_query(top: TopK, per_query: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A per-query value repeated for every list (lists run ``system * n_queries + q``)."""
    return np.tile(per_query, top.n_systems)


def exposure_share(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """E_g of the metric's group, per query and system."""
    return top.per_query(_exposure(top, k, inputs)[:, _selected(inputs)])


def exposure_gap(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """E_g - M_g (0 for a query without relevant items: ``empty=`` decides)."""
    g = _selected(inputs)
    merit = _per_list_to_query(top, _shares(top, inputs, by_grade=True)[:, g])
    has = _per_list_to_query(top, _has_relevant(top))
    return top.per_query(np.where(has, _exposure(top, k, inputs)[:, g] - merit, 0.0))


def exposure_ratio(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """E_g / M_g: NaN where the group has no merit in a query that has some (left out of
    the mean), 0 for a query without relevant items (``empty=`` decides)."""
    g = _selected(inputs)
    merit = _per_list_to_query(top, _shares(top, inputs, by_grade=True)[:, g])
    has = _per_list_to_query(top, _has_relevant(top))
    exposure = _exposure(top, k, inputs)[:, g]
    out = np.where(has, np.nan, 0.0)
    np.divide(exposure, merit, out=out, where=merit > 0)
    return top.per_query(out)


def _has_relevant(top: TopK) -> npt.NDArray[np.bool_]:
    return np.bincount(top.truth_query, minlength=top.n_queries) > 0


def _target(top: TopK, inputs: Inputs) -> FloatArray:
    """Per list and group, awrf's target: the ``target`` option's shares, or each query's
    relevant items' shares by count."""
    names = inputs.groups()[1]
    given = inputs.options.target
    if given is None:
        return np.tile(_shares(top, inputs, by_grade=False), (top.n_systems, 1))
    return np.broadcast_to(target_shares(given, names), (top.n_lists, len(names)))


def target_shares(target: Any, names: list[object]) -> FloatArray:
    """The ``target`` option as shares over ``names`` (groups it leaves out: 0); raises
    for a group it names that ``item_groups`` has not, a negative share, or shares that
    do not sum to 1."""
    series = read_target(target)
    index = {str(g): i for i, g in enumerate(names)}
    out = np.zeros(len(names))
    for group, share in series.items():
        key = group.item() if isinstance(group, np.generic) else group
        position = next((i for i, g in enumerate(names) if g == key), index.get(str(key)))
        if position is None:
            shown = ", ".join(excerpt(plain(g)) for g in names[:10])
            msg = (
                f"The 'target' option names the group {excerpt(plain(key))}, which has no "
                f"item in item_groups (an empty group; its groups: {shown}). Give it items, "
                "or leave it out of the target."
            )
            raise InvalidOptionError(msg)
        try:
            value = float(share)
        except (TypeError, ValueError):
            value = float("nan")
        if not np.isfinite(value) or value < 0:
            msg = (
                f"The 'target' option gives group {excerpt(plain(key))} the share "
                f"{share!r}; shares are finite numbers >= 0."
            )
            raise InvalidOptionError(msg)
        out[position] += value
    if abs(out.sum() - 1.0) > _TOLERANCE:
        msg = (
            f"The 'target' option's shares sum to {out.sum():.6g}, not 1; give each group "
            "its share of the attention (e.g. {'small': 0.5, 'large': 0.5})."
        )
        raise InvalidOptionError(msg)
    return out


def _kl(p: FloatArray, m: FloatArray, log: Any) -> FloatArray:
    """Σ p log(p / m) per row, 0 log 0 = 0."""
    ratio = np.ones_like(p)
    np.divide(p, m, out=ratio, where=p > 0)
    kl: FloatArray = segments.row_sums(np.where(p > 0, p * log(ratio), 0.0))
    return kl


def awrf(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """1 - JSD(E, T) in bits (``jsd_unit="nats"``: nats); 0 for a list without items or a
    query without a target (no relevant item and no ``target``)."""
    exposure = _exposure(top, k, inputs)
    target = _target(top, inputs)
    mean = (exposure + target) / 2.0
    log = np.log2 if inputs.options.jsd_unit == "bits" else np.log
    divergence = (_kl(exposure, mean, log) + _kl(target, mean, log)) / 2.0
    defined = (segments.row_sums(exposure) > 0) & (segments.row_sums(target) > 0)
    values: FloatArray = np.where(defined, 1.0 - divergence, 0.0)
    return top.per_query(values)


def ndkl(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """Σ_{i ≤ k} KL(P_i || T) / log2(i + 1), divided by Σ_{i ≤ k} 1 / log2(i + 1) (over the
    ranks the list has), P_i the groups' shares among the top i, KL in nats; T the
    ``target`` or the groups' shares of the whole ranked list; 0 for an empty list.

    With c_g the count of group g among the top i (Σ_g c_g = i), KL(P_i || T) =
    (Σ_g c_g ln c_g - i ln i - Σ_g c_g ln T_g) / i: both sums grow by one term per entry
    (the entry's group's ``c ln c - (c - 1) ln(c - 1)``, c its count with the entry, and its
    ``ln T``), so their difference is one running sum within each list, with no (entry x
    group) array. The entries of a list hold the ranks 1, 2, ... in order (``top_rows``):
    the rank of an entry is the i of its top i, and every term that depends on i only
    (i ln i, the discount) is read from a table of the ranks."""
    per_code, n_groups = _group_of(inputs)
    lists, length, keep = lists_at(top, k)
    group = per_code[top.item[keep]]
    given = inputs.options.target
    # the logarithms of every (list, group): those of empty lists (-inf - -inf) are not read
    with np.errstate(divide="ignore", invalid="ignore"):
        if given is not None:
            log_target = np.log(target_shares(given, inputs.groups()[1]))[group]
        else:  # the whole list's shares: no top-k entry's group has none
            whole, length_all = inputs.whole_counts()
            per_list = np.log(whole).reshape(-1, max(n_groups, 1))
            per_list -= np.log(length_all)[:, None]
            log_target = per_list.reshape(-1)[lists * n_groups + group]
    rank = top.rank[keep]
    longest = int(length.max()) if len(length) else 0
    i = np.arange(longest + 1, dtype=np.float64)
    i_ln_i = i * np.log(np.maximum(i, 1.0))  # 0 ln 0 = 0
    grown = np.diff(i_ln_i, prepend=0.0)[_group_counts(lists, group, length, n_groups)]
    zero = ~np.isfinite(log_target)  # a group the target gives 0: KL is +inf
    # Σ_g c_g ln c_g - Σ_g c_g ln T_g: one running sum of both terms
    grown -= np.where(zero, 0.0, log_target)
    summed = segments.running_sums(lists, rank - 1, grown, top.n_lists)
    kl = np.maximum((summed - i_ln_i[rank]) / rank, 0.0)
    if zero.any():
        kl[segments.running_sums(lists, rank - 1, zero.astype(np.float64), top.n_lists) > 0] = (
            np.inf
        )
    discount = np.zeros_like(i)
    discount[1:] = 1.0 / np.log2(1.0 + i[1:])
    total = np.bincount(lists, weights=discount[rank] * kl, minlength=top.n_lists)
    # Σ_{i ≤ length} 1 / log2(i + 1), summed in rank order as the entries' would be
    z = np.concatenate([[0.0], np.cumsum(discount[1:])])[length]
    out = np.zeros(top.n_lists)
    np.divide(total, z, out=out, where=z > 0)
    return top.per_query(out)


_PACKED_GROUPS = 8  # up to this many groups, a byte each of one 64-bit word counts them


def _group_counts(
    lists: IntArray, group: IntArray, length: IntArray, n_groups: int
) -> npt.NDArray[np.integer[Any]]:
    """Per entry (in list order, ranks ascending), the entries of its group at or above it
    in its list (itself included). Up to 8 groups and lists shorter than 256: each entry is
    a one in its group's byte of a 64-bit word, and one running sum of those words along
    each list counts every group at once (a byte never carries: a count is below 256);
    else a stable sort by (list, group) keeps the ranks' order within each run, and the
    place in the run is the count."""
    n = len(lists)
    width = int(length.max()) if len(length) else 0
    if n and n_groups <= _PACKED_GROUPS and width < 256:
        shift = group.astype(np.uint64) * np.uint64(8)
        one = np.left_shift(np.uint64(1), shift)
        if n == len(length) * width:  # every list full: the rows of a table
            counted = np.cumsum(one.reshape(-1, width), axis=1).reshape(-1)
        else:  # one running sum, less each list's start (exact modulo 2**64)
            counted = np.cumsum(one)
            end = np.cumsum(length)  # after each list: its start is the previous end
            start = np.where(end > length, counted[np.maximum(end - length - 1, 0)], 0)
            counted -= start.astype(np.uint64)[lists]
        counted >>= shift
        counted &= np.uint64(0xFF)
        return counted
    key = lists * n_groups + group
    order = np.argsort(key, kind="stable")
    run = segments.heads(key[order])
    index = np.arange(1, n + 1, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    out[order] = index - np.maximum.accumulate(np.where(run, index - 1, 0))
    return out


def per_group(metric: Metric, options: Options) -> list[Metric]:
    """``MetricDef.expand`` of the per-group metrics: without a ``group`` option, one metric
    per group of ``item_groups`` (its label names it: ``exposure@5(group=small)``); the
    metric itself when it names one or when ``item_groups`` is not given (the call then
    says it needs it)."""
    if dict(metric.options).get("group") is not None or options.item_groups is None:
        return [metric]
    names = group_names(options)
    labels = [str(g) for g in names]
    folded = {label.casefold() for label in labels}
    if len(folded) != len(labels):
        msg = (
            "The groups of item_groups differ only in case or type "
            f"({', '.join(map(repr, labels))}); a label names a group in lower case. "
            "Rename them."
        )
        raise InvalidOptionError(msg)
    return [
        dataclasses.replace(metric, options=tuple(sorted((*metric.options, ("group", label)))))
        for label in labels
    ]


# -- expected exposure (Diaz et al. 2020) -------------------------------------------------------


def _ideal_attention(n: int, k: int | None, options: Options) -> FloatArray:
    """A(0..n): the attention of the ideal ranking's first j positions, j = 0..n, cut at k.
    Every browsing model gives position i of a ranking whose first items are all relevant
    a function of i alone (the cascade: (1 - stop)**(i - 1))."""
    rank = np.arange(1, n + 1, dtype=np.float64)
    if options.browsing == "log":
        if options.discount == "log2(max(rank,2))":
            a = 1.0 / np.log2(np.maximum(rank, 2.0))
        else:
            a = 1.0 / np.log2(1.0 + rank)
    elif options.browsing == "rbp":
        a = options.patience ** (rank - 1.0)
    else:
        a = (1.0 - options.stop) ** (rank - 1.0)
    if k is not None:
        a[k:] = 0.0
    return np.concatenate([[0.0], np.cumsum(a)])


def _judged_once(top: TopK, inputs: Inputs) -> tuple[IntArray, IntArray, FloatArray]:
    """The relevant entries (query, item, grade), in (query, item) order, once per (query,
    item): with sampled rankings (``sample=``) every sample of a query repeats its
    relevant rows, which must agree on the grade."""
    once: tuple[IntArray, IntArray, FloatArray] = inputs.cached(
        ("judged_once",), lambda: _judged(top)
    )
    return once


def _judged(top: TopK) -> tuple[IntArray, IntArray, FloatArray]:
    assert top.truth_grade is not None  # ItemMetric.grades
    query, item, grade = top.truth_query, top.truth_item, top.truth_grade
    head = segments.heads(query, item) if len(query) else np.zeros(0, dtype=bool)
    return query[head], item[head], grade[head]  # one grade: the per-query step checks it


def _ee_target(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """Per relevant (query, item) (:func:`_judged_once`), its target exposure:
    items of one grade share equally the attention of the positions an ideal ranking
    gives that grade (every higher grade first), ``(A(b + m) - A(b)) / m`` for b items of
    a higher grade and m of this one; 0 for the other items (Diaz et al. 2020)."""
    key = ("ee_target", k, *_model(inputs.options))
    target: FloatArray = inputs.cached(
        key, lambda: _ee_targets(*_judged_once(top, inputs)[::2], k, inputs.options)
    )
    return target


def _model(options: Options) -> tuple[object, ...]:
    return (
        options.browsing,
        options.patience,
        options.stop,
        options.discount,
        options.min_relevance,
    )


def _ee_targets(query: IntArray, grade: FloatArray, k: int | None, options: Options) -> FloatArray:
    n = len(query)
    if n == 0:
        return np.zeros(0)
    order = np.lexsort((-grade, query))  # by query, grade descending
    q, g = query[order], grade[order]
    tier = segments.heads(q, g)  # the first entry of each (query, grade)
    index = np.arange(n, dtype=np.int64)
    query_start = np.maximum.accumulate(np.where(segments.heads(q), index, 0))
    tier_start = np.maximum.accumulate(np.where(tier, index, 0))
    tier_id = np.cumsum(tier) - 1
    size = np.bincount(tier_id)[tier_id]
    before = tier_start - query_start  # relevant items of a higher grade in the query
    cumulative = _ideal_attention(int((before + size).max()), k, options)
    out = np.empty(n)
    out[order] = (cumulative[before + size] - cumulative[before]) / size
    return out


def _ee_components(top: TopK, k: int | None, inputs: Inputs) -> tuple[FloatArray, ...]:
    """Per list: EE-D = Σ_d ε_d², EE-R = Σ_d ε_d ε*_d, EE-L = Σ_d (ε_d - ε*_d)² over every
    item d (retrieved or relevant); ε* :func:`_ee_target`, ε_d the expected attention of
    d: the attention of its rank in each of the query's sampled rankings (0 below k or not
    retrieved), averaged over them (``sample=``; one ranking per query: that ranking's)."""
    key = ("ee", k, *_model(inputs.options))
    value: tuple[FloatArray, ...] = inputs.cached(key, lambda: _ee(top, k, inputs))
    return value


def _ee(top: TopK, k: int | None, inputs: Inputs) -> tuple[FloatArray, ...]:
    lists, weight = _attention(top, k, inputs)
    _, _, keep = lists_at(top, k)
    rank, item = top.rank[keep], top.item[keep]
    # the sampled rankings of each list: its entries of rank 1 (one without samples, as
    # every list with entries has one entry of rank 1)
    first = rank == 1
    sampled = int(np.count_nonzero(first)) > int(np.count_nonzero(lists_at(top, k)[1]))
    if sampled:
        draws = segments.sums(lists, first, top.n_lists)
        # ε per (list, item): its attention summed over the samples, in (list, item, rank)
        # order, so every path and order of samples adds the same numbers in the same order
        order = np.lexsort((rank, item, lists))
        head = segments.heads(lists[order], item[order])
        run = np.cumsum(head) - 1
        n_runs = int(run[-1]) + 1 if len(run) else 0
        run_list, run_item = lists[order][head], item[order][head]
        summed = segments.sums(run, weight[order], n_runs)
        epsilon = summed / draws[run_list]
    else:  # one ranking per query: an entry per (list, item), ε its attention
        run_list, run_item, epsilon, n_runs = lists, item, weight, len(lists)
    truth_query, truth_item, truth_grade = _judged_once(top, inputs)
    target = _ee_target(top, k, inputs)
    ideal = segments.sums(truth_query, target * target, top.n_queries)
    if not sampled and top.grade is not None:
        run_target = _tier_targets(
            top, keep, lists, (truth_query, truth_grade, target), inputs.options
        )
        if run_target is not None:
            return _ee_sums(top, run_list, epsilon, run_target, ideal)
    n_codes = np.int64(max(top.n_codes, 1))
    truth_key = truth_query * n_codes + truth_item  # ascending (TopK.build)
    run_key = (run_list % max(top.n_queries, 1)) * n_codes + run_item
    at = np.minimum(np.searchsorted(truth_key, run_key), max(len(truth_key) - 1, 0))
    hit = (truth_key[at] == run_key) if len(truth_key) else np.zeros(n_runs, bool)
    run_target = np.where(hit, target[at] if len(target) else 0.0, 0.0)
    return _ee_sums(top, run_list, epsilon, run_target, ideal)


def _ee_sums(
    top: TopK, run_list: IntArray, epsilon: FloatArray, run_target: FloatArray, ideal: FloatArray
) -> tuple[FloatArray, ...]:
    """EE-L, EE-D and EE-R per list from each listed item's ε and target, and each query's
    ||ε*||² (``ideal``)."""
    disparity = segments.sums(run_list, epsilon * epsilon, top.n_lists)
    relevance = segments.sums(run_list, epsilon * run_target, top.n_lists)
    loss: FloatArray = np.maximum(disparity - 2.0 * relevance + _per_list_to_query(top, ideal), 0.0)
    return loss, disparity, relevance


_TIER_CELLS = 1 << 26  # the largest (query x grade) table of :func:`_tier_targets`


def _tier_targets(
    top: TopK,
    keep: npt.NDArray[np.bool_] | slice,
    lists: IntArray,
    judged: tuple[IntArray, FloatArray, FloatArray],
    options: Options,
) -> FloatArray | None:
    """With one ranking per query, each top-k entry's target exposure, by its grade: an
    entry is the very row of its relevant entry (each item once per query), and the target
    is the same for every relevant item of one grade in a query (:func:`_ee_targets`), so a
    (query x grade) table of them, indexed by the entry's query and grade, replaces a
    search of its (query, item) among the relevant ones. None when that table would be
    large (many distinct grades)."""
    query, grade, target = judged
    assert top.grade is not None
    grades = np.unique(grade)
    if len(grades) * max(top.n_queries, 1) > _TIER_CELLS:
        return None
    table = np.zeros(max(top.n_queries, 1) * max(len(grades), 1))
    table[query * len(grades) + np.searchsorted(grades, grade)] = target
    entry_grade = top.grade[keep]
    relevant = np.flatnonzero(_relevant(entry_grade, options))  # only these have a target
    at = np.searchsorted(grades, entry_grade[relevant])  # a relevant grade is one of them
    entry_query = lists[relevant] % max(top.n_queries, 1)
    out: FloatArray = np.zeros(len(entry_grade))
    out[relevant] = table[entry_query * len(grades) + at]
    return out


def ee_loss(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """EE-L = ||ε - ε*||² (0: the target exposure exactly)."""
    return top.per_query(_ee_components(top, k, inputs)[0])


def ee_disparity(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """EE-D = ||ε||² (low: exposure spread over many items)."""
    return top.per_query(_ee_components(top, k, inputs)[1])


def ee_relevance(top: TopK, k: int | None, inputs: Inputs) -> FloatArray:
    """EE-R = ε · ε* (high: exposure where the target puts it)."""
    return top.per_query(_ee_components(top, k, inputs)[2])
