"""Beam Me Up keep advice: obvious situations, legal plays, the CLI, the duel."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from tablepi.bench import advise as bench_advise
from tablepi.cli import main
from tablepi.games.beam_me_up.advice import WIN_VALUE, Advisor, Position, advise
from tablepi.games.beam_me_up.duel import advice_turn, duel, frequent_turn, play_game
from tablepi.games.beam_me_up.game import BeamMeUp
from tablepi.games.beam_me_up.options import COLUMNS
from tablepi.games.beam_me_up.randomplay import random_command
from tablepi.games.errors import RuleError

# Board C: no special square in column 5 above row 5 or in column 4 below row 4,
# so these positions are plain.
NEAR_WIN = {"1": 6, "2": 6, "3": 6, "4": 6, "5": 3, "6": 1, "straight": 1}


def position(own: dict, other: dict | None = None, board: str = "C", other_board: str = "D") -> Position:
    players = [
        {"name": "Ann", "board": board, "counters": own},
        {"name": "Ben", "board": other_board, "counters": other or {}},
    ]
    return Position.from_game(BeamMeUp.from_settings({"players": players, "advantage": False}))


def test_four_of_a_kind_one_short_of_winning_is_played_at_once():
    advice = Advisor(position(NEAR_WIN)).advise([5, 5, 5, 5, 2], 2)
    assert advice.best.stop and advice.best.win == 1.0
    assert advice.best.value >= WIN_VALUE
    assert advice.play[:2] == ({"type": "choose", "option": 0}, {"type": "move", "part": 0, "column": "5"})


def test_three_of_the_winning_value_are_kept_for_the_fourth():
    advice = Advisor(position(NEAR_WIN)).advise([5, 5, 5, 2, 3], 2)
    assert advice.best.keep == (5, 5, 5) and not advice.best.stop
    # Two dice, two rolls, at least one 5: 1 - (25/36)^2.
    assert advice.best.win == pytest.approx(1 - (25 / 36) ** 2)
    # With one roll left the chance is one roll's.
    assert Advisor(position(NEAR_WIN)).advise([5, 5, 5, 2, 3], 1).best.win == pytest.approx(11 / 36)


def test_a_keep_that_may_win_outranks_a_sure_gain():
    # A pair of 5s now is +1 (no win); chasing four 5s may win.
    advice = Advisor(position(NEAR_WIN)).advise([5, 5, 1, 2, 3], 1)
    assert advice.best.keep == (5, 5)
    assert advice.keeps[0].value > next(k.value for k in advice.keeps if k.stop)


def test_a_straight_is_kept_unless_its_column_is_blocked():
    open_ = Advisor(position({"straight": 0})).advise([1, 2, 3, 4, 6], 2)
    assert open_.best.stop or set(open_.best.keep) >= {2, 3, 4}
    blocked = Advisor(position({"straight": 7})).advise([1, 2, 3, 4, 6], 2)
    stop = next(k for k in blocked.keeps if k.stop)
    assert stop.value == 0 and blocked.play == ({"type": "end_turn"},)
    assert not blocked.best.stop and not {1, 2, 3, 4} <= set(blocked.best.keep)


def test_cooling_down_a_leader_counts():
    plain = Advisor(position({}, {"4": 0})).advise([4, 4, 4, 1, 6], 0).best.value
    cooled = Advisor(position({}, {"4": 6})).advise([4, 4, 4, 1, 6], 0).best.value
    assert cooled > plain


def test_every_distinct_keep_once_best_first():
    advice = Advisor(position({"1": 2})).advise([1, 1, 2, 3, 3], 2)
    keeps = [k.keep for k in advice.keeps]
    expected = {tuple(sorted(c)) for n in range(6) for c in itertools.combinations((1, 1, 2, 3, 3), n)}
    assert set(keeps) == expected and len(keeps) == len(expected)
    values = [k.value for k in advice.keeps]
    assert values == sorted(values, reverse=True)
    assert [k.stop for k in Advisor(position({})).advise([1, 1, 2, 3, 3], 0).keeps] == [True]


def test_the_advised_plays_are_legal_and_win_when_they_say_so():
    rng = random.Random(7)
    checked = wins = 0
    for _ in range(6):
        game = BeamMeUp.from_settings({"players": [{"name": "A"}, {"name": "B"}, {"name": "C"}]})
        while not game.finished and checked < 400:
            if game.phase == "rolling" and game.dice is not None and rng.random() < 0.5:
                advice = advise(game)
                for command in advice.play:
                    game.push(command)  # a RuleError here fails the test
                checked += 1
                assert game.finished == (advice.play_value >= WIN_VALUE)
                wins += game.finished
            else:
                game.push(random_command(game, rng))
    assert checked >= 100 and wins >= 1


def test_advice_needs_a_roll():
    game = BeamMeUp.from_settings({"players": [{"name": "A"}, {"name": "B"}], "advantage": False})
    with pytest.raises(RuleError) as info:
        advise(game)
    assert info.value.rule == "phase"
    with pytest.raises(RuleError):
        Advisor(position({})).advise([1, 2, 3, 4, 5], 3)


def test_duel_players_finish_games_and_the_advice_wins_most():
    result = duel(12, seed=3)
    assert result["games"] == 12 and result["advice_wins"] >= 8
    assert 10 < result["average_turns"] < 200
    game, turns = play_game([frequent_turn, advice_turn], "AB", random.Random(5))
    assert game.finished and turns >= 10 and game.winner in (0, 1)
    assert all(rows for rows in (game.counters(0), game.counters(1))) and set(game.counters(0)) == set(
        COLUMNS
    )


def test_cli_advise_a_roll_and_a_board(capsys):
    code = main(
        ["bmu", "advise", "5", "5", "5", "2", "3", "--board", "C", "--counters"]
        + [f"{c}={r}" for c, r in NEAR_WIN.items()]
    )
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert out.splitlines()[1].split()[:4] == ["keep", "5", "5", "5"] and "51.8%" in out
    code = main(
        ["bmu", "advise", "5", "5", "5", "2", "3", "--rolls-left", "0", "--json", "--opponent", "5=6"]
    )
    data = json.loads(capsys.readouterr()[0])
    assert data["keeps"][0]["stop"] and data["play"][0] == {"type": "choose", "option": 0}


def test_cli_advise_a_saved_game(capsys, tmp_path):
    game = BeamMeUp.from_settings({"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": False})
    game.push({"type": "roll", "dice": [6, 6, 2, 3, 1]})
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.to_dict()))
    code = main(["bmu", "advise", "--game", str(path), "--top", "0"])
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith("Ann: 1 2 3 6 6, 2 rolls left")
    assert len(out.splitlines()) == 2 + len(advise(game).keeps)
    path.write_text(json.dumps({"final_state": game.to_dict(), "format": "x"}))
    assert main(["bmu", "advise", "--game", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr()[0])["player"] == "Ann"
    assert main(["bmu", "advise", "--game", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr()[1]
    assert main(["bmu", "advise", "1", "2", "3", "--counters", "x"]) == 2


def test_cli_duel(capsys):
    assert main(["bmu", "duel", "--games", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr()[0])
    assert data["games"] == 4 and 0 <= data["advice_win_rate"] <= 1


def test_bench_advise_runs(capsys):
    found = bench_advise.timings()
    assert set(found) == set(bench_advise.POSITIONS) and all(len(t) == 252 for t in found.values())
    assert main(["bench", "advise"]) == 0
    out = capsys.readouterr()[0]
    assert out.count("median") == 3 and "p99" in out


def reasons_for(own: dict, dice: list[int], left: int, count: int = 3) -> list[str]:
    from tablepi.games.beam_me_up.advice import reasons

    advisor = Advisor(position(own))
    return reasons(advisor.advise(dice, left), advisor, count)


def test_each_hint_says_why_in_a_few_words():
    # One short of winning: play it, and say what it is worth against a re-roll.
    assert reasons_for(NEAR_WIN, [5, 5, 5, 5, 2], 2)[0] == "four 5s wins the game now"
    # Three of the winning value: kept for the fourth.
    assert reasons_for(NEAR_WIN, [5, 5, 5, 2, 3], 2)[0] == "aims at four 5s, to win this turn"
    # A big straight on a fresh board, one roll left: a player plays it; the
    # advice keeps 2 3 4 5 and says why. Whatever the fifth die shows, the
    # roll is a big straight again (1 or 6) or a small straight with a pair,
    # which moves a second counter off its start row: never worth less.
    said = reasons_for({}, [2, 3, 4, 5, 6], 1, count=32)
    assert said[0] == "aims at a small straight with a pair: 4.1 on average against 3.5 now, never less"
    assert "a big straight now: 3.5; a re-roll averages 4.1 at best" in said
    # Four 6s with two rolls left: kept for the fifth (a first square counted
    # double once made the advice throw them away to spread its squares).
    advice = Advisor(position({})).advise([6, 6, 6, 6, 1], 2)
    assert advice.best.keep == (6, 6, 6, 6)
    assert reasons_for({}, [6, 6, 6, 6, 1], 2)[0] == "aims at five 6s: 3.8 on average against 3.5 now"
    # A roll with no option: a keep is worth something against nothing now.
    said = reasons_for({}, [1, 2, 4, 5, 6], 1)
    assert all(words.endswith("against nothing now") for words in said)
    # With the straight column at the top a straight is worth nothing: the roll is not played.
    said = reasons_for({"straight": 7}, [1, 2, 3, 4, 6], 0)
    assert said == ["nothing in this roll is worth playing"]
    for words in (*reasons_for({}, [2, 3, 4, 5, 6], 2), *reasons_for({}, [1, 1, 2, 3, 4], 2)):
        assert 20 < len(words) <= 80 and "a two pairs" not in words, words
