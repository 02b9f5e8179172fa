"""The players' language: the catalogs are complete, the games' English
messages come out in German, a missing compiled catalog leaves the table
running in English, and the config checks the language it is given."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from tablepi import i18n
from tablepi.config import ConfigError, from_dict
from tablepi.i18n import Words, languages, words

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "tr": None}
FIELDS = re.compile(r"\{\w+\}|%\(\w+\)s")


def _extracted() -> Catalog:
    """Every message marked for translation, as `make messages` extracts it."""
    with open(ROOT / "babel.cfg") as fh:
        method_map, options_map = parse_mapping_cfg(fh)
    catalog = Catalog()
    for filename, lineno, message, _comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS
    ):
        catalog.add(message, None, [(filename, lineno)], context=context)
    return catalog


@pytest.fixture(scope="module")
def extracted() -> Catalog:
    return _extracted()


def _catalog(lang: str) -> Catalog:
    with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po", "rb") as fh:
        return read_po(fh)


def test_german_is_a_language_the_table_speaks() -> None:
    assert languages() == ["de", "en"]


@pytest.mark.parametrize("lang", [lang for lang in languages() if lang != "en"])
def test_every_marked_message_has_a_translation(extracted: Catalog, lang: str) -> None:
    catalog = _catalog(lang)
    assert len(extracted) > 600  # the pages, the OLED, the games, the scripts
    missing, fuzzy = [], []
    for message in extracted:
        if not message.id:
            continue
        found = catalog.get(message.id)
        strings = (
            found.string
            if found is not None and isinstance(found.string, tuple)
            else (found and found.string,)
        )
        if found is None or not all(strings):
            missing.append(message.id)
        elif found.fuzzy:
            fuzzy.append(message.id)
    assert not missing, (
        f"{len(missing)} messages without a {lang} entry (run `make messages`): {missing[:10]}"
    )
    assert not fuzzy, f"fuzzy {lang} entries (check and unmark them): {fuzzy[:10]}"
    obsolete = [m.id for m in catalog if m.id and extracted.get(m.id) is None]
    assert not obsolete, f"{lang} entries for messages no longer in the code: {obsolete[:10]}"
    assert not catalog.obsolete, f"obsolete (#~) {lang} entries: {list(catalog.obsolete)[:10]}"


@pytest.mark.parametrize("lang", [lang for lang in languages() if lang != "en"])
def test_translations_keep_every_field(lang: str) -> None:
    """A translation that drops or misspells {name} or %(name)s would show the
    wrong words or fail when filled in."""
    wrong = []
    for message in _catalog(lang):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set(FIELDS.findall(ids[-1])) - {"%(num)s"}
        for said in strings:
            if set(FIELDS.findall(said)) - {"%(num)s"} != wanted:
                wrong.append((ids[0], said))
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("english", "german"),
    [
        (
            "Ann's roll 2 of 3: 1 2 3 4 4 (set aside: 4 4)",
            "Wurf 2 von 3 für Ann: 1 2 3 4 4 (zur Seite gelegt: 4 4)",
        ),
        ("Ann moves column 3 up 2 squares to row 4", "Ann zieht Spalte 3 2 Felder nach oben auf Reihe 4"),
        (
            "full house: triplet of 2s +2 in column 2; pair of 4s +1 in column 4",
            "Full House: Drilling 2er +2 in Spalte 2; Pärchen 4er +1 in Spalte 4",
        ),
        (
            "small straight: +2 in straight; with the pair of 4s: +1 in column 4",
            "Kleine Straße: +2 in Spalte „Straße“; mit dem Pärchen 4er: +1 in Spalte 4",
        ),
        (
            "cool down (B7): Ben's counter in the straight column moves down 1",
            "Cool down: der Spielstein von Ben in Spalte „Straße“ geht 1 Feld nach unten",
        ),
        (
            "aims at a triplet of 5s: 1.4 on average against 0.8 now",
            "zielt auf einen Drilling 5er: im Schnitt 1,4 gegen 0,8 jetzt",
        ),
        ("+3 in 4 & +2 straight", "+3 in 4 & +2 Straße"),
        ("play +3 in 4 & +2 straight", "+3 in 4 & +2 Straße"),
        (
            "No sign of an unfair die after 1,234 dice.",
            "Kein Zeichen eines unfairen Würfels nach 1.234 Würfeln.",
        ),
        (
            "Ann: 5 of 12 first rolls scored (42%) · ordinary luck",
            "Ann: 5 von 12 ersten Würfen trafen (42\u00a0%) · gewöhnliches Glück",
        ),
        ("Keep 5 5 5", "5 5 5 zur Seite legen"),
        ("Annegret", "Annegret"),  # a name is no message
    ],
)
def test_the_games_english_comes_out_in_german(english: str, german: str) -> None:
    assert words("de").text(english) == german
    assert words("en").text(english) == english


def test_a_missing_compiled_catalog_leaves_english_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    source = i18n.LOCALE_DIR / "de" / "LC_MESSAGES" / "messages.po"
    folder = tmp_path / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "messages.po").write_bytes(source.read_bytes())  # a .po, never compiled
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.catalog.cache_clear()
    i18n._warned.clear()
    try:
        with caplog.at_level(logging.WARNING, logger="tablepi.i18n"):
            said = Words("de")
        assert said.text("Ann's turn") == "Ann's turn"
        assert said("Roll the dice") == "Roll the dice"
        assert "No compiled catalog for language 'de'" in caplog.text
        assert "showing English" in caplog.text
    finally:
        i18n.catalog.cache_clear()
        i18n._warned.clear()


def test_the_config_takes_a_language_the_table_speaks() -> None:
    assert from_dict({"table": {"language": "de"}}).table.language == "de"
    assert from_dict({"table": {"language": "DE"}}).table.language == "de"
    with pytest.raises(ConfigError) as refused:
        from_dict({"table": {"language": "tlh"}})
    assert 'table.language: expected a language the table speaks: "de", "en"' in str(refused.value)


def test_the_default_language_follows_the_system_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "de_AT.UTF-8")
    assert from_dict({}).table.language == "de"
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")  # a language the table does not speak: English
    assert from_dict({}).table.language == "en"
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    assert from_dict({}).table.language == "en"


def test_the_terminal_hears_the_table_start_in_its_language(tmp_path: Path) -> None:
    """A table whose system speaks German says so where it starts: address, where the
    PIN is, data folder and stop in German; the address as the other lines give it."""
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    env |= {"LANG": "de_DE.UTF-8", "XDG_CONFIG_HOME": str(tmp_path / "config"), "PYTHONUNBUFFERED": "1"}
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablepi", "run", "--simulate", "--host", "127.0.0.1", "--port", "0"]
        + ["--data-dir", str(data)],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        lines = [proc.stdout.readline().rstrip("\n") for _ in range(3)]
    finally:
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=20)
    assert re.fullmatch(r"TablePi \(Simulation\) auf http://127\.0\.0\.1:\d+/", lines[0]), lines
    assert (
        lines[1]
        == "PIN: auf dem Bildschirm des Tisches (und auf /setup in einem Browser auf diesem Computer)"
    )
    assert lines[2].startswith("Daten: ") and lines[2].endswith("data"), lines
    assert "wird beendet" in rest.splitlines(), rest
