"""The one registry of metrics, and the parser of metric strings.

Each metric is declared once, as a :class:`MetricDef` in a module of
:mod:`rankframe.metrics` (whose ``__init__`` registers them all with :func:`register`): its
canonical name, aliases, trec_eval spellings, whether it takes a cut-off ``k``, which options
change it (declarations of :mod:`rankframe.settings.options`), its per-query computation, what it
allows (shared ranks, a tie-averaged form) and its documentation. Parsing (``"ndcg@10"``,
``"P_10"``), the "did you mean" of an unknown name, the accessor's metric methods
(``df.rank_eval.ndcg(k, **options)``, generated in :mod:`rankframe.api.accessor`), the docs and
the test matrix all read this registry.

A room per job, each importing only the ones below it (an import-linter contract):

- :mod:`.declaration`: what a metric is (:class:`MetricDef`; :class:`Metric`, a metric as a
  call names it, and its label) and the declarations registered (:data:`METRICS`);
- :mod:`.lookup`: registering a declaration, trec_eval's spellings, default parameters and
  named sets, and looking a spelling up;
- :mod:`.parsing`: metric strings read into metrics (:func:`parse_metric`,
  :func:`parse_metrics`), trec_eval's name of a metric (:func:`trec_label`);
- :mod:`.call_options`: the options of a call bound into its metrics (:func:`bind_options`)
  and their labels (:func:`labels`).

This package re-exports their public names, the path every layer above imports.
"""

from rankframe.metrics.params import CUTOFF, Param
from rankframe.metrics.registry.call_options import bind_options, labels
from rankframe.metrics.registry.declaration import (
    AGGREGATES,
    GEOMETRIC_FLOOR,
    METRICS,
    Metric,
    MetricDef,
    preset_of,
)
from rankframe.metrics.registry.lookup import (
    NAMED_SETS,
    on_register,
    register,
    register_set,
    register_spelling,
    set_trec_defaults,
    unregister,
)
from rankframe.metrics.registry.parsing import check_k, parse_metric, parse_metrics, trec_label

__all__ = [
    "AGGREGATES",
    "CUTOFF",
    "GEOMETRIC_FLOOR",
    "METRICS",
    "NAMED_SETS",
    "Metric",
    "MetricDef",
    "Param",
    "bind_options",
    "check_k",
    "labels",
    "on_register",
    "parse_metric",
    "parse_metrics",
    "preset_of",
    "register",
    "register_set",
    "register_spelling",
    "set_trec_defaults",
    "trec_label",
    "unregister",
]
