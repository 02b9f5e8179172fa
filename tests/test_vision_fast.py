"""The quick reader (vision.fast) reads clean frames right and sends every other frame on.

Rendered scenes (vision.synth), where every die is known: whatever the quick
reader answers must be exactly the dice on the table; a frame with a die it
cannot be sure of (cocked, half hidden, blurred, touching another, at the
frame's edge, on a printed board, or a white die on a white table) must go to
the full reader; and most clean frames must be read quickly, or the quick
path would be no path.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from vision import Die, fast, read_dice
from vision.score import score
from vision.synth import (
    DICE_COLOURS,
    EMPTY_KINDS,
    PlacedDie,
    background,
    draw_die,
    rolling_scene,
    scene,
    trouble_scene,
)

KINDS = ["plain", "wood", "cloth", "speckle", "tray"]
FRAMES = [(640, 480), (1280, 720), (640, 640)]


def _right(dice: list[Die], placed: list[PlacedDie]) -> bool:
    """Every placed die read once with its value, and nothing else read."""
    if len(dice) != len(placed):
        return False
    for p in placed:
        near = [
            d for d in dice if math.hypot(d.center[0] - p.center[0], d.center[1] - p.center[1]) < p.size / 3
        ]
        if len(near) != 1 or near[0].value != p.value:
            return False
    return True


def _clean_frame(seed: int) -> tuple[np.ndarray, list[PlacedDie]]:
    """1-6 dice of 30-90 px (45-135 at 1280x720) on one of the bench's tables, at one of three frame sizes."""
    width, height = FRAMES[seed % len(FRAMES)]
    rng = np.random.default_rng(seed)
    size = float(rng.uniform(30, 90)) * height / 480
    count = int(rng.integers(1, 7))
    while True:  # (fewer dice when large ones leave no room for them all)
        try:
            return scene(
                width, height, [int(v) for v in rng.integers(1, 7, count)], size, rng, KINDS[seed % 5]
            )
        except ValueError:
            count -= 1


def test_accepted_clean_frames_are_read_right() -> None:
    # On 600 such frames (seeds 0-599) 320 were accepted, every one right.
    accepted = wrong = 0
    for seed in range(150):
        img, placed = _clean_frame(seed)
        dice = fast.read(img)
        if dice is None:
            continue
        accepted += 1
        wrong += not _right(dice, placed)
        assert all(d.confidence >= 0.5 and d.side > 0 and len(d.pips) == d.value for d in dice)
    assert wrong == 0
    assert accepted >= 60  # measured: 78 of 150 (none on the speckled table or the printed tray)


def test_most_clean_bench_frames_take_the_quick_path() -> None:
    # The frames of `tablepi bench dice`: five 48 px dice at 640x480, here on
    # the three plain tables (the speckled table and the printed tray go on).
    rng = np.random.default_rng(11)
    read = 0
    for i in range(50):
        img, placed = scene(640, 480, [int(v) for v in rng.integers(1, 7, 5)], 48.0, rng, KINDS[i % 3])
        dice = fast.read(img)
        if dice is not None:
            assert _right(dice, placed)
            read += 1
    assert read >= 0.8 * 50  # measured: 49 of 50


@pytest.mark.parametrize("trouble", ["cocked", "hidden", "blurred"])
def test_a_troubled_die_sends_the_frame_on(trouble: str) -> None:
    # 200 scenes of each trouble (all tables and colours, 30-90 px dice) were all sent on.
    for seed in range(35):
        rng = np.random.default_rng(3000 + seed)
        values = [int(v) for v in rng.integers(1, 7, int(rng.integers(0, 4)))]
        colours = [DICE_COLOURS[seed % len(DICE_COLOURS)]]
        img, _, _ = trouble_scene(
            640, 480, values, float(rng.uniform(40, 80)), rng, trouble, KINDS[seed % 5], colours
        )
        assert fast.read(img) is None, (trouble, seed)


@pytest.mark.parametrize("seed", range(4))
def test_a_rolling_frame_is_sent_on(seed: int) -> None:
    rng = np.random.default_rng(seed)
    img, _ = rolling_scene(640, 480, [int(v) for v in rng.integers(1, 7, 5)], 50.0, rng, KINDS[seed % 3])
    assert fast.read(img) is None


