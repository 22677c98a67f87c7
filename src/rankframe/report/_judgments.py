"""The report's section "Judgments" (a bound ``gold`` column): how much of each system's top
k people graded, how well the judge agrees with them, and the means corrected by their
grades. Every number is the accessor's own: ``evaluate(["judged@k"])`` read under people's
grades, ``agreement()`` and ``evaluate(estimate=...)`` (``docs/judgments.md``); this module
calls them and writes their tables (``Judgments``) into the page.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from rankframe.metrics.registry import parse_metrics
from rankframe.pipeline.judgments import EMPTY_TAKEN
from rankframe.report._cells import as_float, interval_text, num_cell, p_cell
from rankframe.report._records import Holes, Judgments, eager, metric_label
from rankframe.report._svg import esc
from rankframe.settings.options import OPTIONS, Options
from rankframe.settings.statistics import Tests

#: The estimates of the section, in the order of its columns, and their headings
ESTIMATES = (("judge", "judge alone"), ("gold", "people alone"), ("ppi++", "PPI++"))
#: The columns of an estimate table that are no metric
_KEYS = ("system", "estimate", "n_queries", "n_gold")


def judgments(
    ev: Any,
    columns: tuple[str, str],
    metrics: Any,
    by: Sequence[str],
    holes: Sequence[Holes],
    tests: Tests,
    chosen: dict[str, Any],
) -> Judgments:
    """The section's tables, from the accessor ``ev`` whose binding has the judge's and
    people's grade columns ``columns`` (``relevant``, ``gold``): coverage at the holes' top
    k (``holes``), ``agreement()``'s grades and bias, and ``evaluate(estimate=...)`` over
    every query and per ``by`` segment for the judge, people and PPI++."""
    judge, gold = columns
    coverage = _coverage(ev, judge, gold, holes, chosen)
    level = {"confidence_level": tests.confidence_level}
    empty = Options(**{n: chosen[n] for n in OPTIONS if n in chosen}).empty
    kept = [m for m in parse_metrics(metrics) if m.definition.aggregate == "mean"]
    refused = None
    if empty not in EMPTY_TAKEN:
        refused = (
            f"empty={empty!r} leaves out different queries under the judge's and people's "
            "grades: the bias and the corrected means pair each query's values under both, "
            "so they need empty='zero' (or 'one')."
        )
    elif not kept:
        refused = (
            "None of the report's metrics is a mean of per-query values: the bias and the "
            "corrected means have nothing to estimate."
        )
    # one agreement() for the grade table and, with metrics, the bias
    agreed = ev.agreement(kept if refused is None else None, **level, alpha=tests.alpha, **chosen)
    grades = eager(agreed.grades)
    if refused is not None:
        return Judgments(judge, gold, coverage, grades, None, None, [], refused)
    bias = eager(agreed.bias)

    def estimates(segments: Sequence[str]) -> pd.DataFrame:
        return pd.concat(
            [
                eager(ev.evaluate(kept, by=list(segments) or None, estimate=e, **level, **chosen))
                for e, _ in ESTIMATES
            ],
            ignore_index=True,
        )

    means = estimates([])
    labels = [
        str(c)
        for c in means.columns
        if str(c) not in _KEYS and not str(c).endswith(("_ci_low", "_ci_high"))
    ]
    segments = estimates(by) if by else None
    return Judgments(judge, gold, coverage, grades, bias, means, labels, None, segments)


def _coverage(
    ev: Any, judge: str, gold: str, holes: Sequence[Holes], chosen: dict[str, Any]
) -> list[Holes]:
    """Per top k of ``holes``, each system's share of it that people graded: ``judged@k``
    with people's grades read as the grades (the two columns swapped; a null grade is
    unjudged, ``unjudged="nonrelevant"``), over the full lists (no condensing) and every
    query."""
    if not holes:  # none under ties= that judged@k does not take
        return []
    labels = [f"judged@{h.k}" if h.k is not None else "judged" for h in holes]
    ties = {"ties": chosen["ties"]} if "ties" in chosen else {}
    table = eager(ev(relevant=gold, gold=judge).evaluate(labels, unjudged="nonrelevant", **ties))
    systems = [str(s) for s in table["system"].tolist()] if "system" in table.columns else None
    # the columns in the order asked (labelled with the option: judged(unjudged=...)@k)
    shown = [c for c in table.columns if str(c) not in ("system", "n_queries")]
    out = []
    for h, label in zip(holes, shown, strict=True):
        column = [float(v) for v in table[label].tolist()]
        names = systems if systems is not None else list(h.share)
        out.append(Holes(h.k, h.metrics, dict(zip(names, column, strict=True))))
    return out


# -- the page ---------------------------------------------------------------------------------


def html(j: Judgments, by: Sequence[str], confidence_level: float, alpha: float) -> str:
    """The section: its note, the coverage, the agreement and the corrected means."""
    parts = [_note(j, confidence_level), _coverage_html(j), _agreement_html(j)]
    if j.refused is not None:
        parts.append(f'<p class="note" data-judgments="refused">{esc(j.refused)}</p>')
    if j.bias is not None:
        parts.append(_bias_html(j.bias, confidence_level, alpha))
    if j.means is not None:
        parts.append(_means_html(j.means, j.metrics, []))
    if j.segments is not None:
        parts.append(_means_html(j.segments, j.metrics, by))
    return "".join(parts)


def _note(j: Judgments, confidence_level: float) -> str:
    return (
        f'<p class="note">The judge\'s grades (<code>{esc(j.judge)}</code>) checked against '
        f"people's (<code>{esc(j.gold)}</code>, null where no person graded a row). A query "
        "counts as judged by people when every one of its rows has their grade. The means "
        "below: the judge alone over every query, people alone over the queries they "
        "judged, and PPI++ (the judge's means corrected by people's, weighted by how much "
        f"the judge helps), with {confidence_level:.0%} intervals; <em>n</em> the queries "
        "people judged, <em>N</em> the others. See docs/judgments.md.</p>"
    )


def _coverage_html(j: Judgments) -> str:
    """Per top k, the share of each system's top k that people graded."""
    if not j.coverage:
        return ""
    parts = []
    for h in j.coverage:
        top = "whole list" if h.k is None else f"top {h.k}"
        shares = ", ".join(
            f'<span data-people-graded="{share!r}" data-system="{esc(s)}" '
            f'data-k="{h.k or ""}">{esc(s)}: {share:.1%}</span>'
            for s, share in h.share.items()
        )
        parts.append(f"<li>{top} ({esc(', '.join(h.metrics))}): {shares}</li>")
    return (
        "<p><strong>Coverage</strong>: the share of each system's top k that people "
        f"graded (per system)</p><ul>{''.join(parts)}</ul>"
    )


