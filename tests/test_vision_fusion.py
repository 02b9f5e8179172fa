"""The combined dice reader: fusion rules on given readings, and whole frames rendered here."""

from __future__ import annotations

import numpy as np
import pytest

from vision import Die, read_dice, reader
from vision.faces import read_faces
from vision.fusion import (
    MANY_PIPS,
    MANY_PIPS_RIGHT,
    MATCH_FRAC,
    PAIR_FRAC,
    PIP_MORE_CONFIDENCE,
    PIP_ONE_MORE_CONFIDENCE,
    REREAD_RIGHT,
    fuse,
    pair,
)
from vision.synth import DICE_COLOURS, background, draw_die, scene


def confident(dice: list[Die]) -> list[Die]:
    return [d for d in dice if d.confidence >= 0.5]


def test_a_die_only_one_reader_found_is_kept() -> None:
    pip_only = Die(3, [10.0, 10.0, 40.0, 40.0], 0.8)
    body_only = Die(5, [200.0, 10.0, 232.0, 42.0], 0.7)
    fused = fuse([pip_only], [body_only])
    assert sorted((d.value, d.confidence) for d in fused) == [(3, 0.8), (5, 0.7)]


def test_agreeing_readers_raise_confidence() -> None:
    fused = fuse([Die(4, [10.0, 10.0, 40.0, 40.0], 0.7)], [Die(4, [12.0, 11.0, 42.0, 41.0], 0.6)])
    assert len(fused) == 1
    assert fused[0].value == 4
    assert fused[0].confidence > 0.7
    assert fused[0].box == [11.0, 10.5, 41.0, 40.5]


def test_disagreeing_readers_give_one_die() -> None:
    box = [10.0, 10.0, 40.0, 40.0]
    fused = fuse([Die(2, box, 0.6)], [Die(3, box, 0.95)])
    assert len(fused) == 1
    assert fused[0].value in (2, 3)
    # A sure pip-first reading of more pips wins: lost pips are the common error.
    fused = fuse([Die(6, box, PIP_MORE_CONFIDENCE)], [Die(3, box, 0.99)])
    assert [d.value for d in fused] == [6]


@pytest.mark.parametrize("value", [2, 3, 4])
def test_unsure_die_is_read_again_on_an_enlarged_crop(value: int) -> None:
    img, placed = scene(320, 240, [value], 26, np.random.default_rng(value), "plain")
    (cx, cy), half = placed[0].center, 13.0
    box = [cx - half, cy - half, cx + half, cy + half]
    # the re-read confirms an unsure reading it agrees with ...
    fused = fuse([], [Die(value, box, 0.2, side=26.0)], img)
    assert [(d.value, d.confidence) for d in fused] == [(value, REREAD_RIGHT)]
    # ... but does not overrule one it disagrees with, nor run without the frame
    fused = fuse([], [Die(1, box, 0.2, side=26.0)], img)
    assert [(d.value, d.confidence) for d in fused] == [(1, 0.2)]
    fused = fuse([], [Die(value, box, 0.2, side=26.0)])
    assert [(d.value, d.confidence) for d in fused] == [(value, 0.2)]


def test_one_pip_more_needs_a_surer_pip_first_reading() -> None:
    box = [10.0, 10.0, 40.0, 40.0]
    # one pip more at middling confidence is the pip-first reader's own slip
    # (a side face's pip): the sure body-first reading wins the vote
    fused = fuse([Die(5, box, PIP_ONE_MORE_CONFIDENCE - 0.1)], [Die(4, box, 0.9)])
    assert [d.value for d in fused] == [4]
    fused = fuse([Die(5, box, PIP_ONE_MORE_CONFIDENCE)], [Die(4, box, 0.9)])
    assert [d.value for d in fused] == [5]
    # two pips more (a 6 whose middle column the body-first reader lost) win
    fused = fuse([Die(6, box, PIP_ONE_MORE_CONFIDENCE - 0.1)], [Die(4, box, 0.9)])
    assert [d.value for d in fused] == [6]


