"""TREC run and qrels files read straight into integer codes, and joined as trec_eval joins
them: what ``rankframe trec`` evaluates.

A *plain* file, whose every line is its fields separated by one space (or every line by one
tab), in ASCII or UTF-8, without quotes or carriage returns, with exactly the fields of its
format (six for a run, four for qrels), integers and numbers as polars reads them and no
``nan`` score, is read by polars' CSV scan (its streaming engine, on every core), its ids
straight into categories (:class:`Rows`): no frame of Python strings, no string join.
Any other file goes through ``read_trec_run`` / ``read_trec_qrels`` (pandas), which accept
every layout trec_eval does (runs of blanks, tabs and spaces mixed, fields after the last,
blank first lines, ``5.0`` as a rank) and raise the errors that name a bad line (a file
with a repeated document too: the reader names its lines); their frames, and frames given
by the caller, are numbered the same way. The fast reader only takes files that both
readers read alike, so the values are those of ``join_trec``: the same rows, the same ids.

The ids of a run and its qrels are categories of one categorical type (:func:`categories`),
then numbered in their sorted order as strings (:func:`sorted_codes`, for the join and
``-M``), so that comparing codes is comparing the ids as trec_eval does (docnos with
``strcmp``: ties are broken by docno).
"""

from __future__ import annotations

import codecs
import os
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import polars as pl

if TYPE_CHECKING:  # pandas is imported only for a file polars does not read, or a frame
    import pandas as pd

    from rankframe.inputs.trec_files import PathOrFrame

__all__ = ["Joined", "Rows", "categories", "join_codes", "read_codes", "sorted_codes"]

Codes = npt.NDArray[np.uint32]
FloatArray = npt.NDArray[np.float64]

#: per kind: the polars schema of a line (every field), and the fields read (the second,
#: ``Q0`` or the qrels' iteration, is not: a plain file has no empty field)
_LAYOUT: dict[str, tuple[dict[str, Any], list[str]]] = {
    "run": (
        {
            "query": pl.String,
            "q0": pl.String,
            "item": pl.String,
            "rank": pl.Int64,
            "score": pl.Float64,
            "run": pl.String,
        },
        ["query", "item", "rank", "score", "run"],
    ),
    "qrels": (
        {"query": pl.String, "iteration": pl.String, "item": pl.String, "relevant": pl.Int64},
        ["query", "item", "relevant"],
    ),
}
#: bytes that make a file not plain: pandas reads a quoted field, a carriage return ends a
#: line for it, and a NUL is read differently by the two readers
_NOT_PLAIN = (b'"', b"\r", b"\x00")
_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 23  # bytes read at once by the check of a plain file


@dataclass(frozen=True)
class Rows:
    """One file's rows: per row its query and item (categorical series of one
    :func:`categories`, shared by a run and its qrels) and its score (a run) or grade
    (qrels, as float64: a frame's null grade stays NaN); ``runid`` is the run id of a run's
    last line (``None`` for qrels, or a frame without a ``run`` column)."""

    query: pl.Series
    item: pl.Series
    value: FloatArray
    runid: str | None = None

    def select(self, kept: npt.NDArray[np.bool_]) -> Rows:
        """The rows where ``kept`` is true."""
        mask = pl.Series(kept)
        return Rows(self.query.filter(mask), self.item.filter(mask), self.value[kept], self.runid)


@dataclass(frozen=True)
class Joined:
    """A run and its qrels joined as ``join_trec`` joins them, one row per (query, item):
    the run's rows in file order, then the judged documents it misses. ``frame`` is the
    long frame the accessor evaluates: ``query`` and ``item`` (codes of ``queries`` and of
    the items, each numbered in the ids' sorted order as strings), ``score`` (null: judged
    but not retrieved), ``relevant`` (the grade, 0 where unjudged, in the narrowest integer
    type that holds the grades) and ``judged``; ``query``
    is its query codes as an array (the same memory); ``grades`` the qrels' grades (as
    :meth:`grade`) where the frame does not hold them: some grade null or not an integer
    (a frame's), else ``None``."""

    queries: pl.Series
    query: Codes
    frame: pl.DataFrame
    grades: FloatArray | None = None

    def grade(self) -> FloatArray:
        """Per row the qrels' grade, NaN where unjudged or null (made on demand from the
        frame's ``relevant`` and ``judged``, when they hold it)."""
        if self.grades is not None:
            return self.grades
        grade = self.frame["relevant"].to_numpy().astype(np.float64)
        grade[~self.frame["judged"].to_numpy()] = np.nan
        return grade


