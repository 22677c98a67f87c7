"""A p-value as it is: one that underflowed to 0 reads ``< 1e-300`` in every output (the
report, the dashboard, the command line's tables), never ``0.0000`` nor ``0.0e+00``.

The data is built so that the paired t-test's p underflows: system a ranks the relevant item
first in each of 3,000 queries (rr 1), system b in every other query (rr 1 or 1/2), so the
differences are 0 and 1/2 in equal numbers: t = sqrt(3000 - 1) · 1 ≈ 55, whose p is below
the smallest double.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from helpers import FrameMaker, Run, as_pandas
from rankframe import History

N = 3_000
FLOOR = "< 1e-300"
ZEROS = ("0.0000", "0.0e+00", "0.0e0")


def _underflow() -> dict[str, Any]:
    first = np.repeat(np.arange(N) % 2 == 0, 2)
    a = np.tile([1.0, 0.0], N)
    return {
        "query": np.repeat(np.arange(N), 2),
        "item": np.tile(["x", "y"], N),
        "relevant": np.tile([1, 0], N),
        "a": a,
        "b": np.where(first, np.tile([0.0, 1.0], N), a),
    }


def _p_cells(page: str) -> list[str]:
    """The text of every cell of a p-value on a page (``data-kind`` ending in ``p_value``
    or ``p_adjusted``)."""
    return [
        html.unescape(text)
        for text in re.findall(
            r'<td class="num" data-kind="[a-z_]*:?p_(?:value|adjusted)"[^>]*>([^<]*)</td>', page
        )
    ]


def test_the_p_value_underflows(make_frame: FrameMaker) -> None:
    table = as_pandas(
        make_frame(_underflow())
        .rank_eval(score=["a", "b"])
        .compare(["mrr"], baseline="a", test="t-test")
    )
    row = table[table["system"] == "b"].iloc[0]
    assert (row["p_value"], row["p_adjusted"], row["delta"]) == (0.0, 0.0, -0.25)


def test_the_report_writes_it_as_below_the_floor(make_frame: FrameMaker) -> None:
    ev = make_frame(_underflow()).rank_eval(score=["a", "b"])
    page = ev.report(["mrr"], baseline="a", test="t-test").html()
    cells = _p_cells(page)
    assert cells
    assert set(cells) <= {FLOOR, ""}
    assert f"adjusted p {html.escape(FLOOR)}" in page  # the answer's words


def test_the_dashboard_writes_it_as_below_the_floor(make_frame: FrameMaker, tmp_path: Path) -> None:
    store = History(tmp_path / "runs.duckdb")
    ev = make_frame(_underflow()).rank_eval(score=["a", "b"])
    store.record(
        ev.check(["mrr drop <= 0.01"], baseline="a", test="t-test", mode="point"), run="gate"
    )
    page = store.dashboard()
    cells = re.findall(r'<td class="num">([^<]*)</td>', page)
    assert html.escape(FLOOR) in cells
    assert not any(zero in page for zero in ZEROS[1:])


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "runs.csv"
    pd.DataFrame(_underflow()).to_csv(path, index=False)
    return path


def _table_cells(out: str, system: str) -> dict[str, str]:
    """The cells of ``system``'s row of an aligned table, by column (the rule line under the
    header gives each column's span)."""
    header, rule, *rows = out.splitlines()
    spans = [m.span() for m in re.finditer(r"-+", rule)]
    row = next(r for r in rows if r[slice(*spans[0])].strip() == system)
    return {header[a:e].strip(): row[a:e].strip() for a, e in spans}


def _markdown_cells(out: str, system: str) -> dict[str, str]:
    header, _, *rows = [
        [c.strip() for c in line.strip("|").split(" | ")] for line in out.splitlines()
    ]
    return dict(zip(header, next(r for r in rows if r[0] == system), strict=True))


def test_the_command_line_writes_it_as_below_the_floor(run: Run, tmp_path: Path) -> None:
    path = _file(tmp_path)
    for fmt, cells in (("table", _table_cells), ("markdown", _markdown_cells)):
        code, out, err = run(
            "compare",
            path,
            "--score",
            "a",
            "--score",
            "b",
            "-m",
            "mrr",
            "--test",
            "t-test",
            "--format",
            fmt,
        )
        assert code == 0, err
        shown = cells(out, "b")
        assert (shown["p_value"], shown["p_adjusted"]) == (FLOOR, FLOOR), out
    code, out, err = run(
        "check",
        path,
        "--score",
        "a",
        "--score",
        "b",
        "--test",
        "t-test",
        "--rule",
        "mrr drop <= 0.01",
        "--mode",
        "point",
    )
    assert code == 1, err
    shown = _table_cells(out, "mrr drop <= 0.01")
    assert (shown["p_value"], shown["p_adjusted"]) == (FLOOR, FLOOR), out
    assert not any(zero in out for zero in ZEROS)
