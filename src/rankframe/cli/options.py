"""The flag groups that several subcommands share: the input file and its columns, the
metrics and their options, other tools' conventions, time windows, tests and intervals, and
the output. The subcommands are assembled in ``parser`` (``check`` in ``gate``, ``report``
in ``report``). Nothing here loads a frame library (the lists the help texts show are
``names``'): a subcommand's ``--help`` reads no file and imports none."""

from __future__ import annotations

import argparse
from typing import get_args

from rankframe.cli.names import DEFAULT_METRICS, INPUT_FORMATS, METRICS, OUTPUT_FORMATS, TIME_UNITS
from rankframe.settings.conventions import CONVENTIONS
from rankframe.settings.options import CORRECTION, FAMILY, OPTIONS, TEST, ApDenominator
from rankframe.settings.params import ESTIMATES


def _metric_help() -> str:
    """The -m help of evaluate and compare: the metrics of the registry."""
    return (
        f"a metric: {', '.join(METRICS)}, with @k for a cut-off (mrr@10, ndcg@10), or "
        "trec_eval's names (P_10, recip_rank); repeat, or separate with commas (default: "
        f"{' '.join(DEFAULT_METRICS)})"
    )


def add_input(parser: argparse.ArgumentParser, *, several_scores: str) -> None:
    """FILE, --input-format and the columns by role (``several_scores``: --score's help)."""
    data = parser.add_argument_group("input")
    data.add_argument(
        "file",
        metavar="FILE",
        help="long-format data, one row per (query, item): .csv, .tsv, .parquet/.pq, "
        ".jsonl/.ndjson; '-' reads CSV from standard input",
    )
    data.add_argument(
        "--input-format",
        choices=sorted(set(INPUT_FORMATS.values())),
        help="format of FILE when its extension does not tell",
    )
    data.add_argument(
        "--query", default="query", metavar="COL", help="query column (default: %(default)s)"
    )
    data.add_argument(
        "--item", default="item", metavar="COL", help="item column (default: %(default)s)"
    )
    data.add_argument("--score", action="append", metavar="COL", help=several_scores)
    data.add_argument(
        "--relevant",
        default="relevant",
        metavar="COL",
        help="relevance grade column (default: %(default)s)",
    )


def add_metric_options(parser: argparse.ArgumentParser) -> None:
    """The "metrics" group: -m, --by and the metric options, with the conventions'."""
    group = parser.add_argument_group("metrics")
    group.add_argument(
        "-m",
        "--metric",
        action="append",
        metavar="METRIC",
        help=_metric_help(),
    )
    group.add_argument(
        "--by",
        action="append",
        metavar="COL",
        help="segment column, constant within a query (repeatable)",
    )
    group.add_argument(
        "--min-relevance",
        type=float,
        metavar="GRADE",
        help="lowest grade that counts as relevant (default: grade > 0)",
    )
    group.add_argument(
        "--ties",
        choices=OPTIONS["ties"].choices,
        help="order among equal scores (default: trec, item id descending)",
    )
    group.add_argument(
        "--empty",
        choices=OPTIONS["empty"].choices,
        help="queries without relevant items (default: zero)",
    )
    group.add_argument(
        "--gain", choices=OPTIONS["gain"].choices, help="NDCG gain (default: linear)"
    )
    group.add_argument(
        "--denominator",
        choices=OPTIONS["denominator"].choices,
        help="AP and recall divide by R or min(R, k) (default: relevant)",
    )
    group.add_argument(
        "--beta", type=float, metavar="BETA", help="f1: F-beta's weight of recall (default: 1, F1)"
    )
    add_convention_options(group)


def add_convention_options(group: argparse._ArgumentGroup) -> None:
    """The options of other tools' conventions, and --convention (docs/conventions.md)."""
    group.add_argument(
        "--ap-denominator",
        choices=get_args(ApDenominator),
        help="AP's own denominator (default: as --denominator)",
    )
    helps = {
        "precision_denominator": "P@k divides by k or min(k, number retrieved) (default: k)",
        "empty_list": "a query that retrieved nothing: 0, or NaN for precision and AP (nan) "
        "or for every metric but (N)DCG (nan_except_ndcg) (default: zero)",
        "discount": "(N)DCG discount (default: log2(rank+1))",
        "negative_gains": "(N)DCG gain of negative grades (default: zero)",
        "empty_ndcg": "the queries --empty skip/nan leave out of (N)DCG: no relevant item, "
        "or no relevant item and no negative grade (default: no_relevant)",
    }
    for name, text in helps.items():
        group.add_argument("--" + name.replace("_", "-"), choices=OPTIONS[name].choices, help=text)
    group.add_argument(
        "--convention",
        choices=tuple(CONVENTIONS),
        help="set the options that reproduce another tool's numbers; options "
        "given explicitly win (default: none, trec_eval's defaults)",
    )


def add_time_options(group: argparse._ArgumentGroup, *, every: str) -> None:
    """--time, --time-unit and --every (time windows; ``every``: what a window does)."""
    group.add_argument(
        "--time",
        metavar="COL",
        help="time column of the queries: datetimes, dates, ISO 8601 text, "
        "or integer epochs with --time-unit; a query's time is its earliest "
        "row's",
    )
    group.add_argument(
        "--time-unit",
        choices=TIME_UNITS,
        help="unit of an integer --time column (seconds since 1970 UTC: s)",
    )
    group.add_argument(
        "--every",
        metavar="DURATION",
        help=f"time windows (1d, 1w, 1mo, 1q; weeks start on Monday): {every}; needs --time",
    )


