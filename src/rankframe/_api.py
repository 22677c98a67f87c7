"""The public API of the accessor, written once for every frame kind.

:class:`RankEval` holds the column names, checks the arguments, and turns each method call
into a :class:`~rankframe._pipeline.Request` that :meth:`RankEval._run` runs. An adapter
(``rankframe.adapters.*``) subclasses it: ``_backend`` (its frame as the engine sees it),
``_convert`` (the finish step's native frame as the user's result), and, for frames that
are split into parts of whole queries (LazyFrames, Dask), ``_run`` and ``_rank``, which map
the same per-query step over the parts and finish once (``docs/architecture.md``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from rankframe import _engine, _metrics, _pipeline  # noqa: F401  (_metrics fills the registry)
from rankframe._analysis import SYSTEM, Correction, Test
from rankframe._options import Denominator, Empty, Gain, Options, Ties, check_choice
from rankframe._pipeline import (
    Backend,
    ColumnNames,
    Comparison,
    Means,
    PerQueryRows,
    Request,
)
from rankframe._registry import Metric, parse_metric, parse_metrics
from rankframe.exceptions import ColumnNotFoundError, InvalidOptionError
from rankframe.schemas import missing_column_message

__all__ = ["SYSTEM", "Backend", "ColumnNames", "RankEval"]

IntArray = npt.NDArray[np.int64]


def _as_list(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(dict.fromkeys(by))  # a repeated column counts once


def _score_columns(score: str | Sequence[str]) -> tuple[str, tuple[str, ...] | None]:
    """The first score column, and every one of them when a list was given."""
    if isinstance(score, str):
        return score, None
    columns = list(score) if isinstance(score, Iterable) else [score]
    if not columns or not all(isinstance(c, str) for c in columns):
        msg = (
            "score= takes a column name or a list of column names (one per system), e.g. "
            f"score=['model_a', 'model_b']. Got {score!r} instead."
        )
        raise InvalidOptionError(msg)
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        msg = f"score= lists {repeated[0]!r} more than once; list each score column once."
        raise InvalidOptionError(msg)
    return columns[0], tuple(columns)


def _check_level(option: str, value: object) -> None:
    """A probability strictly between 0 and 1 (a confidence level, a significance level)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        msg = f"The '{option}' option must be a number between 0 and 1, e.g. 0.95. Got {value!r}."
        raise InvalidOptionError(msg)


