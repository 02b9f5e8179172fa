"""How sure a reading is: the probability that it is a die, and that its value is right.

Two logistic models over what the finder and the face reading measured,
fitted by ``vision.training.confidence`` on the datasets' train splits
(readings matched to their labels: right, wrong value, or no die at all).
They only grade: the value is always the one the pips gave. A reading the face
verifier disputes (``disputed``) is graded at most ``T.DISPUTED``, whatever else
it shows: on the train photos such readings are wrong about as often as right.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision import tunables as T
from vision.face import FaceReading
from vision.finder import Spot

MODEL = Path(__file__).resolve().parent / "models" / "confidence.json"

FEATURES = (
    "finder",
    "lead",
    "agreement",
    "score",
    "residual",
    "contrast",
    "slant",
    "sharpness",
    "verified",
    "verifier_lead",
    "unreadable",
    "log_side",
    "one",
    "six",
)


def features(spot: Spot, reading: FaceReading) -> np.ndarray:
    """The measurements the model weighs, in the order of ``FEATURES``."""
    heat = min(max(spot.score, 1e-4), 1 - 1e-4)
    opinion = reading.opinion if reading.opinion is not None else np.full(7, 1 / 7)
    return np.array(
        [
            math.log(heat / (1 - heat)),
            min(reading.lead, 20.0),
            reading.agreement,
            max(reading.score, -40.0),
            min(reading.residual, 2.0),
            math.log1p(reading.contrast),
            min(reading.slant, 3.0),
            reading.sharpness,
            math.log(float(opinion[reading.value]) + 1e-3),
            math.log(float(opinion[reading.value]) + 1e-3)
            - math.log(float(np.delete(opinion, reading.value).max()) + 1e-3),
            math.log(float(opinion[0]) + 1e-3),
            math.log(max(spot.side, 1.0)),
            float(reading.value == 1),
            float(reading.value == 6),
        ]
    )


@dataclass(frozen=True)
class Grade:
    """``die``: the probability that a die is there; ``right``: that it is and its value is right;
    ``capped``: whether a rule (``disputed``, ``side_face``) held ``right`` at ``T.DISPUTED``."""

    die: float
    right: float
    capped: bool = False


@lru_cache(maxsize=2)
def _model(path: str) -> dict[str, tuple[np.ndarray, float]]:
    data = json.loads(Path(path).read_text())
    if list(data["features"]) != list(FEATURES):
        raise ValueError(f"{path}: fitted for features {data['features']}, not {list(FEATURES)}")
    return {k: (np.array(data[k]["weights"], float), float(data[k]["bias"])) for k in ("die", "right")}


def _logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))


def grade(spot: Spot, reading: FaceReading, model: Path = MODEL) -> Grade:
    """How likely ``reading`` is a die, and a die with the value it read."""
    f = features(spot, reading)
    probs = {k: _logistic(float(f @ w + b)) for k, (w, b) in _model(str(model)).items()}
    right = min(probs["right"], probs["die"])
    capped = disputed(reading) or side_face(spot, reading)
    if capped:
        right = min(right, T.DISPUTED)
    return Grade(probs["die"], right, capped)


def side_face(spot: Spot, reading: FaceReading) -> bool:
    """Whether ``reading`` is likely a slanted die's side face: four pips or more, lying low
    in the die's spot, with a blob about as strong as they are left out above them (the top
    face's pip; a die seen so slanted that its top is a sliver shows its front face whole)."""
    if reading.value < T.SIDE_PIPS:
        return False
    low = (float(np.mean(reading.pips.imag)) - spot.y) / spot.side
    return low >= T.SIDE_LOW and reading.above >= T.SIDE_ABOVE


def disputed(reading: FaceReading) -> bool:
    """Whether the face verifier disputes the value the pips gave: it backs that value
    little, rates another likelier or a higher value nearly as likely (pips the count may
    have missed: a small blurred 6 read as its corners' 4), or sees a 2 as a 3 whose middle
    pip is faint. The grade weighs the verifier beside the rest, and a clear reading of the
    pips can outweigh it, yet on the train photos such dice are wrong about as often as right."""
    opinion = reading.opinion
    if opinion is None:
        return False
    own = float(opinion[reading.value])
    if own < T.BACKED or float(np.delete(opinion[1:], reading.value - 1).max()) > own:
        return True
    if float(opinion[reading.value + 1 :].max(initial=0.0)) > T.MORE_SEEN * own:
        return True
    three = float(opinion[3])
    return reading.value == 2 and (
        three >= T.THREE_SEEN or (three >= T.THREE_DOUBT and reading.centre >= T.CENTRE_SEEN)
    )
