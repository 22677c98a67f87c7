"""The ``rankframe`` command line: evaluate, compare, trec (against trec_eval's own outputs).

Most tests call ``cli.main(argv)`` and read the captured stdout and stderr; one runs the
installed console script in a subprocess.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest

import rankframe
from helpers import CONFORMANCE, DOCS, Run
from rankframe import METRICS, cli
from rankframe.api.accessor import RankEval
from rankframe.cli.reading import INFER_ROWS
from rankframe.trec import TREC_MEASURES, parse_trec_measures, trec_eval_report


@pytest.fixture
def data() -> pd.DataFrame:
    """Four queries in two segments; two systems; a judged item without a score; a tie."""
    return pd.DataFrame(
        {
            "qid": ["q1", "q1", "q1", "q2", "q2", "q2", "q3", "q3", "q4", "q4"],
            "doc": ["a", "b", "c", "a", "b", "c", "a", "b", "a", "b"],
            "sys_a": [0.9, 0.5, None, 0.3, 0.8, 0.1, 0.5, 0.5, 0.2, 0.6],
            "sys_b": [0.1, 0.7, 0.4, 0.9, 0.2, None, 0.6, 0.1, 0.9, 0.3],
            "grade": [0, 1, 2, 1, 0, 0, 1, 0, 0, 0],
            "segment": ["new", "new", "new", "old", "old", "old", "new", "new", "old", "old"],
        }
    )


COLUMNS = ["--query", "qid", "--item", "doc", "--relevant", "grade"]
# what the command says on stderr of sys_a's one null score (the library's RankEvalWarning)
SYS_A_NULLS = (
    "rankframe: warning: score column 'sys_a' has 1 null score (10.0% of 10 rows); "
    "they count as not retrieved"
)


def without_warnings(err: str) -> str:
    """stderr without the lines of the data's warnings (null scores), which come first."""
    return "".join(
        line
        for line in err.splitlines(keepends=True)
        if not line.startswith("rankframe: warning: ")
    )


def write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix in (".parquet", ".pq"):
        frame.to_parquet(path)
    elif path.suffix in (".jsonl", ".ndjson"):
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_csv(path, index=False, sep="\t" if path.suffix == ".tsv" else ",")
    return path


def api(frame: pd.DataFrame, score: str | list[str] = "sys_a") -> Any:
    return frame.rank_eval(query="qid", item="doc", score=score, relevant="grade")


def records(text: str) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(text)
    return loaded


def assert_records(got: list[dict[str, Any]], expected: Any) -> None:
    """JSON records equal a frame's (floats to 1e-12; NaN and missing values as null)."""
    if isinstance(expected, pl.DataFrame):
        expected = expected.to_pandas()
    rows = expected.to_dict("records") if isinstance(expected, pd.DataFrame) else expected
    assert len(got) == len(rows)
    for mine, theirs in zip(got, rows, strict=True):
        assert list(mine) == [str(c) for c in theirs]
        for column, value in theirs.items():
            if value is None or (isinstance(value, float) and math.isnan(value)):
                assert mine[column] is None, column
            elif isinstance(value, float):
                assert mine[column] == pytest.approx(value, abs=1e-12), column
            else:
                assert mine[column] == value, column


# -- evaluate ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["d.csv", "d.tsv", "d.parquet", "d.pq", "d.jsonl", "d.ndjson"])
def test_evaluate_reads_every_format_and_matches_the_api(
    run: Run, data: pd.DataFrame, tmp_path: Path, name: str
) -> None:
    path = write(data, tmp_path / name)
    code, out, err = run("evaluate", path, *COLUMNS, "--score", "sys_a", "--format", "json")
    assert code == 0
    assert err.startswith(SYS_A_NULLS)  # the null score, counted from every format
    assert err.count("\n") == 1
    expected = api(data).evaluate(cli.DEFAULT_METRICS).iloc[0]
    (row,) = records(out)
    assert list(row) == [*cli.DEFAULT_METRICS, "n_queries"]
    for column, value in row.items():
        assert value == pytest.approx(expected[column], abs=1e-12), column


