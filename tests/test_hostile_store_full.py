"""A table that starts on a full disk: its games are whole, only the disk is not, so
nothing is set aside as damaged; it reads them, refuses every change with the
reason, and plays on once space is freed and it is started again."""

from __future__ import annotations

import resource
import signal

from hostile_support import Table, outer_space

from tablepi.store import DB_NAME


def test_a_full_disk_at_start_is_reported_not_taken_for_damage(tmp_path):
    data = tmp_path / "data"
    with Table(data) as table:  # made once with room to spare: PIN, key, database
        outer_space(table)
        for i in range(4):
            assert table.command({"type": "timer_start" if i % 2 == 0 else "timer_pause"})[0] == 200
        seq = table.json("GET", "/api/state")[1]["seq"]
    before = sorted(p.name for p in data.iterdir())

    def full_disk() -> None:
        # No file may grow at all: every write fails as on a full card.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))

    with Table(data, preexec=full_disk) as table:
        status, health = table.json("GET", "/healthz")
        assert status == 503 and "refused a write at start" in health["store"]["problem"], health
        status, state = table.json("GET", "/api/state")
        assert status == 200 and state["game"]["kind"] == "outer_space" and state["seq"] == seq
        status, reply = table.command({"type": "timer_start"})
        assert status == 503 and "refused a write" in reply["error"], reply
    assert not [p for p in data.iterdir() if ".corrupt-" in p.name]
    assert DB_NAME in before
    with Table(data) as table:  # space freed: the same games, and play goes on
        status, state = table.json("GET", "/api/state")
        assert state["seq"] == seq
        assert table.command({"type": "timer_start"})[0] == 200