def categories() -> pl.Categorical:
    """A categorical type of its own, for the ids of one run and its qrels: polars frees
    its strings with the last series that holds them."""
    return pl.Categorical(pl.Categories(f"rankframe.trec.{uuid.uuid4().hex}"))


def _separator(path: str | os.PathLike[str]) -> tuple[str, int] | None:
    """The one separator of a plain file (a space or a tab) and how many times it appears,
    else ``None``: read in chunks, each with the previous chunk's last byte (a pair of
    bytes across chunks)."""
    seen = {b" ": 0, b"\t": 0}
    previous = b"\n"  # the start of the file is the start of a line
    utf8 = codecs.getincrementaldecoder("utf-8")()
    with open(path, "rb") as file:
        while chunk := file.read(_CHUNK):
            if chunk.startswith(_BOM) and not any(seen.values()) and previous == b"\n":
                return None
            for separator in seen:
                if separator in chunk:
                    # by NumPy: bytes' search for a pair is several times slower
                    at = np.frombuffer(chunk, dtype=np.uint8) == ord(separator)
                    if (previous == separator and at[0]) or (at[1:] & at[:-1]).any():
                        return None  # an empty field
                    seen[separator] += int(np.count_nonzero(at))
            if any(byte in chunk for byte in _NOT_PLAIN):
                return None
            if not chunk.isascii():
                try:
                    utf8.decode(chunk)  # every field, the ones polars skips too
                except UnicodeDecodeError:
                    return None
            previous = chunk[-1:]
    try:
        utf8.decode(b"", final=True)
    except UnicodeDecodeError:
        return None
    spaces, tabs = seen[b" "], seen[b"\t"]
    if bool(spaces) == bool(tabs):  # both, or neither (one field per line, or no byte)
        return None
    return (" ", spaces) if spaces else ("\t", tabs)


def _plain_rows(path: str | os.PathLike[str], kind: str, ids: pl.Categorical) -> Rows | None:
    """A plain file read by polars (its fields but the second), its ids as ``ids``; or
    ``None`` when the file is not plain (the pandas reader then reads it, or names its bad
    line)."""
    found = _separator(path)
    if found is None:
        return None
    separator, separators = found
    layout, fields = _LAYOUT[kind]
    value = "score" if kind == "run" else "relevant"
    # the ids read straight into categories (no column of strings); the run id, of which
    # only the last is kept, as strings
    schema = {name: ids if name in ("query", "item") else dtype for name, dtype in layout.items()}
    lines = pl.scan_csv(
        os.fspath(path), has_header=False, separator=separator, schema=schema, quote_char=None
    ).select(fields)
    try:
        frame = lines.collect(engine="streaming")
    except (pl.exceptions.PolarsError, ValueError):  # a field that is no number, a ragged line
        return None
    if any(frame.null_count().row(0)):  # a blank line (every field null), or a missing field
        frame = frame.filter(~pl.all_horizontal(pl.all().is_null()))
        if frame.height == 0 or any(frame.null_count().row(0)):
            return None
    if frame.height == 0:
        return None
    # exactly the fields of the format on each line: the blank lines held no separator
    if separators != (len(schema) - 1) * frame.height:
        return None
    if kind == "run" and frame[value].is_nan().any():  # pandas refuses a nan score
        return None
    runid = str(frame["run"][-1]) if kind == "run" else None
    values = frame[value].cast(pl.Float64).to_numpy()
    return Rows(frame["query"], frame["item"], values, runid)


def _repeats(rows: Rows) -> bool:
    """Whether a (query, item) appears twice: equal neighbours among the sorted keys
    (NumPy's sort of 32-bit keys is several times faster than a hash count)."""
    query = rows.query.to_physical().to_numpy()
    item = rows.item.to_physical().to_numpy()
    keys = _keys(query, item, int(query.max()) + 1, int(item.max()) + 1)
    keys.sort()
    return bool((keys[1:] == keys[:-1]).any())


