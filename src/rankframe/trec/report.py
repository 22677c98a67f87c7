"""trec_eval's output for the measures rankframe computes: what ``rankframe trec`` prints.

The values come from the accessor on the frame that ``join_trec`` returns: per query from
``per_query``, the ``all`` lines from ``evaluate`` (so each measure aggregates as its registry
declaration says: a mean, ``gm_map``'s geometric mean, the sums of the ``num_*`` counts). This
module only chooses the lines and prints them as trec_eval does, and writes ``relstring``,
which is a string rather than a number.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from rankframe.exceptions import InvalidDataError, silenced
from rankframe.inputs.trec_files import PathOrFrame, checked_frames, joined_frames
from rankframe.metrics.registry import Metric, labels
from rankframe.trec.measures import TrecMeasure, parse_trec_measures

__all__ = ["trec_eval_report"]

_WIDTH = 22  # trec_eval prints "%-22s\t%s\t%6.4f"


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

    Lines read ``measure<TAB>query<TAB>value``, the measure left-justified to 22 characters,
    values with 4 decimals and counts as integers, as trec_eval prints them. With
    ``per_query=True`` (trec_eval ``-q``) every query's lines come first, queries sorted as
    strings, measures in trec_eval's order (``runid``, ``num_q`` and the geometric means
    ``gm_map`` and ``gm_bpref`` have no per-query line); then the ``all`` lines: ``runid``
    (the run id on the run's last line), ``num_q`` and each measure's aggregate over the
    queries (``relstring`` has none).

    Parameters
    ----------
    run, qrels
        Paths of a TREC run and qrels file, or frames as ``read_trec_run()`` and
        ``read_trec_qrels()`` return them.
    measures
        trec_eval ``-m`` arguments (see ``parse_trec_measures()``); ``None``: trec_eval's
        default, ``official``.
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
    InvalidDataError
        No query has both results and judgments.

    Examples
    --------
    >>> run = pd.DataFrame({"query": ["1", "1", "2"], "item": ["a", "b", "a"],
    ...                     "score": [2.0, 1.0, 5.0], "run": "mine"})
    >>> qrels = pd.DataFrame({"query": ["1", "1", "2"], "item": ["b", "c", "b"],
    ...                       "relevant": [1, 2, 1]})
    >>> print(trec_eval_report(run, qrels, ["num_q", "recip_rank", "P.1,2", "relstring.3"],
    ...                        per_query=True), end="")
    recip_rank            \t1\t0.5000
    P_1                   \t1\t0.0000
    P_2                   \t1\t0.5000
    relstring_3           \t1\t'-1'
    recip_rank            \t2\t0.0000
    P_1                   \t2\t0.0000
    P_2                   \t2\t0.0000
    relstring_3           \t2\t'-'
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

    # every printed line: its measure, its name, and the registry metric of a metric's line
    lines = [(m, name) for m, params in selection for name in m.line_names(params)]
    metric_of = {name: m.metric_of(name) for m, name in lines if m.kind == "metric"}
    options: dict[str, Any] = {} if min_relevance is None else {"min_relevance": min_relevance}
    queries = pd.Index(sorted(joined["query"].unique()), name="query")

    out: list[str] = []
    if per_query:
        printed = [(m, name) for m, name in lines if _per_query_line(m, metric_of.get(name))]
        columns: list[list[str]] = []
        wanted = [str(metric_of[name]) for m, name in printed if m.kind == "metric"]
        values = _per_query(joined, wanted, queries, options) if wanted else None
        for measure, name in printed:
            if measure.kind == "relstring":
                length = int(name.rpartition("_")[2]) if name != measure.name else 10
                strings = _relstrings(run_frame, qrels_frame, queries, length)
                columns.append([f"{name:<{_WIDTH}}\t{q}\t'{s}'" for q, s in strings.items()])
            else:
                assert values is not None  # computed above when a metric is printed
                metric = metric_of[name]
                columns.append(_formatted(name, values[str(metric)], metric))
        for row in zip(*columns, strict=True):
            out.extend(row)
    if summary:
        metrics = list(
            dict.fromkeys(str(metric_of[name]) for m, name in lines if m.kind == "metric")
        )
        means = _evaluate(joined, metrics, options) if metrics else None
        for measure, name in lines:
            if measure.kind == "runid":
                if "run" in run_frame.columns and len(run_frame):
                    out.append(f"{name:<{_WIDTH}}\tall\t{run_frame['run'].iloc[-1]}")
            elif measure.kind == "num_q":
                out.append(f"{name:<{_WIDTH}}\tall\t{len(queries)}")
            elif measure.kind == "metric":
                assert means is not None  # computed above when a metric is printed
                metric = metric_of[name]
                value = means[str(metric)]
                out.extend(_formatted(name, pd.Series([value], index=["all"]), metric))
    return "".join(f"{line}\n" for line in out)


def _aggregate(metric: Metric) -> str:
    """How a metric's per-query values make its ``all`` value (its registry declaration)."""
    return metric.definition.aggregate