def test_a_pip_first_die_far_larger_than_the_others_is_dropped() -> None:
    body = [Die(3, [x, 200.0, x + 30.0, 230.0], 0.9, side=30.0) for x in (100.0, 200.0, 300.0, 400.0)]
    huge = Die(1, [-7.0, -14.0, 106.0, 99.0], 0.99)  # SCALE_MAX = 2.4 die sides is 72 px
    large = Die(5, [500.0, 20.0, 550.0, 70.0], 0.9)
    fused = fuse([huge, large], body)
    assert sorted(d.value for d in fused) == [3, 3, 3, 3, 5]
    # with too few dice to know their size, nothing is dropped
    assert sorted(d.value for d in fuse([huge], body[:1])) == [1, 3]


def test_an_unsure_body_first_reading_of_many_pips_counts_as_sure() -> None:
    box = [10.0, 10.0, 40.0, 40.0]
    fused = fuse([], [Die(MANY_PIPS, box, 0.2, side=30.0)])
    assert [(d.value, d.confidence) for d in fused] == [(MANY_PIPS, MANY_PIPS_RIGHT)]
    # fewer pips, or only the pip-first reader behind it: still unsure
    fused = fuse([], [Die(MANY_PIPS - 1, box, 0.2, side=30.0)])
    assert [(d.value, d.confidence) for d in fused] == [(MANY_PIPS - 1, 0.2)]
    fused = fuse([Die(6, box, 0.2)], [])
    assert [(d.value, d.confidence) for d in fused] == [(6, 0.2)]


def test_far_apart_readings_stay_two_dice() -> None:
    fused = fuse([Die(1, [0.0, 0.0, 30.0, 30.0], 0.9)], [Die(1, [60.0, 0.0, 90.0, 30.0], 0.9)])
    assert len(fused) == 2


def test_touching_dice_read_by_different_readers_stay_two() -> None:
    # the pip-first reader found one die, the body-first reader its neighbour,
    # whose centre lies 0.43 of a side away
    three = Die(3, [30.0, 0.0, 60.0, 30.0], 0.9)
    two = Die(2, [17.0, 0.0, 47.0, 30.0], 0.9)
    assert pair([three], [two]) == []
    assert sorted(d.value for d in fuse([three], [two])) == [2, 3]
    # a pip-first 1 that far off is one pip of the body-first die, read alone
    one = Die(1, [38.0, 8.0, 52.0, 22.0], 0.9)
    assert pair([one], [two]) == [(0, 0)]
    assert [d.value for d in fuse([one], [two])] == [2]


def test_a_stray_one_pairs_before_a_neighbours_reading() -> None:
    body = Die(2, [0.0, 0.0, 30.0, 30.0], 0.9)
    # a neighbour's reading 0.37 sides off, within PAIR_FRAC, but near its
    # limit; a 1 (one pip of the die) 0.40 sides off, well within MATCH_FRAC
    neighbour = Die(4, [11.0, 0.0, 41.0, 30.0], 0.9)
    one = Die(1, [-1.0, 5.0, 9.0, 15.0], 0.9)
    assert 0.37 < PAIR_FRAC and 0.40 < MATCH_FRAC
    assert pair([neighbour, one], [body]) == [(1, 0)]
    assert sorted(d.value for d in fuse([neighbour, one], [body])) == [2, 4]


def test_a_die_spanning_the_frame_is_dropped() -> None:
    frame = np.full((480, 640, 3), 200, np.uint8)
    # a 250 px die turned 45 degrees, the largest the reader is made for, stays
    largest = Die(5, [143.0, 63.0, 497.0, 417.0], 0.9)
    whole = Die(6, [0.0, 0.0, 566.0, 479.0], 0.9)  # a mat's pattern read as one die
    assert [d.value for d in fuse([], [largest, whole], frame)] == [5]
    assert [d.value for d in fuse([whole], [], frame)] == []
    assert len(fuse([], [largest, whole])) == 2  # (without the frame there is nothing to compare)


