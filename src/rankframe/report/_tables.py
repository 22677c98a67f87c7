"""Paper tables of a comparison: LaTeX and Markdown, best value in bold, significance marks
as superscript letters (ranx's style).

Each system gets a letter in the order of the table (a, b, c, ...). ``compare()`` tests each
system against the baseline, so a mark says: *significantly better than the system of that
letter*. A system significantly above the baseline carries the baseline's letter; the
baseline carries the letters of the systems significantly below it. Significant means
``p_adjusted < alpha`` (compare's ``significant`` column). The best value of each metric
(per segment) is in bold: the highest, as every metric of the registry is better higher.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from rankframe.exceptions import ColumnNotFoundError
from rankframe.report._records import eager, metric_label

__all__ = ["letters", "marks", "to_latex", "to_markdown"]

_COMPARE_COLUMNS = ("system", "metric", "k", "mean", "delta", "significant")


def letters(systems: list[str]) -> dict[str, str]:
    """Each system's letter: a, b, ..., z, then aa, ab, ..."""
    out = {}
    for i, system in enumerate(systems):
        letter = string.ascii_lowercase[i % 26]
        out[system] = letter if i < 26 else string.ascii_lowercase[i // 26 - 1] + letter
    return out


@dataclass(frozen=True)
class _Entry:
    """One row of a comparison, as plain values: its segment's values, system, metric label
    (``ndcg@10``), mean, delta, p-value (NaN for the baseline) and significance."""

    key: tuple[str, ...]
    system: str
    label: str
    mean: float
    delta: float
    p_value: float
    significant: bool


def _floats(frame: pd.DataFrame, column: str) -> list[float]:
    if column not in frame.columns:
        return [math.nan] * len(frame)
    values = frame[column].to_numpy(dtype=float, na_value=math.nan)
    return [float(v) for v in values]


def _entries(table: Any) -> tuple[list[_Entry], list[str]]:
    """A comparison table's rows as plain values, pulled out of the frame once; its segment
    columns."""
    frame = eager(table)
    missing = [c for c in _COMPARE_COLUMNS if c not in frame.columns]
    if missing:
        msg = (
            f"to_latex()/to_markdown() read the table of compare(): column {missing[0]!r} "
            f"is missing (columns: {', '.join(map(str, frame.columns))})."
        )
        raise ColumnNotFoundError(msg)
    position = list(frame.columns).index("system")
    segments = [str(c) for c in frame.columns[:position] if c not in ("window",)]
    if "window" in frame.columns[:position]:
        segments = [*segments, "window"]
    keys = list(zip(*([str(v) for v in frame[c].tolist()] for c in segments), strict=True))
    if not segments:
        keys = [()] * len(frame)
    labels = [
        metric_label(m, k)
        for m, k in zip(frame["metric"].tolist(), frame["k"].tolist(), strict=True)
    ]
    entries = [
        _Entry(key, str(system), label, mean, delta, p, bool(significant))
        for key, system, label, mean, delta, p, significant in zip(
            keys,
            frame["system"].tolist(),
            labels,
            _floats(frame, "mean"),
            _floats(frame, "delta"),
            _floats(frame, "p_value"),
            frame["significant"].tolist(),
            strict=True,
        )
    ]
    return entries, segments


def marks(table: Any) -> dict[tuple[tuple[str, ...], str, str], str]:
    """(segment values, system, metric label) → its superscript letters."""
    return _marks(_entries(table)[0])


def _marks(entries: list[_Entry]) -> dict[tuple[tuple[str, ...], str, str], str]:
    letter = letters(list(dict.fromkeys(e.system for e in entries)))
    baseline = _baseline(entries)
    out: dict[tuple[tuple[str, ...], str, str], str] = {}
    for e in entries:
        if not e.significant or e.system == baseline:
            continue
        if e.delta > 0:
            cell = (e.key, e.system, e.label)
            out[cell] = out.get(cell, "") + letter[baseline]
        elif e.delta < 0:
            cell = (e.key, baseline, e.label)
            out[cell] = out.get(cell, "") + letter[e.system]
    return {k: "".join(sorted(v)) for k, v in out.items()}


def _baseline(entries: list[_Entry]) -> str:
    """The system whose rows have delta 0 and no test (compare's baseline)."""
    for e in entries:
        if e.delta == 0 and math.isnan(e.p_value):
            return e.system
    return entries[0].system if entries else ""


def _cells(
    rows: list[list[tuple[str, bool, str]]], escape: Callable[[str], str], *, bold: str, mark: str
) -> list[list[str]]:
    """:func:`_grid`'s cells in a markup: each text escaped, in the ``bold`` template
    (``{}``: the text) when bold, then its marks in the ``mark`` template."""
    out = []
    for cells in rows:
        row = []
        for text, strong, marks in cells:
            cell = escape(text)
            if strong:
                cell = bold.format(cell)
            if marks:
                cell += mark.format(marks)
            row.append(cell)
        out.append(row)
    return out


def _grid(
    table: Any, digits: int
) -> tuple[list[str], list[str], list[list[tuple[str, bool, str]]]]:
    """The header (segments, system, metrics) and the cells: (text, bold, marks)."""
    entries, segments = _entries(table)
    mark = _marks(entries)
    metrics = list(dict.fromkeys(e.label for e in entries))
    systems = list(dict.fromkeys(e.system for e in entries))
    letter = letters(systems)
    blocks: dict[tuple[str, ...], dict[tuple[str, str], float]] = {}
    for e in entries:  # per segment, (system, metric) → the first row's mean
        blocks.setdefault(e.key, {}).setdefault((e.system, e.label), e.mean)
    rows = []
    for key, block in blocks.items():
        best = {
            m: max(
                (v for (_, label), v in block.items() if label == m and not math.isnan(v)),
                default=math.nan,
            )
            for m in metrics
        }
        for system in systems:
            cells = [(v, False, "") for v in key]
            cells.append((f"{system} ({letter[system]})", False, ""))
            for m in metrics:
                value = block.get((system, m), math.nan)
                if math.isnan(value):
                    cells.append(("", False, ""))
                    continue
                bold = round(value, digits) == round(best[m], digits)
                cells.append((f"{value:.{digits}f}", bold, mark.get((key, system, m), "")))
            rows.append(cells)
    return [*segments, "system", *metrics], metrics, rows


_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_text(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text)


def to_latex(table: Any, *, digits: int = 4, caption: str | None = None) -> str:
    """A comparison (the table of ``compare()``, pandas or polars) as a LaTeX ``tabular``:
    a row per system (and segment), a column per metric, the best value of each metric in
    bold, superscript letters for significant differences (see the module).

    Examples
    --------
    Two systems, a and b; b's MRR is higher and significantly so, b's P@1 equal:

    >>> import pandas as pd, rankframe
    >>> table = pd.DataFrame({
    ...     "system": ["a", "b", "a", "b"], "metric": ["mrr", "mrr", "precision", "precision"],
    ...     "k": [None, None, 1, 1], "mean": [0.5, 0.75, 0.25, 0.25],
    ...     "delta": [0.0, 0.25, 0.0, 0.0], "p_value": [None, 0.01, None, 1.0],
    ...     "significant": [False, True, False, False]})
    >>> print(rankframe.to_latex(table, digits=2))
    \\begin{tabular}{lrr}
    \\toprule
    system & mrr & precision@1 \\\\
    \\midrule
    a (a) & 0.50 & \\textbf{0.25} \\\\
    b (b) & \\textbf{0.75}$^{a}$ & \\textbf{0.25} \\\\
    \\bottomrule
    \\end{tabular}
    """
    header, metrics, rows = _grid(table, digits)
    n_keys = len(header) - len(metrics)
    lines = []
    if caption is not None:
        lines += ["\\begin{table}", "\\centering", f"\\caption{{{_latex_text(caption)}}}"]
    lines += [
        f"\\begin{{tabular}}{{{'l' * n_keys}{'r' * len(metrics)}}}",
        "\\toprule",
        " & ".join(_latex_text(h) for h in header) + " \\\\",
        "\\midrule",
    ]
    for cells in _cells(rows, _latex_text, bold="\\textbf{{{}}}", mark="$^{{{}}}$"):
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    if caption is not None:
        lines.append("\\end{table}")
    return "\n".join(lines) + "\n"


def _md_text(text: str) -> str:
    return (
        text.replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("*", "\\*")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
    )


def to_markdown(table: Any, *, digits: int = 4) -> str:
    """A comparison (the table of ``compare()``) as a Markdown table: the best value of each
    metric in bold, superscript letters (``<sup>``) for significant differences.

    Examples
    --------
    The same table as ``to_latex``'s example:

    >>> import pandas as pd, rankframe
    >>> table = pd.DataFrame({
    ...     "system": ["a", "b", "a", "b"], "metric": ["mrr", "mrr", "precision", "precision"],
    ...     "k": [None, None, 1, 1], "mean": [0.5, 0.75, 0.25, 0.25],
    ...     "delta": [0.0, 0.25, 0.0, 0.0], "p_value": [None, 0.01, None, 1.0],
    ...     "significant": [False, True, False, False]})
    >>> print(rankframe.to_markdown(table, digits=2))
    | system | mrr | precision@1 |
    |---|---:|---:|
    | a (a) | 0.50 | **0.25** |
    | b (b) | **0.75**<sup>a</sup> | **0.25** |
    """
    header, metrics, rows = _grid(table, digits)
    n_keys = len(header) - len(metrics)
    lines = [
        "| " + " | ".join(_md_text(h) for h in header) + " |",
        "|" + "---|" * n_keys + "---:|" * len(metrics),
    ]
    for cells in _cells(rows, _md_text, bold="**{}**", mark="<sup>{}</sup>"):
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
