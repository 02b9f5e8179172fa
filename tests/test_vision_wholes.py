"""A small die the finder marks as parts of its own (vision.reader._wholes): the two
columns of a 6, its quarters or a 1's pip, each a spot the face verifier sees no face
in, are looked at again as the one die that holds them."""

from __future__ import annotations

from vision import reader
from vision import tunables as T
from vision.finder import Spot


def test_a_sixs_two_columns_are_looked_at_as_one_die() -> None:
    # A 30 px 6: the finder's two 16 px spots on its pip columns, 14 px apart.
    (([whole], doubt),) = reader._wholes([Spot(93, 100, 16, 0.45), Spot(107, 100, 16, 0.4)], [])
    assert (whole.x, whole.y) == (100, 100)
    assert whole.side == T.WHOLE_GROW * 30 and whole.score == 0.45
    assert doubt == T.NO_FACE  # as any spot of the finder's


def test_a_dies_quarters_are_one_die() -> None:
    quarters = [Spot(x, y, 13, 0.35) for x in (94, 106) for y in (94, 106)]
    (([whole], _),) = reader._wholes(quarters, [])
    assert abs(whole.x - 100) < 1e-9 and abs(whole.y - 100) < 1e-9
    assert 25 * T.WHOLE_GROW <= whole.side <= 26 * T.WHOLE_GROW


def test_a_lone_pip_is_looked_at_as_its_die_only_if_surely_a_face() -> None:
    ((tries, doubt),) = reader._wholes([Spot(100, 100, 14, 0.7)], [])
    assert [(w.x, w.y, w.side) for w in tries] == [(100, 100, k * 14) for k in T.WHOLE_ONE]
    assert doubt == T.WHOLE_ONE_DOUBT < T.NO_FACE
    # A try reaching a die with a face is no try; the others stay.
    ((tries, _),) = reader._wholes([Spot(100, 100, 14, 0.7)], [Spot(130, 100, 20, 0.9)])
    assert [w.side for w in tries] == [T.WHOLE_ONE[0] * 14]


def test_far_apart_parts_and_unlike_sizes_are_looked_at_alone() -> None:
    far = reader._wholes([Spot(100, 100, 16, 0.5), Spot(160, 100, 16, 0.5)], [])
    assert sorted((tries[0].x, doubt) for tries, doubt in far) == [
        (100, T.WHOLE_ONE_DOUBT),
        (160, T.WHOLE_ONE_DOUBT),
    ]
    unlike = reader._wholes([Spot(100, 100, 10, 0.5), Spot(110, 100, 30, 0.5)], [])
    assert sorted(tries[0].side for tries, _ in unlike) == [T.WHOLE_ONE[0] * 10, T.WHOLE_ONE[0] * 30]


def test_a_row_of_spots_along_print_is_no_die() -> None:
    row = [Spot(100 + 14 * k, 100, 16, 0.4) for k in range(5)]  # 72 px long, spots of 16
    assert reader._wholes(row, []) == []


def test_parts_where_a_die_with_a_face_lies_are_its_pips() -> None:
    parts = [Spot(93, 100, 16, 0.45), Spot(107, 100, 16, 0.4)]
    assert reader._wholes(parts, [Spot(100, 100, 34, 0.9)]) == []
    assert len(reader._wholes(parts, [Spot(300, 100, 34, 0.9)])) == 1


def test_a_large_twos_pips_are_looked_at_as_its_die() -> None:
    # A 60 px 2 at a turn: the finder's two 13.5 px spots on its pips, 38 px apart on the diagonal.
    pips = [Spot(334, 182, 13.5, 0.58), Spot(340, 220, 12.9, 0.52)]
    (([whole], _),) = reader._wholes(pips, [])
    assert abs(whole.x - 337) < 1 and abs(whole.y - 201) < 1
    assert 55 < whole.side < 65


def test_no_die_far_larger_than_the_frames_dice_is_looked_at() -> None:
    pips = [Spot(334, 182, 13.5, 0.58), Spot(340, 220, 12.9, 0.52)]
    assert len(reader._wholes(pips, [], usual=40)) == 1
    # Dice of 25 px in the frame: a 59 px square of spots is none of them.
    assert reader._wholes(pips, [], usual=25) == []


def test_a_large_ones_pip_is_looked_at_as_its_die() -> None:
    # A 1 on a 60 px die: the finder's one 13 px spot on its pip, a fifth of the die.
    ((tries, _),) = reader._wholes([Spot(200, 200, 13, 0.5)], [])
    assert any(55 < t.side < 62 for t in tries)
