"""A die seen at a slant (a phone held at an angle): its top face foreshortened, the side
facing the camera in view below it with its own pips (vision.synth.draw_slanted_die).

The top face's value is the die's; the side's pips must never be counted with
it, nor read instead of it. One die alone, white on dark cloth and white pips on
a red die on wood, at 36, 44 and 60 px, turned -40 to 40 degrees in steps of 20,
read without a calibration and with one that knows the die's size (as a fixed
camera's table learns it from its own sure readings).

Measured with the locked versions (right of 180 a slant; none wrong up to 35
degrees): without a calibration 175 / 159 at 25 / 35 degrees, with one 167 /
155. At 45 degrees the side shows as large as the top, and a die whose top face
is a 1 or a 2 is read by its side now and then: 3 and 3 of 180 readings wrong (a
known limit, guarded so that it does not grow). Each bound leaves room for four dice.

A calibration knows a die's size, not which way the camera looks: the finder sizes a
slanted die by its top face alone or by its outline with the side, and one of the
calibration's size is missed. The table then reads the roll again without it, told
how many dice were thrown, so that at the table a calibration reads these dice as
well as none does.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from vision import SURE
from vision.calibration import Calibration, DieSizes
from vision.reader import read_dice
from vision.synth import background, draw_slanted_die
from vision.table_reader import TableReader

pytestmark = pytest.mark.slow

SLANTS = (25, 35, 45)
SIZES = (36, 44, 60)
TURNS = range(-40, 41, 20)
SCHEMES = {
    # name: (table, die body, pips)
    "white on dark cloth": ("cloth", (235, 235, 235), (20, 20, 20)),
    "red on wood": ("wood", (40, 40, 160), (240, 240, 240)),
}
# Every die drawn at each slant: 180.
CASES = list(itertools.product(SCHEMES, SIZES, range(1, 7), TURNS))
# The side a finder's spot gives such a die, in die sides (its outline with the side in view).
SPOT_SIDE = 1.33
RIGHT_AT_LEAST = {(25, False): 170, (35, False): 154, (25, True): 162, (35, True): 150}
WRONG_AT_45_AT_MOST = 10
# Read as the table reads a roll (three views, told one die was thrown): 178 / 161 of
# 180 right at 25 / 35 degrees without a calibration, 179 / 167 with one.
TABLE_RIGHT_AT_LEAST = {25: 174, 35: 159}


def _slanted(scheme: str, slant: int, size: int, value: int, turn: int) -> np.ndarray:
    kind, body, pip = SCHEMES[scheme]
    img = background(320, 240, kind, np.random.default_rng(value * 100 + turn + slant + size))
    draw_slanted_die(img, value, (160, 110), size, float(turn), float(slant), body, pip)
    return img


def _known(size: int) -> DieSizes:
    """A calibration of one die size over the whole frame, from 20 dice."""
    return DieSizes(320, 240, (math.log(size * SPOT_SIDE),), 0.05, 20)


@pytest.fixture(scope="module")
def outcomes() -> dict[tuple[int, bool], tuple[int, list]]:
    out = {}
    for slant in SLANTS:
        for calibrated in (False, True):
            right, wrong = 0, []
            for scheme, size, value, turn in CASES:
                sizes = _known(size) if calibrated else None
                read = read_dice(_slanted(scheme, slant, size, value, turn), sizes=sizes)
                sure = [d for d in read if d.confidence >= SURE]
                right += len(sure) == 1 and sure[0].value == value
                wrong += [(scheme, size, value, turn, d.value) for d in sure if d.value != value]
            out[slant, calibrated] = right, wrong
    return out


@pytest.mark.parametrize("calibrated", [False, True])
@pytest.mark.parametrize("slant", [25, 35])
def test_a_slanted_die_is_read_by_its_top_face(outcomes, slant: int, calibrated: bool) -> None:
    right, wrong = outcomes[slant, calibrated]
    assert wrong == []
    assert right >= RIGHT_AT_LEAST[slant, calibrated], (right, len(CASES))


def test_at_45_degrees_the_side_is_seldom_read_for_the_top(outcomes) -> None:
    wrong = outcomes[45, False][1] + outcomes[45, True][1]
    assert len(wrong) <= WRONG_AT_45_AT_MOST, wrong


def _learned(size: int) -> Calibration:
    """A calibration as a table keeps it: 20 dice of the side the finder gives, all over the frame."""
    rng = np.random.default_rng(size)
    sides = size * SPOT_SIDE * np.exp(rng.normal(0, 0.03, 20))
    points = np.stack([rng.uniform(20, 300, 20), rng.uniform(20, 220, 20), sides], axis=1)
    return Calibration.from_dict({"shape": [240, 320], "points": points.tolist()})


@pytest.mark.parametrize("slant", [25, 35])
def test_at_the_table_a_calibration_reads_a_slanted_die_as_well_as_none(slant: int) -> None:
    right = {}
    for calibrated in (False, True):
        right[calibrated] = 0
        for scheme, size, value, turn in CASES:
            table = TableReader(calibration=_learned(size) if calibrated else None)
            assert (table.calibration.sizes is not None) == calibrated
            read = table.read(_slanted(scheme, slant, size, value, turn), expect=1)
            sure = [d for d in read if d.confidence >= SURE]
            assert [d.value for d in sure if d.value != value] == [], (scheme, size, value, turn)
            right[calibrated] += len(sure) == 1
    # The table reads again without its calibration when it finds fewer dice than were thrown.
    assert right[True] >= right[False] - 2, right
    assert min(right.values()) >= TABLE_RIGHT_AT_LEAST[slant], right


def test_the_slanted_die_shows_its_top_above_its_side() -> None:
    # Straight down only the top face shows; at a slant the side's darker band grows below it.
    flat, slanted = (_slanted("white on dark cloth", s, 60, 1, 0) for s in (0, 35))
    below = slice(110 + 25, 110 + 60), slice(140, 180)
    assert flat[below].mean() < 100 < slanted[below].mean()
    top = slice(110 - 20, 110 + 10), slice(140, 180)
    assert slanted[top].mean() > 180
