"""TablePi hardware: buttons, OLED, buzzer and cameras, real or simulated.

``from hardware import open_devices`` opens them all for a Config; the
modules are ``buttons``, ``display`` (with ``screens``), ``buzzer``,
``cameras``, ``platform`` (Pi detection, pin factories, ``Devices``) and
``sim`` (simulated button presses). Heavy libraries (OpenCV, luma, gpiozero)
load only when the module that needs them is imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hardware.platform import Devices, on_pi, open_devices

__all__ = ["Devices", "on_pi", "open_devices"]


def N_(text: str) -> str:
    """Marks a message for the players' catalog (tablepi/locale): the table and its
    commands say the finished English in their language (tablepi.i18n.Words.text)."""
    return text


def __getattr__(name: str) -> Any:
    if name in __all__:
        from hardware import platform

        return getattr(platform, name)
    raise AttributeError(f"module 'hardware' has no attribute {name!r}")