def _per_query_line(measure: TrecMeasure, metric: Metric | None) -> bool:
    """Whether trec_eval prints a per-query line for this measure: not for the run id and
    the number of queries, nor for the geometric means (whose per-query value trec_eval
    keeps as a logarithm and does not print)."""
    if measure.kind in ("runid", "num_q"):
        return False
    return metric is None or _aggregate(metric) != "geometric"


def _formatted(name: str, values: pd.Series, metric: Metric) -> list[str]:
    """trec_eval's lines of one measure: counts (summed measures) as integers, the others
    with 4 decimals."""
    if _aggregate(metric) == "sum":
        return [f"{name:<{_WIDTH}}\t{q}\t{round(v)}" for q, v in values.items()]
    return [f"{name:<{_WIDTH}}\t{q}\t{v:6.4f}" for q, v in values.items()]


def _per_query(
    joined: pd.DataFrame, metrics: list[str], queries: pd.Index, options: dict[str, Any]
) -> pd.DataFrame:
    """Per query (indexed by the query id, sorted as strings), a column per metric (named
    as asked, not by its label: trec_eval prints its own names)."""
    metrics = list(dict.fromkeys(metrics))
    with silenced():  # a judged item missing from the run: the format's null score
        table: pd.DataFrame = joined.rank_eval.per_query(metrics, **options)
    table = table.rename(columns=dict(zip(labels(metrics, options), metrics, strict=True)))
    return table.set_index("query").reindex(queries)


def _evaluate(joined: pd.DataFrame, metrics: list[str], options: dict[str, Any]) -> pd.Series:
    """Each metric aggregated over the queries, as its declaration says (named as asked)."""
    with silenced():  # a judged item missing from the run: the format's null score
        row: pd.Series = joined.rank_eval.evaluate(metrics, **options).iloc[0]
    return row.rename(dict(zip(labels(metrics, options), metrics, strict=True)))


def _relstrings(
    run: pd.DataFrame, qrels: pd.DataFrame, queries: pd.Index, length: int
) -> pd.Series:
    """trec_eval's ``relstring``: per query, the judgments of the first ``length`` documents
    retrieved, one character each (m_relstring.c): the grade 0-9, ``>`` above 9, ``-`` for
    a document not in the qrels, ``.`` for one in the qrels with a negative grade (in the
    pool but not judged). A query that retrieved nothing has an empty string."""
    retrieved = run.loc[run["query"].astype(str).isin(queries), ["query", "item", "score"]]
    retrieved = retrieved.astype({"query": "str", "item": "str", "score": np.float64})
    graded = retrieved.merge(
        qrels[["query", "item", "relevant"]].astype({"query": "str", "item": "str"}),
        on=["query", "item"],
        how="left",
    )
    unjudged: Any = graded.assign(relevant=0)  # rank() needs a grade column, not its values
    rank = unjudged.rank_eval.rank()["rank"].to_numpy(dtype=np.float64, na_value=np.nan)
    first = rank <= length
    top = graded.loc[first].assign(rank=rank[first])
    grade = top["relevant"].to_numpy(dtype=np.float64, na_value=np.nan)
    digits = np.clip(np.nan_to_num(grade), 0, 9).astype(np.int64).astype(str)
    top = top.assign(
        char=np.select(
            [np.isnan(grade), grade < 0, grade > 9],
            ["-", ".", ">"],
            default=digits,
        )
    )
    strings: pd.Series = top.sort_values(["query", "rank"]).groupby("query")["char"].agg("".join)
    return strings.reindex(queries, fill_value="")