def test_evaluate_by_segment_and_per_query(run: Run, data: pd.DataFrame, tmp_path: Path) -> None:
    path = write(data, tmp_path / "d.csv")
    metrics = ["-m", "mrr@10", "-m", "P_2,recip_rank"]  # repeated, comma-separated, trec names
    code, out, _ = run(
        "evaluate",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        *metrics,
        "--by",
        "segment",
        "--format",
        "json",
    )
    assert code == 0
    expected = api(data).evaluate(["mrr@10", "precision@2", "mrr"], by="segment")
    assert_records(records(out), expected)

    code, out, _ = run(
        "evaluate",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        *metrics,
        "--by",
        "segment",
        "--per-query",
        "--format",
        "json",
    )
    assert code == 0
    rows = records(out)
    assert [r["qid"] for r in rows] == ["q1", "q2", "q3", "q4"]
    assert list(rows[0]) == ["qid", "segment", "mrr@10", "precision@2", "mrr"]
    assert_records(rows, api(data).per_query(["mrr@10", "precision@2", "mrr"], by="segment"))


@pytest.mark.parametrize(
    ("option", "keyword", "score"),
    [
        (["--ties", "optimistic"], {"ties": "optimistic"}, "sys_a"),
        (["--ties", "first"], {"ties": "first"}, "sys_a"),
        (["--ties", "average"], {"ties": "average"}, "sys_a"),
        (["--min-relevance", "2"], {"min_relevance": 2.0}, "sys_a"),
        (["--gain", "exponential"], {"gain": "exponential"}, "sys_a"),
        (["--denominator", "min_k"], {"denominator": "min_k"}, "sys_b"),
        (["--empty", "skip"], {"empty": "skip"}, "sys_a"),
    ],
)
def test_metric_options_reach_the_api(
    run: Run,
    data: pd.DataFrame,
    tmp_path: Path,
    option: list[str],
    keyword: dict[str, Any],
    score: str,
) -> None:
    path = write(data, tmp_path / "d.parquet")
    metrics = ["mrr", "ndcg@2", "map@2", "recall@1"]
    code, out, _ = run(
        "evaluate",
        path,
        *COLUMNS,
        "--score",
        score,
        "-m",
        ",".join(metrics),
        *option,
        "--format",
        "json",
    )
    assert code == 0
    expected = api(data, score).evaluate(metrics, **keyword)
    assert_records(records(out), expected)
    assert not expected.equals(api(data, score).evaluate(metrics)), "the option changes nothing"


def test_beta_reaches_the_api(run: Run, data: pd.DataFrame, tmp_path: Path) -> None:
    path = write(data, tmp_path / "d.parquet")
    code, out, _ = run(
        "evaluate",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        "-m",
        "f1@2,f1",
        "--beta",
        "2",
        "--format",
        "json",
    )
    assert code == 0
    expected = api(data, "sys_a").evaluate(["f1@2", "f1"], beta=2.0)
    assert_records(records(out), expected)
    assert not expected.equals(api(data, "sys_a").evaluate(["f1@2", "f1"]))
    code, _, err = run("evaluate", path, *COLUMNS, "-m", "f1", "--beta", "-1")
    assert code == 2
    assert "The 'beta' option must be a positive finite number" in err


