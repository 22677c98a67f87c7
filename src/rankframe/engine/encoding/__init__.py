"""Encodings of id columns that the engine sorts and compares: codes, dense ranks, hashes.

Query ids become integer codes numbered in sorted order of the ids
(:func:`labelled_codes`, :func:`dictionary_codes`); ties are broken by item id, so the few
tied rows need the order of their ids (:func:`dense_ranks`, :func:`ranks_at`); duplicate
items are found by sorting packed (query code, item hash) keys (:func:`hash_arrow`,
:func:`hash_series`). One room per job:

- :mod:`.columns`: columns as the encodings read them (views, dictionaries and half floats
  undone; rows taken chunk by chunk; the array types);
- :mod:`.words`: strings of at most 15 bytes as 64-bit words that order as they do, and back;
- :mod:`.key_codes`: the codes of such strings through their packed keys, by
  :mod:`.distinct_keys` (a sort, or Arrow's hash table of numbers);
- :mod:`.dictionary`: the codes of any column (those keys, polars' ranks of composite ids,
  or Arrow's dictionary encoding);
- :mod:`.ranks`: dense ranks of ids, Python objects included;
- :mod:`.composite`: composite ids (lists, structs) ranked as tuples, and the codes of
  composite keys; :mod:`.nulls`: composite ids that hold a null;
- :mod:`.hashes`: per value a 64-bit hash; :mod:`.short_ids`: ids looked up by their keys;
- :mod:`.halves`: a column encoded in two halves, in two threads.

This package re-exports what the adapters read. The settings measured on the machine
(``halves.THREAD_VALUES``, ``distinct_keys.SORT_BUCKET``, ``words.VIEW_STRINGS``) live in
the room that reads them, and are changed there.
"""

from rankframe.engine.encoding.columns import (
    CodeArray,
    IntArray,
    in_row_order,
    polars_floats,
    polars_integers,
    polars_numpy,
    take_rows,
    without_half_floats,
)
from rankframe.engine.encoding.composite import (
    as_tuple,
    composite_codes,
    composite_ranks,
    is_composite,
)
from rankframe.engine.encoding.dictionary import dictionary_codes, labelled_codes
from rankframe.engine.encoding.distinct_keys import REPEAT_SAMPLE, SORT_BELOW
from rankframe.engine.encoding.hashes import hash_arrow, hash_series
from rankframe.engine.encoding.key_codes import DistinctStrings, KeyPacking
from rankframe.engine.encoding.nulls import composite_nulls, tuples_with_nulls
from rankframe.engine.encoding.ranks import (
    UnorderedIdsError,
    dense_ranks,
    object_ranks,
    ranks_at,
    table_codes,
)
from rankframe.engine.encoding.short_ids import ShortIds
from rankframe.engine.encoding.words import KEY_BYTES, SHORT_BYTES, key_words, short_keys

__all__ = [
    "KEY_BYTES",
    "REPEAT_SAMPLE",
    "SHORT_BYTES",
    "SORT_BELOW",
    "CodeArray",
    "DistinctStrings",
    "IntArray",
    "KeyPacking",
    "ShortIds",
    "UnorderedIdsError",
    "as_tuple",
    "composite_codes",
    "composite_nulls",
    "composite_ranks",
    "dense_ranks",
    "dictionary_codes",
    "hash_arrow",
    "hash_series",
    "in_row_order",
    "is_composite",
    "key_words",
    "labelled_codes",
    "object_ranks",
    "polars_floats",
    "polars_integers",
    "polars_numpy",
    "ranks_at",
    "short_keys",
    "table_codes",
    "take_rows",
    "tuples_with_nulls",
    "without_half_floats",
]
