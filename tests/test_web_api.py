"""The JSON API: health, state, commands (validation, PIN, rules), camera."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import web
from tablepi.events import EventBus
from tablepi.store import Store
from tablepi.table import Table

PIN = "246810"
PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
OS = {"type": "new_game", "kind": "outer_space"}


class TableService:
    """A service around a real Table and SQLite store, without hardware."""

    def __init__(self, data_dir):
        self.data_dir = data_dir
        self.store = Store(data_dir)
        self.table = Table(self.store, events=EventBus())
        self.pin = PIN
        self.simulated = True
        self.frame: bytes | None = None
        self.healthy = True

    def health(self) -> dict:
        return {"ok": self.healthy, "game": self.table.kind, "camera": "none", "display": "none"}

    def camera_jpeg(self) -> bytes | None:
        return self.frame


@pytest.fixture
def service(tmp_path):
    svc = TableService(tmp_path)
    yield svc
    svc.store.close()


@pytest.fixture
def client(service):
    return web.create_app(service).test_client()


def pin(extra: dict | None = None) -> dict:
    return {"X-Table-Pin": PIN, **(extra or {})}


def post(client, body, headers=None):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    headers = pin() if headers is None else headers
    return client.post("/api/commands", data=data, content_type="application/json", headers=headers)


def start_outer_space(client):
    r = post(client, {"type": "new_game", "kind": "outer_space", "settings": {"players": PLAYERS}})
    assert r.status_code == 200, r.json
    return r.json


# -- reading -----------------------------------------------------------------


def test_healthz_reports_ok_and_not_ok(client, service):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json["ok"] is True
    service.healthy = False
    r = client.get("/healthz")
    assert r.status_code == 503 and r.json["ok"] is False


def test_state_without_game_and_with_game(client):
    r = client.get("/api/state")
    assert r.status_code == 200
    assert r.json == {"seq": 0, "game": None}
    assert "no-store" in r.headers["Cache-Control"]
    start_outer_space(client)
    state = client.get("/api/state").json
    assert state["game"]["kind"] == "outer_space"
    assert state["game"]["state"]["players"] == PLAYERS


def test_camera_frame_or_404(client, service):
    r = client.get("/api/camera.jpg")
    assert r.status_code == 404
    assert r.json["rule"] == "camera" and "no camera frame" in r.json["error"]
    service.frame = b"\xff\xd8fake-jpeg\xff\xd9"
    r = client.get("/api/camera.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data == service.frame


# -- commands ----------------------------------------------------------------


def test_command_flow_returns_new_state_and_undo(client):
    state = start_outer_space(client)
    assert state["game"]["state"]["leader"] is None
    r = post(client, {"type": "leader", "player": "Ann"})
    assert r.status_code == 200 and r.json["game"]["state"]["leader"] == "Ann"
    assert r.json["game"]["last"]["source"] == "web"
    r = post(client, {"type": "undo"})
    assert r.status_code == 200 and r.json["game"]["state"]["leader"] is None
    assert client.get("/api/state").json == r.json
    r = post(client, {"type": "end_game"})
    assert r.status_code == 200 and r.json["game"] is None


def test_rule_error_is_409_and_changes_nothing(client):
    start_outer_space(client)
    before = client.get("/api/state").json
    r = post(client, {"type": "partner", "player": "Ben"})
    assert r.status_code == 409
    assert r.json["rule"] == "T4" and "leader" in r.json["error"]
    assert client.get("/api/state").json == before


def test_bad_settings_are_a_rule_error(client):
    r = post(client, {"type": "new_game", "kind": "outer_space", "settings": {"players": ["Ann"]}})
    assert r.status_code == 409 and r.json["rule"]
    assert client.get("/api/state").json["game"] is None


@pytest.mark.parametrize("command", [{"type": "end_game"}, {"type": "undo"}, {"type": "next_phase"}])
def test_no_game_is_409(client, command):
    r = post(client, command)
    assert r.status_code == 409
    assert "no game" in r.json["error"] and r.json["rule"] == "command"


@pytest.mark.parametrize(
    "body, message",
    [
        ("", "JSON object"),
        ("not json", "not valid JSON"),
        ('{"type": "undo"', "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('[{"type": "undo"}]', "must be a JSON object"),
        ('"undo"', "must be a JSON object"),
        ("null", "must be a JSON object"),
        ("42", "must be a JSON object"),
        ({}, '"type"'),
        ({"type": 7}, '"type"'),
        ({"type": None}, '"type"'),
        ({"type": "fly_to_the_moon"}, "unknown command type"),
        ({"type": "UNDO"}, "unknown command type"),
        ({"type": "x" * 5000}, "unknown command type"),
        ({"type": "undo", "extra": 1}, "unknown field"),
        ({"type": "end_game", "at": 12.5}, "unknown field"),
        ({"type": "new_game"}, "'kind'"),
        ({"type": "new_game", "kind": "chess"}, "kind must be one of"),
        ({"type": "new_game", "kind": 3}, "must be a string"),
        ({"type": "new_game", "kind": "outer_space", "settings": []}, "settings must be an object"),
        (OS | {"settings": {"players": PLAYERS, "timer_seconds": 10**40}}, "between"),
        (OS | {"settings": {"n": "x" * 1000}}, "longer than"),
        (OS | {"settings": {"n": [[[[[[[[[[1]]]]]]]]]]}}, "nested too deeply"),
        (OS | {"settings": {"n": list(range(500))}}, "more than"),
        ('{"type": "new_game", "kind": "outer_space", "settings": {"timer_seconds": NaN}}', "not valid JSON"),
        (
            '{"type": "new_game", "kind": "outer_space", "settings": {"timer_seconds": Infinity}}',
            "not valid JSON",
        ),
        ('{"type": "undo", "type": 5}', '"type"'),
        ("[" * 100_00 + "]" * 100_00, "JSON"),
        (b'\xff\xfe{"type": "undo"}', "not valid JSON"),
    ],
)
def test_malformed_commands_are_400(client, body, message):
    r = post(client, body)
    assert r.status_code == 400, r.json
    assert r.json["rule"] == "request"
    assert message in r.json["error"]


@pytest.mark.parametrize(
    "command, message",
    [
        ({"type": "leader"}, "'player'"),
        ({"type": "leader", "player": 7}, "must be a string"),
        ({"type": "leader", "player": ["Ann"]}, "must be a string"),
        ({"type": "leader", "player": "A" * 300}, "longer than"),
        ({"type": "leader", "player": "Ann", "manual": "yes"}, "true or false"),
        ({"type": "vote", "votes": []}, "must be an object"),
        ({"type": "vote", "votes": {}}, "1 to 12"),
        ({"type": "vote", "votes": {"Ann": True}}, "whole number"),
        ({"type": "vote", "votes": {"Ann": 2.5}}, "whole number"),
        ({"type": "vote", "votes": {"Ann": 10**30}}, "between"),
        ({"type": "vote", "votes": {"Ann": -1}}, "between"),
        ({"type": "vote", "votes": {"Ann": 1}, "tie_break": 5}, "must be"),
        ({"type": "result", "winner": "androids"}, "humans, aliens"),
        ({"type": "timer_start", "seconds": 5}, "unknown field"),
        ({"type": "flip_coin"}, "unknown command type"),
        ({"type": "coin"}, "unknown command type"),
        ({"type": "danger_coin", "side": "alien"}, "unknown command type"),
    ],
)
def test_game_commands_are_checked_field_by_field(client, command, message):
    start_outer_space(client)
    before = client.get("/api/state").json
    r = post(client, command)
    assert r.status_code == 400, r.json
    assert message in r.json["error"]
    assert client.get("/api/state").json == before


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_commands_must_be_sent_as_json(client, content_type):
    r = client.post("/api/commands", data='{"type": "end_game"}', content_type=content_type, headers=pin())
    assert r.status_code == 400 and "application/json" in r.json["error"]


def test_malformed_without_pin_is_refused_first(client):
    r = post(client, "not json", headers={})
    assert r.status_code == 403


def test_oversized_body_is_refused_with_json(client):
    r = post(client, {"type": "undo", "pad": "x" * 200_000})
    assert r.status_code == 413
    assert r.json["error"]


def test_unknown_api_route_and_method_answer_json(client):
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and "error" in r.json
    r = client.get("/api/commands")
    assert r.status_code == 405 and "error" in r.json and "POST" in r.headers["Allow"]


def test_unexpected_failure_is_a_json_500_without_internals(client, service):
    def broken():
        raise RuntimeError("secret internal detail /etc/tablepi")

    service.health = broken
    r = client.get("/healthz")
    assert r.status_code == 500
    assert r.json == {"error": "internal error; the table keeps running", "rule": "internal"}
    assert b"secret internal detail" not in r.data and b"Traceback" not in r.data


def test_state_survives_a_new_app_on_the_same_store(tmp_path):
    svc = TableService(tmp_path)
    client = web.create_app(svc).test_client()
    start_outer_space(client)
    post(client, {"type": "leader", "player": "Cat"})
    svc.store.close()
    again = TableService(tmp_path)
    try:
        state = web.create_app(again).test_client().get("/api/state").json
        assert state["game"]["state"]["leader"] == "Cat"
    finally:
        again.store.close()


# -- anything at all ---------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
COMMAND_TYPES = [
    "new_game",
    "end_game",
    "undo",
    "leader",
    "partner",
    "vote",
    "timer_start",
    "result",
    "roll",
    "add",
    "coin",
    "flip",
]
commands = st.fixed_dictionaries(
    {"type": st.sampled_from(COMMAND_TYPES)},
    optional={
        "player": json_values,
        "kind": json_values,
        "settings": json_values,
        "votes": json_values,
        "winner": json_values,
        "dice": json_values,
        "manual": json_values,
        "extra": json_values,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(json_values, commands))
def test_any_json_body_gets_a_clear_answer_never_a_500(client, body):
    r = post(client, body)
    assert r.status_code in (200, 400, 409), (body, r.status_code, r.data[:300])
    assert set(r.json) >= ({"error", "rule"} if r.status_code != 200 else {"seq", "game"})


def test_page_errors_are_plain_text_without_internals(service):
    app = web.create_app(service)

    @app.get("/boom")
    def boom():
        raise RuntimeError("internal detail")

    r = app.test_client().get("/boom")
    assert r.status_code == 500 and r.mimetype == "text/plain"
    assert b"internal detail" not in r.data


def test_every_answer_carries_the_safety_headers(client):
    for r in (client.get("/api/state"), client.get("/api/nothing"), post(client, "[]")):
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["X-Frame-Options"] == "DENY"


def test_app_is_never_in_debug_and_takes_config(service):
    app = web.create_app(service, {"SSE_HEARTBEAT": 1.5})
    assert app.debug is False
    assert app.config["SSE_HEARTBEAT"] == 1.5
    assert app.extensions["tablepi"] is service
    assert len(app.config["SECRET_KEY"]) >= 32
    assert web.create_app(service).config["SECRET_KEY"] == app.config["SECRET_KEY"]


def test_random_legal_beam_me_up_play_passes_the_schemas(client):
    import random

    from tablepi.games.beam_me_up import BeamMeUp
    from tablepi.games.beam_me_up.randomplay import random_command

    settings = {"players": [{"name": "Ann"}, {"name": "Ben"}, {"name": "Sam"}]}
    r = post(client, {"type": "new_game", "kind": "beam_me_up", "settings": settings})
    assert r.status_code == 200, r.json
    mirror = BeamMeUp.from_settings(settings)
    rng = random.Random(7)
    kinds = set()
    for _ in range(150):
        if mirror.finished:
            break
        command = random_command(mirror, rng)
        r = post(client, command)
        assert r.status_code == 200, (command, r.json)
        mirror.push(command)
        kinds.add(command["type"])
    assert {"advantage", "roll", "choose", "move"} <= kinds
    assert r.json["game"]["state"] == mirror.public_view()


@pytest.mark.parametrize(
    "kind, command",
    [
        ("outer_space", {"type": "leader", "player": "Ann"}),
        ("outer_space", {"type": "partner", "player": "Ben"}),
        ("outer_space", {"type": "next_phase"}),
        ("outer_space", {"type": "vote", "votes": {"Ann": 3, "Ben": 3}, "tie_break": "Ann"}),
        ("outer_space", {"type": "vote", "votes": {"Ann": 4}}),
        ("outer_space", {"type": "timer_start"}),
        ("outer_space", {"type": "timer_pause"}),
        ("outer_space", {"type": "timer_reset"}),
        ("outer_space", {"type": "result", "winner": "aliens"}),
        ("beam_me_up", {"type": "advantage", "columns": ["1", "5"]}),
        ("beam_me_up", {"type": "roll", "dice": [2, 2, 4, 4, 6], "kept": [2, 2]}),
        ("beam_me_up", {"type": "roll", "dice": [1, 2, 3, 4, 5], "manual": True}),
        ("beam_me_up", {"type": "choose", "option": 0}),
        ("beam_me_up", {"type": "move", "part": 1, "column": "4"}),
        ("beam_me_up", {"type": "move", "part": 0}),
        ("beam_me_up", {"type": "bonus", "column": "straight"}),
        ("beam_me_up", {"type": "end_turn"}),
        ("space_beans", {"type": "close_out", "player": 1}),
        ("space_beans", {"type": "reveal", "player": 0, "bean": "Bohrion", "cards": [4, 4, 9]}),
        ("space_beans", {"type": "add", "player": 2, "collection": "open", "bean": "Bohrion", "cards": [3]}),
        ("space_beans", {"type": "add", "player": 2, "collection": "secret", "count": 2}),
        ("space_beans", {"type": "end_turn"}),
        ("space_beans", {"type": "final", "player": 0, "bean": "Moonbohnen", "cards": [5, 6]}),
        (None, {"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}}),
        (None, {"type": "undo"}),
    ],
)
def test_every_documented_command_fits_its_schema(kind, command):
    from web.commands import validate

    validate(command, kind)
    validate(command, None)  # with no game on the table: the table answers "no game"


def test_a_command_of_another_game_is_unknown_while_a_game_is_on():
    from web.commands import Malformed, validate

    with pytest.raises(Malformed, match="unknown command type 'roll' in outer_space"):
        validate({"type": "roll", "dice": [1, 2, 3, 4, 5]}, "outer_space")


@pytest.mark.parametrize("kind", ["beam_me_up", "outer_space", "space_beans"])
def test_the_schemas_know_every_command_the_game_takes(kind):
    """A game that learns a new command needs its schema in web/commands.py too,
    or phones could not send it."""
    from tablepi.games import game_class
    from web.commands import GAME_COMMANDS

    handlers = {name.split("_", 2)[2] for name in dir(game_class(kind)) if name.startswith(("_cmd_", "_do_"))}
    assert handlers, "the game's command handlers were not found"
    assert handlers == set(GAME_COMMANDS[kind])
