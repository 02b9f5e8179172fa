"""A second opinion on each face: a small network that looks at the die's crop as a whole.

The pip counter (``vision.face``) explains the spots it sees by a layout; it
cannot tell a flat face from a cocked die's two faces, a smeared die or a
printed ring on the table. The verifier (``models/verifier.onnx``, trained by
``vision.training.verifier`` on the train photos and rendered frames) gives,
for the grey crop around a spot, the probability of each value 1-6 and of
"no readable top face" (index 0). The confidence grade weighs both opinions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision import nets
from vision.halvings import Halvings, square

MODEL = Path(__file__).resolve().parent / "models" / "verifier.onnx"
# The die's side in the crop, and the crop's side: half a side of context
# shows a cocked die's side face or a hand over it.
SIDE_PX = 32
WINDOW = 48
CLASSES = 7  # 0: no readable top face; 1-6: the value


def crop(image: np.ndarray | Halvings, x: float, y: float, side: float, window: int = WINDOW) -> np.ndarray:
    """The grey square around (x, y), resampled so that ``side`` pixels become ``SIDE_PX``."""
    return square(Halvings.of(image), x, y, side, SIDE_PX, window, grey=True, area_below=0.5)


def standardise(crops: np.ndarray) -> np.ndarray:
    """(n, 1, WINDOW, WINDOW) float32: each crop less its mean, over its spread."""
    x = crops.astype(np.float32).reshape(len(crops), 1, crops.shape[-2], crops.shape[-1])
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    spread = x.std(axis=(1, 2, 3), keepdims=True)
    return (x - mean) / (spread + 8.0)


def opinions(
    image: np.ndarray | Halvings, places: list[tuple[float, float, float]], model: Path = MODEL
) -> np.ndarray:
    """(n, 7) probabilities, one row per (x, y, side) in ``places``: no face, then values 1-6."""
    if not places:
        return np.zeros((0, CLASSES), np.float32)
    frame = Halvings.of(image)
    batch = standardise(np.stack([crop(frame, x, y, s) for x, y, s in places]))
    net = nets.load(str(model), "face verifier")
    net.setInput(batch)
    logits = net.forward().reshape(len(places), CLASSES).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
