"""A German table (`[table] language = "de"`) in headless Chromium: a whole
Beam Me Up, Outer Space and Space Beans game on the phone (390 px wide) and on
the TV (1920x1080), and /setup, /stats and /device, checked at every step for
content that overflows or is cut, and for any English word left on a German
page (the English words come from the catalog's own messages; names kept as
the boxes print them are allowed)."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po
from browser_support import PHONE, TV, TablePiProcess, page_errors, require_browser, sign_in

from tablepi.i18n import LOCALE_DIR

pytestmark = pytest.mark.browser

PLAYERS = ["Annegret", "Bartholomäus", "Cem", "Dörte", "Eva", "Fynn"]
# Kept as printed on the boxes and in the rules (game, bean and phase names),
# and words German uses as they are.
KEPT = {
    "tablepi", "beam", "me", "up", "they", "came", "from", "outer", "space", "beans",
    "klingbohns", "dark", "beanliens", "centauribohnen", "bohrion", "moonbohnen", "bluebeans",
    "trek", "paranoia", "danger", "bridge", "engine", "room",
    "full", "house", "cool", "down", "joker", "mission", "partner", "bonus", "live", "json", "pin", "http",
    "broker", "tv", "handy", "webcam", "aliens", "alien", "android",
}  # fmt: skip
WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{3,}")
FIELD = re.compile(r"%\(\w+\)s|\{\w+\}|<[^>]+>")


def english_words() -> set[str]:
    """Words of the English messages that no German message a page can show uses (the
    command line's parser says "Option", which no page does)."""
    with open(LOCALE_DIR / "de" / "LC_MESSAGES" / "messages.po", "rb") as fh:
        catalog = read_po(fh)
    english, german = set(), set()
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in ids:
            english |= {w.lower() for w in WORD.findall(FIELD.sub(" ", text))}
        if message.locations and all(path.endswith("cli/parser.py") for path, _ in message.locations):
            continue
        for text in strings:
            german |= {w.lower() for w in WORD.findall(FIELD.sub(" ", text))}
    return english - german - KEPT - {p.lower() for p in PLAYERS}


ENGLISH = english_words()

# Elements with content wider or taller than their box, where the box cuts or scrolls it,
# and any text whose box runs past the window's right edge.
CUT_JS = """() => {
  const found = [];
  const vw = document.documentElement.clientWidth;
  const unseen = '.hidden, [hidden], svg, details:not([open]) > :not(summary)';
  const said = (el) => el.tagName + '#' + el.id + '.' + el.className +
    ' "' + el.textContent.trim().slice(0, 60) + '"';
  for (const el of document.querySelectorAll('body *')) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || el.closest(unseen)) continue;
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    const clips = ['hidden', 'clip', 'auto', 'scroll'];
    if ((clips.includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1) ||
        (clips.includes(style.overflowY) && el.scrollHeight > el.clientHeight + 1) ||
        (style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1)) {
      found.push('cut: ' + said(el));
    }
    if (r.right > vw + 1 && el.textContent.trim()) {
      found.push('past the edge: ' + said(el));
    }
  }
  if (document.documentElement.scrollWidth > vw + 1) found.push('the page is wider than the window');
  return found;
}"""

SHOWN_TEXT_JS = """() => {
  const bits = [document.body.innerText, document.title];
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder], img[alt]')) {
    if (el.closest('.hidden, [hidden]')) continue;
    for (const name of ['title', 'aria-label', 'placeholder', 'alt']) {
      if (el.getAttribute(name)) bits.push(el.getAttribute(name));
    }
  }
  return bits.join('\\n');
}"""


def check(page, where: str) -> None:
    """Nothing cut or overflowing, and no English word, on ``page``."""
    page.wait_for_timeout(250)  # the last event's re-render
    cut = page.evaluate(CUT_JS)
    assert not cut, f"{where}: {cut[:8]}"
    text = page.evaluate(SHOWN_TEXT_JS)
    english = sorted({w for w in WORD.findall(text) if w.lower() in ENGLISH})
    assert not english, f"{where}: English on a German page: {english}\n{text[:3000]}"
    assert page.evaluate("document.documentElement.lang") == "de", where
    assert page.errors == [], f"{where}: {page.errors}"


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory):
    require_browser()
    folder = tmp_path_factory.mktemp("german")
    config = folder / "config.toml"
    config.write_text('[table]\nlanguage = "de"\n', encoding="utf-8")
    proc = TablePiProcess(folder / "data", args=("--config", str(config))).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def pages(table, browser):
    """A German phone (its browser asks for German) signed in, and the TV (which follows the table)."""
    phone_ctx = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale="de-DE"
    )
    phone_ctx.set_default_timeout(5000)
    phone = phone_ctx.new_page()
    phone.errors = page_errors(phone)
    phone.on("dialog", lambda dialog: dialog.accept())
    phone.goto(table.base + "/")
    sign_in(phone, table.pin)
    tv_ctx = browser.new_context(viewport=TV)  # an English browser: the TV speaks the table's language
    tv_ctx.set_default_timeout(5000)
    tv = tv_ctx.new_page()
    tv.errors = page_errors(tv)
    tv.goto(table.base + "/tv")
    yield phone, tv
    phone_ctx.close()
    tv_ctx.close()


