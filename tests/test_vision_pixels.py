"""The helpers the dice readers share: fast medians and percentiles, image input, crops."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import pixels


def test_fast_medians_and_percentiles_match_numpy() -> None:
    rng = np.random.default_rng(0)
    for n in range(1, 30):
        v = np.round(rng.random(n) * 40, 1)
        assert pixels.median(v) == np.median(v)
        assert pixels.median(list(v)) == np.median(v)
        assert pixels.percentiles(v, (20, 80)) == list(np.percentile(v, [20, 80]))
        faces = rng.random((n, 3)).astype(np.float32)
        assert np.array_equal(pixels.median(faces, axis=0), np.median(faces, axis=0))
        assert pixels.median(faces).dtype == np.float32
        rings = rng.random((4, n, 3)).astype(np.float32)
        assert np.array_equal(pixels.median(rings, axis=1), np.median(rings, axis=1))
        assert np.array_equal(pixels.median(rings, axis=-1), np.median(rings, axis=-1))


def test_images_of_every_kind_become_contiguous_8_bit_bgr() -> None:
    bgr = np.zeros((6, 8, 3), np.uint8)
    bgr[..., 2] = 200
    bgra = np.dstack([bgr, np.full((6, 8), 255, np.uint8)])
    for image in (bgr, bgr[:, ::-1], bgra, bgr.astype(np.float32) + 0.2):
        out = pixels.as_bgr(image)
        assert out.shape == (6, 8, 3) and out.dtype == np.uint8 and out.flags.c_contiguous
        assert (out[..., 2] == 200).all() and (out[..., :2] == 0).all()
    grey = pixels.as_bgr(np.full((6, 8), 90, np.uint8))
    assert grey.shape == (6, 8, 3) and (grey == 90).all()
    assert pixels.as_bgr(np.full((2, 2, 3), 300.0)).max() == 255  # clipped, not wrapped


NOT_IMAGES = [None, "photo.jpg", np.zeros((0, 4, 3), np.uint8), np.zeros((4, 4, 2), np.uint8)]


@pytest.mark.parametrize("bad", NOT_IMAGES)
def test_anything_but_an_image_is_refused_by_name(bad: object) -> None:
    with pytest.raises(ValueError, match="grade needs a BGR image array"):
        pixels.as_bgr(bad, "grade")


def test_crops_stop_at_the_image_edges() -> None:
    image = np.arange(100).reshape(10, 10)
    window, x0, y0 = pixels.crop(image, 5, 5, 2)
    assert (x0, y0) == (3, 3) and window.shape == (5, 5) and window[0, 0] == 33
    window, x0, y0 = pixels.crop(image, 1, 8, 3)
    assert (x0, y0) == (0, 5) and window.shape == (5, 5)
    assert pixels.box_side([10, 20, 30, 60]) == 30


def test_openings_by_long_lines_are_opencvs() -> None:
    rng = np.random.default_rng(3)
    kept = 0
    for trial in range(200):
        mask = (rng.random((60, 80)) < rng.uniform(0.3, 0.95)).astype(np.uint8) * 255
        if trial % 3 == 0:  # a run along the frame's edge, shorter than the line
            mask[:, : int(rng.integers(5, 30))] = 255
        length = int(rng.integers(3, 40))
        for line in (np.ones((1, length), np.uint8), np.ones((length, 1), np.uint8)):
            want = cv2.morphologyEx(mask, cv2.MORPH_OPEN, line)
            got = pixels.open_runs(mask, line)
            if got is None:
                assert not want.any()
            else:
                assert np.array_equal(got, want) and want.any()
                kept += 1
    assert 50 < kept < 350  # both outcomes were seen


def test_shrinking_by_a_whole_factor_averages_blocks() -> None:
    rng = np.random.default_rng(4)
    image = rng.integers(0, 256, (12, 18, 3)).astype(np.uint8)
    assert pixels.shrink_by(image, 1) is image
    small = pixels.shrink_by(image, 3)
    assert small.shape == (4, 6, 3)
    blocks = image.reshape(4, 3, 6, 3, 3).astype(np.float64).mean(axis=(1, 3))
    assert np.all(np.abs(small - blocks) <= 0.5 + 1e-9)  # each pixel the mean of its 3x3 block
    assert pixels.shrink_by(image[:13, :17], 3).shape == (4, 5, 3)  # sizes round down
    channels = cv2.transform(image.astype(np.float32), pixels.SUM3)
    assert np.allclose(channels, image.astype(np.float32).sum(axis=2))
