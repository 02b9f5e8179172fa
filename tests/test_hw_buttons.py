"""The three buttons on gpiozero's mock pins: the real Button code, driven like wires."""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero import Device
from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.mock import MockFactory

from hardware import sim
from hardware.buttons import TableButtons

HOLD = 0.15  # the long-press tests wait this out
# The short-press tests hold a button for 30 ms; with HOLD as the hold time a
# test thread starved for ~0.12 s (a loaded CI machine) turns that press into
# a long one. No short press can reach this hold time.
SHORT_HOLD = 1.5  # the table's own default
BOUNCE = 0.02


@pytest.fixture
def factory():
    previous = Device.pin_factory
    f = MockFactory()
    yield f
    f.reset()
    Device.pin_factory = previous


def _recording(factory, hold_time: float):
    b = TableButtons(hold_time=hold_time, bounce_time=BOUNCE, pin_factory=factory)
    seen: list[tuple[str, bool]] = []
    lock = threading.Lock()

    def record(name: str, long: bool) -> None:
        with lock:
            seen.append((name, long))

    b.when_input = record
    b.seen = seen
    return b


@pytest.fixture
def buttons(factory):
    """Buttons with a short hold time, for the long-press tests."""
    b = _recording(factory, HOLD)
    yield b
    b.close()


@pytest.fixture
def short_buttons(factory):
    """Buttons whose hold time no simulated short press can reach."""
    b = _recording(factory, SHORT_HOLD)
    yield b
    b.close()


def settle() -> None:
    # Longer than the debounce and the hold check, so any stray extra report would show.
    time.sleep(HOLD + 0.1)


def test_default_pins_and_pull_up(factory):
    with TableButtons(pin_factory=factory) as b:
        assert b.pins == {"A": 17, "B": 27, "C": 22}
        assert b.button("A").pull_up is True
        assert b.button("A").pin.state == 1  # released reads high through the pull-up
        assert not b.is_pressed("A")


def test_short_press(short_buttons):
    assert sim.press(short_buttons, "A")
    settle()
    assert short_buttons.seen == [("A", False)]


def test_bounce_inside_debounce_time_is_one_press(factory):
    # The default 50 ms debounce against 1 ms chatter: robust even on a busy machine.
    with TableButtons(hold_time=HOLD * 4, pin_factory=factory) as b:
        seen = []
        b.when_input = lambda name, long: seen.append((name, long))
        sim.bounce(b, "B", chatter=4, gap=0.001)
        assert b.wait_delivered(1, 2.0)
        time.sleep(b.bounce_time + 0.1)
        assert seen == [("B", False)]


def test_presses_further_apart_than_debounce_are_two(short_buttons):
    sim.press(short_buttons, "C")
    sim.press(short_buttons, "C")
    settle()
    assert short_buttons.seen == [("C", False), ("C", False)]


def test_long_press_fires_once_while_held_and_release_adds_nothing(buttons):
    at = []
    buttons.when_input = lambda name, long: (buttons.seen.append((name, long)), at.append(time.monotonic()))
    pin = buttons.button("A").pin
    down = time.monotonic()
    pin.drive_low()
    assert buttons.wait_delivered(1, 2.0)
    assert buttons.seen == [("A", True)]
    assert at[0] - down >= HOLD * 0.9  # reported on the hold, not at once (however slow the machine)
    time.sleep(HOLD * 2)  # still held: no repeat
    pin.drive_high()
    settle()
    assert buttons.seen == [("A", True)]


def test_sim_long_press(buttons):
    assert sim.press(buttons, "B", long=True)
    settle()
    assert buttons.seen == [("B", True)]


def test_two_buttons_at_once_are_both_reported(short_buttons):
    assert sim.press(short_buttons, ["A", "C"])
    settle()
    assert sorted(short_buttons.seen) == [("A", False), ("C", False)]


def test_two_buttons_held_together(buttons):
    assert sim.press(buttons, ["A", "B"], long=True)
    settle()
    assert sorted(buttons.seen) == [("A", True), ("B", True)]


def test_activity_reported_on_press_down(short_buttons):
    downs = []
    short_buttons.when_activity = lambda: downs.append(time.monotonic())
    pin = short_buttons.button("C").pin
    pin.drive_low()
    assert len(downs) == 1  # at once, before the press is complete
    pin.drive_high()
    settle()


def test_faulty_handler_does_not_stop_the_buttons(short_buttons):
    calls = []

    def handler(name, long):
        calls.append(name)
        raise RuntimeError("boom")

    short_buttons.when_input = handler
    assert sim.press(short_buttons, "A")
    assert sim.press(short_buttons, "B")
    assert calls == ["A", "B"]


def test_unknown_button_name(short_buttons):
    with pytest.raises(KeyError, match="no button named Z"):
        sim.press(short_buttons, "Z")


def test_close_frees_the_pins(factory):
    b = TableButtons(pin_factory=factory)
    with pytest.raises(GPIOPinInUse):
        TableButtons(pins={"A": 17}, pin_factory=factory)
    b.close()
    assert b.closed
    again = TableButtons(pins={"A": 17}, pin_factory=factory)
    again.close()


def test_custom_pins(factory):
    with TableButtons(pins={"A": 5, "B": 6}, hold_time=SHORT_HOLD, bounce_time=0, pin_factory=factory) as b:
        seen = []
        b.when_input = lambda n, long: seen.append((n, long))
        assert b.names == ["A", "B"]
        assert b.button("B").pin.info.name == "GPIO6"
        sim.press(b, "B")
        assert seen == [("B", False)]
