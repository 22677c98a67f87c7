"""trec_eval's output for the measures rankframe computes: what ``rankframe trec`` prints.

The run and qrels are read into codes and joined as ``join_trec`` joins them
(``rankframe.inputs.trec_codes``); the values come from one per-query pass over that frame
(``rankframe.trec.values``: per query as ``per_query`` gives them, the ``all`` lines as
``evaluate`` aggregates them, each measure as its registry declaration says: a mean,
``gm_map``'s geometric mean, the sums of the ``num_*`` counts). This module chooses the
lines, writes ``relstring`` (a string rather than a number) and the summary; the per-query
lines are written by ``rankframe.trec.text``, a block of queries at a time.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from rankframe.exceptions import InvalidDataError, InvalidOptionError
from rankframe.inputs.trec_codes import (
    Joined,
    Rows,
    categories,
    join_codes,
    read_codes,
    sorted_codes,
)
from rankframe.metrics.registry import Metric, parse_metric
from rankframe.trec.empty_lists import zero_over_zero
from rankframe.trec.measures import TrecMeasure, parse_trec_measures
from rankframe.trec.text import WIDTH, Column, counts, decimals, lines_text, relstrings
from rankframe.trec.values import Values, values

if TYPE_CHECKING:  # the pandas reader is imported only for a file polars does not read
    from rankframe.inputs.trec_files import PathOrFrame

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
    max_per_query: int | None = None,
    judged_only: bool = False,
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
    max_per_query
        At most this many documents per query (trec_eval ``-M``): each query's first ones
        in trec_eval's ranking (score descending, ties by docno descending), the others
        dropped from the run before anything is counted (``num_ret`` included; a judged
        document cut off counts as not retrieved). ``None``: every document.
    judged_only
        Judged documents only (trec_eval ``-J``): a document of the run that the qrels do
        not judge, or judge with a negative grade, leaves its query's ranking after
        ``max_per_query`` cut it, before anything is counted (``num_ret``, ``relstring``
        included): the metrics' ``unjudged="condense"``. Where that leaves a query no
        document, trec_eval's 0 / 0 prints ``-nan`` (``rankframe.trec.empty_lists``).

    Raises
    ------
    TrecFormatError
        A line of a run or qrels file breaks its format; the error's ``path`` and ``line``
        say which.
    InvalidOptionError
        ``max_per_query`` is not a positive integer.
    InvalidDataError
        No query has both results and judgments.

    Examples
    --------
    >>> import pandas as pd
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
    return "".join(
        report_texts(
            run,
            qrels,
            measures,
            per_query=per_query,
            summary=summary,
            complete=complete,
            min_relevance=min_relevance,
            max_per_query=max_per_query,
            judged_only=judged_only,
        )
    )


def report_texts(
    run: PathOrFrame,
    qrels: PathOrFrame,
    measures: Iterable[str] | None = None,
    *,
    per_query: bool = False,
    summary: bool = True,
    complete: bool = False,
    min_relevance: int | None = None,
    max_per_query: int | None = None,
    judged_only: bool = False,
) -> Iterator[str]:
    """``trec_eval_report``'s text in parts (the per-query lines by blocks of queries, then
    the summary), for a writer that writes each as it comes: every value is computed (and
    every error raised) by this call; only the writing of the blocks waits."""
    selection = parse_trec_measures(measures)
    inputs = _Inputs.of(
        run, qrels, complete=complete, max_per_query=max_per_query, judged_only=judged_only
    )
    lines = [Line(m, name) for m, params in selection for name in m.line_names(params)]
    printed = (
        [line for line in lines if _per_query_line(line.measure, line.metric)] if per_query else []
    )
    shown = printed + (lines if summary else [])
    wanted = [str(line.metric) for line in shown if line.metric is not None]
    options: dict[str, Any] = {} if min_relevance is None else {"min_relevance": min_relevance}
    if judged_only:
        options["unjudged"] = "condense"
    found = values(inputs.frame, wanted, options)
    if judged_only:  # trec_eval's 0 / 0 on a query -J leaves without documents
        found = _with_empty_list_nans(inputs, found, options)
    blocks = _per_query_texts(inputs, printed, found) if printed else iter(())
    ending = (
        "".join(f"{line}\n" for line in _summary_lines(inputs, lines, found)) if summary else ""
    )
    return itertools.chain(blocks, [ending] if ending else [])


@dataclass(frozen=True)
class Line:
    """One printed line of a measure: the measure and the name trec_eval prints (``P_10``);
    ``metric`` the registry metric of a metric's line."""

    measure: TrecMeasure
    name: str

    @property
    def metric(self) -> Metric | None:
        return self.measure.metric_of(self.name) if self.measure.kind == "metric" else None


