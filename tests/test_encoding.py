"""The id encodings the engine sorts by, against independent references (Python's sort)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

import rankframe._encoding
from rankframe._encoding import dictionary_codes, hash_arrow, short_keys

VALUES = ["q7", "q10", None, "q2", "q7", "", "q10", "q2", "é", None, "q7", "q1"]


def _reference(values: list[object]) -> tuple[list[int], list[object]]:
    """Codes in the ascending order of the distinct values, null last (Python's sort)."""
    distinct = sorted({v for v in values if v is not None}, key=lambda v: v.encode())
    if None in values:
        distinct.append(None)
    position = {v: i for i, v in enumerate(distinct)}
    return [position[v] for v in values], distinct


def _columns() -> dict[str, pa.Array | pa.ChunkedArray]:
    strings = pa.array(VALUES, type=pa.large_string())
    return {
        "one chunk": strings,
        "chunks": pa.chunked_array([strings.slice(0, 5), strings.slice(5, 1),
                                    strings.slice(6)]),
        "halves cut inside a chunk": pa.chunked_array([strings.slice(0, 4), strings.slice(4)]),
        "string view (polars)": pl.Series(VALUES).to_arrow(compat_level=pl.CompatLevel.newest()),
        "string": pa.array(VALUES, type=pa.string()),
    }


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("column", list(_columns()))
def test_dictionary_codes_match_a_sort_of_the_values(column, threads, monkeypatch) -> None:
    monkeypatch.setattr(rankframe._encoding, "THREAD_VALUES", 2)  # two halves, merged
    codes, distinct = dictionary_codes(_columns()[column], sort=True, compact=True,
                                       threads=threads)
    expected_codes, expected_distinct = _reference(VALUES)
    assert codes.tolist() == expected_codes
    assert distinct.to_pylist() == expected_distinct
    assert codes.dtype == np.int32


def test_two_threads_unsorted_codes_index_the_values(monkeypatch) -> None:
    monkeypatch.setattr(rankframe._encoding, "THREAD_VALUES", 2)
    codes, distinct = dictionary_codes(_columns()["chunks"], sort=False, threads=True)
    assert [distinct.to_pylist()[c] for c in codes] == VALUES
    assert len(distinct) == len(set(VALUES))


def test_integers_in_two_halves(monkeypatch) -> None:
    monkeypatch.setattr(rankframe._encoding, "THREAD_VALUES", 2)
    values = [5, -1, 5, 3, 300, -1, 3]
    codes, distinct = dictionary_codes(pa.array(values), sort=True, threads=True)
    assert distinct.to_pylist() == [-1, 3, 5, 300]
    assert codes.tolist() == [2, 0, 2, 1, 3, 0, 1]


def test_below_the_threshold_one_thread_gives_the_same(monkeypatch) -> None:
    column = _columns()["chunks"]
    two = dictionary_codes(column, sort=True, threads=True)
    monkeypatch.setattr(rankframe._encoding, "THREAD_VALUES", 2)
    one = dictionary_codes(column, sort=True, threads=True)
    assert two[0].tolist() == one[0].tolist()
    assert two[1].equals(one[1])


# Short ids (at most 7 bytes) take the 64-bit key path; NUL bytes, empty and multi-byte
# strings, and strings that end at the very end of the data buffer included.
SHORT = ["q7", "a\x00", "q10", "", "a", "q2", "é", "q7", "abcdefg", "€x", "", "a\x00", "q1"]


def _short_columns() -> dict[str, pa.Array | pa.ChunkedArray]:
    large = pa.array(SHORT, type=pa.large_string())
    padded = pa.array(["zzzzzzzzzz", *SHORT, "zzzzzzzzzz"], type=pa.string())
    return {
        "string": pa.array(SHORT, type=pa.string()),
        "large string": large,
        "chunks": pa.chunked_array([large.slice(0, 4), large.slice(4, 1), large.slice(5)]),
        "a slice of a longer column": padded.slice(1, len(SHORT)),
        "string view (polars)": pl.Series(SHORT).to_arrow(compat_level=pl.CompatLevel.newest()),
    }


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("column", list(_short_columns()))
def test_short_ids_are_encoded_by_their_keys(column, threads, monkeypatch) -> None:
    monkeypatch.setattr(rankframe._encoding, "THREAD_VALUES", 2)
    values = _short_columns()[column]
    assert short_keys(values) is not None  # the key path, not Arrow's string hash table
    codes, distinct = dictionary_codes(values, sort=True, compact=True, threads=threads)
    expected_codes, expected_distinct = _reference(SHORT)
    assert codes.tolist() == expected_codes
    assert distinct.to_pylist() == expected_distinct
    assert codes.dtype == np.int32


def test_short_keys_order_as_the_bytes_do() -> None:
    rng = np.random.default_rng(7)
    alphabet = ["a", "b", "\x00", "é", "0", "€"]
    values = ["".join(rng.choice(alphabet, size=rng.integers(0, 3))) for _ in range(400)]
    keys = short_keys(pa.array(values))
    assert keys is not None
    by_key = [values[i] for i in np.argsort(keys, kind="stable")]
    assert by_key == sorted(values, key=lambda v: v.encode())
    # one key per string: equal keys exactly where the strings are equal
    assert len(set(keys.tolist())) == len(set(values))
    codes, distinct = dictionary_codes(pa.array(values), sort=True)
    assert (codes.tolist(), distinct.to_pylist()) == _reference(values)


@pytest.mark.parametrize("values", [["q1", "abcdefgh", "q1"], ["q1", None, "q2"]],
                         ids=["an 8-byte id", "a null"])
def test_longer_ids_or_nulls_take_the_string_path(values) -> None:
    column = pa.array(values, type=pa.large_string())
    assert short_keys(column) is None
    codes, distinct = dictionary_codes(column, sort=True)
    expected_codes, expected_distinct = _reference(values)
    assert codes.tolist() == expected_codes
    assert distinct.to_pylist() == expected_distinct


@pytest.mark.parametrize("values", [SHORT, [*SHORT, "a longer id"]], ids=["short", "long"])
def test_item_hashes_are_equal_exactly_for_equal_items(values) -> None:
    hashes = hash_arrow(pa.chunked_array([pa.array(values[:5]), pa.array(values[5:])]))
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            assert (hashes[i] == hashes[j]) == (a == b), (a, b)
