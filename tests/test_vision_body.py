"""A die's body behind a reading: the hole of a printed letter is no die's pip, crumbs no die's pips."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import Die, read_dice
from vision.body import (
    ONE_OUTLINE,
    OUTLINE_MIN,
    SOME_OUTLINE,
    TABLE_SAME,
    lone_one_has_body,
    outline,
    pip_table_distances,
)
from vision.fusion import fuse
from vision.quality import grade
from vision.synth import DICE_COLOURS, EMPTY_KINDS, PlacedDie, background, draw_die

TABLE = (150, 120, 90)
INK = (60, 200, 230)


def _letter_holes(text: str, font: int, scale: float, thick: int) -> tuple[np.ndarray, list[Die]]:
    """A bold letter printed on the table, and a 1 read at each hole of it (as the pip-first reader does)."""
    img = np.full((200, 200, 3), TABLE, np.uint8)
    cv2.putText(img, text, (50, 150), font, scale, INK, thick, cv2.LINE_AA)
    table = cv2.inRange(img, tuple(c - 20 for c in TABLE), tuple(c + 20 for c in TABLE))
    n, _, stats, centres = cv2.connectedComponentsWithStats(table, connectivity=4)
    dice = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if x == 0 or y == 0 or x + w == 200 or y + h == 200:
            continue  # the table around the letter
        r = float(np.sqrt(area / np.pi))
        side = r / 0.12  # a 1's pip: about 0.12 of the die's side
        cx, cy = (float(v) for v in centres[i])
        box = [cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2]
        dice.append(Die(1, box, 0.9, [(cx, cy)], r, side))
    return img, dice


@pytest.mark.parametrize("text", ["P", "B", "8", "R", "O"])
@pytest.mark.parametrize(
    ("font", "scale", "thick"), [(cv2.FONT_HERSHEY_SIMPLEX, 4, 14), (cv2.FONT_HERSHEY_SIMPLEX, 3, 12)]
)
def test_a_letters_hole_read_as_a_one_has_no_body(text: str, font: int, scale: float, thick: int) -> None:
    img, holes = _letter_holes(text, font, scale, thick)
    assert holes
    for hole in holes:
        assert not lone_one_has_body(img, hole)
        assert fuse([hole], [], img) == []  # the pip-first reader's lone 1 is dropped
        assert len(fuse([hole], [])) == 1  # (without the frame, nothing to check)


@pytest.mark.parametrize("angle", [0.0, 20.0, 45.0])
@pytest.mark.parametrize("size", [30.0, 60.0, 120.0])
@pytest.mark.parametrize("colours", [(INK, TABLE), DICE_COLOURS[0], ((150, 120, 90), (20, 20, 20))])
def test_a_dies_one_has_a_body(
    angle: float,
    size: float,
    colours: tuple,
) -> None:
    img = np.full((300, 300, 3), TABLE, np.uint8)
    draw_die(img, 1, (150.0, 150.0), size, angle, body=colours[0], pip=colours[1])
    r = 0.13 * size  # vision.synth's 1
    half = size / 2
    one = Die(1, [150 - half, 150 - half, 150 + half, 150 + half], 0.9, [(150.0, 150.0)], r, size)
    assert lone_one_has_body(img, one)
    assert [d.value for d in fuse([one], [], img)] == [1]


@pytest.mark.parametrize("seed", [0, 1])
def test_crumbs_on_a_stained_table_are_no_two(seed: int) -> None:
    # two crumbs of these rendered tables lined up like a 2's pips, read
    # surely by the pip-first reader alone; no die's outline surrounds them
    rng = np.random.default_rng(1000 * seed + 10 * EMPTY_KINDS.index("stains"))
    img = background(640, 480, "stains", rng)
    assert [d for d in read_dice(img) if d.confidence >= 0.5] == []


@pytest.mark.parametrize("angle", [0.0, 30.0])
@pytest.mark.parametrize("size", [30.0, 60.0, 120.0])
@pytest.mark.parametrize("kind", ["plain", "wood", "cloth"])
@pytest.mark.parametrize("colours", [((235, 235, 235), (20, 20, 20)), DICE_COLOURS[0]])
def test_a_die_found_by_its_pips_alone_shows_its_outline(
    angle: float, size: float, kind: str, colours: tuple
) -> None:
    # (a white die on a light table too: its face stands out by its shading)
    img = background(300, 300, kind, np.random.default_rng(1))
    pips = draw_die(img, 2, (150.0, 150.0), size, angle, body=colours[0], pip=colours[1]).pips
    half = size / 2
    two = Die(2, [150 - half, 150 - half, 150 + half, 150 + half], 0.75, pips, 0.085 * size, size)
    assert outline(img, two) >= OUTLINE_MIN
    assert [d.value for d in fuse([two], [], img)] == [2]


def test_pips_on_a_bare_table_show_no_outline() -> None:
    img = background(300, 300, "wood", np.random.default_rng(4))
    pips = [(140.0, 140.0), (160.0, 160.0)]
    for x, y in pips:
        cv2.circle(img, (int(x), int(y)), 3, (40, 40, 40), -1, cv2.LINE_AA)
    two = Die(2, [125.0, 125.0, 175.0, 175.0], 0.75, pips, 3.0, 50.0)
    assert outline(img, two) < OUTLINE_MIN
    assert fuse([two], [], img) == []


@pytest.mark.parametrize("angle", [0.0, 30.0])
@pytest.mark.parametrize("size", [30.0, 60.0, 120.0])
@pytest.mark.parametrize("kind", ["plain", "wood", "print"])
def test_a_die_the_body_first_reader_found_keeps_its_outline(angle: float, size: float, kind: str) -> None:
    img = background(300, 300, kind, np.random.default_rng(3))
    draw_die(img, 4, (150.0, 150.0), size, angle, body=DICE_COLOURS[1][0], pip=DICE_COLOURS[1][1])
    half = size / 2
    four = Die(4, [150 - half, 150 - half, 150 + half, 150 + half], 0.75, side=size)
    assert outline(img, four) >= SOME_OUTLINE
    assert [d.value for d in fuse([], [four], img)] == [4]


def test_a_one_needs_a_clearer_outline_than_other_values() -> None:
    # one blob is the least evidence of a die: a faint square around it is not enough
    img = background(300, 300, "plain", np.random.default_rng(5))
    faint = tuple(int(c) - 15 for c in img[150, 150])  # a thin line just darker than the table
    cv2.rectangle(img, (120, 120), (180, 180), faint, 1, cv2.LINE_AA)
    cv2.circle(img, (150, 150), 7, (20, 20, 20), -1, cv2.LINE_AA)
    one = Die(1, [120.0, 120.0, 180.0, 180.0], 0.95, [(150.0, 150.0)], 7.0, 60.0)
    two = Die(2, [120.0, 120.0, 180.0, 180.0], 0.75, [(138.0, 138.0), (162.0, 162.0)], 5.0, 60.0)
    assert SOME_OUTLINE <= outline(img, one) < ONE_OUTLINE
    assert fuse([], [one], img) == []
    assert [d.value for d in fuse([], [two], img)] == [2]


FONTS = [
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
]


def _word_as_die(
    text: str, font: int, scale: float, thick: int, paper: tuple, ink: tuple
) -> tuple[np.ndarray, Die]:
    """A word printed on a board, read as one die whose pips are the word's holes (as both readers do)."""
    img = np.full((240, 400, 3), paper, np.uint8)
    cv2.putText(img, text, (30, 170), font, scale, ink, thick, cv2.LINE_AA)
    img = np.clip(img + np.random.default_rng(0).normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)
    on_paper = cv2.inRange(img, tuple(c - 20 for c in paper), tuple(c + 20 for c in paper))
    n, _, stats, centres = cv2.connectedComponentsWithStats(on_paper, connectivity=4)
    holes = [
        i
        for i in range(1, n)
        if stats[i, 0] > 0
        and stats[i, 1] > 0
        and stats[i, 0] + stats[i, 2] < 400
        and stats[i, 1] + stats[i, 3] < 240
        and stats[i, 4] > 10
    ]
    pips = [(float(centres[i][0]), float(centres[i][1])) for i in holes]
    r = float(np.sqrt(max(stats[i, 4] for i in holes) / np.pi))
    ys, xs = np.nonzero(cv2.inRange(img, tuple(c - 20 for c in ink), tuple(c + 20 for c in ink)))
    box = [float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())]
    return img, Die(len(pips), box, 0.9, pips, r, max(box[2] - box[0], box[3] - box[1]))


