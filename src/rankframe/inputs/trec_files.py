"""Read TREC run and qrels files, and join them into rankframe's long frame.

A bad line raises ``rankframe.exceptions.TrecFormatError``, whose ``path`` and 1-based
``line`` say where; the message quotes a short excerpt of the line. The files are read in one
pass by pandas; only when that fails are the lines read again, one by one, to find the
first bad one.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from rankframe.exceptions import InvalidDataError, TrecFormatError, excerpt
from rankframe.settings.option_checks import kind_of

__all__ = ["join_trec", "read_trec_qrels", "read_trec_run"]

PathOrFrame = str | os.PathLike[str] | pd.DataFrame
PathLike = str | os.PathLike[str]

_LAYOUTS = {"run": "query Q0 docno rank score runid", "qrels": "query iteration docno grade"}
_CONVERTERS: dict[Any, tuple[Callable[[str], float], str]] = {
    np.int64: (int, "an integer"),
    np.float64: (float, "a number"),
}


def _where(path: PathLike, kind: str) -> str:
    return f"the {kind} file {excerpt(os.fspath(path), 200)}"


def _lines(path: PathLike) -> Iterator[tuple[int, bytes]]:
    """The 1-based number and the bytes of every non-blank line."""
    with open(path, "rb") as file:
        for number, line in enumerate(file, start=1):
            if line.strip():
                yield number, line


def _read(path: PathLike, dtypes: dict[str, Any], kind: str) -> pd.DataFrame:
    """Whitespace-separated columns; fields after the last one are ignored, as trec_eval does."""
    names = list(dtypes)
    try:
        frame: pd.DataFrame = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            names=names,
            usecols=range(len(names)),
            dtype=dtypes,
            keep_default_na=False,
        )
    except ValueError as error:  # ParserError, UnicodeDecodeError, a field that is no number
        raise _diagnose(path, dtypes, kind, error) from None
    if frame.empty:
        msg = f"The {_where(path, kind)[4:]} has no lines; each line must read '{_LAYOUTS[kind]}'."
        raise TrecFormatError(msg, path=path, kind=kind)
    last = frame[names[-1]]
    if (last == "").any() if dtypes[names[-1]] is str else last.isna().any():
        raise _diagnose(path, dtypes, kind, None)  # a line with too few fields
    _check_unique_lines(frame, path, kind)
    return frame


def _diagnose(
    path: PathLike, dtypes: dict[str, Any], kind: str, error: ValueError | None
) -> TrecFormatError:
    """The error that names the first bad line of a run or qrels file (a slow path)."""
    where = _where(path, kind)
    expected = f"each line must read '{_LAYOUTS[kind]}'"
    for number, raw in _lines(path):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            msg = (
                f"Line {number:,} of {where} is not UTF-8 text (byte 0x{raw[bad.start]:02x} in "
                f"{excerpt(raw.strip())}); save the file as UTF-8."
            )
            return TrecFormatError(msg, path=path, kind=kind, line=number)
        fields = line.split()
        if len(fields) < len(dtypes):
            msg = (
                f"Line {number:,} of {where} has {len(fields)} fields "
                f"({excerpt(line.strip())}); {expected}."
            )
            return TrecFormatError(msg, path=path, kind=kind, line=number, n_fields=len(fields))
        for name, field in zip(dtypes, fields, strict=False):
            if dtypes[name] not in _CONVERTERS:
                continue
            convert, kind_of_value = _CONVERTERS[dtypes[name]]
            try:
                finite = not math.isnan(convert(field))
            except ValueError:
                finite = False
            if not finite:
                msg = (
                    f"Line {number:,} of {where} has the {name} {excerpt(field)}, which is not "
                    f"{kind_of_value} ({excerpt(line.strip())}); {expected}."
                )
                return TrecFormatError(msg, path=path, kind=kind, line=number)
    detail = excerpt(str(error).strip().split("\n")[0], 200) if error else "a value is missing"
    return TrecFormatError(f"Cannot read {where}: {detail}; {expected}.", path=path, kind=kind)


def _line_numbers(path: PathLike, rows: Sequence[int]) -> list[int]:
    """The 1-based line numbers of the 0-based rows of a frame read by ``_read`` (blank lines
    have no row)."""
    wanted = dict.fromkeys(rows)
    numbers: dict[int, int] = {}
    for row, (number, _) in enumerate(_lines(path)):
        if row in wanted:
            numbers[row] = number
            if len(numbers) == len(wanted):
                break
    return [numbers[row] for row in rows]


def _first_duplicate(frame: pd.DataFrame) -> tuple[Any, Any, list[int]] | None:
    """The query, item and row positions of the first repeated (query, item), if any."""
    duplicated = frame.duplicated(["query", "item"], keep=False).to_numpy()
    if not duplicated.any():
        return None
    first = int(np.argmax(duplicated))
    query, item = frame["query"].iloc[first], frame["item"].iloc[first]
    same = (frame["query"] == query).to_numpy() & (frame["item"] == item).to_numpy()
    return query, item, np.flatnonzero(same).tolist()


def _check_unique_lines(frame: pd.DataFrame, path: PathLike, kind: str) -> None:
    found = _first_duplicate(frame)
    if found is None:
        return
    query, item, rows = found
    lines = _line_numbers(path, rows[:3])
    shown = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
    more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
    msg = (
        f"Document {excerpt(item)} appears {len(rows)} times in query {excerpt(query)} of "
        f"{_where(path, kind)} (lines {shown}{more}); trec_eval rejects duplicate documents: "
        "keep one line for each."
    )
    raise TrecFormatError(msg, path=path, kind=kind, line=lines[1])


def read_trec_run(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a TREC run file: ``query Q0 docno rank score runid`` per line.

    Fields are separated by any whitespace; fields after the sixth are ignored and blank lines
    skipped, as trec_eval does. Ids are read as written (``NA`` and ``null`` are ids).

    Returns
    -------
    pandas.DataFrame
        Columns ``query`` (str), ``item`` (str), ``score`` (float64), ``rank`` (int64, as
        written in the file; rankframe ranks by score) and ``run`` (str), in file order.

    Raises
    ------
    TrecFormatError
        The file has no lines, or a line is not UTF-8, has fewer than six fields, a rank that
        is not an integer or a score that is not a number (``nan`` included), or repeats a
        document of its query. The error's ``line`` is the 1-based line number, and the
        message quotes the line.
    """
    frame = _read(
        path,
        {"query": str, "q0": str, "item": str, "rank": np.int64, "score": np.float64, "run": str},
        "run",
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
    TrecFormatError
        The file has no lines, or a line is not UTF-8, has fewer than four fields or a grade
        that is not an integer, or judges a document of its query twice; ``line`` says which.
    """
    frame = _read(
        path,
        {"query": str, "iteration": str, "item": str, "relevant": np.int64},
        "qrels",
    )
    return frame.drop(columns="iteration")


def _check_unique(frame: pd.DataFrame, what: str) -> None:
    found = _first_duplicate(frame)
    if found is not None:
        query, item, rows = found
        msg = (
            f"Item {excerpt(item)} appears {len(rows)} times in query {excerpt(query)} of the "
            f"{what}; trec_eval rejects duplicate documents. Remove the duplicates, e.g. "
            "frame.drop_duplicates(['query', 'item'])."
        )
        raise InvalidDataError(msg)


def checked_frames(run: PathOrFrame, qrels: PathOrFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The run and qrels as frames: files read (and checked by the readers), frames checked
    for duplicate documents."""
    return checked_frame(run, "run"), checked_frame(qrels, "qrels")


def checked_frame(value: PathOrFrame, kind: str) -> pd.DataFrame:
    """A run (``kind="run"``) or qrels as a frame: a pandas frame (as the adapters tell)
    checked for duplicate documents; anything else read as a path by ``read_trec_run`` or
    ``read_trec_qrels`` (which refuse what is not one)."""
    if kind_of(value) == "pandas DataFrame":
        frame = cast("pd.DataFrame", value)
        _check_unique(frame, kind)
        return frame
    read = read_trec_run if kind == "run" else read_trec_qrels
    return read(cast("PathLike", value))


def joined_frames(run: pd.DataFrame, qrels: pd.DataFrame, *, complete: bool) -> pd.DataFrame:
    """``join_trec`` of checked frames."""
    run = run[["query", "item", "score"]].astype(
        {"query": "str", "item": "str", "score": np.float64}
    )
    qrels = qrels[["query", "item", "relevant"]].astype({"query": "str", "item": "str"})
    judged = qrels["query"].unique()
    run = run[run["query"].isin(judged)]
    if not complete:
        qrels = qrels[qrels["query"].isin(run["query"].unique())]
    joined = run.merge(qrels.assign(judged=True), on=["query", "item"], how="outer", sort=True)
    joined["relevant"] = joined["relevant"].fillna(0).astype(np.int64)
    joined["judged"] = joined["judged"].fillna(False).astype(bool)
    return joined.reset_index(drop=True)


def join_trec(run: PathOrFrame, qrels: PathOrFrame, *, complete: bool = False) -> pd.DataFrame:
    """Join a run and its qrels into the long frame that ``.rank_eval`` evaluates.

    The join follows trec_eval's semantics:

    - only queries with judgments are evaluated: a run's queries without any qrels line are
      dropped;
    - a retrieved document without a judgment is non-relevant (grade 0) and unjudged
      (``judged`` False): bpref, infAP, ``unj`` and ``num_nonrel_judged_ret`` tell it from
      a judged non-relevant document, as trec_eval does (a qrels grade of -1 is judged but
      unjudged for them, as in trec_eval);
    - a judged document that the run did not retrieve keeps its grade with a null score (it
      counts in R and in NDCG's ideal ranking);
    - a judged query missing from the run is dropped (trec_eval's default) or, with
      ``complete=True`` (trec_eval's ``-c``), kept with every score null, so it counts 0.

    Ids are read as strings: ``"007"`` stays ``"007"``, and ties are broken by comparing
    docnos as strings, as trec_eval does.

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
        Columns ``query``, ``item``, ``score`` (null: judged but not retrieved),
        ``relevant`` (0 for retrieved but unjudged) and ``judged`` (True for the rows of the
        qrels), sorted by query and item. ``.rank_eval`` reads the ``judged`` column
        itself, so the frame evaluates every trec_eval measure as trec_eval does.

    Raises
    ------
    TrecFormatError
        A file breaks its format (see ``read_trec_run``); ``path`` and ``line`` say where.
    InvalidDataError
        A frame repeats a document of a query.

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query": ["1", "1", "2"], "item": ["a", "b", "a"],
    ...                     "score": [2.0, 1.0, 5.0]})
    >>> qrels = pd.DataFrame({"query": ["1", "1", "3"], "item": ["b", "c", "a"],
    ...                       "relevant": [1, 2, 1]})
    >>> joined = join_trec(run, qrels)
    >>> joined
      query item  score  relevant  judged
    0     1    a    2.0         0   False
    1     1    b    1.0         1    True
    2     1    c    NaN         2    True
    >>> len(join_trec(run, qrels, complete=True))
    4

    'a' (rank 1) is unjudged, so bpref sees no judged non-relevant document above 'b':
    its one relevant retrieved document counts 1, of R = 2:

    >>> joined.rank_eval.bpref(), joined.rank_eval.num_nonrel_judged_ret()
    (0.5, 0.0)
    """
    run_frame, qrels_frame = checked_frames(run, qrels)
    return joined_frames(run_frame, qrels_frame, complete=complete)
