"""The danger coin in simulation: a player's /device shows it as the OLED
does; every other view goes on showing the screen under it, and keeps
changing as it would, so nothing tells a watcher that a coin was flipped."""

from __future__ import annotations

import json

import pytest
from test_web_api_device import PIN, DeviceService, pixels

import web


@pytest.fixture
def service(tmp_path):
    svc = DeviceService(tmp_path)
    yield svc
    svc.display.close()
    svc.store.close()


@pytest.fixture
def app(service):
    return web.create_app(service)


def signed_in(app):
    client = app.test_client()
    assert client.post("/api/login", json={"pin": PIN}).status_code == 200
    return client


@pytest.mark.parametrize("result", ["alien", "human"])
def test_a_players_device_shows_the_coin_and_nothing_else_does(app, service, result):
    player, guest = signed_in(app), app.test_client()
    service.display.countdown(42, "Mission 1: Trek")
    counting = pixels(player.get("/api/device/oled.png").data)
    before = player.get("/api/device/screen").json["version"]
    public_before = player.get("/api/device").json

    service.display.coin(result)
    coin = service.display.image.tobytes()
    assert coin != counting
    table = player.get("/api/device/oled.png?view=table")
    assert table.status_code == 200 and pixels(table.data) == coin
    assert player.get("/api/device/screen").json["version"] > before
    # The mirror, the public device info and the state show no coin.
    assert pixels(player.get("/api/device/oled.png").data) == counting
    assert player.get("/api/device").json == public_before
    assert result not in json.dumps(player.get("/api/state").json)
    # Without the PIN: neither the table's view nor its version.
    assert guest.get("/api/device/oled.png?view=table").status_code in (401, 403)
    assert guest.get("/api/device/screen").status_code in (401, 403)

    # Under the coin the timer goes on for the mirrors, as it would have.
    service.display.countdown(41, "Mission 1: Trek", under=True)
    moved = player.get("/api/device/oled.png")
    assert pixels(moved.data) not in (counting, coin)
    assert int(moved.headers["X-Display-Version"]) == public_before["display"]["version"] + 1
    assert pixels(player.get("/api/device/oled.png?view=table").data) == coin


def test_a_real_tables_screen_is_not_served_as_the_table(tmp_path):
    service = DeviceService(tmp_path, simulated=False)
    try:
        player = signed_in(web.create_app(service))
        service.display.coin("alien")
        assert player.get("/api/device/oled.png?view=table").status_code == 404
        assert player.get("/api/device/screen").status_code == 404
        assert pixels(player.get("/api/device/oled.png").data) != service.display.image.tobytes()
    finally:
        service.display.close()
        service.store.close()
