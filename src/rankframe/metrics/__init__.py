"""The metrics, grouped by what they measure; the one place the registry is filled.

- :mod:`~rankframe.metrics.relevance`: the relevance of the ranked list (``mrr``, ``ndcg``,
  ``dcg``, ``map``, ``acc``, ``precision``, ``recall``, ``r_precision``, ``f1``,
  ``hit_count``);
- :mod:`~rankframe.metrics.trec`: trec_eval's other measures (every one of
  ``-m all_trec``) and ir_measures' ``Judged@k`` (``judged``), and what the registry learns
  from trec_eval's tables;
- :mod:`~rankframe.metrics.items`: the metrics of the recommended items themselves (the
  beyond-accuracy metrics, ``top1_f1``), computed in the finish step by
  :mod:`rankframe.metrics.item_values`;
- :mod:`~rankframe.metrics.common`: what they share (the array types, the one rule of
  division).

Each module declares its metrics (tuples of :class:`~rankframe.metrics.registry.MetricDef`) and
registers nothing; importing this package registers them, in the order of
``rankframe.METRICS``, which the docs' tables and every output follow. Then, once every
metric is known, trec_eval's default parameters, its spellings of whole-list measures
(``set_P``) and its named sets (``official``, ``all_trec``).
"""

from __future__ import annotations

from rankframe.metrics import items, relevance, trec
from rankframe.metrics.registry import (
    METRICS,
    register,
    register_set,
    register_spelling,
    set_trec_defaults,
)

for _definition in (
    *relevance.DEFINITIONS,
    *items.DEFINITIONS,
    *relevance.OTHER_TOOLS,
    *trec.DEFINITIONS,
    *trec.OTHER_TOOLS,
):
    register(_definition)

for _name, _defaults in trec.trec_defaults(METRICS.values()).items():
    set_trec_defaults(_name, _defaults)
for _spelling, _metric in trec.whole_list_spellings(METRICS.values()).items():
    register_spelling(_spelling, _metric)
for _nickname, _specs in trec.NAMED_SETS.items():
    register_set(_nickname, _specs)
