"""The Markdown of ``benchmarks/RESULTS.md``: the main table, the agreement, validation,
list shapes and targets (:func:`render`), and the sections that runs of their own replace
(many short lists, ``ties="average"``, all_trec).
"""

from __future__ import annotations

import json
from typing import Any

from harness import (
    ALL_TREC_APPROACHES,
    ALL_TREC_LIMIT,
    ALL_TREC_SPEEDUP,
    AVERAGE_APPROACHES,
    AVERAGE_LIMIT,
    MAX_RUNS,
    METRICS,
    MIN_TIME,
    SHORT_LIST_APPROACHES,
    SHORT_LIST_LIMIT,
    SHORT_LIST_PROCESSES,
    SHORT_LISTS,
    TOLERANCE,
)
from peers import APPROACHES, EXACT_PEERS, PEERS
from sections import markers

from data import SIZES

# trec_eval 10 turns recall levels into ranks with lround(level * R), the trec_eval 9 of
# pytrec_eval with (long)(level * R + 0.9): rankframe follows trec_eval 10 (its test outputs);
# tests/references/test_trec_agreement.py checks both roundings against a reference
ROUNDED_LEVELS = ("iprec_at_recall", "11pt_avg")


EXPLANATIONS = {
    "rankframe_polars": "same engine; must be identical",
    "rankframe_lazy": "same engine; must be identical",
    "pytrec_eval": "same conventions as trec_eval. Its `recip_rank` has no cut-off: MRR@10 is "
    "compared as `recip_rank` zeroed when the first relevant item is below rank 10 (and "
    "rankframe's `mrr` is compared with `recip_rank` itself, per query)",
    "ranx": "breaks ties arbitrarily (unstable sort), not by item id: tied scores around a "
    "cut-off can swap",
    "torchmetrics": "AP@k divides by the relevant items in the top k, not by R; a score "
    "<= 0 counts as not retrieved for RR, AP, P and R; ties in an unspecified order (NDCG "
    "averages over them); float32 results",
    "ir_measures": "RR@10 comes from its msmarco provider, which breaks ties by item id "
    "ascending; the other measures come from pytrec_eval",
    "pandas_apply": "hand-written with trec ties (score, then item id, descending): identical "
    "up to floating-point summation order",
}


def fmt(value: float | None, digits: int = 2, suffix: str = "") -> str:
    return "—" if value is None else f"{value:.{digits}f}{suffix}"


def median_of(result: dict[str, Any]) -> float | None:
    return result.get("median")


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def status_of(result: dict[str, Any]) -> str:
    return str(result.get("status", "not run"))


