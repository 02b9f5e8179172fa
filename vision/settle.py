"""Telling when a roll has come to rest.

A :class:`Settler` is fed camera frames with their timestamps. It watches for
motion by differencing small grey copies of consecutive frames; once nothing
has moved for ``still_seconds`` it reads the dice on the next few still frames
(``frames``), each in the next of ``views`` (the frame as it is, turned a
quarter, mirrored), and emits one reading combined from them
(:func:`vision.views.combine`: a die is sure only when the frames together
are).
When motion starts again it emits a "rolling" event, and the next rest gives
the next reading. Hands and dice in motion never produce a reading.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import read_dice
from vision.die import Die
from vision.views import VIEWS, read_views

ROLLING = "rolling"
READING = "reading"


@dataclass
class SettleEvent:
    """What happened at time ``t``: "rolling", or "reading" with the dice read."""

    kind: str
    t: float
    dice: list[Die] = field(default_factory=list)


class Settler:
    """Emit one reading per rest of the dice, and a "rolling" event per motion.

    ``reader`` reads a still frame; the default is the whole reader
    (:func:`vision.read_dice`), whose quality checks report a cocked, hidden or
    blurred die with low confidence so the table asks for a re-roll.
    ``rest_reader``, when given, reads the still frames of a rest instead
    (say, :meth:`vision.table_reader.TableReader.read_still`).
    ``threshold`` is the share of pixels (0..1) of the small grey frame whose
    brightness changed by more than ``pixel_delta`` grey levels between two
    frames; above it the scene is moving.
    """

    def __init__(
        self,
        still_seconds: float = 0.4,
        threshold: float = 0.002,
        pixel_delta: int = 25,
        width: int = 160,
        reader: Callable[[np.ndarray], list[Die]] = read_dice,
        frames: int = 3,
        views: Sequence[str] = VIEWS,
        rest_reader: Callable[[list[np.ndarray]], list[Die]] | None = None,
    ) -> None:
        if still_seconds < 0:
            raise ValueError("still_seconds must not be negative")
        if frames < 1:
            raise ValueError("frames must be 1 or more")
        if not views or any(v not in VIEWS for v in views):
            raise ValueError(f"views must be some of: {', '.join(VIEWS)}")
        self.frames = frames
        self.views = tuple(views)
        self._still: list[np.ndarray] = []
        self.still_seconds = still_seconds
        self.threshold = threshold
        self.pixel_delta = pixel_delta
        self.width = width
        self._reader = reader
        # The still frames of a rest read at once (a table that learns its camera, vision.table_reader).
        self._rest_reader = rest_reader or (lambda still: read_views(self._reader, still, self.views))
        self._previous: np.ndarray | None = None
        self._still_since: float | None = None
        self._read_this_rest = False
        self._moving = False
        self._still = []

    @property
    def moving(self) -> bool:
        """True while the last frames showed motion."""
        return self._moving

    def reset(self) -> None:
        """Forget the past frames (after the camera was changed or moved)."""
        self._previous = None
        self._still_since = None
        self._read_this_rest = False
        self._moving = False
        self._still = []

    def motion(self, frame: np.ndarray) -> float | None:
        """Share of changed pixels against the previous frame (None for the first)."""
        small = self._small(frame)
        prev = self._previous
        self._previous = small
        if prev is None or prev.shape != small.shape:
            return None
        diff = cv2.absdiff(small, prev)
        return float(np.count_nonzero(diff > self.pixel_delta)) / diff.size

    def feed(self, frame: np.ndarray, t: float) -> SettleEvent | None:
        """Take one frame taken at time ``t`` (seconds); return an event or None."""
        moved = self.motion(frame)
        if moved is None:
            self._still_since = t
            return None
        if moved > self.threshold:
            self._still_since = None
            self._still = []
            if not self._moving:
                self._moving = True
                self._read_this_rest = False
                return SettleEvent(ROLLING, t)
            self._read_this_rest = False
            return None
        self._moving = False
        if self._still_since is None:
            self._still_since = t
        if not self._read_this_rest and t - self._still_since >= self.still_seconds:
            self._still.append(frame)
            if len(self._still) >= self.frames:
                self._read_this_rest = True
                still, self._still = self._still, []
                return SettleEvent(READING, t, self._rest_reader(still))
        return None

    def _small(self, frame: np.ndarray) -> np.ndarray:
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        h, w = grey.shape
        height = max(1, round(h * self.width / w))
        small = cv2.resize(grey, (self.width, height), interpolation=cv2.INTER_AREA)
        # A light blur keeps sensor noise from counting as motion.
        return cv2.GaussianBlur(small, (5, 5), 0)
