"""One rendered die alone on a plain table, as the lone-die tests draw it."""

from __future__ import annotations

import numpy as np

from vision.synth import draw_die

SCHEMES = {
    # name: (table grey, die body, pips)
    "white on dark cloth": (60, (235, 235, 235), (20, 20, 20)),
    "dark on light": (200, (40, 40, 40), (235, 235, 235)),
}


def lone_die(scheme: str, size: int, value: int, turn: int) -> np.ndarray:
    """A 640x480 frame of one die showing ``value``, ``size`` px, turned ``turn`` degrees,
    somewhere near the middle; the same frame for the same arguments."""
    grey, body, pip = SCHEMES[scheme]
    rng = np.random.default_rng(value * 100 + turn)
    img = np.clip(np.full((480, 640, 3), grey, np.float32) + rng.normal(0, 6, (480, 640, 3)), 0, 255)
    img = img.astype(np.uint8)
    draw_die(img, value, (320 + rng.uniform(-100, 100), 240 + rng.uniform(-80, 80)), size, turn, body, pip)
    return img
