"""Dice lying side by side are dice, not the pips of one larger die (vision.reader._one_per_die)."""

from __future__ import annotations

import numpy as np

from vision import reader
from vision.face import FaceReading
from vision.finder import Spot


def reading(value: int, pips: list[complex]) -> FaceReading:
    return FaceReading(value, 5.0, 0.0, 40.0, 0.1, np.array(pips))


def test_two_dice_side_by_side_are_kept_and_the_large_two_they_make_is_dropped() -> None:
    # Two 40 px dice touching, and the finder's 80 px spot over both read as a 2
    # whose "pips" are the two dice's centres.
    big = (Spot(100, 100, 80, 0.6), reading(2, [80 + 100j, 120 + 100j]))
    left = (Spot(80, 100, 40, 0.5), reading(1, [80 + 100j]))
    right = (Spot(120, 100, 40, 0.5), reading(3, [110 + 90j, 120 + 100j, 130 + 110j]))
    kept = reader._one_per_die([big, left, right])
    assert [r.value for _, r in kept] == [1, 3]


def test_a_dies_pips_seen_as_spots_are_dropped_and_the_die_kept() -> None:
    pips = [85 + 85j, 115 + 115j]
    big = (Spot(100, 100, 60, 0.8), reading(2, pips))
    # A pip's spot is about a sixth of its die's side (a third at most).
    specks = [(Spot(p.real, p.imag, 11, 0.4), reading(1, [p])) for p in pips]
    kept = reader._one_per_die([big, *specks])
    assert [r.value for _, r in kept] == [2]
