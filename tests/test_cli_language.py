"""The commands speak the system's language: each family run with LANG German
prints its lines for people in German and none of their English, with LANG=C
the English as before, and its JSON the same byte for byte in both."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablepi.cli import main
from tablepi.store import Store
from tablepi.table import Table
from vision.synth import scene

GERMAN, ENGLISH = "de_DE.UTF-8", "C"


def speak(monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    """The system's language is ``lang`` alone (no LC_ALL or LC_MESSAGES over it)."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", lang)


@pytest.fixture
def run(monkeypatch, capsys):
    """``run(lang, *argv)``: the command's exit code, standard output and standard error."""

    def run(lang: str, *argv: str) -> tuple[int, str, str]:
        speak(monkeypatch, lang)
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def both(run, *argv: str) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    return run(GERMAN, *argv), run(ENGLISH, *argv)


def assert_none_of(text: str, english: list[str]) -> None:
    left = [sentence for sentence in english if sentence in text]
    assert not left, (left, text)


def test_dice_read_eval_calibrate(run, tmp_path: Path, shared_dir: Path) -> None:
    photo = next(iter(sorted((shared_dir / "datasets" / "byler-d6" / "train").glob("*.jpg"))))
    missing = tmp_path / "missing.png"
    (de_code, de_out, de_err), (en_code, en_out, en_err) = both(run, "dice", "read", str(photo), str(missing))
    assert de_code == en_code == 1
    assert de_out.startswith(f"{photo.name}: ") and " Würfel: " in de_out and " dice" not in de_out
    assert f"tablepi dice: {missing}: keine solche Datei" in de_err and "no such file" not in de_err
    assert " dice: " in en_out and f"{missing}: no such file" in en_err
    assert de_out.split(": ", 2)[2] == en_out.split(": ", 2)[2]  # the values read, as they were
    german, english = (
        run(GERMAN, "dice", "read", "--json", str(photo)),
        run(ENGLISH, "dice", "read", "--json", str(photo)),
    )
    assert german == english and json.loads(german[1])[photo.name]

    # A labelled set of two synthetic photos, one die labelled wrong: a misread line.
    labels = {}
    for n, values in enumerate([[1, 4, 6], [2, 3, 5]]):
        img, placed = scene(640, 480, values, 56, np.random.default_rng(n), "wood")
        cv2.imwrite(str(tmp_path / f"roll{n}.png"), img)
        labels[f"roll{n}.png"] = {
            "width": 640,
            "height": 480,
            "dice": [{"value": p.value, "box": p.box} for p in placed],
        }
    labels["roll1.png"]["dice"][0]["value"] = 6 if labels["roll1.png"]["dice"][0]["value"] != 6 else 1
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    argv = ("dice", "eval", "--misread", "--confusion", str(tmp_path), str(tmp_path))
    (de_code, de_out, _), (en_code, en_out, _) = both(run, *argv)
    assert de_code == en_code == 0
    assert (
        f"{tmp_path.name}: Verlässlichkeit "
        "(Sicherheitsbereich: Lesungen, mittlere Sicherheit, Anteil richtig)" in de_out
    )
    assert f"{tmp_path.name}: beschrifteter Wert (Zeilen) gelesen als (Spalten): Lesungen / sicher" in de_out
    assert "roll1.png" in de_out and ": beschriftet " in de_out and ", gelesen " in de_out
    assert_none_of(de_out, ["reliability", "labelled", "read as", ", read "])
    assert "reliability (confidence bin" in en_out and "labelled" in en_out
    # The figure table: its words in German, its figures as Python prints them, in columns.
    de_table, en_table = de_out.splitlines()[-4:], en_out.splitlines()[-4:]
    assert (
        en_table[0].split() == "dataset die acc image acc precision recall right refused wrong photos".split()
    )
    assert de_table[0].split() == (
        "Datensatz je Würfel je Foto Präzision Trefferquote richtig abgelehnt falsch Fotos".split()
    )
    assert de_table[1].split() == en_table[1].split() and de_table[1].split()[0] == tmp_path.name
    assert en_table[3].split()[0] == "mean" and de_table[3].split()[0] == "Mittel"
    assert de_table[3].split()[1:] == en_table[3].split()[1:]
    # Each figure ends under its heading: the mean row is the heading but its photo count.
    assert len(de_table[0]) - len(de_table[3]) == len(en_table[0]) - len(en_table[3]) == len("  photos")
    assert re.fullmatch(r"[\w-]+( +\d\.\d{3}){7} +2", de_table[1]), de_table[1]
    argv = ("dice", "robust", "--transform", "rotate 15", str(tmp_path))
    (de_code, de_out, _), (en_code, en_out, _) = both(run, *argv)
    assert de_code == en_code == 0
    de_lines, en_lines = de_out.splitlines(), en_out.splitlines()
    assert de_lines[0].startswith("gedreht 15 ") and en_lines[0].startswith("rotate 15 ")
    assert de_lines[1].startswith("wie aufgenommen ") and en_lines[1].startswith("as taken ")
    assert de_lines[0].split()[2] == en_lines[0].split()[2]  # the accuracy, as printed
    german, english = (
        run(GERMAN, "dice", "eval", "--json", str(tmp_path)),
        run(ENGLISH, "dice", "eval", "--json", str(tmp_path)),
    )
    assert german == english and json.loads(german[1])[0]["images"] == 2

    out = tmp_path / "check.png"
    argv = ("dice", "calibrate", "--image", str(tmp_path / "roll0.png"), "--out", str(out))
    (de_code, de_out, _), (en_code, en_out, _) = both(run, *argv, "--keep", "[0.0,0.0,0.5,1.0]")
    assert de_code == en_code == 0
    assert f"{out}: 3 Würfel gelesen, 3 in der Schale, " in de_out and "Schärfe " in de_out
    assert_none_of(de_out, ["dice read", "in the tray", "sharpness", "the higher"])
    assert f"{out}: 3 dice read, 3 in the tray" in en_out and "sharpness " in en_out
    (de_code, _, de_err), (en_code, _, en_err) = both(run, *argv, "--tray", "[[0,0]")
    assert de_code == en_code == 2
    assert (
        de_err.startswith("tablepi dice: --tray: kein gültiges JSON (") and "--tray: not valid JSON" in en_err
    )
    (de_code, _, de_err), (en_code, _, en_err) = both(run, *argv, "--keep", "[0.9, 0.9, 0.1, 0.2]")
    assert de_code == en_code == 2
    assert de_err == "tablepi dice: keep braucht x0 < x1 und y0 < y1\n"
    assert en_err == "tablepi dice: keep must have x0 < x1 and y0 < y1\n"
    config = tmp_path / "camera.toml"
    config.write_text('[camera]\nsource = "synthetic"\n')
    argv = ("dice", "calibrate", "--config", str(config), "--out", str(tmp_path / "camera.png"))
    (de_code, de_out, _), (en_code, en_out, _) = both(run, *argv)
    assert de_code == en_code == 0
    assert de_out.splitlines()[0] == "Kamera: synthetic (Kameraquelle 'synthetic' in den Einstellungen)"
    assert en_out.splitlines()[0] == "camera: synthetic (camera source 'synthetic' in the settings)"
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "labels.json").write_text("[1]")
    (_, _, de_err), (_, _, en_err) = both(run, "dice", "eval", str(tmp_path / "odd"))
    assert de_err == f"tablepi dice: {tmp_path / 'odd' / 'labels.json'}: kein JSON-Objekt mit Fotos\n"
    assert en_err == f"tablepi dice: {tmp_path / 'odd' / 'labels.json'}: not a JSON object of photos\n"
    (de_code, _, de_err), _ = both(run, "dice", "eval", str(tmp_path / "none"))
    assert de_code == 2 and "keine labels.json in " in de_err and "no labels.json" not in de_err


