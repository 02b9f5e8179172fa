"""The table's three push buttons (A, B, C), each wired from a GPIO pin to ground.

A short press and a long press are two different inputs. A long press is
reported once, as soon as the button has been held for ``hold_time``; its
release then reports nothing. A short press is reported on release, after
the contacts have stayed open for ``bounce_time``, so contact chatter at
either end of a press never turns one press into two (the mock pins used in
simulation do no debouncing of their own, and some pin drivers do little).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from gpiozero import Button

from hardware import N_

log = logging.getLogger(__name__)

DEFAULT_PINS = {"A": 17, "B": 27, "C": 22}

InputHandler = Callable[[str, bool], None]


class _Channel:
    """Press bookkeeping for one button."""

    def __init__(self, name: str, button: Button):
        self.name = name
        self.button = button
        self.down = False  # a press is in progress (chatter included)
        self.long_sent = False
        self.release_timer: threading.Timer | None = None


class TableButtons:
    """The buttons as one device: ``when_input(name, long)`` is called per press.

    ``pins`` maps button names to BCM pin numbers. Buttons pull up internally,
    so each one connects its pin to ground when pressed.
    """

    def __init__(
        self,
        pins: dict[str, int] | None = None,
        hold_time: float = 1.5,
        bounce_time: float = 0.05,
        pin_factory=None,
    ):
        self._pins = dict(DEFAULT_PINS if pins is None else pins)
        self._hold_time = float(hold_time)
        self._bounce_time = float(bounce_time)
        self._lock = threading.RLock()
        self._when_input: InputHandler | None = None
        self._when_activity: Callable[[], None] | None = None
        self._delivered = 0
        self._delivered_cond = threading.Condition(self._lock)
        self._closed = False
        self._channels: dict[str, _Channel] = {}
        try:
            for name, pin in self._pins.items():
                button = Button(
                    pin,
                    pull_up=True,
                    bounce_time=self._bounce_time or None,
                    hold_time=self._hold_time,
                    hold_repeat=False,
                    pin_factory=pin_factory,
                )
                channel = _Channel(name, button)
                button.when_pressed = lambda _dev, c=channel: self._pressed(c)
                button.when_released = lambda _dev, c=channel: self._released(c)
                button.when_held = lambda _dev, c=channel: self._held(c)
                self._channels[name] = channel
        except Exception:
            self.close()
            raise

    # --- properties in the gpiozero manner -----------------------------------

    @property
    def pins(self) -> dict[str, int]:
        return dict(self._pins)

    @property
    def names(self) -> list[str]:
        return list(self._channels)

    @property
    def hold_time(self) -> float:
        return self._hold_time

    @property
    def bounce_time(self) -> float:
        return self._bounce_time

    @property
    def when_input(self) -> InputHandler | None:
        """Called with ``(button_name, long)`` once per press."""
        return self._when_input

    @when_input.setter
    def when_input(self, handler: InputHandler | None) -> None:
        self._when_input = handler

    @property
    def when_activity(self) -> Callable[[], None] | None:
        """Called with no arguments the moment any button goes down (wakes the display)."""
        return self._when_activity

    @when_activity.setter
    def when_activity(self, handler: Callable[[], None] | None) -> None:
        self._when_activity = handler

    @property
    def delivered(self) -> int:
        """How many inputs have been reported so far."""
        return self._delivered

    @property
    def closed(self) -> bool:
        return self._closed

    def button(self, name: str) -> Button:
        """The gpiozero Button behind ``name`` (its ``pin`` is what simulation drives)."""
        return self._channels[name].button

    def is_pressed(self, name: str) -> bool:
        return bool(self._channels[name].button.is_pressed)

    def wait_delivered(self, count: int, timeout: float) -> bool:
        """Wait until at least ``count`` inputs have been reported in total."""
        deadline = time.monotonic() + timeout
        with self._delivered_cond:
            while self._delivered < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._delivered_cond.wait(left)
            return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            channels = list(self._channels.values())
            self._channels.clear()
            for channel in channels:
                if channel.release_timer is not None:
                    channel.release_timer.cancel()
        for channel in channels:
            channel.button.close()

    def __enter__(self) -> TableButtons:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        pins = ", ".join(f"{n}={p}" for n, p in self._pins.items())
        return f"<TableButtons {pins}{' closed' if self._closed else ''}>"

    # --- edge handling -------------------------------------------------------

    def _pressed(self, channel: _Channel) -> None:
        with self._lock:
            if channel.release_timer is not None:
                # Went down again within the bounce time: the same press goes on.
                channel.release_timer.cancel()
                channel.release_timer = None
                return
            if channel.down:
                return
            channel.down = True
            channel.long_sent = False
            activity = self._when_activity
        if activity is not None:
            self._call(activity)

    def _released(self, channel: _Channel) -> None:
        with self._lock:
            if not channel.down or channel.release_timer is not None:
                return
            if self._bounce_time > 0:
                timer = threading.Timer(self._bounce_time, lambda: self._settled(channel, timer))
                timer.daemon = True
                channel.release_timer = timer
                timer.start()
                return
            short = self._finish(channel)
        if short:
            self._deliver(channel.name, False)

    def _settled(self, channel: _Channel, timer: threading.Timer) -> None:
        with self._lock:
            # A timer cancelled too late to stop must not end a newer release's wait.
            if channel.release_timer is not timer or self._closed:
                return
            channel.release_timer = None
            short = self._finish(channel)
        if short:
            self._deliver(channel.name, False)

    @staticmethod
    def _finish(channel: _Channel) -> bool:
        """The button is up for good; True when that makes a short press."""
        channel.down = False
        if channel.long_sent:
            channel.long_sent = False
            return False
        return True

    def _held(self, channel: _Channel) -> None:
        with self._lock:
            if not channel.down or channel.long_sent or self._closed:
                return
            channel.long_sent = True
        self._deliver(channel.name, True)

    def _deliver(self, name: str, long: bool) -> None:
        handler = self._when_input
        if handler is not None:
            self._call(handler, name, long)
        with self._delivered_cond:
            self._delivered += 1
            self._delivered_cond.notify_all()

    @staticmethod
    def _call(handler: Callable, *args) -> None:
        try:
            handler(*args)
        except Exception:
            # A faulty handler must not stop the buttons from working.
            log.exception(N_("button handler failed"))
