"""Charts as inline SVG, written by hand: no script, no font or style from elsewhere.

Every text is escaped (``esc``); every chart has a ``<title>`` and draws its marks as
plain elements, so it reads without JavaScript and prints as it shows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

from rankframe.report._colours import PALETTE

WIDTH, HEIGHT = 460, 250
LEFT, RIGHT, TOP, BOTTOM = 48, 110, 24, 40
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM  # a line chart's plot area


def esc(value: object) -> str:
    """A user string as text of HTML or SVG (quotes too: safe in attributes)."""
    return escape(str(value), quote=True)


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _fmt(v: float) -> str:
    return f"{v:.4f}"


def _nice_top(top: float) -> float:
    if not math.isfinite(top) or top <= 0:
        return 1.0
    if top <= 1.0:
        return 1.0 if top > 0.5 else math.ceil(top * 10) / 10
    magnitude = 10.0 ** math.floor(math.log10(top))
    return math.ceil(top / magnitude) * magnitude


def _frame(title: str, y_top: float, y_bottom: float = 0.0) -> list[str]:
    """The SVG's opening, its title and the y axis with 5 ticks."""
    parts = [
        f'<svg class="chart" role="img" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}">',
        f"<title>{esc(title)}</title>",
        f'<text x="{LEFT}" y="14" class="ct">{esc(title)}</text>',
    ]
    plot_h = HEIGHT - TOP - BOTTOM
    for i in range(5):
        v = y_bottom + (y_top - y_bottom) * i / 4
        y = TOP + plot_h - plot_h * i / 4
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
        )
        parts.append(
            f'<text x="{LEFT - 4}" y="{y + 4:.1f}" class="yt">'
            f"{v:.{_tick_digits(y_top - y_bottom)}f}</text>"
        )
    return parts


def _tick_digits(span: float) -> int:
    """Decimals that tell the 5 ticks over ``span`` apart (2 for a span of 1)."""
    step = span / 4
    if not math.isfinite(step) or step <= 0:
        return 2
    return max(2, min(6, 1 - math.floor(math.log10(step))))


def fitted_range(values: Sequence[float]) -> tuple[float, float]:
    """A y range that fits ``values``: 5% of their spread added on each side, the ends
    rounded outwards to a tenth of the spread's magnitude (``[0.58, 0.72]`` for values from
    0.59 to 0.71); a single value gets ±5% of itself (±0.05 at 0).

    0.59..0.71: a spread of 0.12, 0.006 more on each side, hundredths outwards; 0..1: 0.05
    more, tenths outwards; 0.5 alone: ±0.025.

    >>> [tuple(round(v, 6) for v in fitted_range(values))
    ...  for values in ([0.59, 0.71], [0.0, 1.0], [0.5])]
    [(0.58, 0.72), (-0.1, 1.1), (0.475, 0.525)]
    """
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    spread = high - low
    if spread <= 0:
        pad = abs(low) * 0.05 or 0.05
        return low - pad, high + pad
    low, high = low - spread * 0.05, high + spread * 0.05
    unit = 10.0 ** math.floor(math.log10(high - low)) / 10
    return math.floor(low / unit) * unit, math.ceil(high / unit) * unit


def _legend(names: Sequence[str], colours: Mapping[str, str] | None = None) -> list[str]:
    parts = []
    for i, name in enumerate(names):
        fill = colours[name] if colours and name in colours else color(i)
        y = TOP + 14 * i + 6
        x = WIDTH - RIGHT + 8
        parts.append(f'<rect x="{x}" y="{y - 8}" width="10" height="10" fill="{fill}"/>')
        parts.append(f'<text x="{x + 14}" y="{y + 1}" class="lg">{esc(name)}</text>')
    return parts


