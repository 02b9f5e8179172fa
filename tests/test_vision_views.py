"""Reading a frame in several views (vision.views): turned and resized back exactly, and the vote."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision import SURE, Die, read_dice
from vision.synth import scene
from vision.views import VIEWS, agree, read_view, read_views, turned, unturn, unturn_point, vote


def _die(value: int, x: float, y: float, confidence: float = 0.9, side: float = 40.0) -> Die:
    h = side / 2
    return Die(value, [x - h, y - h, x + h, y + h], confidence, [(x - 5.0, y - 3.0)], 4.0, side)


@pytest.mark.parametrize("turns", range(4))
@pytest.mark.parametrize("shape", [(48, 64), (64, 48), (50, 50, 3)])
def test_a_point_turned_comes_back_to_its_pixel(turns: int, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(turns)
    for _ in range(20):
        image = np.zeros(shape, np.uint8)
        y, x = int(rng.integers(shape[0])), int(rng.integers(shape[1]))
        image[y, x] = 255
        ty, tx = (int(v[0]) for v in np.nonzero(turned(image, turns))[:2])
        # the pixel's centre, turned and brought back, is the pixel's centre
        back = unturn_point(tx + 0.5, ty + 0.5, turns, shape)
        assert back == pytest.approx((x + 0.5, y + 0.5))


def test_a_turned_image_is_a_turn() -> None:
    image = np.arange(12, dtype=np.uint8).reshape(3, 4)
    assert turned(image, 1).tolist() == [[3, 7, 11], [2, 6, 10], [1, 5, 9], [0, 4, 8]]
    assert np.array_equal(turned(image, 4), image)
    assert turned(image, 2).flags["C_CONTIGUOUS"]


@pytest.mark.parametrize("turns", range(4))
def test_dice_read_on_a_turn_come_back_to_the_frame(turns: int) -> None:
    shape = (480, 640, 3)
    x, y = 100.0, 60.0
    # where the die at (x, y) of the frame shows in the turned frame
    h, w = shape[:2]
    at = [(x, y), (y, w - x), (w - x, h - y), (h - y, x)][turns]
    die = _die(4, float(at[0]), float(at[1]))
    back = unturn([die], turns, shape)[0]
    assert back.center == pytest.approx((x, y))
    assert back.box[2] - back.box[0] == pytest.approx(40.0) and back.box[3] - back.box[1] == pytest.approx(
        40.0
    )
    assert back.pips[0] == pytest.approx(unturn_point(*die.pips[0], turns, shape))
    assert (back.value, back.confidence, back.side) == (4, 0.9, 40.0)
    assert die.center == pytest.approx(at)  # the reading itself is left as it was


def test_readings_that_agree_give_each_die_once() -> None:
    readings = [[_die(3, 100, 100), _die(5, 200, 100)] for _ in range(4)]
    readings[2] = [_die(5, 202, 98), _die(3, 101, 103)]  # found in another order, a little apart
    out = vote(readings)
    assert sorted((d.value, round(d.confidence, 3)) for d in out) == [(3, 0.9), (5, 0.9)]


def test_the_value_most_readings_give_wins_and_the_doubt_shows() -> None:
    readings = [[_die(3, 100, 100, 0.9)], [_die(3, 100, 100, 0.8)], [_die(2, 100, 100, 0.95)], []]
    (d,) = vote(readings)
    assert d.value == 3
    assert d.confidence == pytest.approx(SURE + (0.9 - SURE) * 2 / 3)


def test_a_tie_goes_to_the_more_confident_value() -> None:
    readings = [
        [_die(3, 100, 100, 0.6)],
        [_die(3, 100, 100, 0.6)],
        [_die(2, 100, 100, 0.9)],
        [_die(2, 100, 100, 0.8)],
    ]
    (d,) = vote(readings)
    assert d.value == 2 and SURE <= d.confidence < 0.9


def test_a_die_one_reading_saw_is_left_out_and_two_keep_it() -> None:
    assert vote([[_die(6, 100, 100)], [], [], []]) == []
    (d,) = vote([[_die(6, 100, 100)], [], [_die(6, 100, 100)], []])
    assert d.value == 6 and d.confidence >= SURE


def _readings(*confidences: float) -> list[list[Die]]:
    return [[_die(6, 100, 100, c)] for c in confidences]


@pytest.mark.parametrize(
    ("confidences", "sure"),
    [
        ((0.9, 0.9), True),
        ((0.9, 0.9, 0.3), False),  # two sure ones carry a die only when no reading doubts it
        ((0.99, 0.99, 0.3, 0.3), False),
        ((0.9, 0.9, 0.9, 0.3), True),
        ((0.9, 0.9, 0.9, 0.3, 0.3, 0.3), True),  # as many unsure as sure, all one value
        ((0.9, 0.9, 0.9, 0.3, 0.3), True),
        ((0.9, 0.3), False),
    ],
)
def test_a_die_is_sure_when_its_sure_readings_outvote_the_unsure(
    confidences: tuple[float, ...], sure: bool
) -> None:
    (d,) = vote(_readings(*confidences))
    assert (d.confidence >= SURE) == sure
    if not sure:
        # reported as its most confident unsure reading: the table asks for a re-roll
        assert d.confidence == max(c for c in confidences if c < SURE)


def test_three_sure_against_three_unsure_carry_a_die_only_when_all_six_read_one_value() -> None:
    readings = _readings(0.9, 0.9, 0.9, 0.3, 0.3)
    (d,) = vote([*readings, [_die(6, 100, 100, 0.3)]])
    assert d.value == 6 and d.confidence >= SURE
    (d,) = vote([*readings, [_die(2, 100, 100, 0.3)]])  # one unsure reading of another value
    assert d.confidence < SURE
    (d,) = vote([*_readings(0.9, 0.9, 0.3, 0.3)])  # two against two stay unsure however alike
    assert d.confidence < SURE


def test_dice_side_by_side_are_not_pooled_together() -> None:
    # each reading finds both, in its own order
    readings = [[_die(1, 100, 100), _die(2, 141, 100)] for _ in range(2)]
    readings.append([_die(2, 139, 100), _die(1, 101, 100)])
    out = sorted(vote(readings), key=lambda d: d.center[0])
    assert [d.value for d in out] == [1, 2]


def test_readings_agree_when_every_die_is_read_alike() -> None:
    a = [_die(3, 100, 100), _die(5, 200, 100, 0.3)]
    assert agree([a, [_die(5, 201, 99, 0.2), _die(3, 99, 101)]])
    assert not agree([a, [_die(5, 200, 100, 0.3)]])  # a sure die missed
    assert agree([a, [_die(3, 101, 100)]])  # an unsure one may be missed
    assert not agree([a, [_die(4, 100, 100), _die(5, 200, 100, 0.3)]])  # another value
    assert not agree([a, [_die(3, 100, 100, 0.3), _die(5, 200, 100, 0.3)]])  # sure against unsure


def test_the_other_views_are_read_only_when_the_first_two_disagree() -> None:
    image = np.zeros((40, 60, 3), np.uint8)
    shapes: list[tuple[int, ...]] = []

    def corner(frame: np.ndarray) -> list[Die]:
        # a die always at the view's (20, 20): the frame as it is and its half
        # turn place it apart, so every view is read
        shapes.append(frame.shape[:2])
        return [_die(5, 20, 20)]

    out = read_views(corner, image)
    assert VIEWS == ((0, 1.0), (2, 1.0), (1, 1.0), (3, 1.0), (0, 0.9), (0, 1.12))
    assert shapes == [(40, 60), (40, 60), (60, 40), (60, 40), (36, 54), (45, 67)]
    # (20, 20) as it is, in the three-quarter turn and resized (22.2 and
    # 17.9: within half a side); (40, 20) in the half and quarter turns
    assert sorted(d.center for d in out) == [(20.0, 20.0), (40.0, 20.0)]

    def middle(frame: np.ndarray) -> list[Die]:
        shapes.append(frame.shape[:2])
        h, w = frame.shape[:2]
        return [_die(5, w / 2, h / 2)]

    shapes.clear()
    (d,) = read_views(middle, image)
    assert len(shapes) == 2 and d.center == pytest.approx((30.0, 20.0))
    shapes.clear()
    assert len(read_views(middle, image, 1)) == 1 and len(shapes) == 1
    with pytest.raises(ValueError):
        read_views(middle, image, 7)
    with pytest.raises(ValueError):
        read_dice(image, views=0)


@pytest.mark.parametrize("scale", [0.9, 1.12])
@pytest.mark.parametrize("turns", [0, 1])
def test_a_resized_view_comes_back_to_the_frame(turns: int, scale: float) -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    seen: list[tuple[int, ...]] = []

    def read(frame: np.ndarray) -> list[Die]:
        seen.append(frame.shape)
        # the die the frame has at (150, 100), 40 px, where this view shows
        # it (a quarter turn puts the view's (x, y) at (y, width - x))
        x, y = 150 * scale, 100 * scale
        at = (y, frame.shape[0] - x) if turns else (x, y)
        return [_die(2, at[0], at[1], side=40 * scale)]

    (d,) = read_view(read, image, turns, scale)
    assert d.center == pytest.approx((150.0, 100.0))
    assert d.side == pytest.approx(40.0) and d.box[2] - d.box[0] == pytest.approx(40.0)
    assert seen[0][:2] == (
        (round(400 * scale), round(600 * scale)) if not turns else (round(600 * scale), round(400 * scale))
    )


@pytest.mark.parametrize("seed", range(4))
def test_reading_a_turned_frame_reads_the_same_dice(seed: int) -> None:
    rng = np.random.default_rng(900 + seed)
    size = float(rng.uniform(35, 70))
    img, placed = scene(
        640, 480, [int(v) for v in rng.integers(1, 7, 5)], size, rng, ["wood", "tray", "cloth", "plain"][seed]
    )
    first = [d for d in read_dice(img, quick=False) if d.confidence >= SURE]
    for d in placed:
        assert any(r.value == d.value and math.dist(r.center, d.center) < size / 3 for r in first)
    for k in (1, 2):
        again = unturn(
            [d for d in read_dice(turned(img, k), quick=False) if d.confidence >= SURE], k, img.shape
        )
        assert sorted(d.value for d in again) == sorted(d.value for d in first)
        for d in again:
            assert min(math.dist(d.center, r.center) for r in first) < size / 10
