"""/stats in a real headless Chromium against a real `tablepi run --simulate`,
at a phone's size and a TV's, after games played through the API: the chart,
the luck table and the games played show the right numbers, a game opens on
its rolls, the TV shows the short version when the game is won, no script
fails and nothing runs off the side of a phone."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from browser_support import PHONE, TV, TablePiProcess, page_errors, screenshot

from tablepi.games.beam_me_up.game import BeamMeUp
from tablepi.games.beam_me_up.options import TABLE
from tablepi.games.beam_me_up.randomplay import random_command

pytestmark = pytest.mark.browser


class Played:
    """What the games sent through the API add up to, counted as they go."""

    def __init__(self) -> None:
        self.faces = [0] * 6
        self.game_faces: dict[int, list[int]] = {}
        self.firsts: dict[str, list[int]] = {}
        self.rolls: dict[int, list[tuple[str, list[int]]]] = {}
        self.winners: dict[int, str] = {}

    def game(
        self, table: TablePiProcess, rng: random.Random, names: list[str], stop_after: int | None = None
    ):
        settings = {"players": [{"name": n} for n in names]}
        game_id = table.command({"type": "new_game", "kind": "beam_me_up", "settings": settings})["game"][
            "id"
        ]
        shadow = BeamMeUp.from_settings(settings)
        rolls = self.rolls.setdefault(game_id, [])
        faces = self.game_faces.setdefault(game_id, [0] * 6)
        for _ in range(stop_after or 10**6):
            if shadow.finished:
                self.winners[game_id] = shadow.players[shadow.winner]
                break
            command = random_command(shadow, rng)
            if command["type"] == "roll":
                who = shadow.players[shadow.active]
                rolls.append((who, list(command["dice"])))
                for value in (Counter(command["dice"]) - Counter(command.get("kept", []))).elements():
                    self.faces[value - 1] += 1
                    faces[value - 1] += 1
                if shadow.roll_number == 0:
                    tally = self.firsts.setdefault(who, [0, 0])
                    tally[0] += 1
                    tally[1] += bool(TABLE[tuple(sorted(command["dice"]))])
            table.command(command)
            shadow.push(command)
        return game_id


@pytest.fixture(scope="module")
def played(table):
    rng = random.Random(31)
    counts = Played()
    counts.game(table, rng, ["Cat", "Dan", "Eve"], stop_after=60)  # game 1: left half-way
    table.command({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}})
    table.command({"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [2, 6]})
    counts.game(table, rng, ["Ann", "Ben", "Cat"])  # game 3: played to the win, still on the table
    return counts


def new_page(browser, viewport, phone=False):
    extra = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True} if phone else {}
    ctx = browser.new_context(viewport=viewport, **extra)
    ctx.set_default_timeout(5000)
    page = ctx.new_page()
    page.errors = page_errors(page)
    return page


def bars(page, chart="#face-chart") -> list[int]:
    return page.eval_on_selector_all(f"{chart} rect.bar", "els => els.map(e => Number(e.dataset.count))")


def bar_heights(page, chart="#face-chart") -> list[float]:
    return page.eval_on_selector_all(
        f"{chart} rect.bar", "els => els.map(e => e.getBoundingClientRect().height)"
    )


def overflow(page) -> int:
    """How far the page runs past the right edge of the screen, in CSS pixels."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def check_stats_page(page, played: Played) -> None:
    assert bars(page) == played.faces
    heights = bar_heights(page)
    tallest = max(range(6), key=lambda i: played.faces[i])
    for height, count in zip(heights, played.faces, strict=True):
        assert height == pytest.approx(heights[tallest] * count / played.faces[tallest], abs=1.0)
    assert page.locator("#face-chart rect.band").count() == 1
    assert page.locator("#face-chart line.fair").count() == 1
    n = sum(played.faces)
    assert page.inner_text("#dice-count") == f"{n:,} dice thrown in 2 games."
    assert page.inner_text("#fair-words").startswith(f"No sign of an unfair die after {n:,} dice.")
    luck = page.eval_on_selector_all(
        ".luck-table tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))"
    )
    assert [row[:3] for row in luck] == [
        [name, str(tries), f"{hits} ({100 * hits / tries:.0f}%)"]
        for name, (tries, hits) in sorted(played.firsts.items())
    ]
    games = page.eval_on_selector_all(
        ".games-table tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))"
    )
    assert [g[1:4] for g in games] == [
        ["Beam Me Up", "Ann, Ben, Cat", played.winners[3]],
        ["Space Beans", "Ann, Ben", "not finished"],
        ["Beam Me Up", "Cat, Dan, Eve", "not finished"],
    ]
    assert games[0][4].endswith(f"{len(played.rolls[3])} rolls")


