"""What the table's pages and its statistics both show: the games' names and a roll's
dice marked kept."""

from __future__ import annotations

from typing import Any

# As the boxes print them, in every language.
KIND_NAMES = {
    "beam_me_up": "Beam Me Up",
    "outer_space": "They Came From Outer Space",
    "space_beans": "Space Beans",
}


def dice_marks(dice: list[int] | None, kept: list[int]) -> list[dict[str, Any]]:
    """The dice of a roll, each marked kept while kept values last (a kept
    value marks one die only, however many show it)."""
    left = list(kept)
    marked = []
    for value in dice or []:
        is_kept = value in left
        if is_kept:
            left.remove(value)
        marked.append({"value": value, "kept": is_kept})
    return marked
