"""Who chooses the language of a page: the table's (config, then /setup),
each browser's own (cookie, then Accept-Language), the TV the table's; and the
OLED follows the table when /setup changes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import web
from tablepi.config import from_dict
from tablepi.service import Service


@pytest.fixture
def german_service(tmp_path: Path):
    svc = Service(from_dict({"table": {"language": "de"}}), tmp_path, simulate=True, camera=False)
    yield svc
    svc.close()


def pin(service) -> dict[str, str]:
    return {"X-Table-Pin": service.pin}


def lang_of(html: str) -> str:
    return html.split('<html lang="', 1)[1].split('"', 1)[0]


def test_pages_follow_the_browser_then_the_table(german_service) -> None:
    client = web.create_app(german_service).test_client()
    assert lang_of(client.get("/").get_data(as_text=True)) == "de"  # no wish: the table's
    english = client.get("/", headers={"Accept-Language": "en-GB,en;q=0.8"}).get_data(as_text=True)
    assert lang_of(english) == "en" and "No game on the table" in english
    german = client.get("/", headers={"Accept-Language": "de-AT,de;q=0.9,en;q=0.5"}).get_data(as_text=True)
    assert lang_of(german) == "de" and "Kein Spiel auf dem Tisch" in german
    # The TV follows the table, whatever its browser asks for.
    tv = client.get("/tv", headers={"Accept-Language": "en-US"}).get_data(as_text=True)
    assert lang_of(tv) == "de" and "Noch kein Spiel auf dem Tisch." in tv


def test_the_switch_keeps_a_browsers_choice_in_a_cookie(german_service) -> None:
    client = web.create_app(german_service).test_client()
    reply = client.post("/language", data={"language": "en"}, headers={"Referer": "http://localhost/stats"})
    assert reply.status_code == 303 and reply.headers["Location"].endswith("/stats")
    assert "tablepi_lang=en" in reply.headers["Set-Cookie"]
    assert lang_of(client.get("/setup").get_data(as_text=True)) == "en"
    assert lang_of(client.get("/tv").get_data(as_text=True)) == "de"  # the TV still follows the table
    refused = client.post("/language", data={"language": "tlh"})  # unknown: nothing changes
    assert refused.status_code == 303 and "Set-Cookie" not in refused.headers
    assert lang_of(client.get("/setup").get_data(as_text=True)) == "en"


def test_setup_changes_the_tables_language_and_the_oled_follows(german_service, tmp_path: Path) -> None:
    client = web.create_app(german_service).test_client()
    german_service.display.message(["Roll the dice"])
    assert german_service.display.drawn_texts == [("Würfeln", 11)]
    refused = client.post("/api/language", json={"language": "tlh"}, headers=pin(german_service))
    assert refused.status_code == 400 and german_service.language == "de"
    assert client.post("/api/language", json={"language": "en"}).status_code == 403  # the PIN first
    changed = client.post("/api/language", json={"language": "en"}, headers=pin(german_service))
    assert changed.status_code == 200 and changed.get_json() == {"language": "en"}
    assert german_service.language == "en"
    german_service.display.message(["Roll the dice"])
    assert german_service.display.drawn_texts == [("Roll the dice", 11)]
    assert lang_of(client.get("/tv").get_data(as_text=True)) == "en"
    assert json.loads((tmp_path / "language.json").read_text()) == {"language": "en"}
    # Kept across a restart, over the config's German.
    again = Service(from_dict({"table": {"language": "de"}}), tmp_path, simulate=True, camera=False)
    try:
        assert again.language == "en"
    finally:
        again.close()


def test_api_errors_keep_their_english_and_add_the_readers_words(german_service) -> None:
    client = web.create_app(german_service).test_client()
    reply = client.post("/api/commands", json={"type": "end_turn"}, headers=pin(german_service))
    body = reply.get_json()
    assert body["error"] == "there is no game on the table; start one first (new_game)"
    assert body["shown"] == "auf dem Tisch liegt kein Spiel; zuerst eines starten (new_game)"
    english = client.post(
        "/api/commands", json={"type": "end_turn"}, headers={**pin(german_service), "Accept-Language": "en"}
    ).get_json()
    assert "shown" not in english  # an English reader's reply is as it always was


def test_the_venue_board_speaks_its_browsers_language() -> None:
    from tablepi.venue import Board
    from web.venue import create_board_app

    client = create_board_app(Board()).test_client()
    german = client.get("/", headers={"Accept-Language": "de-DE"}).get_data(as_text=True)
    assert lang_of(german) == "de" and "TablePi-Spielort" in german and "noch keine Tische" in german
    english = client.get("/").get_data(as_text=True)
    assert lang_of(english) == "en" and "TablePi venue" in english
