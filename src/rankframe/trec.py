"""Read TREC run and qrels files, and join them into rankframe's long frame.

The join follows trec_eval's semantics:

- only queries with judgments are evaluated: a run's queries without any qrels line are
  dropped;
- a retrieved document without a judgment is non-relevant (grade 0);
- a judged document that the run did not retrieve keeps its grade with a null score (it counts
  in R and in NDCG's ideal ranking);
- a judged query missing from the run is dropped (trec_eval's default) or, with
  ``complete=True`` (trec_eval's ``-c``), kept with every score null, so it counts 0.

Ids are read as strings: ``"007"`` stays ``"007"``, and ties are broken by comparing docnos as
strings, as trec_eval does.

``trec_eval_report()`` prints the measures rankframe shares with trec_eval in trec_eval's own
output format (``measure<TAB>query<TAB>value``), line for line as trec_eval prints them; it is
what ``rankframe trec`` runs.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from rankframe.exceptions import InvalidDataError, InvalidOptionError, UnknownMetricError

__all__ = [
    "TREC_MEASURES",
    "TrecMeasure",
    "join_trec",
    "parse_trec_measures",
    "read_trec_qrels",
    "read_trec_run",
    "trec_eval_report",
]

PathOrFrame = str | os.PathLike[str] | pd.DataFrame

_RUN_LAYOUT = "query Q0 docno rank score runid"
_QRELS_LAYOUT = "query iteration docno grade"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _read(
    path: str | os.PathLike[str],
    names: list[str],
    dtypes: dict[str, Any],
    what: str,
    layout: str,
) -> pd.DataFrame:
    """Whitespace-separated columns; fields after the last one are ignored, as trec_eval does."""
    options: dict[str, Any] = {
        "sep": r"\s+", "header": None, "names": names, "usecols": range(len(names)),
    }
    try:
        frame: pd.DataFrame = pd.read_csv(path, dtype=dtypes, **options)
    except ValueError as error:  # pandas' ParserError and UnicodeDecodeError are ValueErrors
        raise _diagnose(path, dtypes, what, layout, error) from None
    if frame.isna().to_numpy().any():
        raise _diagnose(path, dtypes, what, layout, None)
    return frame


def _diagnose(
    path: str | os.PathLike[str],
    dtypes: dict[str, Any],
    what: str,
    layout: str,
    error: ValueError | None,
) -> InvalidDataError:
    """The error that quotes the first bad line of a run or qrels file (a slow path)."""
    where = f"the {what} file {os.fspath(path)!r}"
    expected = f"each line must read '{layout}'"
    with open(path, encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            fields = line.split()
            if not fields:
                continue  # blank lines are skipped, as trec_eval does
            if len(fields) < len(dtypes):
                return InvalidDataError(
                    f"Line {number} of {where} has {len(fields)} fields "
                    f"({line.strip()!r}); {expected}."
                )
            for name, field in zip(dtypes, fields, strict=False):
                convert = dtypes[name]
                if convert is str:
                    continue
                try:
                    (int if convert is np.int64 else float)(field)
                except ValueError:
                    kind = "an integer" if convert is np.int64 else "a number"
                    return InvalidDataError(
                        f"Line {number} of {where} has the {name} {field!r}, which is not "
                        f"{kind} ({line.strip()!r}); {expected}."
                    )
    detail = _first_line(error) if error is not None else "a value is missing or NaN"
    return InvalidDataError(f"Cannot read {where}: {detail}; {expected}.")


def read_trec_run(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a TREC run file: ``query Q0 docno rank score runid`` per line.

    Fields are separated by any whitespace; fields after the sixth are ignored, as trec_eval
    does.

    Returns
    -------
    pandas.DataFrame
        Columns ``query`` (str), ``item`` (str), ``score`` (float64), ``rank`` (int64, as
        written in the file; rankframe ranks by score) and ``run`` (str), in file order.

    Raises
    ------
    InvalidDataError
        A line has fewer than six fields, or a score or rank that is not a number; the
        message quotes the line.
    """
    frame = _read(
        path,
        ["query", "q0", "item", "rank", "score", "run"],
        {"query": str, "q0": str, "item": str, "rank": np.int64, "score": np.float64,
         "run": str},
        "run",
        _RUN_LAYOUT,
    )
    return frame.drop(columns="q0")