def add_test_options(
    group: argparse._ArgumentGroup,
    *,
    test: str = "paired test over queries",
    alpha: str = "significance level",
    family: str | None = None,
    family_default: str | None = None,
    confidence_level: str = "level of the intervals",
    confidence_default: float | None = 0.95,
    permutations: bool = False,
    resamples: str = "bootstrap resamples",
) -> None:
    """The flags of the tests and intervals (``compare``, ``check``, ``report``): --test,
    --correction, --alpha, --family (with ``family``, its help), --confidence-level,
    --permutations (with ``permutations``), --resamples and --seed. What differs per
    command are the help texts (what the test or level is of) and two defaults:
    ``family_default`` (the library's when ``None``) and ``confidence_default`` (``None``:
    the library's, which ``confidence_level`` then names)."""
    group.add_argument(
        "--test", choices=TEST.choices, default=TEST.default, help=f"{test} (default: %(default)s)"
    )
    group.add_argument(
        "--correction",
        choices=CORRECTION.choices,
        default=CORRECTION.default,
        help="multiple-comparison correction (default: %(default)s)",
    )
    group.add_argument("--alpha", type=float, default=0.05, help=f"{alpha} (default: %(default)s)")
    if family is not None:
        group.add_argument(
            "--family",
            choices=FAMILY.choices,
            default=FAMILY.default if family_default is None else family_default,
            help=family,
        )
    level = (
        confidence_level
        if confidence_default is None
        else (f"{confidence_level} (default: %(default)s)")
    )
    group.add_argument(
        "--confidence-level", type=float, default=confidence_default, metavar="LEVEL", help=level
    )
    if permutations:
        group.add_argument(
            "--permutations",
            type=int,
            default=10_000,
            metavar="N",
            help="sign flips of the permutation test (default: %(default)s)",
        )
    group.add_argument(
        "--resamples",
        type=int,
        default=1000,
        metavar="N",
        help=f"{resamples} (default: %(default)s)",
    )
    group.add_argument(
        "--seed", type=int, default=0, help="random seed of the resampling (default: %(default)s)"
    )


def add_output(
    parser: argparse.ArgumentParser,
    *,
    per_query: bool = False,
    paper: bool = False,
    percent: bool = True,
) -> None:
    """The "output" group of ``evaluate`` (``per_query``: --per-query) and ``compare``
    (``paper``: the latex and paper formats); ``percent=False``: no --percent (a table of
    no metric values)."""
    group = parser.add_argument_group("output")
    if per_query:
        group.add_argument(
            "--per-query", action="store_true", help="one row per query instead of the means"
        )
    formats = (*OUTPUT_FORMATS, "latex", "paper") if paper else OUTPUT_FORMATS
    extra = (
        (
            "; latex and paper: a paper table (LaTeX, Markdown) of the means, best in bold, "
            "significance as superscript letters"
        )
        if paper
        else ""
    )
    group.add_argument(
        "--format",
        choices=formats,
        default="table",
        help=f"output format (default: %(default)s; json: a list of records{extra})",
    )
    if percent:
        group.add_argument(
            "--percent",
            action="store_true",
            help="show metric values x100 with a %% sign (table and markdown only)",
        )
    group.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")


def add_item_group_options(parser: argparse.ArgumentParser) -> None:
    """The "item groups" group: --item-groups FILE, --group-column, --unknown-group (the
    input of the exposure metrics, docs/fairness.md)."""
    group = parser.add_argument_group("item groups (the exposure metrics)")
    # dest names that are not the library's options (inputs.options reads those by name)
    group.add_argument(
        "--item-groups",
        metavar="FILE",
        dest="item_groups_file",
        help="a file of each item's group (CSV, TSV, Parquet, JSON lines): "
        "the item column, named as FILE's (--item), and --group-column; read "
        "by exposure@k, exposure_ratio@k, exposure_gap@k, awrf@k and ndkl@k",
    )
    group.add_argument(
        "--group-column",
        default="group",
        metavar="COL",
        help="the group column of --item-groups (default: %(default)s)",
    )
    group.add_argument(
        "--unknown-group",
        metavar="NAME",
        dest="unknown_group_name",
        help="the group of the items --item-groups does not list (default: "
        "such an item is an error)",
    )


def add_judgment_options(parser: argparse.ArgumentParser, *, estimate: bool) -> None:
    """The "judgments" group (docs/judgments.md): --gold, and with ``estimate``
    --estimate (evaluate, compare)."""
    group = parser.add_argument_group("judgments (a judge's grades in --relevant)")
    group.add_argument(
        "--gold",
        metavar="COL",
        help="people's grade column, empty where no person judged the row",
    )
    if estimate:
        group.add_argument(
            "--estimate",
            choices=ESTIMATES,
            help="with --gold: the judge's means corrected by the queries people judged "
            "(ppi; ppi++, recommended, weighs the judge by how much it helps), or one set "
            "of grades alone (gold, judge)",
        )
