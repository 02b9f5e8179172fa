"""The reader's parts one by one: the finder's pyramid, the layout fits, the face
reading, the verifier's crops, the confidence fit and the robustness transforms."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import face, finder, verify
from vision import tunables as T
from vision.datasets import Photo
from vision.finder import Spot
from vision.halvings import Halvings, on_level
from vision.robust import TRANSFORMS
from vision.synth import background, draw_die
from vision.training.confidence import fit_logistic

FACE_CROP = face.face_crop


def test_the_pyramid_halves_from_the_finest_level_down() -> None:
    for shape in [(480, 640), (3000, 4000), (384, 384), (100, 60)]:
        scales = finder.levels(shape)
        assert scales[0] == pytest.approx(min(1.0, T.FINEST / max(shape)))
        assert all(b == pytest.approx(a / 2) for a, b in zip(scales, scales[1:], strict=False))
        assert max(shape) * scales[-1] >= T.COARSEST or len(scales) == 1
    # an 8 MP frame costs what a webcam frame does: the same finest level
    assert max(3000, 4000) * finder.levels((3000, 4000))[0] == pytest.approx(
        max(480, 640) * finder.levels((480, 640))[0]
    )


def test_suppression_keeps_one_spot_per_die_but_a_dies_pips_apart() -> None:
    die = Spot(100, 100, 60, 0.9)
    same_die_other_level = Spot(104, 98, 66, 0.7)
    pip = Spot(85, 85, 12, 0.8)  # much smaller: left for the reader to resolve
    neighbour = Spot(170, 100, 60, 0.6)
    kept = finder._suppress([same_die_other_level, pip, die, neighbour])
    assert die in kept and pip in kept and neighbour in kept
    assert same_die_other_level not in kept


def _reads(monkeypatch, read: list[tuple[Spot, face.FaceReading]]) -> list[list[tuple]]:
    """The reader's finder and verifier replaced by ``read``'s spots, each with a face, and
    its pip counting by their readings; returns the places each count was asked for. The
    larger look at a spot read as no die (``reader._larger``, tested on its own) is left out."""
    from vision import reader
    from vision.halvings import Halvings

    frame = Halvings(np.zeros((8, 8, 3), np.uint8))
    opinions = np.tile([0.0, 1, 0, 0, 0, 0, 0], (len(read), 1))
    monkeypatch.setattr(
        reader, "_faced_spots", lambda image, models, sizes, heat: (frame, [s for s, _ in read], opinions)
    )
    by_place = {(s.x, s.y, s.side): r for s, r in read}
    asked: list[list[tuple]] = []

    def read_faces(image, places, seen=None):
        asked.append(list(places))
        return [by_place[p] for p in places]

    monkeypatch.setattr(face, "read_faces", read_faces)
    monkeypatch.setattr(reader, "_larger", lambda *args: {})
    return asked


@pytest.mark.parametrize("inner_is_a_die", [False, True])
def test_only_a_likely_die_makes_a_larger_spot_a_cluster(monkeypatch, inner_is_a_die: bool) -> None:
    from vision import confidence, reader
    from vision.confidence import Grade

    # A die read as a 5, and inside it a half-size spot that is neither on its pips nor pip-sized.
    big = Spot(100, 100, 60, 0.9)
    inner = Spot(115, 100, 30, 0.5)
    pips = np.array([100 + 100j, 88 + 88j, 112 + 88j, 112 + 112j, 88 + 112j])
    read_big = face.FaceReading(5, 8.0, -1.0, 40.0, 0.1, pips)
    read_inner = face.FaceReading(1, 2.0, -3.0, 10.0, 0.1, np.array([115 + 100j]))
    _reads(monkeypatch, [(big, read_big), (inner, read_inner)])
    likely = {id(big): 0.99, id(inner): 0.9 if inner_is_a_die else 0.1}
    monkeypatch.setattr(confidence, "grade", lambda spot, r, model: Grade(likely[id(spot)], likely[id(spot)]))
    dice = reader.read_dice(np.zeros((200, 200, 3), np.uint8))
    if inner_is_a_die:
        assert [d.value for d in dice] == [1]  # the large spot was a cluster of dice
    else:
        assert [d.value for d in dice] == [5]  # what is no die leaves the die alone


def _one_die_maps(sides: dict[int, float], monkeypatch) -> None:
    """The finder's network replaced by one that sees a die at (100, 100) of the
    frame, sized ``sides[level]`` px at each level (no die on the other levels)."""
    calls = iter(range(10))

    def maps(net, level: np.ndarray) -> np.ndarray:
        i = next(calls)
        h, w = -(-level.shape[0] // finder.STRIDE), -(-level.shape[1] // finder.STRIDE)
        out = np.zeros((4, h, w), np.float32)
        out[0] = -6.0
        if i in sides:
            k = level.shape[1] / 640
            x, y = 100 * k / finder.STRIDE, 100 * k / finder.STRIDE
            out[0, int(y), int(x)] = 3.0
            out[1, int(y), int(x)] = math.log2(sides[i] / 16.0)
        return out

    monkeypatch.setattr(finder, "_maps", maps)


@pytest.mark.parametrize(
    "sides, found",
    [
        ({0: 20.0, 1: 10.0}, 1),  # in level 0's octave
        ({0: 29.0, 1: 13.5}, 1),  # just past level 0's octave, short of level 1's
        ({0: 29.0, 1: 15.0}, 1),  # past level 0's, in level 1's: found there, once
        ({0: 40.0, 1: 13.0}, 0),  # far past any octave: no die of the band
    ],
)
def test_a_die_between_two_levels_is_found_once(monkeypatch, sides: dict[int, float], found: int) -> None:
    _one_die_maps(sides, monkeypatch)
    spots = finder.find(np.zeros((480, 640, 3), np.uint8))
    assert len(spots) == found
    if found:
        (spot,) = spots
        assert spot.edge == (sides[1] < T.LEVEL_KEEP[0] and sides[0] >= T.LEVEL_KEEP[1])
        assert math.hypot(spot.x - 100, spot.y - 100) < 10


@pytest.mark.parametrize("edge", [True, False])
def test_a_blurred_die_past_its_octave_is_not_reported(monkeypatch, edge: bool) -> None:
    from vision import confidence, reader
    from vision.confidence import Grade

    # Three sharp dice and one far softer: blur makes the finder size a die large.
    sharp = [(Spot(100 + 80 * i, 100, 50, 0.9), 0.5 + 0.05 * i) for i in range(3)]
    soft = (Spot(100, 300, 60, 0.9, edge=edge), 0.15)
    read = []
    for spot, sharpness in [*sharp, soft]:
        reading = face.FaceReading(4, 8.0, -1.0, 40.0, 0.1, np.array([complex(spot.x, spot.y)]))
        reading.sharpness = sharpness
        read.append((spot, reading))
    _reads(monkeypatch, read)
    monkeypatch.setattr(confidence, "grade", lambda spot, r, model: Grade(0.99, 0.99))
    dice = reader.read_dice(np.zeros((400, 400, 3), np.uint8))
    # Only a spot sized past its octave is suspect; a soft die the finder sized within one stays.
    assert len(dice) == (3 if edge else 4)


@pytest.mark.parametrize("value", range(2, 7))
@pytest.mark.parametrize("slant", [1.0, 0.7])
def test_a_layout_fits_its_own_pips_exactly(value: int, slant: float) -> None:
    # The value's pips turned, scaled and squashed as a die seen at a slant
    turn = np.exp(1j * 0.4)
    grid = {v: face._RING[v] + ([(0, 0)] if face._CENTRE[v] else []) for v in face._RING}
    pts = np.array([complex(x, y * slant) * turn * 7 + (20 + 20j) for x, y in grid[value]])
    rng = np.random.default_rng(value)
    pts = pts[rng.permutation(len(pts))][None, :]
    centre, cols, residual = face._fit(value, pts)
    assert residual[0] == pytest.approx(0, abs=1e-6)
    assert centre[0] == pytest.approx(20 + 20j)
    big, small = face._singular(cols)
    # two or three pips in a line fix only a turn and a scale: no slant to measure
    assert small[0] / big[0] == pytest.approx(slant if value >= 4 else 1.0, rel=1e-6)


@pytest.mark.parametrize("sloped", [True, False])
def test_a_six_lit_from_one_side_is_a_six(monkeypatch, sloped: bool) -> None:
    # Light from the right: the left column's pips weaker, the more so the further down.
    pips = np.array([7 - 7j, 7 + 0j, 7 + 7j, -7 + 7j, -7 + 0j, -7 - 7j])
    strength = np.array([100.0, 95.0, 90.0, 50.0, 40.0, 30.0])
    if not sloped:
        monkeypatch.setattr(T, "LIGHT_SLOPE", 1e-9)
    value = face._weigh([(pips, strength)])[0][0]
    # Without a slope the pips would have to be about equally strong: the left column is then taken for noise.
    assert value == (6 if sloped else 3)


def test_a_square_of_pips_is_no_six() -> None:
    # Four corners and two pips in the middle of the face are a 6 only if they sit on its sides.
    wrong = np.array([[-7 - 7j, 7 - 7j, 7 + 7j, -7 + 7j, 0 + 3j, 0 - 3j]])
    assert face._fit(6, wrong)[2][0] > 0.2


@pytest.mark.parametrize("side", [25, 40, 90, 200, 400])
@pytest.mark.parametrize("value", range(1, 7))
def test_read_face_reads_a_rendered_die_of_any_size(value: int, side: int) -> None:
    n = int(side * 2.2)
    img = background(n, n, "wood", np.random.default_rng(side))
    draw_die(img, value, (n / 2, n / 2), side, 17.0)
    reading = face.read_face(img, n / 2, n / 2, side)
    assert reading is not None and reading.value == value
    assert len(reading.pips) == value
    assert reading.lead > 0


@pytest.mark.parametrize("seen", [None, 5, 3])
def test_a_face_the_verifier_surely_sees_is_read_at_one_size(monkeypatch, seen: int | None) -> None:
    img = background(220, 220, "wood", np.random.default_rng(5))
    draw_die(img, 5, (110, 110), 80, 10.0)
    crops = []
    monkeypatch.setattr(face, "face_crop", lambda *a: crops.append(a) or FACE_CROP(*a))
    opinion = None if seen is None else [np.eye(7)[seen]]
    reading = face.read_faces(img, [(110, 110, 80)], opinion)[0]
    assert reading.value == 5
    # Read at the finder's size and, unless the verifier saw the same value, at the other sizes
    # too; where it surely saw another value, larger as well and again with a finer pip grid
    # allowed (none of which reads a 3).
    assert len(crops) == {None: len(T.SIZES), 5: 1, 3: 2 * len(T.SIZES) + len(T.LARGER)}[seen]
    assert reading.agreement == 1.0


@pytest.mark.parametrize("turn", [0, 10, 30])
def test_a_six_sized_small_is_read_larger_where_the_verifier_sees_a_six(turn: float) -> None:
    img = background(220, 220, "wood", np.random.default_rng(5))
    draw_die(img, 6, (110, 110), 60, turn)
    # The finder's size 0.8 of the die's: its corner pips lie past the reach of every size.
    place = [(110, 110, 48)]
    assert face.read_faces(img, place)[0].value == 2
    assert face.read_faces(img, place, [np.eye(7)[5]])[0].value == 2  # no larger reading gives a 5
    six = face.read_faces(img, place, [np.eye(7)[6]])[0]
    assert six.value == 6 and len(six.pips) == 6
    assert six.agreement == 1.0  # at every larger size


@pytest.mark.parametrize("turn", [0, 10, 20, 30, 45])
def test_a_face_smaller_than_its_spot_is_read_as_the_verifier_sees_it(monkeypatch, turn: float) -> None:
    # A die at a slant, its side in the finder's spot: the 2's face is 0.4 of the spot, its
    # pips closer than any face's pip grid at the spot's size.
    img = background(240, 240, "wood", np.random.default_rng(3))
    draw_die(img, 2, (120, 120), 32, turn)
    place = [(120, 120, 80)]
    assert face.read_faces(img, place)[0].value != 2
    two = face.read_faces(img, place, [np.eye(7)[2]])[0]
    assert two.value == 2 and len(two.pips) == 2
    assert all(abs(p - (120 + 120j)) < 16 for p in two.pips)  # the face's own pips
    # It is the finer grid that finds them: with the usual one the verifier's 2 is not read.
    monkeypatch.setattr(T, "DOUBTED_STEP", T.STEP_RANGE[0])
    assert face.read_faces(img, place, [np.eye(7)[2]])[0].value != 2


@pytest.mark.parametrize(("grey", "value", "faint"), [(0, 3, False), (160, 2, True), (235, 2, False)])
def test_a_three_with_a_faint_middle_pip_reads_as_a_two_with_something_at_its_middle(
    grey: int, value: int, faint: bool
) -> None:
    img = background(240, 240, "wood", np.random.default_rng(3))
    draw_die(img, 2, (120, 120), 70, 10)
    cv2.circle(img, (120, 120), 6, (grey, grey, grey), -1, cv2.LINE_AA)  # 235: the face's own colour
    reading = face.read_face(img, 120, 120, 70)
    assert reading.value == value
    if value == 2:
        assert (reading.centre >= T.CENTRE_SEEN) == faint
        assert faint or reading.centre < T.THREE_DOUBT


def test_the_verifiers_crop_puts_the_die_in_the_middle_at_its_size() -> None:
    img = np.full((400, 600, 3), 200, np.uint8)
    cv2.rectangle(img, (300, 100), (380, 180), (0, 0, 0), -1)  # an 80 px square
    crop = verify.crop(img, 340, 140, 80)
    assert crop.shape == (verify.WINDOW, verify.WINDOW, 3)
    dark = np.argwhere(crop.max(axis=2) < 100)
    lo, hi = dark.min(axis=0), dark.max(axis=0)
    assert np.all(np.abs(hi - lo + 1 - verify.SIDE_PX) <= 1)
    assert np.all(np.abs((lo + hi) / 2 - (verify.WINDOW - 1) / 2) <= 1)
    # a die in an 8 MP frame is shrunk by area first: the same crop
    big = cv2.resize(img, None, fx=5, fy=5, interpolation=cv2.INTER_NEAREST)
    assert np.abs(verify.crop(big, 1700, 700, 400).astype(int) - crop.astype(int)).mean() < 8


@pytest.mark.parametrize("face_bgr", [(80, 80, 80), (140, 60, 30)])
def test_the_verifier_sees_red_pips_on_a_face_of_their_own_lightness(face_bgr: tuple) -> None:
    # A smoky die's red pips are as light as its face: lightness hides them,
    # unlikeness to the face's colour shows them, whatever that colour is.
    face_lab = cv2.cvtColor(np.uint8([[face_bgr]]), cv2.COLOR_BGR2Lab)[0, 0]
    pip = (40, 40, 140)
    pip_lab = cv2.cvtColor(np.uint8([[pip]]), cv2.COLOR_BGR2Lab)[0, 0]
    w = verify.WINDOW
    crops = np.zeros((2, w, w, 3), np.uint8)
    crops[:] = face_bgr
    cv2.circle(crops[1], (w // 2, w // 2), 4, pip, -1)
    cv2.circle(crops[1], (w // 4, w // 4), 4, pip, -1)
    planes = verify.channels(crops)
    assert planes.shape == (2, verify.CHANNELS, w, w) and planes.dtype == np.float32
    assert np.allclose(planes[0, 1], 0, atol=1e-3)  # a blank face is all its own colour
    at_pip, at_face = (w // 4, w // 4), (w - 4, w - 4)
    lightness = abs(planes[1, 0][at_pip] - planes[1, 0][at_face])
    unlikeness = planes[1, 1][at_pip] - planes[1, 1][at_face]
    assert lightness <= abs(int(pip_lab[0]) - int(face_lab[0])) + 1
    assert unlikeness > 40 and unlikeness > 4 * lightness
    # a grey crop has no colour to be unlike: only its lightness differs
    grey = verify.channels(crops[:, :, :, 1])
    assert grey.shape == planes.shape
    assert np.allclose(grey[1, 1], np.abs(grey[1, 0] - grey[1, 0][at_face]), atol=1e-3)


def test_halvings_keep_a_point_where_it_is_and_shrink_from_the_nearest_level() -> None:
    img = np.zeros((2464, 3280, 3), np.uint8)
    cv2.circle(img, (2001, 1203), 40, (255, 255, 255), -1)
    frame = Halvings(img)
    assert frame.nearest(0.5) == 0 and frame.nearest(T.HALVE_BELOW) == 0
    m = frame.nearest(0.02)
    assert 0.02 * 2**m >= T.HALVE_BELOW > 0.02 * 2 ** (m - 1)
    level = frame.level(m)
    assert level.shape[:2] == (2464 >> m, 3280 >> m)
    x, y, side = on_level(2001, 1203, 80, m)
    spot = np.argwhere(level[:, :, 0] > 127)
    assert np.allclose(spot.mean(axis=0), (y, x), atol=0.6)
    assert side == 80 / 2**m
    # a face crop taken from a halving is the frame shrunk whole, around the die
    k = T.FACE_PX / 400
    small = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    n = int(round(T.CROP * T.FACE_PX))
    cx, cy = (2001 + 0.5) * k - 0.5, (1203 + 0.5) * k - 0.5
    shift = np.array([[1, 0, n / 2 - cx], [0, 1, n / 2 - cy]], np.float32)
    whole = cv2.warpAffine(small, shift, (n, n), flags=cv2.INTER_LINEAR)
    halved = face.face_crop(frame, 2001, 1203, 400)
    assert halved.shape == whole.shape
    assert np.abs(whole.astype(int) - halved.astype(int)).mean() < 1
    # a tiny frame cannot be halved for ever
    assert Halvings(np.zeros((6, 6), np.uint8)).nearest(1e-6) <= 1
    # the finder's level starts from the halving that leaves at least FINDER_HALVE:
    # an 8 MP frame's from its eighth, a webcam frame's from the frame itself
    k = T.FINEST / 3280
    m = frame.nearest(k, T.FINDER_HALVE)
    assert k * 2**m >= T.FINDER_HALVE > k * 2 ** (m - 1) and m == 3
    assert Halvings(np.zeros((480, 640, 3), np.uint8)).nearest(T.FINEST / 640, T.FINDER_HALVE) == 0


def test_an_8mp_frame_finds_the_dice_of_the_frame_it_was_enlarged_from() -> None:
    small = background(640, 480, "wood", np.random.default_rng(5))
    for x, y, v in ((160, 140, 3), (330, 250, 5), (480, 330, 6)):
        draw_die(small, v, (x, y), 48, 20.0 * v)
    big = cv2.resize(small, (3280, 2464), interpolation=cv2.INTER_CUBIC)

    def places(frame: np.ndarray) -> list[tuple[int, int]]:
        k = 640 / frame.shape[1]
        spots = [s for s in finder.find(frame) if s.score >= T.FINDER_MIN]
        return sorted((round(s.x * k / 10), round(s.y * k / 10)) for s in spots)

    assert places(big) == places(small) == [(16, 14), (33, 25), (48, 33)]


def test_the_verifier_knows_a_die_from_the_table() -> None:
    img = background(640, 480, "wood", np.random.default_rng(3))
    places = []
    for k, value in enumerate(range(1, 7)):
        draw_die(img, value, (80 + 95 * k, 160), 60, 10.0 * k)
        places.append((80 + 95 * k, 160, 60))
    places.append((320, 380, 60))  # bare wood
    p = verify.opinions(img, places)
    assert p.shape == (7, 7)
    assert np.allclose(p.sum(axis=1), 1, atol=1e-4)
    assert list(p[:6].argmax(axis=1)) == [1, 2, 3, 4, 5, 6]
    assert p[6].argmax() == 0
    assert verify.opinions(img, []).shape == (0, 7)


def test_the_logistic_fit_recovers_the_weights_it_was_drawn_with() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, (20_000, 3)) * [1.0, 3.0, 0.5] + [0.0, 2.0, 0.0]
    truth, bias = np.array([1.5, -0.5, 2.0]), -0.3
    y = (rng.random(len(x)) < 1 / (1 + np.exp(-(x @ truth + bias)))).astype(float)
    weights, got_bias = fit_logistic(x, y, np.ones(len(x)), l2=1e-6)
    assert np.allclose(weights, truth, atol=0.1)
    assert got_bias == pytest.approx(bias, abs=0.1)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_a_transform_moves_the_labels_with_the_dice(name: str) -> None:
    img = background(320, 240, "plain", np.random.default_rng(1))
    die = draw_die(img, 5, (100, 90), 40, 0.0, (30, 30, 200), (250, 250, 250))
    photo = Photo(Path("p.png"), ((5, tuple(die.box)),))
    out, moved = TRANSFORMS[name](img.copy(), photo)
    ((value, (x0, y0, x1, y1)),) = moved.dice
    assert value == 5
    patch = out[
        int(y0 + 0.3 * (y1 - y0)) : int(y1 - 0.3 * (y1 - y0)),
        int(x0 + 0.3 * (x1 - x0)) : int(x1 - 0.3 * (x1 - x0)),
    ]
    # the middle of the moved box is still the red die's face (redder than the table, whatever the light)
    red = patch[:, :, 2].astype(float) - patch[:, :, 0]
    assert patch.size and np.median(red) > 60, name
    assert math.isclose((x1 - x0) / (y1 - y0), 1.0, rel_tol=0.05)


def test_a_missing_network_file_is_named_in_the_error(tmp_path) -> None:
    frame = np.zeros((96, 96, 3), np.uint8)
    with pytest.raises(FileNotFoundError, match="die finder"):
        finder.find(frame, model=tmp_path / "finder.onnx")
    with pytest.raises(FileNotFoundError, match="face verifier"):
        verify.opinions(frame, [(48.0, 48.0, 30.0)], model=tmp_path / "verifier.onnx")


def test_the_grade_fit_refuses_a_model_file_that_is_not_there(tmp_path: Path, capsys) -> None:
    from vision.training import confidence as fit

    with pytest.raises(SystemExit) as stop:
        fit.main(["--datasets", str(tmp_path), "--finder", str(tmp_path / "finder.onnx")])
    assert stop.value.code == 2
    assert f"{tmp_path / 'finder.onnx'}: no such model file" in capsys.readouterr().err


def _opinion(**p: float) -> np.ndarray:
    """The verifier's probabilities, "no face" and values 1-6, from named shares (v1..v6)."""
    o = np.zeros(7)
    for name, share in p.items():
        o[int(name[1:])] = share
    return o


