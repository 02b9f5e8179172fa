"""Which computer this is: a Raspberry Pi, or anything else (simulation)."""

from __future__ import annotations

from pathlib import Path

MODEL_FILE = Path("/proc/device-tree/model")


def on_pi(model_file: Path = MODEL_FILE) -> bool:
    """True on a Raspberry Pi (by the device tree's model string)."""
    try:
        return "Raspberry Pi" in model_file.read_bytes().decode("ascii", "replace")
    except OSError:
        return False
