"""The page's tables of the sections asked for by keyword and of the summary's changes:
``compare(reference=...)``'s (Reference), compare()'s changes (Summary), check()'s (Gates),
slices()'s (Where it fails) and the exposure of item groups, with the notes that say what
they show."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import pandas as pd

from rankframe.report._cells import (
    as_float,
    interval_text,
    num_cell,
    p_cell,
    signed,
    status_class,
    window_labels,
)
from rankframe.report._records import metric_label
from rankframe.report._svg import esc
from rankframe.report.verdict import p_text

_TWO_SAMPLE = {
    "t-test": "Welch's t-test",
    "permutation": "a two-sample permutation test",
    "wilcoxon": "the Mann-Whitney U test",
}


def reference_note(test: str) -> str:
    two = _TWO_SAMPLE.get(test, "its two-sample form")
    return (
        '<p class="note">Each system against the same score column of the reference frame '
        "(<em>reference</em>: its mean there). <em>paired</em> where both frames hold the "
        f"same query ids ({esc(test)} on the per-query differences; wins, ties and losses "
        f"count those queries), <em>two-sample</em> otherwise ({esc(two)}). "
        '<span class="up">&#9650;</span> / <span class="down">&#9660;</span>: a '
        "significant increase / decrease (adjusted p &lt; alpha); under the delta, its "
        "interval.</p>"
    )


def reference_table(r: pd.DataFrame) -> str:
    """``compare(reference=...)``'s table: a row per (segment, system, metric)."""
    columns = list(r.columns)
    segments = [str(c) for c in columns[: columns.index("system")]]
    head = "".join(f"<th>{esc(c)}</th>" for c in segments)
    head += (
        "<th>system</th><th>metric</th><th>reference</th><th>current</th><th>delta</th>"
        "<th>p (adjusted)</th><th>comparison</th><th>wins</th><th>ties</th>"
        "<th>losses</th><th>queries</th><th>reference queries</th>"
    )
    body = []
    for row in r.to_dict("records"):
        key = [str(row[c]) for c in segments]
        segment = " / ".join(key)
        system = str(row["system"])
        label = metric_label(row["metric"], row["k"])
        delta = as_float(row.get("delta"))
        significant = bool(row.get("significant")) if not pd.isna(row.get("significant")) else False
        mark = ""
        if significant and delta > 0:
            mark = '<sup class="up" title="significant increase">&#9650;</sup>'
        elif significant and delta < 0:
            mark = '<sup class="down" title="significant decrease">&#9660;</sup>'
        low, high = as_float(row.get("ci_low")), as_float(row.get("ci_high"))
        cell = functools.partial(num_cell, metric=label, system=system, segment=segment)
        paired = row.get("paired")
        kind = (
            ""
            if paired is None or pd.isna(paired)
            else ("paired" if bool(paired) else "two-sample")
        )
        cells = [f"<td>{esc(v)}</td>" for v in key]
        cells += [
            f"<td>{esc(system)}</td>",
            f"<td>{esc(label)}</td>",
            cell(row.get("reference_mean"), kind="reference:reference_mean"),
            cell(row.get("mean"), kind="reference:mean"),
            cell(
                delta,
                kind="reference:delta",
                extra=mark + interval_text(low, high),
                attrs=f' data-ci-low="{esc(repr(low))}" '
                f'data-ci-high="{esc(repr(high))}" '
                f'data-significant="{str(significant).lower()}"',
            ),
            p_cell(
                row.get("p_adjusted"),
                kind="reference:p_adjusted",
                metric=label,
                system=system,
                segment=segment,
            ),
            f'<td data-kind="reference:paired" data-system="{esc(system)}" '
            f'data-metric="{esc(label)}" data-segment="{esc(segment)}">{kind}</td>',
        ]
        for name in ("wins", "ties", "losses", "n_queries", "n_reference"):
            value = row.get(name)
            shown = "" if value is None or pd.isna(value) else f"{int(value):,}"
            cells.append(
                f'<td class="num" data-kind="reference:{name}" '
                f'data-system="{esc(system)}" data-metric="{esc(label)}" '
                f'data-segment="{esc(segment)}">{shown}</td>'
            )
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="reference"><tr>{head}</tr>{"".join(body)}</table>'


