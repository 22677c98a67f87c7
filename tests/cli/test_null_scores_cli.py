"""The command line reads a null score as pandas' ``read_csv`` does (``nan``, ``NaN``, an empty
field, ``NA``...), counts null scores as the library does, and says so on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import Run

# q1: a (rank 1, relevant), b, c (relevant) and d without a score: R = 2, one retrieved;
# q2: a (rank 1, relevant) and b. recall@3 = (1/2 + 1) / 2 = 0.75; 3 of 6 scores null.
HEADER = "query,item,score,relevant\n"
ROWS = "q1,a,0.5,1\nq1,b,{0},0\nq1,c,{1},1\nq1,d,{2},0\nq2,a,0.3,1\nq2,b,0.1,0\n"
WARNING = (
    "rankframe: warning: score column 'score' has 3 null scores (50.0% of 6 rows); "
    "they count as not retrieved"
)


@pytest.mark.parametrize("nulls", [("nan", "NaN", ""), ("", "", ""), ("NA", "null", "nan")])
def test_null_texts_are_null_scores(run: Run, tmp_path: Path, nulls: tuple[str, ...]) -> None:
    path = tmp_path / "run.csv"
    path.write_text(HEADER + ROWS.format(*nulls), encoding="utf-8")
    code, out, err = run("evaluate", path, "-m", "recall@3")
    assert code == 0, err
    assert out.splitlines()[2].split() == ["0.7500", "2"]
    assert err.count(WARNING) == 1
    assert err.startswith(WARNING)
    # the command line's words: no Python call to silence it
    assert err.endswith(
        "Items outside its ranked list (a top-k list joined with the judgments) are meant so.\n"
    )


def test_a_check_warns_once(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text(HEADER + ROWS.format("nan", "NaN", ""), encoding="utf-8")
    code, _, err = run(
        "check", path, "--rule", "recall@3 >= 0.5", "--mode", "point", "--min-queries", "1"
    )
    assert code == 0, err
    assert err.count("rankframe: warning:") == 1


def test_a_word_that_is_no_number_is_still_an_error(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text(HEADER + ROWS.format("nan", "high", ""), encoding="utf-8")
    code, _, err = run("evaluate", path, "-m", "recall@3")
    assert code == 1
    assert err == (
        f"rankframe: error: Line 4 of {str(path)!r} has the score 'high' (column 'score'), "
        "which is not a number; write a number (leave the cell empty for an item judged but "
        "not retrieved), or pass --score with another column\n"
    )


CAUSE = (
    "Likely a join that matched no row (keys of another dtype or spelling) or scores that "
    "failed to compute; "
)


def test_a_score_column_without_a_score_is_an_error(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    text = HEADER + ROWS.format("nan", "", "NaN").replace("0.5,", ",").replace("0.3,", "NaN,")
    path.write_text(text.replace("0.1,", ","), encoding="utf-8")
    code, out, err = run("evaluate", path, "-m", "recall@3")
    assert (code, out) == (1, "")
    assert err == (
        "rankframe: error: Score column 'score' has no score at all (all 6 rows are null): "
        "the system retrieved nothing, and every metric would be 0 for it. "
        + CAUSE
        + "check the column.\n"
    )


def test_the_fix_of_a_second_system_is_said_as_flags(run: Run, tmp_path: Path) -> None:
    """'new' has no score (an empty column), 'old' and 'my model' have theirs: the error
    names 'new' and says the fix as the command line takes it, its only line on stderr (no
    warning of 'old''s null scores before it)."""
    path = tmp_path / "run.csv"
    rows = ROWS.format("nan", "", "NaN").splitlines()
    lines = ["query,item,old,new,my model,relevant"] + [
        f"{q},{item},{score},,{score},{grade}"
        for q, item, score, grade in (row.split(",") for row in rows)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(
        "compare", path, "--score", "old", "--score", "new", "--score", "my model", "-m", "recall@3"
    )
    assert (code, out) == (1, "")
    assert err == (
        "rankframe: error: Score column 'new' has no score at all (all 6 rows are null): "
        "the system retrieved nothing, and every metric would be 0 for it. "
        + CAUSE
        + "check the column, or leave the system out, e.g. --score old --score 'my model'.\n"
    )
