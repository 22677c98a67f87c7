"""Errors of the command line about a bad file: each names the file, the 1-based line of the
offending record and the option to pass, in one short line, never a Python fix.

The cases are those a new user met (issue 14): empty files, a non-UTF-8 byte, a ``nan`` score,
a repeated document, an extra field, a bad value far into a big file, an empty query cell, a
header-only CSV, and input (binary garbage, a 100 MB line) that a message must not echo.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

from helpers import CONFORMANCE
from rankframe import cli, read_trec_qrels, read_trec_run
from rankframe.cli.errors import MAX_MESSAGE, fail
from rankframe.exceptions import EXCERPT_CHARACTERS, InvalidDataError, TrecFormatError

QRELS = CONFORMANCE / "qrels.test"
HEADER = "query,item,score,relevant\n"
# what the Python API says, which a command-line user cannot act on
PYTHON_FIXES = ("df.", "pd.", "pl.", "drop_duplicates", "fillna", "to_numeric", "='", "row 0")

Error = Callable[..., str]


@pytest.fixture
def error(capsys: pytest.CaptureFixture[str]) -> Error:
    """``error(*argv)`` → the message of a failing command, checked for its form."""

    def call(*argv: object, code: int = 1) -> str:
        status = cli.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert (status, out) == (code, ""), err
        assert err.startswith("rankframe: error: "), err
        assert err.count("\n") == 1, err
        assert err.endswith("\n"), err
        assert len(err) < 500, f"{len(err)} characters: {err[:1000]}"
        assert not any(fix in err for fix in PYTHON_FIXES), err
        return err.removeprefix("rankframe: error: ").rstrip("\n")

    return call


def text(path: Path, content: str | bytes) -> Path:
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


# -- TREC run and qrels files -----------------------------------------------------------------


RUN_LAYOUT = "each line must read 'query Q0 docno rank score runid'."
RUN_CASES = {
    # name: (run file content, message, where {path} is the file)
    "empty run": (b"", "The run file {path} has no lines; " + RUN_LAYOUT),
    "non-UTF-8 byte on line 2": (
        b"301 Q0 a 1 2.5 r\n301 Q0 \xffb 2 1.5 r\n",
        "Line 2 of the run file {path} is not UTF-8 text (byte 0xff in "
        "'301 Q0 \\xffb 2 1.5 r'); save the file as UTF-8.",
    ),
    "nan score on line 2": (
        b"301 Q0 a 1 2.5 r\n301 Q0 b 2 nan r\n",
        "Line 2 of the run file {path} has the score 'nan', which is not a number "
        "('301 Q0 b 2 nan r'); " + RUN_LAYOUT,
    ),
    "duplicate docno on lines 1 and 2": (
        b"301 Q0 a 1 2.5 r\n301 Q0 a 2 1.5 r\n",
        "Document 'a' appears 2 times in query '301' of the run file {path} (lines 1 and 2); "
        "trec_eval rejects duplicate documents: keep one line for each.",
    ),
}


@pytest.mark.parametrize("case", list(RUN_CASES))
def test_run_errors_name_the_line(error: Error, tmp_path: Path, case: str) -> None:
    content, message = RUN_CASES[case]
    run = text(tmp_path / "Run.txt", content)
    assert error("trec", QRELS, run) == message.format(path=f"'{run}'")


def test_empty_qrels_and_blank_lines(error: Error, tmp_path: Path) -> None:
    blank = text(tmp_path / "blank.qrels", "\n  \n")
    good_run = CONFORMANCE / "results.test"
    assert error("trec", blank, good_run).startswith(f"The qrels file '{blank}' has no lines;")
    # blank lines count: the lines are the file's
    qrels = text(tmp_path / "q.qrels", "301 0 a 1\n\n302 0 b 0\n301 0 a 0\n")
    with pytest.raises(TrecFormatError, match=r"\(lines 1 and 4\)") as raised:
        read_trec_qrels(qrels)
    assert (raised.value.path, raised.value.kind, raised.value.line) == (str(qrels), "qrels", 4)


def test_fields_after_the_sixth_are_ignored_as_trec_eval_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # CR93E-1282 is relevant to 301 in qrels.test: P_2 = 1/2
    lines = "301 Q0 CR93E-1282 1 2.5 r\n301 Q0 b 2 1.5 r\n301 Q0 c 3 1.0 r"
    plain = text(tmp_path / "plain.run", f"{lines}\n")
    extra = text(tmp_path / "extra.run", f"{lines} extra fields\n")
    assert cli.main(["trec", "-m", "P.2", str(QRELS), str(plain)]) == 0
    expected = capsys.readouterr().out
    assert expected == "P_2                   \tall\t0.5000\n"
    assert cli.main(["trec", "-m", "P.2", str(QRELS), str(extra)]) == 0
    assert capsys.readouterr().out == expected


def test_too_few_fields_carry_the_line_and_count(error: Error, tmp_path: Path) -> None:
    run = text(tmp_path / "r.run", "301 Q0 a 1 2.5 r\n301 Q0 b 2 1.5 r\n301 Q0 c 3 1.0\n")
    with pytest.raises(TrecFormatError) as raised:
        read_trec_run(run)
    assert (raised.value.line, raised.value.n_fields, raised.value.kind) == (3, 5, "run")
    assert isinstance(raised.value, InvalidDataError)
    assert error("trec", QRELS, run).startswith(f"Line 3 of the run file '{run}' has 5 fields")


def test_non_numeric_score_on_line_19199(error: Error, tmp_path: Path) -> None:
    lines = [f"301 Q0 d{i} {i} {1e6 - i} r\n" for i in range(1, 25_001)]
    lines[19_198] = "301 Q0 bad 19199 high r\n"
    run = text(tmp_path / "big.run", "".join(lines))
    assert error("trec", QRELS, run).startswith(
        f"Line 19,199 of the run file '{run}' has the score 'high', which is not a number"
    )


def test_a_100_mb_line_and_binary_garbage_are_not_echoed(error: Error, tmp_path: Path) -> None:
    huge = text(tmp_path / "huge.run", b"x" * 100 * 2**20)
    message = error("trec", QRELS, huge)
    assert message.startswith(f"Line 1 of the run file '{huge}' has 1 fields ('xxx")
    assert "'... (104,857,600 characters)" in message
    assert message.count("x") < EXCERPT_CHARACTERS + 10

    garbage = text(tmp_path / "garbage.run", b"301 Q0 a 1 2.5 r\n" + bytes(range(11, 256)) * 16)
    message = error("trec", QRELS, garbage)
    assert message.startswith(f"Line 2 of the run file '{garbage}' is not UTF-8 text (byte 0x")


# -- long-format CSV, TSV, JSON lines and Parquet files ----------------------------------------


CSV_CASES = {
    # name: (file content, message, where {path} is the file)
    "empty file": (
        b"",
        "The file {path} is empty; a CSV file needs a header and a row per (query, item)",
    ),
    "header only": (
        HEADER.encode(),
        "The file {path} has no rows, only a header; it needs one row per (query, item)",
    ),
    "non-UTF-8 byte on line 2": (
        HEADER.encode() + b"q1,\xfe,0.5,1\n",
        "Line 2 of {path} is not UTF-8 text (byte 0xfe in 'q1,\\xfe,0.5,1'); save the file "
        "as UTF-8",
    ),
    # (nan, NaN and an empty cell are null scores, as pd.read_csv reads them:
    # tests/cli/test_null_scores_cli.py)
    "word score on line 2": (
        f"{HEADER}q1,a,high,1\n".encode(),
        "Line 2 of {path} has the score 'high' (column 'score'), which is not a number; write a "
        "number (leave the cell empty for an item judged but not retrieved), or pass --score "
        "with another column",
    ),
    "duplicate item on lines 2 and 3": (
        f"{HEADER}q1,a,0.5,1\nq1,a,0.4,0\nq2,a,0.4,0\n".encode(),
        "Item 'a' appears 2 times in query 'q1' of {path} (lines 2 and 3); each item may appear "
        "once per query: delete the repeated rows, or pass --item with the column that tells "
        "the items apart",
    ),
    "extra field on line 3": (
        f"{HEADER}q1,a,0.5,1\nq1,b,0.4,0,9\nq1,c,0.3,0\n".encode(),
        "Line 3 of {path} has 5 fields where the header has 4 ('q1,b,0.4,0,9'); remove the "
        "extra fields, or quote a value that holds ','",
    ),
    "empty query cell": (
        f"{HEADER}q1,a,0.5,1\n,b,0.4,0\n".encode(),
        "Line 3 of {path} has no query (column 'query'); every row needs one: fill it in or "
        "delete the row, or pass --query with another column",
    ),
    "empty grade cell": (
        f"{HEADER}q1,a,0.5,1\nq1,b,,\n".encode(),
        "Line 3 of {path} has no grade (column 'relevant'); every row needs one: write 0 for an "
        "item that is not relevant or delete the row, or pass --relevant with another column",
    ),
    "infinite grade": (
        f"{HEADER}q1,a,1,inf\n".encode(),
        "Line 2 of {path} has the grade inf (column 'relevant'), which is not a finite number; "
        "write the grade, or pass --relevant with another column",
    ),
    "grade that is not a number": (
        f"{HEADER}q1,a,1,yes\n".encode(),
        "Line 2 of {path} has the grade 'yes' (column 'relevant'), which is not a number; write "
        "a number (write 0 for an item that is not relevant), or pass --relevant with another "
        "column",
    ),
}


@pytest.mark.parametrize("case", list(CSV_CASES))
def test_csv_errors_name_the_line_and_the_option(error: Error, tmp_path: Path, case: str) -> None:
    content, message = CSV_CASES[case]
    path = text(tmp_path / "d.csv", content)
    assert error("evaluate", path) == message.format(path=f"'{path}'")


def test_csv_non_numeric_score_on_line_19199(error: Error, tmp_path: Path) -> None:
    # past polars' inference window: the file is read again, the line still found
    rows = [f"q{i // 10},d{i},{i / 2},{i % 2}\n" for i in range(2, 25_001)]
    rows[19_197] = "q9,bad,high,0\n"  # line 19,199: the header is line 1
    big = text(tmp_path / "big.csv", HEADER + "".join(rows))
    assert error("evaluate", big).startswith(
        f"Line 19,199 of '{big}' has the score 'high' (column 'score'), which is not a number"
    )


def test_line_numbers_follow_quoted_line_breaks_blank_lines_and_formats(
    error: Error, tmp_path: Path
) -> None:
    # a quoted cell over lines 2-3, a blank line 4 (a row of nulls for polars), a bad line 5
    path = text(tmp_path / "d.csv", f'{HEADER}q1,"a\nb",0.5,1\n\nq1,c,0.4,0\n')
    assert error("evaluate", path).startswith(f"Line 4 of '{path}' has no query")
    path = text(tmp_path / "q.csv", f'{HEADER}q1,"a\nb",0.5,1\n,c,0.4,0\n')
    assert error("evaluate", path).startswith(f"Line 4 of '{path}' has no query")
    # JSON lines skip blank lines; the line is the file's
    jsonl = text(
        tmp_path / "d.jsonl",
        '{"query": "q1", "item": "a", "score": 1, "relevant": 1}'
        '\n\n{"query": null, "item": "b", "score": 1, "relevant": 0}\n',
    )
    assert error("evaluate", jsonl).startswith(f"Line 3 of '{jsonl}' has no query")
    # Parquet has rows, not lines; a NaN id is a missing one
    nan_id = tmp_path / "nan.parquet"
    pl.DataFrame(
        {"query": [1.0, float("nan")], "item": ["a", "b"], "score": [1.0, 2.0], "relevant": [1, 0]}
    ).write_parquet(nan_id)
    assert error("evaluate", nan_id).startswith(f"Row 2 of '{nan_id}' has no query")
    parquet = tmp_path / "d.parquet"
    pd.DataFrame(
        {
            "query": ["q1", "q1", "q2"],
            "item": ["a", "b", "a"],
            "score": [1.0, 2, 3],
            "relevant": [1, 0, 0],
        }
    ).to_parquet(parquet)
    assert error("evaluate", parquet, "--empty", "error") == (
        f"1 query has no relevant item (grade > 0) in '{parquet}': 'q2' (row 3); their metrics "
        "are undefined: pass --empty zero (count 0, as trec_eval), --empty skip or --empty nan, "
        "or a lower --min-relevance"
    )


def test_standard_input(error: Error, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    data = f"{HEADER}q1,a,0.5,1\nq1,b,x,0\n".encode()
    stdin = text(tmp_path / "stdin", data).open("rb")
    monkeypatch.setattr("sys.stdin", type("Stdin", (), {"buffer": stdin})())
    assert error("evaluate", "-").startswith(
        "Line 3 of standard input has the score 'x' (column 'score')"
    )
    stdin.close()


def test_by_column_varying_within_a_query(error: Error, tmp_path: Path) -> None:
    path = text(tmp_path / "d.csv", "query,item,score,relevant,seg\nq1,a,0.5,1,x\nq1,b,0.4,0,y\n")
    assert error("evaluate", path, "--by", "seg") == (
        f"Column 'seg' (--by) varies within query 'q1' of '{path}': 'x' on line 2, 'y' on line "
        "3; a --by column must be constant within a query (a user, a theme, a cohort): pass "
        "--by with such a column"
    )
    assert error("evaluate", path, "--by", "score", code=2) == (
        "--by score is the --score column; pass --by with a column that describes the query "
        "(a user segment, a theme)"
    )


def test_empty_queries_name_their_first_line(error: Error, tmp_path: Path) -> None:
    rows = "".join(f"q{i},a,0.5,0\n" for i in range(8))
    path = text(tmp_path / "d.csv", f"{HEADER}qr,a,0.5,2\n{rows}")
    assert error("evaluate", path, "--empty", "error", "--min-relevance", "2") == (
        f"8 queries have no relevant item (grade >= 2) in '{path}': 'q0' (line 3), 'q1' "
        "(line 4), 'q2' (line 5), 'q3' (line 6), 'q4' (line 7) and 3 more; their metrics are "
        "undefined: pass --empty zero (count 0, as trec_eval), --empty skip or --empty nan, or "
        "a lower --min-relevance"
    )


def test_csv_100_mb_line_and_binary_garbage_are_not_echoed(error: Error, tmp_path: Path) -> None:
    huge = text(tmp_path / "huge.csv", b"x" * 100 * 2**20)
    message = error("evaluate", huge)
    assert message.startswith(f"4 columns not found in '{huge}': 'query' (--query), ")
    assert "'... (104,857,600 characters)" in message
    assert message.count("x") < 50

    garbage = text(tmp_path / "garbage.csv", os.urandom(4096).replace(b"\n", b"") + b"\xff")
    assert error("evaluate", garbage).startswith(f"Line 1 of '{garbage}' is not UTF-8 text")


def test_any_message_is_cut_to_a_bounded_length(capsys: pytest.CaptureFixture[str]) -> None:
    # the last resort for a message from the library that would quote a huge value
    assert fail("Unknown metric 'x" + "y" * 10_000 + "'.", 2) == 2
    err = capsys.readouterr().err
    kept = "y" * (MAX_MESSAGE - len("Unknown metric 'x"))
    assert err == f"rankframe: error: Unknown metric 'x{kept}... (message cut)\n"


@pytest.mark.parametrize("command", ["evaluate", "trec"])
def test_a_directory_is_not_a_file(error: Error, tmp_path: Path, command: str) -> None:
    folder = tmp_path / "d.csv"
    folder.mkdir()
    argv = [folder] if command == "evaluate" else [QRELS, folder]
    assert error(command, *argv) == f"cannot read '{folder}': Is a directory"


def test_many_columns_are_listed_up_to_a_length(error: Error, tmp_path: Path) -> None:
    names = [f"column_number_{i}" for i in range(500)]
    path = text(tmp_path / "wide.csv", ",".join(names) + "\n" + ",".join("1" * 500) + "\n")
    bound = [
        "--item",
        "column_number_1",
        "--score",
        "column_number_2",
        "--relevant",
        "column_number_3",
    ]
    # four missing columns in one message: fewer of the file's columns, still one short line
    many = error("evaluate", path)
    assert many.startswith(f"4 columns not found in '{path}': 'query' (--query), ")
    assert many.endswith(
        "the columns are 'column_number_0', 'column_number_1', "
        "'column_number_2', 'column_number_3', 'column_number_4', "
        "'column_number_5', 'column_number_6', 'column_number_7', ..."
    )
    message = error("evaluate", path, *bound)
    assert message.endswith(
        "the columns are 'column_number_0', 'column_number_1', "
        "'column_number_2', 'column_number_3', 'column_number_4', "
        "'column_number_5', 'column_number_6', 'column_number_7', "
        "'column_number_8', 'column_number_9', 'column_number_10', "
        "'column_number_11', 'column_number_12', 'column_number_13', "
        "'column_number_14', ..."
    )


def test_trec_format_error_keeps_its_fields_through_pickle(tmp_path: Path) -> None:
    run = text(tmp_path / "r.run", "301 Q0 a 1\n")
    with pytest.raises(TrecFormatError) as raised:
        read_trec_run(run)
    copy = pickle.loads(pickle.dumps(raised.value))
    assert (type(copy), str(copy)) == (TrecFormatError, str(raised.value))
    assert (copy.path, copy.kind, copy.line, copy.n_fields) == (str(run), "run", 1, 4)


def test_option_refusals_name_the_flags(error: Error, tmp_path: Path) -> None:
    # the library says ties='truncated_average' and "another ties option"; the command line
    # says --ties truncated_average and "another --ties value"
    data = text(tmp_path / "s.csv", "query,item,score,relevant\nq1,a,0.9,1\nq1,b,0.5,0\n")
    message = error("evaluate", data, "-m", "ndcg", "-m", "bpref", "--ties", "truncated_average")
    assert message.startswith("--ties truncated_average (tied items share one rank"), message
    assert "another --ties value for them (--ties first keeps the frame's order)" in message
    assert "ties='" not in message
    message = error(
        "evaluate", data, "-m", "map", "--convention", "torchmetrics", "--ties", "average"
    )
    assert message.startswith(
        "--ties average cannot be combined with --ap-denominator hits for 'map'"
    ), message
