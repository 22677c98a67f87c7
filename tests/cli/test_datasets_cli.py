"""The embedded sample data and the ``rankframe demo`` command (what ``make demo`` runs)."""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
import pytest

import rankframe
from rankframe import cli
from rankframe.datasets import SEGMENTS, recommendations


def test_recommendations_is_deterministic_per_seed() -> None:
    pd.testing.assert_frame_equal(recommendations(seed=3), recommendations(seed=3))
    assert not recommendations(seed=3).equals(recommendations(seed=4))


def test_recommendations_follows_the_input_contract() -> None:
    data = recommendations(seed=0, n_users=50, n_candidates=12, top_k=5)
    assert len(data) == 50 * 12
    for model in ("model_a", "model_b"):
        rankframe.pandas_schema("user_id", "item_id", model, "relevant").validate(data)
        # each model recommends exactly top_k items per user; the rest are judged only
        per_user = data[model].notna().groupby(data["user_id"]).sum()
        assert (per_user == 5).all()
    assert set(data["segment"]) <= set(SEGMENTS)
    first_segment = data.groupby("user_id")["segment"].transform("first")
    assert (data["segment"] == first_segment).all()
    assert data["relevant"].between(0, 3).all()
    assert data["relevant"].gt(0).any()
    # some relevant items are missing from a model's list (the null-score case)
    assert (data["relevant"].gt(0) & data["model_a"].isna()).any()


def test_recommendations_rejects_impossible_sizes() -> None:
    with pytest.raises(ValueError, match="top_k <= n_candidates"):
        recommendations(n_candidates=5, top_k=10)


def test_demo_prints_overall_and_segment_tables() -> None:
    out = io.StringIO()
    cli.demo(seed=0, out=out)
    text = out.getvalue()
    assert "Overall" in text
    assert "By segment" in text
    for name in ("model_a", "model_b", "mrr@10", "ndcg@10", "n_queries", *SEGMENTS):
        assert name in text
    # coverage and novelty beside the accuracy metrics, with the popularity they use
    overall = text.split("Overall", 1)[1].split("By segment", 1)[0]
    assert "coverage@10" in overall
    assert "novelty@10" in overall
    assert "popularity = the number of users whose candidates hold the item" in text


def test_console_script_runs_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--seed", "1"]) == 0
    assert "By segment" in capsys.readouterr().out


def test_demo_compares_the_models() -> None:
    out = io.StringIO()
    cli.demo(seed=0, out=out)
    text = out.getvalue()
    assert "model_b against model_a" in text
    assert "p_value" in text


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_demo_writes_the_sample_data(tmp_path: Any, suffix: str) -> None:
    path = tmp_path / f"demo{suffix}"
    assert cli.main(["demo", "--write", str(path)]) == 0
    read = pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)
    expected = recommendations(seed=0)
    assert read.shape == expected.shape
    assert list(read.columns) == list(expected.columns)
    assert cli.main(["demo", "--write", str(tmp_path / "demo.txt")]) == 2


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_demo_into_a_missing_directory_is_one_line(
        tmp_path: Any, suffix: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "missing" / f"demo{suffix}"
    assert cli.main(["demo", "--write", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rankframe: error: cannot write {str(path)!r}")
    assert "Traceback" not in err