def exact_cell(value: float, text: str, kind: str, metric: str, system: str) -> str:
    """A number cell shown as ``text``, its exact value in ``data-value``."""
    return (
        f'<td class="num" data-kind="{esc(kind)}" data-metric="{esc(metric)}" '
        f'data-system="{esc(system)}" data-value="{esc(repr(value))}">{text}</td>'
    )


def changes(c: pd.DataFrame, baseline: str | None) -> str:
    """The summary's comparison: per system and metric, the mean, the change (absolute and
    relative), the interval of the change and the adjusted p-value."""
    head = (
        "<tr><th>system</th><th>metric</th><th>mean</th><th>delta</th>"
        "<th>relative</th><th>interval of the delta</th><th>p (adjusted)</th>"
        "<th>significant</th></tr>"
    )
    body = []
    for row in c.to_dict("records"):
        system = str(row["system"])
        if system == baseline:
            continue
        label = metric_label(row["metric"], row["k"])
        cell = functools.partial(num_cell, metric=label, system=system)
        delta, relative = as_float(row.get("delta")), as_float(row.get("delta_relative"))
        low, high = as_float(row.get("ci_low")), as_float(row.get("ci_high"))
        significant = bool(row.get("significant")) if not pd.isna(row.get("significant")) else False
        interval = (
            f"[{signed(low)}, {signed(high)}]" if math.isfinite(low) and math.isfinite(high) else ""
        )
        mark = (
            '<span class="up">higher</span>'
            if significant and delta > 0
            else '<span class="down">lower</span>'
            if significant and delta < 0
            else "no"
        )
        body.append(
            f"<tr><td>{esc(system)}</td><td>{esc(label)}</td>"
            + cell(row.get("mean"), kind="change:mean")
            + exact_cell(delta, signed(delta), "change:delta", label, system)
            + exact_cell(relative, signed(relative, True), "change:delta_relative", label, system)
            + f'<td class="num" data-kind="change:interval" data-metric="{esc(label)}" '
            f'data-system="{esc(system)}" data-ci-low="{esc(repr(low))}" '
            f'data-ci-high="{esc(repr(high))}">{interval}</td>'
            + exact_cell(
                as_float(row.get("p_adjusted")),
                esc(p_text(row.get("p_adjusted"))),
                "change:p_adjusted",
                label,
                system,
            )
            + f'<td data-kind="change:significant" data-metric="{esc(label)}" '
            f'data-system="{esc(system)}">{mark}</td></tr>'
        )
    return f'<table class="changes">{head}{"".join(body)}</table>'


