"""A second opinion on each face: a small network that looks at the die's crop as a whole.

The pip counter (``vision.face``) explains the spots it sees by a layout; it
cannot tell a flat face from a cocked die's two faces, a smeared die or a
printed ring on the table. The verifier (``models/verifier.onnx``, trained by
``vision.training.verifier`` on the train photos and rendered frames) gives,
for the grey crop around a spot, the probability of each value 1-6 and of
"no readable top face" (index 0). The confidence grade weighs both opinions.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

MODEL = Path(__file__).resolve().parent / "models" / "verifier.onnx"
# The die's side in the crop, and the crop's side: half a side of context
# shows a cocked die's side face or a hand over it.
SIDE_PX = 32
WINDOW = 48
CLASSES = 7  # 0: no readable top face; 1-6: the value


def crop(image: np.ndarray, x: float, y: float, side: float, window: int = WINDOW) -> np.ndarray:
    """The grey square around (x, y), resampled so that ``side`` pixels become ``SIDE_PX``."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    k = SIDE_PX / max(side, 1.0)
    if k < 0.5:
        # Shrink the neighbourhood by area first so that small pips are not aliased away.
        half = window / 2 / k + 2
        h, w = grey.shape
        x0, y0 = int(max(0, x - half)), int(max(0, y - half))
        x1, y1 = int(min(w, x + half + 1)), int(min(h, y + half + 1))
        sub = grey[y0:y1, x0:x1]
        sw, sh = max(1, round((x1 - x0) * k)), max(1, round((y1 - y0) * k))
        sub = cv2.resize(sub, (sw, sh), interpolation=cv2.INTER_AREA)
        fx, fy = sw / (x1 - x0), sh / (y1 - y0)
        m = np.array([[1, 0, window / 2 - (x - x0) * fx], [0, 1, window / 2 - (y - y0) * fy]], np.float32)
        return cv2.warpAffine(
            sub, m, (window, window), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
    m = np.array([[k, 0, window / 2 - x * k], [0, k, window / 2 - y * k]], np.float32)
    return cv2.warpAffine(grey, m, (window, window), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def standardise(crops: np.ndarray) -> np.ndarray:
    """(n, 1, WINDOW, WINDOW) float32: each crop less its mean, over its spread."""
    x = crops.astype(np.float32).reshape(len(crops), 1, crops.shape[-2], crops.shape[-1])
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    spread = x.std(axis=(1, 2, 3), keepdims=True)
    return (x - mean) / (spread + 8.0)


@lru_cache(maxsize=2)
def _net(path: str):
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path}: the face verifier's model is missing (reinstall TablePi)")
    return cv2.dnn.readNetFromONNX(path)


def opinions(image: np.ndarray, places: list[tuple[float, float, float]], model: Path = MODEL) -> np.ndarray:
    """(n, 7) probabilities, one row per (x, y, side) in ``places``: no face, then values 1-6."""
    if not places:
        return np.zeros((0, CLASSES), np.float32)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    batch = standardise(np.stack([crop(grey, x, y, s) for x, y, s in places]))
    net = _net(str(model))
    net.setInput(batch)
    logits = net.forward().reshape(len(places), CLASSES).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
