"""``Die``: one die as a reader reports it.

Every reader (pip-first, body-first, quick) and every later step (fusion,
recovery, grading, the views' vote, settling) passes dice around as these.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Die:
    """One die read from an image: top-face value, box in pixels, confidence 0..1.

    ``pips`` are where the reading saw the die's pips (image pixels) and
    ``pip_radius`` their radius, for the pip-grid check (``vision.verify``);
    ``side`` is the die's measured side in pixels (0 when not measured) and
    ``level`` the pyramid level the pip-first reader read it on.
    """

    value: int
    box: list[float]
    confidence: float
    pips: list[tuple[float, float]] = field(default_factory=list, repr=False)
    pip_radius: float = field(default=0.0, repr=False)
    side: float = field(default=0.0, repr=False)
    level: int = field(default=0, repr=False)

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return (x0 + x1) / 2, (y0 + y1) / 2

    def to_dict(self) -> dict:
        return {
            "value": int(self.value),
            "box": [round(float(v), 1) for v in self.box],
            "confidence": round(float(self.confidence), 3),
        }
