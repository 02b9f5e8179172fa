"""The dice chart: how often each face came up, as a small inline SVG.

Drawn here rather than by a plotting library: the chart is six bars, a line
and a band, and these few lines of string formatting draw it in well under a
millisecond, with nothing to install or import on a Pi (matplotlib alone
takes seconds and tens of megabytes to load there, and draws pictures of a
fixed size). The SVG has a ``viewBox`` and no fixed size, so the page scales
it to a phone's width or a TV's, sharp at any size, and its colours come
from the pages' style sheet (with plain fallbacks in the SVG itself).

What it shows: one bar per face, its count written above it; the count a
fair die gives each face (a dashed line) and the range that 95% of fair dice
keep each face's count in (a shaded band; ``tablepi.stats.fair_band``). A bar
outside the band is drawn in the warning colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

from tablepi.stats import FACES, fair_band

BAR_SHARE = 0.62  # of each face's slot


@dataclass(frozen=True)
class Layout:
    """The drawing's own units (the page gives it its size) and its type sizes."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    count_size: int
    face_size: int
    ticks: bool  # the scale's numbers on the left


# For a page: the scale on the left. Compact, for the TV's end of a game: no
# scale, and bigger figures for the same width.
FULL = Layout(480, 300, 46, 10, 26, 38, 15, 20, True)
COMPACT = Layout(300, 210, 6, 6, 28, 34, 20, 24, False)


def _step(top: float, ticks: int = 4) -> int:
    """A round step (1, 2 or 5 times a power of ten) giving about ``ticks`` gridlines up to ``top``."""
    raw = max(top / ticks, 1.0)
    power = 10 ** math.floor(math.log10(raw))
    return next(int(m * power) for m in (1, 2, 5, 10) if m * power >= raw)


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def face_chart(
    counts: Sequence[int], title: str = "", chart_id: str = "face-chart", layout: Layout = FULL
) -> Markup:
    """The chart of ``counts`` (how many dice showed 1..6) as SVG markup."""
    if len(counts) != FACES or any(type(c) is not int or c < 0 for c in counts):
        raise ValueError(f"counts are six whole numbers, not {counts!r}")
    n = sum(counts)
    expected, low, high = fair_band(n)
    step = _step(max(max(counts), high, 1))
    y_max = step * math.ceil(max(max(counts), high, 1) / step)
    width, left, right = layout.width, layout.left, layout.right
    plot_w, plot_h = width - left - right, layout.height - layout.top - layout.bottom
    base = layout.top + plot_h

    def y(value: float) -> float:
        return base - value * plot_h / y_max

    words = ", ".join(f"{face}: {count:,}" for face, count in enumerate(counts, start=1))
    described = f"{title}. " if title else ""
    described += f"Faces of {n:,} dice: {words}."
    if n:
        described += (
            f" A fair die gives {_num(expected)} of each; 95% of fair dice stay within {low:.0f}-{high:.0f}."
        )
    out = [
        f'<svg class="face-chart" id="{escape(chart_id)}" viewBox="0 0 {width} {layout.height}" role="img" '
        f'aria-labelledby="{escape(chart_id)}-title" preserveAspectRatio="xMidYMid meet" '
        f'xmlns="http://www.w3.org/2000/svg" data-dice="{n}" font-family="system-ui, sans-serif">',
        f'<title id="{escape(chart_id)}-title">{escape(described)}</title>',
    ]
    for tick in range(0, y_max + 1, step):
        out.append(
            f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y(tick):.2f}" y2="{y(tick):.2f}" '
            'stroke="#2f3a63" stroke-width="1"/>'
        )
        if layout.ticks:
            out.append(
                f'<text class="tick" x="{left - 6}" y="{y(tick) + 4:.2f}" text-anchor="end" font-size="12" '
                f'fill="#a9b2d6">{tick:,}</text>'
            )
    if n:
        out.append(
            f'<rect class="band" x="{left}" y="{y(high):.2f}" width="{plot_w}" '
            f'height="{y(low) - y(high):.2f}" '
            f'fill="#ffd23f" fill-opacity="0.16" data-low="{low:.2f}" data-high="{high:.2f}"/>'
        )
    slot = plot_w / FACES
    bar_w = slot * BAR_SHARE
    for i, count in enumerate(counts):
        x = left + i * slot + (slot - bar_w) / 2
        top = round(y(count), 2)  # the bar stands exactly on the baseline
        outside = bool(n) and not low <= count <= high
        middle = x + bar_w / 2
        out.append(
            f'<rect class="bar{" out" if outside else ""}" x="{x:.2f}" y="{top:.2f}" width="{bar_w:.2f}" '
            f'height="{base - top:.2f}" fill="{"#ff5d73" if outside else "#3fa7ff"}" rx="3" '
            f'data-face="{i + 1}" data-count="{count}"/>'
            f'<text class="count" x="{middle:.2f}" y="{min(top, base) - 6:.2f}" text-anchor="middle" '
            f'font-size="{layout.count_size}" font-weight="700" fill="#f3f5ff">{count:,}</text>'
            f'<text class="face" x="{middle:.2f}" y="{base + layout.face_size + 6}" text-anchor="middle" '
            f'font-size="{layout.face_size}" font-weight="800" fill="#f3f5ff">{i + 1}</text>'
        )
    if n:
        out.append(
            f'<line class="fair" x1="{left}" x2="{width - right}" '
            f'y1="{y(expected):.2f}" y2="{y(expected):.2f}" '
            f'stroke="#ffd23f" stroke-width="2.5" stroke-dasharray="8 6" data-expected="{expected:.2f}"/>'
        )
    out.append(
        f'<line class="axis" x1="{left}" x2="{width - right}" y1="{base}" y2="{base}" stroke="#a9b2d6"/>'
    )
    out.append("</svg>")
    return Markup("".join(out))
