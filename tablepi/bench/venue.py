"""`tablepi bench venue`: thirty tables, one broker, one board.

The bench starts its own Mosquitto on a free loopback port (never the
system's broker), a real `tablepi venue` board process, and thirty simulated
tables in two worker processes. Each simulated table is a real ``Table``
(rules, durable store, events) with a real ``Publisher``: what it publishes
is exactly what a table publishes. The data folders are on /dev/shm where
there is one: thirty tables sharing one disk's fsyncs would measure the disk,
while each real table has its own SD card.

Each table plays five commands a second (Beam Me Up at random, Outer Space's
timer, Space Beans' collections). The bench reads the board's own event
stream (what the page reads) and takes the delay from each command's stamp
(``last.at`` in the state, the table's clock at the command) to the moment
the board's stream carried it: p99 target <= 250 ms. The board's memory
(RSS) target is under 150 MB.

Then a table's command latency (validate, commit, apply, publish) without a
venue, and with a venue whose broker cannot be reached: refused, and a
broker that takes the connection and never answers. Target: unchanged
within noise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tablepi.bench import row
from tablepi.cli import say
from tablepi.i18n import N_

TARGET_P99_MS = 250.0
TARGET_MEMORY_MB = 150.0
PLAYER_NAMES = (
    "Ann Ben Cat Dan Eve Fay Gus Hal Ivy Jon Kim Lea Max Nia Oli Pia Raj Sue Tom Uma Vic Wes Yan Zoe "
    "Ada Bo Cy Dee Eli Flo Gil Hana Ike Jo Kai Liv Mo Ned Ola Pat Quin Rey Sam Tia Ugo Val Wyn Xia Yul Zed"
).split()
BEANS = ("Klingbohns", "Dark Beans", "Beanliens", "Centauribohnen", "Bohrion", "Moonbohnen", "Bluebeans")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=30, help=N_("simulated tables (default 30)"))
    parser.add_argument("--rate", type=float, default=5.0, help=N_("commands a second per table (default 5)"))
    parser.add_argument("--seconds", type=float, default=20.0, help=N_("length of the run (default 20)"))
    parser.add_argument("--workers", type=int, default=2, help=N_("processes the tables run in (default 2)"))
    parser.add_argument(
        "--latency-commands",
        type=int,
        default=300,
        help=N_("commands per case for the command latency (0: skip)"),
    )


# -- the broker ----------------------------------------------------------------------


def mosquitto_binary() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return "/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """`mosquitto -c CONFIG` on 127.0.0.1:port with a temporary config and no
    persistence (a restart loses every retained message)."""

    def __init__(self, folder: Path, port: int | None = None, binary: str | None = None) -> None:
        found = binary or mosquitto_binary()
        if not found:
            raise RuntimeError("mosquitto is not installed (Debian: apt install mosquitto)")
        self.binary = found
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.config = self.folder / "mosquitto.conf"
        self.log_path = self.folder / "mosquitto.log"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "persistence false\n"
            "max_queued_messages 10000\n"
            "log_dest stderr\n"
            "log_type error\n"
            "log_type warning\n"
        )
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 10.0) -> Broker:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [self.binary, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited with {self.proc.returncode}:\n{self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"mosquitto did not listen on port {self.port}:\n{self.output()}")

    def output(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def kill(self) -> None:
        """Gone at once, as a broker whose machine lost power."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=5)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


# -- simulated tables ---------------------------------------------------------------------


def venue_settings(port: int, table: str, name: str = "", broker: str = "127.0.0.1", **extra: Any) -> Any:
    from tablepi.config import from_dict

    section = {"broker": broker, "port": port, "table": table, "name": name or table, "reconnect_max": 1}
    section.update(extra)
    return from_dict({"venue": section}).venue