def render(raw: dict[str, Any]) -> str:
    info, results = raw["info"], raw["results"]
    size = info["size"]
    queries, lo, hi = SIZES[size]
    floor_s = median_of(results.get("floor", {}))
    ours = median_of(results.get("rankframe_pandas", {}))
    frame_gib = results.get("floor", {}).get("input_gib") or results.get(
        "rankframe_pandas", {}
    ).get("input_gib")
    n_rows = results.get("floor", {}).get("n_rows") or results.get("rankframe_pandas", {}).get(
        "n_rows"
    )
    m, v = info["machine"], info["versions"]
    lines = [
        "# Benchmark results",
        "",
        "Written by `benchmarks/run.py` (`make bench SIZE=...`); do not edit by hand. "
        "How to read it: docs/performance.md.",
        "",
        f"- **Size {size}**: {queries:,} queries x {lo}-{hi} items = {n_rows:,} rows"
        if n_rows
        else f"- **Size {size}**",
        f"- **Date**: {info['date']}; rankframe at `{m['commit']}`; "
        f"total time of the run {info['elapsed_s']:.0f} s",
        f"- **Machine**: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), "
        f"{m['ram_gib']:.1f} GiB RAM, {m['platform']}; load average "
        f"{m['load_average'][0]:.2f} at the start, {m['load_average_end'][0]:.2f} at the end "
        "(a shared machine: compare the ratios, measured in the same run)",
        "- **Versions**: " + ", ".join(f"{k} {val}" for k, val in v.items()),
        f"- **Method**: every approach in a fresh process; warm-up run excluded; median of "
        f"at least {info['repeat']} runs (more, up to {MAX_RUNS}, until {MIN_TIME:g} s are "
        "measured), end to end from the frame (building each tool's own input "
        "included); peak extra memory = highest VmHWM of a run (reset before each run) minus "
        "the resident memory after loading the input, both after handing freed memory back "
        "to the system (pyarrow's pool, malloc_trim); memory a run leaves behind counts.",
        "",
        "Workload: `evaluate(" + json.dumps(METRICS) + ")` with default options "
        '(ties="trec", validation on); string ids (pandas 3 `str`), 10% of scores rounded '
        "to 2 decimals, grades 0-3 with ~5% nonzero, 5% of queries without a relevant item, "
        "rows shuffled, every row scored.",
        "",
        f"Input frame (pandas, deep memory usage): {fmt(frame_gib, 3)} GiB.",
        "",
        "| approach | median s | runs | ratio to floor | rankframe speed-up | "
        "peak extra GiB | input GiB | phases (median s) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, approach in APPROACHES.items():
        r = results.get(name)
        if r is None:
            continue
        if "median" not in r:
            lines.append(f"| {approach.label} | {status_of(r)} | | | | | | |")
            continue
        phases = ", ".join(f"{p} {s:.2f}" for p, s in r["phases"].items())
        note = f" ({approach.note})" if approach.note else ""
        peak = fmt(r["peak_extra_gib"], 2) + ("" if r["peak_reset"] else " (upper bound)")
        lines.append(
            f"| {approach.label}{note} | {r['median']:.3f} | {len(r['times'])} | "
            f"{fmt(ratio(r['median'], floor_s), 2, 'x')} | "
            f"{fmt(ratio(r['median'], ours), 1, 'x')} | {peak} | "
            f"{fmt(r.get('input_gib'), 3)} | {phases} |"
        )
    lines += [
        "",
        "Ratio to floor = median / the floor's median; rankframe speed-up = median / "
        "rankframe (pandas)'s median.",
        "",
    ]
    lines += render_agreement(raw["agreement"])
    lines += render_validation(raw["validation"])
    lines += render_shapes(raw["shapes"], raw["scaling_small"], results, size)
    lines += render_targets(raw)
    return "\n".join(lines) + "\n"


def render_agreement(agreement: dict[str, Any]) -> list[str]:
    lines = ["## Agreement (checked before timing, on the same data)", ""]
    if "reference" not in agreement:
        return [*lines, f"Not run: {status_of(agreement)}", ""]
    lines += [
        f"{agreement['n_queries']:,} queries. rankframe's means: "
        + ", ".join(f"{m} {agreement['reference'][m]:.6f}" for m in METRICS)
        + ".",
        "",
    ]
    per_query = agreement.get("pytrec_eval_per_query")
    if per_query is None:
        lines += ["pytrec_eval: not installed.", ""]
    else:
        worst = max(per_query.values())
        lines += [
            f"**pytrec_eval, per query**: max abs difference {worst:.1e} "
            f"({'identical' if worst <= TOLERANCE else 'DIFFERENT'} at {TOLERANCE:g}): "
            + ", ".join(f"{m} {d:.1e}" for m, d in per_query.items())
            + ". `mrr` = rankframe's MRR without cut-off vs `recip_rank`; `mrr@10` vs "
            "`recip_rank` zeroed below rank 10 (pytrec_eval's recip_rank has no cut-off).",
            "",
        ]
    for name in EXACT_PEERS:
        if (exact := agreement.get(f"{name}_per_query")) is not None:
            worst = max(exact.values())
            lines += [
                f"**{APPROACHES[name].label}, per query against rankframe** "
                f'(`ties="trec"`, the order it is written with): max abs difference '
                f"{worst:.1e} ({'identical' if worst <= TOLERANCE else 'DIFFERENT'} "
                f"at {TOLERANCE:g}).",
                "",
            ]
    lines += [
        "Means: difference to rankframe per metric (peer minus rankframe). "
        "'Explained' = the peer's mean lies within the range of rankframe's means under "
        '`ties="pessimistic"`, `"trec"` and `"optimistic"` (+-1e-6), computed in the '
        "peer's conventions where they differ (torchmetrics: a score <= 0 as a null "
        "score, AP@k divided by the hits in the top k): the difference then comes from "
        "the order of tied scores and those conventions.",
        "",
        "| tool | " + " | ".join(METRICS) + " | max abs | explained | why |",
        "|---|" + "---:|" * len(METRICS) + "---:|---|---|",
    ]
    for name in ("rankframe_polars", "rankframe_lazy", *PEERS):
        entry = agreement.get(name, {})
        label = APPROACHES[name].label
        if "diff" not in entry:
            lines.append(f"| {label} | {status_of(entry)} |" + " |" * (len(METRICS) + 2))
            continue
        diffs = entry["diff"]
        within = entry["within_ties"]
        outside = [m for m in METRICS if not within[m]]
        lines.append(
            f"| {label} | "
            + " | ".join(f"{diffs[m]:+.1e}" for m in METRICS)
            + f" | {max(abs(d) for d in diffs.values()):.1e} | "
            + ("yes" if not outside else "no: " + ", ".join(outside))
            + f" | {EXPLANATIONS.get(name, '')} |"
        )
    return [*lines, ""]


def validation_shares(validation: dict[str, Any]) -> tuple[float, float] | None:
    """(wall-clock share, CPU share) of validation in evaluate, or None if not measured."""
    if "evaluate" not in validation:
        return None
    medians = {part: validation[part]["median"] for part in validation}
    evaluate = medians["evaluate"]
    wall = (evaluate - medians["unvalidated"]) / evaluate
    return wall, (medians["schema"] + medians["duplicates"]) / evaluate


def render_validation(validation: dict[str, Any]) -> list[str]:
    lines = ["## What validation costs", ""]
    shares = validation_shares(validation)
    if shares is None:
        return [*lines, f"Not measured: {status_of(validation)}", ""]
    medians = {part: validation[part]["median"] for part in validation}
    evaluate = medians["evaluate"]

    def row(label: str, seconds: float) -> str:
        return f"| {label} | {seconds:.3f} | {seconds / evaluate:.0%} |"

    lines += [
        "Medians on the same frame, as a share of the whole `evaluate`:",
        "",
        "| measured | median s | share of evaluate |",
        "|---|---:|---:|",
        row("`evaluate` as shipped (validation on)", evaluate),
        row(
            "`evaluate` with the schema and the duplicate check patched out", medians["unvalidated"]
        ),
        row(
            "**validation in place** (the difference: what the user waits for)",
            evaluate - medians["unvalidated"],
        ),
        row(
            "input contract alone (`_validation.pandas_facts`; pandera's schema until issue 26)",
            medians["schema"],
        ),
        row("duplicate-item check alone (`_engine.check_unique_items`)", medians["duplicates"]),
        row(
            "schema + duplicate check alone (their CPU time)",
            medians["schema"] + medians["duplicates"],
        ),
        "",
        "The in-place cost is lower than the parts' sum when the engine runs the duplicate "
        "check in a second thread beside the ranking (frames of 200k rows and more); on a busy "
        "machine the second core is not free and the in-place cost approaches the sum. The "
        "difference of two medians is noisy on small sizes.",
        "",
    ]
    return lines


def render_shapes(
    shapes: dict[str, Any], small: dict[str, Any], results: dict[str, Any], size: str
) -> list[str]:
    lines = ["## List shapes and scaling", ""]
    if shapes:
        lines += [
            "Each shape against its own floor:",
            "",
            "| shape | rows | floor s | rankframe s | ratio to floor | peak extra GiB | "
            "input GiB |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for shape, runs in shapes.items():
            queries, lo, hi = SIZES[shape]
            f, r = runs["floor"], runs["rankframe_pandas"]
            items = f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"
            lines.append(
                f"| {shape}: {queries:,} queries x {items} items | "
                f"{r.get('n_rows') or 0:,} | {fmt(median_of(f), 3)} | {fmt(median_of(r), 3)} | "
                f"{fmt(ratio(median_of(r), median_of(f)), 2, 'x')} | "
                f"{fmt(r.get('peak_extra_gib'), 2)} | {fmt(r.get('input_gib'), 3)} |"
            )
        lines.append("")
    if small:
        big = results.get("rankframe_pandas", {})
        little = small["rankframe_pandas"]
        rows = ratio(big.get("n_rows"), little.get("n_rows"))
        time_ratio = ratio(median_of(big), median_of(little))
        floor_ratio = ratio(median_of(results.get("floor", {})), median_of(small["floor"]))
        lines += [
            f"Scaling: rankframe (pandas) takes {fmt(median_of(little), 3)} s on S "
            f"({little.get('n_rows') or 0:,} rows) and {fmt(median_of(big), 3)} s on {size} "
            f"({big.get('n_rows') or 0:,} rows): {fmt(time_ratio, 1)}x the time for "
            f"{fmt(rows, 1)}x the rows (the floor: {fmt(floor_ratio, 1)}x).",
            "",
        ]
    else:
        lines += ["Scaling (S to L): run with SIZE=M or L, which also times S.", ""]
    return lines


def render_short_lists(short_lists: dict[str, dict[str, Any]], info: dict[str, Any]) -> str:
    """The section of RESULTS.md on many short lists: each approach's time on 1M and 5M
    queries x 2 items, their ratio, and the target."""
    start, end = markers("short-lists")
    first, last = (short_lists[s] for s in SHORT_LISTS)
    rows = {
        s: next((r["n_rows"] for r in short_lists[s].values() if r.get("n_rows")), None)
        for s in SHORT_LISTS
    }
    names = [f"{SIZES[s][0]:,} queries x {SIZES[s][1]} items s" for s in SHORT_LISTS]
    m = info["machine"]
    lines = [
        start,
        "## Many short lists: scaling",
        "",
        "Written by `benchmarks/run.py` (every full run; `--short-lists-only` replaces this "
        "section alone); do not edit by hand. How to read it: docs/performance.md.",
        "",
        f"- **Date**: {info['date']}; rankframe at `{m['commit']}`; `{info['command']}`; "
        f"{info['elapsed_s']:.0f} s; load average {m['load_average'][0]:.2f} at the start, "
        f"{m['load_average_end'][0]:.2f} at the end",
        "- **Workload**: the workload of the main table (six metrics, default options) on "
        f"{SIZES[SHORT_LISTS[0]][0]:,} then {SIZES[SHORT_LISTS[1]][0]:,} queries x 2 items; "
        "the query ids `q0`-`q999999` have 2-7 bytes, then up to 8 (`q4999999`)",
        f"- **Method**: {SHORT_LIST_PROCESSES} fresh processes per approach and size (the "
        "cost of fresh memory pages varies from process to process on this machine), each as "
        f"in the main table: warm-up excluded, median of at least {info['repeat']} runs; a "
        "time is the median of the processes' medians (each in the last column)",
        "",
        f"| approach | {names[0]} | {names[1]} | time ratio for "
        f"{fmt(ratio(rows[SHORT_LISTS[1]], rows[SHORT_LISTS[0]]), 1)}x the rows | "
        "each process's median s |",
        "|---|---:|---:|---:|---|",
    ]
    for name in SHORT_LIST_APPROACHES:
        a, b = median_of(first.get(name, {})), median_of(last.get(name, {}))
        shown = [
            fmt(v, 3) if v is not None else status_of(r.get(name, {}))
            for v, r in ((a, first), (b, last))
        ]
        each = "; ".join(
            " / ".join(fmt(v, 3) for v in r.get(name, {}).get("process_medians", []))
            for r in (first, last)
        )
        lines.append(
            f"| {APPROACHES[name].label} | {shown[0]} | {shown[1]} | "
            f"{fmt(ratio(b, a), 1, 'x')} | {each} |"
        )
    lines += ["", "| target | measured | verdict |", "|---|---:|---|"]
    lines += [
        f"| {label} | {value} | {verdict} |"
        for label, value, verdict in short_list_targets(short_lists)
    ]
    return "\n".join([*lines, end])


def render_ties_average(results: dict[str, Any], info: dict[str, Any]) -> str:
    """The section of RESULTS.md on ties="average": its time against ties="trec"'s on the
    main workload, the means of both, and the target."""
    start, end = markers("ties-average")
    m = info["machine"]
    queries, lo, hi = SIZES[info["size"]]
    rows = next((r["n_rows"] for r in results.values() if r.get("n_rows")), None)
    lines = [
        start,
        '## ties="average" against ties="trec"',
        "",
        "Written by `benchmarks/run.py --ties-average-only` (the main table has the same row "
        "after a full run); do not edit by hand.",
        "",
        f"- **Date**: {info['date']}; rankframe at `{m['commit']}`; `{info['command']}`; "
        f"{info['elapsed_s']:.0f} s; load average {m['load_average'][0]:.2f} at the start, "
        f"{m['load_average_end'][0]:.2f} at the end",
        f"- **Machine**: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), "
        f"{m['ram_gib']:.1f} GiB RAM",
        f"- **Workload**: the main table's (`evaluate` of the six metrics) on size "
        f"{info['size']}: {queries:,} queries x {lo}-{hi} items = {rows or 0:,} rows, 10% of "
        "the scores rounded to 2 decimals (ties)",
        f"- **Method**: as in the main table: a fresh process per approach, warm-up excluded, "
        f"median of at least {info['repeat']} runs",
        "",
        '| approach | median s | runs | ratio to ties="trec" | peak extra GiB | '
        + " | ".join(METRICS)
        + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(METRICS),
    ]
    base = median_of(results.get("rankframe_pandas", {}))
    for name in AVERAGE_APPROACHES:
        r = results.get(name, {})
        median = median_of(r)
        values = r.get("values", {})
        shown = fmt(median, 3) if median is not None else status_of(r)
        lines.append(
            f"| {APPROACHES[name].label} | {shown} | {len(r.get('times', []))} | "
            f"{fmt(ratio(median, base), 2, 'x')} | {fmt(r.get('peak_extra_gib'), 2)} | "
            + " | ".join(fmt(values.get(metric), 6) for metric in METRICS)
            + " |"
        )
    label, value, verdict = ties_average_target(results)
    lines += [
        "",
        "| target | measured | verdict |",
        "|---|---:|---|",
        f"| {label} | {value} | {verdict} |",
    ]
    return "\n".join([*lines, end])


def ties_average_target(results: dict[str, Any]) -> tuple[str, str, str]:
    """The target row of ties="average": at most AVERAGE_LIMIT times ties="trec"'s time."""
    label = f'ties="average" <= {AVERAGE_LIMIT:g}x the time of the default ties="trec" (pandas)'
    value = ratio(*(median_of(results.get(n, {})) for n in reversed(AVERAGE_APPROACHES)))
    verdict = "not measured" if value is None else ("pass" if value <= AVERAGE_LIMIT else "FAIL")
    return label, fmt(value, 2, "x"), verdict


def render_all_trec(data: dict[str, Any], info: dict[str, Any]) -> str:
    """The section of RESULTS.md on every measure of all_trec at once: the six-metric
    evaluate, all_trec's evaluate and pytrec_eval's all_trec, their agreement, the targets."""
    start, end = markers("all-trec")
    size, timings, agreement = data["size"], data["timings"], data["agreement"]
    queries, lo, hi = SIZES[size]
    six, every, theirs = (median_of(timings.get(n, {})) for n in ALL_TREC_APPROACHES)
    m = info["machine"]
    lines = [
        start,
        "## Every measure of trec_eval's all_trec at once",
        "",
        "Written by `benchmarks/run.py` (every full run; `--all-trec-only` replaces this "
        "section alone); do not edit by hand. How to read it: docs/performance.md.",
        "",
        f"- **Size {size}**: {queries:,} queries x {lo}-{hi} items, the main table's "
        f"workload; **date** {info['date']}; rankframe at `{m['commit']}`; "
        f"`{info['command']}`; {info['elapsed_s']:.0f} s",
        f"- **Machine**: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), "
        f"{m['ram_gib']:.1f} GiB RAM; load average {m['load_average'][0]:.2f} at the start, "
        f"{m['load_average_end'][0]:.2f} at the end (shared: compare the ratios)",
        f"- **Workload**: `evaluate` of the {data['n_metrics']} metrics that trec_eval's "
        "`-m all_trec` prints (`P_5` ... `unj_20`, `gm_map`, the `num_*` counts; not `runid`, "
        "`num_q`, `relstring`), against the main table's six-metric `evaluate`, and against "
        "pytrec_eval's `all_trec` from the same frame (its dicts built inside the timing, "
        "then the mean of each measure); pytrec_eval lacks rbp, rbp_resid and unj, which "
        "rankframe computes on top",
        "- **Method**: as in the main table: a fresh process per approach, warm-up "
        f"excluded, median of at least {info['repeat']} runs",
        "",
        "| approach | median s | runs | time / six metrics | peak extra GiB | phases (median s) |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name in ALL_TREC_APPROACHES:
        r = timings.get(name, {})
        label = APPROACHES[name].label
        if "median" not in r:
            lines.append(f"| {label} | {status_of(r)} | | | | |")
            continue
        phases = ", ".join(f"{p} {v:.2f}" for p, v in r["phases"].items())
        lines.append(
            f"| {label} | {r['median']:.3f} | {len(r['times'])} | "
            f"{fmt(ratio(r['median'], six), 2, 'x')} | "
            f"{fmt(r['peak_extra_gib'], 2)} | {phases} |"
        )
    lines += [
        "",
        "Agreement with pytrec_eval (before timing, same data): the largest "
        "absolute difference per query and of the `all` value (trec_eval's aggregate of "
        "pytrec_eval's per-query values), per measure family.",
        "",
    ]
    families = agreement.get("families")
    worst = None
    if families is None:
        lines.append(f"Not run: {status_of(agreement)}")
    else:
        worst = max(
            max(e["per_query"], e["all"])
            for name, e in families.items()
            if name not in ROUNDED_LEVELS
        )
        lines += [
            f"{agreement['n_queries']:,} queries, {agreement['n_measures']} measures.",
            "",
            "| family | values compared per query | max abs diff per query | "
            "max abs diff of `all` | note |",
            "|---|---:|---:|---:|---|",
        ]
        lines += [
            f"| {name} | {int(e['values']):,} | {e['per_query']:.1e} | {e['all']:.1e} | "
            + (
                "trec_eval 9's rounding in pytrec_eval (below) |"
                if name in ROUNDED_LEVELS
                else " |"
            )
            for name, e in families.items()
        ]
        lines += [
            "",
            f"{' and '.join(ROUNDED_LEVELS)}: trec_eval 10 turns a recall level into "
            "a number of relevant documents with `lround(level * R)`, the trec_eval 9 "
            "that pytrec_eval bundles with `(long)(level * R + 0.9)`; rankframe follows "
            "trec_eval 10, whose own test outputs it matches. "
            "`tests/references/test_trec_agreement.py` checks a reference written from "
            "trec_eval's code against both: trec_eval 9's rounding gives pytrec_eval's "
            "values, trec_eval 10's gives rankframe's. They are left out of the verdict "
            "below.",
        ]
    speedup = ratio(theirs, every)
    cost = ratio(every, six)
    rows = [
        (
            f"all_trec at once <= {ALL_TREC_LIMIT:g}x the six-metric evaluate",
            fmt(cost, 2, "x"),
            "not measured" if cost is None else "pass" if cost <= ALL_TREC_LIMIT else "FAIL",
        ),
        (
            f">= {ALL_TREC_SPEEDUP:g}x faster than pytrec_eval on all_trec",
            fmt(speedup, 1, "x"),
            "not measured"
            if speedup is None
            else "pass"
            if speedup >= ALL_TREC_SPEEDUP
            else "FAIL",
        ),
        (
            f"identical to pytrec_eval (per query and `all`, {TOLERANCE:g})",
            "—" if worst is None else f"{worst:.1e}",
            "not measured" if worst is None else "pass" if worst <= TOLERANCE else "FAIL",
        ),
    ]
    note = "" if size == "L" else f" Measured on size {size}; the targets are for size L."
    lines += [
        "",
        f"Targets, computed from the numbers above.{note}",
        "",
        "| target | measured | verdict |",
        "|---|---:|---|",
    ]
    lines += [f"| {label} | {value} | {verdict} |" for label, value, verdict in rows]
    return "\n".join([*lines, end])


def short_list_targets(short_lists: dict[str, dict[str, Any]]) -> list[tuple[str, str, str]]:
    """The target row of the short lists' scaling (rankframe, pandas)."""
    label = (
        f"many short lists: 1M -> 5M queries x 2 items costs <= {SHORT_LIST_LIMIT:g}x "
        "the time (pandas)"
    )
    if not short_lists:
        return [(label, "—", "not measured (--skip-short-lists)")]
    first, last = (median_of(short_lists[s].get("rankframe_pandas", {})) for s in SHORT_LISTS)
    value = ratio(last, first)
    verdict = "not measured" if value is None else ("pass" if value <= SHORT_LIST_LIMIT else "FAIL")
    return [(label, fmt(value, 1, "x"), verdict)]


def render_targets(raw: dict[str, Any]) -> list[str]:
    results, agreement, validation = raw["results"], raw["agreement"], raw["validation"]
    size = raw["info"]["size"]
    floor_s = median_of(results.get("floor", {}))
    ours = median_of(results.get("rankframe_pandas", {}))

    def check(measured: float | None, limit: float, at_least: bool = False) -> str:
        if measured is None:
            return "not measured"
        ok = measured >= limit if at_least else measured <= limit
        return "pass" if ok else "FAIL"

    rows: list[tuple[str, str, str]] = []

    def to_floor(name: str, limit: float, label: str) -> None:
        value = ratio(median_of(results.get(name, {})), floor_s)
        rows.append((label, fmt(value, 2, "x"), check(value, limit)))

    to_floor("rankframe_pandas", 2.0, "pandas input <= 2.0x the floor")
    to_floor("rankframe_polars", 2.0, "polars eager input <= 2.0x the floor")
    to_floor("rankframe_lazy", 2.0, "polars LazyFrame on scan_parquet: <= 2.0x the floor")
    for name, limit in (("pytrec_eval", 20.0), ("ranx", 40.0), ("torchmetrics", 40.0)):
        value = ratio(median_of(results.get(name, {})), ours)
        rows.append(
            (
                f">= {limit:.0f}x faster than {name}",
                fmt(value, 1, "x"),
                check(value, limit, at_least=True),
            )
        )
    per_query = agreement.get("pytrec_eval_per_query")
    worst = max(per_query.values()) if per_query else None
    rows.append(
        (
            f"values identical to pytrec_eval's (per query, {TOLERANCE:g})",
            fmt(worst, 1) if worst is None else f"{worst:.1e}",
            check(worst, TOLERANCE),
        )
    )
    r = results.get("rankframe_pandas", {})
    peak, frame = r.get("peak_extra_gib"), r.get("input_gib")
    rows.append(
        (
            "peak extra memory during evaluate <= the input frame's deep size",
            f"{fmt(peak, 2)} GiB vs {fmt(frame, 2)} GiB",
            check(ratio(peak, frame), 1.0),
        )
    )
    small = raw["scaling_small"]
    if small and size == "L":
        value = ratio(ours, median_of(small["rankframe_pandas"]))
        rows.append(
            ("scaling 1M -> 10M rows costs <= 12x the time", fmt(value, 1, "x"), check(value, 12.0))
        )
    else:
        rows.append(
            ("scaling 1M -> 10M rows costs <= 12x the time", "—", "not measured (needs SIZE=L)")
        )
    for shape, runs in raw["shapes"].items():
        value = ratio(median_of(runs["rankframe_pandas"]), median_of(runs["floor"]))
        rows.append(
            (f"{shape} lists within 2.5x their floor", fmt(value, 2, "x"), check(value, 2.5))
        )
    rows += short_list_targets(raw.get("short_lists", {}))
    rows.append(ties_average_target(results))
    shares = validation_shares(validation)
    rows.append(
        (
            "validation (schema + duplicate check) <= 25% of the total (in place; parts alone)",
            "—" if shares is None else f"{shares[0]:.0%}; {shares[1]:.0%}",
            check(None if shares is None else shares[0], 0.25),
        )
    )
    note = (
        ""
        if size == "L"
        else (f" Measured on size {size}; the issue's targets are for size L (10M rows).")
    )
    lines = [
        "## Targets",
        "",
        f"Computed from the numbers above.{note}",
        "",
        "| target | measured | verdict |",
        "|---|---:|---|",
    ]
    lines += [f"| {label} | {value} | {verdict} |" for label, value, verdict in rows]
    return [*lines, ""]
