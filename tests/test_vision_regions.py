"""Tray and keep regions: filtering, keep-area split, drawing, validation."""

from __future__ import annotations

import numpy as np
import pytest

from vision import Die
from vision.regions import Regions, draw_dice, draw_regions


def die_at(x: float, y: float, value: int = 3) -> Die:
    return Die(value, [x - 10, y - 10, x + 10, y + 10], 0.9)


def test_no_regions_keeps_everything() -> None:
    r = Regions()
    dice = [die_at(5, 5), die_at(600, 400)]
    assert r.filter(dice, 640, 480) == dice
    assert r.split(dice, 640, 480) == (dice, [])


def test_tray_polygon_filters_dice_outside() -> None:
    r = Regions.from_values(tray=[[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]])
    inside, outside = die_at(320, 240), die_at(20, 20)
    assert r.filter([inside, outside], 640, 480) == [inside]


def test_keep_area_splits_kept_dice() -> None:
    r = Regions.from_values(tray=[[0, 0], [1, 0], [1, 1], [0, 1]], keep=[0.75, 0.0, 1.0, 0.3])
    rolled, kept = die_at(200, 300), die_at(600, 50)
    assert r.in_keep(kept, 640, 480) and not r.in_keep(rolled, 640, 480)
    assert r.split([rolled, kept], 640, 480) == ([rolled], [kept])


@pytest.mark.parametrize(
    "tray, keep",
    [
        ([[0.1, 0.1], [0.9, 0.1]], None),
        ([[0.1, 0.1], [1.5, 0.1], [0.5, 0.9]], None),
        ([[0.1, 0.1, 0.2], [0.9, 0.1], [0.5, 0.9]], None),
        (None, [0.5, 0.5, 0.4, 0.9]),
        (None, [0.1, 0.2, 0.3]),
        (None, [-0.1, 0.0, 0.5, 0.5]),
    ],
)
def test_bad_regions_are_refused(tray, keep) -> None:
    with pytest.raises(ValueError):
        Regions.from_values(tray, keep)


def test_drawing_marks_the_frame() -> None:
    frame = np.zeros((240, 320, 3), np.uint8)
    r = Regions.from_values(tray=[[0.1, 0.1], [0.9, 0.1], [0.5, 0.9]], keep=[0.0, 0.0, 0.3, 0.3])
    draw_regions(frame, r)
    assert frame.any()
    before = frame.copy()
    draw_dice(frame, [die_at(160, 120, 5), Die(2, [10, 10, 40, 40], 0.2)])
    assert (frame != before).any()
