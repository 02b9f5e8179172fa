"""The dice reader: find the dice, read each face, grade how sure each reading is.

``read_dice(image)`` is the whole contract (see ``vision/__init__.py``):
``vision.finder`` says where top faces are and how large, ``vision.face`` counts
each one's pips on a crop resampled to one size, and ``vision.confidence``
turns what the reading saw into the probability that its value is right.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import confidence, face, finder
from vision import tunables as T
from vision.die import Die


def as_bgr(image: np.ndarray) -> np.ndarray:
    """A BGR copy-free view of a grey, BGR or BGRA frame."""
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def read_dice(image: np.ndarray) -> list[Die]:
    """Every die whose top face shows in ``image``, each with its confidence."""
    if image is None or image.size == 0:
        return []
    image = as_bgr(np.ascontiguousarray(image))
    dice = []
    for spot in finder.find(image):
        if spot.score < T.FINDER_MIN:
            continue
        reading = face.read_face(image, spot.x, spot.y, spot.side)
        if reading is None:
            continue
        p = confidence.grade(spot, reading)
        half = spot.side / 2
        dice.append(Die(reading.value, [spot.x - half, spot.y - half, spot.x + half, spot.y + half], p))
    return dice
