"""The table as a player: seats marked "played by the
table" play legal moves through the table's own commands, to the end of the
game, with a seeded random source; undo takes their steps back and the table
waits instead of fighting; a restart or a resumed game keeps the seat kind."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from waiting import until

from hardware.display import TableDisplay
from tablepi.config import Config, ConfigError, from_dict
from tablepi.controllers.beam_me_up import BeamMeUpController
from tablepi.games.beam_me_up import autoplay
from tablepi.games.beam_me_up.advice import advise
from tablepi.games.beam_me_up.game import BeamMeUp
from tablepi.games.errors import RuleError
from tablepi.service import Service
from tablepi.store import Store
from tablepi.table import CommandError, Table
from tablepi.table_player import TablePlayer
from tablepi.words import command_words

VS_TABLE = {"players": [{"name": "Ann", "board": "A"}, {"name": "Robo", "board": "B", "table": True}]}
ALL_TABLE = {
    "players": [{"name": "T1", "board": "C", "table": True}, {"name": "T2", "board": "D", "table": True}]
}
MAX_STEPS = 5_000


def _view(table: Table) -> dict:
    return table.public_state()["game"]["state"]


def person_command(state: dict, rng: random.Random) -> dict:
    """A simple person: first columns in the set-up, the first option of
    every roll, every part in its own column, bonus squares on the lowest."""
    phase = state["phase"]
    if phase == "advantage":
        return {"type": "advantage", "columns": ["1", "2", "3"][: state["advantage_due"]]}
    if phase == "rolling":
        if state["dice"] is None:
            return {"type": "roll", "dice": [rng.randint(1, 6) for _ in range(5)], "manual": True}
        if state["options"]:
            return {"type": "choose", "option": 0}
        if state["roll"] < state["max_rolls"]:
            return {"type": "roll", "dice": [rng.randint(1, 6) for _ in range(5)], "manual": True}
        return {"type": "end_turn"}
    if phase == "moving":
        return {"type": "move", "part": state["chosen"]["parts_left"][0]}
    me = state["players"][state["turn"]["index"]]
    top = me["layout"]["top_row"]
    open_columns = [c for c, r in me["counters"].items() if r < top]
    return {"type": "bonus", "column": min(open_columns, key=lambda c: me["counters"][c])}


def play_out(table: Table, player: TablePlayer, rng: random.Random) -> int:
    """Play the game on ``table`` to the end: the table's seats by ``player``,
    the others by ``person_command`` (from the web, like a phone). Steps made."""
    for steps in range(MAX_STEPS):
        state = _view(table)
        if state["finished"]:
            return steps
        if autoplay.table_to_act(state):
            assert player.step() is not None, f"the table did not play its turn: {state['last_effects']}"
        else:
            table.submit(person_command(state, rng), "web")
    raise AssertionError("the game did not end")


# -- the pure choices ---------------------------------------------------------------------


def test_the_table_s_choices_are_legal_and_win_games_for_two_to_four_seats() -> None:
    for seed, n in ((1, 2), (2, 3), (3, 4)):
        rng = random.Random(seed)
        game = BeamMeUp({"players": [{"name": f"T{i}", "table": True} for i in range(n)]})
        for _ in range(MAX_STEPS):
            if game.finished:
                break
            state = game.public_view()
            command = autoplay.next_command(state)
            assert command is not None
            if command["type"] == "roll":
                command = autoplay.throw(state, command, rng)
            assert autoplay.describe(state, command)
            game.push(command)  # RuleError if it were illegal
        assert game.finished and game.winner is not None


def test_a_person_s_seat_gets_no_table_move_and_the_view_tells_the_seats_apart() -> None:
    game = BeamMeUp(VS_TABLE)
    state = game.public_view()
    assert [p["table"] for p in state["players"]] == [False, True]
    assert autoplay.table_seats(state) == [1]
    # The set-up move is Robo's (the second seat): the table makes it.
    assert autoplay.next_command(state) == {"type": "advantage", "columns": ["straight"]}
    game.push({"type": "advantage", "columns": ["straight"]})
    assert autoplay.next_command(game.public_view()) is None  # Ann's turn


def test_the_keep_is_the_advice_s_and_kept_dice_stay_where_they_lay() -> None:
    game = BeamMeUp({**VS_TABLE, "advantage": False})
    game.push({"type": "roll", "dice": [1, 1, 1, 1, 1]})
    game.push({"type": "choose", "option": 0})
    game.push({"type": "move", "part": 0})  # Robo's turn now
    game.push({"type": "roll", "dice": [6, 6, 6, 6, 2]})
    state = game.public_view()
    best = advise(game).best
    assert not best.stop and best.keep == (6, 6, 6, 6)  # one more 6 wins a +4
    command = autoplay.next_command(state)
    assert command == {"type": "roll", "kept": [6, 6, 6, 6]}
    assert autoplay.describe(state, command) == "keeps 6 6 6 6 and rolls 1 die again"
    thrown = autoplay.throw(state, command, random.Random(4))
    assert thrown["kept"] == [6, 6, 6, 6] and thrown["dice"][:4] == [6, 6, 6, 6]
    game.push(thrown)  # legal: the dice kept are in both rolls
    # With no roll left the table plays the roll the advice's way.
    state = game.public_view()
    if state["roll"] < 3 and autoplay.next_command(state)["type"] == "roll":
        game.push(autoplay.throw(state, autoplay.next_command(state), random.Random(5)))
        state = game.public_view()
    command = autoplay.next_command(state)
    assert command == dict(advise(game).play[0])


def test_settings_say_true_or_false_for_a_table_seat() -> None:
    with pytest.raises(RuleError, match="true or false"):
        BeamMeUp({"players": [{"name": "Ann"}, {"name": "Robo", "table": 1}]})
    assert BeamMeUp({"players": [{"name": "Ann"}, {"name": "Bo", "table": False}]}).public_view()


# -- through the table's commands -----------------------------------------------------------


def test_a_table_seat_plays_a_whole_game_through_the_commands(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", VS_TABLE)
    player = TablePlayer(table, rng=random.Random(7), step_seconds=0)
    play_out(table, player, random.Random(8))
    state = _view(table)
    assert state["winner"] is not None
    log = table.store.commands_between(table.game_id, 0, table.seq)
    by_table = [e for e in log if e.source == "table"]
    assert by_table and {e.command["type"] for e in by_table} >= {"advantage", "roll", "choose", "move"}
    # Every step the table made was Robo's, and every one of Ann's was hers.
    replay = BeamMeUp(VS_TABLE)
    for entry in log:
        seat = replay.active
        assert (entry.source == "table") == (seat == 1)
        replay.push({k: v for k, v in entry.command.items() if k not in ("at", "manual")})
    assert replay.winner == state["winner"]["index"]
    # Its rolls are kept with where they came from, and only the people's
    # dice count in the statistics of the table's dice.
    rolls = table.store.rolls(table.game_id)
    assert {r.origin for r in rolls} == {"table", "phone"}
    tallies = table.store.dice_tallies(table.game_id)
    assert [t.player for t in tallies] == ["Ann"]
    assert tallies[0].rolls == sum(r.origin == "phone" and not r.undone for r in rolls) > 0


def test_the_same_seed_plays_the_same_game(tmp_path: Path) -> None:
    logs = []
    for run in ("a", "b"):
        table = Table(Store(tmp_path / run))
        table.start_game("beam_me_up", ALL_TABLE)
        player = TablePlayer(table, rng=random.Random(11), step_seconds=0)
        play_out(table, player, random.Random(0))
        logs.append([e.command | {"at": None} for e in table.store.commands_between(1, 0, table.seq)])
        table.store.close()
    assert logs[0] == logs[1]


def test_undo_takes_the_table_s_steps_back_and_it_waits_for_a_person(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", VS_TABLE)
    player = TablePlayer(table, rng=random.Random(3), step_seconds=0)
    rng = random.Random(5)
    player.step()  # Robo's set-up move
    while not autoplay.table_to_act(_view(table)):
        table.submit(person_command(_view(table), rng), "web")
    before = table.public_state()["game"]["state"]
    first = player.step()  # Robo's first roll
    assert first["game"]["last"]["source"] == "table"
    assert command_words(first["game"]["undo"]) == "the roll thrown by the table"
    second = player.step()
    assert second is not None

    # A person takes both steps back: the table does not step in between.
    table.submit({"type": "undo"}, "web")
    assert player.waiting(table.public_state()) == "undo"
    assert player.due(table.public_state()) is None and player.step() is None
    status = player.status(table.public_state())
    assert status["waiting"] == "undo" and status["name"] == "Robo" and status["next"] is None
    table.submit({"type": "undo"}, "web")
    assert _view(table) == before | {"last_effects": _view(table)["last_effects"]}
    assert player.step() is None

    # A person lets it play on: it rolls again, and goes on to the end.
    assert player.play_on() is True
    assert player.play_on() is False  # not waiting any more
    assert player.status(table.public_state())["next"] == "rolls the dice"
    assert player.step()["game"]["state"]["roll"] == 1
    play_out(table, player, rng)
    assert _view(table)["winner"] is not None


def test_a_person_s_move_after_an_undo_also_lets_the_table_go_on(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", {**VS_TABLE, "advantage": False})
    player = TablePlayer(table, rng=random.Random(3), step_seconds=0)
    table.submit({"type": "roll", "dice": [2, 2, 3, 4, 6]}, "web")
    table.submit({"type": "choose", "option": 0}, "web")
    table.submit({"type": "move", "part": 0}, "web")  # Robo's turn
    player.step()
    table.submit({"type": "undo"}, "web")  # Robo's roll taken back ...
    table.submit({"type": "undo"}, "web")  # ... and Ann's move: her turn again
    assert player.waiting(table.public_state()) is None and player.step() is None
    table.submit({"type": "move", "part": 0}, "web")  # she plays it again
    assert player.step()["game"]["last"]["source"] == "table"


def test_the_table_never_plays_on_a_state_someone_changed(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", ALL_TABLE)
    where = (table.game_id, table.seq)
    table.submit({"type": "advantage", "columns": ["1"]}, "web")
    with pytest.raises(CommandError, match="moved on"):
        table.submit({"type": "roll", "dice": [1, 2, 3, 4, 5]}, "table", expect=where)
    assert table.seq == 1


def test_a_hold_keeps_the_table_from_playing(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", ALL_TABLE)
    reason = ["reading"]
    player = TablePlayer(table, rng=random.Random(1), step_seconds=0, hold=lambda: reason[0])
    assert player.step() is None and player.status(table.public_state())["waiting"] == "reading"
    reason[0] = None
    assert player.step() is not None


def test_a_restart_and_a_resumed_game_keep_the_seat_kind(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", VS_TABLE)
    TablePlayer(table, rng=random.Random(2), step_seconds=0).step()
    table.store.close()

    again = Table(Store(tmp_path))  # a restart
    assert [p["table"] for p in _view(again)["players"]] == [False, True]
    again.start_game("space_beans", {"players": ["Cat", "Dan"]})  # the game is set aside
    again.submit({"type": "resume_game", "game": 1})
    assert [p["table"] for p in _view(again)["players"]] == [False, True]
    assert again.store.game(1).settings["players"][1]["table"] is True
    player = TablePlayer(again, rng=random.Random(2), step_seconds=0)
    play_out(again, player, random.Random(9))
    assert _view(again)["finished"]


# -- the service: its thread, the camera and the buttons -----------------------------------


def _started_service(tmp_path: Path, step_seconds: float) -> Service:
    """A simulated table's service without a camera, its table player seeded."""
    svc = Service(
        Config(data_dir=tmp_path),
        tmp_path,
        simulate=True,
        camera=False,
        table_seed=5,
        table_step_seconds=step_seconds,
    )
    svc.start()
    return svc


