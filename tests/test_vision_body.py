"""A die's body behind a reading: the hole of a printed letter is no die's pip, crumbs no die's pips."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import Die, read_dice
from vision.body import ONE_OUTLINE, OUTLINE_MIN, SOME_OUTLINE, lone_one_has_body, outline
from vision.fusion import fuse
from vision.synth import DICE_COLOURS, EMPTY_KINDS, background, draw_die

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
    draw_die(img, 2, (150.0, 150.0), size, angle, body=colours[0], pip=colours[1])
    step, a = 0.23 * size, np.radians(angle)  # vision.synth's pip grid
    pips = [
        (150 + u * step * (np.cos(a) - np.sin(a)), 150 + u * step * (np.sin(a) + np.cos(a))) for u in (-1, 1)
    ]
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
