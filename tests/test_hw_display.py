"""Every OLED screen drawn on luma.core's dummy device, checked pixel by pixel."""

from __future__ import annotations

import io

import pytest
from luma.core.device import dummy
from PIL import Image, ImageChops

from hardware.display import BRIGHT, DIM, TableDisplay, open_display
from hardware.screens import format_clock


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def display(clock):
    d = TableDisplay(open_display(None, simulate=True), idle_seconds=120, clock=clock)
    yield d
    d.close()


def pixels(image: Image.Image) -> int:
    hist = image.convert("L").histogram()
    return sum(hist) - hist[0]


def differ(a: Image.Image, b: Image.Image) -> int:
    return pixels(ImageChops.difference(a.convert("L"), b.convert("L")))


def inside(display: TableDisplay) -> bool:
    return all(x0 >= 0 and y0 >= 0 and x1 <= 128 and y1 <= 64 for x0, y0, x1, y1 in display.drawn_boxes)


LONG = "Commander Zaphod Beeblebrox of the Outer Rim " * 3
SCREENS = [
    ("start", lambda d: d.start("http://192.168.100.200:8080/table/with/a/long/path", "482913")),
    ("countdown", lambda d: d.countdown(60, LONG)),
    ("countdown", lambda d: d.countdown(3599.5)),
    ("coin", lambda d: d.coin("alien")),
    ("coin", lambda d: d.coin("human")),
    ("dice", lambda d: d.dice([1, 2, 3, 4, 5], LONG, LONG)),
    ("dice", lambda d: d.dice([6, None, 6, None, 6], "Bo")),
    ("options", lambda d: d.options([LONG] * 12, 11, LONG)),
    ("options", lambda d: d.options([], 0)),
    ("error", lambda d: d.error(LONG * 3)),
    ("standings", lambda d: d.standings([(LONG, 123456)] * 9, 8)),
    ("standings", lambda d: d.standings([])),
    ("message", lambda d: d.message([LONG] * 8)),
    ("test", lambda d: d.test_pattern()),
]


@pytest.mark.parametrize(("name", "draw"), SCREENS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCREENS)])
def test_every_screen_draws_inside_the_panel(display, name, draw):
    before = display.version
    draw(display)
    assert display.screen == name
    assert display.version == before + 1
    image = display.image
    assert image.size == (128, 64) and image.mode in ("1", "L")
    assert pixels(image) > 20 or name in ("options", "standings")
    assert display.drawn_boxes, "a screen must draw something"
    assert inside(display), [b for b in display.drawn_boxes if not (0 <= b[0] and 0 <= b[1])]
    # What we keep is what the device was sent.
    assert differ(image, display.device.image) == 0


def test_countdown_digits_change_each_second(display):
    display.countdown(60)
    sixty = display.image
    display.countdown(59)
    fifty_nine = display.image
    display.countdown(59.0)
    assert differ(sixty, fifty_nine) > 50
    assert differ(fifty_nine, display.image) == 0
    assert [format_clock(s) for s in (60, 59.2, 59, 0.4, 0, -3, 600)] == [
        "1:00",
        "1:00",
        "0:59",
        "0:01",
        "0:00",
        "0:00",
        "10:00",
    ]


def test_coin_screens_differ_and_are_secret_until_next_screen(display):
    display.coin("alien")
    alien = display.image
    assert display.secret
    display.coin("human")
    human = display.image
    assert display.secret
    assert differ(alien, human) > 200
    display.clear()
    assert not display.secret
    assert pixels(display.image) == 0
    display.coin("alien")
    display.message(["next"])
    assert not display.secret


def test_bad_coin_result_changes_nothing(display):
    display.message(["hello"])
    before, version = display.image, display.version
    with pytest.raises(ValueError):
        display.coin("android")
    assert display.version == version and differ(before, display.image) == 0


def test_dice_unread_and_values_look_different(display):
    display.dice([1, 1, 1, 1, 1], "Ann")
    ones = display.image
    display.dice([6, 6, 6, 6, 6], "Ann")
    sixes = display.image
    display.dice([None] * 5, "Ann")
    unread = display.image
    assert pixels(sixes) > pixels(ones)
    assert differ(ones, unread) > 0 and differ(sixes, unread) > 0


