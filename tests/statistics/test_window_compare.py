"""``compare(metrics, every=...)`` (issue 27): each window against the previous window, and
``compare(reference=..., every=...)``: each window against the same window of a reference,
on every frame kind.

References: per-query reciprocal ranks written out here (each query has three items and one
relevant item, ``i0``, which a system ranks at a rank chosen below: its reciprocal rank is
1/rank); ``scipy.stats.ttest_ind(equal_var=False)`` (Welch) for windows of other queries,
``scipy.stats.ttest_rel`` for windows of the same query ids, their intervals from scipy,
Holm's correction written out, and a plain independent bootstrap written out (each side
resampled with replacement from the documented stream) for the permutation test's interval.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from scipy import stats

from helpers import FrameMaker, as_pandas
from rankframe import ColumnNotFoundError, InvalidOptionError

MONDAYS = {1: "2024-01-01", 2: "2024-01-08", 3: "2024-01-15", 4: "2024-01-22", 5: "2024-01-29"}

# (query, week, theme, rank of i0 by `a`, rank by `b`): week 3 has no query at all, and
# the theme `sport` has none in week 4
QUERIES = [
    ("q01", 1, "news", 1, 1),
    ("q02", 1, "news", 2, 1),
    ("q03", 1, "sport", 1, 2),
    ("q04", 1, "sport", 3, 3),
    ("q05", 2, "news", 2, 1),
    ("q06", 2, "sport", 3, 1),
    ("q07", 2, "news", 2, 2),
    ("q08", 2, "sport", 1, 1),
    ("q09", 2, "news", 3, 2),
    ("q10", 4, "news", 1, 3),
    ("q11", 4, "news", 1, 3),
    ("q12", 4, "news", 2, 1),
    ("q13", 4, "news", 3, 2),
]


def week_start(week: int) -> pd.Timestamp:
    return pd.Timestamp(MONDAYS[week], tz="UTC")


def frame_data(
    queries: list[tuple[str, int, str, int, int]] = QUERIES, hour: int = 10
) -> pd.DataFrame:
    """Three rows per query; system s scores i0 so that it lands at the rank given, the
    others fill the other ranks. Each query is served on the Wednesday of its week."""
    scores = [0.9, 0.5, 0.1]
    rows = []
    for query, week, theme, rank_a, rank_b in queries:
        served = week_start(week) + pd.Timedelta(days=2, hours=hour)
        for i in range(3):
            row: dict[str, Any] = {
                "query": query,
                "item": f"i{i}",
                "relevant": int(i == 0),
                "theme": theme,
                "served_at": served,
            }
            for system, rank in (("a", rank_a), ("b", rank_b)):
                others = [r for r in (1, 2, 3) if r != rank]
                row[system] = scores[(rank if i == 0 else others[i - 1]) - 1]
            rows.append(row)
    return pd.DataFrame(rows)


def rr(
    week: int,
    system: str = "a",
    theme: str | None = None,
    queries: list[tuple[str, int, str, int, int]] = QUERIES,
) -> np.ndarray:
    """The reciprocal ranks of a week's queries (in query order)."""
    column = 3 if system == "a" else 4
    return np.array(
        [1.0 / q[column] for q in queries if q[1] == week and (theme is None or q[2] == theme)]
    )


