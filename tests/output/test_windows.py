"""Time windows (issue 27, section 1): ``time=`` binds a time column, ``every=`` gives one
row per window, the window's start leading the columns, on every frame kind.

Every value is derived by hand in the comments; the p-values of ``compare`` come from
``scipy.stats.ttest_rel`` on the hand-written per-query values.
"""

from __future__ import annotations

import datetime as dt
import pickle
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from scipy import stats

from helpers import FrameMaker, as_pandas, collect
from rankframe import InvalidDataError, InvalidOptionError

# Five queries of two items each; item 1 scores 0.9, item 2 scores 0.1 for system `a`.
# Reciprocal ranks of `a`: the relevant item at rank 1 gives 1, at rank 2 gives 1/2, none 0.
#   q1: relevant item 2 -> 1/2     q2: item 1 -> 1     q3: item 1 -> 1
#   q4: relevant item 2 -> 1/2     q5: none    -> 0
# System `b` ranks item 2 first in q1 and q4 (RR 1 there) and equals `a` elsewhere.
# Times (UTC): q1's rows at Tue 2024-01-02 09:00 and Tue 2024-01-09 (its time is the
# earliest, so ISO week 1); q2 Wed 01-03; q3 Sun 2024-01-07 23:30 UTC, which is Monday
# 00:30 in Berlin (week 2 there); q4 Mon 01-08 12:00; q5 Wed 01-10.
TIMES = {
    "q1": ["2024-01-02 09:00", "2024-01-09 09:00"],
    "q2": ["2024-01-03 10:00"] * 2,
    "q3": ["2024-01-07 23:30"] * 2,
    "q4": ["2024-01-08 12:00"] * 2,
    "q5": ["2024-01-10 08:00"] * 2,
}
RR_A = {"q1": 0.5, "q2": 1.0, "q3": 1.0, "q4": 0.5, "q5": 0.0}
RR_B = {"q1": 1.0, "q2": 1.0, "q3": 1.0, "q4": 1.0, "q5": 0.0}


def frame_data(zone: str = "UTC") -> dict[str, Any]:
    queries = [q for q in TIMES for _ in range(2)]
    relevant_item = {"q1": 2, "q2": 1, "q3": 1, "q4": 2, "q5": 0}
    stamps = pd.to_datetime([t for q in TIMES for t in TIMES[q]]).tz_localize("UTC")
    return {
        "query": queries,
        "item": [1, 2] * 5,
        "a": [0.9, 0.1] * 5,
        "b": [0.1, 0.9, 0.9, 0.1, 0.9, 0.1, 0.1, 0.9, 0.9, 0.1],
        "relevant": [
            int(item == relevant_item[q]) for q, item in zip(queries, [1, 2] * 5, strict=True)
        ],
        "theme": [
            "news",
            "news",
            "sport",
            "sport",
            "news",
            "news",
            "news",
            "news",
            "sport",
            "sport",
        ],
        "served_at": stamps.tz_convert(zone),
    }


def windows(result: Any) -> list[pd.Timestamp]:
    """The ``window`` column of any frame kind's result, as pandas Timestamps."""
    return [pd.Timestamp(v) for v in as_pandas(result)["window"]]


def test_weekly_mrr_by_hand(make_frame: FrameMaker) -> None:
    # ISO weeks from Monday 2024-01-01 and Monday 2024-01-08 (UTC):
    # week 1: q1 (1/2), q2 (1), q3 (1) -> 2.5 / 3 = 5/6; week 2: q4 (1/2), q5 (0) -> 1/4
    frame = make_frame(frame_data())
    table = as_pandas(frame.rank_eval(score="a", time="served_at").evaluate(["mrr"], every="1w"))
    assert list(table.columns) == ["window", "mrr", "n_queries"]
    assert windows(table) == [
        pd.Timestamp("2024-01-01", tz="UTC"),
        pd.Timestamp("2024-01-08", tz="UTC"),
    ]
    assert table["mrr"].tolist() == pytest.approx([5 / 6, 1 / 4])
    assert table["n_queries"].tolist() == [3, 2]


