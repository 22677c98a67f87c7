"""The accessor's searches: where a system does better or worse (``slices()``), the gaps
between user groups (``gaps()``) and the queries a test needs (``sample_size()``).

:class:`Searches` is a base of :class:`rankframe.api.accessor.RankEval`: its methods are
the accessor's, documented there (``docs/api.md``), and read its binding as the other
methods do. Their arguments are checked by the constraints of
:mod:`rankframe.settings.params`, before the body runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, cast

from rankframe.adapters import results
from rankframe.api.kinds import TableT
from rankframe.api.reference import reference_binding
from rankframe.api.signatures import (
    arguments_checked,
    bound,
    convention_applied,
    option_keywords,
    options_from,
    scores_of,
)
from rankframe.exceptions import InvalidOptionError
from rankframe.metrics.registry import Metric, parse_metrics
from rankframe.pipeline.gaps import Gaps, GapTest
from rankframe.pipeline.power import per_segment, reference_sample_sizes, sample_sizes
from rankframe.pipeline.slices import Slices
from rankframe.pipeline.slices import slice_columns as _slice_output_columns
from rankframe.settings import params
from rankframe.settings.options import Correction, Test
from rankframe.settings.params import as_columns, validate_params
from rankframe.settings.statistics import Tests

if TYPE_CHECKING:
    import pandas as pd

    from rankframe.pipeline.binding import Binding
    from rankframe.pipeline.steps import ColumnNames, Request

__all__ = ["Searches"]


def _table_tests(
    test: Test,
    correction: Correction | None,
    confidence_level: float,
    n_permutations: int,
    n_resamples: int,
    seed: int | None,
) -> Tests:
    """The tests' settings of a search corrected over every test of its table (``slices()``,
    ``gaps()``): ``correction=None`` is none, and ``significant`` is ``p_adjusted < 1 -
    confidence_level`` (``alpha``; 0.05 while a bad level waits for its error)."""
    return Tests(
        test=test,
        correction="none" if correction is None else correction,
        family="table",
        alpha=1.0 - confidence_level if 0 < confidence_level < 1 else 0.05,
        confidence_level=confidence_level,
        n_permutations=n_permutations,
        n_resamples=n_resamples,
        seed=seed,
    )


def _check_slice_columns(columns: list[str], metrics: list[Metric]) -> None:
    """``slices()`` needs a slice column, and none named as a column of its output."""
    produced = {n for n, _ in _slice_output_columns((), tuple(metrics), paired=True)}
    clashes = sorted(set(columns) & (produced | {"mean_outside"}))
    if not columns or clashes:
        msg = (
            "slices() needs at least one slice column, e.g. slices('ndcg@10', ['theme', 'device'])."
            if not columns
            else f"Column {clashes[0]!r} clashes with the output column {clashes[0]!r} of "
            "slices(); rename it first, e.g. df.rename(columns={"
            f"{clashes[0]!r}: '{clashes[0]}_'}})."
        )
        raise InvalidOptionError(msg)


def _design(
    delta: float, relative: bool, alpha: float, power: float, alternative: str
) -> dict[str, Any]:
    """``sample_size()``'s design (checked: ``validate_params``), as its tables read it."""
    return {
        "delta": float(delta),
        "relative": bool(relative),
        "alpha": float(alpha),
        "power": float(power),
        "alternative": alternative,
    }


