"""OpenCV dice reading: locate dice, count pips, tell when a roll has settled.

``from vision import read_dice, Die``. ``read_dice`` combines two readers that
miss different dice: the body-first reader (``vision.faces.read_faces``) and
the pip-first reader (``vision.reader.read_dice``), fused by
``vision.fusion.fuse`` (which checks doubtful readings against their pip grid,
``vision.verify``). ``vision.recover`` reads again, in the die's own contrast,
the dice both readers saw but could not read surely, and ``vision.quality``
lowers the confidence of dice that are blurred, cocked or half hidden. A clean
frame (dice lying apart on a plain table) is read first by the quick reader,
``vision.fast``, which answers only when it is sure of every die and costs a
few milliseconds; every other frame goes through the readers above, in up to
six views of the frame (turned, resized) that vote, ``vision.views``. OpenCV
is imported on first use so that importing the package stays cheap.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

# (a plain dataclass: importing it costs nothing, unlike the readers and OpenCV)
from vision.die import Die

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SURE", "VIEWS", "Die", "read_dice"]

# A reading at or above this confidence counts as sure; below it the table
# asks for a re-roll (or a correction from a phone) instead of guessing.
SURE = 0.5

# The pip-first reader's full-resolution pass is most of its cost, so a frame
# of large dice is read on a copy scaled down to keep the smallest die found
# at least this side (px). It reads the 22-35 px dice of byler-d6/train well,
# but on a 0.7x copy (16-25 px) its die accuracy fell from 0.75 to 0.46,
# hence the margin. At 28 px the rendered 48 px dice of ``tablepi bench dice``
# (measured 41-48 px) are all read on the 0.71x copy, where at 32 px those
# measured under 45.3 px (a third) were read whole; the train figures are the
# same (no train photo has its smallest die over 36 px) and one half-hidden
# rendered die fewer is read surely (tests/test_vision_refusal.py). At 24 px a
# train image was lost.
PIP_READ_SIDE = 28.0
# Copies tried, smallest first. The 0.65x copy has 0.85 of the 0.71x one's
# pixels: the bench's 48 px dice measured 43-48 px are read there (CPU median
# 33.8 -> 30.9 ms a frame); train is unchanged, and of the rendered troubled
# dice one more half-hidden one is read surely (6, as before the 28 px side).
# A 0.6x copy let a second cocked die through (tests/test_vision_refusal.py).
PIP_SCALES = (0.5, 0.65, 0.7071)
# Dice are read from about 25 px across; anything read smaller is specks on
# the table (rendered speckled laminate gave readings of 11-15 px, four of the
# five phantoms on 120 empty frames). The smallest sure box on byler-d6/train
# is 18.7 px, in any of the photos' eight orientations.
SMALLEST_DIE = 16.0
# The views of a frame the full reader reads (``vision.views``), as (quarter
# turns, scale), in the order they are read. The first ``FIRST`` are always
# read; the others only when those disagree (on the mirrored train photos,
# 2.9 views a photo on average). There the four
# turns alone read die accuracy 0.962 and image accuracy 0.790, these six
# 0.966 and 0.805, with sizes 0.8 and 1.25 instead 0.958 and 0.785 (read
# alone, a view resized by 0.9 gave 0.931, by 1.12 0.944); two more sizes,
# or three views before the rest, changed at most one photo.
VIEWS = ((0, 1.0), (2, 1.0), (1, 1.0), (3, 1.0), (0, 0.9), (0, 1.12))
FIRST = 2


def read_dice(image: np.ndarray, *, quick: bool = True, views: int = len(VIEWS)) -> list[Die]:
    """Read every die whose top face shows in ``image`` (a BGR, grey or BGRA array).

    ``quick=False`` skips the quick reader and sends every frame through the
    full one (the benchmark times both). ``views`` (1 to ``len(VIEWS)``) is how
    many of ``VIEWS`` the full reader reads at most, each costing a full
    reading (``vision.views``).
    """
    from vision import fast
    from vision.views import check_views, read_views

    check_views(views)  # (before the quick reader, which reads no views)
    # A clean frame (dice alone on a plain table, every one plain to see) is
    # read by the quick reader, which answers only when it is sure of them all.
    first = fast.read(image) if quick else None
    if first is not None:
        return first
    dice = read_views(_read_full, image, views)
    return [d for d in dice if min(d.box[2] - d.box[0], d.box[3] - d.box[1]) >= SMALLEST_DIE]


def _read_full(image: np.ndarray) -> list[Die]:
    """The full reader: both readers, fused, recovered and graded."""
    from vision import reader
    from vision.faces import scan_faces
    from vision.fusion import fuse
    from vision.quality import grade
    from vision.recover import recover

    # The pip-first pass runs on every frame, even one the body-first reader
    # seems to explain: a die whose body looks like the table (a white die on a
    # light board, any die in a grey frame) leaves that reader nothing to see.
    scan = scan_faces(image)
    sure = [d.side for d in scan.dice if d.confidence >= SURE and d.side > 0]
    smallest = min(sure) if sure else 0.0
    scale = next((k for k in PIP_SCALES if smallest * k >= PIP_READ_SIDE), 1.0)
    # The dice's size tells the pip-first reader which of its levels to read.
    sides = [d.side for d in scan.dice if d.side > 0]
    side = statistics.median(sides) * scale if sides else 0.0
    if scale == 1.0:
        pip_dice = reader.read_dice(image, side)
    else:
        h, w = image.shape[:2]
        small = reader.shrink(image, (round(w * scale), round(h * scale)))
        pip_dice = reader.read_dice(small, side)
        reader.rescale(pip_dice, over=scale)
    return grade(image, recover(image, fuse(pip_dice, scan.dice, image), pip_dice, scan.dice, scan.unread))