def both(pages, where: str) -> None:
    phone, tv = pages
    for page, name in ((phone, "phone"), (tv, "TV")):
        page.wait_for_selector("#link-status.online")
        check(page, f"{name}, {where}")


def test_the_english_words_to_look_for_are_the_catalogs() -> None:
    assert {"roll", "turn", "counter", "square", "column", "wins", "trophy", "option"} <= ENGLISH
    assert "mission" not in ENGLISH and "annegret" not in ENGLISH


def test_a_whole_beam_me_up_game_in_german(table, pages) -> None:
    phone, tv = pages
    players = [{"name": PLAYERS[0], "board": "A"}, {"name": PLAYERS[1], "board": "B"}]
    table.command({"type": "new_game", "kind": "beam_me_up", "settings": {"players": players}})
    both(pages, "Beam Me Up, the starting player's advantage")
    assert "Startspieler-Vorteil" in phone.inner_text("#live")
    table.command({"type": "advantage", "columns": ["6"]})
    # Annegret throws five of a kind twice in columns 1-5 (to the top), a big straight and
    # five 6s; Bartholomäus passes with a roll that has no option.
    plan = [[v] * 5 for v in (1, 1, 2, 2, 3, 3, 4, 4, 5, 5)] + [[1, 2, 3, 4, 5], [6] * 5]
    checked = set()
    for dice in plan:
        state = table.state()["game"]["state"]
        if state.get("winner"):
            break
        table.command({"type": "roll", "dice": dice, "manual": True})
        if "options" not in checked:
            both(pages, "Beam Me Up, a roll and its options")
            assert "Fünfling" in phone.inner_text("#options")
            checked.add("options")
        table.command({"type": "choose", "option": 0})
        if "moving" not in checked:
            both(pages, "Beam Me Up, an option chosen")
            checked.add("moving")
        _finish_the_turn(table)
        state = table.state()["game"]["state"]
        if state.get("winner"):
            break
        table.command({"type": "roll", "dice": [1, 2, 3, 5, 6], "manual": True})
        if "no option" not in checked:
            both(pages, "Beam Me Up, a roll with no option")
            checked.add("no option")
        table.command({"type": "end_turn"})
    state = table.state()["game"]["state"]
    assert state.get("winner", {}).get("name") == PLAYERS[0], state.get("last_effects")
    both(pages, "Beam Me Up, won")
    assert f"{PLAYERS[0]} gewinnt!" in tv.inner_text("#bmu-banner")
    assert "Würfel" in tv.inner_text("#tv-dice")


def _finish_the_turn(table) -> None:
    """Moves every part of the option chosen, and places any rocket's squares."""
    for _ in range(6):
        state = table.state()["game"]["state"]
        if state.get("winner") or state["phase"] == "rolling":
            return
        if state["phase"] == "bonus":
            player = state["players"][state["turn"]["index"]]
            top = player["layout"]["top_row"]
            column = next(
                c for c in ("straight", "6", "5", "4", "3", "2", "1") if player["counters"][c] < top
            )
            table.command({"type": "bonus", "column": column})
        elif state["phase"] == "moving":
            table.command({"type": "move", "part": state["chosen"]["parts_left"][0]})