def test_bmu_options_layout_odds_advise(run) -> None:
    (_, de_out, _), (_, en_out, _) = both(run, "bmu", "options", "1", "2", "3", "4", "4")
    assert de_out == "Kleine Straße: +2 in Spalte „Straße“; mit dem Pärchen 4er: +1 in Spalte 4\n"
    assert en_out == "small straight: +2 in straight; with the pair of 4s: +1 in column 4\n"
    (_, de_out, _), (_, en_out, _) = both(run, "bmu", "options", "1", "2", "3", "5", "6")
    assert (
        de_out == "keine Möglichkeit: der Zug ist zu Ende\n" and en_out == "no option: the turn passes (B4)\n"
    )
    (de_code, _, de_err), (en_code, _, en_err) = both(run, "bmu", "options", "1", "2", "x", "4", "5")
    assert de_code == en_code == 2
    assert de_err == "tablepi bmu: 'x' ist kein Würfelwert; fünf Zahlen von 1 bis 6 angeben\n"
    assert en_err == "tablepi bmu: 'x' is not a die value; give five numbers 1..6\n"
    (_, _, de_err), _ = both(run, "bmu", "options", "1", "2", "3", "4", "7")
    assert de_err == "tablepi bmu: ein Würfel zeigt 1..6, nicht 7\n"

    (_, de_out, _), (_, en_out, _) = both(run, "bmu", "layout", "A")
    assert de_out.splitlines()[:2] == [
        "Spielplan A: Reihen 0..7, im All ab Reihe 6",
        "  Raketen: 1:2, 3:4, 5:1, straight:3",
    ]
    assert en_out.splitlines()[:2] == [
        "Board A: rows 0..7, space from row 6",
        "  rockets: 1:2, 3:4, 5:1, straight:3",
    ]

    argv = ("bmu", "odds", "1", "1", "3", "4", "6", "--keep", "3", "4", "--target", "small-straight")
    (_, de_out, _), (_, en_out, _) = both(run, *argv)
    assert de_out.splitlines()[0] == "1 1 3 4 6, noch 2 Würfe, zuerst 3 4 beiseite:"
    assert en_out.splitlines()[0] == "1 1 3 4 6, 2 rolls left, keeping 3 4 first:"
    # The target in German, its chance as printed.
    assert de_out.splitlines()[1] == "  Kleine Straße            160/243  = 0.6584"
    assert en_out.splitlines()[1] == "  small-straight            160/243  = 0.6584"
    (_, de_out, _), (_, en_out, _) = both(run, "bmu", "odds", "1", "1", "3", "4", "6", "--rolls-left", "1")
    de_lines, en_lines = de_out.splitlines(), en_out.splitlines()
    assert de_lines[1].split() == ["Pärchen", "1", "=", "1.0000"] and en_lines[1].split()[0] == "pair"
    assert de_lines[4].split()[0] == "Pärchen:3" and en_lines[4].split()[0] == "pair:3"
    assert [line.split()[-1] for line in de_lines[1:]] == [line.split()[-1] for line in en_lines[1:]]
    assert_none_of(de_out, ["pair", "triplet", "four", "five", "full-house", "straight"])
    (_, _, de_err), (_, _, en_err) = both(run, "bmu", "odds", "1", "1", "3", "4", "6", "--target", "nope")
    assert de_err.startswith("tablepi bmu: unbekanntes Ziel 'nope'; eines von pair,")
    assert en_err.startswith("tablepi bmu: unknown target 'nope'; one of pair,")

    argv = ("bmu", "advise", "5", "5", "5", "2", "3", "--rolls-left", "1", "--counters", "1=6", "--top", "2")
    (_, de_out, _), (_, en_out, _) = both(run, *argv)
    de_lines = de_out.splitlines()
    assert de_lines[0] == "du: 2 3 5 5 5, noch 1 Wurf (Wurf 2 von 3)"
    en_lines = en_out.splitlines()
    assert de_lines[1].split() == ["2", "3", "5", "5", "beiseite", "Erwartungswert", "4.017"]
    assert en_lines[1].split() == ["keep", "2", "3", "5", "5", "expected", "value", "4.017"]
    assert de_lines[-1].startswith("diesen Wurf jetzt spielen: wählen, Teil 1 in Spalte ")
    assert_none_of(de_out, ["roll left", "keep", "expected value", "playing this roll", "choose it"])
    assert en_lines[0] == "you: 2 3 5 5 5, 1 roll left (roll 2 of 3)"
    assert en_lines[-1] == "playing this roll now: choose it, part 1 in 5"

    for argv in (
        ("bmu", "options", "--json", "2", "2", "2", "4", "4"),
        ("bmu", "layout", "--json", "B"),
        ("bmu", "odds", "--json", "1", "2", "3", "4", "4", "--rolls-left", "1"),
        ("bmu", "advise", "--json", "5", "5", "5", "2", "3", "--top", "3"),
    ):
        german, english = both(run, *argv)
        assert german == english and german[0] == 0, argv
        json.loads(german[1])


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    table = Table(Store(tmp_path / "data"))
    table.start_game("beam_me_up", {"players": [{"name": "Ann"}, {"name": "Ben"}]}, source="cli")
    table.submit({"type": "advantage", "columns": ["3"]}, "button")
    table.submit({"type": "roll", "dice": [1, 1, 2, 3, 4], "manual": True}, "web")
    table.submit({"type": "choose", "option": 0}, "button")
    table.store.close()
    return tmp_path / "data"


