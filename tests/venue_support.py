"""Support for the venue tests: a real Mosquitto on a free loopback port with
a temporary config (never the system's broker on 1883), a recorder that
subscribes to every topic, and `tablepi venue` as a subprocess.

Mosquitto comes from Debian's package (`make test` installs it through apt).
"""

from __future__ import annotations

import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from browser_support import ServerProcess

from tablepi.bench.venue import Broker, mosquitto_binary


def require_mosquitto() -> str:
    """Fail on CI, skip loudly elsewhere, when Mosquitto is missing."""
    path = mosquitto_binary()
    if path:
        return path
    problem = "mosquitto is missing (install Debian's mosquitto: `make test` does it)"
    if os.environ.get("CI"):
        pytest.fail(f"venue tests cannot run on CI: {problem}")
    pytest.skip(f"VENUE TESTS NOT RUN: {problem}")


def wait_for(condition, timeout: float = 10.0, what: str = "condition", step: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(step)


class Mosquitto(Broker):
    """The bench's broker (`mosquitto -c CONFIG` on a free loopback port, no
    persistence), skipped loudly off CI when Mosquitto is missing."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        super().__init__(folder, port, binary=require_mosquitto())


class Recorder:
    """Subscribes to every topic ('#') and keeps every message, in order."""

    def __init__(self, port: int, topics: str = "#") -> None:
        import paho.mqtt.client as mqtt

        self.messages: list[tuple[str, bytes, bool]] = []
        self._lock = threading.Lock()
        self._subscribed = threading.Event()
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"recorder-{os.getpid()}-{id(self)}")
        client.on_connect = lambda c, u, f, r, p=None: c.subscribe(topics, qos=1)
        client.on_subscribe = lambda *a: self._subscribed.set()
        client.on_message = self._on_message
        client.reconnect_delay_set(1, 1)
        client.connect_async("127.0.0.1", port)
        client.loop_start()
        self.client = client
        assert self._subscribed.wait(10), "the recorder could not subscribe"

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        with self._lock:
            self.messages.append((message.topic, bytes(message.payload), bool(message.retain)))

    def payloads(self, topic: str | None = None) -> list[bytes]:
        with self._lock:
            return [p for t, p, _ in self.messages if topic is None or t == topic]

    def latest(self, topic: str) -> bytes | None:
        found = self.payloads(topic)
        return found[-1] if found else None

    def everything(self) -> bytes:
        with self._lock:
            return b"\n".join(t.encode() + b" " + p for t, p, _ in self.messages)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class VenueBoardProcess(ServerProcess):
    """`tablepi venue --broker 127.0.0.1 --port N` in a subprocess."""

    def __init__(self, folder: Path, broker_port: int, web_port: int | None = None) -> None:
        super().__init__(folder, web_port, "tablepi-venue.log")
        self.broker_port = broker_port

    def argv(self) -> list[str]:
        return [
            "venue",
            "--broker",
            "127.0.0.1",
            "--port",
            str(self.broker_port),
            "--web-host",
            "127.0.0.1",
            "--web-port",
            str(self.port),
            "--log-level",
            "WARNING",
        ]

    def up(self, status: int) -> bool:
        return True  # 503 until the broker answers: the board is up

    def tables(self) -> dict[str, dict[str, Any]]:
        import json

        with urllib.request.urlopen(self.base + "/api/tables", timeout=5) as r:
            data = json.loads(r.read())
        return {card["table"]: card for card in data["tables"]}


def venue_config(folder: Path, broker_port: int, table: str, name: str | None = None, **extra: Any) -> Path:
    """A config file naming the test broker, for `tablepi run --config FILE`."""
    lines = [
        "[venue]",
        'broker = "127.0.0.1"',
        f"port = {broker_port}",
        f'table = "{table}"',
        f'name = "{name or table}"',
        "reconnect_max = 1",
    ]
    from tablepi.config import _toml_value

    lines += [f"{key} = {_toml_value(value)}" for key, value in extra.items()]
    path = folder / f"venue-{table}.toml"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path
