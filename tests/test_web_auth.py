"""The PIN: sign-in, sessions, the X-Table-Pin header, the attempt limit, and the
pace of changes per address that holds even with the PIN."""

from __future__ import annotations

import json

import pytest

import web
from tablepi.events import EventBus
from tablepi.store import Store
from tablepi.table import Table
from web.auth import ATTACK_REFILL, FREE_TRIES_DAY, LIMITS_FILE, AttemptLimiter

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
        self.problems = []

    def report_problem(self, message):
        self.problems.append(message)


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


def _wrong(client, times=1):
    return [client.post("/api/login", json={"pin": "000000"}).status_code for _ in range(times)]


def test_a_restarted_app_keeps_refusing(service):
    # Six addresses, five wrong PINs each: their free tries, then the table-wide budget of ten.
    app = web.create_app(service)
    statuses = [s for n in range(6) for s in _wrong(other_client(app, f"10.3.0.{n}"), 5)]
    assert statuses.count(403) == 6 * 3 + 10 and statuses[-1] == 429
    restarted = web.create_app(service)
    # The budget is as spent as before; an address's own tries are as used.
    assert _wrong(other_client(restarted, "10.3.0.0")) == [429]
    assert _wrong(other_client(restarted, "10.3.0.99"), 4) == [403, 403, 403, 429]
    assert service.problems == []


@pytest.mark.parametrize(
    "damage", [b"", b'{"version": 1, "tokens": 3', b"\xff\xfe", b'{"version": 1}', b"[]"]
)
def test_a_damaged_count_of_wrong_pins_counts_the_day_as_spent(service, damage):
    (service.data_dir / LIMITS_FILE).write_bytes(damage)
    app = web.create_app(service)
    assert len(service.problems) == 1 and LIMITS_FILE in service.problems[0], service.problems
    # No free tries, no budget, and the slow refill of a table under attack.
    r = other_client(app, "10.4.0.1").post("/api/login", json={"pin": PIN})
    assert r.status_code == 429 and ATTACK_REFILL - 60 < int(r.headers["Retry-After"]) <= ATTACK_REFILL
    # The strict state was saved: the next start reads it without a word, as strict.
    saved = json.loads((service.data_dir / LIMITS_FILE).read_text())
    assert saved["tokens"] == 0 and len(saved["free"]) == FREE_TRIES_DAY
    again = web.create_app(service)
    assert len(service.problems) == 1
    assert other_client(again, "10.4.0.2").post("/api/login", json={"pin": PIN}).status_code == 429
    # The table keeps serving: watching needs no PIN.
    assert again.test_client().get("/api/state").status_code == 200


def test_a_count_that_cannot_be_saved_is_strict_at_the_next_start(service):
    (service.data_dir / LIMITS_FILE).mkdir()  # not a file: every save fails
    web.create_app(service)
    assert len(service.problems) == 1 and "cannot be read" in service.problems[0]
    assert "cannot be written either" in service.problems[0]
    assert not (service.data_dir / (LIMITS_FILE + ".tmp")).exists()


def test_a_half_written_count_is_not_read(service):
    # A power cut while writing leaves the temporary file; the last good count stands.
    app = web.create_app(service)
    _wrong(other_client(app, "10.5.0.1"), 5)
    (service.data_dir / (LIMITS_FILE + ".tmp")).write_text('{"version": 1, "tok')
    restarted = web.create_app(service)
    assert service.problems == []
    assert _wrong(other_client(restarted, "10.5.0.1")) == [429]


def _limiter_at(tmp_path, clock, wall):
    return AttemptLimiter(clock=lambda: clock[0], wall=lambda: wall[0], data_dir=tmp_path)


def _saved(tmp_path):
    return json.loads((tmp_path / LIMITS_FILE).read_text())


def test_addresses_are_kept_only_while_their_window_lasts(tmp_path):
    clock, wall = [100.0], [1.8e9]
    limiter = _limiter_at(tmp_path, clock, wall)
    for address in ("10.6.0.1", "10.6.0.2"):
        assert limiter.acquire(address) == 0
        limiter.failed(address)
    assert set(_saved(tmp_path)["windows"]) == {"10.6.0.1", "10.6.0.2"}
    clock[0] += 61
    wall[0] += 61
    limiter.acquire("10.6.0.3")
    limiter.failed("10.6.0.3")
    saved = _saved(tmp_path)
    # Past the minute, only the day's free tries still need the first two.
    assert set(saved["windows"]) == {"10.6.0.3"}
    assert set(saved["daily"]) == {"10.6.0.1", "10.6.0.2", "10.6.0.3"}
    clock[0] += 24 * 3600
    wall[0] += 24 * 3600
    limiter.acquire("10.6.0.4")
    limiter.failed("10.6.0.4")
    saved = _saved(tmp_path)
    assert set(saved["windows"]) == set(saved["daily"]) == {"10.6.0.4"}
    assert len(saved["table"]) == len(saved["free"]) == 1


def test_the_time_a_table_was_off_counts_and_a_clock_set_back_does_not(tmp_path):
    clock, wall = [50.0], [1.8e9]
    limiter = _limiter_at(tmp_path, clock, wall)
    for _ in range(5):
        limiter.acquire("10.7.0.1")
        limiter.failed("10.7.0.1")
    # Off for half a minute; the computer's monotonic clock starts again from nothing.
    clock[0], wall[0] = 3.0, wall[0] + 30
    assert _limiter_at(tmp_path, clock, wall).retry_after("10.7.0.1") == pytest.approx(30.0, abs=0.01)
    # A clock set back an hour while it was off: no time passed, not less.
    wall[0] -= 3600
    assert _limiter_at(tmp_path, clock, wall).retry_after("10.7.0.1") == pytest.approx(60.0, abs=0.01)
    # Off for a day: the minute and the day have passed.
    wall[0] += 3600 + 24 * 3600
    restarted = _limiter_at(tmp_path, clock, wall)
    assert restarted.retry_after("10.7.0.1") == 0 and restarted._allowance("10.7.0.1", None) == "free"