def test_a_whole_outer_space_game_in_german(table, pages) -> None:
    phone, tv = pages
    table.command({"type": "new_game", "kind": "outer_space", "settings": {"players": PLAYERS}})
    both(pages, "Outer Space, set-up")
    table.command({"type": "leader", "player": PLAYERS[2]})
    table.command({"type": "partner", "player": PLAYERS[4]})
    table.command({"type": "timer_start"})
    both(pages, "Outer Space, the timer running")
    table.command({"type": "timer_pause"})
    both(pages, "Outer Space, the timer paused")
    for _ in range(3):
        table.command({"type": "next_phase"})
    both(pages, "Outer Space, the vote")
    table.command({"type": "vote", "votes": {PLAYERS[0]: 3, PLAYERS[1]: 1}})
    both(pages, "Outer Space, mission 2")
    table.command({"type": "result", "winner": "aliens"})
    both(pages, "Outer Space, the aliens won")
    assert "Aliens" in tv.inner_text("#os-winner")


NINE = [1, 2, 3, 4, 4, 5, 5, 6, 9]


def test_a_whole_space_beans_game_in_german(table, pages) -> None:
    phone, tv = pages
    table.command({"type": "new_game", "kind": "space_beans", "settings": {"players": PLAYERS[:3]}})
    phone.click("#beans-who [data-beans-player='1']")
    both(pages, "Space Beans, the first turn")

    def add(i: int, bean: str, cards: list[int]) -> dict:
        return {"type": "add", "player": i, "collection": "open", "bean": bean, "cards": cards}

    end = {"type": "end_turn"}
    turns = [
        [add(0, "Beanliens", NINE)],
        [add(1, "Bohrion", [1])],
        [add(2, "Moonbohnen", [1])],
        [{"type": "close_out", "player": 0}, add(0, "Centauribohnen", NINE)],
        [add(1, "Bohrion", [2])],
        [add(2, "Moonbohnen", [2])],
        [{"type": "close_out", "player": 0}, add(0, "Bluebeans", NINE)],
        [{"type": "add", "player": 1, "collection": "secret", "count": 1}],
        [add(2, "Moonbohnen", [3])],
        [{"type": "close_out", "player": 0}, add(0, "Dark Beans", [3, 1, 2])],
    ]
    for n, turn in enumerate(turns):
        for command in turn:
            table.command(command)
        table.command(end)
        if n == 4:
            both(pages, "Space Beans, trophies and collections")
    table.command({"type": "add", "player": 1, "collection": "secret", "count": 1})
    table.command(end)
    table.command(add(2, "Moonbohnen", [9]))
    table.command(end)
    table.command({"type": "close_out", "player": 0})
    table.command(add(0, "Klingbohns", [4]))
    table.command(end)
    both(pages, "Space Beans, the secret collections to enter")
    table.command({"type": "final", "player": 1, "bean": "Dark Beans", "cards": [1, 4]})
    state = table.state()["game"]["state"]
    assert state["finished"], state
    both(pages, "Space Beans, the final scores")
    assert "gewinnt" in tv.inner_text("#beans-winner")


def test_setup_stats_and_device_in_german(table, pages) -> None:
    phone, _ = pages
    for path in ("/setup", "/stats", "/device"):
        phone.goto(table.base + path)
        check(phone, path)
    games = table.api("GET", "/api/state", pin=False)["game"]["id"]
    phone.goto(f"{table.base}/stats/game/{games - 2}")  # the Beam Me Up game
    check(phone, "/stats of the Beam Me Up game")
    assert "Würfel" in phone.inner_text("main")


def test_a_phone_switches_its_own_language(table, browser) -> None:
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    page = ctx.new_page()
    page.goto(table.base + "/")
    assert page.evaluate("document.documentElement.lang") == "en"  # its browser asks for English
    with page.expect_navigation():
        page.select_option(".lang-switch select", "de")
    assert page.evaluate("document.documentElement.lang") == "de"
    page.goto(table.base + "/setup")  # kept in its cookie
    assert page.evaluate("document.documentElement.lang") == "de"
    assert "Ein Spiel starten" in page.inner_text("#new-game")
    ctx.close()
