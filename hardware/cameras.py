"""Cameras: where the frames of the dice tray come from.

Every source offers the same small interface (:class:`Camera`): ``read()``
returns the latest BGR frame as a numpy array, or None when there is none;
``size`` is ``(width, height)``; ``close()`` releases the device, and each is
a context manager.

- :class:`PiCamera`: the Raspberry Pi camera through picamera2 (Pi only;
  picamera2 comes from Raspberry Pi OS's apt packages).
- :class:`OpenCVCamera`: a USB webcam by index or device path.
- :class:`ReplayCamera`: photos from a folder, in name order, looping.
- :class:`SyntheticCamera`: rendered dice with known values, for simulation
  and tests; deterministic for a seed.
- :class:`ResilientCamera`: wraps any of these, grabs on a background thread
  and reopens a source that fails, with exponential backoff.

:func:`open_camera` picks the source from the ``[camera]`` settings.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware import N_
from hardware.board import on_pi
from vision.synth import draw_die

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}

EventHandler = Callable[[str, str], None]


class CameraError(RuntimeError):
    """A camera could not be opened or has stopped working."""


class Camera:
    """The interface every frame source offers."""

    def read(self) -> np.ndarray | None:
        """The latest BGR frame (height x width x 3, uint8), or None."""
        raise NotImplementedError

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the frames."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# --- real cameras ---------------------------------------------------------------


def load_picamera2() -> Any:
    """picamera2's ``Picamera2`` class, or a CameraError that says why it cannot load.

    picamera2 comes from Raspberry Pi OS's apt; it fails to import for more
    reasons than its absence (apt's simplejpeg built for another numpy raises
    ValueError, a broken libcamera raises anything), and each must be said."""
    try:
        from picamera2 import Picamera2
    except ImportError as exc:
        if getattr(exc, "name", None) in ("picamera2", None) and "picamera2" in str(exc):
            raise CameraError(
                "picamera2 is not installed (on Raspberry Pi OS: sudo apt install python3-picamera2)"
            ) from exc
        raise CameraError(f"picamera2 does not import: {exc}") from exc
    except Exception as exc:
        raise CameraError(
            f"picamera2 does not import ({type(exc).__name__}: {exc}); "
            "reinstall the table's environment with systemd/pi-env.sh"
        ) from exc
    return Picamera2


def pi_cameras(picamera2: Any) -> list[dict]:
    """The cameras libcamera offers that sit on the Pi's camera connector (not USB webcams)."""
    try:
        cameras = picamera2.global_camera_info()
    except Exception as exc:
        log.debug("libcamera lists no cameras: %s", exc)
        return []
    # libcamera also offers USB webcams; those are better read through OpenCV.
    return [c for c in cameras if "usb" not in str(c.get("Id", "")).lower()]


AF_MODE_MANUAL = 0  # libcamera.controls.AfModeEnum.Manual
AF_MODE_CONTINUOUS = 2  # libcamera.controls.AfModeEnum.Continuous


