"""Outer Space through the real table and SQLite store: timer stamps, undo,
restart, and the coin kept off the disk and the event stream (T2, T3)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.buzzer import TableBuzzer
from hardware.display import TableDisplay
from tablepi.controllers.outer_space import OuterSpaceController
from tablepi.games.errors import RuleError
from tablepi.store import Store
from tablepi.table import Table

PLAYERS = ["Ann", "Ben", "Cal", "Dee", "Eve", "Fay", "Gus"]
MARKER = "zq-coin-marker-91c4"


class FakeClock:
    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class Buzzer(TableBuzzer):
    """The real buzzer on gpiozero's mock pins, noting each sound it plays."""

    def __init__(self) -> None:
        super().__init__(18, pin_factory=MockFactory())
        self.sounds: list[str] = []
        self.when_played = self.sounds.append
        _BUZZERS.append(self)


_BUZZERS: list[TableBuzzer] = []


@pytest.fixture(autouse=True)
def _close_buzzers():
    yield
    while _BUZZERS:
        _BUZZERS.pop().close()


class MarkedDisplay(TableDisplay):
    """The real display; remembers the coin it was asked to show, draws a real face."""

    def __init__(self) -> None:
        super().__init__()
        self.coins: list[str] = []

    def coin(self, result: str) -> None:
        self.coins.append(result)
        super().coin("human")


def everything_on_disk(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.iterdir()) if p.is_file())


@pytest.fixture
def setup_table(tmp_path: Path):
    clock = FakeClock()
    store = Store(tmp_path, clock=clock)
    table = Table(store, clock=clock)
    table.start_game("outer_space", {"players": PLAYERS, "timer_seconds": 60})
    yield table, store, clock, tmp_path
    store.close()


def test_timer_runs_on_the_tables_stamps(setup_table) -> None:
    table, _, clock, _ = setup_table
    table.submit({"type": "timer_start"}, source="button")
    clock.t += 25
    state = table.public_state()["game"]["state"]
    assert state["timer"]["state"] == "running"
    assert state["timer"]["remaining"] == pytest.approx(35)
    assert state["timer"]["deadline"] == pytest.approx(clock.t + 35)
    table.submit({"type": "timer_pause"}, source="button")
    clock.t += 100
    assert table.public_state()["game"]["state"]["timer"]["remaining"] == pytest.approx(35)


def test_refusals_name_the_rule_and_store_nothing(setup_table) -> None:
    table, store, _, _ = setup_table
    seq = table.seq
    with pytest.raises(RuleError) as err:
        table.submit({"type": "partner", "player": "Ben"}, source="web")
    assert err.value.rule == "T4"
    assert table.seq == seq and store.last_seq(table.game_id) == seq


def test_undo_and_restart_give_back_the_same_game(setup_table) -> None:
    table, store, clock, tmp_path = setup_table
    for command in [
        {"type": "leader", "player": "Ann"},
        {"type": "partner", "player": "Ben"},
        {"type": "timer_start"},
        {"type": "next_phase"},
        {"type": "next_phase"},
        {"type": "next_phase"},
        {"type": "vote", "votes": {"Cal": 3, "Dee": 3}, "tie_break": "Dee"},
    ]:
        clock.t += 1
        table.submit(command, source="web")
    assert table.public_state()["game"]["state"]["leader"] == "Dee"
    table.submit({"type": "undo"}, source="web")
    state = table.public_state()["game"]["state"]
    assert state["leader"] == "Ann" and state["phase"] == "Bridge"
    before = table.public_state()
    store.close()
    again = Table(Store(tmp_path, clock=clock), clock=clock)
    assert again.public_state()["game"]["state"] == before["game"]["state"]
    again.store.close()


def test_coin_never_reaches_disk_events_or_logs(setup_table, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    table, store, clock, tmp_path = setup_table
    sub = table.subscribe()
    display = MarkedDisplay()
    buzzer = Buzzer()
    controller = OuterSpaceController(table, display, buzzer, clock, flip=lambda: MARKER, coin_seconds=5)
    table.submit({"type": "leader", "player": "Ann"}, source="web")
    table.submit({"type": "partner", "player": "Ben"}, source="web")
    controller.on_button("timer_toggle")
    for i in range(120):
        controller.on_button("coin")
        clock.t += 0.4 if i % 3 else 5.5
        controller.tick(clock.t)
        if i % 3:
            controller.on_button("coin")
        if i % 40 == 0:
            controller.on_button("next_phase")
    assert display.coins == [MARKER] * 120
    events = []
    while (event := sub.get(timeout=0)) is not None:
        events.append(event)
    assert events, "the table published the timer and phase commands"
    assert MARKER not in json.dumps([e.to_dict() for e in events])
    history = table.events.events_since(0) or []
    assert MARKER not in json.dumps([e.to_dict() for e in history])
    assert MARKER not in json.dumps(table.public_state())
    assert MARKER not in json.dumps(store.export_game(table.game_id))
    store.close()
    disk = everything_on_disk(tmp_path)
    assert b"timer_start" in disk and b"next_phase" in disk  # the search sees the log
    assert MARKER.encode() not in disk
    assert MARKER not in caplog.text