def _table_with(
    kind: str, seed: int, dice: list[tuple[int, tuple[float, float], float, float]]
) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = background(640, 480, kind, rng)
    for i, (value, centre, size, angle) in enumerate(dice):
        body, pip = DICE_COLOURS[(seed + i) % 5 + 2]  # coloured dice: plain to see on every table
        draw_die(img, value, centre, size, angle, body, pip)
    return np.clip(img + rng.normal(0, 2.5, img.shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("kind", ["plain", "wood", "cloth"])
def test_apart_the_same_dice_are_read_but_touching_they_are_sent_on(kind: str) -> None:
    apart = [(3, (150.0, 200.0), 50.0, 0.0), (5, (260.0, 200.0), 50.0, 0.0), (2, (450.0, 330.0), 50.0, 20.0)]
    dice = fast.read(_table_with(kind, 1, apart))
    assert dice is not None and sorted(d.value for d in dice) == [2, 3, 5]
    side_by_side = [
        (3, (150.0, 200.0), 50.0, 0.0),
        (5, (201.0, 200.0), 50.0, 0.0),
        (2, (450.0, 330.0), 50.0, 20.0),
    ]
    assert fast.read(_table_with(kind, 1, side_by_side)) is None
    corner_to_side = [  # the second die turned 45 degrees, a corner against the first's side
        (3, (150.0, 200.0), 50.0, 0.0),
        (5, (207.0, 205.0), 50.0, 45.0),
        (2, (450.0, 330.0), 50.0, 20.0),
    ]
    assert fast.read(_table_with(kind, 1, corner_to_side)) is None


@pytest.mark.parametrize("kind", ["plain", "wood", "cloth"])
@pytest.mark.parametrize("x", [10.0, 22.0, 618.0, 630.0])  # half the die out of sight, or 3 px
def test_a_die_at_the_frame_edge_sends_the_frame_on(kind: str, x: float) -> None:
    assert (
        fast.read(_table_with(kind, 2, [(4, (320.0, 240.0), 50.0, 10.0), (6, (x, 200.0), 50.0, 0.0)])) is None
    )


def _same_as_table(seed: int) -> tuple[np.ndarray, list[PlacedDie]]:
    """Two coloured dice and one of the table's own grey, 0.6-1 times their size, its pips black or grey."""
    rng = np.random.default_rng(seed)
    size = float(rng.uniform(30, 90))
    tone = int(rng.integers(150, 250))
    img = np.full((480, 640, 3), tone, np.uint8)
    placed = [
        draw_die(img, 5, (150.0, 150.0), size, 10.0, *DICE_COLOURS[2 + seed % 5]),
        draw_die(img, 3, (450.0, 150.0), size, 35.0, *DICE_COLOURS[2 + (seed + 1) % 5]),
    ]
    small = size * float(rng.uniform(0.6, 1.0))
    pip = (20, 20, 20) if rng.random() < 0.7 else (int(rng.integers(0, 120)),) * 3
    value, angle = int(rng.integers(1, 7)), float(rng.uniform(0, 90))
    placed.append(draw_die(img, value, (300.0, 330.0), small, angle, (tone, tone, tone), pip))
    return np.clip(img + rng.normal(0, 2.5, img.shape), 0, 255).astype(np.uint8), placed


def test_a_die_the_colour_of_the_table_is_not_missed() -> None:
    # Only its pips show (its rim and its pips' rims are as dark as a shadow).
    # The quick reader must read it or send the frame on, never read the
    # others alone: before shadows were kept in the search for spots, 42 of
    # 300 such frames (seeds 0-299) were read without it.
    for seed in range(60):
        img, placed = _same_as_table(seed)
        dice = fast.read(img)
        assert dice is None or _right(dice, placed), seed


@pytest.mark.parametrize("seed", range(3))
def test_the_same_frame_without_that_die_is_read(seed: int) -> None:
    img, placed = _same_as_table(seed)
    tone = int(img[0:40, 0:40].mean())
    bare = np.full_like(img, tone)
    for p, (body, pip) in zip(
        placed[:2], [DICE_COLOURS[2 + seed % 5], DICE_COLOURS[2 + (seed + 1) % 5]], strict=True
    ):
        draw_die(bare, p.value, p.center, p.size, p.angle, body, pip)
    dice = fast.read(
        np.clip(bare + np.random.default_rng(seed).normal(0, 2.5, bare.shape), 0, 255).astype(np.uint8)
    )
    assert dice is not None and _right(dice, placed[:2])


@pytest.mark.parametrize("kind", EMPTY_KINDS)
def test_an_empty_table_is_sent_on(kind: str) -> None:
    for seed in range(3):
        for width, height in FRAMES:
            assert fast.read(background(width, height, kind, np.random.default_rng(seed))) is None


@pytest.mark.parametrize("kind", ["tray", "print", "mat", "stains"])
def test_dice_on_a_printed_or_stained_table_are_sent_on(kind: str) -> None:
    for seed in range(4):
        rng = np.random.default_rng(seed)
        img, _ = scene(640, 480, [int(v) for v in rng.integers(1, 7, 5)], 50.0, rng, kind)
        assert fast.read(img) is None, (kind, seed)


def test_read_dice_reads_accepted_frames_as_the_full_reader_does(monkeypatch: pytest.MonkeyPatch) -> None:
    frames = [_clean_frame(seed) for seed in range(0, 60, 2)]
    quick = [read_dice(img) for img, _ in frames]
    accepted = [i for i, (img, _) in enumerate(frames) if fast.read(img) is not None]
    assert len(accepted) >= 10  # measured: 17 of 30
    monkeypatch.setattr(vision.fast, "read", lambda image: None)
    for i in accepted:
        img, placed = frames[i]
        full = [d for d in read_dice(img) if d.confidence >= 0.5]
        assert _right(quick[i], placed) and _right(full, placed), i


def test_train_photos_are_read_right_or_sent_on_with_a_reason(shared_dir: Path) -> None:
    # Photos of 3-25 dice, many touching, on a white tray: none was accepted
    # when this was written. Any that is must be read exactly as labelled;
    # every other one is sent on with the reason said.
    folder = shared_dir / "datasets" / "byler-d6" / "train"
    labels = json.loads((folder / "labels.json").read_text())
    for name in sorted(labels):
        dice, why = fast.explain(cv2.imread(str(folder / name)))
        if dice is None:
            assert why, name
        else:
            assert why == "", name
            assert (
                score({name: labels[name]}, {name: [d.to_dict() for d in dice]})["image_accuracy"] == 1.0
            ), name


def test_a_face_cut_out_along_a_wrong_outline_is_never_misread() -> None:
    # An outline round the middle of a die (or round more than the die) puts
    # the pips at the wrong places: before the face had to end where the
    # outline does, a 5 or a 3 seen through a half-size outline read as a 1
    # (231 wrong of 82800 such cut-outs; now none, and the right outline of
    # 0.9-1.05 sides still reads).
    table = (200, 205, 210)
    right = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        img = np.full((200, 200, 3), table, np.uint8)
        size, value, angle = float(rng.uniform(30, 90)), int(rng.integers(1, 7)), float(rng.uniform(0, 90))
        draw_die(img, value, (100.0, 100.0), size, angle, *DICE_COLOURS[seed % len(DICE_COLOURS)])
        img = np.clip(img + rng.normal(0, 2.5, img.shape), 0, 255).astype(np.uint8)
        for scale in np.linspace(0.4, 1.5, 12):
            for dx, dy, turn in [(0.0, 0.0, 0.0), (0.0, 0.0, 45.0), (0.1, 0.0, 0.0), (-0.2, 0.1, 10.0)]:
                rect = ((100 + dx * size, 100 + dy * size), (size * scale, size * scale), angle + turn)
                die, _ = fast._face(img, rect, 1, np.array(table, np.uint8))
                assert die is None or die.value == value, (seed, scale, dx, dy, turn)
                right += die is not None and abs(scale - 1) < 1e-6 and (dx, dy, turn) == (0.0, 0.0, 0.0)
    assert right >= 30  # measured: 40 of 40
