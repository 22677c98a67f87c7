"""64-bit hashes of id columns, computed with NumPy on Arrow buffers.

The engine finds duplicate items within a query by sorting packed (query code, item hash)
keys; equal items always get equal hashes, so no duplicate is ever missed, and the rare
different items that share a hash are told apart by comparing their values. Hashing strings
this way costs a few vectorised passes over the bytes, far less than a hash table (pandas
``factorize``) over millions of distinct ids.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa

__all__ = ["hash_arrow", "hash_numbers", "mix"]

U64 = npt.NDArray[np.uint64]
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)


def mix(h: U64) -> U64:
    """The splitmix64 finaliser: spreads every input bit over every output bit (in place)."""
    h ^= h >> np.uint64(30)
    h *= _MUL1
    h ^= h >> np.uint64(27)
    h *= _MUL2
    h ^= h >> np.uint64(31)
    return h


def hash_numbers(values: npt.NDArray[np.generic]) -> U64:
    """Hashes of a numeric array; equal numbers (including 0.0 and -0.0) hash alike."""
    if values.dtype.kind == "f":
        as_float = values.astype(np.float64) + 0.0  # -0.0 + 0.0 is 0.0
        bits = as_float.view(np.uint64).copy()
    elif values.dtype.kind == "b":
        bits = values.astype(np.uint64)
    else:
        bits = values.astype(np.int64).view(np.uint64).copy()
    with np.errstate(over="ignore"):
        return mix(bits + _GOLDEN)


def _hash_string_chunk(chunk: pa.Array) -> U64:
    if not pa.types.is_large_string(chunk.type):
        chunk = chunk.cast(pa.large_string())
    n = len(chunk)
    offset_buffer, data_buffer = chunk.buffers()[1], chunk.buffers()[2]
    offsets = np.frombuffer(offset_buffer, dtype=np.int64)[chunk.offset : chunk.offset + n + 1]
    starts, lengths = offsets[:-1], np.diff(offsets)
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(
        0, dtype=np.uint8
    )
    padded = np.zeros(len(data) + 8, dtype=np.uint8)
    padded[: len(data)] = data
    # every 8-byte window of the bytes, as little-endian integers (an unaligned view)
    windows = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    with np.errstate(over="ignore"):
        h = lengths.astype(np.uint64) * _MUL1 + _GOLDEN
        longest = int(lengths.max(initial=0))
        for at in range(0, longest, 8):
            remaining = lengths - at
            word = windows[np.minimum(starts + at, len(windows) - 1)]
            short = remaining < 8
            if short.any():
                keep_bits = (np.clip(remaining, 0, 8) * 8).astype(np.uint64)
                mask = np.where(
                    keep_bits >= 64,
                    np.uint64(0xFFFFFFFFFFFFFFFF),
                    (np.uint64(1) << np.minimum(keep_bits, 63)) - np.uint64(1),
                )
                word &= mask
            h = mix(h ^ word) + np.uint64(at + 1)
    return h


def hash_arrow(values: pa.Array | pa.ChunkedArray) -> U64 | None:
    """Hashes of an Arrow string or numeric column; ``None`` for other types."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    kind = values.type
    if pa.types.is_dictionary(kind):
        return None
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(
        kind
    ):
        parts = [_hash_string_chunk(c) for c in chunks]
    elif pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        parts = [hash_numbers(np.asarray(c.to_numpy(zero_copy_only=False))) for c in chunks]
    else:
        return None
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