@pytest.mark.parametrize(
    ("value", "opinion", "centre", "disputed"),
    [
        (4, _opinion(v4=0.97, v5=0.03), 0.0, False),
        (4, _opinion(v4=0.35, v5=0.3, v6=0.35), 0.0, True),  # the value read backed little
        (4, _opinion(v4=0.45, v5=0.55), 0.0, True),  # another value likelier
        (2, _opinion(v2=0.7, v3=0.3), 0.0, True),  # a 3 surely in view
        (2, _opinion(v2=0.9, v3=0.1), 0.3, True),  # a 3 in view, something at the 2's middle
        (2, _opinion(v2=0.9, v3=0.1), 0.05, False),
        (2, _opinion(v2=0.97, v3=0.03), 0.3, False),
        (4, _opinion(v4=0.45, v6=0.4), 0.0, True),  # a higher value nearly as likely: pips missed
        (4, _opinion(v4=0.55, v6=0.4), 0.0, False),
        (4, _opinion(v4=0.45, v3=0.4), 0.0, False),  # a lower one: pips the verifier does not see
    ],
)
def test_a_reading_the_verifier_disputes_is_graded_unsure(
    value: int, opinion: np.ndarray, centre: float, disputed: bool
) -> None:
    from vision import confidence

    n = 200
    img = background(n, n, "cloth", np.random.default_rng(2))
    draw_die(img, value, (n / 2, n / 2), 70, 12.0)
    reading = face.read_face(img, n / 2, n / 2, 70)
    assert reading.value == value
    spot = Spot(n / 2, n / 2, 70, 0.95)
    reading.opinion = np.eye(7)[value]
    assert confidence.grade(spot, reading).right > 0.9  # the pips and the verifier agree: sure
    reading.opinion, reading.centre = opinion, centre
    assert confidence.disputed(reading) == disputed
    if disputed:
        assert confidence.grade(spot, reading).right <= T.DISPUTED