def read_trec_qrels(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a TREC qrels file: ``query 0 docno grade`` per line.

    Returns
    -------
    pandas.DataFrame
        Columns ``query`` (str), ``item`` (str) and ``relevant`` (int64 grade; TREC uses
        negative grades for junk, which count as non-relevant).

    Raises
    ------
    InvalidDataError
        A line has fewer than four fields or a grade that is not an integer.
    """
    frame = _read(
        path,
        ["query", "iteration", "item", "relevant"],
        {"query": str, "iteration": str, "item": str, "relevant": np.int64},
        "qrels",
        _QRELS_LAYOUT,
    )
    return frame.drop(columns="iteration")


def _check_unique(frame: pd.DataFrame, what: str) -> None:
    duplicated = frame.duplicated(["query", "item"], keep=False)
    if duplicated.any():
        first = frame[duplicated].iloc[0]
        count = int(((frame["query"] == first["query"]) & (frame["item"] == first["item"])).sum())
        msg = (
            f"Item {first['item']!r} appears {count} times in query {first['query']!r} of the "
            f"{what}; trec_eval rejects duplicate documents. Remove the duplicates, e.g. "
            "frame.drop_duplicates(['query', 'item'])."
        )
        raise InvalidDataError(msg)


def join_trec(run: PathOrFrame, qrels: PathOrFrame, *, complete: bool = False) -> pd.DataFrame:
    """Join a run and its qrels into the long frame that ``.rank_eval`` evaluates.

    Parameters
    ----------
    run
        A run frame (``query``, ``item``, ``score``) or the path of a run file.
    qrels
        A qrels frame (``query``, ``item``, ``relevant``) or the path of a qrels file.
    complete
        Keep judged queries that are absent from the run, with null scores, so they count 0
        (trec_eval's ``-c``). By default they are dropped, as trec_eval does.

    Returns
    -------
    pandas.DataFrame
        Columns ``query``, ``item``, ``score`` (null: judged but not retrieved) and
        ``relevant`` (0 for retrieved but unjudged), sorted by query and item.

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query": ["1", "1", "2"], "item": ["a", "b", "a"],
    ...                     "score": [2.0, 1.0, 5.0]})
    >>> qrels = pd.DataFrame({"query": ["1", "1", "3"], "item": ["b", "c", "a"],
    ...                       "relevant": [1, 2, 1]})
    >>> join_trec(run, qrels)
      query item  score  relevant
    0     1    a    2.0         0
    1     1    b    1.0         1
    2     1    c    NaN         2
    >>> len(join_trec(run, qrels, complete=True))
    4
    """
    run_frame = run if isinstance(run, pd.DataFrame) else read_trec_run(run)
    qrels_frame = qrels if isinstance(qrels, pd.DataFrame) else read_trec_qrels(qrels)
    run_frame = run_frame[["query", "item", "score"]].astype(
        {"query": "str", "item": "str", "score": np.float64}
    )
    qrels_frame = qrels_frame[["query", "item", "relevant"]].astype(
        {"query": "str", "item": "str"}
    )
    _check_unique(run_frame, "run")
    _check_unique(qrels_frame, "qrels")

    judged = qrels_frame["query"].unique()
    run_frame = run_frame[run_frame["query"].isin(judged)]
    if not complete:
        qrels_frame = qrels_frame[qrels_frame["query"].isin(run_frame["query"].unique())]
    joined = run_frame.merge(qrels_frame, on=["query", "item"], how="outer", sort=True)
    joined["relevant"] = joined["relevant"].fillna(0).astype(np.int64)
    return joined.reset_index(drop=True)


# -- trec_eval's output ------------------------------------------------------------------------

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure that rankframe prints.

    Attributes
    ----------
    name
        trec_eval's name (the root of ``P_10``: ``P``).
    kind
        ``"metric"``: a rankframe metric (``P_10`` is ``precision@10``); ``"count"``: a number
        of documents per query, summed over queries; ``"runid"`` and ``"num_q"``: the run's
        name and the number of queries, printed only for ``all``.
    cutoffs
        trec_eval's default cut-offs; empty for a measure without cut-offs.
    official
        Whether trec_eval prints it by default (its ``official`` set).
    """

    name: str
    kind: Literal["metric", "count", "runid", "num_q"] = "metric"
    cutoffs: tuple[int, ...] = ()
    official: bool = False

    def line_names(self, cutoffs: tuple[int, ...]) -> list[str]:
        """The names printed for these cut-offs (``P_5``, ``P_10``), or the bare name."""
        return [f"{self.name}_{k}" for k in cutoffs] if self.cutoffs else [self.name]


TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "runid", official=True),
    TrecMeasure("num_q", "num_q", official=True),
    TrecMeasure("num_ret", "count", official=True),
    TrecMeasure("num_rel", "count", official=True),
    TrecMeasure("num_rel_ret", "count", official=True),
    TrecMeasure("map", official=True),
    TrecMeasure("Rprec", official=True),
    TrecMeasure("recip_rank", official=True),
    TrecMeasure("P", cutoffs=_CUTOFFS, official=True),
    TrecMeasure("recall", cutoffs=_CUTOFFS),
    TrecMeasure("ndcg"),
    TrecMeasure("ndcg_cut", cutoffs=_CUTOFFS),
    TrecMeasure("map_cut", cutoffs=_CUTOFFS),
    TrecMeasure("success", cutoffs=(1, 5, 10)),
)
"""The trec_eval measures rankframe computes, in the order trec_eval prints them."""

_BY_NAME = {m.name.lower(): m for m in TREC_MEASURES}
_NICKNAMES = {
    "official": tuple(m.name for m in TREC_MEASURES if m.official),
    "all_trec": tuple(m.name for m in TREC_MEASURES),
}
# trec_eval 10's other measures: recognised, to say that rankframe does not compute them.
_NOT_COMPUTED = frozenset(name.lower() for name in (
    "gm_map", "bpref", "iprec_at_recall", "relstring", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg", "relative_P",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid",
    "ndcg_p", "unj", "Runj", "num_nonjudged_ret",
))
_TRAILING_CUT = re.compile(r"^(?P<name>.+)_(?P<k>[0-9]+)$")

Selection = list[tuple[TrecMeasure, tuple[int, ...]]]


def _cutoffs(spec: str, text: str) -> set[int]:
    values = set()
    for part in text.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit() and int(part) > 0):
            msg = (
                f"The cut-offs of trec_eval measure {spec!r} must be positive integers "
                f"separated by commas, as in 'P.5,10'. Got {part!r} instead."
            )
            raise InvalidOptionError(msg)
        values.add(int(part))
    return values


