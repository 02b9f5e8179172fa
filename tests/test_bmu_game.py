"""The Beam Me Up game (B5-B12): the rulebook's examples, every ruling on
purpose-made boards, undo, the JSON round trip and the public view."""

from __future__ import annotations

import json

import pytest

from tablepi.games import new_game
from tablepi.games.beam_me_up import BeamMeUp
from tablepi.games.errors import RuleError

NAMES = ["Ann", "Ben", "Sam", "Emma"]
PLAIN = {"name": "plain"}  # a board with no special squares


def squares(text: str) -> list[dict]:
    return [{"column": c, "row": int(r)} for c, r in (s.split(":") for s in text.split())]


def board(rockets: str = "", pink: str = "", blue: str = "", **extra) -> dict:
    return {"rockets": squares(rockets), "pink_stars": squares(pink), "blue_stars": squares(blue), **extra}


def make(players: int = 2, layouts=None, counters=None, names=None, advantage: bool = False) -> BeamMeUp:
    names = names or NAMES[:players]
    layouts = layouts or {}
    counters = counters or {}
    seats = []
    for name in names:
        seat = {"name": name, "layout": layouts.get(name, PLAIN)}
        if name in counters:
            seat["counters"] = counters[name]
        seats.append(seat)
    return BeamMeUp.from_settings({"players": seats, "advantage": advantage})


def play(game: BeamMeUp, *commands: dict) -> None:
    for command in commands:
        game.push(command)


def roll(*dice: int, kept=None) -> dict:
    command = {"type": "roll", "dice": list(dice)}
    if kept is not None:
        command["kept"] = kept
    return command


CHOOSE = {"type": "choose", "option": 0}
END = {"type": "end_turn"}


def move(part: int, column: str | None = None) -> dict:
    return {"type": "move", "part": part} | ({"column": column} if column else {})


def bonus(column: str) -> dict:
    return {"type": "bonus", "column": column}


def effects_text(game: BeamMeUp) -> str:
    return " | ".join(game.last_effects)


# -- the rulebook's examples ----------------------------------------------------------


def test_B3_rulebook_examples_played_emma_and_sam():
    game = make(names=["Emma", "Sam"])
    play(game, roll(2, 2, 2, 4, 6), CHOOSE, move(0))  # triplet of 2s: +2 in column 2
    assert game.counters(0)["2"] == 2 and game.active == 1
    play(game, roll(2, 2, 4, 4, 6), CHOOSE, move(0), move(1))  # two pairs: +1 in 2 and 4
    assert (game.row(1, "2"), game.row(1, "4")) == (1, 1)
    play(game, roll(2, 2, 2, 4, 4), CHOOSE, move(0), move(1))  # full house: +2 in 2, +1 in 4
    assert (game.row(0, "2"), game.row(0, "4")) == (4, 1)
    assert game.row(1, "2") == 0, "Emma's triplet cooled Sam's column 2 counter down"
    play(game, roll(1, 2, 3, 4, 4), CHOOSE, move(0), move(1))  # small straight and the pair of 4s
    assert (game.row(1, "straight"), game.row(1, "4")) == (2, 2)
    assert game.active == 0


def test_B9_rulebook_example_ben_wildcard_2_2_3_3_3():
    # Ben's counters stand at the top of columns 2 and 3; one of his counters is on a blue star.
    game = make(
        names=["Ben", "Ann"],
        layouts={"Ben": board(blue="5:2")},
        counters={"Ben": {"2": 7, "3": 7, "5": 2}},
    )
    play(game, roll(2, 2, 3, 3, 3), CHOOSE)
    assert game.wildcard and "wildcard (B9)" in effects_text(game)
    assert game.chosen.parts == (("3", 2), ("2", 1))
    play(game, move(1, "4"))  # the pair of 2s into column 4
    play(game, move(0, "1"))  # the triplet into column 1
    assert game.counters(0) == {"1": 2, "2": 7, "3": 7, "4": 1, "5": 2, "6": 0, "straight": 0}


# -- moving ---------------------------------------------------------------------------


