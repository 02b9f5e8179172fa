"""The venue: what a table publishes to the venue's MQTT broker, against a
real Mosquitto (tests/venue_support.py starts one on a free port).

- the payloads are built from the public state only: a search of every
  message for the danger coin, Space Beans' secret collections and the PIN;
- a table whose broker is down starts and plays, keeps only the latest of
  each topic, and catches up when the broker appears;
- retained state, the last will, Home Assistant discovery;
- the board's reading of the messages, including hostile ones.
"""

from __future__ import annotations

import json
import re
import socket
import time

import pytest
from venue_support import Mosquitto, Recorder, wait_for

from hardware import screens
from hardware.display import TableDisplay
from tablepi.bench.venue import free_port
from tablepi.config import ConfigError, from_dict
from tablepi.games.names import NAME_CHARS
from tablepi.service import Service
from tablepi.store import Store
from tablepi.table import Table
from tablepi.venue import Board, Publisher, discovery_messages, summary

OUTER_SPACE = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
MARKER = "zq7x-danger-coin-result"


def venue_config(port: int, table: str = "t1", **extra) -> dict:
    return {"venue": {"broker": "127.0.0.1", "port": port, "table": table, "reconnect_max": 1, **extra}}


@pytest.fixture
def broker(tmp_path):
    mosquitto = Mosquitto(tmp_path / "broker").start()
    yield mosquitto
    mosquitto.stop()


def game_payload(recorder: Recorder, table: str = "t1") -> dict | None:
    raw = recorder.latest(f"tablepi/{table}/game")
    return None if raw is None else json.loads(raw)


# -- config --------------------------------------------------------------------------

BAD_VENUE = [
    ({"broker": "mqtt://venue.lan", "table": "t1"}, "venue.broker", "no mqtt://"),
    ({"broker": "venue.lan:1883", "table": "t1"}, "venue.broker", "no port"),
    ({"broker": "venue.lan"}, "venue.table", "required when venue.broker is set"),
    ({"broker": "venue.lan", "table": "table/7"}, "venue.table", "letters, digits"),
    ({"broker": "venue.lan", "table": "#"}, "venue.table", "letters, digits"),
    ({"broker": "venue.lan", "table": "t1", "port": 0}, "venue.port", "TCP port"),
    ({"broker": "venue.lan", "table": "t1", "password": "x"}, "venue.password", "username"),
    ({"broker": "venue.lan", "table": "t1", "ca_file": "/etc/ca.pem"}, "venue.ca_file", "tls = true"),
    ({"broker": "venue.lan", "table": "t1", "tls": True, "ca_file": "/nope.pem"}, "venue.ca_file", "no such"),
    ({"broker": "venue.lan", "table": "t1", "tls": "yes"}, "venue.tls", "true or false"),
    ({"broker": "venue.lan", "table": "t1", "qos": 2}, "venue.qos", "unknown setting"),
    ({"broker": 5, "table": "t1"}, "venue.broker", "host name"),
]


@pytest.mark.parametrize(("section", "key", "words"), BAD_VENUE, ids=[f"{b[1]}:{b[2]}" for b in BAD_VENUE])
def test_a_corrupt_venue_section_gets_a_clear_message(section, key, words):
    with pytest.raises(ConfigError) as info:
        from_dict({"venue": section})
    matching = [p for p in info.value.problems if p.startswith(key + ":")]
    assert matching and any(words in p for p in matching), info.value.problems


def test_no_broker_no_venue_and_config_show_hides_the_password(tmp_path):
    assert from_dict({}).venue.broker == ""
    assert Service(from_dict({}), tmp_path, simulate=True, camera=False).health()["venue"] == {"state": "off"}
    config = from_dict(
        {"venue": {"broker": "10.0.0.2", "table": "t1", "username": "u", "password": "hunter2x"}}
    )
    shown = config.to_toml()
    assert "hunter2x" not in shown and "# password = (set, not shown)" in shown
    assert 'broker = "10.0.0.2"' in shown


