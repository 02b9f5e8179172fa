"""Controllers turn the table's physical inputs into commands and its state
into OLED screens and buzzer sounds, one controller per game.

A controller is built with ``(table, display, buzzer, clock)`` and offers:

- ``on_button(action: str) -> None``: an action named in ``buttons.json``
  for its game (the mapping from buttons to actions is data, not code);
- ``tick(now: float) -> None``: called about ten times a second by the
  service for timers and screen time-outs;
- ``on_state(public_state: dict) -> None``: redraw after the state changed.

The display is never None (a dummy device stands in for a missing OLED) and
the buzzer is silent when none is fitted. Controllers hold no game state of
their own beyond what is on screen: the table is the only place game state
changes.
"""

from __future__ import annotations

import json
from importlib import resources


def button_actions(kind: str) -> dict[str, str]:
    """The mapping for one game: ``{"A": action, "A_long": action, ...}``."""
    mapping = json.loads(resources.files(__package__).joinpath("buttons.json").read_text())
    return dict(mapping.get(kind, {}))


def action_for(kind: str, button: str, long: bool) -> str | None:
    """The action a press of ``button`` (A, B or C) means in game ``kind``."""
    actions = button_actions(kind)
    return actions.get(f"{button}_long" if long else button)