def test_B5_a_part_may_be_left_unused():
    game = make()
    play(game, roll(2, 2, 2, 4, 4), CHOOSE, move(1), END)
    assert game.row(0, "4") == 1 and game.row(0, "2") == 0 and game.active == 1
    assert "leaves 1 part unused (B5)" in effects_text(game)


def test_move_with_column_null_uses_the_parts_own_column():
    game = make()
    play(game, roll(2, 2, 2, 4, 6), CHOOSE, {"type": "move", "part": 0, "column": None})
    assert game.row(0, "2") == 2 and game.to_dict()["commands"][-1] == {"type": "move", "part": 0}


def test_B5_parts_in_any_order_and_each_once():
    game = make()
    play(game, roll(1, 2, 3, 4, 4), CHOOSE, move(1))
    with pytest.raises(RuleError) as info:
        game.push(move(1))
    assert info.value.rule == "B5"
    play(game, move(0))
    assert (game.row(0, "straight"), game.row(0, "4")) == (2, 1)


def test_B4_roll_with_no_option_passes():
    game = make()
    play(game, roll(1, 2, 3, 5, 6))
    assert game.options == [] and "no option (B4)" in effects_text(game)
    with pytest.raises(RuleError) as info:
        game.push(CHOOSE)
    assert info.value.rule == "B4"
    play(game, END)
    assert game.active == 1 and "passes" in " ".join(game.public_view()["last_effects"])


def test_B6_squares_past_the_top_are_forfeited():
    game = make(counters={"Ann": {"4": 6}})
    play(game, roll(4, 4, 4, 4, 1), CHOOSE, move(0))  # +3 from row 6: only one square fits
    assert game.row(0, "4") == 7
    assert "top of the column (B6): 2 squares forfeited" in effects_text(game)
    play(game, roll(1, 1, 2, 5, 6), CHOOSE, move(0))  # Ben
    play(game, roll(4, 4, 1, 2, 6), CHOOSE, move(0))  # Ann: already at the top, all forfeited
    assert game.row(0, "4") == 7 and "1 square forfeited" in effects_text(game)


def test_B6_B7_forfeited_squares_do_not_count_toward_a_cool_down():
    game = make(counters={"Ann": {"4": 6}, "Ben": {"4": 3}})
    play(game, roll(4, 4, 4, 1, 2), CHOOSE, move(0))  # triplet +2, but only 1 square moved
    assert game.row(0, "4") == 7 and game.row(1, "4") == 3
    assert "no cool down (B7)" in effects_text(game)


def test_B7_cool_down_moves_other_counters_down_except_on_row_0_and_stars():
    layouts = {"Sam": board(pink="2:2"), "Emma": board(blue="2:3")}
    counters = {"Ben": {"2": 4}, "Sam": {"2": 2}, "Emma": {"2": 3}}
    game = make(players=4, layouts=layouts, counters=counters, names=["Ann", "Ben", "Sam", "Emma"])
    game_with_row0 = make(players=2)
    play(game, roll(2, 2, 2, 5, 6), CHOOSE, move(0))
    assert [game.row(p, "2") for p in range(4)] == [2, 3, 2, 3]
    text = effects_text(game)
    assert "cool down (B7): Ben's counter in column 2 moves down 1" in text
    assert "Sam's counter on a pink star is safe from the cool down (B7)" in text
    assert "Emma's counter on a blue star is safe from the cool down (B7)" in text
    play(game_with_row0, roll(2, 2, 2, 5, 6), CHOOSE, move(0))
    assert game_with_row0.row(1, "2") == 0 and "on row 0 and stays" in effects_text(game_with_row0)


def test_B7_one_square_moves_cause_no_cool_down_but_straights_do():
    game = make(counters={"Ben": {"3": 2, "straight": 2}})
    play(game, roll(3, 3, 1, 5, 6), CHOOSE, move(0))
    assert game.row(1, "3") == 2
    play(game, roll(1, 1, 2, 4, 6), CHOOSE, move(0))  # Ben's turn passes
    play(game, roll(1, 2, 3, 4, 6), CHOOSE, move(0))  # Ann's small straight: +2 in straight
    assert game.row(1, "straight") == 1


