"""Unsure readings read once more on the die's own pip grid (vision.recover).

Rendered dice (vision.synth) of every colour pair, and dark marbled dice whose
small red pips bleed into each other and into reddish swirls, like the dice
both readers leave unsure in photos. A reading made sure must be right; an
unsure reading on a table with no die, on a die next to a sure one, on a 1, or
on a die that vision.quality refuses, stays unsure. A sure 1 on a dark
marbled die whose red pips lie around its middle is refused; a marbled 1, and
a 1 of every plain colour, is left alone. A 1 that the pip-first reader read
right and the fusion took for a 2 is made a 1 again; a 2 is not. A sure 1 that
one reader alone found takes the grid's value only where the grid reads
another value clearly.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import Die, read_dice, recover
from vision.recover import RECOVERED, read_face
from vision.synth import DICE_COLOURS, PlacedDie, background, draw_die, hide_die

UNSURE = 0.3


def _noisy(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.clip(img + rng.normal(0, 2.5, img.shape), 0, 255).astype(np.uint8)


def _marble(
    img: np.ndarray,
    value: int,
    center: tuple[float, float],
    size: float,
    angle: float,
    rng: np.random.Generator,
    body: tuple[tuple[int, int, int], tuple[int, int, int]],
    vein: tuple[int, int, int],
    pip: tuple[int, int, int],
    pip_radius: float,
    pip_blur: float,
    pip_strength: float,
) -> PlacedDie:
    """A dark die veined in ``vein`` with small red pips blurred into the face (sizes in die sides)."""
    h, w = img.shape[:2]
    face = np.zeros_like(img)
    draw_die(face, value, center, size, angle, (255, 255, 255), (255, 255, 255))
    placed = draw_die(img, value, center, size, angle, *body)
    swirl = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), size * 0.08)
    img[(face[..., 0] > 128) & (np.abs(swirl) < 0.15 * swirl.std())] = vein
    pips = np.zeros((h, w), np.float32)
    for px, py in placed.pips:
        cv2.circle(pips, (round(px), round(py)), max(1, round(size * pip_radius)), 1.0, -1, cv2.LINE_AA)
    pips = (cv2.GaussianBlur(pips, (0, 0), size * pip_blur) * pip_strength)[..., None]
    img[:] = np.clip(img * (1 - pips) + np.float32(pip) * pips, 0, 255).astype(np.uint8)
    return placed


def _marbled_die(
    img: np.ndarray,
    value: int,
    center: tuple[float, float],
    size: float,
    angle: float,
    rng: np.random.Generator,
) -> PlacedDie:
    """A dark die with reddish swirls and small red pips blurred into one another."""
    body = ((48, 46, 52), (48, 48, 48))
    return _marble(img, value, center, size, angle, rng, body, (70, 62, 110), (60, 55, 150), 0.11, 0.07, 0.85)


def _box_side(die: PlacedDie) -> float:
    x0, _, x1, _ = die.box
    return x1 - x0


def _unsure(die: PlacedDie, value: int = 1) -> Die:
    return Die(value, list(die.box), UNSURE, side=die.size)


def _sure(die: PlacedDie) -> Die:
    return Die(die.value, list(die.box), 0.9, side=die.size)


@pytest.mark.parametrize("colour", range(len(DICE_COLOURS)))
def test_rendered_dice_read_right(colour: int) -> None:
    body, pip = DICE_COLOURS[colour]
    for value in range(2, 7):
        for angle in (20.0, 55.0):
            for size in (30.0, 60.0):
                rng = np.random.default_rng(100 * colour + value)
                img = background(200, 200, "plain", rng)
                die = draw_die(img, value, (100.0, 100.0), size, angle, body, pip)
                f = read_face(_noisy(img, rng), 100.0, 100.0, _box_side(die))
                assert f is not None and f.value == value, (value, angle, size, f)
                assert f.separation >= recover.MIN_SEPARATION


def test_marbled_dice_with_red_pips_read_right() -> None:
    right = 0
    for seed in range(16):
        rng = np.random.default_rng(seed)
        img = background(160, 160, "plain", rng)
        size = float(rng.uniform(22, 30))
        value = int(rng.integers(2, 7))
        die = _marbled_die(img, value, (80.0, 80.0), size, float(rng.uniform(10, 80)), rng)
        f = read_face(_noisy(img, rng), 80.0, 80.0, _box_side(die))
        assert f is not None
        right += f.value == value
        clear = f.separation >= recover.MIN_SEPARATION and f.margin >= recover.MIN_MARGIN
        assert f.value == value or not clear, (seed, value, f)  # never clearly wrong
    assert right >= 14  # as measured: 15 of 16 (a 4 read as 2, not clearly)


def test_unsure_marbled_die_is_made_sure() -> None:
    made = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        img = background(640, 480, "plain", rng)
        size = float(rng.uniform(24, 30))
        plain = draw_die(img, 4, (120.0, 120.0), size, 30.0, *DICE_COLOURS[0])
        hard = _marbled_die(img, 3, (400.0, 300.0), size, float(rng.uniform(15, 75)), rng)
        img = _noisy(img, rng)
        dice = [_sure(plain), _unsure(hard)]
        out = recover.recover(img, dice)
        assert out[0] is dice[0]  # a sure die is left alone
        if out[1].confidence >= 0.5:
            assert out[1].value == 3 and out[1].confidence == RECOVERED
            assert out[1].box == dice[1].box
            made += 1
    assert made >= 5  # as measured: all 6


def test_unsure_reading_on_a_bare_table_stays_unsure() -> None:
    for kind in ("speckle", "tray", "print", "stains", "mat"):
        for seed in range(3):
            rng = np.random.default_rng(seed)
            img = background(640, 480, kind, rng)
            spots = [
                PlacedDie(2, (float(x), float(y)), 40.0, 0.0) for x in (100, 320, 540) for y in (100, 380)
            ]
            dice = [_unsure(s, 2) for s in spots]
            assert recover.recover(img, dice) == dice, (kind, seed)


def test_unsure_reading_beside_a_sure_die_is_left_alone() -> None:
    # the second reading of a die already read sure is not a second die
    rng = np.random.default_rng(3)
    img = background(320, 240, "plain", rng)
    die = draw_die(img, 5, (160.0, 120.0), 40.0, 25.0, *DICE_COLOURS[2])
    img = _noisy(img, rng)
    twin = Die(5, [v + 4 for v in die.box], UNSURE, side=die.size)
    assert recover.recover(img, [twin]) != [twin]  # alone, it is read
    sure = _sure(die)
    assert recover.recover(img, [sure, twin]) == [sure, twin]


def test_a_one_is_not_read_as_anything_else() -> None:
    for colour, (body, pip) in enumerate(DICE_COLOURS):
        rng = np.random.default_rng(colour)
        img = background(200, 200, "plain", rng)
        die = draw_die(img, 1, (100.0, 100.0), 40.0, 35.0, body, pip)
        dice = [_unsure(die, 1)]
        assert recover.recover(_noisy(img, rng), dice) == dice


def test_hidden_die_stays_unsure() -> None:
    # a red 6 a fifth under a hand reads clearly as a 3 on the grid, but
    # vision.quality refuses it, so it stays unsure
    for kind, seed in (("plain", 0), ("plain", 1), ("wood", 0), ("wood", 2), ("wood", 3)):
        rng = np.random.default_rng(seed)
        img = background(640, 480, kind, rng)
        die = draw_die(img, 6, (320.0, 240.0), 50.0, 20.0, *DICE_COLOURS[2])
        hidden = hide_die(img, die, 0.2, rng)
        img = _noisy(img, rng)
        f = read_face(img, 320.0, 240.0, _box_side(hidden))
        assert f is not None and f.value != 6 and f.margin >= recover.MIN_MARGIN
        dice = [_unsure(hidden, 6)]
        assert recover.recover(img, dice) == dice, (kind, seed)


def test_read_dice_reads_every_die_of_a_frame_with_a_marbled_die() -> None:
    # the whole reader on a frame where one die is hard: nothing is read wrong
    # and sure, and the plain dice are all read
    rng = np.random.default_rng(7)
    img = background(640, 480, "plain", rng)
    plain = [
        draw_die(img, v, c, 28.0, a, *DICE_COLOURS[k])
        for v, c, a, k in (
            (2, (100.0, 100.0), 20.0, 0),
            (5, (500.0, 120.0), 50.0, 2),
            (6, (150.0, 380.0), 35.0, 4),
        )
    ]
    hard = _marbled_die(img, 3, (420.0, 330.0), 28.0, 40.0, rng)
    sure = [d for d in read_dice(_noisy(img, rng)) if d.confidence >= 0.5]
    for p in plain + [hard]:
        near = [
            d for d in sure if math.hypot(d.center[0] - p.center[0], d.center[1] - p.center[1]) < p.size / 2
        ]
        assert all(d.value == p.value for d in near), (p, near)
        if p is not hard:
            assert near, p
    assert len(sure) <= 4


def test_grey_and_bgra_frames_are_read_alike() -> None:
    rng = np.random.default_rng(2)
    img = background(320, 240, "plain", rng)
    die = _marbled_die(img, 4, (160.0, 120.0), 40.0, 30.0, rng)
    img = _noisy(img, rng)
    dice = [_unsure(die, 4)]
    bgr = recover.recover(img, dice)
    assert bgr[0].value == 4 and bgr[0].confidence == RECOVERED
    assert recover.recover(cv2.cvtColor(img, cv2.COLOR_BGR2BGRA), dice) == bgr
    grey = recover.recover(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), dice)
    # (red pips on a dark body may not stand out in grey: left unsure is right too)
    assert grey == dice or (grey[0].value == 4 and grey[0].confidence == RECOVERED)


def _grey_marbled_die(
    img: np.ndarray,
    value: int,
    center: tuple[float, float],
    size: float,
    angle: float,
    rng: np.random.Generator,
) -> PlacedDie:
    """A dark grey die veined with light grey, with small blurred red pips (a 1's pip is larger)."""
    body = ((58, 56, 60), (58, 56, 60))
    radius = 0.13 if value == 1 else 0.09
    return _marble(
        img, value, center, size, angle, rng, body, (120, 118, 122), (50, 45, 160), radius, 0.05, 0.9
    )


def _sure_one_kept(marble: object, value: int, seed: int) -> bool:
    """Whether ``recover`` keeps a sure reading of 1 on a rendered marbled die showing ``value``."""
    rng = np.random.default_rng(seed)
    img = background(160, 160, "plain", rng)
    die = marble(img, value, (80.0, 80.0), float(rng.uniform(22, 34)), float(rng.uniform(0, 90)), rng)
    dice = [Die(1, list(die.box), 0.8, side=die.size)]
    out = recover.recover(_noisy(img, rng), dice)
    assert out == dice or (out[0].value == 1 and out[0].confidence < 0.5 and out[0].box == dice[0].box)
    return out == dice


@pytest.mark.parametrize("value", [3, 4, 5, 6])
def test_marbled_die_read_as_a_one_is_refused(value: int) -> None:
    # a lone red blob (a swirl, pips run together) read as a 1 on a dark
    # marbled die whose other red pips lie around it
    refused = sum(not _sure_one_kept(_grey_marbled_die, value, seed) for seed in range(10))
    # as measured: 9, 6, 9 and 10 of 10 (a 4's small pips, with no middle
    # one, do not always stand out in the ring)
    assert refused >= {3: 8, 4: 5, 5: 8, 6: 9}[value]
    refused = sum(not _sure_one_kept(_marbled_die, value, seed) for seed in range(10))
    assert refused >= {3: 9, 4: 9, 5: 9, 6: 6}[value]  # as measured: 10, 10, 10, 7


@pytest.mark.parametrize("marble", [_grey_marbled_die, _marbled_die])
def test_marbled_one_is_left_alone(marble: object) -> None:
    # its one red pip in the middle, with grey (or reddish) swirls around it
    assert all(_sure_one_kept(marble, 1, seed) for seed in range(12))


def test_plain_ones_are_left_alone() -> None:
    for colour, (body, pip) in enumerate(DICE_COLOURS):
        for size in (26.0, 40.0, 70.0):
            rng = np.random.default_rng(colour)
            img = background(200, 200, "plain", rng)
            die = draw_die(img, 1, (100.0, 100.0), size, 25.0, body, pip)
            dice = [_sure(die)]
            assert recover.recover(_noisy(img, rng), dice) == dice, (colour, size)


def test_red_layout_of_a_marbled_six_and_one() -> None:
    # the measures behind the refusal: a 6's red lies in the ring, a 1's in the middle
    rng = np.random.default_rng(4)
    img = background(240, 120, "plain", rng)
    six = _grey_marbled_die(img, 6, (60.0, 60.0), 40.0, 20.0, rng)
    one = _grey_marbled_die(img, 1, (180.0, 60.0), 40.0, 20.0, rng)
    img = _noisy(img, rng)
    middle, ring, grey, body = recover.red_layout(img, *six.center, six.size)
    assert grey < recover.ONE_DARK and body > recover.ONE_BODY_RED
    assert ring >= recover.ONE_RED_RING and ring >= recover.ONE_RING * middle
    middle, ring, grey, body = recover.red_layout(img, *one.center, one.size)
    assert middle >= recover.ONE_RED_MIDDLE and ring < recover.ONE_RING * middle


def test_read_dice_reads_no_marbled_die_surely_wrong() -> None:
    # the whole reader on frames of dark marbled dice with red pips among plain ones
    wrong = right = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        img = background(640, 480, "plain", rng)
        placed = [
            _grey_marbled_die(img, v, (90.0 + 115.0 * k, 140.0 + 200.0 * (k % 2)), 30.0, 15.0 * k + seed, rng)
            for k, v in enumerate((1, 3, 4, 5, 6))
        ]
        placed.append(draw_die(img, 1, (320.0, 420.0), 30.0, 30.0, *DICE_COLOURS[2]))
        for d in read_dice(_noisy(img, rng)):
            if d.confidence < 0.5:
                continue
            p = min(placed, key=lambda p: math.hypot(d.center[0] - p.center[0], d.center[1] - p.center[1]))
            wrong += d.value != p.value
            right += d.value == p.value
    assert wrong == 0
    assert right >= 20  # as measured: 22 of the 24 dice, the four marbled 1s among them


def _any_die(value: int, colour: int, rng: np.random.Generator) -> tuple[np.ndarray, PlacedDie]:
    """A frame with one die of ``value`` in colours ``colour``, of random size (26-44 px) and turn."""
    img = background(200, 200, "plain", rng)
    size, angle = float(rng.uniform(26, 44)), float(rng.uniform(0, 90))
    return img, draw_die(img, value, (100.0, 100.0), size, angle, *DICE_COLOURS[colour])


def _disputed(value: int, colour: int, seed: int) -> tuple[np.ndarray, list[Die], list[Die], list[Die]]:
    """A die showing ``value``, read as a 1 by the pip-first reader and as a 2 by the other, fused to a 2."""
    rng = np.random.default_rng(seed)
    img, die = _any_die(value, colour, rng)
    pip_dice = [Die(1, list(die.box), 1.0, side=die.size)]
    body_dice = [Die(2, list(die.box), 0.8, side=die.size)]
    return _noisy(img, rng), [Die(2, list(die.box), 0.76, side=die.size)], pip_dice, body_dice


@pytest.mark.parametrize("colour", range(len(DICE_COLOURS)))
def test_a_one_fused_to_a_two_is_made_a_one(colour: int) -> None:
    for seed in range(3):
        img, fused, pip_dice, body_dice = _disputed(1, colour, seed)
        out = recover.recover(img, fused, pip_dice, body_dice)
        assert [(d.value, d.box, d.confidence) for d in out] == [(1, fused[0].box, RECOVERED)], (colour, seed)
        assert recover.recover(img, fused) == fused  # without the readers' readings, nothing to go by


@pytest.mark.parametrize("colour", range(len(DICE_COLOURS)))
def test_other_values_fused_from_a_one_stay(colour: int) -> None:
    for value in (2, 3, 5):
        for seed in range(3):
            img, fused, pip_dice, body_dice = _disputed(value, colour, seed)
            assert recover.recover(img, fused, pip_dice, body_dice) == fused, (value, colour, seed)


def _lone_one(value: int, colour: int, seed: int) -> Die:
    """``recover``'s reading of a die showing ``value`` that one reader alone read, surely, as a 1."""
    rng = np.random.default_rng(10 * colour + seed)
    img, die = _any_die(value, colour, rng)
    one = Die(1, list(die.box), 0.8, side=die.size)
    out = recover.recover(_noisy(img, rng), [one], [one], [])
    assert len(out) == 1 and out[0].box == one.box
    return out[0]


def test_a_lone_one_stays_a_one() -> None:
    for colour in range(len(DICE_COLOURS)):
        for seed in range(2):
            d = _lone_one(1, colour, seed)
            assert d.value == 1 and d.confidence >= 0.5, (colour, seed)


def test_a_lone_one_the_grid_reads_as_more_takes_its_value() -> None:
    changed = 0
    for value in range(2, 7):
        for colour in range(len(DICE_COLOURS)):
            for seed in range(2):
                d = _lone_one(value, colour, seed)
                assert d.value in (1, value), (value, colour, seed, d)  # left, or read right
                changed += d.value == value
    assert changed >= 40  # as measured: 45 of 70 (the grid's 1 stands out too on some dice)


def _frame_of_four(value: int, colour: int, seed: int) -> tuple[np.ndarray, list[PlacedDie]]:
    """Four dice of colours ``colour`` on a plain table, the last, showing ``value``, at (230, 170)."""
    rng = np.random.default_rng(seed + 10 * colour)
    img = background(320, 240, "plain", rng)
    spots = ((60, 60), (260, 60), (60, 180), (230, 170))
    placed = [
        draw_die(img, v, (float(x), float(y)), 40.0, float(rng.uniform(0, 90)), *DICE_COLOURS[colour])
        for v, (x, y) in zip((2, 4, 6, value), spots, strict=True)
    ]
    return _noisy(img, rng), placed


def _body(die: PlacedDie) -> Die:
    """The body of ``die`` as the body-first reader hands over one it could not read."""
    return Die(0, list(die.box), 0.0, side=die.size)


def test_unread_bodies_are_read_in_their_own_colours() -> None:
    read = 0
    for value in (2, 4, 5, 6):
        for colour in (2, 3, 4, 5):  # bodies unlike the plain table
            for seed in range(2):
                img, placed = _frame_of_four(value, colour, seed)
                sure = [_sure(d) for d in placed[:3]]
                out = recover.read_bodies(img, sure, [_body(placed[3])])
                assert out[:3] == sure
                assert [(d.value, d.box, d.confidence) for d in out[3:]] in (
                    [],
                    [(value, placed[3].box, RECOVERED)],
                ), (value, colour, seed)
                read += len(out) == 4
    assert read >= 16  # as measured: 19 of 32 (the others read as a 1 as well, so left)


def test_unread_bodies_on_the_table_or_on_a_die_add_nothing() -> None:
    img, placed = _frame_of_four(5, 2, 0)
    sure = [_sure(d) for d in placed]
    bare = Die(0, [140.0, 100.0, 180.0, 140.0], 0.0, side=40.0)
    assert recover.read_bodies(img, sure, [bare]) == sure
    assert recover.read_bodies(img, sure, [_body(placed[0])]) == sure
    assert recover.recover(img, sure[:3], unread=[_body(placed[3])])[3].value == 5


def test_a_blank_body_handed_over_is_not_read_as_a_die() -> None:
    rng = np.random.default_rng(3)
    img = background(320, 240, "plain", rng)
    placed = [
        draw_die(img, v, (float(x), float(y)), 40.0, float(rng.uniform(0, 90)), *DICE_COLOURS[2])
        for v, (x, y) in zip((2, 4, 6), ((60, 60), (260, 60), (60, 180)), strict=True)
    ]
    blank = draw_die(img, 1, (230.0, 170.0), 40.0, 25.0, (40, 40, 160), (40, 40, 160))
    img = _noisy(img, rng)
    sure = [_sure(d) for d in placed]
    assert recover.read_bodies(img, sure, [_body(blank)]) == sure
    assert all(math.hypot(d.center[0] - 230.0, d.center[1] - 170.0) > 20.0 for d in read_dice(img))


def test_a_reading_both_grids_contradict_takes_their_value() -> None:
    changed = 0
    for colour in range(len(DICE_COLOURS)):
        for seed in range(3):
            rng = np.random.default_rng(seed + 10 * colour)
            img = background(200, 200, "plain", rng)
            die = draw_die(
                img,
                3,
                (100.0, 100.0),
                float(rng.uniform(30, 44)),
                float(rng.uniform(0, 90)),
                *DICE_COLOURS[colour],
            )
            img = _noisy(img, rng)
            # the three pips seen, but the die read as a 2 (the readers' vote)
            wrong = Die(2, list(die.box), 0.76, die.pips, 0.09 * die.size, die.size)
            out = recover.grids_agree(img, [wrong])
            assert out == [wrong] or [(d.value, d.confidence) for d in out] == [(3, RECOVERED)], (
                colour,
                seed,
            )
            changed += out[0].value == 3
            # a right reading, and a wrong one read too surely to be checked, stay
            right = Die(3, list(die.box), 0.76, die.pips, 0.09 * die.size, die.size)
            assert recover.grids_agree(img, [right]) == [right]
            sure = Die(2, list(die.box), 0.95, die.pips, 0.09 * die.size, die.size)
            assert recover.grids_agree(img, [sure]) == [sure]
    assert changed >= 15  # as measured: 17 of 21
