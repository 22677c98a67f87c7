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
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from rankframe.exceptions import InvalidDataError

__all__ = ["join_trec", "read_trec_qrels", "read_trec_run"]

PathOrFrame = str | os.PathLike[str] | pd.DataFrame


def _read(path: str | os.PathLike[str], names: list[str], dtypes: dict[str, Any]) -> pd.DataFrame:
    frame = pd.read_csv(
        path, sep=r"\s+", header=None, names=names, dtype=dtypes, engine="python",
        usecols=range(len(names)),
    )
    return frame


def read_trec_run(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a TREC run file: ``query Q0 docno rank score runid`` per line.

    Returns
    -------
    pandas.DataFrame
        Columns ``query`` (str), ``item`` (str), ``score`` (float64), ``rank`` (int64, as
        written in the file; rankframe ranks by score) and ``run`` (str).
    """
    frame = _read(
        path,
        ["query", "q0", "item", "rank", "score", "run"],
        {"query": str, "q0": str, "item": str, "rank": np.int64, "score": np.float64,
         "run": str},
    )
    return frame.drop(columns="q0")


def read_trec_qrels(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a TREC qrels file: ``query 0 docno grade`` per line.

    Returns
    -------
    pandas.DataFrame
        Columns ``query`` (str), ``item`` (str) and ``relevant`` (int64 grade; TREC uses
        negative grades for junk, which count as non-relevant).
    """
    frame = _read(
        path,
        ["query", "iteration", "item", "relevant"],
        {"query": str, "iteration": str, "item": str, "relevant": np.int64},
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
