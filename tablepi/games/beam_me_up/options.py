"""Reading a roll of five dice (rulings B3-B5).

A roll makes at most one scoring combination of the rulebook's eight: the
combination uses every die that can score, so a triplet is never read as a
pair, a full house never as two pairs, and a big straight never as a small
straight (B4). An option has one or two parts; the player may leave a part
unused (B5), which is how a full house is played as a triplet alone, or a
small straight with a pair as the pair alone.

Every one of the 252 sorted rolls is read once, when the module loads; reading
a roll afterwards is a sort and a dictionary look-up.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tablepi.games.errors import RuleError
from tablepi.i18n import N_

COLUMNS: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", "straight")
STRAIGHT = "straight"

# Squares for n dice of one value (B3): pair +1, triplet +2, four +3, five +4.
_KIND_NAMES = {2: "pair", 3: "triplet", 4: "four of a kind", 5: "five of a kind"}


@dataclass(frozen=True, slots=True)
class Option:
    """One way to score a roll: a name and one or two (column, squares) parts."""

    name: str
    parts: tuple[tuple[str, int], ...]
    # The option in plain words, e.g. "triplet of 2s: +2 in column 2".
    text: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.text:
            object.__setattr__(self, "text", describe(self))

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "parts": [{"column": column, "squares": squares} for column, squares in self.parts],
        }


def _plus(column: str, squares: int) -> str:
    if column == STRAIGHT:
        return N_("+{squares} in straight").format(squares=squares)
    return N_("+{squares} in column {column}").format(squares=squares, column=column)


def describe(option: Option) -> str:
    """Plain words for an option, one line."""
    parts = option.parts
    if option.name == "small straight":
        text = N_("small straight: {move}").format(move=_plus(*parts[0]))
        if len(parts) == 2:
            column, squares = parts[1]
            text = N_("{straight}; with the pair of {column}s: {move}").format(
                straight=text, column=column, move=_plus(column, squares)
            )
        return text
    if option.name == "big straight":
        return N_("big straight: {move}").format(move=_plus(*parts[0]))
    if option.name == "two pairs":
        (a, sa), (b, sb) = parts
        return N_("two pairs ({a}s and {b}s): {move}; {move2}").format(
            a=a, b=b, move=_plus(a, sa), move2=_plus(b, sb)
        )
    if option.name == "full house":
        (a, sa), (b, sb) = parts
        return N_("full house: triplet of {a}s {move}; pair of {b}s {move2}").format(
            a=a, b=b, move=_plus(a, sa), move2=_plus(b, sb)
        )
    column, squares = parts[0]
    said = {
        "pair": N_("pair of {column}s: {move}"),
        "triplet": N_("triplet of {column}s: {move}"),
        "four of a kind": N_("four of a kind ({column}s): {move}"),
        "five of a kind": N_("five of a kind ({column}s): {move}"),
    }[option.name]
    return said.format(column=column, move=_plus(column, squares))


def _read(roll: tuple[int, ...]) -> tuple[Option, ...]:
    """The options of one sorted roll, from the value counts."""
    counts = Counter(roll)
    values = sorted(counts)
    groups = sorted(((n, v) for v, n in counts.items() if n >= 2), reverse=True)
    if len(values) == 5 and values[-1] - values[0] == 4:
        return (Option("big straight", ((STRAIGHT, 3),)),)
    run = _longest_run(values)
    if run >= 4:
        # Four distinct consecutive values leave room for at most one pair.
        parts: list[tuple[str, int]] = [(STRAIGHT, 2)]
        if groups:
            parts.append((str(groups[0][1]), 1))
        return (Option("small straight", tuple(parts)),)
    if not groups:
        return ()
    if len(groups) == 1:
        n, v = groups[0]
        return (Option(_KIND_NAMES[n], ((str(v), n - 1),)),)
    (n1, v1), (n2, v2) = groups
    if n1 == 3:
        return (Option("full house", ((str(v1), 2), (str(v2), 1))),)
    low, high = sorted((v1, v2))
    return (Option("two pairs", ((str(low), 1), (str(high), 1))),)


def _longest_run(values: Sequence[int]) -> int:
    best = run = 1
    for a, b in itertools.pairwise(values):
        run = run + 1 if b == a + 1 else 1
        best = max(best, run)
    return best


_INT_ONLY = {int}
SORTED_ROLLS: tuple[tuple[int, ...], ...] = tuple(itertools.combinations_with_replacement(range(1, 7), 5))
TABLE: dict[tuple[int, ...], tuple[Option, ...]] = {roll: _read(roll) for roll in SORTED_ROLLS}


def check_dice(dice: object) -> tuple[int, ...]:
    """The dice as a sorted tuple, or RuleError naming what is wrong."""
    if not isinstance(dice, (list, tuple)):  # noqa: UP038 - the tuple form is faster on this hot path
        raise RuleError("dice-count", N_("dice must be a list of five values"))
    if len(dice) != 5:
        raise RuleError("dice-count", N_("a roll has five dice, not {n}").format(n=len(dice)))
    # The type check keeps True and 1.0, which hash like 1, from passing as dice.
    key = tuple(sorted(dice)) if {*map(type, dice)} == _INT_ONLY else None
    if key in TABLE:
        return key
    for value in dice:
        if type(value) is not int:
            raise RuleError(
                "dice-value", N_("a die shows a whole number 1..6, not {value}").format(value=repr(value))
            )
        if not 1 <= value <= 6:
            raise RuleError("dice-value", N_("a die shows 1..6, not {value}").format(value=value))
    raise AssertionError("unreachable: every valid roll is in TABLE")  # pragma: no cover


def options(dice: Iterable[int]) -> list[Option]:
    """Every option for five dice (in any order); RuleError for bad dice."""
    try:
        dice = tuple(dice)
    except TypeError:
        dice = None
    return list(TABLE[check_dice(dice)])


def roll_key(dice: Sequence[int]) -> str:
    """The sorted roll as "1,1,2,3,4"."""
    return ",".join(str(d) for d in sorted(dice))