def test_B8_landing_exactly_on_a_rocket_gives_a_bonus_square():
    game = make(layouts={"Ann": board(rockets="2:2")}, counters={"Ben": {"5": 3}})
    play(game, roll(2, 2, 2, 1, 6), CHOOSE, move(0))
    assert game.phase == "bonus" and game.bonus_owed == 1
    assert "rocket (B8)" in effects_text(game)
    play(game, bonus("5"))
    assert game.row(0, "5") == 1 and game.bonus_owed == 0 and game.active == 1
    assert "no cool down" in effects_text(game)


def test_B8_bonus_squares_chain_and_never_cool_down():
    game = make(layouts={"Ann": board(rockets="2:2 5:1 6:1")}, counters={"Ben": {"5": 3, "6": 3}})
    play(game, roll(2, 2, 2, 1, 3), CHOOSE, move(0))
    play(game, bonus("5"))  # lands on the rocket at 5:1: another bonus
    assert game.phase == "bonus" and game.bonus_owed == 1 and "another rocket" in effects_text(game)
    play(game, bonus("6"))  # and again
    assert game.bonus_owed == 1
    play(game, bonus("6"))
    assert game.bonus_owed == 0 and game.active == 1
    assert game.counters(0) == {"1": 0, "2": 2, "3": 0, "4": 0, "5": 1, "6": 2, "straight": 0}
    assert (game.row(1, "5"), game.row(1, "6")) == (3, 3)


def test_B8_a_chain_of_rockets_ends_at_the_top():
    # Every square of column 1 is a rocket: each bonus square there owes another, until the top.
    game = make(layouts={"Ann": board(rockets=" ".join(f"1:{row}" for row in range(1, 8)))})
    play(game, roll(1, 1, 3, 5, 6), CHOOSE, move(0))
    placed = 0
    while game.bonus_owed:
        assert game.phase == "bonus"
        column = "1" if game.row(0, "1") < 7 else "2"
        play(game, bonus(column))
        placed += 1
    assert game.row(0, "1") == 7 and game.row(0, "2") == 1
    assert placed == 7 and game.active == 1


def test_B8_passing_over_a_rocket_gives_nothing():
    game = make(layouts={"Ann": board(rockets="2:1")})
    play(game, roll(2, 2, 2, 1, 3), CHOOSE, move(0))
    assert game.row(0, "2") == 2 and game.bonus_owed == 0 and game.active == 1


def test_B8_being_cooled_down_onto_a_rocket_gives_nothing():
    game = make(layouts={"Ben": board(rockets="3:2")}, counters={"Ben": {"3": 3}})
    play(game, roll(3, 3, 3, 1, 6), CHOOSE, move(0))
    assert game.row(1, "3") == 2 and game.bonus_owed == 0 and game.phase == "rolling"
    assert "cooled onto a rocket: no bonus (B8)" in effects_text(game)


def test_B8_bonus_owed_refuses_every_other_command():
    game = make(layouts={"Ann": board(rockets="straight:2")})
    play(game, roll(1, 2, 3, 4, 4), CHOOSE, move(0))
    before = game.to_dict()
    for command in (move(1), END, roll(1, 1, 1, 1, 1), CHOOSE):
        with pytest.raises(RuleError) as info:
            game.push(command)
        assert info.value.rule == "B8"
        assert game.to_dict() == before
    play(game, bonus("1"), move(1))  # then the pair's part is still there
    assert game.counters(0)["4"] == 1 and game.active == 1


def test_B8_bonus_square_must_go_to_a_counter_that_can_climb():
    game = make(layouts={"Ann": board(rockets="2:2")}, counters={"Ann": {"6": 7}})
    play(game, roll(2, 2, 2, 1, 3), CHOOSE, move(0))
    with pytest.raises(RuleError) as info:
        game.push(bonus("6"))
    assert info.value.rule == "B8"


def test_B8_a_rocket_on_the_top_square_pays_even_with_squares_forfeited():
    game = make(layouts={"Ann": board(rockets="1:7")}, counters={"Ann": {"1": 6}})
    play(game, roll(1, 1, 1, 3, 5), CHOOSE, move(0))
    assert game.row(0, "1") == 7 and game.bonus_owed == 1


