"""The Raspberry Pi's environment, built here the installer's way (systemd/pi-env.sh).

Raspberry Pi OS Bookworm is Debian 12 underneath, like this machine: its
Python is /usr/bin/python3, its numpy is apt's 1.24, and picamera2 imports
apt's simplejpeg, a module built against that numpy. The test builds such a
module (Cython, Debian's numpy headers and compiler) and puts it where apt's
would be found, behind the environment's own packages; then builds the
environment as the installer does and imports, in one process, simplejpeg,
the locked numpy and OpenCV, and TablePi's reader, which reads real photos
there to the accuracy guard's floors.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds a Raspberry Pi OS environment

ROOT = Path(__file__).resolve().parent.parent
SYSTEM_PYTHON = Path("/usr/bin/python3")
SYSTEM_NUMPY = Path("/usr/lib/python3/dist-packages/numpy")
CYTHON = shutil.which("cython3") or "/usr/bin/cython3"

# What picamera2 asks of simplejpeg, from a module that uses numpy's C API as apt's does.
STAND_IN = """
# cython: language_level=3
cimport numpy as cnp
import numpy as np
cnp.import_array()

def encode_jpeg(cnp.ndarray image, **options):
    return b"stand-in " + bytes(str(np.shape(image)), "ascii")
"""

# Run inside the built environment: the import picamera2 makes, then the reader.
CHECK = """
import json, sys
import simplejpeg, numpy, cv2
from vision.synth import scene
from vision.reader import read_dice
import numpy as np
img, placed = scene(640, 480, [2, 5, 6], 60, np.random.default_rng(3), "wood")
jpeg = simplejpeg.encode_jpeg(np.ascontiguousarray(img[:, :, ::-1]), colorspace="RGB")
dice = sorted(d.value for d in read_dice(img) if d.confidence >= 0.5)
print(json.dumps({"simplejpeg": simplejpeg.__file__, "numpy": numpy.__version__,
                  "opencv": cv2.__version__, "jpeg": jpeg[:2].hex(), "dice": dice}))
"""


def _needs(path: Path | str, package: str) -> None:
    if not Path(path).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing on CI: `make test` installs {package} through apt")
        pytest.skip(f"{path} missing (apt install {package})")


@pytest.fixture(scope="module")
def pi_env(tmp_path_factory: pytest.TempPathFactory) -> dict:
    for path, package in (
        (SYSTEM_PYTHON, "python3-venv"),
        (SYSTEM_NUMPY, "python3-numpy"),
        (CYTHON, "cython3"),
        ("/usr/bin/gcc", "gcc"),
        ("/usr/include/python3.11/Python.h", "python3-dev"),
    ):
        _needs(path, package)
    tmp = tmp_path_factory.mktemp("pi")
    system = tmp / "dist-packages"
    system.mkdir()
    (tmp / "simplejpeg.pyx").write_text(STAND_IN)
    subprocess.run([CYTHON, "-3", str(tmp / "simplejpeg.pyx"), "-o", str(tmp / "simplejpeg.c")], check=True)
    flags = subprocess.run(
        [f"{SYSTEM_PYTHON}-config", "--includes"], capture_output=True, text=True, check=True
    ).stdout.split()
    suffix = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O1", *flags, f"-I{SYSTEM_NUMPY}/core/include"]
        + [str(tmp / "simplejpeg.c"), "-o", str(system / f"simplejpeg{suffix}")],
        check=True,
        capture_output=True,
    )
    # apt's copy works with apt's numpy: the stand-in is a faithful one.
    built = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import simplejpeg, numpy; print(simplejpeg.encode_jpeg(numpy.zeros((2, 3))))"],
        env={"PYTHONPATH": str(system), "PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0 and "(2, 3)" in built.stdout, built.stderr

    apt = tmp / "apt"
    (apt / "sources.list.d").mkdir(parents=True)
    (apt / "sources.list.d" / "raspi.list").write_text(
        "deb http://archive.raspberrypi.com/debian/ bookworm main\n"
    )
    venv = tmp / "venv"
    env = dict(
        os.environ,
        TABLEPI_APT_DIR=str(apt),
        # This Debian has no python3-picamera2 or python3-lgpio; what it has is checked the same way.
        TABLEPI_APT_PACKAGES="python3-venv python3-numpy",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    env.pop("VIRTUAL_ENV", None)
    made = subprocess.run(
        ["sh", str(ROOT / "systemd" / "pi-env.sh"), str(venv)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True
    ).stdout.strip()
    # apt's modules come after the environment's own, as /usr/lib/python3/dist-packages does.
    (Path(site) / "zz-apt-stand-in.pth").write_text(str(system) + "\n")
    return {"python": python, "system": system, "site": Path(site), "made": made.stdout}


def _run(python: Path, code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [python, "-c", code],
        cwd="/",  # TablePi from the environment, not from this checkout
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_environment_sees_the_system_and_holds_the_locked_versions(pi_env: dict) -> None:
    python = pi_env["python"]
    cfg = (python.parent.parent / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = true" in cfg
    probe = _run(
        python,
        "from importlib.metadata import version as v; print(v('numpy'), v('opencv-python-headless'))",
    )
    assert probe.returncode == 0, probe.stderr
    numpy_version, opencv_version = probe.stdout.split()
    pins = {line.split(" ")[0] for line in (ROOT / "requirements" / "table.txt").read_text().splitlines()}
    assert f"numpy=={numpy_version}" in pins
    assert f"opencv-python-headless=={opencv_version}" in pins
    # The system's numpy is there, older, and not the one imported.
    assert (SYSTEM_NUMPY / "__init__.py").is_file()
    assert str(pi_env["site"]) in _run(python, "import numpy; print(numpy.__file__)").stdout


def test_simplejpeg_and_the_reader_load_in_one_process(pi_env: dict) -> None:
    got = _run(pi_env["python"], CHECK)
    assert got.returncode == 0, got.stderr
    seen = json.loads(got.stdout.strip().splitlines()[-1])
    assert seen["simplejpeg"].startswith(str(pi_env["site"]))  # PyPI's, built for numpy 2
    assert seen["jpeg"] == "ffd8"  # a real JPEG
    assert seen["dice"] == [2, 5, 6]


def test_apts_simplejpeg_alone_fails_as_on_a_pi(pi_env: dict) -> None:
    # What the installer's environment did before: only apt's simplejpeg to find.
    got = _run(pi_env["python"], "import numpy, simplejpeg", PYTHONPATH=str(pi_env["system"]))
    assert got.returncode != 0
    assert "numpy" in got.stderr and (
        "size changed" in got.stderr or "compiled using NumPy 1.x" in got.stderr
    )


def test_the_reader_keeps_its_floors_in_the_pi_environment(pi_env: dict, shared_dir: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_vision_dataset import FLOORS

    tablepi = pi_env["python"].parent / "tablepi"
    folders = [str(shared_dir / "datasets" / name) for name in FLOORS]
    got = subprocess.run(
        [tablepi, "dice", "eval", "--json", *folders], capture_output=True, text=True, timeout=600, cwd="/"
    )
    assert got.returncode == 0, got.stderr
    for figures in json.loads(got.stdout):
        die, image, precision, wrong = FLOORS[figures["dataset"]]
        assert figures["die_accuracy"] >= die, figures["dataset"]
        assert figures["image_accuracy"] >= image, figures["dataset"]
        assert figures["precision"] >= precision, figures["dataset"]
        assert figures["outcomes"]["wrong"] / figures["images"] <= wrong, figures["dataset"]
