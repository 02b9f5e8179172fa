"""Dice whose top face cannot be read must come out unsure (< 0.5), so the table asks for a re-roll.

Rendered scenes (vision.synth): a die cocked against the tray wall, a die half
hidden under a hand or a dark object, a blurred die, each among sharp flat dice
whose values must still be read; and frames taken while every die still rolls.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import Die, pixels, quality, read_dice
from vision.synth import (
    DARK_OBJECT,
    DICE_COLOURS,
    PIP_STEP,
    SKIN,
    PlacedDie,
    background,
    blur_die,
    draw_cocked_die,
    draw_die,
    hide_die,
    rolling_scene,
    scene,
    trouble_scene,
)

KINDS = ["plain", "wood", "cloth", "speckle", "tray"]
SEEDS = (0, 1000)  # two scenes for every table and colour pair


def _near(d: Die, die: PlacedDie, reach: float) -> bool:
    return math.hypot(d.center[0] - die.center[0], d.center[1] - die.center[1]) < reach * die.size


def _frame(trouble: str, kind: str, colour: int, seed: int) -> tuple[int, bool]:
    """(confident readings of the trouble die, every sharp die read right and sure) for one scene."""
    seed += 100 * KINDS.index(kind) + 10 * colour + len(trouble)
    rng = np.random.default_rng(seed)
    size = float(rng.uniform(40, 80))
    values = [int(v) for v in rng.integers(1, 7, 3)]
    img, placed, bad = trouble_scene(640, 480, values, size, rng, trouble, kind, [DICE_COLOURS[colour]])
    sure = [d for d in read_dice(img) if d.confidence >= 0.5]
    refused = sum(1 for d in sure if _near(d, bad, 0.75))
    sharp = all(any(_near(d, p, 1 / 3) and d.value == p.value for d in sure) for p in placed)
    return refused, sharp


@pytest.fixture(scope="module")
def outcomes() -> dict[str, list[tuple[str, int, int, int, bool]]]:
    out: dict[str, list[tuple[str, int, int, int, bool]]] = {}
    for trouble in ("cocked", "hidden", "blurred"):
        out[trouble] = [
            (kind, colour, seed, *_frame(trouble, kind, colour, seed))
            for kind in KINDS
            for colour in range(len(DICE_COLOURS))
            for seed in SEEDS
        ]
    return out


# Every troubled die must be refused on every table and with every colour pair
# (70 scenes each, as measured).
MISSED_AT_MOST = {"cocked": 0, "blurred": 0, "hidden": 0}
# Sharp dice misread beside the troubled one, as measured: on the printed tray
# a sharp die on a bold letter is misread now and then (two hidden scenes, one
# blurred), as in tests/test_vision_empty.py; none is refused.
SHARP_WRONG_AT_MOST = {"cocked": 0, "hidden": 2, "blurred": 1}


@pytest.mark.parametrize("trouble", ["cocked", "hidden", "blurred"])
def test_troubled_die_is_refused(outcomes: dict, trouble: str) -> None:
    missed = [(kind, colour, seed) for kind, colour, seed, confident, _ in outcomes[trouble] if confident]
    assert len(missed) <= MISSED_AT_MOST[trouble], missed


@pytest.mark.parametrize("trouble", ["cocked", "hidden", "blurred"])
def test_sharp_dice_beside_it_are_still_read(outcomes: dict, trouble: str) -> None:
    wrong = [(kind, colour, seed) for kind, colour, seed, _, sharp in outcomes[trouble] if not sharp]
    assert len(wrong) <= SHARP_WRONG_AT_MOST[trouble], wrong


@pytest.mark.parametrize("kind", ["plain", "wood", "cloth", "speckle"])
@pytest.mark.parametrize("seed", [0, 1])
def test_rolling_frame_has_no_confident_die(kind: str, seed: int) -> None:
    # (the printed tray is left out: its text gives phantom dice with or without a roll)
    rng = np.random.default_rng(seed * 10 + len(kind))
    img, dice = rolling_scene(
        640, 480, [int(v) for v in rng.integers(1, 7, 5)], float(rng.uniform(40, 80)), rng, kind
    )
    assert [d for d in read_dice(img) if d.confidence >= 0.5] == []
    assert all(d.trouble == "blurred" and 0.3 <= d.amount <= 0.7 for d in dice)


def _sure_dice(placed: list[PlacedDie]) -> list[Die]:
    """Readings of ``placed`` as a reader gives them: the die's box, fully sure."""
    return [Die(p.value, p.box, 1.0) for p in placed]


