"""What a fixed camera shows of its table's dice, learned from the reader's own sure readings.

A camera that does not move sees a die of one size at one place in the frame
at one side in pixels: the side changes smoothly over the frame, as a plane
seen in perspective (larger towards the camera) and, through a wide or
fisheye lens, with the distance from the frame's centre. :class:`DieSizes` is
that model: log side = a + b u + c v (+ d r^2), u and v the place in the frame
from -1 to 1, fitted to sure readings with the odd wrong one left out, its
spread known. :class:`Calibration` gathers the readings of one camera as the
table plays, fits them once there are enough, and forgets them when the frame
size changes or the frames stop fitting (the camera moved, or it is a phone).
Given the frames, it also keeps the sure dice's colours, the looks of the
table's dice (``vision.looks``). No label is ever used: only what the reader
itself read sure.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from vision import tunables as T
from vision.die import Die
from vision.looks import Look, looks, measure

# What a model of the dice's sizes holds (``DieSizes.kind``), as more dice show.
ONE_SIZE, PLANE, LENS = "one size", "plane", "lens"


@dataclass(frozen=True)
class DieSizes:
    """A die's side (px) over a ``width`` x ``height`` frame."""

    width: int
    height: int
    coef: tuple[float, ...]  # on the terms of ``_terms``: 1, u, v and, when fitted, r^2
    spread: float  # robust standard deviation of log(side / model) of the dice fitted
    dice: int  # how many dice the fit rests on

    def side(self, x: float, y: float) -> float:
        """The side a die lying at (x, y) shows, in pixels."""
        return float(
            np.exp(_terms(np.array([x]), np.array([y]), self.width, self.height, len(self.coef)) @ self.coef)[
                0
            ]
        )

    @property
    def tolerance(self) -> float:
        """How far (as a factor) a die's side may be from the model's and still be a die."""
        return float(np.exp(max(T.SIZE_TOLERANCE, T.SIZE_SPREADS * self.spread)))

    def agrees(self, x: float, y: float, side: float) -> bool:
        """Whether a spot of ``side`` px at (x, y) has a die's size there."""
        return abs(np.log(side / self.side(x, y))) <= np.log(self.tolerance)

    def range(self) -> tuple[float, float]:
        """The smallest and largest side a die may show anywhere in the frame, tolerance included."""
        least, most = self.extent()
        return least / self.tolerance, most * self.tolerance

    def extent(self) -> tuple[float, float]:
        """The smallest and largest side the model gives a die anywhere in the frame."""
        xs, ys = np.meshgrid(np.linspace(0, self.width, 9), np.linspace(0, self.height, 9))
        sides = np.exp(_terms(xs.ravel(), ys.ravel(), self.width, self.height, len(self.coef)) @ self.coef)
        return float(sides.min()), float(sides.max())

    @property
    def kind(self) -> str:
        """What the model holds: ``ONE_SIZE``, ``PLANE`` (a plane seen in perspective) or
        ``LENS`` (a plane and a wide lens's change from the middle to the edges)."""
        return {1: ONE_SIZE, 3: PLANE, 4: LENS}[len(self.coef)]

    def to_dict(self) -> dict:
        return {
            "width": self.width,
            "height": self.height,
            "coef": [round(c, 6) for c in self.coef],
            "spread": round(self.spread, 6),
            "dice": self.dice,
        }

    @classmethod
    def from_dict(cls, data: dict) -> DieSizes:
        coef = tuple(float(c) for c in data["coef"])
        if len(coef) not in (1, 3, 4):
            raise ValueError(f"a die-size model has 1, 3 or 4 terms, not {len(coef)}")
        return cls(int(data["width"]), int(data["height"]), coef, float(data["spread"]), int(data["dice"]))


def _terms(x: np.ndarray, y: np.ndarray, width: int, height: int, n: int) -> np.ndarray:
    u = 2 * np.asarray(x, float) / width - 1
    v = 2 * np.asarray(y, float) / height - 1
    columns = [np.ones_like(u), u, v, u * u + v * v][:n]
    return np.stack(columns, axis=1)


def _spread(residual: np.ndarray) -> float:
    """The robust standard deviation of log sides about a model, never under ``T.SPREAD_FLOOR``."""
    return max(1.4826 * float(np.median(np.abs(residual - np.median(residual)))), T.SPREAD_FLOOR)


def one_size(sides: Sequence[float], width: int, height: int) -> DieSizes:
    """One size over a ``width`` x ``height`` frame: the median of ``sides``, their spread
    its spread (a roll's own sure dice, where the camera is not known yet)."""
    logs = np.log(np.asarray(sides, float))
    return DieSizes(width, height, (float(np.median(logs)),), _spread(logs), len(logs))


