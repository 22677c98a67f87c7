"""Lookups of short string ids by their 64-bit keys (rankframe.engine.ShortIds), against a
Python dict of the strings: positions, missing ids, ids listed twice, and the ids it leaves
to a hash table (longer strings, nulls, other types)."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from rankframe.engine import ShortIds

# short strings whose keys could collide if the key were careless: prefixes of one another,
# NUL bytes, multi-byte characters (7 bytes at most in UTF-8)
SHORT = st.text(alphabet=st.sampled_from(["a", "b", "\x00", "é", "z"]), max_size=3)


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(SHORT, max_size=12), wanted=st.lists(SHORT, max_size=12))
def test_positions_equal_a_dict(keys: list[str], wanted: list[str]) -> None:
    ids = ShortIds.of(pa.array(keys, type=pa.string()))
    assert ids is not None
    assert ids.unique() == (len(set(keys)) == len(keys))
    first: dict[str, int] = {}
    for position, key in enumerate(keys):
        first.setdefault(key, position)
    found = ids.positions(pa.array(wanted, type=pa.large_string()))
    assert found is not None
    assert found.tolist() == [first.get(w, -1) for w in wanted]


def test_other_ids_are_left_to_a_hash_table() -> None:
    short = ShortIds.of(pa.array(["a", "bb"]))
    assert short is not None
    assert short.positions(pa.array(["a", "eight by"])) is None  # 8 bytes
    assert short.positions(pa.array(["a", None])) is None
    assert short.positions(pa.array([1, 2])) is None
    assert ShortIds.of(pa.array(["a", "longer id"])) is None
    assert ShortIds.of(pa.array(["a", None])) is None
    assert ShortIds.of(pa.array([1, 2])) is None
    empty = ShortIds.of(pa.array([], type=pa.string()))
    assert empty is not None
    assert empty.unique()
    assert empty.positions(pa.array(["a"])) is not None
    assert empty.positions(pa.array(["a"])).tolist() == [-1]