def test_stats(run, data_dir: Path) -> None:
    where = ("--data-dir", str(data_dir))
    (de_code, de_out, _), (en_code, en_out, _) = both(run, "stats", *where)
    assert de_code == en_code == 0
    de_lines, en_lines = de_out.splitlines(), en_out.splitlines()
    assert de_lines[0] == "5 Würfel geworfen in 1 Spiel" and en_lines[0] == "5 dice thrown in 1 game"
    assert (
        de_lines[1] == "  1:      2  40,0\xa0%  " + "#" * 24
        and en_lines[1] == "  1:      2   40.0%  " + "#" * 24
    )
    assert de_lines[7] == "Chi-Quadrat 3.40 (5 Freiheitsgrade), p = 0.639"
    assert en_lines[7] == "chi-square 3.40 (5 degrees of freedom), p = 0.639"
    assert de_lines[8].startswith("Kein Zeichen eines unfairen Würfels nach 5 Würfeln.")
    assert_none_of(de_out, ["dice thrown", "degrees of freedom", "No sign", "ordinary luck", "first rolls"])
    (_, de_out, _), _ = both(run, "stats", "--player", "ann", *where)
    assert de_out.splitlines()[0] == "5 Würfel von Ann geworfen in 1 Spiel"
    (de_code, _, de_err), (en_code, _, en_err) = both(run, "stats", "--player", "zed", *where)
    assert de_code == en_code == 2
    assert (
        de_err == "tablepi stats: Kein Spieler namens 'zed' hat an diesem Tisch gespielt. "
        "Bekannte Spieler: Ann, Ben.\n"
    )
    assert (
        en_err == "tablepi stats: No player called 'zed' has played at this table. Known players: Ann, Ben.\n"
    )
    (_, _, de_err), (_, _, en_err) = both(run, "stats", "--since", "yesterday", *where)
    assert de_err == "tablepi stats: --since braucht ein Datum wie 2026-11-28, nicht 'yesterday'\n"
    assert en_err == "tablepi stats: --since is a date such as 2026-11-28, not 'yesterday'\n"
    (_, _, de_err), _ = both(run, "stats", "--game", "7", *where)
    assert de_err == "tablepi stats: kein Spiel Beam Me Up mit der Nummer 7\n"
    german, english = both(run, "stats", "--json", *where)
    assert german == english and json.loads(german[1])["dice"] == 5