def test_a_zone_moves_a_query_across_the_week_boundary(make_frame: FrameMaker) -> None:
    # in Berlin (UTC+1 in January) q3's 23:30 UTC on Sunday is Monday 00:30: weeks start at
    # Monday 00:00 Berlin time; week 1: q1, q2 -> 3/4; week 2: q3, q4, q5 -> 1.5 / 3 = 1/2
    frame = make_frame(frame_data("Europe/Berlin"))
    table = as_pandas(frame.rank_eval(score="a", time="served_at").evaluate(["mrr"], every="1w"))
    assert windows(table) == [
        pd.Timestamp("2024-01-01", tz="Europe/Berlin"),
        pd.Timestamp("2024-01-08", tz="Europe/Berlin"),
    ]
    assert all(str(w.tz) == "Europe/Berlin" for w in windows(table))
    assert table["mrr"].tolist() == pytest.approx([3 / 4, 1 / 2])
    # days: q3 alone on Monday 2024-01-08 in Berlin, with q4
    daily = as_pandas(frame.rank_eval(score="a", time="served_at").mrr(every="1d"))
    assert dict(zip(windows(daily), daily["mrr"], strict=True)) == pytest.approx(
        {
            pd.Timestamp("2024-01-02", tz="Europe/Berlin"): 0.5,
            pd.Timestamp("2024-01-03", tz="Europe/Berlin"): 1.0,
            pd.Timestamp("2024-01-08", tz="Europe/Berlin"): 0.75,  # q3 (1), q4 (1/2)
            pd.Timestamp("2024-01-10", tz="Europe/Berlin"): 0.0,
        }
    )


def test_windows_combine_with_by_intervals_and_tidy(make_frame: FrameMaker) -> None:
    # week 1: news q1 (1/2), q3 (1) -> 3/4; sport q2 (1) -> 1
    # week 2: news q4 (1/2); sport q5 (0)
    frame = make_frame(frame_data())
    ev = frame.rank_eval(score="a", time="served_at")
    table = as_pandas(ev.evaluate(["mrr"], every="1w", by="theme", confidence_level=0.9))
    assert list(table.columns) == [
        "window",
        "theme",
        "mrr",
        "mrr_ci_low",
        "mrr_ci_high",
        "n_queries",
    ]
    week1, week2 = pd.Timestamp("2024-01-01", tz="UTC"), pd.Timestamp("2024-01-08", tz="UTC")
    assert list(zip(windows(table), table["theme"], strict=True)) == [
        (week1, "news"),
        (week1, "sport"),
        (week2, "news"),
        (week2, "sport"),
    ]
    assert table["mrr"].tolist() == pytest.approx([0.75, 1.0, 0.5, 0.0])
    # one query per segment but the first: its bootstrap interval is the value itself
    assert table["mrr_ci_low"].tolist()[1:] == pytest.approx([1.0, 0.5, 0.0])
    assert table["mrr_ci_high"].tolist()[1:] == pytest.approx([1.0, 0.5, 0.0])
    tidy = as_pandas(ev.evaluate(["mrr", "acc@1"], every="1w", tidy=True))
    assert list(tidy.columns[:3]) == ["window", "system", "metric"]
    # acc@1: week 1 q2, q3 hit at rank 1 -> 2/3; week 2: none -> 0
    assert tidy["value"].tolist() == pytest.approx([5 / 6, 2 / 3, 1 / 4, 0.0])
    series = as_pandas(ev.mrr(every="1w", by="theme"))
    assert list(series.columns) == ["window", "theme", "mrr"]
    # a set-level metric per window: `a` puts item 1 first everywhere, 1 of the frame's 2
    # items -> coverage@1 = 1/2 in each week
    coverage = as_pandas(ev.evaluate(["coverage@1"], every="1w"))
    assert coverage["coverage@1"].tolist() == pytest.approx([0.5, 0.5])


