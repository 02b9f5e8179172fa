"""/stats and /stats/game/<id> through Flask's test client, around a real
simulated service: the chart's bars, the luck table and the games played
say what the store holds; a game's page lists its rolls; the TV shows the
short version when a game of Beam Me Up is won; and nothing secret shows."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest
from test_stats_store import Brute, play

import web
from hardware.display import TableDisplay
from tablepi.config import from_dict
from tablepi.controllers.outer_space import OuterSpaceController
from tablepi.service import Service
from tablepi.table import SECRET_FIELDS

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    svc = Service(from_dict({}), tmp_path_factory.mktemp("stats"), simulate=True, camera=False)
    rng = random.Random(99)
    play(svc.table, rng, ["Ann", "Ben"])  # game 1, won
    play(svc.table, rng, ["Cat", "Ann", "Dan"], stop_after=50)  # game 2, left half-way
    yield svc
    svc.close()


@pytest.fixture(scope="module")
def client(service):
    return web.create_app(service).test_client()


def chart(html: str, chart_id: str = "face-chart") -> list[int]:
    svg = re.search(rf'<svg class="face-chart" id="{chart_id}".*?</svg>', html, re.S).group(0)
    root = ET.fromstring(svg)
    return [int(e.get("data-count")) for e in root.iter(f"{SVG}rect") if "bar" in e.get("class").split()]


def rows(html: str, table_class: str) -> list[str]:
    body = re.search(rf'<table class="plain {table_class}">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    return [
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", r)).strip()
        for r in re.findall(r"<tr.*?</tr>", body, re.S)
    ]


def test_stats_shows_the_dice_the_luck_and_the_games(client, service):
    store = service.table.store
    brute = Brute(store)
    reply = client.get("/stats")
    assert reply.status_code == 200
    html = reply.get_data(as_text=True)
    assert chart(html) == brute.faces
    n = sum(brute.faces)
    assert f"{n:,} dice thrown in 2 games." in html
    assert f"No sign of an unfair die after {n:,} dice." in html
    luck = rows(html, "luck-table")
    assert [r.split()[0] for r in luck] == sorted(brute.firsts)
    for row, (name, (tries, hits)) in zip(luck, sorted(brute.firsts.items()), strict=True):
        assert row.startswith(f"{name} {tries} {hits} ({100 * hits / tries:.0f}%)")
    games = rows(html, "games-table")
    winner = brute.winners[1]
    assert len(games) == 2
    assert games[0].split(" Beam Me Up ")[1].startswith("Cat, Ann, Dan playing now")
    assert games[1].split(" Beam Me Up ")[1].startswith(f"Ann, Ben {winner} ")
    assert f"{brute.rolls[1]} rolls" in games[1]
    assert 'href="/stats/game/1"' in html and 'href="/stats/game/2"' in html


def test_stats_filters_by_player_and_date(client, service):
    store = service.table.store
    html = client.get("/stats?player=Dan").get_data(as_text=True)
    assert chart(html) == Brute(store, player="Dan").faces
    assert [r.split()[0] for r in rows(html, "luck-table")] == ["Dan"]
    assert len(rows(html, "games-table")) == 1
    assert '<option value="Dan" selected>' in html
    html = client.get("/stats?since=2999-01-01").get_data(as_text=True)
    assert chart(html) == [0] * 6 and "No dice seen yet." in html and "No games yet." in html
    reply = client.get("/stats?since=yesterday")
    assert reply.status_code == 400
    assert (
        "The date to start from must be a date such as 2026-11-28, not &#39;yesterday&#39;"
        in reply.get_data(as_text=True)
    )


def test_a_player_is_found_in_any_case_and_an_unknown_one_is_said_so(client, service):
    store = service.table.store
    html = client.get("/stats?player=dan").get_data(as_text=True)
    assert chart(html) == Brute(store, player="Dan").faces and sum(chart(html)) > 0
    assert '<option value="Dan" selected>' in html and "1 game with Dan" in html
    reply = client.get("/stats?player=Zed")
    assert reply.status_code == 404
    html = reply.get_data(as_text=True)
    assert (
        "No player called &#39;Zed&#39; has played at this table. Known players: Ann, Ben, Cat, Dan."
        " Everyone&#39;s dice are shown." in html
    )
    assert chart(html) == Brute(store).faces


def test_a_games_page_lists_every_roll(client, service):
    store = service.table.store
    html = client.get("/stats/game/1").get_data(as_text=True)
    assert chart(html) == Brute(store, game_id=1).faces
    assert f'<dd id="game-winner">{Brute(store).winners[1]}</dd>' in html
    rolls = store.rolls(1)
    listed = re.findall(
        r'<tr data-roll="(\d+)"( class="undone")?>.*?<td>(\w+).*?data-dice="([\d ]+)".*?'
        r'<td class="origin">([\w ]+)</td>',
        html,
        re.S,
    )
    assert len(listed) == len(rolls)
    for (_, undone, player, dice, origin), roll in zip(listed, rolls, strict=True):
        assert (player, dice, bool(undone)) == (roll.player, " ".join(map(str, roll.dice)), roll.undone)
        assert origin == {"camera": "camera", "phone": "phone", "manual": "by hand"}[roll.origin]
    assert {o for *_, o in listed} == {"camera", "phone"}
    assert client.get("/stats/game/99").status_code == 404


def test_every_page_links_to_stats(client):
    for path in ("/", "/setup", "/device", "/stats", "/stats/game/1"):
        assert 'href="/stats"' in client.get(path).get_data(as_text=True), path


def test_the_tv_shows_the_games_dice_when_it_is_won(tmp_path):
    svc = Service(from_dict({}), tmp_path, simulate=True, camera=False)
    try:
        client = web.create_app(svc).test_client()
        shadow = play(svc.table, random.Random(4), ["Ann", "Ben", "Cat"], stop_after=30)
        assert 'id="tv-dice"' not in client.get("/part/tv").get_data(as_text=True)
        # Play it to the end.
        from tablepi.games.beam_me_up.randomplay import random_command

        rng = random.Random(5)
        while not shadow.finished:
            command = random_command(shadow, rng)
            svc.table.submit(command, "camera" if command["type"] == "roll" else "button")
            shadow.push(command)
        html = client.get("/part/tv").get_data(as_text=True)
        brute = Brute(svc.table.store)
        assert chart(html, "tv-chart") == brute.faces
        assert f"after {sum(brute.faces):,} dice" in html
        lines = re.findall(r'<p class="luck-line" data-player="(\w+)">([^<]*)</p>', html)
        assert [name for name, _ in lines] == sorted(brute.firsts)
        for name, words in lines:
            tries, hits = brute.firsts[name]
            assert words.startswith(f"{name}: {hits} of {tries} first rolls scored")
        assert client.get("/tv").status_code == 200
    finally:
        svc.close()


def test_nothing_secret_reaches_stats(tmp_path):
    """The coin is never stored and a secret collection is a count only, so
    no stats page can show either, whatever games were played."""
    svc = Service(from_dict({}), tmp_path, simulate=True, camera=False)
    try:
        table = svc.table
        client = web.create_app(svc).test_client()
        names = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
        table.start_game("outer_space", {"players": names})
        flips = []
        controller = OuterSpaceController(
            table, TableDisplay(), None, lambda: 0.0, flip=lambda: flips.append(1) or "alien"
        )
        before = table.store.last_seq(table.game_id)
        for _ in range(3):
            controller.on_button("coin")
            controller.on_button("coin")
        assert (
            len(flips) == 3 and table.store.last_seq(table.game_id) == before
        )  # the coin is never a command
        table.submit({"type": "result", "winner": "humans"}, "web")
        table.start_game("space_beans", {"players": ["Ann", "Ben"]})
        for command in [
            {"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [2, 6]},
            {"type": "end_turn"},
            {"type": "add", "player": 1, "collection": "open", "bean": "Bluebeans", "cards": [4]},
            {"type": "end_turn"},
            {"type": "add", "player": 0, "collection": "secret", "count": 3},
        ]:
            table.submit(command, "web")
        stored = [c.command for c in table.store.commands(table.game_id)]
        assert {k for k in stored[-1] if k != "at"} == {"type", "player", "collection", "count"}
        play(table, random.Random(1), ["Ann", "Ben"], stop_after=20)
        pages = [
            "/stats",
            "/stats?player=Ann",
            *(f"/stats/game/{g.id}" for g in table.store.played_games()[0]),
        ]
        assert len(pages) == 5
        for path in pages:
            html = client.get(path).get_data(as_text=True)
            text = re.sub(r"<[^>]+>", " ", html)
            assert not re.search(r"\balien\b|\bcoin\b|\bsecret\b", text, re.I), path
            for field in SECRET_FIELDS:
                assert f'"{field}":' not in html and f"{field}=" not in html.replace('role="img"', ""), (
                    path,
                    field,
                )
        outer = client.get("/stats/game/1").get_data(as_text=True)
        assert '<dd id="game-winner">the humans</dd>' in outer and 'id="no-dice"' in outer
    finally:
        svc.close()


def test_the_table_s_own_rolls_are_said_to_be_left_out(tmp_path):
    from test_table_player import VS_TABLE, play_out

    svc = Service(from_dict({}), tmp_path, simulate=True, camera=False, table_seed=5, table_step_seconds=0)
    try:
        svc.table.start_game("beam_me_up", VS_TABLE)
        play_out(svc.table, svc.table_player, random.Random(6))
        client = web.create_app(svc).test_client()
        game_id = svc.table.game_id
        rolls = svc.table.store.rolls(game_id)
        robo = sum(r.origin == "table" and not r.undone for r in rolls)
        assert robo > 0 and robo < len(rolls)
        html = client.get(f"/stats/game/{game_id}").get_data(as_text=True)
        said = f"The table's own {robo:,} roll{'s' if robo != 1 else ''} for Robo"
        assert said in html and "only dice people threw are counted." in html
        assert "Robo, played by the table, is not in it." in html
        assert [r.split()[0] for r in rows(html, "luck-table")] == ["Ann"]
        html = client.get("/stats").get_data(as_text=True)
        assert "Rolls the table makes for the seats it plays are left out" in html
        tv = client.get("/tv").get_data(as_text=True)
        assert "The table's own rolls for Robo are left out." in tv
        # A game with no seat of the table's says nothing of it.
        svc.table.start_game("beam_me_up", {"players": [{"name": "Cat"}, {"name": "Dan"}]})
        html = client.get(f"/stats/game/{svc.table.game_id}").get_data(as_text=True)
        assert 'id="table-rolls"' not in html
    finally:
        svc.close()