def _unknown(spec: str) -> UnknownMetricError:
    from rankframe._registry import parse_metric
    from rankframe.exceptions import RankEvalError

    base = spec.split(".", 1)[0]
    cut = _TRAILING_CUT.match(base)
    try:
        metric = str(parse_metric(spec))
    except RankEvalError:
        metric = None
    if base.lower() in _NOT_COMPUTED or (cut and cut["name"].lower() in _NOT_COMPUTED):
        reason = f"trec_eval measure {spec!r} is not computed by rankframe."
    elif metric is not None:
        reason = (
            f"{spec!r} is rankframe's {metric}, which trec_eval does not compute; "
            "'rankframe evaluate' computes it."
        )
    else:
        candidates = [*(m.name for m in TREC_MEASURES), *_NICKNAMES]
        close = difflib.get_close_matches(base, candidates, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        reason = f"Unknown trec_eval measure {spec!r}.{hint}"
    known = ", ".join(m.name for m in TREC_MEASURES)
    return UnknownMetricError(
        f"{reason} rankframe computes the trec_eval measures {known} (cut-offs as 'P.5,10' "
        "or 'P_10'; 'official' and 'all_trec' select several)."
    )


def _from_rankframe_name(spec: str) -> tuple[TrecMeasure, set[int]] | None:
    """rankframe's spelling of a trec_eval measure: ``ndcg@10`` is ``ndcg_cut`` at 10."""
    from rankframe._registry import parse_metric
    from rankframe.exceptions import RankEvalError

    try:
        metric = parse_metric(spec)
    except RankEvalError:
        return None
    definition = metric.definition
    if metric.k is not None and definition.trec_cut is not None:
        return _BY_NAME[definition.trec_cut.lower()], {metric.k}
    if metric.k is None and definition.trec_name is not None:
        return _BY_NAME[definition.trec_name.lower()], set()
    return None


def parse_trec_measures(specs: Iterable[str] | None = None) -> Selection:
    """Parse trec_eval ``-m`` arguments into measures and cut-offs, in trec_eval's order.

    Accepts trec_eval's syntax (``P``, ``P.5,10``, ``ndcg_cut.10``, ``recip_rank``, the
    nicknames ``official`` and ``all_trec``), the printed names (``P_10``, ``map_cut_100``),
    and rankframe's spelling where it names a trec_eval measure (``ndcg@10``). A bare name with
    cut-offs takes trec_eval's default cut-offs. Requests for one measure add up. ``None``
    selects every measure rankframe computes (``all_trec``).

    Raises
    ------
    UnknownMetricError
        A name that is not a trec_eval measure rankframe computes.
    InvalidOptionError
        A cut-off that is not a positive integer, or a cut-off for a measure without any.

    Examples
    --------
    >>> [(m.name, k) for m, k in parse_trec_measures(["P.10,5", "recip_rank", "ndcg_cut_10"])]
    [('recip_rank', ()), ('P', (5, 10)), ('ndcg_cut', (10,))]
    """
    wanted: dict[str, set[int]] = {}
    for raw in ["all_trec"] if specs is None else specs:
        spec = raw.strip()
        name, dot, params = spec.partition(".")
        if name.lower() in _NICKNAMES and not dot:
            for member in _NICKNAMES[name.lower()]:
                wanted.setdefault(member, set()).update(_BY_NAME[member.lower()].cutoffs)
            continue
        measure = _BY_NAME.get(name.lower())
        cutoffs: set[int] = set()
        if measure is not None and dot:
            cutoffs = _cutoffs(spec, params)
        elif measure is None and not dot:
            cut = _TRAILING_CUT.match(name)
            measure = _BY_NAME.get(cut["name"].lower()) if cut else None
            if measure is not None and cut is not None:
                cutoffs = {int(cut["k"])}
                if int(cut["k"]) == 0:
                    msg = f"The cut-off of trec_eval measure {spec!r} must be positive."
                    raise InvalidOptionError(msg)
            elif (alias := _from_rankframe_name(spec)) is not None:
                measure, cutoffs = alias
        if measure is None:
            raise _unknown(spec)
        if cutoffs and not measure.cutoffs:
            sibling = _BY_NAME.get(f"{measure.name}_cut".lower())
            hint = f" Use {sibling.name}.{','.join(map(str, sorted(cutoffs)))}." if sibling else ""
            msg = f"trec_eval measure {measure.name!r} takes no cut-offs; got {spec!r}.{hint}"
            raise InvalidOptionError(msg)
        wanted.setdefault(measure.name, set()).update(cutoffs or measure.cutoffs)
    if not wanted:
        msg = "No trec_eval measure was requested; pass at least one, e.g. -m map."
        raise UnknownMetricError(msg)
    return [(m, tuple(sorted(wanted[m.name]))) for m in TREC_MEASURES if m.name in wanted]


def _metric_name(measure: TrecMeasure, k: int | None) -> str:
    from rankframe._registry import parse_metric

    return str(parse_metric(measure.name if k is None else f"{measure.name}_{k}"))


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
    run_frame = run if isinstance(run, pd.DataFrame) else read_trec_run(run)
    qrels_frame = qrels if isinstance(qrels, pd.DataFrame) else read_trec_qrels(qrels)
    joined = join_trec(run_frame, qrels_frame, complete=complete)
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
                metric_of[name] = _metric_name(measure, k)
    metrics = list(dict.fromkeys(metric_of.values()))
    accessor: Any = joined.rank_eval  # pandas-stubs do not know registered accessors
    means = accessor.evaluate(metrics, min_relevance=min_relevance).iloc[0] if metrics else None
    values = (
        accessor.per_query(metrics, min_relevance=min_relevance).set_index("query")
        if metrics and per_query else None
    )
    counts = _counts(joined, min_relevance)

    lines: list[str] = []
    if per_query:
        columns: list[list[str]] = []
        for measure, cutoffs in selection:
            for name in measure.line_names(cutoffs):
                if measure.kind == "metric":
                    assert values is not None  # computed above for per_query
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