def fast_folder() -> str | None:
    """/dev/shm when there is one (see the module docstring), else the default temporary folder."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


class SimTable:
    """A real Table on its own store with a real Publisher, in this process."""

    KINDS = ("beam_me_up", "outer_space", "space_beans")

    def __init__(self, folder: Path, port: int | None, index: int, name: str = "", seed: int = 1) -> None:
        from tablepi.store import Store
        from tablepi.table import Table
        from tablepi.venue import Publisher

        self.index = index
        self.id = f"table-{index + 1}"
        self.name = name or f"Table {index + 1}"
        self.store = Store(Path(folder) / self.id)
        # The table's clock, which a picture's scene may set back (a timer started a while ago).
        self.offset = 0.0
        self.table = Table(self.store, clock=lambda: time.time() + self.offset)
        self.rng = random.Random(seed * 1000 + index)
        self.publisher = None
        if port is not None:
            self.publisher = Publisher(venue_settings(port, self.id, self.name), self.table)
            self.publisher.start()
        self.kind = self.KINDS[index % 3]
        self.shadow: Any = None
        self.sent = 0
        self.refused = 0
        self._flip = 0

    def players(self, count: int) -> list[str]:
        names = list(PLAYER_NAMES)
        self.rng.shuffle(names)
        return names[:count]

    def new_game(self, kind: str | None = None, players: int | None = None, **settings: Any) -> None:
        kind = kind or self.kind
        self.kind = kind
        if kind == "beam_me_up":
            from tablepi.games.beam_me_up.game import BeamMeUp

            names = self.players(players or 2 + self.index % 3)
            seats = [{"name": n, "board": "ABCD"[i % 4]} for i, n in enumerate(names)]
            self.table.start_game(kind, {"players": seats, **settings}, source="cli")
            self.shadow = BeamMeUp.from_settings({"players": seats, **settings})
        elif kind == "outer_space":
            names = self.players(players or 6 + self.index % 5)
            self.table.start_game(kind, {"players": names, **settings}, source="cli")
            self.table.submit({"type": "leader", "player": names[0]}, "cli")
        else:
            self.table.start_game(
                kind, {"players": self.players(players or 2 + self.index % 4)}, source="cli"
            )
        self._flip = 0

    def play(self) -> None:
        """One legal command of the table's game (a new game when one ends)."""
        from tablepi.games.errors import RuleError
        from tablepi.table import CommandError

        game = self.table.public_state().get("game")
        if game is None or game.get("finished"):
            self.new_game()
            return
        if self.kind == "beam_me_up":
            from tablepi.games.beam_me_up.randomplay import random_command

            command = random_command(self.shadow, self.rng)
            self.shadow.push(command)
        elif self.kind == "outer_space":
            self._flip += 1
            command = {"type": "timer_start" if self._flip % 2 else "timer_pause"}
        else:
            state = game["state"]
            self._flip += 1
            if self._flip % 2:
                active = state["active"] or 0
                bean = BEANS[(active + self._flip // 2) % len(BEANS)]
                command = {"type": "add", "player": active, "collection": "open", "bean": bean, "cards": [9]}
            else:
                command = {"type": "undo"}
        try:
            self.table.submit(command, "cli")
            self.sent += 1
        except (RuleError, CommandError):
            self.refused += 1
            if self.kind == "beam_me_up" or self.kind == "space_beans":
                self.new_game()

    def close(self) -> None:
        if self.publisher is not None:
            self.publisher.close()
        self.store.close()


def scene(sim: SimTable, rng: random.Random, moment: str = "") -> None:
    """An interesting moment of a game, for the board's picture. ``moment``:
    "" (some way into the game), "warning" (Outer Space, seconds left on the
    timer), "won" (Outer Space, over), "idle" (no game)."""
    if moment == "idle":
        return
    kind = "outer_space" if moment in ("warning", "won") else sim.kind
    if kind == "beam_me_up":
        sim.new_game()
        target = rng.randrange(0, 4)  # counters in space for the one ahead
        for _ in range(600):
            sim.play()
            state = sim.table.public_state()["game"]
            if state["finished"] or max(p["in_space"] for p in state["state"]["players"]) >= target:
                break
    elif kind == "outer_space":
        sim.new_game("outer_space", timer_seconds=rng.choice([60, 90, 120]))
        state = sim.table.public_state()["game"]["state"]
        sim.table.submit({"type": "partner", "player": state["partner_choices"][0]}, "cli")
        for _ in range(rng.randrange(0, 3)):
            sim.table.submit({"type": "next_phase"}, "cli")
        if moment == "won":
            sim.table.submit({"type": "result", "winner": rng.choice(["humans", "aliens"])}, "cli")
        elif moment == "warning":
            duration = sim.table.public_state()["game"]["state"]["timer"]["duration"]
            sim.offset = -(duration - rng.uniform(6, 9))  # started that long ago
            sim.table.submit({"type": "timer_start"}, "cli")
            sim.offset = 0.0
        elif rng.random() < 0.7:
            sim.offset = -rng.uniform(0, 40)
            sim.table.submit({"type": "timer_start"}, "cli")
            sim.offset = 0.0
    else:
        sim.new_game()
        state = sim.table.public_state()["game"]["state"]
        players = len(state["players"])
        beans = list(BEANS)
        rng.shuffle(beans)
        # Round one: an open collection each; round two: some close out for a trophy.
        for i in range(players):
            size = rng.choice([2, 3])
            cards = rng.sample(range(4, 10), size - 1) + [size]
            add = {"type": "add", "player": i, "collection": "open", "bean": beans[i], "cards": cards}
            sim.table.submit(add, "cli")
            sim.table.submit({"type": "end_turn"}, "cli")
        for i in range(players - rng.randrange(0, players)):
            closed = rng.random() < 0.7
            if closed:
                sim.table.submit({"type": "close_out", "player": i}, "cli")
            bean = beans[(i + players) % len(beans)] if closed else beans[i]
            add = {
                "type": "add",
                "player": i,
                "collection": "open",
                "bean": bean,
                "cards": [rng.randrange(4, 10)],
            }
            sim.table.submit(add, "cli")
            sim.table.submit({"type": "end_turn"}, "cli")


PICTURE_MOMENTS = {4: "warning", 11: "won", 17: "idle", 22: "warning"}
PICTURE_OFFLINE = (26,)


def picture_tables(folder: Path, port: int, count: int = 30, seed: int = 7) -> list[SimTable]:
    """``count`` tables in varied moments of their games, one of them gone
    offline, as the board's picture shows them."""
    rng = random.Random(seed)
    tables = [SimTable(folder, port, i, seed=seed) for i in range(count)]
    # The timers about to ring are set last, so that they are still ringing when the picture is taken.
    for i in sorted(range(count), key=lambda i: PICTURE_MOMENTS.get(i) == "warning"):
        scene(tables[i], rng, PICTURE_MOMENTS.get(i, ""))
    for i in PICTURE_OFFLINE:
        if i < count:
            tables[i].close()  # says "offline" on its way out
    return tables


# -- the workers (each runs some of the tables) -----------------------------------------------


def worker(
    port: int, first: int, count: int, rate: float, seconds: float, start_at: float, folder: str
) -> None:
    tables = [SimTable(Path(folder), port, i) for i in range(first, first + count)]
    for sim in tables:
        sim.new_game()
    deadline = time.monotonic() + 20
    while any(s.publisher.state != "online" for s in tables) and time.monotonic() < deadline:
        time.sleep(0.05)
    print(json.dumps({"ready": True}), flush=True)
    # Wait for the common start (wall clock: every worker shares it).
    time.sleep(max(0.0, start_at - time.time()))
    period = 1.0 / rate
    begin = time.monotonic()
    # Each table on its own schedule, spread over the period.
    due = [begin + period * (k / count) for k in range(count)]
    end = begin + seconds
    late = 0.0
    while True:
        k = min(range(count), key=due.__getitem__)
        when = due[k]
        if when >= end:
            break
        pause = when - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        else:
            late = max(late, -pause)
        tables[k].play()
        due[k] = when + period
    time.sleep(1.0)  # the last messages leave
    result = {
        "sent": sum(s.sent for s in tables),
        "refused": sum(s.refused for s in tables),
        "last": {s.id: s.table.seq for s in tables},
        "games": {s.id: s.table.game_id for s in tables},
        "late_ms": round(late * 1000, 1),
        "superseded": sum(s.publisher.health()["superseded"] for s in tables),
    }
    for sim in tables:
        sim.close()
    print(json.dumps(result), flush=True)


# -- the board's stream, read in this process ---------------------------------------------------


class BoardStream:
    """Reads the board's /api/events and notes, for each table, when each
    command (by its seq) first showed, against the command's own stamp."""

    def __init__(self, port: int) -> None:
        self.delays: list[float] = []
        self.shown: dict[str, tuple[Any, Any]] = {}  # table -> (game seq, last.at)
        self.messages = 0
        self.errors: list[str] = []
        self.counting = False
        self._stop = threading.Event()
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        self.sock.settimeout(0.5)
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        buf = bytearray()
        headers = False
        while not self._stop.is_set():
            try:
                chunk = self.sock.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError as exc:
                self.errors.append(str(exc))
                return
            if not chunk:
                self.errors.append("the board closed the stream")
                return
            now = time.time()
            buf += chunk
            if not headers:
                end = buf.find(b"\r\n\r\n")
                if end < 0:
                    continue
                del buf[: end + 4]
                headers = True
            while (end := buf.find(b"\n\n")) >= 0:
                self._message(bytes(buf[:end]), now)
                del buf[: end + 2]

    def _message(self, raw: bytes, now: float) -> None:
        for line in raw.split(b"\n"):
            line = line.strip(b"\r")
            if line.startswith(b"data: "):
                break
        else:
            return
        try:
            data = json.loads(line[6:])
        except ValueError:
            return  # a chunk-size line of the transfer encoding
        self.messages += 1
        for card in data.get("tables", []):
            game = card.get("game") or {}
            last = game.get("last") or {}
            key = (game.get("seq"), last.get("at"))
            if self.shown.get(card["table"]) == key:
                continue
            self.shown[card["table"]] = key
            if self.counting and isinstance(last.get("at"), int | float):
                self.delays.append((now - last["at"]) * 1000)

    def close(self) -> None:
        self._stop.set()
        self.thread.join(5)
        self.sock.close()


# -- figures -----------------------------------------------------------------------------------------


def _percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def _memory_mb(pid: int, field: str) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def command_latency(commands: int, folder: str | None) -> dict[str, list[float]]:
    """Milliseconds per command for one table with no venue, with a venue whose
    broker refuses connections, and with one that takes the connection and never
    answers; the cases take turns in rounds, so that drift in the machine's load
    falls on all of them alike."""
    refused_port = free_port()  # nothing listens there
    silent = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)  # the kernel completes the handshake; nobody ever answers
    cases = {
        N_("no venue"): None,
        N_("broker refused"): refused_port,
        N_("broker silent"): silent.getsockname()[1],
    }
    results: dict[str, list[float]] = {name: [] for name in cases}
    rounds = 6
    per_round = max(1, commands // rounds)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        for r in range(rounds):
            for name, port in cases.items():
                sim = SimTable(Path(tmp) / f"{r}-{name.replace(' ', '-')}", port, 1, seed=r)
                sim.new_game("outer_space")
                time.sleep(0.3)  # the publisher has tried to connect and is waiting to try again
                for i in range(per_round):
                    command = {"type": "timer_start" if i % 2 == 0 else "timer_pause"}
                    t0 = time.perf_counter()
                    sim.table.submit(command, "cli")
                    results[name].append((time.perf_counter() - t0) * 1000)
                    time.sleep(0.002)
                if sim.publisher is not None:
                    state = sim.publisher.state
                    assert state != "online", f"{name}: the publisher reached a broker ({state})"
                sim.close()
    silent.close()
    return results


def run(args: argparse.Namespace) -> int:
    count, rate, seconds = int(args.tables), float(args.rate), float(args.seconds)
    workers = max(1, min(int(args.workers), count))
    if count < 1 or rate <= 0 or seconds <= 0:
        print(say(N_("tables, rate and seconds must be positive")), file=sys.stderr)
        return 2
    if mosquitto_binary() is None:
        print(say(N_("mosquitto is not installed (Debian: apt install mosquitto)")), file=sys.stderr)
        return 1
    folder = fast_folder()
    root = Path(__file__).resolve().parents[2]
    procs: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="tablepi-venue-bench-", dir=folder) as tmp:
        broker = Broker(Path(tmp) / "broker").start()
        board_port = free_port()
        board_log = (Path(tmp) / "board.log").open("wb")
        board = subprocess.Popen(
            [sys.executable, "-m", "tablepi", "venue", "--broker", "127.0.0.1", "--port", str(broker.port)]
            + ["--web-host", "127.0.0.1", "--web-port", str(board_port), "--log-level", "WARNING"],
            stdout=board_log,
            stderr=subprocess.STDOUT,
            cwd=root,
        )
        procs.append(board)
        stream = None
        try:
            _wait_http(board_port, 30)
            stream = BoardStream(board_port)
            start_at = time.time() + 8.0
            share = [count // workers + (1 if w < count % workers else 0) for w in range(workers)]
            first = 0
            for w in range(workers):
                cmd = [sys.executable, "-m", "tablepi.bench.venue", "worker", str(broker.port)]
                cmd += [str(first), str(share[w]), str(rate), str(seconds), repr(start_at), tmp]
                procs.append(
                    subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root, text=True)
                )
                first += share[w]
            # Count from the common start on: the board's first look at each table is not a command.
            time.sleep(max(0.0, start_at - time.time()))
            stream.counting = True
            results = []
            for proc in procs[1:]:
                out, err = proc.communicate(timeout=seconds + 60)
                lines = [line for line in out.splitlines() if line.startswith("{")]
                if proc.returncode != 0 or not lines:
                    said = say(N_("a worker failed ({code}):"), code=proc.returncode)
                    print(f"{said}\n{err[-2000:]}", file=sys.stderr)
                    return 1
                results.append(json.loads(lines[-1]))
            rss = _memory_mb(board.pid, "VmRSS")
            hwm = _memory_mb(board.pid, "VmHWM")
            last = {k: v for r in results for k, v in r["last"].items()}
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and any(
                (stream.shown.get(t) or (None,))[0] != seq for t, seq in last.items()
            ):
                time.sleep(0.05)
            behind = [t for t, seq in last.items() if (stream.shown.get(t) or (None,))[0] != seq]
        finally:
            if stream is not None:
                stream.close()
            for proc in reversed(procs):
                if proc.poll() is None:
                    proc.terminate()
                    try:
                        proc.wait(10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
            broker.stop()
            board_log.close()
        sent = sum(r["sent"] for r in results)
        delays = stream.delays
        p50, p99 = _percentile(delays, 50), _percentile(delays, 99)
        fields = {"count": count, "workers": workers, "rate": f"{rate:g}", "seconds": f"{seconds:g}"}
        print(
            row(
                N_("tables"),
                say(N_("{count} in {workers} processes, {rate} commands/s each, {seconds} s"), **fields),
            )
        )
        refused = sum(r["refused"] for r in results)
        fields = {"sent": sent, "rate": f"{sent / seconds:.0f}", "refused": refused}
        print(row(N_("commands played"), say(N_("{sent} ({rate}/s), {refused} refused"), **fields)))
        fields = {"seen": len(delays), "messages": stream.messages}
        print(
            row(
                N_("board updates"),
                say(N_("{seen} commands seen on the board's stream ({messages} messages)"), **fields),
            )
        )
        print(
            row(
                N_("board delay p50"),
                say(N_("{ms} ms  (command stamp to the board's stream)"), ms=f"{p50:.1f}"),
            )
        )
        fields = {"ms": f"{p99:.1f}", "goal": f"{TARGET_P99_MS:.0f}"}
        print(row(N_("board delay p99"), say(N_("{ms} ms  (goal <= {goal} ms)"), **fields)))
        print(row(N_("board delay max"), f"{max(delays, default=float('nan')):.1f} ms"))
        fields = {"shown": len(last) - len(behind), "tables": len(last)}
        print(
            row(N_("latest shown"), say(N_("{shown} of {tables} tables show their last command"), **fields))
        )
        if rss is not None:
            fields = {"rss": f"{rss:.1f}", "peak": f"{hwm or rss:.1f}", "goal": f"{TARGET_MEMORY_MB:.0f}"}
            print(
                row(N_("board memory"), say(N_("{rss} MB RSS, peak {peak} MB  (goal < {goal} MB)"), **fields))
            )
        late = f"{max(r['late_ms'] for r in results):.0f}"
        print(row(N_("schedule"), say(N_("workers at most {ms} ms late"), ms=late)))
        print(row(N_("data folders"), str(folder or tempfile.gettempdir())))
    latency_ok = True
    if args.latency_commands > 0:
        import logging

        # Each unreachable broker is said once per table; here that is the point, not news.
        logging.getLogger("tablepi.venue").setLevel(logging.ERROR)
        results_ms = command_latency(int(args.latency_commands), folder)
        base = statistics.median(results_ms["no venue"])
        width = max(15, *(len(say(name)) for name in results_ms))
        for name, values in results_ms.items():
            med, p99c = statistics.median(values), _percentile(values, 99)
            fields = {"p50": f"{med:.2f}", "p99": f"{p99c:.2f}", "commands": len(values)}
            said = say(N_("p50 {p50} ms  p99 {p99} ms  ({commands} commands)"), **fields)
            print(row(N_("command latency"), f"{say(name):{width}} {said}"))
        worst = max(statistics.median(v) for v in results_ms.values())
        latency_ok = worst <= base * 1.25 + 0.2
        print(
            " " * 18
            + say(N_("(a table with its broker unreachable must play as fast as one without a venue)"))
        )
    if hasattr(os, "getloadavg"):
        fields = {"load": f"{os.getloadavg()[0]:.1f}", "cpus": os.cpu_count()}
        print(row(N_("machine load"), say(N_("{load} on {cpus} CPUs (load inflates delays)"), **fields)))
    ok = not behind and not stream.errors
    met = ok and p99 <= TARGET_P99_MS and (hwm or rss or 0) < TARGET_MEMORY_MB and latency_ok
    print(row(N_("targets"), say(N_("met")) if met else say(N_("NOT met"))))
    return 0 if ok else 1


def _wait_http(port: int, timeout: float) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return
        except urllib.error.HTTPError:
            return  # up, and not yet connected to the broker
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the board did not answer on port {port}")


if __name__ == "__main__":
    if len(sys.argv) == 9 and sys.argv[1] == "worker":
        port, first, count, rate, seconds, start_at, folder = sys.argv[2:]
        worker(int(port), int(first), int(count), float(rate), float(seconds), float(start_at), folder)
    else:
        print("usage: tablepi bench venue [--tables N] [--rate R] [--seconds S]", file=sys.stderr)
        sys.exit(2)
