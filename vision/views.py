"""Reading a frame in several views (turned, resized) and letting the readings vote.

The full reader's decisions near its limits (a pip just found or not, a box
falling between two touching dice) depend on where the pixel grid falls on a
die, not only on what the die shows. The same frame turned by a half or a
quarter (exact turns: no pixel is resampled), or resized a little, gives
readings whose mistakes mostly differ, and a vote among them reads more dice
right.

Its constants were fitted on byler-d6/train, as were the reader's own; the
reader reads those photos better as they are (die accuracy 0.968) than turned
(0.950 on average over their seven other orientations), so it is measured on
the photos mirrored, an orientation nothing was fitted on. There one reading
gives die accuracy 0.952 and image accuracy 0.755 (20191208: 0.944, 0.67;
20191209: 0.966, 0.84); ``read_views`` with up to six views 0.966 and
0.805 (0.961, 0.74; 0.973, 0.87), precision 0.997 both. With the
unanimity rule of ``_outvote`` and the pip-grid check's spacing limit
(``vision.verify.PINNED``) added later: 0.968 and 0.820, and on the photos
transposed 0.966 and 0.795; with the pip-first reader's edge step for vivid
faces (``vision.reader.EDGE_VIVID_CHROMA``) 0.970 and 0.830, and 0.968 and
0.805.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from vision import FIRST, SURE, VIEWS

if TYPE_CHECKING:
    from vision.die import Die

# Two readings of different views are of one die when their centres are
# closer than this share of the die's side.
SAME_DIE = 0.5


def turned(image: np.ndarray, turns: int) -> np.ndarray:
    """``image`` turned a quarter anticlockwise ``turns`` times."""
    return np.ascontiguousarray(np.rot90(image, turns % 4))


def unturn_point(x: float, y: float, turns: int, shape: tuple[int, ...]) -> tuple[float, float]:
    """Where the point (x, y) of ``turned(image, turns)`` lies in ``image`` of ``shape``."""
    h, w = shape[:2]
    k = turns % 4
    if k == 1:
        return w - y, x
    if k == 2:
        return w - x, h - y
    if k == 3:
        return y, h - x
    return x, y


def unturn(dice: list[Die], turns: int, shape: tuple[int, ...]) -> list[Die]:
    """``dice`` read on ``turned(image, turns)``, moved back onto ``image`` of ``shape``."""
    if turns % 4 == 0:
        return dice
    out = []
    for d in dice:
        x0, y0, x1, y1 = d.box
        corners = [unturn_point(x, y, turns, shape) for x, y in ((x0, y0), (x1, y1))]
        xs = [c[0] for c in corners]
        ys = [c[1] for c in corners]
        pips = [unturn_point(x, y, turns, shape) for x, y in d.pips]
        out.append(replace(d, box=[min(xs), min(ys), max(xs), max(ys)], pips=pips))
    return out


def _side(d: Die) -> float:
    """A die's side for pooling: its measured side or its box, whichever is larger.

    (At least 8 px, so that a reading with a degenerate box still pools with
    readings of it a pixel or two away.)
    """
    x0, y0, x1, y1 = d.box
    return max(d.side, x1 - x0, y1 - y0, 8.0)


def _pools(readings: Sequence[list[Die]]) -> list[list[Die]]:
    """The readings of each die: one per reading at most, nearest first."""
    pools: list[tuple[float, float, list[Die], set[int]]] = []
    for index, dice in enumerate(readings):
        for d in dice:
            cx, cy = d.center
            reach = SAME_DIE * _side(d)
            best = None
            for pool in pools:
                if index in pool[3]:
                    continue
                gap = ((cx - pool[0]) ** 2 + (cy - pool[1]) ** 2) ** 0.5
                if gap < reach and (best is None or gap < best[0]):
                    best = (gap, pool)
            if best is None:
                pools.append((cx, cy, [d], {index}))
            else:
                best[1][2].append(d)
                best[1][3].add(index)
    return [members for _, _, members, _ in pools]


def agree(readings: Sequence[list[Die]]) -> bool:
    """Whether every die of ``readings`` is read alike (same value, equally sure) by all of them."""
    for members in _pools(readings):
        if len(members) < len(readings):
            if any(d.confidence >= SURE for d in members):
                return False
            continue
        if len({d.value for d in members}) > 1 or len({d.confidence >= SURE for d in members}) > 1:
            return False
    return True


def read_view(
    read: Callable[[np.ndarray], list[Die]], image: np.ndarray, turns: int, scale: float
) -> list[Die]:
    """``read`` ``image`` turned ``turns`` quarters and resized by ``scale``, in ``image``'s pixels."""
    import cv2

    from vision.reader import rescale

    frame = image
    if scale != 1.0:
        h, w = image.shape[:2]
        size = (round(w * scale), round(h * scale))
        frame = cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR)
    dice = read(turned(frame, turns))
    dice = unturn(dice, turns, frame.shape)
    if scale != 1.0:
        rescale(dice, over=scale)
    return dice