def test_per_query_carries_each_querys_window(make_frame: FrameMaker) -> None:
    frame = make_frame(frame_data())
    table = as_pandas(
        frame.rank_eval(score="a", time="served_at").per_query("mrr", every="1w", by="theme")
    )
    assert list(table.columns) == ["window", "query", "theme", "mrr"]
    # q1's earliest row (01-02) puts it in week 1, though its other row is in week 2
    week1, week2 = pd.Timestamp("2024-01-01", tz="UTC"), pd.Timestamp("2024-01-08", tz="UTC")
    assert dict(zip(table["query"], windows(table), strict=True)) == {
        "q1": week1,
        "q2": week1,
        "q3": week1,
        "q4": week2,
        "q5": week2,
    }
    assert dict(zip(table["query"], table["mrr"], strict=True)) == RR_A


def test_compare_within_each_window_against_scipy(make_frame: FrameMaker) -> None:
    frame = make_frame(frame_data())
    table = as_pandas(
        frame.rank_eval(score=["a", "b"], time="served_at").compare("mrr", baseline="a", every="1w")
    )
    assert list(table.columns[:3]) == ["window", "system", "metric"]
    rows = table[table["system"] == "b"]
    weeks = [["q1", "q2", "q3"], ["q4", "q5"]]
    for (_, row), week in zip(rows.iterrows(), weeks, strict=True):
        a, b = [RR_A[q] for q in week], [RR_B[q] for q in week]
        # week 1: differences 1/2, 0, 0 -> delta 1/6; week 2: 1/2, 0 -> delta 1/4
        assert row["delta"] == pytest.approx(sum(b) / len(b) - sum(a) / len(a))
        assert row["p_value"] == pytest.approx(stats.ttest_rel(b, a).pvalue)
        assert row["n_queries"] == len(week)
    assert rows["delta"].tolist() == pytest.approx([1 / 6, 1 / 4])


def test_dates_months_quarters_and_years(make_frame: FrameMaker) -> None:
    # a date column (Arrow dates, which every frame kind holds as dates)
    days = [
        dt.date(2024, 1, 15),
        dt.date(2024, 2, 20),
        dt.date(2024, 4, 2),
        dt.date(2024, 3, 31),
        dt.date(2025, 1, 5),
    ]
    data = frame_data()
    data["day"] = pd.array([d for d in days for _ in range(2)], dtype=pd.ArrowDtype(pa.date32()))
    frame = make_frame(data)
    ev = frame.rank_eval(score="a", time="day")
    # months: Jan q1 (1/2), Feb q2 (1), Mar q4 (1/2), Apr q3 (1), Jan 2025 q5 (0)
    months = as_pandas(ev.mrr(every="1mo"))
    assert windows(months) == [
        pd.Timestamp(d)
        for d in ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2025-01-01"]
    ]
    assert months["mrr"].tolist() == pytest.approx([0.5, 1.0, 0.5, 1.0, 0.0])
    # quarters: Q1 2024 q1, q2, q4 -> 2/3; Q2 2024 q3 -> 1; Q1 2025 q5 -> 0
    quarters = as_pandas(ev.mrr(every="1q"))
    assert windows(quarters) == [
        pd.Timestamp(d) for d in ["2024-01-01", "2024-04-01", "2025-01-01"]
    ]
    assert quarters["mrr"].tolist() == pytest.approx([2 / 3, 1.0, 0.0])
    # years: 2024 q1-q4 -> 3/4; 2025 q5 -> 0
    years = as_pandas(ev.mrr(every="1y"))
    assert years["mrr"].tolist() == pytest.approx([0.75, 0.0])
    # two weeks: polars' grid of 14 days, whose windows start on Mondays
    fortnights = as_pandas(ev.mrr(every="2w"))
    assert all(w.day_of_week == 0 for w in windows(fortnights))


