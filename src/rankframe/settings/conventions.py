"""Presets: the options that reproduce another tool's numbers, declared once.

``convention="lenskit"`` on any metric call (and ``rankframe evaluate --convention``) sets
the options of :data:`CONVENTIONS` ``["lenskit"]``; an option passed explicitly wins over the
preset. The table of each preset in ``docs/conventions.md`` is checked against this data by
the test suite, and what each preset cannot reproduce is written beside it there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from rankframe.settings.options import OptionDef, none_or_choice

__all__ = ["CONVENTION", "CONVENTIONS", "Convention", "ConventionName", "preset_options"]

ConventionName = Literal[
    "trec_eval",
    "torchmetrics",
    "sklearn",
    "recommenders",
    "lenskit",
    "evidently",
    "ir_measures",
    "ranx",
    "trec_fair",
]


@dataclass(frozen=True)
class Convention:
    """One preset.

    Attributes
    ----------
    name
        The value of ``convention=``.
    tool
        The tool and the versions whose behaviour it reproduces.
    options
        Option name → value; options not listed keep their defaults (trec_eval's).
    ties
        How the tool orders equal scores, when the preset's ``ties`` is only the closest
        defined order to it.
    """

    name: str
    tool: str
    options: Mapping[str, Any]
    ties: str = ""


CONVENTIONS: Mapping[str, Convention] = MappingProxyType(
    {
        c.name: c
        for c in [
            Convention("trec_eval", "trec_eval 10 (pytrec-eval-terrier 0.5.11)", {}),
            Convention(
                "ir_measures",
                "ir_measures 0.4.3 (its default providers)",
                {},
                ties="item id descending (pytrec_eval); its RR@k (msmarco provider): item id "
                'ascending, ties="item_ascending"',
            ),
            Convention(
                "ranx",
                "ranx 0.3.21",
                {"ties": "first"},
                ties="its sort's order (numba's quicksort): the frame's order for short lists, "
                "arbitrary for long ones",
            ),
            Convention(
                "torchmetrics",
                "torchmetrics 1.9.0 (retrieval)",
                {"ap_denominator": "hits"},
                ties='NDCG: averaged over tie orders (evaluate ndcg with ties="average" to match '
                "it on tied scores); the others: torch.topk's order, unspecified",
            ),
            # scikit-learn's ndcg_score averages over the orders of tied items: ties="average"
            Convention("sklearn", "scikit-learn 1.9.1 ndcg_score, dcg_score", {"ties": "average"}),
            Convention(
                "recommenders",
                "Microsoft Recommenders 1.2 (python_evaluation)",
                # users with truth but no prediction: ndcg_at_k counts them 0 (it merges the
                # truth back in); precision_at_k, recall_at_k, map_at_k, map, r_precision_at_k
                # leave them out
                {
                    "ties": "first",
                    "ap_denominator": "min_k",
                    "empty": "skip",
                    "empty_list": "nan_except_ndcg",
                },
            ),
            Convention(
                # LensKit 2026.1 clips negative gains to 0 (negative_gains="zero", the default);
                # LensKit 2025's negative gains are negative_gains="keep". A user with test items,
                # none rated above 0, gets NDCG 0 (its ideal DCG is 0): a negative grade marks a
                # test item (empty_ndcg)
                "lenskit",
                "LensKit 2026.1 (lenskit.metrics.ranking)",
                {
                    "ties": "first",
                    "denominator": "min_k",
                    "ap_denominator": "min_retrieved",
                    "precision_denominator": "retrieved",
                    "empty": "nan",
                    "empty_list": "nan",
                    "discount": "log2(max(rank,2))",
                    "empty_ndcg": "no_relevant_or_negative",
                },
                ties="lists come ordered: the frame's order",
            ),
            Convention(
                "evidently",
                "Evidently (legacy recsys metrics, evidently.legacy.metrics.recsys)",
                {
                    "ties": "truncated_average",
                    "precision_denominator": "retrieved",
                    "empty": "skip",
                },
            ),
            Convention(
                # Task 1's AWRF (2021: trec2021-fair-public's metrics.py, 2022: wptrec's
                # AWRFMetric):
                # attention 1/log2(max(rank, 2)) over the whole run, 1 - scipy's jensenshannon
                # squared (natural log, the divergence in nats); their nDCG (binary, the same
                # discount) is ndcg under the same preset
                "trec_fair",
                "TREC Fair Ranking 2021-2022 evaluation scripts (Task 1, AWRF)",
                {"discount": "log2(max(rank,2))", "jsd_unit": "nats"},
                ties="a run lists its documents in rank order (no equal scores: bind score to "
                "minus the rank)",
            ),
        ]
    }
)
"""Every preset, by name."""


CONVENTION: OptionDef[str | None] = OptionDef(
    "convention",
    None,
    ConventionName | None,
    check=none_or_choice("convention", tuple(CONVENTIONS)),
    doc='Set the options that reproduce another tool\'s numbers: ``"trec_eval"`` (the '
    'defaults), ``"torchmetrics"``, ``"sklearn"``, ``"recommenders"``, '
    '``"lenskit"``, ``"evidently"``, ``"ir_measures"``, ``"ranx"`` or '
    '``"trec_fair"`` (see '
    "docs/conventions.md). Options passed explicitly win over the preset.",
)


def preset_options(
    convention: object, given: Iterable[str], accepted: Iterable[str]
) -> dict[str, Any]:
    """The options ``convention`` sets among ``accepted``, except those ``given``
    explicitly (which win); raises for an unknown convention."""
    CONVENTION.validate(convention)
    if convention is None:
        return {}
    explicit, wanted = set(given), set(accepted)
    preset = CONVENTIONS[str(convention)].options
    return {n: v for n, v in preset.items() if n in wanted and n not in explicit}
