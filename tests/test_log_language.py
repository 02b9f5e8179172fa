"""The log's lines (what `journalctl -u tablepi` shows) in the system's language:
German under a German LANG, English as before under LANG=C, the paths, numbers
and library errors in them as they are."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from hardware.cameras import choose_source
from hardware.display import open_display
from tablepi import camera_sizes
from tablepi.i18n import N_, Text
from tablepi.log_language import log_handler
from tablepi.store import DB_NAME, Store
from web.auth import LIMITS_FILE, AttemptLimiter


def _language(monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", lang)


@pytest.fixture
def journal() -> Iterator[io.StringIO]:
    """What the table writes to its journal: the handler `tablepi run` logs through,
    made after the test has set the language."""
    out = io.StringIO()
    root = logging.getLogger()
    handlers: list[logging.Handler] = []

    def attach() -> io.StringIO:
        handler = log_handler(out)
        root.addHandler(handler)
        handlers.append(handler)
        return out

    yield attach  # type: ignore[misc]
    for handler in handlers:
        root.removeHandler(handler)


def _problems(tmp_path: Path) -> None:
    """A corrupt file of the camera's die sizes, of the wrong-PIN counts and of
    the game database; a camera that is not there; an OLED that does not answer."""
    sizes = tmp_path / "camera-sizes.json"
    sizes.write_text("{not json")
    camera_sizes.load(sizes)
    (tmp_path / LIMITS_FILE).write_text("{broken")
    AttemptLimiter(data_dir=tmp_path)
    (tmp_path / DB_NAME).write_bytes(b"\x00garbage" * 512)
    Store(tmp_path).close()
    choose_source(SimpleNamespace(source="auto", device=str(tmp_path / "video9")), simulate=False)
    open_display(SimpleNamespace(driver="ssd1306", port=97, address=0x3C), simulate=False)
    logging.getLogger("tablepi.service").warning(
        N_("camera lost: %s"), Text(N_("simulation: synthetic dice"))
    )


ENGLISH = [
    "could not be read",
    "learning them again",
    "the count of wrong PINs",
    "the table counts the day's tries",
    "it was kept as",
    "a new one was started",
    "no camera found",
    "not a Raspberry Pi",
    "synthetic dice",
    "not available",
    "continuing without it",
    "camera lost",
]


def test_the_log_speaks_german_under_a_german_system_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, journal
) -> None:
    _language(monkeypatch, "de_DE.UTF-8")
    out = journal()
    _problems(tmp_path)
    text = out.getvalue()
    assert "Die Würfelgrößen der Kamera in " in text and "sie werden neu gelernt" in text
    assert "camera-sizes.json.unreadable" in text  # the path as it is
    assert f"Die Zählung falscher PINs ({LIMITS_FILE}) ist beschädigt oder leer: der Tisch zählt" in text
    assert "Die Spieldatenbank konnte nicht gelesen werden (file is not a database); sie wurde als" in text
    assert "keine Kamera gefunden (kein Raspberry Pi; nichts an " in text
    assert "video9'): künstliche Würfel" in text
    assert "OLED (ssd1306 an I2C-Bus 97, Adresse 0x3C) nicht verfügbar: " in text
    assert "Kamera verloren: Simulation: künstliche Würfel" in text
    said = [line for line in text.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert len(said) >= 6, text
    for english in ENGLISH:
        assert english not in text, (english, text)


def test_the_log_stays_english_under_lang_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, journal) -> None:
    _language(monkeypatch, "C")
    out = journal()
    _problems(tmp_path)
    text = out.getvalue()
    assert "the camera's die sizes in " in text and "learning them again" in text
    assert f"the count of wrong PINs ({LIMITS_FILE}) is damaged or empty: the table counts" in text
    assert "The game database could not be read (file is not a database); it was kept as" in text
    assert "no camera found (not a Raspberry Pi; nothing at " in text
    assert "OLED (ssd1306 on I2C bus 97, address 0x3C) not available: " in text
    assert "camera lost: simulation: synthetic dice" in text
    assert "Kamera" not in text and "Würfel" not in text


def test_a_record_keeps_its_english_for_other_handlers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, journal, caplog: pytest.LogCaptureFixture
) -> None:
    """The journal's line is said in German when it is written; the record (what
    caplog and any other handler see) is left English."""
    _language(monkeypatch, "de_DE.UTF-8")
    out = journal()
    camera_sizes.save(tmp_path / "missing" / "camera-sizes.json", camera_sizes.load(tmp_path / "none.json"))
    assert "Die Würfelgrößen der Kamera konnten nicht in " in out.getvalue()
    assert any("the camera's die sizes could not be kept in" in r.getMessage() for r in caplog.records)
