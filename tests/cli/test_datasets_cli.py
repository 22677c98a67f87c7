"""The embedded sample data and the ``rankframe demo`` command (what ``make demo`` runs)."""

from __future__ import annotations

import hashlib
import io
import struct
from typing import Any

import pandas as pd
import pytest

import rankframe
from rankframe import cli
from rankframe.datasets import SEGMENTS, recommendations

# The sample data, derived a second way: the generator of rankframe.datasets (SplitMix64
# streams, module docstring) written out with Python's ints (masked to 64 bits) and floats,
# one value at a time, sorting with sorted(). The pinned fingerprints below were computed
# with this derivation (fingerprint(reference(...))), and NumPy 1.26.4 / pandas 2.2.3 and
# NumPy 2.4 / pandas 3.1 give the same from recommendations(); a NumPy release that changes
# the data fails test_recommendations_is_pinned.
MASK = 2**64 - 1
GAMMA = 0x9E3779B97F4A7C15
START = 1_704_067_200  # 2024-01-01T00:00:00Z in seconds
DEVICES = ("web", "ios", "android")
GENRES = ("news", "sport", "music", "film")


def mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def splitmix64(state: int, n: int) -> list[int]:
    out = []
    for _ in range(n):
        state = (state + GAMMA) & MASK
        out.append(mix(state))
    return out


def hundredths(x: float) -> float:
    """``x`` rounded to two decimals, half to even (Python's ``round`` of a float)."""
    return round(x * 100.0) / 100.0