def check_views(views: int) -> None:
    """Refuse a number of views outside 1 to ``len(VIEWS)``."""
    if not 1 <= views <= len(VIEWS):
        raise ValueError(f"views must be 1 to {len(VIEWS)}, not {views}")


def read_views(
    read: Callable[[np.ndarray], list[Die]], image: np.ndarray, most: int = len(VIEWS)
) -> list[Die]:
    """``read`` ``image`` in up to ``most`` of ``VIEWS``, and vote.

    The views after the ``FIRST`` are read only when those disagree: the
    frame as it is and half turned agreed on 81% of the mirrored train photos.
    """
    check_views(most)
    readings = [read_view(read, image, *v) for v in VIEWS[: min(most, FIRST)]]
    if most == 1:
        return readings[0]
    if most > FIRST and not agree(readings):
        readings += [read_view(read, image, *v) for v in VIEWS[FIRST:most]]
    return vote(readings)


def _outvote(sure: list[Die], unsure: list[Die]) -> bool:
    """Whether the sure readings of a die carry it against the unsure ones.

    More sure readings than unsure, and at least two: three when any reading
    was unsure. Two sure readings against two unsure were how most of the
    phantoms the views add came, from printed boards' letters read at 0.55.
    Three sure against three unsure carry it when all six read one value: a
    gold 2 on mirrored train was lost so (one photo more right there; the
    held-out empty frames and the other orientations unchanged).
    """
    if len(sure) == len(unsure) >= 3:
        return len({d.value for d in sure + unsure}) == 1
    return len(sure) > len(unsure) and (len(sure) >= 3 or (len(sure) == 2 and not unsure))


def vote(readings: Sequence[list[Die]]) -> list[Die]:
    """One list of dice from several readings of the same frame.

    Readings of one die are pooled (``_pools``). A die is sure when its sure
    readings carry it (``_outvote``). Its value is the one most sure readings
    give, ties going to the larger sum of confidence; the most confident of
    those readings stands for it, its confidence lowered towards ``SURE`` by
    the share of readings that gave another value or were unsure. A die that
    is not sure is reported as its most confident unsure reading, so the table
    asks for a re-roll; one that a single reading saw, surely, and no other
    saw at all is left out.

    Measured with the four turns on the mirrored train photos (one reading:
    die accuracy 0.952, and 45 phantoms on 30 held-out rendered printed
    boards): taking every die any reading was sure of read 0.963 of the dice
    right but found 98 phantoms; two sure readings, 0.962 and 48; two agreeing
    on the value, 0.960 and 46. With the six views and ``_outvote``: 0.966 and
    44 (stained tables 13 against 11 for one reading, trays 5 against 7, play
    mats 1 and 1, speckled laminate 4 against 5; plain, wood, cloth 0).
    """
    out = []
    for members in _pools(readings):
        sure = [d for d in members if d.confidence >= SURE]
        unsure = [d for d in members if d.confidence < SURE]
        if not _outvote(sure, unsure):
            if unsure:
                out.append(max(unsure, key=lambda d: d.confidence))
            continue
        count: dict[int, int] = defaultdict(int)
        weight: dict[int, float] = defaultdict(float)
        for d in sure:
            count[d.value] += 1
            weight[d.value] += d.confidence
        value = max(count, key=lambda v: (count[v], weight[v]))
        best = max((d for d in sure if d.value == value), key=lambda d: d.confidence)
        share = count[value] / len(members)
        out.append(replace(best, confidence=SURE + (best.confidence - SURE) * share))
    return out