def test_the_checks_name_what_they_see() -> None:
    rng = np.random.default_rng(3)
    img = background(640, 480, "plain", rng)
    flat = draw_die(img, 5, (120, 120), 60, 20.0)
    cocked = draw_cocked_die(img, 6, (320, 120), 60, 5.0, 40.0)
    hidden = hide_die(img, draw_die(img, 4, (520, 140), 60, 10.0), 0.5, rng, hand=False)
    blurred = blur_die(img, draw_die(img, 3, (200, 360), 60, 30.0), 0.5, rng, motion=False)
    dice = [Die(d.value, d.box, 1.0) for d in (flat, cocked, hidden, blurred)]
    side = float(np.median([quality.die_side(d) for d in dice]))
    cover = quality.covers(img, dice, side)
    reasons = [quality.check(img, d, None, c).reason for d, c in zip(dice, cover, strict=True)]
    assert reasons == ["", "cocked", "hidden", "blurred"]
    graded = quality.grade(img, dice)
    assert [d.confidence >= 0.5 for d in graded] == [True, False, False, False]
    assert [d.value for d in graded] == [5, 6, 4, 3]  # the value stays; only the confidence drops


@pytest.mark.parametrize("kind", ["plain", "wood", "cloth"])
def test_a_reading_of_part_of_a_die_is_refused(kind: str) -> None:
    # A reader that saw only the middle of a die (as between two fingers over it)
    # gives a box smaller than the die: the face's colour runs on beyond it.
    img = background(640, 480, kind, np.random.default_rng(4))
    flat = draw_die(img, 6, (200, 200), 64, 20.0, (40, 40, 200), (240, 240, 240))
    cx, cy = flat.center
    whole = Die(6, flat.box, 1.0)
    middle = Die(6, [cx - 20, cy - 20, cx + 20, cy + 20], 1.0)
    assert quality.check(img, whole).reason == ""
    check = quality.check(img, middle)
    assert check.reason == "not whole"
    assert check.face_reach > 1.4 and check.face_tolerance < quality.WHOLE_TOLERANCE
    assert [d.confidence < 0.5 for d in quality.grade(img, [whole, middle])] == [False, True]


def test_a_hand_reaching_in_from_the_frame_edge_counts_for_more() -> None:
    # The same piece of hand beside the same die: in the middle of the frame it
    # is less than COVER, at the frame's edge it runs on out of sight.
    covers = []
    for x in (40, 320):
        img = background(640, 480, "wood", np.random.default_rng(2))
        flat = draw_die(img, 5, (x + 30, 240), 60, 0.0, (40, 40, 200), (240, 240, 240))
        cv2.rectangle(img, (x - 40, 200), (x + 15, 280), SKIN, -1)
        covers += quality.covers(img, [Die(5, flat.box, 1.0)], 60.0)
    at_edge, in_middle = covers
    assert in_middle < quality.COVER < at_edge
    assert at_edge * quality.COVER_OUT / quality.COVER < quality.COVER  # what shows of it is less


@pytest.mark.parametrize("half", [42.0, 57.0])
@pytest.mark.parametrize("kind", ["plain", "wood", "cloth"])
def test_a_cocked_die_read_across_its_edge_is_refused(kind: str, half: float) -> None:
    # A reading spanning a cocked die's top and side faces: its box's centre is
    # on the edge between them, but its pips are on the (foreshortened) top face.
    # The box may be far larger than the die (1.9 sides: half = 57).
    img = background(640, 480, kind, np.random.default_rng(5))
    draw_cocked_die(img, 4, (320, 200), 60, 0.0, 45.0, (40, 40, 200), (240, 240, 240))
    step = PIP_STEP * 60  # the pips' offsets on a face, as vision.synth draws them
    pips = [(320 + u * step, 200 + v * step * math.cos(math.radians(45))) for u in (-1, 1) for v in (-1, 1)]
    box = [320 - half, 221 - half, 320 + half, 221 + half]
    check = quality.check(img, Die(4, box, 1.0, pips=pips, pip_radius=5.1, side=60.0))
    assert check.reason == "cocked" and check.face_clean and check.face_aspect < quality.FACE_ASPECT
    assert quality.check(img, Die(4, box, 1.0, side=60.0)).reason == ""  # the centre alone shows no face


@pytest.mark.parametrize(("width", "hidden"), [(4, False), (24, True)])
def test_a_thin_line_does_not_join_a_die_to_an_object(width: int, hidden: bool) -> None:
    # A printed line from a die to a phone beside it joins nothing; a band as
    # wide as a finger does.
    img = background(640, 480, "plain", np.random.default_rng(6))
    flat = draw_die(img, 2, (200, 240), 60, 0.0, (40, 40, 200), (240, 240, 240))
    cv2.rectangle(img, (300, 170), (400, 310), DARK_OBJECT, -1)
    cv2.line(img, (225, 240), (300, 240), DARK_OBJECT, width)
    assert (quality.covers(img, [Die(2, flat.box, 1.0)], 60.0)[0] > quality.COVER) == hidden


