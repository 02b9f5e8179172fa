"""The PIN: sign-in, sessions, the X-Table-Pin header, the attempt limit, and the
pace of changes per address that holds even with the PIN."""

from __future__ import annotations

import pytest

import web
from tablepi.events import EventBus
from tablepi.store import Store
from tablepi.table import Table
from web.auth import AttemptLimiter

PIN = "135790"
END = {"type": "end_game"}
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
    return web.create_app(service)


@pytest.fixture
def client(app):
    return app.test_client()


def other_client(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_session_starts_signed_out(client):
    r = client.get("/api/session")
    assert r.status_code == 200 and r.json == {"signed_in": False}


def test_login_sets_a_strict_httponly_cookie_and_allows_commands(client):
    assert client.post("/api/commands", json=END).status_code == 403
    r = client.post("/api/login", json={"pin": PIN})
    assert r.status_code == 200 and r.json == {"signed_in": True}
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
    assert PIN not in cookie
    assert client.get("/api/session").json == {"signed_in": True}
    # Signed in: the command reaches the table (409: there is no game to end).
    r = client.post("/api/commands", json=END)
    assert r.status_code == 409 and "no game" in r.json["error"]


def test_logout_ends_the_session(client):
    client.post("/api/login", json={"pin": PIN})
    r = client.post("/api/logout")
    assert r.status_code == 200 and r.json == {"signed_in": False}
    assert client.get("/api/session").json == {"signed_in": False}
    assert client.post("/api/commands", json=END).status_code == 403


def test_wrong_pin_is_403_and_signs_nobody_in(client):
    r = client.post("/api/login", json={"pin": "000000"})
    assert r.status_code == 403 and r.json["rule"] == "pin"
    assert "Set-Cookie" not in r.headers or "tablepi_session=;" in r.headers["Set-Cookie"]
    assert client.get("/api/session").json == {"signed_in": False}


@pytest.mark.parametrize("body", [None, "nope", [PIN], {"pin": 135790}, {"code": PIN}, {"pin": None}])
def test_malformed_login_is_400(client, body):
    if body is None:
        r = client.post("/api/login", data="", content_type="application/json")
    elif isinstance(body, str):
        r = client.post("/api/login", data=body, content_type="application/json")
    else:
        r = client.post("/api/login", json=body)
    assert r.status_code == 400 and "pin" in r.json["error"]


def test_pin_header_works_without_a_session(client):
    r = client.post("/api/commands", json=END, headers={"X-Table-Pin": PIN})
    assert r.status_code == 409
    r = client.post("/api/commands", json=END, headers={"X-Table-Pin": "999999"})
    assert r.status_code == 403 and r.json == {"error": "wrong PIN", "rule": "pin"}
    assert client.get("/api/session").json == {"signed_in": False}


def test_a_forged_or_stale_session_is_not_signed_in(app, service):
    client = app.test_client()
    with client.session_transaction() as s:
        s["pin"] = "not the tag"
    assert client.get("/api/session").json == {"signed_in": False}
    client.post("/api/login", json={"pin": PIN})
    assert client.get("/api/session").json == {"signed_in": True}
    service.pin = "864200"  # a new PIN signs every phone out
    assert client.get("/api/session").json == {"signed_in": False}
    assert client.post("/api/commands", json=END).status_code == 403


def test_session_survives_a_restart_with_the_same_data_dir(tmp_path):
    svc = TableService(tmp_path)
    client = web.create_app(svc).test_client()
    client.post("/api/login", json={"pin": PIN})
    cookie = client.get_cookie("tablepi_session")
    assert cookie is not None
    restarted = web.create_app(svc).test_client()
    restarted.set_cookie("tablepi_session", cookie.value)
    assert restarted.get("/api/session").json == {"signed_in": True}
    key = tmp_path / "web-secret.key"
    assert key.stat().st_mode & 0o077 == 0
    svc.store.close()


def test_five_wrong_pins_a_minute_then_429(app):
    client = other_client(app, "10.0.0.7")
    for _ in range(5):
        assert client.post("/api/login", json={"pin": "111111"}).status_code == 403
    r = client.post("/api/login", json={"pin": "111111"})
    assert r.status_code == 429 and r.json["rule"] == "pin-limit"
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    # Once limited, even the right PIN is not tried: guessing learns nothing.
    assert client.post("/api/login", json={"pin": PIN}).status_code == 429
    assert client.post("/api/commands", json=END, headers={"X-Table-Pin": PIN}).status_code == 429
    # Another device is not affected.
    assert other_client(app, "10.0.0.8").post("/api/login", json={"pin": PIN}).status_code == 200


def test_header_attempts_count_against_the_same_limit(app):
    client = other_client(app, "10.0.0.9")
    for _ in range(3):
        r = client.post("/api/commands", json=END, headers={"X-Table-Pin": "123123"})
        assert r.status_code == 403
    for _ in range(2):
        assert client.post("/api/login", json={"pin": "123123"}).status_code == 403
    r = client.post("/api/commands", json=END, headers={"X-Table-Pin": "123123"})
    assert r.status_code == 429 and "Retry-After" in r.headers


def test_right_pins_do_not_count(app):
    client = other_client(app, "10.0.0.10")
    for _ in range(10):
        assert client.post("/api/login", json={"pin": PIN}).status_code == 200
    for _ in range(4):
        assert client.post("/api/login", json={"pin": "000001"}).status_code == 403
    assert client.post("/api/login", json={"pin": PIN}).status_code == 200


def test_limiter_forgets_after_the_window():
    now = [1000.0]
    limiter = AttemptLimiter(5, 60.0, clock=lambda: now[0])
    for _ in range(5):
        assert limiter.retry_after("a") == 0
        limiter.failed("a")
    assert limiter.retry_after("a") == pytest.approx(60.0)
    now[0] += 30
    assert limiter.retry_after("a") == pytest.approx(30.0)
    assert limiter.retry_after("b") == 0
    now[0] += 30.01
    assert limiter.retry_after("a") == 0


def test_limit_is_configurable(service):
    app = web.create_app(service, {"PIN_ATTEMPTS": 2})
    client = app.test_client()
    for _ in range(2):
        client.post("/api/login", json={"pin": "222222"})
    assert client.post("/api/login", json={"pin": "222222"}).status_code == 429


def _paced_app(service):
    # Three changes, then (in practice) none: the bucket refills once in 1000 s.
    return web.create_app(service, {"CHANGE_BURST": 3.0, "CHANGE_RATE": 0.001})


def test_past_its_burst_a_device_is_refused_and_nothing_changes(service):
    # Changes to the API have a pace per address: a phone holding the PIN plays,
    # it cannot take the table's time with a loop of commands.
    app = _paced_app(service)
    phone = other_client(app, "192.168.1.20")
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
        assert other_client(app, address).post("/api/commands", json=bad, headers=pin).status_code == 400
    assert phone.post("/api/login", json={"pin": PIN}).status_code == 200


def test_the_pace_of_changes_refills(service):
    pace = _paced_app(service).extensions["tablepi.change_pace"]
    now = [0.0]
    pace._clock = lambda: now[0]
    assert [pace.take("10.0.0.9") for _ in range(4)] == [True, True, True, False]
    now[0] += 1000.0  # one change back
    assert [pace.take("10.0.0.9") for _ in range(2)] == [True, False]
