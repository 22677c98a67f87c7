"""The Makefile's guard against a second checkout taking over a venv (``.ci/venv_owner.py``,
run before ``pip install -e .``): run with the test venv's interpreter, whose rankframe is an
editable install (as ``make test`` installs it), it lets the checkout of that install
through and refuses another folder, naming both and the fix."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parents[2]
GUARD = ROOT / ".ci" / "venv_owner.py"


#: the venv's own record of its rankframe, read in isolated mode (``-I``: no PYTHONPATH, no
#: current folder, where a checkout's ``src/rankframe.egg-info`` would be found first), as
#: the Makefile runs the guard
DIRECT_URL = (
    "from importlib import metadata; "
    "print(metadata.distribution('rankframe').read_text('direct_url.json') or '{}')"
)


def guard(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", str(GUARD)], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_the_installed_checkout_passes_and_another_is_refused(tmp_path: Path) -> None:
    record = subprocess.run(
        [sys.executable, "-I", "-c", DIRECT_URL], capture_output=True, text=True, check=True
    )
    url = json.loads(record.stdout)
    assert url["dir_info"]["editable"], "the test venv's rankframe is an editable install"
    installed = Path(unquote(urlparse(url["url"]).path)).resolve()
    assert guard(installed).returncode == 0
    other = guard(tmp_path)
    assert other.returncode == 1
    assert f"rankframe from {installed}, not from {tmp_path.resolve()}" in other.stderr
    assert "Use a venv of this checkout (the default VENV=.venv)" in other.stderr
