"""The buzzer: short named sounds for the timer and for mistakes.

An active buzzer on one GPIO pin, driven by gpiozero's ``Buzzer``. Sounds
play in the background (gpiozero's ``blink``), so a caller never waits for
one. With no pin configured the buzzer is silent, which is not an error:
``play`` still reports what would have sounded (the web panel shows it).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from hardware import N_

log = logging.getLogger(__name__)

# name -> (seconds on, seconds off, repeats)
PATTERNS: dict[str, tuple[float, float, int]] = {
    "tick": (0.03, 0.0, 1),
    "warning": (0.1, 0.1, 3),
    "end": (0.6, 0.2, 3),
    "error": (0.08, 0.08, 2),
}


class TableBuzzer:
    """Plays the named patterns in :data:`PATTERNS` on an active buzzer."""

    def __init__(self, pin: int | None, pin_factory=None):
        self._pin = pin
        self._device = None
        self._lock = threading.Lock()
        self._when_played: Callable[[str], None] | None = None
        self._last: tuple[str, float] | None = None
        if pin is not None:
            from gpiozero import Buzzer

            self._device = Buzzer(pin, pin_factory=pin_factory)

    @property
    def pin(self) -> int | None:
        return self._pin

    @property
    def silent(self) -> bool:
        """True when no buzzer is fitted."""
        return self._device is None

    @property
    def device(self):
        """The gpiozero Buzzer, or None."""
        return self._device

    @property
    def last(self) -> tuple[str, float] | None:
        """The last pattern played and when (time.monotonic)."""
        return self._last

    @property
    def when_played(self) -> Callable[[str], None] | None:
        """Called with the pattern name each time one is played."""
        return self._when_played

    @when_played.setter
    def when_played(self, handler: Callable[[str], None] | None) -> None:
        self._when_played = handler

    @staticmethod
    def duration(pattern: str) -> float:
        on, off, n = PATTERNS[pattern]
        return on * n + off * max(0, n - 1)

    def play(self, pattern: str) -> None:
        """Start ``pattern`` in the background; a new one cuts off the one playing."""
        if pattern not in PATTERNS:
            raise ValueError(f"unknown buzzer pattern {pattern!r} (known: {', '.join(PATTERNS)})")
        on, off, n = PATTERNS[pattern]
        with self._lock:
            self._last = (pattern, time.monotonic())
            if self._device is not None:
                try:
                    self._device.blink(on_time=on, off_time=off, n=n, background=True)
                except Exception as exc:  # a pin gone bad must not stop the game
                    log.warning(N_("buzzer failed: %s"), exc)
        handler = self._when_played
        if handler is not None:
            try:
                handler(pattern)
            except Exception:
                log.exception(N_("buzzer handler failed"))

    def stop(self) -> None:
        with self._lock:
            if self._device is not None:
                self._device.off()

    def close(self) -> None:
        with self._lock:
            if self._device is not None:
                self._device.close()
                self._device = None

    def __enter__(self) -> TableBuzzer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<TableBuzzer silent>" if self._pin is None else f"<TableBuzzer pin={self._pin}>"
