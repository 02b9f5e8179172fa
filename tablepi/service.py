"""The table service: one long-running process a Pi starts at boot.

It assembles the store, the table, the hardware (real or simulated), the
camera and vision loop, the OLED and the game's controller, and hands itself
to the web app (``web.create_app(service)``). Inputs reach the table as
commands; the controller thread renders the table's state on the OLED.

Threads, and why:
- the controller thread owns the active controller: button presses and camera
  readings are queued to it, state events wake it, it ticks ten times a
  second. Controllers are therefore never called from two threads at once.
- the camera thread reads frames, tells when a roll has settled and reads the
  dice; it is started after the web server is up and never delays it.
- the watchdog thread tells systemd the service is alive while the
  controller thread keeps turning.
- with a venue broker in the config (``[venue]``), the venue thread turns the
  table's public events into MQTT messages (``tablepi.venue``); paho's own
  thread talks to the broker. Neither is ever waited for by a command.
- the table player's thread (``tablepi.table_player``) plays the Beam Me Up
  seats marked "played by the table", a paced step at a time, through the
  table's commands like anyone else; the camera is not used in their turns.
"""

from __future__ import annotations

import importlib
import inspect
import json
import logging
import os
import queue
import random
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablepi.events import EventBus
from tablepi.i18n import DEFAULT as DEFAULT_LANGUAGE
from tablepi.i18n import N_, Text, catalog, languages, system_language, words
from tablepi.pin import load_or_create_pin
from tablepi.store import Store
from tablepi.table import Table
from tablepi.words import public_words

log = logging.getLogger(__name__)

TICK_SECONDS = 0.1
# How long close() waits for the service's threads, in all (see close()).
CLOSE_SECONDS = 10.0
DISPLAY_EVENT_SECONDS = 1.0
LOST_NOTICE = N_("Saved games were lost: see the web page")
# The language chosen on /setup, over the config's.
LANGUAGE_FILE = "language.json"
CAMERA_RETRY_SECONDS = 1.0
# Simulated presses waiting or in progress at once; more are refused (a flood
# of presses from the web must not hold every web thread, nor starve /healthz).
MAX_PRESSES = 4
PRESS_WAIT_SECONDS = 10.0
# How long a simulated press waits for the button to report it, and the least
# pause after a release before the next press (twice the debounce if longer).
PRESS_REPORT_SECONDS = 1.0
PRESS_SETTLE_SECONDS = 0.15


class Busy(RuntimeError):
    """Too many simulated presses are already waiting; try again shortly."""


# -- systemd -------------------------------------------------------------------


def sd_notify(state: str) -> bool:
    """Send ``state`` (e.g. "READY=1", "WATCHDOG=1") to systemd's notify
    socket; False when not run by systemd. No library needed: one datagram."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]  # abstract namespace socket
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
        return True
    except OSError as exc:
        log.warning(N_("could not notify systemd (%s): %s"), state, exc)
        return False


def watchdog_interval() -> float | None:
    """Half the watchdog period systemd asked for, or None without one."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid.isdigit() and int(pid) != os.getpid()):
        return None
    try:
        return max(0.5, int(usec) / 2_000_000)
    except ValueError:
        return None


# -- hardware ----------------------------------------------------------------


def on_pi() -> bool:
    try:
        from hardware.platform import on_pi as hardware_on_pi
    except ImportError:
        try:
            return "raspberry pi" in Path("/proc/device-tree/model").read_text(errors="ignore").lower()
        except OSError:
            return False
    return bool(hardware_on_pi())


def controller_class(kind: str) -> Any:
    """The controller class in ``tablepi.controllers.<kind>``, or None."""
    try:
        module = importlib.import_module(f"tablepi.controllers.{kind}")
    except ImportError as exc:
        log.warning(N_("no controller for %s: %s"), kind, exc)
        return None
    found = getattr(module, "Controller", None)
    if found is not None:
        return found
    for _, value in inspect.getmembers(module, inspect.isclass):
        if value.__module__ == module.__name__ and value.__name__.endswith("Controller"):
            return value
    return None