def test_stats_on_a_phone(table, played, browser):
    page = new_page(browser, PHONE, phone=True)
    page.goto(table.base + "/stats")
    check_stats_page(page, played)
    chart = page.locator("#face-chart").bounding_box()
    assert 300 <= chart["width"] <= PHONE["width"] and chart["x"] >= 0
    assert overflow(page) <= 0
    screenshot(page, "stats-phone.png", full_page=True)

    # A game opens on its rolls: who threw them, the dice, where they came from.
    page.click(".games-table tbody tr:first-child a")
    page.wait_for_url("**/stats/game/3")
    assert page.inner_text("#game-winner") == played.winners[3]
    rows = page.eval_on_selector_all(
        ".roll-table tbody tr",
        "rows => rows.map(r => [r.cells[1].innerText, r.querySelector('.roll-dice').dataset.dice, "
        "r.cells[3].innerText])",
    )
    assert [(p.split(" · ")[0], d, o) for p, d, o in rows] == [
        (who, " ".join(map(str, dice)), "phone") for who, dice in played.rolls[3]
    ]
    assert bars(page) == played.game_faces[3]
    assert overflow(page) <= 0
    screenshot(page, "stats-game-phone.png", full_page=True)

    # The filters, as a player would use them.
    page.goto(table.base + "/stats")
    page.select_option("#stats-filters select[name=player]", "Eve")
    page.click("#stats-filters button[type=submit]")
    page.wait_for_url("**/stats?player=Eve*")
    assert page.eval_on_selector_all(
        ".luck-table tbody tr", "rows => rows.map(r => r.cells[0].innerText)"
    ) == ["Eve"]
    assert page.locator(".games-table tbody tr").count() == 1
    assert overflow(page) <= 0
    assert page.errors == []
    page.context.close()


def test_a_game_without_dice_says_so(table, played, browser):
    page = new_page(browser, PHONE, phone=True)
    page.goto(table.base + "/stats/game/2")
    assert page.locator("#no-dice").is_visible()
    assert page.locator("#face-chart").count() == 0
    assert overflow(page) <= 0
    assert page.errors == []
    page.context.close()


def test_stats_and_the_end_of_a_game_on_a_tv(table, played, browser):
    page = new_page(browser, TV)
    page.goto(table.base + "/stats")
    check_stats_page(page, played)
    chart = page.locator("#face-chart").bounding_box()
    assert chart["width"] >= 600  # big enough to read across a room
    assert overflow(page) <= 0
    screenshot(page, "stats-tv.png")

    # The game on the table is won: the TV adds its dice and everyone's luck.
    page.goto(table.base + "/tv")
    page.wait_for_selector("#tv-dice")
    assert bars(page, "#tv-chart") == played.game_faces[3]
    lines = page.eval_on_selector_all(".luck-line[data-player]", "els => els.map(e => e.innerText)")
    assert [line.split(":")[0] for line in lines] == ["Ann", "Ben", "Cat"]
    screenshot(page, "tv-game-won.png")
    box = page.locator("#tv-dice").bounding_box()
    assert box["x"] + box["width"] <= TV["width"] and box["y"] + box["height"] <= TV["height"]
    assert page.locator("#tv-chart").bounding_box()["height"] >= 150
    assert page.inner_text("#bmu-banner").startswith(f"{played.winners[3]} wins!")
    assert page.errors == []
    page.context.close()