# -- payloads ----------------------------------------------------------------------------


def test_summary_says_who_plays_what_in_each_game(tmp_path):
    table = Table(Store(tmp_path))
    assert summary(table.public_state())["kind"] is None
    table.start_game("space_beans", {"players": ["Ann", "Ben"]})
    table.submit({"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [2, 7]})
    table.submit({"type": "end_turn"})
    s = summary(table.public_state())
    assert s["title"] == "Space Beans" and s["turn"] == "Ben"
    assert [p["name"] for p in s["players"]] == ["Ann", "Ben"] and s["players"][0]["score"] == 0
    table.start_game("outer_space", {"players": OUTER_SPACE})
    table.submit({"type": "leader", "player": "Cat"})
    s = summary(table.public_state())
    assert s["leader"] == "Cat" and s["detail"] == "mission 1 · Trek" and s["players"][0]["score"] is None
    table.submit({"type": "result", "winner": "humans"})
    assert summary(table.public_state())["winner"] == "humans"
    seats = [{"name": "Ann", "board": "A"}, {"name": "Ben", "board": "B"}]
    table.start_game("beam_me_up", {"players": seats})
    public = table.public_state()
    s = summary(public)
    assert s["title"] == "Beam Me Up" and s["turn"] == public["game"]["state"]["turn"]["name"]
    assert s["players"][1] == {"name": "Ben", "score": 0, "table": False}
    table.store.close()


def test_home_assistant_discovery_is_one_device_per_table_with_four_sensors():
    messages = dict(discovery_messages("table-7", "Table 7"))
    assert set(messages) == {
        f"homeassistant/sensor/tablepi_table_7/{o}/config" for o in ("game", "leader", "turn", "timer")
    }
    for config in messages.values():
        assert config["availability_topic"] == "tablepi/table-7/status"
        assert (
            config["device"]["identifiers"] == ["tablepi_table_7"] and config["device"]["name"] == "Table 7"
        )
        assert config["unique_id"].startswith("tablepi_table_7_")
        assert config["default_entity_id"] == "sensor." + config["unique_id"]
    timer = messages["homeassistant/sensor/tablepi_table_7/timer/config"]
    assert timer["state_topic"] == "tablepi/table-7/timer" and timer["unit_of_measurement"] == "s"
    assert len({c["unique_id"] for c in messages.values()}) == 4


# -- against the real broker ---------------------------------------------------------------


def _play_outer_space_with_coins(service: Service, monkeypatch) -> None:
    drawn: list[str] = []

    def coin(display, result):
        drawn.append(result)
        display._show("coin", lambda p, r: screens.coin(p, "alien"), result, secret=True)

    monkeypatch.setattr(TableDisplay, "coin", coin)
    service.table.start_game("outer_space", {"players": OUTER_SPACE})
    wait_for(lambda: getattr(service.controller, "kind", None) == "outer_space", what="the controller")
    service.controller._flip = lambda: MARKER
    for command in ({"type": "leader", "player": "Ann"}, {"type": "timer_start"}, {"type": "timer_pause"}):
        service.press("B")  # the danger coin, flipped with the table's own button
        wait_for(lambda: service.display.secret, what="the coin on the OLED")
        service.table.submit(command)
        service.press("B")
        wait_for(lambda: not service.display.secret, what="the coin to go")
    assert drawn == [MARKER] * 3


def test_no_secret_ever_reaches_the_broker(broker, tmp_path, monkeypatch):
    """Every message on every topic ('#'), while the danger coin is flipped on
    the table's button and Space Beans' secret collections grow."""
    recorder = Recorder(broker.port)
    service = Service(from_dict(venue_config(broker.port)), tmp_path / "table", simulate=True, camera=False)
    service.start("http://127.0.0.1:1/")
    try:
        wait_for(lambda: service.venue.state == "online", what="the venue link")
        _play_outer_space_with_coins(service, monkeypatch)
        table = service.table
        table.start_game("space_beans", {"players": ["Ann", "Ben"]})
        for command in (
            {"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [4]},
            {"type": "end_turn"},
            {"type": "add", "player": 1, "collection": "open", "bean": "Bluebeans", "cards": [5]},
            {"type": "end_turn"},
            {"type": "add", "player": 0, "collection": "secret", "count": 3},
            {"type": "end_turn"},
            {"type": "add", "player": 1, "collection": "secret", "count": 2},
            {"type": "end_turn"},
        ):
            table.submit(command)
        wait_for(lambda: (game_payload(recorder) or {}).get("seq") == 8, what="the last state on the broker")
        time.sleep(0.3)
    finally:
        service.close()
    everything = recorder.everything()
    topics = {t for t, _, _ in recorder.messages}
    assert {"tablepi/t1/status", "tablepi/t1/game", "tablepi/t1/timer", "tablepi/t1/event"} <= topics
    assert recorder.latest("tablepi/t1/status") == b"offline"  # said on closing
    assert MARKER.encode() not in everything
    pin = service.pin
    assert not re.search(rb"(?<![\d.])" + pin.encode() + rb"(?!\d)", everything), "the PIN was published"
    keys: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, dict):
            keys.update(value)
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for _topic, payload, _ in recorder.messages:
        if payload.startswith(b"{"):
            walk(json.loads(payload))
    assert keys and not {
        k for k in keys if any(w in k.lower() for w in ("coin", "flip", "pin", "secret_cards"))
    }
    # A secret collection is a count: the only numbers anyone learns.
    beans = [json.loads(p) for p in recorder.payloads("tablepi/t1/game")][-1]["public"]["game"]["state"]
    assert [p["secret_count"] for p in beans["players"]] == [3, 2]
    assert all(p["final"] is None for p in beans["players"])
    recorder.close()


def test_a_table_plays_with_the_broker_down_and_catches_up_when_it_appears(tmp_path):
    port = free_port()
    config = from_dict(venue_config(port))
    service = Service(config, tmp_path / "table", simulate=True, camera=False)
    service.start("http://127.0.0.1:1/")
    broker = None
    try:
        table = service.table
        table.start_game("outer_space", {"players": OUTER_SPACE})
        table.submit({"type": "leader", "player": "Ann"})
        for i in range(40):
            table.submit({"type": "timer_start" if i % 2 == 0 else "timer_pause"})
        health = service.health()
        assert health["ok"] and health["venue"]["state"] in ("connecting", "offline")
        # Nothing piles up: one latest payload per topic waits, however many commands.
        wait_for(lambda: service.health()["venue"]["superseded"] > 30, what="payloads to be superseded")
        assert service.health()["venue"]["waiting"] <= 8
        wait_for(lambda: service.display.badge == "V", what="the OLED's mark")
        broker = Mosquitto(tmp_path / "broker", port=port).start()
        wait_for(lambda: service.venue.state == "online", timeout=15, what="the reconnect")
        wait_for(lambda: service.display.badge is None, what="the mark to go")
        assert service.health()["venue"]["state"] == "online"
        wait_for(lambda: service.health()["venue"]["waiting"] == 0, what="the latest to be sent")
        retained_topics = {
            "tablepi/t1/status",
            "tablepi/t1/game",
            "tablepi/t1/timer",
            "homeassistant/sensor/tablepi_t1/game/config",
        }
        # The table's publishing is asynchronous: a watcher waits until the broker
        # holds the latest of every topic, so that a newcomer after it meets them there.
        watcher = Recorder(port)
        wait_for(lambda: (game_payload(watcher) or {}).get("seq") == 41, what="the latest game")
        wait_for(lambda: retained_topics <= {t for t, _, _ in list(watcher.messages)}, what="every topic")
        watcher.close()
        # A newcomer gets the retained latest: status, game and timer.
        recorder = Recorder(port)
        wait_for(lambda: (game_payload(recorder) or {}).get("seq") == 41, what="the latest game")
        # The broker hands the retained messages over one by one: wait for them all.
        wait_for(
            lambda: retained_topics <= {t for t, _, _ in list(recorder.messages)}, what="every retained topic"
        )
        assert recorder.latest("tablepi/t1/status") == b"online"
        assert json.loads(recorder.latest("tablepi/t1/timer"))["state"] == "paused"
        first: dict[str, bool] = {}
        for t, _, retained in list(recorder.messages):
            first.setdefault(t, retained)
        assert {t for t, retained in first.items() if retained} >= retained_topics
        recorder.close()
    finally:
        service.close()
        if broker is not None:
            broker.stop()


def test_a_broker_killed_and_restarted_gets_the_latest_state_again(broker, tmp_path):
    table = Table(Store(tmp_path / "table"))
    publisher = Publisher(from_dict(venue_config(broker.port)).venue, table)
    publisher.start()
    try:
        wait_for(lambda: publisher.state == "online", what="the link")
        table.start_game("outer_space", {"players": OUTER_SPACE})
        broker.kill()
        wait_for(lambda: publisher.state == "offline", what="the drop")
        table.submit({"type": "leader", "player": "Eve"})
        table.submit({"type": "timer_start"})
        broker.start()  # the same port, and no retained messages: it lost them all
        wait_for(lambda: publisher.state == "online", timeout=15, what="the reconnect")
        recorder = Recorder(broker.port)
        wait_for(lambda: (game_payload(recorder) or {}).get("seq") == 2, what="the latest game")
        assert game_payload(recorder)["leader"] == "Eve"

        # A timer message paho held from before the drop may arrive first; the
        # publisher sends the latest again a second later, and that one stays.
        def running_timer() -> dict | None:
            latest = recorder.latest("tablepi/t1/timer")
            timer = json.loads(latest) if latest else None
            return timer if timer and timer["running"] else None

        timer = wait_for(running_timer, what="the running timer")
        assert 50 < timer["left"] <= 60 and timer["ends_at"] > time.time(), timer
        # Home Assistant's discovery messages are back too.
        wait_for(
            lambda: recorder.latest("homeassistant/sensor/tablepi_t1/game/config"),
            what="the discovery messages",
        )
        recorder.close()
    finally:
        publisher.close()
        table.store.close()


def test_a_table_that_dies_is_shown_offline_by_its_last_will(broker, tmp_path):
    table = Table(Store(tmp_path / "table"))
    publisher = Publisher(from_dict(venue_config(broker.port)).venue, table)
    publisher.start()
    recorder = Recorder(broker.port)
    try:
        wait_for(lambda: recorder.latest("tablepi/t1/status") == b"online", what="online")
        publisher._stop.set()  # no goodbye: the connection just goes, as when the power is cut
        publisher._client._sock.shutdown(socket.SHUT_RDWR)
        wait_for(lambda: recorder.latest("tablepi/t1/status") == b"offline", what="the last will")
    finally:
        recorder.close()
        publisher.close()
        table.store.close()


# -- the board's reading -------------------------------------------------------------------------


def test_the_board_keeps_the_latest_of_each_table_and_refuses_nonsense():
    now = [1000.0]
    board = Board(clock=lambda: now[0])
    assert not board.handle("tablepi/t1/other", b"{}")
    assert not board.handle("elsewhere/t1/game", b"{}")
    assert not board.handle("tablepi/bad name/game", b"{}")
    assert not board.handle("tablepi/t1/game", b"not json")
    assert not board.handle("tablepi/t1/game", b"x" * 600_000)
    game = {"sent": 999.9, "seq": 3, "title": "<script>alert(1)</script>", "players": [{"name": "A" * 500}]}
    assert board.handle("tablepi/t1/game", json.dumps(game).encode())
    card = board.snapshot()["tables"][0]
    assert card["game"]["title"] == "<script>alert(1)</script>"[:40]  # shown as text by the page
    assert len(card["game"]["players"][0]["name"]) == NAME_CHARS  # the game's own limit
    # A late copy of an older state does not undo a newer one.
    assert board.handle("tablepi/t1/game", json.dumps({**game, "seq": 2, "sent": 999.0}).encode())
    assert board.snapshot()["tables"][0]["game"]["seq"] == 3
    board.handle("tablepi/t1/status", b"offline")
    timer = {"sent": 1000.0, "state": "running", "running": True, "left": 30.0}
    board.handle("tablepi/t1/timer", json.dumps(timer).encode())
    version = board.snapshot()["version"]
    now[0] += 21
    assert board.snapshot()["tables"][0]["timer"]["left"] == pytest.approx(9.0)
    assert board.changes(version, 0.01) is None
    board.handle("tablepi/t2/status", b"online")
    changed = board.changes(version, 0.01)
    assert [c["table"] for c in changed["tables"]] == ["t2"]
    board.handle("tablepi/t2/status", b"")  # a cleared retained status: the table left the venue
    assert board.changes(changed["version"], 0.01)["removed"] == ["t2"]


def test_the_board_holds_a_bounded_number_of_tables():
    board = Board()
    for i in range(250):
        board.handle(f"tablepi/t{i}/status", b"online")
    assert len(board.snapshot()["tables"]) == 200 and board.ignored == 50


def test_the_oled_marks_every_screen_while_the_venue_is_not_reached():
    display = TableDisplay()
    display.countdown(42, "Trek")
    plain = display.image
    version = display.version
    display.set_badge("V")
    assert display.version == version + 1 and display.image.tobytes() != plain.tobytes()
    corner = display.image.crop((128 - screens.BADGE_WIDTH, 0, 128, screens.BADGE_HEIGHT))
    assert corner.getbbox() is not None
    display.standings([("Ann", 3)], title="Space Beans")
    assert display.image.crop((128 - screens.BADGE_WIDTH, 0, 128, 4)).getbbox() is not None
    display.set_badge(None)
    display.standings([("Ann", 3)], title="Space Beans")
    assert all(0 <= b[0] and b[2] <= 128 and b[3] <= 64 for b in display.drawn_boxes)


def test_publisher_needs_no_broker_to_close_quickly(tmp_path):
    table = Table(Store(tmp_path))
    publisher = Publisher(from_dict(venue_config(free_port())).venue, table)  # nothing listens there
    publisher.start()
    table.start_game("outer_space", {"players": OUTER_SPACE})
    started = time.monotonic()
    publisher.close()
    assert time.monotonic() - started < 5
    table.store.close()


def test_an_unreadable_ca_file_leaves_the_table_playing(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("not a certificate")
    config = from_dict(venue_config(free_port(), tls=True, ca_file=str(ca)))
    service = Service(config, tmp_path / "table", simulate=True, camera=False)
    service.start("http://127.0.0.1:1/")
    try:
        service.table.start_game("outer_space", {"players": OUTER_SPACE})
        venue = service.health()["venue"]
        assert venue["state"] == "offline" and "cannot connect" in venue["error"]
        assert service.health()["ok"]
    finally:
        service.close()


def test_the_board_command_explains_a_wrong_broker(capsys):
    from tablepi.cli import main

    assert main(["venue", "--broker", "mqtt://venue.lan"]) == 2
    assert "no mqtt://" in capsys.readouterr().err
    assert main(["venue", "--broker", "venue.lan", "--ca-file", "/nonexistent.pem", "--tls"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_the_venue_board_keeps_a_name_of_the_game_s_longest_whole() -> None:
    import json

    from tablepi.venue import Board

    long = "W" * NAME_CHARS
    board = Board()
    game = {"kind": "beam_me_up", "players": [{"name": long, "score": 0}], "turn": long, "leader": long}
    assert board.handle("tablepi/t1/game", json.dumps(game).encode())
    shown = board.snapshot()["tables"][0]["game"]
    assert shown["players"][0]["name"] == shown["turn"] == shown["leader"] == long
