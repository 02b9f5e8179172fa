"""What the 128x64 OLED shows: one function per screen.

Each function draws on a :class:`Painter` (a thin wrapper around PIL's
ImageDraw that remembers the box of everything drawn, so tests can check that
nothing leaves the screen). Text that would not fit is shortened with an
ellipsis rather than clipped mid-letter.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from PIL import ImageDraw, ImageFont

WHITE = 255
BLACK = 0

# Pip centres on a 3x3 grid (column, row), the usual layouts of a d6.
PIPS = {
    1: [(1, 1)],
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (2, 0), (0, 2), (2, 2)],
    5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
    6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)],
}


@lru_cache(maxsize=16)
def font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow built without FreeType: one bitmap size
        return ImageFont.load_default()


class Painter:
    """Draws on an ImageDraw and records the bounding box of every element."""

    def __init__(
        self, draw: ImageDraw.ImageDraw, size: tuple[int, int], translate: Callable[[str], str] | None = None
    ):
        self.draw = draw
        # The screen's words in the table's language (see TableDisplay.translate).
        self.tr: Callable[[str], str] = translate or (lambda text: text)
        self.width, self.height = size
        self.boxes: list[tuple[int, int, int, int]] = []
        # Every text asked for that had to be shortened to fit: (asked, drawn).
        self.shortened: list[tuple[str, str]] = []
        # Every text drawn, with its font size.
        self.texts: list[tuple[str, int]] = []

    def _box(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.boxes.append((math.floor(x0), math.floor(y0), math.ceil(x1), math.ceil(y1)))

    def text_width(self, text: str, size: int) -> float:
        return self.draw.textlength(text, font=font(size))

    def fit(self, text: str, size: int, width: float) -> str:
        """``text``, shortened with an ellipsis until it is at most ``width`` wide."""
        if self.text_width(text, size) <= width:
            return text
        asked = text
        while text and self.text_width(text + "…", size) > width:
            text = text[:-1]
        shown = text.rstrip() + "…" if text else ""
        self.shortened.append((asked, shown))
        return shown

    def text(
        self, xy: tuple[float, float], text: str, size: int, fill: int = WHITE, anchor: str = "la"
    ) -> None:
        if not text:
            return
        f = font(size)
        self.texts.append((text, size))
        self.draw.text(xy, text, font=f, fill=fill, anchor=anchor)
        bbox = self.draw.textbbox(xy, text, font=f, anchor=anchor)
        self._box(*bbox)

    def centred(self, y: float, text: str, size: int, fill: int = WHITE, width: float | None = None) -> None:
        text = self.fit(text, size, width or self.width - 2)
        self.text((self.width / 2, y), text, size, fill, anchor="ma")

    def rect(self, box, fill=None, outline=None, radius: int = 0) -> None:
        if radius:
            self.draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline)
        else:
            self.draw.rectangle(box, fill=fill, outline=outline)
        self._box(*box)

    def ellipse(self, box, fill=None, outline=None) -> None:
        self.draw.ellipse(box, fill=fill, outline=outline)
        self._box(*box)

    def line(self, points, fill=WHITE, width: int = 1) -> None:
        self.draw.line(points, fill=fill, width=width)
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        pad = (width - 1) / 2
        self._box(min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)

    def polygon(self, points, fill=None, outline=None) -> None:
        self.draw.polygon(points, fill=fill, outline=outline)
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        self._box(min(xs), min(ys), max(xs), max(ys))


# --- screens ------------------------------------------------------------------


def start(p: Painter, address: str, pin: str, camera: str = "") -> None:
    """The address and PIN to join with; under them, which camera reads the dice."""
    p.centred(0, "TablePi", 14)
    p.line([(0, 17), (p.width - 1, 17)])
    p.centred(20, p.tr(address), 10)
    p.centred(32, f"PIN {pin}", 18)
    if camera:
        p.centred(53, p.tr(camera), 9)


BADGE_WIDTH, BADGE_HEIGHT = 15, 11


def badge(p: Painter, text: str) -> None:
    """A small inverted mark in the top right corner, over whatever is there:
    ``text`` (a letter or two, "V" for the venue) struck through, saying a
    link is down."""
    x1, y1 = p.width - 1, BADGE_HEIGHT - 1
    x0 = x1 - BADGE_WIDTH + 1
    p.rect((x0 - 1, 0, x1, y1 + 1), fill=BLACK)  # a gap between the mark and what it covers
    p.rect((x0, 0, x1, y1), fill=WHITE)
    p.text(((x0 + x1) / 2 + 0.5, y1 / 2 + 1), text[:2], 10, fill=BLACK, anchor="mm")
    p.line([(x0 + 1, y1 - 1), (x1 - 1, 1)], fill=BLACK)


def format_clock(seconds: float) -> str:
    """M:SS, counting up to the next whole second so 0:00 means time is up."""
    whole = max(0, math.ceil(seconds - 1e-9))
    return f"{whole // 60}:{whole % 60:02d}"


def countdown(p: Painter, seconds: float, label: str = "") -> None:
    text = format_clock(seconds)
    if label:
        p.centred(0, p.tr(label), 10)
    size = 40
    while size > 16 and p.text_width(text, size) > p.width - 4:
        size -= 2
    p.text((p.width / 2, 40 if label else 34), text, size, anchor="mm")


def coin(p: Painter, result: str) -> None:
    if result == "alien":
        _alien(p, 2, 2)
        word = p.tr("ALIEN")
    elif result == "human":
        _human(p, 2, 2)
        word = p.tr("HUMAN")
    else:
        raise ValueError(f"coin result must be 'alien' or 'human', not {result!r}")
    size = 16
    while size > 9 and p.text_width(word, size) > p.width - 66:
        size -= 1
    p.text((96, 32), word, size, anchor="mm")


def _alien(p: Painter, x: int, y: int) -> None:
    # A classic grey's head: wide dome, narrow chin, big slanted black eyes.
    head = [
        (x + 30, y + 58),
        (x + 14, y + 40),
        (x + 8, y + 22),
        (x + 14, y + 8),
        (x + 30, y + 3),
        (x + 46, y + 8),
        (x + 52, y + 22),
        (x + 46, y + 40),
    ]
    p.polygon(head, fill=WHITE)
    p.polygon([(x + 14, y + 24), (x + 27, y + 30), (x + 25, y + 38), (x + 17, y + 34)], fill=BLACK)
    p.polygon([(x + 46, y + 24), (x + 33, y + 30), (x + 35, y + 38), (x + 43, y + 34)], fill=BLACK)
    p.line([(x + 27, y + 48), (x + 33, y + 48)], fill=BLACK)
    p.line([(x + 22, y + 6), (x + 16, y + 0)], width=2)
    p.line([(x + 38, y + 6), (x + 44, y + 0)], width=2)


def _human(p: Painter, x: int, y: int) -> None:
    # Head and shoulders with a face, drawn as outlines so it reads as unlike the alien.
    p.ellipse((x + 16, y + 2, x + 44, y + 32), outline=WHITE)
    p.ellipse((x + 23, y + 12, x + 27, y + 16), fill=WHITE)
    p.ellipse((x + 33, y + 12, x + 37, y + 16), fill=WHITE)
    p.draw.arc((x + 23, y + 14, x + 37, y + 26), 20, 160, fill=WHITE)
    p.polygon(
        [
            (x + 6, y + 60),
            (x + 9, y + 45),
            (x + 19, y + 38),
            (x + 41, y + 38),
            (x + 51, y + 45),
            (x + 54, y + 60),
        ],
        fill=WHITE,
    )
    p.line([(x + 30, y + 32), (x + 30, y + 36)])


def die(p: Painter, x: int, y: int, size: int, value: int | None) -> None:
    p.rect((x, y, x + size - 1, y + size - 1), outline=WHITE, radius=max(2, size // 6))
    if value is None:
        p.text((x + size / 2, y + size / 2 + 1), "?", max(10, size // 2), anchor="mm")
        return
    step = (size - 1) / 4
    r = max(1.5, size / 13)
    for col, row in PIPS[value]:
        cx, cy = x + step * (col + 1), y + step * (row + 1)
        p.ellipse((cx - r, cy - r, cx + r, cy + r), fill=WHITE)


def dice(
    p: Painter, values: list[int | None], player: str, note: str = "", kept: tuple[int, ...] = ()
) -> None:
    p.centred(0, p.tr(player), 12)  # a player's name, or what is wrong with the reading
    count = max(1, len(values))
    gap = 3
    size = min(22, (p.width - 2 - gap * (count - 1)) // count)
    x = (p.width - (size * count + gap * (count - 1))) // 2
    for index, value in enumerate(values):
        die(p, x, 17, size, value if value in PIPS else None)
        if index in kept:
            # A bar under a die set aside, as the phones mark it.
            p.rect((x, 17 + size + 2, x + size - 1, 17 + size + 4), fill=WHITE)
        x += size + gap
    if note:
        p.centred(p.height - 14, p.tr(note), 11)


def options(p: Painter, items: list[str], cursor: int, title: str = "", row_height: int = 12) -> None:
    top = 0
    if title:
        p.centred(0, p.tr(title), 11)
        p.line([(0, 13), (p.width - 1, 13)])
        top = 15
    if not items:
        p.centred(top + 4, p.tr("(nothing)"), 11)
        return
    visible = max(1, (p.height - top) // row_height)
    cursor = min(max(cursor, 0), len(items) - 1)
    first = min(max(0, cursor - visible // 2), max(0, len(items) - visible))
    scroll = len(items) > visible
    text_width = p.width - (10 if scroll else 4)
    for row, index in enumerate(range(first, min(len(items), first + visible))):
        y = top + row * row_height
        label = p.fit(p.tr(items[index]), 10, text_width)
        if index == cursor:
            p.rect((0, y, p.width - (6 if scroll else 1), y + row_height - 1), fill=WHITE)
        p.text((2, y + row_height / 2), label, 10, fill=BLACK if index == cursor else WHITE, anchor="lm")
    if scroll:
        # A scroll bar so players know there is more below or above.
        track = p.height - top
        knob = max(4, track * visible // len(items))
        y0 = top + (track - knob) * first // max(1, len(items) - visible)
        p.rect((p.width - 3, y0, p.width - 1, y0 + knob - 1), fill=WHITE)


def error(p: Painter, message: str) -> None:
    p.rect((0, 0, p.width - 1, 15), fill=WHITE)
    p.text((p.width / 2, 2), p.fit(p.tr("ERROR"), 12, p.width - 4), 12, fill=BLACK, anchor="ma")
    for i, line in enumerate(wrap(p, p.tr(message), 11, p.width - 4, 3)):
        p.text((2, 19 + i * 14), line, 11)


def standings(p: Painter, rows: list[tuple[str, int]], cursor: int | None = None, title: str = "") -> None:
    top = 0
    if title:
        p.centred(0, p.fit(p.tr(title), 11, p.width - 2), 11)
        p.line([(0, 13), (p.width - 1, 13)])
        top = 15
    visible = (p.height - top) // 13
    first = 0
    if cursor is not None and rows:
        cursor = min(max(cursor, 0), len(rows) - 1)
        first = min(max(0, cursor - visible // 2), max(0, len(rows) - visible))
    for row, index in enumerate(range(first, min(len(rows), first + visible))):
        name, score = rows[index]
        y = top + row * 13
        fill = WHITE
        if index == cursor:
            p.rect((0, y, p.width - 1, y + 12), fill=WHITE)
            fill = BLACK
        score_text = str(score)
        score_w = p.text_width(score_text, 11)
        rank = f"{index + 1}."
        mid = y + 6.5
        p.text((2, mid), rank, 11, fill=fill, anchor="lm")
        p.text((16, mid), p.fit(str(name), 11, p.width - 24 - score_w), 11, fill=fill, anchor="lm")
        p.text((p.width - 2, mid), score_text, 11, fill=fill, anchor="rm")
    if not rows:
        p.centred(24, p.tr("no scores yet"), 11)


def message(p: Painter, lines: list[str]) -> None:
    lines = list(lines)[:5]
    row = 12 if len(lines) > 4 else 14
    y = max(0, (p.height - row * len(lines)) // 2)
    for i, line in enumerate(lines):
        p.centred(y + i * row, p.tr(line), 11)


def wrap(p: Painter, text: str, size: int, width: float, max_lines: int) -> list[str]:
    words = text.split()
    lines: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}".strip()
        if p.text_width(candidate, size) <= width or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        p.shortened.append((text, " ".join(lines[:max_lines])))
        lines = lines[:max_lines]
        lines[-1] = lines[-1] + " …"
    return [p.fit(line, size, width) for line in lines]