class PiCamera(Camera):
    """A Raspberry Pi camera module through picamera2 (imported here only).

    A camera that fails to configure or start is closed at once, so the next
    attempt finds it free. A frame that does not come within ``timeout``
    seconds (a loose ribbon) raises CameraError, and the grabber reopens.
    With autofocus (Camera Module 3) the lens focuses continuously, or stays
    at ``lens_position`` dioptres when one is given.
    """

    def __init__(
        self,
        width: int = 640,
        height: int = 480,
        fps: float = 15,
        *,
        lens_position: float | None = None,
        timeout: float = 2.0,
    ):
        picamera2 = load_picamera2()
        if not pi_cameras(picamera2):
            raise CameraError("no camera on the Pi's camera connector (rpicam-hello --list-cameras)")
        try:
            # The list is ordered camera-connector cameras first: 0 is one of those.
            cam = picamera2(0)
        except Exception as exc:
            raise CameraError(f"the Pi camera did not open: {exc}") from exc
        self._cam = cam
        self._timeout = float(timeout)
        self._size = (int(width), int(height))
        try:
            # libcamera's "RGB888" is stored B, G, R: exactly OpenCV's order.
            config = cam.create_video_configuration(
                main={"size": self._size, "format": "RGB888"},
                controls={"FrameRate": float(fps)},
            )
            cam.configure(config)
            self.focus = self._focus(lens_position)
            cam.start()
        except Exception as exc:
            self.close()
            raise CameraError(f"the Pi camera did not start: {exc}") from exc

    def _focus(self, lens_position: float | None) -> str:
        if "AfMode" not in (self._cam.camera_controls or {}):
            return "fixed lens"
        if lens_position is None:
            self._cam.set_controls({"AfMode": AF_MODE_CONTINUOUS})
            return "continuous autofocus"
        self._cam.set_controls({"AfMode": AF_MODE_MANUAL, "LensPosition": float(lens_position)})
        return f"lens at {lens_position:g} dioptres"

    def read(self) -> np.ndarray | None:
        if self._cam is None:
            raise CameraError("the Pi camera is closed")
        try:
            frame = self._cam.capture_array("main", wait=self._timeout)
        except TimeoutError as exc:
            # The request stays queued inside picamera2 until flushed; then the camera can close.
            try:
                self._cam.cancel_all_and_flush()
            except Exception as flush_exc:
                log.debug("flushing the Pi camera: %s", flush_exc)
            raise CameraError(f"no frame from the Pi camera within {self._timeout:g} s") from exc
        if frame is None:
            return None
        if frame.ndim == 3 and frame.shape[2] == 4:
            frame = frame[:, :, :3]
        return np.ascontiguousarray(frame)

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is None:
            return
        try:
            cam.close()  # stops the camera first when it runs
        except Exception as exc:
            log.warning(N_("closing the Pi camera: %s"), exc)

    def __repr__(self) -> str:
        return f"<PiCamera {self._size[0]}x{self._size[1]}>"


class OpenCVCamera(Camera):
    """A webcam through OpenCV, by index (0, 1, ...) or device path."""

    def __init__(self, device: int | str = 0, width: int = 640, height: int = 480, fps: float = 15):
        self.device = device
        self._cap = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraError(f"no camera at {device!r}")
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._cap.set(cv2.CAP_PROP_FPS, fps)
        self._size = (
            int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)) or int(width),
            int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)) or int(height),
        )

    def read(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        if not ok or frame is None:
            return None
        self._size = (frame.shape[1], frame.shape[0])
        return frame

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    def close(self) -> None:
        self._cap.release()

    def __repr__(self) -> str:
        return f"<OpenCVCamera {self.device!r}>"


class ReplayCamera(Camera):
    """Photos from a folder, in name order, starting again after the last.

    Each photo is returned ``hold_frames`` times before the next, so a roll
    "settles" for the dice reader as it would under a real camera. A photo
    that cannot be decoded reads as None (and is logged once).
    """

    def __init__(self, folder: str | Path, hold_frames: int = 1):
        self.folder = Path(folder).expanduser()
        if not self.folder.is_dir():
            raise CameraError(f"replay folder {self.folder} does not exist")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"no photos ({', '.join(sorted(IMAGE_SUFFIXES))}) in {self.folder}")
        self.hold_frames = max(1, int(hold_frames))
        self._index = 0
        self._held = 0
        self._bad: set[Path] = set()
        self._size: tuple[int, int] | None = None

    @property
    def current(self) -> Path:
        """The photo the next read() returns."""
        return self.files[self._index]

    def read(self) -> np.ndarray | None:
        path = self.files[self._index]
        self._held += 1
        if self._held >= self.hold_frames:
            self._held = 0
            self._index = (self._index + 1) % len(self.files)
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            if path not in self._bad:
                self._bad.add(path)
                log.warning(N_("replay: %s is not a readable image; skipped"), path.name)
            return None
        self._size = (frame.shape[1], frame.shape[0])
        return frame

    @property
    def size(self) -> tuple[int, int]:
        if self._size is None:
            for path in self.files:
                frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if frame is not None:
                    self._size = (frame.shape[1], frame.shape[0])
                    break
            else:
                return (0, 0)
        return self._size

    def __repr__(self) -> str:
        return f"<ReplayCamera {self.folder} ({len(self.files)} photos)>"


# --- synthetic dice ---------------------------------------------------------------

# Die bodies (BGR); pips are always dark.
BODIES = [
    (240, 240, 238),  # white
    (200, 232, 244),  # ivory
    (80, 210, 240),  # yellow
    (70, 150, 245),  # orange
    (235, 195, 130),  # light blue
    (150, 215, 150),  # light green
    (75, 80, 215),  # red
]
PIP_COLOURS = [(25, 25, 25), (40, 30, 30), (30, 25, 60)]

