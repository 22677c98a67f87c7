"""One colour per system, the same in the report and the dashboard.

The baseline always takes the first colour of the palette; the other systems take the next
ones in the order given (the score columns' order), so a system keeps its colour from chart
to chart, and from the report to the dashboard of the same score columns and baseline.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["PALETTE", "system_colours"]

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def system_colours(systems: Sequence[str], baseline: str | None = None) -> dict[str, str]:
    """Each system's colour: the baseline (default: the first system) the palette's first,
    the others the next ones in their order.

    >>> system_colours(["new", "old"], baseline="old")
    {'old': '#1f77b4', 'new': '#d62728'}
    >>> system_colours(["new", "old"])
    {'new': '#1f77b4', 'old': '#d62728'}
    """
    names = list(dict.fromkeys(systems))
    first = baseline if baseline in names else (names[0] if names else None)
    ordered = ([first] if first is not None else []) + [s for s in names if s != first]
    return {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(ordered)}
