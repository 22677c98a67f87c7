"""trec_eval's output for the measures rankframe computes: what ``rankframe trec`` prints.

The values come from the accessor on the frame that ``join_trec`` returns: per query from
``per_query``, the ``all`` lines from ``evaluate`` (so each measure aggregates as its registry
declaration says: a mean, ``gm_map``'s geometric mean, the sums of the ``num_*`` counts). This
module only chooses the lines and prints them as trec_eval does, and writes ``relstring``,
which is a string rather than a number.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rankframe.exceptions import InvalidDataError, InvalidOptionError, silenced
from rankframe.inputs.trec_files import PathOrFrame, checked_frames, joined_frames
from rankframe.metrics.registry import Metric, labels
from rankframe.trec.empty_lists import NAN, empty_list_nans
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
        included): the metrics' ``unjudged="condense"``.

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
    inputs = _Inputs.of(
        run,
        qrels,
        complete=complete,
        min_relevance=min_relevance,
        max_per_query=max_per_query,
        judged_only=judged_only,
    )
    lines = [Line(m, name) for m, params in selection for name in m.line_names(params)]
    out = _per_query_lines(inputs, lines) if per_query else []
    out += _summary_lines(inputs, lines) if summary else []
    return "".join(f"{line}\n" for line in out)


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
    """The run (cut to ``max_per_query`` documents per query) and the qrels checked, the
    frame they join into (its queries sorted as strings), the metric options
    (``min_relevance``, ``unjudged="condense"`` for ``-J``), the run id of the run's last
    line (trec_eval's), and whether every judged query counts (``-c``)."""

    run: pd.DataFrame
    qrels: pd.DataFrame
    joined: pd.DataFrame
    queries: pd.Index
    options: dict[str, Any]
    runid: str | None
    complete: bool = False

    @classmethod
    def of(
        cls,
        run: PathOrFrame,
        qrels: PathOrFrame,
        *,
        complete: bool,
        min_relevance: int | None,
        max_per_query: int | None,
        judged_only: bool = False,
    ) -> _Inputs:
        """The inputs of a report; no query with both results and judgments is an error."""
        _check_max_per_query(max_per_query)
        run_frame, qrels_frame = checked_frames(run, qrels)
        has_id = "run" in run_frame.columns and len(run_frame) > 0
        runid = str(run_frame["run"].iloc[-1]) if has_id else None
        if max_per_query is not None:
            run_frame = _first_per_query(run_frame, max_per_query)
        joined = joined_frames(run_frame, qrels_frame, complete=complete)
        if joined.empty:
            msg = (
                "No query has both results in the run and judgments in the qrels (trec_eval: "
                "'No queries with both results and relevance info'); check that the query ids "
                "of the two files match."
            )
            raise InvalidDataError(msg)
        options: dict[str, Any] = {} if min_relevance is None else {"min_relevance": min_relevance}
        if judged_only:
            options["unjudged"] = "condense"
        queries = pd.Index(sorted(joined["query"].unique()), name="query")
        return cls(run_frame, qrels_frame, joined, queries, options, runid, complete)


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


def _first_per_query(run: pd.DataFrame, limit: int) -> pd.DataFrame:
    """Each query's first ``limit`` documents in trec_eval's ranking: score descending, ties
    by docno descending (form_res_rels.c sorts, then cuts); the rows kept in file order."""
    keys = run[["query", "item", "score"]].astype(
        {"query": "str", "item": "str", "score": np.float64}
    )
    ranked = keys.reset_index(drop=True).sort_values(
        ["query", "score", "item"], ascending=[True, False, False], kind="stable"
    )
    position = ranked.groupby("query", sort=False).cumcount()  # indexed by the row's position
    kept = np.zeros(len(run), dtype=bool)
    kept[position.index.to_numpy()] = position.to_numpy() < limit
    return run.loc[kept]


def _per_query_lines(inputs: _Inputs, lines: list[Line]) -> list[str]:
    """trec_eval ``-q``'s lines: query by query, each printed measure's line."""
    printed = [line for line in lines if _per_query_line(line.measure, line.metric)]
    wanted = [str(line.metric) for line in printed if line.metric is not None]
    values = (
        _per_query(inputs.joined, wanted, inputs.queries, inputs.options)
        if wanted
        else pd.DataFrame(index=inputs.queries)
    )
    nans = _nans(inputs, printed)
    if nans is not None:  # -J: trec_eval's 0 / 0 on a query left without documents
        values = values.mask(nans.reindex(columns=values.columns, fill_value=False))
    columns: list[list[str]] = []
    for line in printed:
        if line.metric is not None:
            columns.append(_formatted(line.name, values[str(line.metric)], line.metric))
        else:  # relstring
            name, measure = line.name, line.measure
            length = int(name.rpartition("_")[2]) if name != measure.name else 10
            # a judged query the run misses (-c): trec_eval clears the string of `relstring`
            # alone, and `relstring_N` keeps its stand-in document's '-' (trec_eval.c)
            # -J ranks the judged documents alone: a query left with none, or the stand-in
            # document of a query the run misses (not in the qrels), reads '' too
            condensed = inputs.options.get("unjudged") == "condense"
            missed = "" if name == measure.name or condensed else "-"[:length]
            strings = _relstrings(
                inputs.run, inputs.qrels, inputs.queries, length, missed, judged_only=condensed
            )
            columns.append([f"{name:<{_WIDTH}}\t{q}\t'{s}'" for q, s in strings.items()])
    return [text for row in zip(*columns, strict=True) for text in row]


def _summary_lines(inputs: _Inputs, lines: list[Line]) -> list[str]:
    """The ``all`` lines: the run id, the number of queries, each metric's aggregate."""
    metrics = list(dict.fromkeys(str(line.metric) for line in lines if line.metric is not None))
    means = _evaluate(inputs.joined, metrics, inputs.options) if metrics else pd.Series(dtype=float)
    nans = _nans(inputs, lines)
    if nans is not None:  # -J: a query's NaN makes the sum over the queries NaN
        means = means.mask(nans.any().reindex(means.index, fill_value=False))
    out: list[str] = []
    for line in lines:
        name, kind = line.name, line.measure.kind
        if kind == "runid":
            if inputs.runid is not None:
                out.append(f"{name:<{_WIDTH}}\tall\t{inputs.runid}")
        elif kind == "num_q":
            out.append(f"{name:<{_WIDTH}}\tall\t{len(inputs.queries)}")
        elif line.metric is not None:
            value = means[str(line.metric)]
            if name == "num_rel" and inputs.complete:
                # -c: trec_eval counts the qrels' grades above 0, whatever -l (m_num_rel.c)
                value = float((inputs.qrels["relevant"] > 0).sum())
            out.extend(_formatted(name, pd.Series([value], index=["all"]), line.metric))
    return out


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
    return [
        f"{name:<{_WIDTH}}\t{q}\t{NAN if np.isnan(v) else f'{v:6.4f}'}" for q, v in values.items()
    ]


def _nans(inputs: _Inputs, lines: list[Line]) -> pd.DataFrame | None:
    """With ``-J`` (``unjudged="condense"``), per query and metric (named by its ``str``):
    whether trec_eval prints ``-nan`` (:mod:`rankframe.trec.empty_lists`); else ``None``."""
    if inputs.options.get("unjudged") != "condense":
        return None
    metrics = list(dict.fromkeys(line.metric for line in lines if line.metric is not None))
    return empty_list_nans(inputs.joined, metrics, inputs.queries, inputs.options)


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
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    queries: pd.Index,
    length: int,
    missed: str,
    *,
    judged_only: bool = False,
) -> pd.Series:
    """trec_eval's ``relstring``: per query, the judgments of the first ``length`` documents
    retrieved, one character each (m_relstring.c): the grade 0-9, ``>`` above 9, ``-`` for
    a document not in the qrels, ``.`` for one in the qrels with a negative grade (in the
    pool but not judged); with ``judged_only`` (``-J``) those two are not ranked. A judged
    query that the run misses (kept by ``-c``) reads ``missed``."""
    retrieved = run.loc[run["query"].astype(str).isin(queries), ["query", "item", "score"]]
    retrieved = retrieved.astype({"query": "str", "item": "str", "score": np.float64})
    graded = retrieved.merge(
        qrels[["query", "item", "relevant"]].astype({"query": "str", "item": "str"}),
        on=["query", "item"],
        how="left",
    )
    if judged_only:  # NaN (not in the qrels) and negative grades leave the ranking
        graded = graded.loc[graded["relevant"] >= 0]
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
    return strings.reindex(queries, fill_value=missed)
