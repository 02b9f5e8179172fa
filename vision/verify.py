"""A second opinion on each face: a small network that looks at the die's crop as a whole.

The pip counter (``vision.face``) explains the spots it sees by a layout; it
cannot tell a flat face from a cocked die's two faces, a smeared die or a
printed ring on the table. The verifier (``models/verifier.onnx``, trained by
``vision.training.verifier`` on the train photos and rendered frames) gives,
for the crop around a spot, the probability of each value 1-6 and of "no
readable top face" (index 0). The confidence grade weighs both opinions.

It sees two channels: the crop's lightness, and how unlike the face's own
colour each pixel is (hue counting as the pip counter counts it), so that red
pips on a dark smoky die stand out as they do to the counter, whatever the
die's colours.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision import nets
from vision import tunables as T
from vision.halvings import Halvings, square

MODEL = Path(__file__).resolve().parent / "models" / "verifier.onnx"
# The die's side in the crop, and the crop's side: half a side of context
# shows a cocked die's side face or a hand over it.
SIDE_PX = 32
WINDOW = 48
CLASSES = 7  # 0: no readable top face; 1-6: the value
CHANNELS = 2  # lightness; unlikeness to the face's colour


def crop(image: np.ndarray | Halvings, x: float, y: float, side: float, window: int = WINDOW) -> np.ndarray:
    """The colour square around (x, y), resampled so that ``side`` pixels become ``SIDE_PX``."""
    return square(Halvings.of(image), x, y, side, SIDE_PX, window, area_below=0.5)


@lru_cache(maxsize=4)
def _face_disc(n: int) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n]
    return (xx - n / 2 + 0.5) ** 2 + (yy - n / 2 + 0.5) ** 2 <= (T.FACE_SAMPLE * SIDE_PX) ** 2


def channels(crops: np.ndarray) -> np.ndarray:
    """(n, CHANNELS, w, w) float32 planes of (n, w, w, 3) BGR crops: lightness, and each
    pixel's distance from the median colour of the crop's middle (the face)."""
    n, w = len(crops), crops.shape[1]
    if crops.ndim == 3:
        crops = np.repeat(crops[..., None], 3, axis=3)
    # One conversion for the whole batch, the crops stacked as one tall image.
    tall = np.ascontiguousarray(crops, dtype=np.uint8).reshape(n * w, w, 3)
    lab = cv2.cvtColor(tall, cv2.COLOR_BGR2Lab).reshape(n, w, w, 3).astype(np.float32)
    d = lab - np.median(lab[:, _face_disc(w)], axis=1)[:, None, None, :]
    out = np.empty((n, CHANNELS, w, w), np.float32)
    out[:, 0] = lab[..., 0]
    out[:, 1] = np.sqrt(d[..., 0] ** 2 + T.CHROMA_WEIGHT**2 * (d[..., 1] ** 2 + d[..., 2] ** 2))
    return out


def standardise(planes: np.ndarray) -> np.ndarray:
    """(n, CHANNELS, w, w) float32: each plane of each crop less its mean, over its spread."""
    x = planes.astype(np.float32)
    mean = x.mean(axis=(2, 3), keepdims=True)
    spread = x.std(axis=(2, 3), keepdims=True)
    return (x - mean) / (spread + 8.0)


def opinions(
    image: np.ndarray | Halvings, places: list[tuple[float, float, float]], model: Path = MODEL
) -> np.ndarray:
    """(n, 7) probabilities, one row per (x, y, side) in ``places``: no face, then values 1-6."""
    if not places:
        return np.zeros((0, CLASSES), np.float32)
    frame = Halvings.of(image)
    # A place the frame was asked about before (a second look at it) is not looked at again.
    asked = [("seen", str(model), *place) for place in places]
    new = list(dict.fromkeys(a for a in asked if a not in frame.memo))
    if new:
        for a, row in zip(new, _opinions(frame, [a[2:] for a in new], model), strict=True):
            frame.memo[a] = row
    return np.stack([frame.memo[a] for a in asked])


def _opinions(frame: Halvings, places: list[tuple[float, float, float]], model: Path) -> np.ndarray:
    batch = standardise(channels(np.stack([crop(frame, x, y, s) for x, y, s in places])))
    net = nets.load(str(model), "face verifier")
    logits = net(batch).reshape(len(places), CLASSES).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