def test_integer_epochs_are_utc(make_frame: FrameMaker) -> None:
    # seconds since 1970-01-01 UTC: 2024-01-01 00:00 is 1704067200; q1-q3 on Jan 1 + 0, 1, 2
    # days, q4, q5 on Jan 8 -> weekly means (1/2 + 1 + 1) / 3 and (1/2 + 0) / 2
    day = 86_400
    starts = {"q1": 0, "q2": 1, "q3": 2, "q4": 7, "q5": 9}
    data = frame_data()
    data["epoch"] = [1_704_067_200 + starts[q] * day for q in data["query"]]
    frame = make_frame(data)
    table = as_pandas(
        frame.rank_eval(score="a", time="epoch", time_unit="s").evaluate(["mrr"], every="1w")
    )
    assert windows(table) == [
        pd.Timestamp("2024-01-01", tz="UTC"),
        pd.Timestamp("2024-01-08", tz="UTC"),
    ]
    assert table["mrr"].tolist() == pytest.approx([5 / 6, 1 / 4])
    ms = as_pandas(frame.rank_eval(score="a", time="epoch", time_unit="ms").mrr(every="1d"))
    # read as milliseconds, every epoch falls on 1970-01-20
    assert windows(ms) == [pd.Timestamp("1970-01-20", tz="UTC")]


# -- errors: the same on every frame kind ----------------------------------------------------


def _raised(call: Any) -> InvalidDataError | InvalidOptionError:
    with pytest.raises((InvalidDataError, InvalidOptionError)) as info:
        collect(call())
    error = info.value
    assert str(pickle.loads(pickle.dumps(error))) == str(error)
    return error  # type: ignore[return-value]


def test_a_null_time_names_its_row_and_query(make_frame: FrameMaker) -> None:
    data = frame_data()
    stamps = data["served_at"].tolist()
    stamps[5] = None  # q3's second row
    data["served_at"] = pd.Series(stamps, dtype="datetime64[ns, UTC]")
    frame = make_frame(data)
    error = _raised(
        lambda: frame.rank_eval(score="a", time="served_at").evaluate("mrr", every="1w")
    )
    assert type(error) is InvalidDataError
    assert (error.column, error.problem, error.count, error.row, error.query) == (
        "served_at",
        "null",
        1,
        5,
        "q3",
    )
    assert str(error).startswith(
        "Column 'served_at' (time) has 1 null value(s) (first at row 5, in query 'q3'); "
        "every row needs a time for every= windows"
    )
    # without every= the time column is not read
    assert collect(frame.rank_eval(score="a", time="served_at").evaluate("mrr")) is not None


def test_a_text_time_column_is_refused(make_frame: FrameMaker) -> None:
    data = frame_data()
    data["served_at"] = [str(t) for t in data["served_at"]]
    frame = make_frame(data)
    error = _raised(lambda: frame.rank_eval(score="a", time="served_at").mrr(every="1w"))
    assert type(error) is InvalidDataError
    assert (error.column, error.problem) == ("served_at", "not_temporal")
    assert str(error).startswith(
        "Column 'served_at' (time) must hold datetimes, dates or integer epochs (with "
        "time_unit=...); got dtype "
    )


def test_integers_need_a_time_unit(make_frame: FrameMaker) -> None:
    data = frame_data()
    data["epoch"] = [1_704_067_200] * 10
    frame = make_frame(data)
    error = _raised(lambda: frame.rank_eval(score="a", time="epoch").mrr(every="1w"))
    assert type(error) is InvalidDataError
    assert (error.column, error.problem) == ("epoch", "no_time_unit")
    assert "pass time_unit='s', 'ms', 'us' or 'ns'" in str(error)


