"""Simulated presses: drive the mock pins so a press runs the real Button code.

With gpiozero's MockFactory every pin is a ``MockPin``; pulling it low is
exactly what a real button does to a pulled-up input, so the debounce, hold
and release logic in :mod:`hardware.buttons` is the same in simulation as
on the table.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from hardware.buttons import TableButtons

# How long a simulated short press is held down; well under any sane hold_time.
SHORT_PRESS = 0.03


def press(
    buttons: TableButtons,
    name: str | Iterable[str],
    long: bool = False,
    *,
    wait: bool = True,
    timeout: float = 5.0,
) -> bool:
    """Press one button (or several together) and let go.

    ``long`` holds for a little more than ``hold_time``. With ``wait`` (the
    default) this returns once every press has been reported, so a caller
    can assert on what its handler saw. Returns False when a report did not
    arrive within ``timeout``.
    """
    names = [name] if isinstance(name, str) else list(name)
    unknown = [n for n in names if n not in buttons.names]
    if unknown:
        raise KeyError(f"no button named {', '.join(unknown)} (buttons: {', '.join(buttons.names)})")
    before = buttons.delivered
    pins = [buttons.button(n).pin for n in names]
    for pin in pins:
        pin.drive_low()
    if long:
        # Long presses are reported while the button is still down.
        buttons.wait_delivered(before + len(names), buttons.hold_time + timeout)
    else:
        time.sleep(min(SHORT_PRESS, buttons.hold_time / 4))
    for pin in pins:
        pin.drive_high()
    if not wait:
        return True
    return buttons.wait_delivered(before + len(names), timeout)


def bounce(buttons: TableButtons, name: str, chatter: int = 3, gap: float = 0.002) -> None:
    """A press whose contacts chatter at both ends, as cheap switches do."""
    pin = buttons.button(name).pin
    for _ in range(chatter):
        pin.drive_low()
        time.sleep(gap)
        pin.drive_high()
        time.sleep(gap)
    pin.drive_low()
    time.sleep(SHORT_PRESS)
    for _ in range(chatter):
        pin.drive_high()
        time.sleep(gap)
        pin.drive_low()
        time.sleep(gap)
    pin.drive_high()
