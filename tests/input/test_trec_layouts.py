"""``rankframe trec`` reads a plain TREC file (one space, or one tab, between the fields of
each line, and the format's fields only) with polars, straight into codes, and any other
layout with the pandas reader (``read_trec_run``, ``read_trec_qrels``): every layout gives
the output of the plain file, the plain file's output is that of the frames the pandas
reader reads, and a file that only looks plain gets the pandas reader's error naming its
line.

The run is trec_eval's test run (tabs and runs of spaces: the pandas reader's) made plain;
the qrels are trec_eval's test qrels (plain).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import CONFORMANCE
from rankframe import read_trec_qrels, read_trec_run
from rankframe.exceptions import TrecFormatError
from rankframe.inputs import trec_files
from rankframe.trec import trec_eval_report

Layout = Callable[[list[list[str]]], str]


def _lines(fields: list[list[str]], separator: str = " ", end: str = "\n") -> str:
    return "".join(separator.join(line) + end for line in fields)


# layouts trec_eval reads that are not plain: name -> the file's text from its lines' fields
LAYOUTS: dict[str, Layout] = {
    "tabs and spaces": lambda f: "".join(f"{a}\t{b} {' '.join(rest)}\n" for a, b, *rest in f),
    "runs of blanks": lambda f: _lines(f, separator=" \t  "),
    "leading and trailing blanks": lambda f: "".join(f"  {' '.join(x)} \n" for x in f),
    "carriage returns": lambda f: _lines(f, end="\r\n"),
    "fields after the last": lambda f: "".join(f"{' '.join(x)} extra 7\n" for x in f),
    "a blank first line": lambda f: "\n" + _lines(f),
}
PLAIN: dict[str, Layout] = {
    "spaces": _lines,
    "tabs": lambda f: _lines(f, separator="\t"),
    "no final newline": lambda f: _lines(f).rstrip("\n"),
    "blank lines": lambda f: _lines(f[:5]) + "\n\n" + _lines(f[5:]) + "\n",
}
MEASURES = ["all_trec", "relstring.20"]


def _fields(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


def _report(run: object, qrels: object) -> str:
    return trec_eval_report(run, qrels, MEASURES, per_query=True)  # type: ignore[arg-type]


def _write(folder: Path, name: str, layout: Layout) -> tuple[Path, Path]:
    run = folder / f"{name}.run"
    qrels = folder / f"{name}.qrels"
    run.write_text(layout(_fields(CONFORMANCE / "results.test")), newline="")
    qrels.write_text(layout(_fields(CONFORMANCE / "qrels.test")), newline="")
    return run, qrels


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The output on the plain files."""
    return _report(*_write(tmp_path_factory.mktemp("plain"), "plain", _lines))


def test_the_plain_files_give_the_output_of_the_pandas_reader(plain: str, tmp_path: Path) -> None:
    run, qrels = _write(tmp_path, "plain", _lines)
    assert plain == _report(read_trec_run(run), read_trec_qrels(qrels))
    assert plain.count("\n") == 3 * 96 + 99  # 96 lines per query, 99 for `all`


@pytest.mark.parametrize("name", list(PLAIN))
def test_plain_files_are_read_by_polars(
    plain: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(trec_files, "checked_frame", _no_pandas)
    assert _report(*_write(tmp_path, name, PLAIN[name])) == plain


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_every_layout_gives_the_plain_output(plain: str, tmp_path: Path, name: str) -> None:
    assert _report(*_write(tmp_path, name, LAYOUTS[name])) == plain


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_other_layouts_go_to_the_pandas_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(trec_files, "checked_frame", _no_pandas)
    run, qrels = _write(tmp_path, name, LAYOUTS[name])
    plain_run, _ = _write(tmp_path, "plain", _lines)
    with pytest.raises(_PandasReaderError):
        _report(plain_run, qrels)
    with pytest.raises(_PandasReaderError):
        _report(run, CONFORMANCE / "qrels.test")


class _PandasReaderError(Exception):
    """The pandas reader was asked."""


def _no_pandas(*_: object) -> None:
    raise _PandasReaderError


QRELS = CONFORMANCE / "qrels.test"
# files that polars alone would read, each with the pandas reader's error
LOOK_PLAIN = {
    "a byte that is not UTF-8 in the field polars skips": (
        b"301 Q0 a 1 2.5 r\n301 \xff0 b 2 1.5 r\n",
        "Line 2 of the run file {path} is not UTF-8 text",
    ),
    "a missing field made up by an extra one": (
        b"301 Q0 a 1 2.5 r 7\n301 Q0 b 2 1.5\n",
        "Line 2 of the run file {path} has 5 fields",
    ),
    "an empty Q0 field": (b"301  a 1 2.5 r\n", "Line 1 of the run file {path} has 5 fields"),
    "a nan score": (b"301 Q0 a 1 nan r\n", "Line 1 of the run file {path} has the score 'nan'"),
    "a repeated document": (b"301 Q0 a 1 2 r\n301 Q0 a 2 1 r\n", "Document 'a' appears 2 times"),
}


@pytest.mark.parametrize("case", list(LOOK_PLAIN))
def test_a_file_that_looks_plain_gets_the_pandas_reader_s_error(tmp_path: Path, case: str) -> None:
    content, message = LOOK_PLAIN[case]
    run = tmp_path / "r.run"
    run.write_bytes(content)
    with pytest.raises(TrecFormatError) as raised:
        _report(run, QRELS)
    assert str(raised.value).startswith(message.format(path=f"'{run}'")), str(raised.value)


def test_a_rank_pandas_reads_and_polars_does_not(tmp_path: Path) -> None:
    # "2.0" is an integer to pandas (2), not to polars: the file goes to pandas
    written = {
        "odd": b"301 Q0 b 2.0 1.5 r\n301 Q0 a 1 2.5 r\n",
        "plain": b"301 Q0 b 2 1.5 r\n301 Q0 a 1 2.5 r\n",
    }
    outputs = []
    for name, content in written.items():
        run = tmp_path / f"{name}.run"
        run.write_bytes(content)
        outputs.append(_report(run, QRELS))
    assert outputs[0] == outputs[1]
    assert "P_5                   \t301\t0.0000\n" in outputs[0]