@dataclass(frozen=True)
class _Inputs:
    """The run (cut to ``max_per_query`` documents per query) joined with its qrels, as
    codes (:class:`rankframe.inputs.trec_codes.Joined`) and as the frame the engine reads,
    the number of queries evaluated, and the run id of the run's last line (trec_eval's)."""

    joined: Joined
    frame: pl.DataFrame
    n_queries: int
    runid: str | None
    complete: bool = False
    judged_only: bool = False

    @classmethod
    def of(
        cls,
        run: PathOrFrame,
        qrels: PathOrFrame,
        *,
        complete: bool,
        max_per_query: int | None,
        judged_only: bool = False,
    ) -> _Inputs:
        """The inputs of a report; no query with both results and judgments is an error."""
        _check_max_per_query(max_per_query)
        ids = categories()  # the run's and the qrels' ids, numbered together
        run_rows = read_codes(run, "run", ids)
        qrels_rows = read_codes(qrels, "qrels", ids)
        if max_per_query is not None:
            run_rows = _first_per_query(run_rows, max_per_query)
        joined = join_codes(run_rows, qrels_rows, complete=complete)
        runid = run_rows.runid
        del run_rows, qrels_rows  # the joined frame holds what they held
        if len(joined.query) == 0:
            msg = (
                "No query has both results in the run and judgments in the qrels (trec_eval: "
                "'No queries with both results and relevance info'); check that the query ids "
                "of the two files match."
            )
            raise InvalidDataError(msg)
        n_queries = int(np.count_nonzero(np.bincount(joined.query)))
        return cls(joined, joined.frame, n_queries, runid, complete, judged_only)


def _check_max_per_query(max_per_query: int | None) -> None:
    """``max_per_query``: ``None`` or a positive integer."""
    if max_per_query is None:
        return
    if isinstance(max_per_query, bool) or not isinstance(max_per_query, (int, np.integer)):
        msg = f"max_per_query must be a positive integer or None; got {max_per_query!r}"
        raise InvalidOptionError(msg)
    if max_per_query < 1:
        msg = (
            f"max_per_query must be a positive integer (at most that many documents per "
            f"query); got {max_per_query}"
        )
        raise InvalidOptionError(msg)


def _first_per_query(run: Rows, limit: int) -> Rows:
    """Each query's first ``limit`` documents in trec_eval's ranking: score descending, ties
    by docno descending (form_res_rels.c sorts, then cuts; a null score last); the rows
    kept in file order."""
    (_, (query,)), (_, (item,)) = sorted_codes(run.query), sorted_codes(run.item)
    order = np.lexsort((-item.astype(np.int64), -run.value, query))
    query = query[order]
    position = np.arange(len(order)) - np.searchsorted(query, query)
    kept = np.zeros(len(order), dtype=bool)
    kept[order] = position < limit
    return run.select(kept)