def in_unit(value: float, *, relative: bool, signed: bool) -> str:
    """A gate's number in its rule's unit: a percentage (relative rules), else 4 decimals,
    signed for a change."""
    if math.isnan(value):
        return ""
    if relative:
        return f"{value * 100:+.2f}%"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def gates_table(g: pd.DataFrame, keys: Sequence[str]) -> str:
    """check()'s table as the rules read: the rule on one line, its segment, the status as
    a coloured word, what was measured (the value, or a drop rule's change) with its
    interval and the bound in the rule's own unit, the p-value as the CLI writes it, the
    queries, and for an uncertain row the queries that would decide it."""
    head = (
        "<tr><th>rule</th>"
        + "".join(f"<th>{esc(k)}</th>" for k in keys)
        + "<th>status</th><th>measured</th><th>interval</th><th>bound</th>"
        "<th>p (adjusted)</th><th>queries</th><th>queries to decide</th></tr>"
    )
    shown_keys = (
        pd.DataFrame(
            {
                k: window_labels(g[k]) if k == "window" else [str(v) for v in g[k].tolist()]
                for k in keys
            }
        )
        if keys
        else None
    )
    body = []
    for i, row in enumerate(g.to_dict("records")):
        relative = math.isfinite(as_float(row.get("bound_relative")))
        drop = math.isfinite(as_float(row.get("delta")))
        suffix = "_relative" if relative else ""
        measured = (
            as_float(row.get("delta_relative" if relative else "delta"))
            if drop
            else as_float(row.get("value"))
        )
        low, high = as_float(row.get(f"ci_low{suffix}")), as_float(row.get(f"ci_high{suffix}"))
        bound = as_float(row.get(f"bound{suffix}"))
        shown = functools.partial(in_unit, relative=relative, signed=drop)
        status = str(row["status"])
        queries = row.get("n_queries")
        decide = as_float(row.get("queries_to_decide"))
        cells = [f'<td class="rule" data-kind="gates:rule">{esc(row["rule"])}</td>']
        if shown_keys is not None:
            cells += [
                f'<td data-kind="gates:{esc(k)}">{esc(v)}</td>'
                for k, v in zip(keys, shown_keys.iloc[i].tolist(), strict=True)
            ]
        cells += [
            f'<td class="status {status_class(status)}" data-status="{esc(status)}">'
            f"{esc(status)}</td>",
            f'<td class="num" data-kind="gates:measured" data-value="{esc(repr(measured))}" '
            f'data-measure="{"change" if drop else "value"}'
            f'{" relative" if relative else ""}">{shown(measured)}</td>',
            f'<td class="num" data-kind="gates:interval" data-ci-low="{esc(repr(low))}" '
            f'data-ci-high="{esc(repr(high))}">'
            + (
                f"[{shown(low)}, {shown(high)}]"
                if math.isfinite(low) and math.isfinite(high)
                else ""
            )
            + "</td>",
            f'<td class="num" data-kind="gates:bound" data-value="{esc(repr(bound))}">'
            f"{shown(bound)}</td>",
            f'<td class="num" data-kind="gates:p_adjusted" '
            f'data-value="{esc(repr(as_float(row.get("p_adjusted"))))}">'
            f"{esc(p_text(row.get('p_adjusted')))}</td>",
            '<td class="num" data-kind="gates:n_queries">'
            + ("" if queries is None or pd.isna(queries) else f"{int(queries):,}")
            + "</td>",
            f'<td class="num" data-kind="gates:queries_to_decide" '
            f'data-value="{esc(repr(decide))}">'
            + (f"{int(decide):,}" if math.isfinite(decide) else "never" if decide > 0 else "")
            + "</td>",
        ]
        body.append(f'<tr data-row="{i}">' + "".join(cells) + "</tr>")
    return f'<table class="gates">{head}{"".join(body)}</table>'


_GUARANTEES = {
    "holm": "Holm's correction keeps the family-wise error: the chance that any slice is "
    "marked significant while no slice differs is at most {alpha}",
    "bonferroni": "Bonferroni's correction keeps the family-wise error: the chance that any "
    "slice is marked significant while no slice differs is at most {alpha}",
    "fdr_bh": "the Benjamini-Hochberg correction keeps the false discovery rate: on "
    "average at most {alpha} of the slices marked significant are false",
    "none": "no correction: with this many tests, about {alpha} of them come out "
    "significant by chance alone",
}


def slices_note(t: pd.DataFrame, correction: str, confidence_level: float) -> str:
    """What the slices' table shows, and what its correction guarantees."""
    paired = "baseline_mean" in t.columns
    tested = int(t["n_tested"].max()) if len(t) else 0
    alpha = f"{1 - confidence_level:.3g}"
    how = (
        "each system's per-query difference from the baseline inside the slice (the "
        "paired test, as compare()); <em>baseline</em>: the baseline's mean there"
        if paired
        else "each slice's mean against the mean of the other queries "
        "(Welch's t-test); <em>outside</em>: the other queries' mean"
    )
    guarantee = _GUARANTEES.get(correction, "").format(alpha=alpha)
    return (
        f'<p class="note">Slices of the queries (<code>slices()</code>): {how}. '
        f'Worst first within each system and metric. <span data-n-tested="{tested}">'
        f"{tested:,} tests</span> in all (every slice, system and metric, not only the "
        f"rows shown), {esc(correction)} correction: {guarantee}. "
        '<sup class="down">&#9660;</sup> / <sup class="up">&#9650;</sup>: significant '
        f"(adjusted p &lt; {alpha}); under the delta, its "
        f"{confidence_level:.0%} interval.</p>"
    )


