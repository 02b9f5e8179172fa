"""One die alone, every value at every turn: rendered white dice on dark cloth and dark
dice on a light table, turned 0-80 degrees in steps of 10 (the suite's time; steps of
5 read the same way), at 30, 36, 44 and 60 px.

Each reading of the lone die must be right or refused, never wrong; how many of
the 9 turns of the six values are read right is guarded per size. Measured with
the locked versions (dice right of 54, none wrong of 432): white on dark 53 / 54 /
54 / 52, dark on light 51 / 53 / 54 / 52; each floor leaves room for two turns. In
steps of 5 (108 a size): 107 / 108 / 106 / 106 and 103 / 106 / 107 / 102, none
wrong. A 6 is the value most often refused (at 30 px, 1 and 3 of 18 turns), a 2
the next. At 44-60 px the finder often marks only the pips (a 2's two, 38 px apart;
a 1's one): they are looked at whole (``vision.reader._wholes``); a 30 px die the
finder sizes small is looked at larger (``vision.reader._larger``). Raise these as
the reader learns.
"""

from __future__ import annotations

import numpy as np
import pytest
from lone_die_support import SCHEMES
from lone_die_support import lone_die as _lone

from vision import SURE, read_dice

pytestmark = pytest.mark.slow

SIZES = (30, 36, 44, 60)
TURNS = range(0, 90, 10)
RIGHT_AT_LEAST = {
    "white on dark cloth": {30: 51, 36: 52, 44: 52, 60: 50},
    "dark on light": {30: 49, 36: 51, 44: 52, 60: 50},
}
WRONG_AT_MOST = 1


@pytest.fixture(scope="module")
def outcomes() -> dict[tuple[str, int], tuple[int, list]]:
    out = {}
    for scheme in SCHEMES:
        for size in SIZES:
            right, wrong = 0, []
            for value in range(1, 7):
                for turn in TURNS:
                    sure = [d for d in read_dice(_lone(scheme, size, value, turn)) if d.confidence >= SURE]
                    right += len(sure) == 1 and sure[0].value == value
                    wrong += [(value, turn, d.value) for d in sure if d.value != value]
            out[scheme, size] = right, wrong
    return out


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_lone_die_is_read_at_most_turns(outcomes, scheme: str, size: int) -> None:
    right, _ = outcomes[scheme, size]
    assert right >= RIGHT_AT_LEAST[scheme][size], (right, 6 * len(TURNS))


def test_a_lone_die_is_right_or_refused(outcomes) -> None:
    wrong = [(key, w) for key, (_, ws) in outcomes.items() for w in ws]
    assert len(wrong) <= WRONG_AT_MOST, wrong


def test_the_lone_die_is_drawn_where_and_as_said() -> None:
    a, b = _lone("dark on light", 44, 5, 30), _lone("dark on light", 44, 5, 30)
    assert np.array_equal(a, b)  # one seed, one frame
    assert a.mean() > 150 and _lone("white on dark cloth", 44, 5, 30).mean() < 100


def test_a_small_die_the_finder_sizes_small_is_read_larger(monkeypatch) -> None:
    """A dark 30 px 6 turned 40 degrees: the finder's spot is two thirds of the die, whose outer
    pips the counter then misses (read as a 2, no die); looked at larger it is read, sure."""
    from vision import finder, reader

    img = _lone("dark on light", 30, 6, 40)
    assert [round(s.side) for s in finder.find(img) if s.score >= 0.3] == [22]
    assert [(d.value, d.confidence >= SURE) for d in read_dice(img)] == [(6, True)]
    monkeypatch.setattr(reader, "_larger", lambda *args: {})
    assert [d for d in read_dice(img) if d.confidence >= SURE] == []
