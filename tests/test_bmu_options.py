"""Reading a roll (B3-B5): the rulebook's examples, and every one of the 7776
ordered rolls against a brute-force reading written from the rulebook."""

from __future__ import annotations

import itertools

import pytest

from tablepi.games.beam_me_up.options import SORTED_ROLLS, TABLE, Option, options, roll_key
from tablepi.games.errors import RuleError

ALL_ROLLS = list(itertools.product(range(1, 7), repeat=5))
KIND_NAMES = {2: "pair", 3: "triplet", 4: "four of a kind", 5: "five of a kind"}


def brute_force(dice: tuple[int, ...]) -> set[tuple[str, tuple[tuple[str, int], ...]]]:
    """Every combination the rulebook lists that some dice of the roll make,
    then only the ones no other combination beats (a triplet beats its pair,
    a big straight its small straight, a full house its triplet...)."""
    index_sets = [c for n in range(2, 6) for c in itertools.combinations(range(5), n)]
    kinds = []  # (value, size) for every set of equal dice
    straights = []  # length of every run of distinct consecutive dice (4 or 5)
    for idx in index_sets:
        values = [dice[i] for i in idx]
        if len(set(values)) == 1:
            kinds.append((values[0], len(values)))
        ordered = sorted(values)
        if len(idx) >= 4 and all(b - a == 1 for a, b in itertools.pairwise(ordered)):
            straights.append(len(idx))
    candidates = set()
    for value, size in kinds:
        candidates.add((KIND_NAMES[size], ((str(value), size - 1),)))
    pairs = {v for v, size in kinds if size == 2}
    triplets = {v for v, size in kinds if size == 3}
    for a, b in itertools.combinations(sorted(pairs), 2):
        # Two pairs need four dice: two of each value.
        if dice.count(a) >= 2 and dice.count(b) >= 2:
            candidates.add(("two pairs", ((str(a), 1), (str(b), 1))))
    for t in triplets:
        for p in pairs - {t}:
            candidates.add(("full house", ((str(t), 2), (str(p), 1))))
    for length in straights:
        if length == 5:
            candidates.add(("big straight", (("straight", 3),)))
        else:
            candidates.add(("small straight", (("straight", 2),)))
            for p in pairs:
                candidates.add(("small straight", (("straight", 2), (str(p), 1))))

    def beats(a, b) -> bool:
        if a == b:
            return False
        free = list(a[1])
        for column, squares in b[1]:
            match = next((part for part in free if part[0] == column and part[1] >= squares), None)
            if match is None:
                return False
            free.remove(match)
        return True

    best = {c for c in candidates if not any(beats(other, c) for other in candidates)}
    return {(name, tuple(sorted(parts))) for name, parts in best}


def as_set(found: list[Option]) -> set:
    return {(o.name, tuple(sorted(o.parts))) for o in found}


def test_B3_every_ordered_roll_matches_the_brute_force_reading():
    # Exhaustive, not sampled: all 6**5 ordered rolls.
    assert len(ALL_ROLLS) == 7776
    mismatches = [d for d in ALL_ROLLS if as_set(options(d)) != brute_force(d)]
    assert mismatches == []


def test_B3_the_table_holds_the_252_sorted_rolls():
    assert len(SORTED_ROLLS) == len(TABLE) == 252
    assert roll_key((4, 1, 3, 1, 2)) == "1,1,2,3,4"


def test_B3_rulebook_example_emma_triplet_of_2s():
    # Emma rolls 2-2-2-4-6: two squares in column 2; the 4 and 6 are of no use.
    [option] = options([2, 2, 2, 4, 6])
    assert option.name == "triplet"
    assert option.parts == (("2", 2),)
    assert option.text == "triplet of 2s: +2 in column 2"


def test_B3_rulebook_example_sam_two_pairs():
    [option] = options([2, 2, 4, 4, 6])
    assert option.name == "two pairs"
    assert option.parts == (("2", 1), ("4", 1))


def test_B3_rulebook_example_emma_full_house():
    [option] = options([2, 2, 2, 4, 4])
    assert option.name == "full house"
    assert option.parts == (("2", 2), ("4", 1))


def test_B3_rulebook_example_sam_small_straight_with_pair():
    [option] = options([1, 2, 3, 4, 4])
    assert option.name == "small straight"
    assert option.parts == (("straight", 2), ("4", 1))
    assert option.text == "small straight: +2 in straight; with the pair of 4s: +1 in column 4"


@pytest.mark.parametrize(
    ("dice", "name", "parts"),
    [
        ([5, 5, 1, 2, 3], "pair", (("5", 1),)),
        ([6, 6, 6, 6, 1], "four of a kind", (("6", 3),)),
        ([3, 3, 3, 3, 3], "five of a kind", (("3", 4),)),
        ([6, 3, 4, 5, 1], "small straight", (("straight", 2),)),
        ([2, 3, 4, 5, 2], "small straight", (("straight", 2), ("2", 1))),
    ],
)
def test_B3_each_combination_scores_its_squares(dice, name, parts):
    [option] = options(dice)
    assert (option.name, option.parts) == (name, parts)


def test_B4_big_straight_is_only_a_big_straight():
    for dice in ([1, 2, 3, 4, 5], [6, 5, 4, 3, 2]):
        assert [(o.name, o.parts) for o in options(dice)] == [("big straight", (("straight", 3),))]


def test_B4_rolls_with_no_option_are_exactly_1_2_3_5_6_and_1_2_4_5_6():
    empty = {tuple(sorted(d)) for d in ALL_ROLLS if not options(d)}
    assert empty == {(1, 2, 3, 5, 6), (1, 2, 4, 5, 6)}


def test_B5_dice_outside_the_option_are_ignored_and_parts_are_one_or_two():
    for roll in SORTED_ROLLS:
        for option in TABLE[roll]:
            assert 1 <= len(option.parts) <= 2
            # Never more squares than the dice could score (four of a kind +3 ... five +4).
            assert sum(s for _, s in option.parts) <= 4


def test_option_to_dict_is_plain_json():
    [option] = options([1, 2, 3, 4, 4])
    assert option.to_dict() == {
        "name": "small straight",
        "parts": [{"column": "straight", "squares": 2}, {"column": "4", "squares": 1}],
    }


@pytest.mark.parametrize(
    ("dice", "rule"),
    [
        ([1, 2, 3, 4, 5, 6], "dice-count"),
        ([1, 2, 3, 4], "dice-count"),
        ([1, 2, 3, 4, 7], "dice-value"),
        ([0, 2, 3, 4, 5], "dice-value"),
        ([1, 2, "x", 4, 5], "dice-value"),
        ([1.0, 2, 3, 4, 5], "dice-value"),
        ([True, 2, 3, 4, 5], "dice-value"),
        (None, "dice-count"),
    ],
)
def test_bad_dice_are_refused(dice, rule):
    with pytest.raises(RuleError) as info:
        options(dice)
    assert info.value.rule == rule
