"""Everything the table player and undo say, read once in full: each line a
player meets on a phone or the TV is a sentence (the undo button's "Undo
..." and the note "Undone: ...", what the table does next, why it waits,
why a person's move in its turn is refused)."""

from __future__ import annotations

from pathlib import Path

import pytest

import web
from tablepi.config import from_dict
from tablepi.games.beam_me_up import autoplay
from tablepi.service import Service
from tablepi.table_player import WAITING_WORDS
from tablepi.words import command_words

UNDO_WORDS = {
    # (type, source, manual): what "Undo ..." and "Undone: ..." name
    ("roll", "camera", False): "the roll read by the camera",
    ("roll", "web", True): "the roll entered by hand",
    ("roll", "table", False): "the roll thrown by the table",
    ("choose", "web", False): "the option chosen",
    ("choose", "table", False): "the option the table chose",
    ("move", "button", False): "the move",
    ("move", "table", False): "the table's move",
    ("bonus", "table", False): "the bonus square the table placed",
    ("advantage", "table", False): "the table's set-up move",
    ("end_turn", "web", False): "the end of the turn",
    ("end_turn", "table", False): "the end of the table's turn",
}


@pytest.mark.parametrize("entry, words", UNDO_WORDS.items())
def test_undo_names_each_step_so_that_both_lines_read_as_sentences(entry, words) -> None:
    kind, source, manual = entry
    said = command_words({"type": kind, "source": source, "manual": manual})
    assert said == words
    assert "made by" not in f"Undo {said}" and f"Undone: {said}.".count(".") == 1


def sentence(text: str) -> bool:
    return text[:1].isupper() and text.endswith(".") and "  " not in text


def test_why_the_table_waits_is_said_in_sentences() -> None:
    assert all(sentence(words) for words in WAITING_WORDS.values())


STATE = {
    "phase": "rolling",
    "dice": [4, 4, 1, 2, 6],
    "options": [{"text": "pair of 4s: +1 in column 4"}],
    "chosen": {"parts": [{"column": "4", "squares": 1}, {"column": "straight", "squares": 3}]},
}


@pytest.mark.parametrize(
    "command, words",
    [
        ({"type": "advantage", "columns": ["3", "5"]}, "moves column 3 and column 5 up one square"),
        ({"type": "roll"}, "rolls all five dice again"),
        ({"type": "roll", "kept": [4, 4]}, "keeps 4 4 and rolls 3 dice again"),
        ({"type": "choose", "option": 0}, "plays \u201cpair of 4s: +1 in column 4\u201d"),
        ({"type": "move", "part": 0}, "moves its counter in column 4 up 1 square"),
        ({"type": "move", "part": 1}, "moves its counter in the straight column up 3 squares"),
        ({"type": "bonus", "column": "6"}, "places the rocket's bonus square in column 6"),
        ({"type": "end_turn"}, "ends the turn"),
    ],
)
def test_the_table_s_next_step_reads_as_a_sentence(command: dict, words: str) -> None:
    said = autoplay.describe(STATE, command)
    assert said == words
    assert sentence(f"The table plays Robo's turn. Next it {said}.")


def test_the_table_s_lines_on_the_phone_read_as_sentences(tmp_path: Path) -> None:
    service = Service(
        from_dict({}), tmp_path, simulate=True, camera=False, table_seed=1, table_step_seconds=0
    )
    client = web.create_app(service).test_client()
    try:
        settings = {"players": [{"name": "Robo", "table": True}, {"name": "Ann"}], "advantage": False}
        service.table.start_game("beam_me_up", settings)
        phone = client.get("/part/phone").get_data(as_text=True)
        assert (
            'The table plays <b>Robo</b>\'s turn. Next it <span id="table-next">rolls the dice</span>.'
            in phone
        )
        service.table_player.step()
        service.table.submit({"type": "undo"}, "web")
        phone = client.get("/part/phone").get_data(as_text=True)
        assert "Undone: the roll thrown by the table." in phone
        assert f"The table waits before playing <b>Robo</b>'s turn. {WAITING_WORDS['undo']}" in phone
        refused = client.post(
            "/api/commands", json={"type": "end_turn"}, headers={"X-Table-Pin": service.pin}
        )
        assert refused.status_code == 409  # nothing to end before a roll: the rules, not the table's turn
        service.table_player.play_on()
        service.table_player.step()
        choose = client.post(
            "/api/commands", json={"type": "choose", "option": 0}, headers={"X-Table-Pin": service.pin}
        )
        assert sentence(choose.get_json()["error"])
    finally:
        service.close()