def test_B9_no_wildcard_without_a_counter_on_a_blue_star():
    game = make(layouts={"Ann": board(blue="5:2")}, counters={"Ann": {"5": 1}})
    play(game, roll(2, 2, 3, 3, 3), CHOOSE)
    assert not game.wildcard
    with pytest.raises(RuleError) as info:
        game.push(move(0, "1"))
    assert info.value.rule == "B9"


def test_B9_wildcard_holds_for_the_whole_move_from_its_start():
    game = make(layouts={"Ann": board(blue="5:1")}, counters={"Ann": {"5": 1}})
    play(game, roll(5, 5, 1, 1, 3), CHOOSE)  # two pairs: 1s (part 0) and 5s (part 1)
    assert game.wildcard
    play(game, move(1))  # the counter leaves the blue star...
    assert game.row(0, "5") == 2
    play(game, move(0, "straight"))  # ...and the wildcard still holds for this move
    assert game.row(0, "straight") == 1 and game.row(0, "1") == 0


def test_B9_wildcard_moves_parts_separately_never_as_a_bigger_combination():
    game = make(layouts={"Ann": board(blue="5:1")}, counters={"Ann": {"5": 1}, "Ben": {"straight": 3}})
    play(game, roll(5, 5, 1, 1, 3), CHOOSE, move(0, "straight"), move(1, "straight"))
    # Two +1 parts in one column stay two one-square moves: no cool down for Ben.
    assert game.row(0, "straight") == 2 and game.row(1, "straight") == 3


def test_B9_a_counter_reaching_a_blue_star_during_the_move_gives_no_wildcard_for_it():
    game = make(layouts={"Ann": board(blue="5:1")})
    play(game, roll(5, 5, 1, 1, 3), CHOOSE)
    assert not game.wildcard
    play(game, move(1))  # pair of 5s: onto the blue star
    with pytest.raises(RuleError) as info:
        game.push(move(0, "straight"))
    assert info.value.rule == "B9"


def test_B10_starting_players_advantage_1_2_3_counters_in_different_columns():
    rockets = {name: board(rockets="1:1 2:1 3:1") for name in NAMES}
    game = make(players=4, layouts=rockets, advantage=True)
    assert game.phase == "advantage" and game.active == 1 and game.advantage_due == 1
    with pytest.raises(RuleError) as info:
        game.push({"type": "advantage", "columns": ["1", "2"]})
    assert info.value.rule == "B10"
    play(game, {"type": "advantage", "columns": ["1"]})
    with pytest.raises(RuleError) as info:
        game.push({"type": "advantage", "columns": ["2", "2"]})
    assert info.value.rule == "B10"
    play(game, {"type": "advantage", "columns": ["1", "2"]})  # Sam: cools nobody down
    play(game, {"type": "advantage", "columns": ["1", "2", "3"]})
    assert [game.row(p, "1") for p in range(4)] == [0, 1, 1, 1]
    assert [sum(game.counters(p).values()) for p in range(4)] == [0, 1, 2, 3]
    assert game.bonus_owed == 0 and game.phase == "rolling" and game.active == 0
    with pytest.raises(RuleError) as info:
        game.push({"type": "advantage", "columns": ["4"]})
    assert info.value.rule == "B10"


def test_B10_no_roll_before_the_advantage_is_given():
    game = make(players=2, advantage=True)
    with pytest.raises(RuleError) as info:
        game.push(roll(1, 1, 2, 3, 4))
    assert info.value.rule == "B10"


def test_B11_three_rolls_with_dice_kept_or_rerolled():
    game = make()
    play(game, roll(2, 2, 5, 1, 3), roll(2, 2, 2, 6, 1, kept=[2, 2]), roll(3, 3, 2, 6, 1, kept=[6]))
    assert game.roll_number == 3 and game.public_view()["kept"] == [6]
    with pytest.raises(RuleError) as info:
        game.push(roll(1, 1, 1, 1, 1))
    assert info.value.rule == "B11"
    play(game, CHOOSE, move(0))
    assert game.row(0, "3") == 1


