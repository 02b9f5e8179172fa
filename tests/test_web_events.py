"""The live event stream: format, heartbeats, Last-Event-ID resume, overflow,
and streaming through the real waitress server."""

from __future__ import annotations

import json
import os
import socket
import threading
import time

import pytest
from waiting import until

import web
from tablepi.events import EventBus
from tablepi.store import Store
from tablepi.table import Table
from web.events import format_event
from web.server import make_server

PIN = "112358"
PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


class TableService:
    def __init__(self, data_dir, history: int = 1000):
        self.data_dir = data_dir
        self.store = Store(data_dir)
        self.table = Table(self.store, events=EventBus(history=history))
        self.pin = PIN
        self.simulated = True


@pytest.fixture
def service(tmp_path):
    svc = TableService(tmp_path)
    yield svc
    svc.store.close()


def parse_sse(raw: bytes) -> list[dict]:
    """The stream's messages: each a dict of its fields; comments as {"comment": text}."""
    messages = []
    for block in raw.decode().split("\n\n"):
        if not block:
            continue
        message: dict = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                message["comment"] = line[1:].strip()
                continue
            name, _, value = line.partition(": ")
            message[name] = value
        messages.append(message)
    return messages


class Stream:
    """Reads an event stream from the Flask test client chunk by chunk."""

    def __init__(self, client, headers=None, query=""):
        self.response = client.get("/api/events" + query, headers=headers or {}, buffered=False)
        self.chunks = iter(self.response.response)

    def next(self) -> dict:
        (message,) = parse_sse(next(self.chunks))
        return message

    def next_event(self) -> dict:
        while True:
            message = self.next()
            if "event" in message:
                return message

    def close(self) -> None:
        self.response.close()


def start_game(table: Table) -> None:
    table.start_game("outer_space", {"players": PLAYERS})


def test_format_event_is_one_sse_message():
    raw = format_event("state", {"a": "line\nbreak", "b": [1, 2]}, 7)
    assert raw == b'id: 7\nevent: state\ndata: {"a":"line\\nbreak","b":[1,2]}\n\n'
    assert format_event("state", {}) == b"event: state\ndata: {}\n\n"


def test_new_viewer_gets_the_state_then_every_event(service):
    client = web.create_app(service, {"SSE_HEARTBEAT": 5}).test_client()
    stream = Stream(client)
    assert stream.response.mimetype == "text/event-stream"
    assert "no-cache" in stream.response.headers["Cache-Control"]
    assert stream.next() == {"retry": "2000"}
    first = stream.next()
    assert first["event"] == "state" and "id" not in first
    assert json.loads(first["data"]) == {"seq": 0, "game": None}
    start_game(service.table)
    service.table.publish("rolling", {})
    event = stream.next()
    assert event["event"] == "state" and int(event["id"]) >= 1
    assert json.loads(event["data"])["seq"] == service.table.public_state()["seq"]
    assert json.loads(event["data"])["game"]["kind"] == "outer_space"
    rolling = stream.next()
    assert rolling == {"id": str(int(event["id"]) + 1), "event": "rolling", "data": "{}"}
    stream.close()
    assert service.table.events.subscriber_count == 0


def test_idle_stream_sends_heartbeat_comments(service):
    client = web.create_app(service, {"SSE_HEARTBEAT": 0.05}).test_client()
    stream = Stream(client)
    stream.next(), stream.next()
    started = time.monotonic()
    assert stream.next() == {"comment": "keep-alive"}
    assert stream.next() == {"comment": "keep-alive"}
    assert time.monotonic() - started < 5
    stream.close()


def test_last_event_id_resumes_with_what_was_missed(service):
    client = web.create_app(service, {"SSE_HEARTBEAT": 5}).test_client()
    table = service.table
    start_game(table)
    mark = table.events.last_id
    table.submit({"type": "leader", "player": "Ann"})
    table.submit({"type": "partner", "player": "Ben"})
    stream = Stream(client, {"Last-Event-ID": str(mark)})
    stream.next()  # retry hint
    one, two = stream.next(), stream.next()
    assert [int(one["id"]), int(two["id"])] == [mark + 1, mark + 2]
    assert json.loads(one["data"])["game"]["state"]["leader"] == "Ann"
    assert json.loads(two["data"])["game"]["state"]["partner"] == "Ben"
    # Nothing is sent twice: the next event is the next one published.
    table.publish("camera", {"lost": True})
    assert stream.next() == {"id": str(mark + 3), "event": "camera", "data": '{"lost":true}'}
    stream.close()