def slices_table(t: pd.DataFrame) -> str:
    """slices()'s rows: system, metric, slice, queries, the means, delta and interval,
    p-values and the significance mark; every number with its exact ``data-value``."""
    if not len(t):
        return (
            '<p class="note" data-kind="slices:none">No slice has enough queries to be tested.</p>'
        )
    other = "baseline_mean" if "baseline_mean" in t.columns else "mean_outside"
    head = (
        "<tr><th>system</th><th>metric</th><th>slice</th><th>queries</th><th>mean</th>"
        f"<th>{'baseline' if other == 'baseline_mean' else 'outside'}</th><th>delta</th>"
        "<th>p</th><th>p (adjusted)</th></tr>"
    )
    body = []
    for i, row in enumerate(t.to_dict("records")):
        system, label = str(row["system"]), metric_label(row["metric"], row["k"])
        where = str(row["slice"])
        delta = as_float(row["delta"])
        significant = bool(row["significant"])
        mark = (
            ""
            if not significant
            else '<sup class="down" title="significant">&#9660;</sup>'
            if delta < 0
            else '<sup class="up" title="significant">&#9650;</sup>'
        )
        low, high = as_float(row["ci_low"]), as_float(row["ci_high"])
        cell = functools.partial(num_cell, metric=label, system=system, segment=where)
        cells = [
            f"<td>{esc(system)}</td>",
            f"<td>{esc(label)}</td>",
            f'<td data-kind="slices:slice" data-slice="{esc(where)}">{esc(where)}</td>',
            f'<td class="num" data-kind="slices:n_queries" data-system="{esc(system)}" '
            f'data-metric="{esc(label)}" data-segment="{esc(where)}" '
            f'data-value="{int(row["n_queries"])}">{int(row["n_queries"]):,}</td>',
            cell(row["mean"], kind="slices:mean"),
            cell(row[other], kind=f"slices:{other}"),
            cell(
                delta,
                kind="slices:delta",
                extra=mark + interval_text(low, high),
                attrs=f' data-ci-low="{esc(repr(low))}" data-ci-high="{esc(repr(high))}" '
                f'data-significant="{str(significant).lower()}"',
            ),
            *(
                f'<td class="num" data-kind="slices:{name}" data-system="{esc(system)}" '
                f'data-metric="{esc(label)}" data-segment="{esc(where)}" '
                f'data-value="{esc(repr(as_float(row[name])))}">{esc(p_text(row[name]))}</td>'
                for name in ("p_value", "p_adjusted")
            ),
        ]
        body.append(f'<tr data-row="{i}">' + "".join(cells) + "</tr>")
    return f'<table class="slices">{head}{"".join(body)}</table>'


def exposure_note(k: int, browsing: str, confidence_level: float) -> str:
    return (
        f'<p class="note">The users\' attention over the top {k} (browsing model '
        f"<code>{esc(browsing)}</code>) shared among the item groups, per system: each "
        f"group's mean <em>exposure</em> share (<code>exposure@{k}</code>) against its "
        "<em>relevance</em> share (the group's share of the grades of the query's "
        f"relevant items), over the queries with a relevant item; <em>gap</em> = "
        f"exposure - relevance (<code>exposure_gap@{k}</code>: below 0, less attention "
        f"than the group's relevance merits). Then <code>awrf@{k}</code> (1: the "
        f"attention follows the target) and <code>ndkl@{k}</code> (0: fair) over "
        f"every query, with {confidence_level:.0%} intervals; see "
        "docs/fairness.md.</p>"
    )


def exposure_table(shares: pd.DataFrame) -> str:
    head = (
        "<tr><th>system</th><th>group</th><th>exposure</th><th>relevance</th>"
        "<th>gap</th><th>queries</th></tr>"
    )
    body = []
    for row in shares.to_dict("records"):
        system, group = str(row["system"]), str(row["group"])
        cell = functools.partial(num_cell, metric=group, system=system)
        gap = as_float(row["gap"])
        body.append(
            f"<tr><td>{esc(system)}</td><td>{esc(group)}</td>"
            + cell(row["exposure"], kind="exposure:exposure")
            + cell(row["merit"], kind="exposure:merit")
            + cell(gap, kind="exposure:gap")
            + f'<td class="num" data-kind="exposure:n_queries" data-system="{esc(system)}" '
            f'data-metric="{esc(group)}">{int(row["n_queries"]):,}</td></tr>'
        )
    return f'<table class="exposure">{head}{"".join(body)}</table>'
