"""Codes of strings of at most 15 bytes through their 64-bit keys (:func:`key_codes`).

Ids of at most 15 bytes (strings without nulls) are made into two 64-bit words
(:func:`~rankframe.engine.encoding.words.key_words`), packed into one 64-bit key that orders
as the ids do (:class:`KeyPacking`; ids of at most 7 bytes are one key already), then encoded
as numbers: by Arrow's hash table when each id has many rows (faster than one of strings,
whose table of 100k ids no longer fits the CPU cache), by a sort when ids have few rows each
(many short lists, where a hash table of millions of ids is slower than a sort;
:mod:`~rankframe.engine.encoding.distinct_keys`); docs/performance.md ("How the engine gets
there") has the measurements. The distinct strings are made back from the distinct keys, at
once or, for labels, on first use (:class:`DistinctStrings`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rankframe.engine.encoding.columns import CodeArray, Words
from rankframe.engine.encoding.distinct_keys import few_repeats, hashed, sorted_encoding
from rankframe.engine.encoding.halves import by_halves, each
from rankframe.engine.encoding.words import (
    key_words,
    short_keys,
    strings_of_words,
    words_of_short_keys,
)

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = ["DistinctStrings", "KeyPacking", "key_codes"]

#: Per part of a column: its distinct keys, and per key its index among them (Arrow's
#: dictionary and indices, or a sort's).
Encoding = tuple[npt.NDArray[np.uint64], Any]


class KeyPacking:
    """One 64-bit key per pair of :func:`key_words`, when the pairs' spread fits in 64 bits.

    The key is the first word minus the smallest first word, shifted left by the bits that
    the spread of the second words takes, then the second word minus the smallest second
    word in those bits: the keys order as the pairs do and no two pairs share one. Ids of a
    prefix and a number (``"q0000001"``, ``"doc-12345678"``) fit: only their varying bytes
    take bits.
    """

    def __init__(self, parts: list[Words]) -> None:
        self.first = min(int(first.min()) for first, _ in parts)
        self.second = min(int(second.min()) for _, second in parts)
        first_spread = max(int(first.max()) for first, _ in parts) - self.first
        self.shift = (max(int(second.max()) for _, second in parts) - self.second).bit_length()
        self.fits = self.shift + first_spread.bit_length() <= 64

    def pack(self, words: Words) -> npt.NDArray[np.uint64]:
        """The keys of the pairs, in the first word's array (the words are spent)."""
        first, second = words
        first -= np.uint64(self.first)
        if self.shift < 64:  # else the first words are all equal: zero
            first <<= np.uint64(self.shift)
        second -= np.uint64(self.second)
        first |= second
        return first

    def unpack(self, keys: npt.NDArray[np.uint64]) -> Words:
        """The pairs of words that :meth:`pack` made ``keys`` of."""
        if self.shift < 64:
            first = keys >> np.uint64(self.shift)
            second = keys & np.uint64((1 << self.shift) - 1)
        else:
            first, second = np.zeros_like(keys), keys.copy()
        first += np.uint64(self.first)
        second += np.uint64(self.second)
        return first, second


def key_codes(
    values: pa.Array | pa.ChunkedArray, *, compact: bool, threads: bool, lazy: bool = False
) -> tuple[CodeArray, pa.Array | DistinctStrings] | None:
    """:func:`~rankframe.engine.encoding.dictionary.dictionary_codes` through
    :func:`~rankframe.engine.encoding.words.key_words` packed into 64-bit keys (always
    sorted), or None when the column has no words or their spread does not fit 64 bits.

    The words are read in two halves, in two threads, as in ``dictionary_codes``. Keys that
    repeat only a few times (many short lists, ``few_repeats``) are then encoded by one sort
    of them all, not by halves (the merge of two sorted halves costs more than the second
    thread saves; docs/performance.md); the sort's gather and its slices are shared by two
    threads (``sorted_encoding``). Others are encoded by Arrow's hash table of numbers, in
    two halves, in two threads; the distinct keys of both halves, sorted, then number the
    codes (:func:`_numbered`).
    """
    if len(values) == 0:
        return None
    unpack: Callable[[npt.NDArray[np.uint64]], Words]
    shorts = by_halves(_short_part, values, threads=threads)
    if all(part is not None for part in shorts):
        # ids of at most 7 bytes: one word is the key already (no second word to read, no
        # packing); each half's keys were read and hashed in its own thread
        found, merge = _short_encodings([p for p in shorts if p is not None], threads)
        unpack = words_of_short_keys
    else:
        packed = _packed_encodings(values, threads)
        if packed is None:
            return None
        (found, unpack), merge = packed, False
    del shorts
    if len(found) == 1 and not merge:
        distinct, codes = found[0]
    else:
        distinct, codes = _numbered(found, len(values), compact=compact, merge=merge)
    if not compact or len(distinct) >= 2**31:
        codes = codes.astype(np.int64, copy=False)
    if lazy:
        return codes, DistinctStrings(
            lambda: strings_of_words(*unpack(distinct), values.type), len(distinct)
        )
    return codes, strings_of_words(*unpack(distinct), values.type)


