"""A hostile guest on the table's network against the simulated device:
presses, rolls and the screen need the PIN, refuse other sites' forms, and a
flood of presses cannot starve the table (issue 24, finding 4), against a
real `tablepi run --simulate`."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from hostile_support import Table, outer_space


@pytest.fixture
def table(tmp_path):
    with Table(tmp_path / "data") as t:
        yield t


def test_finding_4_device_routes_need_the_pin_and_refuse_cross_site_forms(table):
    outer_space(table)
    for path, body in [
        ("/api/device/press", {"button": "A"}),
        ("/api/device/roll", {}),
        ("/api/device/keep", {}),
    ]:
        status, _, _ = table.request("POST", path, body)
        assert status == 403, path
    # A form posted from another site's page: no PIN header, a form body, a foreign origin.
    form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://evil.example"}
    status, _, _ = table.request("POST", "/api/device/roll", b"x=1", headers=form, pin=True)
    assert status == 403
    status, _, _ = table.request(
        "POST", "/api/device/press", b"button=A", headers={"Content-Type": "text/plain"}, pin=True
    )
    assert status == 400
    status, reply = table.json("GET", "/api/state")
    assert reply["seq"] == 0  # nothing pressed


def test_finding_4_a_flood_of_long_presses_does_not_starve_the_table(table):
    outer_space(table)

    def long_press(n: int) -> int:
        # From ten addresses, so that the per-address connection cap is not what stops them.
        source = f"127.0.2.{1 + n % 10}"
        press = {"button": "C", "long": True}
        return table.request("POST", "/api/device/press", press, pin=True, source=source, timeout=30)[0]

    with ThreadPoolExecutor(100) as pool:
        flood = [pool.submit(long_press, i) for i in range(100)]
        time.sleep(0.3)
        t0 = time.monotonic()
        status, _, _ = table.request("GET", "/healthz", timeout=5)
        health_s = time.monotonic() - t0
        t0 = time.monotonic()
        command_status, _ = table.command({"type": "leader", "player": "Ann"})
        command_s = time.monotonic() - t0
        statuses = [f.result() for f in flood]
    assert status == 200 and health_s < 1.0, health_s
    assert command_status == 200 and command_s < 2.0, command_s
    assert statuses.count(429) >= 90  # refused at once, holding no thread
    assert set(statuses) <= {200, 429}


def test_every_press_answered_200_is_played(table):
    outer_space(table)

    def long_press(n: int) -> tuple[int, float]:
        t0 = time.monotonic()
        press = {"button": "A", "long": True}
        status = table.request(
            "POST", "/api/device/press", press, pin=True, source=f"127.0.3.{n + 1}", timeout=30
        )[0]
        return status, time.monotonic() - t0

    before = table.json("GET", "/api/state")[1]["seq"]
    with ThreadPoolExecutor(3) as pool:
        answers = list(pool.map(long_press, range(3)))
    played = table.json("GET", "/api/state")[1]["seq"] - before
    statuses = [status for status, _ in answers]
    assert played == statuses.count(200), (answers, played)
    assert set(statuses) <= {200, 429, 503}, answers
    # A press that is not played is refused at once, not after seconds of holding the others up.
    assert all(took < 2.0 for status, took in answers if status != 200), answers
    assert max(took for _, took in answers) < 7.0, answers  # three holds of 1.5 s, one after another


def test_one_address_loading_pages_does_not_slow_the_players_commands(table):
    import http.client
    import statistics
    import threading

    outer_space(table)
    stop = threading.Event()
    loads = {200: 0, 429: 0, "other": 0}

    def flood() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", table.port, timeout=5, source_address=("127.0.0.8", 0))
        while not stop.is_set():
            try:
                conn.request("GET", "/part/phone")
                response = conn.getresponse()
                response.read()
                loads[response.status if response.status in (200, 429) else "other"] += 1
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection(
                    "127.0.0.1", table.port, timeout=5, source_address=("127.0.0.8", 0)
                )
        conn.close()

    threads = [threading.Thread(target=flood, daemon=True) for _ in range(24)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    took = []
    try:
        for i in range(30):
            t0 = time.monotonic()
            status, _ = table.command({"type": "timer_start" if i % 2 == 0 else "timer_pause"})
            took.append(time.monotonic() - t0)
            assert status == 200
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    median = statistics.median(took)
    assert median < 0.05, (median, max(took), loads)
    assert loads[429] > 0 and loads["other"] == 0, loads  # held back, and never a server error
