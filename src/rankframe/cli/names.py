"""What the subcommands' help texts and choices list, declared here without the modules that
own it: those import pandas, polars or pyarrow, and ``rankframe COMMAND --help`` (or a usage
error) imports none of them (a frame library loads when a file is read).

The command line's own lists (the default metrics, the input and output formats) are
defined here; the others are copies of their owners' (the metric registry, trec_eval's
measures, the rules' grammar, the time units, the tests of ``gaps()``), which
``tests/cli/test_cli_start.py`` keeps equal to them: a metric added to the registry fails
that test until its name is added here.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_METRICS",
    "GAP_TESTS",
    "INPUT_FORMATS",
    "METRICS",
    "OUTPUT_FORMATS",
    "RULE_GRAMMAR",
    "TIME_UNITS",
    "TREC_MEASURES",
]

#: the metrics of evaluate, compare and the others without -m
DEFAULT_METRICS = [
    "mrr@10",
    "ndcg@10",
    "map@100",
    "acc@1",
    "acc@10",
    "precision@10",
    "recall@100",
]
#: the input formats by extension (--input-format's choices: the formats)
INPUT_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
#: --format's choices (compare adds latex and paper)
OUTPUT_FORMATS = ("table", "csv", "json", "markdown")

#: the metric registry's names, in its order (``rankframe.metrics.registry.METRICS``)
METRICS = (
    "mrr",
    "ndcg",
    "map",
    "acc",
    "precision",
    "recall",
    "r_precision",
    "coverage",
    "gini",
    "entropy",
    "personalization",
    "arp",
    "novelty",
    "ild",
    "top1_f1",
    "exposure",
    "exposure_ratio",
    "exposure_gap",
    "awrf",
    "ndkl",
    "expected_exposure",
    "ee_disparity",
    "ee_relevance",
    "dcg",
    "hit_count",
    "f1",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "gm_map",
    "bpref",
    "iprec",
    "infap",
    "gm_bpref",
    "rprec_mult",
    "utility",
    "eleven_point_avg",
    "bin_g",
    "normalized_gain",
    "ndcg_rel",
    "r_ndcg",
    "relative_precision",
    "set_map",
    "set_f",
    "num_nonrel_judged_ret",
    "rbp",
    "rbp_resid",
    "unjudged",
    "judged",
)
#: the trec_eval measures rankframe computes, in trec_eval's order
#: (``rankframe.trec.measures.TREC_MEASURES``' names)
TREC_MEASURES = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "dcg",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "rbp",
    "rbp_resid",
    "unj",
)
#: a gate rule's grammar (``rankframe.api.rules.GRAMMAR``), for check's --rule
RULE_GRAMMAR = (
    "A rule reads 'METRIC OP BOUND' with OP one of >=, <=, >, < (e.g. 'ndcg@10 >= 0.30', "
    "'mrr@10 <= 0.9'), or 'METRIC drop <= TOLERANCE' (also 'drop <'), the tolerance an "
    "absolute decrease ('ndcg@10 drop <= 0.01') or one relative to the baseline "
    "('ndcg@10 drop <= 1%'). METRIC is any metric name as evaluate() reads it "
    "('P_10', 'f1@5(beta=2)')."
)
#: the units of an integer --time column (``rankframe.pipeline.windows.TIME_UNITS``)
TIME_UNITS = ("s", "ms", "us", "ns")
#: the tests of ``gaps()`` (``rankframe.pipeline.gaps.GAP_TESTS``)
GAP_TESTS = ("permutation", "rank", "anova")
