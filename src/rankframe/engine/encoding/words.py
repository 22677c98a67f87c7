"""Strings of at most 15 bytes as 64-bit words that order as the strings do, and back.

Ids of at most 15 bytes (strings without nulls, the usual kind) are made into two 64-bit
words (:func:`key_words`), those of at most 7 bytes into one key (:func:`short_keys`): they
are then encoded, sorted and looked up as numbers instead of strings. The distinct strings
are made back from their words (:func:`strings_of_words`). Strings and large strings are read
from their offsets and data, string views (polars' layout) from the views.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rankframe.engine.encoding.columns import BLOCK, IntArray, Words

if TYPE_CHECKING:  # imported where used: `rankframe trec` runs without them
    import pyarrow as pa

__all__ = [
    "KEY_BYTES",
    "SHORT_BYTES",
    "VIEW_STRINGS",
    "key_words",
    "short_keys",
    "strings_of_words",
    "words_of_short_keys",
]

#: Strings of at most this many bytes become two 64-bit words (see :func:`key_words`).
KEY_BYTES = 15
#: Strings of at most this many bytes become one 64-bit key (see :func:`short_keys`).
SHORT_BYTES = 7
_VIEW_INLINE = 12  # a string view holds strings of at most 12 bytes in the view itself
#: Rows per data buffer of the string views that the distinct strings are made of.
VIEW_STRINGS = 1 << 27
# per length (0-15), the mask of the string's bytes in its first word and in its second
_FIRST_MASKS = np.array([(1 << (8 * min(n, 8))) - 1 for n in range(KEY_BYTES + 1)], dtype=np.uint64)
_SECOND_MASKS = np.array(
    [(1 << (8 * max(n - 8, 0))) - 1 for n in range(KEY_BYTES + 1)], dtype=np.uint64
)
_LENGTH_BITS = np.uint64(0xFF)


def key_words(values: pa.Array | pa.ChunkedArray, out: Words | None = None) -> Words | None:
    """Per string of at most :data:`KEY_BYTES` bytes, two 64-bit words; None for other
    types, nulls, or a longer string.

    The first word holds bytes 0-7 of the string, big-endian and zero-padded; the second
    bytes 8-14 the same way, then the length in its lowest byte. The pairs order as the
    strings do byte-wise (first words first; a prefix first, NUL bytes included, because the
    length breaks the ties that the padding makes), and no two strings share a pair. Ids of
    up to 15 bytes, the usual kind, are then encoded and sorted as numbers
    (:func:`dictionary_codes`) instead of strings.

    Strings and large strings are read from their offsets and data, string views (polars'
    layout) from the views, where strings of up to 12 bytes are held inline (longer ones
    from a large-string copy); chunk by chunk, a block at a time, into two preallocated
    arrays (``out``, if given).
    """
    found = _read_words(values, KEY_BYTES, out)
    if found is None or found[1] is None:  # (the second word is read for 15 bytes)
        return None
    return found[0], found[1]


_Read = tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64] | None]


def _read_words(
    values: pa.Array | pa.ChunkedArray, longest: int, out: Words | None = None
) -> _Read | None:
    """:func:`key_words` of strings of at most ``longest`` bytes; for ``longest`` <=
    :data:`SHORT_BYTES`, the first word with the length in its (empty) low byte, and None
    for the second (:func:`short_keys`). ``out``: the two arrays to read the words into."""
    import pyarrow as pa

    kind = values.type
    view = pa.types.is_string_view(kind)
    if not (view or pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return None
    if values.null_count:
        return None
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    first: npt.NDArray[np.uint64]
    second: npt.NDArray[np.uint64] | None
    if out is not None:
        first, second = out
    else:
        first = np.empty(len(values), dtype=np.uint64)
        second = np.empty(len(values), dtype=np.uint64) if longest > SHORT_BYTES else None
    start = 0
    for chunk in chunks:
        part = slice(start, start + len(chunk))
        start += len(chunk)
        into = None if second is None else second[part]
        if view:
            most = _view_longest(chunk)
            if most > longest:
                return None
            if most <= _VIEW_INLINE:
                _view_words(chunk, first[part], into)
                continue
            chunk = chunk.cast(pa.large_string())
        if not _offset_words(chunk, first[part], into, longest):
            return None
    return first, second


def short_keys(values: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.uint64] | None:
    """Per string of at most :data:`SHORT_BYTES` bytes, one 64-bit key; None for other
    columns.

    The key is the string's bytes, big-endian and zero-padded to 7 bytes, then its length in
    the lowest byte (the two :func:`key_words` in one): one key per string and no string
    shares another's, and the keys order as the strings do byte-wise.
    """
    found = _read_words(values, SHORT_BYTES)
    return None if found is None else found[0]


def _finish_words(
    first: npt.NDArray[np.uint64], second: npt.NDArray[np.uint64] | None, length: IntArray
) -> None:
    """Keep the string's own bytes (its first ``length``) of the little-endian words read at
    its start and 8 bytes further, make them big-endian and put the length in the low byte
    of the second (of the first, without a second: strings of at most 7 bytes), in place."""
    first &= _FIRST_MASKS[length]
    first.byteswap(inplace=True)
    if second is None:
        first |= length.view(np.uint64)
        return
    second &= _SECOND_MASKS[length]
    second.byteswap(inplace=True)
    second |= length.view(np.uint64)


def _offset_words(
    chunk: pa.Array,
    first: npt.NDArray[np.uint64],
    second: npt.NDArray[np.uint64] | None,
    longest: int,
) -> bool:
    """:func:`key_words` of one string or large-string array, into ``first`` and ``second``;
    False if a string is longer than ``longest``."""
    import pyarrow as pa

    if len(chunk) == 0:
        return True
    wide = pa.types.is_large_string(chunk.type)
    _, offset_buffer, data_buffer = chunk.buffers()
    offsets: npt.NDArray[Any] = np.frombuffer(offset_buffer, dtype=np.int64 if wide else np.int32)[
        chunk.offset : chunk.offset + len(chunk) + 1
    ]
    size = 0 if data_buffer is None else data_buffer.size
    # every 8-byte word of the data, at every byte (a strided view, no copy); words that
    # start in the last 7 bytes are read from a zero-padded copy of the data's end
    words: npt.NDArray[np.uint64] = (
        np.ndarray((size - 7,), dtype="<u8", buffer=data_buffer, strides=(1,))
        if size >= 8
        else np.zeros(0, dtype=np.uint64)
    )
    base = max(size - 16, 0)
    tail = np.zeros(24, dtype=np.uint8)
    if size:
        tail[: size - base] = np.frombuffer(data_buffer, dtype=np.uint8)[base:size]
    tail_words = np.ndarray((17,), dtype="<u8", buffer=tail, strides=(1,))

    def read(at: npt.NDArray[Any], out: npt.NDArray[np.uint64]) -> None:
        if int(at[-1]) <= size - 8:  # ascending: every read of the block fits
            out[...] = words[at]
        else:
            near = at > size - 8
            out[~near] = words[at[~near]]
            out[near] = tail_words[at[near] - base]

    block = min(len(chunk), BLOCK)
    length = np.empty(block, dtype=np.int64)
    later = np.empty(block, dtype=np.int64)
    for begin in range(0, len(chunk), BLOCK):
        end = min(begin + BLOCK, len(chunk))
        m, starts = end - begin, offsets[begin:end]
        np.subtract(offsets[begin + 1 : end + 1], starts, out=length[:m])
        most = int(length[:m].max())
        if most > longest:
            return False
        read(starts, first[begin:end])
        rest = None if second is None else second[begin:end]
        if rest is not None and most > 8:  # bytes in the second word, before the data's end
            np.add(starts, 8, out=later[:m])
            np.minimum(later[:m], size, out=later[:m])
            read(later[:m], rest)
        elif rest is not None:
            rest[...] = 0
        _finish_words(first[begin:end], rest, length[:m])
    return True


def _view_longest(chunk: pa.Array) -> int:
    """The length of the longest string of a string-view array (0 if empty)."""
    views = np.frombuffer(chunk.buffers()[1], dtype=np.uint32)
    lengths = views[4 * chunk.offset : 4 * (chunk.offset + len(chunk)) : 4]
    return int(lengths.max()) if len(lengths) else 0


def _view_words(
    chunk: pa.Array, first: npt.NDArray[np.uint64], second: npt.NDArray[np.uint64] | None
) -> None:
    """:func:`key_words` of one string-view array whose strings have at most 12 bytes, into
    ``first`` and ``second``: a view of 16 bytes holds the length (4 bytes), then the
    string."""
    views = np.frombuffer(chunk.buffers()[1], dtype=np.uint64)
    views = views[2 * chunk.offset : 2 * (chunk.offset + len(chunk))]
    low, high = views[0::2], views[1::2]
    block = min(len(chunk), BLOCK)
    length = np.empty(block, dtype=np.int64)
    spare = np.empty(block, dtype=np.uint64)
    for begin in range(0, len(chunk), BLOCK):
        end = min(begin + BLOCK, len(chunk))
        m, word = end - begin, first[begin:end]
        np.bitwise_and(low[begin:end], np.uint64(0xFFFFFFFF), out=length[:m].view(np.uint64))
        # bytes 0-3 sit above the length in the view's first word, bytes 4-11 in its second
        np.right_shift(low[begin:end], np.uint64(32), out=word)
        np.left_shift(high[begin:end], np.uint64(32), out=spare[:m])
        word |= spare[:m]
        rest = None if second is None else second[begin:end]
        if rest is not None:
            np.right_shift(high[begin:end], np.uint64(32), out=rest)
        _finish_words(word, rest, length[:m])


def strings_of_words(
    first: npt.NDArray[np.uint64], second: npt.NDArray[np.uint64], kind: pa.DataType
) -> pa.Array:
    """The strings that :func:`key_words` made the words of, as an Arrow array (strings for
    a string column, large strings for the others).

    The words become string views (16 bytes: the length, then the string itself up to 12
    bytes, or its first 4 bytes and where the string lies in a buffer that holds both words
    of every string), which Arrow then copies into a string array: a few passes over the
    distinct values, where picking each string's bytes out of its words is slow in NumPy.
    """
    import pyarrow as pa

    length = second & _LENGTH_BITS
    head = first.byteswap()  # bytes 0-7 of the strings, in memory order
    tail = second & ~_LENGTH_BITS
    tail.byteswap(inplace=True)  # bytes 8-14, then a zero
    views = np.empty((len(first), 2), dtype=np.uint64)
    np.left_shift(head, np.uint64(32), out=views[:, 0])
    views[:, 0] |= length
    buffers = [None, pa.py_buffer(views)]
    outside = np.flatnonzero(length > np.uint64(_VIEW_INLINE)).astype(np.uint64)
    if len(outside):
        # strings of 13 bytes or more lie in buffers of VIEW_STRINGS rows of both words
        # (16 bytes a row; a view's offset has 31 bits)
        body = np.stack([head, tail], axis=1)
        buffers += [
            pa.py_buffer(body[i : i + VIEW_STRINGS]) for i in range(0, len(body), VIEW_STRINGS)
        ]
    np.right_shift(head, np.uint64(32), out=views[:, 1])  # bytes 4-7 ...
    tail <<= np.uint64(32)
    views[:, 1] |= tail  # ... then 8-11
    if len(outside):
        where = outside // np.uint64(VIEW_STRINGS)  # the buffer's index, then the offset
        where |= (outside % np.uint64(VIEW_STRINGS) * np.uint64(16)) << np.uint64(32)
        views[outside.astype(np.intp), 1] = where
    strings = pa.Array.from_buffers(pa.string_view(), len(first), buffers)
    return strings.cast(pa.string() if pa.types.is_string(kind) else pa.large_string())


def words_of_short_keys(keys: npt.NDArray[np.uint64]) -> Words:
    """The :func:`key_words` of the strings whose :func:`short_keys` are ``keys``: the
    string's bytes with the low byte cleared, and its length."""
    length = keys & _LENGTH_BITS
    return keys & ~_LENGTH_BITS, length