@pytest.mark.parametrize(
    ("value", "low", "above", "side"),
    [
        (4, 0.12, 0.9, True),  # a front face's 4 low in the spot, the top's pip above it
        (4, 0.12, 0.5, False),  # a weak blob above: a rim, print or a neighbour's pip
        (4, 0.0, 0.9, False),  # pips in the middle of the spot: the top face itself
        (3, 0.12, 0.9, False),  # too few pips to tell a side face from a top face
    ],
)
def test_a_slanted_dies_front_face_under_its_tops_pip_is_graded_unsure(
    value: int, low: float, above: float, side: bool
) -> None:
    from vision import confidence

    spot = Spot(100, 100, 60, 0.95)
    grid = np.array([-1 - 1j, 1 - 1j, -1 + 1j, 1 + 1j])[:value]
    pips = complex(100, 100 + low * 60) + 12 * grid
    reading = face.FaceReading(value, 8.0, -1.0, 40.0, 0.1, pips, opinion=np.eye(7)[value], above=above)
    assert confidence.side_face(spot, reading) == side
    if side:
        assert confidence.grade(spot, reading).right <= T.DISPUTED


def test_the_strongest_blob_above_the_pips_read_is_measured() -> None:
    z = np.array([10 + 5j, 10 + 20j, 20 + 20j, 10 + 30j, 20 + 30j, 15 + 40j])
    strength = np.array([0.9, 1.0, 1.0, 1.0, 1.0, 2.0])
    taken = np.array([False, True, True, True, True, False])
    assert face._above(z, strength, taken) == pytest.approx(0.9)  # the blob below them does not count
    assert face._above(z, strength, np.array([True, True, True, True, True, False])) == 0.0


