"""The systemd unit, the Pi installer, and the service's side of the notify
protocol (ready, watchdog, stopping) on a real `tablepi run`."""

from __future__ import annotations

import configparser
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from tablepi.service import sd_notify, watchdog_interval

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "tablepi.service"
INSTALL = ROOT / "systemd" / "install.sh"
PI_ENV = ROOT / "systemd" / "pi-env.sh"


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read(UNIT)
    return parser


def test_unit_settings() -> None:
    unit = _unit()
    service = unit["Service"]
    assert service["Type"] == "notify"
    assert service["Restart"] == "on-failure"
    assert int(service["WatchdogSec"]) > 0
    assert service["User"] == "tablepi"
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "i2c", "video"}
    assert service["StateDirectory"] == "tablepi"
    assert service["ExecStart"] == "/opt/tablepi/.venv/bin/tablepi run --data-dir /var/lib/tablepi"
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("CI") == "true":
            pytest.fail("systemd-analyze is missing on CI")
        pytest.skip("systemd-analyze not installed")
    # verify wants the ExecStart binary to exist; check a copy whose command
    # is one that does, everything else unchanged.
    text = UNIT.read_text()
    exec_line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    copy = tmp_path / "tablepi.service"
    copy.write_text(text.replace(exec_line, "ExecStart=/bin/sh -c true"))
    result = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True, timeout=60)
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if "tablepi.service" in line]
    assert result.returncode == 0, result.stderr
    assert complaints == []
    # The check does catch mistakes: a misspelt key is reported.
    copy.write_text(copy.read_text().replace("Restart=on-failure", "Restrat=on-failure"))
    result = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True, timeout=60)
    assert "Restrat" in result.stdout + result.stderr


def test_install_script() -> None:
    text = INSTALL.read_text()
    assert os.access(INSTALL, os.X_OK)
    subprocess.run(["sh", "-n", str(INSTALL)], check=True)
    subprocess.run(["sh", "-n", str(PI_ENV)], check=True)
    for needed in (
        "pi-env.sh",
        "raspi-config nonint do_i2c 0",
        "gpio,i2c,video",
        "systemctl enable tablepi.service",
        "systemctl restart tablepi.service",
    ):
        assert needed in text, needed


def _dry_run(tmp_path: Path, sources: str | None) -> subprocess.CompletedProcess:
    apt = tmp_path / "apt"
    (apt / "sources.list.d").mkdir(parents=True, exist_ok=True)
    if sources is not None:
        (apt / "sources.list.d" / "raspi.list").write_text(sources)
    env = dict(
        os.environ, TABLEPI_DRY_RUN="1", TABLEPI_APT_DIR=str(apt), TABLEPI_PREFIX=str(tmp_path / "opt")
    )
    return subprocess.run(["sh", str(INSTALL)], env=env, capture_output=True, text=True, timeout=60)


def test_the_installer_on_raspberry_pi_os_does_what_it_says(tmp_path: Path) -> None:
    run = _dry_run(tmp_path, "deb http://archive.raspberrypi.com/debian/ bookworm main\n")
    assert run.returncode == 0, run.stderr
    steps = [line[2:] for line in run.stdout.splitlines() if line.startswith("+ ")]
    apt = next(s for s in steps if "apt-get install" in s)
    assert "--no-install-recommends" in apt
    assert {"python3-picamera2", "python3-lgpio", "i2c-tools"} <= set(apt.split())
    venv = next(s for s in steps if " -m venv " in s)
    assert venv.startswith("/usr/bin/python3 ") and "--system-site-packages" in venv
    pip = [s for s in steps if " -m pip install " in s]
    # The lock's pinned, hashed versions, the Pi's simplejpeg among them; TablePi itself without deps.
    assert "--require-hashes" in pip[0]
    assert "requirements/table.txt" in pip[0] and "requirements/pi.txt" in pip[0]
    assert "--no-deps" in pip[1]
    assert any("import picamera2" in s for s in steps)
    assert steps.index(apt) < steps.index(venv) < steps.index(pip[0])
    assert any(s.startswith("systemctl restart tablepi.service") for s in steps)
    assert not (tmp_path / "opt").exists()  # a dry run changes nothing


def test_the_installer_refuses_other_systems_at_once(tmp_path: Path) -> None:
    run = _dry_run(tmp_path, None)
    assert run.returncode != 0
    assert "This is not Raspberry Pi OS" in run.stderr
    assert "apt-get" not in run.stdout and "Copying" not in run.stdout


def test_locked_versions_are_what_the_pi_needs() -> None:
    pins = {}
    for name in ("table.txt", "pi.txt", "dev.txt"):
        for line in (ROOT / "requirements" / name).read_text().splitlines():
            if "==" in line and not line.startswith(" "):
                package, version = line.split(" ")[0].split("==")
                pins.setdefault(package, set()).add(version)
    assert all(len(v) == 1 or k in ("numpy", "scipy") for k, v in pins.items()), pins  # one version each
    # gpiozero 2.0-2.0.1.post2 fail on a Pi 5 (a wrong gpiochip, a NameError in LGPIOFactory).
    (gpiozero,) = pins["gpiozero"]
    assert tuple(int(x) for x in gpiozero.replace(".post", ".").split(".")) >= (2, 0, 1, 3)
    assert "simplejpeg" in pins and "picamera2" not in pins and "lgpio" not in pins
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "gpiozero>=2.0.1.post3" in project["dependencies"]
    extras = [r for reqs in project["optional-dependencies"].values() for r in reqs]
    assert not [r for r in project["dependencies"] + extras if r.startswith(("picamera2", "lgpio"))]


@pytest.fixture
def notify_socket(tmp_path: Path):
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(10)
    yield path, sock
    sock.close()


def test_sd_notify_sends_one_datagram(notify_socket, monkeypatch: pytest.MonkeyPatch) -> None:
    path, sock = notify_socket
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    assert sd_notify("READY=1") is True
    assert sock.recv(4096) == b"READY=1"
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert sd_notify("READY=1") is False
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert watchdog_interval() == 15.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert watchdog_interval() is None


def _messages(sock: socket.socket, until: str, deadline: float) -> list[str]:
    seen: list[str] = []
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            seen.append(sock.recv(4096).decode())
        except TimeoutError:
            break
        if until in seen[-1]:
            break
    return seen


def test_run_notifies_feeds_watchdog_and_stops_on_sigterm(notify_socket, tmp_path: Path) -> None:
    path, sock = notify_socket
    env = dict(
        os.environ,
        NOTIFY_SOCKET=str(path),
        WATCHDOG_USEC="1000000",
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    env.pop("WATCHDOG_PID", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tablepi",
            "run",
            "--simulate",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path / "data"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        seen = _messages(sock, "READY=1", time.monotonic() + 20)
        assert any(m.startswith("READY=1") for m in seen), seen
        seen = _messages(sock, "WATCHDOG=1", time.monotonic() + 5)
        assert "WATCHDOG=1" in seen
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
        stopped = time.monotonic() - start
        assert code == 0, proc.stderr.read()
        assert stopped < 2.0
        assert "STOPPING=1" in _messages(sock, "STOPPING=1", time.monotonic() + 1)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
