"""The finish step's part of the beyond-accuracy metrics: from every list's top-k items
(:class:`~rankframe.metrics.item_codes.TopK`) and the user's ``catalog``, ``popularity``,
``item_features`` and ``item_groups`` (:class:`~rankframe.metrics.item_inputs.Inputs`),
the per-query values of the metrics that have them (``arp``, ``novelty``, ``ild``, the
exposure metrics: into the per-query table, as any metric's), and the set-level metrics as a
:class:`~rankframe.metrics.item_values.SetValues`, a function of query weights: the weights
of the included queries for the value, bootstrap multiplicities for its interval.

Nothing loops over queries or entries in Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rankframe.engine import THREAD_ROWS
from rankframe.exceptions import InvalidDataError, Keyword, excerpt, plain
from rankframe.metrics.item_codes import SHOWN, TopK
from rankframe.metrics.item_inputs import Inputs
from rankframe.metrics.item_values import Classes, SetValues, Tally, item_of, k_of

if TYPE_CHECKING:
    from rankframe.metrics.registry import Metric
    from rankframe.settings.options import Options

__all__ = ["complete"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_COUNT_IN_THREAD = THREAD_ROWS  # from this many entries, finish-step work in a thread


def complete(
    values: FloatArray,
    top: TopK,
    metrics: Sequence[Metric],
    options: Options,
    segment: IntArray,
    n_segments: int,
) -> SetValues | None:
    """Fill ``values`` (n_queries, n_systems, n_metrics) with the per-query item metrics;
    the set-level metrics as a :class:`SetValues` (``None`` without any)."""
    inputs = Inputs(top, options)
    columns, set_metrics = [], []
    aside = _aside(top, metrics, inputs)
    for j, metric in enumerate(metrics):
        item = item_of(metric)
        if item is None:
            continue
        if item.catalog:
            inputs.catalog_size()  # checks the catalog
        if j in aside:
            values[:, :, j] = aside[j].result()
        elif item.per_query is not None:
            values[:, :, j] = item.per_query(top, k_of(metric), inputs.of(metric))
        else:
            columns.append(j)
            set_metrics.append(metric)
    if not columns:
        return None
    list_set = segment[top.query] * top.n_systems + top.system
    items = {}
    classes = None
    for metric in set_metrics:
        item = item_of(metric)
        assert item is not None
        depth = item.depth or k_of(metric)
        if depth not in items:
            keep = top.at_most(depth)
            items[depth] = Tally.of(list_set[keep], top.item[keep], top.query[keep], top.n_codes)
        if item.truth and classes is None:
            classes = _classes(top, segment, left_out=options.empty in _LEFT_OUT)
    return SetValues(
        columns, set_metrics, inputs, n_segments, top.n_systems, segment, items, classes
    )


def _aside(top: TopK, metrics: Sequence[Metric], inputs: Inputs) -> dict[int, Future[Any]]:
    """On a large frame, the metrics that read sampled rankings (expected exposure: no
    groups, no catalogue; only the entries, which no metric changes), computed in a second
    thread while the others run: their futures by position. Their values, and errors, are
    taken in the metrics' order."""
    chosen = [
        (j, item)
        for j, m in enumerate(metrics)
        if (item := item_of(m)) is not None and item.samples and item.per_query
    ]
    others = sum(1 for m in metrics if item_of(m) is not None) - len(chosen)
    if not chosen or not others or len(top.rank) < _COUNT_IN_THREAD:
        return {}
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe")
    aside = {
        j: pool.submit(item.per_query, top, k_of(metrics[j]), inputs.of(metrics[j]))
        for j, item in chosen
        if item.per_query is not None
    }
    pool.shutdown(wait=False)  # the thread ends with its tasks
    return aside


# The ``empty=`` values under which a query without a relevant item has no class at all
# for top1_f1: "skip" and "nan" leave it out of every mean (its weight is then 0), "error"
# raises EmptyQueryError naming it after this step (``_pipeline._included``). Under "zero"
# and "one" it would enter the set with no true class, which F1 does not define: an error.
_LEFT_OUT = ("skip", "nan", "error")


def _classes(top: TopK, segment: IntArray, *, left_out: bool = False) -> Classes:
    """top1_f1's classes: per (query, system), its true class (its one relevant item) and
    its predicted class (its rank-1 item); raises for a query without exactly one relevant
    item, or a list without a rank-1 item. With ``left_out`` (``empty="skip"``, ``"nan"``,
    ``"error"``) a query without a relevant item has no list here instead of an error."""
    per_query = np.bincount(top.truth_query, minlength=top.n_queries)
    wrong = np.flatnonzero((per_query > 1) if left_out else (per_query != 1))
    if len(wrong):
        names = ", ".join(excerpt(plain(q)) for q in top.query_labels(wrong[:SHOWN]))
        more = ", ..." if len(wrong) > SHOWN else ""
        leave_out: tuple[str | Keyword, ...] = ()
        if not left_out and (per_query == 0).any():
            leave_out = (
                ", or pass ",
                Keyword("empty", "skip"),
                " to leave the queries without a relevant item out",
            )
        parts = (
            "top1_f1 needs exactly one relevant item per query (its true class); "
            f"{len(wrong)} quer{'y has' if len(wrong) == 1 else 'ies have'} another number "
            f"(the first has {per_query[wrong[0]]}): {names}{more}. Keep one relevant row "
            "per query, or set min_relevance to the grade of the true item",
            *leave_out,
            ".",
        )
        raise InvalidDataError(parts)
    n_all = top.n_queries * top.n_systems
    first = top.rank == 1
    predicted = np.full(n_all, -1, dtype=np.int64)
    predicted[top.query[first] * top.n_systems + top.system[first]] = top.item[first]
    # the lists of the queries with a true class, in (query, system) order
    lists = np.flatnonzero(np.repeat(per_query == 1, top.n_systems))
    n_lists = len(lists)
    missing = lists[predicted[lists] < 0]
    if len(missing):
        queries = top.query_labels(missing[:SHOWN] // top.n_systems)
        names = ", ".join(excerpt(plain(q)) for q in queries)
        more = ", ..." if len(missing) > SHOWN else ""
        msg = (
            f"top1_f1 needs a rank-1 item in every query; {len(missing)} list(s) retrieved "
            f"nothing: {names}{more}. Give those queries a scored row, or leave them out."
        )
        raise InvalidDataError(msg)
    predicted = predicted[lists]
    true = np.repeat(top.truth_item, top.n_systems)  # per list, in (query, system) order
    query = lists // top.n_systems
    system = lists % top.n_systems
    sets = segment[query] * top.n_systems + system
    # one numbering of the (set, class) pairs of the true and the predicted classes
    both = Tally.of(
        np.concatenate([sets, sets]),
        np.concatenate([true, predicted]),
        np.concatenate([query, query]),
        top.n_codes,
    )
    return Classes(
        tally=Tally(both.set, both.key, both.inverse[:n_lists], query),
        predicted=both.inverse[n_lists:],
        hit=(true == predicted).astype(np.float64),
    )
