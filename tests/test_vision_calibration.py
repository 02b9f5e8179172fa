"""A fixed camera's dice sizes, learned from sure readings alone (vision.calibration),
and the reader looking only for dice of that size (vision.table_reader)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import finder
from vision import tunables as T
from vision.calibration import LENS, ONE_SIZE, PLANE, Calibration, DieSizes, fit
from vision.die import Die
from vision.synth import scene
from vision.table_reader import TableReader, ViewedSizes
from vision.views import MIRROR, QUARTER_TURN, turned

W, H = 640, 480


def tilted(x: float, y: float) -> float:
    """A camera tilted towards the table's near edge: dice 1.5x larger at the bottom."""
    return 40.0 * 1.5 ** (y / H)


def fisheye(x: float, y: float) -> float:
    """A wide lens: dice 1.6x smaller at the corners than in the middle."""
    r2 = ((2 * x / W - 1) ** 2 + (2 * y / H - 1) ** 2) / 2
    return 60.0 * 1.6**-r2


def die_at(x: float, y: float, side: float, confidence: float = 0.99) -> Die:
    return Die(3, [x - side / 2, y - side / 2, x + side / 2, y + side / 2], confidence)


def points(truth, n: int, rng: np.random.Generator, noise: float = 0.03) -> list[tuple[float, float, float]]:
    xs, ys = rng.uniform(0, W, n), rng.uniform(0, H, n)
    return [(x, y, truth(x, y) * math.exp(rng.normal(0, noise))) for x, y in zip(xs, ys, strict=True)]


@pytest.mark.parametrize("truth", [tilted, fisheye])
def test_the_fit_learns_the_size_over_the_frame_and_ignores_wrong_readings(truth) -> None:
    rng = np.random.default_rng(1)
    pts = points(truth, 60, rng)
    # a few sure readings that were a pip or two dice seen as one
    pts += [(100, 100, 12.0), (500, 300, 130.0), (320, 240, 9.0)]
    sizes = fit(pts, W, H)
    for x, y in ((20, 20), (320, 240), (620, 460), (100, 400)):
        assert sizes.side(x, y) == pytest.approx(truth(x, y), rel=0.06)
    assert sizes.spread < 0.06
    assert not sizes.agrees(100, 100, 12.0) and not sizes.agrees(500, 300, 130.0)
    assert sizes.agrees(320, 240, truth(320, 240) * 1.15)
    lo, hi = sizes.range()
    assert lo < min(truth(x, y) for x in (0, W) for y in (0, H)) and hi > truth(W / 2, H)


def test_few_dice_give_no_model_then_one_size_then_a_plane() -> None:
    rng = np.random.default_rng(2)
    assert fit(points(tilted, T.CALIBRATE_MIN_DICE - 1, rng), W, H) is None
    one = fit(points(tilted, T.CALIBRATE_MIN_DICE, rng), W, H)
    assert len(one.coef) == 1
    plane = fit(points(tilted, 40, rng), W, H)
    assert len(plane.coef) >= 3
    assert DieSizes.from_dict(plane.to_dict()).side(10, 470) == pytest.approx(plane.side(10, 470), rel=1e-4)
    with pytest.raises(ValueError):
        DieSizes.from_dict(dict(plane.to_dict(), coef=[1.0, 2.0]))


def test_a_calibration_learns_from_sure_dice_only_and_forgets_when_the_camera_moves() -> None:
    rng = np.random.default_rng(3)
    cal = Calibration()
    for _ in range(4):  # four rolls of five dice
        cal.learn([die_at(x, y, s) for x, y, s in points(tilted, 5, rng)], (H, W, 3))
    assert cal.sizes is not None and cal.sizes.side(320, 400) == pytest.approx(tilted(320, 400), rel=0.08)
    unsure = [die_at(320, 240, 200.0, confidence=0.6)] * 20
    cal.learn(unsure, (H, W, 3))
    assert cal.sizes.side(320, 240) == pytest.approx(tilted(320, 240), rel=0.08)
    # the camera comes down: every die twice the size, roll after roll
    for _ in range(T.MISFITS_TO_FORGET):
        cal.learn([die_at(x, y, 2 * s) for x, y, s in points(tilted, 5, rng)], (H, W, 3))
    assert cal.sizes is None or cal.sizes.side(320, 240) == pytest.approx(2 * tilted(320, 240), rel=0.1)
    # another frame size is another camera
    cal.learn([die_at(x, y, s) for x, y, s in points(tilted, 10, rng)], (720, 1280, 3))
    assert cal.shape == (720, 1280) and len(cal.points) == 10


