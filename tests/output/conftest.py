"""Fixtures of the output tests that log to MLflow (test_mlflow*.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def file_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """MLflow's file store in the test's folder, as the tracking URI for the test."""
    import mlflow  # loaded by the tests that log, not by every output test's collection

    # MLflow 3 keeps its file store for those who opt in
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    previous = mlflow.get_tracking_uri()
    uri = (tmp_path / "mlruns").as_uri()
    mlflow.set_tracking_uri(uri)
    yield uri
    mlflow.set_tracking_uri(previous)
