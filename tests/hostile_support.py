"""A real `tablepi run --simulate` for the hostile-guest tests, and a client
that can speak from any loopback address (127.0.0.0/8 all reaches this
machine on Linux, so one test can be many guests)."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from waiting import until

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


class Table:
    """`tablepi run --simulate` on 127.0.0.1 and a free port, stdout kept."""

    def __init__(
        self,
        data_dir: Path,
        camera: bool = False,
        env: dict[str, str] | None = None,
        prefix: list[str] | None = None,
        preexec: Any = None,
    ) -> None:
        self.data_dir = data_dir
        self.camera = camera
        self.env = {**os.environ, **(env or {})}
        self.prefix = prefix or []
        self.preexec = preexec
        self.proc: subprocess.Popen | None = None
        self._pin: str | None = None
        self.port = 0
        self.lines: list[str] = []
        self.log_path = data_dir.parent / f"{data_dir.name}-stderr.log"

    def start(self, timeout: float = 30.0) -> Table:
        cmd = [
            *self.prefix,
            sys.executable,
            "-m",
            "tablepi",
            "run",
            "--simulate",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data-dir",
            str(self.data_dir),
        ]
        if not self.camera:
            cmd.append("--no-camera")
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=self.log_path.open("ab"),
            text=True,
            preexec_fn=self.preexec,
        )
        first = self.proc.stdout.readline()
        if "127.0.0.1:" not in first:
            self.proc.wait(10)
            raise RuntimeError(f"tablepi run did not start: {first!r}\n{self.stderr()}")
        self.lines.append(first)
        self.port = int(first.split("127.0.0.1:")[1].split("/")[0])
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.request("GET", "/healthz", timeout=2)
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"tablepi run did not answer:\n{self.stderr()}")

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    def printed(self, *words: str, timeout: float = 5.0) -> bool:
        """Whether the table printed a line holding all of ``words``: its output is
        read by a thread, so a line printed before a reply may arrive after it."""
        return until(lambda: any(all(w in line for w in words) for line in list(self.lines)), timeout)

    def stderr(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    @property
    def pin(self) -> str:
        # Read once: some tests take the data folder away from under the table.
        if self._pin is None:
            self._pin = (self.data_dir / "pin").read_text().strip()
        return self._pin

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        pin: bool = False,
        source: str | None = None,
        timeout: float = 10.0,
    ) -> tuple[int, dict[str, str], bytes]:
        """One request on its own connection; ``source`` picks the loopback
        address it comes from."""
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=timeout, source_address=(source, 0) if source else None
        )
        try:
            sent = dict(headers or {})
            data = None
            if body is not None:
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                sent.setdefault("Content-Type", "application/json")
            if pin:
                sent["X-Table-Pin"] = self.pin
            conn.request(method, path, data, sent)
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def json(self, method: str, path: str, body: Any = None, **kw: Any) -> tuple[int, Any]:
        status, _, data = self.request(method, path, body, **kw)
        return status, json.loads(data) if data else None

    def command(self, command: dict[str, Any]) -> tuple[int, Any]:
        return self.json("POST", "/api/commands", command, pin=True)

    def __enter__(self) -> Table:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def outer_space(table: Table) -> None:
    status, reply = table.command(
        {"type": "new_game", "kind": "outer_space", "settings": {"players": PLAYERS}}
    )
    assert status == 200, reply
