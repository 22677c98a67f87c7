"""The public API of the accessor, written once for every frame kind.

:class:`RankEval` holds the column names and implements every public method on top of the
engine. An adapter (``rankframe.adapters.*``) subclasses it with three hooks: how to turn its
frame into :class:`~rankframe._engine.FrameData` (validating it), how to build its kind of
output frame from engine arrays, and how to deliver the result (a float, a Series, a frame, or
a lazy plan).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from rankframe import _engine, _metrics  # noqa: F401  (_metrics fills the registry)
from rankframe._options import Denominator, Empty, Gain, Options, Ties
from rankframe._registry import Metric, parse_metric, parse_metrics
from rankframe.exceptions import ColumnNotFoundError, InvalidOptionError
from rankframe.schemas import missing_column_message

__all__ = ["Backend", "ColumnNames", "RankEval"]

Kind = Literal["scalar", "segments", "table"]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ColumnNames:
    """The names of the four input columns."""

    query: str = "query"
    item: str = "item"
    score: str = "score"
    relevant: str = "relevant"

    def roles(self) -> dict[str, str]:
        """Column name → role."""
        return {
            self.query: "query",
            self.item: "item",
            self.score: "score",
            self.relevant: "relevant",
        }


class Backend(Protocol):
    """What an adapter provides for one eager frame."""

    def extract(self, names: ColumnNames, by: Sequence[str]) -> _engine.FrameData:
        """Validate the frame and hand its columns to the engine."""
        ...

    def table(
        self, keys: Sequence[str], rows: IntArray | None, values: dict[str, npt.NDArray[Any]]
    ) -> Any:
        """A native frame: the ``keys`` columns taken at ``rows``, then ``values``."""
        ...

    def with_rank(self, rank: IntArray, name: str) -> Any:
        """The input frame plus an integer column ``name`` (0 in ``rank`` becomes null)."""
        ...


def _as_list(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(dict.fromkeys(by))  # a repeated column counts once


class RankEval:
    """Ranking metrics of a long-format frame: one row per (query, item).

    Reached as ``df.rank_eval``; call it to use other column names:
    ``df.rank_eval(query="user_id", item="movie_id", score="pred", relevant="clicked")``.

    Every metric method takes ``k`` (a positive integer or ``None`` for the whole list) and the
    keyword-only options ``by``, ``min_relevance``, ``empty`` and ``ties``; ``ndcg`` also takes
    ``gain``, ``map`` and ``recall`` take ``denominator``. See ``docs/conventions.md``.
    """

    def __init__(self, frame: Any, names: ColumnNames | None = None) -> None:
        self._frame = frame
        self._names = names or ColumnNames()

    # -- adapter hooks -------------------------------------------------------------------

    def _backend(self, frame: Any) -> Backend:
        raise NotImplementedError

    def _column_names(self) -> list[str]:
        raise NotImplementedError

    def _deliver(
        self,
        produce: Callable[[Backend], Any],
        kind: Kind,
        keys: Sequence[str],
        value_columns: Sequence[tuple[str, str]],
    ) -> Any:
        """Run ``produce`` on the frame's backend and shape the result for the user.

        ``value_columns`` lists (name, "float" | "int") of the produced frame beyond ``keys``;
        lazy adapters use it to declare the output schema.
        """
        raise NotImplementedError

    # -- binding column names ------------------------------------------------------------

    def __call__(
        self,
        *,
        query: str | None = None,
        item: str | None = None,
        score: str | None = None,
        relevant: str | None = None,
    ) -> RankEval:
        """The accessor bound to other column names."""
        names = ColumnNames(
            query=query or self._names.query,
            item=item or self._names.item,
            score=score or self._names.score,
            relevant=relevant or self._names.relevant,
        )
        return type(self)(self._frame, names)

    def __repr__(self) -> str:
        n = self._names
        return (
            f"<rank_eval query={n.query!r} item={n.item!r} score={n.score!r} "
            f"relevant={n.relevant!r}>"
        )

    def _check_columns(self, by: Sequence[str]) -> None:
        available = self._column_names()
        wanted = [(name, role) for name, role in self._names.roles().items()]
        wanted += [(b, "by") for b in by]
        if len(self._names.roles()) < 4:
            msg = (
                f"The query, item, score and relevant columns must be four different columns; "
                f"got {self._names}."
            )
            raise InvalidOptionError(msg)
        for name, role in wanted:
            if name not in available:
                raise ColumnNotFoundError(missing_column_message(name, role, available))
            if role == "by" and name in self._names.roles():
                msg = (
                    f"by={name!r} is the {self._names.roles()[name]} column; group by a column "
                    "that describes the query (a user segment, a theme)."
                )
                raise InvalidOptionError(msg)

    # -- the one computation -------------------------------------------------------------

    def _run(
        self,
        metrics: list[Metric],
        by: list[str],
        options: Options,
        *,
        per_query: bool,
    ) -> Callable[[Backend], Any]:
        names = self._names

        def produce(backend: Backend) -> Any:
            data = backend.extract(names, by)
            with _engine.unique_items_checked(data, names.query, names.item):
                # a row of each query, for the output's query and `by` columns
                first_rows = data.first_rows() if per_query or by else None
                segment, segment_rows, n_segments = _engine.segment_of_queries(data, first_rows)
                table = _engine.lists(data, _engine.rank(data, options.ties), options)
                values = [m.definition.compute(table, m.k, options) for m in metrics]
            include = _engine.included_queries(data, table, options)
            columns = [str(m) for m in metrics]
            if per_query:
                keep = include if options.empty == "skip" else np.ones_like(include)
                out = {
                    c: np.where(include, v, np.nan)[keep]
                    for c, v in zip(columns, values, strict=True)
                }
                assert first_rows is not None  # computed above for per_query
                return backend.table([names.query, *by], first_rows[keep], out)
            means, counts = _engine.aggregate(values, include, segment, n_segments)
            out = dict(zip(columns, means, strict=True))
            if not by:
                return backend.table([], None, {**out, "n_queries": counts})
            return backend.table(by, segment_rows, {**out, "n_queries": counts})

        return produce

    def _metric(self, name: str, k: int | None, by: str | Sequence[str] | None,
                options: Options) -> Any:
        metric = parse_metric(name, k)
        by_list = _as_list(by)
        self._check_columns(by_list)
        produce = self._run([metric], by_list, options, per_query=False)
        kind: Kind = "segments" if by_list else "scalar"
        return self._deliver(produce, kind, by_list, [(str(metric), "float"), ("n_queries", "int")])

    # -- metrics -------------------------------------------------------------------------

    def mrr(
        self,
        k: int | None = None,
        *,
        by: str | Sequence[str] | None = None,
        min_relevance: float | None = None,
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        r"""Mean reciprocal rank: the mean over queries of 1 / rank of the first relevant item.

        Per query, :math:`RR@k = 1 / \min\{i \le k : rel(i)\}`, or 0 when no relevant item is
        ranked at or above k. trec_eval: ``recip_rank`` (no cut-off).

        Parameters
        ----------
        k
            Cut-off; ``None`` looks at the whole list.
        by
            Column(s) constant within each query; gives one value per segment.
        min_relevance
            Lowest grade that counts as relevant (trec_eval ``-l``); ``None``: grade > 0.
        empty
            Queries without relevant items: ``"zero"``, ``"skip"``, ``"nan"`` or ``"error"``.
        ties
            Order among equal scores: ``"trec"``, ``"first"``, ``"optimistic"``,
            ``"pessimistic"``.

        Returns
        -------
        float, or per segment a pandas Series / polars DataFrame; a LazyFrame for LazyFrames.

        Examples
        --------
        The first relevant item of q1 is at rank 2. In q2 all three scores tie; ties go to
        the higher item id (as trec_eval), which puts q2's relevant item 'a' third:

        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({
        ...     "query": ["q1", "q1", "q1", "q2", "q2", "q2"],
        ...     "item": ["a", "b", "c", "a", "b", "c"],
        ...     "score": [0.9, 0.8, 0.1, 0.5, 0.5, 0.5],
        ...     "relevant": [0, 1, 1, 1, 0, 0]})
        >>> df.rank_eval.mrr()
        0.41666...
        >>> df.rank_eval.mrr(ties="optimistic")
        0.75
        """
        options = Options(min_relevance=min_relevance, empty=empty, ties=ties)
        return self._metric("mrr", k, by, options)

    def ndcg(
        self,
        k: int | None = None,
        *,
        by: str | Sequence[str] | None = None,
        gain: Gain = "linear",
        min_relevance: float | None = None,
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        r"""Normalised discounted cumulative gain at k.

        :math:`DCG@k = \sum_{i \le k} gain(rel(i)) / \log_2(i + 1)`, divided by the same sum
        over the ideal ordering of every judged item of the query (retrieved or not);
        0 when that ideal is 0. ``gain="linear"``: the grade; ``"exponential"``:
        :math:`2^{rel} - 1`. Negative grades give no gain. trec_eval: ``ndcg``,
        ``ndcg_cut_k``.

        Examples
        --------
        Relevant items at ranks 1 and 3 of four (the NDCG-vs-AP table of the MRR article):

        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": 1, "item": [1, 2, 3, 4], "score": [4, 3, 2, 1],
        ...                    "relevant": [1, 0, 1, 0]})
        >>> round(df.rank_eval.ndcg(), 6)
        0.919721
        """
        options = Options(min_relevance=min_relevance, gain=gain, empty=empty, ties=ties)
        return self._metric("ndcg", k, by, options)

    def map(
        self,
        k: int | None = None,
        *,
        by: str | Sequence[str] | None = None,
        denominator: Denominator = "relevant",
        min_relevance: float | None = None,
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        r"""Mean average precision at k.

        Per query :math:`AP@k = \frac{1}{R} \sum_{i \le k,\ i\ relevant} hits@i / i`, with R the
        number of relevant items of the query, retrieved or not (``denominator="min_k"``:
        :math:`\min(R, k)`). trec_eval: ``map``, ``map_cut_k``.

        Examples
        --------
        One relevant item retrieved at rank 1, another never retrieved (null score):

        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c"],
        ...                    "score": [2.0, 1.0, None], "relevant": [1, 0, 1]})
        >>> df.rank_eval.map()
        0.5
        """
        options = Options(
            min_relevance=min_relevance, denominator=denominator, empty=empty, ties=ties
        )
        return self._metric("map", k, by, options)

    def acc(
        self,
        k: int | None = None,
        *,
        by: str | Sequence[str] | None = None,
        min_relevance: float | None = None,
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        r"""Accuracy@k (hit rate, success@k): share of queries with a relevant item in the top k.

        trec_eval: ``success_k``.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["x", "y", "x", "y"],
        ...                    "score": [0.9, 0.1, 0.9, 0.1], "relevant": [0, 1, 1, 0]})
        >>> df.rank_eval.acc(k=1), df.rank_eval.acc(k=2)
        (0.5, 1.0)
        """
        options = Options(min_relevance=min_relevance, empty=empty, ties=ties)
        return self._metric("acc", k, by, options)

    def precision(
        self,
        k: int | None = None,
        *,
        by: str | Sequence[str] | None = None,
        min_relevance: float | None = None,
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        r"""Precision at k: hits@k / k (k=None: / the number of retrieved items).

        A list shorter than k counts the missing places as non-relevant (trec_eval ``P_k``).

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": "q", "item": ["a", "b"], "score": [2, 1],
        ...                    "relevant": [1, 1]})
        >>> df.rank_eval.precision(k=4)
        0.5
        """
        options = Options(min_relevance=min_relevance, empty=empty, ties=ties)
        return self._metric("precision", k, by, options)

    def recall(
        self,
        k: int | None = None,
        *,
        by: str | Sequence[str] | None = None,
        denominator: Denominator = "relevant",
        min_relevance: float | None = None,
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        r"""Recall at k: hits@k / R (``denominator="min_k"``: / min(R, k)). trec_eval ``recall_k``.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c"], "score": [3, 2, 1],
        ...                    "relevant": [1, 1, 1]})
        >>> df.rank_eval.recall(k=2), df.rank_eval.recall(k=2, denominator="min_k")
        (0.666..., 1.0)
        """
        options = Options(
            min_relevance=min_relevance, denominator=denominator, empty=empty, ties=ties
        )
        return self._metric("recall", k, by, options)

    def r_precision(
        self,
        *,
        by: str | Sequence[str] | None = None,
        min_relevance: float | None = None,
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        r"""R-precision: hits@R / R, precision at the query's number of relevant items.

        trec_eval: ``Rprec``.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c", "d"],
        ...                    "score": [4, 3, 2, None], "relevant": [1, 0, 1, 1]})
        >>> round(df.rank_eval.r_precision(), 4)
        0.6667
        """
        options = Options(min_relevance=min_relevance, empty=empty, ties=ties)
        return self._metric("r_precision", None, by, options)

    # -- tables --------------------------------------------------------------------------

    def _table(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        by: str | Sequence[str] | None,
        options: Options,
        *,
        per_query: bool,
    ) -> Any:
        parsed = parse_metrics(metrics)
        by_list = _as_list(by)
        self._check_columns(by_list)
        produce = self._run(parsed, by_list, options, per_query=per_query)
        floats = [(str(m), "float") for m in parsed]
        if per_query:
            return self._deliver(produce, "table", [self._names.query, *by_list], floats)
        return self._deliver(produce, "table", by_list, [*floats, ("n_queries", "int")])

    def per_query(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        by: str | Sequence[str] | None = None,
        min_relevance: float | None = None,
        gain: Gain = "linear",
        denominator: Denominator = "relevant",
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        """One row per query, sorted by query: the query (and ``by``) columns, one per metric.

        With ``empty="nan"`` queries without relevant items get NaN; with ``"skip"`` they are
        left out of the table.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": ["b", "b", "a", "a"], "item": [1, 2, 1, 2],
        ...                    "score": [0.2, 0.7, 0.9, 0.3], "relevant": [1, 0, 0, 0]})
        >>> df.rank_eval.per_query(["mrr", "P_1"], empty="nan")
          query  mrr  precision@1
        0     a  NaN          NaN
        1     b  0.5          0.0
        """
        options = Options(min_relevance, gain, denominator, empty, ties)
        return self._table(metrics, by, options, per_query=True)

    def evaluate(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        by: str | Sequence[str] | None = None,
        min_relevance: float | None = None,
        gain: Gain = "linear",
        denominator: Denominator = "relevant",
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        """Means over queries: one row per segment (one row if ``by=None``).

        Columns: the ``by`` columns, one per metric (canonical spelling such as ``mrr@5``),
        and ``n_queries``, the number of queries in each mean.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["x", "y", "x", "y"],
        ...                    "score": [0.9, 0.1, 0.9, 0.1], "relevant": [0, 1, 1, 0]})
        >>> df.rank_eval.evaluate(["recip_rank", "success_1"])
           mrr  acc@1  n_queries
        0  0.75    0.5          2
        """
        options = Options(min_relevance, gain, denominator, empty, ties)
        return self._table(metrics, by, options, per_query=False)

    def rank(self, *, ties: Ties = "trec", name: str = "rank") -> Any:
        """The input frame plus an integer column ``name``: each row's rank in its query.

        Rank 1 is the highest score; rows without a score get a null rank. The input frame
        is not modified.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c"],
        ...                    "score": [0.5, 0.5, None], "relevant": [1, 0, 1]})
        >>> df.rank_eval.rank()["rank"].tolist()
        [2, 1, <NA>]
        """
        options = Options(ties=ties)
        self._check_columns([])
        if name in self._column_names():
            msg = f"The frame already has a column {name!r}; pass name='...' for the rank column."
            raise InvalidOptionError(msg)
        names = self._names

        def produce(backend: Backend) -> Any:
            data = backend.extract(names, [])
            with _engine.unique_items_checked(data, names.query, names.item):
                ranking = _engine.rank(data, options.ties)
            return backend.with_rank(ranking.rank_per_row(data.n_rows), name)

        return self._deliver(produce, "table", ["*"], [(name, "int")])
