"""rankframe.plot: the plotted data equals the tables it was drawn from.

Tidy and per-query tables are written out by hand, as pandas and polars (eager and lazy)
frames; every figure is rendered to a PNG and its artists are read back: bar heights, whisker
ends, histogram counts, line data, legend labels. ``metric_at_k`` runs once on a stand-in
accessor (any object with ``evaluate(..., tidy=True)``) and once on the real accessor against
values computed by hand.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import polars as pl
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.container import BarContainer, ErrorbarContainer

import rankframe
from rankframe import plot

if TYPE_CHECKING:
    from helpers import FrameMaker

TABLE_KINDS = ["pandas", "polars", "polars-lazy"]


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


@pytest.fixture(params=TABLE_KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def as_table(kind: str, data: dict[str, list[Any]]) -> Any:
    """A literal table as pandas or polars; ``k`` (when present) is a nullable Int64."""
    if kind == "pandas":
        frame = pd.DataFrame(data)
        if "k" in data:
            frame["k"] = pd.array(data["k"], dtype="Int64")
        return frame
    schema = {"k": pl.Int64} if "k" in data else None
    frame_pl = pl.DataFrame(data, schema_overrides=schema, strict=False)
    return frame_pl.lazy() if kind == "polars-lazy" else frame_pl


def render(ax: Axes, tmp_path: Path, name: str = "plot.png") -> None:
    """Draw the figure to a PNG file (the full render path, not just the artists)."""
    path = tmp_path / name
    ax.figure.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def bars(ax: Axes) -> list[BarContainer]:
    return [c for c in ax.containers if isinstance(c, BarContainer)]


def whiskers(ax: Axes) -> list[np.ndarray]:
    """Per errorbar container, an (n, 3) array of whisker x, low end, high end."""
    out = []
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer):
            (collection,) = container.lines[2]
            assert isinstance(collection, LineCollection)
            segments = collection.get_segments()
            out.append(np.array([[s[0, 0], s[0, 1], s[1, 1]] for s in segments]))
    return out


def legend_labels(ax: Axes) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None
    return [text.get_text() for text in legend.get_texts()]


# -- segments ----------------------------------------------------------------------------

# two systems, two segments, two metrics (ndcg@10 and mrr, which has no cut-off)
TIDY_CI: dict[str, list[Any]] = {
    "segment": ["casual", "casual", "casual", "casual", "power", "power", "power", "power"],
    "system": ["model_a", "model_b", "model_a", "model_b"] * 2,
    "metric": ["ndcg", "ndcg", "mrr", "mrr"] * 2,
    "k": [10, 10, None, None] * 2,
    "value": [0.42, 0.37, 0.51, 0.44, 0.63, 0.58, 0.71, 0.69],
    "n_queries": [150, 150, 150, 150, 60, 60, 60, 60],
    "ci_low": [0.38, 0.33, 0.46, 0.40, 0.55, 0.50, 0.64, 0.61],
    "ci_high": [0.47, 0.41, 0.56, 0.49, 0.70, 0.65, 0.78, 0.76],
}


def test_segments_bars_and_whiskers_equal_the_table(kind: str, tmp_path: Path) -> None:
    ax = plot.segments(as_table(kind, TIDY_CI), "ndcg@10")
    render(ax, tmp_path)

    model_a, model_b = bars(ax)
    assert model_a.get_label() == "model_a"
    assert model_b.get_label() == "model_b"
    assert [b.get_height() for b in model_a] == pytest.approx([0.42, 0.63])  # casual, power
    assert [b.get_height() for b in model_b] == pytest.approx([0.37, 0.58])
    assert legend_labels(ax) == ["model_a", "model_b"]

    ci_a, ci_b = whiskers(ax)
    np.testing.assert_allclose(ci_a[:, 1:], [[0.38, 0.47], [0.55, 0.70]])
    np.testing.assert_allclose(ci_b[:, 1:], [[0.33, 0.41], [0.50, 0.65]])
    # each whisker stands on the middle of its bar
    centres_a = [b.get_x() + b.get_width() / 2 for b in model_a]
    centres_b = [b.get_x() + b.get_width() / 2 for b in model_b]
    np.testing.assert_allclose(ci_a[:, 0], centres_a)
    np.testing.assert_allclose(ci_b[:, 0], centres_b)

    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["casual\n(n=150)", "power\n(n=60)"]
    assert ax.get_xlabel() == "segment"
    assert ax.get_ylabel() == "ndcg@10"
    assert "ndcg@10 by segment" in ax.get_title()
    assert ax.get_ylim()[0] == 0


def test_segments_picks_the_metric_by_any_spelling(kind: str) -> None:
    table = as_table(kind, TIDY_CI)
    for spelling, k in [("ndcg", 10), ("ndcg_cut_10", None), ("NDCG", None)]:
        ax = plot.segments(table, spelling, k=k)
        assert [b.get_height() for b in bars(ax)[0]] == pytest.approx([0.42, 0.63])
    # recip_rank is mrr, which has no cut-off (null k)
    ax = plot.segments(table, "recip_rank")
    assert [b.get_height() for b in bars(ax)[1]] == pytest.approx([0.44, 0.69])
    assert ax.get_ylabel() == "mrr"


def test_segments_without_ci_draws_no_whiskers(kind: str, tmp_path: Path) -> None:
    data = {c: v for c, v in TIDY_CI.items() if not c.startswith("ci_")}
    ax = plot.segments(as_table(kind, data), "mrr")
    render(ax, tmp_path)
    assert whiskers(ax) == []
    heights = [[b.get_height() for b in c] for c in bars(ax)]
    np.testing.assert_allclose(heights, [[0.51, 0.71], [0.44, 0.69]])
    assert "confidence" not in ax.get_title()


def test_segments_leaves_gaps_for_missing_rows_and_intervals(kind: str, tmp_path: Path) -> None:
    # model_b has no row for 'new'; model_a's interval in 'power' is null (one query)
    data: dict[str, list[Any]] = {
        "segment": ["new", "power", "power"],
        "system": ["model_a", "model_a", "model_b"],
        "metric": ["acc", "acc", "acc"],
        "k": [1, 1, 1],
        "value": [0.25, 1.0, 0.0],
        "n_queries": [4, 1, 1],
        "ci_low": [0.1, None, 0.0],
        "ci_high": [0.4, None, 0.0],
    }
    ax = plot.segments(as_table(kind, data), "acc@1")
    render(ax, tmp_path)
    model_a, model_b = bars(ax)
    assert [b.get_height() for b in model_a] == pytest.approx([0.25, 1.0])
    heights_b = [b.get_height() for b in model_b]
    assert np.isnan(heights_b[0])
    assert heights_b[1] == 0.0
    ci_a, ci_b = whiskers(ax)
    np.testing.assert_allclose(ci_a[:, 1:], [[0.1, 0.4]])  # only 'new'
    np.testing.assert_allclose(ci_b[:, 1:], [[0.0, 0.0]])  # only 'power'
    # n per segment: 'new' has only model_a's count, 'power' agrees across systems
    assert [t.get_text() for t in ax.get_xticklabels()] == ["new\n(n=4)", "power\n(n=1)"]


def test_segments_without_by_column_is_one_group(kind: str) -> None:
    data: dict[str, list[Any]] = {
        "system": ["model_a", "model_b"],
        "metric": ["map", "map"],
        "k": [100, 100],
        "value": [0.3, 0.2],
        "n_queries": [300, 300],
    }
    ax = plot.segments(as_table(kind, data), "map@100")
    np.testing.assert_allclose([[b.get_height() for b in c] for c in bars(ax)], [[0.3], [0.2]])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["all queries\n(n=300)"]
    assert ax.get_title() == "map@100"


def test_segments_with_several_by_columns_labels_each_combination() -> None:
    data: dict[str, list[Any]] = {
        "segment": ["new", "new", "power"],
        "country": ["fr", "de", "fr"],
        "system": ["s", "s", "s"],
        "metric": ["ndcg", "ndcg", "ndcg"],
        "k": [None, None, None],
        "value": [0.1, 0.2, 0.3],
        "n_queries": [5, 6, 7],
    }
    ax = plot.segments(as_table("polars", data), "ndcg")
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "new / fr\n(n=5)",
        "new / de\n(n=6)",
        "power / fr\n(n=7)",
    ]
    assert legend_labels(ax) == ["s"]


def test_segments_draws_on_the_given_axes() -> None:
    fig, (left, right) = plt.subplots(1, 2)
    ax = plot.segments(as_table("pandas", TIDY_CI), "ndcg@10", ax=right)
    assert ax is right
    assert bars(left) == []
    assert len(bars(right)) == 2
    plt.close(fig)


def test_segments_errors_name_the_fix(kind: str) -> None:
    table = as_table(kind, TIDY_CI)
    with pytest.raises(rankframe.InvalidOptionError, match=r"not in the table.*ndcg@10, mrr"):
        plot.segments(table, "ndcg@5")
    with pytest.raises(rankframe.InvalidOptionError, match="not in the table"):
        plot.segments(table, "map")
    with pytest.raises(rankframe.UnknownMetricError, match="Did you mean"):
        plot.segments(table, "ndgc@10")
    with pytest.raises(rankframe.InvalidOptionError, match="'k' parameter of segments"):
        plot.segments(table, "ndcg", k=0)
    two_cuts = {c: [*v, v[0]] for c, v in TIDY_CI.items()}
    two_cuts["k"][-1] = 20
    with pytest.raises(rankframe.InvalidOptionError, match=r"several cut-offs \(ndcg@10, ndcg@20"):
        plot.segments(as_table(kind, two_cuts), "ndcg")
    wide = as_table(kind, {"segment": ["new"], "ndcg@10": [0.5], "n_queries": [3]})
    with pytest.raises(rankframe.ColumnNotFoundError, match=r"'system'.*tidy=True"):
        plot.segments(wide, "ndcg@10")


# -- distribution ------------------------------------------------------------------------

PER_QUERY: dict[str, list[Any]] = {
    "user_id": ["u1", "u1", "u2", "u2", "u3", "u3", "u4", "u4", "u5", "u5", "u6", "u6"],
    "segment": ["new", "new", "new", "new", "power", "power"] * 2,
    "system": ["model_a", "model_b"] * 6,
    "ndcg@10": [0.0, 0.12, 0.31, 0.3, None, None, 1.0, 0.95, 0.5, 0.05, 0.77, 0.64],
    "mrr": [0.0, 0.5, 1.0, 1.0, None, None, 1.0, 1.0, 0.5, 0.2, 1.0, 0.5],
}


def test_distribution_counts_equal_numpy_histogram(kind: str, tmp_path: Path) -> None:
    ax = plot.distribution(as_table(kind, PER_QUERY), "ndcg@10")
    render(ax, tmp_path)

    values = pd.DataFrame(PER_QUERY).astype({"ndcg@10": float})
    containers = bars(ax)
    assert [c.get_label() for c in containers] == ["model_a", "model_b"]
    assert legend_labels(ax) == ["model_a", "model_b"]
    for container, system in zip(containers, ["model_a", "model_b"], strict=True):
        data = values.loc[values["system"] == system, "ndcg@10"].dropna().to_numpy()
        expected, edges = np.histogram(data, bins=20, range=(0, 1))
        assert [b.get_height() for b in container] == expected.tolist()
        assert [b.get_x() for b in container] == pytest.approx(edges[:-1])
        assert sum(b.get_height() for b in container) == 5  # 6 queries, one NaN
    assert ax.get_title() == "ndcg@10 per query (1 NaN value dropped per system)"
    assert ax.get_xlabel() == "ndcg@10"


def test_distribution_takes_bin_edges_and_any_spelling(kind: str) -> None:
    edges = [0.0, 0.25, 0.5, 0.75, 1.0]
    ax = plot.distribution(as_table(kind, PER_QUERY), "recip_rank", bins=edges)
    model_a, model_b = bars(ax)
    # model_a mrr: 0, 1, 1, .5, 1 (NaN dropped); model_b: .5, 1, 1, .2, .5
    assert [b.get_height() for b in model_a] == [1, 0, 1, 3]
    assert [b.get_height() for b in model_b] == [1, 0, 2, 2]
    assert ax.get_xlabel() == "mrr"


def test_distribution_of_one_system_without_system_column(kind: str) -> None:
    data = {"query": ["a", "b", "c", "d", "e"], "precision@5": [0.2, 0.4, 0.4, 1.0, None]}
    ax = plot.distribution(as_table(kind, data), "P_5", bins=5)
    (container,) = bars(ax)
    assert [b.get_height() for b in container] == [0, 1, 2, 0, 1]
    assert legend_labels(ax) == ["precision@5"]
    assert ax.get_title() == "precision@5 per query (1 NaN value dropped)"


def test_distribution_names_unequal_nan_counts_per_system() -> None:
    data = {
        "query": ["a", "a", "b", "b"],
        "system": ["x", "y", "x", "y"],
        "map": [0.5, None, None, None],
    }
    ax = plot.distribution(as_table("pandas", data), "map")
    assert ax.get_title() == "map per query (NaN values dropped: x: 1, y: 2)"
    assert [sum(b.get_height() for b in c) for c in bars(ax)] == [1, 0]


def test_distribution_without_nan_says_nothing_about_dropping() -> None:
    data = {"query": ["a", "b"], "ndcg": [0.5, 1.0]}
    ax = plot.distribution(as_table("polars", data), "ndcg")
    assert ax.get_title() == "ndcg per query"


def test_distribution_missing_column_lists_the_columns(kind: str) -> None:
    with pytest.raises(rankframe.ColumnNotFoundError, match=r"'ndcg@5'.*'ndcg@10', 'mrr'"):
        plot.distribution(as_table(kind, PER_QUERY), "ndcg@5")


# -- metric@k ----------------------------------------------------------------------------


class StandIn:
    """Any object with ``evaluate(..., tidy=True)``: returns a hand-written tidy table."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.calls: list[tuple[list[str], dict[str, Any]]] = []

    def evaluate(self, metrics: list[str], **options: Any) -> Any:
        self.calls.append((list(metrics), options))
        data: dict[str, list[Any]] = {
            "system": ["a", "a", "a", "b", "b", "b"],
            "metric": ["recall"] * 6,
            "k": [1, 2, 3, 1, 2, 3],
            "value": [0.1, 0.3, 0.6, 0.2, 0.25, 0.5],
            "n_queries": [10] * 6,
        }
        if options.get("confidence_level") is not None:
            data["ci_low"] = [0.0, 0.2, 0.5, 0.1, 0.2, 0.4]
            data["ci_high"] = [0.2, 0.4, 0.7, 0.3, 0.3, 0.6]
        return as_table(self.kind, data)