def test_a_dies_pip_spots_are_not_counted_when_the_die_surely_drops_them(monkeypatch) -> None:
    from vision import confidence, reader
    from vision.confidence import Grade

    big = Spot(100, 100, 60, 0.9)
    pips = np.array([88 + 88j, 112 + 112j])
    specks = [Spot(p.real, p.imag, 10, 0.4) for p in pips]
    read = [(big, face.FaceReading(2, 8.0, -1.0, 40.0, 0.1, pips))]
    read += [(s, face.FaceReading(1, 2.0, -3.0, 10.0, 0.1, np.array([complex(s.x, s.y)]))) for s in specks]
    asked = _reads(monkeypatch, read)
    die = {id(big): 0.99}
    monkeypatch.setattr(confidence, "grade", lambda spot, r, model: Grade(die.get(id(spot), 0.9), 0.9))
    assert [d.value for d in reader.read_dice(np.zeros((200, 200, 3), np.uint8))] == [2]
    assert [p for batch in asked for p in batch] == [(100, 100, 60)]
    # A large spot unlikely to be a die drops nothing: what lies inside it is read.
    die[id(big)] = 0.1
    asked.clear()
    assert [d.value for d in reader.read_dice(np.zeros((200, 200, 3), np.uint8))] == [1, 1]
    assert len([p for batch in asked for p in batch]) == 3


