"""Plots of rankframe results with matplotlib (``pip install 'rankframe[plot]'``).

Three functions, each drawing on a matplotlib ``Axes`` (a new figure when ``ax`` is None)
and returning it:

- ``metric_at_k``: a metric at every cut-off k = 1..k_max, one line per system;
- ``segments``: a metric per segment, one bar per system, with confidence intervals;
- ``distribution``: the histogram of a metric's per-query values, per system.

They read the tables of ``rank_eval.evaluate(..., tidy=True)`` and ``rank_eval.per_query``,
pandas or polars (a LazyFrame is collected, a Dask result computed). Nothing is computed
here beyond reshaping: the numbers on the plot are the numbers in the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from rankframe.adapters import results as _results
from rankframe.exceptions import ColumnNotFoundError, InvalidOptionError
from rankframe.metrics.registry import Metric, check_k, parse_metric

try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
except ImportError as error:  # the optional extra is not installed
    msg = "rankframe.plot needs matplotlib: pip install 'rankframe[plot]'"
    raise ImportError(msg) from error

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["distribution", "metric_at_k", "segments"]

_TIDY_COLUMNS = ("system", "metric", "k", "value", "n_queries", "ci_low", "ci_high")
"""The columns of a tidy ``evaluate`` table besides its ``by`` columns."""

FloatArray = npt.NDArray[np.float64]


# -- reading tables ----------------------------------------------------------------------


def _eager(table: Any) -> pd.DataFrame:
    """The table as an eager pandas frame (:func:`rankframe.adapters.results.as_pandas`)."""
    frame = _results.as_pandas(table)
    if frame is not None:
        return frame
    msg = (
        "Expected a table from rank_eval (pandas, polars, a LazyFrame, Dask, Arrow or "
        f"Spark); got {type(table).__name__}."
    )
    raise TypeError(msg)


def _floats(column: pd.Series[Any]) -> FloatArray:
    """A numeric column as float64, nulls (NA, None) as NaN."""
    numbers = pd.to_numeric(column).astype("Float64")
    return np.asarray(numbers.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)


def _require(table: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    for column in columns:
        if column not in table.columns:
            found = ", ".join(repr(str(c)) for c in table.columns)
            msg = f"Column {column!r} not found in the table; {what}. Columns: {found}."
            raise ColumnNotFoundError(msg)


def _label(values: Sequence[object]) -> str:
    return " / ".join(str(v) for v in values)


def _new_axes(ax: Axes | None) -> Axes:
    if ax is not None:
        return ax
    _, new = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    return new


# -- metric@k curves ---------------------------------------------------------------------


def metric_at_k(
    ev: Any,
    metric: str,
    k_max: int = 20,
    *,
    ax: Axes | None = None,
    **options: Any,
) -> Axes:
    """Draw a metric at every cut-off k = 1..k_max: one line per system.

    Calls ``ev.evaluate([f"{metric}@{k}" for k in range(1, k_max + 1)], tidy=True,
    **options)`` and plots ``value`` against ``k``, one labelled line per system (per
    system and segment when ``by`` is among the options). With ``confidence_level=`` the
    confidence interval is drawn as a band around each line. The y axis starts at 0.

    Parameters
    ----------
    ev
        The accessor, bound to one or several score columns:
        ``df.rank_eval(query="user_id", item="item_id", score=["model_a", "model_b"])``.
        pandas, polars (eager or lazy) and Dask accessors all work.
    metric
        A metric that takes a cut-off, without it: ``"ndcg"``, ``"acc"``, ``"P"``, ...
    k_max
        The largest cut-off drawn.
    ax
        The matplotlib Axes to draw on; ``None`` creates a new figure.
    **options
        Passed on to ``ev.evaluate``: ``by``, ``confidence_level``, ``min_relevance``, ``gain``,
        ``denominator``, ``empty``, ``ties``.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on; each line's label is its system's name.

    Raises
    ------
    InvalidOptionError
        ``metric`` already has a cut-off, takes none (``r_precision``), or ``k_max`` is not
        a positive integer.

    Examples
    --------
    One query whose relevant items are ranked 2nd and 4th: Acc@1 is 0, Acc@k is 1 from k=2.

    >>> import matplotlib
    >>> matplotlib.use("Agg")              # off-screen; leave out in a notebook
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd, rankframe
    >>> from rankframe import plot
    >>> df = pd.DataFrame({"query": "q", "item": ["a", "b", "c", "d"],
    ...                    "score": [4, 3, 2, 1], "relevant": [0, 1, 0, 1]})
    >>> ax = plot.metric_at_k(df.rank_eval, "acc", k_max=4)
    >>> ax.lines[0].get_ydata().tolist()
    [0.0, 1.0, 1.0, 1.0]
    >>> plt.close("all")
    """
    parsed = _curve_metric(metric, k_max)
    wanted = [str(replace(parsed, k=k)) for k in range(1, k_max + 1)]
    table = _eager(ev.evaluate(wanted, tidy=True, **options))
    _require(table, ["system", "metric", "k", "value"], "metric_at_k reads evaluate(tidy=True)")
    # the metric's label names the options that moved it from the defaults, as every
    # output does (``ndcg(gain=exponential)``): one metric, every row of the table
    shown = str(table["metric"].iloc[0]) if len(table) else parsed.tidy_name
    ax = _new_axes(ax)
    _curves(ax, table)
    _curve_axes(ax, shown, k_max)
    return ax


def _curve_metric(metric: str, k_max: int) -> Metric:
    """The metric of a curve over k: one that takes a cut-off, given without it; and
    ``k_max`` a positive integer."""
    parsed = parse_metric(metric)
    if parsed.k is not None:
        msg = (
            f"metric_at_k draws {parsed.name}@1 to {parsed.name}@k_max; pass the metric "
            f"without a cut-off, e.g. {parsed.name!r}, and k_max={parsed.k}. Got {metric!r}."
        )
        raise InvalidOptionError(msg)
    if not parsed.definition.takes_k:
        msg = (
            f"{parsed.name} takes no cut-off, so it has no curve over k; use a metric such as "
            "'ndcg', 'acc', 'precision', 'recall', 'map' or 'mrr'."
        )
        raise InvalidOptionError(msg)
    if isinstance(k_max, bool) or not isinstance(k_max, int) or k_max < 1:
        msg = f"The 'k_max' parameter must be a positive integer. Got {k_max!r} instead."
        raise InvalidOptionError(msg)
    return parsed


def _curves(ax: Axes, table: pd.DataFrame) -> None:
    """A line of ``value`` over ``k`` per system (and segment), labelled with its name;
    with ``ci_low`` and ``ci_high``, its interval as a band of the line's colour."""
    keys = ["system", *_segment_columns(table)]
    band = "ci_low" in table.columns and "ci_high" in table.columns
    for key, lines in table.groupby(keys, sort=False, dropna=False):
        lines = lines.sort_values("k")
        k = _floats(lines["k"])
        (line,) = ax.plot(k, _floats(lines["value"]), marker=".", label=_label(key))
        if band:
            ax.fill_between(
                k,
                _floats(lines["ci_low"]),
                _floats(lines["ci_high"]),
                color=line.get_color(),
                alpha=0.2,
                linewidth=0,
            )


