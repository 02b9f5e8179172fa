"""Dice whose top face cannot be read must come out unsure (below SURE), so the table asks for a re-roll.

Each scene is read as the table reads a rest: three still frames, in the three
views, combined (vision.views).

Rendered scenes (vision.synth): a die cocked against the tray wall, a die half
hidden under a hand or a dark object, a blurred die, each among sharp flat dice
whose values must still be read; and frames taken while every die still rolls.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision import SURE, Die, read_dice
from vision.synth import DICE_COLOURS, PlacedDie, rolling_scene, trouble_scene
from vision.views import read_rest

pytestmark = pytest.mark.slow

KINDS = ["plain", "wood", "cloth", "speckle", "tray"]
SEEDS = (0,)  # one scene for every table and colour pair (the suite's time)


def _near(d: Die, die: PlacedDie, reach: float) -> bool:
    return math.hypot(d.center[0] - die.center[0], d.center[1] - die.center[1]) < reach * die.size


def _frame(trouble: str, kind: str, colour: int, seed: int) -> tuple[int, bool]:
    """(confident readings of the trouble die, every sharp die read right and sure) for one scene."""
    seed += 100 * KINDS.index(kind) + 10 * colour + len(trouble)
    rng = np.random.default_rng(seed)
    size = float(rng.uniform(40, 80))
    values = [int(v) for v in rng.integers(1, 7, 3)]
    img, placed, bad = trouble_scene(640, 480, values, size, rng, trouble, kind, [DICE_COLOURS[colour]])
    sure = [d for d in read_rest(img) if d.confidence >= SURE]
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


# Troubled dice read sure all the same, of the 35 scenes of each trouble: the
# confidence model refuses too few of them yet (a known limit). Measured 10 / 2 / 3
# with the locked OpenCV 5.0 and 10 / 2 / 4 with 5.1; each bound leaves room for a
# scene or two. Lower these as the reader learns.
MISSED_AT_MOST = {"cocked": 12, "blurred": 5, "hidden": 3}
# Scenes with a sharp die beside the troubled one misread or refused: measured 2 / 2 / 1
# (OpenCV 5.0 and 5.1), with a scene's room.
SHARP_WRONG_AT_MOST = {"cocked": 3, "hidden": 3, "blurred": 2}


@pytest.mark.parametrize("trouble", ["cocked", "hidden", "blurred"])
def test_troubled_die_is_refused(outcomes: dict, trouble: str) -> None:
    missed = [(kind, colour, seed) for kind, colour, seed, confident, _ in outcomes[trouble] if confident]
    assert len(missed) <= MISSED_AT_MOST[trouble], missed


@pytest.mark.parametrize("trouble", ["cocked", "hidden", "blurred"])
def test_sharp_dice_beside_it_are_still_read(outcomes: dict, trouble: str) -> None:
    wrong = [(kind, colour, seed) for kind, colour, seed, _, sharp in outcomes[trouble] if not sharp]
    assert len(wrong) <= SHARP_WRONG_AT_MOST[trouble], wrong


# Sure readings on frames taken while five dice still roll (8 frames): a smeared
# die's pips are still counted now and then. The table reads only once the frames
# are still (vision.settle). Measured 3 (OpenCV 5.0 and 5.1), with a die's room.
ROLLING_SURE_AT_MOST = 4


def test_rolling_frames_read_few_sure_dice() -> None:
    found = []
    for kind in ("plain", "wood", "cloth", "speckle"):
        for seed in (0, 1):
            rng = np.random.default_rng(seed * 10 + len(kind))
            img, dice = rolling_scene(
                640, 480, [int(v) for v in rng.integers(1, 7, 5)], float(rng.uniform(40, 80)), rng, kind
            )
            assert all(d.trouble == "blurred" and 0.3 <= d.amount <= 0.7 for d in dice)
            found += [(kind, seed, d.value) for d in read_dice(img) if d.confidence >= SURE]
    assert len(found) <= ROLLING_SURE_AT_MOST, found


def test_trouble_scenes_are_what_they_say() -> None:
    for trouble, low, high in (("cocked", 30, 50), ("hidden", 0.25, 0.75), ("blurred", 0.25, 0.6)):
        a = trouble_scene(640, 480, [1, 6], 50, np.random.default_rng(1), trouble, "wood")
        b = trouble_scene(640, 480, [1, 6], 50, np.random.default_rng(1), trouble, "wood")
        assert np.array_equal(a[0], b[0])  # one seed, one frame
        img, placed, bad = a
        assert bad.trouble == trouble and low <= bad.amount <= high
        assert [p.value for p in placed] == [1, 6]
        assert all(math.hypot(p.center[0] - bad.center[0], p.center[1] - bad.center[1]) > 50 for p in placed)
