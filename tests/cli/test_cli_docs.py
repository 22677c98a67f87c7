"""docs/cli.md's examples on the sample data: every command of a ``sh`` block that reads
``sample.parquet`` (``rankframe demo --write sample.parquet``), run, prints the ``text``
block that follows it, character for character."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from helpers import DOCS
from rankframe.datasets import recommendations

PAIR = re.compile(r"```sh\n(?P<command>.*?)```\n\n```text\n(?P<output>.*?)```", re.DOTALL)


def examples() -> list[tuple[list[str], str]]:
    """(the last command of the block as arguments after ``rankframe``, its output)."""
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    found = []
    for match in PAIR.finditer(page):
        lines = match["command"].replace("\\\n", " ").strip().splitlines()
        words = shlex.split(lines[-1])
        if words[0] == "rankframe" and "sample.parquet" in words:
            found.append((words[1:], match["output"]))
    return found


def test_the_page_has_its_examples() -> None:
    commands = [argv[0] for argv, _ in examples()]
    for command in ("evaluate", "compare", "slices", "gaps", "sample-size"):
        assert command in commands


@pytest.mark.parametrize(
    ("argv", "output"), examples(), ids=[" ".join(a[:1] + a[-4:]) for a, _ in examples()]
)
def test_the_example_prints_what_the_page_shows(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], output: str
) -> None:
    recommendations(seed=0).to_parquet(tmp_path / "sample.parquet", index=False)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(*argv)
    assert code == 0, err
    assert out == output