@pytest.mark.parametrize(
    ("kept", "dice"),
    [([4], [4, 1, 1, 1, 1]), ([2, 2, 2], [2, 2, 2, 1, 1]), ([2, 2], [2, 3, 3, 3, 3])],
)
def test_B11_kept_dice_must_be_in_both_rolls(kept, dice):
    game = make()
    play(game, roll(2, 2, 5, 1, 3))
    with pytest.raises(RuleError) as info:
        game.push(roll(*dice, kept=kept))
    assert info.value.rule == "B11"


def test_B11_nothing_kept_before_the_first_roll_and_no_end_turn_without_a_roll():
    game = make()
    for command in (roll(1, 1, 2, 3, 4, kept=[1]), END):
        with pytest.raises(RuleError) as info:
            game.push(command)
        assert info.value.rule == "B11"


def test_B12_win_with_two_players_needs_5_in_space_and_none_on_row_0():
    counters = {"1": 6, "2": 6, "3": 6, "4": 6, "5": 5, "6": 1, "straight": 1}
    game = make(counters={"Ann": counters})
    play(game, roll(5, 5, 1, 2, 4), CHOOSE, move(0))
    assert game.finished and game.winner == 0 and game.phase == "over"
    assert "Ann wins (B12)" in effects_text(game)
    assert game.public_view()["winner"] == {"index": 0, "name": "Ann"}


def test_B12_four_in_space_is_not_enough_with_two_players_but_is_with_three():
    counters = {"1": 6, "2": 6, "3": 6, "4": 5, "5": 1, "6": 1, "straight": 1}
    two, three = make(counters={"Ann": counters}), make(players=3, counters={"Ann": counters})
    for game in (two, three):
        play(game, roll(4, 4, 1, 2, 6), CHOOSE, move(0))
    assert not two.finished and three.finished and three.winner == 0


def test_B12_no_win_with_a_counter_on_row_0():
    counters = {"1": 6, "2": 6, "3": 6, "4": 6, "5": 5, "6": 0, "straight": 1}
    game = make(counters={"Ann": counters})
    play(game, roll(5, 5, 1, 2, 4), CHOOSE, move(0))
    assert not game.finished and game.in_space(0) == 5
    play(game, roll(6, 6, 1, 2, 4), CHOOSE, move(0))  # Ben
    play(game, roll(6, 6, 1, 2, 4), CHOOSE, move(0))  # Ann leaves row 0: wins
    assert game.winner == 0


def test_B12_checked_after_each_part_and_bonus_square():
    counters = {"1": 6, "2": 6, "3": 6, "4": 5, "5": 1, "6": 1, "straight": 1}
    game = make(players=3, counters={"Ann": counters})
    play(game, roll(4, 4, 4, 2, 2), CHOOSE, move(0))  # full house: the first part already wins
    assert game.finished and game.parts_left == []
    with pytest.raises(RuleError) as info:
        game.push(move(1))
    assert info.value.rule == "B12"

    by_bonus = make(players=3, layouts={"Ann": board(rockets="5:2")}, counters={"Ann": counters})
    play(by_bonus, roll(5, 5, 1, 3, 6), CHOOSE, move(0))
    assert by_bonus.phase == "bonus"
    play(by_bonus, bonus("4"))
    assert by_bonus.finished and by_bonus.winner == 0


def test_B12_only_the_active_player_can_win_on_a_move():
    winning = {"1": 6, "2": 6, "3": 6, "4": 6, "5": 6, "6": 1, "straight": 1}
    game = make(counters={"Ben": winning})
    play(game, roll(1, 1, 3, 5, 6), CHOOSE, move(0))
    assert not game.finished and game.active == 1


# -- illegal commands change nothing --------------------------------------------------


def _rolling() -> BeamMeUp:
    return make()


def _rolled() -> BeamMeUp:
    game = make()
    play(game, roll(1, 2, 3, 4, 4))
    return game


