"""The dice chart (web.charts): six bars as tall as their counts, the fair
die's line and its 95% band on the same scale, and a drawing that scales."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tablepi.stats import fair_band
from web.charts import COMPACT, face_chart

SVG = "{http://www.w3.org/2000/svg}"


def parse(counts, title=""):
    root = ET.fromstring(str(face_chart(counts, title)))
    bars = [e for e in root.iter(f"{SVG}rect") if "bar" in e.get("class", "").split()]
    return root, bars


def height(e) -> float:
    return float(e.get("height"))


@pytest.mark.parametrize(
    "counts",
    [
        [10, 20, 30, 0, 5, 35],
        [166, 170, 158, 171, 160, 175],
        [1, 0, 0, 0, 0, 0],
        [3000, 2950, 3100, 2990, 3010, 4100],
    ],
)
def test_six_bars_as_tall_as_their_counts_on_one_baseline(counts):
    root, bars = parse(counts)
    assert [int(b.get("data-face")) for b in bars] == [1, 2, 3, 4, 5, 6]
    assert [int(b.get("data-count")) for b in bars] == counts
    scale = max(height(b) for b in bars) / max(counts)
    for bar, count in zip(bars, counts, strict=True):
        assert height(bar) == pytest.approx(count * scale, abs=0.011)  # to 1/100 of a unit
    bases = {round(float(b.get("y")) + height(b), 6) for b in bars}
    assert len(bases) == 1
    # The tallest bar fits in the drawing, and the counts are written on it.
    assert min(float(b.get("y")) for b in bars) >= 0
    written = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "count"]
    assert written == [f"{c:,}" for c in counts]
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "face"] == list("123456")


def test_the_fair_line_and_band_are_drawn_on_the_bars_scale():
    counts = [150, 170, 160, 180, 165, 175]
    root, bars = parse(counts)
    scale = height(bars[0]) / counts[0]
    base = float(bars[0].get("y")) + height(bars[0])
    expected, low, high = fair_band(sum(counts))
    (band,) = [e for e in root.iter(f"{SVG}rect") if e.get("class") == "band"]
    assert float(band.get("data-low")) == pytest.approx(low, abs=0.01)
    assert float(band.get("data-high")) == pytest.approx(high, abs=0.01)
    assert float(band.get("y")) == pytest.approx(base - high * scale, abs=0.01)
    assert float(band.get("y")) + height(band) == pytest.approx(base - low * scale, abs=0.02)
    (line,) = [e for e in root.iter(f"{SVG}line") if e.get("class") == "fair"]
    assert float(line.get("y1")) == pytest.approx(base - expected * scale, abs=0.01)
    assert float(line.get("data-expected")) == pytest.approx(sum(counts) / 6, abs=0.01)
    # 1,000 dice: a fair die gives 166.7 of each, 95% of the time within 144-190.
    assert (round(low), round(high)) == (144, 190)


def test_a_bar_outside_the_band_stands_out():
    _, bars = parse([100, 100, 100, 100, 100, 200])
    assert ["out" in b.get("class") for b in bars] == [False] * 5 + [True]
    assert bars[5].get("fill") != bars[0].get("fill")


def test_no_dice_draws_empty_bars_and_no_band():
    root, bars = parse([0] * 6)
    assert [height(b) for b in bars] == [0.0] * 6
    assert not [e for e in root.iter() if e.get("class") in ("band", "fair")]
    assert root.get("data-dice") == "0"


def test_the_drawing_scales_to_any_screen_and_says_what_it_shows():
    root, _ = parse([5, 6, 7, 8, 9, 10], title="Dice of <Ann & Ben>")
    assert root.get("viewBox") == "0 0 480 300"
    assert root.get("width") is None and root.get("height") is None  # sized by the page
    assert root.get("role") == "img"
    title = root.find(f"{SVG}title").text
    assert title.startswith("Dice of <Ann & Ben>. Faces of 45 dice: 1: 5, 2: 6")  # escaped in the markup


@pytest.mark.parametrize("counts", [[1, 2, 3], [1, 2, 3, 4, 5, -6], [1, 2, 3, 4, 5, 6.0], [0] * 7])
def test_counts_are_six_whole_numbers(counts):
    with pytest.raises(ValueError, match="six whole numbers"):
        face_chart(counts)


def test_the_compact_chart_for_the_tv_has_bigger_figures_and_no_scale():
    counts = [40, 45, 38, 50, 41, 46]
    full = ET.fromstring(str(face_chart(counts)))
    small = ET.fromstring(str(face_chart(counts, chart_id="tv-chart", layout=COMPACT)))
    assert small.get("viewBox") == "0 0 300 210" and small.get("id") == "tv-chart"
    assert not [t for t in small.iter(f"{SVG}text") if t.get("class") == "tick"]
    assert [t for t in full.iter(f"{SVG}text") if t.get("class") == "tick"]
    bars = [e for e in small.iter(f"{SVG}rect") if e.get("class") == "bar"]
    scale = height(bars[3]) / 50
    assert [height(b) for b in bars] == pytest.approx([c * scale for c in counts], abs=0.011)

    def size(root, cls):
        return float(next(t for t in root.iter(f"{SVG}text") if t.get("class") == cls).get("font-size"))

    # Relative to the drawing's width, the figures are half as big again.
    assert size(small, "count") / 300 > 1.5 * size(full, "count") / 480
