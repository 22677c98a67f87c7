"""Refuses to install this checkout into a venv whose rankframe is another checkout's.

``make ... VENV=/elsewhere/.venv`` from a second checkout (a git worktree) would otherwise
run ``pip install -e .`` there and silently point that venv's ``rankframe`` at this checkout.
Run by the Makefile with the venv's own interpreter before it installs; exit status 1 with
the fix when the venv's editable install is another existing checkout's."""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse


def owner() -> Path | None:
    """The checkout the venv's editable rankframe points at (None: not installed, or not
    editable)."""
    try:
        text = metadata.distribution("rankframe").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    url = json.loads(text)
    if not url.get("dir_info", {}).get("editable"):
        return None
    return Path(unquote(urlparse(url["url"]).path))


def main() -> int:
    here = Path.cwd().resolve()
    installed = owner()
    if installed is None or not installed.exists() or installed.resolve() == here:
        return 0
    print(
        f"{sys.prefix} runs rankframe from {installed}, not from {here}: installing here "
        "would point it at this checkout. Use a venv of this checkout (the default VENV=.venv) "
        "or run make in the other one.",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
