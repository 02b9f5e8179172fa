"""The reader's networks run the same by ONNX Runtime and by OpenCV (where ONNX
Runtime has no wheel, a 32-bit Pi, OpenCV runs them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import finder, nets, verify


def test_the_table_runs_its_networks_with_onnx_runtime() -> None:
    import onnxruntime  # noqa: F401  (locked for every platform but 32-bit ARM)

    net = nets.load(str(finder.MODEL), "die finder")
    assert net.__qualname__.startswith("with_onnxruntime")


@pytest.mark.parametrize(
    ("model", "shape"),
    [(finder.MODEL, (1, 3, 208, 320)), (verify.MODEL, (5, 2, 48, 48))],
    ids=["finder", "verifier"],
)
def test_both_runtimes_give_the_same_output(model: Path, shape: tuple[int, ...]) -> None:
    batch = np.random.default_rng(3).uniform(-1, 1, shape).astype(np.float32)
    fast = nets.with_onnxruntime(str(model))(batch)
    plain = nets.with_opencv(str(model))(batch)
    assert fast.shape == plain.shape and fast.shape[0] == shape[0]
    assert np.abs(fast - plain).max() < 1e-4
    assert np.abs(plain).max() > 0.1  # a real output, not zeros


def test_a_missing_model_says_which_and_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="face verifier's model is missing"):
        nets.load(str(tmp_path / "gone.onnx"), "face verifier")


def test_an_onnx_runtime_that_cannot_run_leaves_the_networks_to_opencv(monkeypatch, caplog) -> None:
    def broken(path: str) -> nets.Net:
        raise RuntimeError("illegal instruction in the CPU check")

    monkeypatch.setattr(nets, "with_onnxruntime", broken)
    nets.load.cache_clear()
    try:
        net = nets.load(str(verify.MODEL), "face verifier")
        batch = np.random.default_rng(5).uniform(-1, 1, (2, 2, 48, 48)).astype(np.float32)
        assert net(batch).shape[0] == 2
        assert net.__qualname__.startswith("with_opencv")
        assert "ONNX Runtime cannot run verifier.onnx (illegal instruction" in caplog.text
    finally:
        nets.load.cache_clear()  # the other tests load the networks as the table does
