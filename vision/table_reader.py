"""Reading as one table's camera reads: roll after roll, learning the camera as it goes.

:class:`TableReader` reads each settled roll in the table's three views
(``vision.views``) and teaches its :class:`~vision.calibration.Calibration`
with the dice its first two views read sure (their sizes and colours). Told
how many dice were thrown, it stops after two views when the third cannot
change the roll (as many dice as were thrown, each read so surely by both
that it stays sure as that value). Once the calibration knows the dice's size
over the frame, a roll is read looking only for dice of that size where they
lie (fewer pyramid levels, no pip or cluster of dice taken for a die). A roll
that reads fewer sure dice than the table expects is looked at again at the
size expected, reading fainter spots too; still short, or with none, it is
read again as without a calibration, and the better reading is kept; dice
that then no longer fit the model, roll after roll, make the calibration
start again (the camera moved, or it is a phone). So a calibration can only
help. Before there is one, a roll short of dice is looked at again so at the
size its own sure dice show (``vision.read_dice(frame, expect=N)`` reads one
frame so). A roll that reads as many dice sure as were thrown leaves out the
unsure readings likelier no die at all (a token or a picture die in view),
calibrated or not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision import SURE
from vision import tunables as T
from vision.calibration import Calibration, DieSizes, one_size
from vision.die import Die
from vision.halvings import Halvings
from vision.reader import SHIPPED, Models, as_bgr, read_dice
from vision.views import AS_IS, MIRROR, QUARTER_TURN, VIEWS, combine, placed_back, turned


@dataclass(frozen=True)
class ViewedSizes:
    """A frame's die sizes as a view of it (``vision.views``) shows them."""

    sizes: DieSizes
    view: str
    shape: tuple[int, ...]

    def _back(self, x: float, y: float) -> tuple[float, float]:
        h, w = self.shape[:2]
        if self.view == QUARTER_TURN:  # turned clockwise: (x, y) came from (y, h - x)
            return y, h - x
        if self.view == MIRROR:
            return w - x, y
        return x, y

    def side(self, x: float, y: float) -> float:
        return self.sizes.side(*self._back(x, y))

    def agrees(self, x: float, y: float, side: float) -> bool:
        return self.sizes.agrees(*self._back(x, y), side)

    def range(self) -> tuple[float, float]:
        return self.sizes.range()


class TableReader:
    """One table's camera: ``read(frame)`` for each settled roll, in order."""

    def __init__(self, models: Models = SHIPPED, calibration: Calibration | None = None, views: int = 3):
        self.models = models
        self.calibration = calibration or Calibration()
        self.views = VIEWS[:views]

    def read(self, frame: np.ndarray, expect: int | None = None) -> list[Die]:
        """The dice of a photo read as one settled roll; ``expect``: how many the table knows were thrown."""
        return self.read_still([frame] * len(self.views), expect)

    def read_still(self, frames: list[np.ndarray], expect: int | None = None) -> list[Die]:
        """The dice of one settled roll from its still frames, each read in the next view."""
        sizes = self.calibration.sizes
        # Each frame in its view, kept for the whole rest: a second look reads only what is new.
        seen = [
            Halvings(as_bgr(np.ascontiguousarray(turned(f, self.views[i % len(self.views)]))))
            for i, f in enumerate(frames)
        ]
        dice, learnable = self._read(frames, seen, sizes, expect=expect)
        sides = [d.side for d in dice if d.confidence >= T.CALIBRATE_SURE]
        if sizes is None and expect is not None and _sure(dice) < expect and len(sides) >= T.OWN_SIZE_DICE:
            # Dice missing and no calibration yet: look again at the size this roll's sure dice show.
            # A size guessed from one roll does not teach the camera's model.
            own = one_size(sides, frames[0].shape[1], frames[0].shape[0])
            again = self._read(frames, seen, own, T.SECOND_LOOK, expect)[0]
            if _sure(again) > _sure(dice):
                dice = again
        if sizes is not None:
            # Dice missing: look again at the size expected, at fainter spots; then as uncalibrated.
            if expect is not None and _sure(dice) < expect:
                again = self._read(frames, seen, sizes, T.SECOND_LOOK, expect)
                if _sure(again[0]) > _sure(dice):
                    dice, learnable = again
            sure = _sure(dice)
            if sure == 0 or (expect is not None and sure < expect):
                plain = self._read(frames, seen, None, expect=expect)
                if _sure(plain[0]) > sure:
                    dice, learnable = plain
        if expect is not None and _sure(dice) == expect:
            # As many dice sure as were thrown: what is likelier no die (a token, a picture die)
            # is not one more; an unsure reading likely a die (one die read twice) still refuses.
            dice = [d for d in dice if d.confidence >= SURE or d.likely_die >= T.EXTRA_DIE]
        self.calibration.learn(learnable, frames[0].shape, frames[0])
        return dice

    def _read(
        self,
        frames: list[np.ndarray],
        seen: list[Halvings],
        sizes: DieSizes | None,
        heat: float = T.FINDER_MIN,
        expect: int | None = None,
    ) -> tuple[list[Die], list[Die]]:
        """The dice of ``frames``, and those the calibration learns from: the first two frames'
        (a roll beyond doubt after two is read no further, and every roll teaches alike)."""
        readings = []
        for i, (frame, viewed) in enumerate(zip(frames, seen, strict=True)):
            view = self.views[i % len(self.views)]
            expected = None if sizes is None else ViewedSizes(sizes, view, frame.shape)
            readings.append(placed_back(read_dice(viewed, self.models, expected, heat), view, frame.shape))
            if expect is not None and i + 1 < len(frames) and _beyond_doubt(readings, len(frames), expect):
                break
        dice = readings[0] if len(readings) == 1 and self.views[0] == AS_IS else combine(readings)
        learnable = dice if len(readings) <= 2 else combine(readings[:2])
        return dice, learnable


def _beyond_doubt(readings: list[list[Die]], frames: int, expect: int) -> bool:
    """Whether the frames not yet read (of ``frames``) cannot change what the table takes: as
    many dice as were thrown, each read as one value so surely that it stays sure and keeps
    that value whatever the rest say; a die only the rest could see would be graded under
    ``vision.SURE`` and ``T.EXTRA_DIE`` (``combine``), so left out."""
    unseen = (frames - len(readings)) / frames  # the most a die only the rest see could get
    sums = [d.confidence * len(readings) for d in combine(readings)]
    return len(sums) == expect and unseen < min(SURE, T.EXTRA_DIE) and all(s > SURE * frames for s in sums)


def _sure(dice: list[Die]) -> int:
    return sum(1 for d in dice if d.confidence >= SURE)
