"""The id encodings the engine sorts by, against independent references (Python's sort)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

import rankframe.engine.encoding
from rankframe.engine.encoding import (
    DistinctStrings,
    dictionary_codes,
    hash_arrow,
    key_words,
    labelled_codes,
    short_keys,
)

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
        "chunks": pa.chunked_array([strings.slice(0, 5), strings.slice(5, 1), strings.slice(6)]),
        "halves cut inside a chunk": pa.chunked_array([strings.slice(0, 4), strings.slice(4)]),
        "string view (polars)": pl.Series(VALUES).to_arrow(compat_level=pl.CompatLevel.newest()),
        "string": pa.array(VALUES, type=pa.string()),
    }


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("column", list(_columns()))
def test_dictionary_codes_match_a_sort_of_the_values(column, threads, monkeypatch) -> None:
    monkeypatch.setattr(rankframe.engine.encoding.halves, "THREAD_VALUES", 2)  # two halves, merged
    codes, distinct = dictionary_codes(_columns()[column], sort=True, compact=True, threads=threads)
    expected_codes, expected_distinct = _reference(VALUES)
    assert codes.tolist() == expected_codes
    assert distinct.to_pylist() == expected_distinct
    assert codes.dtype == np.int32


def test_two_threads_unsorted_codes_index_the_values(monkeypatch) -> None:
    monkeypatch.setattr(rankframe.engine.encoding.halves, "THREAD_VALUES", 2)
    codes, distinct = dictionary_codes(_columns()["chunks"], sort=False, threads=True)
    assert [distinct.to_pylist()[c] for c in codes] == VALUES
    assert len(distinct) == len(set(VALUES))


def test_integers_in_two_halves(monkeypatch) -> None:
    monkeypatch.setattr(rankframe.engine.encoding.halves, "THREAD_VALUES", 2)
    values = [5, -1, 5, 3, 300, -1, 3]
    codes, distinct = dictionary_codes(pa.array(values), sort=True, threads=True)
    assert distinct.to_pylist() == [-1, 3, 5, 300]
    assert codes.tolist() == [2, 0, 2, 1, 3, 0, 1]


def test_below_the_threshold_one_thread_gives_the_same(monkeypatch) -> None:
    column = _columns()["chunks"]
    two = dictionary_codes(column, sort=True, threads=True)
    monkeypatch.setattr(rankframe.engine.encoding.halves, "THREAD_VALUES", 2)
    one = dictionary_codes(column, sort=True, threads=True)
    assert two[0].tolist() == one[0].tolist()
    assert two[1].equals(one[1])


# Short ids (at most 7 bytes) take the 64-bit key path; NUL bytes, empty and multi-byte
# strings, and strings that end at the very end of the data buffer included.
SHORT = ["q7", "a\x00", "q10", "", "a", "q2", "é", "q7", "abcdefg", "€x", "", "a\x00", "q1"]


def _string_columns(values: list[str]) -> dict[str, pa.Array | pa.ChunkedArray]:
    """The values in each layout of Arrow strings the encoding reads."""
    large = pa.array(values, type=pa.large_string())
    padded = pa.array(["zzzzzzzzzzzzzzz", *values, "z"], type=pa.string())
    return {
        "string": pa.array(values, type=pa.string()),
        "large string": large,
        "chunks": pa.chunked_array([large.slice(0, 4), large.slice(4, 1), large.slice(5)]),
        "a slice of a longer column": padded.slice(1, len(values)),
        "string view (polars)": pl.Series(values).to_arrow(compat_level=pl.CompatLevel.newest()),
    }


def _short_columns() -> dict[str, pa.Array | pa.ChunkedArray]:
    return _string_columns(SHORT)


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("column", list(_short_columns()))
def test_short_ids_are_encoded_by_their_keys(column, threads, monkeypatch) -> None:
    monkeypatch.setattr(rankframe.engine.encoding.halves, "THREAD_VALUES", 2)
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
    first, second = key_words(pa.array(values))  # the same bytes, the length in a 2nd word
    assert (first | second).tolist() == keys.tolist()
    codes, distinct = dictionary_codes(pa.array(values), sort=True)
    assert (codes.tolist(), distinct.to_pylist()) == _reference(values)


@pytest.mark.parametrize(
    "values", [["q1", "abcdefgh", "q1"], ["q1", None, "q2"]], ids=["an 8-byte id", "a null"]
)
def test_longer_ids_or_nulls_have_no_short_keys(values) -> None:
    column = pa.array(values, type=pa.large_string())
    assert short_keys(column) is None
    codes, distinct = dictionary_codes(column, sort=True)
    expected_codes, expected_distinct = _reference(values)
    assert codes.tolist() == expected_codes
    assert distinct.to_pylist() == expected_distinct


# Ids of 8-15 bytes, alone and mixed with short ones, take the two-word key path: byte 8
# (the first of the second word), 12 and 13 (the last inline in a string view and the first
# that is not), 15, NUL bytes, prefixes and multi-byte characters.
LONGER = [
    "q0000001",
    "q0000010",
    "q000001",
    "abcdefgh\x00",
    "abcdefgh",
    "abcdefghijkl",
    "abcdefghijklm",
    "abcdefghijklmno",
    "abcdefghijklmnn",
    "q0000001",
    "é€é€é",
    "",
    "a\x00",
    "abcdefghijklm",
    "zz",
    "q0000002",
]


def _longer_columns(values: list[str]) -> dict[str, pa.Array | pa.ChunkedArray]:
    inline = [v for v in values if len(v.encode()) <= 12]
    view = pl.Series(inline).to_arrow(compat_level=pl.CompatLevel.newest())
    return {**_string_columns(values), "string view, every id inline": view}


@pytest.mark.parametrize("encoding", ["sort", "hash table"])
@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("column", list(_longer_columns(LONGER)))
def test_ids_of_up_to_15_bytes_are_encoded_by_their_words(
    column, threads, encoding, monkeypatch
) -> None:
    monkeypatch.setattr(rankframe.engine.encoding.halves, "THREAD_VALUES", 2)
    monkeypatch.setattr(
        rankframe.engine.encoding.key_codes, "few_repeats", lambda _: encoding == "sort"
    )
    monkeypatch.setattr(
        rankframe.engine.encoding.distinct_keys, "SORT_BUCKET", 2
    )  # the sort by buckets
    values = _longer_columns(LONGER)[column]
    assert key_words(values) is not None  # the key path, not Arrow's string hash table
    codes, distinct = dictionary_codes(values, sort=True, compact=True, threads=threads)
    expected_codes, expected_distinct = _reference(values.to_pylist())
    assert codes.tolist() == expected_codes
    assert distinct.to_pylist() == expected_distinct
    assert codes.dtype == np.int32
    assert distinct.type == (pa.string() if values.type == pa.string() else pa.large_string())


# ids of a prefix and a number, as many query columns hold: their words fit one key
NUMBERED = ["q0000001", "q12", "q0000010", "q999", "q1000000", "q12", "q0000001", "q7"]


@pytest.mark.parametrize("encoding", ["sort", "hash table"])
@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("values", [NUMBERED, SHORT], ids=["up to 8 bytes", "up to 7 bytes"])
def test_labels_are_made_when_first_read(values, threads, encoding, monkeypatch) -> None:
    # The query column's labels (labelled_codes): the same codes, and distinct strings
    # made from the keys on first use, as the sorted distinct values. (Words that do not
    # fit one key take the string path, whose distinct strings are made at once.)
    monkeypatch.setattr(rankframe.engine.encoding.halves, "THREAD_VALUES", 2)
    monkeypatch.setattr(
        rankframe.engine.encoding.key_codes, "few_repeats", lambda _: encoding == "sort"
    )
    codes, distinct = labelled_codes(pa.array(values), threads=threads)
    expected_codes, expected_distinct = _reference(values)
    assert codes.tolist() == expected_codes
    assert isinstance(distinct, DistinctStrings)
    assert len(distinct) == len(expected_distinct)
    picked = [len(expected_distinct) - 1, 0, 1]
    assert distinct.take(pa.array(picked)).to_pylist() == [expected_distinct[i] for i in picked]


@pytest.mark.parametrize("encoding", ["sort", "hash table"])
def test_key_words_order_as_the_bytes_do(encoding, monkeypatch) -> None:
    rng = np.random.default_rng(11)
    alphabet = ["a", "b", "\x00", "é", "0", "€"]
    values = ["".join(rng.choice(alphabet, size=rng.integers(0, 8))) for _ in range(600)]
    values = [v for v in values if len(v.encode()) <= 15]
    words = key_words(pa.array(values))
    assert words is not None
    first, second = words
    by_words = [values[i] for i in np.lexsort((second, first))]
    assert by_words == sorted(values, key=lambda v: v.encode())
    pairs = set(zip(first.tolist(), second.tolist(), strict=True))
    assert len(pairs) == len(set(values))  # one pair per string
    monkeypatch.setattr(
        rankframe.engine.encoding.key_codes, "few_repeats", lambda _: encoding == "sort"
    )
    codes, distinct = dictionary_codes(pa.array(values), sort=True)
    assert (codes.tolist(), distinct.to_pylist()) == _reference(values)


def test_words_that_do_not_fit_one_key_take_the_string_path() -> None:
    # first words from "\x00..." to "\xff...", second words as spread: 64 + 56 bits
    values = ["\x00" * 15, "\x7f" * 15, "\x01\x7f"]
    column = pa.array(values)
    assert key_words(column) is not None
    assert not rankframe.engine.encoding.KeyPacking([key_words(column)]).fits
    codes, distinct = dictionary_codes(column, sort=True)
    assert (codes.tolist(), distinct.to_pylist()) == _reference(values)


@pytest.mark.parametrize(
    "values", [["q1", "abcdefghijklmnop", "q1"], ["q1", None, "q2"]], ids=["a 16-byte id", "a null"]
)
def test_longer_ids_or_nulls_take_the_string_path(values) -> None:
    for column in (
        pa.array(values, type=pa.large_string()),
        pl.Series(values).to_arrow(compat_level=pl.CompatLevel.newest()),
    ):
        assert key_words(column) is None
        codes, distinct = dictionary_codes(column, sort=True)
        expected_codes, expected_distinct = _reference(values)
        assert codes.tolist() == expected_codes
        assert distinct.to_pylist() == expected_distinct


def test_distinct_strings_beyond_one_view_buffer(monkeypatch) -> None:
    monkeypatch.setattr(rankframe.engine.encoding.words, "VIEW_STRINGS", 2)  # 2 strings per buffer
    codes, distinct = dictionary_codes(pa.array(LONGER), sort=True)
    assert (codes.tolist(), distinct.to_pylist()) == _reference(LONGER)


def test_the_encoding_follows_how_often_ids_repeat() -> None:
    n = 16 * rankframe.engine.encoding.REPEAT_SAMPLE
    rng = np.random.default_rng(3)
    for per_id, few in [(1, True), (2, True), (4, True), (16, False), (100, False)]:
        keys = rng.permutation(np.arange(n, dtype=np.uint64) // np.uint64(per_id))
        assert rankframe.engine.encoding.distinct_keys.few_repeats([keys]) is few, per_id
        grouped = np.sort(keys)  # the rows of an id side by side: the same answer
        few_repeats = rankframe.engine.encoding.distinct_keys.few_repeats
        assert few_repeats(np.split(grouped, [n // 3])) is few, per_id
    few_keys = [np.arange(n - 1, dtype=np.uint64)]
    assert not rankframe.engine.encoding.distinct_keys.few_repeats(few_keys)


def test_many_short_lists_by_sort_and_buckets() -> None:
    # 2 rows per id: enough ids for the sort (estimated, not forced) and its buckets
    n_ids = 300_000
    ids = np.char.add("q", np.arange(n_ids).astype(str))  # 2-7 bytes: 'q0' .. 'q299999'
    rows = np.random.default_rng(5).permutation(np.repeat(ids, 2))
    column = pa.array(rows, type=pa.large_string())
    keys = rankframe.engine.encoding.KeyPacking([key_words(column)]).pack(key_words(column))
    assert rankframe.engine.encoding.distinct_keys.few_repeats([keys])
    assert len(rows) > 2 * rankframe.engine.encoding.distinct_keys.SORT_BUCKET  # sorted by buckets
    codes, distinct = dictionary_codes(column, sort=True, compact=True)
    order = sorted(set(ids.tolist()), key=str.encode)
    assert distinct.to_pylist() == order
    position = {v: i for i, v in enumerate(order)}
    assert codes.tolist() == [position[v] for v in rows.tolist()]


@pytest.mark.parametrize("values", [SHORT, [*SHORT, "a longer id"]], ids=["short", "long"])
def test_item_hashes_are_equal_exactly_for_equal_items(values) -> None:
    hashes = hash_arrow(pa.chunked_array([pa.array(values[:5]), pa.array(values[5:])]))
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            assert (hashes[i] == hashes[j]) == (a == b), (a, b)


# -- composite ids (tuples as Arrow lists and structs) ---------------------------------------


def _composite_columns() -> dict[str, tuple[pa.Array | pa.ChunkedArray, list[tuple[object, ...]]]]:
    """Composite id columns and their values as Python tuples."""
    rng = np.random.default_rng(25)
    tuples = [
        tuple(int(x) for x in rng.integers(-3, 4, size=rng.integers(0, 4))) for _ in range(300)
    ]
    lists = pa.array([list(t) for t in tuples], type=pa.list_(pa.int64()))
    large = lists.cast(pa.large_list(pa.int64()))
    nested = [((t[0],), t[1:]) if t else ((), ()) for t in tuples]
    pairs = [
        (int(a), str(b))
        for a, b in zip(rng.integers(0, 3, 50), rng.choice(list("aBé"), 50), strict=True)
    ]
    return {
        "list": (lists, tuples),
        "large list, chunks": (pa.chunked_array([large.slice(0, 100), large.slice(100)]), tuples),
        "list of lists": (
            pa.array([[list(a), list(b)] for a, b in nested]),
            [tuple(tuple(p) for p in t) for t in nested],
        ),
        "fixed-size list": (
            pa.array([[a, a * 2] for a, _ in pairs], type=pa.list_(pa.int64(), 2)),
            [(a, a * 2) for a, _ in pairs],
        ),
        "struct": (pa.array([{"a": a, "b": b} for a, b in pairs]), pairs),
    }


@pytest.mark.parametrize("column", list(_composite_columns()))
def test_composite_ids_are_encoded_in_the_order_of_python_tuples(column: str) -> None:
    values, tuples = _composite_columns()[column]
    # the reference: Python's sort of the distinct tuples
    distinct = sorted(set(tuples))
    position = {t: i for i, t in enumerate(distinct)}
    expected = [position[t] for t in tuples]
    assert rankframe.engine.encoding.dense_ranks(values).tolist() == expected
    codes, dictionary = dictionary_codes(values, sort=True, compact=True)
    assert codes.dtype == np.int32
    assert codes.tolist() == expected
    assert [
        rankframe.engine.encoding.as_tuple(v) if not isinstance(v, dict) else tuple(v.values())
        for v in dictionary.to_pylist()
    ] == distinct
    codes, _ = labelled_codes(values)
    assert codes.tolist() == expected
    first_hash: dict[tuple[object, ...], int] = {}
    for t, h in zip(tuples, hash_arrow(values).tolist(), strict=True):  # equal ids, equal hashes
        assert first_hash.setdefault(t, h) == h


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (pa.array([[1, None], [1, 2]]), True),
        (pa.array([[1.0, float("nan")]]), True),
        (pa.array([[[1], [None]]]), True),
        (pa.array([{"a": 1, "b": None}]), True),
        (pa.array([[1, 2], [], [3]]), False),
        (pa.array([{"a": 1, "b": "x"}]), False),
    ],
)
def test_null_elements_of_composite_ids_are_found(values: pa.Array, expected: bool) -> None:
    assert rankframe.engine.encoding.composite_nulls(values) is expected


def test_tuples_with_nulls_in_object_columns() -> None:
    def objects(*values: object) -> np.ndarray:
        out = np.empty(len(values), dtype=object)
        out[:] = list(values)
        return out

    found = rankframe.engine.encoding.tuples_with_nulls
    assert found(objects((1, 2), (1, (2, None))))
    assert found(objects((1.0, float("nan"))))
    assert not found(objects((1, 2), "a", None))  # a null id is not a tuple's element
    assert not found(np.array([1, 2]))


# -- polars columns in chunks (a frame read from parquet) ------------------------------------


def _chunks(values: list[object], dtype: pl.DataType) -> pl.Series:
    """A series of ``values`` held in three chunks, as a frame read from parquet holds it."""
    third = len(values) // 3
    parts = [values[:third], values[third : 2 * third], values[2 * third :]]
    series = pl.concat([pl.Series("v", p, dtype=dtype) for p in parts], rechunk=False)
    assert series.n_chunks() == 3
    return series


@pytest.mark.parametrize(
    ("values", "dtype"),
    [(VALUES, pl.String), ([5, -1, None, 5, 2**40, -1, 0, 5, 7], pl.Int64)],
    ids=["strings", "integers"],
)
def test_series_hashes_of_chunks_are_those_of_the_joined_series(values, dtype) -> None:
    chunked = _chunks(values, dtype)
    hashes = rankframe.engine.encoding.hash_series(chunked)
    assert hashes.tolist() == rankframe.engine.encoding.hash_series(chunked.rechunk()).tolist()
    for i, a in enumerate(values):  # equal values (in any chunks), equal hashes
        for j, b in enumerate(values):
            assert (hashes[i] == hashes[j]) == (a == b), (a, b)


@pytest.mark.parametrize(
    ("values", "dtype", "narrowest"),
    [
        ([0, 1, 2, 3, 0, 4], pl.Int64, np.int8),
        ([127, -127, 0, 1, 5, 126], pl.Int64, np.int8),
        ([-128, 0, 1, 2, 3, 4], pl.Int64, np.int16),  # -(-128) is not an int8
        ([255, 0, 1, 2, 3, 4], pl.UInt8, np.int16),
        ([2**15, 0, 1, 2, 3, 4], pl.Int32, np.int32),
        ([2**31, 0, 1, 2, 3, 4], pl.Int64, np.int64),  # no narrower type holds it
        ([2**64 - 1, 0, 1, 2, 3, 4], pl.UInt64, np.uint64),
    ],
)
def test_integers_of_chunks_are_joined_into_the_narrowest_type(values, dtype, narrowest) -> None:
    joined = rankframe.engine.encoding.polars_integers(_chunks(values, dtype))
    assert joined.dtype == narrowest
    assert joined.tolist() == values


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([0.5, None, -1.25, 3.0, float("nan"), 2.5], pl.Float32),
        ([0.5, None, -1.25, 3.0, float("inf"), 2.5], pl.Float64),
        ([5, None, -7, 2**53 + 1, 0, 1], pl.Int64),  # 2**53 + 1: rounded as a cast rounds it
        ([2**64 - 1, 0, 1, 2**63, 3, 4], pl.UInt64),
        ([0.5, 1.0, -2.0, 0.25, 3.0, 8.0], pl.Float16),
    ],
)
@pytest.mark.parametrize("chunks", [1, 3])
def test_floats_of_chunks_are_the_cast_to_float64(values, dtype, chunks) -> None:
    series = _chunks(values, dtype) if chunks == 3 else pl.Series("v", values, dtype=dtype)
    joined = rankframe.engine.encoding.polars_floats(series)
    expected = series.cast(pl.Float64).fill_null(float("nan")).to_list()
    assert joined.dtype == np.float64
    np.testing.assert_array_equal(joined, np.array(expected, dtype=np.float64))
