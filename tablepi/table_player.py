"""The table as a player: plays the Beam Me Up seats marked "played by the
table", one paced step at a time, through the table's own commands.

The moves are chosen by ``tablepi.games.beam_me_up.autoplay`` (pure: the
advice's best keep, the option its value function ranks best, the best way
to play it); this module only makes them, on a thread of its own owned by the
service, with source "table". Each step is a command like a person's (a roll
with its dice and the dice kept, a choice, a move, a bonus square, the end of
the turn), so the store keeps it, the pages show it and undo takes it back
like any other.

Pacing: a step is made once the table has stood still for ``step_seconds``
(about a second, so that people can follow the dice and the choices on the
TV; 0 in tests). Any change in that time starts the wait again, and a step
is only submitted if the table is still exactly where the step was chosen
(``Table.submit(..., expect=...)``), so it never lands on a state a person
has changed.

The table never fights a person:
- after an undo, when the seat to act is the table's (a person took back one
  of its steps, or the move that ended a person's turn, or is correcting
  something further back), the table waits: more undos go through untouched,
  and it plays on only when a person says so (``play_on``: the "Let the
  table play" button on the phones, A on the table) or plays a move
  themselves;
- it waits while the camera's reading of a roll was refused and not yet
  settled (``hold``, given by the service: a person may be about to fix it);
- the camera plays no part in its turns (the service ignores readings then);
- and no person plays for it: while it plays its turn, the table refuses
  every game command but its own (``refusal``, the table's ``turn_guard``);
  an undo, and "Let the table play" after one, are what people can do then.

Its dice come from ``rng``: the operating system's random source at the
table, ``random.Random(seed)`` in tests and demos (``tablepi run
--table-seed``), like the simulations in ``beam_me_up.duel``.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from tablepi.games.beam_me_up import autoplay
from tablepi.games.errors import RuleError
from tablepi.i18n import N_, Text
from tablepi.store import StoreError
from tablepi.table import CommandError

log = logging.getLogger(__name__)

STEP_SECONDS = 1.2
IDLE_SECONDS = 0.5  # how often an idle player looks again without any event
RETRY_SECONDS = 2.0  # after a step the store could not save

# Why the table is not playing a turn that is its own.
WAITING_WORDS = {
    "undo": N_("An undo took back a step. Undo more, play the step yourself, or let the table play."),
    "reading": N_("The camera's reading of a roll was not played. Fix it on a phone, or throw again."),
}


class TablePlayer:
    """Plays every seat of the game on ``table`` that the table plays."""

    def __init__(
        self,
        table: Any,
        rng: Any = None,
        step_seconds: float = STEP_SECONDS,
        hold: Callable[[], str | None] | None = None,
    ) -> None:
        self.table = table
        self.rng = rng if rng is not None else secrets.SystemRandom()
        self.step_seconds = max(0.0, float(step_seconds))
        self._hold = hold or (lambda: None)
        self._lock = threading.Lock()
        self._played_on: tuple[int | None, int] | None = None  # where a person said "play on"
        self._failed: tuple[int | None, int] | None = None  # where a step was refused by the rules
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- what it would do -------------------------------------------------------------

    @staticmethod
    def _game(public: dict[str, Any]) -> dict[str, Any] | None:
        game = public.get("game")
        if not game or game.get("kind") != "beam_me_up" or game.get("finished"):
            return None
        return game

    def waiting(self, public: dict[str, Any]) -> str | None:
        """Why the table does not play the turn that is its own now ("undo",
        "reading"); None when it plays (or the turn is not its own)."""
        game = self._game(public)
        if game is None or not autoplay.table_to_act(game["state"]):
            return None
        where = (game.get("id"), public.get("seq", 0))
        last = game.get("last") or {}
        with self._lock:
            played_on = self._played_on
        if last.get("type") == "undo" and played_on != where:
            return "undo"
        return self._hold()

    def due(self, public: dict[str, Any]) -> dict[str, Any] | None:
        """The command the table plays next (a roll without its dice), or None
        when it has nothing to play now."""
        game = self._game(public)
        if game is None or self.waiting(public) is not None:
            return None
        with self._lock:
            if self._failed == (game.get("id"), public.get("seq", 0)):
                return None
        return autoplay.next_command(game["state"])

    def status(self, public: dict[str, Any]) -> dict[str, Any] | None:
        """For the pages: the table's seat to act, what it does next or why it waits."""
        game = self._game(public)
        if game is None or not autoplay.table_to_act(game["state"]):
            return None
        state = game["state"]
        waiting = self.waiting(public)
        command = None if waiting else autoplay.next_command(state)
        return {
            "seat": state["turn"]["index"],
            "name": state["turn"]["name"],
            "waiting": waiting,
            "why": WAITING_WORDS.get(waiting or "", waiting),
            "next": autoplay.describe(state, command) if command else None,
        }

    def refusal(self, command: dict[str, Any], source: str) -> str | None:
        """Why ``command`` may not be played now (None: it may): in a turn the
        table plays and is not waiting in, only the table's own steps are."""
        if source == "table" or self.table.kind != "beam_me_up":
            return None
        public = self.table.public_state()
        game = self._game(public)
        if game is None or not autoplay.table_to_act(game["state"]) or self.waiting(public) is not None:
            return None
        name = game["state"]["turn"]["name"]
        return N_(
            "It is {name}'s turn, and the table plays it: wait for its move, "
            "or undo to take its last step back."
        ).format(name=name)

    # -- people -------------------------------------------------------------------------

    def play_on(self) -> bool:
        """A person lets the table play its turn after an undo; False when it
        was not waiting for that."""
        public = self.table.public_state()
        if self.waiting(public) != "undo":
            return False
        game = public["game"]
        with self._lock:
            self._played_on = (game.get("id"), public.get("seq", 0))
        self.table.publish("table_player", {"playing": True})
        self._wake.set()
        return True

    # -- playing ------------------------------------------------------------------------

    def step(self) -> dict[str, Any] | None:
        """Play the table's next step now, if it has one; the public state
        after it, or None when nothing was played."""
        public = self.table.public_state()
        command = self.due(public)
        if command is None:
            return None
        game = public["game"]
        where = (game.get("id"), public.get("seq", 0))
        if command["type"] == "roll":
            command = autoplay.throw(game["state"], command, self.rng)
        try:
            return self.table.submit(command, "table", expect=where)
        except CommandError:
            return None  # someone moved first: choose again from the new state
        except RuleError as exc:
            # A bug in the choice, not a person's doing: do not try it again and
            # again; a person can play the step (or undo) and the table goes on.
            log.error(N_("the table's own move %s was refused: %s"), command, Text(exc.message))
            with self._lock:
                self._failed = where
            words = N_("its own move was refused ({message}). Play the step yourself, or undo.").format(
                message=exc.message
            )
            self.table.publish("refused", {"message": words})
            return None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="tablepi-table-player", daemon=True)
            self._thread.start()

    def close(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def _run(self) -> None:
        sub = self.table.subscribe(maxsize=100)
        try:
            while not self._stop.is_set():
                public = self.table.public_state()
                if self.due(public) is None:
                    self._wait(sub, IDLE_SECONDS)
                    continue
                where = ((public.get("game") or {}).get("id"), public.get("seq", 0))
                if not self._still(sub, where, self.step_seconds):
                    continue
                try:
                    self.step()
                except StoreError as exc:
                    log.error(N_("the table's move could not be saved: %s"), Text(exc))
                    self._stop.wait(RETRY_SECONDS)
                except Exception:  # the table player must never stop the table
                    log.exception(N_("the table player failed"))
                    self._stop.wait(RETRY_SECONDS)
        finally:
            sub.close()

    def _wait(self, sub: Any, seconds: float) -> None:
        """Until an event or ``seconds`` (events are read only to be woken)."""
        if self._wake.is_set():
            self._wake.clear()
            return
        sub.get(timeout=seconds)
        while sub.pending():
            sub.get(timeout=0)

    def _still(self, sub: Any, where: tuple[int | None, int], seconds: float) -> bool:
        """Whether the table stays at ``where`` for ``seconds``."""
        deadline = time.monotonic() + seconds
        while not self._stop.is_set():
            if (self.table.game_id, self.table.seq) != where:
                return False
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            sub.get(timeout=left)
        return False