def _keys(
    query: Codes, item: Codes, n_queries: int, n_items: int
) -> npt.NDArray[np.unsignedinteger[Any]]:
    """One key per (query, item) code, in their order, ``query * n_items + item`` (every
    code of ``query`` below ``n_queries``, of ``item`` below ``n_items``): 32-bit where
    every such key fits, else 64-bit (never past 2**64, as both codes are below 2**32)."""
    if n_queries * n_items <= 2**32:
        keys32 = query.astype(np.uint32)
        keys32 *= np.uint32(n_items)
        keys32 += item
        return keys32
    keys = query.astype(np.uint64)
    keys *= np.uint64(n_items)
    keys += item
    return keys


def _of_frame(frame: pd.DataFrame, kind: str, ids: pl.Categorical) -> Rows:
    """The rows of a checked pandas frame (read from a file, or the caller's): ids as
    strings, as ``join_trec`` reads them."""
    value = "score" if kind == "run" else "relevant"
    strings = pl.from_pandas(frame[["query", "item"]].astype(str))
    has_id = kind == "run" and "run" in frame.columns and len(frame) > 0
    return Rows(
        strings["query"].cast(pl.String).cast(ids),
        strings["item"].cast(pl.String).cast(ids),
        frame[value].to_numpy(dtype=np.float64, na_value=np.nan),
        str(frame["run"].iloc[-1]) if has_id else None,
    )


def read_codes(value: PathOrFrame, kind: str, ids: pl.Categorical) -> Rows:
    """A run (``kind="run"``) or qrels file, or a frame as ``read_trec_run`` and
    ``read_trec_qrels`` return it, as :class:`Rows` whose ids are of ``ids`` (one
    :func:`categories` for a run and its qrels); a plain file by polars, anything else by
    the pandas reader (which raises ``TrecFormatError`` naming a bad line), a frame
    checked for repeated documents (``InvalidDataError``)."""
    if isinstance(value, (str, os.PathLike)):
        rows = _plain_rows(value, kind, ids)
        if rows is not None and not _repeats(rows):
            return rows
    from rankframe.inputs.trec_files import checked_frame

    return _of_frame(checked_frame(value, kind), kind, ids)


def sorted_codes(*columns: pl.Series) -> tuple[pl.Series, list[Codes]]:
    """The distinct ids of categorical ``columns`` (of one categorical type) as strings,
    sorted, and each row's position among them: codes that compare as the ids do. The
    ids present are marked by their physical codes, and their strings read from the
    categories (no hashing of the rows)."""
    dtype = cast("pl.Categorical", columns[0].dtype)
    every = dtype.categories.to_series()  # by physical code
    physical = [column.to_physical().to_numpy() for column in columns]
    seen = np.zeros(len(every), dtype=bool)
    for codes in physical:
        seen[codes] = True
    present = np.flatnonzero(seen)
    strings = every.gather(present).alias(columns[0].name)
    order = strings.arg_sort().to_numpy()
    position = np.zeros(len(every), dtype=np.uint32)
    position[present[order]] = np.arange(len(present), dtype=np.uint32)
    return strings.gather(order), [position[codes] for codes in physical]


