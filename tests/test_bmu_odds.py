"""Beam Me Up exact odds against a brute-force enumeration written here.

The brute force shares no code with ``odds``: it reads targets from its own
die counts, tries every subset of die positions as the keep and every one of
the 6^n ordered outcomes of the n dice re-rolled. Memoised on (target, sorted
dice, rolls left) and (target, sorted keep, rolls left), as the chance only
depends on those, so all 252 rolls take a few seconds.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from functools import cache

import pytest

from tablepi.cli import main
from tablepi.games.beam_me_up import odds
from tablepi.games.errors import RuleError

ALL_ROLLS = sorted({tuple(sorted(r)) for r in itertools.product(range(1, 7), repeat=5)})
NAMED = ["two-pairs", "full-house", "small-straight", "big-straight", "pair", "triplet", "four", "five"]
VALUED = [f"{kind}:{v}" for kind in ("pair", "triplet", "four", "five") for v in range(1, 7)]


def brute_reached(target: str, dice: tuple[int, ...]) -> bool:
    counts = [dice.count(v) for v in range(7)]
    kind, _, value = target.partition(":")
    need = {"pair": 2, "triplet": 3, "four": 4, "five": 5}.get(kind)
    if need is not None:
        return counts[int(value)] >= need if value else max(counts) >= need
    present = {v for v in dice}
    if kind == "big-straight":
        return present in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})
    if kind == "small-straight":
        return any({s, s + 1, s + 2, s + 3} <= present for s in (1, 2, 3))
    pairs = [v for v in range(1, 7) if counts[v] >= 2]
    if kind == "two-pairs":
        return len(pairs) >= 2
    if kind == "full-house":
        return any(counts[a] >= 3 and counts[b] >= 2 for a in range(1, 7) for b in range(1, 7) if a != b)
    raise AssertionError(target)


@cache
def outcomes(kept: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    """Every ordered re-roll of the other dice, counted by the sorted result."""
    found: dict[tuple[int, ...], int] = {}
    for new in itertools.product(range(1, 7), repeat=5 - len(kept)):
        dice = tuple(sorted(kept + new))
        found[dice] = found.get(dice, 0) + 1
    return found


@cache
def brute_best(target: str, dice: tuple[int, ...], left: int) -> Fraction:
    if brute_reached(target, dice):
        return Fraction(1)
    if left == 0:
        return Fraction(0)
    keeps = {
        tuple(sorted(dice[i] for i in chosen))
        for n in range(6)
        for chosen in itertools.combinations(range(5), n)
    }
    return max(brute_keep(target, kept, left) for kept in keeps)


@cache
def brute_keep(target: str, kept: tuple[int, ...], left: int) -> Fraction:
    total = sum(count * brute_best(target, dice, left - 1) for dice, count in outcomes(kept).items())
    return Fraction(total, 6 ** (5 - len(kept)))


def test_there_are_252_rolls_and_every_target():
    assert len(ALL_ROLLS) == 252
    assert sorted(odds.TARGETS) == sorted(NAMED + VALUED)


@pytest.mark.parametrize("target", NAMED + VALUED)
def test_every_roll_and_rolls_left_matches_brute_force(target):
    for left in (0, 1, 2):
        for dice in ALL_ROLLS:
            assert odds.probability(dice, left, target) == brute_best(target, dice, left), (dice, left)


@pytest.mark.parametrize("target", ["big-straight", "full-house", "five", "pair:6", "two-pairs"])
def test_a_given_keep_first_matches_brute_force(target):
    for dice in ALL_ROLLS[::7]:
        for left in (1, 2):
            for kept in odds.SUB_KEEPS[dice]:
                assert odds.probability(dice, left, target, keep=kept) == brute_keep(target, kept, left)


def test_known_figures():
    # Five of a kind in three rolls with the best play (the Yahtzee figure).
    assert odds.first_turn_chance("five") == Fraction(2_783_176, 60_466_176)
    assert odds.probability([1, 2, 3, 4, 4], 2, "big-straight") == Fraction(11, 36)
    assert odds.probability([1, 2, 3, 4, 4], 0, "small-straight") == 1
    # Already there: the player stops, so the chance is 1 whatever is left.
    assert odds.probability([5, 5, 5, 5, 2], 2, "triplet:5") == 1
    # One die short of five 6s with one roll left.
    assert odds.probability([6, 6, 6, 6, 1], 1, "five:6") == Fraction(1, 6)
    # Keeping nothing of 1 1 2 2 3 for a big straight is worse than keeping 1 2 3.
    worse = odds.probability([1, 1, 2, 2, 3], 1, "big-straight", keep=[])
    assert worse < odds.probability([1, 1, 2, 2, 3], 1, "big-straight", keep=[1, 2, 3])


def test_reaches_is_at_least():
    assert odds.reaches([5, 5, 5, 5, 2], "triplet:5")
    assert odds.reaches([2, 2, 2, 4, 4], "two-pairs")
    assert not odds.reaches([3, 3, 3, 3, 1], "two-pairs")
    assert not odds.reaches([3, 3, 3, 3, 3], "full-house")
    assert odds.reaches([1, 2, 3, 4, 5], "small-straight")


def test_keep_chances_best_first():
    ranked = odds.keep_chances([1, 2, 3, 4, 4], 2, "big-straight")
    assert ranked[0][1] == Fraction(11, 36)
    assert ranked[0][0] in ((1, 2, 3, 4), (2, 3, 4))
    assert [c for _, c in ranked] == sorted((c for _, c in ranked), reverse=True)
    assert len(ranked) == len({k for k, _ in ranked})


@pytest.mark.parametrize(
    ("call", "rule"),
    [
        (lambda: odds.probability([1, 2, 3, 4, 4], 3, "pair"), "B11"),
        (lambda: odds.probability([1, 2, 3, 4, 4], 1, "pair:7"), "target"),
        (lambda: odds.probability([1, 2, 3, 4, 4], 1, "pair", keep=[5]), "B11"),
        (lambda: odds.probability([1, 2, 3, 4, 4], 0, "pair", keep=[4]), "B11"),
        (lambda: odds.probability([1, 2, 3, 4], 1, "pair"), "dice-count"),
    ],
)
def test_bad_questions_are_refused(call, rule):
    with pytest.raises(RuleError) as info:
        call()
    assert info.value.rule == rule


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["bmu", "odds", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_prints_fraction_and_decimal(capsys):
    code, out, err = run(capsys, "1", "2", "3", "4", "4", "--rolls-left", "2", "--target", "big-straight")
    assert code == 0 and err == ""
    assert "11/36" in out and "0.3056" in out
    code, out, _ = run(
        capsys, "1", "2", "3", "4", "4", "--rolls-left", "2", "--target", "big-straight", "--keep", "4", "4"
    )
    assert code == 0 and "keeping 4 4" in out
    assert str(odds.probability([1, 2, 3, 4, 4], 2, "big-straight", keep=[4, 4])) in out


def test_cli_json_and_every_target(capsys):
    code, out, _ = run(capsys, "6", "6", "6", "6", "1", "--rolls-left", "1", "--target", "five:6", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["probability"] == "1/6" and data["decimal"] == pytest.approx(1 / 6)
    assert data["dice"] == [1, 6, 6, 6, 6] and data["keep"] is None
    code, out, _ = run(capsys, "6", "6", "6", "6", "1", "--rolls-left", "1", "--json")
    table = json.loads(out)["targets"]
    assert set(table) == set(odds.TARGETS) and table["four:6"]["probability"] == "1"


def test_cli_refuses_bad_input(capsys):
    code, _, err = run(capsys, "1", "2", "3", "4", "9", "--target", "pair")
    assert code == 2 and "1..6" in err
    code, _, err = run(capsys, "1", "2", "3", "4", "4", "--target", "straight")
    assert code == 2 and "unknown target" in err
    code, _, err = run(capsys, "1", "2", "3", "4", "4", "--target", "pair", "--keep", "6")
    assert code == 2 and "not all in the roll" in err


@pytest.mark.parametrize(
    "argv",
    [
        ("1", "1", "3", "4", "6", "--keep", "3", "4"),
        ("--keep", "3", "4", "1", "1", "3", "4", "6"),  # before the roll: the last five are the roll
        ("--keep", "3 4", "1", "1", "3", "4", "6"),
        ("--keep", "3,4", "1", "1", "3", "4", "6"),
        ("1", "1", "3", "4", "6", "--keep", "3,4"),
    ],
)
def test_cli_keep_takes_its_dice_wherever_they_are_written(capsys, argv):
    code, out, err = run(capsys, *argv, "--target", "small-straight", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["dice"] == [1, 1, 3, 4, 6] and data["keep"] == [3, 4]
    assert data["probability"] == str(odds.probability([1, 1, 3, 4, 6], 2, "small-straight", keep=[3, 4]))


def test_cli_keep_before_a_short_roll_says_how_to_write_it(capsys):
    code, _, err = run(capsys, "--keep", "3", "4", "1", "1", "--target", "pair")
    assert code == 2 and err == (
        "tablepi bmu: a roll has five dice: give them after the dice set aside (4 values in all)\n"
    )


def test_cli_help_names_every_target_and_every_bmu_command(capsys):
    from tablepi.cli.bmu import TARGET_HELP

    named = {word.strip(",()") for word in TARGET_HELP.split()}
    for target in odds.TARGETS:
        kind, _, value = target.partition(":")
        assert (f"{kind}:N" if value else kind) in named, target
    with pytest.raises(SystemExit):
        main(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    bmu = said.split(" bmu ")[1].split(" config ")[0]
    assert all(word in bmu for word in ("options", "odds", "advice", "duel", "layouts")), bmu