def fit(points: Sequence[tuple[float, float, float]], width: int, height: int) -> DieSizes | None:
    """The model of (x, y, side) points, or None with too few. More terms as more dice
    show: one size, then a plane, then a lens's radial change; each kept only where it
    fits the dice better than the simpler one does by more than their spread."""
    if len(points) < T.CALIBRATE_MIN_DICE:
        return None
    p = np.asarray(points, float)
    logs = np.log(p[:, 2])
    best: DieSizes | None = None
    for n, needed in ((1, 0), (3, T.PLANE_MIN_DICE), (4, T.LENS_MIN_DICE)):
        if len(p) < needed:
            break
        a = _terms(p[:, 0], p[:, 1], width, height, n)
        keep = np.ones(len(p), bool)
        for _ in range(4):
            coef, *_ = np.linalg.lstsq(a[keep], logs[keep], rcond=None)
            residual = logs - a @ coef
            spread = _spread(residual[keep])
            keep = np.abs(residual) <= T.OUTLIER_SPREADS * spread
            if keep.sum() < needed or keep.sum() < T.CALIBRATE_MIN_DICE:
                break
        model = DieSizes(width, height, tuple(float(c) for c in coef), spread, int(keep.sum()))
        if best is None or model.spread < best.spread * T.MORE_TERMS_GAIN:
            best = model
    return best


@dataclass
class Calibration:
    """One camera's dice sizes, learned as the table reads (see the module's docstring).

    ``learn(dice, shape)`` after each reading; ``sizes`` is the model once it is
    ready, else None (the reader then reads as it does without one)."""

    points: deque = field(default_factory=lambda: deque(maxlen=T.CALIBRATE_KEEP))
    shape: tuple[int, int] | None = None
    sizes: DieSizes | None = None
    misfits: int = 0
    colours: deque = field(default_factory=lambda: deque(maxlen=T.CALIBRATE_KEEP))

    @property
    def looks(self) -> list[Look]:
        """The kinds of dice the table throws (``vision.looks``), the most seen first."""
        return looks(list(self.colours))

    def learn(self, dice: Iterable[Die], shape: tuple[int, ...], frame: np.ndarray | None = None) -> None:
        """Take the sure dice of one frame of ``shape`` (height, width, ...); given the
        ``frame`` itself, their colours too."""
        h, w = int(shape[0]), int(shape[1])
        if self.shape != (h, w):
            self.forget()
            self.shape = (h, w)
        sure = [d for d in dice if d.confidence >= T.CALIBRATE_SURE]
        if self.sizes is not None and len(sure) >= 2:
            fitting = sum(self.sizes.agrees(*d.center, d.side) for d in sure)
            # Dice that no longer fit where they lie: the camera moved, or it is held by hand.
            self.misfits = self.misfits + 1 if fitting < len(sure) / 2 else 0
            if self.misfits >= T.MISFITS_TO_FORGET:
                self.forget()
                self.shape = (h, w)
        self.points.extend((*d.center, d.side) for d in sure)
        self.sizes = fit(list(self.points), w, h)
        if frame is not None:
            self.colours.extend(measure(frame, sure))

    def to_dict(self) -> dict:
        """What a table keeps of its camera between runs: the frame size, the dice learned from
        and their colours."""
        return {
            "shape": list(self.shape or ()),
            "points": [[round(v, 1) for v in p] for p in self.points],
            "colours": [[round(v, 1) for v in c] for c in self.colours],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Calibration:
        """A calibration as kept; ValueError if ``data`` is not one."""
        try:
            shape = tuple(int(v) for v in data["shape"])
            points = [(float(x), float(y), float(s)) for x, y, s in data["points"]]
            # Kept since the table learned its dice's colours too; none before.
            colours = [tuple(float(v) for v in c) for c in data.get("colours", [])]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"not a calibration: {exc}") from exc
        if len(shape) != 2 or min(shape, default=0) <= 0 or any(s <= 0 for *_, s in points):
            raise ValueError("not a calibration: a frame size and positive die sides are needed")
        if any(len(c) != 6 or not all(0 <= v <= 255 for v in c) for c in colours):
            raise ValueError("not a calibration: a die's colours are a face's and its pips' L, a, b (0-255)")
        cal = cls()
        cal.shape = (shape[0], shape[1])
        cal.points.extend(points)
        cal.colours.extend(colours)
        cal.sizes = fit(list(cal.points), shape[1], shape[0])
        return cal

    def forget(self) -> None:
        """Start again: the camera moved or the frames changed size."""
        self.points.clear()
        self.colours.clear()
        self.shape = None
        self.sizes = None
        self.misfits = 0
