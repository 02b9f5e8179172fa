"""The one error every game raises for an illegal command."""

from __future__ import annotations


class RuleError(ValueError):
    """An illegal command. ``rule`` names the rule broken (a ruling such as
    "B7", or a short name such as "dice-count"); the game is left unchanged."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} [{rule}]")
        self.rule = rule
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"error": self.message, "rule": self.rule}