def test_metric_at_k_draws_one_line_per_system(kind: str, tmp_path: Path) -> None:
    ev = StandIn(kind)
    ax = plot.metric_at_k(ev, "R", k_max=3, denominator="min_k")
    render(ax, tmp_path)
    assert ev.calls == [
        (["recall@1", "recall@2", "recall@3"], {"tidy": True, "denominator": "min_k"})
    ]
    line_a, line_b = ax.get_lines()
    assert line_a.get_label() == "a"
    assert line_b.get_label() == "b"
    np.testing.assert_array_equal(line_a.get_xdata(), [1, 2, 3])
    np.testing.assert_allclose(line_a.get_ydata(), [0.1, 0.3, 0.6])
    np.testing.assert_allclose(line_b.get_ydata(), [0.2, 0.25, 0.5])
    assert legend_labels(ax) == ["a", "b"]
    assert ax.get_ylim()[0] == 0
    assert ax.get_xlabel() == "k (cut-off)"
    assert ax.get_title() == "recall@k for k = 1..3"
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]


def test_metric_at_k_draws_the_interval_as_a_band(kind: str) -> None:
    ax = plot.metric_at_k(StandIn(kind), "recall", k_max=3, confidence_level=0.95)
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    # the band of system a spans ci_low..ci_high at k = 1, 2, 3
    vertices = bands[0].get_paths()[0].vertices
    for k, low, high in [(1, 0.0, 0.2), (2, 0.2, 0.4), (3, 0.5, 0.7)]:
        at_k = vertices[np.isclose(vertices[:, 0], k), 1]
        assert at_k.min() == pytest.approx(low)
        assert at_k.max() == pytest.approx(high)


