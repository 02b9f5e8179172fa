"""The Pi camera adapter against a fake Picamera2 that behaves as picamera2's source does:
IndexError with no camera, USB webcams in libcamera's list, a camera held until close(),
configure() raising, capture_array(wait=seconds) raising TimeoutError, close() stopping a
running camera, AfMode among the controls or not."""

from __future__ import annotations

import sys
import threading
import types
from types import SimpleNamespace

import numpy as np
import pytest
from waiting import until

from hardware import cameras
from hardware.cameras import CameraError, PiCamera, ResilientCamera, choose_source, open_camera

CSI = {"Model": "imx708", "Location": 2, "Rotation": 180, "Id": "/base/soc/i2c0mux/i2c@1/imx708@1a", "Num": 0}
USB = {"Model": "HD Webcam", "Id": "/base/scb/pcie@7d500000/pci@0,0/usb@0,0-1:1.0-046d:0825", "Num": 1}


class FakePicamera2:
    """picamera2.Picamera2 as its source behaves, down to what these tests need."""

    cameras: list[dict] = []
    held: set[int] = set()  # cameras opened and not yet closed (picamera2 keeps them acquired)
    opened: list[FakePicamera2] = []
    configure_error: Exception | None = None
    stalled = threading.Event()
    autofocus = False

    @staticmethod
    def global_camera_info() -> list[dict]:
        # Sorted as picamera2 sorts them: USB webcams last.
        return sorted(FakePicamera2.cameras, key=lambda c: ("/usb" not in c["Id"], c["Id"]), reverse=True)

    def __init__(self, camera_num: int = 0):
        num = self.global_camera_info()[camera_num]["Num"]  # IndexError with no camera
        if num in FakePicamera2.held:
            raise RuntimeError("Camera __init__ sequence did not complete.")  # busy
        FakePicamera2.held.add(num)
        FakePicamera2.opened.append(self)
        self.num = num
        self.started = False
        self.closed = False
        self.controls_set: list[dict] = []
        self.flushed = 0
        self.frames = 0
        self.camera_controls = {"FrameRate": (1.0, 120.0, 30.0)}
        if FakePicamera2.autofocus:
            self.camera_controls |= {"AfMode": (0, 2, 0), "LensPosition": (0.0, 32.0, 1.0)}

    def create_video_configuration(self, main: dict, controls: dict) -> dict:
        return {"main": dict(main), "controls": dict(controls)}

    def configure(self, config: dict) -> None:
        if FakePicamera2.configure_error is not None:
            raise FakePicamera2.configure_error
        self.config = config

    def set_controls(self, controls: dict) -> None:
        unknown = set(controls) - set(self.camera_controls)
        if unknown:
            raise RuntimeError(f"Control {unknown.pop()} is not advertised by libcamera")
        self.controls_set.append(dict(controls))

    def start(self) -> None:
        self.started = True

    def capture_array(self, name: str = "main", wait: float | None = None) -> np.ndarray:
        assert name == "main" and self.started and not self.closed
        assert isinstance(wait, float) and 0 < wait <= 5, "a bounded wait"
        if FakePicamera2.stalled.is_set():  # the ribbon is out: no request completes in time
            raise TimeoutError
        self.frames += 1
        width, height = self.config["main"]["size"]
        return np.full((height, width, 4), self.frames % 256, np.uint8)  # XRGB8888's 4 bytes

    def cancel_all_and_flush(self) -> None:
        self.flushed += 1

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        if self.started:
            self.stop()
        self.closed = True
        FakePicamera2.held.discard(self.num)


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setattr(cameras, "on_pi", lambda: True)
    monkeypatch.setattr(cameras, "_device_present", lambda device: False)
    FakePicamera2.cameras = [CSI]
    FakePicamera2.held = set()
    FakePicamera2.opened = []
    FakePicamera2.configure_error = None
    FakePicamera2.stalled = threading.Event()
    FakePicamera2.autofocus = False
    return FakePicamera2


def test_a_camera_on_the_connector_is_chosen_and_gives_bgr_frames(picamera2) -> None:
    assert choose_source(SimpleNamespace(source="auto", device=0), simulate=False) == (
        "picamera",
        "a camera on the Pi's camera connector",
    )
    with PiCamera(320, 240, 15, timeout=0.5) as cam:
        frame = cam.read()
        assert frame.shape == (240, 320, 3) and frame.flags["C_CONTIGUOUS"]
        fake = picamera2.opened[-1]
        assert fake.config["main"] == {"size": (320, 240), "format": "RGB888"}
        assert fake.controls_set == []  # no autofocus to set
        assert cam.focus == "fixed lens"
    assert fake.closed and not fake.started and picamera2.held == set()


