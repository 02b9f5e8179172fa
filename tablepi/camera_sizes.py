"""A table's camera, learned: the dice's size over the frame, kept in the data directory.

The table reads each settled roll with a :class:`vision.table_reader.TableReader`,
which learns the camera's die sizes from its own sure readings (never from a
person's corrections); this keeps what it learned, one file per camera source
and frame size, so a restarted table reads its camera as well as before. A
file that cannot be read is set aside and learning starts again.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from tablepi.i18n import N_
from vision.calibration import Calibration

log = logging.getLogger(__name__)


def sizes_file(data_dir: Path, source: str, width: int, height: int) -> Path:
    """Where a camera's learned die sizes are kept."""
    return Path(data_dir) / f"dice-sizes-{source}-{int(width)}x{int(height)}.json"


def camera_file(data_dir: Path, kind: str | None, camera_cfg: Any) -> Path:
    """Where the table keeps what it learns of its camera: of ``kind`` (an opened camera's,
    ``hardware.cameras``), set up as ``camera_cfg`` (the settings' ``[camera]``)."""
    width, height = int(getattr(camera_cfg, "width", 640)), int(getattr(camera_cfg, "height", 480))
    return sizes_file(data_dir, kind or "camera", width, height)


def load(path: Path) -> Calibration:
    """The calibration kept at ``path``, or a new one (a damaged file is set aside)."""
    try:
        return Calibration.from_dict(json.loads(path.read_text()))
    except FileNotFoundError:
        return Calibration()
    except (OSError, ValueError) as exc:
        aside = path.with_name(path.name + ".unreadable")
        try:
            os.replace(path, aside)
        except OSError:
            aside = path
        log.warning(
            N_("the camera's die sizes in %s could not be read (%s); learning them again"), aside, exc
        )
        return Calibration()


def save(path: Path, calibration: Calibration) -> None:
    """Keep ``calibration`` at ``path`` (written whole or not at all); a failure is logged, not raised."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(calibration.to_dict()))
        os.replace(tmp, path)
    except OSError as exc:
        log.warning(N_("the camera's die sizes could not be kept in %s: %s"), path, exc)


def learning_reader(path: Path, expect: int) -> Any:
    """A rest reader (``vision.settle.Settler``'s ``rest_reader``) that reads with the
    calibration kept at ``path``, tells it ``expect`` dice were thrown, and keeps what it learns."""
    from vision.table_reader import TableReader

    reader = TableReader(calibration=load(path))

    def read(frames: list) -> list:
        dice = reader.read_still(frames, expect=expect)
        save(path, reader.calibration)
        return dice

    read.reader = reader  # for /healthz and the tests: what the table has learned
    return read