@pytest.mark.parametrize(
    ("bind", "every", "message"),
    [
        (
            {},
            "1w",
            "every='1w' needs a time column: bind it first, e.g. df.rank_eval(time='served_at')",
        ),
        (
            {"time": "served_at"},
            "1x",
            "every='1x' is not a window length: pass a polars duration string",
        ),
        ({"time": "served_at"}, "0d", "every='0d' is not a window length"),
        ({"time": "served_at"}, 7, "every=7 is not a window length"),
        (
            {"time": "served_at", "time_unit": "days"},
            "1w",
            "time_unit='days' is not a unit of integer epochs",
        ),
    ],
    ids=["no-time", "unknown-unit", "zero", "not-a-string", "bad-time-unit"],
)
def test_bad_windows_are_refused_at_call_time(
    make_frame: FrameMaker, bind: dict[str, str], every: Any, message: str
) -> None:
    frame = make_frame(frame_data())
    with pytest.raises(InvalidOptionError) as info:
        frame.rank_eval(score="a", **bind).evaluate("mrr", every=every)
    assert str(info.value).startswith(message)
    if "window length" in message:
        assert "units: ns, us, ms, s, m, h, d, w, mo, q, y" in str(info.value)


def test_plots_read_a_windowed_table(make_frame: FrameMaker) -> None:
    import matplotlib as mpl

    mpl.use("Agg")
    import matplotlib.pyplot as plt

    from rankframe import plot

    frame = make_frame(frame_data("Europe/Berlin"))
    ev = frame.rank_eval(score=["a", "b"], time="served_at")
    ax = plot.segments(ev.evaluate(["mrr"], every="1w", by="theme", tidy=True), "mrr")
    # week 1 (Berlin): news q1, sport q2; week 2: news q3, q4, sport q5
    labels = [t.get_text().split("\n")[0] for t in ax.get_xticklabels()]
    assert labels == [
        "2024-01-01 / news",
        "2024-01-01 / sport",
        "2024-01-08 / news",
        "2024-01-08 / sport",
    ]
    # system a: 1/2, 1, (1 + 1/2) / 2, 0
    heights = [float(bar.get_height()) for bar in ax.containers[0]]
    assert heights == pytest.approx([0.5, 1.0, 0.75, 0.0])
    plt.close(ax.figure)
    ax = plot.distribution(ev.per_query("mrr", every="1w"), "mrr")
    plt.close(ax.figure)


def test_every_metric_in_a_window_is_its_value_on_that_windows_rows(
    make_frame: FrameMaker,
) -> None:
    """A window is a segment of whole queries: for every registered metric of relevance (at
    every k), its value in a window equals ``evaluate`` on the rows of that window's queries
    alone, selected by hand (two weeks; q1's second row is in week 2 but q1 is week 1's)."""
    from helpers import all_metrics, unlabelled

    rows: dict[str, list[Any]] = {
        "query": [],
        "item": [],
        "score": [],
        "relevant": [],
        "served_at": [],
    }
    grades = {"q1": [0, 2], "q2": [1, 0], "q3": [3, 1], "q4": [0, 1], "q5": [0, 0]}
    scores = {
        "q1": [0.9, 0.4],
        "q2": [0.5, 0.5],
        "q3": [0.2, 0.7],
        "q4": [0.8, 0.1],
        "q5": [0.3, 0.6],
    }
    for query, times in TIMES.items():
        for position in range(2):
            rows["query"].append(query)
            rows["item"].append(f"d{position}")
            rows["score"].append(scores[query][position])
            rows["relevant"].append(grades[query][position])
            rows["served_at"].append(pd.Timestamp(times[position], tz="UTC"))
    weeks = {"2024-01-01": ["q1", "q2", "q3"], "2024-01-08": ["q4", "q5"]}
    metrics = [str(m) for m in all_metrics((1, 3))]
    table = unlabelled(make_frame(rows).rank_eval(time="served_at").evaluate(metrics, every="1w"))
    assert [str(w.date()) for w in table["window"]] == list(weeks)
    for position, (_week, queries) in enumerate(weeks.items()):
        subset = {
            c: [v for q, v in zip(rows["query"], values, strict=True) if q in queries]
            for c, values in rows.items()
            if c != "served_at"
        }
        expected = unlabelled(make_frame(subset).rank_eval.evaluate(metrics))
        for metric in metrics:
            got, want = table[metric].iloc[position], expected[metric].iloc[0]
            assert got == pytest.approx(want, abs=1e-12, nan_ok=True), (metric, _week)
