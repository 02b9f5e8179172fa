"""A table with no dice on it must read as no sure dice; the same tables with dice on them must read them all.

Rendered surfaces (vision.synth.EMPTY_KINDS): plain, wood, woven cloth,
speckled laminate, a printed tray (lines and words), a printed board (words in
several fonts and sizes, rings, stars), a play mat (a grid or a checkerboard)
and a stained table with crumbs, each at three frame sizes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision import SURE, Die, read_dice
from vision.synth import EMPTY_KINDS, background, scene

SIZES = [(640, 480), (1280, 720), (640, 640)]
SEEDS = range(3)
# Surfaces that no reading mistakes for dice.
CLEAN = ["plain", "wood", "cloth", "speckle"]
# Sure phantom readings, summed over SEEDS x SIZES (9 frames): bold printed letters
# and rings pass for pips on a face now and then, and crumbs on a stain line up
# like pips (the more so as the face verifier sees colour: a pale crumb on a dark
# stain is a pip on a dark die to it). Measured 0 / 0 / 0 / 2 with OpenCV 5.0 and
# 5.1; each bound has a frame's room. Lower these as the reader learns.
PHANTOMS_AT_MOST = {"tray": 1, "print": 1, "mat": 1, "stains": 3}


def sure(dice: list[Die]) -> list[Die]:
    return [d for d in dice if d.confidence >= SURE]


def _empty(kind: str, seed: int, size: tuple[int, int]) -> list[Die]:
    rng = np.random.default_rng(1000 * seed + 10 * EMPTY_KINDS.index(kind) + SIZES.index(size))
    return sure(read_dice(background(size[0], size[1], kind, rng)))


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


@pytest.mark.parametrize("kind", sorted(PHANTOMS_AT_MOST))
def test_printed_and_stained_tables_read_few_phantoms(kind: str) -> None:
    found = [(seed, size, d.value) for seed in SEEDS for size in SIZES for d in _empty(kind, seed, size)]
    assert len(found) <= PHANTOMS_AT_MOST[kind], found


def _dice_read(kind: str, seed: int) -> tuple[int, int]:
    """(dice read wrong or not at all, sure readings away from every die) for five dice on ``kind``."""
    rng = np.random.default_rng(500 + 10 * seed + EMPTY_KINDS.index(kind))
    size = float(rng.uniform(35, 80))
    img, placed = scene(640, 480, [int(v) for v in rng.integers(1, 7, 5)], size, rng, kind)
    found = sure(read_dice(img))

    def near(d: Die, reach: float) -> list:
        return [
            p
            for p in placed
            if math.hypot(d.center[0] - p.center[0], d.center[1] - p.center[1]) < reach * size
        ]

    wrong = sum(1 for p in placed if not any(d.value == p.value and p in near(d, 1 / 3) for d in found))
    return wrong, sum(1 for d in found if not near(d, 0.75))


# Dice not read sure and right of the 15 on a surface (most of them refused rather
# than misread: a woven cloth's or a play mat's pattern round a small die lowers
# its confidence). Measured 0 on plain, wood, speckle, cloth, print and stains,
# tray 1, mat 2 (OpenCV 5.0 and 5.1); each bound has a die's room.
WRONG_AT_MOST = {
    "plain": 1,
    "wood": 1,
    "speckle": 1,
    "cloth": 1,
    "tray": 2,
    "print": 1,
    "mat": 3,
    "stains": 1,
}


@pytest.mark.parametrize("kind", EMPTY_KINDS)
def test_five_dice_on_every_surface_are_read_right(kind: str) -> None:
    results = [_dice_read(kind, seed) for seed in SEEDS]
    assert sum(wrong for wrong, _ in results) <= WRONG_AT_MOST[kind], results
    if kind in CLEAN:
        assert all(extra == 0 for _, extra in results), results


@pytest.mark.parametrize("name", ["byler-d6", "rune55-d6", "matteop65-d6", "reinvent-d6"])
def test_empty_parts_of_real_photos_read_no_sure_die(shared_dir, name: str) -> None:
    from vision.robust import empty_phantoms

    # every 20th train photo: the squares holding no labelled die, at three scales (87 / 69 /
    # 378 / 102 tiles). None read a sure die with OpenCV 5.0 or 5.1; one is the margin.
    tiles, phantoms, where = empty_phantoms(shared_dir / "datasets" / name / "train", every=20)
    assert tiles > 50
    assert phantoms <= 1, where


def test_empty_tiles_keep_clear_of_every_labelled_die() -> None:
    from pathlib import Path

    from vision.datasets import Photo
    from vision.robust import TILE_SCALES, empty_tiles

    img, placed = scene(640, 480, [3, 5], 50, np.random.default_rng(2), "wood")
    photo = Photo(Path("p.png"), tuple((p.value, tuple(p.box)) for p in placed))
    tiles = empty_tiles(img, photo)
    assert tiles and len(tiles) % len(TILE_SCALES) == 0
    assert all(d.confidence < SURE for t in tiles[1 :: len(TILE_SCALES)] for d in read_dice(t))
    bare = empty_tiles(img, Photo(Path("p.png"), ()))
    assert len(bare) > len(tiles)  # the dice's squares were left out
