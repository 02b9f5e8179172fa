"""The hub: validation, durable commit before acknowledgement, events."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import test_table_toy as toy

from tablepi.games.errors import RuleError
from tablepi.store import Store
from tablepi.table import CommandError, Table


@pytest.fixture
def counter_kind(monkeypatch: pytest.MonkeyPatch) -> str:
    return toy.register(monkeypatch)


@pytest.fixture
def table(tmp_path: Path, counter_kind: str) -> Table:
    t = Table(Store(tmp_path), clock=lambda: 7.0)
    t.start_game(counter_kind, {"players": 2, "target": 10**9})
    return t


def test_public_state_shape(table: Table) -> None:
    state = table.submit({"type": "add", "n": 4}, "button")
    assert state == {
        "seq": 1,
        "game": {
            "id": 1,
            "kind": "counter",
            "finished": False,
            "state": {"scores": [4, 0], "turn": 1, "target": 10**9},
            "last": {"seq": 1, "type": "add", "source": "button", "manual": False, "at": 7.0},
            "last_roll": None,
            "undo": {"seq": 1, "type": "add", "source": "button", "manual": False},
            "refused_reading": None,
        },
    }


def test_undo_says_what_it_took_back_and_only_what_was_meant(table: Table) -> None:
    table.submit({"type": "add", "n": 4}, "button")
    table.submit({"type": "add", "n": 2}, "web")
    state = table.submit({"type": "undo", "seq": 2}, "web")
    assert state["game"]["last"]["undid"] == {"seq": 2, "type": "add", "source": "web", "manual": False}
    assert state["game"]["undo"]["seq"] == 1
    before = table.public_state()
    # A second correction of the same command must not take back the one before it.
    with pytest.raises(CommandError, match="taken back already"):
        table.submit({"type": "undo", "seq": 2}, "web")
    assert table.public_state() == before
    table.submit({"type": "undo"}, "web")
    assert table.public_state()["game"]["undo"] is None  # nothing left to undo
    again = Table(table.store, clock=table.clock)  # a restart says the same
    assert again.public_state() == table.public_state()


def test_illegal_command_changes_and_stores_nothing(table: Table) -> None:
    table.submit({"type": "add", "n": 1}, "web")
    before = table.public_state()
    with pytest.raises(RuleError) as info:
        table.submit({"type": "add", "n": 7}, "web")
    assert info.value.rule == "n"
    assert table.public_state() == before
    assert table.store.last_seq(table.game_id) == 1


@pytest.mark.parametrize(
    "command, source, message",
    [
        ("roll", "web", "JSON object"),
        ({}, "web", 'no "type"'),
        ({"type": "add", "n": 1}, "telepathy", "unknown source"),
        ({"type": "add", "n": 1, "manual": "yes"}, "web", "manual"),
        ({"type": "new_game", "kind": "chess"}, "web", "unknown game"),
        ({"type": "new_game", "kind": "counter", "settings": []}, "web", "settings"),
        ({"type": "add", "n": 1, "coin": "alien"}, "web", "secret information is never recorded"),
    ],
)
def test_malformed_commands(table: Table, command, source, message) -> None:
    before = table.public_state()
    with pytest.raises(CommandError, match=message) as info:
        table.submit(command, source)
    assert info.value.to_dict()["rule"] == "command"
    assert table.public_state() == before


def test_no_game_and_nothing_to_undo(tmp_path: Path, counter_kind: str) -> None:
    t = Table(Store(tmp_path))
    with pytest.raises(CommandError, match="no game"):
        t.submit({"type": "add", "n": 1}, "web")
    with pytest.raises(CommandError, match="no game"):
        t.submit({"type": "end_game"}, "web")
    t.start_game(counter_kind, {})
    with pytest.raises(CommandError, match="nothing to take back"):
        t.submit({"type": "undo"}, "web")
    assert t.store.last_seq(t.game_id) == 0


def test_failed_commit_is_not_accepted(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    table.submit({"type": "add", "n": 2}, "web")
    before = table.public_state()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(table.store, "append", broken)
    with pytest.raises(OSError):
        table.submit({"type": "add", "n": 3}, "web")
    with pytest.raises(OSError):
        table.submit({"type": "undo"}, "web")
    assert table.public_state() == before


def test_state_event_after_each_command(table: Table) -> None:
    sub = table.subscribe()
    state = table.submit({"type": "add", "n": 5}, "web")
    event = sub.get(1)
    assert event.type == "state" and event.data == state
    assert table.events_since(event.id - 1)[-1] == event


def test_concurrent_submits_are_serialised(table: Table) -> None:
    errors: list[BaseException] = []

    def worker(source: str) -> None:
        try:
            for _ in range(25):
                table.submit({"type": "add", "n": 1}, source)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s,)) for s in ("web", "button", "camera", "cli")]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert sum(table.public_state()["game"]["state"]["scores"]) == 100
    assert [c.seq for c in table.store.commands(table.game_id)] == list(range(1, 101))


def _time_commands(table: Table, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        table.submit({"type": "add", "n": 1}, "web")
    return time.perf_counter() - start


def test_stalled_subscriber_does_not_slow_the_table(tmp_path: Path, counter_kind: str) -> None:
    plain = Table(Store(tmp_path / "a"))
    plain.start_game(counter_kind, {"target": 10**9})
    baseline = _time_commands(plain, 1000)

    stalled = Table(Store(tmp_path / "b"))
    stalled.start_game(counter_kind, {"target": 10**9})
    sub = stalled.subscribe(maxsize=10)  # a phone that never reads
    reader = stalled.subscribe()
    elapsed = _time_commands(stalled, 1000)
    assert elapsed < 2 * baseline + 0.5, (elapsed, baseline)
    assert sub.get(0).type == "missed"
    assert reader.pending() == 1000


def test_a_roll_entered_by_hand_stays_marked_while_in_play(tmp_path: Path) -> None:
    t = Table(Store(tmp_path), clock=lambda: 5.0)
    t.start_game("beam_me_up", {"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": False})
    t.submit({"type": "roll", "dice": [1, 2, 3, 4, 6]}, "camera")
    t.submit({"type": "roll", "dice": [1, 1, 3, 4, 6], "kept": [1], "manual": True}, "web")
    state = t.submit({"type": "choose", "option": 0}, "button")
    assert state["game"]["last"]["type"] == "choose"
    expected = {"seq": 2, "type": "roll", "source": "web", "manual": True, "at": 5.0}
    assert state["game"]["last_roll"] == expected
    assert Table(t.store).public_state() == t.public_state()  # the same after a restart
    t.submit({"type": "undo"}, "web")
    t.submit({"type": "undo"}, "web")
    assert t.public_state()["game"]["last_roll"]["source"] == "camera"
