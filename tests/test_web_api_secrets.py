"""Secrets never reach the web: the danger coin (flipped with the table's own
button in a real simulated service) and Space Beans' secret collections.

Every response the web gives during the game, the live event stream
included, is searched for the secret.
"""

from __future__ import annotations

import http.client
import io
import json
import logging
import socket
import threading
import time

import pytest
from PIL import Image

import web
from hardware import screens
from hardware.display import TableDisplay
from tablepi.config import from_dict
from tablepi.service import Service
from web.server import make_server

# What the coin "shows" in this test: a string no page could contain by chance.
MARKER = "zq7x-danger-coin-result"
PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


def wait_for(condition, timeout: float = 5.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


class Recorder:
    """A web client that keeps every byte the server sent, event stream included."""

    def __init__(self, port: int, pin: str) -> None:
        self.port = port
        self.pin = pin
        self.seen: list[bytes] = []
        self._sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self._sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        self._stream = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            while chunk := self._sock.recv(65536):
                self._stream += chunk
        except OSError:
            pass

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"X-Table-Pin": self.pin}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        conn.request(method, path, data, headers)
        response = conn.getresponse()
        raw = response.read()
        self.seen.append(b"".join(f"{k}: {v}\n".encode() for k, v in response.getheaders()) + raw)
        conn.close()
        return response.status, raw

    def look_everywhere(self) -> None:
        for path in (
            "/api/state",
            "/api/device",
            "/api/device/oled.png",
            "/healthz",
            "/api/session",
            "/api/camera.jpg",
            "/",
            "/tv",
            "/device",
        ):
            self.request("GET", path)

    def close(self) -> bytes:
        self._sock.close()
        self._reader.join(5)
        return bytes(self._stream)


@pytest.fixture
def table(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    service = Service(from_dict({}), tmp_path, simulate=True, camera=False)
    app = web.create_app(service, {"SSE_HEARTBEAT": 0.5})
    server = make_server(app, "127.0.0.1", 0, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    service.start(f"http://127.0.0.1:{server.effective_port}/")
    try:
        yield service, server.effective_port
    finally:
        server.close()
        service.close()
        thread.join(5)


def keys_in_events(stream: bytes) -> set[str]:
    """Every key of every JSON object in the stream's events."""
    keys: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, dict):
            keys.update(value)
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for line in stream.split(b"\n"):
        if line.startswith(b"data: "):
            walk(json.loads(line[6:]))
    assert keys, "no event data seen"
    return keys


def stored_bytes(service) -> bytes:
    return b"".join(p.read_bytes() for p in service.data_dir.glob("tablepi.db*"))


def test_the_danger_coin_never_reaches_the_web(table, monkeypatch, caplog):
    service, port = table
    drawn: list[str] = []

    def coin(display, result):
        # The real coin screen, marked secret as the display marks it, but the
        # result is our marker so that any copy of it anywhere can be found.
        drawn.append(result)
        display._show("coin", lambda p, r: screens.coin(p, "alien"), result, secret=True)

    monkeypatch.setattr(TableDisplay, "coin", coin)
    web_client = Recorder(port, service.pin)
    status, _ = web_client.request(
        "POST", "/api/commands", {"type": "new_game", "kind": "outer_space", "settings": {"players": PLAYERS}}
    )
    assert status == 200
    wait_for(lambda: getattr(service.controller, "kind", None) == "outer_space", what="the controller")
    service.controller._flip = lambda: MARKER
    web_client.look_everywhere()
    before = web_client.request("GET", "/api/device/oled.png")[1]

    # B on the table flips the coin, through the same code as the real button.
    status, _ = web_client.request("POST", "/api/device/press", {"button": "B"})
    assert status == 200
    wait_for(lambda: service.display.secret, what="the coin on the OLED")
    assert drawn == [MARKER]
    coin_pixels = service.display.image.tobytes()
    for _ in range(3):
        web_client.look_everywhere()
        png = web_client.request("GET", "/api/device/oled.png")[1]
        assert png == before
        assert Image.open(io.BytesIO(png)).convert("1").tobytes() != coin_pixels
        time.sleep(0.3)
    web_client.request("POST", "/api/commands", {"type": "leader", "player": "Ann"})
    web_client.request("POST", "/api/commands", {"type": "timer_start"})
    # B again takes the coin off the screen.
    web_client.request("POST", "/api/device/press", {"button": "B"})
    wait_for(lambda: not service.display.secret, what="the coin to go")
    web_client.look_everywhere()
    time.sleep(1.2)  # a display event or two
    stream = web_client.close()

    assert b"event: state" in stream and b"keep-alive" in stream
    everything = b"\n".join(web_client.seen) + stream
    assert MARKER.encode() not in everything
    for key in keys_in_events(stream):
        assert not any(word in key.lower() for word in ("coin", "flip", "danger")), key
    assert MARKER.encode() not in stored_bytes(service)
    assert MARKER not in caplog.text


def test_space_beans_secret_collections_hold_only_a_count(table):
    service, port = table
    web_client = Recorder(port, service.pin)
    new_game = {"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}}
    status, _ = web_client.request("POST", "/api/commands", new_game)
    assert status == 200
    for command in (
        {"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [4]},
        {"type": "end_turn"},
        {"type": "add", "player": 1, "collection": "open", "bean": "Bluebeans", "cards": [5]},
        {"type": "end_turn"},
    ):
        status, raw = web_client.request("POST", "/api/commands", command)
        assert status == 200, raw
    # A secret addition with its cards or bean type is refused before the table sees it.
    for leak in ({"cards": [7, 7]}, {"bean": "Moonbohnen"}, {"cards": [7, 7], "bean": "Moonbohnen"}):
        command = {"type": "add", "player": 0, "collection": "secret", "count": 2, **leak}
        status, raw = web_client.request("POST", "/api/commands", command)
        assert status == 400, raw
        assert b"unknown field" in raw
    status, raw = web_client.request(
        "POST", "/api/commands", {"type": "add", "player": 0, "collection": "secret", "count": 2}
    )
    assert status == 200, raw
    ann = json.loads(raw)["game"]["state"]["players"][0]
    assert ann["secret_count"] == 2
    assert ann["open"]["cards"] == [4] and ann["final"] is None
    web_client.look_everywhere()
    stream = web_client.close()
    # The secret collection appears only as its size, everywhere.
    for blob in [*web_client.seen, stream]:
        assert b'Moonbohnen", "cards"' not in blob
        assert b"[7,7]" not in blob.replace(b" ", b"")
    assert b'"collection":"secret","count":2' in stored_bytes(service).replace(b" ", b"")