@pytest.mark.parametrize(
    ("metric", "k_max", "match"),
    [
        ("ndcg@10", 20, "without a cut-off"),
        ("Rprec", 20, "r_precision takes no cut-off"),
        ("ndcg", 0, "'k_max' parameter must be a positive integer"),
        ("ndcg", 2.5, "'k_max' parameter must be a positive integer"),
    ],
)
def test_metric_at_k_rejects_bad_arguments(metric: str, k_max: Any, match: str) -> None:
    ev = StandIn("pandas")
    with pytest.raises(rankframe.InvalidOptionError, match=match):
        plot.metric_at_k(ev, metric, k_max=k_max)
    assert ev.calls == []


def test_metric_at_k_on_the_accessor_matches_hand_computed_values(
    make_frame: FrameMaker, tmp_path: Path
) -> None:
    # one query; s1 ranks the relevant items b and d 2nd and 4th, s2 ranks them 1st and 3rd
    frame = make_frame(
        {
            "query": ["q"] * 5,
            "item": ["a", "b", "c", "d", "e"],
            "s1": [5.0, 4.0, 3.0, 2.0, 1.0],
            "s2": [4.0, 5.0, 2.0, 3.0, 1.0],
            "relevant": [0, 1, 0, 1, 0],
        }
    )
    ev = frame.rank_eval(score=["s1", "s2"])
    ax = plot.metric_at_k(ev, "acc", k_max=6)
    render(ax, tmp_path, "acc.png")
    s1, s2 = ax.get_lines()
    assert legend_labels(ax) == ["s1", "s2"]
    np.testing.assert_array_equal(s1.get_xdata(), [1, 2, 3, 4, 5, 6])
    np.testing.assert_allclose(s1.get_ydata(), [0, 1, 1, 1, 1, 1])
    np.testing.assert_allclose(s2.get_ydata(), [1, 1, 1, 1, 1, 1])

    ax = plot.metric_at_k(ev, "precision", k_max=6)
    render(ax, tmp_path, "precision.png")
    s1, s2 = ax.get_lines()
    # hits@k / k; at k=6 the list of five counts its missing 6th place as non-relevant
    np.testing.assert_allclose(s1.get_ydata(), [0 / 1, 1 / 2, 1 / 3, 2 / 4, 2 / 5, 2 / 6])
    np.testing.assert_allclose(s2.get_ydata(), [1 / 1, 1 / 2, 2 / 3, 2 / 4, 2 / 5, 2 / 6])

    # one score column: the line is still labelled with its name
    ax = plot.metric_at_k(frame.rank_eval(score="s2"), "recall", k_max=3)
    (line,) = ax.get_lines()
    assert line.get_label() == "s2"
    np.testing.assert_allclose(line.get_ydata(), [1 / 2, 1 / 2, 2 / 2])


# -- without matplotlib ------------------------------------------------------------------


def test_import_without_matplotlib_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now fails
    monkeypatch.delitem(sys.modules, "rankframe.plot")
    with pytest.raises(ImportError, match=r"pip install 'rankframe\[plot\]'") as info:
        importlib.import_module("rankframe.plot")
    assert str(info.value) == "rankframe.plot needs matplotlib: pip install 'rankframe[plot]'"
    assert isinstance(info.value.__cause__, ImportError)


def test_tables_of_other_kinds_are_refused() -> None:
    with pytest.raises(
        TypeError, match=r"table from rank_eval \(pandas, polars, .*Spark\); got dict"
    ):
        plot.segments({"system": ["a"]}, "ndcg")
