"""OpenCV dice reading: locate dice, count pips, tell when a roll has settled.

``from vision import read_dice, Die``. OpenCV is imported on first use so
that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.reader import Die, read_dice

__all__ = ["Die", "read_dice"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from vision import reader

        return getattr(reader, name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
