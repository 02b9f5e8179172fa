"""What a table's dice look like, learned from their readings (vision.looks)."""

from __future__ import annotations

import numpy as np

from vision.die import Die
from vision.looks import looks, measure
from vision.synth import scene

WHITE = ((235, 235, 235), (20, 20, 20))  # body, pips (BGR)
RED = ((40, 40, 200), (245, 245, 245))
GREEN = ((60, 150, 40), (240, 240, 240))


def _thrown(colours: tuple, count: int, seed: int) -> tuple[np.ndarray, list[Die]]:
    """A frame of ``count`` dice of one kind, and the dice as a reader reports them, sure."""
    rng = np.random.default_rng(seed)
    img, placed = scene(640, 480, [int(v) for v in rng.integers(1, 7, count)], 48, rng, "wood", [colours])
    return img, [Die(p.value, p.box, 0.99) for p in placed]


def _near(got: tuple[int, int, int], want: tuple[int, int, int], within: int = 30) -> bool:
    return max(abs(a - b) for a, b in zip(got, want, strict=True)) <= within


def test_two_kinds_of_dice_are_told_apart_by_their_colours() -> None:
    colours = []
    for seed, kind, count in ((1, WHITE, 5), (2, RED, 4), (3, WHITE, 4)):
        colours += measure(*_thrown(kind, count, seed))
    assert len(colours) == 13
    white, red = looks(colours)
    assert (white.dice, red.dice) == (9, 4)
    assert _near(white.face, WHITE[0]) and _near(white.pips, WHITE[1], 60)
    assert _near(red.face, RED[0]) and _near(red.pips, RED[1], 60)
    # Said as people write colours: red, green, blue.
    b, g, r = red.face
    assert red.hex()[0] == f"#{r:02x}{g:02x}{b:02x}" and r > 150 > max(g, b)


def test_a_die_seen_too_seldom_is_no_kind_of_the_tables() -> None:
    colours = measure(*_thrown(WHITE, 5, 4))
    # One green die among them, as a misread or a die held up would be.
    colours += measure(*_thrown(GREEN, 1, 5))
    assert [k.dice for k in looks(colours)] == [5]


def test_a_die_cut_by_the_frames_edge_is_not_measured() -> None:
    img, dice = _thrown(WHITE, 2, 6)
    cut = Die(3, [-20.0, 100.0, 28.0, 148.0], 0.99)
    assert len(measure(img, [*dice, cut])) == 2
    assert measure(img, []) == [] and looks([]) == []
