"""The buzzer on a mock pin: named patterns play in the background."""

from __future__ import annotations

import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware.buzzer import PATTERNS, TableBuzzer


@pytest.fixture
def factory():
    previous = Device.pin_factory
    f = MockFactory()
    yield f
    f.reset()
    Device.pin_factory = previous


def beeps(pin) -> int:
    return sum(1 for state in pin.states[1:] if state.state)


def test_patterns_play_in_the_background(factory):
    with TableBuzzer(18, pin_factory=factory) as buzzer:
        pin = factory.pin(18)
        started = time.monotonic()
        buzzer.play("warning")
        assert time.monotonic() - started < 0.1  # did not wait for the three beeps
        time.sleep(buzzer.duration("warning") + 0.15)
        assert beeps(pin) == PATTERNS["warning"][2] == 3
        assert pin.state == 0  # silent afterwards
        pin.clear_states()
        buzzer.play("tick")
        time.sleep(buzzer.duration("tick") + 0.1)
        assert beeps(pin) == 1


def test_every_pattern_is_short_and_known(factory):
    with TableBuzzer(18, pin_factory=factory) as buzzer:
        heard = []
        buzzer.when_played = heard.append
        for name in PATTERNS:
            assert 0 < buzzer.duration(name) < 3
            buzzer.play(name)
        assert heard == list(PATTERNS)
        assert buzzer.last[0] == "error"
        with pytest.raises(ValueError, match="unknown buzzer pattern"):
            buzzer.play("fanfare")


def test_no_pin_is_silent_not_an_error():
    buzzer = TableBuzzer(None)
    heard = []
    buzzer.when_played = heard.append
    buzzer.play("end")
    assert buzzer.silent and buzzer.device is None
    assert heard == ["end"]
    buzzer.close()


def test_close_frees_the_pin(factory):
    TableBuzzer(18, pin_factory=factory).close()
    TableBuzzer(18, pin_factory=factory).close()
