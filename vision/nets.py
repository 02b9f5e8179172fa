"""Running the reader's small networks (ONNX files in ``vision/models``).

ONNX Runtime runs them where it is installed (every 64-bit platform TablePi
installs on), about 1.6 times as fast as OpenCV's dnn module on one core for
the finder and to within 2e-5; elsewhere OpenCV runs them. Either uses as
many threads as OpenCV is set to (``cv2.setNumThreads``) when first loaded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision import N_

log = logging.getLogger(__name__)

# A network's run on one input batch (float32, NCHW): its first output.
Net = Callable[[np.ndarray], np.ndarray]


@lru_cache(maxsize=4)
def load(path: str, what: str) -> Net:
    """The network in the ONNX file ``path`` (``what`` names it in the error if it is missing)."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path}: the {what}'s model is missing (reinstall TablePi)")
    try:
        return with_onnxruntime(path)
    except ImportError:
        return with_opencv(path)
    except Exception as exc:  # an ONNX Runtime that cannot run here: a broken install, an old CPU
        log.warning(N_("ONNX Runtime cannot run %s (%s); OpenCV runs it instead"), Path(path).name, exc)
        return with_opencv(path)


def with_onnxruntime(path: str) -> Net:
    """The network in ``path`` run by ONNX Runtime (ImportError where it is not installed)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = max(1, cv2.getNumThreads())
    options.inter_op_num_threads = 1
    # Its threads would otherwise spin between runs, taking the cores the pip counting needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3  # its warnings about unused initialisers are not the user's
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return lambda batch: session.run(None, {name: batch})[0]


def with_opencv(path: str) -> Net:
    """The network in ``path`` run by OpenCV's dnn module."""
    # OpenCV 5's classic engine runs these plain convolution stacks about twice as
    # fast on one core as its new graph engine; OpenCV 4 has only that one.
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    net = cv2.dnn.readNetFromONNX(path) if engine is None else cv2.dnn.readNetFromONNX(path, engine=engine)

    def run(batch: np.ndarray) -> np.ndarray:
        net.setInput(batch)
        return net.forward()

    return run