def test_up_to_date_viewer_gets_no_replay(service):
    client = web.create_app(service, {"SSE_HEARTBEAT": 0.05}).test_client()
    start_game(service.table)
    stream = Stream(client, {"Last-Event-ID": str(service.table.events.last_id)})
    stream.next()
    assert stream.next() == {"comment": "keep-alive"}
    stream.close()


@pytest.mark.parametrize("last_id", ["999999", "-3", "abc", "1e3", "9" * 40, "\u00b2", "\u0663"])
def test_unknown_or_unreadable_last_event_id_gets_fresh_state(service, last_id):
    client = web.create_app(service, {"SSE_HEARTBEAT": 5}).test_client()
    start_game(service.table)
    stream = Stream(client, {"Last-Event-ID": last_id})
    stream.next()
    fresh = stream.next()
    assert fresh["event"] == "state" and "id" not in fresh
    assert json.loads(fresh["data"])["game"]["kind"] == "outer_space"
    stream.close()


def test_resume_from_too_far_back_gets_fresh_state(tmp_path):
    svc = TableService(tmp_path, history=3)
    try:
        client = web.create_app(svc, {"SSE_HEARTBEAT": 5}).test_client()
        start_game(svc.table)
        first = svc.table.events.last_id
        for _ in range(5):
            svc.table.publish("rolling", {})
        stream = Stream(client, query=f"?last_event_id={first - 1}")
        stream.next()
        fresh = stream.next()
        assert fresh["event"] == "state" and "id" not in fresh
        stream.close()
    finally:
        svc.store.close()


def test_overflowing_viewer_gets_a_fresh_state_instead(service):
    client = web.create_app(service, {"SSE_HEARTBEAT": 5, "SSE_QUEUE": 3}).test_client()
    stream = Stream(client)
    stream.next(), stream.next()
    start_game(service.table)
    for _ in range(10):
        service.table.publish("rolling", {})
    fresh = stream.next()
    assert fresh["event"] == "state" and "id" not in fresh
    assert json.loads(fresh["data"])["game"]["kind"] == "outer_space"
    service.table.publish("camera", {"lost": False})
    assert stream.next()["event"] == "camera"
    stream.close()


def test_viewers_beyond_the_limit_are_asked_to_come_back(service):
    app = web.create_app(service, {"SSE_HEARTBEAT": 5, "SSE_MAX_STREAMS": 2})
    client = app.test_client()
    first, second = Stream(client), Stream(client)
    first.next(), second.next()
    busy = client.get("/api/events")  # buffered: this answer ends by itself
    messages = parse_sse(busy.data)
    assert messages[0] == {"retry": "15000"}
    assert messages[1]["event"] == "state"
    assert messages[2]["event"] == "busy" and "too many live viewers" in messages[2]["data"]
    first.close()
    third = Stream(client)
    assert third.next() == {"retry": "2000"}
    second.close(), third.close()
    assert app.extensions["tablepi.streams"].open == 0


def test_server_keeps_threads_free_for_commands(service):
    app = web.create_app(service)
    make_server(app, "127.0.0.1", 0, threads=64).close()
    assert app.config["SSE_MAX_STREAMS"] == 56
    make_server(app, "127.0.0.1", 0, threads=8).close()
    assert app.config["SSE_MAX_STREAMS"] == 4


# -- through the real server -------------------------------------------------


@pytest.fixture
def server(service):
    app = web.create_app(service, {"SSE_HEARTBEAT": 0.2})
    srv = make_server(app, "127.0.0.1", 0, threads=8)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield srv
    srv.close()
    thread.join(5)


def open_stream(port: int, last_id: int | None = None) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    extra = f"Last-Event-ID: {last_id}\r\n" if last_id is not None else ""
    sock.sendall(
        f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{extra}\r\n".encode()
    )
    return sock


def read_until(sock: socket.socket, needle: bytes, buf: bytearray) -> bytes:
    deadline = time.monotonic() + 5
    while needle not in buf:
        assert time.monotonic() < deadline, bytes(buf)
        chunk = sock.recv(65536)
        assert chunk, "stream closed"
        buf += chunk
    return bytes(buf)


