"""One very long game must not grow the table without bound (issue 24,
finding 7): memory, per-command time, the snapshot and takebacks stay the
same size however long a game of They Came From Outer Space runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from hostile_support import PLAYERS, ROOT

from tablepi.bench.table import _missions
from tablepi.games.recorded import KEPT_COMMANDS, UNDO_STATES
from tablepi.store import Store, replay
from tablepi.table import Table


def test_bench_reports_flat_memory_and_latency_late_in_a_long_game():
    out = subprocess.run(
        [sys.executable, "-m", "tablepi", "bench", "table", "--commands", "10", "--long", "3000"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    rss = re.search(r"after 1000 commands, ([\d.]+) MB after 1500, ([\d.]+) MB after 3000", out)
    assert rss, out
    half, end = map(float, rss.groups())
    assert end - half < 6, out  # was about 4.5 MB per 1000 commands before
    late = re.search(r"last 1000: p50 ([\d.]+) ms, p99 ([\d.]+) ms", out)
    assert late and float(late.group(2)) < 100, out
    undo = re.search(r"slowest ([\d.]+) ms", out)
    assert undo and float(undo.group(1)) < 250, out
    snapshot = re.search(r"latest snapshot ([\d.]+) KB", out)
    assert snapshot and float(snapshot.group(1)) < 64, out


def test_a_long_game_keeps_a_bounded_past_and_takes_back_exactly(tmp_path):
    store = Store(tmp_path)
    table = Table(store, clock=lambda: 1000.0, snapshot_every=25)
    table.start_game("outer_space", {"players": PLAYERS}, source="cli")
    commands = _missions()
    for _ in range(900):
        table.submit(next(commands), "cli")
    game = table._game
    assert len(game._before) < 2 * UNDO_STATES and len(game._stack) < 2 * KEPT_COMMANDS
    assert game.depth == 900
    assert len(json.dumps(game.to_dict())) < 64 * 1024
    # Taking back further than the game remembers rebuilds from a snapshot,
    # and lands exactly where a replay of the log does.
    for _ in range(3 * KEPT_COMMANDS):
        table.submit({"type": "undo"}, "cli")
    record = store.game(table.game_id)
    replayed = replay(record.kind, record.settings, store.commands(table.game_id), store.initial_snapshot(1))
    assert table._game.public_view(0) == replayed.public_view(0)
    before = table.public_state()
    store.close()
    resumed = Table(Store(tmp_path), clock=lambda: 1000.0)
    assert resumed.public_state()["game"]["state"] == before["game"]["state"]
    resumed.store.close()


def test_a_long_game_s_history_comes_a_page_at_a_time(tmp_path):
    import os
    import random
    import tempfile

    from hostile_support import Table as Server

    # tmpfs when there is one: 1200 synced writes take seconds on a disk.
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else tmp_path
    with tempfile.TemporaryDirectory(prefix="tablepi-long-", dir=base) as folder:
        data = os.path.join(folder, "data")
        store = Store(data)
        game = store.create_game("beam_me_up", {"players": [{"name": "Ann", "board": "A"}]}, {})
        rng = random.Random(7)
        for seq in range(1, 1201):
            dice = [rng.randint(1, 6) for _ in range(5)]
            store.append(game, seq, {"type": "roll", "dice": dice, "at": 1000.0 + seq}, "web")
        store.end_game(game)
        store.close()
        with Server(Path(data)) as table:
            status, _, first = table.request("GET", f"/stats/game/{game}")
            assert status == 200 and len(first) < 64 * 1024, len(first)
            assert (
                b"page 1 of 12" in first and b'data-roll="100"' in first and b'data-roll="101"' not in first
            )
            status, _, last = table.request("GET", f"/stats/game/{game}?page=12")
            assert status == 200 and b'data-roll="1200"' in last and b'data-roll="1100"' not in last
            assert table.request("GET", f"/stats/game/{game}?page=13")[0] == 404
