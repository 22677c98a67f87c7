"""The test process's settings for every test path (tests/, src/, docs/, README.md).

MLflow's telemetry client sets and unsets an environment variable from a thread of its own
(``_MLFLOW_TELEMETRY_SESSION_ID``; offline, as in CI, it fails to start and unsets it) while
other threads read ``os.environ``: urllib's proxy scan then raised ``KeyError`` in
tests/output/test_mlflow.py on a clean clone. The tests run offline, with nothing to report:
MLflow's own switch turns the telemetry off (a value set by the caller is kept).

W&B (tests/output/test_wandb.py, docs/mlflow.md) runs offline, and keeps its staging,
cache and settings in a folder of the test process, not in the user's home.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
os.environ.setdefault("WANDB_MODE", "offline")
_WANDB = tempfile.mkdtemp(prefix="rankframe-wandb-")
atexit.register(shutil.rmtree, _WANDB, ignore_errors=True)
for _name in ("WANDB_DATA_DIR", "WANDB_CACHE_DIR", "WANDB_CONFIG_DIR"):
    os.environ.setdefault(_name, _WANDB)
