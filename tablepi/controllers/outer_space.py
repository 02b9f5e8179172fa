"""They Came From Outer Space at the table: the mission timer and the danger coin.

Buttons (see buttons.json): A starts or pauses the mission timer, a long A
resets it, C moves the mission to its next phase, and B flips the danger
coin. The OLED shows the countdown in big digits; the buzzer ticks through
the last ten seconds, warns at ten and sounds the end once.

The coin (ruling T3) is drawn from the operating system's secure source and
goes to one place only: ``display.coin()``, for ``coin_seconds`` or until B
is pressed again. It is never sent to the table, published, logged or kept
by this controller: nothing outside the OLED ever learns it (in simulation
the OLED is a player's /device page). While it shows, the countdown goes on
being drawn under it for the screen's mirrors, so they change as they would
without a flip.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from tablepi.games.outer_space import flip_coin
from tablepi.i18n import N_

log = logging.getLogger(__name__)

ERROR_SECONDS = 3.0
LAST_SECONDS = 10


class OuterSpaceController:
    """Buttons, OLED and buzzer for a game of They Came From Outer Space."""

    kind = "outer_space"

    def __init__(
        self,
        table: Any,
        display: Any,
        buzzer: Any,
        clock: Callable[[], float],
        flip: Callable[[], str] = flip_coin,
        coin_seconds: float = 5.0,
    ) -> None:
        self.table = table
        self.display = display
        self.buzzer = buzzer
        self.clock = clock
        self._flip = flip
        self.coin_seconds = float(coin_seconds)
        self._state: dict[str, Any] | None = None
        self._loaded = False
        self._coin_until: float | None = None
        self._error_until: float | None = None
        self._drawn: tuple[int, str] | None = None
        self._under: tuple[int, str] | None = None  # drawn under the coin, for mirrors
        self._heard: int | None = None  # the last whole second the buzzer logic saw

    # -- properties -----------------------------------------------------------

    @property
    def coin_showing(self) -> bool:
        return self._coin_until is not None

    @property
    def timer(self) -> dict[str, Any] | None:
        state = self._game_state()
        return state["timer"] if state else None

    def seconds_left(self, now: float) -> int | None:
        """Whole seconds left on the mission timer at ``now`` (rounded up)."""
        timer = self.timer
        if timer is None:
            return None
        if timer.get("deadline") is not None:
            left = max(0.0, timer["deadline"] - now)
        else:
            left = float(timer["remaining"])
        return math.ceil(left - 1e-9) if left > 0 else 0

    # -- contract -------------------------------------------------------------

    def on_state(self, public_state: dict[str, Any] | None) -> None:
        game = (public_state or {}).get("game")
        self._loaded = True
        if not game or game.get("kind") != self.kind:
            self._state = None
            return
        self._state = game["state"]
        if self._state["timer"]["state"] == "ready":
            self._heard = None
        self._redraw(force=True)

    def on_button(self, action: str) -> None:
        handler = getattr(self, f"_do_{action}", None)
        if handler is None:
            log.debug("no Outer Space action %r", action)
            return
        handler()

    def tick(self, now: float) -> None:
        if self._coin_until is not None and now >= self._coin_until:
            self._coin_until = None
            self._drawn = None
        if self._error_until is not None and now >= self._error_until:
            self._error_until = None
            self._drawn = None
        self._sound(now)
        self._redraw(now=now)

    # -- actions (names from buttons.json) -------------------------------------

    def _do_timer_toggle(self) -> None:
        timer = self.timer
        # A run that has reached zero restarts rather than pausing at 0:00.
        running = bool(timer and timer.get("deadline") is not None and self.seconds_left(self.clock()))
        self._submit({"type": "timer_pause" if running else "timer_start"})

    def _do_timer_reset(self) -> None:
        self._submit({"type": "timer_reset"})

    def _do_next_phase(self) -> None:
        self._submit({"type": "next_phase"})

    def _do_coin(self) -> None:
        if self._coin_until is not None:
            self._coin_until = None
            self._drawn = None
            self._redraw(force=True)
            return
        self.display.coin(self._flip())
        self._coin_until = self.clock() + self.coin_seconds
        self._under = self._drawn

    # -- internals -------------------------------------------------------------

    def _game_state(self) -> dict[str, Any] | None:
        if not self._loaded:
            self.on_state(self.table.public_state())
        return self._state

    def _submit(self, command: dict[str, Any]) -> None:
        try:
            public_state = self.table.submit(command, source="button")
        except ValueError as exc:  # RuleError and the table's CommandError
            self._show_error(getattr(exc, "message", str(exc)))
            return
        self.on_state(public_state)

    def _show_error(self, message: str) -> None:
        self._play("error")
        if self._coin_until is not None:
            return  # the coin stays up; the buzzer says the press did nothing
        self.display.error(message)
        self._error_until = self.clock() + ERROR_SECONDS
        # Phones show it too: the player who pressed may be looking at one.
        publish = getattr(self.table, "publish", None)
        if publish is not None:
            publish("refused", {"message": message, "source": "button"})

    def _play(self, sound: str) -> None:
        if self.buzzer is not None:
            self.buzzer.play(sound)

    def _label(self) -> str:
        state = self._state or {}
        if state.get("winner"):
            return N_("The humans won") if state["winner"] == "humans" else N_("The aliens won")
        timer = state.get("timer", {})
        if timer.get("state") == "paused":
            return N_("Paused")
        return N_("Mission {n}: {phase}").format(n=state.get("mission", 1), phase=state.get("phase", ""))

    def _redraw(self, now: float | None = None, force: bool = False) -> None:
        if self._error_until is not None or self._state is None:
            return
        now = self.clock() if now is None else now
        seconds = self.seconds_left(now)
        if seconds is None:
            return
        label = N_("Time is up") if seconds == 0 else self._label()
        if self._coin_until is not None:
            # The coin stays on the OLED; under it the timer goes on, for the
            # mirrors of the screen, so a watcher cannot tell a flip happened.
            if force or self._under != (seconds, label):
                self.display.countdown(seconds, label, under=True)
                self._under = (seconds, label)
            return
        if force or self._drawn != (seconds, label):
            self.display.countdown(seconds, label)
            self._drawn = (seconds, label)

    def _sound(self, now: float) -> None:
        """Ticks for each of the last ten seconds, a warning at ten, the end at
        zero; each once per run, however irregular the ticks."""
        timer = self.timer
        if timer is None or timer.get("deadline") is None:
            return
        seconds = self.seconds_left(now)
        assert seconds is not None
        heard, self._heard = self._heard, seconds
        if heard is None or seconds >= heard:
            return  # a new run (or the first look at one): nothing crossed yet
        crossed = range(seconds, heard)
        if 0 in crossed:
            self._play("end")
        elif LAST_SECONDS in crossed:
            self._play("warning")
        elif seconds < LAST_SECONDS:
            self._play("tick")


Controller = OuterSpaceController
