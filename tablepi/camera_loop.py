"""The camera loop: frames in, settled dice readings out. It knows no game.

:class:`CameraLoop` reads the camera at its frame rate, keeps the latest frame
for the web's view, and, while a game with dice wants readings, feeds the
settle detector (:class:`vision.settle.Settler`, which reads a rest on three
still frames, each in another view, and combines them: a die the frames do not
together read surely is unsure). Each rest is handed to
``on_settled`` with whether the dice were seen moving first; what a reading
means (the count, the kept dice, a roll) is the running controller's business.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from tablepi.i18n import N_

log = logging.getLogger(__name__)


class CameraLoop:
    """One camera's frames, settled into readings for whoever wants them."""

    def __init__(
        self,
        camera: Any,
        *,
        still_seconds: float,
        fps: float = 15.0,
        wanted: Callable[[], bool],
        on_frame: Callable[[Any], None],
        on_rolling: Callable[[], None],
        on_settled: Callable[[Any, list, bool], None],
        reader: Callable[[Any], list] | None = None,
        rest_reader: Callable[[list], list] | None = None,
    ) -> None:
        import vision
        from vision.settle import Settler

        self.camera = camera
        self.period = 1.0 / max(1.0, float(fps or 15.0))
        self._wanted = wanted
        self._on_frame = on_frame
        self._on_rolling = on_rolling
        self._on_settled = on_settled
        self._settler = Settler(
            still_seconds=still_seconds, reader=reader or vision.read_dice, rest_reader=rest_reader
        )
        self._changed = threading.Event()
        self._rolled = False
        self.settling_frames = 0  # frames the settle detector has seen since its reset

    def camera_changed(self) -> None:
        """The camera was lost or came back: frames from before say nothing about the dice now."""
        self._changed.set()

    def step(self) -> None:
        """Read one frame and pass on what it shows."""
        from vision.settle import READING, ROLLING

        try:
            frame = self.camera.read()
        except Exception as exc:
            frame = None
            log.debug("camera read failed: %s", exc)
        if self._changed.is_set():
            self._changed.clear()
            self._reset()
        if frame is None:
            return
        self._on_frame(frame)
        if not self._wanted():
            self._reset()
            return
        try:
            event = self._settler.feed(frame, time.monotonic())
            self.settling_frames += 1
        except Exception:
            log.exception(N_("the dice reader failed on a frame"))
            return
        if event is not None and event.kind == ROLLING:
            self._rolled = True
            self._on_rolling()
        elif event is not None and event.kind == READING:
            # Only dice that were seen moving make a roll: what lies in the
            # tray at start-up is shown, not played.
            rolled, self._rolled = self._rolled, False
            self._on_settled(frame, event.dice, rolled)

    def run(self, stop: threading.Event) -> None:
        """Step at the camera's frame rate until ``stop`` is set."""
        while not stop.is_set():
            started = time.monotonic()
            self.step()
            stop.wait(max(0.0, self.period - (time.monotonic() - started)))

    def _reset(self) -> None:
        self._settler.reset()
        self.settling_frames = 0
        self._rolled = False