def test_no_camera_falls_back_and_says_why(picamera2, monkeypatch: pytest.MonkeyPatch) -> None:
    picamera2.cameras = []
    with pytest.raises(IndexError):
        picamera2()  # what picamera2 itself does with no camera
    with pytest.raises(CameraError, match="no camera on the Pi's camera connector"):
        PiCamera()
    source, why = choose_source(SimpleNamespace(source="auto", device=0), simulate=False)
    assert source == "synthetic"
    assert "no camera on the Pi's camera connector" in why and "nothing at 0" in why
    # a webcam, when there is one, is the next choice
    monkeypatch.setattr(cameras, "_device_present", lambda device: True)
    monkeypatch.setattr(cameras.OpenCVCamera, "__init__", lambda self, device: None)
    monkeypatch.setattr(cameras.OpenCVCamera, "close", lambda self: None)
    assert choose_source(SimpleNamespace(source="auto", device=0), simulate=False)[0] == "opencv"


def test_a_usb_webcam_in_libcameras_list_is_not_taken_for_the_pi_camera(picamera2) -> None:
    picamera2.cameras = [USB]
    source, why = choose_source(SimpleNamespace(source="auto", device=0), simulate=False)
    assert source == "synthetic" and "no camera on the Pi's camera connector" in why
    with pytest.raises(CameraError, match="camera connector"):
        PiCamera()
    assert picamera2.opened == []
    # beside a camera module, the module is the one opened
    picamera2.cameras = [USB, CSI]
    with PiCamera() as cam:
        cam.read()
        assert picamera2.opened[-1].num == CSI["Num"]


@pytest.mark.parametrize(
    "error",
    [ValueError("numpy.dtype size changed, may indicate binary incompatibility"), OSError("libcamera")],
)
def test_picamera2_that_does_not_import_is_reported(
    picamera2, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    class Broken(types.ModuleType):
        def __getattr__(self, name: str):
            raise error

    monkeypatch.setitem(sys.modules, "picamera2", Broken("picamera2"))
    with pytest.raises(CameraError, match="picamera2 does not import") as caught:
        PiCamera()
    assert str(error) in str(caught.value)
    source, why = choose_source(SimpleNamespace(source="auto", device=0), simulate=False)
    assert source == "synthetic" and str(error) in why
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraError, match="picamera2 is not installed"):
        PiCamera()


def test_a_camera_that_fails_to_configure_is_closed_so_the_next_try_finds_it_free(picamera2) -> None:
    picamera2.configure_error = RuntimeError("Failed to configure the camera")
    for _ in range(3):
        with pytest.raises(CameraError, match="did not start: Failed to configure"):
            PiCamera()
    assert all(fake.closed for fake in picamera2.opened) and picamera2.held == set()
    picamera2.configure_error = None
    with PiCamera() as cam:
        assert cam.read() is not None


def test_autofocus_focuses_continuously_or_stays_at_the_set_lens_position(picamera2) -> None:
    picamera2.autofocus = True
    with PiCamera() as cam:
        assert picamera2.opened[-1].controls_set == [{"AfMode": 2}]
        assert cam.focus == "continuous autofocus"
    with PiCamera(lens_position=4.0) as cam:
        assert picamera2.opened[-1].controls_set == [{"AfMode": 0, "LensPosition": 4.0}]
        assert cam.focus == "lens at 4 dioptres"


def test_a_closing_camera_that_raises_is_still_let_go(picamera2, caplog: pytest.LogCaptureFixture) -> None:
    cam = PiCamera()
    fake = picamera2.opened[-1]

    def failing_close() -> None:
        FakePicamera2.close(fake)
        raise RuntimeError("Camera stop failed")

    fake.close = failing_close
    cam.close()  # does not raise
    assert "Camera stop failed" in caplog.text
    cam.close()  # a second close is harmless
    with pytest.raises(CameraError, match="closed"):
        cam.read()


def test_a_stalled_camera_is_flushed_closed_reopened_and_reported(picamera2) -> None:
    events: list[tuple[str, str]] = []
    cfg = SimpleNamespace(source="picamera", device=0, width=64, height=48, fps=30, lens_position=None)
    camera = open_camera(cfg, simulate=False, on_event=lambda kind, msg: events.append((kind, msg)))
    assert camera.kind == "picamera"
    try:
        assert camera.wait_frame(3.0) is not None
        first = picamera2.opened[-1]
        picamera2.stalled.set()  # the ribbon comes loose
        assert until(lambda: any(kind == "lost" for kind, _ in events), timeout=10)
        assert first.flushed >= 1 and first.closed
        assert any("no frame from the Pi camera" in msg for _, msg in events)
        assert camera.read() is None  # nothing stale while lost
        picamera2.stalled.clear()  # and goes back in
        assert until(lambda: any(kind == "restored" for kind, _ in events), timeout=15)
        assert camera.wait_frame(3.0) is not None
        assert len(picamera2.opened) >= 2 and picamera2.held == {CSI["Num"]}
    finally:
        camera.close()
    assert picamera2.held == set()  # closing the table lets the camera go


def test_resilient_camera_reports_which_source_and_why(picamera2) -> None:
    with open_camera(SimpleNamespace(source="auto", device=0), simulate=False, start=False) as cam:
        assert (cam.kind, cam.why) == ("picamera", "a camera on the Pi's camera connector")
    assert isinstance(cam, ResilientCamera)