def test_the_finder_looks_only_on_the_levels_that_hold_the_sizes() -> None:
    scales = finder.levels((480, 640))
    assert finder._holding(scales, 30, 60) != scales
    for k in finder._holding(scales, 30, 60):
        i = scales.index(k)
        lo = 0 if i == 0 else T.LEVEL_KEEP[0]
        hi = np.inf if i == len(scales) - 1 else T.LEVEL_KEEP[1] * T.EDGE_REACH
        assert 30 * k < hi and 60 * k >= lo


@pytest.mark.parametrize("view", [QUARTER_TURN, MIRROR])
def test_sizes_follow_the_frame_into_each_view(view: str) -> None:
    sizes = fit(points(tilted, 60, np.random.default_rng(4)), W, H)
    frame = np.zeros((H, W, 3), np.uint8)
    frame[400, 100] = 255  # a die's place, found again in the view
    y, x = np.argwhere(turned(frame, view)[:, :, 0] == 255)[0]
    assert ViewedSizes(sizes, view, frame.shape).side(x + 0.5, y + 0.5) == pytest.approx(
        sizes.side(100.5, 400.5), rel=0.02
    )


def test_a_table_reads_a_tilted_camera_right_and_falls_back_when_the_camera_moves() -> None:
    reader = TableReader()
    rng = np.random.default_rng(7)
    right = 0
    for _ in range(6):
        values = [int(v) for v in rng.integers(1, 7, 4)]
        img, placed = scene(W, H, values, 50, rng, "cloth")
        dice = reader.read(img, expect=len(values))
        right += sorted(d.value for d in dice if d.confidence >= 0.5) == sorted(values)
    assert right >= 5 and reader.calibration.sizes is not None
    # the model's side is the side the reader gives a die there (the finder's box, shadow and all)
    seen = np.median([d.side for d in dice if d.confidence >= 0.5])
    assert reader.calibration.sizes.side(W / 2, H / 2) == pytest.approx(seen, rel=0.15)
    # dice twice the size: read all the same (read again without the model), and learned anew
    img, placed = scene(W, H, [2, 5, 6], 100, rng, "cloth")
    dice = reader.read(img, expect=3)
    assert sorted(d.value for d in dice if d.confidence >= 0.5) == [2, 5, 6]


def test_a_roll_short_of_dice_is_looked_at_again_for_fainter_spots_of_the_size_expected(monkeypatch) -> None:
    import vision.table_reader as table_reader

    heats: list[tuple[bool, float]] = []
    real = table_reader.read_dice

    def spy(image, models, sizes=None, heat=T.FINDER_MIN):
        heats.append((sizes is not None, heat))
        return real(image, models, sizes, heat)

    monkeypatch.setattr(table_reader, "read_dice", spy)
    rng = np.random.default_rng(7)
    reader = TableReader(views=1)
    for _ in range(4):  # a few rolls teach the table its camera
        reader.read(scene(W, H, [1, 4, 6, 2], 50, rng, "cloth")[0], expect=4)
    assert reader.calibration.sizes is not None
    img, _ = scene(W, H, [2, 3, 5], 50, rng, "cloth")
    heats.clear()
    dice = reader.read(img, expect=3)
    assert heats == [(True, T.FINDER_MIN)] and sorted(d.value for d in dice) == [2, 3, 5]
    # Told a fourth die was thrown: a second look at the size expected, then an uncalibrated one.
    heats.clear()
    dice = reader.read(img, expect=4)
    assert heats == [(True, T.FINDER_MIN), (True, T.SECOND_LOOK), (False, T.FINDER_MIN)]
    assert T.SECOND_LOOK < T.FINDER_MIN
    assert sorted(d.value for d in dice if d.confidence >= 0.5) == [2, 3, 5]


def test_uncalibrated_a_roll_short_of_dice_is_looked_at_again_at_its_own_dice_size(monkeypatch) -> None:
    import vision.table_reader as table_reader

    looks: list[tuple[float | None, float]] = []
    real = table_reader.read_dice

    def spy(image, models, sizes=None, heat=T.FINDER_MIN):
        looks.append((None if sizes is None else sizes.side(W / 2, H / 2), heat))
        return real(image, models, sizes, heat)

    monkeypatch.setattr(table_reader, "read_dice", spy)
    img, _ = scene(W, H, [2, 3, 5], 50, np.random.default_rng(5), "cloth")
    reader = TableReader(views=1)
    told = reader.read(img, expect=4)
    (first, _), (side, heat) = looks
    # The second look: the median side of the three sure dice, down to the faintest spots.
    sure = sorted(d.side for d in told if d.confidence >= T.CALIBRATE_SURE)
    assert first is None and heat == T.SECOND_LOOK and side == pytest.approx(sure[1], rel=1e-6)
    assert sorted(d.value for d in told if d.confidence >= 0.5) == [2, 3, 5]
    # It does not teach the calibration: what it learned is the first look's dice.
    assert len(reader.calibration.points) == 3
    # All there, or not told how many: no second look.
    for expect in (3, None):
        looks.clear()
        TableReader(views=1).read(img, expect=expect)
        assert looks == [(None, T.FINDER_MIN)]
    # One die read sure of four thrown: too few to tell a size from.
    lone, _ = scene(W, H, [4], 50, np.random.default_rng(6), "cloth")
    looks.clear()
    read = TableReader(views=1).read(lone, expect=4)
    assert [d.value for d in read if d.confidence >= T.CALIBRATE_SURE] == [4]
    assert looks == [(None, T.FINDER_MIN)]


