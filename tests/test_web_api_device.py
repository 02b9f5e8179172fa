"""The device API behind /device: the OLED image (never the coin, never the
PIN), the simulated buttons, roll and kept dice, and the PIN they all need."""

from __future__ import annotations

import io

import pytest
from PIL import Image

import web
from hardware.display import TableDisplay
from tablepi.events import EventBus
from tablepi.store import Store
from tablepi.table import Table

PIN = "975310"


class DeviceService:
    """A real table and a real display (luma's dummy device); presses, rolls
    and kept dice are recorded as they reach the service."""

    def __init__(self, data_dir, simulated=True):
        self.data_dir = data_dir
        self.store = Store(data_dir)
        self.table = Table(self.store, events=EventBus())
        self.display = TableDisplay()
        self.pin = PIN
        self.simulated = simulated
        self.calls: list[tuple] = []

    def press(self, button: str, long: bool = False) -> None:
        if not self.simulated:
            raise RuntimeError("the buttons are real on this table")
        self.calls.append(("press", button, long))

    def roll(self) -> None:
        self.calls.append(("roll",))

    def set_kept(self, indices: list[int]) -> None:
        self.calls.append(("keep", indices))


@pytest.fixture
def service(tmp_path):
    svc = DeviceService(tmp_path)
    yield svc
    svc.display.close()
    svc.store.close()


@pytest.fixture
def client(service):
    client = web.create_app(service).test_client()
    assert client.post("/api/login", json={"pin": PIN}).status_code == 200
    return client


def pixels(png: bytes) -> bytes:
    return Image.open(io.BytesIO(png)).convert("1").tobytes()


def test_device_info(client):
    r = client.get("/api/device")
    assert r.status_code == 200
    assert r.json["simulated"] is True
    assert r.json["buttons"] == ["A", "B", "C"]
    assert isinstance(r.json["display"]["version"], int)


def test_oled_png_mirrors_the_display(client, service):
    service.display.message(["Hello", "table"])
    r = client.get("/api/device/oled.png")
    assert r.status_code == 200 and r.mimetype == "image/png"
    assert "no-store" in r.headers["Cache-Control"]
    assert pixels(r.data) == service.display.image.tobytes()
    v1 = int(r.headers["X-Display-Version"])
    service.display.message(["Something", "else"])
    r = client.get("/api/device/oled.png")
    assert pixels(r.data) == service.display.image.tobytes()
    assert int(r.headers["X-Display-Version"]) == v1 + 1
    assert client.get("/api/device").json["display"]["version"] == v1 + 1


@pytest.mark.parametrize("result", ["alien", "human"])
def test_coin_never_leaves_the_table(client, service, result):
    service.display.message(["Mission", "timer"])
    before = client.get("/api/device/oled.png")
    info_before = client.get("/api/device").json
    service.display.coin(result)
    assert service.display.secret
    coin_pixels = service.display.image.tobytes()
    assert coin_pixels != pixels(before.data)
    during = client.get("/api/device/oled.png")
    # The same image, the same version, the same headers: nothing tells a
    # viewer that a coin was flipped.
    assert during.data == before.data
    assert during.headers["X-Display-Version"] == before.headers["X-Display-Version"]
    assert client.get("/api/device").json == info_before
    assert result.encode() not in during.data
    service.display.message(["Mission", "timer"])
    after = client.get("/api/device/oled.png")
    assert after.data == before.data
    assert after.headers["X-Display-Version"] == before.headers["X-Display-Version"]


def test_coin_up_before_anything_was_served_gives_a_blank_screen(client, service):
    service.display.coin("alien")
    r = client.get("/api/device/oled.png")
    assert r.status_code == 200
    image = Image.open(io.BytesIO(r.data))
    assert image.size == (128, 64)
    assert pixels(r.data) != service.display.image.tobytes()
    assert image.convert("L").getextrema() == (0, 0)


