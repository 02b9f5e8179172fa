"""Where the dice may be: the tray and the keep area of one camera.

Both are given as fractions (0..1) of the frame so that they survive a change
of resolution. The tray is a polygon ``[[x, y], ...]``: dice outside it (on
the table, in a player's hand) are ignored. The keep area is a rectangle
``[x0, y0, x1, y1]`` where players put the dice they keep between rolls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision import N_
from vision.calibration import DieSizes
from vision.die import Die
from vision.looks import Look


def _check_fraction(v: float, what: str) -> float:
    v = float(v)
    if not 0.0 <= v <= 1.0:
        raise ValueError(
            N_("{what}: {value} is not a fraction of the frame (0..1)").format(what=what, value=v)
        )
    return v


@dataclass(frozen=True)
class Regions:
    """The tray polygon and keep rectangle of one camera, both optional."""

    tray: tuple[tuple[float, float], ...] | None = None
    keep: tuple[float, float, float, float] | None = None

    @classmethod
    def from_values(
        cls, tray: Sequence[Sequence[float]] | None = None, keep: Sequence[float] | None = None
    ) -> Regions:
        """Build from config values, checking them; raise ValueError with a clear message."""
        t = None
        if tray:
            pts = []
            for p in tray:
                if len(p) != 2:
                    raise ValueError(N_("tray point {point} must be [x, y]").format(point=list(p)))
                pts.append((_check_fraction(p[0], "tray x"), _check_fraction(p[1], "tray y")))
            if len(pts) < 3:
                raise ValueError(N_("the tray needs at least three points"))
            t = tuple(pts)
        k = None
        if keep:
            if len(keep) != 4:
                raise ValueError(N_("keep must be [x0, y0, x1, y1]"))
            x0, y0, x1, y1 = (_check_fraction(v, "keep") for v in keep)
            if x1 <= x0 or y1 <= y0:
                raise ValueError(N_("keep must have x0 < x1 and y0 < y1"))
            k = (x0, y0, x1, y1)
        return cls(t, k)

    def _tray_px(self, width: int, height: int) -> np.ndarray | None:
        if self.tray is None:
            return None
        return np.array([(x * width, y * height) for x, y in self.tray], np.float32)

    def in_tray(self, die: Die, width: int, height: int) -> bool:
        """True if the die's centre lies in the tray (always, with no tray set)."""
        poly = self._tray_px(width, height)
        if poly is None:
            return True
        return cv2.pointPolygonTest(poly, die.center, False) >= 0

    def in_keep(self, die: Die, width: int, height: int) -> bool:
        """True if the die's centre lies in the keep area (never, with none set)."""
        if self.keep is None:
            return False
        x0, y0, x1, y1 = self.keep
        cx, cy = die.center
        return x0 * width <= cx <= x1 * width and y0 * height <= cy <= y1 * height

    def filter(self, dice: list[Die], width: int, height: int) -> list[Die]:
        """The dice that lie in the tray."""
        return [d for d in dice if self.in_tray(d, width, height)]

    def split(self, dice: list[Die], width: int, height: int) -> tuple[list[Die], list[Die]]:
        """Dice in the tray as (rolled, kept): kept ones lie in the keep area."""
        inside = self.filter(dice, width, height)
        kept = [d for d in inside if self.in_keep(d, width, height)]
        rolled = [d for d in inside if not self.in_keep(d, width, height)]
        return rolled, kept


def draw_dice(frame: np.ndarray, dice: list[Die]) -> np.ndarray:
    """Draw each die's box and value on the frame (in place); returns it."""
    scale = max(0.4, min(frame.shape[:2]) / 900)
    for d in dice:
        x0, y0, x1, y1 = (int(round(v)) for v in d.box)
        colour = (0, 200, 0) if d.confidence >= 0.5 else (0, 140, 255)
        cv2.rectangle(frame, (x0, y0), (x1, y1), colour, 2)
        label = str(d.value) if d.confidence >= 0.5 else f"{d.value}?"
        at = (x0, max(12, y0 - 4))
        cv2.putText(frame, label, at, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 2, cv2.LINE_AA)
    return frame


def draw_sizes(frame: np.ndarray, sizes: DieSizes) -> np.ndarray:
    """Draw the square a die shows, as ``sizes`` (a model of frames of this one's size) has
    it, at places spread evenly over the frame, as many as fit apart (in place, in a colour
    of its own); returns it."""
    h, w = frame.shape[:2]
    room = 1.4 * sizes.extent()[1]
    across, down = (min(6, max(2, int(n / room))) for n in (w, h))
    for j in range(down):
        for i in range(across):
            x, y = (i + 0.5) * w / across, (j + 0.5) * h / down
            half = sizes.side(x, y) / 2
            p0 = (int(round(x - half)), int(round(y - half)))
            p1 = (int(round(x + half)), int(round(y + half)))
            cv2.rectangle(frame, p0, p1, (0, 220, 255), 1, cv2.LINE_AA)
    return frame


def draw_looks(frame: np.ndarray, looks: Sequence[Look], most: int = 6) -> np.ndarray:
    """Draw a swatch of each of the first ``most`` of ``looks`` (its face, a pip on it) down
    the frame's left edge (in place); returns it."""
    side = max(16, min(frame.shape[:2]) // 24)
    for k, look in enumerate(looks[:most]):
        x, y = side // 2, side // 2 + k * (side + side // 3)
        cv2.rectangle(frame, (x, y), (x + side, y + side), look.face, -1)
        cv2.rectangle(frame, (x, y), (x + side, y + side), (128, 128, 128), 1)
        cv2.circle(frame, (x + side // 2, y + side // 2), max(2, side // 6), look.pips, -1, cv2.LINE_AA)
    return frame


def draw_regions(frame: np.ndarray, regions: Regions) -> np.ndarray:
    """Draw the tray outline and the keep area on the frame (in place); returns it."""
    h, w = frame.shape[:2]
    poly = regions._tray_px(w, h)
    if poly is not None:
        cv2.polylines(frame, [np.rint(poly).astype(np.int32)], True, (255, 160, 0), 2, cv2.LINE_AA)
        x, y = (int(v) for v in poly[0])
        cv2.putText(frame, "tray", (x + 4, y + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 160, 0), 1)
    if regions.keep is not None:
        x0, y0, x1, y1 = regions.keep
        p0, p1 = (int(x0 * w), int(y0 * h)), (int(x1 * w), int(y1 * h))
        cv2.rectangle(frame, p0, p1, (200, 0, 200), 2)
        cv2.putText(frame, "keep", (p0[0] + 4, p0[1] + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (200, 0, 200), 1)
    return frame
