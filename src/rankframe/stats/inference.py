"""The statistics' former single module, kept so that ``rankframe.stats.inference.<name>``
(the path earlier releases documented) still works: every name re-exported from the
modules that now hold it (a compatibility path; new code imports those modules).

==================================  ====================================================
:mod:`~rankframe.stats.paired`      paired t-test, Wilcoxon signed-rank, sign-flip test
:mod:`~rankframe.stats.intervals`   t interval, bootstrap intervals and test
:mod:`~rankframe.stats.two_sample`  Welch, two-sample permutation and bootstrap,
                                    Mann-Whitney, t-test from an estimate
:mod:`~rankframe.stats.subsets`     many subsets of one pool at once (slices)
:mod:`~rankframe.stats.groups`      equal group means (gaps)
:mod:`~rankframe.stats.corrections` Holm, Bonferroni, Benjamini-Hochberg
:mod:`~rankframe.stats.power`       power, detectable effect, sample size
==================================  ====================================================
"""

from __future__ import annotations

from rankframe.stats.corrections import Adjustment, adjust
from rankframe.stats.groups import (
    group_gap,
    group_gap_interval,
    group_means,
    group_permutation_test,
    kruskal_test,
    one_way_anova,
)
from rankframe.stats.intervals import (
    bootstrap_interval,
    bootstrap_statistic,
    bootstrap_test,
    t_interval,
)
from rankframe.stats.paired import paired_t_test, permutation_test, wilcoxon_test
from rankframe.stats.power import t_test_detectable_effect, t_test_power, t_test_sample_size
from rankframe.stats.subsets import subset_permutation_test, subset_sign_flip_test
from rankframe.stats.two_sample import (
    ALTERNATIVES,
    mann_whitney_test,
    t_test_of,
    two_sample_bootstrap_interval,
    two_sample_bootstrap_test,
    two_sample_permutation_test,
    welch_error,
    welch_interval,
    welch_t_test,
)

__all__ = [
    "ALTERNATIVES",
    "Adjustment",
    "adjust",
    "bootstrap_interval",
    "bootstrap_statistic",
    "bootstrap_test",
    "group_gap",
    "group_gap_interval",
    "group_means",
    "group_permutation_test",
    "kruskal_test",
    "mann_whitney_test",
    "one_way_anova",
    "paired_t_test",
    "permutation_test",
    "subset_permutation_test",
    "subset_sign_flip_test",
    "t_interval",
    "t_test_detectable_effect",
    "t_test_of",
    "t_test_power",
    "t_test_sample_size",
    "two_sample_bootstrap_interval",
    "two_sample_bootstrap_test",
    "two_sample_permutation_test",
    "welch_error",
    "welch_interval",
    "welch_t_test",
    "wilcoxon_test",
]