@pytest.mark.parametrize("seed", [0, 3])
def test_a_blurred_die_read_with_a_wide_box_is_refused(seed: int) -> None:
    # A blurred die's box takes in its blur; the speckles of the table around
    # it are sharp, so the edge is measured over the side the reader measured.
    rng = np.random.default_rng(seed)
    img = background(640, 480, "speckle", rng)
    blur_die(
        img, draw_die(img, 3, (320, 240), 60, 20.0, (200, 230, 240), (30, 30, 30)), 0.35, rng, motion=False
    )
    assert quality.edge_width(img, 320, 240, 96) < quality.BLUR_EDGE_PX  # in the whole box: sharp
    check = quality.check(img, Die(3, [272.0, 192.0, 368.0, 288.0], 1.0, side=60.0))
    assert check.reason == "blurred" and check.edge_px > quality.BLUR_EDGE_PX


def test_an_object_reaching_in_from_the_frame_edge_is_no_wall() -> None:
    # Two like slabs, 2.7 die sides long: one reaching in from the frame's edge,
    # one in the middle. Neither is long enough for a wall.
    img = background(640, 480, "plain", np.random.default_rng(7))
    cv2.rectangle(img, (0, 200), (160, 260), DARK_OBJECT, -1)
    cv2.rectangle(img, (300, 200), (460, 260), DARK_OBJECT, -1)
    fg = quality.foreground(img, 60.0)
    assert fg[205:256, 0:156].all() and fg[205:256, 304:456].all()
    assert not fg[100:150].any()


def test_unsure_and_readable_dice_are_left_alone() -> None:
    img, placed = scene(640, 480, [1, 2, 3, 4, 5, 6], 60, np.random.default_rng(8), "wood")
    dice = _sure_dice(placed)
    assert quality.grade(img, dice) == dice
    # unsure, but above what a refusal lowers a die to: grading them would show
    unsure = [Die(d.value, d.box, (quality.REFUSED + quality.SURE) / 2) for d in dice]
    assert quality.grade(cv2.GaussianBlur(img, (0, 0), 6), unsure) == unsure
    assert quality.grade(img, []) == []


def test_a_blurred_copy_of_a_sharp_frame_is_refused() -> None:
    img, placed = scene(640, 480, [2, 3, 5], 50, np.random.default_rng(9), "cloth")
    dice = _sure_dice(placed)
    for frame in (
        cv2.GaussianBlur(img, (0, 0), 5),
        cv2.cvtColor(cv2.GaussianBlur(img, (0, 0), 5), cv2.COLOR_BGR2GRAY),
    ):
        assert all(d.confidence < 0.5 for d in quality.grade(frame, dice))


def test_trouble_scenes_are_what_they_say() -> None:
    for trouble, low, high in (("cocked", 30, 50), ("hidden", 0.25, 0.75), ("blurred", 0.25, 0.6)):
        a = trouble_scene(640, 480, [1, 6], 50, np.random.default_rng(1), trouble, "wood")
        b = trouble_scene(640, 480, [1, 6], 50, np.random.default_rng(1), trouble, "wood")
        assert np.array_equal(a[0], b[0])  # one seed, one frame
        img, placed, bad = a
        assert bad.trouble == trouble and low <= bad.amount <= high
        assert [p.value for p in placed] == [1, 6]
        assert all(math.hypot(p.center[0] - bad.center[0], p.center[1] - bad.center[1]) > 50 for p in placed)


def test_colour_distances_are_numpys() -> None:
    rng = np.random.default_rng(12)
    for n in (1, 7, 500):
        d = (rng.normal(0, 1, (n, 3)) * rng.choice([1e-3, 1.0, 300.0], (n, 3))).astype(np.float32)
        assert np.array_equal(quality._norms(d), np.sqrt((d**2).sum(-1)))


def edge_width_plainly(image: np.ndarray, cx: float, cy: float, side: float) -> float:
    """``quality.edge_width`` with the four directions' steps stacked and ranked at once."""
    crop = pixels.crop(image, cx, cy, quality.BLUR_WINDOW * side + 1)[0]
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    n = grey.size
    ranked = np.sort(grey.ravel())
    spread = float(ranked[int(0.98 * (n - 1))]) - float(ranked[int(0.02 * (n - 1))])
    if spread <= 1.0:
        return 0.0
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    d = math.sqrt(0.5)
    steps = np.abs(np.stack([gx.ravel(), gy.ravel(), (gx + gy).ravel() * d, (gx - gy).ravel() * d]))
    k = n - max(3, min(n // 100, int(quality.EDGE_RANK * side)))
    return spread / max(float(np.sort(steps, axis=1)[:, k].min()) / 8.0, 1e-3)


def test_edge_widths_match_their_plain_form() -> None:
    for seed, kind in enumerate(KINDS):
        rng = np.random.default_rng(seed)
        img, placed = scene(640, 480, [1, 2, 3], float(rng.uniform(25, 90)), rng, kind)
        img = cv2.GaussianBlur(img, (0, 0), 1.0 + seed)
        for p in placed:
            for side in (p.size, 0.6 * p.size):
                got = quality.edge_width(img, p.center[0], p.center[1], side)
                assert got == edge_width_plainly(img, p.center[0], p.center[1], side)
                assert got > 0
