"""Pulling the plug: a real `tablepi run --simulate` is killed with SIGKILL at
random moments while a scripted Beam Me Up game is played through its HTTP
API. After every kill, each acknowledged command is in the log, nothing else
is half there, and the state equals a clean replay of the log."""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tablepi.games.beam_me_up.game import BeamMeUp
from tablepi.games.beam_me_up.randomplay import random_command
from tablepi.store import Store, replay

ROOT = Path(__file__).resolve().parent.parent
TABLEPI = [sys.executable, "-m", "tablepi"]
KILLS = 50
SEED = 20261121
SETTINGS = {"players": [{"name": "Ann", "board": "A"}, {"name": "Ben", "board": "B"}, {"name": "Sam"}]}


def _script(rng: random.Random, length: int) -> tuple[list[dict], list[tuple[int, int, int]]]:
    """Commands to send, and after each prefix the expected (game, seq, index
    of that game's new_game command); ``_view`` gives the expected state.

    Games follow one another (a finished game is followed by a new one), and
    a few commands are takebacks or rolls entered by hand."""
    commands: list[dict] = []
    expected: list[tuple[int, int, int]] = [(0, 0, 0)]
    game_no = 0
    game = None
    seq = 0
    start = 0
    while len(commands) < length:
        if game is None or game.finished:
            game = BeamMeUp.from_settings(SETTINGS)
            game_no += 1
            seq = 0
            start = len(commands)
            command = {"type": "new_game", "kind": "beam_me_up", "settings": SETTINGS}
        elif seq > 0 and game.commands and rng.random() < 0.05:
            game.pop()
            command = {"type": "undo"}
            seq += 1
        else:
            command = random_command(game, rng)
            game.push(command)
            if command["type"] == "roll" and rng.random() < 0.2:
                command = {**command, "manual": True}
            seq += 1
        commands.append(command)
        expected.append((game_no, seq, start))
    return commands, expected


def _view(commands: list[dict], expected: list[tuple[int, int, int]], i: int) -> dict:
    """The public view of the game after the first ``i`` commands, replayed
    on its own (no table, no store)."""
    start = expected[i][2]
    game = BeamMeUp.from_settings(SETTINGS)
    for command in commands[start + 1 : i]:
        if command["type"] == "undo":
            game.pop()
        else:
            game.push({k: v for k, v in command.items() if k != "manual"})
    return game.public_view()


class Client:
    def __init__(self, port: int, pin: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        self.pin = pin

    def post(self, command: dict) -> tuple[int, dict]:
        body = json.dumps(command)
        self.conn.request(
            "POST", "/api/commands", body, {"Content-Type": "application/json", "X-Table-Pin": self.pin}
        )
        response = self.conn.getresponse()
        return response.status, json.loads(response.read())

    def get(self, path: str) -> tuple[int, dict]:
        self.conn.request("GET", path)
        response = self.conn.getresponse()
        return response.status, json.loads(response.read())


def _start(data_dir: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [*TABLEPI, "run", "--simulate", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data_dir)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _port(proc: subprocess.Popen) -> int | None:
    """The port from the service's first line; None if it died first."""
    line = proc.stdout.readline()
    if not line:
        return None
    assert "127.0.0.1:" in line, line
    return int(line.split("127.0.0.1:")[1].split("/")[0])


def _check_log(data_dir: Path, commands: list[dict], expected: list, pos: int) -> int:
    """The log after a kill holds the first ``pos`` commands, or one more
    (committed, not yet acknowledged); returns which, after checking that a
    clean replay of the log gives the expected state."""
    store = Store(data_dir)
    try:
        assert store.problem is None, store.problem
        games = store.games()
        if not games:
            assert pos == 0
            return 0
        last = games[-1]
        logged = store.commands(last.id)
        found = None
        for i in (pos, pos + 1):
            if i < len(expected) and expected[i][:2] == (last.id, len(logged)):
                found = i
        assert found is not None, (pos, last.id, len(logged), expected[pos][:2])
        # The log's commands are exactly what was sent, stamped.
        start = found - len(logged)
        for entry, sent in zip(logged, commands[start:found], strict=True):
            stamped = dict(entry.command)
            assert isinstance(stamped.pop("at"), float)
            assert stamped == sent
            assert entry.manual == bool(sent.get("manual"))
            assert entry.source == "web"
        game = replay(last.kind, last.settings, logged, store.initial_snapshot(last.id))
        assert game.public_view() == _view(commands, expected, found)
        return found
    finally:
        store.close()


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    commands, expected = _script(rng, 6000)
    data_dir = tmp_path / "data"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), PYTHONUNBUFFERED="1")
    pos = 0  # commands acknowledged so far
    pin = None
    kills_during_startup = 0
    started = time.monotonic()
    cycles: list[int] = []
    for _ in range(KILLS):
        cycles.append(pos)
        if data_dir.exists():
            pos = _check_log(data_dir, commands, expected, pos)
        proc = _start(data_dir, env)
        early = rng.random() < 0.1
        delay = rng.uniform(0.0, 0.4) if early else None
        killer = None
        try:
            if early:
                killer = threading.Timer(delay, proc.send_signal, args=(signal.SIGKILL,))
                killer.start()
            port = _port(proc)
            if port is None:
                kills_during_startup += 1
                continue
            pin = pin or (data_dir / "pin").read_text().strip()
            client = Client(port, pin)
            status, state = client.get("/api/state")
            assert status == 200
            # After the restart the table is exactly where the log left it.
            game = state["game"]
            if pos > 0:
                assert (game["id"], state["seq"]) == expected[pos][:2]
                assert game["state"] == _view(commands, expected, pos)
            if not early:
                killer = threading.Timer(rng.uniform(0.02, 0.5), proc.send_signal, args=(signal.SIGKILL,))
                killer.start()
            while pos < len(commands):
                try:
                    status, answer = client.post(commands[pos])
                except (OSError, http.client.HTTPException):
                    break  # the plug was pulled mid-request: not acknowledged
                assert status == 200, (pos, commands[pos], answer)
                pos += 1
                assert (answer["game"]["id"], answer["seq"]) == expected[pos][:2]
        finally:
            if killer is not None:
                killer.join()
            proc.kill()
            proc.wait(timeout=10)
            proc.stdout.close()
        assert pos < len(commands), f"the script ran out before the last kill: {cycles}"
    pos = _check_log(data_dir, commands, expected, pos)
    elapsed = time.monotonic() - started
    print(f"{KILLS} kills ({kills_during_startup} in start-up), {pos} commands acknowledged, {elapsed:.1f} s")
    assert pos > KILLS  # the game did move on between the kills