@pytest.mark.parametrize("kind", ["plain", "wood", "cloth", "speckle"])
@pytest.mark.parametrize("size", [30, 60, 120])
def test_rendered_dice_are_read_right(kind: str, size: int) -> None:
    rng = np.random.default_rng(size + len(kind))
    width = max(640, size * 8)
    img, placed = scene(width, width * 3 // 4, [1, 2, 3, 4, 5, 6], size, rng, kind)
    dice = confident(read_dice(img))
    assert sorted(d.value for d in dice) == [1, 2, 3, 4, 5, 6]
    for d in dice:
        die = min(placed, key=lambda p: (p.center[0] - d.center[0]) ** 2 + (p.center[1] - d.center[1]) ** 2)
        assert die.value == d.value
        assert abs(die.center[0] - d.center[0]) < size / 3
        assert abs(die.center[1] - d.center[1]) < size / 3


@pytest.mark.parametrize("kind", ["plain", "wood", "cloth", "speckle"])
@pytest.mark.parametrize("seed", [0, 1])
def test_empty_tables_read_no_dice(kind: str, seed: int) -> None:
    img = background(1280, 720, kind, np.random.default_rng(seed))
    assert read_dice(img) == []
    assert read_faces(img) == []


def test_large_dice_are_read_on_a_smaller_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    img, placed = scene(1280, 960, [2, 5, 6], 150, np.random.default_rng(4), "wood")
    shapes = []
    pip_first = reader.read_dice

    def recording(image: np.ndarray, *args: float) -> list[Die]:
        shapes.append(image.shape[:2])
        return pip_first(image, *args)

    monkeypatch.setattr(reader, "read_dice", recording)
    dice = confident(read_dice(img, quick=False))  # (the quick reader reads this clean frame)
    assert shapes and max(shapes[0]) < 1280
    assert sorted(d.value for d in dice) == [2, 5, 6]
    # Boxes are back in the frame's own pixels.
    for d in dice:
        die = min(placed, key=lambda p: (p.center[0] - d.center[0]) ** 2 + (p.center[1] - d.center[1]) ** 2)
        assert abs(die.center[0] - d.center[0]) < 50
        assert abs(die.center[1] - d.center[1]) < 50


def test_a_die_the_body_first_reader_cannot_see_is_read() -> None:
    # A white die on a light table: the body-first reader finds the 4 only.
    img = background(640, 480, "plain", np.random.default_rng(2))
    for i, value in enumerate([4, 5]):
        draw_die(img, value, (200 + i * 220, 240), 70, body=DICE_COLOURS[0][0], pip=DICE_COLOURS[0][1])
    assert sorted(d.value for d in confident(read_dice(img))) == [4, 5]


@pytest.mark.parametrize("bad", [None, np.zeros((0, 0, 3), np.uint8), "photo.jpg", np.zeros((4, 4, 3, 2))])
def test_not_an_image_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        read_dice(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        read_faces(bad)  # type: ignore[arg-type]


def test_the_readers_stay_reachable() -> None:
    img, _ = scene(640, 480, [3, 6], 60, np.random.default_rng(5), "plain")
    assert sorted(d.value for d in confident(reader.read_dice(img))) == [3, 6]
    assert sorted(d.value for d in confident(read_faces(img))) == [3, 6]
    assert all(isinstance(d, Die) for d in read_faces(img))


def test_grey_and_alpha_frames_are_read() -> None:
    import cv2

    img, _ = scene(640, 480, [2, 4, 6], 60, np.random.default_rng(6), "wood")
    for frame in (cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)):
        assert sorted(d.value for d in confident(read_dice(frame))) == [2, 4, 6]


def test_fusion_checks_sure_dice_against_their_pip_grid() -> None:
    # both readers lost the middle pip of a rendered 5 and agree on 4, neither
    # quite sure (0.84 together); the pip-first reader's four pips give the
    # grid, whose middle shows the pip
    img = background(160, 120, "plain", np.random.default_rng(5))
    body, pip = DICE_COLOURS[6]
    corners = draw_die(img, 5, (80.0, 60.0), 30.0, 20.0, body, pip).pips[:4]  # the middle pip is left out
    box = [60.0, 40.0, 100.0, 80.0]
    pip_first = Die(4, box, 0.6, corners, 30.0 * 0.085, 30.0)
    body_first = Die(4, box, 0.6, side=30.0)
    assert [d.value for d in fuse([pip_first], [body_first])] == [4]  # without the frame, no check
    assert [d.value for d in fuse([pip_first], [body_first], img)] == [5]
