"""Statistics over per-query values, in modules by job: :mod:`~rankframe.stats.paired` (paired
t, Wilcoxon and sign-flip tests), :mod:`~rankframe.stats.intervals` (t and bootstrap
intervals), :mod:`~rankframe.stats.two_sample` (their two-sample forms),
:mod:`~rankframe.stats.subsets` (many subsets at once, for ``slices()``),
:mod:`~rankframe.stats.groups` (equal group means, for ``gaps()``),
:mod:`~rankframe.stats.corrections` (of p-values), :mod:`~rankframe.stats.power` (sample
size), :mod:`~rankframe.stats.agreement` (a judge's grades against people's, and two orders of
systems) and :mod:`~rankframe.stats.ppi` (prediction-powered means from a judge's and people's
per-query values); :mod:`~rankframe.stats.resampling` says how they draw. ``inference``
re-exports the names of earlier releases under their former path (the rooms from before the
split; ``agreement`` and ``ppi`` came after it).

The tests and intervals take the per-query values (or paired differences) with the queries
along axis 0 and any number of independent columns after it (systems x metrics, ...): a
``(n_queries, m)`` array gives ``m`` results, a 1-D array a 0-d result. Nothing loops over
queries or resamples in Python (only over chunks of them, to bound memory). The tests are
implemented here and checked in ``tests/statistics/test_stats.py`` against
:mod:`scipy.stats`; scipy only supplies the t and normal distribution functions.

A column containing NaN gives NaN results (scipy's ``nan_policy="propagate"``). The settings
(``confidence_level``, ``n_resamples``, the correction) arrive checked: the public API builds
them once, as :mod:`rankframe.settings.statistics` objects, and they are not checked again
here. A bad array (no query axis, segment codes out of range, two samples of different
columns) raises :class:`~rankframe.exceptions.InvalidOptionError` (a ``ValueError``).
"""
