"""One scene read in several views, and the readings combined into one.

A die's value does not change when the frame is turned a quarter or mirrored,
but the learned parts' opinions do (the finder and the verifier are not
exactly symmetric), and so do their mistakes. The table reads each of the
still frames of a rest in another view (:data:`VIEWS`) and averages what they
say (:func:`combine`): a die is then sure only when the views together give
one value a mean confidence of ``vision.SURE`` or more, which takes at least
two of three views reading that value (one view gives at most a third). One
sure view and two unsure ones reading the same value may make it so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

from vision.die import Die

AS_IS = "as is"
QUARTER_TURN = "quarter turn"
MIRROR = "mirror"
# The views the still frames of one rest are read in, in turn.
VIEWS = (AS_IS, QUARTER_TURN, MIRROR)


def turned(frame: np.ndarray, view: str) -> np.ndarray:
    """``frame`` as ``view`` shows it."""
    if view == QUARTER_TURN:
        return cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE)
    if view == MIRROR:
        return cv2.flip(frame, 1)
    if view == AS_IS:
        return frame
    raise ValueError(f"unknown view {view!r}; the views are {', '.join(VIEWS)}")


def box_back(box: Sequence[float], view: str, shape: tuple[int, ...]) -> list[float]:
    """A box read on ``view`` of a frame of ``shape``, in the frame's own pixels."""
    x0, y0, x1, y1 = (float(v) for v in box)
    h, w = shape[:2]
    if view == QUARTER_TURN:
        return [y0, h - x1, y1, h - x0]
    if view == MIRROR:
        return [w - x1, y0, w - x0, y1]
    return [x0, y0, x1, y1]


def read_in_view(reader: Callable[[np.ndarray], list[Die]], frame: np.ndarray, view: str) -> list[Die]:
    """``reader``'s dice on ``frame`` seen in ``view``, placed back in the frame's pixels."""
    return placed_back(reader(turned(frame, view)), view, frame.shape)


def placed_back(dice: list[Die], view: str, shape: tuple[int, ...]) -> list[Die]:
    """Dice read on ``view`` of a frame of ``shape``, in the frame's own pixels."""
    if view == AS_IS:
        return dice
    return [Die(d.value, box_back(d.box, view, shape), d.confidence, d.likely_die) for d in dice]


def read_views(
    reader: Callable[[np.ndarray], list[Die]], frames: Sequence[np.ndarray], views: Sequence[str] = VIEWS
) -> list[Die]:
    """One reading from still frames of one scene, each read in the next view."""
    return combine([read_in_view(reader, f, views[i % len(views)]) for i, f in enumerate(frames)])


def read_rest(image: np.ndarray, reader: Callable[[np.ndarray], list[Die]] | None = None) -> list[Die]:
    """``image`` read as the table reads a settled roll: once in each view, combined
    (the table's frames differ by sensor noise too; a photo is one still scene).
    ``reader`` reads one frame (default ``vision.read_dice``)."""
    import vision

    return read_views(reader or vision.read_dice, [image] * len(VIEWS))


def combine(readings: list[list[Die]]) -> list[Die]:
    """One reading from readings of the same still dice.

    Dice in one place are one die; its value is the one whose confidences,
    summed over the readings, are highest, and its confidence that sum over
    the number of readings (a reading that missed the die or read another
    value adds nothing), and how likely a die lies there the mean of the
    readings' (one that missed it adds nothing). A die only one reading of
    three saw is so kept unsure, and the count it makes tells the table to ask."""
    found: list[tuple[Die, dict[int, float], set[int], list[float]]] = []
    for i, dice in enumerate(readings):
        for die in dice:
            place = next((f for f in found if i not in f[2] and _same_place(f[0], die)), None)
            if place is None:
                place = (die, {}, set(), [])
                found.append(place)
            _, sums, seen, likely = place
            seen.add(i)
            likely.append(float(die.likely_die))
            sums[die.value] = sums.get(die.value, 0.0) + float(die.confidence)
    out = []
    for first, sums, _, likely in found:
        value = max(sums, key=lambda v: sums[v])
        out.append(Die(value, list(first.box), sums[value] / len(readings), sum(likely) / len(readings)))
    return out


def _same_place(a: Die, b: Die) -> bool:
    side = max(a.box[2] - a.box[0], a.box[3] - a.box[1], b.box[2] - b.box[0], b.box[3] - b.box[1], 1.0)
    return abs(a.center[0] - b.center[0]) < side / 2 and abs(a.center[1] - b.center[1]) < side / 2