class Searches(Generic[TableT]):
    """``slices()``, ``gaps()`` and ``sample_size()`` of the accessor (a base of
    ``RankEval``, which documents the three with the other methods)."""

    if TYPE_CHECKING:
        _binding: Binding

        def __init__(self, frame: Any, names: ColumnNames | None = None) -> None: ...

        @property
        def _names(self) -> ColumnNames: ...

        def per_query(self, metrics: Any, **kwargs: Any) -> Any: ...

    def _table(self, request: Request) -> TableT:
        """The table ``request`` asks for, run on the frame: of the accessor's kind
        (``TableT``), as the frame's adapter builds it."""
        return cast("TableT", self._binding.run(request))

    @arguments_checked
    @validate_params(
        {
            "baseline": params.PAIRED_BASELINE,
            "test": params.SLICE_TEST,
            "alternative": params.ALTERNATIVE,
            "max_depth": params.AT_LEAST_ONE,
            "min_queries": params.AT_LEAST_ONE,
            "bins": params.AT_LEAST_TWO,
            "top": params.OPTIONAL_AT_LEAST_ONE,
        },
        scores_of,
    )
    @convention_applied
    @option_keywords
    def slices(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        columns: str | Sequence[str],
        *,
        baseline: str | None = None,
        max_depth: int = 2,
        min_queries: int = 30,
        bins: int = 4,
        test: Literal["t-test", "permutation", "bootstrap"] = "t-test",
        alternative: Literal["two-sided", "less", "greater"] = "two-sided",
        confidence_level: float = 0.95,
        correction: Correction | None = "holm",
        top: int | None = None,
        n_permutations: int = 10_000,
        n_resamples: int = 1000,
        seed: int | None = 0,
        **chosen: Any,
    ) -> TableT:
        """Where a system does better or worse: every slice of up to ``max_depth`` predicates
        ``column == value`` over ``columns``, tested, with the p-values corrected over every
        test of the call.

        A slice is a conjunction such as ``theme=news & device=ios`` over ``columns`` (each
        constant within a query, as ``by=``); a numeric column of more than ``bins``
        distinct values is cut into ``bins`` quantile bins over the queries, as
        ``pandas.qcut(values, bins, duplicates="drop")`` cuts them, shown as intervals
        (``(0.5, 2]``, the first one closed: ``[0, 0.5]``). A slice of fewer than
        ``min_queries`` queries is not tested, nor one that holds exactly the queries of a
        slice of fewer predicates (the same test: the shorter one is shown), nor one of
        every query.

        Without ``baseline``, each system's mean inside the slice is compared with its mean
        over the other queries: Welch's t-test (as ``scipy.stats.ttest_ind(inside, outside,
        equal_var=False)``) and its Welch-Satterthwaite interval of ``delta = mean -
        mean_outside``. With ``baseline="col"``, each other system's per-query difference
        from the baseline inside the slice: the paired t-test (as
        ``scipy.stats.ttest_rel``) and its t interval, as ``compare()``: where does a
        model lose, even when it wins on average?

        ``correction`` runs over every test of the call (slices x systems x metrics), not
        only the rows shown: ``n_tested`` says how many. ``significant`` is ``p_adjusted <
        1 - confidence_level``.

        One row per tested (slice, system, metric), worst first (by ``delta``, ascending)
        within each system and metric: a column per entry of ``columns`` (the slice's value
        as text, null where the slice does not constrain it), ``slice``, ``depth``,
        ``system``, ``metric``, ``k``, ``n_queries`` (inside the slice), ``mean`` (inside),
        ``mean_outside`` (or, with a baseline, ``baseline_mean``: the baseline's mean inside
        the slice), ``delta``, ``ci_low``, ``ci_high``, ``p_value``, ``p_adjusted``,
        ``significant``, ``n_tested``. A missing value (null, NaN) is a level of its own,
        shown as ``(missing)``: ``device=(missing)``.

        Parameters
        ----------
        metrics
            Metrics, as in ``evaluate``.
        columns
            The slice columns, each constant within a query.
        baseline
            A score column: test each other system's difference from it inside each slice.
        max_depth
            The most predicates in one slice (1: single columns).
        min_queries
            The fewest queries a slice needs to be tested.
        bins
            The quantile bins of a numeric column of more distinct values than this.
        test
            ``"t-test"`` or ``"permutation"``: a permutation test of each slice against
            the other queries (shuffles of the queries shared by every slice), or, with a
            baseline, the sign-flip test of the differences inside it; exact under no
            effect where the t-test is not (small slices of a skewed metric), and costlier
            (queries x ``n_permutations`` per system and metric). The interval stays the
            t-test's. ``"bootstrap"``: percentile bootstrap tests and intervals, as
            ``compare()``'s bootstrap intervals: the slice's queries and the other queries
            each resampled on their own (as ``compare(reference=)``), or, with a baseline,
            the slice's differences (as ``compare()``'s paired interval), ``n_resamples``
            times from ``seed`` for every slice; the p-value inverts the interval
            (two-sided: ``min(1, 2 min((1 + #{d* >= 0}), (1 + #{d* <= 0})) / (1 +
            n_resamples))``), and costs ``n_resamples`` x the queries (the frame's, without
            a baseline) per slice.
        alternative
            ``"two-sided"``, ``"less"`` (the slice, or the system, is worse) or
            ``"greater"``; the interval is one-sided for the latter two, as scipy's.
        confidence_level
            Level of the intervals; ``1 - confidence_level`` is the level of
            ``significant``.
        correction
            ``"holm"``, ``"bonferroni"`` (the family-wise error), ``"fdr_bh"``
            (Benjamini-Hochberg: the false discovery rate) or ``None``.
        top
            Keep the first ``top`` rows of each system and metric (all tests still count).
        n_permutations
            Resamples of the permutation test (its p-values are at least ``1 /
            (n_permutations + 1)``).
        n_resamples
            Resamples of the bootstrap (``test="bootstrap"``).
        seed
            Seed of the permutation test's or the bootstrap's resamples.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2, 3, 3, 4, 4], "item": ["x", "y"] * 4,
        ...                    "score": [0.9, 0.1] * 4, "relevant": [1, 0, 1, 0, 0, 1, 0, 1],
        ...                    "theme": ["a", "a", "a", "a", "b", "b", "a", "a"]})

        Reciprocal ranks 1, 1, 0.5 (theme b) and 0.5: theme b's 0.5 against the other
        queries' mean 5/6, a delta of -1/3; one query inside, so no test.

        >>> out = df.rank_eval.slices("mrr", "theme", min_queries=1)
        >>> out[["slice", "n_queries", "mean", "mean_outside", "delta"]]
             slice  n_queries      mean  mean_outside     delta
        0  theme=b          1  0.500000      0.833333 -0.333333
        1  theme=a          3  0.833333      0.500000  0.333333
        """
        options = options_from(chosen)
        parsed, options = bound(parse_metrics(metrics), options, chosen)
        slice_columns = as_columns(columns)
        self._binding.check_columns(slice_columns)
        # Tests reads compare()'s tests: the bootstrap's own settings are n_resamples and seed
        tests = _table_tests(
            "permutation" if test == "permutation" else "t-test",
            correction,
            confidence_level,
            n_permutations,
            n_resamples,
            seed,
        )
        search = Slices(
            baseline=self._baseline_position(baseline),
            tests=tests,
            max_depth=int(max_depth),
            min_queries=int(min_queries),
            bins=int(bins),
            alternative=alternative,
            top=None if top is None else int(top),
            test=test,
        )
        _check_slice_columns(slice_columns, parsed)
        request = self._binding.request(parsed, slice_columns, options, search)
        return self._table(request)

    @arguments_checked
    @validate_params({"baseline": params.PAIRED_BASELINE, "test": params.GAP_TEST}, scores_of)
    @convention_applied
    @option_keywords
    def gaps(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        by: str | Sequence[str],
        *,
        baseline: str | None = None,
        test: GapTest = "permutation",
        correction: Correction | None = "holm",
        confidence_level: float = 0.95,
        n_permutations: int = 10_000,
        n_resamples: int = 1000,
        seed: int | None = 0,
        **chosen: Any,
    ) -> TableT:
        """The gaps between user groups: per system and metric, how far apart the groups'
        means are, and a test that every group is served alike.

        The groups are the values of ``by`` (each constant within a query: a user's age
        band, country, plan), every combination of them for several columns, as ``by=``
        makes segments elsewhere (intersectional groups; call ``gaps()`` once per column for
        one attribute at a time). Per (system, metric), over the queries the metric
        includes (``empty=``): each group's mean of the per-query values (a geometric mean
        for ``gm_map``, ``gm_bpref``; the mean count per query for the ``num_*`` counts, whose
        sums would grow with the group's size), ``gap = max - min`` of those means, ``ratio
        = max / min`` (inf when the lowest is 0), the lowest group (``worst_group``; the
        registry declares no direction, so "worst" is the lowest value, as ``slices()``'s
        worst first) and the highest (``best_group``), each with its mean.

        The test is of "every group has the same distribution": ``"permutation"`` shuffles
        the group labels over the queries ``n_permutations`` times from ``seed`` and
        counts the shuffles whose gap is at least the observed one (the statistic is the
        gap itself, the number reported); ``"rank"`` is the Kruskal-Wallis H test (as
        ``scipy.stats.kruskal``), ``"anova"`` the one-way ANOVA F test (as
        ``scipy.stats.f_oneway``). The interval of the gap is a percentile bootstrap
        resampling queries within each group (``n_resamples`` times from ``seed``); the
        maximum of resampled means is biased upwards, so when the groups are close the
        interval may lie above the gap. ``p_adjusted`` corrects over every (system,
        metric) of the call, ``n_tested`` says how many; ``significant`` is ``p_adjusted <
        1 - confidence_level``.

        With ``baseline="col"``: is the change from the baseline the same for every group
        (the group x system interaction)? Each other system's per-query difference from
        the baseline (of ``log(max(value, 1e-5))`` for a geometric mean) takes the values'
        place: the group means are the groups' mean changes (``worst_delta``,
        ``best_delta``), the gap their spread (the ratio is NaN: a ratio of changes of
        either sign means nothing), and the tests shuffle the group labels of the
        differences (``"permutation"``), or are Kruskal-Wallis and the one-way ANOVA of the
        differences.

        One row per (system, metric), systems in order (without the baseline), the keys and
        the answer first: ``system``, ``metric``, ``k``, ``gap``, ``ci_low``, ``ci_high``,
        ``p_value``, ``significant``, then ``ratio``, ``worst_group``, ``worst_mean``,
        ``best_group``, ``best_mean`` (or ``worst_delta``, ``best_delta``), ``p_adjusted``,
        ``n_groups``, ``n_queries`` and ``n_tested``. A frame of the input's kind. A group
        whose value is missing (null, NaN) is named ``(missing)``.

        Parameters
        ----------
        metrics
            Metrics, as in ``evaluate``; set-level metrics (``coverage``) have no
            per-query values and are refused.
        by
            The column(s) naming each query's group.
        baseline
            A score column: test whether each other system's change from it is the same in
            every group.
        test
            ``"permutation"``, ``"rank"`` (Kruskal-Wallis) or ``"anova"`` (one-way F).
        correction
            ``"holm"``, ``"bonferroni"``, ``"fdr_bh"`` or ``None``, over every row.
        confidence_level
            Level of the interval of the gap; ``1 - confidence_level`` is the level of
            ``significant``.
        n_permutations
            Shuffles of the permutation test (its p-values are at least ``1 /
            (n_permutations + 1)``).
        n_resamples
            Resamples of the bootstrap interval.
        seed
            Seed of both resamplings; the same seed gives the same table.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2, 3, 3, 4, 4], "item": ["x", "y"] * 4,
        ...                    "score": [0.9, 0.1] * 4, "relevant": [1, 0, 1, 0, 0, 1, 0, 1],
        ...                    "age": ["young"] * 4 + ["old"] * 4})

        Reciprocal ranks 1, 1 (young) and 0.5, 0.5 (old): a gap of 0.5, a ratio of 2.
        Two of the 4! / (2! 2!) = 6 ways to share the queries between the groups keep them
        apart, so the exact p-value is 1/3; 2,000 shuffles estimate it:

        >>> out = df.rank_eval.gaps("mrr", "age", n_permutations=2000)
        >>> out[["metric", "gap", "ratio", "worst_group", "best_group"]]
          metric  gap  ratio worst_group best_group
        0    mrr  0.5    2.0         old      young
        >>> round(float(out["p_value"].iloc[0]), 2)
        0.31
        """
        options = options_from(chosen)
        parsed, options = bound(parse_metrics(metrics), options, chosen)
        by_list = as_columns(by)
        if not by_list:
            raise InvalidOptionError(
                "gaps() needs a by= column naming each query's group, "
                "e.g. gaps('ndcg@10', by='age_band')."
            )
        self._binding.check_columns(by_list)
        # the test is gaps()'s own (validate_params); Tests checks the other settings
        tests = _table_tests(
            "permutation", correction, confidence_level, n_permutations, n_resamples, seed
        )
        result = Gaps(baseline=self._baseline_position(baseline), test=test, tests=tests)
        request = self._binding.request(parsed, by_list, options, result)
        return self._table(request)

    @arguments_checked
    @validate_params(
        {
            "delta": params.CHANGE,
            "alpha": params.PROBABILITY,
            "power": params.PROBABILITY,
            "alternative": params.ALTERNATIVE,
            "baseline": params.PAIRED_BASELINE,
            "relative": params.FLAG,
        },
        scores_of,
    )
    @option_keywords
    def sample_size(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        delta: float,
        by: str | Sequence[str] | None = None,
        baseline: str | None = None,
        reference: Any = None,
        relative: bool = False,
        alpha: float = 0.05,
        power: float = 0.8,
        alternative: Literal["two-sided", "less", "greater"] = "two-sided",
        **chosen: Any,
    ) -> pd.DataFrame:
        """How many queries a t-test needs to detect a change of ``delta``, and how many
        are in hand.

        With ``baseline="col"``: each other system's paired per-query differences from the
        baseline (the paired t-test of ``compare()``), ``delta`` absolute or (``relative=
        True``) a fraction of the baseline's mean. Without: a sample like this frame against
        another of the same size (two samples, each system's own spread), ``delta`` absolute
        or a fraction of this frame's mean. The effect size is ``delta`` over the observed
        standard deviation (of the differences, or of the values); ``n_needed`` is the
        smallest whole number of queries (per sample, for two) at which the t-test at
        ``alpha`` reaches ``power``: the ceiling of statsmodels' ``TTestPower`` (paired) or
        ``TTestIndPower`` (two samples, ``ratio=1``) ``solve_power``. ``inf`` when the
        one-sided ``alternative`` looks the other way; NaN when the values do not vary.

        With ``reference=other_frame`` (bound with the same column names, as in
        ``compare(reference=...)``): each system of this frame against the same system of
        the reference, two samples of equal size (``TTestIndPower``, ``ratio=1``), always
        (for a paired design, put both systems in one frame and pass ``baseline=``). The
        standard deviation is the pooled one of the two frames' per-query values,
        ``sqrt(((n1 - 1) s1**2 + (n2 - 1) s2**2) / (n1 + n2 - 2))`` (each ``s`` with
        ``ddof=1``); ``delta`` is absolute or a fraction of the reference's mean;
        ``n_needed`` is per side, ``n_reference`` the reference's queries in hand, and
        ``enough`` says both sides hold ``n_needed``.

        With ``by=`` (columns constant within a query, as elsewhere): one row per segment,
        system and metric, the ``by`` columns first, each segment's figures from its own
        queries (and, with ``reference=``, the reference's queries of the same segment):
        its standard deviation, its baseline's mean for ``relative=True``, and the queries
        it holds (``n_queries``), so ``enough`` says whether that segment alone decides.
        Segments in sorted order, a missing value last.

        One row per (system, metric), the answer first: ``system``, ``metric``, ``n_needed``,
        ``n_queries`` (in hand, with a value), ``enough``, ``delta`` (absolute),
        ``effect_size``, ``sd``, ``test``. A pandas frame for every frame kind (it reads
        ``per_query()``'s values once, and the reference's once).

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2, 3, 3, 4, 4], "item": ["x", "y"] * 4,
        ...                    "a": [0.9, 0.1] * 4, "b": [0.1, 0.9, 0.9, 0.1] * 2,
        ...                    "relevant": [1, 0, 1, 0, 0, 1, 0, 1]})

        Reciprocal ranks, a: 1, 1, 1/2, 1/2; b: 1/2, 1, 1, 1/2. The differences b - a
        (-1/2, 0, 1/2, 0) have a standard deviation of sqrt(1/6) = 0.408, so a change of
        0.1 is an effect of 0.245: a paired t-test at 5% needs 133 queries for 80% power
        (statsmodels' ``TTestPower().solve_power(0.1 / (1 / 6) ** 0.5, alpha=0.05,
        power=0.8)`` is 132.7).

        >>> out = df.rank_eval(score=["a", "b"]).sample_size("mrr", delta=0.1, baseline="a")
        >>> out[["system", "metric", "n_needed", "n_queries", "enough"]]
          system metric  n_needed  n_queries  enough
        0      b    mrr     133.0          4   False
        """
        by_list = as_columns(by)
        self._binding.check_columns(by_list)
        other = None
        if reference is not None:
            params.check_baseline_or_reference("sample_size", baseline)
            other = reference_binding(self._names, reference, by_list, None)
        settings = _design(delta, relative, alpha, power, alternative)
        return self._sample_sizes(metrics, by_list, baseline, other, settings, chosen)

    def _sample_sizes(
        self,
        metrics: Any,
        by_list: list[str],
        baseline: str | None,
        other: Binding | None,
        settings: dict[str, Any],
        chosen: dict[str, Any],
    ) -> pd.DataFrame:
        """``sample_size()``'s table from ``per_query()``'s values (and the reference's,
        ``other``), per ``by`` segment."""
        systems = list(self._names.scores)
        segments = by_list or None
        table: Any = results.as_pandas(self.per_query(metrics, by=segments, **chosen))
        keys = list(self._names.query_key)
        labels = [str(c) for c in table.columns if c not in (*keys, *by_list, "system")]
        if other is not None:
            theirs = results.as_pandas(
                type(self)(other.frame, other.names).per_query(metrics, by=segments, **chosen)
            )
            return per_segment(
                lambda mine, them: reference_sample_sizes(
                    mine, cast(Any, them), labels, keys, systems, **settings
                ),
                table,
                by_list,
                cast(Any, theirs),
            )
        return per_segment(
            lambda mine, _: sample_sizes(mine, labels, keys, systems, baseline, **settings),
            table,
            by_list,
        )

    def _baseline_position(self, baseline: str | None) -> int | None:
        """The position of ``slices()``'s or ``gaps()``'s baseline (checked:
        ``params.PAIRED_BASELINE``) among the score columns."""
        return None if baseline is None else list(self._names.scores).index(baseline)
