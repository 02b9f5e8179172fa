"""The HTML pages through Flask's test client, around a real simulated service
(real table, SQLite store, OLED and mock buttons; no camera)."""

from __future__ import annotations

import re
import time

import pytest
import segno

import web
from tablepi.config import from_dict
from tablepi.service import Service
from web.marks import dice_marks
from web.pages import board_rows, fmt_seconds, timer_left

PAGES = ("/", "/tv", "/device", "/setup", "/part/phone", "/part/tv")
OS_PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]

GAMES = {
    "beam_me_up": (
        {
            "players": [
                {"name": "Ann", "board": "A"},
                {"name": "Ben", "board": "C"},
                {"name": "Cat", "board": "D"},
            ]
        },
        [
            {"type": "advantage", "columns": ["2"]},
            {"type": "advantage", "columns": ["1", "straight"]},
            {"type": "roll", "dice": [3, 3, 3, 5, 5], "manual": True},
        ],
    ),
    "outer_space": (
        {"players": OS_PLAYERS, "timer_seconds": 45},
        [{"type": "leader", "player": "Cat"}, {"type": "partner", "player": "Dan"}],
    ),
    "space_beans": (
        {"players": ["Ann", "Ben", "Cat"]},
        [
            {"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [2, 6]},
            {"type": "end_turn"},
            {"type": "add", "player": 1, "collection": "open", "bean": "Bluebeans", "cards": [4]},
            {"type": "end_turn"},
            {"type": "add", "player": 2, "collection": "open", "bean": "Beanliens", "cards": [1]},
            {"type": "end_turn"},
            {"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [4]},
            {"type": "end_turn"},
            {"type": "add", "player": 1, "collection": "secret", "count": 3},
        ],
    ),
}


@pytest.fixture(scope="module")
def table_service(tmp_path_factory):
    svc = Service(from_dict({}), tmp_path_factory.mktemp("pages"), simulate=True, camera=False)
    yield svc
    svc.close()


@pytest.fixture
def service(table_service):
    """The module's service with an empty table (one service keeps the tests quick)."""
    if table_service.table.kind is not None:
        table_service.table.submit({"type": "end_game"})
    return table_service


@pytest.fixture
def client(service):
    return web.create_app(service).test_client()


def play(service, kind: str) -> None:
    settings, commands = GAMES[kind]
    service.table.submit({"type": "new_game", "kind": kind, "settings": settings})
    for command in commands:
        service.table.submit(command)


def get(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_with_no_game(client, path):
    html = get(client, path)
    if path in ("/", "/tv", "/part/phone", "/part/tv"):
        assert "No game on the table" in html or "No game on the table yet" in html


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_every_page_renders_for_each_game(service, client, kind):
    play(service, kind)
    for path in PAGES:
        html = get(client, path)
        if path != "/setup" and path != "/device":
            assert f'data-kind="{kind}"' in html, path


def test_unknown_live_view_is_404(client):
    assert client.get("/part/admin").status_code == 404


def test_tv_has_a_qr_code_for_the_phone_page_on_the_request_host(service, client):
    html = get(client, "/tv")
    expected = segno.make("http://192.0.2.9:8080/", error="m").svg_inline(
        scale=8, dark="#000", light="#fff", border=2, omitsize=True
    )
    assert expected not in html  # the code follows the host the TV asked
    html = client.get("/tv", headers={"Host": "192.0.2.9:8080"}).get_data(as_text=True)
    assert expected in html
    assert "http://192.0.2.9:8080/" in html
    # A TV on the table itself (localhost) shows the table's network address instead.
    service.address = "http://192.168.1.20:8080/"
    try:
        html = client.get("/tv", headers={"Host": "localhost:8080"}).get_data(as_text=True)
    finally:
        service.address = ""
    assert "http://192.168.1.20:8080/" in html and "localhost" not in html


def test_beam_me_up_pages_show_boards_roll_and_options(service, client):
    play(service, "beam_me_up")
    tv = get(client, "/tv")
    assert tv.count('class="board-card') == 3
    assert len(re.findall(r'class="sq[^"]*"', tv)) == 3 * 7 * 8
    # The counters stand where the advantage put them: Ben's 2, Cat's 1 and straight on row 1.
    assert re.search(r'data-player="Ben".*?data-col="2" data-row="1"\s+data-counter', tv, re.S)
    assert len(re.findall(r'data-counter="1"', tv)) == 3 * 7
    assert tv.count('class="die manual"') == 5
    assert "full house" in tv and "space-divider" in tv
    phone = get(client, "/")
    assert 'data-command=\'{"type":"choose","option":0}\'' in phone
    assert "entered by hand" in phone
    # The roll stays marked as typed in while it is on show, after later commands too.
    service.table.submit({"type": "choose", "option": 0})
    assert get(client, "/tv").count('class="die manual"') == 5


def test_outer_space_pages_show_timer_leader_and_checklist(service, client):
    play(service, "outer_space")
    tv = get(client, "/tv")
    assert 'id="mission-timer"' in tv and 'data-running="0"' in tv and ">45<" in tv
    assert 'id="os-leader">Cat<' in tv and 'id="os-partner">Dan<' in tv
    phone = get(client, "/")
    assert "Set-up for 6 players" in phone and "control panel" in phone
    assert "timer_start" in phone


def test_space_beans_pages_show_scores_and_secret_counts_only(service, client):
    play(service, "space_beans")
    tv = get(client, "/tv")
    assert tv.count('class="bean-card back"') == 3  # Ben's secret collection: its size only
    assert "Bohrion" in tv
    phone = get(client, "/")
    assert 'id="beans-panel"' in phone and 'id="state-json"' in phone


def test_space_beans_final_table_on_tv(service, client):
    service.table.submit({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}})
    submit = service.table.submit
    beans = ["Klingbohns", "Dark Beans", "Beanliens", "Centauribohnen"]
    nine = [9, 9, 8, 8, 7, 7, 6, 6, 5]
    for turn, bean in enumerate(beans):
        if turn:
            submit({"type": "close_out", "player": 0})
        submit({"type": "add", "player": 0, "collection": "open", "bean": bean, "cards": nine})
        submit({"type": "end_turn"})
        if turn == 1:
            submit({"type": "add", "player": 1, "collection": "secret", "count": 2})
        else:
            cards = [turn + 3]
            submit({"type": "add", "player": 1, "collection": "open", "bean": "Bluebeans", "cards": cards})
        submit({"type": "end_turn"})
    submit({"type": "close_out", "player": 0})  # 36 trophy points
    submit({"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [4, 5]})
    submit({"type": "end_turn"})
    submit({"type": "final", "player": 1, "bean": "Moonbohnen", "cards": [2, 5]})
    tv = get(client, "/tv")
    assert 'id="final-table"' in tv
    ann = re.search(r'<tr class="winner" data-player="Ann">(.*?)</tr>', tv, re.S).group(1)
    # place, trophies, bonus, total
    assert re.findall(r'<td class="num">(?:<b>)?(\d+)', ann) == ["1", "36", "3", "39"]
    ben = re.search(r'data-player="Ben">(.*?)</tr>', tv, re.S).group(1)
    assert "Moonbohnen (secret): 2, 5" in ben and "Bluebeans" in ben


def test_device_page_lists_the_buttons_of_the_game(service, client):
    play(service, "outer_space")
    html = get(client, "/device")
    assert html.count('class="hw-button"') == 3
    assert "start or pause the timer" in html and "hold: reset the timer" in html
    assert "flip the danger coin" in html and "1.5 s" in html
    assert "image-rendering" not in html  # the style sheet scales the screen, not the markup


def test_setup_page_offers_printed_boards_and_the_editor(client):
    html = get(client, "/setup")
    for name in ("Board A", "Board B", "Board C", "Board D"):
        assert name in html
    assert 'id="editor"' in html and 'id="layouts-json"' in html
    for kind in ("beam_me_up", "outer_space", "space_beans"):
        assert f'value="{kind}"' in html


@pytest.fixture
def running_service(tmp_path):
    svc = Service(from_dict({}), tmp_path, simulate=True, camera=False)
    svc.start("http://127.0.0.1/")
    yield svc
    svc.close()


def test_the_danger_coin_leaves_no_trace_on_any_page(running_service):
    service = running_service
    client = web.create_app(service).test_client()
    service.table.submit({"type": "new_game", "kind": "outer_space", "settings": {"players": OS_PLAYERS}})
    deadline = time.monotonic() + 5
    while getattr(service.controller, "kind", None) != "outer_space":
        assert time.monotonic() < deadline, "the controller did not take the game"
        time.sleep(0.02)
    before = {path: get(client, path) for path in PAGES}
    service.press("B")  # the table's own button flips the coin
    deadline = time.monotonic() + 5
    while not service.display.secret:
        assert time.monotonic() < deadline, "the coin did not show"
        time.sleep(0.02)
    after = {path: get(client, path) for path in PAGES}
    assert after == before


def test_view_functions():
    assert [fmt_seconds(s) for s in (58.2, 59.2, 60.5, 0)] == ["59", "1:00", "1:01", "0"]
    assert timer_left({"state": "running", "remaining": 9.25, "deadline": 100.0}) == 9.25
    assert timer_left({"state": "ended", "remaining": -0.5}) == 0.0
    assert [d["kept"] for d in dice_marks([4, 4, 2, 4, 1], [4, 4])] == [True, True, False, False, False]
    board = board_rows(
        {
            "layout": {"top_row": 7, "space_row": 6, "rockets": [{"column": "1", "row": 2}]},
            "counters": {"1": 2},
        }
    )
    assert [r["row"] for r in board["rows"]] == [7, 6, 5, 4, 3, 2, 1, 0]
    square = board["rows"][5]["squares"][0]
    assert square == {"column": "1", "special": "rocket", "counter": True}


def test_beam_me_up_phone_offers_bonus_squares_and_wildcard_columns(service, client):
    service.table.submit(
        {
            "type": "new_game",
            "kind": "beam_me_up",
            "settings": {"players": [{"name": "Ann", "board": "A"}, {"name": "Ben", "board": "B"}]},
        }
    )
    submit = service.table.submit
    submit({"type": "advantage", "columns": ["6"]})
    # Ann: a pair of 5s ends on board A's rocket at column 5, row 1.
    submit({"type": "roll", "dice": [5, 5, 1, 2, 4]})
    submit({"type": "choose", "option": 0})
    submit({"type": "move", "part": 0})
    phone = get(client, "/")
    assert "bonus square owed" in phone
    bonus = re.findall(r'data-command=\'\{"type":"bonus","column":"([^"]+)"\}\'', phone)
    assert bonus == ["1", "2", "3", "4", "5", "6", "straight"]
    submit({"type": "bonus", "column": "3"})  # Ann's 3 climbs to row 1
    submit({"type": "roll", "dice": [6, 6, 1, 2, 4]})  # Ben
    submit({"type": "choose", "option": 0})
    submit({"type": "move", "part": 0})
    submit({"type": "roll", "dice": [3, 1, 2, 5, 5]})  # Ann passes
    submit({"type": "end_turn"})
    state = service.table.public_state()["game"]["state"]
    assert state["turn"]["name"] == "Ben"
    submit({"type": "roll", "dice": [1, 1, 2, 3, 5]})  # Ben
    submit({"type": "end_turn"})
    submit({"type": "roll", "dice": [3, 3, 1, 2, 6]})  # Ann: pair of 3s: row 1 -> 2, board A's blue star
    submit({"type": "choose", "option": 0})
    submit({"type": "move", "part": 0})
    submit({"type": "roll", "dice": [1, 1, 2, 3, 5]})  # Ben
    submit({"type": "end_turn"})
    submit({"type": "roll", "dice": [4, 4, 1, 2, 6]})  # Ann, on a blue star: wildcard
    submit({"type": "choose", "option": 0})
    phone = get(client, "/")
    assert "Wildcard: each part" in phone
    assert re.search(r'data-form-command=\'\{"type":"move","part":0\}\'.*?<select name="column"', phone, re.S)


def test_outer_space_bridge_phase_offers_the_vote(service, client):
    play(service, "outer_space")
    for _ in range(3):
        service.table.submit({"type": "next_phase"})
    phone = get(client, "/")
    assert 'data-form-command=\'{"type":"vote"}\'' in phone
    voters = re.findall(r'data-map="votes" data-key="([^"]+)"', phone)
    assert voters == ["Ann", "Ben", "Eve", "Fay"]  # Cat led and Dan went: neither may lead next (T4)
    assert 'name="tie_break"' in phone
    service.table.submit({"type": "vote", "votes": {"Ann": 4, "Eve": 2}})
    tv = get(client, "/tv")
    assert 'id="os-leader">Ann<' in tv and "Mission <b>2</b>" in tv
    # Each vote is kept whole (a name never wraps away from its count).
    assert re.search(
        r'<td>Cat</td><td>Dan</td>\s*<td class="votes"><span class="vote">Ann&nbsp;4</span>, '
        r'<span class="vote">Eve&nbsp;2</span></td>',
        tv,
    )


def test_player_names_are_text_not_markup(service, client):
    evil = '<img src=x onerror="alert(1)"></script>'
    service.table.submit({"type": "new_game", "kind": "space_beans", "settings": {"players": [evil, "Ben"]}})
    for path in ("/", "/tv", "/part/phone", "/part/tv"):
        html = get(client, path)
        assert evil not in html and "<img src=x" not in html
    # The state handed to the page's scripts cannot close its script element.
    page = get(client, "/")
    script = re.search(r'<script type="application/json" id="state-json">(.*?)</script>', page, re.S)
    assert "onerror" in script.group(1) and "<" not in script.group(1)


def test_beam_me_up_win_shows_on_tv_and_ends_the_phone_actions(service, client):
    import random

    from tablepi.games.beam_me_up.randomplay import random_game

    played = random_game(random.Random(19), players=2)  # a complete game of random legal play
    settings = {"players": [{"name": "Ann", "board": "A"}, {"name": "Ben", "board": "B"}]}
    service.table.submit({"type": "new_game", "kind": "beam_me_up", "settings": settings})
    for command in played.to_dict()["commands"]:
        service.table.submit(command)
    state = service.table.public_state()["game"]
    assert state["finished"]
    winner = state["state"]["winner"]["name"]
    tv = get(client, "/tv")
    assert re.search(rf'id="bmu-banner">{winner} wins!', tv)
    phone = get(client, "/")
    assert 'id="bmu-winner"' in phone and 'id="bmu-actions"' not in phone


def test_device_page_asks_for_the_pin(service, client):
    assert 'id="pin-form"' in get(client, "/device")  # simulated buttons change the game too
    service.simulated = False
    try:
        html = get(client, "/device")
    finally:
        service.simulated = True
    assert 'id="pin-form"' in html and "The table" in html
    assert re.search(r'<div class="needs-pin">\s*<div class="buttons-row">', html)


def test_pages_use_words_not_rule_codes(service, client):
    """Rule references stay in the API's JSON; players read plain words."""
    play(service, "beam_me_up")
    service.table.submit({"type": "choose", "option": 0})
    service.table.submit({"type": "move", "part": 0})
    effects = service.table.public_state()["game"]["state"]["last_effects"]
    assert any(re.search(r"\(B\d+\)", e) for e in effects)  # the API keeps them
    for path in ("/", "/tv", "/device"):
        # The state's JSON for the page's scripts is the API's, codes and all.
        html = re.sub(r"<script.*?</script>", "", get(client, path), flags=re.S)
        assert not re.search(r"\((?:rule )?[BST]\d+\)", html), path
        assert "Version" not in html and "wake" not in html


def test_outer_space_next_phase_waits_for_a_partner(service, client):
    service.table.submit({"type": "new_game", "kind": "outer_space", "settings": {"players": OS_PLAYERS}})
    service.table.submit({"type": "leader", "player": "Cat"})
    html = get(client, "/")
    assert "os-next-phase" not in html and "Cat chooses a partner first" in html
    service.table.submit({"type": "partner", "player": "Dan"})
    assert "os-next-phase" in get(client, "/")
