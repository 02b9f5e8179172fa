"""The pip-grid check of a die's reading: rendered dice with pips lost or made up, and a photo."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import Die, verify
from vision.synth import DICE_COLOURS, PIP_LAYOUT, PIP_STEP, background, draw_die

SIZE = 30.0  # the small dice of byler-d6 (22-38 px) are where pips get lost


def rendered(
    value: int, seed: int, size: float = SIZE, colours: int | None = None
) -> tuple[np.ndarray, dict]:
    """A frame with one die of ``value``, and where its pips are."""
    rng = np.random.default_rng(seed)
    img = background(160, 120, "plain", rng)
    body, pip = DICE_COLOURS[seed % len(DICE_COLOURS) if colours is None else colours]
    angle = float(rng.uniform(0, 90))
    centre = (80.0 + rng.uniform(-5, 5), 60.0 + rng.uniform(-5, 5))
    draw_die(img, value, centre, size, angle, body, pip)
    a = math.radians(angle)
    step = size * PIP_STEP

    def site(u: int, v: int) -> tuple[float, float]:
        return centre[0] + step * (u * math.cos(a) - v * math.sin(a)), centre[1] + step * (
            u * math.sin(a) + v * math.cos(a)
        )

    half = size / 2 * (abs(math.cos(a)) + abs(math.sin(a)))
    box = [centre[0] - half, centre[1] - half, centre[0] + half, centre[1] + half]
    return img, {"pips": {k: site(*k) for k in PIP_LAYOUT[value]}, "site": site, "box": box, "size": size}


def reading(scene: dict, value: int, pips: list[tuple[float, float]], confidence: float = 0.8) -> Die:
    return Die(value, scene["box"], confidence, pips, scene["size"] * 0.085, scene["size"])


# (value shown, value read, the pips the reader found: the shown ones it kept, plus made-up ones)
LOST = [
    (5, 4, [(-1, -1), (1, -1), (-1, 1), (1, 1)]),  # the middle pip lost
    (3, 2, [(-1, -1), (1, 1)]),  # the middle pip lost
    (6, 4, [(-1, -1), (-1, 1), (1, -1), (1, 1)]),  # the two middle ones lost
]
MADE_UP = [
    (4, 5, [(-1, -1), (1, -1), (-1, 1), (1, 1)], [(0, 0)]),  # a glint in the middle
    (2, 3, [(-1, -1), (1, 1)], [(0, 0)]),
    (4, 6, [(-1, -1), (1, -1), (-1, 1), (1, 1)], [(-1, 0), (1, 0)]),
]


@pytest.mark.parametrize(("shown", "read", "kept"), LOST)
@pytest.mark.parametrize(("seed", "size"), [(0, SIZE), (1, SIZE), (2, 24.0), (3, 90.0)])
def test_a_lost_pip_is_found(
    shown: int, read: int, kept: list[tuple[int, int]], seed: int, size: float
) -> None:
    img, scene = rendered(shown, seed, size)
    die = reading(scene, read, [scene["pips"][k] for k in kept])
    (checked,) = verify.check(img, [die])
    assert checked.value == shown
    assert checked.confidence == verify.CHANGED_CONFIDENCE


@pytest.mark.parametrize(("shown", "read", "kept", "extra"), MADE_UP)
@pytest.mark.parametrize(("seed", "size"), [(0, SIZE), (1, SIZE), (2, 24.0), (3, 90.0)])
def test_a_made_up_pip_is_dropped(
    shown: int, read: int, kept: list[tuple[int, int]], extra: list[tuple[int, int]], seed: int, size: float
) -> None:
    img, scene = rendered(shown, seed, size)
    die = reading(scene, read, [scene["pips"][k] for k in kept] + [scene["site"](*k) for k in extra])
    (checked,) = verify.check(img, [die])
    assert checked.value == shown


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("colours", range(len(DICE_COLOURS)))
def test_right_readings_are_kept(value: int, colours: int) -> None:
    for seed, size in ((colours, SIZE), (colours + 10, 44.0)):
        img, scene = rendered(value, seed, size, colours)
        die = reading(scene, value, list(scene["pips"].values()), 0.8)
        (checked,) = verify.check(img, [die])
        assert (checked.value, checked.confidence) == (value, 0.8)


def test_the_grid_shows_each_layout() -> None:
    for value in range(2, 7):
        img, scene = rendered(value, value)
        found = verify.site_evidence(img, reading(scene, value, list(scene["pips"].values())))
        assert found is not None
        evidence, err, spacing = found
        assert err < 0.1
        assert spacing == pytest.approx(SIZE * PIP_STEP, rel=0.1)
        assert verify.best_value(verify.fits(evidence)) == value
        assert verify.fits(evidence)[value] > 0.6


def test_unsure_surest_and_pipless_readings_are_left_alone() -> None:
    img, scene = rendered(5, 1)
    corners = [scene["pips"][k] for k in ((-1, -1), (1, -1), (-1, 1), (1, 1))]
    unsure = reading(scene, 4, corners, 0.3)
    surest = reading(scene, 4, corners, verify.CHECK_BELOW)
    no_pips = reading(scene, 4, [], 0.8)
    other_count = reading(scene, 6, corners, 0.8)  # the pips are another reading's
    assert [d.value for d in verify.check(img, [reading(scene, 4, corners, 0.8)])] == [5]
    for die in (unsure, surest, no_pips, other_count):
        assert verify.check(img, [die]) == [die]


def test_grey_and_alpha_frames_are_checked() -> None:
    img, scene = rendered(5, 2, colours=0)
    die = reading(scene, 4, [scene["pips"][k] for k in ((-1, -1), (1, -1), (-1, 1), (1, 1))])
    for frame in (cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)):
        assert [d.value for d in verify.check(frame, [die])] == [5]


def test_a_die_cut_by_the_frame_edge_is_checked() -> None:
    img, scene = rendered(5, 3)
    # the frame cut through the die's left column of pips
    cut = int(scene["site"](-1, 0)[0])
    frame = img[:, cut:].copy()
    corners = [(x - cut, y) for x, y in (scene["pips"][k] for k in ((-1, -1), (1, -1), (-1, 1), (1, 1)))]
    box = [scene["box"][0] - cut, scene["box"][1], scene["box"][2] - cut, scene["box"][3]]
    die = Die(4, box, 0.8, corners, SIZE * 0.085, SIZE)
    assert [d.value for d in verify.check(frame, [die])] == [5]


# A photo of byler-d6/train: a 6 of small dark dice with yellow pips whose
# middle-left pip both readers lost (read 5 from these five pips), and right
# readings of the same photo, with the pips the pip-first reader found.
PHOTO = "IMG_20191208_111352.jpg"
LOST_IN_PHOTO = Die(
    5,
    [412.0, 394.6, 445.4, 427.9],
    0.75,
    [(422.8, 405.2), (429.9, 406.6), (438.4, 408.0), (437.0, 418.6), (421.4, 416.5)],
    2.76,
    29.4,
)
RIGHT_IN_PHOTO = [
    Die(
        5,
        [295.8, 351.4, 337.5, 393.1],
        0.8,
        [(312.0, 363.5), (325.1, 368.4), (316.4, 372.6), (307.5, 376.7), (320.5, 381.5)],
        3.19,
        30.5,
    ),
    Die(
        4,
        [293.5, 227.0, 333.1, 266.6],
        0.8,
        [(311.0, 238.0), (321.4, 243.4), (305.8, 248.0), (316.0, 253.0)],
        2.96,
        29.9,
    ),
    Die(
        6,
        [413.2, 125.7, 444.6, 157.1],
        0.8,
        [(423.9, 132.4), (435.0, 132.0), (424.0, 139.0), (435.5, 138.5), (424.1, 145.9), (435.9, 145.4)],
        2.52,
        29.6,
    ),
    Die(
        4,
        [537.1, 222.4, 570.5, 255.8],
        0.8,
        [(550.1, 232.6), (562.0, 232.8), (550.1, 244.0), (562.0, 245.2)],
        2.93,
        33.7,
    ),
]


def test_a_lost_pip_is_found_in_a_photo(shared_dir: Path) -> None:
    img = cv2.imread(str(shared_dir / "datasets" / "byler-d6" / "train" / PHOTO))
    assert img is not None
    checked = verify.check(img, [LOST_IN_PHOTO, *RIGHT_IN_PHOTO])
    assert [d.value for d in checked] == [6, 5, 4, 6, 4]
    assert checked[1:] == RIGHT_IN_PHOTO


def test_another_readings_pips_overrule_a_value_they_leave_no_fit() -> None:
    # the vote chose the body-first 5 over the pip-first 4 on a rendered 4
    img, scene = rendered(4, 5)
    die = reading(scene, 5, list(scene["pips"].values()))
    assert [d.value for d in verify.check(img, [die])] == [4]
    # but a pip-first 4 that lost the middle pip of a rendered 5 does not
    # overrule the 5: the grid's middle shows the pip
    img, scene = rendered(5, 5)
    die = reading(scene, 5, [scene["pips"][k] for k in ((-1, -1), (1, -1), (-1, 1), (1, 1))])
    assert verify.check(img, [die]) == [die]
    # nor do two or three pips of another reading, which often were a 6's column
    img, scene = rendered(6, 5)
    column = [scene["pips"][k] for k in ((-1, -1), (-1, 0), (-1, 1))]
    die = reading(scene, 6, column)
    assert verify.check(img, [die]) == [die]


def test_face_taken_for_pips_changes_nothing() -> None:
    # a yellow 5 whose four light gaps between its black pips were taken for a 4's pips
    img, scene = rendered(5, 6, colours=6)
    gaps = [scene["site"](u, v) for u, v in ((0, -1), (1, 0), (0, 1), (-1, 0))]
    die = reading(scene, 5, gaps)
    assert verify.check(img, [die]) == [die]


@pytest.mark.parametrize("seed", range(8))
def test_pips_closer_than_a_dies_grid_change_nothing(seed: int) -> None:
    # a dark 5 with red pips, whose four glints between its middle pip and its
    # corner pips the pip-first reader took for a 4's pips: their grid is
    # narrower than any die's, and without that limit seeds 2-4 became 4s
    rng = np.random.default_rng(seed)
    img = background(160, 120, "plain", rng)
    angle, centre = float(rng.uniform(0, 90)), (80.0, 60.0)
    draw_die(img, 5, centre, SIZE, angle, (60, 60, 60), (30, 30, 130))
    a, step = math.radians(angle), SIZE * PIP_STEP * 0.65
    glints = []
    for u, v in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        x = centre[0] + step * (u * math.cos(a) - v * math.sin(a))
        y = centre[1] + step * (u * math.sin(a) + v * math.cos(a))
        cv2.circle(img, (round(x * 4), round(y * 4)), 5, (200, 210, 210), -1, cv2.LINE_AA, 2)
        glints.append((x, y))
    half = SIZE / 2 * (abs(math.cos(a)) + abs(math.sin(a)))
    scene = {"box": [centre[0] - half, centre[1] - half, centre[0] + half, centre[1] + half], "size": SIZE}
    die = reading(scene, 5, glints)
    assert verify.check(img, [die]) == [die]


@pytest.mark.parametrize(("shown", "lost"), [(5, (0, 0)), (3, (0, 0)), (6, (-1, 0))])
@pytest.mark.parametrize("angle", [10.0, 50.0])
def test_a_body_first_reading_is_checked_by_its_own_pips(
    shown: int, lost: tuple[int, int], angle: float
) -> None:
    from vision import faces

    img = background(320, 240, "plain", np.random.default_rng(shown))
    size, a = 40.0, math.radians(angle)
    draw_die(img, shown, (160.0, 120.0), size, angle, body=(60, 60, 170), pip=(240, 240, 240))
    (die,) = [d for d in faces.read_faces(img) if d.confidence >= 0.5]
    assert die.value == shown and len(die.pips) == shown
    # the same reading with the pip at ``lost`` missing, as the reader loses one
    u, v = lost[0] * PIP_STEP * size, lost[1] * PIP_STEP * size
    gone = (160.0 + u * math.cos(a) - v * math.sin(a), 120.0 + u * math.sin(a) + v * math.cos(a))
    kept = [p for p in die.pips if math.dist(p, gone) > 0.1 * size]
    assert len(kept) == shown - 1
    wrong = Die(shown - 1, die.box, 0.7, kept, die.pip_radius, die.side)
    (checked,) = verify.check(img, [wrong])
    assert checked.value == shown
    # and the right reading is left as it was
    right = Die(shown, die.box, 0.7, die.pips, die.pip_radius, die.side)
    assert verify.check(img, [right]) == [right]


# Dice of byler-d6/train the body-first reader misreads (a pip lost or made up
# on small dark dice), with their labelled value: its own pips correct them.
BODY_FIRST_MISREAD = [
    ("IMG_20191208_111858.jpg", (406.5, 334.5), 4),
    ("IMG_20191208_112332.jpg", (269.0, 132.5), 6),
    ("IMG_20191208_112404.jpg", (316.0, 314.0), 5),
]


@pytest.mark.parametrize(("photo", "centre", "shown"), BODY_FIRST_MISREAD)
def test_body_first_readings_in_a_photo_are_checked(
    shared_dir: Path, photo: str, centre: tuple[float, float], shown: int
) -> None:
    from vision import faces

    img = cv2.imread(str(shared_dir / "datasets" / "byler-d6" / "train" / photo))
    assert img is not None
    dice = faces.read_faces(img)
    k = min(range(len(dice)), key=lambda i: math.dist(dice[i].center, centre))
    assert math.dist(dice[k].center, centre) < 5.0
    checked = verify.check(img, dice)
    assert checked[k].value == shown
    # the photo's other readings are left as they were
    assert checked[:k] + checked[k + 1 :] == dice[:k] + dice[k + 1 :]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_both_readings_grids_overrule_the_vote(seed: int) -> None:
    # a rendered 4: the pip-first reader made up two pips (6), the body-first
    # one a middle pip (5), and the vote chose the 5; both grids show the 4
    img, scene = rendered(4, seed)
    pips, site = list(scene["pips"].values()), scene["site"]
    pip = reading(scene, 6, [*pips, site(-1, 0), site(1, 0)])
    body = reading(scene, 5, [*pips, site(0, 0)])
    assert verify.arbitrate(img, pip, body, 5, 0.76) == (4, verify.CHANGED_CONFIDENCE)
    # where the pip-first grid shows the vote's value, the vote stands
    assert verify.arbitrate(img, reading(scene, 4, pips), body, 4, 0.76) == (4, 0.76)
    # and so does an unsure vote
    assert verify.arbitrate(img, pip, body, 5, 0.4) == (5, 0.4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_body_first_reading_its_own_grid_contradicts_gives_way(seed: int) -> None:
    # a white 3 whose body-first reading took two faint marks on the face's
    # other diagonal for a 2: its grid leaves the three black pips empty
    img, scene = rendered(3, seed, colours=0)
    site = scene["site"]
    marks = [site(1, -1), site(-1, 1)]
    for x, y in marks:
        cv2.circle(img, (round(x), round(y)), max(1, round(0.08 * SIZE)), (215, 215, 215), -1)
    pip = reading(scene, 3, list(scene["pips"].values()))
    body = reading(scene, 2, marks)
    assert verify.arbitrate(img, pip, body, 2, 0.76) == (3, verify.CHANGED_CONFIDENCE)
    # without the contradiction (the vote and the body-first reading say 3) nothing changes
    assert verify.arbitrate(img, pip, reading(scene, 3, list(scene["pips"].values())), 3, 0.76) == (3, 0.76)