@pytest.mark.parametrize("text", ["P", "A", "B", "8", "6", "R", "O", "808"])
@pytest.mark.parametrize("font", FONTS)
@pytest.mark.parametrize(
    ("paper", "ink"),
    [((70, 40, 150), (60, 200, 230)), ((230, 230, 230), (30, 30, 30)), ((40, 120, 40), (240, 240, 240))],
)
def test_a_words_holes_are_the_boards_own_colour(text: str, font: int, paper: tuple, ink: tuple) -> None:
    img, word = _word_as_die(text, font, 3.0, 12, paper, ink)
    assert 1 <= word.value <= 6
    assert pip_table_distances(img, [word])[0] < TABLE_SAME
    assert grade(img, [word]) == []  # dropped, not refused: a printed word asks for no re-roll


@pytest.mark.parametrize("value", [1, 2, 5, 6])
@pytest.mark.parametrize("size", [30.0, 60.0, 90.0])
@pytest.mark.parametrize("kind", ["plain", "print", "tray", "mat"])
@pytest.mark.parametrize("colours", DICE_COLOURS)
def test_a_dies_pips_are_not_the_tables_colour(value: int, size: float, kind: str, colours: tuple) -> None:
    img = background(300, 300, kind, np.random.default_rng(value))
    draw_die(img, value, (150.0, 150.0), size, 30.0, body=colours[0], pip=colours[1])
    half = 0.5 * size * (np.cos(np.radians(30.0)) + np.sin(np.radians(30.0)))
    pips = PlacedDie(value, (150.0, 150.0), size, 30.0).pips
    die = Die(value, [150 - half, 150 - half, 150 + half, 150 + half], 0.9, pips, 0.1 * size, size)
    assert pip_table_distances(img, [die])[0] >= TABLE_SAME
    assert len(grade(img, [die])) == 1


