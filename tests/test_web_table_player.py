"""A seat played by the table on the pages and the API: the "table" badge by
its name on the phone and the TV, what the table does next, the phone's
controls held back in its turn, and "Let the table play" after an undo."""

from __future__ import annotations

import random

import pytest

import web
from tablepi.config import from_dict
from tablepi.service import Service

SETTINGS = {
    "players": [{"name": "Ann", "board": "A"}, {"name": "Robo", "board": "B", "table": True}],
    "advantage": False,
}


@pytest.fixture
def service(tmp_path):
    # Not started: the test plays the table's steps itself, one at a time.
    svc = Service(from_dict({}), tmp_path, simulate=True, camera=False, table_seed=1, table_step_seconds=0)
    yield svc
    svc.close()


@pytest.fixture
def client(service):
    return web.create_app(service).test_client()


def pin(service) -> dict:
    return {"X-Table-Pin": service.pin}


def robo_s_turn(service) -> None:
    service.table.start_game("beam_me_up", SETTINGS)
    for command in (
        {"type": "roll", "dice": [4, 4, 1, 2, 6]},
        {"type": "choose", "option": 0},
        {"type": "move", "part": 0},
    ):
        service.table.submit(command)


def test_the_badge_and_the_table_s_next_step_show_on_the_phone_and_the_tv(service, client):
    robo_s_turn(service)
    phone = client.get("/part/phone").get_data(as_text=True)
    tv = client.get("/part/tv").get_data(as_text=True)
    for html in (phone, tv):
        assert 'class="table-badge"' in html
        assert (
            'The table plays <b>Robo</b>\'s turn. Next it <span id="table-next">rolls the dice</span>.'
            in html
        )
    assert 'id="table-turn"' in phone and 'id="bmu-actions"' not in phone  # people only watch
    assert 'id="hint-card"' not in phone
    service.table_player.step()
    phone = client.get("/part/phone").get_data(as_text=True)
    assert "die-button" not in phone  # its dice are not for a person to set aside


def test_after_an_undo_the_phone_offers_to_let_the_table_play(service, client):
    robo_s_turn(service)
    service.table_player.step()
    assert client.post("/api/table-player/continue", json={}, headers=pin(service)).status_code == 409
    service.table.submit({"type": "undo"})
    phone = client.get("/part/phone").get_data(as_text=True)
    assert 'id="table-continue"' in phone and 'id="bmu-actions"' in phone
    assert 'data-waiting="undo"' in phone
    assert client.post("/api/table-player/continue", json={}).status_code in (401, 403)  # the PIN
    response = client.post("/api/table-player/continue", json={}, headers=pin(service))
    assert response.status_code == 200 and response.get_json() == {"playing": True}
    assert service.table_player.step()["game"]["last"]["source"] == "table"


def test_the_table_throws_its_own_dice_and_keeps_its_own(service, client):
    robo_s_turn(service)
    service.table_player.step()
    with pytest.raises(RuntimeError, match="the table throws its own dice for Robo"):
        service.roll()
    response = client.post("/api/device/keep", json={"dice": [0]}, headers=pin(service))
    assert response.status_code == 409 and "Robo" in response.get_json()["error"]


def test_the_set_aside_list_marks_the_table_s_seats(service, client):
    robo_s_turn(service)
    service.table.start_game("space_beans", {"players": ["Cat", "Dan"]})
    html = client.get("/setup").get_data(as_text=True)
    assert "Ann, Robo (table)" in html
    # The set-up page offers the choice for each seat (drawn by setup.js).
    assert "played by the table" in client.get("/static/setup.js").get_data(as_text=True)


def test_the_same_seed_gives_the_same_dice(tmp_path):
    rolls = []
    for run in ("a", "b"):
        svc = Service(from_dict({}), tmp_path / run, simulate=True, camera=False, table_seed=3)
        robo_s_turn(svc)
        rolls.append(svc.table_player.step()["game"]["state"]["dice"])
        svc.close()
    assert rolls[0] == rolls[1]
    assert random.Random(3).randint(1, 6) == rolls[0][0]


def test_in_the_table_s_turn_no_person_plays_for_it(service, client):
    robo_s_turn(service)
    rolled = service.table_player.step()["game"]["state"]
    assert rolled["options"]  # something a person could have chosen
    phone = client.get("/part/phone").get_data(as_text=True)
    assert rolled["options"][0]["text"] in phone  # shown, for people to follow
    assert '"type":"choose"' not in phone and 'id="bmu-actions"' not in phone
    seq = service.table.seq
    for command in (
        {"type": "choose", "option": 0},
        {"type": "end_turn"},
        {"type": "roll", "dice": [1, 1, 1, 1, 1], "manual": True},
    ):
        response = client.post("/api/commands", json=command, headers=pin(service))
        assert response.status_code == 409, command
        assert response.get_json() == {
            "error": "It is Robo's turn, and the table plays it: wait for its move, "
            "or undo to take its last step back.",
            "rule": "table-turn",
        }
    assert service.table.seq == seq
    # Undo stays open to people; after it the table waits, and a person may play the step.
    assert client.post("/api/commands", json={"type": "undo"}, headers=pin(service)).status_code == 200
    manual = {"type": "roll", "dice": [2, 3, 4, 5, 6], "manual": True}
    response = client.post("/api/commands", json=manual, headers=pin(service))
    assert response.status_code == 200 and response.get_json()["game"]["last"]["source"] == "web"
    # Then it is the table's to play again, and a person's choice is refused once more.
    response = client.post("/api/commands", json={"type": "choose", "option": 0}, headers=pin(service))
    assert response.status_code == 409
    assert service.table_player.step()["game"]["last"]["source"] == "table"
