"""The public API of the accessor, written once for every frame kind.

:class:`RankEval` holds a :class:`~rankframe.pipeline.binding.Binding`: the frame's adapter
(``rankframe.adapters.adapt`` maps the native object to it) and the bound column names. It
checks the arguments and turns each method call into one
:class:`~rankframe.pipeline.steps.Request` that the binding runs through the adapter
(``docs/architecture.md``). Adapters never import this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, Self, cast, overload

import numpy as np
import numpy.typing as npt

from rankframe.adapters import adapt
from rankframe.api import gates
from rankframe.api.agreements import Agreements
from rankframe.api.judgments import Estimate, estimate_comparison, estimate_means
from rankframe.api.kinds import DecisionT, TableT, ValueT
from rankframe.api.metric_methods import MetricMethods
from rankframe.api.reference import comparison, frame_of, reference_request
from rankframe.api.searches import Searches
from rankframe.api.signatures import (
    add_metric_method,
    arguments_checked,
    bound,
    check_report_keywords,
    convention_applied,
    option_keywords,
    options_from,
    scores_of,
)
from rankframe.exceptions import InvalidOptionError, Keyword, warned_once
from rankframe.metrics.registry import Metric, on_register, parse_metric, parse_metrics
from rankframe.pipeline import windows
from rankframe.pipeline.analysis import SYSTEM
from rankframe.pipeline.binding import Binding
from rankframe.pipeline.steps import ColumnNames, Kind, Means, PerQueryRows, shown_key
from rankframe.settings import params
from rankframe.settings.options import (
    OPTIONS,
    Correction,
    Family,
    Options,
    Test,
    Ties,
)
from rankframe.settings.params import as_columns, validate_params
from rankframe.settings.statistics import Intervals, Tests

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd
    import polars as pl

    from rankframe.report import Report

__all__ = ["SYSTEM", "ColumnNames", "RankEval", "rank_eval"]

IntArray = npt.NDArray[np.int64]


class RankEval(
    Searches[TableT], Agreements[TableT], MetricMethods[ValueT], Generic[TableT, DecisionT, ValueT]
):
    """Ranking metrics of a long-format frame: one row per (query, item).

    Reached as ``df.rank_eval``; call it to use other column names:
    ``df.rank_eval(query="user_id", item="movie_id", score="pred", relevant="clicked")``.

    Each metric of the registry (``rankframe.METRICS``) is a method, generated from its
    declaration: ``mrr``, ``ndcg``, ``map``, ``acc``, ``precision``, ``recall`` (each takes
    ``k``, a positive integer or ``None`` for the whole list) and ``r_precision``, with the
    keyword-only options ``by``, ``min_relevance``, ``empty`` and ``ties``, and the options the
    metric declares (``ndcg``: ``gain``; ``map`` and ``recall``: ``denominator``). See
    ``docs/conventions.md``.

    Typed by frame kind (``rankframe.api.kinds``): ``RankEval[Table, Decision, Value]``,
    the types of the tables, of ``check()``'s table and of a metric method's value;
    ``rankframe.rank_eval(obj)`` gives them from the frame's type (``docs/api.md``, "Types").
    """

    def __init__(self, frame: Any, names: ColumnNames | None = None) -> None:
        self._binding = Binding(adapt(frame), names or ColumnNames())

    @property
    def _names(self) -> ColumnNames:
        return self._binding.names

    @property
    def __rankframe_binding__(self) -> Binding:
        """The frame (its adapter) and the bound column names, for the outputs that read a
        call's input (``rankframe.pipeline.binding.Bound``)."""
        return self._binding

    def _rebound(self, names: ColumnNames) -> Self:
        """This accessor's frame (its adapter: ``adapt`` gives it back) under other names."""
        return type(self)(self._binding.frame, names)

    # -- binding column names ------------------------------------------------------------

    @arguments_checked
    def __call__(
        self,
        *,
        query: str | Sequence[str] | None = None,
        item: str | Sequence[str] | None = None,
        score: str | Sequence[str] | None = None,
        relevant: str | None = None,
        judged: str | None = None,
        time: str | None = None,
        time_unit: str | None = None,
        sample: str | None = None,
        gold: str | None = None,
    ) -> Self:
        """The accessor bound to other column names.

        ``score`` may list several score columns: every method then evaluates each of them
        against the same ``relevant`` column in one pass, and its output gains a ``system``
        column naming the score column (``mrr()`` and the other metric methods give one
        value per system).

        ``query`` and ``item`` may list several columns: a composite key, whose value is
        the tuple of its columns' values (``query=["user_id", "day"]``: each user's day is
        a query). Outputs carry each column of the key by name.

        ``judged`` names a boolean column that says which rows are judged (default: the
        column ``"judged"`` when the frame has one). An unjudged row (False) must have grade
        0: it counts as non-relevant for every metric, and as unjudged for ``bpref``,
        ``infap``, ``unjudged`` and ``num_nonrel_judged_ret`` (see ``docs/metrics.md``).

        ``time`` names the time column of ``every=`` windows: datetimes (with or without a
        zone), dates, or integer epochs with ``time_unit`` (``"s"``, ``"ms"``, ``"us"``,
        ``"ns"``). A query's time is its earliest row's. It is read, and must hold no
        nulls, only in calls with ``every=`` (see ``docs/api.md``, "Time windows").

        ``sample`` names the column of sampled rankings (stochastic rankings: each (query,
        sample) is one ranking of the query's items); only expected exposure reads it,
        averaging each item's attention over the query's samples (see
        ``docs/fairness.md``, "Expected exposure"). Other metrics refuse it.

        ``gold`` names people's grade column beside a judge's in ``relevant`` (null where
        no person judged the row), read by ``estimate=`` (``docs/judgments.md``).
        """
        first, systems = self._names.score, self._names.systems
        if score is not None:
            first, systems = params.score_columns(score)
        query_first, query_columns = params.key_columns("query", query, self._names.query_key)
        item_first, item_columns = params.key_columns("item", item, self._names.item_key)
        names = ColumnNames(
            query=query_first,
            item=item_first,
            query_columns=query_columns,
            item_columns=item_columns,
            score=first,
            relevant=relevant or self._names.relevant,
            systems=systems,
            judged=judged or self._names.judged,
            time=time or self._names.time,
            time_unit=time_unit or self._names.time_unit,
            sample=sample or self._names.sample,
            gold=gold or self._names.gold,
        )
        windows.check_time_unit(names.time_unit)
        return self._rebound(names)

    def __repr__(self) -> str:
        n = self._names
        score = n.score if n.systems is None else list(n.systems)
        judged = "" if n.judged is None else f" judged={n.judged!r}"
        time = "" if n.time is None else f" time={n.time!r}"
        unit = "" if n.time_unit is None else f" time_unit={n.time_unit!r}"
        unit += "" if n.sample is None else f" sample={n.sample!r}"
        unit += "" if n.gold is None else f" gold={n.gold!r}"
        return (
            f"<rank_eval query={shown_key(n.query_key)!r} item={shown_key(n.item_key)!r} "
            f"score={score!r} "
            f"relevant={n.relevant!r}{judged}{time}{unit}>"
        )

    # -- the one data path (rankframe.pipeline) ---------------------------------------------

    def _metric(
        self,
        name: str,
        k: int | None,
        by: str | Sequence[str] | None,
        options: Options,
        chosen: Mapping[str, Any],
        every: str | None = None,
    ) -> ValueT:
        metrics, options = bound([parse_metric(name, k)], options, chosen)
        if len(metrics) > 1:  # a metric with a value per group (MetricDef.expand)
            shown = ", ".join(repr(str(m)) for m in metrics[:5])
            msg = (
                f"{name} has a value per group ({shown}); pass group='...' for one of them, "
                f"or evaluate(['{metrics[0].bare}']) for a column per group."
            )
            raise InvalidOptionError(msg)
        metric = metrics[0]
        by_list = as_columns(by)
        self._binding.check_columns(by_list)
        segmented = by_list or self._binding.multi or every is not None
        kind: Kind = "segments" if segmented else "scalar"
        request = self._binding.request([metric], by_list, options, Means(kind=kind), every)
        return cast("ValueT", self._binding.run(request))

    # -- tables --------------------------------------------------------------------------

    @arguments_checked
    @convention_applied
    @option_keywords
    def per_query(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        by: str | Sequence[str] | None = None,
        every: str | None = None,
        **chosen: Any,
    ) -> TableT:
        """One row per query, sorted by query: the query (and ``by``) columns, one per metric.

        With ``every="1w"`` (and a bound ``time`` column), a ``window`` column comes first:
        the start of each query's window (a query's time is its earliest row's).

        With ``empty="nan"`` queries without relevant items get NaN; with ``"skip"`` they are
        left out of the table.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": ["b", "b", "a", "a"], "item": [1, 2, 1, 2],
        ...                    "score": [0.2, 0.7, 0.9, 0.3], "relevant": [1, 0, 0, 0]})
        >>> df.rank_eval.per_query(["mrr", "P_1"], empty="nan")
          query  mrr(empty=nan)  precision@1(empty=nan)
        0     a             NaN                     NaN
        1     b             0.5                     0.0

        With several score columns, one row per (query, system):

        >>> df["other"] = [0.9, 0.1, 0.9, 0.3]
        >>> df.rank_eval(score=["score", "other"]).per_query("mrr")
          query system  mrr
        0     a  score  0.0
        1     a  other  0.0
        2     b  score  0.5
        3     b  other  1.0
        """
        options = options_from(chosen)
        parsed, options = bound(parse_metrics(metrics), options, chosen)
        by_list = as_columns(by)
        self._binding.check_columns(by_list)
        request = self._binding.request(parsed, by_list, options, PerQueryRows(), every)
        return self._table(request)

    @arguments_checked
    @validate_params({"tidy": params.FLAG, "estimate": params.ESTIMATE}, scores_of)
    @convention_applied
    @option_keywords
    def evaluate(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        by: str | Sequence[str] | None = None,
        confidence_level: float | None = None,
        n_resamples: int = 1000,
        seed: int | None = 0,
        tidy: bool = False,
        every: str | None = None,
        estimate: Estimate | None = None,
        **chosen: Any,
    ) -> TableT:
        """Means over queries: one row per segment (one row if ``by=None``).

        Columns: the ``by`` columns, one per metric (its label: the canonical spelling such
        as ``mrr@5``, with the options that moved it from the defaults, ``f1@5(beta=2)``;
        see ``parse_metric``), and ``n_queries``, the number of queries in each mean. With
        several score columns, one row per (segment, system) and a ``system`` column.

        With ``empty="skip"`` or ``"nan"``, the metrics that depend on relevant items leave
        out the queries without any, while counts (``num_ret``) and the metrics of the items
        themselves (``arp``) keep every query: ``n_queries`` is the number of queries in the
        former's means (tidy: each row's own number).

        Parameters
        ----------
        confidence_level
            Confidence level of percentile bootstrap intervals of each mean (e.g. 0.95):
            queries are resampled with replacement within each segment, ``n_resamples``
            times, from ``seed``. Adds ``<metric>_ci_low`` and ``<metric>_ci_high`` columns
            (tidy: ``ci_low``, ``ci_high``). ``None``: no intervals.
        n_resamples
            Bootstrap resamples of the intervals.
        seed
            Seed of the resampling; the same seed gives the same intervals.
        tidy
            One row per (segment, system, metric) with columns ``system`` (the score
            column), ``metric`` (``"ndcg"``; with its options, ``"f1(beta=2)"``), ``k``
            (integer or null), ``value`` and ``n_queries``: ready to plot or to load in a
            dashboard. A bool (``True`` or ``False``, NumPy's too): another value is an
            error naming it, as for every boolean parameter (``"yes"`` would be true).
        every
            A window length as a polars duration string (``"1h"``, ``"1d"``, ``"1w"``,
            ``"2w"``, ``"1mo"``, ``"1q"``, ``"1y"``): one row per window (and segment), the
            window's start in a first column ``window``, then the ``by`` columns. Needs a
            bound time column, ``df.rank_eval(time="served_at")``; a query's time is its
            earliest row's; windows start on calendar boundaries (weeks on Monday; a
            zone-aware column in its zone), as polars' ``dt.truncate``. Windows without
            queries have no row. See ``docs/api.md``, "Time windows".
        estimate
            ``"ppi"``, ``"ppi++"`` (recommended), ``"gold"`` or ``"judge"``, with a bound
            ``gold`` column: the judge's means corrected by people's (``docs/judgments.md``).

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
        options = options_from(chosen)
        parsed, options = bound(parse_metrics(metrics), options, chosen)
        by_list = as_columns(by)
        self._binding.check_columns(by_list)
        intervals = Intervals(confidence_level=confidence_level, n_resamples=n_resamples, seed=seed)
        if estimate is not None:
            args = (self._binding, parsed, by_list, options, every)
            request = estimate_means(*args, estimate=estimate, level=confidence_level, tidy=tidy)
            return self._table(request)
        result = Means(tidy=bool(tidy), intervals=intervals)
        request = self._binding.request(parsed, by_list, options, result, every)
        return self._table(request)

    @arguments_checked
    @validate_params(
        {"baseline": params.BASELINE, "baseline_rows": params.FLAG, "estimate": params.ESTIMATE},
        scores_of,
    )
    @convention_applied
    @option_keywords
    def compare(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        baseline: str | None = None,
        test: Test = "t-test",
        correction: Correction = "holm",
        family: Family = "systems",
        alpha: float = 0.05,
        confidence_level: float = 0.95,
        n_permutations: int = 10_000,
        n_resamples: int = 1000,
        seed: int | None = 0,
        by: str | Sequence[str] | None = None,
        reference: Any = None,
        every: str | None = None,
        baseline_rows: bool = True,
        estimate: Estimate | None = None,
        **chosen: Any,
    ) -> TableT:
        """Compare systems (score columns) with a baseline on paired per-query values, or
        with the same systems of a reference frame (``reference=``).

        Needs several score columns: ``df.rank_eval(score=["a", "b"]).compare(...)``.
        One row per (segment, system, metric), the keys and the answer first: the ``by``
        columns, ``system``, ``metric``, ``k``, ``mean`` (the metric's statistic),
        ``delta`` (the change from the baseline's statistic, absolute),
        ``delta_relative`` (the change as a fraction of the baseline's statistic; 0 for
        no change from 0, ±inf for another), ``ci_low`` and ``ci_high`` (an interval of
        ``delta``), ``p_adjusted`` (the two-sided p-value of "no difference", corrected
        within ``family``), ``significant`` (``p_adjusted < alpha``); then the rest:
        ``p_value`` (before the correction), ``mde`` (the smallest change the t-test at
        ``1 - confidence_level`` detects with 80% power with the queries in hand:
        statsmodels' ``solve_power`` times the paired differences' standard deviation, or
        for two samples the pooled one; NaN for the baseline), ``statistic`` (what the
        metric aggregates with: ``"mean"``, ``"geometric mean"`` for ``gm_map`` and
        ``gm_bpref``, ``"sum"`` for the ``num_*`` counts), ``paired`` (True: the tests are
        paired), ``wins``, ``ties`` and ``losses`` (the queries where the system's
        per-query value is above, equal to and below the baseline's, raw values compared
        whatever the metric: the registry declares no direction) and ``n_queries``. The
        baseline's rows have delta 0, no test and null ``wins``/``ties``/``losses``;
        ``baseline_rows=False`` leaves them out. The rows run per system (in the order of
        the score columns), per metric, then the windows and segments in their order: one
        system's change on one metric reads down one block of rows.

        With ``reference=other_frame``, each system (score column) of this frame is
        compared with the same system of ``other_frame``, bound with the same column names
        (one score column is enough); a system missing there is an error naming it, and
        ``baseline=`` cannot be combined with it. Per segment (and group of metrics that
        ``empty=`` gives the same queries), where both frames hold the same query ids the
        comparison is paired as above; otherwise it is a two-sample comparison: Welch's
        t-test (as ``scipy.stats.ttest_ind(equal_var=False)``) with its
        Welch-Satterthwaite interval, a two-sample permutation test shuffling the pooled
        values ``n_permutations`` times, or the Mann-Whitney U test for ``"wilcoxon"``
        (as ``scipy.stats.mannwhitneyu(method="asymptotic")``), the latter two with a
        bootstrap interval resampling each frame's queries independently; ``paired`` says
        which, and ``wins``/``ties``/``losses`` are null for two samples. A sum's delta is
        the difference of the two sums, ``n1 mean1 - n2 mean2``, with a standard error of
        its own. The table gains ``reference_mean`` (the reference's statistic, after
        ``statistic``) and ``n_reference`` (its queries, last); segments are this frame's
        (the reference's queries of other segments are left out). The reference may be any
        frame rankframe reads;
        the result is of this frame's kind (a LazyFrame or Dask reference is collected or
        computed when the result is).

        The test, the interval and ``delta`` are of the same quantity, so that
        ``ci_low <= delta <= ci_high``: for a mean, the mean per-query difference; for a
        geometric mean, the mean difference of ``log(max(value, 1e-5))`` (trec_eval's
        floor), the log of the ratio of the geometric means (``delta_relative`` is that
        ratio minus 1); for a sum, the difference of the sums, with the mean
        difference's interval times the number of queries (and its p-value). Set-level
        metrics (``coverage``) have no per-query values and are refused.

        With ``every="1w"`` (and a bound ``time`` column) and no ``baseline=``, each
        window is compared with the previous window, per system (one score column is
        enough) and ``by`` segment: the previous window is the latest earlier window that
        holds queries of the same ``by`` values (a window without queries has no row and
        is skipped), named in a last column, ``reference_window``. The table is the one of
        ``reference=`` (``reference_mean`` and ``n_reference`` are the previous window's);
        a query belongs to one window (its earliest row's), so two windows of one frame
        hold different queries and the comparison is two-sample (``paired`` False). The
        first window of each segment has nothing to compare with: NaN tests, delta,
        ``reference_mean``, ``n_reference`` 0 and a null ``reference_window``. With
        ``every=`` and ``baseline=``, the systems are compared with the baseline within
        each window instead (the window is a segment, as ``by=``); with ``every=`` and
        ``reference=``, each window with the same window (the same start) of the
        reference frame, bound with the same time column.

        ``estimate=`` (with a bound ``gold`` column): each system's mean and its difference
        from the baseline from the judge's grades corrected by people's, with the columns
        ``estimate`` and ``n_gold`` (``docs/judgments.md``).

        Parameters
        ----------
        baseline
            The score column the others are compared with; default the first (without
            ``every=``).
        test
            ``"t-test"`` (paired t-test, as ``scipy.stats.ttest_rel``; t interval),
            ``"permutation"`` (paired randomization test flipping the signs of the
            per-query differences ``n_permutations`` times from ``seed``; bootstrap
            interval) or ``"wilcoxon"`` (signed-rank test, as ``scipy.stats.wilcoxon``;
            bootstrap interval).
        correction
            For several tests: ``"holm"``, ``"bonferroni"`` or ``"none"``.
        family
            The tests one correction covers: ``"systems"`` (the systems compared on one
            metric in one segment) or ``"table"`` (every test of the table: every segment,
            system and metric).
        alpha
            Significance level of the ``significant`` column.
        confidence_level
            Level of the interval of the delta.
        n_permutations
            Sign flips of the permutation test.
        n_resamples
            Resamples of the bootstrap interval of the delta (permutation and Wilcoxon).
        seed
            Seed of both resamplings; the same seed gives the same table.
        reference
            A frame holding the same systems (score columns) for other (or the same)
            queries: the frame each system is compared with, instead of a baseline column.
        every
            Time windows (``"1w"``, ...), whose start leads the columns: each window
            against the previous one; with ``baseline=``, the systems within each window;
            with ``reference=``, against the same window of the reference.
        baseline_rows
            Keep the baseline's own rows (delta 0, no test; the default) or leave them out
            (``False``): a table of the changes alone. Comparisons with a reference frame
            or the previous window have no baseline rows.

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

        Without the baseline's own row:

        >>> changes = df.rank_eval(score=["a", "b"]).compare("mrr", baseline_rows=False)
        >>> changes[["system", "mean", "delta", "p_adjusted", "significant"]]
          system  mean     delta  p_adjusted  significant
        0      b   1.0  0.333333    0.183503        False
        """
        options = options_from(chosen)
        parsed, options = bound(parse_metrics(metrics), options, chosen)
        by_list = as_columns(by)
        self._binding.check_columns(by_list)
        tests = Tests(
            test=test,
            correction=correction,
            family=family,
            alpha=alpha,
            confidence_level=confidence_level,
            n_permutations=n_permutations,
            n_resamples=n_resamples,
            seed=seed,
        )
        if estimate is not None:
            args = (self._binding, parsed, by_list, options, every, reference)
            against = (baseline, tests, bool(baseline_rows))
            request = estimate_comparison(*args, estimate=estimate, against=against)
        elif reference is not None:
            params.check_baseline_or_reference("compare", baseline)
            request = reference_request(
                self._binding, reference, parsed, by_list, options, every, tests
            )
        else:
            result = comparison(self._names, baseline, every, tests, bool(baseline_rows))
            request = self._binding.request(parsed, by_list, options, result, every)
        return self._table(request)

    @arguments_checked
    @validate_params(
        {
            "baseline": params.BASELINE,
            "mode": params.GATE_MODE,
            "min_queries": params.GATE_MIN_QUERIES,
        },
        scores_of,
    )
    @option_keywords
    def check(
        self,
        rules: str | Iterable[str],
        *,
        baseline: str | None = None,
        reference: Any = None,
        every: str | None = None,
        by: str | Sequence[str] | None = None,
        mode: Literal["interval", "point"] = "interval",
        min_queries: int = 20,
        confidence_level: float = 0.95,
        alpha: float = 0.05,
        test: Test = "t-test",
        correction: Correction = "holm",
        family: Family = "table",
        n_resamples: int = 1000,
        n_permutations: int = 10_000,
        seed: int | None = 0,
        **chosen: Any,
    ) -> DecisionT:
        """Gates: check rules on the metrics, one row per rule, system and segment.

        A rule is ``"METRIC OP BOUND"`` (``>=``, ``<=``, ``>``, ``<``: ``"ndcg@10 >= 0.30"``)
        or ``"METRIC drop <= TOLERANCE"``, an absolute decrease (``"ndcg@10 drop <= 0.01"``)
        or one relative to the baseline's statistic (``"ndcg@10 drop <= 1%"``).

        Columns, the answer first and the same whatever the rules: ``rule``, ``window``
        (with ``every=``), the ``by`` columns, ``system``, ``metric``, ``k``, ``status``,
        ``value``, ``delta`` and ``delta_relative`` (drop rules: the change from the
        baseline's statistic, absolute and as a fraction of it, whatever the rule's unit),
        ``bound``, ``ci_low`` and ``ci_high`` (the bound and the interval on the metric's
        scale: the value's for an absolute rule, ``delta``'s for an absolute drop rule),
        ``p_value`` and ``p_adjusted`` (drop rules; ``p_adjusted`` decides them); then the
        columns only a relative drop rule such as ``drop <= 1%`` fills,
        ``bound_relative``, ``ci_low_relative`` and ``ci_high_relative`` (its bound and
        interval in ``delta_relative``'s unit; it leaves ``bound``, ``ci_low`` and
        ``ci_high`` NaN, as other rules leave these), and the bookkeeping: ``paired`` (a
        drop rule's test was paired; False for absolute rules), ``n_queries`` and
        ``queries_to_decide`` (an uncertain row's: the queries, per side for two samples,
        at which a t-test against the observed distance has even odds, i.e.
        ``sample_size(delta=distance, power=0.5)``; the distance is the value's from the
        bound for an absolute rule, the change's from no change for a drop rule; NaN for
        other statuses; ``docs/monitoring.md``). Rows per rule (in their order), per system
        (in the order of the score columns), then the windows and segments in their order.

        - an absolute rule is ``"pass"`` when its whole bootstrap interval (``evaluate``'s)
          lies on the right side of the bound, ``"fail"`` when it lies on the wrong side,
          ``"uncertain"`` when the bound is inside it; ``mode="point"`` compares ``value``
          alone (pass or fail);
        - a drop rule reads ``compare``: its bound is minus the tolerance, and the rule
          holds while ``delta >= bound`` (relative: ``delta_relative >= bound_relative``).
          It is ``"fail"`` when the change is below the bound and a significant decrease
          (``p_adjusted < alpha``), ``"uncertain"`` when it is below the bound without
          being significant, ``"pass"`` otherwise, ``"no baseline"`` where there is nothing
          to compare with (``delta`` is NaN); ``mode="point"``: fail whenever it is below
          the bound;
        - a segment with fewer than ``min_queries`` queries is ``"too few queries"``.

        A pandas frame gives a pandas frame, polars (eager or lazy) a polars DataFrame, Dask
        a pandas DataFrame: a gate is a decision, taken now on a small table.

        Parameters
        ----------
        rules
            One rule string or a list of them.
        baseline
            For drop rules on several score columns: the column the others are compared
            with (default the first; its own rows are left out).
        reference
            For drop rules: a frame whose same systems are the baselines
            (``compare(reference=...)``).
        every
            Time windows (``evaluate``/``compare`` with ``every=``): absolute rules per
            window; drop rules each window against the previous one (the latest earlier
            window with queries of the same segment; ``"no baseline"`` for the first), or,
            with ``baseline=``, against the baseline within each window, or, with
            ``reference=``, against the same window of the reference.
        by
            Segment column(s), constant within a query.
        mode
            ``"interval"`` (default: the interval or the test decides) or ``"point"``.
        min_queries
            Segments with fewer queries are ``"too few queries"``. Default 20: below that
            a percentile bootstrap interval is too narrow to trust a pass.
        confidence_level
            Level of the intervals of values and deltas.
        alpha
            Significance level of drop rules' tests.
        test, n_permutations
            The test of drop rules (``compare``'s).
        correction, family
            The correction of drop rules' p-values; ``family="table"`` (default) corrects
            over every test the drop rules read (every system, segment and metric), since
            one failing row fails the gate.
        n_resamples, seed
            Resamples and seed of the bootstrap intervals.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["x", "y", "x", "y"],
        ...                    "score": [0.9, 0.1, 0.9, 0.1], "relevant": [0, 1, 1, 0]})

        The reciprocal ranks are 0.5 and 1 (mean 0.75), so the point rule holds:

        >>> table = df.rank_eval.check("mrr >= 0.7", mode="point", min_queries=1)
        >>> table[["rule", "value", "bound", "status"]]
                 rule  value  bound status
        0  mrr >= 0.7   0.75    0.7   pass
        """
        with warned_once():  # evaluate() and compare() of one frame: its warnings once
            decision = gates.check(
                self,
                rules,
                baseline=baseline,
                reference=reference,
                every=every,
                by=by,
                mode=mode,
                min_queries=min_queries,
                confidence_level=confidence_level,
                alpha=alpha,
                test=test,
                correction=correction,
                family=family,
                n_resamples=n_resamples,
                n_permutations=n_permutations,
                seed=seed,
                options=dict(chosen),
            )
        return cast("DecisionT", decision)

    @validate_params(
        {"baseline": params.BASELINE, "curves": params.FLAG, "fingerprint": params.FLAG}, scores_of
    )
    def report(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        by: str | Sequence[str] | None = None,
        baseline: str | None = None,
        **kwargs: Any,
    ) -> Report:
        """A ``rankframe.Report`` of ``metrics``: one self-contained HTML file (the data,
        the summary with intervals and significance marks against ``baseline``, segments,
        curves, distributions, win/tie/loss, the worst queries); see ``docs/report.md``.
        Other keywords: ``every`` (a trend section over time windows: ``evaluate(every=)``'s
        means, in the report's one pass; needs ``time=``), ``reference`` (a section of
        ``compare(reference=...)``), ``rules`` with ``min_queries`` and ``mode`` (a gates
        section: ``check()``'s table), ``slices`` with ``slice_depth``,
        ``slice_min_queries`` and ``slice_top`` (a section "Where it fails": ``slices()``'s
        table), ``item_groups`` with ``exposure_k`` (a section on the exposure of item
        groups; see ``docs/fairness.md``), ``test``, ``correction``, ``alpha``,
        ``confidence_level``, ``n_resamples``, ``seed``, ``worst``, ``top_k``, ``curves``,
        ``title`` and the metric options of ``evaluate``."""
        # the report (its page, charts and tables) loads when first used, not with
        # `import rankframe`: a lower layer, imported here for import time alone
        from rankframe import report

        check_report_keywords(report.build, metrics, kwargs)
        rules = kwargs.get("rules")
        if rules is not None:  # a bad rule is refused before any pass over the data
            gates.parse_rules([rules] if isinstance(rules, str) else list(rules))
        with warned_once():  # the report's several passes over one frame: warned once
            return report.build(self, self._binding, metrics, by=by, baseline=baseline, **kwargs)

    @arguments_checked
    def rank(self, *, ties: Ties = "trec", name: str = "rank") -> TableT:
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
        if ties == "average":
            others = ", ".join(repr(c) for c in OPTIONS["ties"].choices if c != "average")
            refusal = (
                Keyword("ties", "average"),
                " gives metrics their expected value over the "
                f"orders of tied items; it is no order, so rank() cannot use it. Pass one of "
                f"{others}.",
            )
            raise InvalidOptionError(refusal)
        self._binding.check_columns([])
        names = self._names
        columns = [f"{name}_{s}" for s in names.scores] if self._binding.multi else [name]
        for column in columns:
            if column in self._binding.frame.columns():
                msg = (
                    f"The frame already has a column {column!r}; pass name='...' for the "
                    "rank column."
                )
                raise InvalidOptionError(msg)
        return cast("TableT", self._binding.rank(columns, ties))


on_register(lambda definition: add_metric_method(RankEval, definition))


#: The accessor of a pandas frame, and of an Arrow frame (pandas results).
PandasEval = RankEval["pd.DataFrame", "pd.DataFrame", "float | pd.Series[float]"]
#: The accessor of a polars DataFrame.
PolarsEval = RankEval["pl.DataFrame", "pl.DataFrame", "float | pl.DataFrame"]
#: The accessor of a polars LazyFrame: lazy tables and values, ``check()`` eager.
LazyEval = RankEval["pl.LazyFrame", "pl.DataFrame", "pl.LazyFrame"]
#: The accessor of a Dask frame: lazy tables and values, ``check()`` in pandas.
DaskEval = RankEval["dd.DataFrame", "pd.DataFrame", "dd.Scalar | dd.Series"]


@overload
def rank_eval(obj: pd.DataFrame) -> PandasEval: ...
@overload
def rank_eval(obj: pl.DataFrame) -> PolarsEval: ...
@overload
def rank_eval(obj: pl.LazyFrame) -> LazyEval: ...
@overload
def rank_eval(obj: dd.DataFrame) -> DaskEval: ...
@overload
def rank_eval(obj: object) -> RankEval[Any, Any, Any]: ...
def rank_eval(obj: object) -> RankEval[Any, Any, Any]:
    """The ``rank_eval`` accessor of any frame.

    A pandas, polars (DataFrame or LazyFrame) or Dask frame gives its own accessor
    (``obj.rank_eval``, results of its kind); an Arrow frame (a pyarrow Table, a DuckDB
    relation, an Ibis table, any object with ``__arrow_c_stream__``) gives one that reads
    only the columns each method binds and returns pandas results.

    Examples
    --------
    Query a ranks the relevant item ``y`` second (reciprocal rank 1/2), query b ranks its
    relevant item ``x`` first (1): the mean is 0.75.

    >>> import pyarrow as pa, rankframe
    >>> table = pa.table({"query": ["a", "a", "b", "b"], "item": ["x", "y", "x", "y"],
    ...                   "score": [0.9, 0.1, 0.9, 0.1], "relevant": [0, 1, 1, 0],
    ...                   "notes": ["never", "read", "by", "mrr"]})
    >>> rankframe.rank_eval(table).mrr()
    0.75
    >>> rankframe.rank_eval(table).per_query("mrr")
      query  mrr
    0     a  0.5
    1     b  1.0
    """
    return RankEval(frame_of(obj))
