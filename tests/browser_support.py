"""Support for the real-browser tests: a real `tablepi run --simulate` on a
free loopback port, Debian's headless Chromium driven by Playwright, and the
JSON API for setting a scene up quickly.

Playwright's own browser downloads are never used: the tests drive
/usr/bin/chromium (installed by `make test` through apt).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Self

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def require_browser() -> None:
    """Fail on CI, skip loudly elsewhere, when the browser or Playwright is missing."""
    problem = None
    if not CHROMIUM.exists():
        problem = f"{CHROMIUM} is missing (install Debian's chromium: `make browser`)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the playwright package is missing (pip install -e '.[dev]')"
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run on CI: {problem}")
    pytest.skip(f"BROWSER TESTS NOT RUN: {problem}")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """A `tablepi` command serving on 127.0.0.1 in a subprocess, its output in a log."""

    def __init__(self, folder: Path, port: int | None, log_name: str) -> None:
        self.folder = folder
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / log_name
        self.proc: subprocess.Popen | None = None

    def argv(self) -> list[str]:
        """The arguments after `python -m tablepi`."""
        raise NotImplementedError

    def up(self, status: int) -> bool:
        """Whether a /healthz answer with ``status`` means the server is up."""
        return status == 200

    def start(self, timeout: float = 30.0) -> Self:
        self.folder.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("wb")
        argv = self.argv()
        cmd = [sys.executable, "-m", "tablepi", *argv]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"tablepi {argv[0]} exited with {self.proc.returncode}:\n{self.output()}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as r:
                    if self.up(r.status):
                        return self
            except urllib.error.HTTPError as exc:
                if self.up(exc.code):
                    return self
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"tablepi {argv[0]} did not answer /healthz within {timeout} s:\n{self.output()}")

    def output(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


class TablePiProcess(ServerProcess):
    """`tablepi run --simulate` in a subprocess, serving on 127.0.0.1."""

    def __init__(self, data_dir: Path, port: int | None = None, args: tuple[str, ...] = ()) -> None:
        super().__init__(data_dir, port, "tablepi-run.log")
        self.data_dir = data_dir
        self.args = tuple(args)

    def argv(self) -> list[str]:
        return [
            "run",
            "--simulate",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--log-level",
            "WARNING",
            *self.args,
        ]

    @property
    def pin(self) -> str:
        return (self.data_dir / "pin").read_text().strip()

    def api(self, method: str, path: str, body: Any = None, pin: bool = True) -> Any:
        """Call the JSON API; raises AssertionError with the reply on an error status."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if pin:
            req.add_header("X-Table-Pin", self.pin)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                text = r.read().decode()
        except urllib.error.HTTPError as exc:
            detail = f"\n--- tablepi run said:\n{self.output()}" if exc.code >= 500 else ""
            raise AssertionError(f"{method} {path} -> {exc.code}: {exc.read().decode()}{detail}") from None
        return json.loads(text) if text else None

    def command(self, command: dict[str, Any]) -> dict[str, Any]:
        return self.api("POST", "/api/commands", command)

    def state(self) -> dict[str, Any]:
        return self.api("GET", "/api/state", pin=False)


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def screenshot(page: Any, name: str, full_page: bool = False) -> Path:
    """Keep a screenshot as a test artifact (artifacts/ is not committed)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    page.screenshot(path=str(path), full_page=full_page)
    return path


def sign_in(page: Any, pin: str) -> None:
    """Type the PIN into a page's sign-in form, as a player would."""
    page.fill("#pin-form input[name=pin]", pin)
    page.click("#pin-form button[type=submit]")
    page.wait_for_selector("body.authed")


def page_errors(page: Any) -> list[str]:
    """Collects uncaught script errors of ``page`` into the returned list."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


# Viewports: a phone in portrait, the TV, a desktop browser.
PHONE = {"width": 390, "height": 844}
TV = {"width": 1920, "height": 1080}
DESKTOP = {"width": 1280, "height": 860}


def table_playing_table(tmp_path_factory: Any, step: float) -> Any:
    """A module's simulated table whose own seats play ``step`` seconds a step, its dice
    seeded (a module-scoped fixture yields from it)."""
    require_browser()
    args = ("--table-step", str(step), "--table-seed", "7")
    proc = TablePiProcess(tmp_path_factory.mktemp("table"), args=args).start()
    yield proc
    proc.stop()