def _check_resampling(n_resamples: object, seed: object, option: str = "n_resamples") -> None:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        msg = (
            f"The '{option}' option must be a positive integer, e.g. 1000. "
            f"Got {n_resamples!r} instead."
        )
        raise InvalidOptionError(msg)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        msg = f"The 'seed' option must be an integer or None. Got {seed!r} instead."
        raise InvalidOptionError(msg)


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

    def _backend(self, frame: Any) -> Backend:  # noqa: ARG002  (adapters use it)
        """The engine's view of one eager frame of this adapter's kind."""
        msg = (
            f"{type(self).__name__} is the base class of the accessors; reach it through a "
            "frame: df.rank_eval.mrr() (after import rankframe)."
        )
        raise TypeError(msg)

    def _column_names(self) -> list[str]:
        return list(self._frame.columns)

    def _convert(self, table: Any, request: Request) -> Any:  # noqa: ARG002
        """The user's result from the finish step's native frame: the frame itself, or a
        float (``"scalar"``) / a value per segment (``"segments"``)."""
        return table

    def _run(self, request: Request) -> Any:
        """Run ``request`` on the frame (one eager frame; partitioned adapters override)."""
        return self._convert(_pipeline.run(self._backend(self._frame), request), request)

    def _rank(self, columns: list[str], ties: Ties) -> Any:
        """The frame plus a rank column per system (partitioned adapters override)."""
        backend = self._backend(self._frame)
        return backend.with_ranks(ranks(backend, self._names, columns, ties))

    # -- binding column names ------------------------------------------------------------

    def __call__(
        self,
        *,
        query: str | None = None,
        item: str | None = None,
        score: str | Sequence[str] | None = None,
        relevant: str | None = None,
    ) -> RankEval:
        """The accessor bound to other column names.

        ``score`` may list several score columns: every method then evaluates each of them
        against the same ``relevant`` column in one pass, and its output gains a ``system``
        column naming the score column (``mrr()`` and the other metric methods give one
        value per system).
        """
        first, systems = self._names.score, self._names.systems
        if score is not None:
            first, systems = _score_columns(score)
        names = ColumnNames(
            query=query or self._names.query,
            item=item or self._names.item,
            score=first,
            relevant=relevant or self._names.relevant,
            systems=systems,
        )
        return type(self)(self._frame, names)

    def __repr__(self) -> str:
        n = self._names
        score = n.score if n.systems is None else list(n.systems)
        return (
            f"<rank_eval query={n.query!r} item={n.item!r} score={score!r} "
            f"relevant={n.relevant!r}>"
        )

    @property
    def _multi(self) -> bool:
        """Several score columns: outputs gain a ``system`` column."""
        return self._names.systems is not None

    def _check_columns(self, by: Sequence[str]) -> None:
        available = self._column_names()
        roles = self._names.roles()
        wanted = [*roles.items(), *((b, "by") for b in by)]
        if len(roles) < 3 + len(self._names.scores):
            n = self._names
            score = n.score if n.systems is None else list(n.systems)
            msg = (
                "The query, item, score and relevant columns must be four different columns "
                f"(and every score column different); got query={n.query!r}, item={n.item!r}, "
                f"score={score!r}, relevant={n.relevant!r}."
            )
            raise InvalidOptionError(msg)
        for name, role in wanted:
            if name not in available:
                raise ColumnNotFoundError(missing_column_message(name, role, available))
            if role == "by" and name in roles:
                msg = (
                    f"by={name!r} is the {roles[name]} column; group by a column "
                    "that describes the query (a user segment, a theme)."
                )
                raise InvalidOptionError(msg)
        if self._multi and SYSTEM in [self._names.query, *by]:
            msg = (
                f"Column {SYSTEM!r} clashes with the output column {SYSTEM!r} that names each "
                "score column; rename it first, e.g. df.rename(columns={'system': 'cohort'})."
            )
            raise InvalidOptionError(msg)

    # -- the one data path (rankframe._pipeline) --------------------------------------------

    def _request(self, metrics: list[Metric], by: list[str], options: Options,
                 result: _pipeline.Result) -> Request:
        return Request(self._names, tuple(metrics), tuple(by), options, result)

    def _metric(self, name: str, k: int | None, by: str | Sequence[str] | None,
                options: Options) -> Any:
        metric = parse_metric(name, k)
        by_list = _as_list(by)
        self._check_columns(by_list)
        kind: _pipeline.Kind = "segments" if by_list or self._multi else "scalar"
        return self._run(self._request([metric], by_list, options, Means(kind=kind)))

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

        Per query, ``RR@k = 1 / min{i ≤ k : rel(i)}``, or 0 when no relevant item is
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

        ``DCG@k = Σ_{i ≤ k} gain(rel(i)) / log2(i + 1)``, divided by the same sum
        over the ideal ordering of every judged item of the query (retrieved or not);
        0 when that ideal is 0. ``gain="linear"``: the grade; ``"exponential"``:
        ``2**rel - 1``. Negative grades give no gain. trec_eval: ``ndcg``,
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

        Per query ``AP@k = (1/R) Σ_{i ≤ k, i relevant} hits@i / i``, with R the
        number of relevant items of the query, retrieved or not (``denominator="min_k"``:
        ``min(R, k)``). trec_eval: ``map``, ``map_cut_k``.

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

        With several score columns, one row per (query, system):

        >>> df["other"] = [0.9, 0.1, 0.9, 0.3]
        >>> df.rank_eval(score=["score", "other"]).per_query("mrr")
          query system  mrr
        0     a  score  0.0
        1     a  other  0.0
        2     b  score  0.5
        3     b  other  1.0
        """
        options = Options(min_relevance, gain, denominator, empty, ties)
        parsed = parse_metrics(metrics)
        by_list = _as_list(by)
        self._check_columns(by_list)
        return self._run(self._request(parsed, by_list, options, PerQueryRows()))

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
        ci: float | None = None,
        n_resamples: int = 1000,
        seed: int | None = 0,
        tidy: bool = False,
    ) -> Any:
        """Means over queries: one row per segment (one row if ``by=None``).

        Columns: the ``by`` columns, one per metric (canonical spelling such as ``mrr@5``),
        and ``n_queries``, the number of queries in each mean. With several score columns,
        one row per (segment, system) and a ``system`` column.

        Parameters
        ----------
        ci
            Confidence level of percentile bootstrap intervals of each mean (e.g. 0.95):
            queries are resampled with replacement within each segment, ``n_resamples``
            times, from ``seed``. Adds ``<metric>_ci_low`` and ``<metric>_ci_high`` columns
            (tidy: ``ci_low``, ``ci_high``). ``None``: no intervals.
        tidy
            One row per (segment, system, metric) with columns ``system`` (the score
            column), ``metric`` (``"ndcg"``), ``k`` (integer or null), ``value`` and
            ``n_queries``: ready to plot or to load in a dashboard.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["x", "y", "x", "y"],
        ...                    "score": [0.9, 0.1, 0.9, 0.1], "relevant": [0, 1, 1, 0]})
        >>> df.rank_eval.evaluate(["recip_rank", "success_1"])
           mrr  acc@1  n_queries
        0  0.75    0.5          2
        >>> df.rank_eval.evaluate(["recip_rank", "success_1"], tidy=True)
          system metric     k  value  n_queries
        0  score    mrr  <NA>   0.75          2
        1  score    acc     1   0.50          2
        """
        options = Options(min_relevance, gain, denominator, empty, ties)
        parsed = parse_metrics(metrics)
        by_list = _as_list(by)
        self._check_columns(by_list)
        _check_resampling(n_resamples, seed)
        if ci is not None:
            _check_level("ci", ci)
        result = Means(tidy=tidy, ci=ci, n_resamples=n_resamples, seed=seed)
        return self._run(self._request(parsed, by_list, options, result))

    def compare(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        baseline: str | None = None,
        test: Test = "t-test",
        correction: Correction = "holm",
        alpha: float = 0.05,
        confidence: float = 0.95,
        n_resamples: int = 10_000,
        n_bootstrap: int = 1000,
        seed: int | None = 0,
        by: str | Sequence[str] | None = None,
        min_relevance: float | None = None,
        gain: Gain = "linear",
        denominator: Denominator = "relevant",
        empty: Empty = "zero",
        ties: Ties = "trec",
    ) -> Any:
        """Compare systems (score columns) with a baseline on paired per-query values.

        Needs several score columns: ``df.rank_eval(score=["a", "b"]).compare(...)``.
        One row per (segment, system, metric), with the ``by`` columns, ``system``,
        ``metric``, ``k``, ``mean``, ``delta`` (the mean minus the baseline's), ``p_value``
        (two-sided, of "no difference"), ``p_adjusted`` (corrected for the systems compared
        on one metric in one segment), ``ci_low`` and ``ci_high`` (an interval of the
        delta), ``significant`` (``p_adjusted < alpha``) and ``n_queries``. The baseline's
        rows have delta 0 and no test.

        Parameters
        ----------
        baseline
            The score column the others are compared with; default the first.
        test
            ``"t-test"`` (paired t-test, as ``scipy.stats.ttest_rel``; t interval),
            ``"permutation"`` (paired randomization test flipping the signs of the
            per-query differences ``n_resamples`` times from ``seed``; bootstrap interval)
            or ``"wilcoxon"`` (signed-rank test, as ``scipy.stats.wilcoxon``; bootstrap
            interval).
        correction
            For several systems: ``"holm"``, ``"bonferroni"`` or ``"none"``.
        alpha
            Significance level of the ``significant`` column.
        confidence
            Level of the interval of the delta.
        n_resamples
            Sign flips of the permutation test.
        n_bootstrap
            Resamples of the bootstrap interval of the delta (permutation and Wilcoxon).
        seed
            Seed of both resamplings; the same seed gives the same table.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2, 3, 3], "item": ["x", "y"] * 3,
        ...                    "a": [0.9, 0.1, 0.9, 0.1, 0.9, 0.1],
        ...                    "b": [0.1, 0.9, 0.9, 0.1, 0.1, 0.9],
        ...                    "relevant": [0, 1, 1, 0, 0, 1]})

        Per query, b's reciprocal rank minus a's is 0.5, 0 and 0.5: a mean of 1/3 with a
        standard error of 1/6, so t = 2 on 2 degrees of freedom and p = 1 - 2/sqrt(6):

        >>> table = df.rank_eval(score=["a", "b"]).compare("mrr", baseline="a")
        >>> table[["system", "mean", "delta", "p_value", "significant"]]
          system      mean     delta   p_value  significant
        0      a  0.666667  0.000000       NaN        False
        1      b  1.000000  0.333333  0.183503        False
        """
        options = Options(min_relevance, gain, denominator, empty, ties)
        parsed = parse_metrics(metrics)
        by_list = _as_list(by)
        self._check_columns(by_list)
        check_choice("test", test, ("t-test", "permutation", "wilcoxon"))
        check_choice("correction", correction, ("holm", "bonferroni", "none"))
        _check_level("alpha", alpha)
        _check_level("confidence", confidence)
        _check_resampling(n_resamples, seed)
        _check_resampling(n_bootstrap, seed, option="n_bootstrap")
        systems = self._names.scores
        if len(systems) < 2:
            msg = (
                "compare() needs at least two score columns to compare; pass them as "
                "df.rank_eval(score=['model_a', 'model_b']).compare(...)."
            )
            raise InvalidOptionError(msg)
        base = systems[0] if baseline is None else baseline
        if base not in systems:
            msg = (
                f"baseline={base!r} is not one of the score columns {list(systems)}; pass "
                "one of them."
            )
            raise InvalidOptionError(msg)
        result = Comparison(
            baseline=systems.index(base), test=test, correction=correction, alpha=alpha,
            confidence=confidence, n_resamples=n_resamples, n_bootstrap=n_bootstrap, seed=seed,
        )
        return self._run(self._request(parsed, by_list, options, result))

    def rank(self, *, ties: Ties = "trec", name: str = "rank") -> Any:
        """The input frame plus an integer column ``name``: each row's rank in its query.

        Rank 1 is the highest score; rows without a score get a null rank. The input frame
        is not modified. With several score columns, one column per system, named
        ``{name}_{score column}``.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c"],
        ...                    "score": [0.5, 0.5, None], "relevant": [1, 0, 1]})
        >>> df.rank_eval.rank()["rank"].tolist()
        [2, 1, <NA>]
        """
        Options(ties=ties)  # checks the value
        self._check_columns([])
        names = self._names
        columns = [f"{name}_{s}" for s in names.scores] if self._multi else [name]
        for column in columns:
            if column in self._column_names():
                msg = (
                    f"The frame already has a column {column!r}; pass name='...' for the "
                    "rank column."
                )
                raise InvalidOptionError(msg)
        return self._rank(columns, ties)


def ranks(backend: Backend, names: ColumnNames, columns: list[str], ties: Ties) -> dict[
    str, IntArray
]:
    """Per system, each row's rank in its query (0: no score), keyed by output column."""
    data = backend.extract(names, [])
    systems = data.systems or [(names.score, data.score)]
    out = {}
    with _engine.unique_items_checked(data, names.query, names.item):
        for column, (_, score) in zip(columns, systems, strict=True):
            ranking = _engine.rank(replace(data, score=score, systems=[]), ties)
            out[column] = ranking.rank_per_row(data.n_rows)
    return out