def _curve_axes(ax: Axes, shown: str, k_max: int) -> None:
    """The curves' axes (integer cut-offs; values from 0), title, grid and legend."""
    ax.set_xlabel("k (cut-off)")
    ax.set_ylabel(f"{shown}@k")
    ax.set_title(f"{shown}@k for k = 1..{k_max}")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(title="system")


# -- segments ----------------------------------------------------------------------------


def _segment_columns(table: pd.DataFrame) -> list[str]:
    return [str(c) for c in table.columns if c not in _TIDY_COLUMNS]


def _text(column: pd.Series[Any]) -> pd.Series[Any]:
    """A segment column as labels: datetimes (the ``window`` of ``every=``) as their date,
    with the time of day only when some is not midnight; other values as ``str``."""
    if not pd.api.types.is_datetime64_any_dtype(column):
        return column.astype(str)
    midnight = bool((column.dt.normalize() == column).all())
    text: pd.Series[Any] = column.dt.strftime("%Y-%m-%d" if midnight else "%Y-%m-%d %H:%M")
    return text.astype(str)


def _spelling(name: str, cut: float) -> str:
    """The label of a metric (the tidy ``metric`` column: ``f1(beta=2)``) and a cut-off
    read from a table (NaN: none): ``f1@5(beta=2)``."""
    k = None if np.isnan(cut) else int(cut) if float(cut).is_integer() else float(cut)
    return str(parse_metric(name, k))