def test_press_roll_keep_reach_the_service(client, service):
    assert client.post("/api/device/press", json={"button": "A"}).json == {"pressed": "A", "long": False}
    assert client.post("/api/device/press", json={"button": "C", "long": True}).status_code == 200
    assert client.post("/api/device/roll", json={}).json == {"rolled": True}
    assert client.post("/api/device/keep", json={"dice": [4, 0, 2]}).json == {"kept": [0, 2, 4]}
    assert client.post("/api/device/keep", json={"dice": []}).status_code == 200
    assert service.calls == [
        ("press", "A", False),
        ("press", "C", True),
        ("roll",),
        ("keep", [0, 2, 4]),
        ("keep", []),
    ]


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/device/press", {"button": "D"}),
        ("/api/device/press", {"button": "a"}),
        ("/api/device/press", {"button": 1}),
        ("/api/device/press", {}),
        ("/api/device/press", {"button": "A", "long": "yes"}),
        ("/api/device/press", {"button": "A", "long": 1}),
        ("/api/device/press", {"button": "A", "flip": True}),
        ("/api/device/press", ["A"]),
        ("/api/device/press", "not json"),
        ("/api/device/keep", {}),
        ("/api/device/keep", {"dice": "0,1"}),
        ("/api/device/keep", {"dice": [5]}),
        ("/api/device/keep", {"dice": [-1]}),
        ("/api/device/keep", {"dice": [True]}),
        ("/api/device/keep", {"dice": [1.0]}),
        ("/api/device/keep", {"dice": [1, 1]}),
        ("/api/device/keep", {"dice": [0, 1, 2, 3, 4, 0]}),
        ("/api/device/keep", {"dice": [10**30]}),
        ("/api/device/keep", {"dice": [0], "more": 1}),
        ("/api/device/keep", [0, 1]),
    ],
)
def test_malformed_device_requests_are_400(client, service, path, body):
    if isinstance(body, str):
        r = client.post(path, data=body, content_type="application/json")
    else:
        r = client.post(path, json=body)
    assert r.status_code == 400, r.json
    assert r.json["error"]
    assert service.calls == []


def test_device_failures_are_409(client, service):
    def no_camera():
        raise RuntimeError("the camera is not synthetic")

    service.roll = no_camera
    r = client.post("/api/device/roll", json={})
    assert r.status_code == 409 and "not synthetic" in r.json["error"]


@pytest.mark.parametrize("simulated", [False, True])
def test_device_routes_need_the_pin(tmp_path, simulated):
    svc = DeviceService(tmp_path, simulated=simulated)
    try:
        client = web.create_app(svc).test_client()
        assert client.get("/api/device").json["simulated"] is simulated
        # The screen's image needs the PIN too: it is what players see.
        assert client.get("/api/device/oled.png").status_code == 403
        assert client.post("/api/device/roll", json={}).status_code == 403
        assert client.post("/api/device/keep", json={"dice": [1]}).status_code == 403
        assert client.post("/api/device/press", json={"button": "A"}).status_code == 403
        assert client.post("/api/device/roll", json={}, headers={"X-Table-Pin": PIN}).status_code == 200
        client.post("/api/login", json={"pin": PIN})
        assert client.get("/api/device/oled.png").status_code == 200
        assert client.post("/api/device/keep", json={"dice": [1]}).status_code == 200
        # A form from another site cannot send JSON; a body of another type is refused.
        r = client.post("/api/device/roll", data="x=1", content_type="application/x-www-form-urlencoded")
        assert r.status_code == 400
        r = client.post("/api/device/press", json={"button": "A"})
        if simulated:
            assert r.status_code == 200
        else:
            # The service itself refuses simulated presses on real buttons.
            assert r.status_code == 409 and "real" in r.json["error"]
        presses = [("press", "A", False)] if simulated else []
        assert svc.calls == [("roll",), ("keep", [1]), *presses]
    finally:
        svc.display.close()
        svc.store.close()


def test_oled_mirror_masks_the_pin(client, service):
    service.display.start("http://192.0.2.7:8080/", PIN)
    png = client.get("/api/device/oled.png").data
    assert pixels(png) != service.display.image.tobytes()  # the table's own screen shows the PIN
    masked = TableDisplay()
    masked.start("http://192.0.2.7:8080/", "******")
    assert pixels(png) == masked.image.tobytes()
    masked.close()


# -- with the real service in simulation -------------------------------------


@pytest.fixture
def real_service(tmp_path):
    from tablepi.config import from_dict
    from tablepi.service import Service

    svc = Service(from_dict({}), tmp_path, simulate=True, camera=False)
    svc.start("http://127.0.0.1:8080/")
    yield svc
    svc.close()


def test_real_service_buttons_and_dice(real_service):
    client = web.create_app(real_service).test_client()
    client.post("/api/login", json={"pin": real_service.pin})
    info = client.get("/api/device").json
    assert info["simulated"] is True and info["buttons"] == ["A", "B", "C"]
    r = client.post("/api/device/press", json={"button": "A"})
    assert r.status_code == 200
    # Kept dice need a Beam Me Up roll; the service says so, and nothing changes.
    r = client.post("/api/device/keep", json={"dice": [0]})
    assert r.status_code == 409 and "Beam Me Up" in r.json["error"]
    # Without the synthetic camera there is nothing to roll.
    r = client.post("/api/device/roll", json={})
    assert r.status_code == 409 and "camera" in r.json["error"]
    png = client.get("/api/device/oled.png")
    assert png.status_code == 200 and png.data.startswith(b"\x89PNG")
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json["simulated"] is True
