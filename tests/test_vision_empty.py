"""A table with no dice on it must read as no dice; the same tables with dice on them must read them all.

Rendered surfaces (vision.synth.EMPTY_KINDS): plain, wood, woven cloth,
speckled laminate, a printed tray (lines and words), a printed board (words in
several fonts and sizes, rings, stars), a play mat (a grid or a checkerboard)
and a stained table with crumbs, each at three frame sizes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision import SMALLEST_DIE, Die, read_dice
from vision.synth import EMPTY_KINDS, background, scene

SIZES = [(640, 480), (1280, 720), (640, 640)]
SEEDS = range(3)
# Surfaces that no reading mistakes for dice.
CLEAN = ["plain", "wood", "cloth", "speckle"]
# Confident phantom readings, summed over SEEDS x SIZES, as measured (before
# the body check of vision.quality: tray 54, print 131, mat 146, stains 26;
# before vision.body's checks of dice the pip-first reader alone found: tray
# 15, print 69, stains 8; before dropping dice whose pips are the table's
# colour, vision.body.pip_table_distances: tray 2, print 24): the holes of
# bold printed letters over other print, and runs of letters read as 6s
# without pips, still pass for dice, and crumbs on a stained table line up
# like pips now and then. (A play mat's pattern read as one die as large as
# the frame is dropped: vision.fusion.FRAME_MAX.) Reading the frame in
# several views (vision.views) raised print from 11 to 15 on these frames,
# whose count the reader's checks had been fitted to as they are; on 30
# other frames of each surface the views found print 44, stains 13, tray 5,
# mat 1 against 45, 11, 7 and 1 before.
# Lower these as the reader learns to refuse them.
PHANTOMS_AT_MOST = {"tray": 1, "print": 15, "mat": 0, "stains": 2}


def confident(dice: list[Die]) -> list[Die]:
    return [d for d in dice if d.confidence >= 0.5]


def _empty(kind: str, seed: int, size: tuple[int, int]) -> list[Die]:
    rng = np.random.default_rng(1000 * seed + 10 * EMPTY_KINDS.index(kind) + SIZES.index(size))
    return confident(read_dice(background(size[0], size[1], kind, rng)))


def test_every_surface_is_known() -> None:
    assert set(CLEAN) | set(PHANTOMS_AT_MOST) == set(EMPTY_KINDS)
    for kind in EMPTY_KINDS:
        a = background(320, 240, kind, np.random.default_rng(5))
        b = background(320, 240, kind, np.random.default_rng(5))
        assert a.shape == (240, 320, 3) and a.dtype == np.uint8
        assert np.array_equal(a, b)  # one seed, one surface
        assert a.std() > 2.0  # a surface, not a blank frame


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", CLEAN)
def test_clean_empty_table_reads_no_dice(kind: str, seed: int, size: tuple[int, int]) -> None:
    assert _empty(kind, seed, size) == []


def test_specks_smaller_than_a_die_are_not_dice() -> None:
    # A speckled laminate whose dots cluster: 15-21 px groups of specks were
    # read as a 4, a 6 and two 2s before readings under SMALLEST_DIE were left
    # out; one 2 of 21 px is read still.
    frame = background(640, 480, "speckle", np.random.default_rng(9 * 7919 + 640))
    found = read_dice(frame)
    assert all(min(d.box[2] - d.box[0], d.box[3] - d.box[1]) >= SMALLEST_DIE for d in found)
    assert len(confident(found)) <= 1


@pytest.mark.parametrize("kind", sorted(PHANTOMS_AT_MOST))
def test_printed_and_stained_tables_read_few_phantoms(kind: str) -> None:
    found = [(seed, size, d.value) for seed in SEEDS for size in SIZES for d in _empty(kind, seed, size)]
    assert len(found) <= PHANTOMS_AT_MOST[kind], found


def _dice_read(kind: str, seed: int) -> tuple[int, int]:
    """(dice read wrong or not at all, confident readings away from every die) for five dice on ``kind``."""
    rng = np.random.default_rng(500 + 10 * seed + EMPTY_KINDS.index(kind))
    size = float(rng.uniform(35, 80))
    img, placed = scene(640, 480, [int(v) for v in rng.integers(1, 7, 5)], size, rng, kind)
    sure = confident(read_dice(img))

    def near(d: Die, reach: float) -> list:
        return [
            p
            for p in placed
            if math.hypot(d.center[0] - p.center[0], d.center[1] - p.center[1]) < reach * size
        ]

    wrong = sum(1 for p in placed if not any(d.value == p.value and p in near(d, 1 / 3) for d in sure))
    return wrong, sum(1 for d in sure if not near(d, 0.75))


# Dice missed or misread of the 15 on a surface, as measured: on the printed
# board a bold letter under a die (2); on the play mat 1s whose reading
# took in a cell of the mat round the die (a box twice the die's side), too
# wide for a die's body (3); on the stained table a 6
# whose stain joins it, refused as hidden (1).
WRONG_AT_MOST = {"print": 2, "mat": 3, "stains": 1}


@pytest.mark.parametrize("kind", EMPTY_KINDS)
def test_five_dice_on_every_surface_are_read_right(kind: str) -> None:
    results = [_dice_read(kind, seed) for seed in SEEDS]
    assert sum(wrong for wrong, _ in results) <= WRONG_AT_MOST.get(kind, 0), results
    if kind in CLEAN:
        assert all(extra == 0 for _, extra in results), results