def test_options_cursor_moves_and_scrolls(display):
    items = [f"option {i}" for i in range(10)]
    display.options(items, 0, "Pick")
    first = display.image
    display.options(items, 1, "Pick")
    second = display.image
    assert differ(first, second) > 0
    # The highlight bar is a row of lit pixels at the left edge under the cursor.
    # Below the title rule (rows 0-14), column 0 is lit only by the highlight bar.
    row_lit = [first.getpixel((0, y)) for y in range(15, 64)]
    row_lit2 = [second.getpixel((0, y)) for y in range(15, 64)]
    assert row_lit.index(255) < row_lit2.index(255)
    display.options(items, 9, "Pick")
    last = display.image
    assert differ(last, first) > 0 and inside(display)


def test_idle_dimming_and_wake(display, clock):
    spy = []
    original = display.device.contrast
    display.device.contrast = lambda level: (spy.append(level), original(level))
    display.message(["hi"])
    clock.now += 119
    display.tick(clock.now)
    assert not display.dimmed
    clock.now += 2
    display.tick(clock.now)
    assert display.dimmed and spy[-1] == DIM
    display.tick(clock.now + 5)
    assert spy.count(DIM) == 1  # dims once, not on every tick
    display.wake()
    assert not display.dimmed and spy[-1] == BRIGHT
    display.idle_seconds = 0
    display.tick(clock.now + 10_000)
    assert not display.dimmed


def test_new_content_wakes_a_dimmed_screen(display, clock):
    display.message(["a"])
    clock.now += 500
    display.tick()
    assert display.dimmed
    display.message(["b"])
    assert not display.dimmed


def test_public_png_hides_the_coin(display):
    display.countdown(30)
    version, png = display.public_png()
    assert version == display.version and png == display.png()
    counting = png
    display.coin("human")
    assert display.secret and display.png() != counting
    # Mirrors show the screen the coin covers, never the coin ...
    version, png = display.public_png()
    assert png == counting and version == display.version
    assert display.mirror_png() == counting
    # ... and what is drawn under it goes on changing as it would without a coin.
    display.countdown(29, under=True)
    _, png = display.public_png()
    assert png not in (counting, display.png()) and display.screen == "coin" and display.secret
    display.countdown(28, under=True)
    display.countdown(28)  # the coin goes: the OLED shows what the mirrors showed
    assert not display.secret and display.public_png()[1] == display.png()
    display.clear()
    assert display.public_png()[1] is not None


def test_png_is_the_image(display):
    display.countdown(42)
    data = display.png()
    assert data.startswith(b"\x89PNG")
    back = Image.open(io.BytesIO(data))
    assert back.size == (128, 64)
    assert differ(back, display.image) == 0


def test_missing_oled_degrades_to_dummy(caplog):
    class Cfg:
        driver = "sh1106"
        port = 97  # no such I2C bus
        address = 0x3C
        rotate = 0

    device = open_display(Cfg(), simulate=False)
    assert isinstance(device, dummy)
    assert "not available" in caplog.text
    assert TableDisplay(device).simulated


def test_oled_vanishing_mid_game_keeps_the_table_running(clock, caplog):
    from luma.core.error import DeviceNotFoundError

    device = dummy(width=128, height=64, mode="1")
    d = TableDisplay(device, clock=clock)
    real_display = device.display
    device.display = lambda image: (_ for _ in ()).throw(DeviceNotFoundError("I2C device not found"))
    d.countdown(12)
    d.countdown(11)
    assert not d.responding and d.screen == "countdown"
    assert caplog.text.count("OLED write failed") == 1  # said once, not on every redraw
    device.display = real_display
    d.countdown(10)
    assert d.responding
    assert differ(d.image, device.image) == 0


def test_rotated_dummy_still_128x64(clock):
    class Cfg:
        rotate = 2

    d = TableDisplay(open_display(Cfg(), simulate=True), clock=clock)
    d.countdown(10)
    assert d.image.size == (128, 64)