def _agreement_html(j: Judgments) -> str:
    """agreement()'s grade table: Cohen's kappa and Krippendorff's alpha."""
    g = j.grades.iloc[0]  # agreement() refuses a frame without a row graded by both
    cell = functools.partial(num_cell, digits=3)
    head = (
        "<tr><th>rows graded by both</th><th>Cohen's &kappa;</th><th>&kappa; (linear)</th>"
        "<th>&kappa; (quadratic)</th><th>Krippendorff's &alpha; (ordinal)</th></tr>"
    )
    body = (
        f'<tr><td class="num" data-kind="judgments:n_pairs">{int(g["n_pairs"]):,}</td>'
        + cell(g["kappa"], kind="judgments:kappa")
        + cell(g["kappa_linear"], kind="judgments:kappa_linear")
        + cell(g["kappa_quadratic"], kind="judgments:kappa_quadratic")
        + cell(g["krippendorff_alpha"], kind="judgments:krippendorff_alpha")
        + "</tr>"
    )
    return f'<p><strong>Agreement</strong></p><table class="judgments">{head}{body}</table>'


def _bias_html(bias: pd.DataFrame, confidence_level: float, alpha: float) -> str:
    """The judge's bias per system and metric on the queries people judged, and in words
    the significant ones."""
    systems = [str(s) for s in bias["system"].tolist()] if "system" in bias.columns else None
    rows, found = [], []
    for i, r in enumerate(bias.to_dict("records")):
        system = systems[i] if systems is not None else ""
        metric = metric_label(r["metric"], r["k"])
        cell = functools.partial(num_cell, metric=metric, system=system)
        low, high, p = as_float(r["ci_low"]), as_float(r["ci_high"]), as_float(r["p_value"])
        if p < alpha:
            who = f" of {esc(system)}" if system else ""
            found.append(
                f"{esc(metric)}{who} {as_float(r['bias']):+.4f} "
                f"({confidence_level:.0%} interval [{low:.4f}, {high:.4f}])"
            )
        rows.append(
            f"<tr><td>{esc(system)}</td><td>{esc(metric)}</td>"
            + cell(r["judge_mean"], kind="judgments:judge_mean")
            + cell(r["gold_mean"], kind="judgments:gold_mean")
            + cell(r["bias"], kind="judgments:bias", extra=interval_text(low, high))
            + p_cell(r["p_value"], kind="judgments:p_value", metric=metric, system=system)
            + f'<td class="num" data-kind="judgments:bias_n">{int(r["n_gold"]):,}</td></tr>'
        )
    verdict = (
        f'<p class="verdict" data-judgments="biased"><strong class="down">The judge is '
        f"biased</strong> (p &lt; {alpha:g}, on the queries people judged): "
        f"{'; '.join(found)}.</p>"
        if found
        else f'<p class="verdict" data-judgments="unbiased">No significant bias of the '
        f"judge (p &lt; {alpha:g}) on the queries people judged.</p>"
    )
    head = (
        "<tr><th>system</th><th>metric</th><th>judge</th><th>people</th>"
        f"<th>bias (judge &minus; people, {confidence_level:.0%} interval)</th><th>p</th>"
        "<th>queries</th></tr>"
    )
    return verdict + f'<table class="judgments">{head}{"".join(rows)}</table>'


