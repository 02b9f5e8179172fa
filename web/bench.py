"""`tablepi bench web`: live viewers under a steady command load.

Runs the real service in simulation mode and its web server (waitress, as
`tablepi run --simulate` does) in a child process on loopback, opens
``--clients`` event streams, and sends commands at ``--rate`` per second for
``--seconds``. Prints the events lost (every viewer must see every command's
"state" event), the delay from sending a command to each viewer receiving its
event (p50/p99), and the server's peak memory (resident set size of the child
process, measured from outside).

Targets: 0 lost, p99 < 200 ms, peak memory < 150 MB.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import selectors
import socket
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
from web.server import DEFAULT_VIEWERS, SPARE_THREADS

PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
TARGET_P99_MS = 200.0
TARGET_MEMORY_MB = 150.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clients", type=int, default=50, help=N_("live event-stream viewers (default 50)"))
    parser.add_argument("--rate", type=float, default=20.0, help=N_("commands per second (default 20)"))
    parser.add_argument(
        "--seconds", type=float, default=60.0, help=N_("how long to send commands (default 60)")
    )
    parser.add_argument(
        "--threads", type=int, default=None, help=N_("server threads (default: as tablepi run)")
    )
    parser.add_argument(
        "--no-camera",
        action="store_true",
        help=N_("leave the synthetic camera off (measure the web part alone)"),
    )


# -- the server (child process) ---------------------------------------------


def _service(data_dir: Path, camera: bool) -> Any:
    """The real service in simulation mode, as `tablepi run --simulate` builds it."""
    from tablepi.config import from_dict
    from tablepi.service import Service

    return Service(from_dict({}), data_dir, simulate=True, camera=camera)


def serve(data_dir: Path, threads: int | None, camera: bool) -> None:
    import web
    from web.server import make_server

    service = _service(data_dir, camera)
    # Every viewer here comes from one address: the per-client caps that keep
    # one device from hoarding streams and connections would refuse them.
    app = web.create_app(service, {"SSE_PER_CLIENT": 0, "SSE_TV_SLOTS": 0})
    server = make_server(app, "127.0.0.1", 0, threads, per_client=None)
    service.start(f"http://127.0.0.1:{server.effective_port}/")
    print(f"PORT {server.effective_port}", flush=True)
    try:
        server.run()
    finally:
        service.close()


# -- the viewers and the commander (this process) ----------------------------


class Viewers:
    """Reads every viewer's stream in one selector loop, so that the readers'
    own overhead does not inflate the measured delays."""

    def __init__(self, port: int, count: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.received: list[dict[int, float]] = [{} for _ in range(count)]  # seq -> time received
        self.fresh_states = [0] * count  # states sent after a viewer fell behind
        self.connected = [False] * count
        self.errors: list[str] = []
        self._stop = threading.Event()
        for i in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            sock.setblocking(False)
            self.selector.register(sock, selectors.EVENT_READ, [i, bytearray(), False])
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            for key, _ in self.selector.select(timeout=0.1):
                now = time.monotonic()
                index, buf, headers_done = key.data
                try:
                    chunk = key.fileobj.recv(1 << 16)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                if not chunk:
                    self.errors.append(f"viewer {index}: stream closed by the server")
                    self.selector.unregister(key.fileobj)
                    continue
                buf += chunk
                if not headers_done:
                    end = buf.find(b"\r\n\r\n")
                    if end < 0:
                        continue
                    del buf[: end + 4]
                    key.data[2] = True
                # Chunked transfer: the framing lines never contain "\n\n", so
                # SSE messages are found by their blank-line ends regardless.
                while (end := buf.find(b"\n\n")) >= 0:
                    self._message(index, bytes(buf[:end]), now)
                    del buf[: end + 2]

    def _message(self, index: int, raw: bytes, now: float) -> None:
        fields: dict[str, str] = {}
        for line in raw.decode("utf-8", "replace").split("\n"):
            name, sep, value = line.strip("\r").partition(": ")
            if sep:
                fields[name] = value
        if fields.get("event") != "state":
            return
        if "id" not in fields:
            if self.connected[index]:
                self.fresh_states[index] += 1
            self.connected[index] = True
            return
        try:
            state = json.loads(fields["data"])
        except (KeyError, ValueError):
            self.errors.append(f"viewer {index}: unreadable event data")
            return
        game = state.get("game") or {}
        if game.get("kind") == "outer_space":
            self.received[index].setdefault(int(state["seq"]), now)

    def wait_connected(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not all(self.connected):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def close(self) -> None:
        self._stop.set()
        self.thread.join(5)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()


class Commander:
    def __init__(self, port: int, pin: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.headers = {"Content-Type": "application/json", "X-Table-Pin": pin}

    def send(self, command: dict) -> tuple[int, dict]:
        self.conn.request("POST", "/api/commands", json.dumps(command), self.headers)
        response = self.conn.getresponse()
        return response.status, json.loads(response.read())


def _percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def _memory_kb(pid: int, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time the process has used."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def run(args: argparse.Namespace) -> int:
    clients, rate, seconds = args.clients, args.rate, args.seconds
    if clients < 1 or rate <= 0 or seconds <= 0:
        print(say(N_("clients, rate and seconds must be positive")), file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tablepi-bench-web-") as tmp:
        data_dir = Path(tmp)
        from tablepi.pin import load_or_create_pin

        pin = load_or_create_pin(data_dir)
        threads = getattr(args, "threads", None) or 0
        if not threads and clients > DEFAULT_VIEWERS:
            # More viewers than `tablepi run` is sized for: give each a thread.
            threads = clients + SPARE_THREADS
            print(
                say(
                    N_("{clients} viewers: serving with {threads} threads"), clients=clients, threads=threads
                ),
                flush=True,
            )
        camera = "0" if getattr(args, "no_camera", False) else "1"
        cmd = [sys.executable, "-m", "web.bench", "serve", str(data_dir), str(threads), camera]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        log_path = data_dir / "server.log"
        # The server's log goes to a file: a pipe nobody reads would stall it.
        with open(log_path, "w") as log_file:
            child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log_file, text=True, env=env)
        try:
            line = child.stdout.readline() if child.stdout else ""
            if not line.startswith("PORT "):
                child.wait(10)
                err = log_path.read_text(errors="replace")
                said = say(N_("the server did not start: {why}"), why=f"{line.strip()} {err.strip()[-2000:]}")
                print(said, file=sys.stderr)
                return 1
            port = int(line.split()[1])
            return _measure(child, port, pin, clients, rate, seconds)
        finally:
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()


def _measure(child: subprocess.Popen, port: int, pin: str, clients: int, rate: float, seconds: float) -> int:
    commander = Commander(port, pin)
    new_game = {"type": "new_game", "kind": "outer_space", "settings": {"players": PLAYERS}}
    status, state = commander.send(new_game)
    if status != 200:
        print(say(N_("could not start a game: {why}"), why=f"{status} {state}"), file=sys.stderr)
        return 1
    rss_start = _memory_kb(child.pid, "VmRSS")
    viewers = Viewers(port, clients)
    if not viewers.wait_connected(30):
        fields = {"connected": sum(viewers.connected), "clients": clients}
        print(say(N_("only {connected} of {clients} viewers connected"), **fields), file=sys.stderr)
        viewers.close()
        return 1
    fields = {"clients": clients, "rate": f"{rate:g}", "seconds": f"{seconds:g}"}
    print(
        say(N_("{clients} viewers connected; sending {rate} commands/s for {seconds} s ..."), **fields),
        flush=True,
    )

    # The mission timer started and paused in turn: always legal, one "state" event each.
    sent: dict[int, float] = {}
    answered: list[float] = []  # command round trips, ms: validate, store durably, apply, answer
    answered_at: dict[int, float] = {}
    refused = 0
    cpu_start = _cpu_seconds(child.pid)
    total = int(rate * seconds)
    start = time.monotonic()
    peak_rss = rss_start or 0
    for k in range(total):
        due = start + k / rate
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        t = time.monotonic()
        status, state = commander.send({"type": "timer_start" if k % 2 == 0 else "timer_pause"})
        if status != 200:
            refused += 1
            continue
        done = time.monotonic()
        answered.append((done - t) * 1000)
        sent[int(state["seq"])] = t
        answered_at[int(state["seq"])] = done
        if k % max(1, int(rate)) == 0:
            peak_rss = max(peak_rss, _memory_kb(child.pid, "VmRSS") or 0)
    elapsed = time.monotonic() - start
    cpu_end = _cpu_seconds(child.pid)

    # Let the last events arrive.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(len(r) < len(sent) for r in viewers.received):
        time.sleep(0.05)
    viewers.close()
    hwm = _memory_kb(child.pid, "VmHWM")

    lost = 0
    delays = []
    after_answer = []  # how much later than the command's answer the viewers had the event
    for received in viewers.received:
        for seq, t in sent.items():
            if seq in received:
                delays.append((received[seq] - t) * 1000)
                after_answer.append(max(0.0, received[seq] - answered_at[seq]) * 1000)
            else:
                lost += 1
    p50, p99 = _percentile(delays, 50), _percentile(delays, 99)
    peak_mb = (hwm or peak_rss) / 1024
    fields = {"sent": len(sent), "refused": refused, "rate": f"{len(sent) / elapsed:.1f}"}
    print(
        row(N_("commands sent"), say(N_("{sent} accepted, {refused} refused, {rate}/s achieved"), **fields))
    )
    fields = {"delivered": len(delays), "events": len(sent) * clients, "clients": clients}
    print(row(N_("events delivered"), say(N_("{delivered} of {events} ({clients} viewers)"), **fields)))
    print(row(N_("events lost"), say(N_("{lost}   (goal 0)"), lost=lost)))
    fresh = sum(viewers.fresh_states)
    print(row(N_("fresh states"), say(N_("{fresh} (viewers that fell behind)"), fresh=fresh)))
    print(row(N_("delay p50"), f"{p50:.1f} ms"))
    fields = {"ms": f"{p99:.1f}", "goal": f"{TARGET_P99_MS:.0f}"}
    print(row(N_("delay p99"), say(N_("{ms} ms   (goal < {goal} ms)"), **fields)))
    print(row(N_("delay max"), f"{max(delays, default=float('nan')):.1f} ms"))
    fields = {"p50": f"{_percentile(answered, 50):.1f}", "p99": f"{_percentile(answered, 99):.1f}"}
    print(
        row(
            N_("command answered"),
            say(N_("p50 {p50} ms, p99 {p99} ms (includes the durable commit)"), **fields),
        )
    )
    said = say(N_("p99 {ms} ms (the fan-out to the viewers)"), ms=f"{_percentile(after_answer, 99):.1f}")
    print(row(N_("event after answer"), said))
    if hwm or peak_rss:
        start_mb = (rss_start or 0) / 1024
        fields = {"peak": f"{peak_mb:.1f}", "start": f"{start_mb:.1f}", "goal": f"{TARGET_MEMORY_MB:.0f}"}
        said = say(N_("peak {peak} MB (at start {start} MB)  (goal < {goal} MB)"), **fields)
        print(row(N_("server memory"), said))
    else:
        print(row(N_("server memory"), say(N_("not measurable on this system (no /proc)"))))
    if cpu_start is not None and cpu_end is not None:
        share = f"{100 * (cpu_end - cpu_start) / elapsed:.0f}%"
        print(row(N_("server CPU"), say(N_("{share} of one core"), share=share)))
    if hasattr(os, "getloadavg"):
        fields = {"load": f"{os.getloadavg()[0]:.1f}", "cpus": os.cpu_count()}
        print(row(N_("machine load"), say(N_("{load} on {cpus} CPUs (load inflates delays)"), **fields)))
    for error in viewers.errors[:5]:
        print(say(N_("viewer error: {error}"), error=error), file=sys.stderr)
    ok = lost == 0 and not refused and not viewers.errors
    met = ok and p99 < TARGET_P99_MS and (not hwm or peak_mb < TARGET_MEMORY_MB)
    print(row(N_("targets"), say(N_("met")) if met else say(N_("NOT met"))))
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "serve":
        serve(Path(sys.argv[2]), int(sys.argv[3]) or None, sys.argv[4] == "1")
    else:
        print("usage: tablepi bench web [--clients N] [--rate R] [--seconds S]", file=sys.stderr)
        sys.exit(2)
