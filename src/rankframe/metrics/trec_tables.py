"""trec_eval's own tables, written once: its measures, their parameters and its nicknames.

Both readers of trec_eval's vocabulary take it from here: the metric registry
(:mod:`rankframe.metrics` registers trec_eval's default parameters, its ``set_`` names and
the named sets ``official`` and ``all_trec``, which :mod:`rankframe.metrics.trec` reads
from these tables) and
:mod:`rankframe.trec.measures` (what ``rankframe trec`` prints and its ``-m`` syntax). The
module holds data only and imports nothing of rankframe, so the registry can read it while
it is being filled.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "DEFAULTS_ONLY",
    "NICKNAMES",
    "NOT_METRICS",
    "TREC_EVAL",
    "TREC_EVAL_ORDER",
    "WHOLE_LIST",
    "Kind",
    "Params",
    "defaults_of",
    "params_of",
]

Kind = Literal["metric", "runid", "num_q", "relstring"]
# how trec_eval reads a measure's parameters (meas_init.c): none, integer cut-offs (P_10),
# real cut-offs printed with 2 decimals (iprec_at_recall_0.10), or one number printed as
# typed (relstring_20)
Params = Literal["none", "cutoffs", "levels", "length"]

_LONG = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_TENTHS = tuple(i / 10 for i in range(11))
_FIFTHS = tuple(i / 5 for i in range(1, 11))

# trec_eval 10's measures in the order it prints them (te_trec_measures in measures.c): name,
# how it takes parameters and its defaults. Measures whose parameters rankframe does not take
# (ndcg's gain pairs, utility's coefficients, set_F's beta, rbp's persistence) are "none":
# rankframe computes them with trec_eval's defaults.
TREC_EVAL: tuple[tuple[str, Params, tuple[float, ...]], ...] = (
    ("runid", "none", ()),
    ("num_q", "none", ()),
    ("num_ret", "none", ()),
    ("num_rel", "none", ()),
    ("num_rel_ret", "none", ()),
    ("map", "none", ()),
    ("gm_map", "none", ()),
    ("Rprec", "none", ()),
    ("bpref", "none", ()),
    ("recip_rank", "none", ()),
    ("iprec_at_recall", "levels", _TENTHS),
    ("P", "cutoffs", _LONG),
    ("relstring", "length", (10,)),
    ("recall", "cutoffs", _LONG),
    ("infAP", "none", ()),
    ("gm_bpref", "none", ()),
    ("Rprec_mult", "levels", _FIFTHS),
    ("utility", "none", ()),
    ("11pt_avg", "none", ()),
    ("binG", "none", ()),
    ("G", "none", ()),
    ("dcg", "none", ()),
    ("ideal_dcg", "none", ()),
    ("ndcg", "none", ()),
    ("ndcg_rel", "none", ()),
    ("Rndcg", "none", ()),
    ("ndcg_cut", "cutoffs", _LONG),
    ("map_cut", "cutoffs", _LONG),
    ("relative_P", "cutoffs", _LONG),
    ("success", "cutoffs", (1, 5, 10)),
    ("set_P", "none", ()),
    ("set_relative_P", "none", ()),
    ("set_recall", "none", ()),
    ("set_map", "none", ()),
    ("set_F", "none", ()),
    ("num_nonrel_judged_ret", "none", ()),
    ("prefs_num_prefs_poss", "none", ()),
    ("prefs_num_prefs_ful", "none", ()),
    ("prefs_num_prefs_ful_ret", "none", ()),
    ("prefs_simp", "none", ()),
    ("prefs_pair", "none", ()),
    ("prefs_avgjg", "none", ()),
    ("prefs_avgjg_Rnonrel", "none", ()),
    ("prefs_simp_ret", "none", ()),
    ("prefs_pair_ret", "none", ()),
    ("prefs_avgjg_ret", "none", ()),
    ("prefs_avgjg_Rnonrel_ret", "none", ()),
    ("prefs_simp_imp", "none", ()),
    ("prefs_pair_imp", "none", ()),
    ("prefs_avgjg_imp", "none", ()),
    ("map_avgjg", "none", ()),
    ("P_avgjg", "cutoffs", _LONG),
    ("Rprec_mult_avgjg", "levels", _FIFTHS),
    ("yaap", "none", ()),
    ("rbp", "none", ()),
    ("rbp_resid", "none", ()),
    ("ndcg_p", "none", ()),
    ("unj", "cutoffs", (5, 10, 20)),
    ("Runj", "none", ()),
    ("num_nonjudged_ret", "none", ()),
)
TREC_EVAL_ORDER = tuple(name for name, _, _ in TREC_EVAL)
_BY_NAME = {name: (params, defaults) for name, params, defaults in TREC_EVAL}

# trec_eval's nicknames (te_trec_measure_nicknames in measures.c)
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
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
    ),
    "all_trec": (
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
    ),
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
}
# the measures that are not metrics: the run's name, the number of queries (both printed
# only for `all`) and the grades of the first documents (printed only per query)
NOT_METRICS: dict[str, Kind] = {"runid": "runid", "num_q": "num_q", "relstring": "relstring"}
# measures whose trec_eval parameters rankframe does not take (gain values, utility's
# coefficients, F's beta, the persistence of rbp, recall levels of 11pt_avg)
DEFAULTS_ONLY = frozenset(
    {
        "ndcg",
        "ndcg_rel",
        "Rndcg",
        "dcg",
        "ideal_dcg",
        "utility",
        "set_F",
        "rbp",
        "rbp_resid",
        "11pt_avg",
        "ndcg_p",
    }
)
# trec_eval's set measures that are a cut-off measure over the whole retrieved list:
# set_P is P at no cut-off
WHOLE_LIST = {"set_P": "P", "set_recall": "recall", "set_relative_P": "relative_P"}


def params_of(name: str) -> Params:
    """How trec_eval measure ``name`` takes parameters (``"none"`` for an unknown name)."""
    return _BY_NAME.get(name, ("none", ()))[0]


def defaults_of(name: str) -> tuple[float, ...]:
    """trec_eval's default parameters of measure ``name`` (``P``: 5, 10, ..., 1000).

    Examples
    --------
    >>> defaults_of("success"), defaults_of("map")
    ((1, 5, 10), ())
    """
    return _BY_NAME.get(name, ("none", ()))[1]