def join_codes(run: Rows, qrels: Rows, *, complete: bool) -> Joined:
    """``join_trec``'s join of a run and its qrels, on codes: the run's queries without
    judgments dropped; without ``complete``, the judged queries the run misses dropped
    too; every (query, item) of either once, with its score and grade. The arrays of a
    step are freed before the next (a run of millions of lines)."""
    queries, (run_query, qrels_query) = sorted_codes(run.query, qrels.query)
    items, (run_item, qrels_item) = sorted_codes(run.item, qrels.item)
    run_score, qrels_grade = run.value, qrels.value
    judged_queries = np.zeros(len(queries), dtype=bool)
    judged_queries[qrels_query] = True
    kept = judged_queries[run_query]
    if not kept.all():
        run_query, run_item, run_score = run_query[kept], run_item[kept], run_score[kept]
    del kept, judged_queries
    if not complete:
        retrieved = np.zeros(len(queries), dtype=bool)
        retrieved[run_query] = True
        in_run = retrieved[qrels_query]
        if not in_run.all():
            qrels_query, qrels_item = qrels_query[in_run], qrels_item[in_run]
            qrels_grade = qrels_grade[in_run]
    match, found = _matches(
        run_query, run_item, qrels_query, qrels_item, (len(queries), len(items))
    )
    alone = np.ones(len(qrels_query), dtype=bool)  # judged, not retrieved
    alone[match] = False
    n_run = len(run_query)
    query = np.concatenate([run_query, qrels_query[alone]])
    del run_query
    item = np.concatenate([run_item, qrels_item[alone]])
    del run_item
    score = np.concatenate([run_score, np.full(int(alone.sum()), np.nan)])
    del run_score
    judged = np.concatenate([found, np.ones(len(query) - n_run, dtype=bool)])
    relevant, grades = _grades(qrels_grade, match, found, alone)
    del match
    frame = pl.DataFrame(
        [
            pl.Series("query", query),
            pl.Series("item", item),
            pl.Series("score", score, nan_to_null=True),
            pl.Series("relevant", relevant),
            pl.Series("judged", judged),
        ]
    )
    return Joined(queries, query, frame, grades)


def _grades(
    qrels_grade: FloatArray,
    match: npt.NDArray[np.int64],
    found: npt.NDArray[np.bool_],
    alone: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.signedinteger[Any]], FloatArray | None]:
    """The joined rows' grades (the run's rows, ``found`` judged at the qrels rows
    ``match``, then the qrels rows ``alone``): as integers, 0 where unjudged (in the
    narrowest type, :func:`_narrow`), and as floats (NaN where unjudged) where the integers
    do not hold them (a grade null or not an integer, a frame's), else ``None``. The
    integers of a file's grades are made from the qrels' rows alone."""
    n_run, n_alone = len(found), int(np.count_nonzero(alone))
    with np.errstate(invalid="ignore"):
        integral = bool((np.abs(qrels_grade) < _INTEGRAL).all())
    if integral and bool((qrels_grade == np.trunc(qrels_grade)).all()):
        codes = _narrow(qrels_grade.astype(np.int64))
        relevant = np.zeros(n_run + n_alone, dtype=codes.dtype)
        relevant[:n_run][found] = codes[match]
        relevant[n_run:] = codes[alone]
        return relevant, None
    grade = np.full(n_run + n_alone, np.nan)
    grade[:n_run][found] = qrels_grade[match]
    grade[n_run:] = qrels_grade[alone]
    integers = np.zeros(len(grade), dtype=np.int64)
    graded = ~np.isnan(grade)
    integers[graded] = grade[graded]
    return _narrow(integers), grade


#: grades below this in magnitude are integers exactly in int64 (and float64)
_INTEGRAL = 2.0**53


def _narrow(numbers: npt.NDArray[np.int64]) -> npt.NDArray[np.signedinteger[Any]]:
    """Integers in the narrowest signed type that holds each of them and its negation, as
    the engine reads a grade column of several chunks (grades 0 to 4 as int8: an eighth of
    the memory the engine reads them from); the same numbers."""
    if len(numbers) == 0:
        return numbers
    low, high = int(numbers.min()), int(numbers.max())
    for kind in (np.int8, np.int16, np.int32):
        if -np.iinfo(kind).max <= low and high <= np.iinfo(kind).max:
            return numbers.astype(kind)
    return numbers


def _matches(
    run_query: Codes,
    run_item: Codes,
    qrels_query: Codes,
    qrels_item: Codes,
    sizes: tuple[int, int],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Each retrieved document's qrels row, where it is judged: the qrels rows (in the
    order of the run's judged rows) and per run row whether it is judged; a search among
    the qrels' keys (``sizes``: the numbers of query and of item codes)."""
    n_queries, n_items = sizes
    qrels_keys = _keys(qrels_query, qrels_item, n_queries, n_items)
    order = np.argsort(qrels_keys)
    qrels_keys = qrels_keys[order]  # sorted
    run_keys = _keys(run_query, run_item, n_queries, n_items)
    if len(order) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(len(run_keys), dtype=bool)
    at = np.searchsorted(qrels_keys, run_keys)
    np.minimum(at, len(order) - 1, out=at)
    found = qrels_keys[at] == run_keys
    del run_keys, qrels_keys
    return order[at[found]], found
