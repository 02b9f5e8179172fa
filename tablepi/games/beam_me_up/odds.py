"""Exact odds of reaching a target in the rolls left of a Beam Me Up turn.

A turn has up to three rolls (B11). Before each re-roll the player keeps any
sub-multiset of the current five dice (dice set aside earlier may be rolled
again) and re-rolls the rest; the player stops as soon as the target is
reached. ``probability`` is the chance of reaching the target with the best
keeps for it, as an exact ``Fraction``.

Targets, each "at least" (four 5s reach ``triplet:5``):

``pair:V``, ``triplet:V``, ``four:V``, ``five:V``
    at least 2, 3, 4, 5 dice showing V (1..6);
``pair``, ``triplet``, ``four``, ``five``
    the same with any one value;
``two-pairs``
    two different values, each on at least two dice (a full house has two
    pairs; four of a kind is one value, so it has not);
``full-house``
    one value on at least three dice and another on at least two (five of a
    kind is one value, so it is not a full house);
``small-straight``
    four consecutive values among the dice (a big straight has one);
``big-straight``
    five consecutive values.

How: the chance only depends on the sorted roll, so every figure is worked
out over the 252 sorted rolls and the 462 possible keeps (0 to 5 dice), with
each re-roll's sorted outcomes weighted by how many ordered outcomes give
them. The numbers are whole multiples of 1/6^(5k) with k rolls left, so the
work is in integers and becomes a Fraction at the end. A target's tables are
worked out once (a few milliseconds) and kept.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from functools import cache
from math import factorial

from tablepi.games.beam_me_up.options import SORTED_ROLLS, TABLE, check_dice
from tablepi.games.errors import RuleError
from tablepi.i18n import N_

Roll = tuple[int, ...]  # five die values, sorted
MAX_ROLLS_LEFT = 2  # a turn's first roll leaves two more (B11)
FACES = (1, 2, 3, 4, 5, 6)
_WHOLE = 6**5  # the weights of one re-roll are scaled to this total


def _multinomial(dice: Roll) -> int:
    """How many ordered outcomes of len(dice) dice sort to ``dice``."""
    ways = factorial(len(dice))
    for n in Counter(dice).values():
        ways //= factorial(n)
    return ways


# Every keep (a sorted tuple of 0..5 dice), and for each the sorted rolls a
# re-roll of the other dice can give, each with its weight out of 6^5.
KEEPS: tuple[Roll, ...] = tuple(
    keep for size in range(6) for keep in itertools.combinations_with_replacement(FACES, size)
)


def _transitions() -> dict[Roll, tuple[tuple[Roll, int], ...]]:
    outcomes = {
        n: [(o, _multinomial(o) * 6 ** (5 - n)) for o in itertools.combinations_with_replacement(FACES, n)]
        for n in range(6)
    }
    table = {}
    for keep in KEEPS:
        table[keep] = tuple((tuple(sorted(keep + o)), w) for o, w in outcomes[5 - len(keep)])
    return table


TRANSITIONS: dict[Roll, tuple[tuple[Roll, int], ...]] = _transitions()


def _sub_keeps(roll: Roll) -> tuple[Roll, ...]:
    """Every distinct keep from a roll, smallest first; the last is the roll itself."""
    found = {combo for size in range(6) for combo in itertools.combinations(roll, size)}
    return tuple(sorted(found, key=lambda k: (len(k), k)))


SUB_KEEPS: dict[Roll, tuple[Roll, ...]] = {roll: _sub_keeps(roll) for roll in SORTED_ROLLS}
# The probability of a roll itself: ordered outcomes of five dice out of 6^5.
ROLL_WEIGHTS: dict[Roll, int] = {roll: _multinomial(roll) for roll in SORTED_ROLLS}


def first_roll_scores() -> Fraction:
    """The exact chance that a turn's first roll of five dice offers an option
    (B3-B5), whoever throws it: the yardstick of a player's luck."""
    return Fraction(sum(w for roll, w in ROLL_WEIGHTS.items() if TABLE[roll]), 6**5)


# -- targets ---------------------------------------------------------------------------


def _at_least(value: int, n: int) -> Callable[[Counter], bool]:
    return lambda counts: counts[value] >= n


def _any_at_least(n: int) -> Callable[[Counter], bool]:
    return lambda counts: max(counts.values()) >= n


def _two_pairs(counts: Counter) -> bool:
    return sum(n >= 2 for n in counts.values()) >= 2


def _full_house(counts: Counter) -> bool:
    big = sorted(counts.values(), reverse=True)
    return len(big) >= 2 and big[0] >= 3 and big[1] >= 2


def _run(length: int) -> Callable[[Counter], bool]:
    def check(counts: Counter) -> bool:
        return any(all(counts[v] for v in range(low, low + length)) for low in range(1, 8 - length))

    return check


_KINDS = {"pair": 2, "triplet": 3, "four": 4, "five": 5}
_CHECKS: dict[str, Callable[[Counter], bool]] = {}
for _kind, _n in _KINDS.items():
    _CHECKS[_kind] = _any_at_least(_n)
    for _value in FACES:
        _CHECKS[f"{_kind}:{_value}"] = _at_least(_value, _n)