def _moving() -> BeamMeUp:
    game = _rolled()
    play(game, CHOOSE)
    return game


def _over() -> BeamMeUp:
    game = make(counters={"Ann": {"1": 6, "2": 6, "3": 6, "4": 6, "5": 5, "6": 1, "straight": 1}})
    play(game, roll(5, 5, 1, 2, 4), CHOOSE, move(0))
    return game


def _setup() -> BeamMeUp:
    return make(players=3, advantage=True)


ILLEGAL = [
    (_rolling, roll(1, 2, 3, 4, 5, 6), "dice-count"),
    (_rolling, roll(1, 2, 3, 4), "dice-count"),
    (_rolling, roll(1, 2, 3, 4, 7), "dice-value"),
    (_rolling, {"type": "roll", "dice": "12345"}, "dice-count"),
    (_rolling, {"type": "roll", "dice": [1, 2, 3, 4, "5"]}, "dice-value"),
    (_rolling, {"type": "fly"}, "command"),
    (_rolling, {"dice": [1, 2, 3, 4, 5]}, "command"),
    (_rolling, {"type": "roll", "dice": [1, 2, 3, 4, 5], "extra": 1}, "command"),
    (_rolling, ["roll"], "command"),
    (_rolling, CHOOSE, "B11"),
    (_rolling, move(0), "phase"),
    (_rolling, END, "B11"),
    (_rolling, bonus("1"), "B8"),
    (_rolling, {"type": "advantage", "columns": ["1"]}, "B10"),
    (_rolled, {"type": "choose", "option": 1}, "B3"),
    (_rolled, {"type": "choose", "option": "0"}, "command"),
    (_rolled, {"type": "choose", "option": True}, "command"),
    (_rolled, roll(1, 1, 1, 1, 1, kept=[6]), "B11"),
    (_rolled, roll(1, 1, 1, 1, 1, kept="1"), "command"),
    (_moving, move(2), "B5"),
    (_moving, move(0, "4"), "B9"),
    (_moving, move(0, "7"), "command"),
    (_moving, {"type": "move"}, "command"),
    (_moving, roll(1, 1, 1, 1, 1), "phase"),
    (_moving, CHOOSE, "phase"),
    (_over, roll(1, 1, 1, 1, 1), "B12"),
    (_over, END, "B12"),
    (_setup, {"type": "advantage", "columns": ["1", "1"]}, "B10"),
    (_setup, {"type": "advantage", "columns": ["9"]}, "command"),
    (_setup, {"type": "advantage", "columns": "1"}, "command"),
    (_setup, END, "B10"),
    (_setup, CHOOSE, "B10"),
    (_setup, move(0), "B10"),
]


@pytest.mark.parametrize(("setup", "command", "rule"), ILLEGAL)
def test_illegal_command_raises_the_rule_and_changes_nothing(setup, command, rule):
    game = setup()
    before, view = game.to_dict(), game.public_view()
    with pytest.raises(RuleError) as info:
        game.push(command)
    assert info.value.rule == rule
    assert info.value.to_dict() == {"error": info.value.message, "rule": rule}
    assert game.to_dict() == before
    assert game.public_view() == view


@pytest.mark.parametrize(
    "settings",
    [
        None,
        {"players": [{"name": "Ann"}]},
        {"players": [{"name": n} for n in "ABCDE"]},
        {"players": [{"name": "Ann"}, {"name": "Ann"}]},
        {"players": [{"name": ""}, {"name": "Ben"}]},
        {"players": [{"name": "Ann", "board": "E"}, {"name": "Ben"}]},
        {"players": [{"name": "Ann", "board": "A", "layout": {}}, {"name": "Ben"}]},
        {"players": [{"name": "Ann", "counters": {"2": 8}}, {"name": "Ben"}]},
        {"players": [{"name": "Ann", "counters": {"9": 1}}, {"name": "Ben"}]},
        {"players": [{"name": "Ann", "colour": "red"}, {"name": "Ben"}]},
        {"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": "yes"},
        {"players": [{"name": "Ann"}, {"name": "Ben"}], "turbo": True},
    ],
)
def test_bad_settings_are_refused(settings):
    with pytest.raises(RuleError) as info:
        BeamMeUp.from_settings(settings)
    assert info.value.rule == "settings"


