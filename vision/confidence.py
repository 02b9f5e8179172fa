"""How sure a reading is: the probability that its value is right.

A logistic model over what the finder and the face reading measured, fitted
by ``vision.training.confidence`` on the datasets' train splits (readings
matched to their labels: right, wrong value, or no die at all). It only
grades: the value is always the one the pips gave.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.face import FaceReading
from vision.finder import Spot

MODEL = Path(__file__).resolve().parent / "models" / "confidence.json"

FEATURES = ("finder", "lead", "score", "residual", "contrast", "log_side", "one", "six")


def features(spot: Spot, reading: FaceReading) -> np.ndarray:
    """The measurements the model weighs, in the order of ``FEATURES``."""
    heat = min(max(spot.score, 1e-4), 1 - 1e-4)
    return np.array(
        [
            math.log(heat / (1 - heat)),
            min(reading.lead, 20.0),
            max(reading.score, -40.0),
            min(reading.residual, 2.0),
            math.log1p(reading.contrast),
            math.log(max(spot.side, 1.0)),
            float(reading.value == 1),
            float(reading.value == 6),
        ]
    )


@lru_cache(maxsize=2)
def _model(path: str) -> tuple[np.ndarray, float]:
    data = json.loads(Path(path).read_text())
    if list(data["features"]) != list(FEATURES):
        raise ValueError(f"{path}: fitted for features {data['features']}, not {list(FEATURES)}")
    return np.array(data["weights"], float), float(data["bias"])


def grade(spot: Spot, reading: FaceReading, model: Path = MODEL) -> float:
    """The probability that ``reading``'s value is the die's (0..1)."""
    w, b = _model(str(model))
    z = float(features(spot, reading) @ w + b)
    return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))