def line_chart(
    title: str,
    x_labels: Sequence[str],
    series: Mapping[str, Sequence[float]],
    bands: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    x_title: str = "",
    *,
    fit: bool = False,
    colours: Mapping[str, str] | None = None,
    tips: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """One line per series over evenly spaced x positions; ``bands``: each series'
    interval as a shaded band between its lows and highs (a bar where a point stands
    alone between missing ones).

    The y axis starts at 0 and reaches the values' nice top (1 for shares), the bands
    clipped to it; ``fit=True`` scales it to the data instead: from just below the lowest
    value or interval bound to just above the highest (:func:`fitted_range`), nothing
    clipped, so that a change of a point or two and the bands show. ``colours``: each
    series' colour (``_colours.system_colours``; default: the palette in order); ``tips``:
    each point's tooltip (its ``<title>``; default: the series, x label and value)."""
    bottom, top = _y_range(series, bands or {}, fit=fit)
    scale = _Scale(max(len(x_labels), 1), bottom, top)
    parts = _frame(title, top, bottom)
    parts += _x_axis(x_labels, x_title, scale)
    for s, (name, points) in enumerate(series.items()):
        c = colours[name] if colours and name in colours else color(s)
        if bands and name in bands:
            parts += _band(name, bands[name], c, scale)
        point_tips = (
            tips[name]
            if tips and name in tips
            else [f"{name} {label}: {_fmt(v)}" for label, v in zip(x_labels, points, strict=False)]
        )
        parts += _line(points, point_tips, c, scale)
    parts += _legend(list(series), colours)
    parts.append("</svg>")
    return "".join(parts)


def _y_range(
    series: Mapping[str, Sequence[float]],
    bands: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    fit: bool,
) -> tuple[float, float]:
    """The y axis of :func:`line_chart`: from 0 to the values' nice top, or (``fit``) the
    :func:`fitted_range` of the values and the bands."""
    values = [v for s in series.values() for v in s if math.isfinite(v)]
    spans = [v for lo, hi in bands.values() for v in (*lo, *hi) if math.isfinite(v)]
    if fit:
        return fitted_range([*values, *spans])
    # a band reaches the top of the axis, no further than 1 when every value is at most 1
    # (a t interval of a share may pass 1; the band is clipped there)
    cap = 1.0 if max(values, default=0.0) <= 1.0 else math.inf
    return 0.0, _nice_top(max([*values, *(min(v, cap) for v in spans)], default=1.0))


@dataclass(frozen=True)
class _Scale:
    """Where values go on a chart's plot area: ``n`` evenly spaced x positions, y from
    ``bottom`` to ``top`` (values beyond them at the edge)."""

    n: int
    bottom: float
    top: float

    def x(self, i: int) -> float:
        return LEFT + (PLOT_W * (i + 0.5) / self.n)

    def y(self, v: float) -> float:
        bottom, top = self.bottom, self.top
        return TOP + PLOT_H - PLOT_H * (min(max(v, bottom), top) - bottom) / (top - bottom)


def _x_axis(x_labels: Sequence[str], x_title: str, scale: _Scale) -> list[str]:
    """The x labels, as many as fit side by side (about 6.5 px a character at 11 px), and
    the axis's title."""
    parts = []
    widest = max((len(label) for label in x_labels), default=1) * 6.5 + 10
    step = max(1, math.ceil(scale.n / max(1, int(PLOT_W // widest))))
    for i, label in enumerate(x_labels):
        if i % step == 0:
            parts.append(
                f'<text x="{scale.x(i):.1f}" y="{HEIGHT - BOTTOM + 14}" class="xt">'
                f"{esc(label)}</text>"
            )
    if x_title:
        parts.append(
            f'<text x="{LEFT + PLOT_W / 2:.1f}" y="{HEIGHT - 6}" class="xt">{esc(x_title)}</text>'
        )
    return parts


def _band(
    name: str, band: tuple[Sequence[float], Sequence[float]], c: str, scale: _Scale
) -> list[str]:
    """A series' interval: a shaded area over each run of known bounds, a bar where a
    point stands alone between missing ones."""
    lows, highs = band
    x, y = scale.x, scale.y
    parts = []
    known = [math.isfinite(lo) and math.isfinite(hi) for lo, hi in zip(lows, highs, strict=True)]
    for run in _runs(known):
        if len(run) == 1:  # a window alone: its interval as a bar
            i = run[0]
            parts.append(
                f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" '
                f'y1="{y(lows[i]):.1f}" y2="{y(highs[i]):.1f}" '
                f'stroke="{c}" class="band"/>'
            )
            continue
        edge = [f"{x(i):.1f},{y(highs[i]):.1f}" for i in run]
        edge += [f"{x(i):.1f},{y(lows[i]):.1f}" for i in reversed(run)]
        parts.append(
            f'<polygon points="{" ".join(edge)}" fill="{c}" '
            f'class="area"><title>{esc(name)}: interval</title></polygon>'
        )
    return parts


def _line(points: Sequence[float], tips: Sequence[str], c: str, scale: _Scale) -> list[str]:
    """A series' line through its known points, and a dot per point with its tooltip."""
    x, y = scale.x, scale.y
    parts = []
    coords = [f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(points) if math.isfinite(v)]
    if coords:
        parts.append(
            f'<polyline points="{" ".join(coords)}" fill="none" stroke="{c}" stroke-width="2"/>'
        )
    for i, v in enumerate(points):
        if math.isfinite(v):
            parts.append(
                f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" fill="{c}">'
                f"<title>{esc(tips[i])}</title></circle>"
            )
    return parts


def _runs(known: Sequence[bool]) -> list[list[int]]:
    """The runs of consecutive positions where ``known`` holds."""
    runs: list[list[int]] = []
    previous = False
    for i, ok in enumerate(known):
        if ok:
            if previous:
                runs[-1].append(i)
            else:
                runs.append([i])
        previous = ok
    return runs


def histogram(
    title: str,
    edges: Sequence[float],
    counts: Mapping[str, Sequence[int]],
    quartiles: Mapping[str, Sequence[float]],
    *,
    colours: Mapping[str, str] | None = None,
) -> str:
    """Grouped bars of each system's per-query values over shared bins, and a box (the
    quartiles, whiskers at the minimum and maximum) per system under them; ``colours`` as
    :func:`line_chart`'s."""
    names = list(counts)

    def color(s: int) -> str:
        return colours[names[s]] if colours and names[s] in colours else PALETTE[s % len(PALETTE)]

    n_bins = len(edges) - 1
    shares = {k: [c / max(sum(v), 1) for c in v] for k, v in counts.items()}
    top = _nice_top(max((s for v in shares.values() for s in v), default=1.0))
    box_h = 12 * len(names)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM - box_h - 8
    lo, hi = edges[0], edges[-1]
    span = (hi - lo) or 1.0

    def x(v: float) -> float:
        return LEFT + plot_w * (v - lo) / span

    parts = [
        f'<svg class="chart" role="img" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}">',
        f"<title>{esc(title)}</title>",
        f'<text x="{LEFT}" y="14" class="ct">{esc(title)}</text>',
    ]
    for i in range(5):
        v = top * i / 4
        yy = TOP + plot_h - plot_h * i / 4
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{yy:.1f}" y2="{yy:.1f}" class="grid"/>'
        )
        parts.append(f'<text x="{LEFT - 4}" y="{yy + 4:.1f}" class="yt">{v:.0%}</text>')
    bar = plot_w / n_bins / max(len(names), 1)
    for s, name in enumerate(names):
        for b, share in enumerate(shares[name]):
            if share <= 0:
                continue
            h = plot_h * min(share, top) / top
            parts.append(
                f'<rect x="{x(edges[b]) + s * bar:.1f}" y="{TOP + plot_h - h:.1f}" '
                f'width="{max(bar - 0.5, 0.5):.1f}" height="{h:.1f}" fill="{color(s)}">'
                f"<title>{esc(name)} [{edges[b]:.2f}, {edges[b + 1]:.2f}): "
                f"{counts[name][b]} queries</title></rect>"
            )
    base = TOP + plot_h + 8
    for s, name in enumerate(names):
        q = quartiles[name]
        if not all(math.isfinite(v) for v in q):
            continue
        cy = base + 12 * s + 6
        c = color(s)
        parts.append(
            f'<line x1="{x(q[0]):.1f}" x2="{x(q[4]):.1f}" y1="{cy}" y2="{cy}" stroke="{c}"/>'
        )
        parts.append(
            f'<rect x="{x(q[1]):.1f}" y="{cy - 4}" '
            f'width="{max(x(q[3]) - x(q[1]), 1):.1f}" height="8" fill="{c}" '
            f'fill-opacity="0.35" stroke="{c}"><title>{esc(name)}: quartiles '
            f"{_fmt(q[1])}, {_fmt(q[2])}, {_fmt(q[3])}</title></rect>"
        )
        parts.append(
            f'<line x1="{x(q[2]):.1f}" x2="{x(q[2]):.1f}" y1="{cy - 4}" '
            f'y2="{cy + 4}" stroke="{c}" stroke-width="2"/>'
        )
    for v in (lo, (lo + hi) / 2, hi):
        parts.append(f'<text x="{x(v):.1f}" y="{HEIGHT - 8}" class="xt">{v:.2f}</text>')
    parts += _legend(names, colours)
    parts.append("</svg>")
    return "".join(parts)


def stacked_bar(wins: int, ties: int, losses: int) -> str:
    """A small bar of win/tie/loss shares."""
    total = max(wins + ties + losses, 1)
    width = 120
    parts = [
        f'<svg class="wtl" role="img" width="{width}" '
        f'height="10" viewBox="0 0 {width} 10"><title>{wins} wins, {ties} ties, '
        f"{losses} losses</title>"
    ]
    x = 0.0
    for count, fill in ((wins, "#2ca02c"), (ties, "#bbbbbb"), (losses, "#d62728")):
        w = width * count / total
        if w > 0:
            parts.append(f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="10" fill="{fill}"/>')
        x += w
    parts.append("</svg>")
    return "".join(parts)