def test_read_dice_told_the_count_finds_the_die_a_photo_alone_misses(shared_dir) -> None:
    from vision import SURE, read_dice
    from vision.datasets import load_photos

    # A train photo of seven dice, a 4 missed and a 5 read unsure alone: both sure at their fellows' size.
    (photo,) = [
        p
        for p in load_photos(shared_dir / "datasets" / "byler-d6" / "train")
        if p.name == "IMG_20191208_112116.jpg"
    ]
    img = cv2.imread(str(photo.path))
    labelled = sorted(v for v, _ in photo.dice)
    alone = read_dice(img)
    assert sorted(d.value for d in alone if d.confidence >= SURE) != labelled
    told = read_dice(img, expect=len(photo.dice))
    assert sorted(d.value for d in told) == labelled and min(d.confidence for d in told) >= SURE


def test_a_second_look_reads_only_what_is_new_and_reads_it_as_a_fresh_frame(monkeypatch) -> None:
    from vision import face, reader, verify
    from vision.halvings import Halvings

    rng = np.random.default_rng(11)
    table = TableReader(views=1)
    for _ in range(4):
        table.read(scene(W, H, [1, 4, 6, 2], 50, rng, "cloth")[0], expect=4)
    sizes = table.calibration.sizes
    assert sizes is not None
    img, _ = scene(W, H, [2, 3, 5], 50, rng, "cloth")
    faces: list[int] = []
    real = face._read_new

    def counted(image: Halvings, places: list, least_step: float) -> list:
        faces.append(len(places))
        return real(image, places, least_step)

    monkeypatch.setattr(face, "_read_new", counted)
    frame = Halvings(img)
    first = reader.read_dice(frame, sizes=sizes)
    assert first and sum(faces) >= len(first)
    # The same frame again: nothing is read again, and the same dice come out.
    faces.clear()
    assert reader.read_dice(frame, sizes=sizes) == first and sum(faces) == 0
    # A second look at fainter spots, and a reading without the model: each as a frame never read.
    for heat, model in ((T.SECOND_LOOK, sizes), (T.FINDER_MIN, None)):
        shared = reader.read_dice(frame, sizes=model, heat=heat)
        assert shared == reader.read_dice(img.copy(), sizes=model, heat=heat)
    # The verifier's opinion of a place asked about twice is the one it gave.
    place = [(320.0, 240.0, 50.0)]
    assert np.array_equal(verify.opinions(frame, place), verify.opinions(frame, place))
    assert np.allclose(verify.opinions(frame, place), verify.opinions(Halvings(img), place), atol=1e-6)


def test_a_roll_with_every_die_sure_leaves_out_what_is_likelier_no_die_but_refuses_an_unsure_die(
    monkeypatch,
) -> None:
    """A token or picture die in view must not stop a roll whose thrown dice are all read;
    an unsure reading likely a die (a die read twice, a die more than thrown) must."""
    import vision.table_reader as table_reader

    sure = [Die(v, [x, 0.0, x + 40.0, 40.0], 0.95, 0.99) for v, x in ((2, 0), (5, 100), (6, 200))]
    token = Die(4, [300.0, 0.0, 340.0, 40.0], 0.2, 0.3)
    ghost = Die(1, [210.0, 0.0, 250.0, 40.0], 0.3, 0.9)
    frame = np.zeros((H, W, 3), np.uint8)

    def reads(dice):
        monkeypatch.setattr(table_reader, "read_dice", lambda *a, **k: list(dice))
        return [(d.value, d.confidence >= 0.5) for d in TableReader(views=1).read(frame, expect=3)]

    assert reads(sure + [token]) == [(2, True), (5, True), (6, True)]
    assert reads(sure + [ghost]) == [(2, True), (5, True), (6, True), (1, False)]
    assert reads(sure[:2] + [token]) == [(2, True), (5, True), (4, False)]  # a die short: kept, refused
    monkeypatch.setattr(table_reader, "read_dice", lambda *a, **k: sure + [token])
    assert len(TableReader(views=1).read(frame)) == 4  # no count told: nothing left out