@pytest.mark.parametrize("seed", range(40))
def test_spots_left_unread_change_nothing_the_reader_keeps(monkeypatch, seed: int) -> None:
    from vision import confidence, reader
    from vision.confidence import Grade

    # Dice, clusters of them and their pips' spots at random, each read and graded at random.
    rng = np.random.default_rng(seed)
    read, die = [], {}
    for _ in range(rng.integers(1, 4)):
        x, y, side = rng.uniform(100, 300), rng.uniform(100, 300), rng.uniform(40, 120)
        pips = x + 1j * y + side * 0.25 * (rng.uniform(-1, 1, 4) + 1j * rng.uniform(-1, 1, 4))
        spot = Spot(x, y, side, rng.uniform(0.3, 1))
        read.append((spot, face.FaceReading(4, 8.0, -1.0, 40.0, 0.1, pips)))
        for _ in range(rng.integers(0, 8)):
            near = (
                pips[rng.integers(4)]
                if rng.random() < 0.6
                else x + 1j * y + complex(*rng.uniform(-0.5, 0.5, 2) * side)
            )
            s = Spot(
                near.real + rng.normal(0, 2),
                near.imag + rng.normal(0, 2),
                side * rng.uniform(0.1, 0.7),
                rng.uniform(0.3, 1),
            )
            read.append(
                (
                    s,
                    face.FaceReading(
                        int(rng.integers(1, 7)), 2.0, -3.0, 10.0, 0.1, np.array([complex(s.x, s.y)])
                    ),
                )
            )
    for spot, _ in read:
        die[id(spot)] = rng.choice([0.1, 0.6, 0.99])
    _reads(monkeypatch, read)
    monkeypatch.setattr(confidence, "grade", lambda spot, r, model: Grade(die[id(spot)], die[id(spot)]))
    every = reader._one_per_die(
        [(s, r, Grade(die[id(s)], die[id(s)])) for s, r in read if die[id(s)] >= T.DIE_MIN]
    )
    dice = reader.read_dice(np.zeros((400, 400, 3), np.uint8))
    assert [d.value for d in dice] == [r.value for _, r, _ in every]
    assert [d.box[0] + d.box[2] for d in dice] == pytest.approx([2 * s.x for s, _, _ in every])
    assert [d.box[1] + d.box[3] for d in dice] == pytest.approx([2 * s.y for s, _, _ in every])


