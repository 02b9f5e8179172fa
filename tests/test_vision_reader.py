"""The dice reader on frames rendered here, where every die's value is known."""

from __future__ import annotations

import numpy as np
import pytest

from vision import Die, read_dice
from vision.synth import DICE_COLOURS, background, draw_die, scene


def confident(dice: list[Die]) -> list[Die]:
    return [d for d in dice if d.confidence >= 0.5]


def values(dice: list[Die]) -> list[int]:
    return sorted(d.value for d in confident(dice))


@pytest.mark.parametrize("size", [25, 32, 45, 70, 110, 170, 250])
@pytest.mark.parametrize("kind", ["plain", "wood", "cloth"])
def test_every_value_at_every_size(size: int, kind: str) -> None:
    rng = np.random.default_rng(size * 7 + len(kind))
    width = max(640, size * 8)
    img, placed = scene(width, width * 3 // 4, [1, 2, 3, 4, 5, 6], size, rng, kind)
    dice = confident(read_dice(img))
    assert values(dice) == [1, 2, 3, 4, 5, 6]
    # Each reading sits on the die it reads.
    for d in dice:
        die = min(placed, key=lambda p: (p.center[0] - d.center[0]) ** 2 + (p.center[1] - d.center[1]) ** 2)
        assert die.value == d.value
        assert abs(die.center[0] - d.center[0]) < size / 3
        assert abs(die.center[1] - d.center[1]) < size / 3


@pytest.mark.parametrize("body, pip", DICE_COLOURS)
def test_colours_and_rotations(body: tuple[int, int, int], pip: tuple[int, int, int]) -> None:
    img = background(800, 300, "plain", np.random.default_rng(0))
    for i, value in enumerate(range(1, 7)):
        draw_die(img, value, (70 + i * 130, 150), 60, angle=i * 17.0, body=body, pip=pip)
    assert values(read_dice(img)) == [1, 2, 3, 4, 5, 6]


def test_touching_dice_are_read_apart() -> None:
    img = background(640, 360, "plain", np.random.default_rng(1))
    for i, value in enumerate([2, 3, 6, 5]):
        draw_die(img, value, (200 + i * 62, 180), 60, body=DICE_COLOURS[i % 3][0], pip=DICE_COLOURS[i % 3][1])
    assert values(read_dice(img)) == [2, 3, 5, 6]


@pytest.mark.parametrize("kind", ["plain", "wood", "cloth", "speckle"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_empty_tables_read_no_dice(kind: str, seed: int) -> None:
    img = background(1280, 720, kind, np.random.default_rng(seed))
    assert confident(read_dice(img)) == []


def test_synthetic_camera_frames() -> None:
    from hardware.cameras import SyntheticCamera

    for seed in range(6):
        camera = SyntheticCamera(seed=seed)
        camera.roll()
        frame = camera.read()
        assert values(read_dice(frame)) == sorted(camera.values)


def test_grey_and_alpha_images_are_read() -> None:
    img, _ = scene(640, 480, [4, 6], 60, np.random.default_rng(3))
    import cv2

    assert values(read_dice(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))) == [4, 6]
    assert values(read_dice(cv2.cvtColor(img, cv2.COLOR_BGR2BGRA))) == [4, 6]


@pytest.mark.parametrize("bad", [None, np.zeros((0, 0, 3), np.uint8), "photo.jpg", np.zeros((4, 4, 3, 2))])
def test_not_an_image_is_refused(bad) -> None:
    with pytest.raises(ValueError):
        read_dice(bad)


def test_die_as_dict() -> None:
    d = Die(5, [1.0, 2.0, 30.0, 31.0], 0.8765)
    assert d.to_dict() == {"value": 5, "box": [1.0, 2.0, 30.0, 31.0], "confidence": 0.876}
    assert d.center == (15.5, 16.5)


@pytest.mark.parametrize("size", [25, 34, 48, 70])
def test_known_die_size_reads_the_same_values(size: int) -> None:
    # Told the dice's size, the pip-first reader reads fewer pyramid levels
    # but still every value.
    from vision import reader

    img, _ = scene(640, 480, [1, 2, 3, 4, 5, 6], size, np.random.default_rng(size), "wood")
    assert values(reader.read_dice(img, float(size))) == [1, 2, 3, 4, 5, 6]


def test_large_frames_are_labelled_with_wide_labels() -> None:
    # Above 65535 * 16 pixels a blob mask could hold more blobs than 16-bit labels count.
    from vision import reader

    img, _ = scene(1400, 800, [2, 5], 28, np.random.default_rng(5), "plain")
    assert 1400 * 800 // 16 >= 65535
    assert values(reader.read_dice(img)) == [2, 5]


def test_fast_medians_and_percentiles_match_numpy() -> None:
    from vision.reader import _median, _percentiles

    rng = np.random.default_rng(0)
    for n in range(1, 30):
        v = np.round(rng.random(n) * 40, 1)
        assert _median(v) == np.median(v)
        assert _percentiles(v, (20, 80)) == list(np.percentile(v, [20, 80]))
        faces = rng.random((n, 3)).astype(np.float32)
        assert np.array_equal(_median(faces, axis=0), np.median(faces, axis=0))
        rings = rng.random((4, n, 3)).astype(np.float32)
        assert np.array_equal(_median(rings, axis=1), np.median(rings, axis=1))