def _select(table: pd.DataFrame, metric: str, k: int | None) -> tuple[pd.DataFrame, str]:
    """The rows of one metric and cut-off, and its canonical spelling."""
    parsed = parse_metric(metric, check_k(k, "segments"))
    rows = table[table["metric"] == parsed.tidy_name]
    cut = _floats(rows["k"])
    if parsed.k is None and len(np.unique(cut)) > 1:  # NaN (no cut-off) counts once
        name = parsed.tidy_name
        choices = ", ".join(_spelling(name, c) for c in np.unique(cut))
        msg = (
            f"The table has {name} at several cut-offs ({choices}); pass k=... or "
            f"a metric with its cut-off such as '{_spelling(name, np.unique(cut)[0])}'."
        )
        raise InvalidOptionError(msg)
    selected = rows[cut == parsed.k] if parsed.k is not None else rows
    if selected.empty:
        spelled = map(_spelling, table["metric"].astype(str), _floats(table["k"]))
        msg = (
            f"Metric {str(parsed)!r} is not in the table, which has "
            f"{', '.join(dict.fromkeys(spelled))}. Pass one of these, or evaluate "
            f"{str(parsed)!r} first."
        )
        raise InvalidOptionError(msg)
    return selected, _spelling(parsed.tidy_name, _floats(selected["k"])[0])


def segments(table: Any, metric: str, *, k: int | None = None, ax: Axes | None = None) -> Axes:
    """Draw a metric per segment: grouped bars, one bar per system, with CI whiskers.

    Reads a tidy ``evaluate`` table: ``ev.evaluate(metrics, by="segment", tidy=True)``.
    The segment column is the one column that is not a tidy column (``system``,
    ``metric``, ``k``, ``value``, ``n_queries``, ``ci_low``, ``ci_high``); with several
    ``by`` columns a group is each combination, labelled ``"a / b"``, and with none all
    systems stand in one group. A ``window`` column (``every="1w"``) is such a column,
    first: one group per window (and segment), labelled by its start date. When the table
    has ``ci_low`` and ``ci_high`` (``confidence_level=0.95``), each bar gets a whisker from
    ``ci_low`` to ``ci_high``.
    Segments are in table order.

    Parameters
    ----------
    table
        A tidy table of ``evaluate(..., tidy=True)``: pandas or polars (eager or lazy).
    metric
        The metric to draw, with or without its cut-off: ``"ndcg@10"``, ``"ndcg"`` (then
        ``k=10``, or the table's only cut-off of ndcg), any alias or trec_eval spelling.
    k
        The cut-off, when ``metric`` has none and the table holds several.
    ax
        The matplotlib Axes to draw on; ``None`` creates a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on; ``ax.containers`` holds one bar container per system, labelled
        with the system's name, then the whiskers.

    Raises
    ------
    ColumnNotFoundError
        The table is not a tidy ``evaluate`` table.
    InvalidOptionError
        The metric is not in the table, or it is there at several cut-offs and no ``k`` says
        which one.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")              # off-screen; leave out in a notebook
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> from rankframe import plot
    >>> table = pd.DataFrame({
    ...     "segment": ["new", "new", "power", "power"],
    ...     "system": ["model_a", "model_b", "model_a", "model_b"],
    ...     "metric": "ndcg", "k": pd.array([10] * 4, dtype="Int64"),
    ...     "value": [0.41, 0.35, 0.62, 0.58], "n_queries": [90, 90, 60, 60],
    ...     "ci_low": [0.36, 0.30, 0.55, 0.50], "ci_high": [0.46, 0.40, 0.69, 0.66]})
    >>> ax = plot.segments(table, "ndcg@10")
    >>> [float(bar.get_height()) for bar in ax.containers[0]]     # model_a in new, power
    [0.41, 0.62]
    >>> [label.get_text() for label in ax.get_legend().get_texts()]
    ['model_a', 'model_b']
    >>> plt.close(ax.figure)
    """
    frame = _eager(table)
    _require(frame, ["system", "metric", "k", "value"], "segments reads evaluate(tidy=True)")
    rows, name = _select(frame, metric, k)
    by = _segment_columns(rows)
    grid = _Grid.of(rows, by)
    ax = _new_axes(ax)
    _bars(ax, grid)
    if grid.has_ci:
        _whiskers(ax, grid)
    _segment_axes(ax, grid, name, by)
    return ax


