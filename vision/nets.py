"""Loading the reader's small networks through OpenCV's dnn module."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2


@lru_cache(maxsize=4)
def load(path: str, what: str):
    """The network in the ONNX file ``path`` (``what`` names it in the error if it is missing).

    OpenCV 5's classic engine runs these plain convolution stacks about twice as
    fast on one core as its new graph engine, to within 1e-5; OpenCV 4 has only that one.
    """
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path}: the {what}'s model is missing (reinstall TablePi)")
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if engine is None:
        return cv2.dnn.readNetFromONNX(path)
    return cv2.dnn.readNetFromONNX(path, engine=engine)
