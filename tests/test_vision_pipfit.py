"""Fitting groups of candidate pips to the pip layouts (vision.pipfit)."""

from __future__ import annotations

import numpy as np
import pytest

from vision import pipfind, pipfit, pixels


def _best_subsets_size_by_size(pips, groups: list[list[int]]) -> list:
    """``pipfit.best_subsets`` as a pass per group size and layout size: the plain
    computation it must equal."""
    out: list = [None] * len(groups)
    by_size: dict[int, list[int]] = {}
    for k, g in enumerate(groups):
        if 2 <= len(g) <= 6 + pipfit.SIX_MAX_DROPPED:
            by_size.setdefault(len(g), []).append(k)
    for n, ks in by_size.items():
        members = np.array([groups[k] for k in ks]).reshape(len(ks), n)
        gx, gy, gr = pips.x[members], pips.y[members], pips.r[members]
        dist = np.sqrt((gx[:, :, None] - gx[:, None, :]) ** 2 + (gy[:, :, None] - gy[:, None, :]) ** 2)
        # Larger layouts first; a subset scores its fit less a penalty per pip
        # left out, and the first best score wins. A layout size that gives a
        # score of pipfit.WHOLE_GROUP_CONFIDENCE ends the search.
        best_score = np.zeros(len(ks))
        best_m = np.zeros(len(ks), int)
        best_c = np.zeros(len(ks), int)
        best_span = np.zeros(len(ks))
        done = np.zeros(len(ks), bool)
        # (a 6 may leave out one stray more than the other layouts)
        for m in range(min(n, 6), 1, -1):
            if n - m > (pipfit.SIX_MAX_DROPPED if m == 6 else pipfit.MAX_DROPPED):
                break
            combos, drops = pipfit.COMBOS[n, m], pipfit.DROPS[n, m]
            conf, span = pipfit.fit_all(dist, gr, combos)
            ok = conf > 0
            if not ok.any():
                continue
            kept_r = gr[:, combos]
            if m == 2:
                # The pips of a 2 are twins; a pip and a shadow in a corner are not.
                ok &= ~(kept_r.max(axis=-1) > pipfit.TWO_RADIUS_RATIO * kept_r.min(axis=-1))
            if drops.shape[1]:
                # Strays are smaller (foreshortened side pips) or off the face of the kept ones.
                dropped_r = gr[:, drops]
                if m == 2:
                    ok &= ~(dropped_r.max(axis=-1) > 0.8 * kept_r.min(axis=-1))
                cx = gx[:, combos].mean(axis=-1)
                cy = gy[:, combos].mean(axis=-1)
                off = (
                    np.hypot(gx[:, drops] - cx[..., None], gy[:, drops] - cy[..., None])
                    > pipfit.STRAY_SPANS * span[..., None]
                )
                small = dropped_r < 0.8 * pixels.median(kept_r, axis=-1)[..., None]
                ok &= (off | small).all(axis=-1)
                conf = conf - pipfit.DROP_PENALTY * drops.shape[1]
            score = np.where(ok, conf, -np.inf)
            top = np.argmax(score, axis=1)
            top_score = score[np.arange(len(ks)), top]
            better = ~done & (top_score > best_score)
            best_score[better] = top_score[better]
            best_m[better] = m
            best_c[better] = top[better]
            best_span[better] = span[np.arange(len(ks)), top][better]
            done |= best_score >= pipfit.WHOLE_GROUP_CONFIDENCE
            if done.all():
                break
        for b in np.nonzero(best_score > 0)[0].tolist():
            m, c = int(best_m[b]), int(best_c[b])
            g = groups[ks[b]]
            kept = [g[k] for k in pipfit.COMBOS[n, m][c].tolist()]
            out[ks[b]] = (kept, m, float(best_score[b]), float(best_span[b]) / pipfit.FACE_SPAN_RATIO)
    return out


@pytest.mark.parametrize("few", [0, 10**9])
def test_best_subsets_match_a_pass_per_group_size(monkeypatch: pytest.MonkeyPatch, few: int) -> None:
    # Groups of every size are fitted together, a layout size at a time, or
    # (few subsets) one by one in plain Python; each must get the pips,
    # value, score and size of a pass per group size, to the last bit.
    monkeypatch.setattr(pipfit, "FEW_SUBSETS", few)

    rng = np.random.default_rng(21)
    x, y, r = [], [], []
    groups = []
    for _ in range(400):
        n = int(rng.integers(1, 11))
        value = int(rng.integers(2, 7))
        step = rng.uniform(4, 12)
        angle = rng.uniform(0, np.pi)
        cx, cy = rng.uniform(50, 600, 2)
        layout = np.array(pipfit.PIP_GRID[value], float)[: min(n, value)] * step
        layout = layout @ np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
        layout += rng.normal(0, rng.choice([0.05, 0.5, 2.0]) * step / 10, layout.shape)
        extra = rng.uniform(-2.5 * step, 2.5 * step, (n - len(layout), 2))
        pts = np.concatenate([layout, extra])[rng.permutation(n)] + [cx, cy]
        groups.append(list(range(len(x), len(x) + n)))
        x += pts[:, 0].tolist()
        y += pts[:, 1].tolist()
        r += (step / rng.uniform(2.5, 4.5) * rng.uniform(0.7, 1.3, n)).tolist()
    # Two columns of four pips: two sixes fit exactly alike (the first must
    # win), each leaving out a row of two.
    for k in range(4):
        groups.append(list(range(len(x), len(x) + 8)))
        x += [100.0 + 50 * k + 12 * (i % 2) for i in range(8)]
        y += [400.0 + 6 * (i // 2) for i in range(8)]
        r += [2.5] * 8
    # pips on the same spot, and a few groups of one pip repeated
    groups += [[0, 0, 1], [5, 6, 5, 7]]
    pips = pipfind.Pips(np.array(x), np.array(y), np.array(r), np.ones(len(x), int), np.zeros((len(x), 3)))
    got = pipfit.best_subsets(pips, groups)
    assert got == _best_subsets_size_by_size(pips, groups)
    found = [b for b in got if b is not None]
    assert len(found) > 150 and {b[1] for b in found} == {2, 3, 4, 5, 6}
    assert got[400] is not None and got[400][0] == groups[400][:6]
    assert sum(len(b[0]) < len(g) for b, g in zip(got, groups, strict=True) if b is not None) > 20
    for k in range(0, len(groups), 37):
        assert pipfit.best_subsets(pips, groups[k : k + 5]) == got[k : k + 5]
