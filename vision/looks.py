"""What a table's dice look like: the colours of their faces and pips, learned from sure readings.

A table throws the same dice every roll. Each sure die's face colour (the
median of its face's middle) and pip colour (the pixels of its face most unlike
that) are measured in CIELAB; dice of like faces group into a look (white with
black pips, red with white ones, ...), each with how many dice showed it.
:class:`vision.calibration.Calibration` keeps the measurements with the dice's
sizes, and ``tablepi dice calibrate`` says and draws the looks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision import tunables as T
from vision.die import Die

# One die's colours: its face's L, a, b and its pips' (OpenCV's 8-bit CIELAB).
Colours = tuple[float, float, float, float, float, float]


@dataclass(frozen=True)
class Look:
    """One kind of the table's dice: face and pip colours (BGR) and how many dice showed it."""

    face: tuple[int, int, int]
    pips: tuple[int, int, int]
    dice: int

    def hex(self) -> tuple[str, str]:
        """The face's and the pips' colours as ``#rrggbb``."""
        return tuple(f"#{r:02x}{g:02x}{b:02x}" for b, g, r in (self.face, self.pips))


def measure(frame: np.ndarray, dice: Iterable[Die]) -> list[Colours]:
    """The colours of each die of ``dice`` in ``frame`` (BGR) that lies wholly inside it."""
    h, w = frame.shape[:2]
    out = []
    for d in dice:
        x, y = d.center
        r = d.side * T.LOOK_REACH
        x0, y0, x1, y1 = int(round(x - r)), int(round(y - r)), int(round(x + r)) + 1, int(round(y + r)) + 1
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h or r < 2:
            continue
        lab = cv2.cvtColor(np.ascontiguousarray(frame[y0:y1, x0:x1]), cv2.COLOR_BGR2Lab).astype(np.float32)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        dist = np.hypot(xx - x, yy - y)
        disc = lab[dist <= r]
        face = np.median(lab[dist <= d.side * T.LOOK_FACE], axis=0)
        unlike = np.linalg.norm(disc - face, axis=1)
        pips = np.median(disc[unlike >= np.quantile(unlike, 1 - T.LOOK_PIPS)], axis=0)
        out.append(tuple(float(v) for v in (*face, *pips)))
    return out


def looks(colours: Sequence[Colours]) -> list[Look]:
    """The kinds of dice among ``colours``, the most seen first: dice whose faces lie within
    ``T.LOOK_APART`` of a look's first die join it; a look of fewer than ``T.LOOK_LEAST`` dice
    (a misread, a die held up) is left out."""
    groups: list[list[np.ndarray]] = []
    for c in sorted((np.array(c, np.float32) for c in colours), key=lambda c: -c[0]):
        near = [g for g in groups if np.linalg.norm(g[0][:3] - c[:3]) <= T.LOOK_APART]
        if near:
            near[0].append(c)
        else:
            groups.append([c])
    out = []
    for g in sorted(groups, key=len, reverse=True):
        if len(g) < T.LOOK_LEAST:
            continue
        mid = np.median(np.array(g), axis=0)
        face, pips = (_bgr(mid[k : k + 3]) for k in (0, 3))
        out.append(Look(face, pips, len(g)))
    return out


def _bgr(lab: np.ndarray) -> tuple[int, int, int]:
    pixel = np.clip(np.round(lab), 0, 255).astype(np.uint8).reshape(1, 1, 3)
    b, g, r = cv2.cvtColor(pixel, cv2.COLOR_Lab2BGR)[0, 0]
    return int(b), int(g), int(r)
