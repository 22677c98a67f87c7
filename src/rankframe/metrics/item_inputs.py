"""The user's inputs of the beyond-accuracy metrics (``catalog``, ``popularity``,
``item_features``, ``item_groups``), read once per call and looked up by item code.

What kind of object an option is (a pandas Series or DataFrame, a polars DataFrame, a
dict) is the adapters' knowledge: :class:`MappingReader` is what this module asks of them,
and ``rankframe.adapters`` gives its reader (:func:`use_reader`) as soon as this module is
imported, as the accessor gives its methods to the registry (``registry.on_register``). The
reader only takes the ids and the values out of the object (its keys and values as a pandas
Index and NumPy or pandas arrays; awrf's ``target`` as a pandas Series); every check of what
they hold (null groups, ids listed twice, numbers, negative counts) and every lookup is
here, the same for every kind.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from rankframe.engine import THREAD_ROWS, ShortIds
from rankframe.exceptions import InvalidOptionError, Keyword, excerpt, plain
from rankframe.metrics.item_codes import SHOWN, TopK

if TYPE_CHECKING:
    # pandas and pyarrow are imported where used: `rankframe trec` runs without them
    import pandas as pd

    from rankframe.metrics.registry import Metric
    from rankframe.settings.options import Options

__all__ = [
    "Inputs",
    "MappingReader",
    "group_names",
    "read_item_groups",
    "read_target",
    "use_reader",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_COUNT_IN_THREAD = THREAD_ROWS  # from this many entries or rows, finish-step work in a thread


class MappingReader(Protocol):
    """What the adapters read out of an option that maps items to values (``popularity``,
    ``item_features``, ``item_groups``) or lists items (``catalog``), whatever its kind:
    the item ids (a pandas Index, or a sequence) and the values, unchecked."""

    def item_groups(self, value: Any) -> tuple[Any, Any]:
        """The item ids and their groups (a NumPy or pandas array)."""
        ...

    def popularity(self, value: Any) -> tuple[Any, Any]:
        """The item ids and their counts (an array, not yet checked to hold numbers)."""
        ...

    def item_features(self, value: Any) -> tuple[Any, Any]:
        """The item ids and their features (a 2-D array, a row per id)."""
        ...

    def catalog(self, value: Any) -> Any:
        """The catalog's item ids as a collection pandas reads (a list, set, array, Index)."""
        ...

    def target(self, value: Any) -> pd.Series:
        """awrf's ``target`` option (group -> share) as a pandas Series, unchecked."""
        ...


_READER: list[MappingReader] = []


def use_reader(reader: MappingReader) -> None:
    """Read the options' mappings with ``reader`` (``rankframe.adapters`` gives its own once
    this module is imported; a new frame kind's objects are read there)."""
    _READER[:] = [reader]


def read_target(target: Any) -> pd.Series:
    """awrf's ``target`` option (group -> share) as a pandas Series, unchecked."""
    return _reader().target(target)


def _reader() -> MappingReader:
    if not _READER:  # rankframe.adapters gives it on import: a caller bypassed the package
        msg = "No reader of option mappings: import rankframe first."
        raise RuntimeError(msg)
    return _READER[0]