def test_dice_measured_together_measure_as_each_alone() -> None:
    # (all dice are measured in one pass, rows of different pip counts padded)
    img = background(640, 480, "plain", np.random.default_rng(4))
    dice = []
    for k, (value, colours) in enumerate(zip([1, 3, 6, 2, 5], DICE_COLOURS, strict=False)):
        centre, size = (80.0 + 120 * k, 240.0), 40.0 + 8 * k
        draw_die(img, value, centre, size, 15.0 * k, body=colours[0], pip=colours[1])
        pips = PlacedDie(value, centre, size, 15.0 * k).pips
        box = [centre[0] - size / 2, centre[1] - size / 2, centre[0] + size / 2, centre[1] + size / 2]
        dice.append(Die(value, box, 0.9, pips, 0.1 * size if k % 2 else 0.0, size))
    dice.append(Die(4, [10.0, 10.0, 50.0, 50.0], 0.9, [], 0.0, 40.0))  # (no pips: cannot be told)
    together = pip_table_distances(img, dice)
    assert together == [pip_table_distances(img, [d])[0] for d in dice]
    assert together[-1] == float("inf")
    assert sum(math.isfinite(v) for v in together[:-1]) >= 3  # (a light die on a light table: inf)


def test_white_pips_of_a_dark_die_on_a_light_tray_are_not_the_tray() -> None:
    # (the closest right dice of byler-d6/train: white pips on the white tray, 3.35 apart and more)
    tray, pip = (214, 218, 222), (226, 228, 230)
    img = np.full((300, 300, 3), tray, np.uint8)
    draw_die(img, 5, (150.0, 150.0), 50.0, 10.0, body=(40, 30, 30), pip=pip)
    die = Die(5, [120.0, 120.0, 180.0, 180.0], 0.9, PlacedDie(5, (150.0, 150.0), 50.0, 10.0).pips, 4.0, 50.0)
    assert pip_table_distances(img, [die])[0] >= TABLE_SAME
    assert len(grade(img, [die])) == 1


def _board(font: int, scale: float, thick: int, paper: tuple, ink: tuple) -> np.ndarray:
    img = np.full((480, 640, 3), paper, np.uint8)
    for k, word in enumerate(["PAB 808", "ROLL 6", "BEAM ME UP"]):
        cv2.putText(img, word, (20, 130 + 150 * k), font, scale, ink, thick, cv2.LINE_AA)
    return np.clip(img + np.random.default_rng(0).normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)


# Confident readings of these printed boards, as measured: 12 (48 before the
# pips' colour was checked against the table's, 40 of them 1s at the holes of
# letters; 6 before the frame was read in several views, vision.views, whose
# other views read runs of letters as 6s and the hole of an O as a 1). Those
# left are 6s of letter runs, some read without pips, and 1s at the holes of
# letters. (Asking the views for a reading surer than the template's 0.55
# left 10 here, but cost die accuracy 0.966 -> 0.961 on the mirrored train.)
BOARD_PHANTOMS_AT_MOST = 12


def test_bold_words_on_a_board_read_as_few_dice() -> None:
    found = []
    for font in (cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX):
        for scale, thick in ((2.5, 10), (2.0, 7)):
            for paper, ink in (((70, 40, 150), (60, 200, 230)), ((230, 230, 230), (30, 30, 30))):
                img = _board(font, scale, thick, paper, ink)
                found += [(font, scale, d.value) for d in read_dice(img) if d.confidence >= 0.5]
    assert len(found) <= BOARD_PHANTOMS_AT_MOST, found
