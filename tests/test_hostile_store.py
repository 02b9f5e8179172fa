"""What a table does when its data folder fails it: a disk that fills, a bad
row, a read-only folder, a folder deleted while running, an empty database
file (issue 24: findings 2, 8, 9, 10 and 12). Each runs a real `tablepi run
--simulate`: the table starts, says what is wrong on /healthz (and the OLED),
and never acknowledges a command it did not store."""

from __future__ import annotations

import io
import os
import resource
import shutil
import signal
import sqlite3
import stat
import time

import pytest
from hostile_support import PLAYERS, Table, outer_space
from PIL import Image
from waiting import until

from hardware.display import TableDisplay
from tablepi.store import DB_NAME, Store
from tablepi.table import Table as GameTable


def _health(table: Table) -> tuple[int, dict]:
    return table.json("GET", "/healthz")


def _wait_health(table: Table, ok: bool, timeout: float = 5.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        status, health = _health(table)
        if (status == 200) == ok or time.monotonic() > deadline:
            return health
        time.sleep(0.1)


def test_finding_2_a_disk_that_fills_shows_on_healthz(tmp_path):
    data = tmp_path / "data"
    with Table(data) as table:  # made once with room to spare: PIN, key, database
        outer_space(table)
    size = (data / DB_NAME).stat().st_size

    def small_disk() -> None:
        # Files may grow no further than this: writes fail as on a full card.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 64 * 1024, size + 64 * 1024))

    with Table(data, preexec=small_disk) as table:
        assert _health(table)[0] == 200
        statuses = []
        for i in range(200):
            status, reply = table.command({"type": "timer_start" if i % 2 == 0 else "timer_pause"})
            statuses.append(status)
            if status != 200:
                break
        assert statuses[-1] == 503, statuses[-5:]
        assert reply["rule"] == "store" and "could not be written" in reply["error"]
        status, health = _health(table)
        assert status == 503 and health["store"]["ok"] is False and health["store"]["problem"]
        # What was acknowledged is kept; what was refused is not.
        acknowledged = statuses.count(200)
        status, state = table.json("GET", "/api/state")
        assert state["seq"] == acknowledged
    store = Store(data)
    assert len(store.commands(1)) == acknowledged
    store.close()


def _game_with_commands(data, commands: int = 4) -> None:
    store = Store(data)
    table = GameTable(store)
    table.start_game("outer_space", {"players": PLAYERS})
    for i in range(commands):
        table.submit({"type": "timer_start" if i % 2 == 0 else "timer_pause"}, "cli")
    store.close()


def test_finding_8_an_unreadable_row_is_set_aside_and_the_table_starts(tmp_path):
    data = tmp_path / "data"
    _game_with_commands(data)
    conn = sqlite3.connect(data / DB_NAME)
    conn.execute('UPDATE commands SET command=\'{"type": "timer_st\' WHERE seq=2')
    conn.commit()
    conn.close()
    with Table(data) as table:
        status, health = _health(table)
        assert status == 200
        assert any("set aside" in p for p in health["problems"]), health
        assert table.printed("problem:", "set aside"), table.lines
        status, state = table.json("GET", "/api/state")
        assert state["game"] is None
        outer_space(table)  # a new game can be started
    store = Store(data)
    assert [g.status for g in store.games()] == ["abandoned", "playing"]
    store.close()


def _read_only(prefix_needed: bool) -> list[str]:
    # root ignores file modes; without these two capabilities it obeys them.
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if prefix_needed else []


def _oled(table: Table) -> bytes:
    status, _, png = table.request("GET", "/api/device/oled.png", pin=True)
    assert status == 200
    return Image.open(io.BytesIO(png)).convert("1").tobytes()


def test_finding_9_a_read_only_folder_answers_503_with_the_reason(tmp_path):
    data = tmp_path / "data"
    with Table(data) as table:
        outer_space(table)
    as_root = os.geteuid() == 0
    if as_root and shutil.which("setpriv") is None:
        pytest.fail("running as root needs setpriv (util-linux) to drop the right to ignore file modes")
    for path in [data, *data.iterdir()]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        with Table(data, prefix=_read_only(as_root)) as table:
            status, reply = table.command({"type": "leader", "player": "Ann"})
            assert status == 503 and "read-only" in reply["error"], reply
            status, health = _health(table)
            assert status == 503 and "read-only" in health["store"]["problem"]
            status, state = table.json("GET", "/api/state")
            assert status == 200 and state["game"]["kind"] == "outer_space" and state["seq"] == 0
            # A press whose command cannot be stored says so instead of 200.
            status, reply = table.json("POST", "/api/device/press", {"button": "A"}, pin=True)
            assert status == 503 and "read-only" in reply["error"], reply
            # The OLED says so too.
            error = TableDisplay()
            error.error("Games cannot be saved: see the web page")
            deadline = time.monotonic() + 5
            while _oled(table) != error.image.tobytes() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _oled(table) == error.image.tobytes()
            error.close()
    finally:
        for path in [data, *data.iterdir()]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def test_finding_10_a_deleted_data_folder_stops_commands(tmp_path):
    data = tmp_path / "data"
    with Table(data) as table:
        outer_space(table)
        assert table.command({"type": "leader", "player": "Ann"})[0] == 200
        shutil.rmtree(data)
        later = [{"type": "partner", "player": "Ben"}, {"type": "timer_start"}, {"type": "next_phase"}]
        for command in later:
            status, reply = table.command(command)
            assert status == 503 and "deleted" in reply["error"], reply
        status, health = _health(table)
        assert status == 503 and "deleted" in health["store"]["problem"]
        # A new, empty database in its place is not the one the table opened.
        data.mkdir()
        Store(data).close()
        status, reply = table.command({"type": "timer_start"})
        assert status == 503


def test_finding_12_an_empty_database_file_is_reported_and_kept(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / DB_NAME).write_bytes(b"")
    with Table(data) as table:
        status, health = _health(table)
        assert any("empty" in p for p in health["problems"]), health
        assert table.printed("problem:", "empty"), table.lines
        outer_space(table)
    aside = [p for p in data.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].stat().st_size == 0


def test_a_damaged_write_ahead_log_is_reported_and_kept(tmp_path):
    data = tmp_path / "data"
    with Table(data) as table:
        outer_space(table)
        for i in range(8):
            assert table.command({"type": "timer_start" if i % 2 == 0 else "timer_pause"})[0] == 200
        acknowledged = table.json("GET", "/api/state")[1]["seq"]
        table.proc.kill()  # a power cut: the commands are in the write-ahead log only
        table.proc.wait(5)
    wal = data / (DB_NAME + "-wal")
    damaged = bytearray(wal.read_bytes())
    middle = len(damaged) // 2
    damaged[middle : middle + 4] = bytes(b ^ 0xFF for b in damaged[middle : middle + 4])
    wal.write_bytes(damaged)
    with Table(data) as table:
        status, health = table.json("GET", "/healthz", pin=True)
        lost = [p for p in health["problems"] if "missing" in p]
        assert lost and "lost-" in lost[0], health
        assert table.printed("problem:", "missing"), table.lines
        seq = table.json("GET", "/api/state")[1]["seq"]
        assert seq < acknowledged  # SQLite did drop commits: the damage is real
        # The OLED says so until a button is pressed.
        notice = TableDisplay()
        notice.error("Saved games were lost: see the web page")
        deadline = time.monotonic() + 5
        while _oled(table) != notice.image.tobytes() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _oled(table) == notice.image.tobytes()
        assert table.json("POST", "/api/device/press", {"button": "A"}, pin=True)[0] == 200
        assert until(lambda: _oled(table) != notice.image.tobytes(), 5)
        notice.close()
    # A copy of the database and of its damaged log was kept before anything
    # wrote to them, so what SQLite dropped can still be dug out.
    copies = sorted(p.name for p in data.iterdir() if ".lost-" in p.name)
    assert len(copies) == 2 and copies[1].endswith("-wal"), copies
    assert (data / copies[1]).read_bytes() == bytes(damaged)
    # Reported once: the next start finds nothing missing.
    with Table(data) as table:
        status, health = table.json("GET", "/healthz", pin=True)
        assert not [p for p in health["problems"] if "missing" in p], health