class Service:
    """Everything a running table holds; see the module docstring."""

    def __init__(
        self,
        config: Any,
        data_dir: str | os.PathLike[str] | None = None,
        simulate: bool | None = None,
        clock: Callable[[], float] = time.time,
        camera: bool = True,
        table_seed: int | None = None,
        table_step_seconds: float | None = None,
    ) -> None:
        self.config = config
        self.data_dir = Path(data_dir if data_dir is not None else config.data_dir).expanduser()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.clock = clock
        self.simulated = (not on_pi()) if simulate is None else bool(simulate)
        self.problems: list[str] = []
        self.pin = load_or_create_pin(self.data_dir)
        self.store = Store(self.data_dir, clock=clock)
        # Event ids go on rising across restarts, so a browser's Last-Event-ID
        # from before a restart is never mistaken for a current one.
        self.events = EventBus(first_id=time.time_ns() // 1_000_000)
        self.table = Table(self.store, clock=clock, events=self.events)
        for problem in (self.store.problem, self.store.write_problem, self.table.problem):
            if problem:
                self._report(problem, logged=True)
        self.address = ""
        self._press_slots = threading.BoundedSemaphore(MAX_PRESSES)
        self._press_lock = threading.Lock()
        self._released_at = 0.0
        self._store_problem: str | None = None
        # Held on the OLED until a button is pressed or a command is played:
        # the players must learn that games were lost before they play on.
        self._notice = LOST_NOTICE if self.store.lost_writes else None
        self._stop = threading.Event()
        self._jobs: queue.Queue[Callable[[], None]] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._kept: list[int] = []
        self._force_next_reading = False
        self._roll_pending = False
        # Dice put down to show a roll entered by hand (_place_dice): their
        # reading shows the tray and is no throw.
        self._place_pending = False
        self._placed = False
        self._frame: Any = None
        self._frame_dice: list[Any] = []
        self._frame_lock = threading.Lock()
        self.last_reading: dict[str, Any] | None = None
        self._camera_state = "off" if not camera else "starting"
        self._camera_wanted = camera
        self._camera: Any = None
        self._loop: Any = None  # the CameraLoop, once the camera is open
        self._rest_reader: Any = None  # reads each settled roll, learning the camera's die sizes
        self._heartbeat = time.monotonic()
        self._hardware: Any = None
        self.controller: Any = None
        self._controller_kind: str | None = None
        self._controller_ready = False
        # The table's own seats: dice from the OS's random source, or a seed (tests, demos).
        from tablepi.table_player import STEP_SECONDS, TablePlayer

        step = table_step_seconds
        if step is None:
            step = getattr(getattr(config, "beam_me_up", None), "table_step_seconds", STEP_SECONDS)
        self.table_player = TablePlayer(
            self.table,
            rng=None if table_seed is None else random.Random(table_seed),
            step_seconds=step,
            hold=self._table_hold,
        )
        self.table.turn_guard = self.table_player.refusal
        self._devices = self._open_devices()
        self.display = self._devices["display"]
        self.language = self._first_language()
        self.display.translate = words(self.language).text
        self.buttons = self._devices["buttons"]
        self.buzzer = self._devices["buzzer"]
        if self.buttons is not None:
            self.buttons.when_input = self._on_input
            self.buttons.when_activity = self._on_activity
        self.venue: Any = None
        venue = getattr(config, "venue", None)
        if venue is not None and getattr(venue, "broker", ""):
            from tablepi.venue import Publisher

            self.venue = Publisher(venue, self.table, on_link=self._on_venue_link)

    # -- language -------------------------------------------------------------

    def _first_language(self) -> str:
        """The language chosen on /setup (kept in the data folder), else the config's."""
        configured = getattr(getattr(self.config, "table", None), "language", None) or system_language()
        try:
            chosen = json.loads((self.data_dir / LANGUAGE_FILE).read_text(encoding="utf-8")).get("language")
        except (OSError, ValueError, AttributeError):
            chosen = None
        lang = chosen if chosen in languages() else configured
        if lang not in languages():
            lang = DEFAULT_LANGUAGE
        catalog(lang)  # a missing compiled catalog is said in the log now, not at the first page
        if chosen == lang and chosen != configured:
            log.info(N_("language: %s (chosen on /setup)"), lang)
        else:
            log.info(N_("language: %s"), lang)
        return lang

    def set_language(self, lang: str) -> None:
        """The table's language from now on (kept across restarts); the OLED redraws in it."""
        if lang not in languages():
            raise ValueError(f"unknown language {lang!r}")
        path = self.data_dir / LANGUAGE_FILE
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"language": lang}), encoding="utf-8")
        os.replace(temporary, path)
        self.language = lang
        self.display.translate = words(lang).text

        def redraw() -> None:
            self._controller_ready = False
            self._deliver_state(self.table.public_state())

        self._jobs.put(redraw)
        self.table.publish("settings", {"language": lang})

    # -- assembly -------------------------------------------------------------

    def report_problem(self, message: str) -> None:
        """A problem the web app found (already logged): on /healthz and to every viewer."""
        self._report(message, logged=True)

    def _report(self, message: str, logged: bool = False) -> None:
        if not logged:
            log.error("%s", message)
        self.problems.append(message)
        self.table.publish("error", {"message": public_words(message)})

    def _open_devices(self) -> dict[str, Any]:
        """The buttons, display and buzzer; each one that fails is replaced by
        nothing (buttons, buzzer) or an in-memory display, with a message."""
        try:
            from hardware import open_devices
        except ImportError:
            open_devices = None
        if open_devices is not None:
            try:
                devices = open_devices(self.config, self.simulated, on_camera_event=self._camera_event)
                found = {
                    "display": getattr(devices, "display", None),
                    "buttons": getattr(devices, "buttons", None),
                    "buzzer": getattr(devices, "buzzer", None),
                    "camera": getattr(devices, "camera", None),
                    "factory": getattr(devices, "pin_factory", None),
                }
                for problem in getattr(devices, "problems", []) or []:
                    self._report(str(problem))
                if found["display"] is not None:
                    # closed as one (camera, pins, display) by close()
                    self._hardware = devices
                    return found
            except Exception as exc:  # hardware must never stop the table
                self._report(f"hardware could not be opened: {exc}")
        return self._fallback_devices()

    def _fallback_devices(self) -> dict[str, Any]:
        from hardware.display import TableDisplay, open_display

        cfg = self.config
        display = TableDisplay(open_display(cfg.display, simulate=self.simulated), cfg.display.idle_seconds)
        factory = None
        buttons = None
        try:
            from hardware.buttons import TableButtons

            if self.simulated:
                from gpiozero.pins.mock import MockFactory

                factory = MockFactory()
            buttons = TableButtons(
                cfg.buttons.pins, cfg.buttons.hold_time, cfg.buttons.bounce_time, pin_factory=factory
            )
        except Exception as exc:
            self._report(f"buttons not available: {exc}")
        return {"display": display, "buttons": buttons, "buzzer": None, "camera": None, "factory": factory}

    # -- lifecycle ------------------------------------------------------------

    def start(self, address: str = "") -> None:
        """Start the controller, camera and watchdog threads; ``address`` is
        the web address shown on the start screen."""
        self.address = address
        if self.venue is not None:
            self._on_venue_link(self.venue.state)
            self.venue.start()
        self._start_thread("controller", self._controller_loop)
        self.table_player.start()
        if self._camera_wanted:
            self._start_thread("camera", self._camera_loop)
        interval = watchdog_interval()
        if interval:
            self._start_thread("watchdog", lambda: self._watchdog_loop(interval))

    def _start_thread(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, name=f"tablepi-{name}", daemon=True)
        self._threads.append(thread)
        thread.start()

    def close(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        if self.venue is not None:
            self.venue.close()  # says "offline" to the venue; a few seconds at most
        # A dice reading in progress is let finish: a thread still inside
        # OpenCV when the interpreter exits aborts the whole process
        # ("terminate called without an active exception", exit status 134).
        # One still busy after CLOSE_SECONDS (a camera driver stuck in a read)
        # is a daemon and is left behind.
        deadline = time.monotonic() + CLOSE_SECONDS
        self.table_player.close(timeout=CLOSE_SECONDS)
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        if self._hardware is not None:
            self._hardware.close()
        else:
            parts = [self._devices.get("buttons"), self._devices.get("buzzer"), self.display]
            for part in parts:
                if part is None:
                    continue
                try:
                    part.close()
                except Exception:
                    log.exception(N_("closing %r"), part)
        if self._camera is not None and self._camera is not self._devices.get("camera"):
            try:
                self._camera.close()
            except Exception:
                log.exception(N_("closing the camera"))
        self.store.close()

    # -- controllers ----------------------------------------------------------

    def _on_input(self, button: str, long: bool) -> None:
        self._jobs.put(lambda: self._handle_button(button, long))

    def _on_venue_link(self, state: str) -> None:
        """The venue link came up or went down (from paho's thread): the OLED
        marks every screen while the venue cannot hear the table."""
        badge = None if state in ("online", "stopped") else "V"
        self._jobs.put(lambda: self.display.set_badge(badge))

    def _on_activity(self) -> None:
        try:
            self.display.wake()
        except Exception:
            log.exception(N_("waking the display"))

    def _handle_button(self, button: str, long: bool) -> None:
        from tablepi.controllers import action_for

        if self._notice is not None:
            self._dismiss_notice()
            return
        kind = self._controller_kind or "none"
        action = action_for(kind, button, long)
        if action is None:
            return
        if self.controller is None:
            self._show_start()
            return
        self.controller.on_button(action)

    def _dismiss_notice(self) -> None:
        self._notice = None
        self._controller_ready = False  # draws the game's own screen again
        self._deliver_state(self.table.public_state())

    def _show_start(self) -> None:
        self.display.start(self.address or N_("starting..."), self.pin, self._camera_words())

    def _camera_words(self) -> str:
        """Which camera reads the dice, for the start screen ("" until one is chosen)."""
        kind = getattr(self._camera, "kind", None)
        if kind == "synthetic" and not self.simulated:
            return N_("camera: none, enter rolls")
        words = {
            "picamera": N_("camera: Pi camera"),
            "opencv": N_("camera: webcam"),
            "replay": N_("camera: photos"),
            "synthetic": N_("camera: simulated"),
        }
        return words.get(kind, "")

    def _make_controller(self, kind: str | None) -> None:
        if self._controller_ready and kind == self._controller_kind:
            return
        self._controller_ready = True
        self._controller_kind = kind
        self.controller = None
        if kind is None:
            self._show_start()
            return
        cls = controller_class(kind)
        if cls is None:
            title = kind.replace("_", " ").title()
            self.display.message(
                [title, N_("is on the web page"), f"PIN {self.pin}"],
                mirror=[title, N_("is on the web page"), N_("PIN on the table")],
            )
            return
        kwargs: dict[str, Any] = {}
        parameters = inspect.signature(cls).parameters
        if "roll" in parameters and self._synthetic_camera() is not None:
            kwargs["roll"] = self.roll
        if "coin_seconds" in parameters:
            kwargs["coin_seconds"] = self.config.outer_space.coin_seconds
        if "table_player" in parameters:
            kwargs["table_player"] = self.table_player
        try:
            self.controller = cls(self.table, self.display, self.buzzer, self.clock, **kwargs)
        except Exception as exc:
            self._report(f"the {kind} controller could not start: {exc}")
            return
        if self._camera_state in ("lost", "absent") and hasattr(self.controller, "on_camera"):
            self.controller.on_camera(self._camera_state)

    def _controller_loop(self) -> None:
        sub = self.table.subscribe(maxsize=100)
        last_tick = 0.0
        last_display_event = 0.0
        display_version = None
        try:
            self._deliver_state(self.table.public_state())
            if self._notice is not None:
                self.display.error(self._notice)
            while not self._stop.is_set():
                event = sub.get(timeout=TICK_SECONDS / 2)
                if event is not None and event.type in ("state", "missed"):
                    state = event.data if event.type == "state" else self.table.public_state()
                    self._notice = None
                    self._guard(lambda s=state: self._deliver_state(s))
                while True:
                    try:
                        job = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    self._guard(job)
                now = self.clock()
                self._heartbeat = time.monotonic()
                if time.monotonic() - last_tick >= TICK_SECONDS:
                    last_tick = time.monotonic()
                    if self.controller is not None and self._notice is None:
                        self._guard(lambda n=now: self.controller.tick(n))
                    self._guard(lambda n=now: self.display.tick())
                # The OLED mirror hears of the screen at a steady pace, changed
                # or not, and while a secret is up it hears the version from
                # before: neither the timing nor the content of these events
                # can tell that a coin was shown.
                if time.monotonic() - last_display_event >= DISPLAY_EVENT_SECONDS:
                    last_display_event = time.monotonic()
                    self._guard(self._watch_store)
                    if not self.display.secret:
                        display_version = self.display.version
                    self.table.publish("display", {"version": display_version or 0})
        finally:
            sub.close()

    def _watch_store(self) -> None:
        """Say on the OLED (and to every viewer) when games can no longer be
        saved: the players at the table must know before they play on."""
        problem = self.store.health()
        if problem == self._store_problem:
            return
        self._store_problem = problem
        if problem is None:
            self._deliver_state(self.table.public_state())  # the game's own screen again
            if self.controller is None:
                self._show_start()
            return
        self.table.publish("error", {"message": public_words(problem)})
        self.display.error(N_("Games cannot be saved: see the web page"))

    def _deliver_state(self, state: dict[str, Any]) -> None:
        game = state.get("game")
        self._make_controller(game["kind"] if game else None)
        if game and game["state"].get("dice") is None:
            self._kept = []
        if game and game["kind"] == "beam_me_up":
            self._place_dice(game)
        if self.controller is not None:
            self.controller.on_state(state)

    def _guard(self, job: Callable[[], None]) -> None:
        try:
            job()
        except Exception:
            # A faulty screen or controller must not stop the table.
            log.exception(N_("controller job failed"))

    def _watchdog_loop(self, interval: float) -> None:
        while not self._stop.wait(interval):
            # Only a turning controller loop counts as alive.
            if time.monotonic() - self._heartbeat < max(5.0, 4 * interval):
                sd_notify("WATCHDOG=1")

    # -- simulated devices --------------------------------------------------------

    def press(self, button: str, long: bool = False) -> None:
        """Press a simulated button through its mock pin (the real Button code
        runs). Presses take turns; beyond ``MAX_PRESSES`` waiting, ``Busy``.
        ``StoreError`` when the command the press made could not be saved."""
        if not self.simulated or self.buttons is None:
            raise RuntimeError("buttons can be pressed from the web only in simulation")
        from hardware.sim import press

        if not self._press_slots.acquire(blocking=False):
            raise Busy("the table's buttons are busy with earlier presses; try again in a moment")
        try:
            if not self._press_lock.acquire(timeout=PRESS_WAIT_SECONDS):
                raise Busy("the table's buttons are busy with earlier presses; try again in a moment")
            try:
                # A pin pressed again within the debounce time of its release
                # is not felt at all: let it settle first.
                bounce = getattr(getattr(self.config, "buttons", None), "bounce_time", 0.0)
                settle = self._released_at + max(PRESS_SETTLE_SECONDS, 2 * bounce) - time.monotonic()
                if settle > 0:
                    time.sleep(settle)
                failures = self.store.write_failures
                try:
                    felt = press(self.buttons, button, long=long, wait=True, timeout=PRESS_REPORT_SECONDS)
                except KeyError as exc:
                    raise RuntimeError(str(exc)) from None
                finally:
                    self._released_at = time.monotonic()
                if not felt:
                    raise Busy("the table did not feel the press; press again")
                self.wait_idle()
                failed = self.store.write_failures != failures
            finally:
                self._press_lock.release()
        finally:
            self._press_slots.release()
        if failed:
            from tablepi.store import StoreError

            raise StoreError(self.store.write_problem or "the press's command could not be saved")

    def wait_idle(self, timeout: float = 2.0) -> bool:
        """Wait until the controller thread has handled every input queued so
        far (so a simulated press has had its effect when the web answers)."""
        if not any(t.name == "tablepi-controller" and t.is_alive() for t in self._threads):
            return False
        done = threading.Event()
        self._jobs.put(done.set)
        return done.wait(timeout)

    def _synthetic_camera(self) -> Any:
        if not self._camera_wanted:
            return None
        camera = self._camera if self._camera is not None else self._devices.get("camera")
        seen = 0
        while camera is not None and seen < 4:
            if callable(getattr(camera, "roll", None)):
                return camera
            camera = getattr(camera, "source", None)
            seen += 1
        if camera is None and self.simulated and self._camera_wanted and self._camera is None:
            return True  # the synthetic camera is still starting
        return None

    def _table_turn(self) -> str | None:
        """The name of the seat to act when the table plays it, else None."""
        from tablepi.games.beam_me_up.autoplay import table_to_act

        game = self.table.public_state().get("game")
        if not game or game.get("kind") != "beam_me_up" or not table_to_act(game["state"]):
            return None
        return str(game["state"]["turn"]["name"])

    def _table_hold(self) -> str | None:
        """Why the table player must not play now: a camera reading of a roll
        was refused at the table's current move, and a person may fix it."""
        return "reading" if self.table.refused_reading is not None else None

    def play_on(self) -> bool:
        """A person lets the table play its seat's turn after an undo."""
        return self.table_player.play_on()

    def roll(self) -> None:
        """Re-roll the synthetic camera's dice that are not kept."""
        seat = self._table_turn()
        if seat is not None:
            raise RuntimeError(f"the table throws its own dice for {seat}")
        camera = self._synthetic_camera()
        if camera is None:
            raise RuntimeError("the dice can be rolled from the web only with the synthetic camera")
        if camera is True or (self._controller_kind == "beam_me_up" and self._settling_frames < 2):
            raise RuntimeError("the camera is still starting; try again in a moment")
        kept_values = self._kept_values()
        keep: list[int] = []
        remaining = Counter(kept_values)
        for index, value in enumerate(list(getattr(camera, "values", []) or [])):
            if remaining[value] > 0:
                remaining[value] -= 1
                keep.append(index)
        camera.roll(keep=tuple(keep))
        # The first frame read after the throw arms the forced reading (see _on_frame).
        self._roll_pending = True

    def _place_dice(self, game: dict[str, Any]) -> None:
        """In simulation, the synthetic dice are made to show the roll on the
        table when it came from elsewhere than the camera (entered or
        corrected on a phone, brought back by an undo, thrown by the table):
        the dice that already show a value of it stay where they lie, the
        others are put down showing the rest. So the next throw from /device
        finds the dice set aside where they were."""
        dice = game["state"].get("dice")
        last = game.get("last") or {}
        if not dice or last.get("source") == "camera":
            return
        camera = self._synthetic_camera()
        if camera is None or camera is True:
            return
        shown = list(getattr(camera, "values", []) or [])
        if len(shown) != len(dice) or Counter(shown) == Counter(dice):
            return
        from tablepi.controllers.beam_me_up import kept_marks

        # The dice already showing a value of the roll stay where they lie; the others turn.
        stay = kept_marks(shown, dice)
        rest = iter((Counter(dice) - Counter(shown[i] for i in stay)).elements())
        values = [shown[i] if i in stay else next(rest) for i in range(len(shown))]
        camera.roll(values=values, keep=tuple(stay))
        # The reading of the dice put down shows the tray; it is not a throw (see _on_frame).
        self._place_pending = True

    @property
    def kept(self) -> list[int]:
        """The dice of the current roll marked as set aside (indices into its dice)."""
        return list(self._kept)

    def set_kept(self, indices: list[int]) -> None:
        """Mark dice of the current roll (indices into its dice) as kept for the next roll."""
        state = self.table.public_state()
        game = state.get("game")
        if not game or game["kind"] != "beam_me_up":
            raise RuntimeError("dice are kept only in a game of Beam Me Up")
        dice = game["state"].get("dice")
        if dice is None:
            raise RuntimeError("roll the dice before keeping any")
        seat = self._table_turn()
        if seat is not None:
            raise RuntimeError(f"the table chooses the dice {seat} keeps")
        if any(not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(dice) for i in indices):
            raise ValueError(f"dice are numbered 0..{len(dice) - 1}")
        if len(set(indices)) != len(indices):
            raise ValueError("each die can be kept once")
        self._kept = sorted(indices)
        kept = list(self._kept)
        # The OLED marks the same dice as the phones and /device (on the controller's thread).
        self._jobs.put(lambda: getattr(self.controller, "on_kept", lambda kept: None)(kept))

    def _kept_values(self) -> list[int]:
        game = self.table.public_state().get("game")
        dice = (game or {}).get("state", {}).get("dice") if game else None
        if not dice:
            return []
        return [dice[i] for i in self._kept if i < len(dice)]

    # -- camera --------------------------------------------------------------

    def _open_camera(self) -> Any:
        camera = self._devices.get("camera")
        if camera is not None:
            return camera
        from hardware.cameras import open_camera

        return open_camera(self.config.camera, simulate=self.simulated, on_event=self._camera_event)

    def _camera_event(self, kind: str, message: str) -> None:
        """The camera was lost or came back (reported once per change)."""
        self._camera_state = "lost" if kind == "lost" else "ok"
        if self._loop is not None:
            self._loop.camera_changed()
        if kind == "lost":
            log.warning(N_("camera lost: %s"), Text(message))
        else:
            log.info(N_("camera back: %s"), Text(message))
        self.table.publish("camera", {"state": "lost" if kind == "lost" else "restored", "message": message})
        state = self._camera_state

        def tell() -> None:
            on_camera = getattr(self.controller, "on_camera", None)
            if on_camera is not None:
                on_camera(state)

        self._jobs.put(tell)

    def _camera_loop(self) -> None:
        try:
            self._camera = self._open_camera()
        except Exception as exc:
            self._camera_state = "absent"
            self.table.publish("camera", {"state": "absent", "message": str(exc)})
            log.warning(N_("no camera: %s; Beam Me Up rolls can be entered on a phone"), exc)
            self._jobs.put(lambda: getattr(self.controller, "on_camera", lambda state: None)("absent"))
            return
        try:
            from tablepi.camera_loop import CameraLoop
            from tablepi.camera_sizes import camera_file, learning_reader
            from tablepi.controllers.beam_me_up import DICE
            from vision.regions import Regions

            cam_cfg = self.config.camera
            regions = Regions.from_values(cam_cfg.tray, cam_cfg.keep)
            kept = camera_file(self.data_dir, getattr(self._camera, "kind", None), cam_cfg)
            # Every die is in sight of the camera, the ones set aside too: the table expects all of them.
            self._rest_reader = learning_reader(kept, DICE)
            loop = CameraLoop(
                self._camera,
                still_seconds=self.config.beam_me_up.still_seconds,
                fps=float(getattr(cam_cfg, "fps", 15) or 15),
                wanted=lambda: self._controller_kind == "beam_me_up",
                on_frame=self._on_frame,
                on_rolling=lambda: self.table.publish("rolling", {}),
                on_settled=lambda frame, dice, rolled: self._on_reading(frame, dice, regions, rolled),
                rest_reader=self._rest_reader,
            )
        except Exception as exc:
            self._camera_state = "absent"
            self._report(f"the dice reader could not start: {exc}")
            return
        self._loop = loop
        if self._camera_state == "starting":
            self._camera_state = "ok"
        # The start screen now can say which camera was chosen.
        self._jobs.put(lambda: self.controller is None and self._show_start())
        loop.run(self._stop)

    @property
    def _settling_frames(self) -> int:
        return self._loop.settling_frames if self._loop is not None else 0

    def _on_frame(self, frame: Any) -> None:
        # A reading of a frame from before a simulated throw may still be in the
        # reader's hands when it is thrown: only frames read after it are that roll.
        if self._roll_pending:
            self._roll_pending = False
            self._force_next_reading = True
        elif self._place_pending:
            self._place_pending = False
            self._placed = True
        with self._frame_lock:
            self._frame = frame

    def _on_reading(self, frame: Any, dice: list[Any], regions: Any, rolled: bool = True) -> None:
        from tablepi.controllers.beam_me_up import reading_problem

        height, width = frame.shape[:2]
        dice = regions.filter(dice, width, height)
        _, kept = regions.split(dice, width, height)
        readings = [d.to_dict() for d in dice]
        kept_values = [d.value for d in kept] if kept else self._kept_values()
        table_turn = self._table_turn() is not None
        # In a turn the table plays, the dice in the tray are nobody's roll:
        # they are shown, never refused, never played.
        problem = None if table_turn else reading_problem(readings, kept_values)
        # After a simulated roll the next reading is that roll, even if the
        # settle detector missed the motion (a frame dropped under load).
        forced = self._force_next_reading
        rolled = (rolled or forced) and not self._placed
        self._force_next_reading = False
        self._placed = False
        # "rolled": a throw's reading, which the rules are given; the others only show the tray.
        reading = {"dice": readings, "problem": problem, "at": self.clock(), "rolled": rolled}
        with self._frame_lock:
            self._frame_dice = list(dice)
        self.last_reading = reading
        self.table.publish("reading", reading)
        if table_turn:
            return

        def deliver() -> None:
            controller = self.controller
            if controller is not None and hasattr(controller, "on_reading"):
                if controller.on_reading(readings, kept_values, forced=forced, play=rolled):
                    self._kept = []

        self._jobs.put(deliver)

    def camera_jpeg(self) -> bytes | None:
        """The latest frame with each die read drawn on it, and the tray and
        keep area when they are set, as JPEG."""
        with self._frame_lock:
            frame = None if self._frame is None else self._frame.copy()
            dice = list(self._frame_dice)
        if frame is None:
            return None
        import cv2

        from vision.regions import Regions, draw_dice, draw_regions

        cam_cfg = self.config.camera
        if cam_cfg.tray or cam_cfg.keep:
            try:
                draw_regions(frame, Regions.from_values(cam_cfg.tray, cam_cfg.keep))
            except ValueError:
                pass  # reported when the camera loop started
        draw_dice(frame, dice)
        ok, data = cv2.imencode(".jpg", frame, [int(cv2.IMWRITE_JPEG_QUALITY), 80])
        return data.tobytes() if ok else None

    # -- health --------------------------------------------------------------

    def _camera_health(self) -> dict[str, Any]:
        camera = self._camera
        health: dict[str, Any] = {"state": self._camera_state}
        if camera is not None:
            # Which source "auto" chose, and why: the first thing to ask of a table that reads no dice.
            health["source"] = getattr(camera, "kind", None)
            health["why"] = getattr(camera, "why", None)
        learned = getattr(self._rest_reader, "reader", None)
        if learned is not None:
            sizes = learned.calibration.sizes
            health["die_sizes"] = None if sizes is None else sizes.to_dict()
            health["dice_looks"] = [
                {**dict(zip(("face", "pips"), k.hex(), strict=True)), "dice": k.dice}
                for k in learned.calibration.looks
            ]
        return health

    def health(self) -> dict[str, Any]:
        state = self.table.public_state()
        game = state.get("game")
        alive = time.monotonic() - self._heartbeat < 5.0 or not self._threads
        store_problem = self.store.health()
        return {
            "ok": bool(alive) and store_problem is None,
            "store": {"ok": store_problem is None, "problem": store_problem},
            "game": None if game is None else {"id": game["id"], "kind": game["kind"], "seq": state["seq"]},
            "camera": self._camera_health(),
            "display": {"simulated": bool(getattr(self.display, "simulated", self.simulated))},
            "buttons": {"available": self.buttons is not None, "simulated": self.simulated},
            "simulated": self.simulated,
            # The venue link never makes the table unhealthy: it plays on without it.
            "venue": self.venue.health() if self.venue is not None else {"state": "off"},
            "problems": list(self.problems),
        }
