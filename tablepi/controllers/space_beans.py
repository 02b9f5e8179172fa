"""Space Beans at the table: the OLED keeps the standings in view.

Scores are entered from phones. On the table (see buttons.json) A
("end_turn") passes the turn to the next player, as a phone's "End turn"
does, and C ("show_leader") shows who leads (or, once the game is over, who
won) for a few seconds. The standings are titled with whose turn it is and
highlight that player, whatever row the scores put them on. A refusal (the
player has not added to a collection yet, say) shows on the OLED and on the
phones.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from tablepi.games.errors import RuleError
from tablepi.i18n import N_
from tablepi.table import CommandError

log = logging.getLogger(__name__)

LEADER_SECONDS = 4.0
ERROR_SECONDS = 3.0


class SpaceBeansController:
    """OLED standings for a game of Space Beans."""

    kind = "space_beans"

    def __init__(
        self,
        table: Any,
        display: Any,
        buzzer: Any,
        clock: Callable[[], float],
        leader_seconds: float = LEADER_SECONDS,
    ) -> None:
        self.table = table
        self.display = display
        self.buzzer = buzzer
        self.clock = clock
        self.leader_seconds = float(leader_seconds)
        self._state: dict[str, Any] | None = None
        self._loaded = False
        self._highlight: int | None = None  # a player index
        self._message_until: float | None = None

    # -- properties -----------------------------------------------------------

    @property
    def highlighted(self) -> int | None:
        """The index of the highlighted player (None before any game)."""
        return self._highlight

    def rows(self) -> list[tuple[str, int]]:
        """The standings as (name, points), best first."""
        state = self._game_state()
        if state is None:
            return []
        return [(row["name"], row["total"]) for row in state["standings"]]

    # -- contract -------------------------------------------------------------

    def on_state(self, public_state: dict[str, Any] | None) -> None:
        game = (public_state or {}).get("game")
        self._loaded = True
        if not game or game.get("kind") != self.kind:
            self._state = None
            self._highlight = None
            return
        self._state = game["state"]
        active = self._state.get("active")
        if self._state.get("finished") or self._state.get("end_triggered") or active is None:
            self._highlight = self._state["standings"][0]["player"]
        else:
            self._highlight = active
        self._redraw()

    def on_button(self, action: str) -> None:
        handler = getattr(self, f"_do_{action}", None)
        if handler is None:
            log.debug("no Space Beans action %r", action)
            return
        if self._game_state() is None:
            return
        handler()

    def tick(self, now: float) -> None:
        if self._message_until is not None and now >= self._message_until:
            self._message_until = None
            self._redraw()

    # -- actions (names from buttons.json) -------------------------------------

    def _do_end_turn(self) -> None:
        self._message_until = None
        try:
            self.table.submit({"type": "end_turn"}, "button")
        except (RuleError, CommandError) as exc:
            self._refused(exc.message)
            return
        self.on_state(self.table.public_state())

    def _do_show_leader(self) -> None:
        state = self._state
        names = [state["players"][i]["name"] for i in state["leaders"]]
        total = state["players"][state["leaders"][0]]["total"]
        if state["finished"]:
            title = N_("Winner") if len(names) == 1 else N_("Shared win")
        else:
            title = N_("Leader") if len(names) == 1 else N_("Joint leaders")
        self.display.message([title, *names[:3], N_("{total} points").format(total=total)])
        self._message_until = self.clock() + self.leader_seconds

    # -- internals -------------------------------------------------------------

    def _game_state(self) -> dict[str, Any] | None:
        if not self._loaded:
            self.on_state(self.table.public_state())
        return self._state

    def _refused(self, message: str) -> None:
        self.display.error(message)
        self._message_until = self.clock() + ERROR_SECONDS
        # Phones show it too: the player who pressed may be looking at one.
        publish = getattr(self.table, "publish", None)
        if publish is not None:
            publish("refused", {"message": message, "source": "button"})

    def title(self) -> str:
        """The standings' heading: whose turn it is, or what the game waits for."""
        state = self._state
        if state is None:
            return ""
        if state.get("finished"):
            return N_("Final scores")
        if state.get("end_triggered"):
            return N_("Enter secret cards")
        active = state.get("active")
        return N_("{name}'s turn").format(name=state["players"][active]["name"]) if active is not None else ""

    def _redraw(self) -> None:
        if self._message_until is not None or self._state is None:
            return
        order = [row["player"] for row in self._state["standings"]]
        cursor = order.index(self._highlight) if self._highlight in order else None
        self.display.standings(self.rows(), cursor, self.title())


Controller = SpaceBeansController
