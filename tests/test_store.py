"""The store: durable settings, exact resume, export/import, bad files."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
import test_table_toy as toy

from tablepi.store import DB_NAME, Store, StoreError
from tablepi.table import Table


@pytest.fixture
def counter_kind(monkeypatch: pytest.MonkeyPatch) -> str:
    return toy.register(monkeypatch)


def test_wal_and_full_synchronous(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert store.pragma("journal_mode") == "wal"
    assert store.pragma("synchronous") == 2  # FULL
    store.close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # WAL persists in the file


def _play(table: Table, moves: list[int]) -> None:
    for n in moves:
        table.submit({"type": "add", "n": n}, "cli")


def test_resume_is_exact_across_snapshots_and_undo(tmp_path: Path, counter_kind: str) -> None:
    store = Store(tmp_path)
    table = Table(store, clock=lambda: 100.0, snapshot_every=4)
    table.start_game(counter_kind, {"players": 3, "target": 1000})
    _play(table, [1, 2, 3, 4, 5, 6, 1, 2, 3])
    table.submit({"type": "undo"}, "button")
    _play(table, [6])
    before = table.public_state()
    store.close()

    conn = sqlite3.connect(tmp_path / DB_NAME)
    snapshots = conn.execute("SELECT seq FROM snapshots ORDER BY seq").fetchall()
    conn.close()
    assert snapshots == [(0,), (4,), (8,)]  # the start and the latest few
    again = Table(Store(tmp_path), clock=lambda: 100.0, snapshot_every=4)
    assert again.public_state() == before
    assert again.public_state()["seq"] == 11
    # Undo reaching back past the latest snapshot (seq 8) still works.
    for _ in range(4):
        again.submit({"type": "undo"}, "web")
    assert again.public_state()["game"]["state"]["scores"] == [1 + 4, 2 + 5, 3]


def test_commands_keep_source_manual_and_stamp(tmp_path: Path, counter_kind: str) -> None:
    store = Store(tmp_path)
    table = Table(store, clock=lambda: 42.5)
    table.start_game(counter_kind, {"players": 2})
    table.submit({"type": "add", "n": 2, "manual": True}, "web")
    table.submit({"type": "add", "n": 3}, "camera")
    logged = store.commands(table.game_id)
    assert [(c.seq, c.source, c.manual) for c in logged] == [(1, "web", True), (2, "camera", False)]
    assert logged[0].command == {"type": "add", "n": 2, "manual": True, "at": 42.5}
    assert table.public_state()["game"]["last"]["source"] == "camera"


def test_finished_and_abandoned_games_stay_in_history(tmp_path: Path, counter_kind: str) -> None:
    store = Store(tmp_path)
    table = Table(store)
    table.start_game(counter_kind, {"players": 1, "target": 5})
    _play(table, [6])
    assert table.public_state()["game"]["finished"] is True
    table.start_game(counter_kind, {"players": 2})
    _play(table, [1])
    table.submit({"type": "end_game"}, "web")
    assert [(g.id, g.status, g.commands) for g in store.games()] == [(1, "finished", 1), (2, "abandoned", 1)]
    assert Table(Store(tmp_path)).public_state() == {"seq": 0, "game": None}


def test_export_import_round_trip(tmp_path: Path, counter_kind: str) -> None:
    store = Store(tmp_path / "a")
    table = Table(store)
    table.start_game(counter_kind, {"players": 2, "target": 50})
    _play(table, [3, 4, 5])
    table.submit({"type": "undo"}, "web")
    exported = store.export_game(table.game_id)
    assert exported["final_state"]["scores"] == [3, 4]
    text = json.dumps(exported)

    other = Store(tmp_path / "b")
    new_id = other.import_game(json.loads(text))
    again = other.export_game(new_id)
    for key in ("kind", "settings", "commands", "final_state", "initial_state"):
        assert again[key] == exported[key]
    assert other.game(new_id).status == "imported"
    assert other.current_game_id() is None


@pytest.mark.parametrize(
    "spoil, message",
    [
        (lambda d: d.update(format="zip"), "not a TablePi game file"),
        (lambda d: d.update(kind="chess"), "unknown game kind"),
        (lambda d: d["commands"][1]["command"].update(n=9), r"command 2 \(add\) is not legal"),
        (lambda d: d["commands"].pop(0), "numbered"),
        (lambda d: d["final_state"].update(scores=[9, 9]), "do not replay"),
        (lambda d: d.update(commands="many"), "must be a list"),
    ],
)
def test_bad_import_is_refused_and_changes_nothing(tmp_path: Path, counter_kind: str, spoil, message) -> None:
    store = Store(tmp_path)
    table = Table(store)
    table.start_game(counter_kind, {"players": 2})
    _play(table, [1, 2, 3])
    data = store.export_game(table.game_id)
    spoil(data)
    before = [g.to_dict() for g in store.games()]
    with pytest.raises(StoreError, match=message):
        store.import_game(data)
    assert [g.to_dict() for g in store.games()] == before


def test_corrupt_database_is_kept_aside_and_a_new_one_started(tmp_path: Path, counter_kind: str) -> None:
    (tmp_path / DB_NAME).write_bytes(b"this is not a database" * 100)
    (tmp_path / (DB_NAME + "-wal")).write_bytes(b"junk")
    store = Store(tmp_path)
    assert store.problem and "kept as" in store.problem
    assert store.moved_aside is not None and store.moved_aside.exists()
    assert store.moved_aside.read_bytes().startswith(b"this is not a database")
    assert Path(str(store.moved_aside) + "-wal").exists()
    table = Table(store)
    table.start_game(counter_kind, {"players": 2})
    _play(table, [1])
    assert store.games()[0].commands == 1


def test_truncated_database_is_kept_aside(tmp_path: Path, counter_kind: str) -> None:
    store = Store(tmp_path)
    table = Table(store)
    table.start_game(counter_kind, {"players": 2, "target": 10_000})
    _play(table, list(range(1, 7)) * 20)
    store.close()
    path = tmp_path / DB_NAME
    for side in ("-wal", "-shm"):
        if Path(str(path) + side).exists():
            os.remove(str(path) + side)
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\xff" * 200 + data[300:])
    store = Store(tmp_path)
    assert store.problem is not None
    assert store.games() == []
    assert len([p for p in tmp_path.iterdir() if ".corrupt-" in p.name]) == 1


def test_unreadable_database_is_kept_aside(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root reads any file; make the file unreadable another way: a directory.
        (tmp_path / DB_NAME).mkdir()
    else:
        (tmp_path / DB_NAME).write_bytes(b"")
        os.chmod(tmp_path / DB_NAME, 0)
    store = Store(tmp_path)
    assert store.problem is not None and store.moved_aside is not None
    assert store.pragma("journal_mode") == "wal"