@pytest.mark.parametrize("no_face", [0.3, 0.7, 0.95])
def test_a_spot_the_verifier_doubts_shows_a_face_is_not_read(monkeypatch, no_face: float) -> None:
    from vision import reader

    die = Spot(100, 100, 40, 0.9)
    doubted = Spot(200, 100, 40, 0.8)
    # A lone small spot with no face beside the doubted one: its die around it would overlap it.
    part = Spot(200, 118, 12, 0.8)
    monkeypatch.setattr(finder, "find", lambda image, model, band=None: [die, doubted, part])
    seen = {(s.x, s.y, s.side): n for s, n in [(die, 0.01), (doubted, no_face), (part, 0.99)]}

    def opinions(image, places, model):
        return np.array([[seen.get(p, 0.0), 1, 0, 0, 0, 0, 0] for p in places]).reshape(-1, 7)

    monkeypatch.setattr(verify, "opinions", opinions)
    _, spots, _ = reader._faced_spots(np.zeros((300, 300, 3), np.uint8), reader.SHIPPED, None, T.FINDER_MIN)
    assert die in spots
    assert (doubted in spots) == (no_face < T.FACE_DOUBTED)
    # Only a spot surely faceless leaves room for the small spot's die to be looked at.
    assert any(s.side > part.side and s.x == part.x and s is not doubted for s in spots) == (
        no_face >= T.NO_FACE
    )


