"""trec_eval's per-query lines written by polars, with no Python string per line or value.

A line reads ``measure<TAB>query<TAB>value``: the measure left-justified to 22 characters,
a value with 4 decimals (C's ``%6.4f``) or a count as an integer, ``relstring`` quoted.
The values are written by columns (:func:`decimals`, :func:`counts`): the digits of
``%6.4f`` come from the value times 10,000 rounded to an integer. That product, rounded to
a double, lies on the same side of each half-integer as the exact one (rounding is
monotonic), so the rounding is the exact value's, except where the product lands on a
half-integer itself: those few values (and those not finite, or huge) are written by
Python's ``format``, which rounds the exact binary value half to even, as ``printf`` does.
The lines of a block of queries are then put together by one ``concat_str``, a text per
query, and joined: the output comes as a few large strings (:func:`lines_text`), never a
Python string per line.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

__all__ = ["BLOCK_QUERIES", "WIDTH", "Column", "counts", "decimals", "lines_text", "relstrings"]

WIDTH = 22  # trec_eval prints "%-22s\t%s\t%6.4f"
#: queries per text of :func:`lines_text` (a few MB of output each)
BLOCK_QUERIES = 2048
#: beyond this, a value times 10,000 may not be an exact integer in float64
_EXACT = 2.0**52

FloatArray = npt.NDArray[np.float64]

#: trec_eval's ``%6.4f`` of its NaN (its 0.0 / 0.0 has the sign bit set): only ``-J`` makes
#: one (``rankframe.trec.empty_lists``)
NAN = "  -nan"


@dataclass(frozen=True)
class Column:
    """One printed measure: its name, and its text per query."""

    name: str
    texts: pl.Series


def decimals(values: FloatArray) -> pl.Series:
    """Values as trec_eval prints a measure, C's ``%6.4f``: 4 decimals (so at least 6
    characters), the exact binary value rounded half to even (``-0.0000`` for a small
    negative value, as C prints it). The usual values, 0 to 1, are looked up in the table
    of their texts (:func:`_usual_texts`, written as the others are)."""
    values = np.asarray(values, dtype=np.float64)
    scaled = np.abs(values) * 10_000.0
    with np.errstate(invalid="ignore"):  # NaN and infinities: Python's
        plain = np.isfinite(scaled) & (scaled < _EXACT) & (scaled - np.floor(scaled) != 0.5)
    rounded = np.where(plain, np.rint(scaled), 0.0).astype(np.int64)
    minus = np.signbit(values) & plain
    usual = plain & ~minus & (rounded < _USUAL)
    texts = _usual_texts().gather(np.where(usual, rounded, 0))
    rest = np.flatnonzero(~usual)
    if len(rest):
        texts = texts.scatter(rest, _digits(rounded[rest], minus[rest]))
    return _with_python(texts, values, ~plain, lambda v: NAN if math.isnan(v) else f"{v:6.4f}")


#: the values times 10,000 whose texts :func:`_usual_texts` holds: 0.0000 to 1.0000
_USUAL = 10_001


@functools.cache
def _usual_texts() -> pl.Series:
    """The texts of 0.0000 to 1.0000, by their value times 10,000."""
    return _digits(np.arange(_USUAL, dtype=np.int64), np.zeros(_USUAL, dtype=bool))


def _digits(rounded: npt.NDArray[np.int64], minus: npt.NDArray[np.bool_]) -> pl.Series:
    """The texts of values times 10,000 rounded (``rounded``), with a minus sign where
    ``minus``: the integer part, a point and the four decimals."""
    parts = [
        pl.col("whole").cast(pl.String),
        pl.lit("."),
        pl.col("part").cast(pl.String).str.slice(1),  # 1dddd: the four digits
    ]
    if minus.any():
        parts.insert(0, pl.when(pl.col("minus")).then(pl.lit("-")).otherwise(pl.lit("")))
    digits = {"whole": rounded // 10_000, "part": rounded % 10_000 + 10_000, "minus": minus}
    return pl.DataFrame(digits).select(pl.concat_str(parts).alias("value"))["value"]


def counts(values: FloatArray) -> pl.Series:
    """Counts (summed measures) as trec_eval prints them: integers (``round``)."""
    values = np.asarray(values, dtype=np.float64)
    plain = np.isfinite(values) & (np.abs(values) < _EXACT)
    texts = pl.Series("value", np.where(plain, np.rint(values), 0.0).astype(np.int64)).cast(
        pl.String
    )
    return _with_python(texts, values, ~plain, lambda v: str(round(v)))


def _with_python(
    texts: pl.Series, values: FloatArray, odd: npt.NDArray[np.bool_], write: Callable[[float], str]
) -> pl.Series:
    """``texts`` with the ``odd`` values written by Python's ``write``."""
    if not odd.any():
        return texts
    where = np.flatnonzero(odd)
    return texts.scatter(where, [write(v) for v in values[where].tolist()])


