"""trec_eval's output for the measures rankframe computes: what ``rankframe trec`` prints."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from rankframe._options import Options
from rankframe._pipeline import ColumnNames, PerQueryRows, Request
from rankframe._pipeline import per_query as per_query_values
from rankframe._registry import parse_metrics
from rankframe.adapters.pandas import PandasBackend
from rankframe.exceptions import InvalidDataError
from rankframe.trec.files import PathOrFrame, checked_frames, joined_frames
from rankframe.trec.measures import parse_trec_measures

__all__ = ["trec_eval_report"]


def trec_eval_report(
    run: PathOrFrame,
    qrels: PathOrFrame,
    measures: Iterable[str] | None = None,
    *,
    per_query: bool = False,
    summary: bool = True,
    complete: bool = False,
    min_relevance: int | None = None,
) -> str:
    """trec_eval's output for the measures rankframe computes, byte for byte.

    Lines read ``measure<TAB>query<TAB>value``, the measure left-justified to 22 characters
    and values with 4 decimals, as trec_eval prints them. With ``per_query=True``
    (trec_eval ``-q``) every query's lines come first, queries sorted as strings, measures in
    trec_eval's order; then the ``all`` lines: ``runid`` (the run id on the run's last line),
    ``num_q``, and the means (sums for ``num_ret``, ``num_rel``, ``num_rel_ret``).

    Parameters
    ----------
    run, qrels
        Paths of a TREC run and qrels file, or frames as ``read_trec_run()`` and
        ``read_trec_qrels()`` return them.
    measures
        trec_eval measure names (see ``parse_trec_measures()``); ``None``: all of them.
    per_query
        Print each query's values too (trec_eval ``-q``).
    summary
        Print the ``all`` lines (trec_eval ``-n`` turns them off).
    complete
        Judged queries missing from the run count 0 (trec_eval ``-c``).
    min_relevance
        Lowest grade that counts as relevant (trec_eval ``-l``); ``None``: grade > 0.

    Raises
    ------
    TrecFormatError
        A line of a run or qrels file breaks its format; the error's ``path`` and ``line``
        say which.

    Examples
    --------
    >>> run = pd.DataFrame({"query": ["1", "1", "2"], "item": ["a", "b", "a"],
    ...                     "score": [2.0, 1.0, 5.0], "run": "mine"})
    >>> qrels = pd.DataFrame({"query": ["1", "1", "2"], "item": ["b", "c", "b"],
    ...                       "relevant": [1, 2, 1]})
    >>> print(trec_eval_report(run, qrels, ["num_q", "recip_rank", "P.1,2"], per_query=True),
    ...       end="")
    recip_rank            \t1\t0.5000
    P_1                   \t1\t0.0000
    P_2                   \t1\t0.5000
    recip_rank            \t2\t0.0000
    P_1                   \t2\t0.0000
    P_2                   \t2\t0.0000
    num_q                 \tall\t2
    recip_rank            \tall\t0.2500
    P_1                   \tall\t0.0000
    P_2                   \tall\t0.2500
    """
    selection = parse_trec_measures(measures)
    run_frame, qrels_frame = checked_frames(run, qrels)
    joined = joined_frames(run_frame, qrels_frame, complete=complete)
    if joined.empty:
        msg = (
            "No query has both results in the run and judgments in the qrels (trec_eval: "
            "'No queries with both results and relevance info'); check that the query ids "
            "of the two files match."
        )
        raise InvalidDataError(msg)

    # one column per printed line name: rankframe's metrics per query, and the counts
    metric_of: dict[str, str] = {}
    for measure, cutoffs in selection:
        if measure.kind == "metric":
            for name, k in zip(measure.line_names(cutoffs), cutoffs or (None,), strict=True):
                metric_of[name] = measure.metric_at(k)
    metrics = list(dict.fromkeys(metric_of.values()))
    values = _per_query_values(joined, metrics, min_relevance) if metrics else None
    means = values.mean() if values is not None else None
    counts = _counts(joined, min_relevance)

    lines: list[str] = []
    if per_query:
        columns: list[list[str]] = []
        for measure, cutoffs in selection:
            for name in measure.line_names(cutoffs):
                if measure.kind == "metric":
                    assert values is not None  # computed above when a metric is selected
                    column = values[metric_of[name]].reindex(counts.index)
                    columns.append(
                        [f"{name:<22}\t{q}\t{v:6.4f}" for q, v in column.items()]
                    )
                elif measure.kind == "count":
                    columns.append(
                        [f"{name:<22}\t{q}\t{v}" for q, v in counts[name].items()]
                    )
        for row in zip(*columns, strict=True):
            lines.extend(row)
    if summary:
        for measure, cutoffs in selection:
            for name in measure.line_names(cutoffs):
                if measure.kind == "runid":
                    if "run" in run_frame.columns and len(run_frame):
                        lines.append(f"{name:<22}\tall\t{run_frame['run'].iloc[-1]}")
                elif measure.kind == "num_q":
                    lines.append(f"{name:<22}\tall\t{len(counts)}")
                elif measure.kind == "count":
                    lines.append(f"{name:<22}\tall\t{int(counts[name].sum())}")
                else:
                    assert means is not None  # computed above when a metric is selected
                    lines.append(f"{name:<22}\tall\t{float(means[metric_of[name]]):6.4f}")
    return "".join(f"{line}\n" for line in lines)


def _per_query_values(
    joined: pd.DataFrame, metrics: list[str], min_relevance: int | None
) -> pd.DataFrame:
    """Per query (indexed by the query id), a column per metric: the engine's one pass."""
    request = Request(ColumnNames(judged="judged"), tuple(parse_metrics(metrics)), (),
                      Options(min_relevance=min_relevance), PerQueryRows())
    pq = per_query_values(PandasBackend(joined), request)
    per_query = pq.values[:, 0, :]  # noqa: PD011  (a NumPy array: one system)
    queries = pq.query_labels(np.arange(len(per_query), dtype=np.int64))
    return pd.DataFrame(per_query, index=pd.Index(queries, name="query"),
                        columns=[str(m) for m in request.metrics])


def _counts(joined: pd.DataFrame, min_relevance: int | None) -> pd.DataFrame:
    """Per query, sorted as strings: num_ret, num_rel and num_rel_ret (trec_eval's counts)."""
    retrieved = joined["score"].notna()
    grade = joined["relevant"]
    relevant = grade > 0 if min_relevance is None else grade >= min_relevance
    flags = pd.DataFrame({
        "query": joined["query"].astype(str),
        "num_ret": retrieved.astype(np.int64),
        "num_rel": relevant.astype(np.int64),
        "num_rel_ret": (retrieved & relevant).astype(np.int64),
    })
    return flags.groupby("query", sort=True).sum()
