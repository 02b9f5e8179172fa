"""The assembled service: buttons through mock pins, controllers following
the game on the table, health, and a corrupt database at start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from waiting import until

from tablepi.config import Config
from tablepi.service import Service, controller_class
from tablepi.store import DB_NAME

ROOT = Path(__file__).resolve().parent.parent
BMU = {"players": [{"name": "Ann"}, {"name": "Ben"}]}


@pytest.fixture
def service(tmp_path: Path):
    svc = Service(Config(data_dir=tmp_path), tmp_path, simulate=True, camera=False)
    svc.start("http://192.0.2.7:8080/")
    yield svc
    svc.close()


def test_start_screen_pin_and_health(service: Service, tmp_path: Path) -> None:
    assert service.pin.isdigit() and len(service.pin) == 6
    assert (tmp_path / "pin").stat().st_mode & 0o777 == 0o600
    assert until(lambda: service.display.screen == "start")
    health = service.health()
    assert health["ok"] is True and health["game"] is None and health["problems"] == []
    assert health["buttons"]["available"] is True


def test_buttons_drive_the_beam_me_up_controller(service: Service) -> None:
    service.table.start_game("beam_me_up", BMU)
    assert until(lambda: type(service.controller).__name__ == "BeamMeUpController")
    # Ben's starting advantage: one column, picked with C (next) and A (take).
    service.press("C")
    service.press("A")
    assert until(lambda: service.table.seq == 1)
    state = service.table.public_state()
    assert state["game"]["last"]["source"] == "button"
    assert state["game"]["state"]["players"][1]["counters"]["2"] == 1
    service.table.submit({"type": "roll", "dice": [3, 3, 3, 5, 6]}, "web")
    service.press("A")  # show the options
    assert until(lambda: service.display.screen == "options")
    service.press("A")  # take the first: triplet of 3s
    assert until(lambda: service.table.seq == 3)
    service.press("A")  # move its only part
    assert until(lambda: service.table.seq == 4)
    view = service.table.public_state()["game"]["state"]
    assert view["players"][0]["counters"]["3"] == 2
    assert view["turn"]["name"] == "Ben"
    service.press("A", long=True)  # undo
    assert until(lambda: service.table.seq == 5)
    assert service.table.public_state()["game"]["state"]["phase"] == "moving"


def test_controller_follows_the_game_kind(service: Service) -> None:
    service.table.start_game("outer_space", {"players": [f"P{i}" for i in range(6)]})
    assert until(lambda: service.controller is not None and service.controller.kind == "outer_space")
    service.table.submit({"type": "end_game"}, "web")
    assert until(lambda: service.controller is None and service.display.screen == "start")


def test_display_events_say_nothing_of_the_coin(service: Service) -> None:
    sub = service.table.subscribe()
    service.table.start_game("outer_space", {"players": [f"P{i}" for i in range(6)]})
    assert until(lambda: service.controller is not None and service.controller.kind == "outer_space")
    assert service.wait_idle()
    before = service.display.version

    def heard(version: int) -> bool:
        event = sub.get(0.1)
        return event is not None and event.type == "display" and event.data["version"] == version

    assert until(lambda: heard(before), timeout=5)
    service.press("B")  # the danger coin, on the OLED only
    assert service.display.secret
    while sub.get(0) is not None:
        pass  # published before the coin came up
    seen = []
    deadline = time.monotonic() + 2.5
    while time.monotonic() < deadline and service.display.secret:
        event = sub.get(0.1)
        if event is not None:
            seen.append(event)
    assert service.display.secret  # still up: everything seen was seen under the coin
    display = [e for e in seen if e.type == "display"]
    assert len(display) >= 2  # the steady pace goes on ...
    assert {e.data["version"] for e in display} == {before}  # ... with the version from before
    assert service.display.version != before
    for event in seen:
        text = json.dumps(event.data)
        assert '"alien"' not in text and '"human"' not in text


def test_press_and_roll_need_simulation(tmp_path: Path) -> None:
    svc = Service(Config(data_dir=tmp_path), tmp_path, simulate=True, camera=False)
    try:
        with pytest.raises(RuntimeError):
            svc.roll()  # no camera at all
        with pytest.raises(RuntimeError):
            svc.set_kept([0])  # no Beam Me Up game
        svc.simulated = False
        with pytest.raises(RuntimeError):
            svc.press("A")
    finally:
        svc.close()


def test_controllers_exist_for_every_game() -> None:
    from tablepi.games import KINDS

    for kind in KINDS:
        cls = controller_class(kind)
        assert cls is not None and hasattr(cls, "on_button") and hasattr(cls, "tick"), kind


def test_corrupt_database_in_process(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"\x00garbage" * 512)
    svc = Service(Config(data_dir=tmp_path), tmp_path, simulate=True, camera=False)
    try:
        aside = [p for p in tmp_path.iterdir() if p.name.startswith(DB_NAME + ".corrupt-")]
        assert len(aside) == 1 and aside[0].read_bytes() == b"\x00garbage" * 512
        health = svc.health()
        assert health["ok"] is True
        assert any(aside[0].name in p for p in health["problems"])
        errors = [e for e in svc.table.events_since(svc.events.last_id - 1) or [] if e.type == "error"]
        assert errors and aside[0].name in errors[0].data["message"]
        svc.table.start_game("beam_me_up", BMU)
        assert svc.store.games()[0].id == 1
    finally:
        svc.close()


def test_corrupt_database_with_tablepi_run(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / DB_NAME).write_bytes(b"not sqlite at all" * 64)
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tablepi",
            "run",
            "--simulate",
            "--no-camera",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data-dir",
            str(data),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = proc.stdout.readline()
        port = int(first.split("127.0.0.1:")[1].split("/")[0])
        lines = [proc.stdout.readline() for _ in range(3)]
        assert any(line.startswith("problem:") and "could not be read" in line for line in lines), lines
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            health = json.load(response)
        assert response.status == 200 and health["problems"]
        aside = [p for p in data.iterdir() if ".corrupt-" in p.name]
        assert len(aside) == 1 and aside[0].read_bytes() == b"not sqlite at all" * 64
        assert (data / DB_NAME).read_bytes().startswith(b"SQLite format 3")
        # Ctrl-C stops it as cleanly as SIGTERM does.
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - start < 2.0
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()


def test_pin_is_made_once_kept_private_and_reused(tmp_path: Path) -> None:
    from tablepi.pin import check_pin, load_or_create_pin

    pin = load_or_create_pin(tmp_path)
    assert len(pin) == 6 and pin.isdigit()
    assert (tmp_path / "pin").stat().st_mode & 0o777 == 0o600
    assert load_or_create_pin(tmp_path) == pin
    os.chmod(tmp_path / "pin", 0o644)
    assert load_or_create_pin(tmp_path) == pin
    assert (tmp_path / "pin").stat().st_mode & 0o777 == 0o600
    (tmp_path / "pin").write_text("12ab\n")  # damaged: a new one is made
    again = load_or_create_pin(tmp_path)
    assert again != "12ab" and len(again) == 6 and again.isdigit()
    assert check_pin(again, f" {again} ") and not check_pin(again, None) and not check_pin(again, "000000x")


def test_event_ids_keep_rising_across_restarts(tmp_path: Path) -> None:
    first = Service(Config(data_dir=tmp_path), tmp_path, simulate=True, camera=False)
    first.table.start_game("beam_me_up", BMU)
    last = first.events.last_id
    first.close()
    second = Service(Config(data_dir=tmp_path), tmp_path, simulate=True, camera=False)
    try:
        event = second.table.publish("rolling", {})
        assert event.id > last
        assert second.table.events_since(last) is None  # from the run before: re-read the state
        assert second.table.public_state()["game"]["kind"] == "beam_me_up"
    finally:
        second.close()


def test_a_lost_camera_is_reported_and_the_controller_told(service: Service) -> None:
    sub = service.table.subscribe()
    service.table.start_game("beam_me_up", BMU)
    assert until(lambda: service.controller is not None)
    service._camera_event("lost", "camera: no frame for 1.0 s")
    assert service.wait_idle()
    assert service.health()["camera"]["state"] == "lost"
    assert service.controller.note.startswith("No camera")
    events = []
    while (event := sub.get(0)) is not None:
        events.append(event)
    assert [e.data["state"] for e in events if e.type == "camera"] == ["lost"]
    service._camera_event("restored", "camera: back")
    assert service.wait_idle()
    assert service.health()["camera"]["state"] == "ok" and service.controller.note is None


def test_run_refuses_a_bad_config_with_a_clear_message(tmp_path: Path) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text('[web]\nport = "eighty"\n')
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tablepi",
            "run",
            "--simulate",
            "--config",
            str(bad),
            "--data-dir",
            str(tmp_path),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "web.port" in result.stderr
    assert not (tmp_path / DB_NAME).exists()  # nothing was started


def test_the_start_screen_and_health_say_which_camera_reads_the_dice(tmp_path: Path) -> None:
    service = Service(Config(data_dir=tmp_path), tmp_path, simulate=True)
    service.start("http://192.0.2.7:8080/")
    try:
        assert until(lambda: service.health()["camera"].get("source") == "synthetic")
        assert service.health()["camera"]["why"] == "simulation: synthetic dice"
        assert until(lambda: service.display._last_show[2][2] == "camera: simulated")
        assert service.display.screen == "start"
    finally:
        service.close()


def test_close_stops_the_camera_and_frees_the_pins(tmp_path: Path) -> None:
    import threading

    service = Service(Config(data_dir=tmp_path), tmp_path, simulate=True)
    service.start("http://192.0.2.7:8080/")
    assert until(lambda: any(t.name.endswith("-grabber") for t in threading.enumerate()))
    service.close()
    # A grabber left running keeps calling OpenCV while the interpreter exits,
    # which aborts the process (exit status 134) after every test has passed.
    assert not any(t.name.endswith("-grabber") and t.is_alive() for t in threading.enumerate())
    assert not any(t.name.startswith("tablepi-") and t.is_alive() for t in threading.enumerate())
    assert service.buttons.closed


def test_problems_reach_every_viewer_without_the_tables_folders(tmp_path: Path) -> None:
    svc = Service(Config(data_dir=tmp_path), tmp_path, simulate=True, camera=False)
    try:
        problem = f"the disk holding {tmp_path / 'games'} is full (database or disk is full); free some space"
        svc.store.health = lambda: problem  # type: ignore[method-assign]
        sub = svc.table.subscribe()
        svc._watch_store()
        svc.report_problem("the camera at /dev/video0 vanished")
        events = []
        while (event := sub.get(1)) is not None and len(events) < 10:
            events.append(event)
            if sum(e.type == "error" for e in events) == 2:
                break
        errors = [e.data["message"] for e in events if e.type == "error"]
        assert errors == [
            "the disk holding …/games is full (database or disk is full); free some space",
            "the camera at …/video0 vanished",
        ]
        assert str(tmp_path) not in " ".join(errors)
        assert problem in svc.health()["problems"] or svc.health()["store"]["problem"] == problem
    finally:
        svc.store.health = lambda: None  # type: ignore[method-assign]
        svc.close()