def test_a_calibrated_finder_keeps_a_die_a_little_under_a_levels_octave() -> None:
    """A white 44 px die on dark cloth: the finer level sizes it past its octave, the
    coarser a little under its own; uncalibrated it was kept on neither level (the lone
    die went unread), calibrated the die's size decides and it is read."""
    from lone_die_support import lone_die

    from vision.reader import read_dice

    img = lone_die("white on dark cloth", 44, 2, 15)
    sizes = fit([(x, y, 50.0) for x in range(40, W, 80) for y in range(40, H, 80)], W, H)
    near = [s for s in finder.find(img, sides=sizes.range()) if sizes.agrees(s.x, s.y, s.side)]
    assert [(round(s.x / 10), round(s.y / 10)) for s in near] == [(39, 31)]
    assert [(d.value, d.confidence >= 0.5) for d in read_dice(img, sizes=sizes)] == [(2, True)]


def counted_reads(monkeypatch) -> list[int]:
    """The table reader's frame reads, one entry each, from now on."""
    import vision.table_reader as table_reader

    calls: list[int] = []
    real = table_reader.read_dice

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(table_reader, "read_dice", counted)
    return calls


def test_a_roll_beyond_doubt_after_two_views_is_not_read_a_third_time(monkeypatch) -> None:
    import vision.table_reader as table_reader

    calls = counted_reads(monkeypatch)
    img, _ = scene(W, H, [2, 3, 5], 50, np.random.default_rng(5), "cloth")
    told = TableReader().read(img, expect=3)
    assert len(calls) == 2
    assert sorted((d.value, d.confidence >= 0.5) for d in told) == [(2, True), (3, True), (5, True)]
    # Not told how many were thrown, or told another count: every view is read (told four,
    # every view twice: the second time at the size of the three dice read sure).
    for expect, reads in ((None, 3), (4, 6)):
        calls.clear()
        TableReader().read(img, expect=expect)
        assert len(calls) == reads
    # Two views whose confidences sum to 1.5 or less leave the die to the third: it is read.
    assert not table_reader._beyond_doubt(
        [[Die(2, [0.0, 0.0, 40.0, 40.0], 0.9, 0.99)], [Die(2, [0.0, 0.0, 40.0, 40.0], 0.55, 0.99)]], 3, 1
    )
    assert table_reader._beyond_doubt(
        [[Die(2, [0.0, 0.0, 40.0, 40.0], 0.9, 0.99)], [Die(2, [0.0, 0.0, 40.0, 40.0], 0.8, 0.99)]], 3, 1
    )


def test_a_table_stopping_after_two_views_reads_and_learns_as_one_reading_all_three(monkeypatch) -> None:
    """The third view cannot change a roll beyond doubt, and the calibration learns from the
    first two views of every roll: rolls read to the end give the same dice and the same camera."""
    import vision.table_reader as table_reader

    def rolls(reader: TableReader) -> list:
        rng = np.random.default_rng(9)
        out = []
        for n in (4, 3, 5, 4, 2, 4):
            values = [int(v) for v in rng.integers(1, 7, n)]
            dice = reader.read(scene(W, H, values, 50, rng, "cloth")[0], expect=n)
            out.append(sorted((d.value, d.confidence >= 0.5) for d in dice))
        return out

    calls = counted_reads(monkeypatch)
    early = TableReader()
    stopped = rolls(early)
    read_early = len(calls)
    monkeypatch.setattr(table_reader, "_beyond_doubt", lambda *a: False)
    full = TableReader()
    assert rolls(full) == stopped and len(calls) - read_early > read_early
    assert early.calibration.points == full.calibration.points and early.calibration.sizes is not None


def test_a_models_extent_and_kind_say_what_it_holds() -> None:
    flat = DieSizes(640, 480, (math.log(40.0),), 0.05, 10)
    assert flat.kind == ONE_SIZE and flat.extent() == pytest.approx((40.0, 40.0))
    # Larger towards the bottom of the frame (v = 1): 40 px at the middle, e^(+-0.2) times it at the edges.
    tilted = DieSizes(640, 480, (math.log(40.0), 0.0, 0.2), 0.05, 20)
    assert tilted.kind == PLANE
    assert tilted.extent() == pytest.approx((40 * math.exp(-0.2), 40 * math.exp(0.2)))
    assert tilted.side(320, 480) == pytest.approx(tilted.extent()[1])
    lens = DieSizes(640, 480, (math.log(40.0), 0.0, 0.0, -0.1), 0.05, 40)
    assert lens.kind == LENS and lens.extent()[1] == pytest.approx(40.0)
    # The range a die may show adds the tolerance both ways.
    least, most = tilted.range()
    assert least == pytest.approx(tilted.extent()[0] / tilted.tolerance)
    assert most == pytest.approx(tilted.extent()[1] * tilted.tolerance)