def lines_text(columns: Sequence[Column], queries: pl.Series) -> Iterator[str]:
    """The lines of every query (``queries``, the printed ids, in order), each query's
    measures in the order of ``columns``, each line ended by a newline: a text per block
    of :data:`BLOCK_QUERIES` queries."""
    if len(queries) == 0 or len(columns) == 0:
        return
    frame = pl.DataFrame(
        [queries.alias("query"), *(c.texts.alias(f"v{j}") for j, c in enumerate(columns))]
    )
    parts: list[pl.Expr] = []
    for j, column in enumerate(columns):
        parts += [pl.lit(f"{column.name:<{WIDTH}}\t"), pl.col("query"), pl.lit("\t")]
        parts += [pl.col(f"v{j}"), pl.lit("\n")]
    text = pl.concat_str(parts).str.join("")
    for begin in range(0, len(queries), BLOCK_QUERIES):
        block = frame.slice(begin, BLOCK_QUERIES)
        yield str(block.select(text).item())


#: ``relstring``'s character of a document, by :func:`_char_index`
_CHARS = np.frombuffer(b"-.0123456789>", dtype=np.uint8)


def relstrings(frame: pl.DataFrame, grade: FloatArray, length: int) -> pl.DataFrame:
    """trec_eval's ``relstring`` (m_relstring.c) of each query of ``frame`` (``query``,
    ``item``: sorted codes, ``score``: null where not retrieved) with a retrieved document:
    the judgments of its first ``length`` documents in trec_eval's ranking (score
    descending, ties by docno descending), one character each: the grade 0-9, ``>`` above
    9, ``-`` for a document not in the qrels (NaN in ``grade``, per row of ``frame``),
    ``.`` for one in the qrels with a negative grade (in the pool but not judged). Columns
    ``query`` and ``relstring``. Each query's first rows come from one sort within the
    queries (-0.0 equal to 0.0, as C compares them); their characters are looked up and
    cut into strings by their queries' counts."""
    first = (
        frame.lazy()
        .select(
            pl.int_range(pl.len(), dtype=pl.UInt32).alias("row"),
            "query",
            "item",
            pl.col("score") + 0.0,
        )
        .filter(pl.col("score").is_not_null())
        .group_by("query")
        .agg(pl.col("row").sort_by(["score", "item"], descending=True).head(length))
        .collect()
    )
    rows = first["row"].explode().to_numpy()
    text = _CHARS[_char_index(grade[rows])].tobytes().decode()
    bounds = [0, *np.cumsum(first["row"].list.len().to_numpy()).tolist()]
    strings = [text[begin:end] for begin, end in itertools.pairwise(bounds)]
    return pl.DataFrame([first["query"], pl.Series("relstring", strings, dtype=pl.String)])


def _char_index(grade: FloatArray) -> npt.NDArray[np.int64]:
    """Per grade its character's position in :data:`_CHARS`: ``-`` for NaN, ``.`` below 0,
    ``>`` above 9, else the digit of its integer part."""
    with np.errstate(invalid="ignore"):  # NaN compares False
        digit = np.clip(np.nan_to_num(grade), 0, 9).astype(np.int64) + 2
        return np.where(np.isnan(grade), 0, np.where(grade < 0, 1, np.where(grade > 9, 12, digit)))