def rows_of(table: Any) -> pd.DataFrame:
    return as_pandas(table).reset_index(drop=True)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment over the non-NaN p-values (NaN stays NaN)."""
    out = np.full(len(p), np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    order = tested[np.argsort(p[tested])]
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (len(order) - i) * p[j]))
        out[j] = running
    return out


def test_each_week_against_the_previous_week_welch(make_frame: FrameMaker) -> None:
    frame = make_frame(frame_data())
    table = rows_of(frame.rank_eval(score="a", time="served_at").compare("mrr", every="1w"))
    assert list(table.columns) == [
        "window",
        "system",
        "metric",
        "k",
        "mean",
        "delta",
        "delta_relative",
        "ci_low",
        "ci_high",
        "p_adjusted",
        "significant",
        "p_value",
        "mde",
        "statistic",
        "reference_mean",
        "paired",
        "wins",
        "ties",
        "losses",
        "n_queries",
        "n_reference",
        "reference_window",
    ]
    assert [pd.Timestamp(w) for w in table["window"]] == [week_start(w) for w in (1, 2, 4)]
    # week 1 has no previous window: nothing to compare with
    first = table.iloc[0]
    assert first["mean"] == pytest.approx(rr(1).mean())  # (1 + 1/2 + 1 + 1/3) / 4
    for column in [
        "reference_mean",
        "delta",
        "delta_relative",
        "p_value",
        "p_adjusted",
        "ci_low",
        "ci_high",
    ]:
        assert np.isnan(first[column]), column
    assert pd.isna(first["reference_window"])
    assert (first["n_queries"], first["n_reference"]) == (4, 0)
    assert not first["paired"]
    assert not first["significant"]
    # week 2 against week 1; week 4 against week 2 (week 3 holds no query: skipped)
    for i, (week, previous) in enumerate([(2, 1), (4, 2)], start=1):
        row = table.iloc[i]
        x, y = rr(week), rr(previous)
        welch = stats.ttest_ind(x, y, equal_var=False)
        assert pd.Timestamp(row["reference_window"]) == week_start(previous)
        assert not row["paired"]
        assert row["mean"] == pytest.approx(x.mean(), rel=1e-12)
        assert row["reference_mean"] == pytest.approx(y.mean(), rel=1e-12)
        assert row["delta"] == pytest.approx(x.mean() - y.mean(), rel=1e-12)
        assert row["p_value"] == pytest.approx(welch.pvalue, rel=1e-9)
        interval = welch.confidence_interval(0.95)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            (interval.low, interval.high), rel=1e-9
        )
        assert (row["n_queries"], row["n_reference"]) == (len(x), len(y))
        assert pd.isna(row["wins"])
    # two p-values in the family of each row's (window, metric): one test per family
    np.testing.assert_array_equal(
        table["p_adjusted"].to_numpy(float), table["p_value"].to_numpy(float)
    )


def test_segments_compare_with_their_own_previous_window(make_frame: FrameMaker) -> None:
    frame = make_frame(frame_data())
    table = rows_of(
        frame.rank_eval(score="a", time="served_at").compare("mrr", every="1w", by="theme")
    )
    got = [(pd.Timestamp(w), t) for w, t in zip(table["window"], table["theme"], strict=True)]
    assert got == [
        (week_start(1), "news"),
        (week_start(1), "sport"),
        (week_start(2), "news"),
        (week_start(2), "sport"),
        (week_start(4), "news"),
    ]
    previous = {(2, "news"): 1, (2, "sport"): 1, (4, "news"): 2}
    for (window, theme), row in zip(got, table.to_dict("records"), strict=True):
        week = next(w for w, s in MONDAYS.items() if pd.Timestamp(s, tz="UTC") == window)
        if (week, theme) not in previous:
            assert np.isnan(row["delta"])
            assert np.isnan(row["p_value"])
            assert pd.isna(row["reference_window"])
            continue
        x, y = rr(week, theme=theme), rr(previous[week, theme], theme=theme)
        assert pd.Timestamp(row["reference_window"]) == week_start(previous[week, theme])
        assert row["delta"] == pytest.approx(x.mean() - y.mean(), rel=1e-12)
        assert row["p_value"] == pytest.approx(
            stats.ttest_ind(x, y, equal_var=False).pvalue, rel=1e-9
        )


def test_several_systems_and_a_correction_over_the_table(make_frame: FrameMaker) -> None:
    # each system against its own previous window (no baseline among the systems)
    frame = make_frame(frame_data())
    table = rows_of(
        frame.rank_eval(score=["a", "b"], time="served_at").compare(
            "mrr", every="1w", family="table"
        )
    )
    # per system, its windows in order
    assert table["system"].tolist() == ["a"] * 3 + ["b"] * 3
    p = np.full(6, np.nan)
    for i, (week, previous) in enumerate([(2, 1), (4, 2)], start=1):
        for j, system in enumerate("ab"):
            x, y = rr(week, system), rr(previous, system)
            p[3 * j + i] = stats.ttest_ind(x, y, equal_var=False).pvalue
    np.testing.assert_allclose(table["p_value"].to_numpy(float), p, rtol=1e-9)
    # family="table": one Holm correction over the four tests of the table
    np.testing.assert_allclose(table["p_adjusted"].to_numpy(float), holm(p), rtol=1e-9)
    # the default family, "systems": each (window, metric) alone, here one test per system
    per_family = rows_of(
        frame.rank_eval(score=["a", "b"], time="served_at").compare("mrr", every="1w")
    )
    expected = np.full(6, np.nan)
    for w in range(3):  # a window's two systems: rows w and 3 + w
        expected[[w, 3 + w]] = holm(p[[w, 3 + w]])
    np.testing.assert_allclose(per_family["p_adjusted"].to_numpy(float), expected, rtol=1e-9)


def _plain_bootstrap(
    x: np.ndarray, y: np.ndarray, level: float, r: int, seed: int
) -> tuple[float, float]:
    """Each side resampled with replacement, r times, from the documented stream (the first
    stream spawned from the seed); the percentile interval of the difference of means."""
    rng = np.random.default_rng(seed).spawn(1)[0]
    ix = rng.integers(0, len(x), size=(r, len(x)))
    iy = rng.integers(0, len(y), size=(r, len(y)))
    values = [x[ix[i]].mean() - y[iy[i]].mean() for i in range(r)]
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def test_permutation_interval_is_a_plain_independent_bootstrap(
    make_frame: FrameMaker,
) -> None:
    frame = make_frame(frame_data())
    table = rows_of(
        frame.rank_eval(score="a", time="served_at").compare(
            "mrr",
            every="1w",
            test="permutation",
            n_permutations=500,
            n_resamples=400,
            seed=7,
            confidence_level=0.9,
        )
    )
    for i, (week, previous) in enumerate([(2, 1), (4, 2)], start=1):
        row = table.iloc[i]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            _plain_bootstrap(rr(week), rr(previous), 0.9, 400, 7), rel=1e-12
        )
        assert row["ci_low"] <= row["delta"] <= row["ci_high"]
        assert 0 < row["p_value"] <= 1


def test_a_query_belongs_to_its_earliest_window(make_frame: FrameMaker) -> None:
    # a user id as the query, with rows in weeks 1 and 2: one query, in week 1 (its
    # earliest row); the windows of one frame never share a query: two samples
    data = frame_data()
    late = (data["query"] == "q01") & (data["item"] == "i2")
    data.loc[late, "served_at"] = week_start(2) + pd.Timedelta(days=1)
    table = rows_of(
        make_frame(data).rank_eval(score="a", time="served_at").compare("mrr", every="1w")
    )
    assert table["n_queries"].tolist() == [4, 5, 4]
    assert not table["paired"].any()
    assert table["p_value"].iloc[1] == pytest.approx(
        stats.ttest_ind(rr(2), rr(1), equal_var=False).pvalue, rel=1e-9
    )


def test_an_explicit_baseline_compares_within_each_window(make_frame: FrameMaker) -> None:
    frame = make_frame(frame_data())
    table = rows_of(
        frame.rank_eval(score=["a", "b"], time="served_at").compare("mrr", every="1w", baseline="a")
    )
    assert "reference_window" not in table.columns
    rows = table[table["system"] == "b"]
    for (_, row), week in zip(rows.iterrows(), (1, 2, 4), strict=True):
        assert row["p_value"] == pytest.approx(
            stats.ttest_rel(rr(week, "b"), rr(week, "a")).pvalue, rel=1e-9
        )
        assert row["paired"]


# -- compare(reference=..., every=...): the same window of another frame -------------------

# the reference frame: week 1 holds the same user ids as the current frame's week 1 (other
# ranks); week 2 holds other ids; week 5 only the reference has (left out); the current
# frame's week 4 has no reference queries
REFERENCE = [
    ("q01", 1, "news", 2, 1),
    ("q02", 1, "news", 3, 1),
    ("q03", 1, "sport", 1, 2),
    ("q04", 1, "sport", 2, 3),
    ("r05", 2, "news", 1, 1),
    ("r06", 2, "sport", 1, 1),
    ("r07", 2, "news", 2, 2),
    ("r08", 5, "news", 1, 1),
]


def test_each_window_against_the_same_window_of_the_reference(
    make_frame: FrameMaker,
) -> None:
    current = make_frame(frame_data())
    # the reference's queries are served at another hour: the same windows all the same
    reference = make_frame(frame_data(REFERENCE, hour=20))
    table = rows_of(
        current.rank_eval(score="a", time="served_at").compare(
            "mrr", every="1w", reference=reference
        )
    )
    assert "reference_window" not in table.columns
    assert [pd.Timestamp(w) for w in table["window"]] == [week_start(w) for w in (1, 2, 4)]
    week1, week2, week4 = (table.iloc[i] for i in range(3))
    # week 1: the same user ids on both sides: paired
    x, y = rr(1), rr(1, queries=REFERENCE)
    assert week1["paired"]
    assert week1["delta"] == pytest.approx((x - y).mean(), rel=1e-12)
    assert week1["p_value"] == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-9)
    # by hand: q01 1 > 1/2 and q02 1/2 > 1/3 win, q03 1 = 1 ties, q04 1/3 < 1/2 loses
    assert (week1["wins"], week1["ties"], week1["losses"]) == (2, 1, 1)
    # week 2: other ids: Welch
    x, y = rr(2), rr(2, queries=REFERENCE)
    assert not week2["paired"]
    assert week2["p_value"] == pytest.approx(
        stats.ttest_ind(x, y, equal_var=False).pvalue, rel=1e-9
    )
    assert (week2["n_queries"], week2["n_reference"]) == (5, 3)
    # week 4: no reference queries in that window
    assert np.isnan(week4["delta"])
    assert np.isnan(week4["p_value"])
    assert week4["n_reference"] == 0


def test_a_reference_of_dates_against_datetimes(make_frame: FrameMaker) -> None:
    current = make_frame(frame_data())
    data = frame_data(REFERENCE)
    data["served_at"] = pd.array(
        [t.date() for t in data["served_at"]], dtype=pd.ArrowDtype(pa.date32())
    )
    reference = make_frame(data)
    with pytest.raises(
        InvalidOptionError,
        match=r"'served_at' holds zone-aware datetimes "
        r"here and dates in the reference",
    ):
        as_pandas(
            current.rank_eval(score="a", time="served_at").compare(
                "mrr", every="1w", reference=reference
            )
        )


def test_a_reference_without_the_time_column(make_frame: FrameMaker) -> None:
    current = make_frame(frame_data())
    reference = make_frame(frame_data(REFERENCE).drop(columns="served_at"))
    ev = current.rank_eval(score="a", time="served_at")
    with pytest.raises(ColumnNotFoundError, match=r"no column 'served_at' \(time\)"):
        ev.compare("mrr", every="1w", reference=reference)
    # without every= the time column is not read: the reference needs none
    row = rows_of(ev.compare("mrr", reference=reference)).iloc[0]
    assert row["n_reference"] == len(REFERENCE)