@dataclass
class Inputs:
    """The options' inputs, read once: the catalog's size, each listed item's popularity
    and unit feature vector (by item code); what the metrics of a call share is built once
    (:meth:`cached`)."""

    top: TopK
    options: Options
    _cache: dict[Any, Any] = field(default_factory=dict)

    def of(self, metric: Metric) -> Inputs:
        """The inputs with ``metric``'s own options (``top1_f1(class_average=macro)``);
        the same cache (the inputs are the call's)."""
        options = metric.options_in(self.options)
        return self if options is self.options else replace(self, options=options)

    def cached(self, key: tuple[object, ...], build: Callable[[], Any]) -> Any:
        """``build()``, once per ``key`` for the call (the metrics of one call share it:
        the exposure shares of every group)."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def _used(self) -> IntArray:
        """The codes of the listed items (every code but the relevant-only ones)."""
        codes: IntArray = self._used_and_labels()[0]
        return codes

    def _used_labels(self) -> list[object]:
        labels: list[object] = self._used_and_labels()[1]
        return labels

    def _used_and_labels(self) -> tuple[IntArray, list[object]]:
        def build() -> tuple[IntArray, list[object]]:
            used = np.flatnonzero(np.bincount(self.top.item, minlength=self.top.n_codes))
            return used, self.top.labels(used)

        value: tuple[IntArray, list[object]] = self.cached(("used",), build)
        return value

    def catalog_size(self) -> int:
        """n: the items of the catalog (checked to hold every listed item)."""
        return int(self.cached(("catalog",), self._catalog_size))

    def _catalog_size(self) -> int:
        catalog = self.options.catalog
        if catalog is None:
            return self.top.n_frame_items
        keys = _index(catalog, "catalog")
        used = self._used()
        missing = used[_positions(keys, self._used_labels()) < 0]
        if len(missing):
            msg = (
                f"{len(missing)} item(s) of the top-k lists are not in the catalog: "
                f"{self.top.named(missing)}. The catalog must hold every "
                "recommended item; add them, or pass catalog=None for the items of "
                "the frame."
            )
            raise InvalidOptionError(msg)
        return len(keys)

    def _lookup(self, option: str, keys: Any) -> tuple[IntArray, IntArray]:
        """The listed items' codes and their positions in ``keys``; raises for missing
        ones."""
        used = self._used()
        positions = _positions(keys, self._used_labels(), option)
        missing = used[positions < 0]
        if len(missing):
            msg = (
                f"{len(missing)} item(s) of the top-k lists have no {option}: "
                f"{self.top.named(missing)}. Give every recommended item a value in "
                f"{option}= (rankframe never assumes 0 for a missing item)."
            )
            raise InvalidOptionError(msg)
        return used, positions

    def popularity(self) -> tuple[FloatArray, float]:
        """Per item code, its popularity (NaN for codes not listed), and the total over
        every item of ``popularity``."""

        def build() -> tuple[FloatArray, float]:
            keys, counts = _popularity(self.options.popularity)
            used, positions = self._lookup("popularity", keys)
            per_code = np.full(self.top.n_codes, np.nan)
            per_code[used] = counts[positions]
            return per_code, float(counts.sum())

        value: tuple[FloatArray, float] = self.cached(("popularity",), build)
        return value

    def features(self) -> tuple[IntArray, FloatArray]:
        """The listed items' codes and their unit feature vectors (a row per code; a zero
        vector stays zero)."""

        def build() -> tuple[IntArray, FloatArray]:
            keys, matrix = _features(self.options.item_features)
            used, positions = self._lookup("item_features", keys)
            vectors = matrix[positions]
            norm = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))
            np.divide(vectors, norm[:, None], out=vectors, where=norm[:, None] > 0)
            return used, vectors

        value: tuple[IntArray, FloatArray] = self.cached(("features",), build)
        return value

    def groups(self) -> tuple[IntArray, list[object]]:
        """Per item code, the position of its group in :func:`group_names` (-1 for the
        codes no entry holds), and those groups; an item ``item_groups`` does not list is
        in ``unknown_group``, or an error when that is None."""
        value: tuple[IntArray, list[object]] = self.cached(("groups",), self._groups)
        return value

    def whole_counts(self) -> tuple[IntArray, IntArray]:
        """Per list and group, the retrieved items of the whole list, and per list its
        length (:meth:`TopK.whole_counts`, ``ndkl``'s default target), with the groups of
        :meth:`groups`: on a large frame counted in a second thread as soon as the groups
        are known, while the other metrics of the call run."""
        per_code, names = self.groups()
        found = self._cache.get(("whole_counts",))
        if found is None:
            found = self.top.whole_counts(per_code, len(names))
            self._cache[("whole_counts",)] = found
        elif isinstance(found, Future):
            found = found.result()
            self._cache[("whole_counts",)] = found
        counts: tuple[IntArray, IntArray] = found
        return counts

    def _groups(self) -> tuple[IntArray, list[object]]:
        keys, codes, values = read_item_groups(self.options.item_groups)
        names = _sorted_groups(values, self.options.unknown_group)
        top = self.top
        held = np.zeros(
            max(
                top.n_codes,
                int(top.item.max(initial=-1)) + 1,
                int(top.truth_item.max(initial=-1)) + 1,
            ),
            dtype=bool,
        )
        held[top.item] = True
        held[top.truth_item] = True
        used = np.flatnonzero(held)
        labels = top.labels(used)
        if top.whole is not None:  # the items of the whole lists beyond the top k
            beyond = np.setdiff1d(top.whole.items(), used, assume_unique=True)
            used, labels = np.concatenate([used, beyond]), labels + top.whole.labels(beyond)
        positions = _positions(keys, labels, "item_groups")
        unknown = self.options.unknown_group
        if (positions < 0).any() and unknown is None:
            missing = np.flatnonzero(positions < 0)
            shown = ", ".join(excerpt(plain(labels[i])) for i in missing[:SHOWN])
            more = ", ..." if len(missing) > SHOWN else ""
            # the keyword as a part: the command line says it as its flag
            parts = (
                f"{len(missing)} item(s) of the top-k lists or of the relevant rows have "
                f"no group in item_groups: {shown}{more}. Give every item a group, "
                "or pass ",
                Keyword("unknown_group", "other"),
                " to put the unlisted items in a group of their own.",
            )
            raise InvalidOptionError(parts)
        index = {_group_key(g): i for i, g in enumerate(names)}
        of_unique = np.array([index[_group_key(g)] for g in values], dtype=np.int64)
        of_value = of_unique[codes] if len(codes) else codes
        size = max(top.n_codes, int(used.max()) + 1 if len(used) else 0)
        per_code = np.full(size, -1, dtype=np.int64)
        per_code[used] = np.where(
            positions >= 0,
            of_value[np.maximum(positions, 0)] if len(of_value) else -1,
            index.get(_group_key(unknown), -1),
        )
        whole = top.whole
        if (
            whole is not None
            and len(whole.codes) >= _COUNT_IN_THREAD
            and self.options.target is None
        ):
            # ndkl's default target, one pass over every row: started now, beside the rest
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankframe")
            self._cache[("whole_counts",)] = pool.submit(top.whole_counts, per_code, len(names))
            pool.shutdown(wait=False)  # the thread ends with its one task
        return per_code, names


def _group_key(group: object) -> tuple[str, object]:
    return (type(group).__name__, group)


def read_item_groups(item_groups: Any) -> tuple[Any, IntArray, list[object]]:
    """Keys (a pandas Index of item ids), per key the position of its group among the
    distinct groups, and those groups (Python objects) of the ``item_groups`` option;
    raises for a null group or an item listed twice."""
    import pandas as pd

    keys, values = _reader().item_groups(item_groups)
    null = (
        (
            pd.isna(values)
            if isinstance(values, pd.api.extensions.ExtensionArray)
            else pd.isna(pd.Series(values, dtype=object)).to_numpy()
        )
        if len(values)
        else values
    )
    if len(values) and null.any():
        msg = (
            f"The 'item_groups' option gives item {excerpt(plain(keys[np.argmax(null)]))} a "
            "null group; every item of item_groups needs a group (drop the item, or pass "
            "unknown_group= to name the group of unlisted items)."
        )
        raise InvalidOptionError(msg)
    keys = pd.Index(keys)
    _unique_keys(keys, "item_groups")
    codes, groups = _distinct(values)
    return keys, codes, groups


def _distinct(values: Any) -> tuple[IntArray, list[object]]:
    """Per value the position of its group among the distinct ones, and those (Python
    objects: a NumPy scalar as its Python value). Values of one type are hashed at once;
    mixed types (1 and 1.0 and True are different groups) one by one."""
    import pandas as pd

    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), []
    if pd.api.types.infer_dtype(values, skipna=False).startswith("mixed"):
        found: dict[tuple[str, object], int] = {}
        plain_values = [v.item() if isinstance(v, np.generic) else v for v in values]
        codes = np.array(
            [found.setdefault(_group_key(v), len(found)) for v in plain_values], dtype=np.int64
        )
        return codes, [key[1] for key in found]
    stored: Any = (
        values if isinstance(values, pd.api.extensions.ExtensionArray) else np.asarray(values)
    )
    codes, uniques = pd.factorize(stored, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), [
        u.item() if isinstance(u, np.generic) else u for u in np.asarray(uniques, dtype=object)
    ]


def group_names(options: Options) -> list[object]:
    """The groups of the ``item_groups`` option (plus ``unknown_group``), sorted (by type
    name, then value), as Python objects. Only the groups are read: the checks of the
    mapping are :func:`read_item_groups`' (when the metrics read it)."""
    values = _reader().item_groups(options.item_groups)[1]
    return _sorted_groups(_distinct(values)[1], options.unknown_group)


def _sorted_groups(groups: list[object], unknown: object) -> list[object]:
    found = {_group_key(v): v for v in groups}
    if unknown is not None:
        found.setdefault(_group_key(unknown), unknown)
    return [found[key] for key in sorted(found)]


def _positions(keys: Any, labels: list[object], option: str = "catalog") -> IntArray:
    """The position of each id of ``labels`` in ``keys`` (-1 where it is missing); raises
    for ids that ``keys`` lists more than once. Short string ids (the usual kind) by a
    search among their 64-bit keys (:class:`~rankframe.engine.ShortIds`), others by the
    index's hash table."""
    import pandas as pd
    import pyarrow as pa

    if not labels:
        return np.zeros(0, dtype=np.int64)
    ids = _short_ids(keys)
    if ids is not None and ids.unique() and set(map(type, labels)) == {str}:
        found = ids.positions(pa.array(labels, type=pa.string()))
        if found is not None:
            return found
    wanted = pd.Index(np.asarray(labels, dtype=object) if _mixed(labels) else labels)
    try:
        return np.asarray(keys.get_indexer(wanted), dtype=np.int64)
    except pd.errors.InvalidIndexError:  # only a unique index looks ids up
        _unique_keys(keys, option)
        raise


def _mixed(labels: list[object]) -> bool:
    return len({type(v) for v in labels[:1000]}) > 1


def _index(values: Any, option: str) -> Any:
    """A pandas Index of the ids, each once; raises for null ids."""
    import pandas as pd

    values = _reader().catalog(values)
    index = pd.Index(list(values) if isinstance(values, set | frozenset) else values)
    if index.hasnans:
        msg = f"The '{option}' option holds a null item id; drop it first."
        raise InvalidOptionError(msg)
    return index.unique()


def _short_ids(index: Any) -> ShortIds | None:
    """The ids of a pandas Index of strings, when every one is short (:class:`ShortIds`)."""
    import pandas as pd
    import pyarrow as pa

    if not isinstance(index.dtype, pd.StringDtype):
        return None
    return ShortIds.of(pa.array(index))


def _unique_keys(index: Any, option: str) -> None:
    ids = _short_ids(index)
    if not (index.is_unique if ids is None else ids.unique()):
        repeated = index[index.duplicated()][0]
        msg = (
            f"The '{option}' option lists item {excerpt(plain(repeated))} more than once; "
            "give each item one value."
        )
        raise InvalidOptionError(msg)


def _numbers(values: Any, option: str, what: str) -> FloatArray:
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"The '{option}' option must hold numbers ({what}); got non-numeric values."
        raise InvalidOptionError(msg) from None
    if not np.isfinite(out).all():
        msg = f"The '{option}' option holds a null, NaN or infinite value; {what} are finite."
        raise InvalidOptionError(msg)
    return out


def _popularity(popularity: Any) -> tuple[Any, FloatArray]:
    """Keys (a pandas Index) and counts of the ``popularity`` option."""
    import pandas as pd

    keys, values = _reader().popularity(popularity)
    counts = _numbers(values, "popularity", "interaction counts")
    if (counts < 0).any():
        msg = "The 'popularity' option holds a negative count; counts are >= 0."
        raise InvalidOptionError(msg)
    return pd.Index(keys), counts


def _features(features: Any) -> tuple[Any, FloatArray]:
    """Keys (a pandas Index) and the matrix of the ``item_features`` option."""
    import pandas as pd

    keys, values = _reader().item_features(features)
    if values.ndim != 2 or values.shape[1] == 0:
        msg = "The 'item_features' option has no feature column."
        raise InvalidOptionError(msg)
    return pd.Index(keys), np.array(_numbers(values, "item_features", "features"), order="C")