def test_streams_through_waitress_to_several_viewers(server, service):
    port = server.effective_port
    socks = [open_stream(port) for _ in range(3)]
    bufs = [bytearray() for _ in socks]
    for sock, buf in zip(socks, bufs, strict=True):
        head = read_until(sock, b"event: state", buf)
        assert b"200 OK" in head and b"text/event-stream" in head
    deadline = time.monotonic() + 5
    while service.table.events.subscriber_count < 3:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    start_game(service.table)
    event_id = service.table.events.last_id
    for sock, buf in zip(socks, bufs, strict=True):
        read_until(sock, f"id: {event_id}\nevent: state\n".encode(), buf)
        read_until(sock, b": keep-alive", buf)
    for sock in socks:
        sock.close()
    # A vanished viewer is noticed at its next heartbeat and unsubscribed.
    deadline = time.monotonic() + 5
    while service.table.events.subscriber_count:
        assert time.monotonic() < deadline, "subscriptions left open"
        time.sleep(0.05)


def test_commands_and_resume_through_waitress(server, service):
    port = server.effective_port
    body = json.dumps({"type": "new_game", "kind": "outer_space", "settings": {"players": PLAYERS}})
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(
            (
                "POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"X-Table-Pin: {PIN}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n{body}"
            ).encode()
        )
        answer = read_until(sock, b'"outer_space"', bytearray())
        assert b"200 OK" in answer
    sock = open_stream(port, last_id=0)
    buf = bytearray()
    read_until(sock, b"id: 1\nevent: state\n", buf)
    sock.close()


def test_display_events_carry_the_mirror_version_and_never_the_coin(service):
    from hardware.display import TableDisplay

    service.display = TableDisplay()
    try:
        client = web.create_app(service, {"SSE_HEARTBEAT": 0.05}).test_client()
        stream = Stream(client)
        stream.next(), stream.next()
        service.display.message(["one"])
        service.table.publish("display", {"version": service.display.version})
        first = stream.next_event()
        assert first["event"] == "display"
        mirror = json.loads(first["data"])["version"]
        png = client.get("/api/device/oled.png", headers={"X-Table-Pin": str(service.pin)})
        assert mirror == int(png.headers["X-Display-Version"])
        # Nothing new on the mirror: no event. The coin up: no event either.
        service.table.publish("display", {"version": service.display.version})
        service.display.coin("alien")
        service.table.publish("display", {"version": service.display.version})
        assert stream.next() == {"comment": "keep-alive"}
        service.display.message(["two"])
        service.table.publish("display", {"version": service.display.version})
        assert json.loads(stream.next_event()["data"]) == {"version": mirror + 1}
        stream.close()
    finally:
        service.display.close()


def test_closing_the_server_ends_open_streams(service):
    app = web.create_app(service, {"SSE_HEARTBEAT": 5})
    srv = make_server(app, "127.0.0.1", 0, threads=4)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    sock = open_stream(srv.effective_port)
    read_until(sock, b"event: state", bytearray())
    started = time.monotonic()
    srv.close()
    thread.join(5)
    assert not thread.is_alive()
    # The stream ended at once, not at its next heartbeat (5 s away).
    assert time.monotonic() - started < 2
    assert service.table.events.subscriber_count == 0
    sock.settimeout(5)
    rest = b""
    while chunk := sock.recv(65536):
        rest += chunk
    sock.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", srv.effective_port), timeout=1).close()


def _spooled_files(folder) -> int:
    """Bytes in files under ``folder`` this process holds open, deleted ones too."""
    total = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith(str(folder)):
                total += os.stat(f"/proc/self/fd/{fd}").st_size
        except OSError:
            pass
    return total


@pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd") and not os.environ.get("CI"),
    reason="needs /proc (Linux) to see deleted temporary files",
)
def test_a_stream_nobody_reads_waits_in_memory_and_is_closed(service, tmp_path, monkeypatch):
    import tempfile

    spool = tmp_path / "spool"
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    app = web.create_app(service, {"SSE_HEARTBEAT": 5, "SSE_QUEUE": 10_000})
    srv = make_server(app, "127.0.0.1", 0, threads=8, stalled_seconds=2)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    try:
        readers = []
        for _ in range(3):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", srv.effective_port))
            sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            readers.append(sock)  # and never read
        streams = app.extensions["tablepi.streams"]
        assert until(lambda: streams.open == 3, 5)
        for n in range(300):  # 15 MB for each stream
            service.table.publish("note", {"n": n, "text": "x" * 50_000})
        time.sleep(0.5)
        assert _spooled_files(spool) == 0
        # Nobody read for two seconds: the streams end and their slots are free.
        assert until(lambda: streams.open == 0, 8), streams.open
        for sock in readers:
            sock.close()
    finally:
        srv.close()
        thread.join(5)
