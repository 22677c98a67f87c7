"""The Makefile's guard against a second checkout taking over a venv (``.ci/venv_owner.py``,
run before ``pip install -e .``): run with the test venv's interpreter, whose rankframe is
this checkout's editable install (as ``make test`` installs it), it lets this checkout
through and refuses another folder, naming both and the fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import rankframe

ROOT = Path(__file__).resolve().parents[2]
GUARD = ROOT / ".ci" / "venv_owner.py"


def guard(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(GUARD)], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_this_checkout_passes_and_another_is_refused(tmp_path: Path) -> None:
    assert Path(rankframe.__file__).resolve().is_relative_to(ROOT)  # the editable install
    assert guard(ROOT).returncode == 0
    other = guard(tmp_path)
    assert other.returncode == 1
    assert f"rankframe from {ROOT.resolve()}, not from {tmp_path.resolve()}" in other.stderr
    assert "Use a venv of this checkout (the default VENV=.venv)" in other.stderr
