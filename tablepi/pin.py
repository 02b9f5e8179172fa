"""The table's PIN: six digits that let a phone change game state.

Made once from the operating system's secure random source and kept in the
data directory, readable by the service's user only, so that the PIN on the
OLED stays the same across restarts.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

PIN_FILE = "pin"


def _valid(pin: str) -> bool:
    return len(pin) == 6 and pin.isascii() and pin.isdigit()


def new_pin() -> str:
    return f"{secrets.randbelow(1_000_000):06d}"


def load_or_create_pin(data_dir: str | os.PathLike[str]) -> str:
    """The PIN kept in ``data_dir``, made (mode 0600) if missing or unreadable."""
    path = Path(data_dir) / PIN_FILE
    try:
        pin = path.read_text(encoding="ascii").strip()
        if _valid(pin):
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
            return pin
    except (OSError, UnicodeDecodeError):
        pass
    Path(data_dir).mkdir(parents=True, exist_ok=True)
    pin = new_pin()
    tmp = path.with_name(PIN_FILE + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (pin + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return pin


def check_pin(expected: str, given: str | None) -> bool:
    """Constant-time comparison of a PIN given by a phone."""
    return given is not None and secrets.compare_digest(expected.encode(), str(given).strip().encode())