_CHECKS["two-pairs"] = _two_pairs
_CHECKS["full-house"] = _full_house
_CHECKS["small-straight"] = _run(4)
_CHECKS["big-straight"] = _run(5)

TARGETS: tuple[str, ...] = tuple(_CHECKS)


def check_target(target: object) -> str:
    """The target name, or RuleError("target") listing the forms."""
    if isinstance(target, str) and target in _CHECKS:
        return target
    raise RuleError(
        "target",
        N_(
            "unknown target {target}; one of pair, triplet, four, five (optionally :1..6), "
            "two-pairs, full-house, small-straight, big-straight"
        ).format(target=repr(target)),
    )


def reaches(dice: Iterable[int], target: str) -> bool:
    """Whether five dice reach the target."""
    return _CHECKS[check_target(target)](Counter(check_dice(tuple(dice))))


# -- the tables ------------------------------------------------------------------------


@cache
def _tables(target: str) -> tuple[list[dict[Roll, int]], list[dict[Roll, int]]]:
    """For each number of rolls left k: the chance of each sorted roll with the
    best play (scaled by 6^(5k)), and the chance after each keep with k rolls
    left before the re-roll (scaled by 6^(5k); index 0 is unused)."""
    check = _CHECKS[target]
    reached = {roll: check(Counter(roll)) for roll in SORTED_ROLLS}
    best: list[dict[Roll, int]] = [{roll: int(reached[roll]) for roll in SORTED_ROLLS}]
    after_keep: list[dict[Roll, int]] = [{}]
    for k in range(1, MAX_ROLLS_LEFT + 1):
        previous = best[-1]
        keep_chance = {
            keep: sum(w * previous[roll] for roll, w in moves) for keep, moves in TRANSITIONS.items()
        }
        whole = _WHOLE**k
        # Keeping all five dice re-rolls nothing: a roll wasted, never better.
        best.append(
            {
                roll: whole if reached[roll] else max(keep_chance[keep] for keep in SUB_KEEPS[roll])
                for roll in SORTED_ROLLS
            }
        )
        after_keep.append(keep_chance)
    return best, after_keep


def _rolls_left(rolls_left: object) -> int:
    if type(rolls_left) is not int or not 0 <= rolls_left <= MAX_ROLLS_LEFT:
        raise RuleError("B11", N_("rolls left is 0, 1 or 2, not {n}").format(n=repr(rolls_left)))
    return rolls_left


def check_keep(roll: Roll, keep: Iterable[int]) -> Roll:
    """The keep as a sorted tuple, or RuleError if it is not among the dice."""
    try:
        kept = tuple(sorted(keep))
    except TypeError:
        raise RuleError("B11", N_("the dice kept are die values")) from None
    rest = list(roll)
    for value in kept:
        if value not in rest:
            raise RuleError(
                "B11",
                N_("the dice kept {kept} are not all in the roll {roll}").format(
                    kept=list(kept), roll=list(roll)
                ),
            )
        rest.remove(value)
    return kept


def probability(
    dice: Sequence[int], rolls_left: int, target: str, keep: Iterable[int] | None = None
) -> Fraction:
    """The chance of reaching ``target`` from this roll of five dice with
    ``rolls_left`` re-rolls (0..2) and the best keeps for it.

    With ``keep``, the first re-roll keeps exactly those dice (even if the roll
    already reaches the target) and the best keeps follow.
    """
    roll = check_dice(dice)
    left = _rolls_left(rolls_left)
    target = check_target(target)
    best, after_keep = _tables(target)
    if keep is None:
        return Fraction(best[left][roll], _WHOLE**left)
    kept = check_keep(roll, keep)
    if left == 0:
        raise RuleError("B11", N_("no rolls are left: there is nothing to keep the dice for"))
    return Fraction(after_keep[left][kept], _WHOLE**left)


def keep_chances(dice: Sequence[int], rolls_left: int, target: str) -> list[tuple[Roll, Fraction]]:
    """Every distinct keep of the roll with the chance of reaching the target
    when it is played first, best first (ties: fewer dice kept first)."""
    roll = check_dice(dice)
    left = _rolls_left(rolls_left)
    if left == 0:
        return []
    _, after_keep = _tables(check_target(target))
    whole = _WHOLE**left
    found = [(keep, Fraction(after_keep[left][keep], whole)) for keep in SUB_KEEPS[roll]]
    return sorted(found, key=lambda item: (-item[1], len(item[0]), item[0]))


def first_turn_chance(target: str) -> Fraction:
    """The chance of reaching the target in a whole turn (three rolls, best play)."""
    best, _ = _tables(check_target(target))
    total = sum(ROLL_WEIGHTS[roll] * best[MAX_ROLLS_LEFT][roll] for roll in SORTED_ROLLS)
    return Fraction(total, _WHOLE ** (MAX_ROLLS_LEFT + 1))