# Table surfaces (BGR): green felt, blue felt, wood, grey board.
SURFACES = [(60, 105, 45), (105, 70, 40), (50, 85, 125), (95, 95, 95)]


@dataclass
class SyntheticDie:
    value: int
    center: tuple[float, float]
    size: float
    angle: float
    body: tuple[int, int, int]
    pip: tuple[int, int, int]

    @property
    def box(self) -> list[float]:
        """Axis-aligned box around the rotated face, in pixels."""
        a = math.radians(self.angle)
        half = self.size / 2 * (abs(math.cos(a)) + abs(math.sin(a)))
        cx, cy = self.center
        return [cx - half, cy - half, cx + half, cy + half]


class SyntheticCamera(Camera):
    """Rendered dice on a table: every value known, deterministic for a seed.

    ``roll()`` throws the dice not kept; ``values`` and ``boxes`` give the
    truth in die order. Frames differ only by sensor noise until the next
    roll. ``tumble`` seconds after a roll the dice are shown still moving
    (the clock is injectable), so a settle detector sees a real roll.
    """

    NOISE_FRAMES = 4

    def __init__(
        self,
        seed: int = 0,
        dice: int = 5,
        size: tuple[int, int] = (640, 480),
        *,
        die_size: float | None = None,
        noise: float = 3.0,
        tumble: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.seed = int(seed)
        self._rng = np.random.default_rng(self.seed)
        self._w, self._h = int(size[0]), int(size[1])
        if self._w < 64 or self._h < 64:
            raise ValueError("synthetic frames must be at least 64x64")
        scale = min(self._w, self._h) / 480
        self._die_size = float(die_size) if die_size else float(self._rng.uniform(58, 78)) * scale
        self._count = int(dice)
        self._tumble = float(tumble)
        self._clock = clock
        self._lock = threading.Lock()
        self._surface, self._light = self._make_background()
        self._noise = self._make_noise(noise)
        self._frame_no = 0
        self._dice: list[SyntheticDie] = []
        self._from: list[tuple[float, float, float]] | None = None  # tumble start per die
        self._rolled_at = -math.inf
        self._base: np.ndarray = self._surface
        self.roll()

    # --- truth ---------------------------------------------------------------

    @property
    def values(self) -> list[int]:
        return [d.value for d in self._dice]

    @property
    def boxes(self) -> list[list[float]]:
        return [d.box for d in self._dice]

    @property
    def dice(self) -> list[SyntheticDie]:
        return list(self._dice)

    @property
    def die_size(self) -> float:
        return self._die_size

    @property
    def rolling(self) -> bool:
        return self._clock() - self._rolled_at < self._tumble

    @property
    def size(self) -> tuple[int, int]:
        return (self._w, self._h)

    # --- rolling -------------------------------------------------------------

    def roll(self, values: Sequence[int] | None = None, keep: Iterable[int] = ()) -> list[int]:
        """Throw every die whose index is not in ``keep``; return the values.

        With ``values`` (one per die) the thrown dice land showing those
        values; kept dice stay where they are, showing what they showed.
        """
        keep = {int(i) for i in keep}
        if any(i < 0 or i >= self._count for i in keep):
            raise ValueError(f"keep indices must be 0..{self._count - 1}")
        if values is not None:
            values = [int(v) for v in values]
            if len(values) != self._count or any(not 1 <= v <= 6 for v in values):
                raise ValueError(f"values must be {self._count} numbers 1-6")
        with self._lock:
            rng = self._rng
            old = self._dice
            placed = [old[i] for i in sorted(keep) if i < len(old)]
            new: list[SyntheticDie] = []
            starts: list[tuple[float, float, float]] = []
            for index in range(self._count):
                if index in keep and index < len(old):
                    new.append(old[index])
                    starts.append((old[index].center[0], old[index].center[1], old[index].angle))
                    continue
                value = values[index] if values is not None else int(rng.integers(1, 7))
                size = self._die_size * float(rng.uniform(0.97, 1.03))
                center = self._free_spot(size, placed, rng)
                body = BODIES[int(rng.integers(0, len(BODIES)))]
                pip = PIP_COLOURS[int(rng.integers(0, len(PIP_COLOURS)))]
                die = SyntheticDie(value, center, size, float(rng.uniform(0, 90)), body, pip)
                placed.append(die)
                new.append(die)
                # Where a thrown die comes from while it tumbles: off towards an edge.
                starts.append(
                    (
                        float(rng.uniform(0, self._w)),
                        float(rng.uniform(-0.2, 0.2) * self._h),
                        float(rng.uniform(-360, 360)),
                    )
                )
            self._dice = new
            self._from = starts
            self._moving = [not (i in keep and i < len(old)) for i in range(self._count)]
            self._rolled_at = self._clock()
            self._base = self._compose(new)
            return self.values

    def _free_spot(
        self, size: float, placed: list[SyntheticDie], rng: np.random.Generator
    ) -> tuple[float, float]:
        margin = size * 0.85
        for _ in range(500):
            cx = float(rng.uniform(margin, self._w - margin))
            cy = float(rng.uniform(margin, self._h - margin))
            if all(math.hypot(cx - d.center[0], cy - d.center[1]) > (size + d.size) * 0.78 for d in placed):
                return (cx, cy)
        raise ValueError(f"no room for {self._count} dice of {size:.0f} px in {self._w}x{self._h}")

    # --- frames --------------------------------------------------------------

    def read(self) -> np.ndarray | None:
        with self._lock:
            i = self._frame_no % self.NOISE_FRAMES
            self._frame_no += 1
            elapsed = self._clock() - self._rolled_at
            if elapsed < self._tumble:
                base = self._tumbling(elapsed / self._tumble)
            else:
                base = self._base
            up, down = self._noise[i]
            frame = cv2.add(base, up)
            cv2.subtract(frame, down, dst=frame)
            return frame

    def render(self) -> np.ndarray:
        """The current scene with no sensor noise."""
        with self._lock:
            return self._base.copy()

    def _tumbling(self, t: float) -> np.ndarray:
        # Ease out: fast at first, slowing to a stop where the die lands.
        ease = 1 - (1 - t) ** 3
        moving = []
        for die, start, is_moving in zip(self._dice, self._from or [], self._moving, strict=False):
            if not is_moving:
                moving.append(die)
                continue
            sx, sy, sa = start
            cx = sx + (die.center[0] - sx) * ease
            cy = sy + (die.center[1] - sy) * ease
            angle = sa + (die.angle - sa) * ease
            value = die.value if t > 0.8 else (die.value + int(t * 12)) % 6 + 1
            moving.append(SyntheticDie(value, (cx, cy), die.size, angle, die.body, die.pip))
        return self._compose(moving)

    def _make_background(self) -> tuple[np.ndarray, np.ndarray]:
        rng, w, h = self._rng, self._w, self._h
        colour = np.array(SURFACES[int(rng.integers(0, len(SURFACES)))], np.float32)
        # Large soft blotches plus fine grain: felt or wood rather than a flat fill.
        coarse = rng.normal(0, 1, (max(2, h // 60), max(2, w // 60))).astype(np.float32)
        coarse = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
        grain = rng.standard_normal((h, w), dtype=np.float32)
        grain = cv2.GaussianBlur(grain, (0, 0), sigmaX=1.2, sigmaY=0.6 if rng.random() < 0.5 else 1.2)
        texture = 1 + 0.05 * coarse + 0.06 * grain
        surface = np.clip(colour[None, None, :] * texture[:, :, None], 0, 255).astype(np.uint8)
        # Lighting: a lamp off to one side, darker towards the far corner.
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        lx, ly = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        dist = np.hypot(xx - lx, yy - ly) / math.hypot(w, h)
        light = (1.15 - 0.45 * dist).astype(np.float32)
        return surface, light[:, :, None]

    def _make_noise(self, sigma: float) -> list[tuple[np.ndarray, np.ndarray]]:
        bank = []
        for _ in range(self.NOISE_FRAMES):
            n = self._rng.standard_normal((self._h, self._w, 3), dtype=np.float32) * np.float32(sigma)
            bank.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        return bank

    def _compose(self, dice: list[SyntheticDie]) -> np.ndarray:
        # The dice are drawn as the reader's rendered training frames draw them (vision.synth).
        img = self._surface.copy()
        for die in dice:
            draw_die(img, die.value, die.center, die.size, die.angle, die.body, die.pip)
        return np.clip(img.astype(np.float32) * self._light, 0, 255).astype(np.uint8)


# --- resilience -------------------------------------------------------------------


class ResilientCamera(Camera):
    """Grabs frames on a background thread and survives a failing source.

    Grabbing starts at once, or with ``start=False`` on the first ``read()``
    (so a camera nobody uses costs nothing).
    ``read()`` returns the latest frame, waiting at most one frame period for
    a fresh one, so a slow or stuck camera never stalls its caller. A source
    that raises, or returns nothing several times running, is closed and
    reopened with exponential backoff; ``on_event("lost", message)`` and
    ``on_event("restored", message)`` report each change (once per change).
    While the camera is lost ``read()`` returns None, never a stale frame.
    """

    def __init__(
        self,
        open_fn: Callable[[], Camera],
        on_event: EventHandler | None = None,
        frame_period: float = 1 / 15,
        *,
        size: tuple[int, int] | None = None,
        max_misses: int = 5,
        first_backoff: float = 0.1,
        max_backoff: float = 5.0,
        stale_after: float | None = None,
        name: str = "camera",
        start: bool = True,
    ):
        self._open_fn = open_fn
        self.on_event = on_event
        self.frame_period = float(frame_period)
        self.name = name
        self._size = size
        self._max_misses = max(1, int(max_misses))
        self._first_backoff = float(first_backoff)
        self._max_backoff = float(max_backoff)
        self._stale_after = float(stale_after) if stale_after else max(1.0, 10 * self.frame_period)
        self._cond = threading.Condition()
        self._frame: np.ndarray | None = None
        self._frame_time = 0.0
        self._seq = 0
        self._read_seq = 0
        self._connected: bool | None = None  # None until the first open attempt
        self._stop = threading.Event()
        self._source: Camera | None = None
        self.reopens = 0
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        if start:
            self.start()

    def start(self) -> None:
        """Start grabbing (done by the first read() when not started at once)."""
        with self._start_lock:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name=f"{self.name}-grabber", daemon=True)
                self._thread.start()

    @property
    def connected(self) -> bool:
        return bool(self._connected)

    @property
    def frames(self) -> int:
        """How many frames have been grabbed so far."""
        return self._seq

    @property
    def source(self) -> Camera | None:
        return self._source

    @property
    def size(self) -> tuple[int, int]:
        with self._cond:
            if self._frame is not None:
                return (self._frame.shape[1], self._frame.shape[0])
        if self._source is not None:
            return self._source.size
        return self._size or (0, 0)

    def read(self) -> np.ndarray | None:
        if self._thread is None:
            self.start()
        deadline = time.monotonic() + self.frame_period
        with self._cond:
            while self._seq == self._read_seq and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            self._read_seq = self._seq
            frame, taken = self._frame, self._frame_time
        if frame is None:
            return None
        if time.monotonic() - taken > self._stale_after:
            # The grabber is stuck inside the driver: report it, show nothing old.
            self._set_connected(False, f"{self.name}: no frame for {self._stale_after:.1f} s")
            return None
        return frame.copy()

    def wait_frame(self, timeout: float) -> np.ndarray | None:
        """The first frame to arrive within ``timeout`` seconds (for one-off grabs)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            frame = self.read()
            if frame is not None:
                return frame
        return None

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            # A driver stuck inside read() is left behind (the thread is a daemon).
            self._thread.join(timeout=1.0)
        self._close_source()

    def __repr__(self) -> str:
        state = "connected" if self._connected else "lost" if self._connected is False else "opening"
        return f"<ResilientCamera {self._source!r} {state}>"

    # --- background grabbing ----------------------------------------------------

    def _run(self) -> None:
        backoff = self._first_backoff
        misses = 0
        while not self._stop.is_set():
            if self._source is None:
                try:
                    self._source = self._open_fn()
                except Exception as exc:
                    self._lost(f"{self.name} unavailable: {exc}")
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self._max_backoff)
                    continue
                misses = 0
            started = time.monotonic()
            try:
                frame = self._source.read()
                problem = None if frame is not None else "returned no frame"
            except Exception as exc:
                frame, problem = None, f"failed: {exc}"
            if frame is None:
                misses += 1
                if problem.startswith("failed") or misses >= self._max_misses:
                    self._close_source()
                    self.reopens += 1
                    self._lost(f"{self.name} {problem}; reopening")
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self._max_backoff)
                    continue
            else:
                misses = 0
                backoff = self._first_backoff
                with self._cond:
                    self._frame = frame
                    self._frame_time = time.monotonic()
                    self._seq += 1
                    self._cond.notify_all()
                self._set_connected(True, f"{self.name} working ({self._source!r})")
            self._stop.wait(max(0.0, self.frame_period - (time.monotonic() - started)))

    def _lost(self, message: str) -> None:
        with self._cond:
            self._frame = None
            self._cond.notify_all()
        self._set_connected(False, message)

    def _set_connected(self, connected: bool, message: str) -> None:
        with self._cond:
            before = self._connected
            if before == connected:
                return
            self._connected = connected
        if connected and before is None:
            return  # the first successful open is not news
        kind = "restored" if connected else "lost"
        (log.info if connected else log.warning)("%s", message)
        if self.on_event is not None:
            try:
                self.on_event(kind, message)
            except Exception:
                log.exception(N_("camera event handler failed"))

    def _close_source(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            try:
                source.close()
            except Exception as exc:
                log.debug("closing %r: %s", source, exc)


# --- choosing a source --------------------------------------------------------------


def _device_present(device: int | str) -> bool:
    # Asking OpenCV for a missing /dev/videoN prints warnings and can be slow.
    if sys.platform.startswith("linux"):
        path = f"/dev/video{device}" if isinstance(device, int) else str(device)
        return os.path.exists(path)
    return True


def choose_source(cfg: Any, simulate: bool) -> tuple[str, str]:
    """The source ``open_camera`` will use ("picamera", "opencv", "replay" or
    "synthetic") and why, in words for the OLED, the log and ``/healthz``."""
    source = getattr(cfg, "source", "auto")
    if source != "auto":
        if simulate and source == "picamera":
            return "synthetic", N_("simulation: synthetic dice in place of the Pi camera")
        return source, N_("camera source {source} in the settings").format(source=repr(source))
    if simulate:
        return "synthetic", N_("simulation: synthetic dice")
    no_pi_camera = N_("not a Raspberry Pi")
    if on_pi():
        try:
            if pi_cameras(load_picamera2()):
                return "picamera", N_("a camera on the Pi's camera connector")
            no_pi_camera = N_("no camera on the Pi's camera connector")
        except CameraError as exc:
            no_pi_camera = str(exc)
    device = getattr(cfg, "device", 0)
    if _device_present(device):
        try:
            OpenCVCamera(device).close()
            return "opencv", N_("a webcam at {device} ({why})").format(device=repr(device), why=no_pi_camera)
        except CameraError:
            pass
    why = N_("no camera found ({why}; nothing at {device}): synthetic dice").format(
        why=no_pi_camera, device=repr(device)
    )
    log.warning("%s", why)
    return "synthetic", why


def source_opener(cfg: Any, source: str, *, seed: int = 0) -> Callable[[], Camera]:
    width = int(getattr(cfg, "width", 640))
    height = int(getattr(cfg, "height", 480))
    fps = float(getattr(cfg, "fps", 15))
    if source == "picamera":
        lens = getattr(cfg, "lens_position", None)
        return lambda: PiCamera(width, height, fps, lens_position=lens)
    if source == "opencv":
        device = getattr(cfg, "device", 0)
        return lambda: OpenCVCamera(device, width, height, fps)
    if source == "replay":
        folder = getattr(cfg, "folder", "")
        return lambda: ReplayCamera(folder, hold_frames=max(1, int(fps)))
    if source == "synthetic":
        camera = SyntheticCamera(seed=seed, size=(width, height))
        # One scene for the whole run: reopening must not re-deal the dice.
        return lambda: camera
    raise ValueError(f"unknown camera source {source!r}")


def open_camera(
    cfg: Any = None,
    simulate: bool = False,
    *,
    on_event: EventHandler | None = None,
    seed: int = 0,
    start: bool = True,
) -> ResilientCamera:
    """The camera for the ``[camera]`` settings, wrapped so it survives failures."""
    source, why = choose_source(cfg, simulate)
    # One line at start, its reason a finished message: said whole, as the pages say it.
    log.info("%s", N_("camera: {source} ({why})").format(source=source, why=why))
    fps = float(getattr(cfg, "fps", 15))
    size = (int(getattr(cfg, "width", 640)), int(getattr(cfg, "height", 480)))
    opener = source_opener(cfg, source, seed=seed)
    camera = ResilientCamera(opener, on_event, 1 / fps, size=size, name=f"{source} camera", start=start)
    camera.kind = source
    camera.why = why
    return camera
