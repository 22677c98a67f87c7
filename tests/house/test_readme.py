"""The README: its tour names every capability, one line each with a link to a page that
exists (and a heading of it that exists), and its note on what ``make test`` needs stays
what the Makefile does. (Its doctests run as ``pytest README.md``.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\((?P<path>[^)#\s]+)(?:#(?P<anchor>[^)\s]+))?\)")

# The capabilities the tour names: a word of its line, and the page that line links to.
CAPABILITIES = {
    "Metrics": "docs/metrics.md",
    "trec_eval": "docs/cli.md",
    "Other tools' numbers": "docs/conventions.md",
    "Beyond accuracy": "docs/beyond.md",
    "Exposure": "docs/fairness.md",
    "Gaps": "docs/fairness.md",
    "Comparing systems": "docs/compare.md",
    "Sample size": "docs/compare.md",
    "slices": "docs/slices.md",
    "Gates": "docs/monitoring.md",
    "Over time": "docs/monitoring.md",
    "History store": "docs/monitoring.md",
    "Dashboard": "docs/monitoring.md",
    "HTML report": "docs/report.md",
    "Paper tables": "docs/report.md",
    "Plots": "docs/plots.md",
    "Other inputs": "docs/cookbook.md",
    "frame kind": "docs/scaling.md",
    "Command line": "docs/cli.md",
}


def _tour() -> list[str]:
    section = README.split("## A tour", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub and mkdocs write it: lower case, punctuation dropped
    (``_`` and ``-`` kept), spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {
        _slug(line.lstrip("#"))
        for line in page.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }


def test_slug_of_a_heading_with_code() -> None:
    assert _slug(" `rankframe trec`: a drop-in for trec_eval") == (
        "rankframe-trec-a-drop-in-for-trec_eval"
    )


@pytest.mark.parametrize(("word", "page"), CAPABILITIES.items())
def test_the_tour_names_each_capability_with_a_link(word: str, page: str) -> None:
    lines = [line for line in _tour() if word.lower() in line.lower()]
    assert lines, word
    assert any(m["path"] == page for line in lines for m in LINK.finditer(line)), word


def test_every_tour_line_has_one_link() -> None:
    lines = _tour()
    assert len(lines) >= len(set(CAPABILITIES.values()))
    for line in lines:
        assert len(LINK.findall(line)) == 1, line


def test_every_link_of_the_readme_resolves() -> None:
    links = list(LINK.finditer(README))
    assert len(links) > 20
    for link in links:
        if "://" in link["path"]:
            continue
        target = ROOT / link["path"]
        assert target.is_file(), link.group(0)
        if link["anchor"]:
            assert link["anchor"] in _anchors(target), link.group(0)


def test_the_make_test_note_is_what_the_makefile_does() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (test_rule,) = re.findall(r"^test: (.*?)##", makefile, flags=re.MULTILINE)
    assert {"java", "chromium"} <= set(test_rule.split())
    # java: checked, never installed; chromium: installed with apt-get as root
    java = makefile.split("\njava:", 1)[1].split("\n\n", 1)[0]
    assert not any("apt-get" in line for line in java.splitlines() if "echo" not in line)
    assert "openjdk-17-jre-headless" in java
    chromium = makefile.split("\nchromium:", 1)[1].split("\n\n", 1)[0]
    assert "apt-get install -y -q chromium" in chromium
    assert "RANKFRAME_CHROMIUM" in chromium
    note = " ".join(README.split("`make test` needs", 1)[1].split("\n\n", 1)[0].split())
    for words in (
        "Java 17",
        "Spark tests",
        "Chromium",
        "browser tests",
        "openjdk-17-jre-headless",
        "apt-get install chromium",
        "when run as root",
        "RANKFRAME_CHROMIUM",
    ):
        assert words in note, words
