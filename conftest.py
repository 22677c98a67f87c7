"""The test process's settings for every test path (tests/, src/, docs/, README.md).

MLflow's telemetry client sets and unsets an environment variable from a thread of its own
(``_MLFLOW_TELEMETRY_SESSION_ID``; offline, as in CI, it fails to start and unsets it) while
other threads read ``os.environ``: urllib's proxy scan then raised ``KeyError`` in
tests/output/test_mlflow.py on a clean clone. The tests run offline, with nothing to report:
MLflow's own switch turns the telemetry off (a value set by the caller is kept).
"""

from __future__ import annotations

import os

os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
