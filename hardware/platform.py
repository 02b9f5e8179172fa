"""Where TablePi runs: on a Raspberry Pi, or anywhere else in simulation.

In simulation gpiozero's own ``MockFactory`` provides the pins, so button
presses go through the real ``Button`` code; luma.core's ``dummy`` device
stands in for the OLED, and the camera renders synthetic dice. On a Pi the
pins come from lgpio (the only driver that works on a Pi 5).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hardware import N_
from hardware.board import on_pi

__all__ = ["Devices", "on_pi", "open_devices", "pin_factory"]

log = logging.getLogger(__name__)


def pin_factory(simulate: bool):
    """gpiozero's MockFactory in simulation; lgpio's factory on a Pi.

    Returns None when ``GPIOZERO_PIN_FACTORY`` is set: gpiozero then honours
    the user's choice itself.
    """
    if simulate:
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    if os.environ.get("GPIOZERO_PIN_FACTORY"):
        return None
    from gpiozero.pins.lgpio import LGPIOFactory

    return LGPIOFactory()


@dataclass
class Devices:
    """Everything physical on the table, opened together."""

    buttons: Any  # TableButtons | None (None when the pins could not be opened)
    display: Any  # TableDisplay, never None
    buzzer: Any  # TableBuzzer (silent when none is fitted or its pin failed)
    camera: Any  # a Camera (ResilientCamera)
    simulated: bool
    pin_factory: Any = None
    messages: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """What could not be opened, one message each (same as ``messages``)."""
        return self.messages

    def close(self) -> None:
        for part in (self.camera, self.buttons, self.buzzer, self.display):
            if part is None:
                continue
            try:
                part.close()
            except Exception as exc:
                log.warning(N_("closing %r: %s"), part, exc)
        factory = self.pin_factory
        if factory is not None:
            try:
                factory.close()
            except Exception as exc:
                log.debug("closing the pin factory: %s", exc)

    def __enter__(self) -> Devices:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_devices(
    cfg: Any,
    simulate: bool | None = None,
    *,
    on_camera_event: Callable[[str, str], None] | None = None,
) -> Devices:
    """Open the buttons, display, buzzer and camera for ``cfg`` (a Config).

    ``simulate=None`` means: simulate unless this is a Raspberry Pi. A part
    that cannot be opened is replaced or left out with a message in
    ``messages`` (and the log); the table runs with what is left.
    """
    from hardware.buttons import TableButtons
    from hardware.buzzer import TableBuzzer
    from hardware.cameras import open_camera
    from hardware.display import TableDisplay, open_display

    if simulate is None:
        simulate = not on_pi()
    messages: list[str] = []

    def note(message: str) -> None:
        messages.append(message)
        log.warning("%s", message)

    factory = None
    try:
        factory = pin_factory(simulate)
    except Exception as exc:
        note(N_("GPIO not available ({error}); buttons and buzzer are off").format(error=exc))

    display = TableDisplay(open_display(cfg.display, simulate), idle_seconds=cfg.display.idle_seconds)
    if display.simulated and not simulate:
        note(N_("no OLED answered on I2C; the screen is shown on the web page only"))

    buttons = None
    if factory is not None or not simulate:
        try:
            buttons = TableButtons(
                cfg.buttons.pins, cfg.buttons.hold_time, cfg.buttons.bounce_time, pin_factory=factory
            )
            buttons.when_activity = display.wake
        except Exception as exc:
            note(
                N_("buttons could not be opened on pins {pins} ({error}); use the web page instead").format(
                    pins=cfg.buttons.pins, error=exc
                )
            )

    buzzer_pin = cfg.buzzer.pin if factory is not None or not simulate else None
    try:
        buzzer = TableBuzzer(buzzer_pin, pin_factory=factory)
    except Exception as exc:
        note(
            N_("buzzer could not be opened on pin {pin} ({error}); continuing silently").format(
                pin=buzzer_pin, error=exc
            )
        )
        buzzer = TableBuzzer(None)

    # The camera starts grabbing on its first read(): a table that never looks costs nothing.
    camera = open_camera(cfg.camera, simulate, on_event=on_camera_event, start=False)
    return Devices(buttons, display, buzzer, camera, simulate, factory, messages)