def test_games_list_export_import_resume(run, data_dir: Path, tmp_path: Path) -> None:
    where = ("--data-dir", str(data_dir))
    (_, de_out, _), (_, en_out, _) = both(run, "games", "list", *where)
    assert de_out.splitlines()[0].split() == ["Nr.", "Spiel", "Stand", "Befehle", "begonnen", "Spieler"]
    assert en_out.splitlines()[0].split() == ["id", "game", "status", "commands", "started", "players"]
    assert de_out.splitlines()[1] == en_out.splitlines()[1]  # the game's own row
    assert (
        de_out.splitlines()[-1] == "* gerade auf dem Tisch"
        and en_out.splitlines()[-1] == "* on the table now"
    )
    german, english = both(run, "games", "list", "--json", *where)
    assert german == english
    german, english = both(run, "games", "export", "1", *where)
    assert german == english and json.loads(german[1])["format"] == "tablepi-game"

    out = tmp_path / "game.json"
    (_, de_out, _), (_, en_out, _) = both(run, "games", "export", "1", "-o", str(out), *where)
    assert de_out == f"Spiel 1 nach {out} geschrieben\n" and en_out == f"game 1 written to {out}\n"
    other = ("--data-dir", str(tmp_path / "other"))
    assert run(GERMAN, "games", "import", str(out), *other)[1] == "als Spiel 1 importiert\n"
    assert run(ENGLISH, "games", "import", str(out), *other)[1] == "imported as game 2\n"
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    (de_code, _, de_err), (en_code, _, en_err) = both(run, "games", "import", str(bad), *other)
    assert de_code == en_code == 1
    assert (
        de_err
        == f'{bad} wurde nicht importiert: keine TablePi-Spieldatei (erwartet: "format": "tablepi-game")\n'
    )
    assert en_err == f'{bad} was not imported: not a TablePi game file (expected "format": "tablepi-game")\n'
    data = json.loads(out.read_text())
    data["commands"][1]["command"]["dice"] = [6, 6, 6, 6, 6]
    bad.write_text(json.dumps(data))
    (_, _, de_err), _ = both(run, "games", "import", str(bad), *other)
    assert de_err == (
        f"{bad} wurde nicht importiert: die Befehle ergeben nachgespielt nicht den Endstand der Datei; "
        "nichts wurde importiert\n"
    )
    (_, _, de_err), (_, _, en_err) = both(run, "games", "import", str(tmp_path / "none.json"), *other)
    assert de_err.startswith(f"{tmp_path / 'none.json'} kann nicht gelesen werden: ")
    (_, _, de_err), (_, _, en_err) = both(run, "games", "resume", "9", *where)
    assert de_err == "es gibt kein Spiel 9 (siehe `tablepi games list`)\n"
    assert en_err == "there is no game 9 (see `tablepi games list`)\n"
    (_, _, de_err), (_, _, en_err) = both(run, "games", "resume", "1", *where)
    assert (
        de_err == "Spiel 1 wurde nicht fortgesetzt: Spiel 1 ist playing; "
        "nur ein beiseitegelegtes Spiel kann fortgesetzt werden\n"
    )
    assert en_err == "game 1 was not resumed: game 1 is playing; only an abandoned game can be resumed\n"


