"""trec_eval's other measures: every measure of ``trec_eval -m all_trec``, as metrics.

Each is defined from trec_eval's own definition (its ``m_*.c``) and checked against its
test outputs (``tests/references/test_trec_measures.py``). Notation as in
:mod:`rankframe.metrics.relevance`, plus, for one query: N the number of retrieved rows; a
row is *unjudged* when the frame says so (a ``judged`` column, or a null grade with
``unjudged="nonrelevant"``; trec_eval: a document outside the qrels) or when its grade is
negative (trec_eval: in the pool but not judged, grade -1 in qrels); *judged non-relevant*
rows are the judged rows of grade ≥ 0 that are not relevant. An unjudged row counts as grade
0 for every other metric.

A module per family of measures, each declaring its own (``DEFINITIONS``, with
:func:`.declare.declare`) and independent of the others (an import-linter contract):
:mod:`.counts` (``num_ret``, ...: summed over queries), :mod:`.judged` (incomplete
judgments: ``bpref``, ``infAP``, ``unj``, and ir_measures' ``Judged@k``), :mod:`.precision`
(interpolated precision, ``Rprec_mult``, ``gm_map``), :mod:`.sets` (the retrieved set) and
:mod:`.gains` (graded gain: ``G``, ``ndcg_rel``, ``Rndcg``, ``rbp``). :data:`DEFINITIONS`
holds them all in the order trec_eval prints them, the order of the registry;
:data:`OTHER_TOOLS` those that other tools report and trec_eval does not (``judged``),
registered after them. :mod:`.vocabulary` holds what the registry also learns of trec_eval
once every metric is declared: its spellings of the other metrics (``set_P``), its default
parameters and the named sets ``official`` and ``all_trec``. :mod:`rankframe.metrics`
registers them all.
"""

from __future__ import annotations

from rankframe.metrics.trec import counts, gains, judged, precision, sets
from rankframe.metrics.trec.vocabulary import (
    NAMED_SETS,
    in_printed_order,
    trec_defaults,
    whole_list_spellings,
)

__all__ = [
    "DEFINITIONS",
    "NAMED_SETS",
    "OTHER_TOOLS",
    "trec_defaults",
    "whole_list_spellings",
]

#: Every measure of trec_eval's families, in the order trec_eval prints them.
DEFINITIONS = in_printed_order(
    (
        *counts.DEFINITIONS,
        *judged.DEFINITIONS,
        *precision.DEFINITIONS,
        *sets.DEFINITIONS,
        *gains.DEFINITIONS,
    )
)
#: The measures of these families that other tools report and trec_eval does not
#: (ir_measures' ``Judged@k``), registered after trec_eval's.
OTHER_TOOLS = judged.OTHER_TOOLS