def _means_html(means: pd.DataFrame, metrics: Sequence[str], by: Sequence[str]) -> str:
    """Per segment, system and metric: the judge alone, people alone and PPI++, n and N."""
    keys = [c for c in (*by, "system") if c in means.columns]
    first = means[means["estimate"] == ESTIMATES[0][0]].reset_index(drop=True)
    others = {e: means[means["estimate"] == e].reset_index(drop=True) for e, _ in ESTIMATES}
    head = "".join(f"<th>{esc(c)}</th>" for c in keys) + "<th>metric</th>"
    head += "".join(f"<th>{esc(h)}</th>" for _, h in ESTIMATES) + "<th>n</th><th>N</th>"
    rows = []
    for i in range(len(first)):
        key = [str(first[c].iloc[i]) for c in keys]
        system = str(first["system"].iloc[i]) if "system" in first.columns else ""
        segment = " / ".join(str(first[c].iloc[i]) for c in by)
        n_gold = int(first["n_gold"].iloc[i])
        n_judge = int(first["n_queries"].iloc[i]) - n_gold
        for m in metrics:
            cells = [f"<td>{esc(v)}</td>" for v in key] + [f"<td>{esc(m)}</td>"]
            for e, _ in ESTIMATES:
                cells.append(_estimate_cell(others[e], i, m, e, system, segment, n_gold))
            cells.append(f'<td class="num" data-kind="judgments:n">{n_gold:,}</td>')
            cells.append(f'<td class="num" data-kind="judgments:N">{n_judge:,}</td>')
            rows.append("<tr>" + "".join(cells) + "</tr>")
    title = "Corrected means" + (" per segment" if by else "")
    return (
        f"<p><strong>{title}</strong></p>"
        f'<table class="judgments"><tr>{head}</tr>{"".join(rows)}</table>'
    )


def _estimate_cell(
    table: pd.DataFrame, i: int, metric: str, estimate: str, system: str, segment: str, n: int
) -> str:
    """One estimate's mean with its interval; where people judged too few queries for it,
    the words."""
    value = as_float(table[metric].iloc[i])
    kind = f"judgments:{estimate}"
    if math.isnan(value) and estimate != "judge" and n < 2:
        words = "no query judged by people" if n == 0 else "1 query judged by people: too few"
        return (
            f'<td data-kind="{esc(kind)}" data-metric="{esc(metric)}" '
            f'data-system="{esc(system)}" data-segment="{esc(segment)}" '
            f'data-value="nan">{words}</td>'
        )
    low = as_float(table[f"{metric}_ci_low"].iloc[i])
    high = as_float(table[f"{metric}_ci_high"].iloc[i])
    return num_cell(
        value,
        metric=metric,
        system=system,
        segment=segment,
        kind=kind,
        extra=interval_text(low, high),
        attrs=f' data-ci-low="{esc(repr(low))}" data-ci-high="{esc(repr(high))}"',
    )
