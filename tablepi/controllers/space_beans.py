"""Space Beans at the table: the OLED keeps the standings in view.

Scores are entered from phones; the buttons only look (see buttons.json):
A ("next_player") moves the highlight down the standings, wrapping round, and
C ("show_leader") shows who leads (or, once the game is over, who won) for a
few seconds. The highlight follows the player, not the row, when the order
changes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

LEADER_SECONDS = 4.0


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
        count = len(self._state["players"])
        if self._highlight is None or self._highlight >= count:
            active = self._state.get("active")
            self._highlight = active if active is not None else self._state["standings"][0]["player"]
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

    def _do_next_player(self) -> None:
        order = [row["player"] for row in self._state["standings"]]
        position = order.index(self._highlight) if self._highlight in order else -1
        self._highlight = order[(position + 1) % len(order)]
        self._message_until = None
        self._redraw()

    def _do_show_leader(self) -> None:
        state = self._state
        names = [state["players"][i]["name"] for i in state["leaders"]]
        total = state["players"][state["leaders"][0]]["total"]
        if state["finished"]:
            title = "Winner" if len(names) == 1 else "Shared win"
        else:
            title = "Leader" if len(names) == 1 else "Joint leaders"
        self.display.message([title, *names[:3], f"{total} points"])
        self._message_until = self.clock() + self.leader_seconds

    # -- internals -------------------------------------------------------------

    def _game_state(self) -> dict[str, Any] | None:
        if not self._loaded:
            self.on_state(self.table.public_state())
        return self._state

    def _redraw(self) -> None:
        if self._message_until is not None or self._state is None:
            return
        order = [row["player"] for row in self._state["standings"]]
        cursor = order.index(self._highlight) if self._highlight in order else None
        self.display.standings(self.rows(), cursor)


Controller = SpaceBeansController
