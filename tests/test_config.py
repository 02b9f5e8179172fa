"""Settings: defaults, layered files, and a clear message for every bad value."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tablepi import config as cfgmod
from tablepi.cli import main
from tablepi.config import Config, ConfigError, from_dict, load_config

# One bad value per key, and the words its message must contain.
BAD_VALUES = [
    ({"buttons": {"pins": {"A": "x"}}}, "buttons.pins.A", "BCM pin number 0-27"),
    ({"buttons": {"pins": {"B": 40}}}, "buttons.pins.B", "BCM pin number 0-27"),
    ({"buttons": {"pins": {"D": 5}}}, "buttons.pins.D", "unknown button"),
    ({"buttons": {"pins": 17}}, "buttons.pins", "table of button names"),
    ({"buttons": {"pins": {"A": 27}}}, "buttons.pins.B", "already used by buttons.pins.A"),
    ({"buttons": {"hold_time": 0}}, "buttons.hold_time", "seconds"),
    ({"buttons": {"bounce_time": "fast"}}, "buttons.bounce_time", "seconds"),
    ({"display": {"driver": "st7735"}}, "display.driver", '"ssd1306"'),
    ({"display": {"port": -1}}, "display.port", "I2C bus"),
    ({"display": {"address": 0x90}}, "display.address", "I2C address"),
    ({"display": {"idle_seconds": -5}}, "display.idle_seconds", "seconds"),
    ({"display": {"rotate": 1}}, "display.rotate", "upside down"),
    ({"buzzer": {"pin": "gpio18"}}, "buzzer.pin", "false for no buzzer"),
    ({"buzzer": {"pin": 17}}, "buzzer.pin", "already used"),
    ({"camera": {"source": "webcam"}}, "camera.source", '"opencv"'),
    ({"camera": {"device": -1}}, "camera.device", "camera index"),
    ({"camera": {"folder": 3}}, "camera.folder", "folder path"),
    ({"camera": {"source": "replay"}}, "camera.folder", "required"),
    ({"camera": {"width": 0}}, "camera.width", "width in pixels"),
    ({"camera": {"height": True}}, "camera.height", "height in pixels"),
    ({"camera": {"fps": 0}}, "camera.fps", "frames per second"),
    ({"camera": {"tray": [[0, 0], [1, 1]]}}, "camera.tray", "at least 3"),
    ({"camera": {"tray": [[0, 0], [1, 0], [1, 2]]}}, "camera.tray", "fractions"),
    ({"camera": {"keep": [0.5, 0, 0.2, 1]}}, "camera.keep", "x0 < x1"),
    ({"web": {"host": ""}}, "web.host", "host name"),
    ({"web": {"port": 70000}}, "web.port", "TCP port"),
    ({"data_dir": 5}, "data_dir", "folder path"),
    ({"outer_space": {"timer_seconds": 1.5}}, "outer_space.timer_seconds", "whole seconds"),
    ({"outer_space": {"coin_seconds": 0}}, "outer_space.coin_seconds", "seconds"),
    ({"beam_me_up": {"still_seconds": 100}}, "beam_me_up.still_seconds", "seconds"),
    ({"beam_me_up": {"dice_views": 6}}, "beam_me_up.dice_views", "unknown setting"),
    ({"web": {"prot": 80}}, "web.prot", "unknown setting"),
    ({"bogus": {}}, "bogus", "unknown setting"),
    ({"web": 8080}, "web", "table"),
]


@pytest.mark.parametrize(("data", "key", "words"), BAD_VALUES, ids=[b[1] + ":" + b[2] for b in BAD_VALUES])
def test_every_bad_value_names_its_key(data, key, words):
    with pytest.raises(ConfigError) as info:
        from_dict(data)
    matching = [p for p in info.value.problems if p.startswith(key + ":")]
    assert matching, info.value.problems
    assert any(words in p for p in matching), matching


def test_all_problems_reported_at_once():
    with pytest.raises(ConfigError) as info:
        from_dict({"web": {"port": "x", "host": 1}, "display": {"rotate": 7}})
    assert len(info.value.problems) == 3
    assert "3 problems" in str(info.value)
    assert "got 'x'" in str(info.value)


def test_missing_files_give_defaults(tmp_path):
    config = load_config(search=[tmp_path / "nope.toml", tmp_path / "also-missing.toml"])
    assert config == Config()
    assert config.sources == []
    assert config.buttons.pins == {"A": 17, "B": 27, "C": 22}
    assert config.display.address == 0x3C
    assert config.camera.tray is None


def test_layers_merge_later_wins(tmp_path):
    system = tmp_path / "system.toml"
    user = tmp_path / "user.toml"
    explicit = tmp_path / "explicit.toml"
    system.write_text("[buttons]\npins = {A = 5, B = 6}\nhold_time = 2.0\n[web]\nport = 9000\n")
    user.write_text('[buttons]\npins = {B = 13}\n[display]\ndriver = "sh1106"\n')
    explicit.write_text("[web]\nport = 9100\n[camera]\ntray = [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9]]\n")
    config = load_config(explicit, search=[system, user])
    assert config.buttons.pins == {"A": 5, "B": 13, "C": 22}
    assert config.buttons.hold_time == 2.0
    assert config.display.driver == "sh1106"
    assert config.web.port == 9100
    assert config.camera.tray == [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9)]
    assert config.sources == [system, user, explicit]


def test_problem_names_the_file_it_came_from(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text("[web]\nport = 0\n")
    with pytest.raises(ConfigError) as info:
        load_config(search=[user])
    assert str(user) in info.value.problems[0]


def test_corrupt_toml_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[buttons\npins = {A = 17")
    with pytest.raises(ConfigError) as info:
        load_config(bad, search=[])
    assert str(bad) in str(info.value) and "not valid TOML" in str(info.value)


def test_explicit_missing_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "typo.toml", search=[])


def test_buzzer_can_be_absent(tmp_path):
    assert from_dict({"buzzer": {"pin": False}}).buzzer.pin is None
    assert from_dict({}).buzzer.pin == 18


def test_device_may_be_a_path_and_data_dir_expands():
    config = from_dict({"camera": {"device": "/dev/video2"}, "data_dir": "~/tp"})
    assert config.camera.device == "/dev/video2"
    assert from_dict({"camera": {"device": "1"}}).camera.device == 1
    assert config.data_dir == Path("~/tp").expanduser()


def test_show_output_reads_back_to_the_same_config():
    config = from_dict({"buzzer": {"pin": False}, "camera": {"keep": [0, 0.7, 1, 1], "source": "synthetic"}})
    again = from_dict(tomllib.loads(config.to_toml()))
    assert again == config


def test_config_module_imports_no_hardware():
    source = Path(cfgmod.__file__).read_text()
    for name in ("gpiozero", "luma", "cv2", "picamera2", "hardware"):
        assert f"import {name}" not in source and f"from {name}" not in source


def test_cli_check_and_show(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cfgmod, "default_paths", lambda: [tmp_path / "none.toml"])
    good = tmp_path / "good.toml"
    good.write_text("[web]\nport = 8181\n")
    assert main(["config", "check", "--config", str(good)]) == 0
    out = capsys.readouterr().out
    assert "config OK" in out and str(good) in out
    bad = tmp_path / "bad.toml"
    bad.write_text('[buttons]\npins = {A = "x"}\n')
    assert main(["config", "check", "--config", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "buttons.pins.A: expected a BCM pin number 0-27, got 'x'" in err
    assert main(["config", "show", "--config", str(good)]) == 0
    shown = capsys.readouterr().out
    assert "port = 8181" in shown
    assert tomllib.loads(shown)["web"]["port"] == 8181


def test_config_errors_never_print_a_secret_and_cut_long_values(tmp_path):
    """`tablepi run` with a config holding secrets of the wrong form, as the
    journal would record its error under systemd."""
    import subprocess
    import sys

    long_table = "T" * (24 * 1024 * 1024)  # not a table name: echoed in the error
    secrets = ["918273645", "hunter2-pass", "s3cret-pass", "alice"]
    for body in (
        "password = 918273645\nusername = ['alice']\n",
        "password = ['hunter2-pass']\nusername = 'u'\nbroker = 'mqtt://alice:s3cret-pass@broker.lan:1883'\n",
    ):
        path = tmp_path / "config.toml"
        path.write_text("[venue]\n" + body + f"table = '{long_table}'\n")
        run = subprocess.run(
            [sys.executable, "-m", "tablepi", "run", "--simulate", "--no-camera", "--config", str(path)],
            cwd=Path(__file__).resolve().parent.parent,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CI": "true"},
            capture_output=True,
            timeout=60,
        )
        err = run.stderr.decode()
        assert run.returncode != 0 and "venue.password" in err and "venue.table" in err, err[:2000]
        assert not [secret for secret in secrets if secret in err], err[:2000]
        assert len(run.stderr) < 2000, len(run.stderr)


def test_cli_check_speaks_the_system_language(tmp_path, capsys, monkeypatch):
    """A host whose system speaks German reads the problems in German: every line of
    them, the values as written (0.5 stays 0.5, as TOML needs it) and no secret."""
    monkeypatch.setattr(cfgmod, "default_paths", lambda: [tmp_path / "none.toml"])
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[buttons]\npins = {A = "x", B = 17, Q = 5}\nhold_time = 0.05\n'
        "[outer_space]\ncoin_seconds = 0.25\nwhen = 3\n"
        "[venue]\npassword = ['hunter2']\n[nonsense]\n"
    )
    assert main(["config", "check", "--config", str(bad)]) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0] == "8 Probleme in der Konfiguration:", err  # B = 17 meets A's default pin too
    expected = [
        f"buttons.pins.A: erwartet: eine BCM-Pinnummer 0-27, angegeben: 'x' (in {bad})",
        f"buttons.pins.Q: unbekannte Taste (erwartet: eine von A, B, C) (in {bad})",
        f"buttons.hold_time: erwartet: Sekunden zwischen 0.1 und 10, angegeben: 0.05 (in {bad})",
        f"outer_space.coin_seconds: erwartet: Sekunden 0.5-60, angegeben: 0.25 (in {bad})",
        "outer_space.when: unbekannte Einstellung (erwartet: eine von timer_seconds, coin_seconds)"
        f" (in {bad})",
        f"venue.password: erwartet: ein Passwort (Text), angegeben: ein Wert, der nicht gezeigt wird"
        f" (er kann geheim sein) (in {bad})",
    ]
    for line in expected:
        assert f"  - {line}" in lines, (line, err)
    assert any(
        line.startswith("  - nonsense: unbekannte Einstellung (erwartet: eine von data_dir,")
        for line in lines
    )
    assert lines[-1] == "Bitte beheben und `tablepi config check` erneut ausführen."
    assert "hunter2" not in err and "expected" not in err and "got" not in err
    # Two buttons on one pin, and a good file, in German too.
    pins = tmp_path / "pins.toml"
    pins.write_text("[buttons]\npins = {A = 17, B = 17}\n")
    assert main(["config", "check", "--config", str(pins)]) == 1
    assert "  - buttons.pins.B: Pin 17 ist schon von buttons.pins.A belegt" in capsys.readouterr().err
    good = tmp_path / "good.toml"
    good.write_text("[web]\nport = 8181\n")
    assert main(["config", "check", "--config", str(good)]) == 0
    assert capsys.readouterr().out.splitlines() == ["Konfiguration in Ordnung", f"gelesen: {good}"]
    # The same problems in English where the system speaks no language of the table's.
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert main(["config", "check", "--config", str(bad)]) == 1
    assert f"  - buttons.hold_time: expected seconds between 0.1 and 10, got 0.05 (in {bad})" in (
        capsys.readouterr().err.splitlines()
    )