@pytest.mark.parametrize(
    ("larger_value", "capped", "kept"),
    [
        (4, False, (4, 0.95)),  # sure larger, the value read and the verifier's: it stands
        (5, False, (4, 0.3)),  # another value larger: the unsure reading stays
        (4, True, (4, 0.3)),  # a reading a rule caps is not made sure by a larger look
    ],
)
def test_an_unsure_reading_read_sure_larger_stands_only_as_its_own_value(
    monkeypatch, larger_value: int, capped: bool, kept: tuple
) -> None:
    from vision import confidence, reader
    from vision.confidence import Grade

    spot = Spot(100, 100, 40, 0.9)
    pips = 100 + 100j + 10 * np.array([-1 - 1j, 1 - 1j, -1 + 1j, 1 + 1j])
    _reads(monkeypatch, [(spot, face.FaceReading(4, 8.0, -1.0, 40.0, 0.1, pips))])
    opinion = np.array([0.0, 0, 0, 0, 1, 0, 0])  # the harness's verifier sees a face; here a 4
    monkeypatch.setattr(
        reader, "_faced_spots", lambda *a: (Halvings(np.zeros((8, 8, 3), np.uint8)), [spot], opinion[None])
    )
    monkeypatch.setattr(confidence, "grade", lambda s, r, model: Grade(0.9, 0.3, capped))
    grown = Spot(100, 100, 52, 0.9)
    reading = face.FaceReading(larger_value, 8.0, -1.0, 40.0, 0.1, pips)
    monkeypatch.setattr(
        reader, "_larger", lambda i, s, o, which, m: {j: (grown, reading, Grade(0.99, 0.95)) for j in which}
    )
    dice = reader.read_dice(np.zeros((200, 200, 3), np.uint8))
    assert [(d.value, d.confidence) for d in dice] == [kept]
