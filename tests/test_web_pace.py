"""Changes to the API (commands, presses, votes) have a pace per address: a phone
holding the PIN plays, it cannot take the table's time with a loop of commands."""

from __future__ import annotations

import pytest

import web
from tablepi.events import EventBus
from tablepi.store import Store
from tablepi.table import Table

PIN = "135790"
NEW = {"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}}


class TableService:
    def __init__(self, data_dir):
        self.data_dir = data_dir
        self.store = Store(data_dir)
        self.table = Table(self.store, events=EventBus())
        self.pin = PIN
        self.simulated = True


@pytest.fixture
def service(tmp_path):
    svc = TableService(tmp_path)
    yield svc
    svc.store.close()


@pytest.fixture
def app(service):
    # Three changes, then (in practice) none: the bucket refills once in 1000 s.
    return web.create_app(service, {"CHANGE_BURST": 3.0, "CHANGE_RATE": 0.001})


def _client(app, address: str):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_past_its_burst_a_device_is_refused_and_nothing_changes(app, service):
    phone = _client(app, "192.168.1.20")
    pin = {"X-Table-Pin": PIN}
    bad = {"type": "nonsense"}
    assert phone.post("/api/commands", json=NEW, headers=pin).status_code == 200
    # A refused command is a change asked for all the same.
    assert [phone.post("/api/commands", json=bad, headers=pin).status_code for _ in range(2)] == [400, 400]
    seq = service.table.public_state()["seq"]
    refused = phone.post("/api/commands", json=NEW, headers=pin)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    assert refused.json["rule"] == "pace" and "Too many changes" in refused.json["error"]
    assert service.table.public_state()["seq"] == seq  # the refused command was not played
    # In German for a German phone, the English kept for programs.
    german = phone.post("/api/commands", json=NEW, headers={**pin, "Accept-Language": "de-DE"})
    assert german.status_code == 429 and german.json["shown"].startswith("Zu viele Änderungen")
    # Reading is not a change; another device, the table's own computer and signing in are not held back.
    assert phone.get("/api/state").status_code == 200
    for address in ("192.168.1.21", "127.0.0.1"):
        assert _client(app, address).post("/api/commands", json=bad, headers=pin).status_code == 400
    assert phone.post("/api/login", json={"pin": PIN}).status_code == 200


def test_the_pace_refills(app):
    pace = app.extensions["tablepi.change_pace"]
    now = [0.0]
    pace._clock = lambda: now[0]
    assert [pace.take("10.0.0.9") for _ in range(4)] == [True, True, True, False]
    now[0] += 1000.0  # one change back
    assert [pace.take("10.0.0.9") for _ in range(2)] == [True, False]
