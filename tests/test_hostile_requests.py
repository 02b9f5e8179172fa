"""Malformed requests a guest can send: each gets a 4xx answer that says
what is wrong, the table keeps running, and a guest who repeats a request
that fails on the table cannot fill the journal. Against a real
`tablepi run --simulate`."""

from __future__ import annotations

import time

import pytest
from hostile_support import Table, outer_space

DEEP = b"[" * 1000 + b"]" * 1000


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("requests") / "data") as t:
        outer_space(t)
        yield t


def test_deeply_nested_json_is_a_400_everywhere(table):
    assert table.request("POST", "/api/login", DEEP)[0] == 400
    for path in ("/api/device/press", "/api/device/keep", "/api/tv-settings", "/api/commands"):
        status, _, body = table.request("POST", path, DEEP, pin=True)
        assert status == 400, (path, status, body[:200])
    status, state = table.json("GET", "/api/state")
    assert status == 200 and state["seq"] == 0


HUGE = [
    "/stats?page=400000000000000000",
    "/stats?page=99999999999999999999999999",
    "/stats?page=-400000000000000000",
    "/stats/game/99999999999999999999",
    "/stats/game/9223372036854775808",
    "/stats?since=0001-01-01",
    "/stats?since=9999-12-31",
]


def test_huge_numbers_in_the_history_are_not_errors(table):
    for path in HUGE:
        status, _, body = table.request("GET", path)
        assert 200 <= status < 500, (path, status, body[:300])
        assert b"Something went wrong" not in body
    status, _, body = table.request("GET", "/stats?page=2")
    assert status == 404 and b"1 page(s) of games" in body


def test_a_repeated_failure_is_logged_once_a_minute_with_a_count(tmp_path):
    from web.errors import ErrorLog

    clock = [0.0]
    errors = ErrorLog(interval=60.0, clock=lambda: clock[0])
    logged = [errors.record("10.0.0.5") for _ in range(200)]
    assert logged[0] == (True, 0) and all(full is False for full, _ in logged[1:])
    assert errors.record("10.0.0.6") == (True, 0)  # another source has its own
    clock[0] += 61
    assert errors.record("10.0.0.5") == (True, 199)


def test_the_attack_requests_repeated_write_little_to_the_log(table):
    before = len(table.stderr())
    t0 = time.monotonic()
    for n in range(100):
        assert table.request("POST", "/api/login", DEEP, source="127.0.0.9")[0] == 400
        assert table.request("GET", f"/stats/game/{10**20 + n}", source="127.0.0.9")[0] == 404
    took = time.monotonic() - t0
    written = len(table.stderr()) - before
    assert written < 1000, (written, took, table.stderr()[-1000:])


def test_a_failure_repeated_from_one_source_is_logged_once_an_interval(tmp_path, caplog):
    """What a request that fails on the table writes, from a real app: one
    traceback per source and interval, then a count with the next."""
    import web

    class Service:
        data_dir = tmp_path

    app = web.create_app(Service(), {"ERROR_LOG_SECONDS": 3600.0})

    @app.get("/api/fails")
    def fails():
        raise RuntimeError("a bug")

    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "10.0.0.5"
    with caplog.at_level("ERROR", logger="tablepi.web"):
        statuses = {client.get("/api/fails").status_code for _ in range(200)}
    assert statuses == {500}
    assert len(caplog.records) == 1 and caplog.records[0].exc_info is not None
    assert len(caplog.text) < 3000


def test_a_guest_reads_only_ok_or_not_ok_from_healthz(tmp_path):
    config = tmp_path / "xdg" / "tablepi" / "config.toml"
    config.parent.mkdir(parents=True)
    # A broker nobody answers at: the table plays on without it.
    config.write_text('[venue]\nbroker = "broker-7.venue.invalid"\nport = 1884\ntable = "table-seven"\n')
    data = tmp_path / "data"
    with Table(data, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}) as table:
        status, _, body = table.request("GET", "/healthz", source="127.0.0.2")
        assert status in (200, 503)
        for secret in (b"broker-7", b"1884", b"table-seven", str(tmp_path).encode(), b"problems", b"camera"):
            assert secret not in body, (secret, body)
        import json

        public = json.loads(body)
        assert set(public) == {"ok", "store", "details"} and "PIN" in public["details"]
        # A player with the PIN, and the table's own computer, read it all.
        for kw in ({"source": "127.0.0.2", "pin": True}, {"source": "127.0.0.1"}):
            status, _, body = table.request("GET", "/healthz", **kw)
            assert b"broker-7" in body and b"table-seven" in body, kw
        # A wrong PIN is a guess, not a way to the details.
        status, _, body = table.request("GET", "/healthz", source="127.0.0.2", headers={"X-Table-Pin": "x"})
        assert status == 403 and b"broker-7" not in body
