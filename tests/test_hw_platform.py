"""Simulation mode: the platform check, pin factories and the assembled devices."""

from __future__ import annotations

import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware import sim
from hardware.platform import Devices, on_pi, open_devices, pin_factory
from tablepi.cli import main
from tablepi.config import from_dict


@pytest.fixture(autouse=True)
def restore_pin_factory():
    previous = Device.pin_factory
    yield
    Device.pin_factory = previous


def test_on_pi_reads_the_device_tree_model(tmp_path):
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    assert on_pi(model)
    model.write_bytes(b"Generic x86 PC\x00")
    assert not on_pi(model)
    assert not on_pi(tmp_path / "missing")


def test_simulation_uses_gpiozero_mock_pins():
    factory = pin_factory(True)
    assert isinstance(factory, MockFactory)
    factory.close()


def test_open_devices_in_simulation():
    # A hold time no simulated short press can reach, however slow the machine.
    cfg = from_dict({"buttons": {"hold_time": 1.5}, "camera": {"width": 320, "height": 240}})
    with open_devices(cfg, simulate=True) as devices:
        assert isinstance(devices, Devices)
        assert devices.simulated and devices.messages == []
        assert devices.display.simulated
        assert not devices.buzzer.silent and devices.buzzer.pin == 18
        got = []
        devices.buttons.when_input = lambda name, long: got.append((name, long))
        # A button press also wakes a dimmed screen.
        devices.display.tick(time.monotonic() + 10_000)
        assert devices.display.dimmed
        assert sim.press(devices.buttons, "B")
        assert got == [("B", False)]
        assert not devices.display.dimmed
        frame = devices.camera.wait_frame(3.0)
        assert frame is not None and frame.shape == (240, 320, 3)
    assert devices.buttons.closed


def test_buttons_that_cannot_open_leave_the_rest_working(monkeypatch):
    cfg = from_dict({"buzzer": {"pin": False}})

    def broken(*args, **kwargs):
        raise RuntimeError("pin 17 is busy")

    monkeypatch.setattr("hardware.buttons.TableButtons.__init__", broken)
    with open_devices(cfg, simulate=True) as devices:
        assert devices.buttons is None
        assert any("buttons could not be opened" in m and "pin 17 is busy" in m for m in devices.messages)
        assert devices.buzzer.silent
        devices.display.message(["still here"])
        assert devices.camera.wait_frame(3.0) is not None


@pytest.fixture
def quick_config(tmp_path, monkeypatch):
    monkeypatch.setattr("tablepi.config.default_paths", lambda: [])
    path = tmp_path / "config.toml"
    path.write_text("[buttons]\nhold_time = 0.2\n[camera]\nfps = 30\n")
    return path


def test_hw_test_simulated_end_to_end(quick_config, capsys):
    assert main(["hw", "test", "--simulate", "--config", str(quick_config)]) == 0
    out = capsys.readouterr().out
    for part in (
        "button A: press",
        "button B: press",
        "button C: press",
        "button A: long press",
        "OLED: test pattern",
        "buzzer: 'tick' and 'warning' switched GPIO18 on 1 + 3 times",
        "camera: synthetic source, 640x480",
        "dice reader",
    ):
        assert part in out, out
    assert "FAIL" not in out and "All parts working." in out


def test_hw_test_reports_a_button_that_never_comes(quick_config, capsys, monkeypatch):
    monkeypatch.setattr(sim, "press", lambda *a, **k: None)  # nobody presses anything
    assert main(["hw", "test", "--simulate", "--timeout", "0.2", "--config", str(quick_config)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  button A: no press within 0.2 s" in out and "GND" in out
    assert "need attention" in out