def test_hw_test(run, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("tablepi.config.default_paths", lambda: [])
    config = tmp_path / "config.toml"
    config.write_text("[buttons]\nhold_time = 0.2\n[camera]\nfps = 30\n")
    code, out, _ = run(GERMAN, "hw", "test", "--simulate", "--config", str(config))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "TablePi-Hardwaretest (Simulation)"
    for line in (
        "  ..    Taste A (GPIO17) drücken ...",
        "  ok    Taste A: Druck an GPIO17",
        "  ..    Taste A (GPIO17) 0.2 s lang halten ...",
        "  ok    Taste A: langer Druck an GPIO17",
        "  ok    Summer: 'tick' und 'warning' schalteten GPIO18 1 + 3 Mal ein (simuliert)",
        "Alle Teile funktionieren.",
    ):
        assert line in lines, (line, out)
    assert any(line.startswith("  ok    OLED: Testbild gezeichnet, ") for line in lines)
    assert any(line.startswith("  ok    Kamera: Quelle synthetic, 640x480, etwa ") for line in lines)
    assert any(line.startswith("  ok    Würfelleser: ") for line in lines)
    assert_none_of(
        out, ["hardware test", "button", "press", "pattern", "buzzer", "source", "dice", "working"]
    )
    code, out, _ = run(ENGLISH, "hw", "test", "--simulate", "--config", str(config))
    assert (
        code == 0
        and "TablePi hardware test (simulation)" in out
        and "  ok    button A: press on GPIO17" in out
    )
    assert "All parts working." in out


def test_outer_space_and_venue(run, tmp_path: Path) -> None:
    (_, de_out, _), (_, en_out, _) = both(run, "outer-space", "setup", "6")
    assert de_out.splitlines()[0] == "They Came From Outer Space: Aufbau für 6 Spieler"
    assert de_out.splitlines()[1].startswith("1. Wählt zwei Räume")
    assert en_out.splitlines()[0] == "They Came From Outer Space: set-up for 6 players"
    assert en_out.splitlines()[1].startswith("1. Choose two rooms")
    assert_none_of(de_out, ["set-up for", "Choose", "Shuffle", "To win", "Vote"])
    (de_code, _, de_err), (en_code, _, en_err) = both(run, "outer-space", "setup", "3")
    assert de_code == en_code == 2
    assert de_err.endswith("die Spielerzahl muss eine ganze Zahl von 6 bis 12 sein, nicht '3'\n")
    assert en_err.endswith("the player count must be a whole number from 6 to 12, not '3'\n")

    (de_code, _, de_err), (en_code, _, en_err) = both(run, "venue", "--broker", "mqtt://x")
    assert de_code == en_code == 2
    assert de_err == (
        '--broker: erwartet: ein Hostname oder eine Adresse wie "192.168.1.10" oder "mqtt.lan" '
        "(ohne mqtt://, ohne Port), angegeben: 'mqtt://x'\n"
    )
    assert "expected" not in de_err and en_err.startswith("--broker: expected a host name or address")
    (_, _, de_err), (_, _, en_err) = both(
        run, "venue", "--broker", "mqtt.lan", "--ca-file", str(tmp_path / "ca.pem")
    )
    assert de_err == f"--ca-file: keine solche Datei: {tmp_path / 'ca.pem'}\n"
    assert en_err == f"--ca-file: no such file: {tmp_path / 'ca.pem'}\n"


def test_venue_board_says_where_it_serves(tmp_path: Path) -> None:
    """The board starts with no broker to reach (it keeps trying): its lines are said at once."""
    for lang, serving, listening, stopping in (
        (GERMAN, "TablePi-Anzeige des Veranstaltungsorts auf", "hört auf den Broker an", "wird beendet"),
        (ENGLISH, "TablePi venue board on", "listening to the broker at", "stopping"),
    ):
        env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
        env |= {"LANG": lang, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "tablepi", "venue", "--broker", "127.0.0.1", "--port", "1"]
            + ["--web-host", "127.0.0.1", "--web-port", "0"],
            cwd=Path(__file__).resolve().parent.parent,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            lines = [proc.stdout.readline().rstrip("\n") for _ in range(2)]
        finally:
            proc.send_signal(signal.SIGTERM)
            rest, _ = proc.communicate(timeout=20)
        assert re.fullmatch(re.escape(serving) + r" http://127\.0\.0\.1:\d+/", lines[0]), lines
        assert lines[1] == f"{listening} 127.0.0.1:1 (tablepi/+/#)"
        assert rest.splitlines() == [stopping]


@pytest.fixture
def said(monkeypatch, capsys):
    """``said(lang, *argv)``: argparse's exit code, standard output and standard error."""

    def said(lang: str, *argv: str) -> tuple[int, str, str]:
        speak(monkeypatch, lang)
        monkeypatch.setenv("COLUMNS", "200")  # argparse wraps to the terminal: one line for each help
        with pytest.raises(SystemExit) as exited:
            main(list(argv))
        out, err = capsys.readouterr()
        return exited.value.code, out, err

    return said


ARGPARSE_ENGLISH = [
    "usage:",
    "options:",
    "positional arguments",
    "show this help",
    "error:",
    "argument",
    "required",
]


def test_help_in_the_systems_language(said) -> None:
    code, out, _ = said(GERMAN, "--help")
    assert code == 0
    lines = out.splitlines()
    assert (
        lines[0] == "Aufruf: tablepi [-h] COMMAND ..."
        and lines[2] == "TablePi, die Steuerung des Spieltischs"
    )
    assert "Argumente:" in lines and "Optionen:" in lines
    assert "  -h, --help   diese Hilfe zeigen und beenden" in lines
    assert "    bench      Leistungszahlen ausgeben" in lines
    assert "    hw         die Hardware des Tischs prüfen" in lines
    assert_none_of(out, [*ARGPARSE_ENGLISH, "games-table", "benchmark", "check", "print", "read", "the "])
    code, out, _ = said(ENGLISH, "--help")
    assert code == 0 and out.startswith("usage: tablepi [-h] COMMAND ...\n\nTablePi games-table controller\n")
    assert "options:" in out and "  -h, --help   show this help message and exit" in out
    assert "    bench      print benchmark figures" in out

    code, out, _ = said(GERMAN, "dice", "--help")
    assert code == 0 and out.startswith("Aufruf: tablepi dice [-h] ACTION ...\n")
    assert "    read      die Würfel in jedem Foto lesen" in out.splitlines()
    assert_none_of(out, [*ARGPARSE_ENGLISH, "read the", "score", "labelled", "photo ", "save", "tray"])
    code, out, _ = said(ENGLISH, "dice", "--help")
    assert "    read      read the dice in each photo" in out.splitlines()

    code, out, _ = said(GERMAN, "bmu", "options", "--help")
    assert code == 0
    assert out.splitlines() == [
        "Aufruf: tablepi bmu options [-h] [--json] [--all] [DIE ...]",
        "",
        "Argumente:",
        "  DIE         fünf Würfelwerte, 1..6",
        "",
        "Optionen:",
        "  -h, --help  diese Hilfe zeigen und beenden",
        "  --json      JSON ausgeben",
        "  --all       jeden sortierten Wurf und seine Möglichkeiten",
    ]
    code, out, _ = said(ENGLISH, "bmu", "options", "--help")
    assert "  --all       every sorted roll and its options" in out.splitlines()
    assert out.startswith("usage: tablepi bmu options [-h]")

    # A default in a help text is filled in; the option names and metavars stay as typed.
    _, out, _ = said(GERMAN, "venue", "--help")
    assert "  --web-port WEB_PORT   Port der Anzeige (Vorgabe 8090)" in out.splitlines()
    assert "eine Datei mit dem Passwort des Brokers (oder TABLEPI_VENUE_PASSWORD setzen; " in out


def test_refused_command_lines_in_the_systems_language(said) -> None:
    code, _, err = said(GERMAN, "venue")
    assert code == 2
    assert err.startswith("Aufruf: tablepi venue [-h] --broker BROKER [--port PORT] ")
    assert err.endswith("\ntablepi venue: Fehler: diese Argumente fehlen: --broker\n")
    assert_none_of(err, ARGPARSE_ENGLISH)
    code, _, err = said(ENGLISH, "venue")
    assert code == 2 and err.endswith(
        "tablepi venue: error: the following arguments are required: --broker\n"
    )

    code, _, err = said(GERMAN, "stats", "--since")
    assert code == 2 and err.endswith("tablepi stats: Fehler: Argument --since: erwartet ein Argument\n")
    code, _, err = said(GERMAN, "bmu", "nope")
    assert err.endswith(
        "tablepi bmu: Fehler: Argument WHAT: ungültige Wahl: 'nope' "
        "(möglich: 'options', 'layout', 'odds', 'advise', 'duel')\n"
    )
    code, _, err = said(GERMAN, "bmu", "odds", "1", "2", "3", "4", "5", "--rolls-left", "x")
    assert err.endswith("tablepi bmu odds: Fehler: Argument --rolls-left: ungültiger Wert für int: 'x'\n")
    code, _, err = said(GERMAN, "hw", "test", "--nope")
    assert code == 2 and err.endswith("tablepi: Fehler: unbekannte Argumente: --nope\n")
    assert_none_of(err, ARGPARSE_ENGLISH)
    code, _, err = said(ENGLISH, "hw", "test", "--nope")
    assert err.endswith("tablepi: error: unrecognized arguments: --nope\n")


def test_bench_lines_in_the_systems_language(run, tmp_path: Path) -> None:
    (tmp_path / "set" / "test").mkdir(parents=True)
    rng = np.random.default_rng(3)
    for n in range(2):
        img, _ = scene(320, 320, [2, 5], 40, rng, "wood")
        assert cv2.imwrite(str(tmp_path / "set" / "test" / f"photo{n}.jpg"), img)
    argv = ("bench", "dice", "--datasets", str(tmp_path), "--photos", "1", "--large", "0")
    argv += ("--frames", "5", "--rolls", "0")
    ms = r"\d+\.\d ms"
    (de_code, de_out, _), (en_code, en_out, _) = both(run, *argv)
    assert de_code == en_code == 0
    de_lines, en_lines = de_out.splitlines(), en_out.splitlines()
    assert de_lines[0] == "Würfelleser, ein Thread" and en_lines[0] == "dice reader, one thread"
    assert re.fullmatch(
        rf"set/test-Fotos \(320x320\): Median {ms}, p95 {ms} je Bild \(CPU Median {ms}, p95 {ms}; 1 Bilder\)",
        de_lines[1],
    ), de_lines
    assert re.fullmatch(
        rf"set/test photos \(320x320\): median {ms}, p95 {ms} per frame "
        rf"\(CPU median {ms}, p95 {ms}; 1 frames\)",
        en_lines[1],
    ), en_lines
    assert re.fullmatch(rf"alle Testfotos: Median {ms}, p95 {ms}", de_lines[2])
    assert de_lines[3].startswith("gerenderte Bilder 640x480 (die simulierte Kamera): Median ")
    assert en_lines[3].startswith("rendered 640x480 frames (the simulated camera): median ")
    assert "5 Bilder)" in de_lines[3] and len(de_lines) == len(en_lines) == 4
    assert not re.search(r"\d,\d", de_out)  # the figures as Python prints them, for the tools that read them
    assert_none_of(de_out, ["dice reader", "photos", "median", "per frame", "frames", "rendered"])