def test_output_formats(run: Run, data: pd.DataFrame, tmp_path: Path) -> None:
    path = write(data, tmp_path / "d.csv")
    base = ["evaluate", path, *COLUMNS, "--score", "sys_a", "-m", "mrr,acc@1", "--by", "segment"]
    means = api(data).evaluate(["mrr", "acc@1"], by="segment")

    _, table, _ = run(*base)
    header, rule, *lines = table.splitlines()
    assert header.split() == ["segment", "mrr", "acc@1", "n_queries"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert lines[0].split() == ["new", f"{means['mrr'][0]:.4f}", f"{means['acc@1'][0]:.4f}", "2"]
    # columns are aligned: numbers to the right, text to the left
    assert len({len(line) for line in (header, rule, *lines)}) == 1
    assert table == run(*base, "--format", "table")[1]

    _, percent, _ = run(*base, "--percent")
    assert percent.splitlines()[2].split()[1] == f"{means['mrr'][0] * 100:.2f}%"

    _, markdown, _ = run(*base, "--format", "markdown", "--percent")
    assert markdown.splitlines()[:2] == [
        "| segment | mrr | acc@1 | n_queries |",
        "| --- | ---: | ---: | ---: |",
    ]
    assert f"| {means['mrr'][1] * 100:.2f}% |" in markdown

    # CSV and JSON hold raw values, --percent or not
    for extra in ([], ["--percent"]):
        _, text, _ = run(*base, "--format", "csv", *extra)
        assert list(csv.DictReader(io.StringIO(text))) == [
            {"segment": s, "mrr": repr(m), "acc@1": repr(a), "n_queries": str(n)}
            for s, m, a, n in means.itertuples(index=False)
        ]
        _, text, _ = run(*base, "--format", "json", *extra)
        assert_records(records(text), means)


def test_nan_in_each_format(run: Run, data: pd.DataFrame, tmp_path: Path) -> None:
    path = write(data, tmp_path / "d.csv")
    base = [
        "evaluate",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        "-m",
        "mrr",
        "--per-query",
        "--empty",
        "nan",
    ]
    assert run(*base)[1].splitlines()[-1].split() == ["q4", "NaN"]  # q4 has no relevant item
    assert run(*base, "--format", "csv")[1].splitlines()[-1] == "q4,"
    # the column's label names the option that moved it from the default
    assert records(run(*base, "--format", "json")[1])[-1] == {"qid": "q4", "mrr(empty=nan)": None}


def test_output_file(run: Run, data: pd.DataFrame, tmp_path: Path) -> None:
    path = write(data, tmp_path / "d.csv")
    target = tmp_path / "out.csv"
    code, out, err = run(
        "evaluate", path, *COLUMNS, "--score", "sys_a", "--format", "csv", "-o", target
    )
    assert (code, out, without_warnings(err)) == (0, "", "")
    assert err.startswith(SYS_A_NULLS)
    assert target.read_text().startswith("mrr@10,ndcg@10,")


def test_input_format_option_and_stdin(
    run: Run, data: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(data, tmp_path / "d.jsonl").rename(tmp_path / "d.txt")
    args = [*COLUMNS, "--score", "sys_a", "-m", "mrr", "--format", "csv"]
    expected = f"mrr,n_queries\n{api(data).mrr()!r},4\n"
    assert run("evaluate", path, "--input-format", "jsonl", *args)[1] == expected

    stdin = io.TextIOWrapper(io.BytesIO(data.to_csv(index=False).encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert run("evaluate", "-", *args)[1] == expected


def test_default_column_names(run: Run, tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"query": [1, 1, 2], "item": [1, 2, 1], "score": [0.2, 0.9, 0.5], "relevant": [1, 0, 1]}
    )
    code, out, _ = run("evaluate", write(frame, tmp_path / "d.csv"), "-m", "mrr", "--format", "csv")
    assert (code, out) == (0, "mrr,n_queries\n0.75,2\n")


def test_csv_types_inferred_past_the_first_rows(run: Run, tmp_path: Path) -> None:
    # numeric-looking query ids for more than polars' inference window, then a string id
    n = INFER_ROWS + 5
    frame = pd.DataFrame(
        {"query": [*map(str, range(n)), "x"], "item": "a", "score": 1.0, "relevant": [0] * n + [1]}
    )
    code, out, err = run(
        "evaluate", write(frame, tmp_path / "d.csv"), "-m", "acc@1", "--format", "json"
    )
    assert (code, err) == (0, "")
    assert records(out) == [{"acc@1": pytest.approx(1 / (n + 1)), "n_queries": n + 1}]


def test_evaluate_several_score_columns(run: Run, data: pd.DataFrame, tmp_path: Path) -> None:
    path = write(data, tmp_path / "d.parquet")
    code, out, _ = run(
        "evaluate",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        "--score",
        "sys_b",
        "-m",
        "mrr,ndcg@2",
        "--by",
        "segment",
        "--format",
        "json",
    )
    assert code == 0
    expected = api(data, ["sys_a", "sys_b"]).evaluate(["mrr", "ndcg@2"], by="segment")
    rows = records(out)
    assert {r["system"] for r in rows} == {"sys_a", "sys_b"}
    assert_records(rows, expected)


# -- compare ----------------------------------------------------------------------------------


def test_compare_passes_its_options_to_the_api(
    run: Run, data: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[Any, dict[str, Any]]] = []

    def compare(_: RankEval, metrics: Any, **options: Any) -> pl.DataFrame:
        calls.append((metrics, options))
        return pl.DataFrame(
            {
                "system": ["sys_a", "sys_b"],
                "metric": "mrr",
                "k": [None, None],
                "mean": [0.5, 0.625],
                "delta": [0.0, 0.125],
                "p_value": [None, 0.03],
                "ci_low": [None, 0.01],
                "ci_high": [None, 0.2],
                "significant": [False, True],
                "n_queries": [4, 4],
            }
        )

    monkeypatch.setattr(RankEval, "compare", compare, raising=False)
    path = write(data, tmp_path / "d.csv")
    code, out, _ = run(
        "compare",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        "--score",
        "sys_b",
        "--baseline",
        "sys_b",
        "-m",
        "mrr",
        "--by",
        "segment",
        "--test",
        "permutation",
        "--correction",
        "bonferroni",
        "--permutations",
        "500",
        "--resamples",
        "300",
        "--family",
        "table",
        "--seed",
        "7",
        "--alpha",
        "0.1",
        "--confidence-level",
        "0.9",
        "--ties",
        "first",
        "--percent",
    )
    assert code == 0
    assert calls == [
        (
            ["mrr"],
            {
                "baseline": "sys_b",
                "test": "permutation",
                "correction": "bonferroni",
                "family": "table",
                "alpha": 0.1,
                "n_permutations": 500,
                "n_resamples": 300,
                "seed": 7,
                "by": ["segment"],
                "ties": "first",
                "confidence_level": 0.9,
            },
        )
    ]
    assert out.splitlines()[2].split() == ["sys_a", "mrr", "50.00%", "+0.00%", "no", "4"]
    assert out.splitlines()[3].split() == [
        "sys_b",
        "mrr",
        "62.50%",
        "+12.50%",
        "0.0300",
        "1.00%",
        "20.00%",
        "yes",
        "4",
    ]

    calls.clear()
    assert run("compare", path, *COLUMNS, "--score", "sys_a", "--score", "sys_b")[0] == 0
    assert calls == [
        (
            cli.DEFAULT_METRICS,
            {
                "baseline": "sys_a",
                "test": "t-test",
                "correction": "holm",
                "family": "systems",
                "alpha": 0.05,
                "n_permutations": 10_000,
                "n_resamples": 1000,
                "seed": 0,
                "by": None,
            },
        )
    ]


@pytest.mark.parametrize("test", ["t-test", "permutation", "wilcoxon"])
def test_compare_matches_the_api(run: Run, data: pd.DataFrame, tmp_path: Path, test: str) -> None:
    path = write(data, tmp_path / "d.parquet")
    code, out, _ = run(
        "compare",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        "--score",
        "sys_b",
        "-m",
        "mrr,ndcg@2",
        "--test",
        test,
        "--permutations",
        "200",
        "--format",
        "json",
    )
    assert code == 0
    expected = api(data, ["sys_a", "sys_b"]).compare(
        ["mrr", "ndcg@2"], baseline="sys_a", test=test, n_permutations=200, seed=0
    )
    assert_records(records(out), expected)

    code, table, _ = run(
        "compare",
        path,
        *COLUMNS,
        "--score",
        "sys_a",
        "--score",
        "sys_b",
        "-m",
        "mrr",
        "--test",
        test,
        "--permutations",
        "200",
    )
    assert code == 0
    assert table.splitlines()[0].split()[:10] == [
        "system",
        "metric",
        "k",
        "mean",
        "delta",
        "delta_relative",
        "ci_low",
        "ci_high",
        "p_adjusted",
        "significant",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--score", "sys_a"], "at least two score columns"),
        (
            ["--score", "sys_a", "--score", "sys_b", "--baseline", "sys_c"],
            "baseline='sys_c' is not one of the score columns ['sys_a', 'sys_b']",
        ),
        (["--score", "sys_a", "--score", "sys_b", "--alpha", "1.5"], "--alpha"),
        (["--score", "sys_a", "--score", "sys_b", "--resamples", "0"], "--resamples"),
        (["--score", "sys_a", "--score", "sys_b", "--confidence", "95"], "--confidence"),
        (["--score", "sys_a", "--score", "sys_b", "--test", "z-test"], "invalid choice"),
    ],
)
def test_compare_usage_errors(
    run: Run, data: pd.DataFrame, tmp_path: Path, argv: list[str], message: str
) -> None:
    code, out, err = run("compare", write(data, tmp_path / "d.csv"), *COLUMNS, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("rankframe: error: ")
    assert message in err


# -- errors -----------------------------------------------------------------------------------


# a file and its column names; a later --query, --item or --score overrides these
D = ["{tmp}/d.csv", "--query", "qid", "--item", "doc", "--score", "sys_a", "--relevant", "grade"]


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["evaluate", "{tmp}/missing.csv"], 2, "file '{tmp}/missing.csv' not found"),
        (["evaluate", "{tmp}/d.xlsx"], 2, "pass --input-format"),
        (["evaluate", *D, "--input-format", "parquet"], 1, "cannot read '{tmp}/d.csv' as Parquet"),
        (["evaluate", "{tmp}/bad.parquet"], 1, "cannot read '{tmp}/bad.parquet' as Parquet"),
        (
            ["evaluate", *D, "--query", "query_id"],
            1,
            "column 'query_id' (--query) not found in '{tmp}/d.csv'. Did you mean 'qid'? "
            "Pass --query COLUMN",
        ),
        (
            ["evaluate", *D, "--by", "segmnt"],
            1,
            "column 'segmnt' (--by) not found in '{tmp}/d.csv'. Did you mean 'segment'?",
        ),
        (
            ["evaluate", *D, "--query", "query_id", "--item", "docs", "--by", "segmnt"],
            1,
            "3 columns not found in '{tmp}/d.csv': 'query_id' (--query; did you mean 'qid'?), "
            "'docs' (--item; did you mean 'doc'?), 'segmnt' (--by; did you mean 'segment'?). "
            "Pass --query, --item and --by with columns of the file",
        ),
        (["evaluate", *D, "-m", "ndgc@10"], 2, "Unknown metric 'ndgc@10'. Did you mean"),
        (["evaluate", *D, "-m", "mrr@0"], 2, "must be a positive integer"),
        (["evaluate", *D, "--ties", "random"], 2, "argument --ties: invalid choice: 'random'"),
        (["evaluate", *D, "--min-relevance", "inf"], 2, "'min_relevance' option"),
        (["evaluate", *D, "--item", "segment"], 1, "appears 3 times in query"),
        (["evaluate", *D, "--by", "doc"], 2, "--by doc is the --item column; pass --by with"),
        (["evaluate", *D, "--empty", "error"], 1, "q4"),
        (["evaluate"], 2, "the following arguments are required: FILE"),
        (["frobnicate"], 2, "invalid choice: 'frobnicate'"),
    ],
)
def test_errors_are_one_line_without_traceback(
    run: Run, data: pd.DataFrame, tmp_path: Path, argv: list[str], code: int, message: str
) -> None:
    write(data, tmp_path / "d.csv")
    write(data, tmp_path / "d.xlsx")
    (tmp_path / "bad.parquet").write_text("not a parquet file")
    status, out, err = run(*(a.format(tmp=tmp_path) for a in argv))
    assert (status, out) == (code, "")
    err = without_warnings(err)  # the data's warnings (null scores) come first
    assert err.startswith("rankframe: error: "), err
    assert err.count("\n") == 1, err
    assert err.endswith("\n"), err
    assert "Traceback" not in err
    assert message.format(tmp=tmp_path) in err


