"""The project's speed and memory figures (`tablepi bench WHAT`).

Their lines for people are said in the system's language; the figures stay
as Python prints them, for the tools that read them.
"""

from __future__ import annotations


def row(label: str, text: str) -> str:
    """A line of a report: its marked label, said and padded to a column, and its text."""
    from tablepi.cli import say

    return f"{say(label) + ':':<17} {text}"