def _per_query_texts(inputs: _Inputs, printed: list[Line], found: Values) -> Iterator[str]:
    """trec_eval ``-q``'s lines: query by query, each printed measure's line. The values
    of each format are written at once, every column of it one after the other."""
    n_queries = len(found.queries)
    texts: dict[int, pl.Series] = {}
    for write in (decimals, counts):
        positions = [
            j
            for j, line in enumerate(printed)
            if line.metric is not None and (_aggregate(line.metric) == "sum") == (write is counts)
        ]
        if positions:
            numbers = np.concatenate([found.per_query[str(printed[j].metric)] for j in positions])
            written = write(numbers)
            for i, j in enumerate(positions):
                texts[j] = written.slice(i * n_queries, n_queries)
    columns = [
        Column(line.name, texts[j] if j in texts else _relstring_texts(inputs, line, found))
        for j, line in enumerate(printed)
    ]
    return lines_text(columns, inputs.joined.queries.gather(found.queries))


def _relstring_texts(inputs: _Inputs, line: Line, found: Values) -> pl.Series:
    """``relstring``'s quoted text per query evaluated (in ``found.queries``' order)."""
    name, measure = line.name, line.measure
    length = int(name.rpartition("_")[2]) if name != measure.name else 10
    # a judged query the run misses (-c): trec_eval clears the string of `relstring`
    # alone, and `relstring_N` keeps its stand-in document's '-' (trec_eval.c); -J ranks
    # the judged documents alone (not those outside the qrels, nor a negative grade): a
    # query left with none, or the stand-in document of a query the run misses, reads ''
    missed = "" if name == measure.name or inputs.judged_only else "-"[:length]
    grade = inputs.joined.grade()
    if inputs.judged_only:
        kept = np.flatnonzero(grade >= 0)  # NaN: not in the qrels
        strings = relstrings(inputs.frame[kept], grade[kept], length)
    else:
        strings = relstrings(inputs.frame, grade, length)
    table = pl.DataFrame({"query": found.queries}).join(
        strings.with_columns(pl.col("query").cast(pl.Series(found.queries).dtype)),
        on="query",
        how="left",
        maintain_order="left",
    )
    return table.select(
        pl.concat_str([pl.lit("'"), pl.col("relstring").fill_null(missed), pl.lit("'")])
    ).to_series()


def _summary_lines(inputs: _Inputs, lines: list[Line], found: Values) -> list[str]:
    """The ``all`` lines: the run id, the number of queries, each metric's aggregate."""
    out: list[str] = []
    for line in lines:
        name, kind = line.name, line.measure.kind
        if kind == "runid":
            if inputs.runid is not None:
                out.append(f"{name:<{WIDTH}}\tall\t{inputs.runid}")
        elif kind == "num_q":
            out.append(f"{name:<{WIDTH}}\tall\t{inputs.n_queries}")
        elif line.metric is not None:
            value = found.means[str(line.metric)]
            if name == "num_rel" and inputs.complete:
                # -c: trec_eval counts the qrels' grades above 0, whatever -l (m_num_rel.c)
                value = float(np.count_nonzero(inputs.joined.grade() > 0))
            write = counts if _aggregate(line.metric) == "sum" else decimals
            out.append(f"{name:<{WIDTH}}\tall\t{write(np.array([value]))[0]}")
    return out


def _with_empty_list_nans(inputs: _Inputs, found: Values, options: dict[str, Any]) -> Values:
    """``found`` with trec_eval's NaN where ``-J`` leaves a query no document
    (:func:`rankframe.trec.empty_lists.zero_over_zero`): per query, and in the ``all`` value
    of a metric that has one (the sum over the queries is NaN then)."""
    metrics = {name: parse_metric(name) for name in found.per_query}
    if not any(m.name in ("iprec", "eleven_point_avg") for m in metrics.values()):
        return found
    sizes = values(inputs.frame, ["num_ret", "num_rel"], options)
    order = np.searchsorted(sizes.queries, found.queries)  # both sorted codes
    n_retrieved = sizes.per_query["num_ret"][order]
    n_relevant = sizes.per_query["num_rel"][order]
    per_query, means = dict(found.per_query), dict(found.means)
    for name, metric in metrics.items():
        nan = zero_over_zero(metric, n_retrieved, n_relevant)
        if nan.any():
            per_query[name] = np.where(nan, np.nan, per_query[name])
            means[name] = np.nan
    return Values(found.queries, per_query, means)


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
