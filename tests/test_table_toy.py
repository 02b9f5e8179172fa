"""A small game obeying the game protocol, for testing the table and store
without depending on any one real game's rules."""

from __future__ import annotations

from typing import Any

import pytest

from tablepi import games
from tablepi.games.errors import RuleError


class Counter:
    """Players take turns adding 1..6 to their score; first to ``target`` wins.

    ``to_dict`` deliberately keeps no history, as a game is free to do, so a
    restored game cannot ``pop`` past its restore point."""

    def __init__(self, players: int, target: int, scores: list[int], turn: int) -> None:
        self.players = players
        self.target = target
        self.scores = scores
        self.turn = turn
        self._stack: list[tuple[dict, list[int], int]] = []

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> Counter:
        players = settings.get("players", 2)
        if not isinstance(players, int) or not 1 <= players <= 4:
            raise RuleError("players", "1 to 4 players")
        return cls(players, int(settings.get("target", 30)), [0] * players, 0)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Counter:
        return cls(d["players"], d["target"], list(d["scores"]), d["turn"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "target": self.target,
            "scores": list(self.scores),
            "turn": self.turn,
        }

    @property
    def finished(self) -> bool:
        return max(self.scores) >= self.target

    def push(self, command: dict[str, Any]) -> None:
        if self.finished:
            raise RuleError("over", "the game is over")
        if command.get("type") != "add":
            raise RuleError("type", f"unknown command {command.get('type')!r}")
        n = command.get("n")
        if not isinstance(n, int) or not 1 <= n <= 6:
            raise RuleError("n", "add 1 to 6")
        self._stack.append((command, list(self.scores), self.turn))
        self.scores[self.turn] += n
        self.turn = (self.turn + 1) % self.players

    def pop(self) -> dict[str, Any]:
        command, self.scores, self.turn = self._stack.pop()
        return command

    def public_view(self, now: float | None = None) -> dict[str, Any]:
        return {"scores": list(self.scores), "turn": self.turn, "target": self.target}


def register(monkeypatch: pytest.MonkeyPatch) -> str:
    """Make the game known to the table as kind "counter" for one test."""
    monkeypatch.setitem(games.KINDS, "counter", f"{__name__}:Counter")
    return "counter"


@pytest.fixture
def counter_kind(monkeypatch: pytest.MonkeyPatch) -> str:
    return register(monkeypatch)


def test_counter_round_trip() -> None:
    game = Counter.from_settings({"players": 2})
    game.push({"type": "add", "n": 3})
    assert Counter.from_dict(game.to_dict()).to_dict() == game.to_dict()
    game.pop()
    assert game.scores == [0, 0]