def test_the_service_s_table_player_plays_a_game_alone_on_its_thread(tmp_path: Path) -> None:
    svc = _started_service(tmp_path, step_seconds=0)
    try:
        svc.table.start_game("beam_me_up", ALL_TABLE)
        assert until(lambda: _view(svc.table)["finished"], timeout=30.0), _view(svc.table)["last_effects"]
        assert svc.table_player.thread.is_alive()
    finally:
        svc.close()
    assert not svc.table_player.thread.is_alive()


def test_the_service_paces_the_steps_and_stops_on_an_undo(tmp_path: Path) -> None:
    svc = _started_service(tmp_path, step_seconds=0.3)
    try:
        svc.table.start_game("beam_me_up", ALL_TABLE)
        started = time.monotonic()
        assert until(lambda: svc.table.seq >= 3, timeout=30.0)
        assert time.monotonic() - started >= 0.8  # three steps, 0.3 s apart at least
        svc.table.submit({"type": "undo"}, "web")
        seq = svc.table.seq
        time.sleep(0.8)
        assert svc.table.seq == seq  # it waits
        assert svc.play_on()
        assert until(lambda: svc.table.seq > seq, timeout=30.0)
    finally:
        svc.close()


def test_a_table_turn_takes_no_camera_roll_nor_buttons(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", {**VS_TABLE, "advantage": False})
    player = TablePlayer(table, rng=random.Random(1), step_seconds=0)
    display = TableDisplay()
    controller = BeamMeUpController(table, display, None, lambda: 0.0, table_player=player)
    table.submit({"type": "roll", "dice": [4, 4, 1, 2, 6]}, "web")
    table.submit({"type": "choose", "option": 0}, "web")
    controller.on_state(table.submit({"type": "move", "part": 0}, "web"))
    assert _view(table)["turn"]["name"] == "Robo"
    dice = [{"value": v, "confidence": 0.9} for v in (1, 2, 3, 4, 6)]
    assert controller.on_reading(dice, [], play=True) is False
    seq = table.seq
    controller.on_button("confirm")
    controller.on_button("end_turn")
    assert table.seq == seq  # the buttons do not play the table's turn
    controller.on_state(player.step())
    controller.on_button("undo")  # hold A: undo works as ever
    assert table.public_state()["game"]["last"]["type"] == "undo"
    controller.on_state(table.public_state())
    assert display.screen == "message" or display.screen == "dice"
    controller.on_button("confirm")  # A: let it play on
    assert player.waiting(table.public_state()) is None
    assert player.step() is not None


def test_the_step_delay_is_a_setting() -> None:
    assert Config().beam_me_up.table_step_seconds == 1.2
    assert from_dict({"beam_me_up": {"table_step_seconds": 0}}).beam_me_up.table_step_seconds == 0
    with pytest.raises(ConfigError, match="table_step_seconds"):
        from_dict({"beam_me_up": {"table_step_seconds": 30}})