def test_help_and_version(run: Run) -> None:
    code, out, _ = run("--help")
    assert code == 0
    assert all(command in out for command in ("evaluate", "compare", "trec", "demo"))
    code, out, _ = run("evaluate", "--help")
    assert code == 0
    assert "--per-query" in out
    assert "mrr@10 ndcg@10 map@100" in " ".join(out.split())
    code, out, _ = run("--version")
    assert (code, out) == (0, f"rankframe {rankframe.__version__}\n")


# -- status lines -----------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_status_lines_only_on_a_terminal(
    data: pd.DataFrame,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write(data, tmp_path / "d.csv")
    argv = ["evaluate", str(path), *COLUMNS, "--score", "sys_a"]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err  # captured stderr is not a terminal: no status line
    assert err.startswith(SYS_A_NULLS)
    assert err.count("\n") == 1
    qrels, run_file = CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"
    assert cli.main(["trec", str(qrels), str(run_file)]) == 0
    assert capsys.readouterr().err == ""

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.main(argv) == 0
    shown = terminal.getvalue()
    assert f"rankframe: reading {path}..." in shown
    assert "rankframe: evaluating 10 rows..." in shown
    # erased before the warning of sys_a's null score, the last line written
    assert re.search(r"\r +\r" + re.escape(SYS_A_NULLS) + r"[^\r]*\n$", shown), repr(shown)
    assert capsys.readouterr().err == ""

    # an error after the file was read: the status line is erased before the message
    terminal.seek(0)
    terminal.truncate()
    assert cli.main([*argv, "--by", "nope"]) == 1
    status, message = terminal.getvalue().rsplit("\r", 1)
    assert status.startswith("\rrankframe: reading")
    assert message.startswith("rankframe: error: column 'nope' (--by) not found")