# -- undo, save and load, the view ----------------------------------------------------


def test_pop_takes_back_the_last_command_exactly():
    game = make(players=3, layouts={"Ann": board(rockets="2:2")}, advantage=True)
    play(game, {"type": "advantage", "columns": ["2"]}, {"type": "advantage", "columns": ["2", "3"]})
    states = [(game.to_dict(), game.public_view())]
    commands = [roll(2, 2, 2, 1, 3), CHOOSE, move(0), bonus("5")]
    for command in commands:
        game.push(command)
        states.append((game.to_dict(), game.public_view()))
    for command in reversed(commands):
        states.pop()
        assert game.pop() == command
        assert (game.to_dict(), game.public_view()) == states[-1]
    game.pop(), game.pop()
    with pytest.raises(RuleError) as info:
        game.pop()
    assert info.value.rule == "undo"


def test_json_round_trip_is_exact():
    game = make(players=3, layouts={"Ann": board(rockets="2:2", blue="6:3")}, counters={"Ben": {"2": 4}})
    play(game, roll(2, 2, 5, 1, 3), roll(2, 2, 2, 6, 1, kept=[2, 2]), CHOOSE, move(0))
    data = game.to_dict()
    text = json.dumps(data)
    again = BeamMeUp.from_dict(json.loads(text))
    assert again.to_dict() == data and json.dumps(again.to_dict()) == text
    assert again.public_view() == game.public_view()
    play(again, bonus("6"))
    play(game, bonus("6"))
    assert again.to_dict() == game.to_dict()


def test_from_dict_refuses_a_tampered_save():
    game = make()
    play(game, roll(2, 2, 5, 1, 3))
    data = game.to_dict()
    data["commands"].append({"type": "choose", "option": 3})
    with pytest.raises(RuleError, match="saved command 2") as info:
        BeamMeUp.from_dict(data)
    assert info.value.rule == "B3"
    for bad in (
        {},
        {"kind": "space_beans", "settings": {}, "commands": []},
        {**game.to_dict(), "commands": 1},
    ):
        with pytest.raises(RuleError):
            BeamMeUp.from_dict(bad)


def test_the_games_registry_builds_beam_me_up():
    game = new_game("beam_me_up", {"players": [{"name": "Ann", "board": "C"}, {"name": "Ben"}]})
    assert (
        isinstance(game, BeamMeUp) and game.layout(0).name == "Board C" and game.layout(1).name == "Board B"
    )


def test_public_view_shows_the_table_in_plain_words():
    game = make(layouts={"Ann": board(rockets="straight:2", blue="6:1")}, counters={"Ann": {"6": 1}})
    view = game.public_view()
    assert view["phase"] == "rolling" and view["turn"] == {"index": 0, "name": "Ann"}
    assert view["roll"] == 0 and view["dice"] is None and view["options"] == []
    play(game, roll(1, 2, 3, 4, 4))
    view = game.public_view()
    assert view["dice"] == [1, 2, 3, 4, 4] and view["roll"] == 1
    assert view["options"] == [
        {
            "name": "small straight",
            "parts": [{"column": "straight", "squares": 2}, {"column": "4", "squares": 1}],
            "text": "small straight: +2 in straight; with the pair of 4s: +1 in column 4",
        }
    ]
    play(game, CHOOSE, move(0))
    view = game.public_view()
    assert view["phase"] == "bonus" and view["bonus_owed"] == 1 and view["wildcard"] is True
    assert view["chosen"]["parts_left"] == [1] and view["chosen"]["name"] == "small straight"
    assert any("rocket (B8): Ann landed on a rocket" in note for note in view["last_effects"])
    ann = view["players"][0]
    assert ann["counters"]["straight"] == 2 and ann["on_start_row"] == 5 and ann["in_space"] == 0
    assert ann["layout"]["rockets"] == [{"column": "straight", "row": 2}]
    assert view["winner"] is None and view["finished"] is False
    json.dumps(view)
