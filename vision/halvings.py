"""A frame and its halvings, so that a die is shrunk to its reading size from
a nearby level instead of from the whole frame (an 8 MP frame's large dice
would otherwise be area-averaged from hundreds of thousands of pixels each).
It also remembers what the reader's steps found in the frame (``memo``), so
that a frame read again (a second look at a roll, or without the camera's
calibration) only reads what it has not read yet.

Level ``m`` is the frame shrunk ``2**m`` times by averaging 2x2 blocks; a
point at ``x`` in the frame is at ``(x + 0.5) / 2**m - 0.5`` on it.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision import tunables as T


class Halvings:
    """The frame (BGR or grey) and its halvings, each made when first asked for;
    ``memo``: the reader's steps' results on it, by what each was asked."""

    def __init__(self, image: np.ndarray) -> None:
        self._levels = [image]
        self._grey: dict[int, np.ndarray] = {}
        self.memo: dict[tuple, Any] = {}

    @classmethod
    def of(cls, image: np.ndarray | Halvings) -> Halvings:
        return image if isinstance(image, Halvings) else cls(image)

    @property
    def image(self) -> np.ndarray:
        return self._levels[0]

    @property
    def shape(self) -> tuple[int, ...]:
        return self._levels[0].shape

    def level(self, m: int) -> np.ndarray:
        """The frame shrunk ``2**m`` times (or as far as it goes)."""
        while len(self._levels) <= m:
            prev = self._levels[-1]
            h, w = prev.shape[:2]
            if h < 4 or w < 4:
                return prev
            even = prev[: h - h % 2, : w - w % 2]
            self._levels.append(cv2.resize(even, (w // 2, h // 2), interpolation=cv2.INTER_AREA))
        return self._levels[m]

    def grey(self, m: int) -> np.ndarray:
        """Level ``m`` in grey."""
        if m not in self._grey:
            im = self.level(m)
            self._grey[m] = im if im.ndim == 2 else cv2.cvtColor(im, cv2.COLOR_BGR2GRAY)
        return self._grey[m]

    def nearest(self, k: float, least: float | None = None) -> int:
        """The level a shrink by ``k`` starts from: the frame, or for a shrink by
        less than ``least`` (``T.HALVE_BELOW``) the halving that leaves at least that much."""
        least = T.HALVE_BELOW if least is None else least
        m = 0
        while k * 2**m < least:
            self.level(m + 1)
            if len(self._levels) <= m + 1:  # too small to halve again
                break
            m += 1
        return m


def on_level(x: float, y: float, side: float, m: int) -> tuple[float, float, float]:
    """(x, y, side) in frame pixels, in level ``m``'s pixels."""
    f = 2.0**m
    return (x + 0.5) / f - 0.5, (y + 0.5) / f - 0.5, side / f


def square(
    frame: Halvings,
    x: float,
    y: float,
    side: float,
    side_px: float,
    window: int,
    *,
    grey: bool = False,
    area_below: float = 0.8,
) -> np.ndarray:
    """The ``window``-pixel square around (x, y) resampled so that ``side`` frame
    pixels become ``side_px``, from the nearest level (in grey if ``grey``)."""
    k = side_px / max(side, 1.0)
    m = frame.nearest(k)
    image = frame.grey(m) if grey else frame.level(m)
    x, y, side = on_level(x, y, side, m)
    k = side_px / max(side, 1.0)
    h, w = image.shape[:2]
    if k < area_below:
        # Shrink the neighbourhood with area averaging first, so small pips are not aliased away.
        half = window / 2 / k + 2
        x0, y0 = int(max(0, x - half)), int(max(0, y - half))
        x1, y1 = int(min(w, x + half + 1)), int(min(h, y + half + 1))
        sub = image[y0:y1, x0:x1]
        sw, sh = max(1, round((x1 - x0) * k)), max(1, round((y1 - y0) * k))
        sub = cv2.resize(sub, (sw, sh), interpolation=cv2.INTER_AREA)
        fx, fy = sw / (x1 - x0), sh / (y1 - y0)
        t = np.array([[1, 0, window / 2 - (x - x0) * fx], [0, 1, window / 2 - (y - y0) * fy]], np.float32)
        return cv2.warpAffine(
            sub, t, (window, window), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
    t = np.array([[k, 0, window / 2 - x * k], [0, k, window / 2 - y * k]], np.float32)
    return cv2.warpAffine(image, t, (window, window), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