def _short_encodings(found: list[Encoding], threads: bool) -> tuple[list[Encoding], bool]:
    """The encodings of the parts of a column of short ids (:func:`_short_part`), and
    whether they are to be merged: when a part's keys repeat only a few times, one sort of
    the keys of every part (nothing to merge); else each part's dictionary in Arrow's order
    (numbered by :func:`_numbered`, one gather each)."""
    if any(indices is None for _, indices in found):  # few repeats: one sort of all
        every = [k if i is None else k[i] for k, i in found]
        keys = every[0] if len(every) == 1 else np.concatenate(every)
        return [sorted_encoding(keys, threads=threads)], False
    return found, True


def _packed_encodings(
    values: pa.Array | pa.ChunkedArray, threads: bool
) -> tuple[list[Encoding], Callable[[npt.NDArray[np.uint64]], Words]] | None:
    """The encodings of the packed keys of a column's words (:class:`KeyPacking`), sorted,
    and the unpacking of a key into its words; None when a part has no words or their
    spread does not fit one key."""
    # the halves read their words into halves of two arrays: the packed keys of both are
    # then one array, without a copy
    buffers: Words = (
        np.empty(len(values), dtype=np.uint64),
        np.empty(len(values), dtype=np.uint64),
    )
    parts = by_halves(key_words, values, threads=threads, out=buffers)
    words = [part for part in parts if part is not None]
    if len(words) < len(parts):
        return None
    packing = KeyPacking(words)
    if not packing.fits:
        return None
    packed = [packing.pack(pair) for pair in words]
    del words, parts
    # few repeats: one sort of the packed keys of every half (buffers[0])
    if few_repeats(packed):
        return [sorted_encoding(buffers[0], threads=threads)], packing.unpack
    return each(hashed, packed), packing.unpack


def _numbered(
    found: list[Encoding], n: int, *, compact: bool, merge: bool
) -> tuple[npt.NDArray[np.uint64], CodeArray]:
    """The distinct keys of every part, sorted (np.unique is slower on numbers), and the
    ``n`` codes that number the parts' indices by them. ``merge``: the parts' distinct keys
    come in Arrow's order (the short ids' dictionaries), else sorted."""
    distinct = np.sort(np.concatenate([keys for keys, _ in found]))
    if len(distinct) > 1:
        distinct = distinct[np.append(True, distinct[1:] != distinct[:-1])]
    # int64 codes unless compact: written once, by the gather below, not widened after
    codes: CodeArray = np.empty(
        n, dtype=np.result_type(*(i.dtype for _, i in found)) if compact else np.int64
    )
    start = 0
    for keys, indices in found:
        # each key's position among the distinct ones; sorted needles search faster, and
        # only the short ids' dictionaries come in Arrow's order
        if merge:
            by_key = np.argsort(keys)
            lookup = np.empty(len(keys), dtype=codes.dtype)
            lookup[by_key] = np.searchsorted(distinct, keys[by_key])
        else:
            lookup = np.searchsorted(distinct, keys).astype(codes.dtype)
        # indices are in range: mode="clip" spares the bounds check's buffered copy
        np.take(lookup, indices, out=codes[start : start + len(indices)], mode="clip")
        start += len(indices)
    return distinct, codes


class DistinctStrings:
    """The distinct strings of a column that
    :func:`~rankframe.engine.encoding.dictionary.labelled_codes` encoded, made from their
    keys on first use.

    The query column's distinct values serve only as labels: of per-query tables and of
    messages. An evaluation of means never reads them, and on millions of queries making
    them is a few passes over every distinct key (and their fresh memory).
    """

    def __init__(self, build: Callable[[], pa.Array], length: int) -> None:
        self._build: Callable[[], pa.Array] | None = build
        self._length = length
        self._strings: pa.Array | None = None

    def __len__(self) -> int:
        return self._length

    @property
    def strings(self) -> pa.Array:
        """The strings, as an Arrow array (made on the first call)."""
        if self._strings is None:
            assert self._build is not None
            self._strings, self._build = self._build(), None
        return self._strings

    def take(self, indices: pa.Array) -> pa.Array:
        """The strings at ``indices``, as ``pa.Array.take``."""
        return self.strings.take(indices)


def _short_part(
    values: pa.Array | pa.ChunkedArray,
) -> Encoding | None:
    """The :func:`short_keys` of a part of a column, encoded by Arrow's hash table (the
    distinct keys in order of appearance, and per key its index among them) unless they
    repeat only a few times (then the keys, and None: :func:`key_codes` sorts the keys of
    every part at once); None without short keys."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = short_keys(values)
    if keys is None:
        return None
    if few_repeats([keys]):
        return keys, None
    encoded = pc.dictionary_encode(pa.array(keys))
    return np.asarray(encoded.dictionary), np.asarray(encoded.indices)
