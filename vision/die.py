"""``Die``: one die as the reader reports it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Die:
    """One die read from an image: top-face value, box in the image's pixels,
    and confidence, the probability that the value is right (0..1); ``likely_die``,
    the probability that a die lies there at all, whatever its value."""

    value: int
    box: list[float]
    confidence: float
    likely_die: float = 1.0

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return (x0 + x1) / 2, (y0 + y1) / 2

    @property
    def side(self) -> float:
        x0, y0, x1, y1 = self.box
        return ((x1 - x0) + (y1 - y0)) / 2

    def to_dict(self) -> dict:
        return {
            "value": int(self.value),
            "box": [round(float(v), 1) for v in self.box],
            "confidence": round(float(self.confidence), 3),
        }