@dataclass(frozen=True)
class _Grid:
    """The rows of one metric as segments x systems: the groups (segments, in table order,
    labelled ``"a / b"``), the systems, and each row's cell."""

    rows: pd.DataFrame
    groups: list[str]
    systems: list[str]
    group: npt.NDArray[np.int64]
    system: npt.NDArray[np.int64]

    @classmethod
    def of(cls, rows: pd.DataFrame, by: list[str]) -> _Grid:
        group_keys = (
            pd.DataFrame({c: _text(rows[c]) for c in by}).agg(" / ".join, axis=1)
            if by
            else pd.Series("all queries", index=rows.index)
        )
        groups = list(dict.fromkeys(group_keys))
        systems = list(dict.fromkeys(rows["system"].astype(str)))
        group = pd.Categorical(group_keys, categories=groups).codes
        system = pd.Categorical(rows["system"].astype(str), categories=systems).codes
        return cls(rows, groups, systems, np.asarray(group), np.asarray(system))

    @property
    def has_ci(self) -> bool:
        return "ci_low" in self.rows.columns and "ci_high" in self.rows.columns

    @property
    def width(self) -> float:
        """A bar's width: the systems share 0.8 of each group's unit."""
        return 0.8 / len(self.systems)

    def cells(self, column: str) -> FloatArray:
        """segments x systems; NaN where the table has no row."""
        cells = np.full((len(self.groups), len(self.systems)), np.nan)
        cells[self.group, self.system] = _floats(self.rows[column])
        return cells

    def positions(self, j: int) -> FloatArray:
        """The x of system ``j``'s bar in each group."""
        x = np.arange(len(self.groups), dtype=np.float64)
        return x - 0.4 + self.width * (j + 0.5)


def _bars(ax: Axes, grid: _Grid) -> None:
    """A bar per system in each segment's group, labelled with the system's name."""
    value = grid.cells("value")
    for j, label in enumerate(grid.systems):
        ax.bar(grid.positions(j), value[:, j], grid.width, label=label)


def _whiskers(ax: Axes, grid: _Grid) -> None:
    """Each bar's whisker from ``ci_low`` to ``ci_high`` (none where either is null)."""
    ci_low, ci_high = grid.cells("ci_low"), grid.cells("ci_high")
    for j in range(len(grid.systems)):
        position = grid.positions(j)
        low, high = ci_low[:, j], ci_high[:, j]
        shown = ~(np.isnan(low) | np.isnan(high))
        # drawn around the interval's midpoint, so the whisker spans exactly low..high
        ax.errorbar(
            position[shown],
            ((low + high) / 2)[shown],
            yerr=((high - low) / 2)[shown],
            fmt="none",
            ecolor="black",
            elinewidth=1,
            capsize=3,
        )


def _segment_axes(ax: Axes, grid: _Grid, name: str, by: list[str]) -> None:
    """The groups' ticks (with their number of queries when the systems agree on it), the
    axes' labels, the title, headroom for the legend in one row above the bars, the grid."""
    tick_labels = grid.groups
    if "n_queries" in grid.rows.columns:
        n = grid.cells("n_queries")
        same = np.all((n == n[:, :1]) | np.isnan(n), axis=1)
        tick_labels = [
            f"{g}\n(n={int(np.nanmax(counts))})" if ok and not np.isnan(counts).all() else g
            for g, counts, ok in zip(grid.groups, n, same, strict=True)
        ]
    ax.set_xticks(np.arange(len(grid.groups), dtype=np.float64), tick_labels)
    ax.set_xlabel(" / ".join(by) if by else "")
    ax.set_ylabel(name)
    title = f"{name} by {' / '.join(by)}" if by else name
    if grid.has_ci:
        title += " (whiskers: confidence interval)"
    ax.set_title(title)
    _, top = ax.get_ylim()
    ax.set_ylim(0, top * 1.15)  # headroom for the legend, in one row above the bars
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper left", ncols=min(len(grid.systems), 4), fontsize="small")


# -- per-query distribution --------------------------------------------------------------