def reference(
    seed: int = 0,
    n_users: int = 300,
    n_candidates: int = 40,
    top_k: int = 20,
    n_items: int = 2000,
    *,
    weak_slice: bool = False,
) -> dict[str, list[Any]]:
    """The columns of ``recommendations()``, derived with Python's ints and floats only."""
    states = splitmix64(seed, 9)

    def bits(stream: int, n: int) -> list[int]:
        return splitmix64(states[stream], n)

    def normals(stream: int, n: int) -> list[float]:
        b = bits(stream, 12 * n)
        return [sum(x >> 32 for x in b[12 * i : 12 * i + 12]) * 2.0**-32 - 6.0 for i in range(n)]

    def choice(stream: int, n: int, bounds: tuple[float, ...]) -> list[int]:
        return [sum(((x >> 11) * 2.0**-53) >= b for b in bounds) for x in bits(stream, n)]

    keys = bits(0, n_users * n_items)
    candidates = []
    for u in range(n_users):
        row = keys[u * n_items : (u + 1) * n_items]
        candidates.append(sorted(range(n_items), key=row.__getitem__)[:n_candidates])
    segment = choice(1, n_users, (0.3, 0.8))
    size = n_users * n_candidates
    z_aff, z_a, z_b = normals(2, size), normals(3, size), normals(4, size)
    taste = (-0.4, 0.0, 0.4)
    spread = (1.2, 0.9, 0.7)
    aff = [z_aff[i] + taste[segment[i // n_candidates]] for i in range(size)]
    grade = [sum(a >= t for t in (1.3, 1.9, 2.5)) for a in aff]
    a = [hundredths(aff[i] + 0.6 * z_a[i]) for i in range(size)]
    b = [hundredths(aff[i] + z_b[i] * spread[segment[i // n_candidates]]) for i in range(size)]
    if weak_slice:
        device = choice(6, n_users, (0.5, 0.8))
        genre = [x >> 62 for x in bits(7, n_users)]
        z_w = normals(8, size)
        for i in range(size):
            u = i // n_candidates
            if DEVICES[device[u]] == "android" and GENRES[genre[u]] == "music":
                b[i] = hundredths(0.3 * aff[i] + z_w[i])
    for score in (a, b):
        for u in range(n_users):
            idx = range(u * n_candidates, (u + 1) * n_candidates)
            order = sorted(idx, key=lambda j: -score[j])
            for j in order[top_k:]:
                score[j] = float("nan")
    t = bits(5, 2 * n_users)
    served = []
    for u in range(n_users):
        x, y = t[2 * u] >> 32, t[2 * u + 1] >> 32
        share = (max(x, y), x, min(x, y))[segment[u]]
        served.append(START + ((share * (8 * 7 * 86_400)) >> 32))
    columns = {
        "user_id": [f"u{i // n_candidates + 1:04d}" for i in range(size)],
        "segment": [SEGMENTS[segment[i // n_candidates]] for i in range(size)],
        "item_id": [
            f"i{candidates[u][j] + 1:05d}" for u in range(n_users) for j in range(n_candidates)
        ],
        "model_a": a,
        "model_b": b,
        "relevant": grade,
        "served_at": [served[i // n_candidates] for i in range(size)],
    }
    if weak_slice:
        columns["device"] = [DEVICES[device[i // n_candidates]] for i in range(size)]
        columns["genre"] = [GENRES[genre[i // n_candidates]] for i in range(size)]
    return columns


def fingerprint(columns: dict[str, list[Any]]) -> str:
    """SHA-256 of the columns: each name, then each value: text as UTF-8 and a NUL, a float
    as its 8 IEEE bytes (little-endian), an integer as 8 bytes (little-endian)."""
    h = hashlib.sha256()
    for name, values in columns.items():
        h.update(name.encode() + b"\0")
        for v in values:
            if isinstance(v, str):
                h.update(v.encode() + b"\0")
            elif isinstance(v, float):
                h.update(struct.pack("<d", v))
            else:
                h.update(struct.pack("<q", v))
    return h.hexdigest()


#: fingerprint() of recommendations() and recommendations(n_users=2000, weak_slice=True)
#: (the docs' two samples), computed once from reference() (see above)
PINNED = "daf0595cb71a063d3e9db3c70d7dd1bf7dca118ad3c1bc50286a482f8b7dc0b7"
PINNED_WEAK_SLICE = "1cb78d2bec8ba1e8be0b61ba65b25dc93985aebd8edce030d47457955067f918"


def columns(frame: pd.DataFrame) -> dict[str, list[Any]]:
    """A frame's columns as fingerprint() reads them: ``served_at`` in seconds since 1970."""
    out: dict[str, list[Any]] = {}
    for name in frame.columns:
        column = frame[name]
        if name == "served_at":
            epoch = pd.Timestamp("1970-01-01", tz="UTC")
            out[name] = ((column - epoch) // pd.Timedelta(seconds=1)).tolist()
        elif column.dtype.kind in "fi":
            out[name] = column.to_numpy().tolist()
        else:
            out[name] = [str(v) for v in column]
    return out


def test_splitmix64_is_the_reference() -> None:
    # Rosetta Code's "Pseudo-random numbers/Splitmix64": the first outputs for seed 1234567
    assert splitmix64(1234567, 5) == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_recommendations_is_pinned() -> None:
    assert fingerprint(columns(recommendations())) == PINNED
    assert fingerprint(columns(recommendations(n_users=2000, weak_slice=True))) == (
        PINNED_WEAK_SLICE
    )


@pytest.mark.parametrize("seed", [0, 7, 2**64 - 1])
def test_recommendations_equals_the_python_derivation(seed: int) -> None:
    # small sizes, every column (a negative zero would differ in its bytes: none is made)
    sizes = {"n_users": 30, "n_candidates": 12, "top_k": 5, "n_items": 50}
    for weak_slice in (False, True):
        frame = recommendations(seed, weak_slice=weak_slice, **sizes)
        assert fingerprint(columns(frame)) == fingerprint(
            reference(seed, weak_slice=weak_slice, **sizes)
        )


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True])
def test_recommendations_rejects_a_bad_seed(seed: Any) -> None:
    with pytest.raises(ValueError, match=r"needs a seed in \[0, 2\*\*64\)"):
        recommendations(seed)


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
    tmp_path: Any, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "missing" / f"demo{suffix}"
    assert cli.main(["demo", "--write", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rankframe: error: cannot write {str(path)!r}")
    assert "Traceback" not in err


@pytest.mark.parametrize("seed", ["-1", str(2**64)])
def test_demo_rejects_a_bad_seed(seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ([], ["--write", "never.csv"]):
        assert cli.main(["demo", "--seed", seed, *extra]) == 2
        err = capsys.readouterr().err
        assert err == (
            f"rankframe: error: --seed must be an integer from 0 to 2**64 - 1; got {seed}\n"
        )
