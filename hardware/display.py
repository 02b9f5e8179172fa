"""The 128x64 OLED (SSD1306 or SH1106 on I2C) through luma.oled.

:class:`TableDisplay` draws the table's screens with luma's ``canvas`` on any
luma device: the real OLED, or luma.core's ``dummy`` device in simulation and
when no OLED answers. It keeps a copy of what is shown (``image``, ``png()``)
with a ``version`` that changes on every redraw, so a web page can poll it
cheaply. While the danger coin is up, ``secret`` is True: whoever mirrors the
screen elsewhere must not show it then. Screens that show the PIN are drawn a
second time with the PIN masked (``mirror_png()``): the PIN is for the people
at the table, and a mirror of the screen may reach anyone on the network.
"""

from __future__ import annotations

import io
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from luma.core.device import dummy
from luma.core.error import Error as LumaError
from luma.core.render import canvas
from PIL import Image, ImageDraw

from hardware import N_, screens

log = logging.getLogger(__name__)

WIDTH, HEIGHT = 128, 64
# What a mirror of the screen shows in place of the PIN.
PIN_MASK = "******"
BRIGHT = 0xCF  # the SSD1306's power-on contrast
DIM = 0x08


def open_display(cfg: Any = None, simulate: bool = False):
    """A luma device for ``cfg`` (a DisplayConfig): the real OLED, or a dummy.

    A missing or silent OLED is not an error: the table still runs, and the
    dummy device keeps what would have been shown (the web page mirrors it).
    """
    rotate = int(getattr(cfg, "rotate", 0) or 0)
    if simulate:
        return dummy(width=WIDTH, height=HEIGHT, rotate=rotate, mode="1")
    driver = getattr(cfg, "driver", "ssd1306")
    port = int(getattr(cfg, "port", 1))
    address = int(getattr(cfg, "address", 0x3C))
    try:
        from luma.core.interface.serial import i2c
        from luma.oled.device import sh1106, ssd1306

        serial = i2c(port=port, address=address)
        device_class = sh1106 if driver == "sh1106" else ssd1306
        return device_class(serial, width=WIDTH, height=HEIGHT, rotate=rotate)
    except Exception as exc:  # luma raises several kinds, all meaning "no OLED here"
        log.warning(
            N_(
                "OLED (%s on I2C bus %d, address 0x%02X) not available: %s; "
                "continuing without it (the web page still shows the screen)"
            ),
            driver,
            port,
            address,
            exc,
        )
        return dummy(width=WIDTH, height=HEIGHT, rotate=rotate, mode="1")


