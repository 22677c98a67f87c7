"""The sections of ``benchmarks/RESULTS.md``: each script owns one, between its markers.

``benchmarks/run.py`` writes the file's main part and carries the other scripts' sections
over (:func:`carried_sections`); ``scale.py`` and ``compare.py`` replace their own section
(:func:`write_section`).
"""

from __future__ import annotations

import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
_SECTION = re.compile(r"<!-- (?P<name>[a-z-]+):start -->.*?<!-- (?P=name):end -->", re.DOTALL)


def markers(name: str) -> tuple[str, str]:
    """The start and end markers of section ``name``."""
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def write_section(name: str, section: str, results: Path = RESULTS) -> None:
    """Replace section ``name`` of the results file (append it if it is missing).

    ``section`` starts and ends with the section's markers.
    """
    start, end = markers(name)
    text = results.read_text() if results.exists() else "# Benchmark results\n"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    results.write_text(text)


def carried_sections(text: str, results: Path = RESULTS) -> str:
    """``text`` followed by every marked section of the current results file."""
    old = results.read_text() if results.exists() else ""
    sections = [m.group(0) for m in _SECTION.finditer(old)]
    return "\n\n".join([text.rstrip(), *sections]) + "\n"
