"""OpenCV dice reading: find dice, count their pips, tell when a roll has settled.

``from vision import read_dice, Die``. ``read_dice(image)`` returns every die
whose top face shows, with its value, its box in the image's pixels and its
confidence, the probability that the value is right (``vision.reader``).
OpenCV is imported on first use so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# (a plain dataclass: importing it costs nothing, unlike the reader and OpenCV)
from vision.die import Die

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SURE", "Die", "N_", "read_dice"]

# A reading at or above this confidence counts as sure; below it the table
# asks for a re-roll (or a correction from a phone) instead of guessing.
SURE = 0.5


def N_(text: str) -> str:
    """Marks a message for the players' catalog (tablepi/locale), where the table
    and its commands say it in their language; the reader itself speaks English."""
    return text


def read_dice(image: np.ndarray, expect: int | None = None) -> list[Die]:
    """Read every die whose top face shows in ``image`` (a BGR, grey or BGRA array);
    ``expect``: how many dice were thrown, where known (``vision.table_reader``)."""
    if expect is None:
        from vision.reader import read_dice as read

        return read(image)
    from vision.table_reader import TableReader

    return TableReader(views=1).read(image, expect=expect)