class TableDisplay:
    """The table's screens on a luma device."""

    def __init__(
        self,
        device=None,
        idle_seconds: float = 120,
        clock: Callable[[], float] = time.monotonic,
        translate: Callable[[str], str] | None = None,
    ):
        # Turns the English words of a screen into the table's language (the
        # table sets it: tablepi.i18n.Words.text); none keeps them in English.
        self.translate: Callable[[str], str] = translate or _same
        self._device = device if device is not None else dummy(width=WIDTH, height=HEIGHT, mode="1")
        self._clock = clock
        self._idle_seconds = float(idle_seconds)
        self._lock = threading.RLock()
        self._image = Image.new("1", self._device.size)
        # The same screen with the PIN masked, or None when nothing on it is masked.
        self._mirror: Image.Image | None = None
        self._version = 0
        self._secret = False
        self._screen = "clear"
        self._dimmed = False
        self._last_activity = clock()
        self._last_boxes: list[tuple[int, int, int, int]] = []
        self._last_painter: screens.Painter | None = None
        self._write_ok = True
        # A mark in the top right corner on every screen (the venue link being
        # down), and the last screen drawn, to draw it again when the mark changes.
        self._badge: str | None = None
        self._last_show: tuple | None = None
        self._contrast(BRIGHT)
        self.clear()

    # --- properties ----------------------------------------------------------

    @property
    def device(self):
        return self._device

    @property
    def simulated(self) -> bool:
        """True when no real OLED is attached (luma's dummy device stands in)."""
        return isinstance(self._device, dummy)

    @property
    def responding(self) -> bool:
        """False after the last write to the OLED failed (the image is still kept)."""
        return self._write_ok

    @property
    def image(self) -> Image.Image:
        """A copy of what is on the screen now (mode "1", 128x64)."""
        with self._lock:
            return self._image.copy()

    @property
    def secret(self) -> bool:
        """True while the screen shows something only the table may see."""
        return self._secret

    @property
    def screen(self) -> str:
        """The name of the screen shown (``"countdown"``, ``"coin"``, ...)."""
        return self._screen

    @property
    def version(self) -> int:
        return self._version

    @property
    def badge(self) -> str | None:
        """The mark drawn in the top right corner of every screen, or None."""
        return self._badge

    def set_badge(self, badge: str | None) -> None:
        """Mark every screen with ``badge`` (see ``screens.badge``), or take the
        mark off (None); the screen on show is drawn again at once, unless it
        holds a secret (the mark then shows from the next screen on)."""
        with self._lock:
            if badge == self._badge:
                return
            self._badge = badge
            if self._last_show is not None and not self._secret:
                name, painter, args, mirror = self._last_show
                self._show(name, painter, *args, mirror=mirror, quiet=True)

    @property
    def dimmed(self) -> bool:
        return self._dimmed

    @property
    def idle_seconds(self) -> float:
        return self._idle_seconds

    @idle_seconds.setter
    def idle_seconds(self, value: float) -> None:
        self._idle_seconds = float(value)

    @property
    def drawn_boxes(self) -> list[tuple[int, int, int, int]]:
        """Bounding boxes of everything the last screen drew (for checks)."""
        return list(self._last_boxes)

    @property
    def drawn_texts(self) -> list[tuple[str, int]]:
        """The texts the last screen drew, with their font sizes (for checks)."""
        return list(self._last_painter.texts) if self._last_painter is not None else []

    @property
    def shortened_texts(self) -> list[tuple[str, str]]:
        """Texts the last screen had to shorten to fit, as (asked, drawn) (for checks)."""
        return list(self._last_painter.shortened) if self._last_painter is not None else []

    def png(self) -> bytes:
        """What is on the screen now, as PNG bytes (secret or not: check ``secret``)."""
        with self._lock:
            return _png(self._image)

    def mirror_png(self) -> bytes:
        """What a mirror of the screen may show: the screen with the PIN masked
        (secret or not: check ``secret``)."""
        with self._lock:
            return _png(self._mirror if self._mirror is not None else self._image)

    def public_png(self) -> tuple[int, bytes | None]:
        """``(version, png)`` taken together, with the screen under a secret one
        (or None if nothing is known to be under it) instead of the secret.

        For mirrors of the screen (the web page): checking ``secret`` and then
        calling ``png()`` could race with a coin being drawn in between.
        """
        with self._lock:
            if self._secret:
                return self._version, None if self._mirror is None else _png(self._mirror)
            return self._version, _png(self._mirror if self._mirror is not None else self._image)

    def table_png(self) -> tuple[int, bytes]:
        """``(version, png)`` of the screen as the table's own OLED shows it,
        secret included, the PIN masked: for the simulated table's /device
        only, where the browser is the table."""
        with self._lock:
            if self._secret:
                return self._version, _png(self._image)
            return self._version, _png(self._mirror if self._mirror is not None else self._image)

    # --- screens -------------------------------------------------------------

    def start(self, address: str, pin: str, camera: str = "") -> None:
        self._show("start", screens.start, address, pin, camera, mirror=(address, PIN_MASK, camera))

    def countdown(self, seconds: float, label: str = "", under: bool = False) -> None:
        """The mission timer; with ``under`` while a secret is up, drawn for
        the mirrors only (the OLED keeps the secret)."""
        self._show("countdown", screens.countdown, seconds, label, under=under)

    def coin(self, result: str) -> None:
        if result not in ("alien", "human"):
            raise ValueError(f"coin result must be 'alien' or 'human', not {result!r}")
        with self._lock:
            # Mirrors go on showing the screen the coin covers (and what is
            # drawn under it), so nothing a watcher sees marks the flip.
            under = (self._mirror if self._mirror is not None else self._image).copy()
            self._show("coin", screens.coin, result, secret=True)
            self._mirror = under

    def dice(self, values: list[int | None], player: str, note: str = "", kept: tuple[int, ...] = ()) -> None:
        self._show("dice", screens.dice, list(values), player, note, tuple(kept))

    def options(self, items: list[str], cursor: int, title: str = "") -> None:
        self._show("options", screens.options, list(items), cursor, title)

    def error(self, message: str) -> None:
        self._show("error", screens.error, message)

    def standings(self, rows: list[tuple[str, int]], cursor: int | None = None, title: str = "") -> None:
        self._show("standings", screens.standings, list(rows), cursor, title)

    def message(self, lines: list[str], mirror: list[str] | None = None) -> None:
        """``lines`` on the screen; ``mirror`` in their place on mirrors of it
        (for a message that holds the PIN)."""
        self._show(
            "message", screens.message, list(lines), mirror=None if mirror is None else (list(mirror),)
        )

    def test_pattern(self) -> None:
        """A border, diagonals and a checkerboard corner: shows every pixel works."""
        self._show("test", _test_pattern)

    def clear(self) -> None:
        self._show("clear", lambda p: None)

    # --- dimming -------------------------------------------------------------

    def tick(self, now: float | None = None) -> None:
        """Dim the screen once it has been idle for ``idle_seconds`` (0 = never)."""
        now = self._clock() if now is None else now
        with self._lock:
            if self._dimmed or self._idle_seconds <= 0:
                return
            if now - self._last_activity >= self._idle_seconds:
                self._contrast(DIM)
                self._dimmed = True

    def wake(self, now: float | None = None) -> None:
        """Full brightness again; called on every button press."""
        with self._lock:
            self._last_activity = self._clock() if now is None else now
            if self._dimmed:
                self._contrast(BRIGHT)
                self._dimmed = False

    def close(self) -> None:
        with self._lock:
            try:
                self._device.cleanup()
            except Exception as exc:  # closing a vanished OLED must not stop shutdown
                log.warning(N_("OLED cleanup failed: %s"), exc)

    def __enter__(self) -> TableDisplay:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- internals -----------------------------------------------------------

    def _contrast(self, level: int) -> None:
        try:
            self._device.contrast(level)
        except Exception as exc:
            log.warning(N_("OLED contrast change failed: %s"), exc)

    def _show(
        self,
        name: str,
        painter: Callable,
        *args,
        secret: bool = False,
        mirror: tuple | None = None,
        under: bool = False,
        quiet: bool = False,
    ) -> None:
        with self._lock:
            if under and self._secret:
                self._mirror = self._draw_off_screen(painter, args)
                self._version += 1
                return
            if not secret:
                self._last_show = (name, painter, args, mirror)
            frame = canvas(self._device)
            try:
                with frame as draw:
                    p = screens.Painter(draw, self._device.size, self.translate)
                    painter(p, *args)
                    if self._badge:
                        screens.badge(p, self._badge)
            except (OSError, LumaError) as exc:
                # The OLED vanished mid-game (loose wire): keep the picture, keep going,
                # and say so once rather than on every redraw.
                if self._write_ok:
                    log.warning(N_("OLED write failed: %s; the screen is kept for the web page"), exc)
                self._write_ok = False
            else:
                if not self._write_ok:
                    log.info(N_("OLED responding again"))
                self._write_ok = True
            image = frame.image.convert("1") if frame.image.mode != "1" else frame.image
            changed = image.tobytes() != self._image.tobytes()
            self._image = image
            self._last_boxes = p.boxes
            self._last_painter = p
            self._mirror = None if mirror is None else self._draw_off_screen(painter, mirror)
            self._screen = name
            self._secret = secret
            self._version += 1
            if changed and name != "clear" and not quiet:
                self.wake()

    def _draw_off_screen(self, painter: Callable, args: tuple) -> Image.Image:
        image = Image.new("1", self._device.size)
        p = screens.Painter(ImageDraw.Draw(image), self._device.size, self.translate)
        painter(p, *args)
        if self._badge:
            screens.badge(p, self._badge)
        return image


def _same(text: str) -> str:
    return text


def _png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.convert("L").save(buf, format="PNG")
    return buf.getvalue()


def _test_pattern(p: screens.Painter) -> None:
    p.rect((0, 0, p.width - 1, p.height - 1), outline=screens.WHITE)
    p.line([(0, 0), (p.width - 1, p.height - 1)])
    p.line([(0, p.height - 1), (p.width - 1, 0)])
    for y in range(4, 20, 4):
        for x in range(4, 36, 4):
            if (x + y) % 8 == 0:
                p.rect((x, y, x + 3, y + 3), fill=screens.WHITE)
    p.rect((40, 22, 88, 42), fill=screens.BLACK)
    p.text((p.width / 2, 32), "TEST", 14, anchor="mm")