# -- trec: trec_eval's output, line for line (the four files: test_trec_eval_outputs.py) ---


def trec_argv(args: list[str]) -> list[str]:
    return [a if a.startswith("-") else str(CONFORMANCE / a) for a in args]


def test_trec_console_script_and_official_measures() -> None:
    # trec_eval's default output (out.test) is its `official` set, with or without -m official
    script = Path(sys.executable).parent / "rankframe"
    expected = (CONFORMANCE / "out.test").read_text()
    for measures in ([], ["-m", "official"]):
        result = subprocess.run(
            [str(script), "trec", *measures, *trec_argv(["qrels.test", "results.test"])],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert (result.returncode, result.stderr) == (0, "")
        assert result.stdout == expected


def test_trec_measure_syntaxes(run: Run) -> None:
    files = trec_argv(["qrels.test", "results.test"])
    full = run("trec", "-q", "-m", "all_trec", *files)[1].splitlines()
    wanted = ("P_5", "P_10", "ndcg_cut_10", "recip_rank", "success_1")

    def pick(lines: list[str]) -> list[str]:
        return [line for line in lines if line.split()[0] in wanted]

    for measures in (
        ["-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "recip_rank", "-m", "success.1"],
        ["-m", "P_10", "-m", "P_5", "-m", "ndcg_cut_10", "-m", "recip_rank", "-m", "success_1"],
        ["-mP.10", "-m", "P.5", "-m", "ndcg@10", "-m", "mrr", "-m", "acc@1"],
        # parameters replace trec_eval's defaults, whatever the order
        ["-m", "P", "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "recip_rank", "-m", "success.1"],
    ):
        code, out, _ = run("trec", "-q", *measures, *files)
        assert code == 0
        assert out.splitlines() == pick(full), measures
    # -n: no summary; per-query lines only
    out = run("trec", "-q", "-n", "-m", "map", *files)[1]
    assert [line.split("\t")[1] for line in out.splitlines()] == ["301", "302", "303"]


def test_trec_real_parameters_print_as_trec_eval(run: Run) -> None:
    # iprec_at_recall and Rprec_mult take real numbers, printed "%3.2f" (trec_eval's
    # append_double): the default levels are the lines of out.test.aq, in order
    files = trec_argv(["qrels.test", "results.test"])
    lines = (CONFORMANCE / "out.test.aq").read_text().splitlines()
    for measure in ("iprec_at_recall", "Rprec_mult"):
        out = run("trec", "-q", "-m", measure, *files)[1]
        assert out.splitlines() == [line for line in lines if line.startswith(f"{measure}_")]
    out = run("trec", "-m", "Rprec_mult.1,0.5", "-m", "iprec_at_recall.0.25", *files)[1]
    assert [line.split("\t")[0].rstrip() for line in out.splitlines()] == [
        "iprec_at_recall_0.25",
        "Rprec_mult_0.50",
        "Rprec_mult_1.00",
    ]
    # Rprec_mult at 1 is Rprec (R-precision), as in out.test.aq
    rprec = [line for line in lines if line.startswith("Rprec_mult_1.00") and "\tall\t" in line]
    assert rprec[0].split("\t")[2] == out.splitlines()[2].split("\t")[2]
    # relstring: 10 documents by default, printed under its bare name; a length is kept as
    # written in the name, and relstring has no `all` line
    out = run("trec", "-q", "-m", "relstring", *files)[1]
    assert out.splitlines() == [line for line in lines if line.startswith("relstring")]
    out = run("trec", "-q", "-m", "relstring.3", *files)[1]
    assert out.splitlines() == [
        "relstring_3           \t301\t'000'",
        "relstring_3           \t302\t'110'",
        "relstring_3           \t303\t'000'",
    ]


def test_trec_measures_in_trec_eval_order_with_its_defaults() -> None:
    # every line of -m all_trec, in out.test.aq's order: the measures, their default
    # parameters and the printed names
    printed = []
    for line in (CONFORMANCE / "out.test.aq").read_text().splitlines():
        name = line.split("\t")[0].strip()
        if name not in printed:
            printed.append(name)
    selection = parse_trec_measures(["all_trec"])
    names = [name for m, params in selection for name in m.line_names(params)]
    # trec_eval prints relstring before the `all` lines and runid, num_q, gm_* only there
    assert sorted(names) == sorted(printed)
    order = {name: i for i, name in enumerate(names)}
    per_query = [n for n in printed if n not in ("runid", "num_q", "gm_map", "gm_bpref")]
    assert per_query == sorted(per_query, key=order.__getitem__)
    # each metric line is a registry metric
    for measure, params in selection:
        if measure.kind == "metric":
            for name in measure.line_names(params):
                assert measure.metric_of(name).definition.name in METRICS


def test_docs_table_of_trec_measures_is_the_registrys() -> None:
    # docs/cli.md lists every measure rankframe trec prints, in trec_eval's order, with the
    # registry's metric, trec_eval's default parameters and the registry's aggregation
    page = (DOCS / "cli.md").read_text()
    table = page.split("| trec_eval | rankframe | default parameters | `all` |")[1]
    rows = [
        [c.strip() for c in row.strip("|").split("|")]
        for row in table.split("\n\n")[0].splitlines()[2:]
    ]
    assert [re.findall(r"`(\w+)`", row[0]) for row in rows] == [[m.name] for m in TREC_MEASURES]
    aggregate = {"mean": "mean", "geometric": "geometric mean", "sum": "sum"}
    for measure, (_, metric, defaults, all_line) in zip(TREC_MEASURES, rows, strict=True):
        if measure.kind != "metric":
            assert "only" in all_line, measure.name
            continue
        definition = measure.metric_of(measure.line_names(measure.cutoffs)[0]).definition
        suffix = {"cutoffs": "@k", "levels": "@x"}.get(measure.params, "")
        assert metric == f"`{definition.name}{suffix}`", measure.name
        assert all_line.startswith(aggregate[definition.aggregate]), measure.name
        shown = [float(v) for v in defaults.split(", ")] if defaults else []
        assert shown == [float(v) for v in measure.cutoffs], measure.name


def test_metric_help_lists_the_registry(run: Run) -> None:
    evaluate = " ".join(run("evaluate", "--help")[1].split())
    assert f"a metric: {', '.join(METRICS)}, with @k" in evaluate
    trec = " ".join(run("trec", "--help")[1].split())
    assert f"a trec_eval measure: {', '.join(m.name for m in TREC_MEASURES)};" in trec


def test_trec_default_measures_are_trec_eval_s() -> None:
    selection = parse_trec_measures(None)
    assert selection == parse_trec_measures(["official"])
    official = [m.name for m, _ in selection]
    assert official == [
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
    ]
    assert {m.name for m, _ in parse_trec_measures(["all_trec"])} <= {m.name for m in TREC_MEASURES}
    assert {m.name: k for m, k in parse_trec_measures(["all_trec"])}["success"] == (1, 5, 10)
    # requests for one measure add up; cut-offs come out sorted, measures in trec_eval's order
    merged = parse_trec_measures(["P.100", "map", "P_5", "p.20,5"])
    assert [(m.name, k) for m, k in merged] == [("map", ()), ("P", (5, 20, 100))]


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("prefs_simp", "trec_eval measure 'prefs_simp' is not computed by rankframe"),
        ("ndcg.1=0,2=1", "'ndcg' with trec_eval's default parameters only; got 'ndcg.1=0,2=1'"),
        ("relstring.x", "The length of trec_eval measure 'relstring.x' must be a non-negative"),
        ("iprec_at_recall.0.5,x", "must be non-negative numbers separated by commas"),
        ("recip_rnk", "Unknown trec_eval measure 'recip_rnk'. Did you mean 'recip_rank'?"),
        ("mrr@10", "'mrr@10' is rankframe's mrr@10, which trec_eval does not compute"),
        ("map.10", "'map' takes no cut-offs; got 'map.10'. Use map_cut.10"),
        ("ndcg_10", "Use ndcg_cut.10"),
        ("P.5,x", "must be positive integers separated by commas"),
        ("P_0", "must be positive"),
    ],
)
def test_trec_unknown_measures(run: Run, measure: str, message: str) -> None:
    code, out, err = run("trec", "-m", measure, *trec_argv(["qrels.test", "results.test"]))
    assert (code, out) == (2, "")
    assert err.startswith("rankframe: error: ")
    assert err.count("\n") == 1
    assert message in err


def test_trec_file_errors(run: Run, tmp_path: Path) -> None:
    qrels, results = trec_argv(["qrels.test", "results.test"])
    code, _, err = run("trec", qrels, tmp_path / "missing.run")
    assert code == 2
    assert "not found" in err
    # the arguments swapped: the qrels file has 4 fields where a run has 6
    code, _, err = run("trec", results, qrels)
    assert code == 1
    assert "Line 1 of the run file" in err
    assert "has 4 fields" in err
    assert "QRELS, then RUN" in err
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 2.5 r\n\n1 Q0 b 2 high r\n")
    code, _, err = run("trec", qrels, bad)
    assert code == 1
    assert "Line 3 of the run file" in err
    assert "the score 'high', which is not a number" in err
    other = tmp_path / "other.run"
    other.write_text("999 Q0 a 1 2.5 r\n")
    code, _, err = run("trec", qrels, other)
    assert code == 1
    assert "No query has both results in the run and judgments in the qrels" in err


def test_trec_report_of_frames_and_output_file(run: Run, tmp_path: Path) -> None:
    runs = pd.DataFrame(
        {"query": ["1", "1", "2"], "item": ["a", "b", "a"], "score": [2.0, 1.0, 5.0], "run": "mine"}
    )
    qrels = pd.DataFrame(
        {"query": ["1", "1", "2", "3"], "item": ["b", "c", "b", "x"], "relevant": [1, 2, 1, 1]}
    )
    report = trec_eval_report(runs, qrels, ["runid", "num_q", "num_rel", "recip_rank"])
    assert report == (
        "runid                 \tall\tmine\n"
        "num_q                 \tall\t2\n"
        "num_rel               \tall\t3\n"
        "recip_rank            \tall\t0.2500\n"
    )
    complete = trec_eval_report(runs, qrels, ["num_q", "recip_rank"], complete=True)
    assert complete == "num_q                 \tall\t3\nrecip_rank            \tall\t0.1667\n"

    target = tmp_path / "out.txt"
    files = trec_argv(["qrels.test", "results.test"])
    assert run("trec", "-m", "map", "-o", target, *files)[:2] == (0, "")
    assert target.read_text() == "map                   \tall\t0.1785\n"


def test_demo_still_runs(run: Run) -> None:
    code, out, _ = run("demo", "--seed", "2")
    assert code == 0
    assert "Overall" in out
    assert "By segment" in out