def distribution(
    per_query_table: Any,
    metric: str,
    *,
    ax: Axes | None = None,
    bins: int | Sequence[float] = 20,
) -> Axes:
    """Draw the histogram of a metric's per-query values, one per system.

    Reads ``ev.per_query(metrics)``. With a ``system`` column (several score columns) each
    system gets its own histogram, overlaid with transparency, on the same bins; without
    one, the table's single system is labelled with the metric's column name. NaN values
    (queries without relevant items under ``empty="nan"``) are dropped and their count is
    given in the title.

    Parameters
    ----------
    per_query_table
        A table of ``per_query``: pandas or polars (eager or lazy).
    metric
        The metric column, in any spelling: ``"ndcg@10"``, ``"ndcg_cut_10"``.
    ax
        The matplotlib Axes to draw on; ``None`` creates a new figure.
    bins
        The number of equal bins over [0, 1] (widened to the data if values lie outside),
        or the bin edges.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on; ``ax.containers`` holds one bar container per system, labelled
        with the system's name, whose bar heights are the counts of queries.

    Raises
    ------
    ColumnNotFoundError
        The table has no column for ``metric``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")              # off-screen; leave out in a notebook
    >>> import matplotlib.pyplot as plt
    >>> import polars as pl
    >>> from rankframe import plot
    >>> table = pl.DataFrame({"query": ["q1", "q2", "q3", "q4"],
    ...                       "ndcg@10": [0.2, 0.9, None, 1.0]})
    >>> ax = plot.distribution(table, "ndcg_cut_10", bins=2)
    >>> [float(bar.get_height()) for bar in ax.containers[0]]
    [1.0, 2.0]
    >>> ax.get_title()
    'ndcg@10 per query (1 NaN value dropped)'
    >>> plt.close(ax.figure)
    """
    frame = _eager(per_query_table)
    column = _metric_column(frame, metric)
    names, kept, dropped = _per_system(frame, column)
    edges = _bin_edges(kept, bins)
    ax = _new_axes(ax)
    _histograms(ax, names, kept, edges)
    ax.set_title(_distribution_title(column, names, dropped))
    ax.set_xlabel(column)
    ax.set_ylabel("queries")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(axis="y", alpha=0.3)
    ax.legend(title="system" if len(names) > 1 else None)
    return ax


def _metric_column(frame: pd.DataFrame, metric: str) -> str:
    """The per-query table's column of ``metric`` (its canonical spelling)."""
    column = str(parse_metric(metric))
    if column not in frame.columns:
        metric_columns = [str(c) for c in frame.columns if c not in ("system",)]
        found = ", ".join(repr(c) for c in metric_columns)
        msg = (
            f"Column {column!r} (metric {metric!r}) not found in the per-query table; "
            f"compute it with ev.per_query([{column!r}, ...]). Columns: {found}."
        )
        raise ColumnNotFoundError(msg)
    return column


def _per_system(frame: pd.DataFrame, column: str) -> tuple[list[str], list[FloatArray], list[int]]:
    """Per system (the ``system`` column's, in table order; else the column itself): its
    values without NaN, and how many NaN values were dropped."""
    values = _floats(frame[column])
    if "system" in frame.columns:
        systems = frame["system"].astype(str).to_numpy()
        names = list(dict.fromkeys(systems))
        groups = [values[systems == s] for s in names]
    else:
        names, groups = [column], [values]
    kept = [g[~np.isnan(g)] for g in groups]
    dropped = [len(g) - len(v) for g, v in zip(groups, kept, strict=True)]
    return names, kept, dropped


def _bin_edges(kept: list[FloatArray], bins: int | Sequence[float]) -> FloatArray:
    """The edges of ``bins`` equal bins over [0, 1], widened to the values outside it; or
    the edges given."""
    if isinstance(bins, int | np.integer):
        present = np.concatenate(kept)
        low = min(0.0, float(present.min())) if len(present) else 0.0
        high = max(1.0, float(present.max())) if len(present) else 1.0
        return np.histogram_bin_edges(present, bins=int(bins), range=(low, high))
    return np.asarray(bins, dtype=np.float64)


def _histograms(ax: Axes, names: list[str], kept: list[FloatArray], edges: FloatArray) -> None:
    """A histogram per system on the same bins (see-through when there are several), its
    bars the counts of queries, labelled with the system's name."""
    several = len(names) > 1
    for name, data in zip(names, kept, strict=True):
        heights, _ = np.histogram(data, bins=edges)
        ax.bar(
            edges[:-1],
            heights,
            width=np.diff(edges),
            align="edge",
            alpha=0.5 if several else 0.8,
            label=name,
            edgecolor="white",
            linewidth=0.5,
        )


def _distribution_title(column: str, names: list[str], dropped: list[int]) -> str:
    """``ndcg@10 per query``, and the NaN values dropped: one count when every system
    dropped as many, else each system's."""
    title = f"{column} per query"
    if any(dropped):
        if len(set(dropped)) == 1:
            n = dropped[0]
            each = " per system" if len(names) > 1 else ""
            title += f" ({n} NaN value{'s' if n != 1 else ''} dropped{each})"
        else:
            counts = ", ".join(f"{s}: {n}" for s, n in zip(names, dropped, strict=True))
            title += f" (NaN values dropped: {counts})"
    return title
